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

# bind-source-addr: the address outgoing connections (the replication link, MIGRATE) leave from.
start_server {tags {networking external:skip}} {
    start_server {} {
        set master_host [srv -1 host]
        set master_port [srv -1 port]
        # 127.0.0.2 is no loopback address protected mode accepts: open it for the test.
        r -1 config set protected-mode no
        # A full sync starts at once rather than after the diskless delay (5 s by default).
        r -1 config set repl-diskless-sync-delay 0

        test {CONFIG SET bind-source-addr: the replication link leaves from it} {
            assert_equal {bind-source-addr {}} [r config get bind-source-addr]
            r config set bind-source-addr 127.0.0.2
            assert_equal {bind-source-addr 127.0.0.2} [r config get bind-source-addr]
            r replicaof $master_host $master_port
            wait_for_condition 100 50 {
                [string match {*master_link_status:up*} [r info replication]]
            } else {
                fail "the replica did not connect"
            }
            assert_match {*ip=127.0.0.2,*} [r -1 info replication]
            r replicaof no one
            r config set bind-source-addr ""
        } {OK} {needs:config}

        test {MIGRATE does not use bind-source-addr} {
            # As in Redis 7.0: only the replication link binds to it.
            r config set bind-source-addr 127.0.0.2
            r set mk v
            assert_equal OK [r migrate $master_host $master_port mk [srv -1 db] 5000]
            assert_equal v [r -1 get mk]
            assert_match {*addr=127.0.0.1:*cmd=restore*} [r -1 client list]
            r config set bind-source-addr ""
        } {OK} {needs:config}

        test {A bind-source-addr that cannot be bound is skipped} {
            # 192.0.2.1 (TEST-NET-1) is on no interface of this host: as in Redis 7.0 the
            # binding is best effort and the link connects from the usual address.
            r config set bind-source-addr 192.0.2.1
            r replicaof $master_host $master_port
            wait_for_condition 100 100 {
                [string match {*slave0:ip=127.0.0.1,*} [r -1 info replication]]
            } else {
                fail "the replica did not connect"
            }
            r replicaof no one
            r config set bind-source-addr ""
        } {OK} {needs:config}
    }
}

# An empty bind list and back. (The default list, "* -::*", listens on every address: the
# tests keep to loopback addresses, so they use "127.0.0.1 -::1", the same optional form.)
start_server {tags {networking external:skip}} {
    set port [srv 0 port]

    test {CONFIG SET bind to no address, then to a list with an optional address} {
        r config set bind ""
        assert_equal {bind {}} [r config get bind]
        # No TCP listener at all: new connections are refused, this one stays.
        assert_error {*connection refused*} {::redis::redis 127.0.0.1 $port}
        assert_equal PONG [r ping]
        r config rewrite
        set f [open [srv 0 config_file]]
        set conf [read $f]
        close $f
        assert_match "*\nbind \"\"\n*" $conf
        r config set bind "127.0.0.1 -::1"
        assert_equal {bind {127.0.0.1 -::1}} [r config get bind]
        set c [::redis::redis 127.0.0.1 $port]
        assert_equal PONG [$c ping]
        $c close
    } {} {needs:config}
}
