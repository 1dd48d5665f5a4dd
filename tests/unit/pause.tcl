# CLIENT PAUSE (issue 20, defect 5c), as Redis 7.0 has it. WRITE mode holds what may change data
# or be propagated: writes, may-replicate commands (PUBLISH, PFCOUNT), EVAL/EVALSHA/FCALL unless
# the script declares no-writes, EXEC of a transaction holding one of those, and such a command
# sent inside MULTI (held before it is queued). Reads, EVAL_RO, FCALL_RO and no-writes scripts
# run. A held client counts as blocked (INFO blocked_clients, CLIENT LIST flag b). A command
# refused by another admission check (arity, unknown command) is answered at once. A pause set
# inside a transaction starts when EXEC ends. Nothing expires (actively or on access) and nothing
# is evicted while paused. Held clients resume in arrival order.
#
# Every test checked against Debian's Redis 7.0.15. Held commands are sent from deferring
# clients; each test ends the pause with CLIENT UNPAUSE from `r` (WRITE mode never holds it).

proc pause_client {} {
    set c [redis_deferring_client]
    return $c
}

# The next reply of deferring client `c`, an error reply as its text.
proc catch_read {c} {
    catch {$c read} reply
    return $reply
}

# The flags field of CLIENT LIST for connection `id`.
proc pause_flags_of {id} {
    foreach field [split [string trim [r client list id $id]] " "] {
        if {[string match "flags=*" $field]} {return [string range $field 6 end]}
    }
    return ""
}

start_server {tags {pause}} {
    test {CLIENT PAUSE WRITE holds a write; the held client counts as blocked} {
        set rd [pause_client]
        $rd client id
        set id [$rd read]
        r client pause 60000 write
        $rd set held-key v
        wait_for_blocked_clients_count 1
        assert_match "*b*" [pause_flags_of $id]
        # Reads go on, and see nothing of the held write.
        assert_equal {} [r get held-key]
        r client unpause
        assert_equal OK [$rd read]
        assert_equal v [r get held-key]
        wait_for_blocked_clients_count 0
        assert_no_match "*b*" [pause_flags_of $id]
        $rd close
    }

    test {CLIENT PAUSE WRITE holds may-replicate commands: PUBLISH and PFCOUNT} {
        set p [pause_client]
        set h [pause_client]
        r client pause 60000 write
        $p publish pause-channel hello
        $h pfcount pause-hll
        wait_for_blocked_clients_count 2
        r client unpause
        assert_equal 0 [$p read]
        assert_equal 0 [$h read]
        $p close
        $h close
    }

    test {CLIENT PAUSE WRITE holds scripts that may write, not read-only ones} {
        r function flush
        r function load {#!lua name=pauselib
            redis.register_function{function_name='pause_ro', callback=function() return 'ro' end, flags={'no-writes'}}
            redis.register_function('pause_rw', function() return 'rw' end)
        }
        set ro_sha [r script load "#!lua flags=no-writes\nreturn 'sha-ro'"]
        set rw_sha [r script load "return 'sha-rw'"]
        r client pause 60000 write
        # These run at once.
        assert_equal ro [r eval_ro "return 'ro'" 0]
        assert_equal ro [r eval "#!lua flags=no-writes\nreturn 'ro'" 0]
        assert_equal sha-ro [r evalsha $ro_sha 0]
        assert_equal ro [r fcall pause_ro 0]
        assert_equal ro [r fcall_ro pause_ro 0]
        # These are held.
        set held {}
        foreach cmd [list [list eval "return 'e'" 0] [list eval "#!lua\nreturn 'e2'" 0] \
                         [list evalsha $rw_sha 0] [list fcall pause_rw 0]] {
            set c [pause_client]
            $c {*}$cmd
            lappend held $c
        }
        wait_for_blocked_clients_count 4
        r client unpause
        set got {}
        foreach c $held {
            lappend got [$c read]
            $c close
        }
        assert_equal {e e2 sha-rw rw} $got
        r function flush
    }

    test {Read-only scripts may not run may-replicate commands} {
        r client pause 60000 write
        assert_error {ERR Write commands are not allowed from read-only scripts*} {
            r eval_ro "return redis.call('publish','ch','msg')" 0
        }
        assert_error {ERR Write commands are not allowed from read-only scripts*} {
            r eval "#!lua flags=no-writes\nreturn redis.call('pfcount','h')" 0
        }
        r client unpause
    }

    test {CLIENT PAUSE WRITE: a read-only transaction runs, a write one is held} {
        r set txkey before
        set ro [pause_client]
        set rw [pause_client]
        set queued [pause_client]
        # A write queued before the pause: its EXEC is held.
        $rw multi
        assert_equal OK [$rw read]
        $rw set txkey after
        assert_equal QUEUED [$rw read]
        r client pause 60000 write
        $ro multi
        assert_equal OK [$ro read]
        $ro get txkey
        assert_equal QUEUED [$ro read]
        $ro eval_ro "return 1" 0
        assert_equal QUEUED [$ro read]
        $ro exec
        assert_equal {before 1} [$ro read]
        $rw exec
        # A write sent inside MULTI during the pause is held before it is queued.
        $queued multi
        assert_equal OK [$queued read]
        $queued eval "return 2" 0
        wait_for_blocked_clients_count 2
        r client unpause
        assert_equal OK [$rw read]
        assert_equal QUEUED [$queued read]
        $queued exec
        assert_equal 2 [$queued read]
        assert_equal after [r get txkey]
        foreach c [list $ro $rw $queued] {$c close}
    }

    test {A pause set inside a transaction starts when EXEC ends} {
        r del tx1 tx2 tx3
        r multi
        r set tx1 1
        r client pause 60000 write
        r set tx2 2
        assert_equal {OK OK OK} [r exec]
        assert_equal {1 2} [r mget tx1 tx2]
        set rd [pause_client]
        $rd set tx3 3
        wait_for_blocked_clients_count 1
        r client unpause
        assert_equal OK [$rd read]
        $rd close
    }

    test {During a pause, refused commands are answered at once} {
        set rd [pause_client]
        r client pause 60000 write
        $rd set onlykey
        assert_equal {ERR wrong number of arguments for 'set' command} [catch_read $rd]
        $rd nosuchcommand a b
        assert_match {ERR unknown command 'nosuchcommand'*} [catch_read $rd]
        $rd incr a b
        assert_equal {ERR wrong number of arguments for 'incr' command} [catch_read $rd]
        assert_equal 0 [s blocked_clients]
        r client unpause
        $rd close
    }

    test {Held clients resume in arrival order when the pause ends} {
        r del order
        r client pause 60000 write
        set clients {}
        for {set i 1} {$i <= 3} {incr i} {
            set c [pause_client]
            $c rpush order $i
            lappend clients $c
            wait_for_blocked_clients_count $i
        }
        r client unpause
        set n 1
        foreach c $clients {
            assert_equal $n [$c read]
            incr n
            $c close
        }
        assert_equal {1 2 3} [r lrange order 0 -1]
    }

    test {A CLIENT REPLY SKIP before a held command still skips its reply} {
        set rd [pause_client]
        $rd client reply skip
        r client pause 60000 write
        $rd set skipkey v
        wait_for_blocked_clients_count 1
        r client unpause
        $rd ping
        assert_equal PONG [$rd read]
        assert_equal v [r get skipkey]
        $rd close
    }

    test {Nothing expires during a pause, actively or on access} {
        r flushall
        set expired [s expired_keys]
        r multi
        r set exp1 v px 10
        r set exp2 v px 10
        r client pause 60000 write
        r exec
        # Logically gone once their time has passed, but kept: no DEL, nothing counted.
        wait_for_condition 100 10 {[r get exp1] eq {} && [r get exp2] eq {}} else {
            fail "the keys never read as expired"
        }
        assert_equal 0 [r exists exp1]
        assert_equal {} [r keys exp*]
        # Give active expiry a few cron ticks to (wrongly) delete them.
        after 300
        assert_equal 2 [r dbsize]
        assert_equal $expired [s expired_keys]
        r client unpause
        r get exp1
        r get exp2
        assert_equal [expr {$expired + 2}] [s expired_keys]
        assert_equal 0 [r dbsize]
    }

    test {Nothing is evicted during a pause} {
        r flushall
        r config set maxmemory-policy allkeys-random
        for {set i 0} {$i < 50} {incr i} {r set evict:$i [string repeat x 1000]}
        set evicted [s evicted_keys]
        r client pause 60000 write
        r config set maxmemory 1
        r get evict:0
        r dbsize
        assert_equal 50 [r dbsize]
        assert_equal $evicted [s evicted_keys]
        r client unpause
        # The next command evicts as usual.
        r get evict:0
        assert_morethan [s evicted_keys] $evicted
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
        r flushall
    } {} {needs:config}
}

start_server {tags {pause redistp}} {
    test {A watched key whose TTL passes during a pause gets its DEL when the pause ends} {
        set w [redis_client]
        assert_equal NOEXIST [$w watchex wkey]
        r multi
        r set wkey v px 10
        r client pause 60000 write
        r exec
        assert_equal {watchex wkey ADD} [$w read]
        wait_for_condition 100 10 {[r exists wkey] == 0} else {
            fail "the key never read as expired"
        }
        assert_equal 1 [r dbsize]
        r client unpause
        assert_equal {watchex wkey DEL} [$w read]
        assert_equal 0 [r dbsize]
        $w close
    }

    test {CLIENT PAUSE WRITE holds SETTP, BSETTP and DELTP} {
        set a [pause_client]
        set b [pause_client]
        r client pause 60000 write
        $a settp tplock a
        $b bsettp tplock b 0
        wait_for_blocked_clients_count 2
        r client unpause
        assert_equal 1 [$a read]
        wait_for_blocked_clients_count 1
        $a deltp tplock
        assert_equal 1 [$a read]
        assert_equal 1 [$b read]
        $a close
        $b close
    }
}

start_server {tags {pause repl external:skip}} {
    start_server {} {
        test {A paused replica reads its master's stream but applies no write until unpaused} {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 200 50 {
                [string match {*master_link_status:up*} [r info replication]]
            } else {
                fail "replica did not connect"
            }
            r -1 set pk1 v1
            wait_for_condition 100 50 {
                [s slave_repl_offset] == [s -1 master_repl_offset]
            } else {
                fail "replica did not catch up"
            }
            set applied [s slave_repl_offset]
            r client pause 100000 write
            r -1 set pk2 v2
            # The write arrives: the read offset reaches the master's ...
            wait_for_condition 100 50 {
                [s slave_read_repl_offset] == [s -1 master_repl_offset]
            } else {
                fail "the replica did not read the master's write"
            }
            # ... while the applied offset and the data stand still.
            assert_equal $applied [s slave_repl_offset]
            assert_equal {} [r get pk2]
            assert_equal v1 [r get pk1]
            r client unpause
            wait_for_condition 100 50 {
                [s slave_repl_offset] == [s -1 master_repl_offset]
            } else {
                fail "the replica did not apply the held write after the pause"
            }
            assert_equal v2 [r get pk2]
        }
    }
}
