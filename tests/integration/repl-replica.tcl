# The replica side of replication: the server under test follows a stock Redis 7.0 master
# (/usr/bin/redis-server). Full sync (disk and diskless masters, disk and diskless loads), the
# command stream, READONLY, MASTERDOWN, expired keys on the replica, REPLICAOF NO ONE, a
# restarted master, a restarted replica continuing with PSYNC, ROLE and INFO. Every test passes
# unchanged with `--server /usr/bin/redis-server` (then both sides are Redis).

set ::redis_master_bin /usr/bin/redis-server

# Waits until the replica at `level` reports its link up.
proc wait_replica_online {{level 0}} {
    wait_for_condition 200 50 {
        [string match {*master_link_status:up*} [r $level info replication]]
    } else {
        fail "replica did not connect to its master: [r $level info replication]"
    }
}

# Waits until the replica at `rlevel` has applied everything the master at `mlevel` sent.
proc wait_replica_caught_up {mlevel rlevel} {
    wait_for_condition 200 50 {
        [status_field [r $mlevel info replication] master_repl_offset] ==
        [status_field [r $rlevel info replication] slave_repl_offset]
    } else {
        fail "replica offset [status_field [r $rlevel info replication] slave_repl_offset]\
              behind master [status_field [r $mlevel info replication] master_repl_offset]"
    }
}

proc status_field {info field} {
    if {[regexp "\r\n$field:(\[^\r\n\]*)" "\r\n$info" -> v]} {return $v}
    return ""
}

# Every type in databases 0, 1 and 2, some keys with a TTL.
proc fill_every_type {level} {
    foreach db {0 1 2} {
        r $level select $db
        r $level set str:$db "value-$db"
        r $level set int:$db 12345
        r $level set ttl:$db "lives" px 500000
        r $level rpush list:$db a b c 1 2 3
        r $level sadd set:$db x y z
        r $level sadd intset:$db 1 2 3
        r $level zadd zset:$db 1 a 2 b 3.5 c
        r $level hset hash:$db f1 v1 f2 v2
        r $level pfadd hll:$db a b c d
        r $level xadd stream:$db 1-1 f v
        r $level xgroup create stream:$db g1 0
        r $level setbit bits:$db 77 1
        r $level geoadd geo:$db 13.361389 38.115556 Palermo
        r $level expire hash:$db 100000
        for {set i 0} {$i < 200} {incr i} {r $level rpush biglist:$db [string repeat x $i]}
    }
    r $level select 9
}

tags {repl external:skip} {

foreach mdiskless {no yes} {
foreach load {disabled on-empty-db swapdb} {
start_server [list binary $::redis_master_bin overrides [list repl-diskless-sync $mdiskless \
        repl-diskless-sync-delay 0]] {
    fill_every_type 0
    start_server [list overrides [list repl-diskless-load $load]] {
        test "Full sync from a Redis master (diskless sync $mdiskless, load $load): every type,\
              3 databases, expiry" {
            r replicaof [srv -1 host] [srv -1 port]
            wait_replica_online
            wait_replica_caught_up -1 0
            assert_equal [r -1 debug digest] [r debug digest]
            foreach db {0 1 2} {
                r select $db
                r -1 select $db
                assert_equal [r -1 dbsize] [r dbsize]
                assert_equal "value-$db" [r get str:$db]
                assert_range [r pttl ttl:$db] 1 500000
            }
            r select 9
            r -1 select 9
            assert_match {*Full resync from master*} [exec cat [srv 0 stdout]]
            assert_match {*MASTER <-> REPLICA sync: Finished with success*} [exec cat [srv 0 stdout]]
        }

        test "The command stream (diskless sync $mdiskless, load $load)" {
            r -1 select 0
            r -1 set a 1
            r -1 incr a
            r -1 lpush l x y z
            r -1 lpop l
            r -1 sadd s 1 2 3
            r -1 srem s 2
            r -1 zadd z 1 one 2 two
            r -1 zincrby z 5 one
            r -1 hset h a 1 b 2
            r -1 hincrby h a 10
            r -1 xadd x * f v
            r -1 setex ex 100 v
            r -1 expire a 1000
            r -1 multi
            r -1 set m1 1
            r -1 set m2 2
            r -1 exec
            r -1 eval {redis.call('set', KEYS[1], ARGV[1]); redis.call('incr', KEYS[2])} 2 e1 e2 v
            r -1 select 1
            r -1 set in1 v
            r -1 del str:1
            r -1 select 2
            r -1 flushdb
            r -1 select 9
            wait_replica_caught_up -1 0
            assert_equal [r -1 debug digest] [r debug digest]
            r select 0
            assert_equal {v} [r get e1]
            assert_equal 1 [r get e2]
            assert_equal 11 [r hget h a]
            r select 9
        }
    }
}
}
}

start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
    start_server {} {
        r replicaof [srv -1 host] [srv -1 port]
        wait_replica_online

        test {REPLICAOF the same master again: already connected} {
            r replicaof [srv -1 host] [srv -1 port]
        } {OK Already connected to specified master}

        test {REPLICAOF errors} {
            assert_error {ERR wrong number of arguments for 'replicaof' command} {r replicaof x}
            assert_error {ERR Invalid master port} {r replicaof 127.0.0.1 abc}
            assert_error {ERR Invalid master port} {r replicaof 127.0.0.1 70000}
            assert_error {ERR Invalid master port} {r replicaof 127.0.0.1 -1}
        }

        test {A read-only replica refuses writes (READONLY), scripts' writes too} {
            assert_error {READONLY You can't write against a read only replica.} {r set x 1}
            assert_error {READONLY You can't write against a read only replica.*} \
                {r eval {return redis.call('set','x','1')} 0}
            assert_equal 1 [r eval {return 1} 0]
            r multi
            assert_error {READONLY*} {r set x 1}
            assert_error {EXECABORT*} {r exec}
            assert_equal {} [r get x]
        }

        test {A writable replica accepts writes} {
            r config set replica-read-only no
            r set x 1
            assert_equal 1 [r get x]
            r del x
            r config set replica-read-only yes
        }

        test {A writable replica hides its master's expired keys, and a write there replaces one} {
            # The master keeps the keys (active expiry off); the replica's reads see them expired
            # but leave them, as they wait for the master's DEL. A write on a writable replica
            # treats an expired key as gone and creates it anew, without the TTL.
            r -1 select 5
            r select 5
            r -1 debug set-active-expire 0
            r -1 set key1 5 px 10
            r -1 set key2 5 px 10
            wait_for_condition 50 100 {
                [r dbsize] == 2 && [r exists key1 key2] == 0
            } else {
                fail "keys did not reach the replica or did not expire there: [r dbsize]"
            }
            r config set replica-read-only no
            assert_equal 2 [r dbsize]
            assert_equal 1 [r incr key1]
            assert_equal -1 [r ttl key1]
            assert_equal {} [r get key2]
            assert_equal -2 [r ttl key2]
            assert_equal 2 [r dbsize]
            r -1 debug set-active-expire 1
            r config set replica-read-only yes
            r -1 del key1 key2
            wait_for_condition 50 100 {[r dbsize] == 0} else {
                fail "the master's DELs did not reach the replica"
            }
            r -1 select 9
            r select 9
        }

        test {ROLE and INFO replication on a connected replica} {
            wait_replica_caught_up -1 0
            set role [r role]
            assert_equal slave [lindex $role 0]
            assert_equal [srv -1 host] [lindex $role 1]
            assert_equal [srv -1 port] [lindex $role 2]
            assert_equal connected [lindex $role 3]
            assert_equal [status_field [r -1 info replication] master_repl_offset] [lindex $role 4]
            set info [r info replication]
            assert_equal slave [status_field $info role]
            assert_equal up [status_field $info master_link_status]
            assert_equal 0 [status_field $info master_sync_in_progress]
            assert_equal 100 [status_field $info slave_priority]
            assert_equal 1 [status_field $info slave_read_only]
            assert_equal 1 [status_field $info replica_announced]
            assert_equal [status_field [r -1 info replication] master_replid] \
                [status_field $info master_replid]
            assert_equal {} [status_field $info master_link_down_since_seconds]
            assert_equal "[srv -1 host] [srv -1 port]" [lindex [r config get replicaof] 1]
        }

        test {Reads of keys expired on the master: absent for clients, kept until the DEL} {
            r -1 debug set-active-expire 0
            r -1 set short v px 100
            wait_replica_caught_up -1 0
            after 300
            # The master has not expired it yet: the replica keeps it, but answers as absent.
            assert_equal {} [r get short]
            assert_equal 0 [r exists short]
            assert_equal -2 [r ttl short]
            assert_equal 1 [r dbsize]
            # The master's lazy expiry sends DEL.
            assert_equal {} [r -1 get short]
            wait_replica_caught_up -1 0
            assert_equal 0 [r dbsize]
            r -1 debug set-active-expire 1
        }

        test {MASTERDOWN while the link is down and replica-serve-stale-data is no} {
            r config set replica-serve-stale-data no
            r -1 config set requirepass secret
            r -1 client kill type slave
            wait_for_condition 100 50 {
                [string match {*master_link_status:down*} [r info replication]]
            } else {
                fail "link still up"
            }
            assert_error {MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.} {r get x}
            assert_equal slave [lindex [r role] 0]
            r config set replica-serve-stale-data yes
            assert_equal {} [r get x]
            assert_morethan_equal [status_field [r info replication] master_link_down_since_seconds] 0
        }

        test {masterauth: the link authenticates, then continues with PSYNC} {
            set partial [status_field [r -1 info stats] sync_partial_ok]
            r config set masterauth secret
            wait_replica_online
            assert_equal [expr {$partial + 1}] [status_field [r -1 info stats] sync_partial_ok]
            r -1 config set requirepass ""
            r config set masterauth ""
        }

        test {REPLICAOF NO ONE: a master again, writes accepted, history kept as replid2} {
            set id [status_field [r info replication] master_replid]
            set off [status_field [r info replication] master_repl_offset]
            r replicaof no one
            set info [r info replication]
            assert_equal master [status_field $info role]
            assert_equal $id [status_field $info master_replid2]
            assert_equal [expr {$off + 1}] [status_field $info second_repl_offset]
            r set afterpromo 1
            assert_equal 1 [r get afterpromo]
            assert_equal {} [lindex [r config get replicaof] 1]
        }

        test {Following again after a promotion: a full sync from the master} {
            r replicaof [srv -1 host] [srv -1 port]
            wait_replica_online
            wait_replica_caught_up -1 0
            assert_equal [r -1 debug digest] [r debug digest]
        }

        test {The master restarts: the replica syncs again} {
            r -1 set before restart
            wait_replica_caught_up -1 0
            # Same port, same pid; without save points the master comes back empty, with a
            # new history: the replica syncs in full.
            catch {r -1 debug restart}
            wait_for_condition 100 100 {
                ![catch {reconnect -1; r -1 ping}]
            } else {
                fail "master did not come back"
            }
            wait_for_condition 100 100 {
                [string match {*master_link_status:up*} [r info replication]] &&
                [status_field [r info replication] master_replid] eq
                [status_field [r -1 info replication] master_replid]
            } else {
                fail "replica did not reconnect"
            }
            r -1 set after restart
            wait_replica_caught_up -1 0
            assert_equal [r -1 debug digest] [r debug digest]
        }
    }
}

start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
    start_server [list overrides [list save {900 1} replicaof "[srv 0 host] [srv 0 port]"]] {
        test {A restarted replica continues with PSYNC (+CONTINUE)} {
            wait_replica_online
            r -1 set k1 v1
            r -1 select 3
            r -1 set k3 v3
            r -1 select 9
            wait_replica_caught_up -1 0
            set partial [status_field [r -1 info stats] sync_partial_ok]
            restart_server 0
            wait_replica_online
            r -1 select 3
            r -1 set k3b v3b
            r -1 select 9
            wait_replica_caught_up -1 0
            assert_equal [expr {$partial + 1}] [status_field [r -1 info stats] sync_partial_ok]
            assert_equal [r -1 debug digest] [r debug digest]
            assert_match {*Master accepted a Partial Resynchronization*} [exec cat [srv 0 stdout]]
        }
    }
}

start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
    start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
        start_server {} {
            test {A fellow replica promoted: following it continues with PSYNC (new replid)} {
                r -1 replicaof [srv -2 host] [srv -2 port]
                r replicaof [srv -2 host] [srv -2 port]
                wait_replica_online -1
                wait_replica_online 0
                r -2 set before promotion
                r -2 select 4
                r -2 lpush list4 a b c
                r -2 select 9
                wait_replica_caught_up -2 -1
                wait_replica_caught_up -2 0
                set oldid [status_field [r info replication] master_replid]
                r -1 replicaof no one
                set partial [status_field [r -1 info stats] sync_partial_ok]
                r replicaof [srv -1 host] [srv -1 port]
                wait_replica_online 0
                r -1 select 4
                r -1 lpush list4 d
                r -1 select 9
                r -1 set after promotion
                wait_replica_caught_up -1 0
                assert_equal [expr {$partial + 1}] [status_field [r -1 info stats] sync_partial_ok]
                set info [r info replication]
                assert_equal [status_field [r -1 info replication] master_replid] \
                    [status_field $info master_replid]
                assert_equal $oldid [status_field $info master_replid2]
                assert_equal [r -1 debug digest] [r debug digest]
                r select 4
                assert_equal {d c b a} [r lrange list4 0 -1]
                r select 9
            }

            test {Sentinel's transaction: MULTI, SLAVEOF, CONFIG REWRITE, CLIENT KILL, EXEC} {
                r multi
                r slaveof [srv -2 host] [srv -2 port]
                r config rewrite
                r client kill type pubsub
                r exec
                wait_replica_online 0
                set conf [exec cat [srv 0 config_file]]
                assert_match "*replicaof [srv -2 host] [srv -2 port]*" $conf
                r slaveof no one
                r config rewrite
                assert_no_match "*replicaof*" [exec cat [srv 0 config_file]]
            }
        }
    }
}

start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
    start_server {} {
        r replicaof [srv -1 host] [srv -1 port]
        wait_replica_online

        test {Relative expiry arrives as absolute: TTLs on the replica follow the master's} {
            r -1 set ex1 v ex 1000
            r -1 set px1 v px 500000
            r -1 setex ex2 2000 v
            r -1 set ex3 v
            r -1 expire ex3 3000
            r -1 pexpireat ex4 [expr {[clock milliseconds] + 4000000}]
            r -1 set ex5 v
            r -1 persist ex1
            wait_replica_caught_up -1 0
            assert_equal -1 [r ttl ex1]
            assert_range [r pttl px1] 400000 500000
            assert_range [r ttl ex2] 1900 2000
            assert_range [r ttl ex3] 2900 3000
            assert_equal -2 [r ttl ex4]
            assert_equal [r -1 debug digest] [r debug digest]
        }

        test {A client blocked on the replica is served by the master's push} {
            set rd [redis_deferring_client]
            # BLPOP is a write (READONLY here); XREAD BLOCK only reads.
            assert_error {READONLY*} {r blpop waitlist 1}
            $rd xread block 0 streams wstream $
            wait_for_blocked_client
            r -1 xadd wstream 5-1 f hello
            assert_equal {{wstream {{5-1 {f hello}}}}} [$rd read]
            $rd close
        }

        test {The stream waits while a script is busy on the replica, then is applied} {
            r config set busy-reply-threshold 100
            set rd [redis_deferring_client]
            $rd eval {local s = tonumber(redis.call('time')[1]); while tonumber(redis.call('time')[1]) - s < 2 do end; return 1} 0
            wait_for_condition 100 20 {
                [catch {r ping} e] && [string match {BUSY*} $e]
            } else {
                fail "the script did not become busy"
            }
            for {set i 0} {$i < 50} {incr i} {r -1 set busykey$i $i}
            assert_equal 1 [$rd read]
            $rd close
            wait_replica_caught_up -1 0
            assert_equal 49 [r get busykey49]
            assert_equal [r -1 debug digest] [r debug digest]
            r config set busy-reply-threshold 5000
        }

        test {Every family of commands through the stream} {
            r -1 select 0
            r -1 mset s1 a s2 b
            r -1 append s1 xyz
            r -1 setrange s2 3 q
            r -1 incrbyfloat f 1.5
            r -1 getdel s1
            r -1 linsert l before x y
            r -1 rpush l a b c d
            r -1 lmove l l2 left right
            r -1 ltrim l 0 1
            r -1 sadd set1 a b c d
            r -1 spop set1
            r -1 smove set1 set2 a
            r -1 sinterstore set3 set1 set2
            r -1 zadd z 1 a 2 b 3 c 4 d
            r -1 zpopmin z
            r -1 zrangestore z2 z 0 -1
            r -1 zunionstore z3 2 z z2
            r -1 hset h a 1 b 2 c 3
            r -1 hdel h b
            r -1 hincrbyfloat h a 0.5
            r -1 pfadd hll a b c
            r -1 pfmerge hll2 hll
            r -1 setbit bits 7 1
            r -1 bitop not bits2 bits
            r -1 bitfield bf set u8 0 200
            r -1 geoadd g 13.36 38.11 p1 15.08 37.50 p2
            r -1 geosearchstore g2 g fromlonlat 15 37 byradius 200 km asc
            r -1 xadd x 1-1 a 1
            r -1 xadd x 2-1 b 2
            r -1 xgroup create x grp 0
            r -1 xreadgroup group grp c1 count 1 streams x >
            r -1 xclaim x grp c2 0 1-1
            r -1 xack x grp 1-1
            r -1 xtrim x maxlen 1
            r -1 copy h hcopy
            r -1 rename hcopy hcopy2
            r -1 move hcopy2 5
            r -1 swapdb 5 6
            r -1 function load {#!lua name=replib
                redis.register_function('rf', function(keys, args) return redis.call('set', keys[1], args[1]) end)}
            r -1 fcall rf 1 fk fv
            r -1 eval {redis.call('incr', KEYS[1]); redis.call('expire', KEYS[1], 100)} 1 ek
            r -1 select 9
            wait_replica_caught_up -1 0
            assert_equal [r -1 debug digest] [r debug digest]
            assert_equal [r -1 function list] [r function list]
            r select 0
            assert_equal fv [r get fk]
            r select 9
        }
    }
}

start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
    start_server {overrides {replica-announce-ip 127.0.0.5 replica-announce-port 1234
                             replica-priority 42}} {
        test {Clients blocked on a master that becomes a replica are unblocked with an error} {
            set rd [redis_deferring_client]
            $rd blpop q 0
            wait_for_blocked_client
            r replicaof [srv -1 host] [srv -1 port]
            assert_error {UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)} {$rd read}
            $rd close
            wait_replica_online
        }

        test {The idle-client timeout never closes the link to the master} {
            r config set timeout 1
            # Longer than the timeout, shorter than the master's PING period (10 s).
            after 2500
            # Our own idle test connection was closed meanwhile: that is the timeout working.
            reconnect
            r config set timeout 0
            assert_equal 0 [count_log_message {*Connection with master lost*}]
            assert_equal up [status_field [r info replication] master_link_status]
        }

        test {WAIT on the master counts this replica's acknowledgement} {
            r -1 set waited 1
            assert_equal 1 [r -1 wait 1 0]
            assert_equal 1 [r get waited]
        }

        test {replica-ignore-maxmemory: a replica over maxmemory neither evicts nor refuses} {
            r config set maxmemory-policy allkeys-lru
            r config set maxmemory 1
            set big [string repeat x 10000]
            for {set i 0} {$i < 50} {incr i} {r -1 set big$i $big}
            wait_replica_caught_up -1 0
            # Reads from clients evict nothing, and nothing is refused.
            assert_equal $big [r get big0]
            assert_equal [r -1 dbsize] [r dbsize]
            assert_equal 0 [status_field [r info stats] evicted_keys]
            r config set maxmemory 0
            r config set maxmemory-policy noeviction
            r -1 flushall
            wait_replica_caught_up -1 0
        }

        test {replica-announce-ip, replica-announce-port and replica-priority} {
            wait_for_condition 100 50 {
                [string match {*slave0:ip=127.0.0.5,port=1234,state=online*} \
                    [r -1 info replication]]
            } else {
                fail "the master does not list the announced address: [r -1 info replication]"
            }
            assert_equal 42 [status_field [r info replication] slave_priority]
        }

        test {repl-timeout: a silent master is dropped, then the link comes back} {
            r config set repl-timeout 1
            set partial [status_field [r -1 info stats] sync_partial_ok]
            # The master sleeps: no data nor PING for longer than the timeout.
            r -1 debug sleep 3
            wait_for_log_message {*MASTER timeout: no data nor PING received*}
            wait_replica_online
            r config set repl-timeout 60
            r -1 set after-timeout 1
            wait_replica_caught_up -1 0
            assert_equal 1 [r get after-timeout]
            assert_equal [expr {$partial + 1}] [status_field [r -1 info stats] sync_partial_ok]
        }
    }
}

start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
    start_server {} {
        test {While the RDB arrives: ROLE says sync, INFO has the master_sync_* lines} {
            populate 30 slow: 10 -1
            # The master's child writes a key every 100 ms: the transfer lasts seconds.
            r -1 config set rdb-key-save-delay 100000
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 100 50 {
                [lindex [r role] 3] eq {sync}
            } else {
                fail "the replica never showed the transfer: [r role]"
            }
            set info [r info replication]
            assert_equal 1 [status_field $info master_sync_in_progress]
            assert_equal down [status_field $info master_link_status]
            assert_equal -1 [status_field $info master_sync_total_bytes]
            assert_morethan_equal [status_field $info master_sync_read_bytes] 0
            assert_match {*.[0-9][0-9]} [status_field $info master_sync_perc]
            assert_match {[0-9]*} [status_field $info master_sync_last_io_seconds_ago]
            r -1 config set rdb-key-save-delay 0
            wait_for_condition 200 100 {
                [string match {*master_link_status:up*} [r info replication]]
            } else {
                fail "the slow sync never ended"
            }
            assert_equal 0 [status_field [r info replication] master_sync_in_progress]
            assert_equal [r -1 debug digest] [r debug digest]
        }
    }
}

start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
    start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
        start_server {} {
            test {-NOMASTERLINK from a master that is itself disconnected: retried until it syncs} {
                # The middle server follows a port where nobody listens.
                set dead [::server::find_free_port]
                r -1 replicaof 127.0.0.1 $dead
                r replicaof [srv -1 host] [srv -1 port]
                wait_for_log_message {*Master is currently unable to PSYNC but should be in the future: -NOMASTERLINK*}
                assert_equal down [status_field [r info replication] master_link_status]
                r -1 replicaof [srv -2 host] [srv -2 port]
                r -2 set through-the-middle 1
                wait_for_condition 200 50 {
                    [string match {*master_link_status:up*} [r info replication]] &&
                    [r get through-the-middle] eq {1}
                } else {
                    fail "the replica did not sync through the middle server"
                }
            }

            test {masteruser and masterauth: the link authenticates as an ACL user} {
                r -2 acl setuser repluser on >replpw +@all ~* &*
                r -2 config set requirepass masterpw
                r replicaof no one
                r config set masteruser repluser
                r config set masterauth replpw
                r replicaof [srv -2 host] [srv -2 port]
                wait_replica_online
                set found 0
                foreach line [split [r -2 client list] "\n"] {
                    if {[string match {*flags=S*user=repluser*} $line]} {set found 1}
                }
                assert_equal 1 $found
                r -2 config set requirepass ""
                r replicaof no one
                r config set masteruser ""
                r config set masterauth ""
            }
        }
    }
}

start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
    start_server {} {
        start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
            test {Chained replicas: Redis master -> replica under test -> Redis replica} {
                if {[lindex [r -1 command info psync] 0] eq {}} {
                    # The master side (SYNC/PSYNC) is what a Redis replica of ours needs.
                    error "the server under test does not serve PSYNC"
                }
                r -1 replicaof [srv -2 host] [srv -2 port]
                wait_replica_online -1
                r replicaof [srv -1 host] [srv -1 port]
                wait_replica_online 0
                r -2 set chained 1
                r -2 hset chainedh a b
                wait_replica_caught_up -2 -1
                wait_replica_caught_up -2 0
                assert_equal [r -2 debug digest] [r debug digest]
                assert_equal [r -2 debug digest] [r -1 debug digest]
                # The middle server still carries its master's history (a sub-replica does not
                # start a new one): ids and offsets agree along the chain.
                set top [r -2 info replication]
                assert_equal [status_field $top master_replid] \
                    [status_field [r -1 info replication] master_replid]
                assert_equal [status_field $top master_replid] \
                    [status_field [r info replication] master_replid]
                assert_equal [status_field $top master_repl_offset] \
                    [status_field [r info replication] master_repl_offset]
            }

            test {Chained: the middle server's link drops, it continues with PSYNC} {
                set partial [status_field [r -2 info stats] sync_partial_ok]
                r -2 client kill type replica
                wait_for_condition 100 50 {
                    [status_field [r -2 info stats] sync_partial_ok] == $partial + 1
                } else {
                    fail "the middle server did not continue: [r -2 info stats]"
                }
                r -2 set after-drop 1
                wait_replica_caught_up -2 -1
                wait_replica_caught_up -2 0
                assert_equal [r -2 debug digest] [r debug digest]
            }
        }
    }
}

}

# masterauth holds bytes, not text: a password with a NUL and bytes that are not UTF-8 must
# reach the master exactly (a C-string cut at the NUL, or a re-encoding, fails the AUTH), as
# the default user's (requirepass) or an ACL user's (masteruser). The master is a stock Redis
# and then the binary under test.
foreach master_bin [list $::redis_master_bin {}] {
    foreach how {requirepass acl} {
        set master_args [list overrides {repl-diskless-sync-delay 0}]
        if {$master_bin ne {}} {lappend master_args binary $master_bin}
        start_server $master_args {
            start_server {} {
                test "masterauth with a binary password, $how ([expr {$master_bin eq {} ? {master under test} : {Redis master}}])" {
                    set pw "pw\x00\xfe\xff\xc3(tail"
                    if {$how eq "acl"} {
                        r -1 acl setuser repl on ">$pw" +@all ~* &*
                        r config set masteruser repl
                    } else {
                        r -1 config set requirepass $pw
                    }
                    # Only the bytes before the NUL: refused, the link stays down.
                    r config set masterauth "pw"
                    r replicaof [srv -1 host] [srv -1 port]
                    wait_for_log_message {*Unable to AUTH to MASTER*}
                    assert_equal down [status_field [r info replication] master_link_status]
                    # The whole password, NUL and all.
                    r config set masterauth $pw
                    wait_replica_online
                    assert_equal $pw [lindex [r config get masterauth] 1]
                    r -1 set after-auth 1
                    wait_for_condition 200 50 {[r get after-auth] eq {1}} else {
                        fail "the stream did not arrive after the binary AUTH"
                    }
                    r replicaof no one
                }
            }
        }
    }
}

# A replica whose config file names its master starts connecting in its first loop turn, as
# Redis's replication cron runs in the first serverCron, a millisecond after startup; it used to
# wait for our first cron tick, one period later. With hz 1 that period is a second, so the
# first ROLE, sent as soon as the server answers, would still see "connect" (not yet
# connecting). It matters to Sentinel: a sentinel started right after the replica learns the
# replicas from its first INFO of the master, and asks again only 10 s later.
start_server [list binary $::redis_master_bin overrides {repl-diskless-sync-delay 0}] {
    start_server [list overrides [list hz 1 replicaof "[srv 0 host] [srv 0 port]"]] {
        test {A replica of the config file starts connecting before it serves its first client} {
            assert_not_equal connect [lindex [r role] 3]
            wait_replica_online
        }
    }
}
