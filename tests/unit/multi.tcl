# Transactions as Redis 7.0: MULTI / EXEC / DISCARD queueing and replies (RESP2 and RESP3),
# EXECABORT after a queueing error, runtime errors that do not stop the rest of EXEC, and
# optimistic locking with WATCH / UNWATCH: which changes touch a watched key (writes from any
# connection, EXPIRE, expiry, FLUSHDB / FLUSHALL, SWAPDB) and which do not (other databases,
# missing keys that stay missing), and the state EXEC / DISCARD / RESET leave behind.
# Every test here passes against /usr/bin/redis-server as well.

start_server {tags {multi}} {
    test {MULTI / EXEC basics} {
        r del foo
        r set foo 1
        assert_equal OK [r multi]
        assert_equal QUEUED [r incr foo]
        assert_equal QUEUED [r get foo]
        assert_equal QUEUED [r set bar x]
        assert_equal {2 2 OK} [r exec]
        assert_equal 2 [r get foo]
    }

    test {Commands queued in MULTI are not run before EXEC} {
        r set foo 1
        set other [redis_client]
        r multi
        r incr foo
        assert_equal 1 [$other get foo] "a queued command has no effect yet"
        r exec
        assert_equal 2 [$other get foo]
        $other close
    }

    test {EXEC of an empty transaction is an empty array} {
        r multi
        r exec
    } {}

    test {DISCARD drops the queued commands} {
        r set foo 1
        r multi
        r incr foo
        r incr foo
        assert_equal OK [r discard]
        assert_equal 1 [r get foo]
        assert_equal PONG [r ping] "the connection left MULTI state"
    }

    test {EXEC and DISCARD without MULTI} {
        assert_error {ERR EXEC without MULTI} {r exec}
        assert_error {ERR DISCARD without MULTI} {r discard}
    }

    test {Nested MULTI are not allowed, the transaction goes on} {
        r set foo 1
        r multi
        assert_error {ERR MULTI calls can not be nested} {r multi}
        r incr foo
        assert_equal {2} [r exec]
    }

    test {A wrong arity inside MULTI aborts EXEC with EXECABORT} {
        r set foo 1
        r multi
        r incr foo
        assert_error {ERR wrong number of arguments for 'get' command} {r get}
        r incr foo
        assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
        assert_equal 1 [r get foo] "nothing of an aborted transaction runs"
    }

    test {An unknown command inside MULTI aborts EXEC with EXECABORT} {
        r multi
        assert_error {ERR unknown command 'nosuchcmd', with args beginning with: 'a' } {
            r nosuchcmd a
        }
        r ping
        assert_error {EXECABORT *} {r exec}
    }

    test {If EXEC aborts, the client MULTI state is cleared} {
        r multi
        catch {r nosuchcmd}
        catch {r exec}
        assert_equal PONG [r ping]
        assert_error {ERR EXEC without MULTI} {r exec}
    }

    test {A wrong arity of EXEC itself inside MULTI aborts the transaction at once} {
        r multi
        r ping
        set abort "EXECABORT Transaction discarded because of:"
        assert_error "$abort wrong number of arguments for 'exec' command" {r exec extra}
        assert_error {ERR EXEC without MULTI} {r exec}
        assert_equal PONG [r ping]
    }

    test {A wrong arity of EXEC outside MULTI is an EXECABORT that drops the WATCHes} {
        r set foo 1
        r watch foo
        set abort "EXECABORT Transaction discarded because of:"
        assert_error "$abort wrong number of arguments for 'exec' command" {r exec extra}
        r set foo 2
        r multi
        r incr foo
        assert_equal {3} [r exec] "the earlier WATCH no longer applies"
    }

    test {Runtime errors inside EXEC do not stop the other commands} {
        r set foo bar
        r del n
        r multi
        r incr foo
        r incr n
        r set s v
        set res [r exec]
        assert_equal 3 [llength $res]
        assert_equal {ERR value is not an integer or out of range} [lindex $res 0]
        assert_equal {1 OK} [lrange $res 1 2]
        assert_equal bar [r get foo]
        assert_equal 1 [r get n]
    }

    test {MULTI / EXEC on the wire (RESP2)} {
        set rd [redis_deferring_client]
        $rd del foo
        $rd read
        $rd readraw 1
        $rd multi
        assert_equal {+OK} [$rd read]
        $rd incr foo
        assert_equal {+QUEUED} [$rd read]
        $rd get nokey
        assert_equal {+QUEUED} [$rd read]
        $rd exec
        assert_equal {*2} [$rd read]
        assert_equal {:1} [$rd read]
        assert_equal {$-1} [$rd read]
        $rd close
    }

    test {An aborted EXEC is a null array in RESP2 and a null in RESP3} {
        foreach {proto null} {2 {*-1} 3 {_}} {
            set rd [redis_deferring_client]
            $rd hello $proto
            $rd read
            $rd set wfoo 1
            $rd read
            $rd watch wfoo
            $rd read
            r set wfoo 2
            $rd multi
            $rd read
            $rd ping
            $rd read
            $rd readraw 1
            $rd exec
            assert_equal $null [$rd read] "RESP$proto"
            $rd close
        }
    }

    test {EXEC in RESP3 nests RESP3 replies} {
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd multi
        $rd read
        $rd get nokey
        $rd read
        $rd ping
        $rd read
        $rd readraw 1
        $rd exec
        assert_equal {*2} [$rd read]
        assert_equal {_} [$rd read]
        assert_equal {+PONG} [$rd read]
        $rd close
    }

    test {WATCH inside MULTI is not allowed} {
        r multi
        assert_error {ERR WATCH inside MULTI is not allowed} {r watch x}
        r ping
        assert_equal {PONG} [r exec] "the refused WATCH does not abort the transaction"
    }

    test {WATCH with a wrong arity} {
        assert_error {ERR wrong number of arguments for 'watch' command} {r watch}
    }

    test {EXEC works on WATCHed key not modified} {
        r set x 30
        r watch x y z
        r watch k
        r multi
        r ping
        r exec
    } {PONG}

    test {EXEC fail on WATCHed key modified (1 key of 1 watched)} {
        r set x 30
        r watch x
        r set x 40
        r multi
        r ping
        r exec
    } {}

    test {EXEC fail on WATCHed key modified (1 key of 5 watched)} {
        r set x 30
        r watch a b x k z
        r set x 40
        r multi
        r ping
        r exec
    } {}

    test {EXEC fail on WATCHed key modified by another client} {
        set other [redis_client]
        r set x 30
        r watch x
        $other incr x
        r multi
        r ping
        set res [r exec]
        $other close
        set res
    } {}

    test {Writing the same value still touches a watched key} {
        r set x same
        r watch x
        set other [redis_client]
        $other set x same
        $other close
        r multi
        r ping
        r exec
    } {}

    test {EXEC fails when a missing watched key is created} {
        r del x
        r watch x
        set other [redis_client]
        $other set x 1
        $other close
        r multi
        r ping
        r exec
    } {}

    test {DEL of a missing watched key does not touch it} {
        r del x
        r watch x
        r del x
        r multi
        r ping
        r exec
    } {PONG}

    test {A write inside the transaction itself does not abort it} {
        r set x 1
        r watch x
        r multi
        r incr x
        r exec
    } {2}

    test {An aborted EXEC ends the transaction} {
        r set x 1
        r watch x
        r set x 2
        r multi
        r incr x
        assert_equal {} [r exec]
        assert_error {ERR EXEC without MULTI} {r exec}
        assert_equal 2 [r get x]
    }

    test {After successful EXEC key is no longer watched} {
        r set x 30
        r watch x
        r multi
        r ping
        r exec
        r set x 40
        r multi
        r ping
        r exec
    } {PONG}

    test {After failed EXEC key is no longer watched} {
        r set x 30
        r watch x
        r set x 40
        r multi
        r ping
        r exec
        r set x 40
        r multi
        r ping
        r exec
    } {PONG}

    test {It is possible to UNWATCH} {
        r set x 30
        r watch x
        r set x 40
        assert_equal OK [r unwatch]
        r multi
        r ping
        r exec
    } {PONG}

    test {UNWATCH when there is nothing watched works as expected} {
        r unwatch
    } {OK}

    test {DISCARD should clear the WATCH dirty flag on the client} {
        r watch x
        r set x 10
        r multi
        r discard
        r multi
        r incr x
        r exec
    } {11}

    test {DISCARD should UNWATCH all the keys} {
        r watch x
        r set x 10
        r multi
        r discard
        r set x 10
        r multi
        r incr x
        r exec
    } {11}

    test {WATCH is able to remember the DB a key belongs to} {
        r select 5
        r set x 30
        r watch x
        r select 1
        r set x 10
        r select 5
        r multi
        r ping
        set res [r exec]
        r select 9
        set res
    } {PONG}

    test {WATCH will consider touched keys target of EXPIRE} {
        r del x
        r set x foo
        r watch x
        r expire x 10
        r multi
        r ping
        r exec
    } {}

    test {A SETBIT that neither flips a bit nor grows the string does not touch a watched key} {
        r set x o
        r watch x
        assert_equal 1 [r setbit x 1 1] "bit 1 of 'o' (0x6f) is already set"
        r multi
        r ping
        assert_equal PONG [r exec]
        r watch x
        r setbit x 1 0
        r multi
        r ping
        assert_equal {} [r exec] "a flipped bit touches"
        r watch x
        r setbit x 100 0
        r multi
        r ping
        assert_equal {} [r exec] "growing the string touches"
    }

    test {WATCH will consider a PERSIST of the key a touch} {
        r set x foo ex 100
        r watch x
        r persist x
        r multi
        r ping
        r exec
    } {}

    test {WATCH will consider touched expired keys} {
        r del x
        r set x foo
        r pexpire x 50
        r watch x
        after 200
        r multi
        r ping
        r exec
    } {}

    test {EXEC fail on lazy expired WATCHed key} {
        r del key
        r debug set-active-expire 0
        r set key 1 px 100
        r watch key
        after 200
        r multi
        r incr key
        set res [r exec]
        r debug set-active-expire 1
        set res
    } {} {needs:debug}

    test {WATCH stale keys should not fail EXEC} {
        r del x
        r debug set-active-expire 0
        r set x foo px 1
        after 20
        r watch x
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        set res
    } {PONG} {needs:debug}

    test {Writing a stale watched key touches it} {
        r del x
        r debug set-active-expire 0
        r set x foo px 1
        after 20
        r watch x
        r set x bar
        r multi
        r ping
        set res [r exec]
        assert_equal OK [r unwatch]
        r debug set-active-expire 1
        set res
    } {} {needs:debug}

    # A key that is stale when WATCHed (expired, not yet deleted: active expiry is off) did not
    # exist for the client; its deletion changes nothing, whoever deletes it.
    proc multi_stale_key {db key} {
        r select $db
        r set $key stale px 1
        after 20
    }

    test {DEL of a watched stale key does not fail EXEC} {
        r flushall
        r debug set-active-expire 0
        multi_stale_key 9 x
        r watch x
        assert_equal 0 [r del x]
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        set res
    } {PONG} {needs:debug}

    test {FLUSHDB of a watched stale key does not fail EXEC, its re-creation does} {
        r flushall
        r debug set-active-expire 0
        multi_stale_key 9 x
        r watch x
        r flushdb
        r multi
        r ping
        assert_equal PONG [r exec]
        multi_stale_key 9 x
        r watch x
        r flushdb
        r set x live
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        set res
    } {} {needs:debug}

    test {SWAPDB: a watched stale key swapped for nothing or another stale key, EXEC runs} {
        r flushall
        r debug set-active-expire 0
        # The stale key leaves, nothing comes in.
        multi_stale_key 0 x
        r watch x
        r swapdb 0 1
        r multi
        r ping
        assert_equal PONG [r exec]
        # The stale key leaves, another stale one comes in.
        r flushall
        multi_stale_key 0 x
        multi_stale_key 1 x
        r select 0
        r watch x
        r swapdb 0 1
        r multi
        r ping
        assert_equal PONG [r exec]
        # A missing key is replaced by a stale one.
        r flushall
        multi_stale_key 1 x
        r select 0
        r watch x
        r swapdb 0 1
        r multi
        r ping
        assert_equal PONG [r exec]
        r debug set-active-expire 1
        r select 9
    } {OK} {needs:debug}

    test {SWAPDB: a watched stale key replaced by a live one fails EXEC} {
        r flushall
        r debug set-active-expire 0
        multi_stale_key 0 x
        r select 1
        r set x live
        r select 0
        r watch x
        r swapdb 0 1
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        r select 9
        set res
    } {} {needs:debug}

    test {FLUSHALL is able to touch the watched keys} {
        r set x 30
        r watch x
        r flushall
        r multi
        r ping
        r exec
    } {}

    test {FLUSHALL does not touch non affected keys} {
        r del x
        r watch x
        r flushall
        r multi
        r ping
        r exec
    } {PONG}

    test {FLUSHDB is able to touch the watched keys} {
        r set x 30
        r watch x
        r flushdb
        r multi
        r ping
        r exec
    } {}

    test {FLUSHDB does not touch non affected keys} {
        r del x
        r watch x
        r flushdb
        r multi
        r ping
        r exec
    } {PONG}

    test {FLUSHDB of another database does not touch the watched keys} {
        r set x 30
        r watch x
        r select 10
        r flushdb
        r select 9
        r multi
        r ping
        r exec
    } {PONG}

    test {SWAPDB is able to touch the watched keys that exist} {
        r flushall
        r select 0
        r set x 30
        r watch x
        r swapdb 0 1
        r multi
        r ping
        set res [r exec]
        r select 9
        set res
    } {}

    test {SWAPDB is able to touch the watched keys that do not exist} {
        r flushall
        r select 1
        r set x 30
        r select 0
        r watch x
        r swapdb 0 1
        r multi
        r ping
        set res [r exec]
        r select 9
        set res
    } {}

    test {SWAPDB does not touch watched keys missing in both databases} {
        r flushall
        r select 0
        r watch x
        r swapdb 0 1
        r multi
        r ping
        set res [r exec]
        r select 9
        set res
    } {PONG}

    test {Flushall while watching several keys by one client} {
        r flushall
        r mset a 1 b 2
        r watch b a
        r flushall
        assert_equal PONG [r ping]
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test {EXEC of a queued write gets NOREPLICAS when min-replicas-to-write is set meanwhile} {
        r multi
        r set x 1
        set other [redis_client]
        $other config set min-replicas-to-write 2
        catch {r exec} e
        $other config set min-replicas-to-write 0
        $other close
        assert_match {EXECABORT*NOREPLICAS Not enough good replicas to write.} $e
        r exists x
    } {0} {needs:config}

    test {EXEC of a queued read gets MASTERDOWN when the server becomes a stale replica meanwhile} {
        r config set replica-serve-stale-data no
        r multi
        r get x
        set other [redis_client]
        # An address that never answers: the link stays down.
        $other replicaof 127.0.0.1 1
        catch {r exec} e
        $other replicaof no one
        $other close
        r config set replica-serve-stale-data yes
        assert_match {EXECABORT*MASTERDOWN Link with MASTER is down*} $e
    } {} {needs:config external:skip}

    test {No-multi commands (SAVE, SHUTDOWN) are refused while queueing and abort EXEC} {
        r multi
        assert_error {ERR Command not allowed inside a transaction} {r save}
        assert_error {ERR Command not allowed inside a transaction} {r shutdown}
        assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
        r ping
    } {PONG}

    test {A CONFIG SET that fails inside EXEC is one error among the replies} {
        r multi
        r set cfgkey 1
        r config set maxmemory not-a-size
        r get cfgkey
        set res [r exec]
        assert_equal OK [lindex $res 0]
        assert_match {ERR CONFIG SET failed*maxmemory*} [lindex $res 1]
        lindex $res 2
    } {1} {needs:config}

    test {Blocking commands inside EXEC do not wait for their timeout} {
        r del blist bzset
        r multi
        r blpop blist 0
        r bzpopmin bzset 10
        r exec
    } {{} {}}

    test {MULTI and SELECT: queued commands run in the database selected inside} {
        r select 10
        r del x
        r select 9
        r set x nine
        r multi
        r select 10
        r set x ten
        r get x
        assert_equal {OK OK ten} [r exec]
        assert_equal ten [r get x] "the SELECT inside EXEC stays in effect"
        r select 9
        assert_equal nine [r get x]
    }

    test {CLIENT LIST shows the transaction: flags x and the number of queued commands} {
        set line [r client info]
        set id [r client id]
        assert_equal N [client_field $line flags]
        assert_equal -1 [client_field $line multi]
        r multi
        r ping
        r ping
        set other [redis_client]
        set line [$other client list id $id]
        $other close
        r exec
        assert_equal x [client_field $line flags]
        assert_equal 2 [client_field $line multi]
    }

    test {QUIT inside MULTI runs at once and closes the connection} {
        set rd [redis_deferring_client]
        $rd multi
        assert_equal OK [$rd read]
        $rd quit
        assert_equal OK [$rd read]
        assert_error {*connection closed*} {$rd read}
        $rd close
    }

    test {RESET inside MULTI discards the transaction and the watches} {
        set c [redis_client]
        $c set rx 1
        $c watch rx
        $c multi
        $c incr rx
        assert_equal RESET [$c reset]
        assert_error {ERR EXEC without MULTI} {$c exec}
        $c select 9
        r set rx 5
        $c multi
        $c incr rx
        assert_equal {6} [$c exec] "RESET also dropped the WATCH"
        $c close
    }
}

# What a transaction sends to replicas, read from the replication stream: one write goes bare,
# several are wrapped in MULTI/EXEC, reads and no-op writes send nothing, and PUBLISH (which
# replicas repeat to their own subscribers) counts as a record like a write.
start_server {tags {multi repl external:skip}} {
    test {A transaction of several writes reaches the replicas wrapped in MULTI/EXEC} {
        with_repl_stream rs {
            r multi
            r set ta 1
            r incr ta
            r exec
            assert_repl_stream $rs {{select *} {multi} {set ta 1} {incr ta} {exec}}
        }
    }

    test {A transaction with a single write reaches the replicas as that write alone} {
        with_repl_stream rs {
            r multi
            r get ta
            r set ta 2
            r exists ta
            r exec
            r set after 1
            assert_repl_stream $rs {{select *} {set ta 2} {set after 1}}
        }
    }

    test {Empty, read-only and no-op transactions send nothing to the replicas} {
        with_repl_stream rs {
            r multi
            r exec
            r multi
            r get ta
            r exists tb
            r exec
            r multi
            r del no-such-key
            r srem no-such-set m
            r exec
            r set after 2
            assert_repl_stream $rs {{select *} {set after 2}}
        }
    }

    test {SELECT inside a transaction reaches the replicas in place} {
        with_repl_stream rs {
            r multi
            r select 11
            r set ts 1
            r select 12
            r set ts 2
            r select 9
            r exec
            r set after 3
            assert_repl_stream $rs {
                {select 11} {multi} {set ts 1} {select 12} {set ts 2} {exec}
                {select 9} {set after 3}
            }
        }
    }

    test {EVAL inside a transaction: its writes join the transaction's records} {
        with_repl_stream rs {
            r multi
            r eval {redis.call('set', KEYS[1], 'x')} 1 te
            r exec
            r multi
            r set te y
            r eval {redis.call('set', KEYS[1], 'z')} 1 te
            r exec
            assert_repl_stream $rs {{select *} {set te x} {multi} {set te y} {set te z} {exec}}
        }
    }

    test {PUBLISH is propagated to replicas, inside a transaction or a script too} {
        with_repl_stream rs {
            r publish pch m1
            r multi
            r publish pch m2
            r exec
            r multi
            r publish pch m3
            r set tp 1
            r exec
            r eval {redis.call('publish', 'pch', 'm4') redis.call('set', 'tp', '2')} 0
            r spublish sch m5
            assert_repl_stream $rs {
                {select *} {publish pch m1} {publish pch m2}
                {multi} {publish pch m3} {set tp 1} {exec}
                {multi} {publish pch m4} {set tp 2} {exec}
                {spublish sch m5}
            }
        }
    }

    test {SCRIPT LOAD and SCRIPT FLUSH inside a transaction send nothing to the replicas} {
        with_repl_stream rs {
            r multi
            r script load {return 1}
            r exec
            r multi
            r script flush
            r exec
            r multi
            r set tf 1
            r script flush
            r exec
            assert_repl_stream $rs {{select *} {set tf 1}}
        }
    }

    test {XREADGROUP inside a transaction reaches the replicas as XCLAIMs} {
        r del tx
        r xgroup create tx g $ MKSTREAM
        r xadd tx 1-0 f v
        r xadd tx 2-0 f v
        with_repl_stream rs {
            r multi
            r xreadgroup group g c streams tx >
            r exec
            assert_repl_stream $rs {
                {select *} {multi}
                {xclaim tx g c 0 1-0 TIME * RETRYCOUNT 1 FORCE JUSTID LASTID 1-0}
                {xclaim tx g c 0 2-0 TIME * RETRYCOUNT 1 FORCE JUSTID LASTID 2-0}
                {exec}
            }
        }
    }

    test {A transaction that turns the AOF on has its writes in the AOF} {
        r config set appendonly no
        r del ta1 ta2
        set forks [s total_forks]
        r multi
        r set ta1 1
        r config set appendonly yes
        r set ta2 2
        assert_equal {OK OK OK} [r exec]
        # The rewrite that makes the AOF's base starts after EXEC, so it holds ta2 too.
        wait_for_condition 100 50 {
            [s total_forks] > $forks &&
            [s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0
        } else {
            fail "the AOF rewrite did not finish"
        }
        assert_equal 1 [s aof_enabled]
        r debug loadaof
        assert_equal {1 2} [r mget ta1 ta2]
        r config set appendonly no
    } {} {needs:debug}

    test {A master turned replica inside a transaction sends none of it} {
        with_repl_stream rs {
            r set before 1
            r multi
            r set inside 1
            r replicaof 127.0.0.1 1
            r set inside 2
            r exec
            assert_error {READONLY*} {r set after 1}
            r replicaof no one
            assert_repl_stream $rs {{select *} {set before 1}}
            # Becoming a replica dropped the stream's connection: nothing followed.
            assert_equal <EOF> [string trimleft [raw_read_line $rs] "\n"]
        }
    }
}

start_server {tags {multi repl external:skip}} {
    start_server {} {
        test {A message PUBLISHed on a master reaches the subscribers of its replica} {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 200 50 {
                [string match {*master_link_status:up*} [r info replication]]
            } else {
                fail "replica did not connect"
            }
            set sub [redis_deferring_client]
            $sub subscribe news
            assert_equal {subscribe news 1} [$sub read]
            assert_equal 0 [r -1 publish news hello]
            assert_equal {message news hello} [$sub read]
            $sub close
        }
    }
}
