# String family: SET and its options and variants (SETNX, SETEX, PSETEX,
# GETSET), GET, GETEX, GETDEL, MGET, MSET, MSETNX, STRLEN, APPEND, GETRANGE,
# SUBSTR, SETRANGE and LCS; the int/embstr/raw encodings they leave behind,
# their expiry interplay, big and binary-safe values, and every error text.
# Arithmetic (INCR and friends) lives in incr.tcl.

start_server {tags {string}} {
    test {SET then GET returns the value; GET of a missing key is nil} {
        assert_equal [r set s:plain hello] OK
        assert_equal [r get s:plain] hello
        assert_equal [r get s:nokey] {}
        assert_equal [r set s:plain world] OK
        assert_equal [r get s:plain] world
    }

    test {SET and GET of an empty string} {
        r set s:empty ""
        assert_equal [r get s:empty] ""
        assert_equal [r strlen s:empty] 0
        assert_equal [r exists s:empty] 1
    }

    test {SET and GET are binary safe} {
        set v "a\x00b\r\nc\xff\x01\x00"
        r set s:bin $v
        assert_equal [r get s:bin] $v
        assert_equal [r strlen s:bin] 9
        set k "key\x00with\r\nnul"
        r set $k v2
        assert_equal [r get $k] v2
        assert_equal [r get "key"] {}
    }

    test {SET and GET of a 1 MB value and of random binary values} {
        set big [string repeat "0123456789abcdef" 65536]
        r set s:big $big
        assert_equal [r strlen s:big] 1048576
        assert_equal [r get s:big] $big
        for {set i 0} {$i < 50} {incr i} {
            set v [randstring 0 2000 binary]
            r set s:rand $v
            assert_equal [r get s:rand] $v
        }
    }

    test {Many small keys round trip} {
        for {set i 0} {$i < 1000} {incr i} {
            r set s:many:$i [expr {$i * 3}]
        }
        for {set i 0} {$i < 1000} {incr i} {
            assert_equal [r get s:many:$i] [expr {$i * 3}]
        }
    }

    test {Encodings: int for canonical integers, embstr up to 44 bytes, raw beyond} {
        r set s:enc 12345
        assert_encoding int s:enc
        r set s:enc -9223372036854775808
        assert_encoding int s:enc
        r set s:enc 9223372036854775807
        assert_encoding int s:enc
        r set s:enc 9223372036854775808
        assert_encoding embstr s:enc
        foreach notint {0123 -0 +1 " 1" "1 " 1.5 1e3 ""} {
            r set s:enc $notint
            assert_encoding embstr s:enc
            assert_equal [r get s:enc] $notint
        }
        r set s:enc [string repeat x 44]
        assert_encoding embstr s:enc
        r set s:enc [string repeat x 45]
        assert_encoding raw s:enc
        r set s:enc 0
        assert_encoding int s:enc
        assert_equal [r get s:enc] 0
    }

    test {SET NX and XX} {
        r del s:nx
        assert_equal [r set s:nx a NX] OK
        assert_equal [r set s:nx b NX] {}
        assert_equal [r get s:nx] a
        assert_equal [r set s:nx c XX] OK
        assert_equal [r get s:nx] c
        assert_equal [r set s:nx:missing c XX] {}
        assert_equal [r exists s:nx:missing] 0
        assert_equal [r set s:nx d nx nx] {} "repeating NX is allowed"
        assert_equal [r set s:nx e xx XX] OK
        assert_equal [r get s:nx] e
    }

    test {SET option conflicts and malformed options are syntax errors} {
        r set s:opt keep
        foreach opts {
            {NX XX} {XX NX} {EX 10 PX 100} {PX 100 EX 10} {EX 10 EXAT 99999999999}
            {PXAT 99999999999999 EX 10} {KEEPTTL EX 10} {EX 10 KEEPTTL} {PX 10 KEEPTTL}
            {EX} {PX} {EXAT} {PXAT} {PERSIST} {FOO} {NX FOO} {EX 10 10} {GET XX NX}
        } {
            assert_error {ERR syntax error} {r set s:opt other {*}$opts}
        }
        assert_equal [r get s:opt] keep
        assert_equal [r ttl s:opt] -1
    }

    test {SET with invalid expire values} {
        r set s:exp keep
        foreach opts {{EX 0} {EX -1} {PX 0} {PX -100} {EXAT 0} {PXAT -1}
                      {EX 9223372036854776} {EXAT 9223372036854776}
                      {PX 9223372036854775807}} {
            assert_error {ERR invalid expire time in 'set' command} {r set s:exp other {*}$opts}
        }
        foreach opts {{EX abc} {PX 1.5} {EX ""} {EXAT 1e9} {PX 99999999999999999999}} {
            assert_error {ERR value is not an integer or out of range} \
                {r set s:exp other {*}$opts}
        }
        assert_equal [r get s:exp] keep
        assert_equal [r ttl s:exp] -1
    }

    test {SET EX, PX, EXAT and PXAT set the TTL} {
        r set s:ttl v EX 100
        assert_range [r ttl s:ttl] 99 100
        r set s:ttl v PX 100000
        assert_range [r pttl s:ttl] 99000 100000
        set at [expr {[clock seconds] + 200}]
        r set s:ttl v EXAT $at
        assert_equal [r expiretime s:ttl] $at
        set pat [expr {[clock milliseconds] + 300000}]
        r set s:ttl v pxat $pat
        assert_equal [r pexpiretime s:ttl] $pat
        r set s:ttl v ex 10 ex 500
        assert_range [r ttl s:ttl] 499 500 "the last of repeated EX wins"
        r set s:ttl v PXAT 9223372036854775807
        assert_equal [r pexpiretime s:ttl] 9223372036854775807
    }

    test {SET without KEEPTTL clears the TTL, with KEEPTTL keeps it} {
        r set s:keep v EX 100
        r set s:keep v2
        assert_equal [r ttl s:keep] -1
        r set s:keep v EX 100
        r set s:keep v3 KEEPTTL
        assert_range [r ttl s:keep] 99 100
        assert_equal [r get s:keep] v3
        r set s:keep:new v KEEPTTL
        assert_equal [r ttl s:keep:new] -1
    }

    test {SET with an absolute time in the past leaves no key visible} {
        r set s:past v EXAT 1
        assert_equal [r get s:past] {}
        assert_equal [r exists s:past] 0
        r set s:past v PXAT [expr {[clock milliseconds] - 1000}]
        assert_equal [r exists s:past] 0
        r set s:past old
        r set s:past v XX EXAT 100
        assert_equal [r get s:past] {}
    }

    test {A key set with PX expires} {
        r set s:short v PX 50
        assert_equal [r get s:short] v
        after 120
        assert_equal [r get s:short] {}
        assert_equal [r exists s:short] 0
        r psetex s:short 50 v
        after 120
        assert_equal [r strlen s:short] 0
    }

    test {SET GET returns the old value and sets the new one} {
        r del s:get
        assert_equal [r set s:get a GET] {}
        assert_equal [r get s:get] a
        assert_equal [r set s:get b GET] a
        assert_equal [r get s:get] b
        assert_equal [r set s:get c GET GET] b
        r set s:get 42
        assert_equal [r set s:get x get] 42
    }

    test {SET GET with NX and XX replies the old value whether or not it writes} {
        r set s:getnx a
        assert_equal [r set s:getnx b NX GET] a
        assert_equal [r get s:getnx] a
        assert_equal [r set s:getnx c XX GET] a
        assert_equal [r get s:getnx] c
        r del s:getnx
        assert_equal [r set s:getnx d XX GET] {}
        assert_equal [r exists s:getnx] 0
        assert_equal [r set s:getnx e NX GET] {}
        assert_equal [r get s:getnx] e
    }

    test {SET GET with an expire option} {
        r set s:getex a
        assert_equal [r set s:getex b GET EX 100] a
        assert_range [r ttl s:getex] 99 100
        assert_equal [r set s:getex c KEEPTTL GET] b
        assert_range [r ttl s:getex] 99 100
        assert_error {ERR invalid expire time in 'set' command} {r set s:getex d GET EX 0}
        assert_equal [r get s:getex] c
    }

    test {SET GET against a key of another type fails and keeps the key} {
        r del s:list
        r rpush s:list a
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} \
            {r set s:list v GET}
        assert_equal [r type s:list] list
        assert_equal [r set s:list v] OK
        assert_equal [r get s:list] v
    }

    test {Reading or editing a key of another type fails with WRONGTYPE} {
        r del s:list
        r rpush s:list a
        assert_error {WRONGTYPE*} {r get s:list}
        assert_error {WRONGTYPE*} {r strlen s:list}
        assert_error {WRONGTYPE*} {r getdel s:list}
        assert_error {WRONGTYPE*} {r getex s:list}
        assert_error {WRONGTYPE*} {r getex s:list EX abc}
        assert_error {WRONGTYPE*} {r getset s:list v}
        assert_error {WRONGTYPE*} {r append s:list v}
        assert_error {WRONGTYPE*} {r getrange s:list 0 -1}
        assert_error {WRONGTYPE*} {r setrange s:list 0 v}
        assert_error {WRONGTYPE*} {r setrange s:list 0 ""}
        assert_error {ERR The specified keys must contain string values} {r lcs s:list nokey}
        assert_error {ERR The specified keys must contain string values} \
            {r lcs nokey s:list BADOPTION}
        assert_equal [r type s:list] list
    }

    test {MGET, SETNX, SETEX and MSET against a key of another type} {
        r del s:list
        r rpush s:list x
        r set s:str v
        assert_equal [r mget s:str s:list] {v {}}
        assert_equal [r setnx s:list y] 0
        assert_equal [r msetnx s:list y s:other z] 0
        assert_equal [r type s:list] list
        assert_equal [r setex s:list 100 v] OK
        assert_equal [r get s:list] v
        r del s:list
        r rpush s:list x
        assert_equal [r mset s:list w] OK
        assert_equal [r get s:list] w
    }

    test {SETNX sets only missing keys and answers 1 or 0} {
        r del s:setnx
        assert_equal [r setnx s:setnx a] 1
        assert_equal [r setnx s:setnx b] 0
        assert_equal [r get s:setnx] a
    }

    test {SETNX over an expired key succeeds} {
        r set s:setnx:exp old PX 30
        after 80
        assert_equal [r setnx s:setnx:exp new] 1
        assert_equal [r get s:setnx:exp] new
        assert_equal [r ttl s:setnx:exp] -1
    }

    test {SETEX and PSETEX set value and TTL} {
        assert_equal [r setex s:setex 100 v] OK
        assert_equal [r get s:setex] v
        assert_range [r ttl s:setex] 99 100
        assert_equal [r psetex s:setex 100000 w] OK
        assert_equal [r get s:setex] w
        assert_range [r pttl s:setex] 99000 100000
    }

    test {SETEX and PSETEX errors} {
        r set s:setex keep
        assert_error {ERR invalid expire time in 'setex' command} {r setex s:setex 0 v}
        assert_error {ERR invalid expire time in 'setex' command} {r setex s:setex -10 v}
        assert_error {ERR invalid expire time in 'setex' command} \
            {r setex s:setex 9223372036854776 v}
        assert_error {ERR invalid expire time in 'psetex' command} {r psetex s:setex 0 v}
        assert_error {ERR invalid expire time in 'psetex' command} \
            {r psetex s:setex 9223372036854775807 v}
        assert_error {ERR value is not an integer or out of range} {r setex s:setex 1.5 v}
        assert_error {ERR value is not an integer or out of range} {r psetex s:setex x v}
        assert_error {ERR wrong number of arguments for 'setex' command} {r setex s:setex 10}
        assert_equal [r get s:setex] keep
        assert_equal [r ttl s:setex] -1
    }

    test {GETSET returns the old value and clears the TTL} {
        r del s:getset
        assert_equal [r getset s:getset a] {}
        assert_equal [r getset s:getset b] a
        assert_equal [r get s:getset] b
        r set s:getset c EX 100
        assert_equal [r getset s:getset d] c
        assert_equal [r ttl s:getset] -1
        r getset s:getset 77
        assert_encoding int s:getset
    }

    test {GETDEL returns the value and deletes the key} {
        r set s:getdel v EX 100
        assert_equal [r getdel s:getdel] v
        assert_equal [r exists s:getdel] 0
        assert_equal [r getdel s:getdel] {}
        r set s:getdel 123
        assert_equal [r getdel s:getdel] 123
        assert_equal [r exists s:getdel] 0
    }

    test {GETEX without options behaves like GET and keeps the TTL} {
        r set s:gx v EX 100
        assert_equal [r getex s:gx] v
        assert_range [r ttl s:gx] 99 100
        assert_equal [r getex s:gx:missing] {}
    }

    test {GETEX EX, PX, EXAT, PXAT and PERSIST} {
        r set s:gx v
        assert_equal [r getex s:gx EX 100] v
        assert_range [r ttl s:gx] 99 100
        assert_equal [r getex s:gx px 200000] v
        assert_range [r pttl s:gx] 199000 200000
        set at [expr {[clock seconds] + 300}]
        assert_equal [r getex s:gx EXAT $at] v
        assert_equal [r expiretime s:gx] $at
        set pat [expr {[clock milliseconds] + 400000}]
        assert_equal [r getex s:gx PXAT $pat] v
        assert_equal [r pexpiretime s:gx] $pat
        assert_equal [r getex s:gx PERSIST] v
        assert_equal [r ttl s:gx] -1
        assert_equal [r getex s:gx persist persist] v
        assert_equal [r getex s:gx EX 10 EX 300] v
        assert_range [r ttl s:gx] 299 300
    }

    test {GETEX with an absolute time in the past deletes the key after replying} {
        r set s:gx v
        assert_equal [r getex s:gx EXAT 1] v
        assert_equal [r exists s:gx] 0
        r set s:gx w
        assert_equal [r getex s:gx PXAT [expr {[clock milliseconds] - 10}]] w
        assert_equal [r exists s:gx] 0
    }

    test {GETEX option errors} {
        r set s:gx v EX 100
        foreach opts {{PERSIST EX 10} {EX 10 PERSIST} {EX 10 PX 10} {KEEPTTL} {NX} {XX}
                      {GET} {EX} {FOO}} {
            assert_error {ERR syntax error} {r getex s:gx {*}$opts}
        }
        assert_error {ERR syntax error} {r getex s:gx:missing PERSIST EX 1}
        foreach opts {{EX 0} {PX -1} {EXAT 0} {PXAT -5} {EX 9223372036854776}
                      {PX 9223372036854775807}} {
            assert_error {ERR invalid expire time in 'getex' command} {r getex s:gx {*}$opts}
        }
        assert_error {ERR value is not an integer or out of range} {r getex s:gx EX abc}
        assert_range [r ttl s:gx] 99 100
        # A missing key answers nil before the expire value is looked at.
        assert_equal [r getex s:gx:missing EX abc] {}
        assert_equal [r getex s:gx:missing EX 0] {}
    }

    test {MGET returns values and nil for missing keys} {
        r mset s:m1 a s:m2 2
        r del s:m3
        assert_equal [r mget s:m1 s:m2 s:m3 s:m1] {a 2 {} a}
        assert_equal [r mget s:m3] {{}}
    }

    test {MSET sets every pair, clears TTLs, last duplicate wins} {
        r set s:ms1 old EX 100
        assert_equal [r mset s:ms1 a s:ms2 b s:ms1 c] OK
        assert_equal [r mget s:ms1 s:ms2] {c b}
        assert_equal [r ttl s:ms1] -1
        r mset s:ms3 100 s:ms4 [string repeat y 50]
        assert_encoding int s:ms3
        assert_encoding raw s:ms4
    }

    test {MSET and MSETNX with an odd number of arguments} {
        assert_error {ERR wrong number of arguments for 'mset' command} {r mset a b c}
        assert_error {ERR wrong number of arguments for 'msetnx' command} {r msetnx a b c}
        assert_error {ERR wrong number of arguments for 'mset' command} {r mset a}
        assert_equal [r exists a c] 0
    }

    test {MSETNX sets all keys or none} {
        r del s:nx1 s:nx2 s:nx3
        assert_equal [r msetnx s:nx1 a s:nx2 b] 1
        assert_equal [r mget s:nx1 s:nx2] {a b}
        assert_equal [r msetnx s:nx3 c s:nx2 z] 0
        assert_equal [r exists s:nx3] 0
        assert_equal [r get s:nx2] b
        assert_equal [r msetnx s:nx3 c s:nx3 d] 1
        assert_equal [r get s:nx3] d
    }

    test {STRLEN of missing, int-encoded, embstr, raw and binary values} {
        r del s:len
        assert_equal [r strlen s:len] 0
        r set s:len -12345
        assert_equal [r strlen s:len] 6
        r set s:len hello
        assert_equal [r strlen s:len] 5
        r set s:len [string repeat a 1000]
        assert_equal [r strlen s:len] 1000
        r set s:len "\x00\x00\x00"
        assert_equal [r strlen s:len] 3
    }

    test {APPEND creates and extends values and replies the new length} {
        r del s:app
        assert_equal [r append s:app hello] 5
        assert_encoding embstr s:app
        assert_equal [r append s:app " world"] 11
        assert_equal [r get s:app] "hello world"
        assert_encoding raw s:app
        assert_equal [r append s:app ""] 11
    }

    test {APPEND encodings: a new numeric value is int, an appended one is raw} {
        r del s:app
        assert_equal [r append s:app 123] 3
        assert_encoding int s:app
        assert_equal [r append s:app 4] 4
        assert_equal [r get s:app] 1234
        assert_encoding raw s:app
        r set s:app 99
        assert_equal [r append s:app ""] 2
        assert_encoding raw s:app
        assert_equal [r get s:app] 99
    }

    test {APPEND keeps the TTL and is binary safe} {
        r set s:app "a\x00" EX 100
        assert_equal [r append s:app "\x00b\r\n"] 6
        assert_equal [r get s:app] "a\x00\x00b\r\n"
        assert_range [r ttl s:app] 99 100
    }

    test {APPEND many times builds a big value} {
        r del s:app
        set expected ""
        for {set i 0} {$i < 1000} {incr i} {
            set chunk [randstring 0 100 binary]
            append expected $chunk
            r append s:app $chunk
        }
        assert_equal [r get s:app] $expected
    }

    test {GETRANGE and SUBSTR} {
        r set s:gr "Hello World"
        assert_equal [r getrange s:gr 0 4] Hello
        assert_equal [r getrange s:gr 0 -1] "Hello World"
        assert_equal [r getrange s:gr -5 -1] World
        assert_equal [r getrange s:gr 6 100] World
        assert_equal [r getrange s:gr -100 4] Hello
        assert_equal [r getrange s:gr -100 -50] H
        assert_equal [r getrange s:gr -1 -5] ""
        assert_equal [r getrange s:gr 5 2] ""
        assert_equal [r getrange s:gr 11 20] ""
        assert_equal [r getrange s:gr 10 10] d
        assert_equal [r getrange s:gr -9223372036854775808 9223372036854775807] "Hello World"
        assert_equal [r substr s:gr 0 4] Hello
        assert_equal [r substr s:gr -5 -1] World
    }

    test {GETRANGE of missing keys, empty values and int-encoded values} {
        r del s:gr
        assert_equal [r getrange s:gr 0 -1] ""
        r set s:gr ""
        assert_equal [r getrange s:gr 0 -1] ""
        assert_equal [r getrange s:gr -1 -1] ""
        r set s:gr 1234567
        assert_equal [r getrange s:gr 1 3] 234
        assert_equal [r getrange s:gr -2 -1] 67
        assert_encoding int s:gr
    }

    test {GETRANGE with non-integer indexes} {
        r set s:gr abc
        assert_error {ERR value is not an integer or out of range} {r getrange s:gr a 1}
        assert_error {ERR value is not an integer or out of range} {r getrange s:gr 0 1.5}
        assert_error {ERR value is not an integer or out of range} {r getrange s:gr:missing 0 x}
        assert_error {ERR wrong number of arguments for 'getrange' command} {r getrange s:gr 0}
    }

    test {GETRANGE against random slices} {
        set v [randstring 0 300 binary]
        r set s:gr $v
        set len [string length $v]
        for {set i 0} {$i < 200} {incr i} {
            set a [expr {[randomInt [expr {2 * $len + 20}]] - $len - 10}]
            set b [expr {[randomInt [expr {2 * $len + 20}]] - $len - 10}]
            set s $a
            set e $b
            if {$s < 0 && $e < 0 && $s > $e} {
                set want ""
            } else {
                if {$s < 0} {incr s $len}
                if {$e < 0} {incr e $len}
                if {$s < 0} {set s 0}
                if {$e < 0} {set e 0}
                if {$e >= $len} {set e [expr {$len - 1}]}
                set want [string range $v $s $e]
                if {$s > $e || $len == 0} {set want ""}
            }
            assert_equal [r getrange s:gr $a $b] $want "getrange $a $b of $len bytes"
        }
    }

    test {SETRANGE on a missing key zero-pads and creates a raw string} {
        r del s:sr
        assert_equal [r setrange s:sr 5 abc] 8
        assert_equal [r get s:sr] "\x00\x00\x00\x00\x00abc"
        assert_encoding raw s:sr
        r del s:sr
        assert_equal [r setrange s:sr 0 ab] 2
        assert_encoding raw s:sr
    }

    test {SETRANGE overwrites, extends and keeps the TTL} {
        r set s:sr "Hello World" EX 100
        assert_equal [r setrange s:sr 6 Redis] 11
        assert_equal [r get s:sr] "Hello Redis"
        assert_equal [r setrange s:sr 9 "s rock"] 15
        assert_equal [r get s:sr] "Hello Reds rock"
        assert_equal [r setrange s:sr 18 "\x00x"] 20
        assert_equal [r get s:sr] "Hello Reds rock\x00\x00\x00\x00x"
        assert_range [r ttl s:sr] 99 100
    }

    test {SETRANGE on an int-encoded value} {
        r set s:sr 1234
        assert_equal [r setrange s:sr 1 9] 4
        assert_equal [r get s:sr] 1934
        assert_encoding raw s:sr
        r set s:sr 5678
        assert_equal [r setrange s:sr 5 x] 6
        assert_equal [r get s:sr] "5678\x00x"
    }

    test {SETRANGE with an empty value changes nothing} {
        r del s:sr
        assert_equal [r setrange s:sr 0 ""] 0
        assert_equal [r setrange s:sr 100 ""] 0
        assert_equal [r exists s:sr] 0
        r set s:sr 1234
        assert_equal [r setrange s:sr 1 ""] 4
        assert_encoding int s:sr
        assert_equal [r setrange s:sr 9223372036854775807 ""] 4
        assert_equal [r get s:sr] 1234
    }

    test {SETRANGE offset errors and the 512 MB limit} {
        r set s:sr abc
        assert_error {ERR offset is out of range} {r setrange s:sr -1 x}
        assert_error {ERR offset is out of range} {r setrange s:sr:missing -1 ""}
        assert_error {ERR value is not an integer or out of range} {r setrange s:sr x y}
        assert_error {ERR value is not an integer or out of range} \
            {r setrange s:sr 9223372036854775808 y}
        assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} \
            {r setrange s:sr 536870912 x}
        assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} \
            {r setrange s:sr 536870911 xy}
        assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} \
            {r setrange s:sr:missing 536870912 x}
        assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} \
            {r setrange s:sr 9223372036854775807 x}
        assert_equal [r exists s:sr:missing] 0
        assert_equal [r get s:sr] abc
    }

    test {SETRANGE against random patches} {
        set v [randstring 0 200 binary]
        r set s:sr $v
        for {set i 0} {$i < 100} {incr i} {
            set off [randomInt 250]
            set patch [randstring 0 30 binary]
            if {$patch ne ""} {
                while {[string length $v] < $off} {append v "\x00"}
                set after [string range $v [expr {$off + [string length $patch]}] end]
                set v "[string range $v 0 [expr {$off - 1}]]$patch$after"
            }
            assert_equal [r setrange s:sr $off $patch] [string length $v]
            assert_equal [r get s:sr] $v
        }
    }

    tags {needs:config} {
        test {APPEND and SETRANGE obey proto-max-bulk-len} {
            r config set proto-max-bulk-len 1048576
            r set s:lim [string repeat a 1048570]
            assert_equal [r append s:lim 123456] 1048576
            assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} \
                {r append s:lim x}
            assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} \
                {r setrange s:lim 1048576 x}
            assert_equal [r setrange s:lim 1048575 z] 1048576
            assert_equal [r strlen s:lim] 1048576
            r config set proto-max-bulk-len 536870912
            assert_equal [r append s:lim x] 1048577
        }
    }

    test {LCS returns the longest common subsequence} {
        r mset s:lcs1 ohmytext s:lcs2 mynewtext
        assert_equal [r lcs s:lcs1 s:lcs2] mytext
        assert_equal [r lcs s:lcs1 s:lcs2 LEN] 6
        assert_equal [r lcs s:lcs2 s:lcs1] mytext
        assert_equal [r lcs s:lcs1 s:lcs1] ohmytext
    }

    test {LCS with missing keys and int-encoded values} {
        r del s:lcs:none
        assert_equal [r lcs s:lcs1 s:lcs:none] ""
        assert_equal [r lcs s:lcs:none s:lcs:none len] 0
        r mset s:lcsn1 1234567 s:lcsn2 92459
        assert_equal [r lcs s:lcsn1 s:lcsn2] 245
    }

    test {LCS IDX reports ranges from the end, with MINMATCHLEN and WITHMATCHLEN} {
        r mset s:lcs1 ohmytext s:lcs2 mynewtext
        assert_equal [r lcs s:lcs1 s:lcs2 IDX] \
            {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6}
        assert_equal [r lcs s:lcs1 s:lcs2 IDX WITHMATCHLEN] \
            {matches {{{4 7} {5 8} 4} {{2 3} {0 1} 2}} len 6}
        assert_equal [r lcs s:lcs1 s:lcs2 IDX MINMATCHLEN 4 WITHMATCHLEN] \
            {matches {{{4 7} {5 8} 4}} len 6}
        assert_equal [r lcs s:lcs1 s:lcs2 IDX MINMATCHLEN 5] {matches {} len 6}
        assert_equal [r lcs s:lcs1 s:lcs2 idx minmatchlen -3] \
            {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6}
        assert_equal [r lcs s:lcs1 s:lcs:none IDX] {matches {} len 0}
        assert_equal [r lcs s:lcs1 s:lcs2 WITHMATCHLEN MINMATCHLEN 2] mytext
        assert_equal [r lcs s:lcs1 s:lcs2 LEN WITHMATCHLEN] 6
    }

    test {LCS IDX on strings with ties and repeated bytes} {
        r mset s:lcs1 ABCBDAB s:lcs2 BDCABA
        assert_equal [r lcs s:lcs1 s:lcs2] BDAB
        assert_equal [r lcs s:lcs1 s:lcs2 IDX WITHMATCHLEN] \
            {matches {{{5 6} {3 4} 2} {{3 4} {0 1} 2}} len 4}
        r mset s:lcs1 aaaa s:lcs2 aa
        assert_equal [r lcs s:lcs1 s:lcs2 IDX] {matches {{{2 3} {0 1}}} len 2}
    }

    test {LCS IDX in RESP3 is a map} {
        r mset s:lcs1 ohmytext s:lcs2 mynewtext
        r hello 3
        set reply [r lcs s:lcs1 s:lcs2 IDX]
        r hello 2
        assert_equal $reply {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6}
        set c [redis_client]
        $c select 9
        $c hello 3
        $c readraw 1
        set lines [list [$c lcs s:lcs1 s:lcs:none IDX]]
        for {set i 0} {$i < 6} {incr i} {lappend lines [$c read]}
        $c close
        assert_equal [join $lines ,] {%2,$7,matches,*0,$3,len,:0}
    }

    test {LCS errors} {
        r mset s:lcs1 a s:lcs2 b
        assert_error {ERR If you want both the length and indexes, please just use IDX.} \
            {r lcs s:lcs1 s:lcs2 IDX LEN}
        assert_error {ERR syntax error} {r lcs s:lcs1 s:lcs2 FOO}
        assert_error {ERR syntax error} {r lcs s:lcs1 s:lcs2 MINMATCHLEN}
        assert_error {ERR value is not an integer or out of range} \
            {r lcs s:lcs1 s:lcs2 MINMATCHLEN x}
        assert_error {ERR wrong number of arguments for 'lcs' command} {r lcs s:lcs1}
    }

    test {LCS refuses a transient table bigger than proto-max-bulk-len} {
        # (12001 * 12001) cells of 4 bytes exceed the 512 MB default.
        r set s:lcsbig [string repeat a 12000]
        assert_error {ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len} \
            {r lcs s:lcsbig s:lcsbig}
        assert_error {ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len} \
            {r lcs s:lcsbig s:lcsbig LEN}
    }

    test {LCS of two 2000-byte random strings agrees on text, LEN and IDX} {
        r set s:lcs1 [randstring 2000 2000 compr]
        r set s:lcs2 [randstring 2000 2000 compr]
        set text [r lcs s:lcs1 s:lcs2]
        set len [r lcs s:lcs1 s:lcs2 LEN]
        set idx [r lcs s:lcs1 s:lcs2 IDX WITHMATCHLEN]
        assert_equal [string length $text] $len
        assert_equal [dict get $idx len] $len
        set total 0
        set a [r get s:lcs1]
        set b [r get s:lcs2]
        set rebuilt ""
        foreach m [dict get $idx matches] {
            lassign $m ra rb n
            assert_equal [string range $a {*}$ra] [string range $b {*}$rb]
            incr total $n
            set rebuilt "[string range $a {*}$ra]$rebuilt"
        }
        assert_equal $total $len
        assert_equal $rebuilt $text
    }

    test {Keyspace hits and misses count GET, MGET and GETEX lookups} {
        r config resetstat
        r set s:hit v
        r del s:miss
        r get s:hit
        r get s:miss
        r mget s:hit s:miss s:hit
        r getex s:hit
        assert_equal [s keyspace_hits] 4
        assert_equal [s keyspace_misses] 2
    } {} {needs:config}
}

# What a replica is told: GETDEL deletes, so it travels as DEL; GETEX changes only the TTL, so
# it travels as the TTL change it made (absolute) or not at all.
start_server {tags {string repl external:skip}} {
    test {GETDEL and GETEX reach the replication stream as DEL, PEXPIREAT, PERSIST or nothing} {
        with_repl_stream rs {
            r set k v
            assert_equal v [r getdel k]
            r getdel k
            r set k v
            r getex k
            r getex k ex 100
            r getex k persist
            r getex k persist
            r getex k pxat 99999999999000
            r set marker 1
            assert_repl_stream $rs {
                {select *} {set k v} {del k} {set k v} {pexpireat k *} {persist k}
                {pexpireat k 99999999999000} {set marker 1}
            }
        }
    }

    test {GETEX with a time in the past deletes the key and travels as DEL} {
        with_repl_stream rs {
            r set k v
            r getex k pxat 1
            r set marker 2
            assert_equal 0 [r exists k]
            assert_repl_stream $rs {{select *} {set k v} {del k} {set marker 2}}
        }
    }
}
