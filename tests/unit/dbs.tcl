# Numbered databases: 16 by default, isolated from each other, SELECT
# bounds, and the `databases` config (fixed at startup).

start_server {tags {dbs}} {
    test {The default is 16 databases} {
        assert_equal [r config get databases] {databases 16}
        set c [redis_client]
        assert_equal [$c select 15] OK
        assert_error {ERR DB index is out of range} {$c select 16}
        $c close
    } {} {needs:config}

    test {Each database keeps its own keys} {
        r flushall
        set c [redis_client]
        for {set db 0} {$db < 16} {incr db} {
            $c select $db
            $c set shared "value of $db"
            $c set only:$db $db
        }
        for {set db 0} {$db < 16} {incr db} {
            $c select $db
            assert_equal [$c get shared] "value of $db"
            assert_equal [$c dbsize] 2
            assert_equal [$c exists only:$db] 1
            set other [expr {($db + 1) % 16}]
            assert_equal [$c exists only:$other] 0
        }
        $c close
    }

    test {INFO keyspace lists every non-empty database} {
        set info [r info keyspace]
        for {set db 0} {$db < 16} {incr db} {
            assert_match {keys=2,expires=0*} [getInfoProperty $info db$db]
        }
        r flushall
        assert_equal [getInfoProperty [r info keyspace] db0] {}
    }

    test {Same key name, different types and TTLs per database} {
        set a [redis_client]
        set b [redis_client]
        $a select 1
        $b select 2
        $a set k v ex 100
        $b rpush k x y
        assert_equal [$a type k] string
        assert_equal [$b type k] list
        assert_range [$a ttl k] 99 100
        assert_equal [$b ttl k] -1
        assert_equal [$b del k] 1
        assert_equal [$a get k] v
        $a flushall
        $a close
        $b close
    }

    test {FLUSHDB and DBSIZE are per database} {
        set a [redis_client]
        set b [redis_client]
        $a select 7
        $b select 8
        $a mset x 1 y 2
        $b set z 3
        $a flushdb
        assert_equal [$a dbsize] 0
        assert_equal [$b dbsize] 1
        $b flushdb
        $a close
        $b close
    }

    test {Every client has its own selected database} {
        set a [redis_client]
        set b [redis_client]
        $a select 3
        assert_match {* db=3 *} [$a client info]
        assert_match "* db=[srv db] *" [$b client info]
        $a set mine 1
        assert_equal [$b exists mine] 0
        $a flushdb
        $a close
        $b close
    }

    test {databases cannot change at runtime} {
        assert_error {ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config} {
            r config set databases 4
        }
    } {} {needs:config}
}

start_server {tags {dbs external:skip} overrides {databases 4}} {
    test {With databases 4 only 0..3 exist} {
        assert_equal [r config get databases] {databases 4}
        for {set db 0} {$db < 4} {incr db} {
            assert_equal [r select $db] OK
        }
        assert_error {ERR DB index is out of range} {r select 4}
        r select 0
        r set k v
        assert_error {ERR DB index is out of range} {r move k 4}
        assert_error {ERR DB index is out of range} {r copy k k db 4}
        assert_error {ERR DB index is out of range} {r swapdb 0 4}
        assert_equal [r move k 3] 1
        assert_equal [r swapdb 0 3] OK
        assert_equal [r get k] v
    }
}

start_server {tags {dbs external:skip} overrides {databases 1}} {
    test {With a single database SELECT 0 is the only choice} {
        assert_equal [r select 0] OK
        assert_error {ERR DB index is out of range} {r select 1}
        r set k v
        assert_error {ERR source and destination objects are the same} {r move k 0}
        assert_equal [r swapdb 0 0] OK
        assert_equal [r get k] v
    }
}

start_server {tags {dbs external:skip} overrides {databases 100}} {
    test {With databases 100 the last one is 99} {
        assert_equal [r select 99] OK
        r set k v
        assert_error {ERR DB index is out of range} {r select 100}
        assert_match {keys=1,*} [getInfoProperty [r info keyspace] db99]
    }
}

tags {dbs external:skip} {
    test {Startup rejects databases outside 1..2147483647} {
        foreach {value message} {
            0 {*argument must be between 1 and 2147483647 inclusive*}
            -1 {*argument must be between 1 and 2147483647 inclusive*}
            abc {*argument couldn't be parsed into an integer*}
        } {
            lassign [run_server_briefly [list --port 0 --bind 127.0.0.1 --save "" \
                --databases $value]] status output
            assert_equal $status "exit 1" "databases $value"
            assert_match $message $output
        }
    }
}
