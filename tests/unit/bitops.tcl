# Bitmap commands: SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP.
#
# Most checks compare the server with small Tcl models written from the documented semantics:
# a string is a run of bits, most significant bit of byte 0 first; ranges count bytes (or bits
# with BIT), negative indexes count from the end and are clamped to the string.

# The bits of a binary string as a "0101..." text.
proc bits_of {s} {
    binary scan $s B* b
    return $b
}

# Clamps an inclusive [start, end] range over `total` units; returns {start end}.
proc model_clamp {total start end} {
    if {$start < 0} {set start [expr {$total + $start}]}
    if {$end < 0} {set end [expr {$total + $end}]}
    if {$start < 0} {set start 0}
    if {$end < 0} {set end 0}
    if {$end >= $total} {set end [expr {$total - 1}]}
    return [list $start $end]
}

# First and last bit index selected by a range in `unit` (byte or bit).
proc model_bit_span {len start end unit} {
    set total [expr {$unit eq "bit" ? $len * 8 : $len}]
    lassign [model_clamp $total $start $end] start end
    if {$start > $end} {return {}}
    if {$unit eq "bit"} {return [list $start $end]}
    return [list [expr {$start * 8}] [expr {$end * 8 + 7}]]
}

proc model_bitcount {s {start ""} {end ""} {unit byte}} {
    set bits [bits_of $s]
    if {$start eq ""} {return [regexp -all 1 $bits]}
    if {$start < 0 && $end < 0 && $start > $end} {return 0}
    set span [model_bit_span [string length $s] $start $end $unit]
    if {$span eq {}} {return 0}
    lassign $span first last
    return [regexp -all 1 [string range $bits $first $last]]
}

proc model_bitpos {s bit {start ""} {end ""} {unit byte}} {
    set len [string length $s]
    set end_given [expr {$end ne ""}]
    if {$start eq ""} {set start 0}
    if {$end eq ""} {set end -1}
    set span [model_bit_span $len $start $end $unit]
    if {$span eq {}} {return -1}
    lassign $span first last
    set at [string first $bit [string range [bits_of $s] $first $last]]
    if {$at >= 0} {return [expr {$first + $at}]}
    # With no explicit end the string is taken as followed by zero bits.
    if {$bit == 0 && !$end_given} {return [expr {$len * 8}]}
    return -1
}

proc model_bitop {op sources} {
    set max 0
    foreach s $sources {
        if {[string length $s] > $max} {set max [string length $s]}
    }
    set bytes {}
    foreach s $sources {
        binary scan $s cu* b
        while {[llength $b] < $max} {lappend b 0}
        lappend bytes $b
    }
    set out {}
    for {set i 0} {$i < $max} {incr i} {
        set acc [lindex $bytes 0 $i]
        foreach b [lrange $bytes 1 end] {
            set v [lindex $b $i]
            switch -- $op {
                and {set acc [expr {$acc & $v}]}
                or {set acc [expr {$acc | $v}]}
                xor {set acc [expr {$acc ^ $v}]}
            }
        }
        if {$op eq "not"} {set acc [expr {~$acc & 255}]}
        lappend out $acc
    }
    return [binary format cu* $out]
}

start_server {tags {bitops}} {
    test {SETBIT returns the previous bit and GETBIT reads it back} {
        r del bm
        assert_equal [r setbit bm 7 1] 0
        assert_equal [r setbit bm 7 1] 1
        assert_equal [r getbit bm 7] 1
        assert_equal [r getbit bm 6] 0
        assert_equal [r get bm] "\x01"
        assert_equal [r setbit bm 7 0] 1
        assert_equal [r get bm] "\x00"
    }

    test {SETBIT grows the string with zero bytes, most significant bit first} {
        r del bm
        r setbit bm 0 1
        r setbit bm 17 1
        assert_equal [r strlen bm] 3
        assert_equal [r get bm] "\x80\x00\x40"
        r set bm2 "\xff"
        r setbit bm2 15 1
        assert_equal [r get bm2] "\xff\x01"
    }

    test {GETBIT past the end of the string or on a missing key is 0} {
        r set bm "\xff"
        assert_equal [r getbit bm 8] 0
        assert_equal [r getbit bm 4294967295] 0
        assert_equal [r getbit nokey 0] 0
        assert_equal [r getbit nokey 4294967295] 0
        assert_equal [r exists nokey] 0
    }

    test {SETBIT creates a raw string and turns short or int values raw} {
        r del bm
        r setbit bm 1 1
        assert_encoding raw bm
        r set small abc
        assert_encoding embstr small
        r setbit small 0 0
        assert_encoding raw small
        assert_equal [r get small] abc
    }

    test {SETBIT and GETBIT on an int-encoded value work on its text} {
        r set n 12
        assert_encoding int n
        # "1" is 0x31: bits 00110001
        assert_equal [r getbit n 2] 1
        assert_equal [r getbit n 7] 1
        assert_equal [r getbit n 1] 0
        assert_equal [r setbit n 7 0] 1
        assert_equal [r get n] "02"
        assert_encoding raw n
    }

    test {SETBIT offset errors} {
        assert_error {ERR bit offset is not an integer or out of range} {r setbit bm -1 1}
        assert_error {ERR bit offset is not an integer or out of range} {r setbit bm abc 1}
        assert_error {ERR bit offset is not an integer or out of range} {r setbit bm 1.5 1}
        assert_error {ERR bit offset is not an integer or out of range} {r setbit bm 4294967296 1}
        assert_error {ERR bit offset is not an integer or out of range} {r getbit bm 4294967296}
        assert_error {ERR bit offset is not an integer or out of range} {r getbit bm -1}
        assert_error {ERR bit offset is not an integer or out of range} {r getbit bm " 1"}
    }

    test {SETBIT value errors} {
        assert_error {ERR bit is not an integer or out of range} {r setbit bm 1 2}
        assert_error {ERR bit is not an integer or out of range} {r setbit bm 1 -1}
        assert_error {ERR bit is not an integer or out of range} {r setbit bm 1 x}
        assert_error {ERR bit is not an integer or out of range} {r setbit bm 1 01}
    }

    test {Bit commands against a key of another type} {
        r del lst
        r rpush lst a
        assert_error WRONGTYPE* {r setbit lst 0 1}
        assert_error WRONGTYPE* {r getbit lst 0}
        assert_error WRONGTYPE* {r bitcount lst}
        assert_error WRONGTYPE* {r bitcount lst 0 1}
        assert_error WRONGTYPE* {r bitpos lst 1}
        assert_error WRONGTYPE* {r bitop and dest lst}
        assert_error WRONGTYPE* {r bitop not dest lst}
        r set a foo
        r set d keep
        assert_error WRONGTYPE* {r bitop and d a lst}
        assert_equal [r get d] keep
        # Argument errors are reported before the type check.
        assert_error {ERR bit offset*} {r setbit lst -1 1}
        assert_error {ERR bit is not*} {r setbit lst 0 5}
        assert_error {ERR bit offset*} {r getbit lst x}
        assert_error {ERR The bit argument must be 1 or 0.} {r bitpos lst 2}
        assert_equal [r type lst] list
        # A BITOP destination of another type is simply replaced.
        assert_equal [r bitop or lst a] 3
        assert_equal [r type lst] string
    }

    test {SETBIT at random offsets matches a model} {
        r del bm
        set model ""
        for {set i 0} {$i < 300} {incr i} {
            set off [randomInt 400]
            set val [randomInt 2]
            while {[string length $model] <= $off} {append model [string repeat 0 8]}
            assert_equal [r setbit bm $off $val] [string index $model $off]
            set model [string replace $model $off $off $val]
        }
        assert_equal [bits_of [r get bm]] $model
        for {set off 0} {$off < [string length $model] + 16} {incr off} {
            set expected [string index $model $off]
            if {$expected eq ""} {set expected 0}
            assert_equal [r getbit bm $off] $expected
        }
    }

    test {BITCOUNT of missing, empty and whole strings} {
        r del bm
        assert_equal [r bitcount nokey] 0
        r set empty ""
        assert_equal [r bitcount empty] 0
        assert_equal [r bitcount empty 0 -1] 0
        assert_equal [r bitcount empty 0 -1 bit] 0
        r set bm foobar
        assert_equal [r bitcount bm] 26
        r set bm "\xff\xff\xff"
        assert_equal [r bitcount bm] 24
    }

    test {BITCOUNT with byte and bit ranges} {
        r set bm foobar
        assert_equal [r bitcount bm 0 0] 4
        assert_equal [r bitcount bm 1 1] 6
        assert_equal [r bitcount bm 0 -1] 26
        assert_equal [r bitcount bm -2 -1] 7
        assert_equal [r bitcount bm 1 1 BYTE] 6
        assert_equal [r bitcount bm 5 30 bit] 17
        assert_equal [r bitcount bm 0 -1 bit] 26
        assert_equal [r bitcount bm 0 1000] 26
        assert_equal [r bitcount bm 5 1] 0
        assert_equal [r bitcount bm -1 -2] 0
        assert_equal [r bitcount bm -1 -1 bit] 0
        assert_equal [r bitcount bm -9223372036854775808 9223372036854775807 bit] 26
    }

    test {BITCOUNT with both ends negative, reversed and below the start is 0} {
        # Clamping alone would map -100 and -200 to byte 0 and count it.
        r set bm foobar
        assert_equal [r bitcount bm -100 -200] 0
        assert_equal [r bitcount bm -100 -200 bit] 0
        assert_equal [r bitcount bm -200 -100] 4
        assert_equal [r bitcount bm -100 0] 4
        # Redis answers the reversed negative range before it reads the unit.
        assert_equal [r bitcount bm -100 -200 nosuchunit] 0
        assert_error {ERR syntax error} {r bitcount bm -200 -100 nosuchunit}
    }

    test {BITCOUNT argument errors} {
        r set bm foobar
        assert_error {ERR syntax error} {r bitcount bm 1}
        assert_error {ERR syntax error} {r bitcount bm 0 1 foo}
        assert_error {ERR syntax error} {r bitcount bm 0 1 bit extra}
        assert_error {ERR value is not an integer or out of range} {r bitcount bm a 1}
        assert_error {ERR value is not an integer or out of range} {r bitcount bm 0 x foo}
        assert_error {ERR wrong number of arguments for 'bitcount' command} {r bitcount}
    }

    test {BITCOUNT on a missing key answers 0 before looking at the range (Redis 7.0)} {
        assert_equal [r bitcount nokey 1] 0
        assert_equal [r bitcount nokey 0 x] 0
        assert_equal [r bitcount nokey 1 2 3 4] 0
    }

    test {BITCOUNT fuzzing against a model, byte and bit ranges} {
        for {set i 0} {$i < 200} {incr i} {
            set s [randstring 0 70]
            r set bm $s
            assert_equal [r bitcount bm] [model_bitcount $s] "whole [bits_of $s]"
            set len [string length $s]
            set a [expr {[randomInt [expr {$len * 2 + 3}]] - $len - 1}]
            set b [expr {[randomInt [expr {$len * 2 + 3}]] - $len - 1}]
            assert_equal [r bitcount bm $a $b] [model_bitcount $s $a $b] "bytes $a $b"
            set a [expr {[randomInt [expr {$len * 16 + 3}]] - $len * 8 - 1}]
            set b [expr {[randomInt [expr {$len * 16 + 3}]] - $len * 8 - 1}]
            assert_equal [r bitcount bm $a $b bit] [model_bitcount $s $a $b bit] \
                "bits $a $b of [bits_of $s]"
        }
    }

    test {BITCOUNT of a long string, all alignments} {
        set s ""
        for {set i 0} {$i < 4099} {incr i} {append s [format %c [expr {($i * 37) % 256}]]}
        r set long $s
        set total [model_bitcount $s]
        assert_equal [r bitcount long] $total
        foreach {a b} {1 4097 3 -2 7 1030 33 -34 0 4098} {
            assert_equal [r bitcount long $a $b] [model_bitcount $s $a $b] "range $a $b"
        }
        foreach {a b} {3 32770 9 -10 64 4096 65 130 100 32791} {
            assert_equal [r bitcount long $a $b bit] [model_bitcount $s $a $b bit] "bits $a $b"
        }
        r set ones [string repeat "\xff" 1000000]
        assert_equal [r bitcount ones] 8000000
        assert_equal [r bitcount ones 1 -2] 7999984
        assert_equal [r bitcount ones 3 7999996 bit] 7999994
    }

    test {BITPOS on a missing key: no 1 bits, a 0 bit at once} {
        r del nokey
        assert_equal [r bitpos nokey 1] -1
        assert_equal [r bitpos nokey 0] 0
        assert_equal [r bitpos nokey 0 5 10] 0
        assert_equal [r bitpos nokey 1 x] -1
    }

    test {BITPOS finds set and clear bits} {
        r set bm "\x00\xff\xf0"
        assert_equal [r bitpos bm 1] 8
        assert_equal [r bitpos bm 0] 0
        assert_equal [r bitpos bm 0 1] 20
        assert_equal [r bitpos bm 1 2] 16
        assert_equal [r bitpos bm 1 2 -1] 16
        assert_equal [r bitpos bm 1 7 15 bit] 8
        assert_equal [r bitpos bm 0 7 15 bit] 7
        assert_equal [r bitpos bm 0 9 18 bit] -1
        assert_equal [r bitpos bm 0 9 -1 bit] 20
        assert_equal [r bitpos bm 1 -1 -1 BIT] -1
        r set foo foobar
        assert_equal [r bitpos foo 1 -100 -200] 1
        assert_equal [r bitpos foo 0 -1 -1 bit] 47
    }

    test {BITPOS for a clear bit in all-ones: past the end unless the range has an end} {
        r set ones "\xff\xff"
        assert_equal [r bitpos ones 0] 16
        assert_equal [r bitpos ones 0 0] 16
        assert_equal [r bitpos ones 0 1] 16
        assert_equal [r bitpos ones 0 0 -1] -1
        assert_equal [r bitpos ones 0 0 -1 bit] -1
        assert_equal [r bitpos ones 0 5 1] -1
        assert_equal [r bitpos ones 1 1] 8
    }

    test {BITPOS in an all-zero string and in an empty string} {
        r set zeros [string repeat "\x00" 3]
        assert_equal [r bitpos zeros 1] -1
        assert_equal [r bitpos zeros 1 0 -1 bit] -1
        assert_equal [r bitpos zeros 0] 0
        assert_equal [r bitpos zeros 0 2] 16
        r set empty ""
        assert_equal [r bitpos empty 0] -1
        assert_equal [r bitpos empty 1] -1
    }

    test {BITPOS with an empty range is -1} {
        r set bm "\x00\xff"
        assert_equal [r bitpos bm 1 1 0] -1
        assert_equal [r bitpos bm 0 1 0] -1
        assert_equal [r bitpos bm 1 9223372036854775807] -1
        assert_equal [r bitpos bm 0 5] -1
        assert_equal [r bitpos bm 1 15 3 bit] -1
    }

    test {BITPOS argument errors} {
        r set bm foobar
        assert_error {ERR The bit argument must be 1 or 0.} {r bitpos bm 2}
        assert_error {ERR The bit argument must be 1 or 0.} {r bitpos nokey -1}
        assert_error {ERR value is not an integer or out of range} {r bitpos bm x}
        assert_error {ERR value is not an integer or out of range} {r bitpos bm 1 x}
        assert_error {ERR value is not an integer or out of range} {r bitpos bm 1 0 x}
        assert_error {ERR syntax error} {r bitpos bm 1 0 1 foo}
        assert_error {ERR syntax error} {r bitpos bm 1 0 1 bit extra}
        # The unit is checked before the end is parsed.
        assert_error {ERR syntax error} {r bitpos bm 1 0 x foo}
        assert_error {ERR value is not an integer or out of range} {r bitpos bm 1 x 1 foo}
        assert_error {ERR wrong number of arguments for 'bitpos' command} {r bitpos bm}
    }

    test {BITPOS fuzzing against a model, byte and bit ranges} {
        for {set i 0} {$i < 200} {incr i} {
            # Mostly-uniform strings make the sought bit rare.
            switch [randomInt 3] {
                0 {set s [randstring 0 40]}
                1 {set s [string repeat "\xff" [randomInt 40]][randstring 0 2]}
                2 {set s [string repeat "\x00" [randomInt 40]][randstring 0 2]}
            }
            r set bm $s
            set len [string length $s]
            foreach bit {0 1} {
                assert_equal [r bitpos bm $bit] [model_bitpos $s $bit] "bit $bit [bits_of $s]"
                set a [expr {[randomInt [expr {$len * 2 + 3}]] - $len - 1}]
                assert_equal [r bitpos bm $bit $a] [model_bitpos $s $bit $a] "from $a"
                set b [expr {[randomInt [expr {$len * 2 + 3}]] - $len - 1}]
                assert_equal [r bitpos bm $bit $a $b] [model_bitpos $s $bit $a $b] "bytes $a $b"
                set a [expr {[randomInt [expr {$len * 16 + 3}]] - $len * 8 - 1}]
                set b [expr {[randomInt [expr {$len * 16 + 3}]] - $len * 8 - 1}]
                assert_equal [r bitpos bm $bit $a $b bit] [model_bitpos $s $bit $a $b bit] \
                    "bit $bit, bits $a $b of [bits_of $s]"
            }
        }
    }

    test {BITPOS in long uniform runs} {
        r set z [string repeat "\x00" 100003]
        assert_equal [r bitpos z 1] -1
        r setbit z 800013 1
        assert_equal [r bitpos z 1] 800013
        assert_equal [r bitpos z 1 7 -1] 800013
        assert_equal [r bitpos z 1 800014 -1 bit] -1
        r set o [string repeat "\xff" 100003]
        assert_equal [r bitpos o 0] 800024
        r setbit o 555555 0
        assert_equal [r bitpos o 0] 555555
        assert_equal [r bitpos o 0 69445] 800024
        assert_equal [r bitpos o 0 69445 -1] -1
    }

    test {BITOP AND, OR, XOR and NOT on small strings} {
        r set a "\xf0\x0f"
        r set b "\xff"
        assert_equal [r bitop and dest a b] 2
        assert_equal [r get dest] "\xf0\x00"
        assert_equal [r bitop or dest a b] 2
        assert_equal [r get dest] "\xff\x0f"
        assert_equal [r bitop xor dest a b] 2
        assert_equal [r get dest] "\x0f\x0f"
        assert_equal [r bitop not dest a] 2
        assert_equal [r get dest] "\x0f\xf0"
        assert_equal [r bitop AnD dest a] 2
        assert_equal [r get dest] "\xf0\x0f"
    }

    test {BITOP treats missing keys as empty, zero-padded strings} {
        r set a "\xff\xff\xff"
        r del nokey
        assert_equal [r bitop and dest a nokey] 3
        assert_equal [r get dest] "\x00\x00\x00"
        assert_equal [r bitop or dest nokey a] 3
        assert_equal [r get dest] "\xff\xff\xff"
        assert_equal [r exists nokey] 0
    }

    test {BITOP with an empty result deletes the destination} {
        r set dest something
        assert_equal [r bitop and dest nokey nokey2] 0
        assert_equal [r exists dest] 0
        r set dest something
        assert_equal [r bitop not dest nokey] 0
        assert_equal [r exists dest] 0
        r set empty ""
        r set dest something
        assert_equal [r bitop or dest empty] 0
        assert_equal [r exists dest] 0
        assert_equal [r bitop xor dest nokey] 0
        assert_equal [r exists dest] 0
    }

    test {BITOP replaces the destination and drops its TTL} {
        r set a foo
        r set dest v ex 100
        assert_equal [r bitop or dest a] 3
        assert_equal [r ttl dest] -1
        assert_encoding raw dest
    }

    test {BITOP may use the destination as a source} {
        r set a "\x0f"
        r set d "\xf1\x01"
        assert_equal [r bitop or d d a] 2
        assert_equal [r get d] "\xff\x01"
        assert_equal [r bitop not d d] 2
        assert_equal [r get d] "\x00\xfe"
    }

    test {BITOP reads int-encoded sources as their text} {
        r set n 123
        assert_equal [r bitop or d n] 3
        assert_equal [r get d] 123
        assert_encoding raw d
    }

    test {BITOP errors} {
        r set a foo
        assert_error {ERR syntax error} {r bitop foo d a}
        assert_error {ERR BITOP NOT must be called with a single source key.} {r bitop not d a a}
        assert_error {ERR wrong number of arguments for 'bitop' command} {r bitop not d}
        assert_error {ERR wrong number of arguments for 'bitop' command} {r bitop and d}
    }

    test {BITOP fuzzing against a model} {
        foreach op {and or xor not} {
            for {set i 0} {$i < 30} {incr i} {
                set n [expr {$op eq "not" ? 1 : 1 + [randomInt 4]}]
                set keys {}
                set values {}
                for {set k 0} {$k < $n} {incr k} {
                    if {[randomInt 6] == 0} {
                        r del src$k
                        lappend values ""
                    } else {
                        set v [randstring 0 50]
                        r set src$k $v
                        lappend values $v
                    }
                    lappend keys src$k
                }
                set expected [model_bitop $op $values]
                assert_equal [r bitop $op dest {*}$keys] [string length $expected]
                if {$expected eq ""} {
                    assert_equal [r exists dest] 0
                } else {
                    assert_equal [r get dest] $expected "$op of [llength $keys] sources"
                }
            }
        }
    }

    test {BITOP on long strings of different lengths} {
        r set l1 [string repeat "\xaa" 100001]
        r set l2 [string repeat "\x0f" 70003]
        assert_equal [r bitop and dest l1 l2] 100001
        assert_equal [r bitcount dest] [expr {70003 * 2}]
        assert_equal [r getrange dest 70000 70004] "\x0a\x0a\x0a\x00\x00"
        assert_equal [r bitop xor dest l1 l2] 100001
        assert_equal [r bitcount dest] [expr {100001 * 4}]
        assert_equal [r bitop not dest l2] 70003
        assert_equal [r bitcount dest] [expr {70003 * 4}]
    }
}
