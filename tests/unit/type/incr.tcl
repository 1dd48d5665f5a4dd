# String arithmetic: INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT — results,
# the int encoding of counters, TTLs kept across updates, what counts as a
# number, overflow, and the human-readable form of INCRBYFLOAT results.

start_server {tags {incr}} {
    test {INCR and DECR on a missing key start from zero} {
        r del i:new i:new2
        assert_equal [r incr i:new] 1
        assert_equal [r incr i:new] 2
        assert_equal [r decr i:new2] -1
        assert_equal [r decr i:new2] -2
        assert_equal [r get i:new] 2
    }

    test {INCRBY and DECRBY with positive, negative and zero steps} {
        r set i:by 10
        assert_equal [r incrby i:by 5] 15
        assert_equal [r incrby i:by -20] -5
        assert_equal [r decrby i:by 7] -12
        assert_equal [r decrby i:by -12] 0
        assert_equal [r incrby i:by 0] 0
        assert_equal [r incrby i:by 1000000000000] 1000000000000
        assert_equal [r get i:by] 1000000000000
    }

    test {A counter keeps the int encoding} {
        r set i:enc 5
        assert_encoding int i:enc
        r incr i:enc
        assert_encoding int i:enc
        r del i:enc
        r incrby i:enc 123456789
        assert_encoding int i:enc
        assert_equal [r get i:enc] 123456789
    }

    test {INCR works on numeric strings edited by APPEND and SETRANGE} {
        r set i:raw 10
        r append i:raw 0
        assert_encoding raw i:raw
        assert_equal [r incr i:raw] 101
        assert_encoding int i:raw
        r setrange i:emb 0 42
        assert_equal [r incr i:emb] 43
    }

    test {INCR keeps the TTL} {
        r set i:ttl 1 EX 100
        assert_equal [r incr i:ttl] 2
        assert_range [r ttl i:ttl] 99 100
        assert_equal [r decrby i:ttl 5] -3
        assert_range [r ttl i:ttl] 99 100
    }

    test {INCR on an expired key starts from zero} {
        r set i:exp 50 PX 30
        after 80
        assert_equal [r incr i:exp] 1
        assert_equal [r ttl i:exp] -1
    }

    test {INCR refuses values that are not canonical 64-bit integers} {
        foreach bad {" 1" "1 " "+1" "01" "-0" "1.5" "abc" "" "0x10" "1e3"
                     "9223372036854775808" "-9223372036854775809" "12345678901234567890123"} {
            r set i:bad $bad
            assert_error {ERR value is not an integer or out of range} {r incr i:bad}
            assert_error {ERR value is not an integer or out of range} {r decrby i:bad 1}
            assert_equal [r get i:bad] $bad
        }
    }

    test {INCRBY and DECRBY refuse non-integer steps} {
        r set i:step 1
        foreach bad {1.5 abc "" " 1" 9223372036854775808} {
            assert_error {ERR value is not an integer or out of range} {r incrby i:step $bad}
            assert_error {ERR value is not an integer or out of range} {r decrby i:step $bad}
        }
        assert_equal [r get i:step] 1
    }

    test {INCR and DECR overflow} {
        r set i:max 9223372036854775807
        assert_error {ERR increment or decrement would overflow} {r incr i:max}
        assert_error {ERR increment or decrement would overflow} {r incrby i:max 1}
        assert_equal [r decr i:max] 9223372036854775806
        r set i:min -9223372036854775808
        assert_error {ERR increment or decrement would overflow} {r decr i:min}
        assert_error {ERR increment or decrement would overflow} {r incrby i:min -1}
        assert_equal [r incr i:min] -9223372036854775807
        r set i:mid 9223372036854775000
        assert_error {ERR increment or decrement would overflow} {r incrby i:mid 808}
        assert_equal [r incrby i:mid 807] 9223372036854775807
        assert_equal [r get i:mid] 9223372036854775807
    }

    test {DECRBY of the smallest 64-bit integer is refused} {
        r set i:d 0
        assert_error {ERR decrement would overflow} {r decrby i:d -9223372036854775808}
        assert_error {ERR decrement would overflow} {r decrby i:missing -9223372036854775808}
        assert_equal [r get i:d] 0
        assert_equal [r decrby i:d 9223372036854775807] -9223372036854775807
        assert_equal [r decrby i:d 1] -9223372036854775808
        assert_error {ERR increment or decrement would overflow} {r decrby i:d 1}
    }

    test {INCR family against a key of another type} {
        r del i:list
        r rpush i:list a
        foreach cmd {{incr i:list} {decr i:list} {incrby i:list 1} {decrby i:list 1}
                     {incrbyfloat i:list 1}} {
            assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} \
                {r {*}$cmd}
        }
        # The step of INCRBY/DECRBY is checked before the key's type.
        assert_error {ERR value is not an integer or out of range} {r incrby i:list x}
        assert_error {ERR decrement would overflow} {r decrby i:list -9223372036854775808}
        assert_equal [r type i:list] list
    }

    test {INCR family arity errors} {
        assert_error {ERR wrong number of arguments for 'incr' command} {r incr a b}
        assert_error {ERR wrong number of arguments for 'incrby' command} {r incrby a}
        assert_error {ERR wrong number of arguments for 'decrby' command} {r decrby a 1 2}
        assert_error {ERR wrong number of arguments for 'incrbyfloat' command} {r incrbyfloat a}
    }

    test {INCR and DECR against random walks} {
        r set i:walk 0
        set expected 0
        for {set i 0} {$i < 500} {incr i} {
            set step [expr {[randomInt 2000000] - 1000000}]
            incr expected $step
            if {rand() < 0.5} {
                assert_equal [r incrby i:walk $step] $expected
            } else {
                assert_equal [r decrby i:walk [expr {-$step}]] $expected
            }
        }
        assert_equal [r get i:walk] $expected
    }

    test {INCRBYFLOAT on a missing key and on an integer} {
        r del i:f
        assert_equal [r incrbyfloat i:f 10.5] 10.5
        assert_equal [r incrbyfloat i:f 0.1] 10.6
        assert_equal [r incrbyfloat i:f -10.6] 0
        r set i:f 5
        assert_equal [r incrbyfloat i:f 1.25] 6.25
        assert_equal [r get i:f] 6.25
        assert_encoding embstr i:f
    }

    test {INCRBYFLOAT reply form: fixed notation, no trailing zeros} {
        r del i:f
        assert_equal [r incrbyfloat i:f 3.0e3] 3000
        assert_equal [r incrbyfloat i:f 1e-5] 3000.00001000000000007
        r del i:f
        assert_equal [r incrbyfloat i:f 5.0e-20] 0
        r del i:f
        assert_equal [r incrbyfloat i:f -0.0] 0
        r del i:f
        assert_equal [r incrbyfloat i:f 0.1] 0.1
        assert_equal [r incrbyfloat i:f 0.2] 0.3
        r set i:f 1
        assert_equal [r incrbyfloat i:f -1.5] -0.5
        r set i:f 1e3
        assert_equal [r incrbyfloat i:f 1] 1001
        r del i:f
        assert_equal [r incrbyfloat i:f 0x10] 16
        assert_equal [r incrbyfloat i:f +5] 21
        assert_equal [r incrbyfloat i:f .5] 21.5
        assert_equal [r incrbyfloat i:f 5.] 26.5
    }

    test {INCRBYFLOAT of a huge value writes every digit} {
        r del i:f
        set v [r incrbyfloat i:f 1e300]
        assert_equal [string length $v] 301
        assert_match {1000000000000000000*} $v
        assert_encoding raw i:f
        assert_equal [r get i:f] $v
    }

    test {INCRBYFLOAT keeps the TTL} {
        r set i:f 1 EX 100
        assert_equal [r incrbyfloat i:f 0.5] 1.5
        assert_range [r ttl i:f] 99 100
    }

    test {INCRBYFLOAT refuses values and increments that are not floats} {
        foreach bad {" 1" "1 " "abc" "" "1e" "nan" "1.2.3" "--1"} {
            r set i:fbad $bad
            assert_error {ERR value is not a valid float} {r incrbyfloat i:fbad 1}
            assert_equal [r get i:fbad] $bad
        }
        r set i:f 1
        foreach bad {" 1" "1 " "abc" "" "1e" "nan" "NaN"} {
            assert_error {ERR value is not a valid float} {r incrbyfloat i:f $bad}
        }
        assert_equal [r get i:f] 1
    }

    test {INCRBYFLOAT refuses NaN and infinite results} {
        r set i:f 1
        assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat i:f +inf}
        assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat i:f -inf}
        assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat i:missing inf}
        assert_equal [r exists i:missing] 0
        r set i:f inf
        assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat i:f 1}
        assert_equal [r get i:f] inf
    }

    test {INCRBYFLOAT result then INCR: the text must be an integer} {
        r set i:f 1.5
        assert_error {ERR value is not an integer or out of range} {r incr i:f}
        r incrbyfloat i:f 0.5
        assert_equal [r get i:f] 2
        assert_equal [r incr i:f] 3
        assert_encoding int i:f
    }
}
