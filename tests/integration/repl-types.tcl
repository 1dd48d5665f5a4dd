# Commands whose replication is not a plain copy of a write: BITFIELD's writes reach a replica
# (where BITFIELD_RO reads them); PUBLISH and SPUBLISH reach it though they write nothing;
# XREADGROUP, XACK, XCLAIM and XAUTOCLAIM carry a
# consumer group's last-delivered id and pending entries, also of entries deleted meanwhile.
# Master and replica are both the server under test.

proc repl_offset {level field} {
    if {[regexp "\r\n$field:(\[0-9\]+)" "\r\n[r $level info replication]" -> v]} {return $v}
    return -1
}

# Waits until the replica at level 0 applied all that the master at level -1 sent.
proc wait_replica_synced {} {
    wait_for_condition 200 50 {
        [repl_offset -1 master_repl_offset] == [repl_offset 0 slave_repl_offset]
    } else {
        fail "replica behind its master"
    }
}

start_server {tags {repl external:skip}} {
    start_server {} {
        r replicaof 127.0.0.1 [srv -1 port]
        wait_for_condition 200 50 {
            [string match {*master_link_status:up*} [r info replication]]
        } else {
            fail "replica did not connect"
        }

        test {BITFIELD writes on the master are read with BITFIELD_RO on the replica} {
            r -1 del bits
            r -1 bitfield bits set u8 0 100 incrby u8 8 7
            wait_replica_synced
            assert_equal {100 7} [r bitfield_ro bits get u8 0 get u8 8]
            assert_error {READONLY*} {r bitfield bits set u8 0 1}
        }

        test {PUBLISH and SPUBLISH on the master reach the replica's subscribers} {
            set rd [redis_deferring_client]
            $rd subscribe news
            assert_equal {subscribe news 1} [$rd read]
            $rd ssubscribe shardnews
            assert_equal {ssubscribe shardnews 1} [$rd read]
            # Nobody listens on the master itself.
            assert_equal 0 [r -1 publish news hello]
            assert_equal 0 [r -1 spublish shardnews hi]
            assert_equal {message news hello} [$rd read]
            assert_equal {smessage shardnews hi} [$rd read]
            $rd close
            # A replica's own PUBLISH reaches its own subscribers only, and the master's
            # offset does not move for it.
            set offset [repl_offset -1 master_repl_offset]
            assert_equal 0 [r publish news local]
            assert_equal $offset [repl_offset -1 master_repl_offset]
        }

        foreach noack {0 1} {
            test "A consumer group's last delivered id reaches the replica (NOACK=$noack)" {
                r -1 del stream
                r -1 xadd stream 1-0 a 1
                r -1 xadd stream 2-0 a 2
                r -1 xadd stream 3-0 a 3
                r -1 xgroup create stream grp 0
                for {set j 0} {$j < 2} {incr j} {
                    if {$noack} {
                        set item [r -1 xreadgroup group grp c count 1 noack streams stream >]
                    } else {
                        set item [r -1 xreadgroup group grp c count 1 streams stream >]
                        assert_equal 1 [r -1 xack stream grp [lindex $item 0 1 0 0]]
                    }
                }
                wait_replica_synced
                set info [lindex [r xinfo groups stream] 0]
                assert_equal 2-0 [dict get $info last-delivered-id]
                assert_equal 0 [dict get $info pending]
                # Promoted, the replica goes on where the master stopped.
                r replicaof no one
                assert_equal 3-0 [lindex [r xreadgroup group grp c count 1 streams stream >] 0 1 0 0]
                r replicaof 127.0.0.1 [srv -1 port]
                wait_for_condition 200 50 {
                    [string match {*master_link_status:up*} [r info replication]]
                } else {
                    fail "replica did not reconnect"
                }
                wait_replica_synced
            }
        }

        foreach autoclaim {0 1} {
            test "Claims of deleted entries reach the replica's pending list (XAUTOCLAIM=$autoclaim)" {
                r -1 del x
                foreach id {1-0 2-0 3-0 4-0 5-0} {r -1 xadd x $id f v}
                r -1 xgroup create x grp 0
                assert_equal 5 [llength [lindex [r -1 xreadgroup group grp Alice streams x >] 0 1]]
                wait_replica_synced
                assert_equal 5 [llength [r xpending x grp - + 10 Alice]]
                r -1 xdel x 2-0
                r -1 xdel x 4-0
                if {$autoclaim} {
                    assert_equal {0-0 {{1-0 {f v}} {3-0 {f v}} {5-0 {f v}}} {2-0 4-0}} \
                        [r -1 xautoclaim x grp Bob 0 0-0]
                    wait_replica_synced
                    assert_equal 0 [llength [r xpending x grp - + 10 Alice]]
                    assert_equal {1-0 3-0 5-0} [lmap e [r xpending x grp - + 10 Bob] {lindex $e 0}]
                } else {
                    assert_equal {{1-0 {f v}} {3-0 {f v}}} [r -1 xclaim x grp Bob 0 1-0 2-0 3-0 4-0]
                    wait_replica_synced
                    # 5-0 stays Alice's; the deleted ones left the list.
                    assert_equal {5-0} [lmap e [r xpending x grp - + 10 Alice] {lindex $e 0}]
                    assert_equal {1-0 3-0} [lmap e [r xpending x grp - + 10 Bob] {lindex $e 0}]
                }
            }
        }
    }
}
