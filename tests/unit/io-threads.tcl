# io-threads (issue 27): the write pass on I/O threads. Replies, Pub/Sub messages shared by many
# receivers, replies too big for the socket, failed writes and output limits, all with
# `io-threads 4`; Redis's activation rule (threads only for a pass with at least twice as many
# clients with output as threads) and the INFO fields that show it.
#
# The first server runs with REDISTP_IO_THREADS_ALWAYS=1 in its environment, which makes
# redis-tp use the threads for every pass, so every test below goes through them whatever the
# number of clients (Redis 7.0 ignores the variable, and runs the same tests with its own rule).
# The whole suite can be run the same way: tests/test_helper.tcl --io-threads 4.

# `n` deferring clients.
proc iot_clients {n} {
    set cs {}
    for {set i 0} {$i < $n} {incr i} {lappend cs [redis_deferring_client]}
    return $cs
}

proc iot_close {cs} {
    foreach c $cs {$c close}
}

# `n` subscribers of `channel` get one PUBLISH, all in the same loop turn's write pass.
proc iot_publish_to {n channel} {
    set subs [iot_clients $n]
    foreach c $subs {
        $c subscribe $channel
        $c read
    }
    assert_equal $n [r publish $channel hello]
    foreach c $subs {assert_equal [list message $channel hello] [$c read]}
    iot_close $subs
}

foreach reads {no yes} {
start_server [list tags {io-threads} overrides [list io-threads 4 io-threads-do-reads $reads] \
                  env {REDISTP_IO_THREADS_ALWAYS 1}] {
    test "io-threads is read from the config and cannot be changed at run time (reads $reads)" {
        assert_equal {io-threads 4} [r config get io-threads]
        assert_equal [list io-threads-do-reads $reads] [r config get io-threads-do-reads]
        assert_error {*can't set immutable config*} {r config set io-threads 2}
        assert_error {*can't set immutable config*} {r config set io-threads-do-reads no}
    }

    test "Big arguments, split commands and MULTI arrive whole (reads $reads)" {
        # A 5 MB argument is read straight into its own room; a command sent a byte at a time
        # is completed over many reads.
        set big [string repeat b 5000000]
        assert_equal OK [r set iot:arg $big]
        assert_equal 5000000 [r strlen iot:arg]
        set sock [raw_connect]
        foreach ch [split "*3\r\n\$3\r\nset\r\n\$5\r\niot:s\r\n\$5\r\nhello\r\n" ""] {
            raw_write $sock $ch
        }
        assert_equal +OK [raw_read_line $sock]
        raw_write $sock "*2\r\n\$3\r\nget\r\n\$5\r\niot:s\r\n"
        assert_equal {$5} [raw_read_line $sock]
        assert_equal hello [raw_read_line $sock]
        raw_close $sock
        set rd [redis_deferring_client]
        $rd multi
        $rd incr iot:m
        $rd incr iot:m
        $rd exec
        assert_equal {OK QUEUED QUEUED {1 2}} [list [$rd read] [$rd read] [$rd read] [$rd read]]
        $rd close
    }

    test "A blocked client is served when its key arrives (reads $reads)" {
        set rd [redis_deferring_client]
        $rd blpop iot:list 0
        wait_for_blocked_clients_count 1
        set others [iot_clients 10]
        foreach c $others {$c ping}
        foreach c $others {assert_equal PONG [$c read]}
        iot_close $others
        r rpush iot:list x
        assert_equal {iot:list x} [$rd read]
        $rd close
    }

    test "AUTH changes what the same connection may send next (reads $reads)" {
        r config set requirepass iotpw
        set sock [raw_connect]
        # Unauthenticated: a multibulk of more than 10 arguments is a protocol error; after
        # AUTH in the same write, the next one is accepted.
        raw_write $sock "*2\r\n\$4\r\nauth\r\n\$5\r\niotpw\r\n*12\r\n\$4\r\nmset\r\n"
        foreach i {1 2 3 4 5 6 7 8 9 10 11} {
            raw_write $sock "\$1\r\n[expr {$i % 10}]\r\n"
        }
        assert_equal +OK [raw_read_line $sock]
        assert_match {-ERR wrong number of arguments*} [raw_read_line $sock]
        raw_close $sock
        r auth iotpw
        r config set requirepass ""
    }

    test "Pipelines of many clients get every reply, in order, with I/O threads (reads $reads)" {
        set cs [iot_clients 20]
        set i 0
        foreach c $cs {
            for {set j 0} {$j < 200} {incr j} {
                $c set iot:$i:$j [string repeat v [expr {$j * 7}]]
                $c incr iot:n:$i
                $c get iot:$i:$j
            }
            incr i
        }
        set i 0
        foreach c $cs {
            for {set j 0} {$j < 200} {incr j} {
                assert_equal OK [$c read]
                assert_equal [expr {$j + 1}] [$c read]
                assert_equal [string repeat v [expr {$j * 7}]] [$c read] "client $i reply $j"
            }
            incr i
        }
        iot_close $cs
    }

    test "Replies bigger than the socket buffer reach every client whole (reads $reads)" {
        # 4 MB values: each write stops at a full socket and finishes from the write event.
        r set iot:big [string repeat x 4000000]
        r append iot:big [string repeat y 1000]
        set cs [iot_clients 10]
        foreach c $cs {
            $c get iot:big
            $c ping
        }
        foreach c $cs {
            set v [$c read]
            assert_equal 4001000 [string length $v]
            assert_equal [string repeat y 1000] [string range $v end-999 end]
            assert_equal PONG [$c read]
        }
        iot_close $cs
    }

    test "A message to many subscribers reaches each one whole and in order (reads $reads)" {
        # One encoded message shared by every receiver's buffer, written from several threads.
        set subs [iot_clients 40]
        foreach c $subs {
            $c subscribe iot:ch
            assert_equal {subscribe iot:ch 1} [$c read]
        }
        set sizes {1 10 100 1000 10000 100000 300000}
        foreach size $sizes {
            assert_equal 40 [r publish iot:ch [string repeat [string index abcdefg [lsearch $sizes $size]] $size]]
        }
        set n 0
        foreach c $subs {
            foreach size $sizes {
                set m [$c read]
                assert_equal message [lindex $m 0]
                assert_equal $size [string length [lindex $m 2]] "subscriber $n"
                assert_equal [string repeat [string index abcdefg [lsearch $sizes $size]] $size] \
                    [lindex $m 2]
            }
            incr n
        }
        iot_close $subs
    }

    test "A client that goes away with replies pending is closed, the others are served (reads $reads)" {
        set before [s connected_clients]
        set gone {}
        for {set i 0} {$i < 5} {incr i} {
            set sock [raw_connect]
            raw_write $sock [string repeat "*2\r\n\$3\r\nget\r\n\$7\r\niot:big\r\n" 4]
            lappend gone $sock
        }
        after 100
        foreach sock $gone {raw_close $sock}
        set cs [iot_clients 8]
        foreach c $cs {$c ping}
        foreach c $cs {assert_equal PONG [$c read]}
        iot_close $cs
        wait_for_condition 100 50 {[s connected_clients] == $before} else {
            fail "connections left: [s connected_clients], expected $before"
        }
        assert_equal PONG [r ping]
    }

    test "A subscriber over its output limit is closed on the threaded pass (reads $reads)" {
        r config set client-output-buffer-limit "pubsub 256kb 0 0"
        set slow [redis_deferring_client]
        $slow client id
        set slow_id [$slow read]
        $slow subscribe iot:slow
        assert_equal {subscribe iot:slow 1} [$slow read]
        set reader [redis_deferring_client]
        $reader subscribe iot:slow
        $reader read
        # The reader reads as it goes; the slow one never does. The kernel takes megabytes
        # before the server's buffer grows (more under a sanitizer, which reads slower): publish
        # until the limit is reached, at most 60 MB.
        for {set i 0} {$i < 600} {incr i} {
            r publish iot:slow [string repeat z 100000]
            assert_equal 100000 [string length [lindex [$reader read] 2]]
            if {$i % 20 == 19 && [r client list id $slow_id] eq ""} break
        }
        wait_for_condition 100 50 {[r client list id $slow_id] eq ""} else {
            fail "the slow subscriber was not closed"
        }
        assert_equal 1 [r publish iot:slow last]
        assert_equal last [lindex [$reader read] 2]
        $reader close
        catch {$slow close}
        r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    }

    test "INFO counts the writes done on the threads (reads $reads)" {
        set before [s io_threaded_writes_processed]
        set cs [iot_clients 3]
        foreach c $cs {$c ping}
        foreach c $cs {assert_equal PONG [$c read]}
        iot_close $cs
        set info [r info]
        assert_morethan [getInfoProperty $info io_threaded_writes_processed] $before
        assert_equal 1 [getInfoProperty $info io_threads_active]
        assert_morethan_equal [getInfoProperty $info total_writes_processed] \
            [getInfoProperty $info io_threaded_writes_processed]
    } {} {redistp}

    test "WATCHEX pushes reach many watchers through the threads (reads $reads)" {
        set ws [iot_clients 30]
        foreach c $ws {
            $c hello 3
            $c read
            $c watchex iot:w
            $c read
        }
        r set iot:w 1
        r del iot:w
        foreach c $ws {
            assert_equal {watchex iot:w ADD} [lrange [$c read] 0 2]
            assert_equal {watchex iot:w DEL} [lrange [$c read] 0 2]
        }
        iot_close $ws
    } {} {redistp}

    test "INFO counts the reads done on the threads (reads $reads)" {
        set cs [iot_clients 3]
        foreach c $cs {$c ping}
        foreach c $cs {assert_equal PONG [$c read]}
        iot_close $cs
        set info [r info]
        if {$reads eq "yes"} {
            assert_morethan [getInfoProperty $info io_threaded_reads_processed] 0
        } else {
            assert_equal 0 [getInfoProperty $info io_threaded_reads_processed]
        }
        assert_morethan_equal [getInfoProperty $info total_reads_processed] \
            [getInfoProperty $info io_threaded_reads_processed]
    } {} {redistp}
}
}

# The switch is turned off for the servers below (`--io-threads N` sets it for every server).
start_server {tags {io-threads} overrides {io-threads 4} env {REDISTP_IO_THREADS_ALWAYS 0}} {
    test {Few clients with output: the threads stay idle, as Redis decides} {
        r config resetstat
        for {set i 0} {$i < 50} {incr i} {r set iot:k $i}
        assert_equal 0 [s io_threaded_writes_processed]
        assert_equal 0 [s io_threads_active]
    }

    test {Twice as many clients with output as threads: the pass runs on the threads} {
        # One PUBLISH gives 20 subscribers output in the same loop turn.
        r config resetstat
        iot_publish_to 20 iot:act
        assert_morethan_equal [s io_threaded_writes_processed] 8
        # Back to one client with output per pass: the threads are left alone again.
        r ping
        assert_equal 0 [s io_threads_active]
    }
}

start_server {tags {io-threads} overrides {io-threads 1} env {REDISTP_IO_THREADS_ALWAYS 0}} {
    test {io-threads 1 never uses threads} {
        iot_publish_to 20 iot:one
        assert_equal 0 [s io_threaded_writes_processed]
        assert_equal 0 [s io_threads_active]
    }
}
