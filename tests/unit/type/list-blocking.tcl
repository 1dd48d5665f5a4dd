# Blocking list commands: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP. Served at once when a list is
# there, else waiting in FIFO order per key until a push (served after the pushing command or
# EXEC completes), a timeout (null array, "_" in RESP3), or CLIENT UNBLOCK. BLMOVE chains drain
# in one round; a waiter stays blocked when its key is retyped; FLUSHALL leaves waiters waiting;
# SWAPDB serves them if the swapped-in database has their key; inside MULTI nothing blocks.
#
# Waiters are deferring clients; every wait is bounded (wait_for_blocked_clients_count, and the
# deferring clients' read timeout).

proc lb_client {{proto 2}} {
    set c [redis_deferring_client]
    $c timeout 5000
    if {$proto == 3} {
        $c hello 3
        $c read
    }
    return $c
}

start_server {tags {list-blocking}} {
    test {BLPOP and BRPOP on a non-empty list are served at once} {
        r del l
        r rpush l a b c
        assert_equal {l a} [r blpop l 0]
        assert_equal {l c} [r brpop l 0]
        assert_equal {l b} [r blpop nolist l 1]
        assert_equal 0 [r exists l]
    }

    test {BLPOP takes the first non-empty key in the order given} {
        r del k1 k2 k3
        r rpush k2 two
        r rpush k3 three
        assert_equal {k2 two} [r blpop k1 k2 k3 0]
        assert_equal {k3 three} [r brpop k1 k2 k3 0]
    }

    test {BLPOP blocks until another client pushes} {
        r del l
        set rd [lb_client]
        $rd blpop l 0
        wait_for_blocked_clients_count 1
        assert_equal 1 [r rpush l foo]
        assert_equal {l foo} [$rd read]
        assert_equal 0 [r exists l]
        wait_for_blocked_clients_count 0
        $rd close
    }

    test {A waiter is served after the push completes: RPUSH replies the length it made} {
        r del l
        set rd [lb_client]
        $rd brpop l 0
        wait_for_blocked_clients_count 1
        assert_equal 3 [r rpush l a b c]
        assert_equal {l c} [$rd read]
        assert_equal {a b} [r lrange l 0 -1]
        $rd close
    }

    test {Waiters on one key are served in the order they blocked} {
        r del l
        set clients {}
        for {set i 0} {$i < 3} {incr i} {
            set rd [lb_client]
            $rd blpop l 0
            wait_for_blocked_clients_count [expr {$i + 1}]
            lappend clients $rd
        }
        r rpush l one two three
        assert_equal {l one} [[lindex $clients 0] read]
        assert_equal {l two} [[lindex $clients 1] read]
        assert_equal {l three} [[lindex $clients 2] read]
        foreach rd $clients {$rd close}
    }

    test {FIFO holds across different blocking commands on one key} {
        r del l dst
        set a [lb_client]
        set b [lb_client]
        set c [lb_client]
        $a brpop l 0
        wait_for_blocked_clients_count 1
        $b blmpop 0 1 l left count 2
        wait_for_blocked_clients_count 2
        $c blmove l dst left left 0
        wait_for_blocked_clients_count 3
        r rpush l 1 2 3 4
        assert_equal {l 4} [$a read]
        assert_equal {l {1 2}} [$b read]
        assert_equal 3 [$c read]
        assert_equal {3} [r lrange dst 0 -1]
        assert_equal 0 [r exists l]
        foreach rd [list $a $b $c] {$rd close}
    }

    test {A client blocked on several keys is served once, by the first key pushed} {
        r del k1 k2
        set rd [lb_client]
        $rd blpop k1 k2 0
        wait_for_blocked_clients_count 1
        r rpush k2 x
        assert_equal {k2 x} [$rd read]
        r rpush k1 y
        assert_equal {y} [r lrange k1 0 -1]
        wait_for_blocked_clients_count 0
        $rd close
    }

    test {BLPOP timeout replies a null array, "_" in RESP3} {
        r del l
        set rd [lb_client]
        $rd readraw 1
        $rd blpop l 0.01
        assert_equal {*-1} [$rd read]
        $rd close
        set rd [lb_client 3]
        $rd readraw 1
        $rd brpop l 0.01
        assert_equal {_} [$rd read]
        $rd blmove l x left left 0.01
        assert_equal {_} [$rd read]
        $rd close
    }

    test {Every blocking list command times out with a null array} {
        r del l
        set rd [lb_client]
        $rd readraw 1
        foreach cmd {{brpop l 0.01} {blmove l x left right 0.01} {brpoplpush l x 0.01}
                     {blmpop 0.01 1 l right}} {
            $rd {*}$cmd
            assert_equal {*-1} [$rd read]
        }
        $rd close
    }

    test {Timeout errors} {
        assert_error {ERR timeout is negative} {r blpop l -1}
        assert_error {ERR timeout is not a float or out of range} {r blpop l x}
        assert_error {ERR timeout is negative} {r blmove l d left left -0.5}
        assert_error {ERR timeout is not a float or out of range} {r brpoplpush l d abc}
        assert_error {ERR timeout is negative} {r blmpop -1 1 l left}
        assert_error {ERR syntax error} {r blmove l d up left 0}
        assert_error {ERR numkeys should be greater than 0} {r blmpop 0 0 l left}
        assert_error {ERR count should be greater than 0} {r blmpop 0 1 l left count 0}
    }

    test {Timeouts as Redis 7.0 computes them: overflowing milliseconds are negative} {
        foreach t {1e16 inf -inf 1.7976931348623157e308} {
            assert_error {ERR timeout is negative} {r blpop l $t}
        }
        assert_error {ERR timeout is not a float or out of range} {r blpop l nan}
        # Above -1 ms the milliseconds truncate to 0: wait forever.
        r del l
        set rd [lb_client]
        $rd client id
        set id [$rd read]
        $rd blpop l -0.0001
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd close
    }

    test {Blocking commands on a key of another type reply WRONGTYPE} {
        r del s l
        r set s x
        assert_error {WRONGTYPE*} {r blpop s 0}
        assert_error {WRONGTYPE*} {r blpop nolist s 0}
        assert_error {WRONGTYPE*} {r blmove s d left left 0}
        assert_error {WRONGTYPE*} {r brpoplpush s d 0}
        assert_error {WRONGTYPE*} {r blmpop 0 2 nolist s left}
        r rpush l a
        assert_equal {l a} [r blpop l s 0]
    }

    test {Inside MULTI nothing blocks: empty lists reply as the non-blocking forms} {
        r del l
        r multi
        r blpop l 0
        r brpop l 0
        r blmove l d left left 0
        r brpoplpush l d 0
        r blmpop 0 1 l left
        assert_equal {{} {} {} {} {}} [r exec]
        set rd [lb_client]
        $rd readraw 1
        $rd multi
        $rd read
        foreach cmd {{blpop l 0} {blmove l d left left 0} {blmpop 0 1 l left}} {
            $rd {*}$cmd
            $rd read
        }
        $rd exec
        assert_equal {*3} [$rd read]
        assert_equal {*-1} [$rd read]
        assert_equal {$-1} [$rd read]
        assert_equal {*-1} [$rd read]
        $rd close
    }

    test {A push inside MULTI serves the waiter after EXEC, with what EXEC left} {
        r del l
        set rd [lb_client]
        $rd blpop l 0
        wait_for_blocked_clients_count 1
        r multi
        r rpush l a
        r lpop l
        r rpush l b c
        assert_equal {1 a 2} [r exec]
        assert_equal {l b} [$rd read]
        assert_equal {c} [r lrange l 0 -1]
        $rd close
    }

    test {A push and a pop in one EXEC leave the waiter blocked} {
        r del l
        set rd [lb_client]
        $rd blpop l 0
        wait_for_blocked_clients_count 1
        r multi
        r rpush l a
        r rpop l
        r exec
        assert_equal 1 [s blocked_clients]
        r rpush l z
        assert_equal {l z} [$rd read]
        $rd close
    }

    test {BLMOVE and BRPOPLPUSH are served by a push to their source} {
        r del src dst
        set rd [lb_client]
        $rd blmove src dst right left 0
        wait_for_blocked_clients_count 1
        r rpush src a b
        assert_equal b [$rd read]
        assert_equal {a} [r lrange src 0 -1]
        assert_equal {b} [r lrange dst 0 -1]
        r del src
        $rd brpoplpush src dst 0
        wait_for_blocked_clients_count 1
        r lpush src x
        assert_equal x [$rd read]
        assert_equal {x b} [r lrange dst 0 -1]
        assert_equal 0 [r exists src]
        $rd close
    }

    test {BLMOVE with source and destination the same list} {
        r del l
        set rd [lb_client]
        $rd blmove l l left right 0
        wait_for_blocked_clients_count 1
        r rpush l a
        assert_equal a [$rd read]
        assert_equal {a} [r lrange l 0 -1]
        $rd close
    }

    test {A BLMOVE chain drains in one round} {
        r del c1 c2 c3 c4
        set w1 [lb_client]
        set w2 [lb_client]
        set w3 [lb_client]
        $w1 blpop c4 0
        wait_for_blocked_clients_count 1
        $w2 blmove c3 c4 left right 0
        wait_for_blocked_clients_count 2
        $w3 brpoplpush c2 c3 0
        wait_for_blocked_clients_count 3
        r rpush c2 item
        assert_equal item [$w3 read]
        assert_equal item [$w2 read]
        assert_equal {c4 item} [$w1 read]
        foreach k {c2 c3 c4} {assert_equal 0 [r exists $k]}
        foreach rd [list $w1 $w2 $w3] {$rd close}
    }

    test {A served BLMOVE whose destination holds another type gets WRONGTYPE} {
        r del src dstr
        r set dstr x
        set rd [lb_client]
        $rd blmove src dstr left left 0
        wait_for_blocked_clients_count 1
        r rpush src a b
        assert_error {WRONGTYPE*} {$rd read}
        assert_equal {a b} [r lrange src 0 -1]
        assert_equal x [r get dstr]
        wait_for_blocked_clients_count 0
        $rd close
    }

    test {BLMPOP is served with up to COUNT elements, from either end} {
        r del m1 m2
        set rd [lb_client]
        $rd blmpop 0 2 m1 m2 right count 3
        wait_for_blocked_clients_count 1
        r rpush m2 a b
        assert_equal {m2 {b a}} [$rd read]
        assert_equal 0 [r exists m2]
        $rd blmpop 0 2 m1 m2 left
        wait_for_blocked_clients_count 1
        r rpush m1 x y
        assert_equal {m1 x} [$rd read]
        assert_equal {y} [r lrange m1 0 -1]
        $rd close
    }

    test {A waiter stays blocked while its key holds another type} {
        r del l
        set rd [lb_client]
        $rd blpop l 0
        wait_for_blocked_clients_count 1
        r set l string
        assert_equal 1 [s blocked_clients]
        r append l more
        assert_equal 1 [s blocked_clients]
        r del l
        r rpush l v
        assert_equal {l v} [$rd read]
        $rd close
    }

    test {Blocked clients show in INFO and in CLIENT LIST with the b flag} {
        r del l
        set rd [lb_client]
        $rd client id
        set id [$rd read]
        $rd blpop l 0
        wait_for_blocked_clients_count 1
        assert_match {*flags=b *} [r client list id $id]
        r rpush l v
        assert_equal {l v} [$rd read]
        wait_for_blocked_clients_count 0
        assert_match {*flags=N *} [r client list id $id]
        $rd close
    }

    test {CLIENT UNBLOCK ends a list wait with a timeout reply or an error} {
        r del l
        set rd [lb_client]
        $rd client id
        set id [$rd read]
        $rd blpop l 0
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd blmove l d left left 0
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id error]
        assert_error {UNBLOCKED client unblocked via CLIENT UNBLOCK} {$rd read}
        assert_equal 0 [r client unblock $id]
        $rd close
    }

    test {Commands pipelined behind a blocked BLPOP run after it is served} {
        r del l
        set rd [lb_client]
        $rd blpop l 0
        $rd ping
        wait_for_blocked_clients_count 1
        r rpush l v
        assert_equal {l v} [$rd read]
        assert_equal PONG [$rd read]
        $rd close
    }

    test {A wait survives FLUSHALL} {
        r del l
        set rd [lb_client]
        $rd blpop l 0
        wait_for_blocked_clients_count 1
        r flushall
        assert_equal 1 [s blocked_clients]
        r rpush l after
        assert_equal {l after} [$rd read]
        $rd close
    }

    test {After SWAPDB a waiter is served if the swapped-in database has its key} {
        r select 9
        r flushall
        set rd [lb_client]
        $rd select 9
        $rd read
        $rd blpop sk 0
        wait_for_blocked_clients_count 1
        r select 10
        r rpush sk x
        r swapdb 9 10
        assert_equal {sk x} [$rd read]
        r select 9
        assert_equal 0 [r exists sk]
        $rd blpop sk2 0
        wait_for_blocked_clients_count 1
        r select 10
        r set sk2 str
        r swapdb 9 10
        assert_equal 1 [s blocked_clients]
        r select 9
        r del sk2
        r rpush sk2 y
        assert_equal {sk2 y} [$rd read]
        $rd close
        r select 9
    }

    test {A waiter that disconnects leaves the queue} {
        r del l
        set gone [lb_client]
        $gone blpop l 0
        wait_for_blocked_clients_count 1
        set rd [lb_client]
        $rd blpop l 0
        wait_for_blocked_clients_count 2
        $gone close
        wait_for_blocked_clients_count 1
        r rpush l v
        assert_equal {l v} [$rd read]
        $rd close
    }

    test {Served waiters in RESP3 get arrays; BLMPOP's elements nest} {
        r del l
        set rd [lb_client 3]
        $rd readraw 1
        $rd blmpop 0 1 l left count 2
        wait_for_blocked_clients_count 1
        r rpush l a b c
        assert_equal {*2} [$rd read]
        assert_equal {$1} [$rd read]
        assert_equal {l} [$rd read]
        assert_equal {*2} [$rd read]
        $rd close
    }
}
