# The RDB file across a restart: SAVE, a clean shutdown with save points, DEBUG RELOAD, and
# what is never saved (temporary keys). The cross checks with Debian's Redis are in
# rdb-compat.tcl.

start_server {tags {persistence}} {
    test {SAVE writes dump.rdb and a restart loads it back} {
        r flushall
        r set foo bar
        r rpush list a b c
        r hset hash f v
        r set expiring v px 600000
        set digest [r debug digest]
        r save
        assert {[file exists [server_path 0 dump.rdb]]}
        restart_server 0 kill
        assert_equal $digest [r debug digest]
        assert_range [r pttl expiring] 1 600000
    }

    test {DEBUG RELOAD keeps the dataset} {
        r flushall
        r sadd set 1 2 3
        r zadd zset 1 a 2 b
        set digest [r debug digest]
        assert_equal OK [r debug reload]
        assert_equal $digest [r debug digest]
    }

    test {DEBUG RELOAD rejects unknown options} {
        assert_error "*only supports the MERGE, NOFLUSH and NOSAVE options*" {r debug reload foo}
    }
}

start_server {tags {persistence} overrides {save "900 1"}} {
    test {A clean shutdown saves when save points are configured} {
        r flushall
        r set survivor 1
        restart_server 0 term
        assert_equal 1 [r get survivor]
    }
}

start_server {tags {persistence redistp}} {
    test {Temporary keys are never saved, and fencing tokens keep growing after a restart} {
        r flushall
        r set ordinary v
        assert_equal 1 [r settp temp v]
        set token [r settp fenced v FENCE]
        r save
        restart_server 0 kill
        assert_equal 1 [r exists ordinary]
        assert_equal 0 [r exists temp]
        assert_equal 0 [r exists fenced]
        set after [r settp fenced2 v FENCE]
        assert {$after > $token}
    }
}
