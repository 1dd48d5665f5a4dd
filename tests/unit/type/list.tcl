# Lists: pushes and pops at both ends (with counts), reads by index and range, edits in the
# middle (LSET LINSERT LREM LTRIM), LPOS, LMOVE/RPOPLPUSH, LMPOP; Redis 7.0's null forms in
# RESP2 and RESP3, its error texts, WRONGTYPE, the quicklist encoding and its node settings,
# deletion of an emptied list, and MULTI/WATCH invalidation. Blocking forms: list-blocking.tcl.

# The raw first line of a reply, read on a fresh connection speaking RESP `proto`
# ("*-1", "$-1", "_", "*0" ...): how the null forms are told apart.
proc list_raw_reply {proto args} {
    set c [redis_client]
    if {$proto == 3} {$c hello 3}
    $c readraw 1
    $c deferred 1
    $c {*}$args
    set line [$c read]
    $c close
    return $line
}

start_server {tags {list}} {
    test {LPUSH and RPUSH return the new length and keep the order} {
        r del l
        assert_equal 3 [r rpush l a b c]
        assert_equal 5 [r lpush l y x]
        assert_equal {x y a b c} [r lrange l 0 -1]
        assert_equal 5 [r llen l]
        assert_type list l
    }

    test {Integers and long strings survive a push and read back as text} {
        r del l
        set big [string repeat z 5000]
        r rpush l 1 -1 0 9223372036854775807 -9223372036854775808 12345678901 007 $big
        assert_equal [list 1 -1 0 9223372036854775807 -9223372036854775808 12345678901 007 $big] \
            [r lrange l 0 -1]
        assert_equal 007 [r lindex l 6]
    }

    test {LPUSHX and RPUSHX push only onto an existing list} {
        r del l nolist
        assert_equal 0 [r lpushx nolist a b]
        assert_equal 0 [r rpushx nolist a]
        assert_equal 0 [r exists nolist]
        r rpush l m
        assert_equal 3 [r lpushx l b a]
        assert_equal 5 [r rpushx l y z]
        assert_equal {a b m y z} [r lrange l 0 -1]
    }

    test {LRANGE clamps its indexes like Redis} {
        r del l
        r rpush l 0 1 2 3 4 5 6 7 8 9
        assert_equal {7 8 9} [r lrange l -3 -1]
        assert_equal {0 1 2} [r lrange l -100 2]
        assert_equal {8 9} [r lrange l 8 100]
        assert_equal {} [r lrange l 5 2]
        assert_equal {} [r lrange l 10 20]
        assert_equal {} [r lrange l -1 -2]
        assert_equal {} [r lrange nolist 0 -1]
        assert_error {ERR value is not an integer*} {r lrange l x 1}
        assert_error {ERR value is not an integer*} {r lrange l 0 1.5}
    }

    test {LINDEX from both ends and out of range} {
        r del l
        r rpush l a b c
        assert_equal a [r lindex l 0]
        assert_equal c [r lindex l -1]
        assert_equal b [r lindex l -2]
        assert_equal {} [r lindex l 3]
        assert_equal {} [r lindex l -4]
        assert_equal {} [r lindex nolist 0]
        assert_error {ERR value is not an integer*} {r lindex l x}
        # The key is looked up first: a missing key is null whatever the index.
        assert_equal {} [r lindex nolist x]
        assert_equal {} [r lindex nolist -0]
    }

    test {LPOP and RPOP one element, and the list disappears when emptied} {
        r del l
        r rpush l a b c
        assert_equal a [r lpop l]
        assert_equal c [r rpop l]
        assert_equal b [r lpop l]
        assert_equal 0 [r exists l]
        assert_equal {} [r lpop l]
        assert_equal {} [r rpop l]
    }

    test {LPOP and RPOP with a count} {
        r del l
        r rpush l a b c d e f
        assert_equal {a b} [r lpop l 2]
        assert_equal {f e} [r rpop l 2]
        assert_equal {} [r lpop l 0]
        assert_equal {c d} [r lpop l 100]
        assert_equal 0 [r exists l]
        r rpush l x
        assert_equal {x} [r rpop l 1]
    }

    test {LPOP count errors} {
        r del l
        r rpush l a
        assert_error {ERR value is out of range, must be positive} {r lpop l -1}
        assert_error {ERR value is out of range, must be positive} {r rpop l x}
        assert_error {ERR wrong number of arguments for 'lpop' command} {r lpop l 1 2}
        assert_equal {a} [r lrange l 0 -1]
    }

    foreach proto {2 3} {
        test "LPOP null forms in RESP$proto" {
            r del l nolist
            r rpush l a
            set null [expr {$proto == 3 ? "_" : {$-1}}]
            set nullarray [expr {$proto == 3 ? "_" : "*-1"}]
            assert_equal $null [list_raw_reply $proto lpop nolist]
            assert_equal $nullarray [list_raw_reply $proto lpop nolist 1]
            assert_equal $nullarray [list_raw_reply $proto rpop nolist 0]
            assert_equal {*0} [list_raw_reply $proto lpop l 0]
            assert_equal {*1} [list_raw_reply $proto lpop l 5]
            assert_equal $null [list_raw_reply $proto lindex nolist 0]
            assert_equal {*0} [list_raw_reply $proto lrange nolist 0 -1]
        }
    }

    test {List commands against a key of another type} {
        r del s
        r set s x
        foreach cmd {{lpush s a} {rpush s a} {lpushx s a} {rpushx s a} {lpop s} {rpop s 0}
                     {llen s} {lindex s 0} {lrange s 0 -1}} {
            assert_error {WRONGTYPE*} {r {*}$cmd}
        }
        assert_equal x [r get s]
    }

    test {Lists are quicklists whatever their size, as in Redis 7.0} {
        r del l
        r rpush l a
        assert_encoding quicklist l
        for {set i 0} {$i < 300} {incr i} {r rpush l [string repeat x 100]}
        assert_encoding quicklist l
        assert_equal 301 [r llen l]
    }

    test {LPUSH of many elements in one call} {
        r del l
        set args {}
        for {set i 0} {$i < 2000} {incr i} {lappend args $i}
        assert_equal 2000 [r lpush l {*}$args]
        assert_equal 1999 [r lindex l 0]
        assert_equal 0 [r lindex l -1]
        assert_equal 1000 [r lindex l 999]
        assert_equal {1001 1000 999} [r lrange l 998 1000]
    }

    foreach {fill depth} {-2 0 5 1 1 0 -1 2} {
        test "Reads and pops agree with a model (fill $fill, compress depth $depth)" {
            r config set list-max-listpack-size $fill
            r config set list-compress-depth $depth
            r del l
            set model {}
            for {set i 0} {$i < 400} {incr i} {
                set v "v$i[string repeat . [expr {$i % 37}]]"
                if {$i % 3 == 0} {
                    r lpush l $v
                    set model [linsert $model 0 $v]
                } else {
                    r rpush l $v
                    lappend model $v
                }
            }
            assert_equal $model [r lrange l 0 -1]
            foreach idx {0 1 50 199 200 398 399 -1 -2 -200} {
                assert_equal [lindex $model [expr {$idx < 0 ? [llength $model] + $idx : $idx}]] \
                    [r lindex l $idx]
            }
            assert_equal [lrange $model 0 9] [r lpop l 10]
            set model [lrange $model 10 end]
            assert_equal [lreverse [lrange $model end-9 end]] [r rpop l 10]
            set model [lrange $model 0 end-10]
            assert_equal $model [r lrange l 0 -1]
            assert_equal [lrange $model 100 150] [r lrange l 100 150]
        }
    }
    r config set list-max-listpack-size -2
    r config set list-compress-depth 0

    test {LSET replaces by index from either end} {
        r del l
        r rpush l a b c
        assert_equal OK [r lset l 0 x]
        assert_equal OK [r lset l -1 z]
        assert_equal OK [r lset l 1 12345]
        assert_equal {x 12345 z} [r lrange l 0 -1]
    }

    test {LSET errors: missing key first, then the index} {
        r del l nolist
        r rpush l a
        assert_error {ERR no such key} {r lset nolist 0 x}
        assert_error {ERR no such key} {r lset nolist x x}
        assert_error {ERR index out of range} {r lset l 1 x}
        assert_error {ERR index out of range} {r lset l -2 x}
        assert_error {ERR value is not an integer*} {r lset l x x}
        assert_equal {a} [r lrange l 0 -1]
    }

    test {LINSERT before and after the first pivot, -1 and 0 when nothing to do} {
        r del l nolist
        r rpush l a b a
        assert_equal 4 [r linsert l before a x]
        assert_equal 5 [r linsert l AFTER a y]
        assert_equal {x a y b a} [r lrange l 0 -1]
        assert_equal -1 [r linsert l before nope z]
        assert_equal 0 [r linsert nolist before a z]
        assert_equal 0 [r exists nolist]
        assert_error {ERR syntax error} {r linsert l middle a z}
        assert_error {ERR wrong number of arguments*} {r linsert l before a}
    }

    test {LREM from the head, from the tail and all} {
        r del l
        r rpush l a b a c a b a
        assert_equal 2 [r lrem l 2 a]
        assert_equal {b c a b a} [r lrange l 0 -1]
        assert_equal 1 [r lrem l -1 b]
        assert_equal {b c a a} [r lrange l 0 -1]
        assert_equal 2 [r lrem l 0 a]
        assert_equal {b c} [r lrange l 0 -1]
        assert_equal 0 [r lrem l 0 zz]
        assert_equal 0 [r lrem nolist 0 a]
    }

    test {LREM compares integers by their text} {
        r del l
        r rpush l 1 01 1 10 1
        assert_equal 3 [r lrem l 0 1]
        assert_equal {01 10} [r lrange l 0 -1]
        assert_error {ERR value is not an integer*} {r lrem l x 1}
    }

    test {LREM that empties the list deletes the key} {
        r del l
        r rpush l a a a
        assert_equal 3 [r lrem l -5 a]
        assert_equal 0 [r exists l]
    }

    test {LTRIM keeps a range and deletes the key on an empty range} {
        r del l
        r rpush l 0 1 2 3 4 5 6 7 8 9
        assert_equal OK [r ltrim l 2 -3]
        assert_equal {2 3 4 5 6 7} [r lrange l 0 -1]
        assert_equal OK [r ltrim l -100 100]
        assert_equal {2 3 4 5 6 7} [r lrange l 0 -1]
        assert_equal OK [r ltrim l 1 1]
        assert_equal {3} [r lrange l 0 -1]
        assert_equal OK [r ltrim l 5 2]
        assert_equal 0 [r exists l]
        assert_equal OK [r ltrim nolist 0 1]
        assert_error {ERR value is not an integer*} {r ltrim l x 1}
    }

    test {LPOS finds the first match, by rank, with count and maxlen} {
        r del l
        r rpush l a b c a b c a
        assert_equal 1 [r lpos l b]
        assert_equal 3 [r lpos l a rank 2]
        assert_equal 6 [r lpos l a rank -1]
        assert_equal 3 [r lpos l a rank -2]
        assert_equal {0 3 6} [r lpos l a count 0]
        assert_equal {6 3} [r lpos l a rank -1 count 2]
        assert_equal {3} [r lpos l a rank 2 count 2 maxlen 4]
        assert_equal {0} [r lpos l a count 0 maxlen 1]
        assert_equal {} [r lpos l a rank 4]
        assert_equal {} [r lpos l zz]
        assert_equal {} [r lpos l zz count 0]
        assert_equal 3 [r lpos l a rank 1 rank 2]
    }

    test {LPOS errors and the missing key} {
        r del l nolist
        r rpush l a
        assert_error {ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list} {r lpos l a rank 0}
        assert_error {ERR value is not an integer*} {r lpos l a rank x}
        assert_error {ERR COUNT can't be negative} {r lpos l a count -1}
        assert_error {ERR COUNT can't be negative} {r lpos l a count x}
        assert_error {ERR MAXLEN can't be negative} {r lpos l a maxlen -1}
        assert_error {ERR syntax error} {r lpos l a foo}
        assert_error {ERR syntax error} {r lpos l a count}
        assert_equal {} [r lpos nolist a]
        assert_equal {} [r lpos nolist a count 0]
        assert_equal {_} [list_raw_reply 3 lpos nolist a]
        assert_equal {*0} [list_raw_reply 3 lpos nolist a count 1]
    }

    test {LPOS takes RANK -9223372036854775808 as -1, as Redis 7.0 does} {
        r del l
        r rpush l a b a
        assert_equal 2 [r lpos l a rank -9223372036854775808]
    }

    test {Edits against a key of another type} {
        r del s
        r set s x
        foreach cmd {{lset s 0 a} {linsert s before a b} {lrem s 0 a} {ltrim s 0 1} {lpos s a}} {
            assert_error {WRONGTYPE*} {r {*}$cmd}
        }
    }

    test {Edits work across quicklist nodes with compression} {
        r config set list-max-listpack-size 4
        r config set list-compress-depth 1
        r del l
        set model {}
        for {set i 0} {$i < 200} {incr i} {
            r rpush l [expr {$i % 7}]
            lappend model [expr {$i % 7}]
        }
        r lset l 100 hundred
        lset model 100 hundred
        r linsert l after hundred new
        set model [linsert $model 101 new]
        assert_equal 29 [r lrem l 0 3]
        set model [lsearch -all -inline -not -exact $model 3]
        r ltrim l 10 -10
        set model [lrange $model 10 end-9]
        assert_equal $model [r lrange l 0 -1]
        assert_equal [lsearch -exact $model new] [r lpos l new]
        r config set list-max-listpack-size -2
        r config set list-compress-depth 0
    }

    test {LINSERT, LREM and LSET that change nothing leave a WATCH alone; LTRIM does not} {
        r del l
        r rpush l a b
        foreach cmd {{linsert l before zz x} {lrem l 0 zz}} {
            r watch l
            r {*}$cmd
            r multi
            r ping
            assert_equal PONG [r exec]
        }
        r watch l
        r ltrim l 0 -1
        r multi
        r ping
        assert_equal {} [r exec]
        r watch l
        r lset l 0 a
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test {LMOVE between lists, all four directions} {
        r del src dst
        r rpush src a b c d
        assert_equal a [r lmove src dst left left]
        assert_equal d [r lmove src dst right right]
        assert_equal b [r lmove src dst LEFT RIGHT]
        assert_equal c [r lmove src dst Right Left]
        assert_equal {c a d b} [r lrange dst 0 -1]
        assert_equal 0 [r exists src]
    }

    test {LMOVE and RPOPLPUSH rotate a list onto itself} {
        r del l
        r rpush l 1 2 3
        assert_equal 3 [r rpoplpush l l]
        assert_equal {3 1 2} [r lrange l 0 -1]
        assert_equal 3 [r lmove l l left right]
        assert_equal {1 2 3} [r lrange l 0 -1]
        assert_equal 1 [r lmove l l left left]
        assert_equal {1 2 3} [r lrange l 0 -1]
        r del one
        r rpush one x
        assert_equal x [r lmove one one right left]
        assert_equal {x} [r lrange one 0 -1]
    }

    test {LMOVE and RPOPLPUSH: missing source, wrong types, syntax} {
        r del src dst s
        r set s x
        assert_equal {} [r lmove src dst left left]
        assert_equal {} [r rpoplpush src dst]
        assert_equal 0 [r exists dst]
        assert_error {WRONGTYPE*} {r lmove s dst left left}
        r rpush src a
        assert_error {WRONGTYPE*} {r lmove src s left left}
        assert_error {WRONGTYPE*} {r rpoplpush src s}
        assert_equal {a} [r lrange src 0 -1]
        assert_error {ERR syntax error} {r lmove src dst up left}
        assert_error {ERR syntax error} {r lmove src dst left down}
        assert_equal {} [r lmove nolist s left left]
    }

    test {RPOPLPUSH creates the destination and keeps integers as text} {
        r del src dst
        r rpush src 12345 -7
        assert_equal -7 [r rpoplpush src dst]
        assert_equal 12345 [r rpoplpush src dst]
        assert_equal {12345 -7} [r lrange dst 0 -1]
    }

    test {LMPOP pops from the first non-empty list} {
        r del m1 m2 m3
        r rpush m2 a b c d
        r rpush m3 z
        assert_equal {m2 a} [r lmpop 3 m1 m2 m3 left]
        assert_equal {m2 {d c}} [r lmpop 3 m1 m2 m3 right count 2]
        assert_equal {m2 b} [r lmpop 2 m2 m3 LEFT COUNT 10]
        assert_equal 0 [r exists m2]
        assert_equal {m3 z} [r lmpop 2 m2 m3 left]
        assert_equal {} [r lmpop 3 m1 m2 m3 left]
    }

    test {LMPOP errors} {
        r del m1 s
        r set s x
        r rpush m1 a
        assert_error {ERR numkeys should be greater than 0} {r lmpop 0 m1 left}
        assert_error {ERR numkeys should be greater than 0} {r lmpop -1 m1 left}
        assert_error {ERR numkeys should be greater than 0} {r lmpop x m1 left}
        assert_error {ERR syntax error} {r lmpop 2 m1 left}
        assert_error {ERR syntax error} {r lmpop 1000000 m1 left}
        assert_error {ERR syntax error} {r lmpop 1 m1 middle}
        assert_error {ERR syntax error} {r lmpop 1 m1 left foo}
        assert_error {ERR syntax error} {r lmpop 1 m1 left count}
        assert_error {ERR syntax error} {r lmpop 1 m1 left count 1 count 2}
        assert_error {ERR count should be greater than 0} {r lmpop 1 m1 left count 0}
        assert_error {ERR count should be greater than 0} {r lmpop 1 m1 left count -1}
        assert_error {ERR count should be greater than 0} {r lmpop 1 m1 left count x}
        assert_error {WRONGTYPE*} {r lmpop 2 nolist s left}
        assert_equal {m1 a} [r lmpop 2 m1 s left]
        assert_error {ERR wrong number of arguments for 'lmpop' command} {r lmpop 1 m1}
    }

    foreach proto {2 3} {
        test "LMPOP and LMOVE null forms in RESP$proto" {
            r del nolist
            set null [expr {$proto == 3 ? "_" : {$-1}}]
            set nullarray [expr {$proto == 3 ? "_" : "*-1"}]
            assert_equal $nullarray [list_raw_reply $proto lmpop 1 nolist left]
            assert_equal $null [list_raw_reply $proto lmove nolist x left left]
            assert_equal $null [list_raw_reply $proto rpoplpush nolist x]
        }
    }

    test {MULTI/WATCH: a push and a pop invalidate a watched list} {
        r del l
        r rpush l a b
        r watch l
        r lpush l x
        r multi
        r ping
        assert_equal {} [r exec]
        r watch l
        r rpop l
        r multi
        r ping
        assert_equal {} [r exec]
        r watch l
        r lpop l 0
        r multi
        r ping
        assert_equal PONG [r exec]
    }
}

# Existence watches (redis-tp's WATCHEX): a list that a push creates sends ADD, one that its
# last pop, LREM, LTRIM, LMOVE or LMPOP empties sends DEL; other edits send nothing.
start_server {tags {list redistp}} {
    proc lw_expect {c key event} {
        assert_equal [list watchex $key $event] [$c read]
    }

    test {WATCHEX sees a list appear on its first push and vanish when emptied} {
        set w [redis_client]
        $w timeout 3000
        $w watchex wl
        r rpush wl a b
        lw_expect $w wl ADD
        r lpush wl c
        r lset wl 0 z
        r linsert wl before z y
        assert_equal PONG [$w ping]
        r lpop wl 2
        r rpop wl
        assert_equal PONG [$w ping]
        r lpop wl
        lw_expect $w wl DEL
        foreach {fill empty} {
            {rpush wl a} {lrem wl 0 a}
            {rpush wl a} {ltrim wl 1 0}
            {rpush wl a} {lmpop 1 wl left}
            {rpush wl a} {lmove wl other left left}
        } {
            r {*}$fill
            lw_expect $w wl ADD
            r {*}$empty
            lw_expect $w wl DEL
        }
        r del other
        $w close
    }

    test {WATCHEX sees a served BLMOVE create its destination and empty its source} {
        set w [redis_client]
        $w timeout 3000
        $w watchex bsrc bdst
        set rd [redis_deferring_client]
        $rd blmove bsrc bdst left left 0
        wait_for_blocked_clients_count 1
        r rpush bsrc v
        assert_equal v [$rd read]
        set got [list [$w read] [$w read] [$w read]]
        assert_equal [list {watchex bsrc ADD} {watchex bdst ADD} {watchex bsrc DEL}] $got
        $rd close
        $w close
    }
}

# LMPOP and BLMPOP take from one list: a replica is told the plain pop with its count.
start_server {tags {list repl external:skip}} {
    test {LMPOP and BLMPOP reach the replication stream as LPOP or RPOP with a count} {
        with_repl_stream rs {
            r rpush l a b c d e
            r lmpop 2 nolist l left count 2
            r lmpop 1 l right
            r blmpop 0 1 l right count 10
            r lmpop 1 l left
            r set marker 1
            assert_repl_stream $rs {
                {select *} {rpush l a b c d e} {lpop l 2} {rpop l 1} {rpop l 2} {set marker 1}
            }
        }
    }

    # A key that expired before a blocked client could be served wakes nobody: the replica is
    # told the transaction, then the expiry's DEL, and never a pop.
    test {A list that expires before its blocked client is served is replicated as a DEL} {
        r debug set-active-expire 0
        with_repl_stream rs {
            set rd [redis_deferring_client]
            $rd blpop expiring 0
            wait_for_blocked_clients_count 1
            r multi
            r lpush expiring a
            r pexpire expiring 100
            r debug sleep 0.2
            r exec
            r set marker 3
            assert_equal 0 [r exists expiring]
            assert_equal 1 [s blocked_clients]
            assert_repl_stream $rs {
                {select *} {multi} {lpush expiring a} {pexpireat expiring *} {exec}
                {del expiring} {set marker 3}
            }
            $rd close
        }
        r debug set-active-expire 1
    } {} {needs:debug}

    # SWAPDB brings a key whose time has passed (not yet deleted) to a blocked client: the
    # client is not served: the check for it deletes the key (the replica gets the DEL) and the
    # client stays blocked.
    test {SWAPDB bringing an expired list to a blocked client serves nobody} {
        r debug set-active-expire 0
        r select 9
        r flushall
        with_repl_stream rs {
            set rd [redis_deferring_client]
            $rd select 9
            $rd read
            $rd blpop swapped 0
            wait_for_blocked_clients_count 1
            r select 11
            r rpush swapped a
            r pexpire swapped 50
            after 100
            r swapdb 9 11
            r select 9
            r set marker 4
            assert_equal 1 [s blocked_clients]
            assert_equal 0 [r exists swapped]
            assert_repl_stream $rs {
                {select 11} {rpush swapped a} {pexpireat swapped *}
                {swapdb 9 11} {select 9} {del swapped} {set marker 4}
            }
            $rd close
        }
        r debug set-active-expire 1
    } {} {needs:debug}

    # The record holds the count popped, not the count asked for.
    test {BLMPOP served after it blocked reaches the stream as the pop it made} {
        with_repl_stream rs {
            set rd [redis_deferring_client]
            $rd blmpop 0 1 bl left count 3
            wait_for_blocked_clients_count 1
            r rpush bl x y
            assert_equal {bl {x y}} [$rd read]
            $rd close
            r set marker 2
            assert_repl_stream $rs {{select *} {rpush bl x y} {lpop bl 2} {set marker 2}}
        }
    }
}
