# Replication over TLS (tls-replication yes): both servers listen with TLS
# only, the replica connects to its master's tls-port and presents the
# client certificate. Run both ways against Debian's Redis 7.0: the server
# under test as replica of a Redis master, and as master of a Redis replica,
# with a disk and a diskless full sync, then the command stream. With
# `--server /usr/bin/redis-server` both sides are Redis.

set ::repl_tls_redis_bin /usr/bin/redis-server

proc repl_tls_field {level field} {
    set info [r $level info replication]
    if {[regexp "\r\n$field:(\[^\r\n\]*)" "\r\n$info" -> v]} {return $v}
    return ""
}

# Waits until the replica at `rlevel` has its link up and has applied all the
# master at `mlevel` sent.
proc repl_tls_wait_synced {rlevel mlevel} {
    wait_for_condition 300 50 {
        [repl_tls_field $rlevel master_link_status] eq "up" &&
        [repl_tls_field $mlevel master_repl_offset] == [repl_tls_field $rlevel slave_repl_offset]
    } else {
        fail "replica not in sync over TLS: [r $rlevel info replication]"
    }
}

# Some data of several types, and one value larger than a TLS record.
proc repl_tls_fill {level} {
    r $level set tls:str hello
    r $level rpush tls:list a b c
    r $level hset tls:hash f1 v1 f2 v2
    r $level zadd tls:zset 1 a 2 b
    r $level set tls:big [string repeat 0123456789 100000]
    for {set i 0} {$i < 500} {incr i} {r $level set tls:n:$i $i}
}

proc repl_tls_check {rlevel mlevel} {
    assert_equal [r $rlevel get tls:str] hello
    assert_equal [r $rlevel lrange tls:list 0 -1] {a b c}
    assert_equal [r $rlevel hget tls:hash f2] v2
    assert_equal [r $rlevel strlen tls:big] 1000000
    assert_equal [r $rlevel get tls:n:499] 499
    assert_equal [r $rlevel dbsize] [r $mlevel dbsize]
}

tags {repl tls external:skip} {

foreach diskless {no yes} {
    # The server under test follows a Redis master.
    start_server [list binary $::repl_tls_redis_bin tls 1 overrides [list \
            tls-replication yes repl-diskless-sync $diskless repl-diskless-sync-delay 0]] {
        repl_tls_fill 0
        start_server [list tls 1 overrides {tls-replication yes}] {
            test "TLS replication: replica of a Redis master (diskless sync $diskless)" {
                r replicaof [srv -1 host] [srv -1 port]
                repl_tls_wait_synced 0 -1
                repl_tls_check 0 -1
                r -1 set tls:after sync
                r -1 incr tls:counter
                r -1 del tls:n:0
                repl_tls_wait_synced 0 -1
                assert_equal [r get tls:after] sync
                assert_equal [r get tls:counter] 1
                assert_equal [r exists tls:n:0] 0
                # The master sees its replica on a TLS connection with the TLS port announced.
                assert_match "*port=[srv 0 port],*" [r -1 info replication]
            }
        }
    }

    # The server under test is the master of a Redis replica.
    start_server [list tls 1 overrides [list \
            tls-replication yes repl-diskless-sync $diskless repl-diskless-sync-delay 0]] {
        repl_tls_fill 0
        start_server [list binary $::repl_tls_redis_bin tls 1 overrides {tls-replication yes}] {
            test "TLS replication: master of a Redis replica (diskless sync $diskless)" {
                r replicaof [srv -1 host] [srv -1 port]
                repl_tls_wait_synced 0 -1
                repl_tls_check 0 -1
                r -1 set tls:after sync
                r -1 rpush tls:list d
                r -1 expire tls:str 1000
                repl_tls_wait_synced 0 -1
                assert_equal [r get tls:after] sync
                assert_equal [r lrange tls:list 0 -1] {a b c d}
                assert_range [r ttl tls:str] 1 1000
            }
        }
    }
}

# Without tls-replication the replica speaks plain TCP to a TLS-only port:
# the link never comes up (both servers have port 0).
start_server [list binary $::repl_tls_redis_bin tls 1] {
    start_server [list tls 1] {
        test {TLS replication: a plain replica cannot sync from a TLS-only master} {
            r replicaof [srv -1 host] [srv -1 port]
            # Several connection attempts (one a second) fail; the link stays down.
            wait_for_condition 100 50 {
                [repl_tls_field -1 connected_slaves] eq "0" &&
                [repl_tls_field 0 master_link_status] eq "down" &&
                [regexp {Connecting to MASTER} [exec cat [srv 0 stdout]]]
            } else {
                fail "unexpected replication state: [r info replication]"
            }
            after 1500
            assert_equal [repl_tls_field 0 master_link_status] down
            assert_equal [repl_tls_field -1 connected_slaves] 0
            r replicaof no one
        }
    }
}

}
