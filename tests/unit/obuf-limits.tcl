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
