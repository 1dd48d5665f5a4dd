# BITFIELD and BITFIELD_RO: signed and unsigned integer fields at bit offsets, the three
# overflow policies, positional (#N) offsets, argument validation and key creation rules.
# A Tcl model (exact big integers) checks random operation lists.

# --- model: a bitmap is a "0101..." string, most significant bit of byte 0 first -----------

proc bf_bits_of {s} {
    binary scan $s B* b
    return $b
}

proc bf_bytes_of {bits} {
    return [binary format B* $bits]
}

# Pads the bit string with zero bytes until it holds bit `last`.
proc bf_grow {bits last} {
    while {[string length $bits] <= $last} {append bits 00000000}
    return $bits
}

proc bf_read {bits signed width offset} {
    set field [string range $bits $offset [expr {$offset + $width - 1}]]
    while {[string length $field] < $width} {append field 0}
    set v [expr "0b$field"]
    if {$signed && [string index $field 0] eq "1"} {set v [expr {$v - 2**$width}]}
    return $v
}

proc bf_write {bits width offset value} {
    set v [expr {$value % 2**$width}]
    set field ""
    for {set i [expr {$width - 1}]} {$i >= 0} {incr i -1} {
        append field [expr {($v >> $i) & 1}]
    }
    return [string replace $bits $offset [expr {$offset + $width - 1}] $field]
}

# Fits an exact result into the type; returns {} when FAIL refuses it. For a signed SET Redis
# measures the headroom max - value in wrapping 64-bit arithmetic, so a value more than 2^63
# below the maximum saturates upwards.
proc bf_fit {signed width exact policy {is_set 0}} {
    if {$signed} {
        set max [expr {2**($width - 1) - 1}]
        set min [expr {-(2**($width - 1))}]
    } else {
        set max [expr {2**$width - 1}]
        set min 0
    }
    if {$exact >= $min && $exact <= $max} {return $exact}
    switch -- $policy {
        fail {return {}}
        sat {
            set up [expr {$exact > $max}]
            if {$is_set && $signed && $exact <= $max - 2**63} {set up 1}
            return [expr {$up ? $max : $min}]
        }
        wrap {
            set v [expr {$exact % 2**$width}]
            if {$signed && $v > $max} {set v [expr {$v - 2**$width}]}
            return $v
        }
    }
}

# Runs an operation list (as given to BITFIELD after the key) on a bit string.
# Returns {replies bits}.
proc bf_model {bits ops} {
    set policy wrap
    set replies {}
    set highest -1
    for {set i 0} {$i < [llength $ops]} {incr i} {
        set op [string tolower [lindex $ops $i]]
        if {$op eq "overflow"} {incr i; continue}
        set type [lindex $ops [incr i]]
        set width [string range $type 1 end]
        set offset [lindex $ops [incr i]]
        if {[string index $offset 0] eq "#"} {
            set offset [expr {[string range $offset 1 end] * $width}]
        }
        if {$op ne "get"} {
            incr i
            set last [expr {$offset + $width - 1}]
            if {$last > $highest} {set highest $last}
        }
    }
    if {$highest >= 0} {set bits [bf_grow $bits $highest]}
    for {set i 0} {$i < [llength $ops]} {incr i} {
        set op [string tolower [lindex $ops $i]]
        if {$op eq "overflow"} {
            set policy [string tolower [lindex $ops [incr i]]]
            continue
        }
        set type [lindex $ops [incr i]]
        set signed [expr {[string index $type 0] eq "i"}]
        set width [string range $type 1 end]
        set offset [lindex $ops [incr i]]
        if {[string index $offset 0] eq "#"} {
            set offset [expr {[string range $offset 1 end] * $width}]
        }
        set old [bf_read $bits $signed $width $offset]
        if {$op eq "get"} {
            lappend replies $old
            continue
        }
        set arg [lindex $ops [incr i]]
        if {$op eq "incrby"} {
            set exact [expr {$old + $arg}]
        } elseif {!$signed && $arg < 0} {
            # An unsigned SET takes the value's 64-bit two's complement pattern.
            set exact [expr {$arg + 2**64}]
        } else {
            set exact $arg
        }
        set new [bf_fit $signed $width $exact $policy [expr {$op eq "set"}]]
        if {$new eq ""} {
            lappend replies {}
            continue
        }
        set bits [bf_write $bits $width $offset $new]
        lappend replies [expr {$op eq "set" ? $old : $new}]
    }
    return [list $replies $bits]
}

proc bf_random_value {} {
    switch [randomInt 5] {
        0 {return [expr {[randomInt 20] - 10}]}
        1 {return [expr {[randomInt 600] - 300}]}
        2 {return [expr {[randomInt 2000000000] - 1000000000}]}
        3 {return [expr {2**63 - 1 - [randomInt 3]}]}
        4 {return [expr {-(2**63) + [randomInt 3]}]}
    }
}

proc bf_random_ops {count} {
    set ops {}
    for {set k 0} {$k < $count} {incr k} {
        if {[randomInt 5] == 0} {
            lappend ops overflow [lindex {wrap sat fail WRAP Sat} [randomInt 5]]
        }
        if {[randomInt 2]} {
            set type i[expr {1 + [randomInt 64]}]
        } else {
            set type u[expr {1 + [randomInt 63]}]
        }
        set width [string range $type 1 end]
        if {[randomInt 4] == 0} {
            set offset #[randomInt [expr {128 / $width + 1}]]
        } else {
            set offset [randomInt 120]
        }
        switch [randomInt 3] {
            0 {lappend ops get $type $offset}
            1 {lappend ops set $type $offset [bf_random_value]}
            2 {lappend ops incrby $type $offset [bf_random_value]}
        }
    }
    return $ops
}

start_server {tags {bitfield}} {
    test {BITFIELD SET returns the old value and GET reads signed or unsigned} {
        r del bf
        assert_equal [r bitfield bf set i8 0 -100] 0
        assert_equal [r bitfield bf get i8 0] -100
        assert_equal [r bitfield bf get u8 0] 156
        assert_equal [r bitfield bf set u8 0 255 get i8 0 get u4 0 get i4 4] {156 -1 15 -1}
        assert_equal [r get bf] "\xff"
    }

    test {BITFIELD fields straddle bytes, most significant bit first} {
        r del bf
        assert_equal [r bitfield bf set u8 4 255] 0
        assert_equal [r get bf] "\x0f\xf0"
        assert_equal [r bitfield bf set i5 3 -3 get i5 3 get u5 3] {15 -3 29}
        assert_equal [r get bf] "\x1d\xf0"
        r del bf
        assert_equal [r bitfield bf set u63 1 1] 0
        assert_equal [r strlen bf] 8
        assert_equal [r bitfield bf get u63 1 get u1 0 get u1 63] {1 0 1}
    }

    test {BITFIELD positional offsets count fields of the type's width} {
        r del bf
        assert_equal [r bitfield bf set u8 #1 200 get u8 8 get u8 #1] {0 200 200}
        assert_equal [r bitfield bf set i16 #2 -2 get i16 32 get u4 #11] {0 -2 14}
        assert_equal [r strlen bf] 6
    }

    test {BITFIELD operations run in order and see earlier writes} {
        r del bf
        assert_equal [r bitfield bf set u8 0 1 incrby u8 0 5 get u8 0 set u8 0 9 get u8 0] \
            {0 6 6 6 9}
    }

    test {BITFIELD INCRBY wraps by default} {
        r del bf
        assert_equal [r bitfield bf set u2 0 3 incrby u2 0 1] {0 0}
        assert_equal [r bitfield bf set i8 8 127 incrby i8 8 1] {0 -128}
        assert_equal [r bitfield bf incrby i8 8 -1] 127
        assert_equal [r bitfield bf incrby u8 16 -1] 255
        assert_equal [r bitfield bf incrby u8 16 1000] 231
    }

    test {BITFIELD OVERFLOW SAT clamps to the type's bounds} {
        r del bf
        assert_equal [r bitfield bf overflow sat set u8 0 250 incrby u8 0 10] {0 255}
        assert_equal [r bitfield bf overflow sat incrby u8 0 -1000] 0
        assert_equal [r bitfield bf overflow sat set i8 8 -120 incrby i8 8 -20] {0 -128}
        assert_equal [r bitfield bf overflow sat incrby i8 8 1000] 127
        assert_equal [r bitfield bf overflow sat set i8 8 -200 get i8 8] {127 -128}
    }

    test {BITFIELD OVERFLOW FAIL replies nil and leaves the field alone} {
        r del bf
        assert_equal [r bitfield bf overflow fail set u4 0 15 incrby u4 0 1 get u4 0] {0 {} 15}
        assert_equal [r bitfield bf overflow fail set u4 0 16 get u4 0] {{} 15}
        assert_equal [r bitfield bf overflow fail set i4 4 7 incrby i4 4 -16 incrby i4 4 -15] \
            {0 {} -8}
    }

    test {BITFIELD OVERFLOW applies to the operations after it, any number of times} {
        r del bf
        assert_equal [r bitfield bf incrby u2 0 5 overflow sat incrby u2 0 5 \
                      overflow fail incrby u2 0 5 overflow WRAP incrby u2 0 2] {1 3 {} 1}
        # A policy given last changes nothing already done.
        assert_equal [r bitfield bf incrby u2 0 3 overflow fail] 0
    }

    test {BITFIELD unsigned SET takes a negative value as its 64-bit pattern} {
        r del bf
        assert_equal [r bitfield bf set u8 0 -1 get u8 0] {0 255}
        assert_equal [r bitfield bf set u8 0 -5 get u8 0] {255 251}
        assert_equal [r bitfield bf overflow sat set u8 0 -5 get u8 0] {251 255}
        assert_equal [r bitfield bf overflow fail set u8 0 -5 get u8 0] {{} 255}
        assert_equal [r bitfield bf overflow wrap set i8 0 200 get i8 0] {-1 -56}
    }

    test {BITFIELD signed SET far below the minimum saturates upwards (Redis 7.0)} {
        r del bf
        assert_equal [r bitfield bf overflow sat set i8 0 -9223372036854775680 get i8 0] {0 -128}
        assert_equal [r bitfield bf overflow sat set i8 0 -9223372036854775681 get i8 0] {-128 127}
        assert_equal [r bitfield bf overflow sat set i8 0 -9223372036854775808 get i8 0] {127 127}
        assert_equal [r bitfield bf overflow fail set i8 0 -9223372036854775808] {{}}
        assert_equal [r bitfield bf overflow wrap set i8 0 -9223372036854775808 get i8 0] {127 0}
        assert_equal [r bitfield bf overflow sat set i63 0 -4611686018427387905 get i63 0] \
            {0 4611686018427387903}
    }

    test {BITFIELD 64-bit signed and 63-bit unsigned limits} {
        r del bf
        assert_equal [r bitfield bf set i64 0 -9223372036854775808 get i64 0] \
            {0 -9223372036854775808}
        assert_equal [r bitfield bf incrby i64 0 -1] 9223372036854775807
        assert_equal [r bitfield bf overflow sat incrby i64 0 9223372036854775807] \
            9223372036854775807
        assert_equal [r bitfield bf overflow fail incrby i64 0 1] {{}}
        assert_equal [r bitfield bf get u63 0 get u63 1] {4611686018427387903 9223372036854775807}
        assert_equal [r bitfield bf set u63 0 9223372036854775807 incrby u63 0 1] \
            {4611686018427387903 0}
        assert_equal [r bitfield bf overflow sat incrby u63 0 -1] 0
    }

    test {BITFIELD type errors} {
        set msg "ERR Invalid bitfield type. Use something like i16 u8.\
 Note that u64 is not supported but i64 is."
        foreach type {u64 i65 i0 u0 U8 I8 x8 u08 u+8 u i -8 u8x ""} {
            assert_error $msg {r bitfield bf get $type 0} "type '$type'"
        }
        assert_error $msg {r bitfield_ro bf get u64 0}
    }

    test {BITFIELD offset errors and limits} {
        r del bf
        set msg {ERR bit offset is not an integer or out of range}
        foreach offset {-1 #-1 x #x ##1 # 1.0 4294967296 #536870912} {
            assert_error $msg {r bitfield bf get u8 $offset} "offset '$offset'"
        }
        assert_equal [r bitfield bf get u8 4294967295 get u8 #536870911] {0 0}
        assert_equal [r bitfield bf get i64 #67108863] 0
        assert_error $msg {r bitfield bf get i64 #67108864}
        assert_equal [r exists bf] 0
    }

    test {BITFIELD positional offsets multiply with 64-bit wrap-around (Redis 7.0)} {
        r set bf "\x00\xab"
        # 2305843009213693953 * 8 = 2^64 + 8, which wraps to bit 8.
        assert_equal [r bitfield bf get u8 #2305843009213693953] 171
    }

    test {BITFIELD syntax, OVERFLOW and value errors} {
        assert_error {ERR syntax error} {r bitfield bf get}
        assert_error {ERR syntax error} {r bitfield bf get u8}
        assert_error {ERR syntax error} {r bitfield bf set u8 0}
        assert_error {ERR syntax error} {r bitfield bf incrby u8 0}
        assert_error {ERR syntax error} {r bitfield bf foo}
        assert_error {ERR syntax error} {r bitfield bf get u8 0 overflow}
        assert_error {ERR Invalid OVERFLOW type specified} {r bitfield bf overflow foo}
        assert_error {ERR value is not an integer or out of range} {r bitfield bf set u8 0 x}
        assert_error {ERR value is not an integer or out of range} {r bitfield bf incrby u8 0 1.5}
        assert_error {ERR value is not an integer or out of range} \
            {r bitfield bf set i64 0 9223372036854775808}
        assert_error {ERR wrong number of arguments for 'bitfield' command} {r bitfield}
        assert_error {ERR wrong number of arguments for 'bitfield_ro' command} {r bitfield_ro}
    }

    test {BITFIELD validates every argument before doing anything} {
        r del bf
        assert_error {ERR Invalid bitfield*} {r bitfield bf set u8 0 1 get u64 0}
        assert_equal [r exists bf] 0
        r set bf "\x01"
        assert_error {ERR syntax error} {r bitfield bf set u8 0 7 incrby u8 0}
        assert_equal [r get bf] "\x01"
    }

    test {BITFIELD with only GETs reads zeros and never creates or grows the key} {
        r del bf
        assert_equal [r bitfield bf get u8 0 get i16 1000] {0 0}
        assert_equal [r exists bf] 0
        r set bf "\xff"
        assert_equal [r bitfield bf get u8 4 get u8 100] {240 0}
        assert_equal [r strlen bf] 1
    }

    test {BITFIELD writes create and grow the key even when every write fails} {
        r del bf
        assert_equal [r bitfield bf overflow fail incrby u2 0 5] {{}}
        assert_equal [r exists bf] 1
        assert_equal [r get bf] "\x00"
        assert_equal [r bitfield bf overflow fail set u8 20 300 get u8 1000] {{} 0}
        assert_equal [r get bf] "\x00\x00\x00\x00"
        assert_encoding raw bf
    }

    test {BITFIELD with no operations replies an empty array} {
        r del bf
        assert_equal [r bitfield bf] {}
        assert_equal [r bitfield_ro bf] {}
        assert_equal [r exists bf] 0
    }

    test {BITFIELD on an int-encoded value works on its text} {
        r set n 255
        assert_encoding int n
        # "2" is 0x32.
        assert_equal [r bitfield_ro n get u8 0 get u8 #1] {50 53}
        assert_equal [r bitfield n set u8 0 51] 50
        assert_equal [r get n] 355
        assert_encoding raw n
    }

    test {BITFIELD against a key of another type} {
        r del lst
        r rpush lst a
        assert_error WRONGTYPE* {r bitfield lst get u8 0}
        assert_error WRONGTYPE* {r bitfield lst set u8 0 1}
        assert_error WRONGTYPE* {r bitfield lst}
        assert_error WRONGTYPE* {r bitfield_ro lst get u8 0}
        assert_error WRONGTYPE* {r bitfield_ro lst}
        assert_error {ERR value is not an integer*} {r bitfield lst set u8 0 x}
        assert_equal [r type lst] list
    }

    test {BITFIELD touches a watched key only when a write changes bits or grows the string} {
        # Each case: the operations, then whether EXEC must abort.
        foreach {ops touched} {
            {set u8 0 14}                   0
            {incrby u8 0 0}                 0
            {incrby i1 27 -2}               0
            {set u8 0 15}                   1
            {set u8 64 0}                   1
            {overflow fail incrby u8 64 1000} 0
            {get u8 64}                     0
        } {
            r set bfw "\x0e\xe4\xe8\x14"
            r watch bfw
            r bitfield bfw {*}$ops
            r multi
            r ping
            set expected [expr {$touched ? {} : {PONG}}]
            assert_equal $expected [r exec] "BITFIELD $ops"
        }
    }

    test {BITFIELD_RO reads like BITFIELD and refuses writes} {
        r del bf
        r bitfield bf set i8 0 -3 set u8 8 7
        assert_equal [r bitfield_ro bf get i8 0 get u8 #1 get u16 100] {-3 7 0}
        assert_equal [r bitfield_ro bf overflow sat get u8 0] 253
        assert_error {ERR BITFIELD_RO only supports the GET subcommand} \
            {r bitfield_ro bf set u8 0 1}
        assert_error {ERR BITFIELD_RO only supports the GET subcommand} \
            {r bitfield_ro bf get u8 0 incrby u8 0 1}
        assert_error {ERR BITFIELD_RO only supports the GET subcommand} \
            {r bitfield_ro nokey set u8 0 1}
        assert_equal [r exists nokey] 0
        # Arguments are validated before the read-only check.
        assert_error {ERR value is not an integer*} {r bitfield_ro bf set u8 0 x}
        assert_error {ERR syntax error} {r bitfield_ro bf foo}
        assert_equal [r bitfield_ro bf get i8 0] -3
    }

    test {BITFIELD random operation lists match a model} {
        for {set round 0} {$round < 400} {incr round} {
            if {[randomInt 3] == 0} {
                r del bf
                set bits ""
            } else {
                set v [randstring 0 12]
                r set bf $v
                set bits [bf_bits_of $v]
            }
            set ops [bf_random_ops [expr {1 + [randomInt 6]}]]
            lassign [bf_model $bits $ops] expected bits
            assert_equal [r bitfield bf {*}$ops] $expected "ops: $ops"
            if {[r exists bf]} {
                assert_equal [bf_bits_of [r get bf]] $bits "ops: $ops"
            } else {
                assert_equal $bits ""
            }
        }
    }

    test {BITFIELD counters in a long string, every width} {
        r del bf
        for {set w 1} {$w <= 64} {incr w} {
            set type i$w
            set max [expr {2**($w - 1) - 1}]
            assert_equal [r bitfield bf overflow sat incrby $type #$w $max incrby $type #$w 1] \
                [list $max $max] "width $w"
        }
        for {set w 1} {$w <= 64} {incr w} {
            assert_equal [r bitfield bf get i$w #$w] [expr {2**($w - 1) - 1}] "width $w"
        }
    }
}
