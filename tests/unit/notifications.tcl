# Keyspace notifications (notify-keyspace-events): every class flag and its CONFIG GET form,
# the event names and their order for every write command of every family (tables whose
# expectations are what Redis 7.0 publishes: this file passes against Debian's redis-server),
# `new`, `keymiss`, `expired` (lazy and active), `evicted`, notifications inside MULTI/EXEC, a
# RESP3 subscriber, and channels of another database. Our own commands (SETTP, DELTP, a
# temporary key whose owner left) are tagged redistp, as is the one deliberate difference: a
# RESP3 connection subscribed to its own changes reads its reply first.
#
# Reading: a subscriber is a deferring client that PSUBSCRIBEd; kn_drain fences what it has
# received with a PING (answered after every message published before it), so "nothing was
# published" is checked without waiting for time to pass.

# A deferring client subscribed to `patterns`, speaking RESP `proto`.
proc kn_subscriber {patterns {proto 2}} {
    set rd [redis_deferring_client]
    if {$proto == 3} {
        $rd hello 3
        $rd read
    }
    $rd psubscribe {*}$patterns
    foreach p $patterns {$rd read}
    return $rd
}

# Every message `rd` received so far, in order, as {channel message} pairs. redis-tp's existence
# events (`__watchex@<db>__:<key>`, always on; a pattern such as `*` sees them) are not keyspace
# notifications: they are left out (tests/unit/watchex-pubsub.tcl covers them).
proc kn_drain {rd} {
    $rd ping
    set got {}
    for {set i 0} {$i < 10000} {incr i} {
        set m [$rd read]
        if {$m eq "PONG" || [lindex $m 0] eq "pong"} {return $got}
        switch -- [lindex $m 0] {
            pmessage {
                if {[string match {__watchex@*} [lindex $m 2]]} continue
                lappend got [lrange $m 2 3]
            }
            message {lappend got [lrange $m 1 2]}
            default {fail "unexpected frame: $m"}
        }
    }
    fail "no PONG after 10000 frames"
}

# The messages K and E publish for `events`, a list of {event key ?db?} (db: the test db).
proc kn_messages {events {keyspace 1} {keyevent 1}} {
    set out {}
    foreach ev $events {
        lassign $ev event key db
        if {$db eq ""} {set db [srv 0 db]}
        if {$keyspace} {lappend out [list __keyspace@${db}__:$key $event]}
        if {$keyevent} {lappend out [list __keyevent@${db}__:$event $key]}
    }
    return $out
}

# Runs each {command events} row on the test client (an error reply is allowed) and checks
# that the subscriber got exactly the messages of `events`, in order.
proc kn_table {sub rows} {
    foreach {cmd events} $rows {
        catch {r {*}$cmd}
        assert_equal [kn_messages $events] [kn_drain $sub] $cmd
    }
}

proc kn_set_flags {flags} {
    r config set notify-keyspace-events $flags
}

start_server {tags {notifications needs:config needs:debug}} {
    test {notify-keyspace-events: CONFIG GET shows Redis's canonical form} {
        # Input -> what CONFIG GET answers: classes in a fixed order, A when all of them are
        # set (n is then not shown), K E and m last.
        set cases {
            K K   E E   g g   $ $   l l   s s   h h   z z   t t   x x   e e   d d   m m   n n
            A A   KA AK   EA AE   KEA AKE   KEAmn AKEm   Kg gK   $gK g$K   nK nK   mK Km
            dK dK   Ad A   tE tE   xE xE   eE eE   hzsE shzE   Km Km   KEd dKE   KEt tKE
            g$lshzxetd A   K$ $K
        }
        foreach {in out} $cases {
            kn_set_flags $in
            assert_equal [list notify-keyspace-events $out] \
                [r config get notify-keyspace-events] "input '$in'"
        }
        kn_set_flags ""
        assert_equal {notify-keyspace-events {}} [r config get notify-keyspace-events]
        catch {kn_set_flags KEq} e
        assert_match {*Invalid event class character*} $e
        assert_equal {notify-keyspace-events {}} [r config get notify-keyspace-events]
    }

    test {A refused CONFIG SET puts notify-keyspace-events back as CONFIG GET showed it, n lost beside A} {
        # Redis restores each parameter of a failed CONFIG SET, up to the refused one, from its
        # CONFIG GET text: `n` is not shown beside `A`, so it is dropped; shown beside s and K,
        # it stays; a parameter after the refused one is never touched.
        set sub [kn_subscriber {__key*__:*}]
        set new_events {{{new kn:r} {sadd kn:r}} {{sadd kn:r}}}
        # {flags, the refused CONFIG SET, whether `new` is still published}
        set cases {
            KEAn {notify-keyspace-events KEA1} 0
            KEAn {notify-keyspace-events KEAn maxmemory-policy bogus} 0
            KEAn {maxmemory-policy bogus notify-keyspace-events KEA} 1
            KEsn {notify-keyspace-events KEA1} 1
        }
        foreach {flags refused keeps} $cases {
            kn_set_flags $flags
            assert_error {ERR CONFIG SET failed*} {r config set {*}$refused}
            r del kn:r
            kn_drain $sub
            r sadd kn:r 1
            set want [kn_messages [lindex $new_events [expr {!$keeps}]]]
            assert_equal $want [kn_drain $sub] "$flags, then $refused"
        }
        r del kn:r
        kn_set_flags ""
        $sub close
    }

    test {notify-keyspace-events off (the default) publishes nothing} {
        r flushall
        set sub [kn_subscriber {__key*__:*}]
        r set kn:off v
        r lpush kn:offl a
        r del kn:off kn:offl
        r get kn:off
        assert_equal {} [kn_drain $sub]
        $sub close
    }

    # One command per class; each event is {event key class}.
    set script {
        {set kn:str v}      {{new kn:str n} {set kn:str $}}
        {lpush kn:list a}   {{new kn:list n} {lpush kn:list l}}
        {sadd kn:set a}     {{new kn:set n} {sadd kn:set s}}
        {hset kn:hash f v}  {{new kn:hash n} {hset kn:hash h}}
        {zadd kn:zset 1 a}  {{new kn:zset n} {zadd kn:zset z}}
        {expire kn:str 100} {{expire kn:str g}}
        {del kn:list}       {{del kn:list g}}
        {get kn:missing}    {{keymiss kn:missing m}}
    }

    test {Each class letter publishes only its own class, on K and E alone} {
        set sub [kn_subscriber {__key*__:*}]
        foreach class {g $ l s h z m n x e t d A} {
            foreach channel {K E} {
                kn_set_flags ""
                r flushall
                kn_set_flags $channel$class
                set want {}
                foreach {cmd events} $script {
                    r {*}$cmd
                    foreach ev $events {
                        lassign $ev event key cls
                        # A is every class but m (key misses) and n (new keys).
                        if {$cls eq $class || ($class eq "A" && $cls ni {m n})} {
                            lappend want [list $event $key]
                        }
                    }
                }
                set msgs [kn_messages $want [expr {$channel eq "K"}] [expr {$channel eq "E"}]]
                assert_equal $msgs [kn_drain $sub] "flags $channel$class"
            }
        }
        kn_set_flags ""
        $sub close
    }

    test {K and E: the keyspace message first; classes without K or E publish nothing} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags "A"
        r set kn:quiet v
        assert_equal {} [kn_drain $sub]
        kn_set_flags "KE\$g"
        r set kn:both v
        r del kn:both
        assert_equal [kn_messages {{set kn:both} {del kn:both}}] [kn_drain $sub]
        kn_set_flags ""
        $sub close
    }

    test {Class combinations: KEA publishes everything but new and keymiss; KEAmn all of it} {
        set sub [kn_subscriber {__key*__:*}]
        # flags -> the classes of the script that publish
        set cases {KEA {g $ l s h z} KEAmn {g $ l s h z m n} KElz {l z} {Ks$} {s $} Egn {g n}}
        foreach {flags classes} $cases {
            kn_set_flags ""
            r flushall
            kn_set_flags $flags
            set want {}
            foreach {cmd events} $script {
                r {*}$cmd
                foreach ev $events {
                    lassign $ev event key cls
                    if {$cls in $classes} {lappend want [list $event $key]}
                }
            }
            set k [string match *K* $flags]
            set e [string match *E* $flags]
            assert_equal [kn_messages $want $k $e] [kn_drain $sub] "flags $flags"
        }
        kn_set_flags ""
        $sub close
    }

    test {Strings and bitmaps: every write command publishes what Redis publishes} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEAn
        kn_table $sub {
            {set s 1} {{new s} {set s}}
            {set s 2 keepttl} {{set s}}
            {set s 3 ex 100} {{set s} {expire s}}
            {set s 4 px 100000 get} {{set s} {expire s}}
            {set s 5 nx} {}
            {set s 6 xx} {{set s}}
            {setnx s2 a} {{new s2} {set s2}}
            {setnx s2 b} {}
            {setex s3 100 v} {{new s3} {set s3} {expire s3}}
            {psetex s4 100000 v} {{new s4} {set s4} {expire s4}}
            {getset s5 v} {{new s5} {set s5}}
            {getset s5 w} {{set s5}}
            {mset m1 a m2 b} {{new m1} {set m1} {new m2} {set m2}}
            {msetnx m3 a m4 b} {{new m3} {set m3} {new m4} {set m4}}
            {msetnx m3 a m5 b} {}
            {append ap x} {{new ap} {append ap}}
            {append ap y} {{append ap}}
            {setrange sr 2 x} {{new sr} {setrange sr}}
            {setrange sr 0 y} {{setrange sr}}
            {setrange sr2 0 {}} {}
            {incr n} {{new n} {incrby n}}
            {decr n} {{incrby n}}
            {incrby n 5} {{incrby n}}
            {decrby n 5} {{incrby n}}
            {incrbyfloat n 1.5} {{incrbyfloat n}}
            {setbit b 7 1} {{new b} {setbit b}}
            {setbit b 7 1} {}
            {bitop and bd b b} {{new bd} {set bd}}
            {bitop or bd nokey1 nokey2} {{del bd}}
            {bitop or bd b} {{new bd} {set bd}}
            {bitfield bf set u8 0 1} {{new bf} {setbit bf}}
            {bitfield bf get u8 0} {}
            {bitfield bf incrby u8 0 1} {{setbit bf}}
            {bitfield bf set u8 0 5} {{setbit bf}}
            {bitfield bf set u8 0 5} {}
            {bitfield bf overflow fail incrby u8 500 -1} {}
            {bitfield bfn overflow fail incrby u16 59 -932} {{new bfn}}
            {bitfield bfn3 overflow fail incrby u8 0 -1 set u8 8 0} {{new bfn3} {setbit bfn3}}
            {getdel s5} {{del s5}}
            {getdel s5} {}
            {getex s} {}
            {getex s ex 100} {{expire s}}
            {getex s persist} {{persist s}}
            {getex s px 100} {{expire s}}
            {getex s pxat 99999999999999} {{expire s}}
            {getex s exat 99999999999} {{expire s}}
            {getex s exat 1} {{del s}}
            {set s 1} {{new s} {set s}}
        }
        kn_set_flags ""
        $sub close
    }

    test {Generic commands: DEL, UNLINK, EXPIRE family, PERSIST, RENAME, MOVE, COPY} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEAn
        set db [srv 0 db]
        set other [expr {$db + 1}]
        kn_table $sub [subst {
            {mset s 1 m1 a m2 b m3 a m4 b} {
                {new s} {set s} {new m1} {set m1} {new m2} {set m2} {new m3} {set m3}
                {new m4} {set m4}
            }
            {del s m1 m2 nokey} {{del s} {del m1} {del m2}}
            {unlink m3 m4 nokey} {{del m3} {del m4}}
            {set s 1} {{new s} {set s}}
            {expire s 100} {{expire s}}
            {pexpire s 100000} {{expire s}}
            {expireat s 99999999999} {{expire s}}
            {pexpireat s 99999999999999} {{expire s}}
            {expire s 100 nx} {}
            {expire s 200 xx} {{expire s}}
            {persist s} {{persist s}}
            {persist s} {}
            {expire s 0} {{del s}}
            {set s 1} {{new s} {set s}}
            {expire s -1} {{del s}}
            {set s 1} {{new s} {set s}}
            {pexpireat s 1} {{del s}}
            {set r1 v} {{new r1} {set r1}}
            {rename r1 r2} {{new r2} {rename_from r1} {rename_to r2}}
            {set r1 v} {{new r1} {set r1}}
            {rename r1 r2} {{new r2} {rename_from r1} {rename_to r2}}
            {renamenx r2 r3} {{new r3} {rename_from r2} {rename_to r3}}
            {set r4 v} {{new r4} {set r4}}
            {renamenx r3 r4} {}
            {rename r3 r3} {}
            {set mv v} {{new mv} {set mv}}
            {move mv $other} {{new mv $other} {move_from mv} {move_to mv $other}}
            {set mv v} {{new mv} {set mv}}
            {select $other} {}
            {set mv2 v} {{new mv2 $other} {set mv2 $other}}
            {select $db} {}
            {set cp v} {{new cp} {set cp}}
            {copy cp cp2} {{new cp2} {copy_to cp2}}
            {copy cp cp2} {}
            {copy cp cp2 replace} {{new cp2} {copy_to cp2}}
            {copy cp cp3 db $other} {{new cp3 $other} {copy_to cp3 $other}}
            {copy nokey cp4} {}
            {expire cp 100} {{expire cp}}
            {copy cp cp5} {{new cp5} {copy_to cp5}}
        }]
        kn_set_flags ""
        $sub close
    }

    test {Lists: pushes, pops, edits, moves, blocking pops of ready keys; emptied means del} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEAn
        kn_table $sub {
            {lpush l a b} {{new l} {lpush l}}
            {rpush l c} {{rpush l}}
            {lpushx l d} {{lpush l}}
            {rpushx l e} {{rpush l}}
            {lpushx nol a} {}
            {linsert l before a x} {{linsert l}}
            {linsert l before zz x} {}
            {lset l 0 y} {{lset l}}
            {lrem l 1 y} {{lrem l}}
            {lrem l 0 zz} {}
            {ltrim l 0 1} {{ltrim l}}
            {ltrim l 0 100} {{ltrim l}}
            {lpop l} {{lpop l}}
            {rpop l} {{rpop l} {del l}}
            {lpop l} {}
            {rpush l a b c} {{new l} {rpush l}}
            {lpop l 5} {{lpop l} {del l}}
            {rpush l a b c} {{new l} {rpush l}}
            {rpop l 2} {{rpop l}}
            {rpop l 1} {{rpop l} {del l}}
            {ltrim l 5 10} {}
            {rpush l a b} {{new l} {rpush l}}
            {ltrim l 5 10} {{ltrim l} {del l}}
            {rpush l a b} {{new l} {rpush l}}
            {lmove l l2 left right} {{new l2} {rpush l2} {lpop l}}
            {lmove l l2 right left} {{lpush l2} {rpop l} {del l}}
            {rpush l a b} {{new l} {rpush l}}
            {rpoplpush l l2} {{lpush l2} {rpop l}}
            {rpoplpush l l} {{lpush l} {rpop l}}
            {rpoplpush l l} {{lpush l} {rpop l}}
            {del l l2} {{del l} {del l2}}
            {rpush l a b c} {{new l} {rpush l}}
            {lmpop 2 nokey l left count 2} {{lpop l}}
            {lmpop 1 l right} {{rpop l} {del l}}
            {rpush l a} {{new l} {rpush l}}
            {blpop l 0} {{lpop l} {del l}}
            {rpush l a} {{new l} {rpush l}}
            {brpop l 0} {{rpop l} {del l}}
            {rpush l a b} {{new l} {rpush l}}
            {blmove l l2 left left 0} {{new l2} {lpush l2} {lpop l}}
            {brpoplpush l l2 0} {{lpush l2} {rpop l} {del l}}
            {blmpop 0 1 l2 left count 5} {{lpop l2} {del l2}}
            {rpush l a b} {{new l} {rpush l}}
            {lrem l 0 a} {{lrem l}}
            {lrem l 0 b} {{lrem l} {del l}}
            {rpush l a} {{new l} {rpush l}}
            {lset l 0 z} {{lset l}}
            {linsert l after z w} {{linsert l}}
        }
        kn_set_flags ""
        $sub close
    }

    test {Sets: SADD, SREM, SPOP, SMOVE, the STORE commands (an empty result is a del)} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEAn
        kn_table $sub {
            {sadd st a b} {{new st} {sadd st}}
            {sadd st a} {}
            {sadd st c} {{sadd st}}
            {srem st a zz} {{srem st}}
            {srem st zz} {}
            {srem st b c} {{srem st} {del st}}
            {sadd st a b c} {{new st} {sadd st}}
            {spop st} {{spop st}}
            {spop st 1} {{spop st}}
            {spop st 0} {}
            {spop st 5} {{spop st} {del st}}
            {sadd st a b c} {{new st} {sadd st}}
            {spop st 3} {{spop st} {del st}}
            {sadd st a b c} {{new st} {sadd st}}
            {smove st st2 a} {{srem st} {new st2} {sadd st2}}
            {smove st st2 a} {}
            {smove st st2 b} {{srem st} {sadd st2}}
            {smove st st2 c} {{srem st} {del st} {sadd st2}}
            {smove st2 st2 a} {}
            {sadd ss1 a b c} {{new ss1} {sadd ss1}}
            {sadd ss2 b c d} {{new ss2} {sadd ss2}}
            {sinterstore d1 ss1 ss2} {{new d1} {sinterstore d1}}
            {sinterstore d1 ss1 ss2} {{sinterstore d1}}
            {sunionstore d2 ss1 ss2} {{new d2} {sunionstore d2}}
            {sdiffstore d3 ss1 ss2} {{new d3} {sdiffstore d3}}
            {sinterstore d1 ss1 nokey} {{del d1}}
            {sinterstore d1 ss1 nokey} {}
            {sunionstore d2 nokey nokey2} {{del d2}}
            {sdiffstore d3 ss1 ss1} {{del d3}}
            {sdiffstore d3 nokey ss1} {}
            {set str v} {{new str} {set str}}
            {sinterstore str ss1} {{sinterstore str}}
            {sinterstore ss1 ss1 ss2} {{sinterstore ss1}}
        }
        kn_set_flags ""
        $sub close
    }

    test {Hashes: HSET, HSETNX, HMSET, HINCRBY(FLOAT), HDEL} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEAn
        kn_table $sub {
            {hset h a 1 b 2} {{new h} {hset h}}
            {hset h a 3} {{hset h}}
            {hset h a 3} {{hset h}}
            {hsetnx h a 1} {}
            {hsetnx h c 1} {{hset h}}
            {hmset h d 1} {{hset h}}
            {hincrby h n 1} {{hincrby h}}
            {hincrbyfloat h f 1.5} {{hincrbyfloat h}}
            {hdel h a zz} {{hdel h}}
            {hdel h zz} {}
            {hdel h b c d n f} {{hdel h} {del h}}
            {hsetnx h2 a 1} {{new h2} {hset h2}}
            {hincrby h3 a 1} {{new h3} {hincrby h3}}
            {hincrbyfloat h4 a 1} {{new h4} {hincrbyfloat h4}}
        }
        kn_set_flags ""
        $sub close
    }

    test {Sorted sets: ZADD options, ZINCRBY, ZREM, ZREMRANGEBY*, pops and the STORE commands} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEAn
        kn_table $sub {
            {zadd z 1 a 2 b} {{new z} {zadd z}}
            {zadd z 1 a} {}
            {zadd z 3 a} {{zadd z}}
            {zadd z nx 5 a} {}
            {zadd z xx 5 zz} {}
            {zadd z incr 1 a} {{zincr z}}
            {zadd z xx incr 1 zz} {}
            {zadd z gt 0 a} {}
            {zadd z ch 9 a} {{zadd z}}
            {zincrby z 1 a} {{zincr z}}
            {zincrby z2 1 a} {{new z2} {zincr z2}}
            {zrem z a zz} {{zrem z}}
            {zrem z zz} {}
            {zrem z b} {{zrem z} {del z}}
            {zadd z 1 a 2 b 3 c} {{new z} {zadd z}}
            {zremrangebyrank z 0 0} {{zremrangebyrank z}}
            {zremrangebyrank z 5 6} {}
            {zremrangebyscore z 2 2} {{zremrangebyscore z}}
            {zremrangebyscore z 100 200} {}
            {zremrangebylex z - +} {{zremrangebylex z} {del z}}
            {zadd z 1 a 2 b 3 c} {{new z} {zadd z}}
            {zremrangebylex z [zz [zzz} {}
            {zremrangebyrank z 0 -1} {{zremrangebyrank z} {del z}}
            {zadd z 1 a 2 b 3 c} {{new z} {zadd z}}
            {zpopmin z} {{zpopmin z}}
            {zpopmax z} {{zpopmax z}}
            {zpopmin z 5} {{zpopmin z} {del z}}
            {zpopmin z} {}
            {zadd z 1 a 2 b 3 c} {{new z} {zadd z}}
            {zmpop 1 z min count 2} {{zpopmin z}}
            {zmpop 1 z max} {{zpopmax z} {del z}}
            {zadd z 1 a} {{new z} {zadd z}}
            {bzpopmin z 0} {{zpopmin z} {del z}}
            {zadd z 1 a} {{new z} {zadd z}}
            {bzpopmax z 0} {{zpopmax z} {del z}}
            {zadd z 1 a 2 b} {{new z} {zadd z}}
            {bzmpop 0 1 z min count 10} {{zpopmin z} {del z}}
            {zadd za 1 a 2 b} {{new za} {zadd za}}
            {zadd zb 2 b 3 c} {{new zb} {zadd zb}}
            {zunionstore zd 2 za zb} {{new zd} {zunionstore zd}}
            {zunionstore zd 2 za zb} {{zunionstore zd}}
            {zinterstore zd2 2 za zb} {{new zd2} {zinterstore zd2}}
            {zdiffstore zd3 2 za zb} {{new zd3} {zdiffstore zd3}}
            {zinterstore zd2 2 za nokey} {{del zd2}}
            {zinterstore zd2 2 za nokey} {}
            {zdiffstore zd3 2 za za} {{del zd3}}
            {zrangestore zr za 0 -1} {{new zr} {zrangestore zr}}
            {zrangestore zr za 0 -1} {{zrangestore zr}}
            {zrangestore zr za 5 6} {{del zr}}
            {zrangestore zr za 5 6} {}
            {zunionstore zd 2 nokey nokey2} {{del zd}}
        }
        kn_set_flags ""
        $sub close
    }

    test {SORT ... STORE publishes sortstore, or del for an empty result} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEAn
        kn_table $sub {
            {rpush sl 3 1 2} {{new sl} {rpush sl}}
            {sort sl store so} {{new so} {sortstore so}}
            {sort sl store so} {{sortstore so}}
            {sort sl limit 5 5 store so} {{del so}}
            {sort sl limit 5 5 store so} {}
            {sort nokey store so} {}
            {sort sl by w_* get o_*} {}
            {sort sl} {}
        }
        kn_set_flags ""
        $sub close
    }

    test {FLUSHDB, FLUSHALL and SWAPDB publish nothing per key} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEAn
        set db [srv 0 db]
        set other [expr {$db + 1}]
        kn_table $sub [subst {
            {flushdb} {}
            {set a 1} {{new a} {set a}}
            {swapdb $db $other} {}
            {swapdb $db $other} {}
            {flushall} {}
        }]
        kn_set_flags ""
        $sub close
    }
    test {keymiss: read lookups that find nothing publish it, write lookups and OBJECT do not} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEm\$gshzl
        kn_table $sub {
            {bitcount k} {{keymiss k}}
            {bitfield_ro k get u8 0} {{keymiss k}}
            {bitpos k 1} {{keymiss k}}
            {exists k} {{keymiss k}}
            {expiretime k} {{keymiss k}}
            {get k} {{keymiss k}}
            {getbit k 0} {{keymiss k}}
            {getrange k 0 1} {{keymiss k}}
            {hexists k f} {{keymiss k}}
            {hget k f} {{keymiss k}}
            {hgetall k} {{keymiss k}}
            {hkeys k} {{keymiss k}}
            {hlen k} {{keymiss k}}
            {hmget k f} {{keymiss k}}
            {hrandfield k} {{keymiss k}}
            {hscan k 0} {{keymiss k}}
            {hstrlen k f} {{keymiss k}}
            {hvals k} {{keymiss k}}
            {lcs k k2} {{keymiss k} {keymiss k2}}
            {lindex k 0} {{keymiss k}}
            {llen k} {{keymiss k}}
            {lpos k a} {{keymiss k}}
            {lrange k 0 1} {{keymiss k}}
            {memory usage k} {}
            {mget k k2} {{keymiss k} {keymiss k2}}
            {object encoding k} {}
            {object freq k} {}
            {object idletime k} {}
            {object refcount k} {}
            {pexpiretime k} {{keymiss k}}
            {pttl k} {{keymiss k}}
            {ttl k} {{keymiss k}}
            {type k} {{keymiss k}}
            {touch k k2} {{keymiss k} {keymiss k2}}
            {scard k} {{keymiss k}}
            {sdiff k k2} {{keymiss k} {keymiss k2}}
            {sinter k k2} {{keymiss k} {keymiss k2}}
            {sintercard 2 k k2} {{keymiss k} {keymiss k2}}
            {sismember k a} {{keymiss k}}
            {smembers k} {{keymiss k}}
            {smismember k a} {{keymiss k}}
            {sort_ro k} {{keymiss k}}
            {srandmember k} {{keymiss k}}
            {sscan k 0} {{keymiss k}}
            {strlen k} {{keymiss k}}
            {substr k 0 1} {{keymiss k}}
            {sunion k k2} {{keymiss k} {keymiss k2}}
            {zcard k} {{keymiss k}}
            {zcount k 0 1} {{keymiss k}}
            {zdiff 2 k k2} {{keymiss k} {keymiss k2}}
            {zinter 2 k k2} {{keymiss k} {keymiss k2}}
            {zintercard 2 k k2} {{keymiss k} {keymiss k2}}
            {zlexcount k - +} {{keymiss k}}
            {zmscore k a} {{keymiss k}}
            {zrandmember k} {{keymiss k}}
            {zrange k 0 1} {{keymiss k}}
            {zrangebylex k - +} {{keymiss k}}
            {zrangebyscore k 0 1} {{keymiss k}}
            {zrank k a} {{keymiss k}}
            {zrevrange k 0 1} {{keymiss k}}
            {zrevrangebylex k + -} {{keymiss k}}
            {zrevrangebyscore k 1 0} {{keymiss k}}
            {zrevrank k a} {{keymiss k}}
            {zscan k 0} {{keymiss k}}
            {zscore k a} {{keymiss k}}
            {zunion 2 k k2} {{keymiss k} {keymiss k2}}
            {append k x} {{append k}}
            {del k} {{del k}}
            {bitop and d k k2} {{keymiss k} {keymiss k2}}
            {bitop and d2 k} {{keymiss k}}
            {copy k d} {{keymiss k}}
            {getdel k} {{keymiss k}}
            {getex k} {{keymiss k}}
            {getex k ex 10} {{keymiss k}}
            {getset k v} {{keymiss k} {set k}}
            {del k} {{del k}}
            {incr k} {{incrby k}}
            {del k} {{del k}}
            {set k v xx} {}
            {set k v get} {{keymiss k} {set k}}
            {del k} {{del k}}
            {setrange k 0 x} {{setrange k}}
            {del k} {{del k}}
            {setbit k 0 1} {{setbit k}}
            {del k} {{del k}}
            {bitfield k get u8 0} {{keymiss k}}
            {bitfield k set u8 0 1} {{setbit k}}
            {del k} {{del k}}
            {expire k 10} {}
            {persist k} {}
            {rename k d} {}
            {renamenx k d} {}
            {move k 1} {}
            {lpop k} {}
            {lpushx k a} {}
            {linsert k before a b} {}
            {lset k 0 a} {}
            {lrem k 0 a} {}
            {ltrim k 0 1} {}
            {lmove k d left left} {}
            {rpoplpush k d} {}
            {lmpop 1 k left} {}
            {srem k a} {}
            {spop k} {}
            {smove k d a} {}
            {sinterstore d k k2} {{keymiss k} {keymiss k2}}
            {sunionstore d k k2} {{keymiss k} {keymiss k2}}
            {sdiffstore d k k2} {{keymiss k} {keymiss k2}}
            {hdel k a} {}
            {hsetnx k a 1} {{hset k}}
            {del k} {{del k}}
            {zrem k a} {}
            {zpopmin k} {}
            {zmpop 1 k min} {}
            {zremrangebyrank k 0 1} {}
            {zremrangebyscore k 0 1} {}
            {zremrangebylex k - +} {}
            {zunionstore d 2 k k2} {{keymiss k} {keymiss k2}}
            {zrangestore d k 0 1} {{keymiss k}}
            {zincrby k 1 a} {{zincr k}}
            {del k} {{del k}}
            {sort k} {{keymiss k}}
            {sort k store d} {{keymiss k}}
            {rpush l 1 2} {{rpush l}}
            {sort l by w_* get o_*} {{keymiss w_1} {keymiss w_2} {keymiss o_1} {keymiss o_2}}
            {sort l by w_* get o_* store d} {
                {keymiss w_1} {keymiss w_2} {keymiss o_1} {keymiss o_2} {sortstore d}
            }
            {sort l by nosort get #} {}
            {sadd sk a} {{sadd sk}}
            {sinterstore d2 sk k} {{keymiss k}}
            {sunion sk k} {{keymiss k}}
            {zadd zk 1 a} {{zadd zk}}
            {zunion 2 zk k} {{keymiss k}}
        }
        kn_set_flags ""
        $sub close
    }
    test {new: published when a key is created, before the command's own event, and only then} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEn
        r set kn:n v
        r set kn:n w
        r append kn:n x
        r rpush kn:nl a
        r rpush kn:nl b
        r rename kn:n kn:n2
        r del kn:n2 kn:nl
        assert_equal [kn_messages {{new kn:n} {new kn:nl} {new kn:n2}}] [kn_drain $sub]
        kn_set_flags ""
        $sub close
    }

    test {expired: a key found expired by a lookup (lazy expiry)} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        r debug set-active-expire 0
        kn_set_flags KEx
        r psetex kn:lazy 1 v
        # PTTL answers -2 once the TTL has passed, deleting the key as it looks (that lookup
        # is the lazy expiry).
        wait_for_condition 200 10 {[r pttl kn:lazy] == -2} else {fail "kn:lazy never expired"}
        assert_equal [kn_messages {{expired kn:lazy}}] [kn_drain $sub]
        r debug set-active-expire 1
        kn_set_flags ""
        $sub close
    }

    test {A read of an expired key publishes expired, then keymiss} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        r debug set-active-expire 0
        kn_set_flags KExm
        r psetex kn:lm 1 v
        # The last PTTL finds the key expired: it deletes it, then misses.
        wait_for_condition 200 10 {[r pttl kn:lm] == -2} else {fail "kn:lm never expired"}
        assert_equal [kn_messages {{expired kn:lm} {keymiss kn:lm}}] [kn_drain $sub]
        r debug set-active-expire 1
        kn_set_flags ""
        $sub close
    }

    test {A write that meets an expired key publishes expired before its own events} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        r debug set-active-expire 0
        foreach k {e1 e2 e3 e4 e5 e6 e7} {r set $k v px 1}
        r rpush e8 a
        r pexpire e8 1
        r set src v
        # Server-side sleep: every TTL above has passed when it returns.
        r debug sleep 0.01
        kn_set_flags KEAn
        kn_table $sub {
            {set e1 w} {{expired e1} {new e1} {set e1}}
            {incr e2} {{expired e2} {new e2} {incrby e2}}
            {rename src e3} {{expired e3} {new e3} {rename_from src} {rename_to e3}}
            {copy e3 e4} {{expired e4} {new e4} {copy_to e4}}
            {lpush e5 x} {{expired e5} {new e5} {lpush e5}}
            {append e6 x} {{expired e6} {new e6} {append e6}}
            {del e7} {{expired e7}}
            {rpop e8} {{expired e8}}
        }
        r debug set-active-expire 1
        kn_set_flags ""
        $sub close
    }

    test {expired: a key nobody touches is expired by the active cycle} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEx
        r psetex kn:active 1 v
        wait_for_condition 200 10 {[r dbsize] == 0} else {fail "kn:active never expired"}
        assert_equal [kn_messages {{expired kn:active}}] [kn_drain $sub]
        kn_set_flags ""
        $sub close
    }

    test {A waiting BLPOP / BLMOVE / BZPOPMIN served by a write publishes after the write} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEAn
        set rd [redis_deferring_client]
        foreach {block write served events} {
            {blpop kn:bl 0} {rpush kn:bl a b} {kn:bl a}
            {{new kn:bl} {rpush kn:bl} {lpop kn:bl}}
            {blmove kn:bl2 kn:dst left right 0} {rpush kn:bl2 a} a
            {{new kn:bl2} {rpush kn:bl2} {new kn:dst} {rpush kn:dst} {lpop kn:bl2} {del kn:bl2}}
            {bzpopmin kn:bz 0} {zadd kn:bz 1 a} {kn:bz a 1}
            {{new kn:bz} {zadd kn:bz} {zpopmin kn:bz} {del kn:bz}}
        } {
            $rd {*}$block
            wait_for_blocked_clients_count 1
            r {*}$write
            assert_equal $served [$rd read]
            assert_equal [kn_messages $events] [kn_drain $sub] $block
        }
        $rd close
        kn_set_flags ""
        $sub close
    }

    test {Long keys and binary-safe keys are published intact} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEg$
        set long [string repeat "k0123456789" 40]
        set odd "kn:a b\r\n\x00c"
        r set $long v
        r set $odd v
        r del $long $odd
        assert_equal [kn_messages [list [list set $long] [list set $odd] [list del $long] \
                                       [list del $odd]]] [kn_drain $sub]
        kn_set_flags ""
        $sub close
    }

    test {Commands inside MULTI publish when EXEC runs, in order} {
        set sub [kn_subscriber {__key*__:*}]
        kn_set_flags ""
        r flushall
        kn_set_flags KEA
        r multi
        r set kn:m1 v
        r lpush kn:m2 a
        r del kn:m1
        r expire kn:m2 100
        assert_equal {} [kn_drain $sub] "nothing before EXEC"
        r exec
        assert_equal [kn_messages {{set kn:m1} {lpush kn:m2} {del kn:m1} {expire kn:m2}}] \
            [kn_drain $sub]
        kn_set_flags ""
        $sub close
    }

    test {A RESP3 subscriber receives notifications as push frames} {
        kn_set_flags ""
        r flushall
        kn_set_flags KE$
        set sub [kn_subscriber {__keyspace@*__:*} 3]
        set db [srv 0 db]
        r set kn:r3 v
        $sub readraw 1
        assert_equal {>4} [$sub read]
        foreach want [list pmessage __keyspace@*__:* __keyspace@${db}__:kn:r3 set] {
            assert_equal "\$[string length $want]" [$sub read]
            assert_equal $want [$sub read]
        }
        $sub readraw 0
        assert_equal {} [kn_drain $sub]
        kn_set_flags ""
        $sub close
    }

    test {Channels name the key's database: a subscriber of another db hears only that db} {
        kn_set_flags ""
        r flushall
        kn_set_flags KEg
        set db [srv 0 db]
        set other [expr {$db + 1}]
        set sub [redis_deferring_client]
        $sub subscribe __keyspace@${other}__:kn:odb __keyevent@${other}__:del
        $sub read
        $sub read
        r set kn:odb v
        r del kn:odb
        r select $other
        r set kn:odb v
        r del kn:odb
        r select $db
        assert_equal [list [list __keyspace@${other}__:kn:odb del] \
                          [list __keyevent@${other}__:del kn:odb]] [kn_drain $sub]
        kn_set_flags ""
        $sub close
    }
}

start_server {tags {notifications needs:config}} {
    test {evicted: maxmemory with allkeys-random evicts and publishes} {
        set sub [kn_subscriber {__key*__:*}]
        r flushall
        r config set maxmemory-policy allkeys-random
        kn_set_flags KEe
        r set kn:ev v
        r config set maxmemory 1
        wait_for_condition 200 10 {[r dbsize] == 0} else {fail "kn:ev was not evicted"}
        r config set maxmemory 0
        assert_equal [kn_messages {{evicted kn:ev}}] [kn_drain $sub]
        kn_set_flags ""
        $sub close
    }

    test {evicted: volatile-lru evicts only keys with a TTL} {
        set sub [kn_subscriber {__key*__:*}]
        r flushall
        r config set maxmemory-policy volatile-lru
        kn_set_flags KEe
        r set kn:keep v
        r set kn:vol v ex 1000
        r config set maxmemory 1
        wait_for_condition 200 10 {[r exists kn:vol] == 0} else {fail "kn:vol was not evicted"}
        r config set maxmemory 0
        assert_equal 1 [r exists kn:keep]
        assert_equal [kn_messages {{evicted kn:vol}}] [kn_drain $sub]
        r config set maxmemory-policy noeviction
        kn_set_flags ""
        $sub close
    }
}

start_server {tags {notifications needs:config needs:debug redistp}} {
    test {SETTP publishes new and set; DELTP publishes del} {
        set sub [kn_subscriber {__key*__:*}]
        r flushall
        kn_set_flags KEAn
        assert_equal 1 [r settp kn:tp v]
        assert_equal 0 [r settp kn:tp w]
        assert_equal 1 [r deltp kn:tp kn:none]
        assert_equal [kn_messages {{new kn:tp} {set kn:tp} {del kn:tp}}] [kn_drain $sub]
        kn_set_flags ""
        $sub close
    }

    test {A temporary key whose owner left publishes del} {
        set sub [kn_subscriber {__key*__:*}]
        r flushall
        kn_set_flags KEg
        set owner [redis_client]
        assert_equal 1 [$owner settp kn:owned v]
        assert_equal 1 [$owner settp kn:owned2 v]
        $owner close
        wait_for_condition 200 10 {[r exists kn:owned kn:owned2] == 0} else {
            fail "the owner's keys outlived it"
        }
        set got [kn_drain $sub]
        # The owner's keys go in an order of the owner index: compare as a set.
        assert_equal [lsort [kn_messages {{del kn:owned} {del kn:owned2}}]] [lsort $got]
        kn_set_flags ""
        $sub close
    }

    test {A BSETTP hand-off publishes the release, then new and set for the waiter} {
        set sub [kn_subscriber {__key*__:*}]
        r flushall
        kn_set_flags KEAn
        assert_equal 1 [r settp kn:lock holder]
        set waiter [redis_deferring_client]
        $waiter bsettp kn:lock waiter 0
        wait_for_blocked_clients_count 1
        assert_equal 1 [r deltp kn:lock]
        assert_equal 1 [$waiter read]
        assert_equal waiter [r get kn:lock]
        assert_equal [kn_messages {{new kn:lock} {set kn:lock} {del kn:lock} {new kn:lock}
                                   {set kn:lock}}] [kn_drain $sub]
        $waiter close
        kn_set_flags ""
        $sub close
    }

    test {A watched key expired by the watch timer publishes expired} {
        set sub [kn_subscriber {__key*__:*}]
        r flushall
        r debug set-active-expire 0
        kn_set_flags KEx
        set watcher [redis_client]
        $watcher timeout 3000
        $watcher hello 3
        assert_equal NOEXIST [$watcher watchex kn:wt]
        r psetex kn:wt 1 v
        assert_equal {watchex kn:wt ADD} [$watcher read]
        assert_equal {watchex kn:wt DEL} [$watcher read]
        assert_equal [kn_messages {{expired kn:wt}}] [kn_drain $sub]
        $watcher close
        r debug set-active-expire 1
        kn_set_flags ""
        $sub close
    }

    test {A RESP3 connection subscribed to its own changes reads its reply first (after EXEC too)} {
        # Redis 7.0 writes the message before the reply (inside the EXEC array); redis-tp keeps
        # the ordering promise of its push path: the connection that made the change reads the
        # reply first.
        r flushall
        kn_set_flags KE$
        set db [srv 0 db]
        set self [redis_deferring_client]
        $self hello 3
        $self read
        $self psubscribe __keyspace@${db}__:kn:self
        $self read
        $self set kn:self v
        assert_equal OK [$self read]
        assert_equal [list pmessage __keyspace@${db}__:kn:self __keyspace@${db}__:kn:self set] \
            [$self read]
        $self multi
        $self read
        $self set kn:self w
        $self read
        $self exec
        assert_equal {OK} [$self read]
        assert_equal [list pmessage __keyspace@${db}__:kn:self __keyspace@${db}__:kn:self set] \
            [$self read]
        $self close
        kn_set_flags ""
    }
}
