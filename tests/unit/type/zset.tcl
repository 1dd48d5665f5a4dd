# Sorted sets, the core commands: ZADD (NX XX GT LT CH INCR), ZINCRBY, ZREM, ZCARD, ZSCORE,
# ZMSCORE, ZRANK, ZREVRANK, ZCOUNT, ZLEXCOUNT, the range family (ZRANGE with BYSCORE BYLEX REV
# LIMIT WITHSCORES, ZREVRANGE, Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX, ZRANGESTORE) and
# ZREMRANGEBYRANK/SCORE/LEX. Most tests run twice, once per encoding (listpack, then skiplist
# forced with zset-max-listpack-entries 0); the conversions themselves, score formatting, RESP3
# reply types, errors and their order, WRONGTYPE, empty-key deletion and MULTI/WATCH come after.
# WATCHEX events on creation and emptying are redis-tp's own (tag redistp).

# Every protocol line of the next reply of raw-mode client c, nested frames included.
proc zset_raw_reply {c} {
    set lines {}
    zset_raw_collect $c lines
    return $lines
}
proc zset_raw_collect {c listvar} {
    upvar 1 $listvar lines
    set line [$c read]
    lappend lines $line
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        $ {if {$n >= 0} {lappend lines [$c read]}}
        * - ~ - > {for {set i 0} {$i < $n} {incr i} {zset_raw_collect $c lines}}
        % {for {set i 0} {$i < 2 * $n} {incr i} {zset_raw_collect $c lines}}
    }
}

# The raw lines of one command's reply on a fresh connection speaking RESP `proto`.
proc zset_raw {proto args} {
    set c [redis_client]
    $c hello $proto
    $c readraw 1
    $c deferred 1
    $c {*}$args
    set lines [zset_raw_reply $c]
    $c close
    return $lines
}

start_server {tags {zset}} {
    foreach enc {listpack skiplist} {
        # skiplist: every new sorted set starts (and stays) a skiplist.
        r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 128 : 0}]

        test "ZADD adds members and replies how many are new ($enc)" {
            r del z
            assert_equal 3 [r zadd z 1 a 2 b 3 c]
            assert_encoding $enc z
            assert_equal 1 [r zadd z 4 d 2 b]
            assert_equal 0 [r zadd z 10 a]
            assert_equal 4 [r zcard z]
            assert_equal {b 2 c 3 d 4 a 10} [r zrange z 0 -1 withscores]
        }

        test "ZADD orders equal scores by member bytes ($enc)" {
            r del z
            r zadd z 1 b 1 a 1 c 0 z 1 ab 1 B
            assert_equal {z B a ab b c} [r zrange z 0 -1]
        }

        test "ZADD NX, XX, GT, LT and CH ($enc)" {
            r del z
            r zadd z 1 a 2 b
            assert_equal 1 [r zadd z nx 5 a 3 c]
            assert_equal 1 [r zscore z a]
            assert_equal 0 [r zadd z xx 5 a 9 nope]
            assert_equal 5 [r zscore z a]
            assert_equal {} [r zscore z nope]
            assert_equal 0 [r zadd z gt 4 a]
            assert_equal 5 [r zscore z a]
            assert_equal 1 [r zadd z gt ch 6 a 0 b]
            assert_equal {6 2} [r zmscore z a b]
            assert_equal 1 [r zadd z lt ch 1 a 7 b]
            assert_equal {1 2} [r zmscore z a b]
            # GT and LT add new members; XX with GT only updates.
            assert_equal 1 [r zadd z gt 3 d]
            assert_equal 0 [r zadd z xx gt ch 0 d 5 e]
            assert_equal 1 [r zadd z xx lt ch 0 d]
            assert_equal 0 [r zscore z d]
            assert_equal 2 [r zadd z ch 10 a 11 f 0 d]
            assert_equal 0 [r zadd z ch 10 a]
            # Option words are case-insensitive.
            assert_equal 1 [r zadd z Xx cH 12 a]
        }

        test "ZADD INCR returns the new score, or nil when the options skip it ($enc)" {
            r del z
            assert_equal 5 [r zadd z incr 5 a]
            assert_equal 7.5 [r zadd z incr 2.5 a]
            assert_equal {} [r zadd z nx incr 1 a]
            assert_equal {} [r zadd z xx incr 1 nope]
            assert_equal {} [r zadd z gt incr -1 a]
            assert_equal 8.5 [r zadd z gt incr 1 a]
            assert_equal 8.5 [r zadd z incr 0 a]
            assert_equal 1 [r zcard z]
        }

        test "ZINCRBY creates and increments members ($enc)" {
            r del z
            assert_equal 2 [r zincrby z 2 a]
            assert_equal -1.5 [r zincrby z -3.5 a]
            assert_equal 1 [r zincrby z 1 b]
            assert_equal {a b} [r zrange z 0 -1]
            assert_error {ERR value is not a valid float} {r zincrby z abc a}
            # ZINCRBY shares ZADD's option parser: an increment spelled like an option is one.
            assert_error {ERR syntax error} {r zincrby z nx a}
        }

        test "ZADD INCR and ZINCRBY refuse a NaN result and leave the set alone ($enc)" {
            r del z
            r zadd z +inf a
            assert_error {ERR resulting score is not a number (NaN)} {r zadd z incr -inf a}
            assert_error {ERR resulting score is not a number (NaN)} {r zincrby z -inf a}
            assert_equal inf [r zscore z a]
        }

        test "ZREM removes members and deletes the emptied key ($enc)" {
            r del z
            r zadd z 1 a 2 b 3 c
            assert_equal 2 [r zrem z a c nope]
            assert_equal 0 [r zrem z nope]
            assert_equal {b} [r zrange z 0 -1]
            assert_equal 1 [r zrem z b b]
            assert_equal 0 [r exists z]
            assert_equal 0 [r zrem z b]
        }

        test "ZSCORE, ZMSCORE, ZCARD on present and missing members and keys ($enc)" {
            r del z nokey
            r zadd z 1.5 a -2 b
            assert_equal 1.5 [r zscore z a]
            assert_equal {} [r zscore z x]
            assert_equal {} [r zscore nokey a]
            assert_equal {1.5 {} -2} [r zmscore z a x b]
            assert_equal {{} {}} [r zmscore nokey a b]
            assert_equal 2 [r zcard z]
            assert_equal 0 [r zcard nokey]
        }

        test "ZRANK and ZREVRANK ($enc)" {
            r del z
            r zadd z 10 x 20 y 30 z
            assert_equal {0 1 2} [list [r zrank z x] [r zrank z y] [r zrank z z]]
            assert_equal {2 1 0} [list [r zrevrank z x] [r zrevrank z y] [r zrevrank z z]]
            assert_equal {} [r zrank z nope]
            assert_equal {} [r zrevrank nokey x]
        }

        test "ZRANGE and ZREVRANGE by rank, with negative and out-of-range indexes ($enc)" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal {a b c d} [r zrange z 0 -1]
            assert_equal {b c} [r zrange z 1 2]
            assert_equal {c d} [r zrange z -2 100]
            assert_equal {a} [r zrange z -100 0]
            assert_equal {} [r zrange z 3 1]
            assert_equal {} [r zrange z 4 10]
            assert_equal {} [r zrange z 0 -5]
            assert_equal {d c b a} [r zrevrange z 0 -1]
            assert_equal {c 3 b 2} [r zrevrange z 1 2 withscores]
            assert_equal {d 4 c 3} [r zrange z 0 1 rev withscores]
            assert_equal {} [r zrange nokey 0 -1]
        }

        test "ZRANGE BYSCORE with open ends, infinities, REV and LIMIT ($enc)" {
            r del z
            r zadd z -inf ninf 1 a 2 b 3 c 4 d +inf pinf
            assert_equal {a b c} [r zrange z 1 3 byscore]
            assert_equal {b} [r zrange z (1 (3 byscore]
            assert_equal {ninf a} [r zrange z -inf 1 byscore]
            assert_equal {d pinf} [r zrange z (3 +inf byscore]
            assert_equal {c b} [r zrange z 3 (1 byscore rev]
            assert_equal {b 2 c 3} [r zrange z -inf +inf byscore limit 2 2 withscores]
            assert_equal {c b} [r zrange z +inf -inf byscore rev limit 2 2]
            assert_equal {c d pinf} [r zrange z 1 +inf byscore limit 2 -1]
            assert_equal {} [r zrange z 1 +inf byscore limit 10 5]
            assert_equal {} [r zrange z 1 +inf byscore limit -1 5]
            assert_equal {} [r zrange z 1 +inf byscore limit 0 0]
            assert_equal {} [r zrange z 3 1 byscore]
            assert_equal {} [r zrange z (2 (2 byscore]
            assert_equal {b} [r zrange z 2 2 byscore]
            assert_equal {a b c} [r zrangebyscore z 1 3]
            assert_equal {b 2 c 3} [r zrangebyscore z 1 3 withscores limit 1 10]
            assert_equal {c b a} [r zrevrangebyscore z 3 1]
            assert_equal {b 2} [r zrevrangebyscore z 3 1 limit 1 1 withscores]
        }

        test "ZRANGE BYLEX with inclusive, exclusive and infinite ends ($enc)" {
            r del z
            r zadd z 0 alpha 0 bar 0 cool 0 down 0 elephant 0 foo
            assert_equal {alpha bar cool} [r zrange z - {[cool} bylex]
            assert_equal {bar cool} [r zrange z {[bar} {(down} bylex]
            assert_equal {elephant foo} [r zrange z {(down} + bylex]
            assert_equal {foo elephant} [r zrange z + {(down} bylex rev]
            assert_equal {cool down} [r zrange z - + bylex limit 2 2]
            assert_equal {} [r zrange z + - bylex]
            assert_equal {} [r zrange z {(cool} {(cool} bylex]
            assert_equal {cool} [r zrange z {[cool} {[cool} bylex]
            assert_equal {bar cool down} [r zrangebylex z {[b} {(e}]
            assert_equal {down cool} [r zrevrangebylex z {(e} {[b} limit 0 2]
            assert_equal 3 [r zlexcount z {[b} {(e}]
            assert_equal 6 [r zlexcount z - +]
            assert_equal 0 [r zlexcount z + -]
        }

        test "ZCOUNT ($enc)" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal 4 [r zcount z -inf +inf]
            assert_equal 2 [r zcount z (1 3]
            assert_equal 1 [r zcount z (1 (3]
            assert_equal 0 [r zcount z 5 10]
            assert_equal 0 [r zcount z 3 1]
            assert_equal 0 [r zcount nokey 0 1]
        }

        test "ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX ($enc)" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal 2 [r zremrangebyrank z 1 2]
            assert_equal {a d e} [r zrange z 0 -1]
            assert_equal 0 [r zremrangebyrank z 5 10]
            assert_equal 1 [r zremrangebyrank z -1 -1]
            assert_equal 1 [r zremrangebyscore z (1 4]
            assert_equal {a} [r zrange z 0 -1]
            assert_equal 0 [r zremrangebyscore z 2 3]
            assert_equal 1 [r zremrangebyscore z -inf +inf]
            assert_equal 0 [r exists z]
            r zadd z 0 x 0 y 0 zz 0 a
            assert_equal 2 [r zremrangebylex z {(x} +]
            assert_equal {a x} [r zrange z 0 -1]
            assert_equal 1 [r zremrangebylex z {[a} {(b}]
            assert_equal 1 [r zremrangebylex z - +]
            assert_equal 0 [r exists z]
            assert_equal 0 [r zremrangebyrank z 0 -1]
            r zadd z 0 a 0 b
            assert_equal 2 [r zremrangebylex z - +]
            assert_equal 0 [r exists z]
            r zadd z 0 a 0 b
            assert_equal 2 [r zremrangebyrank z 0 -1]
            assert_equal 0 [r exists z]
        }

        test "ZRANGESTORE stores ranks, scores and lex ranges ($enc)" {
            r del src dst
            r zadd src 1 a 2 b 3 c 4 d
            assert_equal 2 [r zrangestore dst src 1 2]
            assert_equal {b 2 c 3} [r zrange dst 0 -1 withscores]
            assert_equal 3 [r zrangestore dst src 4 2 byscore rev]
            assert_equal {b c d} [r zrange dst 0 -1]
            assert_equal 1 [r zrangestore dst src +inf -inf byscore rev limit 1 1]
            assert_equal {c} [r zrange dst 0 -1]
            r del lex
            r zadd lex 0 a 0 b 0 c
            assert_equal 2 [r zrangestore dst lex {(a} + bylex]
            assert_equal {b c} [r zrange dst 0 -1]
            # The source may be the destination.
            assert_equal 2 [r zrangestore src src 0 1]
            assert_equal {a 1 b 2} [r zrange src 0 -1 withscores]
        }

        test "ZRANGESTORE with an empty result deletes the destination ($enc)" {
            r del src dst
            r zadd src 1 a
            r zadd dst 1 x
            assert_equal 0 [r zrangestore dst src 5 10 byscore]
            assert_equal 0 [r exists dst]
            r set dst string
            assert_equal 0 [r zrangestore dst nokey 0 -1]
            assert_equal 0 [r exists dst]
        }

        test "ZRANGESTORE overwrites a destination of another type and clears its TTL ($enc)" {
            r del src dst
            r zadd src 1 a 2 b
            r set dst string ex 100
            assert_equal 2 [r zrangestore dst src 0 -1]
            assert_type zset dst
            assert_equal -1 [r ttl dst]
        }

        test "Random operations agree with a model of the set ($enc)" {
            r del z
            expr {srand(7)}
            set model [dict create]
            for {set i 0} {$i < 300} {incr i} {
                set m "m[expr {int(rand() * 60)}]"
                set s [expr {int(rand() * 20) - 10}]
                if {rand() < 0.2} {
                    r zrem z $m
                    dict unset model $m
                } else {
                    r zadd z $s $m
                    dict set model $m $s
                }
            }
            set sorted {}
            dict for {m s} $model {lappend sorted [list $s $m]}
            set sorted [lsort -command {apply {{x y} {
                set d [expr {[lindex $x 0] - [lindex $y 0]}]
                if {$d != 0} {return [expr {$d < 0 ? -1 : 1}]}
                string compare [lindex $x 1] [lindex $y 1]
            }}} $sorted]
            set members {}
            foreach p $sorted {lappend members [lindex $p 1]}
            assert_equal [llength $members] [r zcard z]
            assert_equal $members [r zrange z 0 -1]
            assert_equal [lreverse $members] [r zrevrange z 0 -1]
            for {set t 0} {$t < 30} {incr t} {
                set lo [expr {int(rand() * 24) - 12}]
                set hi [expr {$lo + int(rand() * 10)}]
                set want {}
                foreach p $sorted {
                    if {[lindex $p 0] > $lo && [lindex $p 0] <= $hi} {lappend want [lindex $p 1]}
                }
                assert_equal $want [r zrangebyscore z ($lo $hi] "($lo $hi"
                assert_equal [llength $want] [r zcount z ($lo $hi]
                assert_equal [lreverse $want] [r zrevrangebyscore z $hi ($lo]
                set off [expr {int(rand() * 4)}]
                assert_equal [lrange $want $off [expr {$off + 1}]] \
                    [r zrangebyscore z ($lo $hi limit $off 2]
                set idx [expr {int(rand() * [llength $members])}]
                assert_equal $idx [r zrank z [lindex $members $idx]]
                assert_equal [expr {[llength $members] - 1 - $idx}] \
                    [r zrevrank z [lindex $members $idx]]
            }
        }
    }
    r config set zset-max-listpack-entries 128

    test {ZADD option conflicts and argument errors, in Redis's order} {
        r del z
        assert_error {ERR XX and NX options at the same time are not compatible} {r zadd z nx xx 1 a}
        assert_error {ERR GT, LT, and/or NX options at the same time are not compatible} \
            {r zadd z gt lt 1 a}
        assert_error {ERR GT, LT, and/or NX options at the same time are not compatible} \
            {r zadd z nx gt 1 a}
        assert_error {ERR INCR option supports a single increment-element pair} \
            {r zadd z incr 1 a 2 b}
        assert_error {ERR syntax error} {r zadd z 1 a 2}
        assert_error {ERR syntax error} {r zadd z nx ch}
        assert_error {ERR syntax error} {r zadd z nx xx 1}
        assert_error {ERR value is not a valid float} {r zadd z abc a}
        assert_error {ERR value is not a valid float} {r zadd z nan a}
        assert_error {ERR value is not a valid float} {r zadd z 1e400 a}
        assert_error {ERR value is not a valid float} {r zadd z { 1} a}
        # A bad score anywhere leaves the set untouched.
        assert_error {ERR value is not a valid float} {r zadd z 1 a 2 b x c}
        assert_equal 0 [r exists z]
        assert_error {*wrong number of arguments*} {r zadd z 1}
    }

    test {Scores accept inf spellings, exponents and hex, and reply in %.17g form} {
        r del z
        r zadd z inf a +inf b -inf c 1e3 d 0x10 e 0.1 f 1e100 g 3.0 h 123456789012345678 i
        assert_equal {inf inf -inf 1000 16 0.10000000000000001 1e+100 3 1.2345678901234568e+17} \
            [r zmscore z a b c d e f g h i]
        assert_equal 2.5000000000000001e-05 [r zincrby z 2.5e-5 n]
    }

    test {A -0 score reads back as 0 from a listpack and as -0 from a skiplist} {
        r del z
        r zadd z -0 a
        assert_encoding listpack z
        assert_equal 0 [r zscore z a]
        r config set zset-max-listpack-entries 0
        r del z
        r zadd z -0 a
        assert_encoding skiplist z
        assert_equal -0 [r zscore z a]
        r config set zset-max-listpack-entries 128
    }

    test {Range ends: exclusive marks, empty texts, overflow, NaN and lex items} {
        r del z
        r zadd z 0 a 1 b
        # A range end is read with plain strtod: "" and "(" are 0, 1e400 is inf.
        assert_equal {a} [r zrangebyscore z {} {}]
        assert_equal {b} [r zrangebyscore z ( 1e400]
        assert_equal {a b} [r zrangebyscore z { 0} 1]
        assert_error {ERR min or max is not a float} {r zrangebyscore z nan 1}
        assert_error {ERR min or max is not a float} {r zrangebyscore z 1 x}
        assert_error {ERR min or max is not a float} {r zcount z (x 1}
        assert_error {ERR min or max is not a float} {r zremrangebyscore z 1 ((1}
        assert_error {ERR min or max not valid string range item} {r zrangebylex z a +}
        assert_error {ERR min or max not valid string range item} {r zrangebylex z - ++}
        assert_error {ERR min or max not valid string range item} {r zlexcount z {} +}
        assert_error {ERR min or max not valid string range item} {r zremrangebylex z - b}
        assert_error {ERR value is not an integer or out of range} {r zremrangebyrank z a 1}
        assert_error {ERR value is not an integer or out of range} {r zrange z 0 1.5}
    }

    test {ZRANGE option errors, in Redis's order} {
        r del z
        r zadd z 1 a
        assert_error {ERR syntax error} {r zrange z 0 1 foo}
        assert_error {ERR syntax error} {r zrange z 0 1 limit 0}
        assert_error {ERR syntax error} {r zrange z 0 1 byscore bylex}
        assert_error {ERR value is not an integer or out of range} {r zrange z 0 1 limit a 1}
        assert_error {ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX} \
            {r zrange z 0 1 limit 0 1}
        # A count of -1 is "no limit", so it passes the check.
        assert_equal {a} [r zrange z 0 1 limit 0 -1]
        assert_error {ERR syntax error, WITHSCORES not supported in combination with BYLEX} \
            {r zrange z - + bylex withscores}
        assert_error {ERR syntax error, WITHSCORES not supported in combination with BYLEX} \
            {r zrangebylex z - + withscores}
        assert_error {ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX} \
            {r zrevrange z 0 1 limit 0 1}
        # The older forms fix their kind and direction.
        assert_error {ERR syntax error} {r zrangebyscore z 0 1 rev}
        assert_error {ERR syntax error} {r zrangebyscore z 0 1 bylex}
        assert_error {ERR syntax error} {r zrevrange z 0 1 rev}
        assert_error {ERR syntax error} {r zrangestore dst z 0 1 withscores}
        # Options are checked before the range, the range before the key.
        assert_error {ERR syntax error} {r zrange z x y foo}
        r set str v
        assert_error {ERR min or max is not a float} {r zrange str x y byscore}
        assert_error {WRONGTYPE*} {r zrange str 0 1}
    }

    test {WRONGTYPE from every command on a non-sorted-set key} {
        r del str
        r set str v
        foreach cmd {
            {zadd str 1 a} {zincrby str 1 a} {zrem str a} {zcard str} {zscore str a}
            {zmscore str a} {zrank str a} {zrevrank str a} {zcount str 0 1}
            {zlexcount str - +} {zrange str 0 1} {zrevrange str 0 1} {zrangebyscore str 0 1}
            {zrevrangebyscore str 1 0} {zrangebylex str - +} {zrevrangebylex str + -}
            {zrangestore dst str 0 1} {zremrangebyrank str 0 1} {zremrangebyscore str 0 1}
            {zremrangebylex str - +}
        } {
            assert_error {WRONGTYPE*} {r {*}$cmd} $cmd
        }
        assert_equal v [r get str]
    }

    test {Arity errors} {
        foreach cmd {
            {zadd z 1} {zincrby z 1} {zrem z} {zcard} {zscore z} {zmscore z} {zrank z}
            {zcount z 1} {zlexcount z -} {zrange z 0} {zrangestore d s 0} {zrangebyscore z 0}
            {zremrangebyrank z 0} {zremrangebyscore z 0 1 2} {zremrangebylex z -}
        } {
            assert_error {*wrong number of arguments*} {r {*}$cmd} $cmd
        }
    }

    test {A listpack becomes a skiplist past zset-max-listpack-entries} {
        r del z
        for {set i 0} {$i < 128} {incr i} {r zadd z $i m$i}
        assert_encoding listpack z
        r zadd z 128 m128
        assert_encoding skiplist z
        assert_equal 129 [r zcard z]
        # It stays a skiplist when it shrinks.
        r zremrangebyrank z 0 100
        assert_encoding skiplist z
        assert_equal {m101 m102} [r zrange z 0 1]
    }

    test {A member longer than zset-max-listpack-value makes a skiplist} {
        r del z z2
        r zadd z 1 a
        r zadd z 2 [string repeat x 65]
        assert_encoding skiplist z
        r zadd z2 1 [string repeat x 64]
        assert_encoding listpack z2
        r zadd z3 1 [string repeat x 65] 2 b
        assert_encoding skiplist z3
        r del z z2 z3
    }

    test {CONFIG SET of the listpack limits applies to later writes} {
        r del z
        r config set zset-max-listpack-entries 4
        r config set zset-max-listpack-value 8
        r zadd z 1 a 2 b 3 c 4 d
        assert_encoding listpack z
        r zadd z 5 e
        assert_encoding skiplist z
        r del z
        r zadd z 1 aaaaaaaa
        assert_encoding listpack z
        r zadd z 1 aaaaaaaaa
        assert_encoding skiplist z
        # ZADD INCR on a new key and ZRANGESTORE follow the same rules.
        r del z dst
        r zincrby z 1 aaaaaaaaa
        assert_encoding skiplist z
        r zadd src 1 a 2 b 3 c 4 d 5 e
        r zrangestore dst src 0 3
        assert_encoding listpack dst
        r zrangestore dst src 0 4
        assert_encoding skiplist dst
        r config set zset-max-listpack-entries 128
        r config set zset-max-listpack-value 64
        r del z src dst
    }

    test {ZRANGESTORE builds a listpack for a small result even from a skiplist source} {
        r del src dst
        for {set i 0} {$i < 200} {incr i} {r zadd src $i m$i}
        assert_encoding skiplist src
        assert_equal 3 [r zrangestore dst src 0 2]
        assert_encoding listpack dst
        assert_equal 3 [r zrangestore dst src 0 2 byscore]
        assert_encoding listpack dst
        assert_equal 151 [r zrangestore dst src 0 150]
        assert_encoding skiplist dst
        r config set zset-max-listpack-entries 0
        assert_equal 3 [r zrangestore dst src 0 2]
        assert_encoding skiplist dst
        r config set zset-max-listpack-entries 128
        r del src dst
    }

    test {ZRANGESTORE of a long rank range starts as a skiplist and keeps a -0 score} {
        r del src d1 d2 d3
        r config set zset-max-listpack-entries 0
        r zadd src -0 a 1 b 2 c 3 d 4 e 5 f
        r config set zset-max-listpack-entries 4
        assert_equal 5 [r zrangestore d1 src 0 4]
        assert_equal -0 [r zscore d1 a]
        assert_encoding skiplist d1
        # Four fit a listpack, which stores -0 as 0; a score range grows one and converts.
        assert_equal 4 [r zrangestore d2 src 0 3]
        assert_equal 0 [r zscore d2 a]
        assert_equal 6 [r zrangestore d3 src -inf 10 byscore]
        assert_equal 0 [r zscore d3 a]
        assert_encoding skiplist d3
        r config set zset-max-listpack-entries 128
        r del src d1 d2 d3
    }

    test {RESP2 replies: WITHSCORES is a flat array of bulk strings} {
        r del z
        r zadd z 1 a 2.5 b
        assert_equal {*4 {$1} a {$1} 1 {$1} b {$3} 2.5} [zset_raw 2 zrange z 0 -1 withscores]
        assert_equal {{$3} 2.5} [zset_raw 2 zscore z b]
        assert_equal {{$-1}} [zset_raw 2 zscore z x]
        assert_equal {*2 {$1} 1 {$-1}} [zset_raw 2 zmscore z a x]
        assert_equal {{$3} 3.5} [zset_raw 2 zincrby z 1 b]
        assert_equal {{$-1}} [zset_raw 2 zadd z nx incr 1 a]
        assert_equal {:0} [zset_raw 2 zrank z a]
        assert_equal {{$-1}} [zset_raw 2 zrank z x]
        assert_equal {*0} [zset_raw 2 zrange nokey 0 -1]
    }

    test {RESP3 replies: scores are doubles, WITHSCORES pairs are arrays} {
        r del z
        r zadd z 1 a 2.5 b
        assert_equal {*2 *2 {$1} a ,1 *2 {$1} b ,2.5} [zset_raw 3 zrange z 0 -1 withscores]
        assert_equal {*2 *2 {$1} b ,2.5 *2 {$1} a ,1} \
            [zset_raw 3 zrevrangebyscore z +inf -inf withscores]
        assert_equal {*2 {$1} a {$1} b} [zset_raw 3 zrange z 0 -1]
        assert_equal {,2.5} [zset_raw 3 zscore z b]
        assert_equal {_} [zset_raw 3 zscore z x]
        assert_equal {*2 ,1 _} [zset_raw 3 zmscore z a x]
        assert_equal {,3.5} [zset_raw 3 zincrby z 1 b]
        assert_equal {_} [zset_raw 3 zadd z nx incr 1 a]
        assert_equal {_} [zset_raw 3 zrevrank z x]
        r zadd z inf c -inf d
        assert_equal {,inf} [zset_raw 3 zscore z c]
        assert_equal {,-inf} [zset_raw 3 zscore z d]
    }

    test {Integer-looking members come back as the same bytes} {
        r del z
        r zadd z 1 12 2 -5 3 007 4 9223372036854775807
        assert_equal {12 -5 007 9223372036854775807} [r zrange z 0 -1]
        assert_equal 2 [r zscore z -5]
        assert_equal 2 [r zrank z 007]
        r del z
        r zadd z 0 12 0 -5 0 007 0 9223372036854775807 0 100
        assert_equal {-5 007 100 12 9223372036854775807} [r zrange z 0 -1]
        assert_equal {007 100 12} [r zrangebylex z {[0} {(9}]
    }

    test {MULTI/WATCH: a changing ZADD aborts EXEC, a no-op does not} {
        r del z
        r zadd z 1 a
        r watch z
        set c [redis_client]
        $c zadd z 2 a
        r multi
        r ping
        assert_equal {} [r exec]
        r watch z
        $c zadd z xx 1 nope
        $c zadd z nx 5 a
        $c zrem z nope
        $c zremrangebyscore z 10 20
        r multi
        r ping
        assert_equal {PONG} [r exec]
        r watch z
        $c zremrangebyrank z 0 -1
        r multi
        r ping
        assert_equal {} [r exec]
        $c close
    }

    test {ZRANGESTORE to a watched destination aborts EXEC} {
        r del src dst
        r zadd src 1 a
        r watch dst
        set c [redis_client]
        $c zrangestore dst src 0 -1
        r multi
        r ping
        assert_equal {} [r exec]
        $c close
    }

    test {Sorted-set commands inside MULTI} {
        r del z
        r multi
        r zadd z 1 a 2 b
        r zincrby z 5 a
        r zrange z 0 -1 withscores
        r zrem z a b
        assert_equal {2 6 {b 2 a 6} 2} [r exec]
        assert_equal 0 [r exists z]
    }
}

start_server {tags {zset redistp}} {
    test {WATCHEX sees a sorted set created by ZADD and deleted when emptied} {
        r del wz
        set c [redis_client]
        assert_equal NOEXIST [$c watchex wz]
        r zadd wz 1 a 2 b
        assert_equal {watchex wz ADD} [$c read]
        r zadd wz 3 c
        r zrem wz a b
        assert_equal PONG [$c ping]
        r zremrangebyrank wz 0 -1
        assert_equal {watchex wz DEL} [$c read]
        r zincrby wz 1 a
        assert_equal {watchex wz ADD} [$c read]
        r zremrangebyscore wz -inf +inf
        assert_equal {watchex wz DEL} [$c read]
        r zadd src 1 a
        r zrangestore wz src 0 -1
        assert_equal {watchex wz ADD} [$c read]
        r zrangestore wz src 5 10
        assert_equal {watchex wz DEL} [$c read]
        r zadd wz 0 a
        assert_equal {watchex wz ADD} [$c read]
        r zremrangebylex wz - +
        assert_equal {watchex wz DEL} [$c read]
        $c close
    }
}

# ZMPOP and BZMPOP take from one sorted set: a replica is told ZPOPMIN/ZPOPMAX with the count.
start_server {tags {zset repl external:skip}} {
    test {ZMPOP and BZMPOP reach the replication stream as ZPOPMIN or ZPOPMAX with a count} {
        with_repl_stream rs {
            r zadd z 1 a 2 b 3 c 4 d
            r zmpop 2 noset z min count 2
            r zmpop 1 z max
            r bzmpop 0 1 z max count 10
            r zmpop 1 z min
            r set marker 1
            assert_repl_stream $rs {
                {select *} {zadd z 1 a 2 b 3 c 4 d} {zpopmin z 2} {zpopmax z 1} {zpopmax z 1}
                {set marker 1}
            }
        }
    }
}

# While a forked child (BGSAVE, AOF rewrite) shares the memory, a sorted set's member table
# holds still as the key table does (no shrink, growth only past 5 members per bucket), so a
# resize does not make the kernel copy its pages for the child; the next removal after it
# (a single ZREM or a range) shrinks. ZSCORE looks the table up, which moves a rehash on (our
# ZRANDMEMBER draws from the skiplist, Redis's from the table).
start_server {tags {zset needs:debug needs:config external:skip}} {
    test {A sorted set's table keeps its size while a child runs and shrinks after it} {
        r flushall
        r set anchor x
        batched_call {zadd myz} 0 12000 {%1$d m:%1$d}
        assert_encoding skiplist myz
        htstats_key_settle myz {zscore myz none}
        assert_equal 16384 [htstats_key_size myz]

        held_child_start
        batched_call {zrem myz} 0 11800 m:%d
        # A range removal holds too.
        r zremrangebyscore myz 11800 11899
        assert_equal 100 [r zcard myz]
        assert_equal 16384 [htstats_key_size myz]
        assert_equal 0 [htstats_key_rehashing myz]
        unset -nocomplain drawn
        array set drawn {}
        for {set round 0} {$round < 5000 && [array size drawn] < 100} {incr round} {
            foreach m [r zrandmember myz -20] {set drawn($m) 1}
        }
        assert_equal [lsort [r zrange myz 0 -1]] [lsort [array names drawn]]
        held_child_end

        assert_equal 16384 [htstats_key_size myz]
        r zremrangebyrank myz 0 0
        assert_equal 1 [htstats_key_rehashing myz]
        htstats_key_settle myz {zscore myz none}
        assert_equal 128 [htstats_key_size myz]
        assert_equal 99 [r zcard myz]
        # A single ZREM starts the shrink as well, at the removal that leaves fewer than one
        # member in ten buckets (12 in 128).
        set members [r zrange myz 0 -1]
        foreach m [lrange $members 0 85] {r zrem myz $m}
        assert_equal 0 [htstats_key_rehashing myz]
        r zrem myz [lindex $members 86]
        assert_equal 1 [htstats_key_rehashing myz]
        htstats_key_settle myz {zscore myz none}
        assert_equal 16 [htstats_key_size myz]
    }
}
