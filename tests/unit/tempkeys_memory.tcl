# Memory after big keys on the coordination paths (issue 20, defect 4): no path of temporary
# keys and watches keeps memory in proportion to the largest key or value it ever carried.
# A 32 MB key created with SETTP and deleted with DELTP once left ~42 MB in use (the DEL
# record DELTP built for propagation stayed in the propagator while no AOF or replica took
# it); scratch strings reused for channel names kept the longest name they ever held.
#
# Each test measures used_memory around one path with a big key (or value), and compares with
# what SET + DEL of the same key costs on the same server in the same test: the path may keep
# no more than that plus a quarter of the key's size. Nothing here depends on timing (the
# waits for the clients cron are bounded, not measured).

# Size of the big key or value of every test.
set ::tkm_size [expr {8 * 1024 * 1024}]

proc tkm_client {{proto 2}} {
    set c [redis_client]
    $c timeout 20000
    if {$proto == 3} {$c hello 3}
    return $c
}

proc tkm_big {tag} {
    return "$tag:[string repeat x $::tkm_size]"
}

# used_memory once the server has been through a loop turn since the last command (a PING
# round trip), so that output written this turn is counted as gone, and once the clients cron
# gave back the query buffers big arguments left (a connection keeps the room of its last big
# argument until the cron sees it is no longer needed, as in Redis).
proc tkm_used {} {
    wait_for_condition 100 50 {
        [tkm_query_buffers_small]
    } else {
        fail "a query buffer kept the room of a big argument: [r client list]"
    }
    r ping
    return [s used_memory]
}

proc tkm_query_buffers_small {} {
    foreach line [split [string trim [r client list]] "\n"] {
        regexp {qbuf=([0-9]+) qbuf-free=([0-9]+)} $line - used free
        if {$used + $free > 65536} {return 0}
    }
    return 1
}

# What SET + DEL of `key` leaves in use: the reference every path is held to.
proc tkm_set_del_cost {key} {
    set before [tkm_used]
    r set $key v
    r del $key
    return [expr {[tkm_used] - $before}]
}

# Asserts that `script` (run in the caller's frame) left no more in use than SET + DEL of
# `key` plus a quarter of the big size.
proc tkm_check {key script} {
    set reference [tkm_set_del_cost $key]
    set before [tkm_used]
    uplevel 1 $script
    set kept [expr {[tkm_used] - $before}]
    set limit [expr {$reference + $::tkm_size / 4}]
    if {$kept > $limit} {
        fail "the path kept $kept bytes (SET + DEL of the same key kept $reference)"
    }
}

start_server {tags {tempkeys redistp}} {
    test {Memory: SETTP then DELTP of a big key keeps nothing} {
        set big [tkm_big settp]
        set a [tkm_client]
        tkm_check $big {
            assert_equal 1 [$a settp $big v]
            assert_equal 1 [$a deltp $big]
        }
        $a close
    }

    test {Memory: SETTP FENCE then DELTP of a big key keeps nothing} {
        set big [tkm_big fence]
        set a [tkm_client]
        tkm_check $big {
            assert_morethan [$a settp $big v FENCE] 1
            assert_equal 1 [$a deltp $big]
        }
        $a close
    }

    test {Memory: a big value of SETTP then DELTP keeps nothing} {
        set value [tkm_big value]
        set a [tkm_client]
        tkm_check value-key {
            assert_equal 1 [$a settp value-key $value]
            assert_equal 1 [$a deltp value-key]
        }
        $a close
    }

    test {Memory: a BSETTP hand-off of a big key keeps nothing} {
        set big [tkm_big handoff]
        set value [tkm_big handoff-value]
        set a [tkm_client]
        set b [redis_deferring_client]
        tkm_check $big {
            assert_equal 1 [$a settp $big v]
            $b bsettp $big $value 0
            wait_for_blocked_clients_count 1
            assert_equal 1 [$a deltp $big]
            assert_equal 1 [$b read]
            $b deltp $big
            assert_equal 1 [$b read]
        }
        $a close
        $b close
    }

    test {Memory: a BSETTP waiter with a big value that times out keeps nothing} {
        set value [tkm_big waiter-value]
        set a [tkm_client]
        set b [redis_deferring_client]
        tkm_check held {
            assert_equal 1 [$a settp held v]
            $b bsettp held $value 0.05
            assert_equal 0 [$b read]
            assert_equal 1 [$a deltp held]
        }
        $a close
        $b close
    }

    test {Memory: WATCHEX pushes of a big key keep nothing} {
        foreach proto {2 3} {
            set big [tkm_big "watch$proto"]
            set a [tkm_client]
            set w [tkm_client $proto]
            tkm_check $big {
                assert_equal NOEXIST [$w watchex $big]
                assert_equal 1 [$a settp $big v]
                assert_equal 1 [$a deltp $big]
                assert_equal [list watchex $big ADD] [$w read]
                assert_equal [list watchex $big DEL] [$w read]
                assert_equal 1 [$w unwatchex $big]
            }
            $a close
            $w close
        }
    }

    test {Memory: __watchex@ messages of a big key keep nothing} {
        set big [tkm_big channel]
        set channel "__watchex@[srv 0 db]__:$big"
        set a [tkm_client]
        set s [redis_deferring_client]
        tkm_check $big {
            $s subscribe $channel
            assert_equal [list subscribe $channel 1] [$s read]
            $s psubscribe "__watchex@[srv 0 db]__:channel:*"
            $s read
            # Each change sends one message for the channel and one for the pattern: read
            # them before the next change (four big messages would pass the output limit).
            foreach {cmd event} {settp ADD deltp DEL} {
                if {$cmd eq "settp"} {
                    assert_equal 1 [$a settp $big v]
                } else {
                    assert_equal 1 [$a deltp $big]
                }
                set got [list [lindex [$s read] end] [lindex [$s read] end]]
                assert_equal [list $event $event] $got
            }
            $s unsubscribe $channel
            $s read
            $s punsubscribe
            $s read
        }
        $a close
        $s close
    }

    test {Memory: a big key released at disconnect keeps nothing} {
        set big [tkm_big disconnect]
        set w [tkm_client]
        tkm_check $big {
            set a [tkm_client]
            assert_equal NOEXIST [$w watchex $big]
            assert_equal 1 [$a settp $big v]
            assert_equal [list watchex $big ADD] [$w read]
            $a close
            assert_equal [list watchex $big DEL] [$w read]
            assert_equal 1 [$w unwatchex]
        }
        $w close
    }

    test {Memory: a big key released by CLIENT LEASE keeps nothing} {
        set big [tkm_big lease]
        set w [tkm_client]
        tkm_check $big {
            set a [tkm_client]
            assert_equal NOEXIST [$w watchex $big]
            assert_equal 1 [$a settp $big v]
            assert_equal OK [$a client lease 100]
            assert_equal [list watchex $big ADD] [$w read]
            # The lease runs out while `a` stays silent: the server closes it.
            assert_equal [list watchex $big DEL] [$w read]
            assert_equal 1 [$w unwatchex]
            $a close
        }
        $w close
    }

    test {Memory: keyspace notifications of a big temporary key keep nothing} {
        set big [tkm_big notify]
        r config set notify-keyspace-events KEA
        set a [tkm_client]
        set s [redis_deferring_client]
        tkm_check $big {
            $s psubscribe "__key*@*__:*"
            $s read
            # Each change sends two messages (keyspace and keyevent): read them before the
            # next change, or four big messages would pass the Pub/Sub output limit.
            assert_equal 1 [$a settp $big v]
            $s read
            $s read
            assert_equal 1 [$a deltp $big]
            $s read
            $s read
            $s punsubscribe
            $s read
        }
        r config set notify-keyspace-events ""
        $a close
        $s close
    }
}

start_server {tags {tempkeys redistp external:skip} overrides {appendonly yes appendfsync always}} {
    test {Memory: SETTP then DELTP of a big key keeps nothing while the AOF takes records} {
        set big [tkm_big aof]
        set a [tkm_client]
        tkm_check $big {
            assert_morethan [$a settp $big v FENCE] 1
            assert_equal 1 [$a deltp $big]
        }
        $a close
    }
}
