# CONFIG SET bind and port at run time: the listening sockets follow, and a set
# that cannot be bound leaves the server listening where it was.

start_server {tags {networking external:skip}} {
    set port [srv 0 port]

    test {CONFIG SET bind to more addresses on the same port, and back} {
        r config set bind "127.0.0.1 127.0.0.2"
        assert_equal {127.0.0.1 127.0.0.2} [lindex [r config get bind] 1]
        set c [::redis::redis 127.0.0.2 $port]
        assert_equal PONG [$c ping]
        $c close
        # Back to one of the addresses already bound on this port.
        r config set bind 127.0.0.1
        assert_equal 127.0.0.1 [lindex [r config get bind] 1]
        assert_error {*connection refused*} {::redis::redis 127.0.0.2 $port}
        set c [::redis::redis 127.0.0.1 $port]
        assert_equal PONG [$c ping]
        $c close
    } {} {needs:config}

    test {An optional address that cannot be bound is skipped} {
        # 192.0.2.1 (TEST-NET-1) is on no interface of this host.
        r config set bind "127.0.0.1 -192.0.2.1"
        assert_equal {127.0.0.1 -192.0.2.1} [lindex [r config get bind] 1]
        assert_equal PONG [r ping]
        r config set bind 127.0.0.1
    } {} {needs:config}

    test {A bind that fails leaves the previous addresses listening} {
        assert_error {ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.} {
            r config set bind "127.0.0.1 192.0.2.1"
        }
        assert_equal 127.0.0.1 [lindex [r config get bind] 1]
        set c [::redis::redis 127.0.0.1 $port]
        assert_equal PONG [$c ping]
        $c close
    } {} {needs:config}
}
