# Sorted sets, the operations beyond the core: ZPOPMIN/ZPOPMAX (count), ZMPOP, ZRANDMEMBER
# (count, negative count, WITHSCORES, fairness), ZUNION/ZINTER/ZDIFF and their *STORE forms
# (WEIGHTS, AGGREGATE, plain sets as inputs, NaN rules), ZINTERCARD (LIMIT). Most tests run once
# per encoding (listpack, then skiplist forced with zset-max-listpack-entries 0). Reply frames
# are checked raw in RESP2 and RESP3; then errors and their order, WRONGTYPE, arity, deletion of
# emptied keys, MULTI/WATCH, and (tag redistp) WATCHEX events.

# Every protocol line of the next reply of raw-mode client c, nested frames included.
proc zops_collect {c listvar} {
    upvar 1 $listvar lines
    set line [$c read]
    lappend lines $line
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        $ {if {$n >= 0} {lappend lines [$c read]}}
        * - ~ - > {for {set i 0} {$i < $n} {incr i} {zops_collect $c lines}}
        % {for {set i 0} {$i < 2 * $n} {incr i} {zops_collect $c lines}}
    }
}

# The raw lines of one command's reply on a fresh connection speaking RESP `proto`, joined by
# spaces.
proc zops_raw {proto args} {
    set c [redis_client]
    $c hello $proto
    $c readraw 1
    $c deferred 1
    $c {*}$args
    set lines {}
    zops_collect $c lines
    $c close
    return [join $lines " "]
}

# Pearson's chi-square statistic of drawn members against a uniform draw over `members`.
proc zops_chi_square {drawn members} {
    set counts [dict create]
    foreach m $members {dict set counts $m 0}
    foreach m $drawn {dict incr counts $m}
    set expected [expr {double([llength $drawn]) / [llength $members]}]
    set chi 0.0
    dict for {m n} $counts {
        set d [expr {$n - $expected}]
        set chi [expr {$chi + $d * $d / $expected}]
    }
    return $chi
}

start_server {tags {zset}} {
    foreach enc {listpack skiplist} {
        r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 128 : 0}]

        test "ZPOPMIN and ZPOPMAX pop from the ends, one or count ($enc)" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_encoding $enc z
            assert_equal {a 1} [r zpopmin z]
            assert_equal {e 5} [r zpopmax z]
            assert_equal {b 2 c 3} [r zpopmin z 2]
            assert_equal {d 4} [r zpopmax z 10]
            assert_equal 0 [r exists z]
            assert_equal {} [r zpopmin z]
            assert_equal {} [r zpopmax z 3]
        }

        test "ZPOPMIN with count 0 pops nothing ($enc)" {
            r del z
            r zadd z 1 a
            assert_equal {} [r zpopmin z 0]
            assert_equal 1 [r zcard z]
        }

        test "ZPOPMIN breaks score ties by member bytes, ZPOPMAX in reverse ($enc)" {
            r del z
            r zadd z 1 b 1 a 1 c -inf x inf y
            assert_equal {x -inf a 1} [r zpopmin z 2]
            assert_equal {y inf c 1 b 1} [r zpopmax z 3]
        }

        test "ZPOPMIN returns integer-like and binary members intact ($enc)" {
            r del z
            r zadd z 1 12345 2 "a\x00b" 3 -7
            assert_equal [list 12345 1 "a\x00b" 2 -7 3] [r zpopmin z 3]
        }

        test "ZMPOP pops from the first non-empty key ($enc)" {
            r del z1 z2
            r zadd z2 1 a 2 b 3 c
            assert_equal {z2 {{a 1}}} [r zmpop 2 z1 z2 min]
            assert_equal {z2 {{c 3} {b 2}}} [r zmpop 2 z1 z2 MAX COUNT 5]
            assert_equal 0 [r exists z2]
            assert_equal {} [r zmpop 2 z1 z2 min]
        }

        test "ZRANDMEMBER without count returns a member ($enc)" {
            r del z
            r zadd z 1 a 2 b 3 c
            for {set i 0} {$i < 20} {incr i} {
                assert {[lsearch -exact {a b c} [r zrandmember z]] >= 0}
            }
            assert_equal {} [r zrandmember nokey]
        }

        test "ZRANDMEMBER with positive count returns distinct members ($enc)" {
            r del z
            for {set i 0} {$i < 60} {incr i} {r zadd z $i m$i}
            assert_encoding $enc z
            foreach count {1 5 19 20 21 40 59} {
                set got [r zrandmember z $count]
                assert_equal $count [llength $got]
                assert_unique $got
                foreach m $got {assert_match {m*} $m}
            }
            assert_equal 60 [llength [r zrandmember z 60]]
            assert_equal 60 [llength [r zrandmember z 1000]]
            assert_unique [r zrandmember z 1000]
        }

        test "ZRANDMEMBER WITHSCORES pairs each member with its score ($enc)" {
            r del z
            for {set i 0} {$i < 30} {incr i} {r zadd z [expr {$i * 1.5}] m$i}
            foreach count {3 10 -50 100} {
                set got [r zrandmember z $count withscores]
                foreach {m s} $got {
                    assert_equal [r zscore z $m] $s
                }
            }
            assert_equal 100 [llength [r zrandmember z -50 withscores]]
        }

        test "ZRANDMEMBER with negative count may repeat and returns exactly |count| ($enc)" {
            r del z
            r zadd z 1 a
            assert_equal {a a a a a} [r zrandmember z -5]
            r zadd z 2 b
            assert_equal 100 [llength [r zrandmember z -100]]
        }

        test "ZRANDMEMBER draws every member about equally often ($enc)" {
            r del z
            set members {}
            for {set i 0} {$i < 20} {incr i} {
                r zadd z $i m$i
                lappend members m$i
            }
            # 19 degrees of freedom: P(chi-square > 60) is below 1e-5 for a uniform draw. (Redis
            # 7.0's skiplist picks lean slightly; 1000 draws keep that under the bound, the
            # redistp test below asks more of ours.)
            assert_lessthan [zops_chi_square [r zrandmember z -1000] $members] 60
            # Distinct picks of 5 out of 20, repeated: each member still comes up uniformly.
            set drawn {}
            for {set i 0} {$i < 200} {incr i} {lappend drawn {*}[r zrandmember z 5]}
            assert_lessthan [zops_chi_square $drawn $members] 60
            # And one member alone.
            set drawn {}
            for {set i 0} {$i < 1000} {incr i} {lappend drawn [r zrandmember z]}
            assert_lessthan [zops_chi_square $drawn $members] 60
        }

        test "ZUNION, ZINTER and ZDIFF order the result by score then member ($enc)" {
            r del z1 z2 z3
            r zadd z1 1 a 2 b 3 c
            r zadd z2 1 b 2 c 3 d
            r zadd z3 5 c
            assert_equal {a b d c} [r zunion 2 z1 z2]
            assert_equal {a 1 b 3 d 3 c 5} [r zunion 2 z1 z2 withscores]
            assert_equal {b 3 c 5} [r zinter 2 z1 z2 withscores]
            assert_equal {c 10} [r zinter 3 z1 z2 z3 withscores]
            assert_equal {a 1} [r zdiff 2 z1 z2 withscores]
            assert_equal {a b} [r zdiff 2 z1 z3]
            assert_equal {} [r zdiff 3 z1 z2 z1]
        }

        test "WEIGHTS and AGGREGATE SUM, MIN, MAX ($enc)" {
            r del z1 z2
            r zadd z1 1 a 2 b 3 c
            r zadd z2 1 b 2 c 3 d
            assert_equal {a 2 b 7 d 9 c 12} [r zunion 2 z1 z2 weights 2 3 withscores]
            assert_equal {a 1 b 1 c 2 d 3} [r zunion 2 z1 z2 aggregate min withscores]
            assert_equal {a 1 b 2 c 3 d 3} [r zunion 2 z1 z2 aggregate max withscores]
            assert_equal {b 2 c 3} [r zinter 2 z1 z2 AGGREGATE MAX WITHSCORES]
            assert_equal {c -2 b -1} [r zinter 2 z1 z2 weights 0 -1 aggregate sum withscores]
            # The last WEIGHTS and AGGREGATE given win.
            assert_equal {a 1 b 2 c 3 d 3} \
                [r zunion 2 z1 z2 weights 5 5 aggregate sum weights 1 1 aggregate max withscores]
            assert_equal {a 1.5 b 3 c 4.5} [r zunion 1 z1 weights 1.5 withscores]
        }

        test "Infinite scores: inf * 0 counts as 0, and so does a SUM of inf and -inf ($enc)" {
            r del zi1 zi2
            r zadd zi1 inf a 1 b
            r zadd zi2 -inf a 2 b
            assert_equal {a 0 b 3} [r zunion 2 zi1 zi2 withscores]
            assert_equal {a 0 b 3} [r zinter 2 zi1 zi2 withscores]
            assert_equal {a 0 b 0} [r zunion 1 zi1 weights 0 withscores]
            assert_equal {a -inf b 1} [r zinter 2 zi1 zi2 aggregate min withscores]
            assert_equal {b 2 a inf} [r zinter 2 zi1 zi2 aggregate max withscores]
            assert_equal {a -inf b -1} [r zunion 1 zi1 weights -1 withscores]
        }

        test "Plain sets take part with score 1 ($enc)" {
            r del z1 s1 s2
            r zadd z1 1 a 2 b 3 c
            r sadd s1 a x
            r sadd s2 1 2 3
            assert_equal {x 1 a 2 b 2 c 3} [r zunion 2 z1 s1 withscores]
            assert_equal {a 2} [r zinter 2 z1 s1 withscores]
            assert_equal {b 2 c 3} [r zdiff 2 z1 s1 withscores]
            assert_equal {x} [r zdiff 2 s1 z1]
            assert_equal {1 5 2 5 3 5} [r zunion 1 s2 weights 5 withscores]
            assert_equal 1 [r zintercard 2 z1 s1]
        }

        test "Absent keys are empty inputs ($enc)" {
            r del z1 nokey
            r zadd z1 1 a
            assert_equal {a 1} [r zunion 2 nokey z1 withscores]
            assert_equal {} [r zinter 2 nokey z1]
            assert_equal {} [r zdiff 2 nokey z1]
            assert_equal {a} [r zdiff 2 z1 nokey]
            assert_equal {} [r zunion 1 nokey withscores]
            assert_equal 0 [r zintercard 2 z1 nokey]
        }

        test "A key given twice counts twice ($enc)" {
            r del z1
            r zadd z1 1 a 2 b
            assert_equal {a 2 b 4} [r zunion 2 z1 z1 withscores]
            assert_equal {a 2 b 4} [r zinter 2 z1 z1 withscores]
            assert_equal {} [r zdiff 2 z1 z1]
        }

        test "ZUNIONSTORE, ZINTERSTORE and ZDIFFSTORE store the result ($enc)" {
            r del z1 z2 dst
            r zadd z1 1 a 2 b 3 c
            r zadd z2 1 b 2 c 3 d
            assert_equal 4 [r zunionstore dst 2 z1 z2 weights 2 3 aggregate max]
            assert_equal {a 2 b 4 c 6 d 9} [r zrange dst 0 -1 withscores]
            assert_equal 2 [r zinterstore dst 2 z1 z2 aggregate min]
            assert_equal {b 1 c 2} [r zrange dst 0 -1 withscores]
            assert_equal 1 [r zdiffstore dst 2 z1 z2]
            assert_equal {a 1} [r zrange dst 0 -1 withscores]
            assert_encoding $enc dst
        }

        test "A *STORE destination may be one of its inputs ($enc)" {
            r del z1 z2
            r zadd z1 1 a 2 b
            r zadd z2 10 b 20 c
            assert_equal 3 [r zunionstore z1 2 z1 z2]
            assert_equal {a 1 b 12 c 20} [r zrange z1 0 -1 withscores]
            assert_equal 0 [r zdiffstore z2 3 z2 z1 z2]
            assert_equal 0 [r exists z2]
        }

        test "An empty result deletes the destination ($enc)" {
            r del z1 dst
            r zadd z1 1 a
            r zadd dst 5 x
            assert_equal 0 [r zinterstore dst 2 z1 nokey]
            assert_equal 0 [r exists dst]
            r set dst string
            assert_equal 0 [r zdiffstore dst 2 z1 z1]
            assert_equal 0 [r exists dst]
            assert_equal 0 [r zunionstore dst 1 nokey]
            assert_equal 0 [r exists dst]
        }

        test "ZINTERCARD counts the intersection, stopping at LIMIT ($enc)" {
            r del z1 z2
            r zadd z1 1 a 2 b 3 c 4 d
            r zadd z2 1 b 2 c 3 d 4 e
            assert_equal 3 [r zintercard 2 z1 z2]
            assert_equal 3 [r zintercard 2 z1 z2 limit 0]
            assert_equal 2 [r zintercard 2 z1 z2 limit 2]
            assert_equal 3 [r zintercard 2 z1 z2 limit 10]
            assert_equal 1 [r zintercard 2 z1 z2 limit 5 limit 1]
            assert_equal 4 [r zintercard 1 z1]
        }
    }
    r config set zset-max-listpack-entries 128

    test {A *STORE result is a listpack when it fits and a skiplist otherwise} {
        r config set zset-max-listpack-entries 4
        r config set zset-max-listpack-value 10
        r del z1 z2 dst
        r zadd z1 1 a 2 b
        r zadd z2 3 c 4 d
        assert_equal 4 [r zunionstore dst 2 z1 z2]
        assert_encoding listpack dst
        r zadd z2 5 e
        assert_equal 5 [r zunionstore dst 2 z1 z2]
        assert_encoding skiplist dst
        assert_equal {a b c d e} [r zrange dst 0 -1]
        r del z2
        r zadd z2 1 aaaaaaaaaaaaaaaaaa
        assert_equal 3 [r zunionstore dst 2 z1 z2]
        assert_encoding skiplist dst
        # Skiplist inputs with a small result give a listpack.
        r config set zset-max-listpack-entries 0
        r del z3
        r zadd z3 1 a 2 b
        assert_encoding skiplist z3
        r config set zset-max-listpack-entries 4
        assert_equal 2 [r zinterstore dst 1 z3]
        assert_encoding listpack dst
        r config set zset-max-listpack-entries 128
        r config set zset-max-listpack-value 64
    }

    test {A *STORE replaces any value and its TTL} {
        r del z1 dst
        r zadd z1 1 a
        r set dst string
        r expire dst 100
        assert_equal 1 [r zunionstore dst 1 z1]
        assert_equal zset [r type dst]
        assert_equal -1 [r ttl dst]
    }

    test {ZPOPMIN and ZPOPMAX reply frames in RESP2 and RESP3} {
        r del z
        r zadd z 1 a 2.5 b 3 c 4 d
        assert_equal {*2 $1 a $1 1} [zops_raw 2 zpopmin z]
        assert_equal {*2 $1 d ,4} [zops_raw 3 zpopmax z]
        r zadd z 1 a 4 d
        assert_equal {*2 $1 a $1 1} [zops_raw 2 zpopmin z 1]
        assert_equal {*1 *2 $1 b ,2.5} [zops_raw 3 zpopmin z 1]
        assert_equal {*2 *2 $1 d ,4 *2 $1 c ,3} [zops_raw 3 zpopmax z 2]
        assert_equal {*0} [zops_raw 3 zpopmin nokey]
        assert_equal {*0} [zops_raw 3 zpopmin nokey 2]
        assert_equal {*0} [zops_raw 2 zpopmin nokey]
    }

    test {ZMPOP reply frames in RESP2 and RESP3} {
        r del z
        r zadd z 1 a 2 b 3 c
        assert_equal {*2 $1 z *1 *2 $1 a $1 1} [zops_raw 2 zmpop 1 z min]
        assert_equal {*2 $1 z *2 *2 $1 c ,3 *2 $1 b ,2} [zops_raw 3 zmpop 1 z max count 2]
        assert_equal {*-1} [zops_raw 2 zmpop 1 z min]
        assert_equal {_} [zops_raw 3 zmpop 1 z min]
    }

    test {ZRANDMEMBER reply frames in RESP2 and RESP3} {
        r del z
        r zadd z 1.5 a
        assert_equal {$1 a} [zops_raw 3 zrandmember z]
        assert_equal {$-1} [zops_raw 2 zrandmember nokey]
        assert_equal {_} [zops_raw 3 zrandmember nokey]
        assert_equal {*0} [zops_raw 3 zrandmember nokey 2]
        assert_equal {*0} [zops_raw 2 zrandmember z 0]
        assert_equal {*2 $1 a $3 1.5} [zops_raw 2 zrandmember z 1 withscores]
        assert_equal {*1 *2 $1 a ,1.5} [zops_raw 3 zrandmember z 1 withscores]
        assert_equal {*2 *2 $1 a ,1.5 *2 $1 a ,1.5} [zops_raw 3 zrandmember z -2 withscores]
        assert_equal {*2 $1 a $1 a} [zops_raw 3 zrandmember z -2]
    }

    test {ZUNION/ZINTER/ZDIFF reply frames in RESP2 and RESP3, *STORE an integer} {
        r del z1 z2
        r zadd z1 1 a 0.5 b
        r zadd z2 inf b
        assert_equal {*4 $1 a $1 1 $1 b $3 inf} [zops_raw 2 zunion 2 z1 z2 withscores]
        assert_equal {*2 *2 $1 a ,1 *2 $1 b ,inf} [zops_raw 3 zunion 2 z1 z2 withscores]
        assert_equal {*1 *2 $1 b ,inf} [zops_raw 3 zinter 2 z1 z2 withscores]
        assert_equal {*1 *2 $1 a ,1} [zops_raw 3 zdiff 2 z1 z2 withscores]
        assert_equal {*2 $1 a $1 b} [zops_raw 3 zunion 2 z1 z2]
        assert_equal {*0} [zops_raw 3 zinter 2 z1 nokey withscores]
        assert_equal {:2} [zops_raw 3 zunionstore d 2 z1 z2]
        assert_equal {:1} [zops_raw 3 zintercard 2 z1 z2]
        assert_equal {*4 $1 a $4 -0.5 $1 b $5 -0.25} [zops_raw 2 zunion 1 z1 weights -0.5 withscores]
    }

    test {Scores in replies keep 17 significant digits} {
        r del z
        r zadd z 0.1 a
        assert_equal {a 0.10000000000000001} [r zunion 1 z withscores]
        assert_equal {a 0.30000000000000004} [r zunion 1 z weights 3 withscores]
        assert_equal {a 0.10000000000000001} [r zpopmin z]
    }

    test {ZPOPMIN/ZPOPMAX errors: count before type, and arity} {
        r del z str
        r set str x
        r zadd z 1 a
        assert_error {ERR value is out of range, must be positive} {r zpopmin z -1}
        assert_error {ERR value is out of range, must be positive} {r zpopmax z x}
        assert_error {ERR value is out of range, must be positive} {r zpopmin str -1}
        assert_error {WRONGTYPE*} {r zpopmin str}
        assert_error {WRONGTYPE*} {r zpopmax str 0}
        assert_error {ERR syntax error} {r zpopmin z 1 2}
        assert_error {ERR wrong number of arguments for 'zpopmin' command} {r zpopmin}
        assert_equal 1 [r zcard z]
    }

    test {ZMPOP errors and their order} {
        r del z str
        r set str x
        r zadd z 1 a
        assert_error {ERR numkeys should be greater than 0} {r zmpop 0 z min}
        assert_error {ERR numkeys should be greater than 0} {r zmpop -1 z min}
        assert_error {ERR numkeys should be greater than 0} {r zmpop x z min}
        assert_error {ERR numkeys should be greater than 0} {r zmpop 99999999999999999999 z min}
        assert_error {ERR syntax error} {r zmpop 3 z min}
        assert_error {ERR syntax error} {r zmpop 1 z foo}
        assert_error {ERR syntax error} {r zmpop 1 z min count}
        assert_error {ERR syntax error} {r zmpop 1 z min foo}
        assert_error {ERR syntax error} {r zmpop 1 z min count 1 count 2}
        assert_error {ERR count should be greater than 0} {r zmpop 1 z min count 0}
        assert_error {ERR count should be greater than 0} {r zmpop 1 z min count -1}
        assert_error {ERR count should be greater than 0} {r zmpop 1 z min count x}
        assert_error {WRONGTYPE*} {r zmpop 1 str min}
        assert_error {WRONGTYPE*} {r zmpop 2 nokey str min}
        # A key after the one popped is not looked at.
        assert_equal {z {{a 1}}} [r zmpop 2 z str min]
        assert_error {ERR wrong number of arguments for 'zmpop' command} {r zmpop 1 z}
    }

    test {ZRANDMEMBER errors and their order} {
        r del z str
        r set str x
        r zadd z 1 a
        assert_error {ERR value is not an integer or out of range} {r zrandmember z x}
        assert_error {ERR value is not an integer or out of range} {r zrandmember str x}
        assert_error {ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807} \
            {r zrandmember z -9223372036854775808}
        assert_error {ERR value is out of range} {r zrandmember z -9223372036854775807 withscores}
        assert_error {ERR value is out of range} {r zrandmember z 9223372036854775807 withscores}
        assert_error {ERR syntax error} {r zrandmember z 1 foo}
        assert_error {ERR syntax error} {r zrandmember z 0 foo}
        assert_error {ERR syntax error} {r zrandmember z 1 withscores x}
        assert_error {WRONGTYPE*} {r zrandmember str}
        assert_error {WRONGTYPE*} {r zrandmember str 1}
        assert_error {ERR wrong number of arguments for 'zrandmember' command} {r zrandmember}
        assert_equal {a} [r zrandmember z 9223372036854775807]
    }

    test {Set operation errors and their order} {
        r del z1 str d
        r zadd z1 1 a
        r set str x
        foreach cmd {zunion zinter zdiff zintercard} {
            assert_error "ERR at least 1 input key is needed for '$cmd' command" {r $cmd 0 z1}
            assert_error "ERR at least 1 input key is needed for '$cmd' command" {r $cmd -1 z1}
            assert_error {ERR value is not an integer or out of range} {r $cmd x z1}
            assert_error {ERR value is not an integer or out of range} \
                {r $cmd 99999999999999999999 z1}
            assert_error {ERR syntax error} {r $cmd 3 z1 z1}
            assert_error {ERR syntax error} {r $cmd 2147483648 z1}
            assert_error {ERR syntax error} {r $cmd 1 z1 foo}
            assert_error {WRONGTYPE*} {r $cmd 2 z1 str}
            assert_error {WRONGTYPE*} {r $cmd 2 nokey str}
            # The types are checked before the options.
            assert_error {WRONGTYPE*} {r $cmd 1 str foo}
        }
        foreach cmd {zunionstore zinterstore zdiffstore} {
            assert_error "ERR at least 1 input key is needed for '$cmd' command" {r $cmd d 0 z1}
            assert_error {ERR syntax error} {r $cmd d 1 z1 withscores}
            assert_error {WRONGTYPE*} {r $cmd d 1 str}
            assert_error "ERR wrong number of arguments for '$cmd' command" {r $cmd d 1}
        }
        foreach cmd {zunion zinter zunionstore zinterstore} {
            set pre [expr {[string match *store $cmd] ? "d" : ""}]
            assert_error {ERR syntax error} "r $cmd $pre 1 z1 weights"
            assert_error {ERR syntax error} "r $cmd $pre 1 z1 weights 1 2"
            assert_error {ERR weight value is not a float} "r $cmd $pre 1 z1 weights x"
            assert_error {ERR weight value is not a float} "r $cmd $pre 1 z1 weights nan"
            assert_error {ERR weight value is not a float} "r $cmd $pre 2 z1 z1 weights 1 1x"
            assert_error {ERR syntax error} "r $cmd $pre 1 z1 aggregate"
            assert_error {ERR syntax error} "r $cmd $pre 1 z1 aggregate avg"
        }
        assert_error {ERR syntax error} {r zdiff 1 z1 weights 1}
        assert_error {ERR syntax error} {r zdiff 1 z1 aggregate sum}
        assert_error {ERR syntax error} {r zdiffstore d 1 z1 weights 1}
        assert_error {ERR syntax error} {r zintercard 1 z1 withscores}
        assert_error {ERR syntax error} {r zintercard 1 z1 weights 1}
        assert_error {ERR syntax error} {r zintercard 1 z1 limit}
        assert_error {ERR LIMIT can't be negative} {r zintercard 1 z1 limit -1}
        assert_error {ERR LIMIT can't be negative} {r zintercard 1 z1 limit x}
        assert_error {ERR wrong number of arguments for 'zunion' command} {r zunion 0}
        assert_equal 0 [r exists d]
    }

    test {Pops delete the emptied key} {
        r del z
        r zadd z 1 a 2 b
        r zpopmin z
        assert_equal 1 [r exists z]
        r zpopmax z
        assert_equal 0 [r exists z]
        r zadd z 1 a
        r zmpop 1 z min count 3
        assert_equal 0 [r exists z]
    }

    test {ZPOPMIN on a big skiplist keeps the order} {
        r del z
        set expected {}
        for {set i 0} {$i < 500} {incr i} {
            r zadd z [expr {($i * 7919) % 500}] m$i
        }
        assert_encoding skiplist z
        set prev -1
        for {set i 0} {$i < 250} {incr i} {
            lassign [r zpopmin z] m s
            assert_morethan $s $prev
            set prev $s
        }
        set prev 1000
        for {set i 0} {$i < 250} {incr i} {
            lassign [r zpopmax z] m s
            assert_lessthan $s $prev
            set prev $s
        }
        assert_equal 0 [r exists z]
    }

    test {MULTI/WATCH: a pop or a store invalidates the transaction} {
        r del z dst
        r zadd z 1 a 2 b
        foreach cmd {{zpopmin z} {zpopmax z 1} {zmpop 1 z min} {zunionstore dst 1 z}} {
            r zadd z 1 a 2 b
            r watch z dst
            set c [redis_client]
            $c {*}$cmd
            $c close
            r multi
            r ping
            assert_equal {} [r exec]
        }
        # A pop from an absent key changes nothing.
        r del z
        r watch z
        r zpopmin z
        r multi
        r ping
        assert_equal {PONG} [r exec]
    }

    test {Pops and stores inside MULTI} {
        r del z dst
        r zadd z 1 a 2 b 3 c
        r multi
        r zpopmin z
        r zmpop 1 z max
        r zunionstore dst 1 z
        r zpopmin z 5
        assert_equal {{a 1} {z {{c 3}}} 1 {b 2}} [r exec]
        assert_equal 0 [r exists z]
        assert_equal {b 2} [r zrange dst 0 -1 withscores]
    }
}

start_server {tags {zset redistp}} {
    foreach enc {listpack skiplist} {
        r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 128 : 0}]
        test "ZRANDMEMBER picks are uniform over 20000 draws ($enc)" {
            r del z
            set members {}
            for {set i 0} {$i < 20} {incr i} {
                r zadd z $i m$i
                lappend members m$i
            }
            assert_encoding $enc z
            assert_lessthan [zops_chi_square [r zrandmember z -20000] $members] 60
            set drawn {}
            for {set i 0} {$i < 4000} {incr i} {lappend drawn {*}[r zrandmember z 5]}
            assert_lessthan [zops_chi_square $drawn $members] 60
            # Above a third of the set, the single-pass sampling.
            set drawn {}
            for {set i 0} {$i < 1000} {incr i} {lappend drawn {*}[r zrandmember z 15]}
            assert_lessthan [zops_chi_square $drawn $members] 60
        }
    }
    r config set zset-max-listpack-entries 128

    test {WATCHEX sees a sorted set emptied by pops and created or deleted by *STORE} {
        r del wz src
        set c [redis_client]
        assert_equal NOEXIST [$c watchex wz]
        r zadd wz 1 a 2 b
        assert_equal {watchex wz ADD} [$c read]
        r zpopmin wz
        assert_equal PONG [$c ping]
        r zpopmax wz
        assert_equal {watchex wz DEL} [$c read]
        r zadd src 1 a
        r zunionstore wz 1 src
        assert_equal {watchex wz ADD} [$c read]
        r zinterstore wz 2 src nokey
        assert_equal {watchex wz DEL} [$c read]
        r zdiffstore wz 1 src
        assert_equal {watchex wz ADD} [$c read]
        r zmpop 1 wz min
        assert_equal {watchex wz DEL} [$c read]
        $c close
    }
}
