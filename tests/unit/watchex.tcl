# Existence watches (docs/temporary-keys-and-watches.md): WATCHEX replies, one push per
# change whatever caused it (writes, SETTP / DELTP / owner disconnect, BSETTP hand-off, prompt
# expiry in a large keyspace, FLUSHDB / FLUSHALL / SWAPDB, RENAME / MOVE / COPY), silence on
# value changes, per-database watches, the wire format in RESP2 (in-band arrays) and RESP3 (push
# frames), the ordering promise for watchers and for the connection that made the change
# (after its reply, after the EXEC reply), UNWATCHEX counts, RESET, and slow watchers.
#
# Most cause tests watch with two connections, one RESP2 and one RESP3: the client library
# parses both frames to the same list {watchex key ADD|DEL}. "Nothing was pushed" is checked
# with a PING: by the ordering promise a pending push would be read before the PONG.

# A new synchronous client with the test database selected, speaking RESP `proto`. Reads give
# up after 3 s, so a push that never comes fails the test quickly.
proc wx_client {{proto 2}} {
    set c [redis_client]
    $c timeout 3000
    if {$proto == 3} {$c hello 3}
    return $c
}

# Two watchers of `args` (keys of the test database), RESP2 then RESP3.
proc wx_pair {args} {
    set pair {}
    foreach proto {2 3} {
        set c [wx_client $proto]
        $c watchex {*}$args
        lappend pair $c
    }
    return $pair
}

proc expect_push {c key event {detail ""}} {
    assert_equal [list watchex $key $event] [$c read] $detail
}

proc expect_push_all {clients key event {detail ""}} {
    foreach c $clients {expect_push $c $key $event $detail}
}

proc expect_nothing {c {detail ""}} {
    assert_equal PONG [$c ping] $detail
}

proc expect_nothing_all {clients {detail ""}} {
    foreach c $clients {expect_nothing $c $detail}
}

proc close_all {clients} {
    foreach c $clients {$c close}
}

start_server {tags {watchex redistp}} {
    # ---- replies ---------------------------------------------------------------------------

    test {WATCHEX of one key replies EXIST or NOEXIST as a simple string} {
        foreach proto {2 3} {
            r set wx:r:there v
            set rd [redis_deferring_client]
            $rd hello $proto
            $rd read
            $rd readraw 1
            $rd watchex wx:r:there
            assert_equal {+EXIST} [$rd read] "RESP$proto"
            $rd watchex wx:r:missing
            assert_equal {+NOEXIST} [$rd read] "RESP$proto"
            $rd close
        }
        r del wx:r:there
    }

    test {WATCHEX of several keys replies an array in argument order} {
        r set wx:m:b v
        foreach proto {2 3} {
            set rd [redis_deferring_client]
            $rd hello $proto
            $rd read
            $rd readraw 1
            $rd watchex wx:m:a wx:m:b wx:m:c wx:m:b
            assert_equal {*4} [$rd read] "RESP$proto"
            assert_equal {+NOEXIST} [$rd read]
            assert_equal {+EXIST} [$rd read]
            assert_equal {+NOEXIST} [$rd read]
            assert_equal {+EXIST} [$rd read]
            $rd close
        }
        r del wx:m:b
    }

    test {Watching a key twice is one watch: one push per change} {
        set c [wx_client]
        set id [$c client id]
        $c watchex wx:twice
        $c watchex wx:twice wx:twice
        assert_equal 1 [client_field [$c client info] wx]
        r set wx:twice v
        expect_push $c wx:twice ADD
        expect_nothing $c "a second registration gives no second push"
        assert_equal 1 [$c unwatchex wx:twice]
        assert_equal 0 [client_field [$c client info] wx]
        $c close
        r del wx:twice
    }

    test {A watching connection stays usable for every other command} {
        set c [wx_client]
        $c watchex wx:usable
        assert_equal OK [$c set other 1]
        assert_equal 2 [$c incr other]
        assert_equal {} [$c get wx:usable]
        assert_equal 1 [$c exists other]
        r set wx:usable v
        expect_push $c wx:usable ADD
        assert_equal v [$c get wx:usable]
        $c close
        r del wx:usable other
    }

    # ---- causes ----------------------------------------------------------------------------

    test {SET of a missing key pushes ADD, DEL pushes DEL} {
        set w [wx_pair wx:setdel]
        r set wx:setdel v
        expect_push_all $w wx:setdel ADD
        r del wx:setdel
        expect_push_all $w wx:setdel DEL
        expect_nothing_all $w
        close_all $w
    }

    test {Every command that creates a key pushes ADD} {
        r set wx:c:src x
        set w [wx_pair wx:c]
        foreach cmd {
            {set wx:c v} {setnx wx:c v} {setex wx:c 100 v} {psetex wx:c 100000 v}
            {mset wx:c v} {msetnx wx:c v} {incr wx:c} {decrby wx:c 3} {incrbyfloat wx:c 1.5}
            {append wx:c v} {setrange wx:c 2 v} {setbit wx:c 3 1} {getset wx:c v}
            {set wx:c v get} {bitop or wx:c wx:c:src} {bitfield wx:c set u8 0 1}
            {copy wx:c:src wx:c} {settp wx:c v}
        } {
            r {*}$cmd
            expect_push_all $w wx:c ADD $cmd
            r del wx:c
            expect_push_all $w wx:c DEL $cmd
        }
        expect_nothing_all $w
        close_all $w
        r del wx:c:src
    }

    test {Every command that deletes a key pushes DEL} {
        set w [wx_pair wx:d]
        foreach cmd {
            {del wx:d} {unlink wx:d} {getdel wx:d} {expire wx:d 0} {expire wx:d -1}
            {pexpire wx:d -100} {expireat wx:d 1} {pexpireat wx:d 1} {getex wx:d pxat 1}
            {rename wx:d wx:d:other} {renamenx wx:d wx:d:other} {move wx:d 10}
        } {
            r set wx:d v
            expect_push_all $w wx:d ADD $cmd
            r {*}$cmd
            expect_push_all $w wx:d DEL $cmd
            assert_equal 0 [r exists wx:d] $cmd
            r del wx:d:other
        }
        expect_nothing_all $w
        close_all $w
        r select 10
        r del wx:d
        r select 9
    }

    test {A watcher inside MULTI still gets pushes between its QUEUED replies} {
        set c [wx_client 3]
        $c watchex wx:inq
        $c multi
        assert_equal QUEUED [$c ping]
        r set wx:inq v
        expect_push $c wx:inq ADD
        assert_equal QUEUED [$c ping]
        assert_equal {PONG PONG} [$c exec]
        $c close
        r del wx:inq
    }

    test {No push when a key that exists before and after changes} {
        r set wx:vc 10
        set w [wx_pair wx:vc]
        r set wx:vc 11
        r incr wx:vc
        r append wx:vc 0
        r setrange wx:vc 0 9
        r getset wx:vc 5
        r expire wx:vc 100
        r persist wx:vc
        r set wx:vc x keepttl
        r setbit wx:vc 1 1
        r set wx:vc y nx
        expect_nothing_all $w
        close_all $w
        r del wx:vc
    }

    test {No push for commands that change nothing} {
        set w [wx_pair wx:noop]
        r del wx:noop
        r unlink wx:noop
        r set wx:noop v xx
        r getdel wx:noop
        expect_nothing_all $w
        close_all $w
    }

    test {SETTP pushes ADD, the owner's disconnect pushes DEL} {
        set w [wx_pair wx:tp]
        set owner [wx_client]
        assert_equal 1 [$owner settp wx:tp v]
        expect_push_all $w wx:tp ADD
        assert_equal 0 [r settp wx:tp v] "a failed SETTP"
        expect_nothing_all $w
        $owner close
        expect_push_all $w wx:tp DEL
        close_all $w
    }

    test {DELTP pushes DEL; a DELTP that deletes nothing pushes nothing} {
        set w [wx_pair wx:dtp]
        set owner [wx_client]
        $owner settp wx:dtp v
        expect_push_all $w wx:dtp ADD
        assert_equal 0 [r deltp wx:dtp]
        expect_nothing_all $w
        assert_equal 1 [$owner deltp wx:dtp]
        expect_push_all $w wx:dtp DEL
        $owner close
        expect_nothing_all $w
        close_all $w
    }

    test {RESET of the owner pushes DEL} {
        set w [wx_pair wx:rst]
        set owner [wx_client]
        $owner settp wx:rst v
        expect_push_all $w wx:rst ADD
        $owner reset
        expect_push_all $w wx:rst DEL
        $owner close
        close_all $w
    }

    test {A BSETTP hand-off pushes DEL then ADD} {
        set w [wx_pair wx:ho]
        set owner [wx_client]
        $owner settp wx:ho first
        expect_push_all $w wx:ho ADD
        set waiter [redis_deferring_client]
        $waiter client id
        set wid [$waiter read]
        $waiter bsettp wx:ho second 0
        wait_for_condition 100 10 {
            [string match *b* [client_field [r client list id $wid] flags]]
        } else {
            fail "the waiter did not block"
        }
        $owner close
        assert_equal 1 [$waiter read]
        expect_push_all $w wx:ho DEL
        expect_push_all $w wx:ho ADD
        assert_equal second [r get wx:ho]
        $waiter close
        expect_push_all $w wx:ho DEL
        close_all $w
    }

    test {A waiter that watches its key: DEL push, then its :1, then the ADD push} {
        foreach {proto push} {2 *3 3 >3} {
            set owner [wx_client]
            $owner settp wx:wself held
            set rd [redis_deferring_client]
            $rd hello $proto
            $rd read
            $rd client id
            set wid [$rd read]
            $rd watchex wx:wself
            assert_equal EXIST [$rd read]
            $rd readraw 1
            $rd bsettp wx:wself mine 0
            wait_for_condition 100 10 {
                [string match *b* [client_field [r client list id $wid] flags]]
            } else {
                fail "the waiter did not block"
            }
            $owner close
            foreach line [list $push {$7} watchex {$8} wx:wself {$3} DEL] {
                assert_equal $line [$rd read] "RESP$proto"
            }
            assert_equal {:1} [$rd read] "RESP$proto"
            foreach line [list $push {$7} watchex {$8} wx:wself {$3} ADD] {
                assert_equal $line [$rd read] "RESP$proto"
            }
            $rd close
            wait_for_condition 100 20 {[r exists wx:wself] == 0} else {fail "key left"}
        }
    }

    test {An owner's disconnect pushes DEL where its key now lives (after MOVE)} {
        set owner [wx_client]
        $owner settp wx:mvown v
        set w10 [wx_client 3]
        $w10 select 10
        assert_equal NOEXIST [$w10 watchex wx:mvown]
        r move wx:mvown 10
        expect_push $w10 wx:mvown ADD
        $owner close
        expect_push $w10 wx:mvown DEL
        $w10 close
    }

    # ---- expiry ----------------------------------------------------------------------------

    test {Prompt expiry: a watched key with PX 100 pushes DEL with active expiry off} {
        r debug set-active-expire 0
        set w [wx_pair wx:exp]
        set start [clock milliseconds]
        r set wx:exp v px 100
        expect_push_all $w wx:exp ADD
        expect_push_all $w wx:exp DEL
        set took [expr {[clock milliseconds] - $start}]
        r debug set-active-expire 1
        assert_range $took 90 1000
        expect_nothing_all $w
        close_all $w
    } {} {needs:debug}

    test {Prompt expiry of a key that had its TTL before WATCHEX} {
        r debug set-active-expire 0
        r set wx:exp2 v px 150
        set w [wx_pair wx:exp2]
        expect_push_all $w wx:exp2 DEL
        r debug set-active-expire 1
        close_all $w
    } {} {needs:debug}

    test {Prompt expiry of a TTL given after WATCHEX by PEXPIRE} {
        r debug set-active-expire 0
        r set wx:exp3 v
        set w [wx_pair wx:exp3]
        r pexpire wx:exp3 100
        expect_push_all $w wx:exp3 DEL
        r debug set-active-expire 1
        assert_equal 0 [r exists wx:exp3]
        close_all $w
    } {} {needs:debug}

    test {Prompt expiry among 10,000 volatile keys, with and without active expiry} {
        set rd [redis_deferring_client]
        for {set i 0} {$i < 10000} {incr i} {$rd set wx:bulk:$i v px 1000000}
        for {set i 0} {$i < 10000} {incr i} {$rd read}
        $rd close
        foreach active {1 0} {
            r debug set-active-expire $active
            set w [wx_client 3]
            $w watchex wx:needle
            set start [clock milliseconds]
            r set wx:needle v px 100
            expect_push $w wx:needle ADD
            expect_push $w wx:needle DEL "active expiry $active"
            set took [expr {[clock milliseconds] - $start}]
            assert_range $took 90 1000 "active expiry $active"
            expect_nothing $w
            $w close
        }
        r debug set-active-expire 1
        assert_equal 10000 [r dbsize]
        r flushdb
    } {} {needs:debug}

    test {Expiry pushes DEL exactly once, whoever finds the key first} {
        set w [wx_pair wx:once]
        r set wx:once v px 50
        expect_push_all $w wx:once ADD
        # Lazy lookups race with the prompt timer and active expiry around the deadline.
        for {set i 0} {$i < 20} {incr i} {
            r get wx:once
            after 5
        }
        expect_push_all $w wx:once DEL
        expect_nothing_all $w
        close_all $w
    }

    test {Prompt expiry of TTLs set by SET PX, SETEX, GETEX on an existing watched key} {
        r debug set-active-expire 0
        set c [wx_client 3]
        $c watchex wx:ttlset
        foreach cmd {{set wx:ttlset v2 px 80} {setex wx:ttlset 1 v2} {getex wx:ttlset px 80}} {
            r set wx:ttlset v
            expect_push $c wx:ttlset ADD $cmd
            r {*}$cmd
            expect_push $c wx:ttlset DEL $cmd
        }
        r debug set-active-expire 1
        expect_nothing $c
        $c close
    } {} {needs:debug}

    test {Prompt expiry of 50 watched keys comes in deadline order} {
        r debug set-active-expire 0
        set c [wx_client 3]
        set keys {}
        for {set i 0} {$i < 50} {incr i} {lappend keys wx:order:$i}
        $c watchex {*}$keys
        # Created in a shuffled order, expiring 10 ms apart by index.
        set order {}
        for {set i 0} {$i < 50} {incr i} {lappend order [list [expr {rand()}] $i]}
        set now [r time]
        set base [expr {[lindex $now 0] * 1000 + [lindex $now 1] / 1000 + 300}]
        foreach pair [lsort -index 0 $order] {
            set i [lindex $pair 1]
            r set wx:order:$i v pxat [expr {$base + 10 * $i}]
        }
        set adds 0
        set dels {}
        while {[llength $dels] < 50} {
            lassign [$c read] kind key event
            if {$event eq "ADD"} {incr adds; continue}
            lappend dels [lindex [split $key :] 2]
        }
        r debug set-active-expire 1
        assert_equal 50 $adds
        set sorted [lsort -integer $dels]
        assert_equal $sorted $dels "DEL pushes in expiry order"
        expect_nothing $c
        $c close
    } {} {needs:debug}

    test {SWAPDB bringing in a volatile key: ADD now, DEL at its TTL} {
        r debug set-active-expire 0
        r select 10
        r set wx:swttl v px 200
        r select 9
        set c [wx_client 3]
        assert_equal NOEXIST [$c watchex wx:swttl]
        r swapdb 9 10
        expect_push $c wx:swttl ADD
        expect_push $c wx:swttl DEL
        r debug set-active-expire 1
        r swapdb 9 10
        expect_nothing $c
        $c close
    } {} {needs:debug}

    test {A stale key at WATCHEX time is NOEXIST and never pushes} {
        r debug set-active-expire 0
        r set wx:stale v px 1
        after 20
        set c [wx_client]
        assert_equal NOEXIST [$c watchex wx:stale]
        after 50
        expect_nothing $c
        r debug set-active-expire 1
        $c close
    } {} {needs:debug}

    test {PERSIST cancels a scheduled expiry push} {
        set w [wx_pair wx:persist]
        r set wx:persist v px 200
        expect_push_all $w wx:persist ADD
        r persist wx:persist
        after 400
        expect_nothing_all $w
        assert_equal 1 [r exists wx:persist]
        close_all $w
        r del wx:persist
    }

    test {A longer TTL moves the scheduled expiry push} {
        set w [wx_pair wx:longer]
        r set wx:longer v px 100
        expect_push_all $w wx:longer ADD
        r pexpire wx:longer 600
        after 300
        expect_nothing_all $w "no DEL at the old deadline"
        expect_push_all $w wx:longer DEL "DEL at the new deadline"
        close_all $w
    }

    test {A key deleted and re-created without TTL gets no DEL at the old deadline} {
        set w [wx_pair wx:recreate]
        r set wx:recreate v px 100
        expect_push_all $w wx:recreate ADD
        r del wx:recreate
        expect_push_all $w wx:recreate DEL
        r set wx:recreate again
        expect_push_all $w wx:recreate ADD
        after 300
        expect_nothing_all $w
        assert_equal again [r get wx:recreate]
        close_all $w
        r del wx:recreate
    }

    test {A renamed volatile key: DEL for the source now, DEL for the destination at its TTL} {
        set ws [wx_pair wx:rnexp:src]
        set wd [wx_pair wx:rnexp:dst]
        r set wx:rnexp:src v px 300
        expect_push_all $ws wx:rnexp:src ADD
        r rename wx:rnexp:src wx:rnexp:dst
        expect_push_all $ws wx:rnexp:src DEL
        expect_push_all $wd wx:rnexp:dst ADD
        expect_push_all $wd wx:rnexp:dst DEL
        expect_nothing_all $ws "no second DEL for the source at the old deadline"
        close_all $ws
        close_all $wd
    }

    # ---- whole-database commands -----------------------------------------------------------

    test {FLUSHDB pushes DEL for existing watched keys only} {
        r set wx:fl:a v
        set w [wx_pair wx:fl:a wx:fl:absent]
        r flushdb
        expect_push_all $w wx:fl:a DEL
        expect_nothing_all $w
        close_all $w
    }

    test {FLUSHDB of another database pushes nothing} {
        r set wx:fl2 v
        set w [wx_pair wx:fl2]
        r select 10
        r set wx:fl2 v
        r flushdb
        r select 9
        expect_nothing_all $w
        close_all $w
        r del wx:fl2
    }

    test {FLUSHALL pushes DEL in every database} {
        r set wx:fa v
        r select 10
        r set wx:fa v10
        r select 9
        set c [wx_client 3]
        $c watchex wx:fa
        $c select 10
        $c watchex wx:fa wx:fa:absent
        r flushall
        expect_push $c wx:fa DEL
        expect_push $c wx:fa DEL
        expect_nothing $c
        $c close
    }

    test {SWAPDB pushes DEL, ADD or nothing depending on both databases} {
        r flushall
        r set wx:sw:only9 v
        r set wx:sw:both v
        r select 10
        r set wx:sw:only10 v
        r set wx:sw:both v
        r select 9
        set w [wx_pair wx:sw:only9 wx:sw:only10 wx:sw:both wx:sw:none]
        set other [wx_client]
        $other select 10
        $other watchex wx:sw:only9
        r swapdb 9 10
        foreach c $w {
            set got [list [$c read] [$c read]]
            set want [list {watchex wx:sw:only9 DEL} {watchex wx:sw:only10 ADD}]
            assert_equal [lsort $want] [lsort $got]
        }
        expect_nothing_all $w
        expect_push $other wx:sw:only9 ADD
        expect_nothing $other
        close_all $w
        $other close
        r flushall
    }

    test {A key brought in by SWAPDB and deleted afterwards pushes its DEL} {
        # The entry arriving from the other database was never looked at by a watch: its
        # deletion must still be noticed (the watched-entry flag is set by SWAPDB).
        r flushall
        r select 10
        r set wx:sw:late v
        r select 9
        set w [wx_pair wx:sw:late]
        r swapdb 9 10
        expect_push_all $w wx:sw:late ADD
        r del wx:sw:late
        expect_push_all $w wx:sw:late DEL
        r select 10
        r set wx:sw:late v2
        r select 9
        r swapdb 9 10
        expect_push_all $w wx:sw:late ADD
        r set wx:sw:late v3
        r expire wx:sw:late 0
        expect_push_all $w wx:sw:late DEL
        expect_nothing_all $w
        close_all $w
        r flushall
    }

    # ---- RENAME / MOVE / COPY --------------------------------------------------------------

    test {RENAME pushes DEL for the source, then ADD for an absent destination} {
        r set wx:rn:src v
        set w [wx_pair wx:rn:src wx:rn:dst]
        r rename wx:rn:src wx:rn:dst
        expect_push_all $w wx:rn:src DEL
        expect_push_all $w wx:rn:dst ADD
        expect_nothing_all $w
        close_all $w
        r del wx:rn:dst
    }

    test {RENAME onto an existing destination: DEL for the source, nothing for the destination} {
        r set wx:rn2:src v
        r set wx:rn2:dst old
        set ws [wx_pair wx:rn2:src]
        set wd [wx_pair wx:rn2:dst]
        r rename wx:rn2:src wx:rn2:dst
        expect_push_all $ws wx:rn2:src DEL
        expect_nothing_all $wd "the destination exists before and after"
        close_all $ws
        close_all $wd
        r del wx:rn2:dst
    }

    test {MOVE pushes DEL in the source database and ADD in the destination} {
        r set wx:mv v
        set w9 [wx_pair wx:mv]
        set w10 [wx_client 3]
        $w10 select 10
        $w10 watchex wx:mv
        assert_equal 1 [r move wx:mv 10]
        expect_push_all $w9 wx:mv DEL
        expect_push $w10 wx:mv ADD
        expect_nothing $w10
        close_all $w9
        $w10 close
        r select 10
        r del wx:mv
        r select 9
    }

    test {COPY pushes ADD for the destination only; COPY REPLACE of an existing key nothing} {
        r set wx:cp:src v
        set ws [wx_pair wx:cp:src]
        set wd [wx_pair wx:cp:dst]
        assert_equal 1 [r copy wx:cp:src wx:cp:dst]
        expect_push_all $wd wx:cp:dst ADD
        expect_nothing_all $ws
        r set wx:cp:src v2
        assert_equal 1 [r copy wx:cp:src wx:cp:dst replace]
        expect_nothing_all $wd "the destination exists before and after"
        close_all $ws
        close_all $wd
        r del wx:cp:src wx:cp:dst
    }

    test {Watches are per database: a change in another database pushes nothing} {
        set c [wx_client]
        $c watchex wx:db
        r select 10
        r set wx:db v
        r del wx:db
        r select 9
        expect_nothing $c
        $c select 10
        assert_equal 0 [$c unwatchex wx:db] "the watch lives in db 9"
        $c select 9
        r set wx:db v
        expect_push $c wx:db ADD
        $c close
        r del wx:db
    }

    # ---- wire format and ordering ----------------------------------------------------------

    test {RESP3 push frame on the wire: >3 watchex key ADD} {
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd watchex wx:w3
        $rd read
        $rd readraw 1
        r set wx:w3 v
        foreach line {>3 $7 watchex $5 wx:w3 $3 ADD} {assert_equal $line [$rd read]}
        r del wx:w3
        foreach line {>3 $7 watchex $5 wx:w3 $3 DEL} {assert_equal $line [$rd read]}
        $rd close
    }

    test {RESP2 in-band array on the wire: *3 watchex key DEL} {
        r set wx:w2 v
        set rd [redis_deferring_client]
        $rd watchex wx:w2
        $rd read
        $rd readraw 1
        r del wx:w2
        foreach line {*3 $7 watchex $5 wx:w2 $3 DEL} {assert_equal $line [$rd read]}
        $rd close
    }

    test {A watcher gets the push before the reply to a command sent after the change} {
        foreach proto {2 3} {
            set rd [redis_deferring_client]
            $rd hello $proto
            $rd read
            $rd watchex wx:ord
            $rd read
            r set wx:ord v
            $rd ping
            assert_equal {watchex wx:ord ADD} [$rd read] "RESP$proto"
            assert_equal PONG [$rd read]
            r del wx:ord
            $rd get wx:ord
            assert_equal {watchex wx:ord DEL} [$rd read] "RESP$proto"
            assert_equal {} [$rd read]
            $rd close
        }
    }

    test {The connection that made the change gets its reply first, then the push} {
        foreach {proto push} {2 *3 3 >3} {
            set rd [redis_deferring_client]
            $rd hello $proto
            $rd read
            $rd watchex wx:self
            $rd read
            $rd readraw 1
            $rd set wx:self v
            assert_equal {+OK} [$rd read] "RESP$proto"
            assert_equal $push [$rd read] "RESP$proto"
            foreach line {$7 watchex $7 wx:self $3 ADD} {assert_equal $line [$rd read]}
            $rd readraw 0
            # Pipelined: the push of the first command comes between the two replies.
            $rd write "*2\r\n\$3\r\nDEL\r\n\$7\r\nwx:self\r\n*1\r\n\$4\r\nPING\r\n"
            $rd flush
            assert_equal 1 [$rd read]
            assert_equal {watchex wx:self DEL} [$rd read]
            assert_equal PONG [$rd read]
            $rd close
        }
    }

    test {CLIENT KILL of an owner: the killer's reply first, then its DEL push} {
        set owner [wx_client]
        set oid [$owner client id]
        $owner settp wx:killer v
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd watchex wx:killer
        assert_equal EXIST [$rd read]
        $rd readraw 1
        $rd client kill id $oid
        assert_equal {:1} [$rd read]
        foreach line {>3 $7 watchex $9 wx:killer $3 DEL} {assert_equal $line [$rd read]}
        $rd close
        $owner close
    }

    test {Changes inside EXEC: the EXEC reply first, then every push in order} {
        foreach proto {2 3} {
            set c [wx_client $proto]
            $c watchex wx:tx
            $c multi
            $c set wx:tx a
            $c del wx:tx
            $c set wx:tx b
            $c set wx:tx c
            assert_equal {OK 1 OK OK} [$c exec] "RESP$proto"
            expect_push $c wx:tx ADD
            expect_push $c wx:tx DEL
            expect_push $c wx:tx ADD
            expect_nothing $c
            $c close
            r del wx:tx
        }
    }

    test {A push of a long key reaches every watcher whole, the changer's after its EXEC} {
        # A 2 KB key makes a push frame big enough to be shared by the watchers' output
        # buffers rather than copied (protocol/push_frame.h).
        set key wx:long:[string repeat k 2000]
        set w [wx_pair $key]
        foreach proto {2 3} {
            set c [wx_client $proto]
            $c watchex $key
            lappend w $c
        }
        set self [lindex $w end]
        $self multi
        $self set $key v
        $self del $key
        $self set $key w
        assert_equal {OK 1 OK} [$self exec]
        expect_push_all $w $key ADD
        expect_push_all $w $key DEL
        expect_push_all $w $key ADD
        expect_nothing_all $w
        r del $key
        expect_push_all $w $key DEL
        close_all $w
    }

    test {DEL then ADD inside another connection's EXEC gives two pushes in order} {
        r set wx:tx2 v
        set w [wx_pair wx:tx2]
        r multi
        r del wx:tx2
        r set wx:tx2 w
        r exec
        expect_push_all $w wx:tx2 DEL
        expect_push_all $w wx:tx2 ADD
        expect_nothing_all $w
        close_all $w
        r del wx:tx2
    }

    test {WATCHEX is allowed inside MULTI} {
        r set wx:inmulti v
        set c [wx_client]
        $c multi
        $c watchex wx:inmulti
        $c watchex wx:inmulti2 wx:inmulti
        assert_equal {EXIST {NOEXIST EXIST}} [$c exec]
        r del wx:inmulti
        expect_push $c wx:inmulti DEL
        $c close
    }

    # ---- UNWATCHEX, RESET, disconnect ------------------------------------------------------

    test {UNWATCHEX counts the watches it removes} {
        set c [wx_client]
        $c watchex wx:u:a wx:u:b wx:u:c
        assert_equal 1 [$c unwatchex wx:u:a wx:u:nokey wx:u:a]
        assert_equal 2 [client_field [$c client info] wx]
        assert_equal 2 [$c unwatchex]
        assert_equal 0 [$c unwatchex]
        assert_equal 0 [$c unwatchex wx:u:b]
        r set wx:u:a v
        r set wx:u:b v
        expect_nothing $c "no watches left"
        $c close
        r del wx:u:a wx:u:b
    }

    test {UNWATCHEX without keys removes the watches of every database} {
        set c [wx_client]
        $c watchex wx:ua:a
        $c select 10
        $c watchex wx:ua:a wx:ua:b
        assert_equal 1 [$c unwatchex wx:ua:a] "only db 10's watch of the key"
        assert_equal 2 [$c unwatchex]
        assert_equal 0 [client_field [$c client info] wx]
        r set wx:ua:a v
        expect_nothing $c
        $c close
        r del wx:ua:a
    }

    test {RESET drops every watch} {
        set c [wx_client 3]
        $c watchex wx:reset
        assert_equal RESET [$c reset]
        assert_equal 0 [client_field [$c client info] wx]
        r set wx:reset v
        expect_nothing $c
        $c close
        r del wx:reset
    }

    test {Every watcher of a key gets exactly one push; a departed watcher is skipped} {
        set ws {}
        for {set i 0} {$i < 5} {incr i} {
            set c [wx_client [expr {$i % 2 ? 3 : 2}]]
            $c watchex wx:many
            lappend ws $c
        }
        [lindex $ws 0] close
        set ws [lrange $ws 1 end]
        r set wx:many v
        expect_push_all $ws wx:many ADD
        expect_nothing_all $ws
        close_all $ws
        r del wx:many
    }

    test {A watch on a 1 MB key name} {
        set big [string repeat w 1048576]
        set c [wx_client 3]
        assert_equal NOEXIST [$c watchex $big]
        r set $big v
        expect_push $c $big ADD
        r del $big
        expect_push $c $big DEL
        assert_equal 1 [$c unwatchex $big]
        $c close
        assert_equal PONG [r ping]
    }

    test {A slow watcher is killed by the output buffer limit and releases its keys} {
        set key wx:slow:[string repeat s 4000]
        set slow [redis_deferring_client]
        $slow client id
        set id [$slow read]
        $slow settp wx:slow:lock v
        assert_equal 1 [$slow read]
        $slow watchex $key
        assert_equal NOEXIST [$slow read]
        set other [wx_client]
        $other watchex wx:slow:lock
        r config set client-output-buffer-limit {normal 256kb 0 0}
        # About 8 KB of pushes per round trip that the slow watcher never reads.
        set rd [redis_deferring_client]
        for {set i 0} {$i < 3000} {incr i} {
            $rd set $key v
            $rd del $key
        }
        for {set i 0} {$i < 6000} {incr i} {$rd read}
        $rd close
        wait_for_condition 100 20 {[string trim [r client list id $id]] eq ""} else {
            r config set client-output-buffer-limit {normal 0 0 0}
            fail "the slow watcher was not disconnected"
        }
        r config set client-output-buffer-limit {normal 0 0 0}
        assert_equal 0 [r exists wx:slow:lock]
        expect_push $other wx:slow:lock DEL
        $other close
        $slow close
    } {} {needs:config}

    # WATCHEX events and __watchex@ messages are pushes: CLIENT REPLY OFF and SKIP drop the
    # replies around them, never the pushes (issue 20, defect 5a).
    test {WATCHEX pushes reach a watcher under CLIENT REPLY OFF, its own changes too} {
        foreach proto {2 3} {
            set w [wx_client $proto]
            assert_equal NOEXIST [$w watchex offk]
            $w deferred 1
            $w client reply off
            r set offk v
            expect_push $w offk ADD "RESP$proto"
            # The watcher's own change: its reply is dropped, its push is not.
            $w del offk
            expect_push $w offk DEL "RESP$proto"
            $w settp offk mine
            expect_push $w offk ADD "RESP$proto"
            $w client reply skip
            $w deltp offk
            expect_push $w offk DEL "RESP$proto"
            $w client reply on
            assert_equal OK [$w read]
            $w deferred 0
            expect_nothing $w "RESP$proto"
            $w close
        }
    }

    test {__watchex@ messages reach a subscriber under CLIENT REPLY OFF} {
        foreach proto {2 3} {
            set s [redis_deferring_client]
            if {$proto == 3} {
                $s hello 3
                $s read
            }
            $s client reply off
            set channel "__watchex@[srv 0 db]__:offch"
            $s subscribe $channel
            assert_equal [list subscribe $channel 1] [$s read]
            r set offch v
            assert_equal [list message $channel ADD] [$s read]
            r del offch
            assert_equal [list message $channel DEL] [$s read]
            $s close
        }
    }
}
