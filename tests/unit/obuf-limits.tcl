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
