# Per-client resource limits: the query buffer limit, output buffer limits
# of the normal and pubsub classes, and clients that disappear while the
# server still owes them a big reply or holds them blocked.

# Reads and discards everything until EOF, timeout_ms of silence, or (if
# given) want bytes.  Returns {bytes closed}.
proc raw_drain {sock {timeout_ms 5000} {want 0}} {
    set bytes 0
    while 1 {
        if {[catch {read $sock} data]} {return [list $bytes 1]}
        incr bytes [string length $data]
        if {[eof $sock]} {return [list $bytes 1]}
        if {$want > 0 && $bytes >= $want} {return [list $bytes 0]}
        if {$data eq "" && ![raw_wait_readable $sock $timeout_ms]} {
            return [list $bytes 0]
        }
    }
}

# Sends n pipelined GETs of key on a fresh raw connection (which selects
# the test db first) and returns the socket without reading anything.
proc pipeline_gets {key n} {
    set s [raw_connect]
    set req "SELECT [srv db]\r\n"
    for {set i 0} {$i < $n} {incr i} {append req "GET $key\r\n"}
    raw_write $s $req
    return $s
}

start_server {tags {limits}} {
    test {A bulk argument bigger than client-query-buffer-limit closes the client} {
        r config set client-query-buffer-limit 1mb
        set c [redis_client]
        assert_equal [$c set fits [string repeat x 500000]] OK
        assert_error {I/O error*} {$c set toobig [string repeat x 2000000]}
        catch {$c close}
        assert_equal [r exists toobig] 0
        assert_equal [r strlen fits] 500000
        r config set client-query-buffer-limit 1gb
        r del fits
    } {} {needs:config}

    test {A command bigger than the query buffer limit made of arguments within it is accepted} {
        # Redis counts only the bytes not yet parsed into arguments: three 900 KB values make a
        # 2.7 MB MSET that passes a 1 MB client-query-buffer-limit.
        r config set client-query-buffer-limit 1mb
        set c [redis_client]
        set v [string repeat y 900000]
        assert_equal OK [$c mset qa $v qb $v qc $v]
        assert_equal PONG [$c ping]
        $c close
        assert_equal {900000 900000 900000} [list [r strlen qa] [r strlen qb] [r strlen qc]]
        r config set client-query-buffer-limit 1gb
        r del qa qb qc
    } {} {needs:config}

    test {A partial request growing past the query buffer limit closes the client} {
        r config set client-query-buffer-limit 1mb
        set s [raw_connect]
        raw_write $s "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$3000000\r\n"
        raw_write $s [string repeat x 1500000]
        assert_equal [raw_is_closed $s 5000] 1
        raw_close $s
        assert_equal [r ping] PONG
        r config set client-query-buffer-limit 1gb
    } {} {needs:config}

    test {The query buffer limit rejects the minimum violation at CONFIG SET} {
        assert_error {*argument must be between 1048576 and*} {
            r config set client-query-buffer-limit 1000
        }
    } {} {needs:config}

    test {Without a normal-class limit a slow reader gets every reply} {
        r set big [string repeat x 100000]
        assert_equal [lindex [r config get client-output-buffer-limit] 1] \
            {normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60}
        set s [pipeline_gets big 100]
        after 500
        # 100 replies of "$100000\r\n" (9 bytes), the value and "\r\n", after "+OK\r\n".
        set expected [expr {5 + 100 * (100000 + 11)}]
        lassign [raw_drain $s 5000 $expected] got closed
        assert_equal $closed 0
        assert_equal $got $expected
        raw_close $s
        r del big
    } {} {needs:config}

    test {A normal client over its hard output limit is disconnected} {
        r config set client-output-buffer-limit "normal 1mb 0 0"
        r set big [string repeat x 100000]
        set before [s connected_clients]
        set s [pipeline_gets big 300]
        lassign [raw_drain $s 5000] bytes closed
        raw_close $s
        assert_equal $closed 1 "client closed by the server"
        assert_lessthan $bytes [expr {300 * 100000}] "only part of the replies arrived"
        wait_for_connected_clients $before
        assert_equal [r ping] PONG
        r config set client-output-buffer-limit "normal 0 0 0"
        r del big
    } {} {needs:config}

    test {A normal client over its soft limit for too long is disconnected} {
        r config set client-output-buffer-limit "normal 0 500kb 1"
        r set big [string repeat x 100000]
        set before [s connected_clients]
        set s [pipeline_gets big 200]
        # The replies exceed the soft limit at once, but the client is only
        # closed after staying over it for more than a second.
        after 300
        assert_equal [s connected_clients] [expr {$before + 1}] "still connected at 300 ms"
        wait_for_condition 50 100 {[s connected_clients] == $before} else {
            fail "client over the soft limit was not closed"
        }
        lassign [raw_drain $s 5000] bytes closed
        raw_close $s
        assert_equal $closed 1
        assert_lessthan $bytes [expr {200 * 100000}]
        r config set client-output-buffer-limit "normal 0 0 0"
        r del big
    } {} {needs:config slow}

    tags {pubsub} {
        test {A subscriber that does not read is dropped at the pubsub limit} {
            r config set client-output-buffer-limit "pubsub 200kb 0 0"
            set rd [redis_deferring_client]
            $rd subscribe slowchan
            assert_equal [$rd read] {subscribe slowchan 1}
            set payload [string repeat x 10000]
            set receivers {}
            for {set i 0} {$i < 2000} {incr i} {
                set n [r publish slowchan $payload]
                lappend receivers $n
                if {$n == 0} break
            }
            assert_equal [lindex $receivers 0] 1
            assert_equal [lindex $receivers end] 0 "subscriber dropped"
            assert_equal [r pubsub numsub slowchan] {slowchan 0}
            catch {$rd close}
            r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
        } {} {needs:config}
    }

    test {Clients that vanish in the middle of a big reply} {
        r set big [string repeat x 1000000]
        set before [s connected_clients]
        for {set i 0} {$i < 20} {incr i} {
            set s [pipeline_gets big 10]
            raw_close $s
        }
        wait_for_connected_clients $before
        assert_equal [r strlen big] 1000000
        assert_equal [r ping] PONG
        r del big
    }

    test {A blocked client that disconnects does not take the pushed element} {
        set rd [redis_deferring_client]
        $rd blpop blocked:list 0
        wait_for_blocked_client
        $rd close
        wait_for_blocked_clients_count 0
        r rpush blocked:list a
        assert_equal [r lrange blocked:list 0 -1] {a}
        r del blocked:list
    }

    test {Many clients disconnecting at once leave the server healthy} {
        set before [s connected_clients]
        set socks {}
        for {set i 0} {$i < 100} {incr i} {
            set s [raw_connect]
            raw_write $s "SELECT [srv db]\r\n*3\r\n\$3\r\nSET\r\n\$4\r\nmany\r\n\$[string length $i]\r\n$i\r\n"
            lappend socks $s
        }
        foreach s $socks {raw_close $s}
        wait_for_connected_clients $before
        assert_match {[0-9]*} [r get many]
        assert_equal [r ping] PONG
    }
}
