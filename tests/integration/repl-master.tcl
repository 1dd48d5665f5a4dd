# Replication, the master side: the server under test is the master, Debian's Redis 7.0 the
# replica (`--server /usr/bin/redis-server` makes both Redis, and every test passes unchanged).
#
# What a replica must end up with is checked by DEBUG DIGEST (the whole keyspace) and DBSIZE of
# each database on both sides, after the master's and the replica's offsets agree. The tests
# cover: full sync from disk and diskless of every type in three databases with expiry; the
# stream of writes of every family (MULTI, EVAL, relative expiry made absolute, lazy and active
# expiry's DELs); two replicas at once; partial resync after the link drops; PSYNC with a wrong
# offset and a backlog too small (full syncs); WAIT; ROLE and INFO; min-replicas-to-write; a
# replica over its output-buffer limit.

set ::repl_redis /usr/bin/redis-server

# The replica at `rlevel` follows the master at `mlevel` and has caught up with its stream.
proc repl_wait_synced {{rlevel 0} {mlevel -1}} {
    wait_for_condition 200 50 {
        [string match *master_link_status:up* [r $rlevel info replication]]
    } else {
        fail "replica never came up"
    }
    wait_for_condition 200 50 {
        [s $mlevel master_repl_offset] == [s $rlevel master_repl_offset]
    } else {
        fail "replica offset [s $rlevel master_repl_offset] never reached the master's\
              [s $mlevel master_repl_offset]"
    }
}

# Both sides hold the same data: DEBUG DIGEST and DBSIZE of databases 9, 10, 11.
proc repl_assert_same {{rlevel 0} {mlevel -1}} {
    assert_equal [r $mlevel debug digest] [r $rlevel debug digest]
    foreach db {10 11 9} {
        r $mlevel select $db
        r $rlevel select $db
        assert_equal [r $mlevel dbsize] [r $rlevel dbsize] "dbsize of db $db"
    }
}

# Every type, in databases 9, 10 and 11, some keys with a TTL, at the server at `level`.
proc repl_fill {{level 0}} {
    foreach db {10 11 9} {
        r $level select $db
        for {set i 0} {$i < 50} {incr i} {
            r $level set str:$i [string repeat v $i]
            r $level set int:$i $i
            r $level rpush list:[expr {$i % 5}] a$i b$i
            r $level hset hash:[expr {$i % 5}] f$i $i
            r $level sadd set:[expr {$i % 5}] m$i
            r $level sadd iset $i
            r $level zadd zset:[expr {$i % 5}] $i z$i
            r $level xadd stream * f $i
            r $level pfadd hll e$i
        }
        r $level setbit bits 100 1
        r $level hset bighash big [string repeat x 200]
        r $level expire str:1 1000
        r $level pexpire list:1 500000
        r $level set volatile v ex 3000
    }
}

# A raw connection to the server at `level` that completed REPLCONF; returns the socket.
proc repl_raw_replica {{level 0}} {
    set sock [raw_connect $level]
    raw_write $sock "REPLCONF listening-port 1\r\n"
    assert_equal +OK [raw_read_line $sock]
    raw_write $sock "REPLCONF capa psync2\r\n"
    assert_equal +OK [raw_read_line $sock]
    return $sock
}

start_server {tags {repl external:skip} overrides {repl-diskless-sync no}} {
    repl_fill
    start_server [list binary $::repl_redis] {
        test {A Redis replica follows by a full sync from disk: every type, three databases} {
            r replicaof 127.0.0.1 [srv -1 port]
            repl_wait_synced
            repl_assert_same
            assert_equal 1 [s -1 sync_full]
            assert_match {*slave0:ip=127.0.0.1,port=*,state=online,*} [r -1 info replication]
            assert_equal 1 [s -1 connected_slaves]
        }

        test {The stream carries writes of every family, MULTI, EVAL and expiry} {
            r -1 select 10
            r -1 set counter 1
            r -1 incrbyfloat fl 1.5
            r -1 expire counter 100
            r -1 setex tmp 100 x
            r -1 lpush l2 a b c
            r -1 lpop l2
            r -1 spop set:1 2
            r -1 zincrby zset:2 5 z2
            r -1 hincrby hash:1 f1 7
            r -1 xadd stream * g 1
            r -1 multi
            r -1 incr counter
            r -1 set m1 x
            r -1 exec
            r -1 eval {redis.call('set', KEYS[1], 'e'); redis.call('incr', 'counter')} 1 evkey
            r -1 select 11
            r -1 set short v px 1
            after 20
            # A lazily expired key: the master's GET finds it gone and sends the DEL.
            assert_equal {} [r -1 get short]
            r -1 flushdb
            r -1 set after-flush 1
            r -1 select 9
            r -1 rename int:1 int:renamed
            r -1 del int:2
            repl_wait_synced
            repl_assert_same
            r select 10
            assert_equal 3 [r get counter]
            assert_range [r ttl counter] 90 100
        }

        test {Active expiry reaches the replica as DELs} {
            r -1 select 9
            r select 9
            for {set i 0} {$i < 20} {incr i} {r -1 set act:$i v px 50}
            repl_wait_synced
            wait_for_condition 100 50 {
                [r -1 exists act:0 act:1 act:2 act:3 act:19] == 0 &&
                [r -1 dbsize] == [r dbsize]
            } else {
                fail "expired keys were not removed on both sides"
            }
            repl_wait_synced
            repl_assert_same
        }

        test {ROLE and INFO replication on the master} {
            set role [r -1 role]
            assert_equal master [lindex $role 0]
            assert_equal [s -1 master_repl_offset] [lindex $role 1]
            set replica [lindex [lindex $role 2] 0]
            assert_equal 127.0.0.1 [lindex $replica 0]
            assert_equal [srv 0 port] [lindex $replica 1]
            assert_equal 1 [s -1 repl_backlog_active]
            assert_equal [s master_replid] [s -1 master_replid]
            assert_morethan [s -1 repl_backlog_histlen] 0
            assert_match {*flags=S*cmd=*} [r -1 client list type replica]
        }

        test {INFO memory and MEMORY STATS count the backlog and the replicas' buffers} {
            set info [r -1 info memory]
            set stats [r -1 memory stats]
            set backlog [getInfoProperty $info mem_replication_backlog]
            assert {$backlog > 0}
            assert_equal $backlog [dict get $stats replication.backlog]
            assert {[getInfoProperty $info mem_total_replication_buffers] > 0}
            assert_equal [getInfoProperty $info mem_clients_slaves] [dict get $stats clients.slaves]
        }

        test {Partial resync after the link drops} {
            set full [s -1 sync_full]
            set ok [s -1 sync_partial_ok]
            r -1 client kill type replica
            r -1 set during-drop 1
            wait_for_condition 100 100 {
                [s -1 sync_partial_ok] == $ok + 1
            } else {
                fail "no partial resync"
            }
            repl_wait_synced
            assert_equal $full [s -1 sync_full]
            repl_assert_same
        }

        test {WAIT: the count of replicas that acknowledged, at once or at the timeout} {
            r -1 set waited 1
            assert_equal 1 [r -1 wait 1 5000]
            assert_equal 1 [r -1 wait 2 200]
            # A replica that never acknowledges (a raw connection that asked SYNC and reads
            # nothing back): WAIT 2 times out with the one that did.
            set sock [repl_raw_replica -1]
            raw_write $sock "SYNC\r\n"
            wait_for_condition 100 50 {[s -1 connected_slaves] == 2} else {
                fail "second replica not attached"
            }
            r -1 set with-silent 1
            assert_equal 1 [r -1 wait 2 300]
            raw_close $sock
            wait_for_condition 100 50 {[s -1 connected_slaves] == 1} else {
                fail "silent replica not gone"
            }
            repl_wait_synced
            assert_equal 1 [r -1 wait 1 5000]
            # Inside MULTI it answers at once.
            r -1 multi
            r -1 wait 5 100
            assert_range [r -1 exec] 0 1
        }

        test {min-replicas-to-write refuses writes with NOREPLICAS} {
            r -1 config set min-replicas-to-write 2
            assert_error {NOREPLICAS Not enough good replicas to write.} {r -1 set nope 1}
            r -1 multi
            catch {r -1 set nope 1}
            assert_error {EXECABORT*} {r -1 exec}
            assert_equal 1 [s -1 min_slaves_good_slaves]
            r -1 config set min-replicas-to-write 1
            assert_equal OK [r -1 set yes 1]
            r -1 config set min-replicas-to-write 0
        }

        test {REPLCONF, PSYNC and WAIT answer bad input as Redis does} {
            assert_error {ERR syntax error} {r -1 replconf capa}
            assert_error {ERR Unrecognized REPLCONF option: foo} {r -1 replconf foo bar}
            assert_error {ERR value is not an integer*} {r -1 replconf listening-port x}
            assert_error {ERR value is out of range, value must between 0 and 1} {
                r -1 replconf rdb-only 2
            }
            assert_equal OK [r -1 replconf listening-port 5 capa eof capa psync2]
            assert_error {ERR value is not an integer*} {r -1 psync ? x}
            assert_error {ERR wrong number of arguments for 'psync' command} {r -1 psync ?}
            assert_error {ERR value is not an integer*} {r -1 wait x 0}
            assert_error {ERR timeout is negative} {r -1 wait 1 -1}
            assert_error {ERR timeout is not an integer*} {r -1 wait 1 x}
            assert_error {ERR*not allowed from script*} {r -1 eval {return redis.call('wait', 0, 0)} 0}
            assert_equal 0 [r -1 wait 0 0]
        }

        test {CLIENT UNBLOCK ends a WAIT with the count, or the UNBLOCKED error} {
            set rd [redis_deferring_client -1]
            $rd client id
            set id [$rd read]
            $rd wait 3 0
            wait_for_blocked_clients_count 1 100 10 -1
            r -1 client unblock $id
            # The count of replicas that acknowledged by then (the GETACK is still in flight).
            assert_range [$rd read] 0 1
            $rd wait 3 0
            wait_for_blocked_clients_count 1 100 10 -1
            r -1 client unblock $id error
            assert_error {UNBLOCKED*} {$rd read}
            $rd close
        }

        test {PSYNC with an offset outside the backlog gets a full sync} {
            set full [s -1 sync_full]
            set sock [repl_raw_replica -1]
            raw_write $sock "PSYNC [s -1 master_replid] 999999999\r\n"
            assert_match {+FULLRESYNC *} [raw_read_line $sock]
            raw_close $sock
            assert_equal [expr {$full + 1}] [s -1 sync_full]
        }

        test {A backlog too small for the missed writes means a full sync} {
            r -1 config set repl-backlog-size 16384
            wait_for_condition 50 100 {[s -1 repl_backlog_size] == 16384} else {
                fail "backlog not resized"
            }
            set full [s -1 sync_full]
            r replicaof no one
            r -1 select 9
            for {set i 0} {$i < 100} {incr i} {r -1 set fill:$i [string repeat z 500]}
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 100 100 {[s -1 sync_full] == $full + 1} else {
                fail "no full sync"
            }
            assert_morethan [count_log_message "*for lack of backlog*" -1] 0
            repl_wait_synced
            repl_assert_same
        }

        test {Eviction leaves out what waits for a stopped replica (mem_not_counted_for_evict)} {
            # A replica that reads nothing makes its output buffer grow; counting it would evict
            # keys, whose DELs grow the buffer further. Redis leaves it out, and so must we.
            r -1 select 9
            r -1 config set maxmemory-policy allkeys-random
            for {set i 0} {$i < 100} {incr i} {r -1 set small:$i $i}
            set evicted [s -1 evicted_keys]
            exec kill -STOP [srv 0 pid]
            set rc [catch {
                set big [string repeat b 100000]
                for {set i 0} {$i < 200} {incr i} {r -1 set big:$i $big; r -1 del big:$i}
                set info [r -1 info memory]
                set not_counted [getInfoProperty $info mem_not_counted_for_evict]
                # 20 MB were written to the stream; the socket takes a few of them at most.
                assert_morethan $not_counted 8000000
                # A limit above what counts but well below the raw figure: no key is evicted.
                set used [getInfoProperty $info used_memory]
                r -1 config set maxmemory [expr {$used - $not_counted + 4000000}]
                for {set i 0} {$i < 20} {incr i} {r -1 set more:$i $i}
                assert_equal $evicted [s -1 evicted_keys]
                assert_equal 100 [llength [r -1 keys small:*]]
            } result opts]
            r -1 config set maxmemory 0
            r -1 config set maxmemory-policy noeviction
            exec kill -CONT [srv 0 pid]
            if {$rc} {return -options $opts $result}
            repl_wait_synced
            repl_assert_same
        }

        test {A replica over its output-buffer limit is dropped} {
            r -1 config set client-output-buffer-limit "replica 128kb 0 0"
            # The replica reads nothing while it is stopped (SIGSTOP), however loaded the
            # machine: a DEBUG SLEEP sent 100 ms before the writes could start after them.
            exec kill -STOP [srv 0 pid]
            set rc [catch {
                r -1 select 9
                set big [string repeat b 100000]
                # Up to 40 MB: more than a stopped reader's socket can take in whatever the
                # kernel's buffer autotuning has reached (tcp_rmem's maximum is 32 MB here), so
                # the master's own buffer must pass the limit. Stops once the drop is logged.
                for {set i 0} {$i < 400} {incr i} {
                    r -1 set big:[expr {$i % 60}] $big
                    if {$i % 20 == 19 &&
                        [count_log_message "*overcoming of output buffer limits*" -1] > 0} break
                }
                wait_for_condition 100 50 {
                    [count_log_message "*overcoming of output buffer limits*" -1] > 0
                } else {
                    fail "replica not dropped"
                }
            } result opts]
            exec kill -CONT [srv 0 pid]
            if {$rc} {return -options $opts $result}
            r -1 config set client-output-buffer-limit "replica 256mb 64mb 60"
            repl_wait_synced
            repl_assert_same
        }
    }
}

start_server {tags {repl external:skip} overrides {repl-diskless-sync yes repl-diskless-sync-delay 1}} {
    repl_fill
    start_server [list binary $::repl_redis] {
        start_server [list binary $::repl_redis] {
            test {Diskless: two Redis replicas share one transfer} {
                r replicaof 127.0.0.1 [srv -2 port]
                r -1 replicaof 127.0.0.1 [srv -2 port]
                repl_wait_synced 0 -2
                repl_wait_synced -1 -2
                repl_assert_same 0 -2
                repl_assert_same -1 -2
                assert_equal 2 [s -2 connected_slaves]
                assert_equal 1 [count_log_message "*Starting BGSAVE for SYNC with target: replicas sockets*" -2]
                r -2 select 9
                r -2 set later 1
                r -2 incr later
                repl_wait_synced 0 -2
                repl_wait_synced -1 -2
                repl_assert_same 0 -2
                repl_assert_same -1 -2
                assert_equal 2 [r -2 wait 2 5000]
            }
        }
    }
}

# PSYNC2: a replica of the server under test is promoted; a Redis replica of the old master
# moves to it and continues with a partial resync (the promoted one's backlog holds the old
# history under its previous id). The old master sends no PING meanwhile: a PING that reached
# one replica and not yet the other would put them at different offsets when the promotion
# comes, and the one ahead could only resync in full (as with Redis).
start_server {tags {repl external:skip} overrides {repl-diskless-sync no repl-ping-replica-period 3600}} {
    start_server {overrides {repl-diskless-sync no}} {
        start_server [list binary $::repl_redis] {
            test {A promoted replica lets the old master's replicas continue (PSYNC2)} {
                r -1 replicaof 127.0.0.1 [srv -2 port]
                r replicaof 127.0.0.1 [srv -2 port]
                repl_wait_synced -1 -2
                repl_wait_synced 0 -2
                r -2 select 9
                r -2 set before-promotion 1
                repl_wait_synced -1 -2
                repl_wait_synced 0 -2
                r -1 replicaof no one
                assert_equal [s -2 master_replid] [s -1 master_replid2]
                r replicaof 127.0.0.1 [srv -1 port]
                wait_for_condition 100 100 {[s -1 sync_partial_ok] == 1} else {
                    fail "no partial resync with the promoted replica"
                }
                assert_equal 0 [s -1 sync_full]
                r -1 select 9
                r -1 set after-promotion 1
                repl_wait_synced 0 -1
                assert_equal [r -1 debug digest] [r debug digest]
            }
        }
    }
}

# A replica whose link to its master is down has nothing current to give a replica of its own:
# SYNC and PSYNC answer NOMASTERLINK (the asking replica retries), on both servers.
start_server {tags {repl external:skip} overrides {replicaof {127.0.0.1 1}}} {
    test {SYNC and PSYNC on a replica whose master link is down answer NOMASTERLINK} {
        assert_match {*master_link_status:down*} [r info replication]
        foreach request {"SYNC\r\n" "PSYNC ? -1\r\n"} {
            set s [raw_connect]
            raw_write $s $request
            assert_equal "-NOMASTERLINK Can't SYNC while not connected with my master" \
                [raw_read_line $s]
            raw_close $s
        }
        assert_equal 0 [s connected_slaves]
    }
}

# One big value through the stream: both the master (which encodes it into the stream) and a
# replica of the same binary (which passes its master's bytes on to its own backlog) give back
# what they used for it once it is deleted. Only the backlog (1 MB) may stay; a scratch buffer
# kept at the value's size would hold 8-16 MB each for the life of the server.
start_server {tags {repl external:skip} overrides {save {} repl-diskless-sync-delay 0}} {
    start_server {overrides {save {}}} {
        test {A big value through the stream leaves no buffer of its size behind} {
            r replicaof [srv -1 host] [srv -1 port]
            repl_wait_synced
            r -1 set warm 1
            repl_wait_synced
            set master_before [s -1 used_memory]
            set replica_before [s used_memory]
            r -1 set big [string repeat x [expr {8 * 1024 * 1024}]]
            repl_wait_synced
            assert_equal [r strlen big] [expr {8 * 1024 * 1024}]
            r -1 del big
            repl_wait_synced
            assert_equal [r exists big] 0
            # The connections' query buffers that held the value shrink in the clients' cron
            # (as Redis's do), so the figures come down within a few seconds.
            set limit [expr {3 * 1024 * 1024}]
            wait_for_condition 100 100 {
                [s -1 used_memory] - $master_before < $limit &&
                [s used_memory] - $replica_before < $limit
            } else {
                fail "memory held after the DEL: master\
                      [expr {[s -1 used_memory] - $master_before}], replica\
                      [expr {[s used_memory] - $replica_before}] bytes"
            }
        }
    }
}

# The master's PINGs into the stream follow a schedule that starts with the server, not with a
# replica's arrival: a replica that attaches to a master without writes is at offset 0 (Redis
# 7.0 pings on cron loops that are multiples of repl-ping-replica-period; redis-tp used to ping
# at once, so the first ROLE said 14, the length of that PING).
start_server {tags {repl external:skip} overrides {save {} repl-ping-replica-period 3600}} {
    start_server {overrides {save {}}} {
        test {A replica attached to a master without writes is at offset 0} {
            r replicaof [srv -1 host] [srv -1 port]
            repl_wait_synced
            assert_equal 0 [s -1 master_repl_offset]
            wait_for_condition 50 100 {
                [lindex [lindex [r -1 role] 2 0] 2] eq 0 && [s master_repl_offset] == 0
            } else {
                fail "offsets after attaching: master [r -1 role], replica [s master_repl_offset]"
            }
        }
    }
}
