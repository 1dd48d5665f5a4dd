# Key expiry: EXPIRE family and its NX/XX/GT/LT options, TTL/PTTL,
# EXPIRETIME/PEXPIRETIME, PERSIST, the SET and GETEX expiry options, lazy
# expiry on access and active expiry of keys nobody touches.

start_server {tags {expire}} {
    test {EXPIRE sets a TTL; TTL and PTTL read it back} {
        r set k v
        assert_equal [r ttl k] -1
        assert_equal [r pttl k] -1
        assert_equal [r expire k 100] 1
        assert_range [r ttl k] 99 100
        assert_range [r pttl k] 98000 100000
        assert_equal [r ttl nokey] -2
        assert_equal [r pttl nokey] -2
        assert_equal [r expire nokey 100] 0
    }

    test {PEXPIRE, EXPIREAT and PEXPIREAT} {
        r set k v
        assert_equal [r pexpire k 50000] 1
        assert_range [r pttl k] 49000 50000
        set at [expr {[clock seconds] + 200}]
        assert_equal [r expireat k $at] 1
        assert_range [r ttl k] 198 200
        assert_equal [r expiretime k] $at
        set pat [expr {[clock milliseconds] + 300000}]
        assert_equal [r pexpireat k $pat] 1
        assert_equal [r pexpiretime k] $pat
    }

    test {EXPIRETIME and TTL round to the nearest second} {
        r set k v
        r pexpireat k 2000000000600
        assert_equal [r expiretime k] 2000000001
        r pexpireat k 2000000000400
        assert_equal [r expiretime k] 2000000000
        r pexpire k 1700
        assert_equal [r ttl k] 2
        r pexpire k 1300
        assert_equal [r ttl k] 1
    }

    test {EXPIRETIME and PEXPIRETIME for keys without TTL or missing keys} {
        r set k v
        assert_equal [r expiretime k] -1
        assert_equal [r pexpiretime k] -1
        assert_equal [r expiretime nokey] -2
        assert_equal [r pexpiretime nokey] -2
    }

    test {A zero, negative or past expiry deletes the key} {
        r set k v
        assert_equal [r expire k 0] 1
        assert_equal [r exists k] 0
        r set k v
        assert_equal [r expire k -1] 1
        assert_equal [r exists k] 0
        r set k v
        assert_equal [r pexpire k -100] 1
        assert_equal [r exists k] 0
        r set k v
        assert_equal [r expireat k 1] 1
        assert_equal [r exists k] 0
        r set k v
        assert_equal [r pexpireat k [expr {[clock milliseconds] - 1000}]] 1
        assert_equal [r exists k] 0
    }

    test {EXPIRE NX and XX} {
        r set k v
        assert_equal [r expire k 100 xx] 0
        assert_equal [r ttl k] -1
        assert_equal [r expire k 100 nx] 1
        assert_range [r ttl k] 99 100
        assert_equal [r expire k 200 nx] 0
        assert_range [r ttl k] 99 100
        assert_equal [r expire k 200 xx] 1
        assert_range [r ttl k] 199 200
    }

    test {EXPIRE GT and LT; no TTL counts as infinite} {
        r set k v
        assert_equal [r expire k 100 gt] 0
        assert_equal [r ttl k] -1
        assert_equal [r expire k 100 lt] 1
        assert_range [r ttl k] 99 100
        assert_equal [r expire k 50 gt] 0
        assert_equal [r expire k 200 gt] 1
        assert_equal [r expire k 300 lt] 0
        assert_range [r ttl k] 199 200
        assert_equal [r expire k 150 lt] 1
        assert_range [r ttl k] 149 150
        assert_equal [r pexpire k 500000 gt] 1
        assert_equal [r expire k 150 xx gt] 0
        assert_equal [r expire k 150 xx lt] 1
    }

    test {EXPIRE option errors} {
        r set k v
        assert_error {ERR NX and XX, GT or LT options at the same time are not compatible} {
            r expire k 100 nx xx
        }
        assert_error {ERR NX and XX, GT or LT options at the same time are not compatible} {
            r expire k 100 nx gt
        }
        assert_error {ERR GT and LT options at the same time are not compatible} {
            r expire k 100 gt lt
        }
        assert_error {ERR Unsupported option foo} {r expire k 100 foo}
        assert_error {ERR Unsupported option bar} {r pexpireat k 100 bar}
        assert_error {ERR value is not an integer or out of range} {r expire k abc}
        assert_error {ERR value is not an integer or out of range} {r expire k 1.5}
        assert_error {ERR wrong number of arguments for 'expire' command} {r expire k}
        assert_equal [r ttl k] -1
    }

    test {Expire times that overflow are rejected} {
        r set k v
        assert_error {ERR invalid expire time in 'expire' command} {
            r expire k 9223372036854775807
        }
        assert_error {ERR invalid expire time in 'expire' command} {
            r expire k 9223372036854775
        }
        assert_error {ERR invalid expire time in 'expire' command} {
            r expire k -9223372036854775808
        }
        assert_error {ERR invalid expire time in 'pexpire' command} {
            r pexpire k 9223372036854775807
        }
        assert_error {ERR invalid expire time in 'expireat' command} {
            r expireat k 9223372036854775807
        }
        assert_equal [r ttl k] -1
        assert_equal [r exists k] 1
    }

    test {PERSIST removes the TTL} {
        r set k v ex 100
        assert_equal [r persist k] 1
        assert_equal [r ttl k] -1
        assert_equal [r persist k] 0
        assert_equal [r persist nokey] 0
    }

    test {Overwriting a key with SET clears its TTL, KEEPTTL keeps it} {
        r set k v ex 100
        r set k v2
        assert_equal [r ttl k] -1
        r set k v ex 100
        r set k v3 keepttl
        assert_range [r ttl k] 99 100
        assert_equal [r get k] v3
        # Commands that modify the value in place keep the TTL.
        r append k x
        assert_range [r ttl k] 99 100
        r set n 1 ex 100
        r incr n
        assert_range [r ttl n] 99 100
    }

    test {SET EX, PX, EXAT and PXAT} {
        r set k v ex 100
        assert_range [r ttl k] 99 100
        r set k v px 100000
        assert_range [r pttl k] 99000 100000
        set at [expr {[clock seconds] + 500}]
        r set k v exat $at
        assert_equal [r expiretime k] $at
        set pat [expr {[clock milliseconds] + 600000}]
        r set k v pxat $pat
        assert_equal [r pexpiretime k] $pat
    }

    test {SET expiry errors} {
        assert_error {ERR invalid expire time in 'set' command} {r set k v ex 0}
        assert_error {ERR invalid expire time in 'set' command} {r set k v ex -1}
        assert_error {ERR invalid expire time in 'set' command} {r set k v px 0}
        assert_error {ERR invalid expire time in 'set' command} {
            r set k v ex 9223372036854775807
        }
        assert_error {ERR invalid expire time in 'set' command} {
            r set k v exat 9223372036854775807
        }
        assert_error {ERR value is not an integer or out of range} {r set k v ex abc}
        assert_error {ERR syntax error} {r set k v ex 10 px 10000}
        assert_error {ERR syntax error} {r set k v keepttl ex 10}
        assert_error {ERR syntax error} {r set k v ex}
    }

    test {GETEX options} {
        r set k v
        assert_equal [r getex k] v
        assert_equal [r ttl k] -1
        assert_equal [r getex k ex 100] v
        assert_range [r ttl k] 99 100
        assert_equal [r getex k px 50000] v
        assert_range [r pttl k] 49000 50000
        set at [expr {[clock seconds] + 300}]
        assert_equal [r getex k exat $at] v
        assert_equal [r expiretime k] $at
        set pat [expr {[clock milliseconds] + 400000}]
        assert_equal [r getex k pxat $pat] v
        assert_equal [r pexpiretime k] $pat
        assert_equal [r getex k persist] v
        assert_equal [r ttl k] -1
        assert_equal [r getex nokey ex 10] {}
    }

    test {GETEX errors} {
        r set k v
        assert_error {ERR syntax error} {r getex k foo}
        assert_error {ERR syntax error} {r getex k ex 10 px 10}
        assert_error {ERR value is not an integer or out of range} {r getex k ex abc}
        assert_error {ERR invalid expire time in 'getex' command} {r getex k ex 0}
        assert_error {ERR invalid expire time in 'getex' command} {
            r getex k exat 9223372036854775807
        }
        assert_error {ERR wrong number of arguments for 'getex' command} {r getex}
        r rpush list a
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {
            r getex list
        }
        r del list
    }

    test {A key is gone once its TTL elapses} {
        r set k v px 500
        r set k2 v ex 1
        assert_equal [r get k] v
        after 600
        assert_equal [r get k] {}
        assert_equal [r exists k] 0
        assert_equal [r ttl k] -2
        wait_for_condition 40 50 {[r exists k2] == 0} else {
            fail "key with EX 1 still exists"
        }
    }

    test {Expiry survives RENAME and is removed by PERSIST before it fires} {
        r set k v px 500
        r rename k k2
        r persist k2
        after 600
        assert_equal [r get k2] v
        r del k2
    }
}

start_server {tags {expire needs:debug}} {
    test {With active expiry off, expired keys linger until touched} {
        r flushdb
        r debug set-active-expire 0
        for {set i 0} {$i < 10} {incr i} {
            r set lazy:$i v px 50
        }
        r set keep v
        after 200
        # DBSIZE counts keys whose time has passed but were not reclaimed.
        assert_equal [r dbsize] 11
        assert_match {keys=11,expires=10*} [getInfoProperty [r info keyspace] db[srv db]]
        # Each access reclaims the key it reads.
        assert_equal [r get lazy:0] {}
        assert_equal [r exists lazy:1] 0
        assert_equal [r ttl lazy:2] -2
        assert_equal [r dbsize] 8
        r debug set-active-expire 1
    }

    test {Active expiry reclaims keys nobody touches} {
        r flushdb
        r debug set-active-expire 0
        set before [s expired_keys]
        for {set i 0} {$i < 100} {incr i} {
            r set active:$i v px 100
        }
        r set keep v
        after 300
        assert_equal [r dbsize] 101
        r debug set-active-expire 1
        wait_for_condition 100 50 {[r dbsize] == 1} else {
            fail "active expiry left [r dbsize] keys"
        }
        assert_equal [keyspace_keys] 1
        assert_equal [r get keep] v
        assert_equal [expr {[s expired_keys] - $before}] 100
    }

    test {Keys with a future TTL are left alone by active expiry} {
        r flushdb
        for {set i 0} {$i < 50} {incr i} {
            r set future:$i v ex 1000
        }
        after 300
        assert_equal [r dbsize] 50
        assert_match {keys=50,expires=50*} [getInfoProperty [r info keyspace] db[srv db]]
    }
}

# A replica must reach the same expiry whenever it applies the stream, so every relative TTL
# travels as an absolute time, and a key found expired travels as a DEL of its own.
start_server {tags {expire repl needs:debug external:skip}} {
    test {Relative TTLs reach the replication stream as absolute unix times} {
        with_repl_stream rs {
            r set k v
            r expire k 100
            r pexpire k 100000
            r expireat k 99999999999
            r setex s 100 v
            r psetex s 100000 v
            r set s v ex 100
            r set s v px 100000 get
            r getex s ex 100
            r restore r 100000 [r dump k]
            r set marker 1
            assert_repl_stream $rs {
                {select *} {set k v} {pexpireat k *} {pexpireat k *} {pexpireat k 99999999999000}
                {set s v pxat *} {set s v pxat *} {set s v pxat *} {set s v pxat *}
                {pexpireat s *} {restore r * absttl} {set marker 1}
            }
        }
    }

    test {Keys that SCAN and RANDOMKEY find expired are replicated as bare DELs} {
        r flushall
        r debug set-active-expire 0
        with_repl_stream rs {
            r set e1 v px 1
            r set e2 v px 1
            r set e3 v px 1
            after 5
            # Only expired keys: RANDOMKEY deletes each one it draws until none is left.
            assert_equal {} [r randomkey]
            r set marker 1
            r set e4 v px 1
            r set e5 v px 1
            after 5
            r scan 0 count 100
            r set marker 2
            assert_repl_stream $rs {
                {select *} {set e1 v pxat *} {set e2 v pxat *} {set e3 v pxat *}
                {del e*} {del e*} {del e*} {set marker 1} {set e4 v pxat *} {set e5 v pxat *}
                {del e*} {del e*} {set marker 2}
            }
        }
        r debug set-active-expire 1
    }

    test {Keys one MGET finds expired are replicated together in MULTI/EXEC} {
        r debug set-active-expire 0
        with_repl_stream rs {
            r set e1 v px 1
            r set e2 v px 1
            after 5
            r mget e1 e2
            r set marker 1
            assert_repl_stream $rs {
                {select *} {set e1 v pxat *} {set e2 v pxat *} {multi} {del e*} {del e*} {exec}
                {set marker 1}
            }
        }
        r debug set-active-expire 1
    }
}

start_server {tags {expire repl external:skip}} {
    start_server {} {
        test {A replica holds the very expire times of its master, whatever command set them} {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 200 50 {
                [string match {*master_link_status:up*} [r info replication]]
            } else {
                fail "replica did not connect"
            }
            set m [srv -1 client]
            $m set t1 v ex 100
            $m set t2 v
            $m expire t2 200
            $m set t3 v
            $m pexpire t3 300000
            $m set t4 v
            $m getex t4 px 400000
            $m set t5 v
            $m expireat t5 [expr {[clock seconds] + 500}]
            $m restore t6 600000 [$m dump t5]
            $m set t7 v keepttl
            $m setex t8 800 v
            $m psetex t9 900000 v
            # WAIT returns once the replica acknowledged every write above.
            assert_equal 1 [$m wait 1 0]
            foreach k {t1 t2 t3 t4 t5 t6 t7 t8 t9} {
                assert_equal [$m pexpiretime $k] [r pexpiretime $k] "expire time of $k"
            }
            assert_equal -1 [r pexpiretime t7]
            assert_equal slave [lindex [r role] 0]
        }
    }
}

start_server {tags {expire aof external:skip needs:debug}} {
    test {GETEX PERSIST is replayed from the AOF: the key comes back without a TTL} {
        r config set appendonly yes
        wait_for_condition 100 50 {
            [s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0
        } else {
            fail "the first AOF rewrite did not finish"
        }
        r set gp v ex 100
        r set gq v ex 100
        assert_equal v [r getex gp persist]
        r debug loadaof
        assert_equal -1 [r ttl gp]
        assert_range [r ttl gq] 90 100
    }
}
