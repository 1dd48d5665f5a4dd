# The cmsgpack library inside EVAL: the exact MessagePack bytes cmsgpack.pack gives for each
# kind of Lua value (integers and floats in their smallest form, strings, arrays against maps,
# the nesting limit), cmsgpack.unpack of data passed in ARGV and stored in keys, walking a string
# with unpack_one and unpack_limit, and the error texts for bad input and bad offsets.
#
# Scripts return bytes as hex (msgpack_hex) so that a mismatch prints readably.

# Hex of cmsgpack.pack(`args`), `args` being Lua source.
proc msgpack_hex {args} {
    r eval "local s = cmsgpack.pack([join $args {, }])
            return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end))" 0
}

# Bytes from a hex string, for ARGV.
proc from_hex {hex} {
    binary format H* $hex
}

# A typed rendering of everything `call` (Lua source over the bytes `d`) returns:
# "N: v1 v2 ..." with tables as {k=v,...} sorted by key, strings quoted, numbers %.17g.
proc msgpack_dump {hex {call {cmsgpack.unpack(d)}}} {
    r eval "
        local function one(v)
            local t = type(v)
            if t == 'table' then
                local keys = {}
                for k in pairs(v) do keys\[#keys + 1\] = k end
                table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
                local parts = {}
                for _, k in ipairs(keys) do parts\[#parts + 1\] = one(k) .. '=' .. one(v\[k\]) end
                return '{' .. table.concat(parts, ',') .. '}'
            elseif t == 'string' then return string.format('%q', v)
            elseif t == 'number' then return string.format('%.17g', v)
            else return tostring(v) end
        end
        local function dump(...)
            local out = {}
            for i = 1, select('#', ...) do out\[i\] = one((select(i, ...))) end
            return select('#', ...) .. ': ' .. table.concat(out, ' ')
        end
        local d = ARGV\[1\]
        return dump($call)" 0 [from_hex $hex]
}

start_server {tags {scripting}} {
    test {cmsgpack has Redis's functions and fields} {
        assert_equal [r eval {
            local names = {}
            for k, v in pairs(cmsgpack) do names[#names + 1] = k .. ':' .. type(v) end
            table.sort(names)
            return names} 0] \
            {_COPYRIGHT:string _DESCRIPTION:string _NAME:string _VERSION:string pack:function unpack:function unpack_limit:function unpack_one:function}
        assert_equal [r eval {return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT,
                                      cmsgpack._DESCRIPTION}} 0] \
            [list cmsgpack {lua-cmsgpack 0.4.0} {Copyright (C) 2012, Salvatore Sanfilippo} \
                 {MessagePack C implementation for Lua}]
    }

    test {cmsgpack.pack returns the bytes to the client unchanged} {
        assert_equal [r eval {return cmsgpack.pack({1, 2, 3}, 'a', 1.5, -1)} 0] \
            [from_hex 93010203a161ca3fc00000ff]
    }

    test {cmsgpack.pack writes integers in the smallest form} {
        foreach {expr hex} {
            0 00   127 7f   128 cc80   255 ccff   256 cd0100   65535 cdffff   65536 ce00010000
            4294967295 ceffffffff   4294967296 cf0000000100000000   2^53 cf0020000000000000
            -1 ff   -32 e0   -33 d0df   -128 d080   -129 d1ff7f   -32768 d18000
            -32769 d2ffff7fff   -2147483648 d280000000   -2147483649 d3ffffffff7fffffff
            -2^63 d38000000000000000   -0.0 00
        } {
            assert_equal [msgpack_hex $expr] $hex $expr
        }
    }

    test {cmsgpack.pack writes other numbers as float32 when exact, else float64} {
        foreach {expr hex} {
            1.5 ca3fc00000   0.5 ca3f000000   0.1 cb3fb999999999999a   2^63 ca5f000000
            1e20 cb4415af1d78b58c40   -2^31-0.5 cbc1e0000000100000
            1/0 ca7f800000   -1/0 caff800000   0/0 cbfff8000000000000
        } {
            assert_equal [msgpack_hex $expr] $hex $expr
        }
    }

    test {cmsgpack.pack writes nil, booleans, strings, and nil for functions} {
        assert_equal [msgpack_hex nil true false {''} {'ab'} {'12'} redis.call] \
            c0c3c2a0a26162a23132c0
        foreach {len header} {31 bf 32 d920 255 d9ff 256 da0100 65536 db00010000} {
            set hex [msgpack_hex "string.rep('x', $len)"]
            assert_equal [string range $hex 0 [expr {[string length $header] - 1}]] $header $len
            assert_equal [string length $hex] [expr {[string length $header] + 2 * $len}] $len
        }
    }

    test {cmsgpack.pack makes an array of keys 1..n and a map of any other table} {
        assert_equal [msgpack_hex {{}}] 90
        assert_equal [msgpack_hex {{1, 'a', true}}] 9301a161c3
        assert_equal [msgpack_hex {{a = 1}}] 81a16101
        assert_equal [msgpack_hex {{[1] = 1, [3] = 3}}] 8201010303
        assert_equal [msgpack_hex {{1, 2, nil, 4}}] 83010102020404
        assert_equal [msgpack_hex {{[0] = 1}}] 810001
        assert_equal [msgpack_hex {{[1.5] = 1}}] 81ca3fc0000001
        assert_equal [msgpack_hex {{n = 1, 2}}] 820102a16e01
        assert_equal [msgpack_hex {{[{1}] = {2}}}] 8191019102
        assert_equal [r eval {local t = {} for i = 1, 16 do t[i] = i end
                              return #cmsgpack.pack(t) .. ' ' .. cmsgpack.pack(t):byte(1)} 0] \
            {19 220}
        assert_equal [r eval {local t = {} for i = 1, 16 do t['k' .. i] = i end
                              return cmsgpack.pack(t):byte(1)} 0] 222
    }

    test {cmsgpack.pack writes tables nested 16 deep and nil below them} {
        assert_equal [msgpack_hex {{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}}] \
            9191919191919191919191919191919101
        assert_equal [msgpack_hex {{{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}}}] \
            91919191919191919191919191919191c0
        assert_equal [r eval {local t = {} t.self = t
                              return #cmsgpack.pack(t)} 0] 97 "a cycle: 16 maps of 6 bytes, then nil"
    }

    test {cmsgpack.pack with no argument is an error} {
        assert_error {*bad argument #0 to 'pack' (MessagePack pack needs input.)*} {
            r eval {return cmsgpack.pack()} 0
        }
    }

    test {cmsgpack.unpack returns every object of its input} {
        assert_equal [msgpack_dump 93010203a161ca3fc00000ff] {4: {1=1,2=2,3=3} "a" 1.5 -1}
        assert_equal [msgpack_dump {}] {0: }
        assert_equal [msgpack_dump c0c3c2] {3: nil true false}
        assert_equal [msgpack_dump 92c001] {1: {2=1}}
        assert_equal [msgpack_dump 8201c00202] {1: {2=2}}
        assert_equal [msgpack_dump de0001a16101] {1: {"a"=1}}
        assert_equal [msgpack_dump dc0000] {1: {}}
    }

    test {cmsgpack.unpack reads every integer and float width} {
        foreach {hex value} {
            ccff 255   cdffff 65535   ceffffffff 4294967295   cf0020000000000000 9007199254740992
            cfffffffffffffffff -1   d0ff -1   d1ff7f -129   d2ffffffff -1
            d38000000000000000 -9.2233720368547758e+18   e0 -32   7f 127
            ca3fc00000 1.5   cb3fb999999999999a 0.10000000000000001
        } {
            assert_equal [msgpack_dump $hex] "1: $value" $hex
        }
    }

    test {cmsgpack.unpack reads str8, str16 and str32, and refuses bin and ext} {
        assert_equal [msgpack_dump d90161da000162db0000000163] {3: "a" "b" "c"}
        foreach hex {c1 c403616263 c50003616263 c600000003616263 d40100 c7010100} {
            assert_error {*user_script:*: Bad data format in input.*} {msgpack_dump $hex}
        }
    }

    test {cmsgpack.unpack of truncated input is an error} {
        foreach hex {cc cb3fb9 d905 a3ab 9301 8101 dc de0001} {
            assert_error {*user_script:*: Missing bytes in input.*} {msgpack_dump $hex}
        }
    }

    test {cmsgpack.unpack of a map with a nil key is Lua's error} {
        assert_error {*table index is nil*} {msgpack_dump 83c0c0}
    }

    test {cmsgpack.unpack_one and unpack_limit walk the input by offset} {
        set d 01a16102
        assert_equal [msgpack_dump $d {cmsgpack.unpack_one(d)}] {2: 1 1}
        assert_equal [msgpack_dump $d {cmsgpack.unpack_one(d, 1)}] {2: 3 "a"}
        assert_equal [msgpack_dump $d {cmsgpack.unpack_one(d, 3)}] {2: -1 2}
        assert_equal [msgpack_dump $d {cmsgpack.unpack_one(d, 4)}] {1: -1}
        assert_equal [msgpack_dump $d {cmsgpack.unpack_limit(d, 2)}] {3: 3 1 "a"}
        assert_equal [msgpack_dump $d {cmsgpack.unpack_limit(d, 5)}] {4: -1 1 "a" 2}
        assert_equal [msgpack_dump $d {cmsgpack.unpack_limit(d, 2, 1)}] {3: -1 "a" 2}
        assert_equal [msgpack_dump $d {cmsgpack.unpack_limit(d, 0)}] {3: 1 "a" 2}
        assert_equal [msgpack_dump $d {cmsgpack.unpack_limit(d, 0, 1)}] {1: 1}
    }

    test {cmsgpack.unpack_one in a loop visits every object once} {
        assert_equal [r eval {
            local data = cmsgpack.pack('x', {1, 2}, 3)
            local offset, seen, value = 0, {}
            for i = 1, 10 do
                offset, value = cmsgpack.unpack_one(data, offset)
                seen[#seen + 1] = type(value)
                if offset == -1 then break end
            end
            return seen} 0] {string table number}
    }

    test {cmsgpack.unpack_one and unpack_limit refuse bad offsets and limits} {
        set d 01a16102
        assert_error {*Start offset 5 greater than input length 4.*} {
            msgpack_dump $d {cmsgpack.unpack_one(d, 5)}
        }
        assert_error {*Invalid request to unpack with offset of -1 and limit of 4.*} {
            msgpack_dump $d {cmsgpack.unpack_one(d, -1)}
        }
        assert_error {*Invalid request to unpack with offset of 0 and limit of 4.*} {
            msgpack_dump $d {cmsgpack.unpack_limit(d, -1)}
        }
        assert_error {*bad argument #2 to 'unpack_limit' (number expected, got no value)*} {
            msgpack_dump $d {cmsgpack.unpack_limit(d)}
        }
        assert_error {*bad argument #1 to 'unpack' (string expected, got table)*} {
            r eval {return cmsgpack.unpack({})} 0
        }
    }

    test {cmsgpack.unpack returns at most 7999 objects at once} {
        assert_equal [r eval {return select('#', cmsgpack.unpack(string.rep('\1', 7999)))} 0] 7999
        assert_error {*stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)*} {
            r eval {return select('#', cmsgpack.unpack(string.rep('\1', 8000)))} 0
        }
        assert_equal [r eval {return select(2, cmsgpack.unpack_limit(string.rep('\1', 9000), 10))} 0] 1
    }

    test {A packed job round-trips through a key} {
        r del job
        r eval {redis.call('set', KEYS[1], cmsgpack.pack({name = 'mail', attempts = 3,
                                                          data = {'a@b', 'c@d'}}))} 1 job
        assert_equal [r strlen job] 35
        assert_equal [r eval {local job = cmsgpack.unpack(redis.call('get', KEYS[1]))
                              return {job.name, job.attempts, job.data[2]}} 1 job] \
            {mail 3 c@d}
        r del job
    }

    test {cmsgpack values convert to replies like any Lua value} {
        assert_equal [r eval {return {cmsgpack.unpack(ARGV[1])}} 0 [from_hex 93010203a1619201c0]] \
            {{1 2 3} a 1}
    }

    test {cmsgpack cannot be modified by a script} {
        assert_error {*Attempt to modify a readonly table*} {
            r eval {cmsgpack.pack = nil} 0
        }
        assert_equal [r eval {return type(cmsgpack.pack)} 0] function
    }
}
