# The multi-part AOF of Redis 7.0: the directory and its manifest, BGREWRITEAOF (the incr-file
# switch at fork time, history deletion), CONFIG SET appendonly at runtime, manifest errors,
# the upgrade of an old single-file AOF, redis-check-aof, and cross-loading with Debian's Redis.
# The servers run with appendfsync always: these tests kill -9 right after writing, and with
# everysec a busy machine may postpone a write behind a background fsync (aof.tcl tests the
# policies themselves).

# The manifest of the server at `level` as a list of {name seq type} triples.
proc aof_manifest {{level 0}} {
    set fd [open [file join [server_path $level appendonlydir] appendonly.aof.manifest] r]
    set out {}
    foreach line [split [read $fd] "\n"] {
        if {$line eq ""} continue
        lappend out [list [lindex $line 1] [lindex $line 3] [lindex $line 5]]
    }
    close $fd
    return $out
}

proc aof_dir_files {{level 0}} {
    set out {}
    foreach f [glob -nocomplain -tails -directory [server_path $level appendonlydir] *] {
        lappend out $f
    }
    return [lsort $out]
}

# Waits until the AOF directory holds exactly `expected` (sorted): a finished rewrite removes
# the history files in the background, so they may outlive it briefly.
proc aof_wait_dir_files {expected {level 0}} {
    wait_for_condition 100 50 {[aof_dir_files $level] eq $expected} else {
        fail "the AOF directory holds [aof_dir_files $level], expected $expected"
    }
}

proc wait_for_rewrite {{level 0}} {
    wait_for_condition 200 50 {
        [aof_rewrite_idle $level]
    } else {
        fail "AOF rewrite did not finish"
    }
}

proc write_file {path text} {
    set fd [open $path wb]
    puts -nonewline $fd $text
    close $fd
}

start_server {tags {persistence aof} overrides {appendonly yes appendfsync always}} {
    test {appendonly yes at startup creates a base and an incr file listed by the manifest} {
        assert_equal {{appendonly.aof.1.base.rdb 1 b} {appendonly.aof.1.incr.aof 1 i}} \
            [aof_manifest]
        assert_equal {appendonly.aof.1.base.rdb appendonly.aof.1.incr.aof appendonly.aof.manifest} \
            [aof_dir_files]
    }

    test {BGREWRITEAOF makes a new base, keeps the incr file opened at the fork, deletes history} {
        r set a 1
        r lpush l x y z
        assert_equal {Background append only file rewriting started} [r bgrewriteaof]
        wait_for_rewrite
        assert_equal {{appendonly.aof.2.base.rdb 2 b} {appendonly.aof.2.incr.aof 2 i}} \
            [aof_manifest]
        aof_wait_dir_files {appendonly.aof.2.base.rdb appendonly.aof.2.incr.aof appendonly.aof.manifest}
        assert_equal ok [s aof_last_bgrewrite_status]
        assert_equal 1 [s aof_rewrites]
        set digest [r debug digest]
        restart_server 0 kill
        assert_equal $digest [r debug digest]
    }

    test {Writes during a rewrite land in the new incr file and survive it} {
        r config set rdb-key-save-delay 2000
        for {set i 0} {$i < 500} {incr i} {r set before:$i $i}
        assert_equal {Background append only file rewriting started} [r bgrewriteaof]
        assert_error "*Background append only file rewriting already in progress*" \
            {r bgrewriteaof}
        for {set i 0} {$i < 100} {incr i} {r set during:$i $i}
        r config set rdb-key-save-delay 0
        wait_for_rewrite
        set digest [r debug digest]
        restart_server 0 kill
        assert_equal $digest [r debug digest]
        assert_equal 99 [r get during:99]
        assert_equal 499 [r get before:499]
    }

    test {BGREWRITEAOF inside MULTI is scheduled} {
        r multi
        r bgrewriteaof
        assert_equal {{Background append only file rewriting scheduled}} [r exec]
        wait_for_rewrite
        assert_equal ok [s aof_last_bgrewrite_status]
    }

    test {Debian's redis-check-aof accepts the AOF directory} {
        r set checked 1
        set out [exec /usr/bin/redis-check-aof [server_path 0 appendonlydir/appendonly.aof.manifest]]
        assert_match "*All AOF files and manifest are valid*" $out
    }
}

# Every type, with a TTL, a stream with deleted entries, groups, a pending entry and an idle
# consumer, an empty stream, one that never had an entry (XGROUP CREATE MKSTREAM: its last id
# is 0-0, which XADD refuses), and a function library.
proc aof_fill_all_types {} {
    r set s v
    r set n 12345
    r pexpire s 1000000
    r rpush l a b 3
    r sadd st 1 2 x
    r zadd z 1.5 a -inf b 3 c
    r hset h f v g w
    r xadd x 1-1 a 1
    r xadd x 2-1 b 2 c 3
    r xadd x 3-1 d 4
    r xdel x 3-1
    r xgroup create x g 0
    r xreadgroup group g alice count 1 streams x >
    r xgroup createconsumer x g bob
    r xadd e 5-5 a 1
    r xdel e 5-5
    r xgroup create never g $ mkstream
    r function load replace "#!lua name=aoflib\nredis.register_function('aoff', function() return 1 end)"
}

start_server {tags {persistence aof} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test {aof-use-rdb-preamble no writes the base as commands, and it loads back} {
        aof_fill_all_types
        set digest [r debug digest]
        set groups [r xinfo groups x]
        set never [list [r xinfo stream never] [r xinfo groups never]]
        r bgrewriteaof
        wait_for_rewrite
        assert_equal {{appendonly.aof.2.base.aof 2 b} {appendonly.aof.2.incr.aof 2 i}} \
            [aof_manifest]
        set fd [open [server_path 0 appendonlydir/appendonly.aof.2.base.aof] rb]
        set head [read $fd 5]
        close $fd
        assert_equal "*3\r\n\$" $head
        restart_server 0 kill
        assert_equal $digest [r debug digest]
        assert_equal $groups [r xinfo groups x]
        assert_equal $never [list [r xinfo stream never] [r xinfo groups never]]
        assert_equal 1 [r fcall aoff 0]
        assert_range [r pttl s] 900000 1000000
        set out [exec /usr/bin/redis-check-aof [server_path 0 appendonlydir/appendonly.aof.manifest]]
        assert_match "*All AOF files and manifest are valid*" $out
    }
}

start_server {tags {persistence aof} overrides {appendonly yes appendfsync always aof-disable-auto-gc yes}} {
    test {aof-disable-auto-gc yes keeps the history files in the manifest} {
        r set a 1
        r bgrewriteaof
        wait_for_rewrite
        set types [lsort [lmap e [aof_manifest] {lindex $e 2}]]
        assert_equal {b h h i} $types
    }
}

start_server {tags {persistence aof}} {
    test {CONFIG SET appendonly yes creates the AOF from the data, and a server loads it} {
        r set before-aof 1
        r hset h f v
        r config set appendonly yes
        wait_for_rewrite
        assert_equal 1 [s aof_enabled]
        r set after-aof 2
        assert_equal {{appendonly.aof.1.base.rdb 1 b} {appendonly.aof.1.incr.aof 1 i}} \
            [aof_manifest]
        set digest [r debug digest]
        # A second server on the same directory (the first one writes nothing meanwhile).
        start_server [list dir [srv 0 dir] overrides {appendonly yes appendfsync always}] {
            assert_equal $digest [r debug digest]
            assert_equal 2 [r get after-aof]
        }
    }

    test {CONFIG SET appendonly no stops writing the AOF} {
        r config set appendonly no
        assert_equal 0 [s aof_enabled]
        set incr [file join [server_path 0 appendonlydir] appendonly.aof.1.incr.aof]
        set size [file size $incr]
        r set not-in-aof 1
        assert_equal $size [file size $incr]
    }
}

start_server {tags {persistence aof}} {
    test {BGREWRITEAOF with appendonly no leaves a base and a manifest, numbered on} {
        r set a 1
        assert_equal {Background append only file rewriting started} [r bgrewriteaof]
        wait_for_rewrite
        assert_equal {{appendonly.aof.1.base.rdb 1 b}} [aof_manifest]
        r bgrewriteaof
        wait_for_rewrite
        assert_equal {{appendonly.aof.2.base.rdb 2 b}} [aof_manifest]
        aof_wait_dir_files {appendonly.aof.2.base.rdb appendonly.aof.manifest}
        assert_equal 0 [s aof_enabled]
        assert_equal 2 [s aof_rewrites]
    }

    test {A restart with appendonly no keeps the manifest's numbering for the next rewrite} {
        restart_server 0 term
        r bgrewriteaof
        wait_for_rewrite
        assert_equal {{appendonly.aof.3.base.rdb 3 b}} [aof_manifest]
    }
}

start_server {tags {persistence aof} overrides {appendonly yes appendfsync always}} {
    test {auto-aof-rewrite-percentage starts a rewrite when the AOF has grown enough} {
        r config set auto-aof-rewrite-min-size 1
        r config set auto-aof-rewrite-percentage 1
        for {set i 0} {$i < 100} {incr i} {r set grow:$i [string repeat x 100]}
        wait_for_condition 100 50 {
            [s aof_rewrites] >= 1 && [s aof_rewrite_in_progress] == 0
        } else {
            fail "no automatic AOF rewrite"
        }
        r config set auto-aof-rewrite-percentage 0
        wait_for_rewrite
        assert_equal ok [s aof_last_bgrewrite_status]
        assert {[count_log_message "*Starting automatic rewriting of AOF on*growth*"] > 0}
    }
}

# Starts the binary on `dir` (already prepared) briefly and returns {status output}.
proc aof_run_on {dir {extra {}}} {
    set port [::server::find_free_port]
    return [run_server_briefly [list --port $port --bind 127.0.0.1 --dir $dir --save "" \
        --appendonly yes {*}$extra] 10000]
}

tags {persistence aof} {
    foreach {manifest error} {
        "file appendonly.aof.1.base.rdb seq 1\n" "Invalid AOF manifest file format"
        "file a.base seq 1 type b\nfile b.base seq 2 type b\n" "Found duplicate base file information"
        "file a.incr seq 2 type i\nfile b.incr seq 1 type i\n" "Found a non-monotonic sequence number"
        "file a.incr seq 1 type x\n" "Unknown AOF file type"
        "file ../a.incr seq 1 type i\n" "File can't be a path, just a filename"
        "" "Found an empty AOF manifest"
    } {
        test "A bad manifest stops the server: $error" {
            set dir [::server::new_dir]
            file mkdir [file join $dir appendonlydir]
            write_file [file join $dir appendonlydir appendonly.aof.manifest] $manifest
            lassign [aof_run_on $dir] status output
            file delete -force $dir
            assert_equal {exit 1} $status
            assert_match "*$error*" $output
        }
    }

    test {A file listed by the manifest but missing on disk stops the server} {
        set dir [::server::new_dir]
        file mkdir [file join $dir appendonlydir]
        write_file [file join $dir appendonlydir appendonly.aof.manifest] \
            "file appendonly.aof.1.incr.aof seq 1 type i\n"
        lassign [aof_run_on $dir] status output
        file delete -force $dir
        assert_equal {exit 1} $status
    }
}

tags {persistence aof} {
    test {An old single-file appendonly.aof is moved into the directory and loaded} {
        set dir [::server::new_dir]
        file mkdir $dir
        write_file [file join $dir appendonly.aof] \
            "*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n*3\r\n\$3\r\nSET\r\n\$3\r\nold\r\n\$5\r\nvalue\r\n"
        start_server [list tags {persistence aof} dir $dir overrides {appendonly yes appendfsync always}] {
            r select 0
            assert_equal value [r get old]
            assert {![file exists [file join $dir appendonly.aof]]}
            assert {[file exists [file join $dir appendonlydir appendonly.aof]]}
            assert_equal {appendonly.aof 1 b} [lindex [aof_manifest] 0]
            r set new 1
            restart_server 0 kill
            r select 0
            assert_equal value [r get old]
            assert_equal 1 [r get new]
        }
        file delete -force $dir
    }
}

# Cross-loading: the AOF directory one server wrote, loaded by the other.
tags {persistence aof redistp} {
    test {Redis 7.0 loads a command-form base redis-tp wrote} {
        set dir [::server::new_dir]
        file mkdir $dir
        set digest ""
        start_server [list dir $dir overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}] {
            aof_fill_all_types
            r bgrewriteaof
            wait_for_rewrite
            r set after 1
            set digest [r debug digest]
            set groups [r xinfo groups x]
        }
        start_server [list binary /usr/bin/redis-server dir $dir overrides {appendonly yes appendfsync always}] {
            assert_equal $digest [r debug digest]
            assert_equal $groups [r xinfo groups x]
        }
        file delete -force $dir
    }

    test {Redis 7.0 loads the AOF directory redis-tp wrote (base, rewrite, incr)} {
        set dir [::server::new_dir]
        file mkdir $dir
        set digest ""
        start_server [list dir $dir overrides {appendonly yes appendfsync always}] {
            r set s v
            r rpush l 1 2 3
            r hset h a 1 b 2
            r zadd z 1 x 2 y
            r sadd st m n
            r bgrewriteaof
            wait_for_rewrite
            r set after-rewrite 1
            r pexpire s 500000
            r select 3
            r set other-db 1
            r select 9
            set digest [r debug digest]
        }
        start_server [list binary /usr/bin/redis-server dir $dir overrides {appendonly yes appendfsync always}] {
            assert_equal $digest [r debug digest]
            r select 3
            assert_equal 1 [r get other-db]
        }
        file delete -force $dir
    }

    test {redis-tp loads the AOF directory Redis 7.0 wrote} {
        set dir [::server::new_dir]
        file mkdir $dir
        set digest ""
        start_server [list binary /usr/bin/redis-server dir $dir overrides {appendonly yes appendfsync always}] {
            r set s v
            r rpush l 1 2 3
            r hset h a 1 b 2
            r bgrewriteaof
            wait_for_rewrite
            r zadd z 1 x 2 y
            r multi
            r incr counter
            r sadd st m n
            r exec
            r set ex v ex 1000
            set digest [r debug digest]
        }
        start_server [list dir $dir overrides {appendonly yes appendfsync always}] {
            assert_equal $digest [r debug digest]
            assert_range [r ttl ex] 900 1000
        }
        file delete -force $dir
    }
}
