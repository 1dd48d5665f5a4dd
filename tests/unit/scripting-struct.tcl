# The `struct` library of scripts (struct.pack, struct.unpack, struct.size) through EVAL: byte
# layouts checked against Tcl's own `binary format`, values read back from keys, the `!`
# alignment, length-prefixed (`c0`) and zero-terminated (`s`) strings, unpack's start and next
# positions, numbers beyond 2^53, and the error texts scripts see for bad formats and data.
#
# EVAL converts Lua numbers to integers on the way out, so tests that care about a number's
# exact value return it with tostring.

start_server {tags {scripting}} {
    test {struct.pack lays out integers in either byte order} {
        assert_equal [r eval {return struct.pack('>I2i4', 5, -1)} 0] [binary format SI 5 -1]
        assert_equal [r eval {return struct.pack('<I2i4', 5, -1)} 0] [binary format si 5 -1]
        assert_equal [r eval {return struct.pack('<bBh>h', -1, 200, 258, 258)} 0] \
            [binary format ccsS -1 200 258 258]
        # l and T are 8 bytes, i and I 4, h and H 2: the sizes of the C types on 64-bit Linux.
        assert_equal [r eval {return struct.pack('<lTiH', -2, 3, 4, 5)} 0] \
            [binary format wwis -2 3 4 5]
    }

    test {struct.pack takes integers of any size up to 32 bytes} {
        assert_equal [r eval {return struct.pack('>i3', -2)} 0] "\xff\xff\xfe"
        assert_equal [r eval {return struct.pack('<I5', 258)} 0] "\x02\x01\x00\x00\x00"
        assert_equal [r eval {return #struct.pack('i32', 1)} 0] 32
        assert_error {*integral size 33 is larger than limit of 32*} {
            r eval {return struct.pack('i33', 1)} 0
        }
        assert_error {*integral size overflow*} {
            r eval {return struct.pack('i99999999999', 1)} 0
        }
    }

    test {struct.pack converts numeric strings and truncates fractions} {
        assert_equal [r eval {return struct.pack('<i', ARGV[1])} 0 1000] [binary format i 1000]
        assert_equal [r eval {return struct.pack('bb', 1.9, -1.9)} 0] [binary format cc 1 -1]
        assert_error {*bad argument #2 to 'pack' (number expected, got string)*} {
            r eval {return struct.pack('i', 'abc')} 0
        }
    }

    test {struct.pack and unpack floats and doubles in either byte order} {
        assert_equal [r eval {return struct.pack('>d<f', 1.5, -2)} 0] [binary format Qr 1.5 -2]
        set packed [binary format R 0.25]
        assert_equal [r eval {return tostring(struct.unpack('>f', ARGV[1]))} 0 $packed] 0.25
        assert_equal [r eval {
            local x = struct.unpack('<d', struct.pack('<d', 0.1))
            return tostring(x == 0.1)
        } 0] true
    }

    test {struct.unpack returns the values and then the next position} {
        set data [binary format sc -2 200]
        assert_equal [r eval {return {struct.unpack('<hB', ARGV[1])}} 0 $data] {-2 200 4}
        assert_equal [r eval {return {struct.unpack('<hb', ARGV[1])}} 0 $data] {-2 -56 4}
        assert_equal [r eval {return {struct.unpack('<HB', ARGV[1])}} 0 $data] {65534 200 4}
    }

    test {struct.unpack reads records stored in keys} {
        r del rec
        r set rec [binary format IIS 7 -9 65535]
        assert_equal [r eval {return {struct.unpack('>iiH', redis.call('get', KEYS[1]))}} 1 rec] \
            {7 -9 65535 11}
        # And a record a script packs and stores reads back the same from Tcl.
        r eval {return redis.call('set', KEYS[1], struct.pack('<i2d', 12, 2.5))} 1 rec
        binary scan [r get rec] sq a b
        assert_equal [list $a $b] {12 2.5}
    }

    test {struct.unpack starts at a given position and walks a buffer} {
        set data [binary format ccc 10 20 30]
        assert_equal [r eval {return {struct.unpack('b', ARGV[1], 2)}} 0 $data] {20 3}
        assert_equal [r eval {
            local out, pos = {}, 1
            while pos <= #ARGV[1] do
                local v
                v, pos = struct.unpack('b', ARGV[1], pos)
                out[#out + 1] = v
            end
            return out
        } 0 $data] {10 20 30}
        # The end of the data is a valid start when nothing is left to read.
        assert_equal [r eval {return {struct.unpack('', ARGV[1], 4)}} 0 $data] {4}
        assert_error {*bad argument #3 to 'unpack' (offset must be 1 or greater)*} {
            r eval {return {struct.unpack('b', ARGV[1], 0)}} 0 $data
        }
        assert_error {*bad argument #2 to 'unpack' (data string too short)*} {
            r eval {return {struct.unpack('b', ARGV[1], 4)}} 0 $data
        }
    }

    test {struct alignment: ! sets the largest alignment, none means packed} {
        assert_equal [r eval {return struct.size('bi')} 0] 5
        assert_equal [r eval {return struct.size('!4bi')} 0] 8
        assert_equal [r eval {return struct.size('!bd')} 0] 16
        assert_equal [r eval {return struct.size('!2bd')} 0] 10
        assert_equal [r eval {return struct.pack('!4<bi', 1, 2)} 0] [binary format cx3i 1 2]
        assert_equal [r eval {return {struct.unpack('!4<bi', ARGV[1])}} 0 \
            [binary format cx3i 1 2]] {1 2 9}
        # Strings are never aligned.
        assert_equal [r eval {return struct.pack('!8bc2', 1, 'ab')} 0] "\x01ab"
        assert_error {*alignment 3 is not a power of 2*} {r eval {return struct.size('!3i')} 0}
    }

    test {struct strings: s is zero-terminated, cN fixed, c0 takes a length} {
        assert_equal [r eval {return struct.pack('sx', 'ab')} 0] "ab\x00\x00"
        assert_equal [r eval {return {struct.unpack('ss', ARGV[1])}} 0 "ab\x00cd\x00"] {ab cd 7}
        assert_equal [r eval {return struct.pack('c3', 'abcdef')} 0] abc
        assert_equal [r eval {return {struct.unpack('c2c', 'abc')}} 0] {ab c 4}
        # A length-prefixed string: the length is consumed by c0, not returned.
        set data [binary format Sa5 5 hello]
        assert_equal [r eval {return struct.pack('>I2c0', 5, 'hello')} 0] $data
        assert_equal [r eval {return {struct.unpack('>I2c0', ARGV[1])}} 0 $data] {hello 8}
        assert_error {*unfinished string in data*} {r eval {return struct.unpack('s', 'ab')} 0}
        assert_error {*format 'c0' needs a previous size*} {
            r eval {return struct.unpack('c0', 'ab')} 0
        }
        assert_error {*bad argument #3 to 'pack' (string too short)*} {
            r eval {return struct.pack('c3', 'ab')} 0
        }
    }

    test {struct.size counts fixed formats and refuses variable ones} {
        assert_equal [r eval {return struct.size('bBhHlLTiIfdx')} 0] 51
        assert_equal [r eval {return struct.size('i7c10')} 0] 17
        assert_error {*bad argument #1 to 'size' (option 's' has no fixed size)*} {
            r eval {return struct.size('bs')} 0
        }
        assert_error {*bad argument #1 to 'size' (option 'c0' has no fixed size)*} {
            r eval {return struct.size('bc0')} 0
        }
    }

    test {struct unpacks 64-bit values as Lua numbers (doubles)} {
        set ones [binary format w -1]
        assert_equal [r eval {return tostring(struct.unpack('<i8', ARGV[1]))} 0 $ones] -1
        assert_equal [r eval {return tostring(struct.unpack('<I8', ARGV[1]))} 0 $ones] \
            1.844674407371e+19
        assert_equal [r eval {return tostring(struct.unpack('>I8', ARGV[1]))} 0 \
            [binary format W 9007199254740993]] 9.007199254741e+15
    }

    test {struct rejects options it does not know} {
        foreach {fmt fn} {q pack = pack % size q unpack} {
            assert_error "*bad argument #1 to '$fn' (invalid format option '$fmt')*" {
                r eval "return struct.${fn}('$fmt', 'a')" 0
            }
        }
        # struct.size skips letters and digits it does not know, as Redis's copy does.
        assert_equal [r eval {return struct.size('bq')} 0] 1
    }

    test {struct errors carry the script position} {
        catch {r eval "local a = 1\nreturn struct.unpack('i4', 'abc')" 0} err
        assert_match {*user_script:2: bad argument #2 to 'unpack' (data string too short)*} $err
        assert_equal [r eval {
            local ok, err = pcall(struct.pack, 'i', {})
            return err
        } 0] {bad argument #2 to '?' (number expected, got table)}
    }
}
