# XREAD and XREADGROUP: their options and errors, reading several streams, `$` and `>`, history
# reads of a consumer's pending entries, and their BLOCK forms (served after the write that adds
# entries beyond the waiter's id, FIFO among waiters, nil on timeout, errors for a blocked
# XREADGROUP whose stream or group went away). Every expectation was read from Redis 7.0.15 first.
#
# Waiters are deferring clients with a read timeout; every wait is bounded.

proc xr_client {{proto 2}} {
    set c [redis_deferring_client]
    $c timeout 5000
    if {$proto == 3} {
        $c hello 3
        $c read
    }
    return $c
}

start_server {tags {stream-read}} {
    test {XREAD returns the entries after each id, only for the streams that have some} {
        r del s1 s2 s3
        r xadd s1 1-1 a 1
        r xadd s1 2-0 b 2
        r xadd s2 5-0 c 3
        assert_equal {{s1 {{1-1 {a 1}} {2-0 {b 2}}}}} [r xread streams s1 0]
        assert_equal {{s1 {{2-0 {b 2}}}}} [r xread streams s1 1-1]
        # An id without sequence means sequence 0.
        assert_equal {{s1 {{1-1 {a 1}} {2-0 {b 2}}}}} [r xread streams s1 1]
        assert_equal {{s2 {{5-0 {c 3}}}}} [r xread streams s1 s3 s2 2 0 0]
        assert_equal {} [r xread streams s1 s2 s3 2 5 0]
    }

    test {XREAD COUNT limits each stream; zero or a negative COUNT means no limit} {
        r del s1 s2
        foreach id {1 2 3} { r xadd s1 $id-0 f $id; r xadd s2 $id-0 g $id }
        assert_equal {{s1 {{1-0 {f 1}}}} {s2 {{1-0 {g 1}}}}} [r xread count 1 streams s1 s2 0 0]
        assert_equal 3 [llength [lindex [r xread count 0 streams s1 0] 0 1]]
        assert_equal 3 [llength [lindex [r xread count -5 streams s1 0] 0 1]]
        # The last COUNT wins.
        assert_equal 2 [llength [lindex [r xread count 1 count 2 streams s1 0] 0 1]]
    }

    test {XREAD with $ returns nothing: it names the last id at call time} {
        r del s1
        r xadd s1 1-0 f 1
        assert_equal {} [r xread streams s1 {$}]
        assert_equal {} [r xread streams nokey {$}]
    }

    test {XREAD does not return entries deleted meanwhile, nor a stream whose tail was deleted} {
        r del s1
        r xadd s1 1-0 f 1
        r xadd s1 2-0 f 2
        r xdel s1 2-0
        assert_equal {} [r xread streams s1 1-0]
        assert_equal {{s1 {{1-0 {f 1}}}}} [r xread streams s1 0]
    }

    test {XREAD repeats a stream named twice} {
        r del s1
        r xadd s1 1-0 f 1
        assert_equal {{s1 {{1-0 {f 1}}}} {s1 {{1-0 {f 1}}}}} [r xread streams s1 s1 0 0]
    }

    test {XREAD in RESP3 answers a map} {
        r del s1 s2
        r xadd s1 1-0 f 1
        r xadd s2 1-0 g 2
        r hello 3
        assert_equal {s1 {{1-0 {f 1}}} s2 {{1-0 {g 2}}}} [r xread streams s1 s2 0 0]
        assert_equal {} [r xread streams s1 1-0]
        r hello 2
    }

    test {XREAD errors} {
        r del s1 str
        r xadd s1 1-0 f 1
        r set str x
        assert_error {*Unbalanced XREAD list of streams*} {r xread streams s1 s2 0}
        assert_error {*Unbalanced XREAD list of streams*} {r xread streams s1 streams 0}
        assert_error {ERR syntax error} {r xread count 1 streams}
        assert_error {ERR syntax error} {r xread foo streams s1 0}
        assert_error {ERR value is not an integer or out of range} {r xread count x streams s1 0}
        assert_error {ERR timeout is not an integer or out of range} {r xread block 1.5 streams s1 0}
        assert_error {ERR timeout is not an integer or out of range} {r xread block -0 streams s1 0}
        assert_error {ERR timeout is negative} {r xread block -1 streams s1 0}
        assert_error {*The > ID can be specified only when calling XREADGROUP*} {r xread streams s1 >}
        assert_error {*The GROUP option is only supported by XREADGROUP*} {r xread group g c streams s1 0}
        assert_error {*The NOACK option is only supported by XREADGROUP*} {r xread noack streams s1 0}
        # `+` is Redis 7.4's "last entry" (tests/unit/newer-options.tcl); `-` stays invalid.
        assert_error {ERR Invalid stream ID*} {r xread streams s1 -}
        assert_error {ERR Invalid stream ID*} {r xread streams s1 1-x}
        assert_error {WRONGTYPE*} {r xread streams s1 str 0 0}
        # The keys are checked in order: the first bad one answers.
        assert_error {WRONGTYPE*} {r xread streams str s1 0 bad}
        assert_error {ERR Invalid stream ID*} {r xread streams s1 str bad 0}
    }

    test {XREAD BLOCK is served by the XADD that adds an entry after its id} {
        r del s1
        r xadd s1 1-0 f 1
        set rd [xr_client]
        $rd xread block 0 streams s1 {$}
        wait_for_blocked_clients_count 1
        r xadd s1 2-0 f 2
        assert_equal {{s1 {{2-0 {f 2}}}}} [$rd read]
        wait_for_blocked_clients_count 0
        $rd close
    }

    test {XREAD BLOCK on several streams answers the one that got entries} {
        r del s1 s2
        set rd [xr_client]
        $rd xread block 0 streams s1 s2 {$} {$}
        wait_for_blocked_clients_count 1
        r xadd s2 3-0 f 3
        assert_equal {{s2 {{3-0 {f 3}}}}} [$rd read]
        $rd close
    }

    test {XREAD BLOCK gets everything a transaction added, up to its COUNT} {
        r del s1
        set rd1 [xr_client]
        set rd2 [xr_client]
        $rd1 xread block 0 streams s1 {$}
        $rd2 xread count 2 block 0 streams s1 {$}
        wait_for_blocked_clients_count 2
        r multi
        foreach id {1 2 3} { r xadd s1 $id-0 f $id }
        r exec
        assert_equal {{s1 {{1-0 {f 1}} {2-0 {f 2}} {3-0 {f 3}}}}} [$rd1 read]
        assert_equal {{s1 {{1-0 {f 1}} {2-0 {f 2}}}}} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test {XREAD BLOCK waits on through a deleted stream, a retyped key and ids below its own} {
        r del s1
        r xadd s1 5-0 f 1
        set rd [xr_client]
        $rd xread block 0 streams s1 {$}
        wait_for_blocked_clients_count 1
        r del s1
        r multi
        r xadd s1 1-0 f 1
        r del s1
        r set s1 x
        r exec
        r del s1
        r xadd s1 3-0 f 3
        assert_equal 1 [s blocked_clients]
        r xadd s1 6-0 f 6
        assert_equal {{s1 {{6-0 {f 6}}}}} [$rd read]
        $rd close
    }

    test {XREAD BLOCK times out with nil, in RESP2 and RESP3} {
        r del s1
        set rd [xr_client]
        $rd xread block 20 streams s1 {$}
        assert_equal {} [$rd read]
        $rd close
        set rd [xr_client 3]
        $rd xread block 20 streams s1 0
        assert_equal {} [$rd read]
        $rd close
    }

    test {XREAD BLOCK with data to read answers at once} {
        r del s1
        r xadd s1 1-0 f 1
        assert_equal {{s1 {{1-0 {f 1}}}}} [r xread block 0 streams s1 0]
    }

    test {XREAD BLOCK is served FIFO, each waiter beyond its own id} {
        r del s1
        set rd1 [xr_client]
        set rd2 [xr_client]
        $rd1 xread block 0 streams s1 0
        wait_for_blocked_clients_count 1
        $rd2 xread block 0 streams s1 1-0
        wait_for_blocked_clients_count 2
        r xadd s1 1-0 f 1
        assert_equal {{s1 {{1-0 {f 1}}}}} [$rd1 read]
        assert_equal 1 [s blocked_clients]
        r xadd s1 2-0 f 2
        assert_equal {{s1 {{2-0 {f 2}}}}} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test {XREAD BLOCK ends with CLIENT UNBLOCK} {
        r del s1
        set rd [xr_client]
        $rd client id
        set id [$rd read]
        $rd xread block 0 streams s1 {$}
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd xread block 0 streams s1 {$}
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id error]
        assert_error {UNBLOCKED*} {$rd read}
        $rd close
    }

    test {XREAD BLOCK inside MULTI answers nil at once; inside a script it is refused} {
        r del s1
        r multi
        r xread block 0 streams s1 {$}
        assert_equal {{}} [r exec]
        assert_equal {ERR xread command is not allowed with BLOCK option from scripts} \
            [r eval {return redis.pcall('xread', 'block', '0', 'streams', KEYS[1], '0')['err']} 1 s1]
        # The check comes in option order: a bad COUNT before BLOCK answers first.
        assert_equal {ERR value is not an integer or out of range} \
            [r eval {return redis.pcall('xread', 'count', 'x', 'block', '0', 'streams', KEYS[1], '0')['err']} 1 s1]
    }
}

start_server {tags {stream-read}} {
    test {XREADGROUP > delivers new entries once, making them pending for the consumer} {
        r del s
        r xadd s 1-0 f 1
        r xadd s 2-0 f 2
        r xgroup create s g 0
        assert_equal {{s {{1-0 {f 1}}}}} [r xreadgroup group g alice count 1 streams s >]
        assert_equal {{s {{2-0 {f 2}}}}} [r xreadgroup group g bob streams s >]
        assert_equal {} [r xreadgroup group g alice streams s >]
        assert_equal {2 1-0 2-0 {{alice 1} {bob 1}}} [r xpending s g]
        set info [r xinfo groups s]
        assert_equal 2-0 [dict get [lindex $info 0] last-delivered-id]
        assert_equal 2 [dict get [lindex $info 0] entries-read]
    }

    test {XREADGROUP NOACK delivers without pending records} {
        r del s
        r xadd s 1-0 f 1
        r xgroup create s g 0
        assert_equal {{s {{1-0 {f 1}}}}} [r xreadgroup group g c noack streams s >]
        assert_equal 0 [lindex [r xpending s g] 0]
        assert_equal 1-0 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
    }

    test {XREADGROUP with an id reads the consumer's own pending entries after it} {
        r del s
        foreach id {1 2 3} { r xadd s $id-0 f $id }
        r xgroup create s g 0
        r xreadgroup group g alice count 2 streams s >
        r xreadgroup group g bob streams s >
        assert_equal {{s {{1-0 {f 1}} {2-0 {f 2}}}}} [r xreadgroup group g alice streams s 0]
        assert_equal {{s {{2-0 {f 2}}}}} [r xreadgroup group g alice streams s 1]
        assert_equal {{s {{1-0 {f 1}}}}} [r xreadgroup group g alice count 1 streams s 0]
        # Nothing pending after the id: the stream is answered all the same, empty.
        assert_equal {{s {}}} [r xreadgroup group g alice streams s 2-0]
        assert_equal {{s {}}} [r xreadgroup group g carol streams s 0]
        # Each history read counted one more delivery.
        assert_equal 3 [lindex [r xpending s g - + 10 alice] 0 3]
        assert_equal 3 [lindex [r xpending s g - + 10 alice] 1 3]
        assert_equal 1 [lindex [r xpending s g - + 10 bob] 0 3]
    }

    test {XREADGROUP history shows a deleted pending entry with nil fields and leaves its count} {
        r del s
        r xadd s 1-0 f 1
        r xadd s 2-0 f 2
        r xgroup create s g 0
        r xreadgroup group g c streams s >
        r xdel s 1-0
        assert_equal {{s {{1-0 {}} {2-0 {f 2}}}}} [r xreadgroup group g c streams s 0]
        assert_equal 1 [lindex [r xpending s g - + 10 c] 0 3]
        assert_equal 2 [lindex [r xpending s g - + 10 c] 1 3]
        r hello 3
        assert_equal {s {{1-0 {}} {2-0 {f 2}}}} [r xreadgroup group g c streams s 0]
        r hello 2
    }

    test {XREADGROUP on several streams, history and new at once} {
        r del s1 s2
        r xadd s1 1-0 f 1
        r xadd s2 1-0 g 1
        r xgroup create s1 g 0
        r xgroup create s2 g 0
        assert_equal {{s1 {}} {s2 {{1-0 {g 1}}}}} [r xreadgroup group g c streams s1 s2 0 >]
        # A stream named twice: the second sees what the first left.
        assert_equal {{s1 {{1-0 {f 1}}}}} [r xreadgroup group g c streams s1 s1 > >]
    }

    test {XREADGROUP errors} {
        r del s str
        r xadd s 1-0 f 1
        r xgroup create s g 0
        r set str x
        assert_error {ERR wrong number of arguments*} {r xreadgroup group g streams s >}
        assert_error {ERR Missing GROUP option for XREADGROUP} {r xreadgroup count 1 block 0 streams s >}
        assert_error {NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option} \
            {r xreadgroup group nog c streams s >}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option} \
            {r xreadgroup group g c streams nokey >}
        assert_error {WRONGTYPE*} {r xreadgroup group g c streams str >}
        assert_error {*The $ ID is meaningless in the context of XREADGROUP*} {r xreadgroup group g c streams s {$}}
        assert_error {*Unbalanced XREAD list of streams*} {r xreadgroup group g c streams s > extra}
        assert_error {ERR Invalid stream ID*} {r xreadgroup group g c streams s +}
        assert_error {ERR timeout is negative} {r xreadgroup group g c block -5 streams s >}
        # The last GROUP wins.
        assert_error {NOGROUP*'g2'*} {r xreadgroup group g c count 1 group g2 c2 streams s >}
        # Nothing was delivered by the failed calls.
        assert_equal 0 [lindex [r xpending s g] 0]
    }

    test {XREADGROUP BLOCK > is served through the group, FIFO, each entry once} {
        r del s
        r xgroup create s g {$} mkstream
        set rd1 [xr_client]
        set rd2 [xr_client]
        $rd1 xreadgroup group g c1 block 0 streams s >
        wait_for_blocked_clients_count 1
        $rd2 xreadgroup group g c2 block 0 streams s >
        wait_for_blocked_clients_count 2
        # A consumer is created only when it is served.
        assert_equal {} [r xinfo consumers s g]
        r xadd s 1-0 f 1
        assert_equal {{s {{1-0 {f 1}}}}} [$rd1 read]
        assert_equal 1 [s blocked_clients]
        r multi
        r xadd s 2-0 f 2
        r xadd s 3-0 f 3
        r exec
        assert_equal {{s {{2-0 {f 2}} {3-0 {f 3}}}}} [$rd2 read]
        assert_equal {3 1-0 3-0 {{c1 1} {c2 2}}} [r xpending s g]
        $rd1 close
        $rd2 close
    }

    test {XREADGROUP BLOCK with NOACK and COUNT} {
        r del s
        r xgroup create s g {$} mkstream
        set rd [xr_client 3]
        $rd xreadgroup group g c count 1 noack block 0 streams s >
        wait_for_blocked_clients_count 1
        r multi
        r xadd s 1-0 f 1
        r xadd s 2-0 f 2
        r exec
        assert_equal {s {{1-0 {f 1}}}} [$rd read]
        assert_equal 0 [lindex [r xpending s g] 0]
        assert_equal 1-0 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
        $rd close
    }

    test {XREADGROUP BLOCK with a history id answers at once} {
        r del s
        r xgroup create s g {$} mkstream
        assert_equal {{s {}}} [r xreadgroup group g c block 0 streams s 0]
    }

    test {XREADGROUP BLOCK on a stream that ran dry waits for a new entry} {
        r del s
        r xgroup create s g {$} mkstream
        r xadd s 5-0 f 5
        r xdel s 5-0
        assert_equal {} [r xreadgroup group g c block 10 streams s >]
        set rd [xr_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r xadd s 6-0 f 6
        assert_equal {{s {{6-0 {f 6}}}}} [$rd read]
        $rd close
    }

    test {A blocked XREADGROUP whose stream is deleted or retyped gets UNBLOCKED} {
        r del s
        r xgroup create s g {$} mkstream
        set rd [xr_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r del s
        assert_error {UNBLOCKED the stream key no longer exists} {$rd read}
        r xgroup create s g {$} mkstream
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r multi
        r del s
        r set s x
        r exec
        assert_error {UNBLOCKED the stream key no longer exists} {$rd read}
        r del s
        r xgroup create s g {$} mkstream
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r flushall
        assert_error {UNBLOCKED the stream key no longer exists} {$rd read}
        $rd close
    }

    test {A blocked XREADGROUP whose group is destroyed gets NOGROUP} {
        r del s
        r xgroup create s g {$} mkstream
        set rd [xr_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients_count 1
        r xgroup destroy s g
        assert_error {NOGROUP the consumer group this client was blocked on no longer exists} {$rd read}
        $rd close
    }

    test {XREADGROUP BLOCK times out with nil and creates no consumer} {
        r del s
        r xgroup create s g {$} mkstream
        set rd [xr_client]
        $rd xreadgroup group g c block 20 streams s >
        assert_equal {} [$rd read]
        assert_equal {} [r xinfo consumers s g]
        $rd close
    }

    test {XREADGROUP BLOCK inside MULTI answers nil; inside a script it is refused} {
        r del s
        r xgroup create s g {$} mkstream
        r multi
        r xreadgroup group g c block 0 streams s >
        assert_equal {{}} [r exec]
        assert_equal {ERR xreadgroup command is not allowed with BLOCK option from scripts} \
            [r eval {return redis.pcall('xreadgroup', 'group', 'g', 'c', 'block', '0', 'streams', KEYS[1], '>')['err']} 1 s]
    }

    test {XREADGROUP aborts no WATCH: it changes only group state} {
        r del s
        r xadd s 1-0 f 1
        r xgroup create s g 0
        set c2 [redis_client]
        foreach id {> 0} {
            r watch s
            $c2 xreadgroup group g c streams s $id
            r multi
            r ping
            assert_equal {PONG} [r exec]
        }
        $c2 close
    }

    test {XREADGROUP creating a consumer announces xgroup-createconsumer, nothing else} {
        r del s
        r xadd s 1-0 f 1
        r xgroup create s g 0
        r config set notify-keyspace-events Et
        set rd [xr_client]
        $rd psubscribe __keyevent@*
        $rd read
        r xreadgroup group g c streams s >
        r xreadgroup group g c streams s 0
        r xadd s 2-0 f 2
        assert_equal {pmessage __keyevent@* __keyevent@9__:xgroup-createconsumer s} [$rd read]
        assert_equal {pmessage __keyevent@* __keyevent@9__:xadd s} [$rd read]
        r config set notify-keyspace-events ""
        $rd close
    }
}
