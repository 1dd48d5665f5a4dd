# Scripts and functions where replication is involved: what a replica's stream receives from a
# script (each write the script made, redis.set_repl's choices, SELECT inside the script), and
# how a replica judges scripts while its link is down (replica-serve-stale-data no): the
# allow-stale and no-writes flags, the commands a stale script may still run, and READONLY.
# Both servers are the binary under test; every test also holds on Redis 7.0.

proc script_repl_wait_online {level} {
    wait_for_condition 200 50 {
        [string match {*master_link_status:up*} [r $level info replication]]
    } else {
        fail "replica did not connect: [r $level info replication]"
    }
}

# Waits until the replica (level 0) has applied everything the master (level -1) sent.
proc script_repl_caught_up {} {
    wait_for_condition 200 50 {
        [s -1 master_repl_offset] == [s 0 slave_repl_offset]
    } else {
        fail "replica behind its master"
    }
}

tags {scripting repl external:skip} {
start_server {} {
    start_server {} {
        r replicaof [srv -1 host] [srv -1 port]
        script_repl_wait_online 0

        test {A script's writes reach the replica, and only those redis.set_repl lets through} {
            r -1 del a b c d
            r -1 eval {
                redis.call('set', 'a', '1')
                redis.set_repl(redis.REPL_NONE)
                redis.call('set', 'b', '2')
                redis.set_repl(redis.REPL_AOF)
                redis.call('set', 'c', '3')
                redis.set_repl(redis.REPL_SLAVE)
                redis.call('set', 'd', '4')
                redis.set_repl(redis.REPL_ALL)
                redis.call('incr', 'd')
            } 0
            script_repl_caught_up
            assert_equal {1 2 3 5} [r -1 mget a b c d]
            assert_equal {1 {} {} 5} [r mget a b c d]
        }

        test {A script's reads are not replicated, and rewritten commands reach it as rewritten} {
            r -1 del ra rb rc rf
            r config resetstat
            r -1 eval {
                redis.call('mget', 'ra', 'rb')
                redis.call('set', 'rc', '1')
                redis.call('expire', 'rc', 1000)
                redis.call('incrbyfloat', 'rf', '1.5')
                redis.call('spop', 'no-such-set')
            } 0
            script_repl_caught_up
            set stats [r info commandstats]
            # EXPIRE arrives as PEXPIREAT and INCRBYFLOAT as SET; MGET and a no-op SPOP not at all.
            foreach cmd {mget expire incrbyfloat spop} {
                assert_equal {} [getInfoProperty $stats cmdstat_$cmd] $cmd
            }
            assert_match {calls=1,*} [getInfoProperty $stats cmdstat_pexpireat]
            assert_match {calls=2,*} [getInfoProperty $stats cmdstat_set]
            assert_equal 1.5 [r get rf]
            assert_range [r ttl rc] 900 1000
        } {} {needs:config}

        test {A script whose first run wrote nothing is replicated by its effects later} {
            r -1 del x
            set body {if tonumber(ARGV[1]) > 0 then redis.call('incr', KEYS[1]) end}
            set sha [r -1 script load $body]
            r -1 eval $body 1 x 0
            r -1 evalsha $sha 1 x 0
            r -1 evalsha $sha 1 x 1
            r -1 evalsha [string toupper $sha] 1 x 1
            script_repl_caught_up
            assert_equal 2 [r get x]
        }

        test {A script's SELECT and non-deterministic values reach the replica as they happened} {
            r -1 flushall
            r -1 eval {
                redis.call('set', 'here', 'db9')
                redis.call('select', '10')
                redis.call('incr', 'x')
                redis.call('set', 'now', table.concat(redis.call('time'), '.'))
                redis.call('select', '11')
                redis.call('incr', 'z')
            } 0
            r -1 incr after
            script_repl_caught_up
            foreach level {-1 0} {
                assert_equal db9 [r $level get here]
                assert_equal 1 [r $level get after]
            }
            r -1 select 10
            r select 10
            assert_equal 1 [r get x]
            assert_equal [r -1 get now] [r get now]
            r -1 select 11
            r select 11
            assert_equal 1 [r get z]
            r -1 select 9
            r select 9
        }

        test {FUNCTION LOAD, DELETE, RESTORE and FLUSH and FCALL's writes reach the replica} {
            r -1 function flush
            r -1 function load {#!lua name=repllib
                redis.register_function('replset', function(keys, args)
                    return redis.call('set', keys[1], args[1])
                end)
                redis.register_function{function_name='replget', flags={'no-writes'},
                    callback=function(keys) return redis.call('get', keys[1]) end}
            }
            r -1 fcall replset 1 fk fv
            script_repl_caught_up
            assert_equal {repllib} [lmap l [r function list] {dict get $l library_name}]
            assert_equal fv [r get fk]
            # The replica runs a no-writes function itself; one that may write is READONLY.
            assert_equal fv [r fcall replget 1 fk]
            assert_equal fv [r fcall_ro replget 1 fk]
            assert_error {READONLY You can't write against a read only replica.} \
                {r fcall replset 1 fk other}
            set dump [r -1 function dump]
            r -1 function delete repllib
            script_repl_caught_up
            assert_equal {} [r function list]
            r -1 function restore $dump
            script_repl_caught_up
            assert_equal {repllib} [lmap l [r function list] {dict get $l library_name}]
            r -1 function flush async
            script_repl_caught_up
            assert_equal {} [r function list]
        }

        test {A replica refuses FUNCTION LOAD, DELETE, FLUSH and RESTORE with READONLY} {
            r -1 function load {#!lua name=rolib
                redis.register_function('rof', function() return 1 end)
            }
            script_repl_caught_up
            set dump [r function dump]
            assert_error {READONLY *} \
                {r function load "#!lua name=other\nredis.register_function('o', function() end)"}
            assert_error {READONLY *} {r function delete rolib}
            assert_error {READONLY *} {r function flush}
            assert_error {READONLY *} {r function restore $dump replace}
            assert_equal {rolib} [lmap l [r function list] {dict get $l library_name}]
            r -1 function flush
        }

        test {On a replica a script that may write is READONLY, a no-writes one runs} {
            r -1 set k v
            script_repl_caught_up
            assert_error {READONLY You can't write against a read only replica.} \
                {r eval "#!lua\nreturn redis.call('get', KEYS\[1\])" 1 k}
            assert_equal v [r eval "#!lua flags=no-writes\nreturn redis.call('get', KEYS\[1\])" 1 k]
            # Without a shebang the script runs until it writes.
            assert_equal v [r eval {return redis.call('get', KEYS[1])} 1 k]
            assert_error {READONLY You can't write against a read only replica.*} \
                {r eval {return redis.call('set', KEYS[1], 'x')} 1 k}
            assert_equal v [r get k]
        }

        test {On a stale replica only allow-stale scripts run, and only stale-flagged commands} {
            r -1 function load replace {#!lua name=stalelib
                redis.register_function{function_name='plain', flags={'no-writes'},
                    callback=function() return 'hello' end}
                redis.register_function{function_name='stale', flags={'no-writes', 'allow-stale'},
                    callback=function() return 'hello' end}
                redis.register_function{function_name='staleget', flags={'no-writes', 'allow-stale'},
                    callback=function() return redis.call('get', 'k') end}
            }
            script_repl_caught_up
            r config set replica-serve-stale-data no
            r replicaof 127.0.0.1 1
            wait_for_condition 100 50 {
                [string match {*master_link_status:down*} [r info replication]]
            } else {
                fail "the link did not go down"
            }
            catch {
                # A script without a shebang counts as a use of the data: refused whole.
                assert_error {MASTERDOWN *} {r eval {return 1} 0}
                assert_error {MASTERDOWN *} {r eval "#!lua flags=no-writes\nreturn 1" 0}
                assert_equal 1 [r eval "#!lua flags=no-writes,allow-stale\nreturn 1" 0]
                # Inside such a script the commands without the stale flag are refused.
                assert_error {ERR Can not execute the command on a stale replica script: *} \
                    {r eval "#!lua flags=no-writes,allow-stale\nreturn redis.call('get','k')" 0}
                assert_equal {ERR Can not execute the command on a stale replica} \
                    [r eval "#!lua flags=no-writes,allow-stale
                             return redis.pcall('get','k')\['err'\]" 0]
                assert_match {*redis_version*} \
                    [r eval "#!lua flags=no-writes,allow-stale\nreturn redis.call('info','server')" 0]
                assert_equal 2 [llength [r eval "#!lua flags=no-writes,allow-stale
                                                return redis.call('time')" 0]]
                # Functions alike, by the flags they were registered with.
                assert_error {MASTERDOWN *} {r fcall plain 0}
                assert_equal hello [r fcall stale 0]
                assert_error {ERR Can not execute the command on a stale replica script: staleget,*} \
                    {r fcall_ro staleget 0}
            } err opts
            r config set replica-serve-stale-data yes
            r replicaof no one
            r -1 function flush
            r function flush
            if {[dict get $opts -code] == 1} {return -options $opts $err}
        }

        # The master runs a busy script that waits (a bounded number of rounds) until INFO shows
        # no replica, then writes; returns what the script replied.
        proc script_repl_write_after_drop {first_write} {
            set rd [redis_deferring_client -1]
            $rd eval [string map [list FIRST $first_write] {
                FIRST
                for i = 1, 3000000 do
                    local info = redis.call('info', 'replication')
                    if string.match(info, 'connected_slaves:0') then
                        return redis.pcall('set', KEYS[1], 'after the drop')
                    end
                end
                return 'the replica never dropped'
            }] 1 drop:x
            wait_for_condition 100 100 {
                [catch {r -1 ping} e] == 1
            } else {
                fail "the script did not become busy"
            }
            assert_match {BUSY*} $e
            r replicaof no one
            # The caught error comes back as the script's error reply.
            catch {$rd read} reply
            $rd close
            return $reply
        }

        test {min-replicas-to-write: a script that already wrote may finish after replicas drop} {
            r -1 config set busy-reply-threshold 10
            r -1 config set min-replicas-to-write 1
            catch {
                foreach {first expected} {
                    {redis.call('set', KEYS[1], 'before the drop')} OK
                    {} {NOREPLICAS Not enough good replicas to write.}
                } {
                    r replicaof [srv -1 host] [srv -1 port]
                    script_repl_wait_online 0
                    wait_for_condition 100 100 {
                        [s -1 min_slaves_good_slaves] == 1
                    } else {
                        fail "the replica is not counted as good"
                    }
                    r -1 del drop:x
                    set reply [script_repl_write_after_drop $first]
                    # A script that had not written yet is refused its first write.
                    if {$expected eq "OK"} {
                        assert_equal OK $reply
                        assert_equal {after the drop} [r -1 get drop:x]
                    } else {
                        assert_equal $expected $reply
                        assert_equal {} [r -1 get drop:x]
                    }
                }
            } err opts
            r -1 config set min-replicas-to-write 0
            r -1 config set busy-reply-threshold 5000
            if {[dict get $opts -code] == 1} {return -options $opts $err}
        }
    }
}
}

# DEBUG LOADAOF on a read-only replica replays FUNCTION LOAD, DELETE and FLUSH from the AOF:
# what the AOF holds is obeyed, not refused as a write.
tags {scripting repl external:skip} {
start_server {overrides {appendonly yes}} {
    proc script_aof_reload_as_replica {} {
        r config set replica-read-only yes
        r replicaof 127.0.0.1 1
        r debug loadaof
        r replicaof no one
    }

    test {DEBUG LOADAOF on a read-only replica replays FUNCTION LOAD, DELETE and FLUSH} {
        wait_for_condition 100 100 {
            [aof_rewrite_idle]
        } else {
            fail "the AOF rewrite did not finish"
        }
        r function load "#!lua name=aoflib\nredis.register_function('aoff', function() return 'hi' end)"
        script_aof_reload_as_replica
        assert_equal {{library_name aoflib engine LUA functions {{name aoff description {} flags {}}}}} \
            [r function list]
        assert_equal hi [r fcall aoff 0]

        r function delete aoflib
        script_aof_reload_as_replica
        assert_equal {} [r function list]

        r function load "#!lua name=aoflib\nredis.register_function('aoff', function() return 'hi' end)"
        r function flush
        script_aof_reload_as_replica
        assert_equal {} [r function list]
    } {} {needs:debug}
}
}

tags {scripting repl external:skip} {
start_server {} {
    start_server {} {
        test {A script's pushes that wake a blocked BRPOP reach the replica in order} {
            r replicaof [srv -1 host] [srv -1 port]
            script_repl_wait_online 0
            set rd [redis_deferring_client -1]
            $rd brpop bl 0
            wait_for_condition 100 50 {[s -1 blocked_clients] == 1} else {
                fail "BRPOP did not block"
            }
            r -1 eval {
                redis.call('lpush', KEYS[1], 'first')
                redis.call('lpush', KEYS[1], 'second')
            } 1 bl
            # The waiter is served after the script, from the list it left: [second first].
            assert_equal {bl first} [$rd read]
            $rd close
            script_repl_caught_up
            assert_equal {second} [r -1 lrange bl 0 -1]
            assert_equal {second} [r lrange bl 0 -1]
            r replicaof no one
        }

        test {A replica that connects later receives the libraries in the snapshot} {
            r -1 function load {#!lua name=snaplib
redis.register_function{function_name='snapro', callback=function() return 'from-rdb' end,
                        flags={'no-writes'}}}
            r replicaof [srv -1 host] [srv -1 port]
            script_repl_wait_online 0
            assert_equal [r -1 function list] [r function list]
            assert_equal from-rdb [r fcall snapro 0]
            assert_equal from-rdb [r fcall_ro snapro 0]
            assert_error {READONLY*} {r function delete snaplib}
            r replicaof no one
            assert_equal from-rdb [r fcall snapro 0]
        }
    }
}
}
