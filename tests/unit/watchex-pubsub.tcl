# Existence events over Pub/Sub (docs/temporary-keys-and-watches.md, "Existence events over
# Pub/Sub"): every change a WATCHEX watcher would be told about is also published on
# `__watchex@<db>__:<key>` with the message ADD or DEL. Exact channels and PSUBSCRIBE patterns,
# every cause (writes, SETTP / DELTP / owner gone, BSETTP hand-off, expiry, FLUSHDB / FLUSHALL /
# SWAPDB, RENAME / MOVE; not eviction, which the server does not do yet), database numbers in
# the channel, RESP2 and RESP3 subscribers, unsubscribing, the order of messages, and the lock
# recipe run with unmodified clients: the tcl client in RESP2 and redis-cli. Redis has no such
# channels: tagged redistp.
#
# "Nothing was published" is checked with a PING: the message of a change made before the PING
# is in the subscriber's output before the PING's reply (RESP2 subscribed mode answers PING with
# the array {pong {}}, RESP3 with PONG).

# A subscriber speaking RESP `proto`, subscribed to `channels` (SUBSCRIBE) or, with
# kind psubscribe, to patterns. Reads give up after 3 s, so a message that never comes fails the
# test quickly.
proc wp_subscriber {proto kind args} {
    set c [redis_client]
    $c timeout 3000
    if {$proto == 3} {$c hello 3}
    set n 0
    foreach name $args {
        incr n
        # The confirmation comes only once the subscription is registered.
        assert_equal [list $kind $name $n] [$c $kind $name]
    }
    return $c
}

# One RESP2 and one RESP3 subscriber of the same channels or patterns.
proc wp_pair {kind args} {
    return [list [wp_subscriber 2 $kind {*}$args] [wp_subscriber 3 $kind {*}$args]]
}

proc wp_channel {key {db ""}} {
    if {$db eq ""} {set db [srv db]}
    return "__watchex@${db}__:$key"
}

proc expect_message {c key event {db ""}} {
    assert_equal [list message [wp_channel $key $db] $event] [$c read]
}

proc expect_message_all {clients key event {db ""}} {
    foreach c $clients {expect_message $c $key $event $db}
}

proc expect_pmessage {c pattern key event {db ""}} {
    assert_equal [list pmessage $pattern [wp_channel $key $db] $event] [$c read]
}

proc expect_quiet {c {detail ""}} {
    set pong [$c ping]
    assert_equal pong [string tolower [lindex $pong 0]] $detail
}

proc expect_quiet_all {clients {detail ""}} {
    foreach c $clients {expect_quiet $c $detail}
}

proc close_all {clients} {
    foreach c $clients {$c close}
}

# Reads one line from the redis-cli pipe `fd`, waiting at most 3 s.
proc cli_line {fd} {
    for {set i 0} {$i < 300} {incr i} {
        if {[gets $fd line] >= 0} {return $line}
        if {[eof $fd]} {fail "redis-cli ended"}
        after 10
    }
    fail "no line from redis-cli within 3 s"
}

start_server {tags {watchex-pubsub redistp}} {
    set db [srv db]

    # ---- exact channels --------------------------------------------------------------------

    test {SET of a missing key publishes ADD on its channel, DEL publishes DEL} {
        set subs [wp_pair subscribe [wp_channel wp:k]]
        r set wp:k v
        expect_message_all $subs wp:k ADD
        r del wp:k
        expect_message_all $subs wp:k DEL
        expect_quiet_all $subs
        close_all $subs
    }

    test {A value change of an existing key publishes nothing} {
        r set wp:same v
        set subs [wp_pair subscribe [wp_channel wp:same]]
        r set wp:same w
        r append wp:same x
        r expire wp:same 1000
        r persist wp:same
        r del wp:other
        expect_quiet_all $subs "only existence changes are published"
        r del wp:same
        expect_message_all $subs wp:same DEL
        close_all $subs
    }

    test {A subscriber of one key's channel hears nothing of other keys} {
        set subs [wp_pair subscribe [wp_channel wp:one]]
        r set wp:two v
        r del wp:two
        r set wp:one1 v
        r del wp:one1
        expect_quiet_all $subs
        close_all $subs
    }

    test {The channel names the key's database; other databases are other channels} {
        set s9 [wp_subscriber 2 subscribe [wp_channel wp:db]]
        set s10 [wp_subscriber 2 subscribe [wp_channel wp:db 10]]
        r set wp:db v
        expect_message $s9 wp:db ADD
        expect_quiet $s10
        r select 10
        r set wp:db v
        r select $db
        expect_message $s10 wp:db ADD 10
        expect_quiet $s9
        r select 10
        r del wp:db
        r select $db
        r del wp:db
        expect_message $s10 wp:db DEL 10
        expect_message $s9 wp:db DEL
        close_all [list $s9 $s10]
    }

    test {Channels that do not name a database exactly carry no events} {
        set bad [wp_subscriber 2 subscribe "__watchex@0${db}__:wp:bad" "__watchex@99__:wp:bad" \
                     "__watchex@${db}_:wp:bad" "__watchex@${db}__wp:bad" "__watchex@-${db}__:wp:bad"]
        r set wp:bad v
        r del wp:bad
        expect_quiet $bad
        $bad close
    }

    test {Binary and empty keys have their channel too} {
        set key "wp:bin\x00\xff:__:x"
        set subs [wp_pair subscribe [wp_channel $key] [wp_channel ""]]
        r set $key v
        expect_message_all $subs $key ADD
        r set "" v
        expect_message_all $subs "" ADD
        r del "" $key
        # DEL deletes its keys in argument order.
        expect_message_all $subs "" DEL
        expect_message_all $subs $key DEL
        close_all $subs
    }

    test {UNSUBSCRIBE stops the events; subscribing again starts them} {
        set c [wp_subscriber 2 subscribe [wp_channel wp:unsub]]
        r set wp:unsub v
        expect_message $c wp:unsub ADD
        assert_equal [list unsubscribe [wp_channel wp:unsub] 0] [$c unsubscribe [wp_channel wp:unsub]]
        r del wp:unsub
        r set wp:unsub v
        # Out of subscribed mode: an ordinary PING reply, and nothing before it.
        assert_equal PONG [$c ping]
        assert_equal [list subscribe [wp_channel wp:unsub] 1] [$c subscribe [wp_channel wp:unsub]]
        r del wp:unsub
        expect_message $c wp:unsub DEL
        $c close
    }

    test {The last subscriber leaving ends the events; the others keep theirs} {
        set a [wp_subscriber 2 subscribe [wp_channel wp:two]]
        set b [wp_subscriber 3 subscribe [wp_channel wp:two]]
        $a close
        r set wp:two v
        expect_message $b wp:two ADD
        $b unsubscribe [wp_channel wp:two]
        # Nobody left: a new subscriber starts from scratch (and gets only later changes).
        r del wp:two
        set c [wp_subscriber 2 subscribe [wp_channel wp:two]]
        expect_quiet $c
        r set wp:two v
        expect_message $c wp:two ADD
        $c close
        r del wp:two
    }

    # ---- patterns ----------------------------------------------------------------------------

    test {A pattern gets pmessage for every key under a prefix} {
        set pat "__watchex@${db}__:wp:jobs:*"
        set subs [wp_pair psubscribe $pat]
        r set wp:jobs:1 v
        r set wp:other v
        r rpush wp:jobs:2 a
        r del wp:jobs:1 wp:other
        r lpop wp:jobs:2
        foreach c $subs {
            expect_pmessage $c $pat wp:jobs:1 ADD
            expect_pmessage $c $pat wp:jobs:2 ADD
            expect_pmessage $c $pat wp:jobs:1 DEL
            expect_pmessage $c $pat wp:jobs:2 DEL
            expect_quiet $c
        }
        close_all $subs
        r del wp:other
    }

    test {A pattern over every database sees the database in the channel} {
        set pat "__watchex@*__:wp:alldb"
        set c [wp_subscriber 3 psubscribe $pat]
        r select 10
        r set wp:alldb v
        r select $db
        r set wp:alldb v
        expect_pmessage $c $pat wp:alldb ADD 10
        expect_pmessage $c $pat wp:alldb ADD
        r del wp:alldb
        r select 10
        r del wp:alldb
        r select $db
        expect_pmessage $c $pat wp:alldb DEL
        expect_pmessage $c $pat wp:alldb DEL 10
        $c close
    }

    test {A client subscribed to the channel and a pattern gets message then pmessage} {
        set pat "__watchex@${db}__:wp:both*"
        foreach proto {2 3} {
            set c [wp_subscriber $proto subscribe [wp_channel wp:both]]
            assert_equal [list psubscribe $pat 2] [$c psubscribe $pat]
            r set wp:both v
            expect_message $c wp:both ADD
            expect_pmessage $c $pat wp:both ADD
            r del wp:both
            expect_message $c wp:both DEL
            expect_pmessage $c $pat wp:both DEL
            expect_quiet $c
            $c close
        }
    }

    test {Patterns that cannot match a __watchex@ channel get nothing} {
        set c [wp_subscriber 2 psubscribe "__keyspace@*" "news.*" "__watchex"]
        r set wp:none v
        r del wp:none
        expect_quiet $c
        $c close
    }

    test {PUNSUBSCRIBE stops pattern events} {
        set pat "__watchex@${db}__:wp:pu*"
        set c [wp_subscriber 2 psubscribe $pat]
        r set wp:pu v
        expect_pmessage $c $pat wp:pu ADD
        $c punsubscribe $pat
        r del wp:pu
        assert_equal PONG [$c ping]
        $c close
    }

    # ---- causes ------------------------------------------------------------------------------

    test {SETTP publishes ADD, the owner's disconnect publishes DEL} {
        set pat "__watchex@${db}__:wp:tp*"
        set subs [wp_pair subscribe [wp_channel wp:tp]]
        set ps [wp_subscriber 2 psubscribe $pat]
        set owner [redis_client]
        assert_equal 1 [$owner settp wp:tp me]
        expect_message_all $subs wp:tp ADD
        expect_pmessage $ps $pat wp:tp ADD
        $owner close
        expect_message_all $subs wp:tp DEL
        expect_pmessage $ps $pat wp:tp DEL
        close_all [concat $subs [list $ps]]
    }

    test {DELTP and RESET of the owner publish DEL; a DELTP that deletes nothing is silent} {
        set subs [wp_pair subscribe [wp_channel wp:dtp]]
        set owner [redis_client]
        $owner settp wp:dtp me
        expect_message_all $subs wp:dtp ADD
        assert_equal 0 [r deltp wp:dtp]
        expect_quiet_all $subs
        assert_equal 1 [$owner deltp wp:dtp]
        expect_message_all $subs wp:dtp DEL
        $owner settp wp:dtp me
        expect_message_all $subs wp:dtp ADD
        $owner reset
        expect_message_all $subs wp:dtp DEL
        $owner close
        close_all $subs
    }

    test {CLIENT KILL of the owner publishes DEL} {
        set c [wp_subscriber 2 subscribe [wp_channel wp:kill]]
        set owner [redis_client]
        $owner settp wp:kill me
        expect_message $c wp:kill ADD
        r client kill id [$owner client id]
        expect_message $c wp:kill DEL
        $owner close
        $c close
    }

    test {A BSETTP hand-off publishes DEL then ADD} {
        set subs [wp_pair subscribe [wp_channel wp:ho]]
        set owner [redis_client]
        $owner settp wp:ho first
        expect_message_all $subs wp:ho ADD
        set waiter [redis_deferring_client]
        $waiter bsettp wp:ho second 0
        wait_for_blocked_client
        $owner close
        assert_equal 1 [$waiter read]
        expect_message_all $subs wp:ho DEL
        expect_message_all $subs wp:ho ADD
        assert_equal second [r get wp:ho]
        $waiter close
        expect_message_all $subs wp:ho DEL
        close_all $subs
    }

    test {RENAME publishes DEL for the source and ADD for an absent destination} {
        set pat "__watchex@${db}__:wp:rn:*"
        set subs [wp_pair subscribe [wp_channel wp:rn:src] [wp_channel wp:rn:dst]]
        set ps [wp_subscriber 3 psubscribe $pat]
        r set wp:rn:src v
        expect_message_all $subs wp:rn:src ADD
        expect_pmessage $ps $pat wp:rn:src ADD
        r rename wp:rn:src wp:rn:dst
        foreach c $subs {
            set got [list [$c read] [$c read]]
            assert_equal [lsort $got] [lsort [list [list message [wp_channel wp:rn:src] DEL] \
                                                  [list message [wp_channel wp:rn:dst] ADD]]]
        }
        set got [list [$ps read] [$ps read]]
        assert_equal [lsort $got] [lsort [list [list pmessage $pat [wp_channel wp:rn:src] DEL] \
                                              [list pmessage $pat [wp_channel wp:rn:dst] ADD]]]
        # Onto an existing destination: the destination never stops existing.
        r set wp:rn:src w
        expect_message_all $subs wp:rn:src ADD
        expect_pmessage $ps $pat wp:rn:src ADD
        r rename wp:rn:src wp:rn:dst
        expect_message_all $subs wp:rn:src DEL
        expect_pmessage $ps $pat wp:rn:src DEL
        expect_quiet_all [concat $subs [list $ps]]
        r del wp:rn:dst
        close_all [concat $subs [list $ps]]
    }

    test {MOVE publishes DEL in this database and ADD in the target's channel} {
        set pat "__watchex@*__:wp:mv"
        set s9 [wp_subscriber 2 subscribe [wp_channel wp:mv]]
        set s10 [wp_subscriber 3 subscribe [wp_channel wp:mv 10]]
        set ps [wp_subscriber 2 psubscribe $pat]
        r set wp:mv v
        expect_message $s9 wp:mv ADD
        expect_pmessage $ps $pat wp:mv ADD
        assert_equal 1 [r move wp:mv 10]
        expect_message $s9 wp:mv DEL
        expect_message $s10 wp:mv ADD 10
        set got [list [$ps read] [$ps read]]
        assert_equal [lsort $got] [lsort [list [list pmessage $pat [wp_channel wp:mv] DEL] \
                                              [list pmessage $pat [wp_channel wp:mv 10] ADD]]]
        r select 10
        r del wp:mv
        r select $db
        expect_message $s10 wp:mv DEL 10
        close_all [list $s9 $s10 $ps]
    }

    test {FLUSHDB publishes DEL for each existing key, exact and by pattern} {
        set pat "__watchex@${db}__:wp:fl:*"
        set s [wp_subscriber 2 subscribe [wp_channel wp:fl:a] [wp_channel wp:fl:absent]]
        set ps [wp_subscriber 3 psubscribe $pat]
        set s10 [wp_subscriber 2 psubscribe "__watchex@10__:*"]
        r set wp:fl:a v
        r set wp:fl:b v
        expect_message $s wp:fl:a ADD
        expect_pmessage $ps $pat wp:fl:a ADD
        expect_pmessage $ps $pat wp:fl:b ADD
        r flushdb
        expect_message $s wp:fl:a DEL
        expect_quiet $s "no DEL for a key that did not exist"
        set got [lsort [list [$ps read] [$ps read]]]
        assert_equal $got [list [list pmessage $pat [wp_channel wp:fl:a] DEL] \
                               [list pmessage $pat [wp_channel wp:fl:b] DEL]]
        expect_quiet $ps
        expect_quiet $s10 "another database's keys are untouched"
        close_all [list $s $ps $s10]
    }

    test {FLUSHALL publishes DEL in every database} {
        set ps [wp_subscriber 2 psubscribe "__watchex@*__:wp:fa"]
        r set wp:fa v
        r select 10
        r set wp:fa v
        r select $db
        $ps read
        $ps read
        r flushall
        set got [lsort [list [lindex [$ps read] 2] [lindex [$ps read] 2]]]
        assert_equal [list [wp_channel wp:fa 10] [wp_channel wp:fa]] $got
        expect_quiet $ps
        $ps close
    }

    test {SWAPDB publishes ADD, DEL or nothing depending on both databases} {
        r select 10
        r flushdb
        r set wp:sw:both v
        r set wp:sw:only10 v
        r select $db
        r flushdb
        r set wp:sw:both v
        r set wp:sw:only9 v
        set s [wp_subscriber 3 subscribe [wp_channel wp:sw:both] [wp_channel wp:sw:only9] \
                   [wp_channel wp:sw:only10]]
        set pat "__watchex@*__:wp:sw:*"
        set ps [wp_subscriber 2 psubscribe $pat]
        r swapdb $db 10
        set got {}
        for {set i 0} {$i < 2} {incr i} {lappend got [$s read]}
        assert_equal [lsort $got] [lsort [list [list message [wp_channel wp:sw:only9] DEL] \
                                              [list message [wp_channel wp:sw:only10] ADD]]]
        expect_quiet $s
        set got {}
        for {set i 0} {$i < 4} {incr i} {lappend got [lrange [$ps read] 2 3]}
        assert_equal [lsort $got] [lsort [list \
            [list [wp_channel wp:sw:only9] DEL] [list [wp_channel wp:sw:only10] ADD] \
            [list [wp_channel wp:sw:only9 10] ADD] [list [wp_channel wp:sw:only10 10] DEL]]]
        expect_quiet $ps
        close_all [list $s $ps]
        r flushall
    }

    test {Expiry: an exact channel gets DEL at the key's due time, with active expiry off} {
        r debug set-active-expire 0
        set subs [wp_pair subscribe [wp_channel wp:ttl]]
        r set wp:ttl v px 100
        expect_message_all $subs wp:ttl ADD
        # Nobody touches the key: the DEL comes from the server's own deadline.
        expect_message_all $subs wp:ttl DEL
        assert_equal 0 [r exists wp:ttl]
        r debug set-active-expire 1
        close_all $subs
    } {} {needs:debug}

    test {Expiry: a key that had its TTL before the subscription gets DEL at its due time} {
        r debug set-active-expire 0
        r set wp:ttl2 v px 150
        set c [wp_subscriber 2 subscribe [wp_channel wp:ttl2]]
        expect_message $c wp:ttl2 DEL
        r debug set-active-expire 1
        $c close
    } {} {needs:debug}

    test {Expiry: a pattern sees DEL when the server expires the key (here: on access)} {
        r debug set-active-expire 0
        set pat "__watchex@${db}__:wp:pttl*"
        set ps [wp_subscriber 3 psubscribe $pat]
        r set wp:pttl v px 1
        expect_pmessage $ps $pat wp:pttl ADD
        after 20
        # The key is logically gone, but nothing has expired it yet.
        expect_quiet $ps
        assert_equal {} [r get wp:pttl]
        expect_pmessage $ps $pat wp:pttl DEL
        r debug set-active-expire 1
        $ps close
    } {} {needs:debug}

    test {Expiry: a pattern sees DEL from active expiry} {
        set pat "__watchex@${db}__:wp:aexp*"
        set ps [wp_subscriber 2 psubscribe $pat]
        r set wp:aexp v px 1
        expect_pmessage $ps $pat wp:aexp ADD
        # Active expiry runs from the cron; the read waits up to 3 s for it.
        expect_pmessage $ps $pat wp:aexp DEL
        $ps close
    }

    test {Every change inside MULTI/EXEC is published, in order} {
        set subs [wp_pair subscribe [wp_channel wp:tx]]
        r set wp:tx v
        expect_message_all $subs wp:tx ADD
        r multi
        r del wp:tx
        r set wp:tx w
        r del wp:tx
        r exec
        expect_message_all $subs wp:tx DEL
        expect_message_all $subs wp:tx ADD
        expect_message_all $subs wp:tx DEL
        expect_quiet_all $subs
        close_all $subs
    }

    # ---- order -------------------------------------------------------------------------------

    test {The connection that made the change reads its reply first, then the message} {
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd subscribe [wp_channel wp:self]
        $rd read
        $rd set wp:self v
        assert_equal OK [$rd read]
        assert_equal [list message [wp_channel wp:self] ADD] [$rd read]
        # After EXEC as a whole.
        $rd multi
        $rd read
        $rd del wp:self
        $rd read
        $rd set wp:self v
        $rd read
        $rd exec
        assert_equal {1 OK} [$rd read]
        assert_equal [list message [wp_channel wp:self] DEL] [$rd read]
        assert_equal [list message [wp_channel wp:self] ADD] [$rd read]
        $rd del wp:self
        assert_equal 1 [$rd read]
        assert_equal [list message [wp_channel wp:self] DEL] [$rd read]
        $rd close
    }

    test {On one connection the WATCHEX push precedes the __watchex@ message of the change} {
        set pat "__watchex@${db}__:wp:ord*"
        set c [redis_client]
        $c timeout 3000
        $c hello 3
        assert_equal NOEXIST [$c watchex wp:ord]
        $c subscribe [wp_channel wp:ord]
        $c psubscribe $pat
        r set wp:ord v
        assert_equal {watchex wp:ord ADD} [$c read]
        expect_message $c wp:ord ADD
        expect_pmessage $c $pat wp:ord ADD
        # The same with only a pattern (the key has no exact subscriber).
        $c unsubscribe [wp_channel wp:ord]
        r del wp:ord
        assert_equal {watchex wp:ord DEL} [$c read]
        expect_pmessage $c $pat wp:ord DEL
        expect_quiet $c
        $c close
    }

    test {No change is lost between SUBSCRIBE and the changes that follow it} {
        set c [wp_subscriber 2 subscribe [wp_channel wp:seq]]
        set w [redis_deferring_client]
        # 200 changes pipelined by another connection, then all the messages in order.
        for {set i 0} {$i < 100} {incr i} {
            $w set wp:seq $i
            $w del wp:seq
        }
        for {set i 0} {$i < 200} {incr i} {$w read}
        for {set i 0} {$i < 100} {incr i} {
            expect_message $c wp:seq ADD
            expect_message $c wp:seq DEL
        }
        expect_quiet $c
        $w close
        $c close
    }

    # ---- the lock recipe, with unmodified clients ---------------------------------------

    test {Lock recipe with the tcl client in RESP2: a killed holder's waiter takes the lock} {
        # Holder A and waiter B each use two connections: S (subscriber), and the lock one.
        set lock wp:lock
        set sa [wp_subscriber 2 subscribe [wp_channel $lock]]
        set a [redis_client]
        assert_equal 1 [$a settp $lock A]
        expect_message $sa $lock ADD
        set sb [wp_subscriber 2 subscribe [wp_channel $lock]]
        set b [redis_client]
        # Only after its confirmation does B try: taken, so it waits for DEL on its S.
        assert_equal 0 [$b settp $lock B]
        expect_quiet $sb "the lock is held: nothing to hear yet"
        r client kill id [$a client id]
        expect_message $sb $lock DEL
        assert_equal 1 [$b settp $lock B]
        expect_message $sb $lock ADD
        assert_equal B [r get $lock]
        assert_equal [$b client id] [r object owner $lock]
        assert_equal 1 [$b deltp $lock]
        expect_message $sb $lock DEL
        close_all [list $a $b $sa $sb]
    }

    test {Lock recipe with redis-cli as the subscriber} {
        set lock wp:clilock
        set channel [wp_channel $lock]
        set a [redis_client]
        assert_equal 1 [$a settp $lock A]
        set fd [open [list |redis-cli -p [srv port] subscribe $channel 2>@1] r]
        fconfigure $fd -blocking 0 -buffering line
        # redis-cli prints each element of a message on its own line.
        assert_equal {subscribe} [cli_line $fd]
        assert_equal $channel [cli_line $fd]
        assert_equal 1 [cli_line $fd]
        set b [redis_client]
        assert_equal 0 [$b settp $lock B]
        r client kill id [$a client id]
        assert_equal {message} [cli_line $fd]
        assert_equal $channel [cli_line $fd]
        assert_equal DEL [cli_line $fd]
        assert_equal 1 [$b settp $lock B]
        assert_equal {message} [cli_line $fd]
        assert_equal $channel [cli_line $fd]
        assert_equal ADD [cli_line $fd]
        foreach pid [pid $fd] {catch {exec kill $pid}}
        catch {close $fd}
        $a close
        $b close
    }
}
