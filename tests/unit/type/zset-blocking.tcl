# Blocking sorted-set pops: BZPOPMIN BZPOPMAX BZMPOP. Served at once when a key holds a sorted
# set, else waiting in FIFO order per key until a write gives one of the keys members (served
# after the writing command or EXEC completes), a timeout (nil: *-1 in RESP2, _ in RESP3), or
# CLIENT UNBLOCK. A waiter stays blocked while its key holds another type; inside MULTI nothing
# blocks.
#
# Waiters are deferring clients; every wait is bounded (wait_for_blocked_clients_count, and the
# deferring clients' read timeout).

proc zb_client {{proto 2}} {
    set c [redis_deferring_client]
    $c timeout 5000
    if {$proto == 3} {
        $c hello 3
        $c read
    }
    return $c
}

start_server {tags {zset-blocking}} {
    foreach enc {listpack skiplist} {
        r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 128 : 0}]

        test "BZPOPMIN and BZPOPMAX on a non-empty key are served at once ($enc)" {
            r del z
            r zadd z 1 a 2 b 3 c
            assert_encoding $enc z
            assert_equal {z a 1} [r bzpopmin z 0]
            assert_equal {z c 3} [r bzpopmax z 0]
            assert_equal {z b 2} [r bzpopmin nokey z 1]
            assert_equal 0 [r exists z]
        }

        test "BZMPOP on a non-empty key is served at once ($enc)" {
            r del z1 z2
            r zadd z2 1 a 2 b 3 c
            assert_equal {z2 {{a 1}}} [r bzmpop 0 2 z1 z2 min]
            assert_equal {z2 {{c 3} {b 2}}} [r bzmpop 0 2 z1 z2 max count 10]
            assert_equal 0 [r exists z2]
        }

        test "BZPOPMIN blocks until another client adds a member ($enc)" {
            r del z
            set rd [zb_client]
            $rd bzpopmin z 0
            wait_for_blocked_clients_count 1
            assert_equal 3 [r zadd z 2 b 1 a 3 c]
            assert_equal {z a 1} [$rd read]
            assert_equal {b c} [r zrange z 0 -1]
            wait_for_blocked_clients_count 0
            $rd close
        }

        test "BZPOPMAX on several keys is served by the first that gets a member ($enc)" {
            r del k1 k2 k3
            set rd [zb_client]
            $rd bzpopmax k1 k2 k3 0
            wait_for_blocked_clients_count 1
            r zadd k3 5 x 7 y
            assert_equal {k3 y 7} [$rd read]
            assert_equal {x} [r zrange k3 0 -1]
            $rd close
        }

        test "BZMPOP blocks and pops up to COUNT members when served ($enc)" {
            r del z
            set rd [zb_client]
            $rd bzmpop 0 2 nokey z max count 2
            wait_for_blocked_clients_count 1
            r zadd z 1 a 2 b 3 c
            assert_equal {z {{c 3} {b 2}}} [$rd read]
            assert_equal {a} [r zrange z 0 -1]
            $rd bzmpop 0 1 z2 min count 10
            wait_for_blocked_clients_count 1
            r zadd z2 1 a 2 b
            assert_equal {z2 {{a 1} {b 2}}} [$rd read]
            assert_equal 0 [r exists z2]
            $rd close
        }
    }
    r config set zset-max-listpack-entries 128

    test {Waiters on one key are served in the order they blocked} {
        r del z
        set clients {}
        for {set i 0} {$i < 3} {incr i} {
            set rd [zb_client]
            if {$i == 1} {
                $rd bzmpop 0 1 z min
            } else {
                $rd bzpopmin z 0
            }
            wait_for_blocked_clients_count [expr {$i + 1}]
            lappend clients $rd
        }
        r zadd z 1 one 2 two 3 three
        assert_equal {z one 1} [[lindex $clients 0] read]
        assert_equal {z {{two 2}}} [[lindex $clients 1] read]
        assert_equal {z three 3} [[lindex $clients 2] read]
        assert_equal 0 [r exists z]
        foreach rd $clients {$rd close}
    }

    test {A waiter that is not served stays blocked: one member for two waiters} {
        r del z
        set a [zb_client]
        set b [zb_client]
        $a bzpopmin z 0
        wait_for_blocked_clients_count 1
        $b bzpopmax z 0
        wait_for_blocked_clients_count 2
        r zadd z 1 only
        assert_equal {z only 1} [$a read]
        wait_for_blocked_clients_count 1
        r zadd z 9 next
        assert_equal {z next 9} [$b read]
        $a close
        $b close
    }

    test {The timeout replies nil, in RESP2 and RESP3} {
        r del z
        set rd [zb_client]
        $rd bzpopmin z 0.01
        assert_equal {} [$rd read]
        $rd bzmpop 0.01 1 z min
        assert_equal {} [$rd read]
        $rd readraw 1
        $rd bzpopmax z 0.01
        assert_equal {*-1} [$rd read]
        $rd close
        set rd [zb_client 3]
        $rd readraw 1
        $rd bzpopmin z 0.01
        assert_equal {_} [$rd read]
        $rd bzmpop 0.01 1 z max count 3
        assert_equal {_} [$rd read]
        $rd close
    }

    test {Served replies in RESP3 carry scores as doubles} {
        r del z
        set rd [zb_client 3]
        $rd readraw 1
        $rd bzpopmin z 0
        wait_for_blocked_clients_count 1
        r zadd z 1.5 a
        assert_equal {*3} [$rd read]
        assert_equal {$1} [$rd read]
        assert_equal {z} [$rd read]
        assert_equal {$1} [$rd read]
        assert_equal {a} [$rd read]
        assert_equal {,1.5} [$rd read]
        $rd close
    }

    test {Inside MULTI BZPOPMIN and BZMPOP do not block} {
        r del z
        r multi
        r bzpopmin z 0
        r bzmpop 0 1 z min
        r zadd z 1 a
        r bzpopmax z 0
        assert_equal {{} {} 1 {z a 1}} [r exec]
        assert_equal 0 [r exists z]
    }

    test {A member added by MULTI/EXEC is served after EXEC} {
        r del z
        set rd [zb_client]
        $rd bzpopmin z 0
        wait_for_blocked_clients_count 1
        r multi
        r zadd z 1 a 2 b
        r zrem z a
        r zcard z
        assert_equal {2 1 1} [r exec]
        assert_equal {z b 2} [$rd read]
        assert_equal 0 [r exists z]
        $rd close
    }

    test {A *STORE into the key serves the waiter} {
        r del z src
        r zadd src 1 a 2 b
        set rd [zb_client]
        $rd bzpopmax z 0
        wait_for_blocked_clients_count 1
        assert_equal 2 [r zunionstore z 1 src]
        assert_equal {z b 2} [$rd read]
        $rd close
    }

    test {A waiter stays blocked while its key holds another type} {
        r del z
        set rd [zb_client]
        $rd bzpopmin z 0
        wait_for_blocked_clients_count 1
        r set z string
        r del z
        r sadd z member
        assert_equal 1 [s blocked_clients]
        r del z
        r zadd z 4 d
        assert_equal {z d 4} [$rd read]
        $rd close
    }

    test {CLIENT UNBLOCK ends a wait with nil, or with the UNBLOCKED error} {
        r del z
        set rd [zb_client]
        $rd client id
        set id [$rd read]
        $rd bzpopmin z 0
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd bzmpop 0 1 z min
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id error]
        assert_error {UNBLOCKED*} {$rd read}
        assert_equal 0 [r client unblock $id]
        $rd close
    }

    test {Errors: timeout, numkeys, WRONGTYPE and arity} {
        r del z str
        r set str x
        assert_error {ERR timeout is negative} {r bzpopmin z -1}
        assert_error {ERR timeout is not a float or out of range} {r bzpopmin z x}
        assert_error {ERR timeout is not a float or out of range} {r bzpopmax z 0 x}
        assert_error {ERR timeout is negative} {r bzmpop -1 1 z min}
        assert_error {ERR timeout is not a float or out of range} {r bzmpop x 1 z min}
        assert_error {ERR numkeys should be greater than 0} {r bzmpop 0 0 z min}
        assert_error {ERR syntax error} {r bzmpop 0 2 z min}
        assert_error {ERR syntax error} {r bzmpop 0 1 z foo}
        assert_error {ERR count should be greater than 0} {r bzmpop 0 1 z min count 0}
        # BZMPOP checks its timeout after the rest, BZPOPMIN before its keys.
        assert_error {ERR numkeys should be greater than 0} {r bzmpop -inf 1e309 "" MIN}
        assert_error {ERR syntax error} {r bzmpop -1 1 z foo}
        assert_error {ERR count should be greater than 0} {r bzmpop x 1 z min count 0}
        assert_error {ERR timeout is negative} {r bzpopmin str -1}
        assert_error {WRONGTYPE*} {r bzpopmin str 0}
        assert_error {WRONGTYPE*} {r bzpopmax nokey str 0}
        assert_error {WRONGTYPE*} {r bzmpop 0 2 nokey str min}
        assert_error {ERR wrong number of arguments for 'bzpopmin' command} {r bzpopmin z}
        assert_error {ERR wrong number of arguments for 'bzmpop' command} {r bzmpop 0 1 z}
        assert_equal 0 [s blocked_clients]
    }

    test {MULTI/WATCH is invalidated when a waiter is served} {
        r del z
        set rd [zb_client]
        $rd bzpopmin z 0
        wait_for_blocked_clients_count 1
        r zadd z 1 a 2 b
        assert_equal {z a 1} [$rd read]
        r watch z
        $rd bzpopmin z 0
        assert_equal {z b 2} [$rd read]
        r multi
        r ping
        assert_equal {} [r exec]
        $rd close
    }

    test {A served waiter leaves its other keys' queues} {
        r del k1 k2
        set a [zb_client]
        set b [zb_client]
        $a bzpopmin k1 k2 0
        wait_for_blocked_clients_count 1
        $b bzpopmin k2 0
        wait_for_blocked_clients_count 2
        r zadd k1 1 x
        assert_equal {k1 x 1} [$a read]
        r zadd k2 2 y
        assert_equal {k2 y 2} [$b read]
        $a close
        $b close
    }

    test {FLUSHALL leaves waiters waiting} {
        r del z
        set rd [zb_client]
        $rd bzpopmin z 0
        wait_for_blocked_clients_count 1
        r flushall
        assert_equal 1 [s blocked_clients]
        r zadd z 3 c
        assert_equal {z c 3} [$rd read]
        $rd close
    }
}

start_server {tags {zset-blocking redistp}} {
    test {WATCHEX sees a sorted set emptied by a served waiter} {
        r del wz
        set w [redis_client]
        assert_equal NOEXIST [$w watchex wz]
        set rd [zb_client]
        $rd bzpopmin wz 0
        wait_for_blocked_clients_count 1
        r zadd wz 1 a
        assert_equal {wz a 1} [$rd read]
        assert_equal {watchex wz ADD} [$w read]
        assert_equal {watchex wz DEL} [$w read]
        $rd close
        $w close
    }
}
