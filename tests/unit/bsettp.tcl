# BSETTP (docs/temporary-keys-and-watches.md): the fair, herd-free SETTP. A free key is
# taken at once; a held key puts the connection in a FIFO queue per (database, key) and the
# key is created for the first live waiter when it stops existing, whatever the cause (DELTP,
# DEL, the holder's disconnect, expiry, FLUSHDB, RENAME / MOVE away). Timeouts reply 0; bad
# timeouts give BLPOP's errors; waiters that leave (disconnect, CLIENT KILL, CLIENT UNBLOCK,
# timeout) leave the queue; FENCE tokens; pipelined commands wait for the hand-off.
#
# Waiters are deferring clients; "blocked" is read from the b flag of CLIENT LIST.

# A new deferring client (RESP `proto`, test database selected); returns {client id}.
proc bs_waiter {{proto 2}} {
    set c [redis_deferring_client]
    $c timeout 5000
    if {$proto == 3} {
        $c hello 3
        $c read
    }
    $c client id
    return [list $c [$c read]]
}

proc bs_is_blocked {id} {
    return [string match *b* [client_field [r client list id $id] flags]]
}

proc bs_wait_blocked {id} {
    wait_for_condition 200 10 {[bs_is_blocked $id]} else {
        fail "client $id did not block"
    }
}

proc bs_wait_gone {key} {
    wait_for_condition 100 20 {[r exists $key] == 0} else {
        fail "key '$key' still exists"
    }
}

# A synchronous client holding `key` as a temporary key.
proc bs_holder {key {value held}} {
    set h [redis_client]
    $h timeout 5000
    assert_equal 1 [$h settp $key $value]
    return $h
}

start_server {tags {bsettp redistp}} {
    test {BSETTP on a free key takes it at once and owns it} {
        lassign [bs_waiter] w id
        $w bsettp bs:free v 0
        assert_equal 1 [$w read]
        assert_equal v [r get bs:free]
        assert_equal $id [r object owner bs:free]
        $w close
        bs_wait_gone bs:free
    }

    test {BSETTP on a held key blocks until the holder releases it with DELTP} {
        set h [bs_holder bs:rel]
        lassign [bs_waiter] w id
        $w bsettp bs:rel mine 0
        bs_wait_blocked $id
        after 100
        assert {[bs_is_blocked $id]}
        assert_equal held [r get bs:rel]
        assert_equal 1 [$h deltp bs:rel]
        assert_equal 1 [$w read]
        assert_equal mine [r get bs:rel]
        assert_equal $id [r object owner bs:rel]
        assert {![bs_is_blocked $id]}
        $w close
        bs_wait_gone bs:rel
        $h close
    }

    test {BSETTP replies on the wire in RESP2 and RESP3: :1 after a hand-off, :0 on timeout} {
        foreach proto {2 3} {
            set h [bs_holder bs:wire$proto]
            lassign [bs_waiter $proto] w id
            $w readraw 1
            $w bsettp bs:wire$proto v 0
            bs_wait_blocked $id
            $h deltp bs:wire$proto
            assert_equal {:1} [$w read] "RESP$proto"
            $w bsettp bs:wire$proto again 0.05
            assert_equal {:0} [$w read] "RESP$proto: its own key is held, by itself"
            $w close
            $h close
            bs_wait_gone bs:wire$proto
        }
    }

    test {FIFO: three waiters, each release wakes exactly the next one} {
        set h [bs_holder bs:fifo]
        set ws {}
        set ids {}
        foreach name {w1 w2 w3} {
            lassign [bs_waiter] c id
            $c bsettp bs:fifo $name 0
            bs_wait_blocked $id
            lappend ws $c
            lappend ids $id
        }
        lassign $ws w1 w2 w3
        lassign $ids id1 id2 id3
        # Holder releases: w1 only.
        assert_equal 1 [$h deltp bs:fifo]
        assert_equal 1 [$w1 read]
        assert_equal w1 [r get bs:fifo]
        assert_equal $id1 [r object owner bs:fifo]
        assert {[bs_is_blocked $id2] && [bs_is_blocked $id3]}
        # w1 releases with DELTP: w2 only.
        $w1 deltp bs:fifo
        assert_equal 1 [$w1 read]
        assert_equal 1 [$w2 read]
        assert_equal w2 [r get bs:fifo]
        assert {[bs_is_blocked $id3]}
        # w2 disconnects: w3.
        $w2 close
        assert_equal 1 [$w3 read]
        assert_equal w3 [r get bs:fifo]
        assert_equal $id3 [r object owner bs:fifo]
        $w3 close
        bs_wait_gone bs:fifo
        $w1 close
        $h close
    }

    test {BSETTP times out with 0 and leaves the queue} {
        set h [bs_holder bs:to]
        lassign [bs_waiter] w id
        set start [clock milliseconds]
        $w bsettp bs:to v 0.2
        assert_equal 0 [$w read]
        set took [expr {[clock milliseconds] - $start}]
        assert_range $took 150 2000
        assert {![bs_is_blocked $id]}
        assert_equal 1 [$h deltp bs:to]
        after 50
        assert_equal 0 [r exists bs:to] "a timed-out waiter is never handed the key"
        $w ping
        assert_equal PONG [$w read]
        $w close
        $h close
    }

    test {BSETTP timeout 0 blocks for good} {
        set h [bs_holder bs:forever]
        lassign [bs_waiter] w id
        $w bsettp bs:forever v 0
        after 1200
        assert {[bs_is_blocked $id]}
        $h close
        assert_equal 1 [$w read]
        $w close
    }

    test {BSETTP with a bad timeout: BLPOP's errors, nothing created} {
        foreach t {abc {} 1x nan} {
            assert_error {ERR timeout is not a float or out of range} {r bsettp bs:bad v $t}
        }
        foreach t {-1 -0.5} {
            assert_error {ERR timeout is negative} {r bsettp bs:bad v $t}
        }
        assert_equal 0 [r exists bs:bad]
        assert_error {ERR syntax error} {r bsettp bs:bad v 0 NOFENCE}
        assert_error {ERR wrong number of arguments for 'bsettp' command} {r bsettp bs:bad v}
        assert_equal 0 [r exists bs:bad]
    }

    test {A waiter that disconnects leaves the queue} {
        set h [bs_holder bs:dc]
        lassign [bs_waiter] w1 id1
        lassign [bs_waiter] w2 id2
        $w1 bsettp bs:dc w1 0
        bs_wait_blocked $id1
        $w2 bsettp bs:dc w2 0
        bs_wait_blocked $id2
        $w1 close
        wait_for_condition 100 10 {[string trim [r client list id $id1]] eq ""} else {
            fail "w1 still connected"
        }
        $h deltp bs:dc
        assert_equal 1 [$w2 read]
        assert_equal w2 [r get bs:dc]
        $w2 close
        $h close
        bs_wait_gone bs:dc
    }

    test {A waiter killed with CLIENT KILL leaves the queue} {
        set h [bs_holder bs:kill]
        lassign [bs_waiter] w1 id1
        lassign [bs_waiter] w2 id2
        $w1 bsettp bs:kill w1 0
        bs_wait_blocked $id1
        $w2 bsettp bs:kill w2 0
        bs_wait_blocked $id2
        assert_equal 1 [r client kill id $id1]
        $h deltp bs:kill
        assert_equal 1 [$w2 read]
        assert_equal w2 [r get bs:kill]
        $w1 close
        $w2 close
        $h close
        bs_wait_gone bs:kill
    }

    test {CLIENT UNBLOCK: TIMEOUT (and the default) reply 0, ERROR replies UNBLOCKED} {
        set h [bs_holder bs:ub]
        foreach {reason} {{} TIMEOUT ERROR} {
            lassign [bs_waiter] w id
            $w bsettp bs:ub v 0
            bs_wait_blocked $id
            assert_equal 1 [r client unblock $id {*}$reason]
            if {$reason eq "ERROR"} {
                assert_error {UNBLOCKED client unblocked via CLIENT UNBLOCK} {$w read}
            } else {
                assert_equal 0 [$w read] "reason '$reason'"
            }
            assert {![bs_is_blocked $id]}
            assert_equal 0 [r client unblock $id] "not blocked any more"
            $w ping
            assert_equal PONG [$w read]
            $w close
        }
        assert_equal 1 [$h deltp bs:ub]
        after 50
        assert_equal 0 [r exists bs:ub] "unblocked waiters left the queue"
        $h close
    }

    test {Pipelined commands after a blocked BSETTP run after the hand-off} {
        set h [bs_holder bs:pipe]
        lassign [bs_waiter] w id
        $w bsettp bs:pipe mine 0
        $w get bs:pipe
        $w ping
        bs_wait_blocked $id
        after 50
        $h deltp bs:pipe
        assert_equal 1 [$w read]
        assert_equal mine [$w read] "GET ran after the hand-off"
        assert_equal PONG [$w read]
        $w close
        $h close
    }

    # ---- every way the key stops existing hands it off -------------------------------------

    foreach {what cmd} {
        {the holder's disconnect} {$h close}
        {the holder's QUIT} {$h quit}
        {DEL by another connection} {r del bs:ho}
        {FLUSHDB} {r flushdb}
        {RENAME away} {r rename bs:ho bs:ho:renamed}
        {MOVE away} {r move bs:ho 10}
        {an ordinary key's DEL} {r del bs:ho}
    } {
        test "Hand-off on $what" {
            r select 10
            r del bs:ho
            r select 9
            if {$what eq "an ordinary key's DEL"} {
                r set bs:ho ordinary
                set h [redis_client]
            } else {
                set h [bs_holder bs:ho]
            }
            lassign [bs_waiter] w id
            $w bsettp bs:ho mine 0
            bs_wait_blocked $id
            eval $cmd
            assert_equal 1 [$w read]
            assert_equal mine [r get bs:ho]
            assert_equal $id [r object owner bs:ho]
            $w close
            bs_wait_gone bs:ho
            catch {$h close}
            r del bs:ho:renamed
        }
    }

    test {FLUSHALL hands off in every database} {
        set h [bs_holder bs:fa]
        $h select 10
        $h settp bs:fa held10
        lassign [bs_waiter] w9 id9
        lassign [bs_waiter] w10 id10
        $w10 select 10
        $w10 read
        $w9 bsettp bs:fa nine 0
        $w10 bsettp bs:fa ten 0
        bs_wait_blocked $id9
        bs_wait_blocked $id10
        r flushall
        assert_equal 1 [$w9 read]
        assert_equal 1 [$w10 read]
        assert_equal nine [r get bs:fa]
        $w9 close
        $w10 close
        $h close
        r flushall
    }

    test {RENAME onto a held key: no hand-off, the key is now ordinary} {
        set h [bs_holder bs:rnd]
        r set bs:rnd:src ordinary
        lassign [bs_waiter] w id
        $w bsettp bs:rnd mine 0
        bs_wait_blocked $id
        r rename bs:rnd:src bs:rnd
        after 50
        assert {[bs_is_blocked $id]} "the key never stopped existing"
        assert_equal {} [r object owner bs:rnd]
        $h close
        after 50
        assert {[bs_is_blocked $id]} "the holder no longer owns the overwritten key"
        assert_equal ordinary [r get bs:rnd]
        r del bs:rnd
        assert_equal 1 [$w read]
        assert_equal mine [r get bs:rnd]
        $w close
        bs_wait_gone bs:rnd
    }

    test {Hand-off on SWAPDB when the key is absent in the other database} {
        r flushall
        set h [bs_holder bs:sw]
        lassign [bs_waiter] w id
        $w bsettp bs:sw mine 0
        bs_wait_blocked $id
        r swapdb 9 10
        assert_equal 1 [$w read]
        assert_equal mine [r get bs:sw]
        $w close
        $h close
        r flushall
    }

    test {SWAPDB that brings in an existing key does not hand off} {
        r flushall
        set h [bs_holder bs:sw2]
        r select 10
        r set bs:sw2 other
        r select 9
        lassign [bs_waiter] w id
        $w bsettp bs:sw2 mine 0
        bs_wait_blocked $id
        r swapdb 9 10
        after 100
        assert {[bs_is_blocked $id]} "the key still exists in db 9 (the other one)"
        assert_equal other [r get bs:sw2]
        r del bs:sw2
        assert_equal 1 [$w read]
        assert_equal mine [r get bs:sw2]
        $w close
        $h close
        r flushall
    }

    test {An owner's disconnect hands off every key it held} {
        set h [bs_holder bs:multi1]
        $h settp bs:multi2 held
        lassign [bs_waiter] w1 id1
        lassign [bs_waiter] w2 id2
        $w1 bsettp bs:multi1 one 0
        $w2 bsettp bs:multi2 two 0
        bs_wait_blocked $id1
        bs_wait_blocked $id2
        $h close
        assert_equal 1 [$w1 read]
        assert_equal 1 [$w2 read]
        assert_equal $id1 [r object owner bs:multi1]
        assert_equal $id2 [r object owner bs:multi2]
        $w1 close
        $w2 close
        bs_wait_gone bs:multi1
        bs_wait_gone bs:multi2
    }

    test {A blocked owner that disconnects leaves its queue and hands off its own keys} {
        set other [bs_holder bs:bo:wanted]
        lassign [bs_waiter] a ida
        $a settp bs:bo:mine v
        assert_equal 1 [$a read]
        $a bsettp bs:bo:wanted a 0
        bs_wait_blocked $ida
        lassign [bs_waiter] c idc
        $c bsettp bs:bo:mine c 0
        bs_wait_blocked $idc
        $a close
        assert_equal 1 [$c read] "A's key goes to its waiter"
        assert_equal c [r get bs:bo:mine]
        assert_equal 1 [$other deltp bs:bo:wanted]
        after 50
        assert_equal 0 [r exists bs:bo:wanted] "A left the queue it was blocked in"
        $c close
        $other close
        bs_wait_gone bs:bo:mine
    }

    test {Hand-off when the holder's TTL ends (active expiry)} {
        r set bs:ttl token nx px 200
        lassign [bs_waiter] w id
        $w bsettp bs:ttl mine 5
        assert_equal 1 [$w read]
        assert_equal mine [r get bs:ttl]
        $w close
        bs_wait_gone bs:ttl
    }

    test {Hand-off when the holder's TTL ends, promptly, among 10,000 volatile keys} {
        set rd [redis_deferring_client]
        for {set i 0} {$i < 10000} {incr i} {$rd set bs:bulk:$i v px 1000000}
        for {set i 0} {$i < 10000} {incr i} {$rd read}
        $rd close
        r set bs:ttl2 token nx px 200
        lassign [bs_waiter] w id
        $w timeout 10000
        set start [clock milliseconds]
        $w bsettp bs:ttl2 mine 5
        set got [$w read]
        set took [expr {[clock milliseconds] - $start}]
        assert_equal 1 $got "the waiter timed out instead of getting the expired key"
        assert_lessthan $took 1500
        $w close
        r flushdb
    }

    test {Hand-off when the holder's TTL ends with active expiry off} {
        r debug set-active-expire 0
        r set bs:ttl3 token nx px 200
        lassign [bs_waiter] w id
        $w bsettp bs:ttl3 mine 3
        set got [$w read]
        r debug set-active-expire 1
        assert_equal 1 $got "the waiter timed out instead of getting the expired key"
        $w close
        bs_wait_gone bs:ttl3
    } {} {needs:debug}

    test {Hand-off when a TTL given after the waiter blocked ends (active expiry off)} {
        r debug set-active-expire 0
        set h [bs_holder bs:ttl4]
        lassign [bs_waiter] w id
        $w bsettp bs:ttl4 mine 3
        bs_wait_blocked $id
        r pexpire bs:ttl4 100
        set got [$w read]
        r debug set-active-expire 1
        assert_equal 1 $got
        assert_equal mine [r get bs:ttl4]
        $w close
        $h close
        bs_wait_gone bs:ttl4
    } {} {needs:debug}

    test {PERSIST of a held volatile key: no hand-off at the old deadline} {
        r debug set-active-expire 0
        r set bs:persist token px 150
        lassign [bs_waiter] w id
        $w bsettp bs:persist mine 0
        bs_wait_blocked $id
        r persist bs:persist
        after 400
        r debug set-active-expire 1
        assert {[bs_is_blocked $id]}
        assert_equal token [r get bs:persist]
        r del bs:persist
        assert_equal 1 [$w read]
        $w close
        bs_wait_gone bs:persist
    } {} {needs:debug}

    test {A BSETTP waiter has no existence watch and receives no push} {
        set h [bs_holder bs:nowx]
        lassign [bs_waiter 3] w id
        $w bsettp bs:nowx mine 0
        bs_wait_blocked $id
        assert_equal 0 [client_field [r client list id $id] wx]
        $h close
        assert_equal 1 [$w read]
        assert_equal 0 [client_field [r client list id $id] wx]
        $w ping
        assert_equal PONG [$w read] "no DEL / ADD push reached the waiter"
        $w close
        bs_wait_gone bs:nowx
    }

    test {A key deleted and re-created inside one EXEC is not handed off} {
        set h [bs_holder bs:tx]
        lassign [bs_waiter] w id
        $w bsettp bs:tx mine 0
        bs_wait_blocked $id
        r multi
        r del bs:tx
        r set bs:tx ordinary
        r exec
        after 100
        assert {[bs_is_blocked $id]}
        assert_equal ordinary [r get bs:tx]
        r del bs:tx
        assert_equal 1 [$w read]
        assert_equal mine [r get bs:tx]
        $w close
        $h close
        bs_wait_gone bs:tx
    }

    test {Queues are per database} {
        r select 10
        set h10 [redis_client]
        $h10 select 10
        $h10 settp bs:db held10
        r select 9
        set h9 [bs_holder bs:db held9]
        lassign [bs_waiter] w id
        $w select 10
        $w read
        $w bsettp bs:db mine 0
        bs_wait_blocked $id
        $h9 deltp bs:db
        after 100
        assert {[bs_is_blocked $id]} "a release in db 9 does not wake a db 10 waiter"
        assert_equal 0 [r exists bs:db]
        $h10 deltp bs:db
        assert_equal 1 [$w read]
        r select 10
        set v [r get bs:db]
        r select 9
        assert_equal mine $v
        $w close
        $h9 close
        $h10 close
    }

    test {BSETTP FENCE: a token at once and after a hand-off, strictly increasing} {
        lassign [bs_waiter] w1 id1
        $w1 bsettp bs:fence a 0 FENCE
        set t1 [$w1 read]
        assert_morethan $t1 0
        assert_equal $t1 [r object fence bs:fence]
        lassign [bs_waiter] w2 id2
        $w2 bsettp bs:fence b 0 fence
        bs_wait_blocked $id2
        set t_mid [r settp bs:fence:other v FENCE]
        r deltp bs:fence:other
        $w1 deltp bs:fence
        $w1 read
        set t2 [$w2 read]
        assert_morethan $t2 $t_mid
        assert_equal $t2 [r object fence bs:fence]
        $w1 close
        $w2 close
        bs_wait_gone bs:fence
    }

    test {A blocked waiter is flagged b in CLIENT LIST and counted by INFO blocked_clients} {
        set h [bs_holder bs:info]
        lassign [bs_waiter] w id
        assert_equal 0 [s blocked_clients]
        $w bsettp bs:info v 0
        bs_wait_blocked $id
        assert_equal 1 [s blocked_clients]
        $h close
        assert_equal 1 [$w read]
        assert_equal 0 [s blocked_clients]
        $w close
    }

    test {The idle timeout does not end a blocked waiter} {
        set h [bs_holder bs:idle]
        lassign [bs_waiter] w id
        $w bsettp bs:idle mine 0
        bs_wait_blocked $id
        r config set timeout 1
        # The default client and the holder keep talking; only the waiter is silent.
        for {set i 0} {$i < 25} {incr i} {
            after 100
            $h ping
            r ping
        }
        r config set timeout 0
        assert {[bs_is_blocked $id]} "the blocked waiter survived 2.5 s of timeout 1"
        $h deltp bs:idle
        assert_equal 1 [$w read]
        $w close
        $h close
    } {} {needs:config}
}
