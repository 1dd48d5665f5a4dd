# Blocking stream reads: XREAD BLOCK (`$`, several streams, a timeout, BLOCK 0, COUNT) and
# XREADGROUP BLOCK `>`. A waiter is served by an XADD after the writing command, EXEC or script
# completes, with every entry past the id it waits after (up to COUNT). XREAD waiters all see a
# new entry; XREADGROUP waiters on one group are served in the order they blocked, each new entry
# going to one of them. A blocked XREADGROUP whose stream is deleted (or replaced by another
# type) gets an UNBLOCKED error, one whose group is destroyed a NOGROUP error; a blocked XREAD
# just keeps waiting. A timeout or CLIENT UNBLOCK answers nil, CLIENT UNBLOCK ERROR an error.
# Inside MULTI nothing blocks.
#
# Every expectation is what Redis 7.0 answers: this file passes against Debian's redis-server.
# Waiters are deferring clients; every wait is bounded (wait_for_blocked_clients_count and the
# deferring clients' read timeout). Timeouts are checked only through their reply, never timed.

proc xb_client {{proto 2}} {
    set c [redis_deferring_client]
    $c timeout 5000
    if {$proto == 3} {
        $c hello 3
        $c read
    }
    return $c
}

# The ids of an XRANGE-shaped reply.
proc xb_ids {entries} {
    set out {}
    foreach e $entries {lappend out [lindex $e 0]}
    return $out
}

start_server {tags {stream-blocking}} {
    test {XREAD BLOCK with $ waits for the next XADD} {
        r del s
        r xadd s 1-0 a 1
        set rd [xb_client]
        $rd xread block 0 streams s $
        wait_for_blocked_clients_count 1
        r xadd s 2-0 b 2
        assert_equal {{s {{2-0 {b 2}}}}} [$rd read]
        wait_for_blocked_clients_count 0
        $rd close
    }

    test {XREAD BLOCK is served at once when entries past the id exist} {
        r del s
        r xadd s 1-0 a 1
        r xadd s 2-0 b 2
        assert_equal {{s {{2-0 {b 2}}}}} [r xread block 0 streams s 1-0]
        assert_equal {{s {{1-0 {a 1}}}}} [r xread count 1 block 0 streams s 0]
    }

    test {XREAD BLOCK on a missing key with $ is served once the key is created} {
        r del s
        set rd [xb_client]
        $rd xread block 0 streams s $
        wait_for_blocked_clients_count 1
        r xadd s 5-0 f v
        assert_equal {{s {{5-0 {f v}}}}} [$rd read]
        $rd close
    }

    test {XREAD BLOCK on several streams is served by the one that gets an entry} {
        r del s1 s2 s3
        r xadd s1 1-0 a 1
        r xadd s3 1-0 c 1
        set rd [xb_client]
        $rd xread block 0 streams s1 s2 s3 $ $ $
        wait_for_blocked_clients_count 1
        r xadd s2 7-0 b 7
        assert_equal {{s2 {{7-0 {b 7}}}}} [$rd read]
        # With explicit ids, the reply lists every stream that has something.
        assert_equal {{s1 {{1-0 {a 1}}}} {s3 {{1-0 {c 1}}}}} \
            [r xread block 0 streams s1 s2 s3 0 7-0 0]
        $rd close
    }

    test {XREAD BLOCK times out with nil, in RESP2 and RESP3} {
        r del s
        set rd [xb_client]
        $rd readraw 1
        $rd xread block 1 streams s $
        assert_equal {*-1} [$rd read]
        $rd close
        set rd [xb_client 3]
        $rd readraw 1
        $rd xread block 1 streams s $
        assert_equal {_} [$rd read]
        $rd close
        assert_equal 0 [r exists s]
    }

    test {XREAD BLOCK 0 waits without limit; CLIENT UNBLOCK answers nil or an error} {
        r del s
        set rd [xb_client]
        $rd client id
        set id [$rd read]
        $rd xread block 0 streams s $
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd xreadgroup group g c block 0 streams s >
        assert_error {NOGROUP *} {$rd read}
        r xgroup create s g $ mkstream
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id error]
        assert_error {UNBLOCKED client unblocked via CLIENT UNBLOCK} {$rd read}
        assert_equal 0 [r client unblock $id]
        $rd close
    }

    test {XREAD COUNT with BLOCK: a MULTI adding three entries serves two} {
        r del s
        r xadd s 1-0 a 1
        set rd [xb_client]
        $rd xread count 2 block 0 streams s $
        wait_for_blocked_clients_count 1
        r multi
        r xadd s 2-0 a 2
        r xadd s 3-0 a 3
        r xadd s 4-0 a 4
        r exec
        assert_equal {{s {{2-0 {a 2}} {3-0 {a 3}}}}} [$rd read]
        $rd close
    }

    test {Every XREAD waiter sees the new entry} {
        r del s
        r xadd s 1-0 a 1
        set clients {}
        for {set i 0} {$i < 3} {incr i} {
            set rd [xb_client]
            $rd xread block 0 streams s $
            lappend clients $rd
        }
        wait_for_blocked_clients_count 3
        r xadd s 2-0 b 2
        foreach rd $clients {
            assert_equal {{s {{2-0 {b 2}}}}} [$rd read]
            $rd close
        }
    }

    test {Inside MULTI XREAD BLOCK does not block} {
        r del s
        r multi
        r xread block 0 streams s $
        r xreadgroup group g c block 0 streams nokey >
        set res [r exec]
        assert_equal {} [lindex $res 0]
        assert_match {NOGROUP*} [lindex $res 1]
        r xadd s 1-0 a 1
        r multi
        r xread block 0 streams s 0
        assert_equal {{{s {{1-0 {a 1}}}}}} [r exec]
    }

    test {A script's XADD serves a waiter after the script} {
        r del s
        set rd [xb_client]
        $rd xread block 0 streams s $
        wait_for_blocked_clients_count 1
        r eval {redis.call('xadd', KEYS[1], '1-0', 'x', 'y'); redis.call('xadd', KEYS[1], '2-0', 'z', 'w')} 1 s
        assert_equal {{s {{1-0 {x y}} {2-0 {z w}}}}} [$rd read]
        $rd close
    }

    test {XREADGROUP BLOCK > is served by XADD and records the entry pending} {
        r del s
        r xgroup create s g $ mkstream
        set rd [xb_client]
        $rd xreadgroup group g alice block 0 streams s >
        wait_for_blocked_clients_count 1
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [$rd read]
        assert_equal {1 1-0 1-0 {{alice 1}}} [r xpending s g]
        # A history id never blocks.
        $rd xreadgroup group g alice block 0 streams s 1-0
        assert_equal {{s {}}} [$rd read]
        $rd close
    }

    test {XREADGROUP BLOCK NOACK and COUNT when served} {
        r del s
        r xgroup create s g $ mkstream
        set rd [xb_client]
        $rd xreadgroup group g alice count 1 noack block 0 streams s >
        wait_for_blocked_clients_count 1
        r multi
        r xadd s 1-0 a 1
        r xadd s 2-0 a 2
        r exec
        assert_equal {{s {{1-0 {a 1}}}}} [$rd read]
        assert_equal 0 [lindex [r xpending s g] 0]
        assert_equal {{s {{2-0 {a 2}}}}} [r xreadgroup group g alice streams s >]
        $rd close
    }

    test {XREADGROUP waiters on one group are served in order, one entry each} {
        r del s
        r xgroup create s g $ mkstream
        set clients {}
        foreach name {c1 c2 c3} {
            set rd [xb_client]
            $rd xreadgroup group g $name block 0 streams s >
            wait_for_blocked_clients_count [expr {[llength $clients] + 1}]
            lappend clients $rd
        }
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [[lindex $clients 0] read]
        wait_for_blocked_clients_count 2
        r xadd s 2-0 a 2
        assert_equal {{s {{2-0 {a 2}}}}} [[lindex $clients 1] read]
        r xadd s 3-0 a 3
        assert_equal {{s {{3-0 {a 3}}}}} [[lindex $clients 2] read]
        assert_equal {3 1-0 3-0 {{c1 1} {c2 1} {c3 1}}} [r xpending s g]
        foreach rd $clients {$rd close}
    }

    test {XREADGROUP waiters of two groups each get the entry} {
        r del s
        r xgroup create s g1 $ mkstream
        r xgroup create s g2 $
        set a [xb_client]
        set b [xb_client]
        $a xreadgroup group g1 c block 0 streams s >
        $b xreadgroup group g2 c block 0 streams s >
        wait_for_blocked_clients_count 2
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [$a read]
        assert_equal {{s {{1-0 {a 1}}}}} [$b read]
        $a close
        $b close
    }

    test {A blocked XREADGROUP whose stream is deleted gets UNBLOCKED} {
        r del s
        r xgroup create s g $ mkstream
        set rd [xb_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r del s
        assert_error {UNBLOCKED the stream key no longer exists} {$rd read}
        wait_for_blocked_clients_count 0
        $rd close
    }

    test {A blocked XREADGROUP whose stream becomes another type gets UNBLOCKED} {
        r del s
        r xgroup create s g $ mkstream
        set rd [xb_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r multi
        r del s
        r set s x
        r exec
        assert_error {UNBLOCKED the stream key no longer exists} {$rd read}
        r del s
        $rd close
    }

    test {Every way a key goes away unblocks XREADGROUP: UNLINK, RENAME, EXPIRE, FLUSHDB, SWAPDB} {
        set db [srv 0 db]
        set other [expr {$db == 10 ? 11 : 10}]
        foreach action [list {unlink s} {rename s s9} {expire s 0} {flushdb} [list swapdb $db $other]] {
            r select $other
            r del s
            r select $db
            r del s s9
            r xgroup create s g $ mkstream
            set rd [xb_client]
            $rd xreadgroup group g c block 0 streams s >
            wait_for_blocked_clients_count 1
            r {*}$action
            assert_error {UNBLOCKED the stream key no longer exists} {$rd read} "after: $action"
            $rd close
        }
        r select $other
        r flushdb
        r select $db
    }

    test {A blocked XREADGROUP whose group is destroyed gets NOGROUP} {
        r del s
        r xgroup create s g $ mkstream
        set rd [xb_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r xgroup destroy s g
        assert_error {NOGROUP the consumer group this client was blocked on no longer exists} {$rd read}
        $rd close
    }

    # The error that ends a wait is the blocked command's failure, as if it had failed at once.
    test {A wait ended by an error counts in errorstats and the command's failed_calls} {
        r config resetstat
        r del s
        r xgroup create s g $ mkstream
        set rd [xb_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r xgroup destroy s g
        assert_error {NOGROUP *} {$rd read}
        assert_match {*errorstat_NOGROUP:count=1*} [r info errorstats]
        assert_match {*cmdstat_xreadgroup:calls=1,*failed_calls=1*} [r info commandstats]
        $rd client id
        set id [$rd read]
        $rd blpop nolist 0
        wait_for_blocked_clients_count 1
        r client unblock $id error
        assert_error {UNBLOCKED *} {$rd read}
        assert_match {*errorstat_UNBLOCKED:count=1*} [r info errorstats]
        assert_match {*cmdstat_blpop:calls=1,*failed_calls=1*} [r info commandstats]
        assert_match {*total_error_replies:2*} [r info stats]
        $rd close
    } {} {needs:config}

    test {A blocked XREAD keeps waiting while its key is deleted or holds another type} {
        r del s
        r xadd s 1-0 a 1
        set rd [xb_client]
        $rd xread block 0 streams s $
        wait_for_blocked_clients_count 1
        r del s
        r set s x
        assert_equal 1 [s blocked_clients]
        r del s
        # The id it waits after is still 1-0.
        r xadd s 1-0 again 1
        assert_equal 1 [s blocked_clients]
        r xadd s 2-0 b 2
        assert_equal {{s {{2-0 {b 2}}}}} [$rd read]
        $rd close
    }

    test {XGROUP SETID does not wake a waiter; the next XADD serves it from the new id} {
        r del s
        r xadd s 1-0 a 1
        r xgroup create s g $
        set rd [xb_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r xgroup setid s g 0
        assert_equal 1 [s blocked_clients]
        r xadd s 2-0 b 2
        assert_equal {{s {{1-0 {a 1}} {2-0 {b 2}}}}} [$rd read]
        $rd close
    }

    test {XREADGROUP with nothing to read, blocking or not, creates no consumer} {
        r del s
        r xgroup create s g $ mkstream
        set rd [xb_client]
        $rd readraw 1
        $rd xreadgroup group g newbie block 1 streams s >
        assert_equal {*-1} [$rd read]
        $rd close
        assert_equal {} [r xreadgroup group g other streams s >]
        assert_equal {} [r xinfo consumers s g]
        r xadd s 1-0 a 1
        r xreadgroup group g newbie streams s >
        assert_equal {newbie} [lmap c [r xinfo consumers s g] {lindex $c 1}]
    }

    test {RESP3: a served XREAD answers a map of stream to entries} {
        r del s
        set rd [xb_client 3]
        $rd readraw 1
        $rd xread block 0 streams s $
        wait_for_blocked_clients_count 1
        r xadd s 1-0 a 1
        assert_equal {%1} [$rd read]
        assert_equal {$1} [$rd read]
        assert_equal {s} [$rd read]
        $rd close
    }

    test {Scripts may not use BLOCK, even when entries are there; without it they read} {
        r del s
        r xadd s 1-0 a 1
        r xgroup create s g 0
        assert_equal {ERR xreadgroup command is not allowed with BLOCK option from scripts} \
            [r eval {return redis.pcall('xreadgroup', 'group', 'g', 'c', 'block', '0', 'streams', KEYS[1], '>')['err']} 1 s]
        assert_equal {ERR xread command is not allowed with BLOCK option from scripts} \
            [r eval {return redis.pcall('xread', 'block', '0', 'streams', KEYS[1], '0')['err']} 1 s]
        assert_equal {{s {{1-0 {a 1}}}}} \
            [r eval {return redis.call('xreadgroup', 'group', 'g', 'c', 'streams', KEYS[1], '>')} 1 s]
        assert_equal {1 1-0 1-0 {{c 1}}} [r xpending s g]
    }

    test {BLOCK errors} {
        assert_error {ERR timeout is negative} {r xread block -1 streams s $}
        assert_error {ERR timeout is not an integer or out of range} {r xread block x streams s $}
        assert_error {ERR timeout is negative} {r xreadgroup group g c block -1 streams s >}
    }
}
