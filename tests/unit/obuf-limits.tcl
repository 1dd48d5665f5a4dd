# Output buffer limits (client-output-buffer-limit): a client whose pending reply crosses the
# hard limit is closed, and the reply that crossed it is dropped at once, so the memory it
# would hold is given back as the client goes.

start_server {tags {obuf-limits external:skip}} {
    test {A single reply over the hard limit closes the client and costs no memory} {
        r config set latency-tracking no
        r config set client-output-buffer-limit {normal 100000 0 0}
        # 150 items of 1000 bytes: LRANGE's reply is half again the limit.
        set item [string repeat "y" 1000]
        for {set i 0} {$i < 150} {incr i} {
            r rpush biglist $item
        }
        set before [s used_memory]
        set rd [redis_deferring_client]
        $rd client setname overflow
        assert_equal OK [$rd read]
        $rd lrange biglist 0 -1
        $rd flush
        wait_for_condition 100 20 {
            ![string match "*name=overflow*" [r client list]]
        } else {
            fail "the client was not closed"
        }
        # Neither the reply nor the connection is held any more.
        assert {[s used_memory] < $before + 10000}
        # Nothing of the reply was sent: the connection ends without a reply.
        assert_equal 1 [catch {$rd read}]
        $rd close
        r config set client-output-buffer-limit {normal 0 0 0}
    } {OK} {needs:config}
}

# The limit is checked as the reply grows: once it is crossed, the rest of the reply is not
# built, so memory never holds a reply far bigger than the limit. Redis 7.0 marks the client
# to be closed ASAP at that point and drops what it would still send.
start_server {tags {obuf-limits external:skip}} {
    test {A reply far over the hard limit is dropped as it grows, not held whole} {
        r config set client-output-buffer-limit {normal 1000000 0 0}
        r set big [string repeat x 100000]
        # MGET of the same 100 KB value 200 times: a 20 MB reply for a 1 MB hard limit.
        set mget [list mget]
        for {set i 0} {$i < 200} {incr i} {lappend mget big}
        set before [s used_memory]
        set rd [redis_deferring_client]
        $rd client setname hugereply
        assert_equal OK [$rd read]
        $rd {*}$mget
        $rd flush
        wait_for_condition 100 20 {
            ![string match "*name=hugereply*" [r client list]]
        } else {
            fail "the client over the limit was not closed"
        }
        # The peak memory saw a few blocks over the limit at most, never the 20 MB reply.
        assert_lessthan [s used_memory_peak] [expr {$before + 5000000}]
        wait_for_log_message {*name=hugereply*scheduled to be closed ASAP for overcoming of output buffer limits*}
        assert_equal 1 [catch {$rd read}]
        $rd close
        # The same reply within the limit is whole (the check refuses only over it).
        r config set client-output-buffer-limit {normal 0 0 0}
        assert_equal 200 [llength [r {*}$mget]]
    } {} {needs:config}
}

# Commands whose reply length is the caller's count (random picks with repeats) stop once the
# reply is over the limit, as Redis 7.0 does: the rest would be dropped anyway.
start_server {tags {obuf-limits external:skip}} {
    test {Random picks by the billion stop once the reply is over the hard limit} {
        r config set client-output-buffer-limit {normal 1000000 0 0}
        r hset rnd:h a 1 b 2 c 3
        r sadd rnd:s a b c
        r zadd rnd:z 1 a 2 b 3 c
        # A client whose reads wait 10 s at most: a billion picks would keep the server busy
        # far longer; stopped, they leave it free at once.
        set probe [::redis::redis [srv host] [srv port] 0 10000 [::server::tls_of 0]]
        foreach cmd {{hrandfield rnd:h -999999999} {srandmember rnd:s -999999999}
                     {zrandmember rnd:z -999999999} {hrandfield rnd:h -999999999 withvalues}} {
            set rd [redis_deferring_client]
            $rd {*}$cmd
            $rd flush
            assert_equal PONG [$probe ping]
            assert_equal 1 [catch {$rd read}]
            $rd close
        }
        $probe close
        wait_for_log_message {*cmd=hrandfield*scheduled to be closed ASAP for overcoming of output buffer limits*}
        r config set client-output-buffer-limit {normal 0 0 0}
    } {} {needs:config}
}

# A connection that never authenticated, where a password is required, may hold only a little
# output: a client that sends commands without reading the NOAUTH errors is closed, whatever the
# normal class allows (0, no limit, here). Redis 7.0.15 closes it since the fix of
# CVE-2025-21605; before the same check ours held every error, 64 MB for 2 million PINGs.
start_server {tags {obuf-limits external:skip} overrides {requirepass secret}} {
    test {A client that never authenticated is closed when its unread replies pass 1 KB} {
        set c [redis_client]
        $c auth secret
        set fd [raw_connect]
        set addr "addr=127.0.0.1:[lindex [fconfigure $fd -sockname] 2] "
        set chunk [string repeat "*1\r\n\$4\r\nPING\r\n" 10000]
        # At most 400 chunks, 56 MB of requests whose NOAUTH errors (136 MB) are far more than
        # the loopback socket buffers of both ends can take (up to about 36 MB here), so the
        # server's own buffer has to hold the rest. The writes stop early if the server has
        # closed the connection already; a slower server (the sanitizer build) may still be
        # reading what the kernel buffered when they end, so the close is waited for.
        for {set i 0} {$i < 400} {incr i} {
            if {[catch {raw_write $fd $chunk}]} break
        }
        wait_for_condition 200 100 {[string first $addr [$c client list]] < 0} else {
            fail "the unauthenticated client is still connected"
        }
        raw_close $fd
        assert_equal 1 [count_log_message "*closed ASAP for overcoming of output buffer limits*"]
        $c close
    }

    test {After one AUTH the class limits apply, as before: the replies are held} {
        set c [redis_client]
        $c auth secret
        set rd [redis_deferring_client]
        $rd auth secret
        assert_equal OK [$rd read]
        # 2000 unread replies of 100 bytes each: far over 1 KB, held under the normal class.
        $c set v [string repeat x 100]
        for {set i 0} {$i < 2000} {incr i} {$rd get v}
        $rd flush
        for {set i 0} {$i < 2000} {incr i} {assert_equal 100 [string length [$rd read]]}
        $rd close
        $c close
    }
}
