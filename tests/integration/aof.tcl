# The append-only file: what is written (records, MULTI/EXEC, absolute expiry, scripts as
# their effects, timestamps), every fsync policy across a crash, loading faults (truncated
# tail, corrupt file) and DEBUG LOADAOF. The multi-part layout, rewrites and cross-loading
# with Debian's Redis are in aof-multipart.tcl.

# Waits until the server at `level` has written its AOF buffer to the file: with everysec a
# write may be postponed (up to two seconds) behind a background fsync that is still running.
proc aof_wait_written {{level 0}} {
    wait_for_condition 200 20 {[s $level aof_buffer_length] == 0} else {
        fail "the AOF buffer was not written"
    }
}

# The content of every incr file of the server at `level`, concatenated.
proc aof_incr_text {{level 0}} {
    aof_wait_written $level
    set text ""
    foreach f [lsort [glob -nocomplain [file join [server_path $level appendonlydir] *.incr.aof]]] {
        set fd [open $f rb]
        append text [read $fd]
        close $fd
    }
    return $text
}

# The path of the last incr file listed in the manifest (once the buffer is written, so a
# kill -9 after it keeps every record so far).
proc aof_last_incr {{level 0}} {
    aof_wait_written $level
    set dir [server_path $level appendonlydir]
    set fd [open [file join $dir appendonly.aof.manifest] r]
    set last ""
    foreach line [split [read $fd] "\n"] {
        if {[lindex $line 5] eq "i"} {set last [lindex $line 1]}
    }
    close $fd
    return [file join $dir $last]
}

proc aof_append_raw {path bytes} {
    set fd [open $path ab]
    puts -nonewline $fd $bytes
    close $fd
}

foreach policy {always everysec no} {
    start_server [list tags {persistence aof} overrides [list appendonly yes appendfsync $policy]] {
        test "appendfsync $policy: every acknowledged write is back after kill -9" {
            for {set i 0} {$i < 200} {incr i} {
                r set key:$i $i
            }
            r rpush list a b c
            r hset hash f v
            r sadd set x y
            r zadd zset 1 a 2 b
            set digest [r debug digest]
            # A kill -9 keeps what was written (the kernel has it); everysec may postpone the
            # write itself behind a running fsync.
            aof_wait_written
            restart_server 0 kill
            assert_equal $digest [r debug digest]
            assert_equal 199 [r get key:199]
        }
    }
}

start_server {tags {persistence aof} overrides {appendonly yes}} {
    test {A transaction is written whole, between MULTI and EXEC} {
        r multi
        r set tx:a 1
        r incr tx:b
        r exec
        assert {[string match -nocase {*MULTI*tx:a*tx:b*EXEC*} [aof_incr_text]]}
    }

    test {Relative expiry is written as an absolute time} {
        r set exp:a v ex 1000
        r set exp:b v
        r expire exp:b 1000
        set text [aof_incr_text]
        assert {[string match -nocase {*PXAT*} $text]}
        assert {[string match -nocase {*PEXPIREAT*exp:b*} $text]}
        restart_server 0 kill
        assert_range [r ttl exp:a] 900 1000
        assert_range [r ttl exp:b] 900 1000
    }

    test {A script is written as the commands it ran} {
        r eval {redis.call('set', KEYS[1], 'from-script')} 1 script:key
        set text [aof_incr_text]
        assert {![string match -nocase {*eval*} $text]}
        assert_match {*script:key*from-script*} $text
        restart_server 0 kill
        assert_equal from-script [r get script:key]
    }

    test {Reads write nothing to the AOF} {
        set before [file size [aof_last_incr]]
        r get tx:a
        r exists exp:a
        assert_equal $before [file size [aof_last_incr]]
    }

    test {DEBUG LOADAOF reloads the same dataset} {
        r set loadaof:k v
        r lpush loadaof:l 1 2 3
        set digest [r debug digest]
        assert_equal OK [r debug loadaof]
        assert_equal $digest [r debug digest]
    }

    test {INFO persistence lists the aof fields of an enabled AOF in Redis's order} {
        set fields {}
        foreach line [split [r info persistence] "\r\n"] {
            if {[string match aof_* $line]} {lappend fields [lindex [split $line :] 0]}
        }
        assert_equal [list aof_enabled aof_rewrite_in_progress aof_rewrite_scheduled \
            aof_last_rewrite_time_sec aof_current_rewrite_time_sec aof_last_bgrewrite_status \
            aof_rewrites aof_rewrites_consecutive_failures aof_last_write_status \
            aof_last_cow_size aof_current_size aof_base_size aof_pending_rewrite \
            aof_buffer_length aof_pending_bio_fsync aof_delayed_fsync] $fields
        assert_equal 1 [s aof_enabled]
        assert_equal ok [s aof_last_write_status]
        assert_morethan [s aof_current_size] 0
    }
}

# appendfsync always: with everysec a busy machine may postpone the write behind a pending
# background fsync, and the file would not yet hold the records this test reads and kills for.
start_server {tags {persistence aof}
              overrides {appendonly yes appendfsync always aof-timestamp-enabled yes}} {
    test {aof-timestamp-enabled annotates records with #TS lines, and loading skips them} {
        r set ts:a 1
        r set ts:b 2
        assert_match "*#TS:*" [aof_incr_text]
        restart_server 0 kill
        assert_equal {1 2} [r mget ts:a ts:b]
    }
}

start_server {tags {persistence aof} overrides {appendonly yes aof-load-truncated yes}} {
    test {A truncated last command is cut off and the rest loads (aof-load-truncated yes)} {
        r set before-cut 1
        set incr [aof_last_incr]
        restart_server 0 kill
        aof_append_raw $incr "*3\r\n\$3\r\nSET\r\n\$5\r\nafter\r\n\$1"
        restart_server 0 kill
        assert_equal 1 [r get before-cut]
        assert_equal 0 [r exists after]
        assert {[count_log_message "*short read while loading the AOF file*"] > 0}
        # The file was truncated at the last complete command, so it loads cleanly again.
        set size [file size $incr]
        restart_server 0 kill
        assert_equal 1 [r get before-cut]
        assert_equal $size [file size $incr]
    }

    test {An unfinished MULTI at the end is reverted} {
        r set committed 1
        set incr [aof_last_incr]
        restart_server 0 kill
        aof_append_raw $incr "*1\r\n\$5\r\nMULTI\r\n*3\r\n\$3\r\nSET\r\n\$11\r\nuncommitted\r\n\$1\r\n1\r\n"
        restart_server 0 kill
        assert_equal 1 [r get committed]
        assert_equal 0 [r exists uncommitted]
        assert {[count_log_message "*Revert incomplete MULTI/EXEC transaction*"] > 0}
    }
}

# A server that must refuse to start on a faulty AOF directory: prepares `dir` with an AOF
# written by a server, damages it with `damage` (a script given the incr path), then runs the
# binary on it briefly. Returns {status output}.
proc aof_start_on_damaged {extra damage} {
    set result {}
    start_server {tags {persistence aof} overrides {appendonly yes}} {
        r set k v
        set dir [srv 0 dir]
        set incr [aof_last_incr]
        restart_server 0 kill
        eval $damage
        set port [::server::find_free_port]
        set result [run_server_briefly [list --port $port --bind 127.0.0.1 --dir $dir \
            --save "" --appendonly yes {*}$extra] 10000]
    }
    return $result
}

tags {persistence aof} {
    test {A truncated AOF with aof-load-truncated no stops the server with the advice} {
        lassign [aof_start_on_damaged {--aof-load-truncated no} {
            aof_append_raw $incr "*2\r\n\$3\r\nDEL\r\n"
        }] status output
        assert_equal {exit 1} $status
        assert_match "*Unexpected end of file reading the append only file*redis-check-aof --fix*" $output
    }

    test {Garbage in the AOF stops the server with Bad file format} {
        lassign [aof_start_on_damaged {} {
            aof_append_raw $incr "this is not a command\r\n*1\r\n\$4\r\nPING\r\n"
        }] status output
        assert_equal {exit 1} $status
        assert_match "*Bad file format reading the append only file*" $output
    }

    test {An unknown command in the AOF stops the server} {
        lassign [aof_start_on_damaged {} {
            aof_append_raw $incr "*1\r\n\$11\r\nNOSUCHCMDXX\r\n"
        }] status output
        assert_equal {exit 1} $status
        assert_match "*Unknown command 'NOSUCHCMDXX' reading the append only file*" $output
    }
}

start_server {tags {persistence aof redistp} overrides {appendonly yes}} {
    test {A temporary key replayed from the AOF is gone once loading ends, also the second time} {
        r set ordinary v
        assert_equal 1 [r settp temp v]
        set token [r settp fenced v FENCE]
        assert {[string match -nocase "*settp*temp*" [aof_incr_text]]}
        restart_server 0 kill
        assert_equal 1 [r exists ordinary]
        assert_equal 0 [r exists temp]
        assert_equal 0 [r exists fenced]
        restart_server 0 kill
        assert_equal 0 [r exists temp]
        assert {[r settp fenced2 v FENCE] > $token}
    }
}

# An AOF (or a master) may carry PEXPIREAT with time 0. Replayed while expiry is suspended,
# the time is set as it is: the key is long expired. The TTL index once took such a key in but,
# reading 0 as "no TTL", never let it go: active expiry then sampled a freed entry.
start_server {tags {persistence aof} overrides {appendonly yes}} {
    test {PEXPIREAT at time 0 replayed from the AOF: the key expires and the TTL index stays sound} {
        r set gone v
        r set stays v
        set incr [aof_last_incr]
        restart_server 0 kill
        aof_append_raw $incr "*3\r\n\$9\r\nPEXPIREAT\r\n\$4\r\ngone\r\n\$1\r\n0\r\n"
        restart_server 0 kill
        wait_for_condition 100 50 {[r dbsize] == 1} else {
            fail "active expiry never reclaimed the key: dbsize [r dbsize]"
        }
        assert_equal 0 [r exists gone]
        assert_match "*db9:keys=1,expires=0,*" [r info keyspace]
        # More volatile keys come and go through the same index.
        for {set i 0} {$i < 300} {incr i} {r set v:$i x px 1}
        wait_for_condition 100 50 {[r dbsize] == 1} else {
            fail "active expiry left [r dbsize] keys"
        }
        assert_equal v [r get stays]
        assert_match "*db9:keys=1,expires=0,*" [r info keyspace]
        assert_equal PONG [r ping]
    }
}

# Issue 20: DEBUG LOADAOF wrote a record of its own into the AOF ("*0" when a replayed command
# had asked for a rewrite, else "DEBUG LOADAOF", which the next load replayed recursively).
start_server {tags {persistence aof} overrides {appendonly yes}} {
    test {DEBUG LOADAOF then GETEX PERSIST: the AOF loads again, and after a restart} {
        r set foo bar ex 100
        assert_equal OK [r debug loadaof]
        assert_equal bar [r getex foo persist]
        assert_equal OK [r debug loadaof]
        assert_equal -1 [r ttl foo]
        restart_server 0 kill
        assert_equal -1 [r ttl foo]
        assert_equal bar [r get foo]
    }

    test {DEBUG LOADAOF writes no record: neither itself nor an empty one} {
        r set again 1
        r debug loadaof
        r set again 2
        r debug loadaof
        r debug loadaof
        set text [aof_incr_text]
        assert_no_match "*
\*0
*" $text
        assert {![string match -nocase "*\r\n\$7\r\nloadaof\r\n*" $text]}
        set out [exec /usr/bin/redis-check-aof [server_path 0 appendonlydir/appendonly.aof.manifest]]
        assert_match "*All AOF files and manifest are valid*" $out
        set digest [r debug digest]
        restart_server 0 kill
        assert_equal $digest [r debug digest]
        assert_equal 2 [r get again]
    }

}

# A script written verbatim into the AOF (as Redis 6 wrote EVAL) that runs past
# busy-reply-threshold while it is replayed: the other clients are served meanwhile, and since
# the server is loading they are told LOADING, not BUSY. The loop is long (millions of calls)
# so that it is still running when the test looks; the test waits for its end, not for a time.
start_server {tags {persistence aof} overrides {appendonly yes busy-reply-threshold 10}} {
    test {A slow script replayed from the AOF: other clients get LOADING until it ends} {
        r set x before
        set script {redis.call('set', KEYS[1], 'y'); for i = 1, 1000000 do redis.call('ping') end; return 'ok'}
        set record "*4\r\n\$4\r\neval\r\n\$[string length $script]\r\n$script\r\n\$1\r\n1\r\n\$1\r\nx\r\n"
        aof_append_raw [aof_last_incr] $record
        set rd [redis_deferring_client]
        $rd debug loadaof
        $rd flush
        wait_for_condition 500 10 {
            [catch {r ping} e] == 1 && [string match {LOADING*} $e]
        } else {
            fail "no LOADING reply while the AOF was replayed"
        }
        assert_error {LOADING*} {r set other 1}
        assert_error {LOADING*} {r script kill}
        # A command allowed while loading still waits for the script: BUSY comes after LOADING.
        assert_error {BUSY*} {r info persistence}
        assert_equal OK [$rd read]
        $rd close
        assert {[count_log_message "*Slow script detected*"] > 0}
        assert_equal y [r get x]
        assert_match "*loading:0*" [r info persistence]
    }
}
