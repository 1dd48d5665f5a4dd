# Hash-field expiration: HEXPIRE HPEXPIRE HEXPIREAT HPEXPIREAT HTTL HPTTL HEXPIRETIME
# HPEXPIRETIME HPERSIST (Redis 7.4) and HGETDEL HGETEX HSETEX (8.0) — the per-field reply codes
# (-2 no field, 0 condition refused, 1 set, 2 deleted now), NX/XX/GT/LT, errors, RESP3 shapes,
# HSET clearing a field's time and HINCRBY keeping it, lazy and active expiry with the key going
# with its last field, keyspace events, MULTI, the propagated stream (absolute times, HDEL for
# expired fields), a replica, AOF reload and rewrite, RENAME/MOVE/COPY.
#
# Redis 7.0 has none of these commands: every test is tagged redistp.

# Every field name of hash `key`, sorted.
proc hfe_fields {key} { lsort [r hkeys $key] }

start_server {tags {hash hfe redistp}} {
    test {HEXPIRE sets field times and answers one code per field} {
        r del h
        r hset h a 1 b 2 c 3
        assert_equal {1 1 -2} [r hexpire h 100 FIELDS 3 a b nofield]
        set t [r httl h FIELDS 3 a c nofield]
        assert_range [lindex $t 0] 95 100
        assert_equal {-1 -2} [lrange $t 1 2]
        assert_range [lindex [r hpttl h FIELDS 1 b] 0] 95000 100000
        assert_equal 3 [r hlen h]
    }

    test {HEXPIRE family on a missing key: -2 per field, and no key appears} {
        r del nokey
        assert_equal {-2 -2} [r hexpire nokey 10 FIELDS 2 a b]
        assert_equal {-2} [r hpexpireat nokey 1 FIELDS 1 a]
        assert_equal {-2 -2} [r httl nokey FIELDS 2 a b]
        assert_equal {-2} [r hpexpiretime nokey FIELDS 1 a]
        assert_equal {-2} [r hpersist nokey FIELDS 1 a]
        assert_equal 0 [r exists nokey]
    }

    test {HEXPIRE NX XX GT LT, a field without a time counting as infinite} {
        r del h
        r hset h a 1 b 2 c 3 d 4
        assert_equal {1 1} [r hexpire h 100 NX FIELDS 2 a b]
        assert_equal {0 1} [r hexpire h 200 nx FIELDS 2 a c]
        assert_equal {1 0} [r hexpire h 300 XX FIELDS 2 a d]
        # a 300, b 100, c 200, d none: GT never takes a field without a time.
        assert_equal {0 1 0} [r hexpire h 250 GT FIELDS 3 a b d]
        # a 300, b 250: LT always takes a field without a time.
        assert_equal {1 1 1} [r hexpire h 50 LT FIELDS 3 a b d]
        foreach f {a b d} { assert_range [r httl h FIELDS 1 $f] 45 50 }
        assert_range [r httl h FIELDS 1 c] 195 200
    }

    test {HEXPIRE with 0 seconds and HPEXPIREAT in the past delete fields (code 2), then the key} {
        r del h
        r hset h a 1 b 2 c 3
        assert_equal {2 -2} [r hexpire h 0 FIELDS 2 a nofield]
        assert_equal 0 [r hexists h a]
        # The same field twice: deleted the first time, gone the second.
        assert_equal {2 -2} [r hpexpire h 0 FIELDS 2 b b]
        # A condition is checked before the time: NX refuses a field that has one.
        r hexpire h 100 FIELDS 1 c
        assert_equal {0} [r hexpireat h 1 NX FIELDS 1 c]
        assert_equal {2} [r hpexpireat h 1 FIELDS 1 c]
        assert_equal 0 [r exists h]
    }

    test {HEXPIREAT and HPEXPIREAT store the absolute time HEXPIRETIME/HPEXPIRETIME answer} {
        r del h
        r hset h a 1 b 2 c 3
        set at [expr {[clock seconds] + 1000}]
        assert_equal {1} [r hexpireat h $at FIELDS 1 a]
        assert_equal {1} [r hpexpireat h [expr {$at * 1000 + 123}] FIELDS 1 b]
        assert_equal [list $at [expr {$at * 1000 + 123}] -1] \
            [list [r hexpiretime h FIELDS 1 a] [r hpexpiretime h FIELDS 1 b] \
                 [r hexpiretime h FIELDS 1 c]]
        assert_equal [list [expr {$at * 1000}] -1 -2] [r hpexpiretime h FIELDS 3 a c x]
    }

    test {HEXPIRE family errors, in order} {
        r del h s
        r hset h a 1
        r set s v
        assert_error {WRONGTYPE*} {r hexpire s abc FIELDS 1 a}
        assert_error {WRONGTYPE*} {r httl s FIELDS 1 a}
        assert_error {WRONGTYPE*} {r hpersist s FIELDS 1 a}
        assert_error {ERR value is not an integer or out of range} {r hexpire h abc FIELDS 1 a}
        assert_error {ERR invalid expire time, must be >= 0} {r hexpire h -1 FIELDS 1 a}
        assert_error {ERR invalid expire time in 'hpexpireat' command} \
            {r hpexpireat h 281474976710656 FIELDS 1 a}
        assert_error {ERR invalid expire time in 'hexpire' command} \
            {r hexpire h 9223372036854775 FIELDS 1 a}
        assert_error {ERR invalid expire time in 'hpexpire' command} \
            {r hpexpire h 281474976710655 FIELDS 1 a}
        assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} \
            {r hexpire h 10 FOO 1 a}
        assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} \
            {r hexpire h 10 NX XX FIELDS 1 a}
        assert_error {ERR Number of fields must be a positive integer} {r hexpire h 10 FIELDS 0 a}
        assert_error {ERR Number of fields must be a positive integer} {r hexpire h 10 FIELDS x a}
        assert_error {ERR The `numfields` parameter must match the number of arguments} \
            {r hexpire h 10 FIELDS 2 a}
        assert_error {ERR The `numfields` parameter must match the number of arguments} \
            {r hexpire h 10 FIELDS 1 a b}
        assert_error {ERR wrong number of arguments for 'hexpire' command} {r hexpire h 10 FIELDS 1}
        assert_error {ERR Number of fields must be a positive integer} {r httl h FIELDS -1 a}
        assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} \
            {r hpersist h FOO 1 a}
        assert_error {ERR The `numfields` parameter must match the number of arguments} \
            {r hpttl h FIELDS 3 a b}
        # Nothing changed.
        assert_equal {-1} [r httl h FIELDS 1 a]
    }

    test {HPERSIST answers 1, -1 or -2 per field} {
        r del h
        r hset h a 1 b 2
        r hexpire h 100 FIELDS 1 a
        assert_equal {1 -1 -2} [r hpersist h FIELDS 3 a b c]
        assert_equal {-1 -1} [r httl h FIELDS 2 a b]
    }

    test {HSET clears a field's time; HINCRBY, HINCRBYFLOAT and HSETNX keep it} {
        r del h
        r hset h a 1 b 2 c 1.5 d x
        r hexpire h 100 FIELDS 4 a b c d
        r hset h a 5
        assert_equal {-1} [r httl h FIELDS 1 a]
        assert_equal 3 [r hincrby h b 1]
        assert_equal 2.5 [r hincrbyfloat h c 1]
        assert_equal 0 [r hsetnx h d y]
        foreach f {b c d} { assert_range [r httl h FIELDS 1 $f] 95 100 }
        r hdel h b
        r hset h b 9
        assert_equal {-1} [r httl h FIELDS 1 b]
    }

    test {A key TTL and field times live side by side} {
        r del h
        r hset h a 1 b 2
        r expire h 1000
        r hexpire h 100 FIELDS 1 a
        assert_range [r ttl h] 995 1000
        r persist h
        assert_range [r httl h FIELDS 1 a] 95 100
    }

    test {RESP2 and RESP3 frames of HTTL, HGETDEL and HGETEX} {
        r del h
        r hset h a 1 b 2
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {*2} [$c httl h FIELDS 2 a x]
        assert_equal {:-1} [$c read]
        assert_equal {:-2} [$c read]
        assert_equal {*2} [$c hgetex h FIELDS 2 a x]
        assert_equal {$1} [$c read]
        assert_equal {1} [$c read]
        assert_equal {_} [$c read]
        $c close
        set c [redis_client]
        $c readraw 1
        assert_equal {*2} [$c hgetdel h FIELDS 2 x b]
        assert_equal {$-1} [$c read]
        assert_equal {$1} [$c read]
        assert_equal {2} [$c read]
        $c close
        assert_equal {a} [hfe_fields h]
    }

    test {HGETDEL returns the values, deletes the fields, and the key with the last one} {
        r del h
        r hset h a 1 b 2 c 3
        assert_equal {1 {} 2} [r hgetdel h FIELDS 3 a x b]
        assert_equal {c} [hfe_fields h]
        assert_equal {3 {}} [r hgetdel h FIELDS 2 c c]
        assert_equal 0 [r exists h]
        assert_equal {{} {}} [r hgetdel h FIELDS 2 a b]
        r set s v
        assert_error {WRONGTYPE*} {r hgetdel s FIELDS 1 a}
        assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} \
            {r hgetdel h FOO 1 a}
        assert_error {ERR Number of fields must be a positive integer} {r hgetdel h FIELDS 0 a}
        assert_error {ERR The `numfields` parameter must match the number of arguments} \
            {r hgetdel h FIELDS 2 a}
    }

    test {HGETEX reads fields and sets or removes their times} {
        r del h
        r hset h a 1 b 2 c 3
        assert_equal {1 {}} [r hgetex h FIELDS 2 a x]
        assert_equal {-1} [r httl h FIELDS 1 a]
        assert_equal {1 2} [r hgetex h EX 100 FIELDS 2 a b]
        assert_range [r httl h FIELDS 1 b] 95 100
        assert_equal {2} [r hgetex h PX 50000 FIELDS 1 b]
        assert_range [r hpttl h FIELDS 1 b] 45000 50000
        set at [expr {[clock seconds] + 500}]
        assert_equal {3} [r hgetex h EXAT $at FIELDS 1 c]
        assert_equal $at [r hexpiretime h FIELDS 1 c]
        assert_equal {1 2} [r hgetex h PERSIST FIELDS 2 a b]
        assert_equal {-1 -1} [r httl h FIELDS 2 a b]
        assert_equal {{}} [r hgetex nokey EX 10 FIELDS 1 a]
        assert_equal 0 [r exists nokey]
    }

    test {HGETEX: a due time deletes fields; option errors} {
        r del h
        r hset h a 1 b 2 c 3
        assert_equal {1 3} [r hgetex h PXAT 1 FIELDS 2 a c]
        assert_equal {b} [hfe_fields h]
        assert_equal {2} [r hgetex h PXAT 1 FIELDS 1 b]
        assert_equal 0 [r exists h]
        r hset h a 1
        assert_error {ERR invalid expire time in 'hgetex' command} {r hgetex h EX 0 FIELDS 1 a}
        assert_error {ERR invalid expire time in 'hgetex' command} {r hgetex h PX -5 FIELDS 1 a}
        assert_error {ERR value is not an integer or out of range} {r hgetex h EX x FIELDS 1 a}
        assert_error {ERR syntax error} {r hgetex h EX 10 PX 10 FIELDS 1 a}
        assert_error {ERR syntax error} {r hgetex h EX 10 PERSIST FIELDS 1 a}
        assert_error {ERR syntax error} {r hgetex h KEEPTTL FIELDS 1 a}
        assert_error {ERR invalid number of fields} {r hgetex h FIELDS 0 a}
        assert_error {ERR wrong number of arguments for 'hgetex' command} {r hgetex h FIELDS 2 a}
        assert_error {ERR syntax error} {r hgetex h EX 10 a b}
        assert_equal {-1} [r httl h FIELDS 1 a]
    }

    test {HSETEX sets fields with FNX/FXX and a time, KEEPTTL or none} {
        r del h
        assert_equal 1 [r hsetex h EX 100 FIELDS 2 a 1 b 2]
        assert_equal {a b} [hfe_fields h]
        assert_range [r httl h FIELDS 1 a] 95 100
        # FNX: only if none of the fields exists; FXX: only if all of them do.
        assert_equal 0 [r hsetex h FNX FIELDS 2 a 9 c 3]
        assert_equal 1 [r hsetex h FNX FIELDS 1 c 3]
        assert_equal 0 [r hsetex h FXX FIELDS 2 a 9 x 9]
        assert_equal 1 [r hsetex h FXX KEEPTTL FIELDS 1 a 11]
        assert_equal 11 [r hget h a]
        assert_range [r httl h FIELDS 1 a] 95 100
        # Without a time option the fields lose theirs, as with HSET.
        assert_equal 1 [r hsetex h FIELDS 1 a 12]
        assert_equal {-1} [r httl h FIELDS 1 a]
        set at [expr {[clock milliseconds] + 500000}]
        assert_equal 1 [r hsetex h PXAT $at FIELDS 1 b 22]
        assert_equal $at [r hpexpiretime h FIELDS 1 b]
        assert_equal 0 [r hsetex nokey FXX FIELDS 1 a 1]
        assert_equal 0 [r exists nokey]
        # A due time: the fields are set and go at once.
        assert_equal 1 [r hsetex h EXAT 1 FIELDS 2 a 1 b 2]
        assert_equal {c} [hfe_fields h]
    }

    test {HSETEX errors} {
        r del h s
        r set s v
        assert_error {WRONGTYPE*} {r hsetex s FIELDS 1 a 1}
        assert_error {ERR syntax error} {r hsetex h FNX FXX FIELDS 1 a 1}
        assert_error {ERR syntax error} {r hsetex h EX 10 KEEPTTL FIELDS 1 a 1}
        assert_error {ERR syntax error} {r hsetex h PERSIST FIELDS 1 a 1}
        assert_error {ERR invalid expire time in 'hsetex' command} {r hsetex h EX 0 FIELDS 1 a 1}
        assert_error {ERR invalid number of fields} {r hsetex h FIELDS 0 a 1}
        assert_error {ERR wrong number of arguments for 'hsetex' command} {r hsetex h FIELDS 2 a 1}
        assert_error {ERR wrong number of arguments for 'hsetex' command} {r hsetex h FIELDS 1 a 1 b}
        assert_equal 0 [r exists h]
    }

    test {Lazy expiry: an expired field is gone for every read, and so is the key with its last} {
        r debug set-active-expire 0
        r del h
        r hset h a 1 b 2 c 3
        r hpexpire h 1 FIELDS 2 a b
        wait_for_condition 100 10 {[r hexists h a] == 0} else {
            fail "field a never expired"
        }
        assert_equal {{} 3} [r hmget h b c]
        assert_equal 1 [r hlen h]
        assert_equal {c 3} [r hgetall h]
        r hpexpire h 1 FIELDS 1 c
        wait_for_condition 100 10 {[r hlen h] == 0} else {
            fail "field c never expired"
        }
        assert_equal 0 [r exists h]
        r debug set-active-expire 1
    } {OK} {needs:debug}

    test {Active expiry deletes due fields of hashes nobody reads, then the keys} {
        r flushdb
        set fields {}
        for {set j 0} {$j < 20} {incr j} { lappend fields f$j }
        for {set i 0} {$i < 30} {incr i} {
            r hset h$i keep v
            foreach f $fields { r hset h$i $f v }
            r hpexpire h$i 1 FIELDS 20 {*}$fields
        }
        r hset gone a 1 b 2
        r hpexpire gone 1 FIELDS 2 a b
        # EXISTS and OBJECT ENCODING do not reclaim fields: only the active cycle can.
        wait_for_condition 200 20 {[r exists gone] == 0} else {
            fail "the hash with only expired fields was not deleted"
        }
        # DEBUG HTSTATS-KEY reads the table without reclaiming: wait until each hash is down
        # to its one field without a time.
        for {set i 0} {$i < 30} {incr i} {
            wait_for_condition 200 20 {
                [string match "*number of elements: 1*" [r debug htstats-key h$i]]
            } else { fail "h$i kept its expired fields: [r debug htstats-key h$i]" }
        }
        assert_equal 30 [r dbsize]
    } {} {needs:debug}
}

start_server {tags {hash hfe redistp}} {
    test {Keyspace events: hexpire, hpersist, hdel, hexpired and del} {
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*
        $rd read
        r del h
        r hset h a 1 b 2
        r hexpire h 100 FIELDS 1 a
        r hpersist h FIELDS 1 a
        r hexpire h 0 FIELDS 1 a
        r hpexpire h 1 FIELDS 1 b
        set got {}
        for {set i 0} {$i < 7} {incr i} {
            lappend got [lindex [split [lindex [$rd read] 2] :] 1]
        }
        $rd close
        r config set notify-keyspace-events {}
        # hset, hexpire, hpersist, hdel (the due time), hexpire, then the active expiry of the
        # last field and the key with it.
        assert_equal {hset hexpire hpersist hdel hexpire hexpired del} $got
    }
}

start_server {tags {hash hfe redistp}} {
    test {MULTI: field times set and read inside a transaction} {
        r del h
        r hset h a 1 b 2
        r multi
        r hexpire h 100 FIELDS 1 a
        r hpttl h FIELDS 2 a b
        r hgetdel h FIELDS 1 b
        set res [r exec]
        assert_equal {1} [lindex $res 0]
        assert_range [lindex $res 1 0] 95000 100000
        assert_equal {-1} [lindex $res 1 1]
        assert_equal {2} [lindex $res 2]
    }

    test {WATCH is broken by a field time set by another client} {
        r del h
        r hset h a 1
        r watch h
        set c [redis_client]
        $c hexpire h 100 FIELDS 1 a
        $c close
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test {RENAME, MOVE and COPY keep field times, and expiry follows the key} {
        r flushall
        r hset h a 1 b 2
        set at [expr {[clock milliseconds] + 100000}]
        r hpexpireat h $at FIELDS 1 a
        r rename h h2
        assert_equal [list $at -1] [r hpexpiretime h2 FIELDS 2 a b]
        r copy h2 h3
        assert_equal [list $at -1] [r hpexpiretime h3 FIELDS 2 a b]
        r move h3 10
        r select 10
        assert_equal [list $at -1] [r hpexpiretime h3 FIELDS 2 a b]
        # The moved hash's fields still expire, actively, in their new database.
        r hpexpire h3 1 FIELDS 2 a b
        wait_for_condition 200 20 {[r dbsize] == 0} else { fail "h3 never expired in db 10" }
        r select 9
        r hpexpire h2 1 FIELDS 2 a b
        wait_for_condition 200 20 {[r exists h2] == 0} else { fail "h2 never expired" }
    }

    test {Propagation: absolute times, HDEL for due and expired fields} {
        r flushall
        r debug set-active-expire 0
        with_repl_stream rs {
            r hset h a 1 b 2 c 3 d 4
            r hexpire h 100 FIELDS 2 a b
            r hexpire h 0 FIELDS 1 c
            r hexpire h 100 NX FIELDS 1 a
            r hpersist h FIELDS 1 b
            r hgetdel h FIELDS 2 b x
            r hsetex h2 EX 100 FIELDS 1 x y
            r hsetex h2 KEEPTTL FIELDS 1 x z
            r hgetex h2 PX 5000 FIELDS 1 x
            r hgetex h2 PERSIST FIELDS 1 x
            r hgetex h2 FIELDS 1 x
            r hincrbyfloat h d 0.5
            r hpexpire h 1 FIELDS 1 a
            wait_for_condition 100 10 {[r hexists h a] == 0} else { fail "a never expired" }
            # The last field's expiry empties the hash: HDEL, and no DEL after it.
            r hset last f v
            r hpexpire last 1 FIELDS 1 f
            wait_for_condition 100 10 {[r hlen last] == 0} else { fail "f never expired" }
            r set marker 1
            assert_repl_stream $rs {
                {select *}
                {hset h a 1 b 2 c 3 d 4}
                {hpexpireat h * FIELDS 2 a b}
                {hdel h c}
                {hpersist h FIELDS 1 b}
                {hdel h b}
                {hsetex h2 PXAT * FIELDS 1 x y}
                {hsetex h2 KEEPTTL FIELDS 1 x z}
                {hpexpireat h2 * FIELDS 1 x}
                {hpersist h2 FIELDS 1 x}
                {hset h d 4.5}
                {hpexpireat h * FIELDS 1 a}
                {hdel h a}
                {hset last f v}
                {hpexpireat last * FIELDS 1 f}
                {hdel last f}
                {set marker 1}
            }
        }
        r debug set-active-expire 1
    } {OK} {needs:debug}
}

start_server {tags {hash hfe redistp repl external:skip}} {
    start_server {} {
        test {A replica receives field times as absolute times and expired fields as HDEL} {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 200 50 {
                [string match {*master_link_status:up*} [r info replication]]
            } else {
                fail "replica did not connect"
            }
            set m [srv -1 client]
            $m hset h a 1 b 2 c 3
            $m hexpire h 1000 FIELDS 1 a
            $m hsetex h EX 2000 FIELDS 1 b 22
            $m hpexpire h 1 FIELDS 1 c
            $m hset gone x 1
            $m hpexpire gone 1 FIELDS 1 x
            wait_for_condition 200 20 {[$m exists gone] == 0} else { fail "gone stayed" }
            assert_equal 1 [$m wait 1 0]
            assert_equal [$m hpexpiretime h FIELDS 3 a b c] [r hpexpiretime h FIELDS 3 a b c]
            assert_equal {-2} [r hpexpiretime h FIELDS 1 c]
            assert_equal 0 [r exists gone]
            assert_equal {a b} [lsort [r hkeys h]]
        }
    }
}

start_server {tags {hash hfe redistp aof external:skip needs:debug}
              overrides {appendonly yes aof-use-rdb-preamble no}} {
    test {Field times survive an AOF reload and an AOF rewrite} {
        r hset h a 1 b 2 c 3
        set at [expr {[clock milliseconds] + 100000}]
        r hpexpireat h $at FIELDS 1 a
        r hexpire h 500 FIELDS 1 b
        set before [r hpexpiretime h FIELDS 3 a b c]
        r debug loadaof
        assert_equal $before [r hpexpiretime h FIELDS 3 a b c]
        r bgrewriteaof
        wait_for_condition 100 50 {
            [s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0
        } else {
            fail "the AOF rewrite did not finish"
        }
        r debug loadaof
        assert_equal $before [r hpexpiretime h FIELDS 3 a b c]
        assert_equal {1 2 3} [r hmget h a b c]
    }
}

start_server {tags {hash hfe redistp}} {
    test {SORT BY and GET hash fields do not see expired fields} {
        r debug set-active-expire 0
        r del l w_1 w_2 w_3
        r rpush l 1 2 3
        r hset w_1 n 30
        r hset w_2 n 10 m 1
        r hset w_3 n 20
        assert_equal {2 3 1} [r sort l BY w_*->n]
        r hpexpire w_2 1 FIELDS 1 n
        wait_for_condition 100 10 {[r hexists w_2 n] == 0} else { fail "n never expired" }
        r hpexpire w_3 1 FIELDS 1 n
        after 2
        # w_2 has no n now, and w_3's n is past its time: both sort as 0, before w_1.
        assert_equal {{} {} 30} [r sort l BY w_*->n GET w_*->n]
        r debug set-active-expire 1
    } {OK} {needs:debug}
}
