# Hashes: HSET HMSET HSETNX HGET HMGET HSTRLEN HEXISTS HLEN HKEYS HVALS HGETALL HDEL HINCRBY
# HINCRBYFLOAT HRANDFIELD — replies in RESP2 and RESP3, error texts and their order, the
# listpack and hashtable encodings and the conversion at hash-max-listpack-entries / -value
# (CONFIG SET at runtime included), deletion of an emptied hash, MULTI/WATCH invalidation,
# the fairness of HRANDFIELD's draws (a chi-square bound), and WATCHEX pushes (tagged redistp).
#
# Every test not tagged redistp passes against Redis 7.0 as well.

# The first line of the raw reply to `args` on a fresh connection speaking RESP `proto`: the
# frame's type and length ("%3", "*0", "_", "$-1" ...).
proc raw_head {proto args} {
    set c [redis_client]
    if {$proto == 3} {$c hello 3}
    $c readraw 1
    set line [$c {*}$args]
    $c close
    return $line
}

# Pearson's chi-square statistic of the picks in `items` against a uniform draw among the
# `n` names of `universe` (names never picked count as 0).
proc chi_square {items universe} {
    set counts [dict create]
    foreach name $universe {dict set counts $name 0}
    foreach item $items {
        if {![dict exists $counts $item]} {fail "picked '$item', not in the hash"}
        dict incr counts $item
    }
    set expected [expr {double([llength $items]) / [llength $universe]}]
    set chi 0.0
    dict for {name seen} $counts {
        set chi [expr {$chi + ($seen - $expected) ** 2 / $expected}]
    }
    return $chi
}

# Field names of a flat field/value list.
proc fields_of {pairs} {
    set out {}
    foreach {f v} $pairs {lappend out $f}
    return $out
}

start_server {tags {hash}} {
    # ---- setting and reading fields ---------------------------------------------------------

    test {HSET adds fields, counts only the new ones, and updates values} {
        r del h
        assert_equal 3 [r hset h a 1 b 2 c 3]
        assert_equal 1 [r hset h a 10 d 4]
        assert_equal 0 [r hset h b 20]
        assert_equal 1 [r hset h e 5 e 6]
        assert_equal {a 10 b 20 c 3 d 4 e 6} [r hgetall h]
        assert_equal 5 [r hlen h]
        assert_encoding listpack h
        assert_type hash h
    }

    test {HSET with an odd number of field and value arguments is an arity error} {
        r del h
        assert_error {ERR wrong number of arguments for 'hset' command} {r hset h a 1 b}
        assert_error {ERR wrong number of arguments for 'hset' command} {r hset h a}
        assert_error {ERR wrong number of arguments for 'hmset' command} {r hmset h a 1 b}
        assert_equal 0 [r exists h]
    }

    test {HMSET replies OK and sets every pair} {
        r del h
        assert_equal OK [r hmset h a 1 b 2]
        assert_equal OK [r hmset h b 3 c 4]
        assert_equal {a 1 b 3 c 4} [r hgetall h]
    }

    test {HSETNX adds a missing field only} {
        r del h
        assert_equal 1 [r hsetnx h a 1]
        assert_equal 0 [r hsetnx h a 2]
        assert_equal 1 [r hsetnx h b 3]
        assert_equal {a 1 b 3} [r hgetall h]
    }

    test {HGET answers the value, or nil for a missing field or key} {
        r del h nokey
        r hset h f v n 123 neg -7
        assert_equal v [r hget h f]
        assert_equal 123 [r hget h n]
        assert_equal -7 [r hget h neg]
        assert_equal {} [r hget h missing]
        assert_equal {} [r hget nokey f]
        assert_equal {$-1} [raw_head 2 hget h missing]
        assert_equal {_} [raw_head 3 hget h missing]
        assert_equal {_} [raw_head 3 hget nokey f]
    }

    test {HMGET answers one entry per field, nil for missing ones} {
        r del h nokey
        r hset h a 1 b 2
        assert_equal {1 {} 2 {}} [r hmget h a x b y]
        assert_equal {{} {}} [r hmget nokey a b]
        assert_equal {*2} [raw_head 3 hmget nokey a b]
    }

    test {Binary-safe fields and values} {
        r del h
        set f "f\x00\r\nx"
        set v "v\x00\xff\r\n"
        r hset h $f $v "" empty
        assert_equal $v [r hget h $f]
        assert_equal empty [r hget h ""]
        r hset h $f ""
        assert_equal "" [r hget h $f]
        assert_equal 0 [r hstrlen h $f]
        assert_equal 1 [r hexists h $f]
    }

    test {HEXISTS and HLEN} {
        r del h nokey
        r hset h a 1 b 2
        assert_equal 1 [r hexists h a]
        assert_equal 0 [r hexists h z]
        assert_equal 0 [r hexists nokey a]
        assert_equal 2 [r hlen h]
        assert_equal 0 [r hlen nokey]
    }

    test {HSTRLEN counts the text of integer-encoded values} {
        r del h
        set values {0 -1 1 -123 127 128 -4096 4095 8191 -8192 32767 -32768 8388607 \
                    -8388608 2147483647 -2147483648 9223372036854775807 \
                    -9223372036854775808 9223372036854775808 0123 -0 +1 1.5 {} abc}
        set i 0
        foreach v $values {
            r hset h f$i $v
            incr i
        }
        assert_encoding listpack h
        set i 0
        foreach v $values {
            assert_equal [string length $v] [r hstrlen h f$i] "value '$v'"
            assert_equal $v [r hget h f$i] "value '$v'"
            incr i
        }
        assert_equal 0 [r hstrlen h missing]
        assert_equal 0 [r hstrlen nokey f]
    }

    test {HKEYS, HVALS and HGETALL keep insertion order in a listpack hash} {
        r del h
        r hset h z 1 a 2 m 3 100 4 b -5
        assert_equal {z a m 100 b} [r hkeys h]
        assert_equal {1 2 3 4 -5} [r hvals h]
        assert_equal {z 1 a 2 m 3 100 4 b -5} [r hgetall h]
        r hdel h a
        r hset h a 6
        assert_equal {z m 100 b a} [r hkeys h]
    }

    test {HGETALL is a map in RESP3, HKEYS and HVALS arrays; empty replies for a missing key} {
        r del h nokey
        r hset h a 1 b 2 c 3
        assert_equal {*6} [raw_head 2 hgetall h]
        assert_equal {%3} [raw_head 3 hgetall h]
        assert_equal {*3} [raw_head 3 hkeys h]
        assert_equal {*3} [raw_head 3 hvals h]
        assert_equal {*0} [raw_head 2 hgetall nokey]
        assert_equal {%0} [raw_head 3 hgetall nokey]
        assert_equal {*0} [raw_head 3 hkeys nokey]
        assert_equal {*0} [raw_head 3 hvals nokey]
        set c [redis_client]
        $c hello 3
        assert_equal {a 1 b 2 c 3} [$c hgetall h]
        $c close
    }

    # ---- deleting ------------------------------------------------------------------------

    test {HDEL counts removed fields and deletes the emptied key} {
        r del h nokey
        r hset h a 1 b 2 c 3
        assert_equal 2 [r hdel h a x c a]
        assert_equal {b 2} [r hgetall h]
        assert_equal 0 [r hdel h x y]
        assert_equal 0 [r hdel nokey a]
        assert_equal 1 [r hdel h b z]
        assert_equal 0 [r exists h]
        assert_equal none [r type h]
    }

    test {HDEL empties a hashtable hash too} {
        r del h
        r hset h a 1 b [string repeat x 100]
        assert_encoding hashtable h
        assert_equal 2 [r hdel h a b]
        assert_equal 0 [r exists h]
    }

    # ---- arithmetic ------------------------------------------------------------------------

    test {HINCRBY starts from 0 and adds signed steps} {
        r del h
        assert_equal 5 [r hincrby h n 5]
        assert_equal -2 [r hincrby h n -7]
        assert_equal -2 [r hincrby h n 0]
        assert_equal 1000000000000 [r hincrby h big 1000000000000]
        assert_equal 1000000000001 [r hincrby h big 1]
        assert_equal {n -2 big 1000000000001} [r hgetall h]
        assert_equal 4 [r hincrby h n 6]
    }

    test {HINCRBY on a hashtable hash} {
        r del h
        r hset h long [string repeat x 100] n 10
        assert_encoding hashtable h
        assert_equal 15 [r hincrby h n 5]
        assert_equal 3 [r hincrby h m 3]
        assert_equal 15 [r hget h n]
    }

    test {HINCRBY refuses a non-integer increment, then WRONGTYPE, then a bad stored value} {
        r del h s
        r set s x
        r hset h text hello sp " 1" float 1.5 big 9223372036854775808
        assert_error {ERR value is not an integer or out of range} {r hincrby h n abc}
        assert_error {ERR value is not an integer or out of range} {r hincrby h n 1.5}
        assert_error {ERR value is not an integer or out of range} {r hincrby s n x}
        assert_error {ERR value is not an integer or out of range} \
            {r hincrby h n 9223372036854775808}
        assert_error {WRONGTYPE*} {r hincrby s n 1}
        foreach f {text sp float big} {
            assert_error {ERR hash value is not an integer} {r hincrby h $f 1}
        }
        assert_equal " 1" [r hget h sp]
        assert_equal 0 [r hexists h n]
    }

    test {HINCRBY overflow is an error and changes nothing} {
        r del h
        r hset h max 9223372036854775807 min -9223372036854775808
        assert_error {ERR increment or decrement would overflow} {r hincrby h max 1}
        assert_error {ERR increment or decrement would overflow} {r hincrby h min -1}
        assert_error {ERR increment or decrement would overflow} \
            {r hincrby h min -9223372036854775808}
        assert_equal 9223372036854775807 [r hget h max]
        assert_equal -1 [r hincrby h min 9223372036854775807]
        assert_equal 0 [r hincrby h max -9223372036854775807]
    }

    test {HINCRBYFLOAT adds and stores the human-readable result} {
        r del h
        assert_equal 10.5 [r hincrbyfloat h f 10.5]
        assert_equal 10.6 [r hincrbyfloat h f 0.1]
        assert_equal 5.6 [r hincrbyfloat h f -5]
        assert_equal 5.6 [r hget h f]
        assert_equal 5000 [r hincrbyfloat h g 5.0e3]
        assert_equal 3 [r hincrbyfloat h i 3]
        r hset h n 17
        assert_equal 18.25 [r hincrbyfloat h n 1.25]
        r hset h x 3.0
        assert_equal 4 [r hincrbyfloat h x 1]
        assert_equal 4 [r hincrby h x 0]
    }

    test {HINCRBYFLOAT errors: bad increment, NaN or infinite increment, bad stored value} {
        r del h s
        r set s x
        r hset h text hello sp " 1" n 1
        assert_error {ERR value is not a valid float} {r hincrbyfloat h n abc}
        assert_error {ERR value is not a valid float} {r hincrbyfloat h n nan}
        assert_error {ERR value is not a valid float} {r hincrbyfloat h n 1e5000}
        assert_error {ERR value is not a valid float} {r hincrbyfloat h n " 1"}
        assert_error {ERR value is not a valid float} {r hincrbyfloat s n x}
        assert_error {ERR value is NaN or Infinity} {r hincrbyfloat h n inf}
        assert_error {ERR value is NaN or Infinity} {r hincrbyfloat h n -inf}
        assert_error {WRONGTYPE*} {r hincrbyfloat s n 1}
        assert_error {ERR hash value is not a float} {r hincrbyfloat h text 1}
        assert_error {ERR hash value is not a float} {r hincrbyfloat h sp 1}
        assert_equal 1 [r hget h n]
    }

    test {HINCRBYFLOAT refuses a result that is NaN or infinite} {
        r del h
        r hset h inf inf big 1e4932
        assert_error {ERR increment would produce NaN or Infinity} {r hincrbyfloat h inf 1}
        assert_error {ERR increment would produce NaN or Infinity} {r hincrbyfloat h big 1e4932}
        assert_equal inf [r hget h inf]
        assert_equal 1e4932 [r hget h big]
    }

    # ---- encodings -------------------------------------------------------------------------

    # Redis 7.0's built-in default is 512 entries (its sample redis.conf sets 128).
    test {The default limits are 512 entries and 64 bytes} {
        assert_equal [r config get hash-max-listpack-entries] {hash-max-listpack-entries 512}
        assert_equal [r config get hash-max-listpack-value] {hash-max-listpack-value 64}
        r del h
        set pairs {}
        for {set i 0} {$i < 512} {incr i} {lappend pairs f$i [string repeat x 64]}
        r hset h {*}$pairs
        assert_encoding listpack h
        r hset h f512 v
        assert_encoding hashtable h
        r del h
        r hset h [string repeat f 64] v
        assert_encoding listpack h
        r hset h [string repeat f 65] v
        assert_encoding hashtable h
    }

    test {A hash converts to hashtable past hash-max-listpack-entries, and never back} {
        r del h
        r config set hash-max-listpack-entries 4
        r hset h a 1 b 2 c 3 d 4
        assert_encoding listpack h
        r hset h e 5
        assert_encoding hashtable h
        r hdel h a b c d
        assert_encoding hashtable h
        assert_equal {e 5} [r hgetall h]
        r config set hash-max-listpack-entries 512
    }

    test {A field or value longer than hash-max-listpack-value converts} {
        r del h1 h2 h3
        r config set hash-max-listpack-value 8
        r hset h1 a 12345678 b 87654321
        assert_encoding listpack h1
        r hset h1 c 123456789
        assert_encoding hashtable h1
        r hset h2 123456789 x
        assert_encoding hashtable h2
        r hmset h3 a x
        r hmset h3 b 123456789abc
        assert_encoding hashtable h3
        assert_equal 123456789abc [r hget h3 b]
        r config set hash-max-listpack-value 64
    }

    test {CONFIG SET of the limits affects later writes only} {
        r del h
        r hset h a 1 b 2 c 3
        r config set hash-max-listpack-entries 2
        assert_encoding listpack h
        assert_equal {a 1 b 2 c 3} [r hgetall h]
        r hset h a 9
        assert_encoding hashtable h
        r config set hash-max-listpack-entries 512
        r del h
        r hset h a 1 b 2 c 3
        assert_encoding listpack h
    }

    test {HSETNX converts only when it adds a long field} {
        r del h1 h2
        r config set hash-max-listpack-value 5
        r hset h1 a 1
        assert_equal 0 [r hsetnx h1 a 123456]
        assert_encoding listpack h1
        r hset h2 a 1
        assert_equal 1 [r hsetnx h2 b 123456]
        assert_encoding hashtable h2
        r config set hash-max-listpack-value 64
    }

    test {HINCRBY and HINCRBYFLOAT convert for a long field name or a long result} {
        r del h1 h2 h3
        r config set hash-max-listpack-value 5
        r hset h1 a 1
        r hincrby h1 c123456 1
        assert_encoding hashtable h1
        r hset h2 a 1
        r hincrby h2 a 99998
        assert_encoding listpack h2
        r hincrby h2 a 90001
        assert_encoding hashtable h2
        assert_equal 190000 [r hget h2 a]
        r hset h3 a 1
        assert_equal 2.123456 [r hincrbyfloat h3 a 1.123456]
        assert_encoding hashtable h3
        r config set hash-max-listpack-value 64
    }

    test {Reads answer the same in both encodings} {
        r del lp ht
        set pairs {}
        for {set i 0} {$i < 50} {incr i} {lappend pairs f$i [expr {$i * 3}]}
        r hset lp {*}$pairs
        r hset ht {*}$pairs
        r config set hash-max-listpack-entries 10
        r hset ht f0 0
        r config set hash-max-listpack-entries 512
        assert_encoding listpack lp
        assert_encoding hashtable ht
        assert_equal [lsort [r hkeys lp]] [lsort [r hkeys ht]]
        assert_equal [lsort [r hvals lp]] [lsort [r hvals ht]]
        assert_equal [dict get [r hgetall lp] f7] [dict get [r hgetall ht] f7]
        foreach k {lp ht} {
            assert_equal 50 [r hlen $k]
            assert_equal 21 [r hget $k f7]
            assert_equal 2 [r hstrlen $k f7]
            assert_equal {21 {} 147} [r hmget $k f7 nope f49]
            assert_equal 1 [r hexists $k f49]
        }
    }

    # ---- type and arity errors -------------------------------------------------------------

    test {Every hash command answers WRONGTYPE on a string key} {
        r del s
        r set s x
        foreach cmd {
            {hset s a 1} {hmset s a 1} {hsetnx s a 1} {hget s a} {hmget s a} {hstrlen s a}
            {hexists s a} {hlen s} {hkeys s} {hvals s} {hgetall s} {hdel s a}
            {hincrby s a 1} {hincrbyfloat s a 1} {hrandfield s} {hrandfield s 2}
            {hrandfield s -2 withvalues}
        } {
            assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} \
                {r {*}$cmd} $cmd
        }
        assert_equal x [r get s]
    }

    test {Arity errors name the command} {
        foreach cmd {
            {hset h a} {hmset h a} {hsetnx h a} {hget h} {hmget h} {hstrlen h} {hexists h}
            {hlen} {hkeys} {hvals} {hgetall} {hdel h} {hincrby h a} {hincrbyfloat h a}
            {hrandfield} {hlen h x} {hget h a b}
        } {
            set name [lindex $cmd 0]
            assert_error "ERR wrong number of arguments for '$name' command" {r {*}$cmd} $cmd
        }
    }

    # ---- HRANDFIELD ------------------------------------------------------------------------

    test {HRANDFIELD without a count: one field, nil for a missing key} {
        r del h nokey
        r hset h a 1 b 2 c 3
        for {set i 0} {$i < 20} {incr i} {
            assert_match {[abc]} [r hrandfield h]
        }
        assert_equal {} [r hrandfield nokey]
        assert_equal {$-1} [raw_head 2 hrandfield nokey]
        assert_equal {_} [raw_head 3 hrandfield nokey]
        assert_equal {$1} [raw_head 3 hrandfield h]
    }

    test {HRANDFIELD count errors} {
        r del h
        r hset h a 1
        assert_error {ERR value is not an integer or out of range} {r hrandfield h abc}
        assert_error {ERR value is not an integer or out of range} {r hrandfield nokey 1.5}
        assert_error {ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807} \
            {r hrandfield h -9223372036854775808}
        assert_error {ERR value is out of range} {r hrandfield h -9223372036854775807 withvalues}
        assert_error {ERR value is out of range} {r hrandfield h -4611686018427387904 withvalues}
        assert_error {ERR value is out of range} {r hrandfield h 4611686018427387904 withvalues}
        assert_error {ERR syntax error} {r hrandfield h 1 foo}
        assert_error {ERR syntax error} {r hrandfield h 1 withvalues x}
        assert_error {ERR syntax error} {r hrandfield nokey 1 foo}
        assert_equal {a 1} [r hrandfield h 1 WithValues]
    }

    test {HRANDFIELD with a count of 0 or on a missing key is an empty array} {
        r del h nokey
        r hset h a 1
        assert_equal {} [r hrandfield h 0]
        assert_equal {} [r hrandfield h 0 withvalues]
        assert_equal {} [r hrandfield nokey 5]
        assert_equal {} [r hrandfield nokey -5 withvalues]
        assert_equal {*0} [raw_head 2 hrandfield nokey 5]
        assert_equal {*0} [raw_head 3 hrandfield nokey 5 withvalues]
        assert_equal {*0} [raw_head 3 hrandfield h 0]
    }

    foreach {enc big} {listpack 0 hashtable 1} {
        test "HRANDFIELD count shapes on a $enc hash" {
            r del h
            for {set i 0} {$i < 30} {incr i} {r hset h f$i v$i}
            if {$big} {r hset h f0 [string repeat v 100]}
            assert_encoding $enc h
            set all [lsort [r hkeys h]]
            set values [r hgetall h]

            # A count at least the size: the whole hash, in its HGETALL order.
            assert_equal [r hkeys h] [r hrandfield h 30]
            assert_equal $values [r hrandfield h 1000 withvalues]

            # A positive count below the size: distinct fields of the hash.
            foreach count {1 2 5 9 10 11 20 29} {
                for {set round 0} {$round < 20} {incr round} {
                    set got [r hrandfield h $count]
                    assert_equal $count [llength $got]
                    assert_unique $got "count $count"
                    foreach f $got {assert {[lsearch -exact $all $f] >= 0}}
                    set pairs [r hrandfield h $count withvalues]
                    assert_equal [expr {2 * $count}] [llength $pairs]
                    assert_unique [fields_of $pairs]
                    foreach {f v} $pairs {assert_equal [dict get $values $f] $v}
                }
            }

            # A negative count: exactly that many draws, repeats allowed.
            set got [r hrandfield h -200]
            assert_equal 200 [llength $got]
            assert {[llength [lsort -unique $got]] < 200}
            set pairs [r hrandfield h -50 withvalues]
            assert_equal 100 [llength $pairs]
            foreach {f v} $pairs {assert_equal [dict get $values $f] $v}
            assert_equal 1 [llength [r hrandfield h -1]]
        }

        test "HRANDFIELD WITHVALUES in RESP3 is an array of pairs ($enc)" {
            set c [redis_client]
            $c hello 3
            foreach count {-7 7 30 1 -1} {
                set pairs [$c hrandfield h $count withvalues]
                assert_equal [expr {abs($count)}] [llength $pairs] "count $count"
                foreach pair $pairs {
                    assert_equal 2 [llength $pair]
                    lassign $pair f v
                    assert_equal [r hget h $f] $v
                }
            }
            assert_equal 7 [llength [$c hrandfield h 7]]
            $c close
            assert_equal {*14} [raw_head 2 hrandfield h 7 withvalues]
            assert_equal {*7} [raw_head 3 hrandfield h 7 withvalues]
            assert_equal {*5} [raw_head 3 hrandfield h -5 withvalues]
        }
    }

    # Redis's own check: 1000 draws among 10 fields, each field between 5% and 15% of them.
    foreach {enc big} {listpack 0 hashtable 1} {
        test "HRANDFIELD with a negative count draws every field about as often ($enc)" {
            r del h
            for {set i 0} {$i < 10} {incr i} {r hset h f$i $i}
            if {$big} {r hset h f0 [string repeat x 100]}
            assert_encoding $enc h
            set counts [dict create]
            foreach f [r hrandfield h -1000] {dict incr counts $f}
            assert_equal 10 [dict size $counts]
            dict for {f n} $counts {assert_range $n 50 150 "field $f"}
        }
    }

    # Fairness, stricter than Redis 7.0 (whose draws fail it: a statistic of about 3400 for
    # the negative count on a hashtable hash, about 700 for distinct samples of a listpack
    # hash), hence the redistp tag. 100 fields, 50,000 draws, 500 expected per field.
    # Pearson's statistic has 99 degrees of freedom; a fair draw exceeds 210 with probability
    # below 1e-9, while a draw that favours some fields by even 10% lands far above it.
    tags {redistp} {
        foreach {enc big} {listpack 0 hashtable 1} {
            test "HRANDFIELD draws are uniform on a $enc hash (chi-square)" {
                r del h
                set pairs {}
                for {set i 0} {$i < 100} {incr i} {lappend pairs f$i $i}
                r config set hash-max-listpack-entries [expr {$big ? 64 : 512}]
                r hset h {*}$pairs
                r config set hash-max-listpack-entries 512
                assert_encoding $enc h
                set fields [r hkeys h]

                set draws [r hrandfield h -50000]
                assert_lessthan [chi_square $draws $fields] 210 "negative count"

                # Distinct samples: each field is in a sample of k with probability k/100
                # (k = 10 draws until distinct, k = 50 shuffles, on a hashtable hash).
                foreach k {10 50} {
                    set picks {}
                    for {set i 0} {$i < 50000 / $k} {incr i} {
                        lappend picks {*}[r hrandfield h $k]
                    }
                    assert_lessthan [chi_square $picks $fields] 210 "samples of $k"
                }

                set singles {}
                for {set i 0} {$i < 5000} {incr i} {lappend singles [r hrandfield h]}
                assert_lessthan [chi_square $singles $fields] 210 "no count"
            }
        }
    }

    # ---- transactions ----------------------------------------------------------------------

    test {MULTI/WATCH: every hash change invalidates, no-op commands do not} {
        r del h
        r hset h a 1 b 2
        set other [redis_client]
        foreach {cmd touches} {
            {hset h a 1} 1 {hmset h a 1} 1 {hsetnx h c 3} 1 {hsetnx h a 9} 0 {hdel h zz} 0
            {hdel h c} 1 {hincrby h n 1} 1 {hincrbyfloat h n 1.5} 1 {hget h a} 0
            {hgetall h} 0 {hrandfield h -3} 0
        } {
            r watch h
            $other {*}$cmd
            r multi
            r ping
            set res [r exec]
            if {$touches} {
                assert_equal {} $res $cmd
            } else {
                assert_equal {PONG} $res $cmd
            }
        }
        r watch h
        $other hdel h a b n
        r multi
        r ping
        assert_equal {} [r exec]
        assert_equal 0 [r exists h]
        $other close
    }

    test {Hash commands inside MULTI/EXEC} {
        r del h
        r multi
        r hset h a 1
        r hincrby h a 5
        r hget h a
        r hdel h a
        r exists h
        assert_equal {1 6 6 1 0} [r exec]
    }
}

start_server {tags {hash watchex redistp}} {
    proc hw_client {proto} {
        set c [redis_client]
        $c timeout 3000
        if {$proto == 3} {$c hello 3}
        return $c
    }

    test {WATCHEX: a hash's creation pushes ADD, its emptying DEL, edits nothing} {
        r del hw
        set watchers {}
        foreach proto {2 3} {
            set c [hw_client $proto]
            assert_equal NOEXIST [$c watchex hw]
            lappend watchers $c
        }
        foreach {create empty} {
            {hset hw a 1} {hdel hw a}
            {hmset hw a 1} {hdel hw a x}
            {hsetnx hw a 1} {hdel hw a}
            {hincrby hw a 1} {hdel hw a}
            {hincrbyfloat hw a 1.5} {hdel hw a}
        } {
            r {*}$create
            foreach c $watchers {assert_equal {watchex hw ADD} [$c read] $create}
            r hset hw b 2
            r hincrby hw b 1
            r hdel hw b zz
            r hsetnx hw a 9
            r hdel hw nothing
            r {*}$empty
            foreach c $watchers {assert_equal {watchex hw DEL} [$c read] $empty}
            foreach c $watchers {assert_equal PONG [$c ping]}
        }
        foreach c $watchers {$c close}
    }
}

# While a forked child (BGSAVE, AOF rewrite) shares the memory, a hash's table holds still as
# the key table does (no shrink, growth only past 5 fields per bucket), so a resize does not
# make the kernel copy the hash's pages for the child; the next removal after it shrinks.
start_server {tags {hash needs:debug needs:config external:skip}} {
    test {A hash's table keeps its size while a child runs and shrinks after it} {
        r flushall
        r set anchor x
        batched_call {hset myhash} 0 12000 {f:%d v}
        assert_encoding hashtable myhash
        htstats_key_settle myhash {hrandfield myhash}
        assert_equal 16384 [htstats_key_size myhash]

        held_child_start
        batched_call {hdel myhash} 0 11900 f:%d
        assert_equal 100 [r hlen myhash]
        assert_equal 16384 [htstats_key_size myhash]
        assert_equal 0 [htstats_key_rehashing myhash]
        # Random picks still reach every field of the sparse table.
        unset -nocomplain drawn
        array set drawn {}
        for {set round 0} {$round < 5000 && [array size drawn] < 100} {incr round} {
            foreach f [r hrandfield myhash -20] {set drawn($f) 1}
        }
        assert_equal [lsort [r hkeys myhash]] [lsort [array names drawn]]
        held_child_end

        assert_equal 16384 [htstats_key_size myhash]
        r hdel myhash f:11900
        assert_equal 1 [htstats_key_rehashing myhash]
        htstats_key_settle myhash {hrandfield myhash}
        assert_equal 128 [htstats_key_size myhash]
        assert_equal 99 [r hlen myhash]
    }
}
