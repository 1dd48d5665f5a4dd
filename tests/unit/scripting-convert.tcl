# Reply conversion of EVAL scripts, both ways, RESP2 and RESP3:
# - Lua to client: numbers truncated to integers, strings, tables as arrays up to the first nil,
#   false / true, {ok=...} and {err=...}, redis.status_reply / redis.error_reply, and the RESP3
#   shapes a script can build ({map=...}, {set=...}, {double=...}, {big_number=...},
#   {verbatim_string=...}) as a RESP2 and as a RESP3 caller receives them;
# - Redis to Lua: what redis.call returns for each reply type, in the script's default RESP2
#   mode and after redis.setresp(3).
#
# The client library maps RESP3 types onto plain Tcl values (maps flattened, booleans 1/0), so
# tests that are about the type on the wire read it raw with `wire`.

# One whole reply of `c` (in readraw mode) as its protocol lines joined by spaces, e.g.
# "%1 $1 a :1". Bulk payloads are assumed to hold no CRLF.
proc wire_read {c} {
    set line [$c read]
    set type [string index $line 0]
    set n [string range $line 1 end]
    switch -- $type {
        $ - = - ! {
            if {$n < 0} {return $line}
            return "$line [$c read]"
        }
        * - ~ - > {
            set out [list $line]
            for {set i 0} {$i < $n} {incr i} {lappend out [wire_read $c]}
            return [join $out " "]
        }
        % {
            set out [list $line]
            for {set i 0} {$i < 2 * $n} {incr i} {lappend out [wire_read $c]}
            return [join $out " "]
        }
        default {return $line}
    }
}

# The raw reply to `args` sent by a new connection speaking RESP `proto`.
proc wire {proto args} {
    set c [redis_deferring_client]
    $c hello $proto
    $c read
    $c readraw 1
    $c {*}$args
    set reply [wire_read $c]
    $c close
    return $reply
}

# A flat key value list as a dict with sorted keys, to compare maps whatever their order.
proc sorted_pairs {flat} {
    set out {}
    foreach k [lsort [dict keys $flat]] {lappend out $k [dict get $flat $k]}
    return $out
}

start_server {tags {scripting}} {
    # ---- Lua to the client -----------------------------------------------------------------

    test {Lua numbers become integers, truncated toward zero} {
        foreach proto {2 3} {
            assert_equal {:3} [wire $proto eval {return 3.99} 0]
            assert_equal {:-3} [wire $proto eval {return -3.99} 0]
            assert_equal {:0} [wire $proto eval {return 0.5} 0]
            assert_equal {:1099511627776} [wire $proto eval {return 2^40} 0]
        }
    }

    test {Lua strings become bulk strings, binary safe} {
        foreach proto {2 3} {
            assert_equal {$3 str} [wire $proto eval {return 'str'} 0]
            assert_equal {$0 } [wire $proto eval {return ''} 0]
        }
        assert_equal "a\x00b\xff" [r eval {return ARGV[1]} 0 "a\x00b\xff"]
        assert_equal 3.5 [r eval {return tostring(3.5)} 0]
    }

    test {Tables become arrays, cut at the first nil, nested as deep as they go} {
        foreach proto {2 3} {
            assert_equal {*2 :1 :2} [wire $proto eval {return {1, 2, nil, 4}} 0]
            assert_equal {*3 :1 *2 :2 *2 :3 $1 x $1 y} \
                [wire $proto eval {return {1, {2, {3, 'x'}}, 'y'}} 0]
            assert_equal {*0} [wire $proto eval {return {}} 0]
            # Only the array part counts: string keys are dropped.
            assert_equal {*0} [wire $proto eval {return {a = 1}} 0]
            assert_equal {*1 :1} [wire $proto eval {return {[1] = 1, [3] = 3}} 0]
            assert_equal {*2 :1 :2} [wire $proto eval {return {1, 2, x = 'y'}} 0]
        }
    }

    test {false is a null, true is the integer 1} {
        assert_equal {$-1} [wire 2 eval {return false} 0]
        assert_equal {_} [wire 3 eval {return false} 0]
        assert_equal {$-1} [wire 2 eval {return nil} 0]
        assert_equal {_} [wire 3 eval {return nil} 0]
        assert_equal {:1} [wire 2 eval {return true} 0]
        assert_equal {:1} [wire 3 eval {return true} 0]
        # Inside an array too.
        assert_equal {*4 :1 $-1 :1 $1 a} [wire 2 eval {return {1, false, true, 'a'}} 0]
        assert_equal {*4 :1 _ :1 $1 a} [wire 3 eval {return {1, false, true, 'a'}} 0]
    }

    test {A table with ok is a status reply, with err an error reply} {
        foreach proto {2 3} {
            assert_equal {+fine} [wire $proto eval {return {ok = 'fine'}} 0]
            assert_equal {-My Error} [wire $proto eval {return {err = 'My Error'}} 0]
            # No ERR is added to a table's error.
            assert_equal {-x} [wire $proto eval {return {err = 'x'}} 0]
            # err wins over ok, and both win over array elements.
            assert_equal {-e} [wire $proto eval {return {err = 'e', ok = 'o'}} 0]
            assert_equal {+a} [wire $proto eval {return {1, 2, ok = 'a'}} 0]
            # A non-string ok or err is ignored: the table is an (empty) array.
            assert_equal {*0} [wire $proto eval {return {ok = 1}} 0]
            assert_equal {*0} [wire $proto eval {return {err = 1}} 0]
            # Line breaks in a status or error become spaces.
            assert_equal {+a  b} [wire $proto eval "return {ok = 'a\\r\\nb'}" 0]
            assert_equal {-a b} [wire $proto eval "return {err = 'a\\nb'}" 0]
        }
        assert_equal {*6 :1 -inner x +fine $-1 :1 :2} \
            [wire 2 eval {return {1, {err = 'inner x'}, {ok = 'fine'}, false, true, 2.7}} 0]
        # An error inside an array does not fail the whole reply.
        assert_equal {1 {inner x} fine {} 1 2} \
            [r eval {return {1, {err = 'inner x'}, {ok = 'fine'}, false, true, 2.7}} 0]
    }

    test {redis.status_reply and redis.error_reply build those tables} {
        assert_equal {+STAT} [wire 2 eval {return redis.status_reply('STAT')} 0]
        assert_equal {S} [r eval {return redis.status_reply('S')['ok']} 0]
        assert_equal {+} [wire 2 eval {return redis.status_reply('')} 0]
        assert_equal {table} [r eval {return type(redis.error_reply('a b'))} 0]
        # A message with a space keeps its first word as the code; one word gets ERR.
        assert_equal {-E1 x} [wire 2 eval {return redis.error_reply('E1 x')} 0]
        assert_equal {-lower case} [wire 2 eval {return redis.error_reply('lower case')} 0]
        assert_equal {-ERR plain} [wire 3 eval {return redis.error_reply('plain')} 0]
        assert_equal {-ERR E1} [wire 2 eval {return redis.error_reply('E1')} 0]
        assert_equal {-ERR } [wire 2 eval {return redis.error_reply('')} 0]
        # A leading minus is dropped first.
        assert_equal {-E1 x} [wire 2 eval {return redis.error_reply('-E1 x')} 0]
        assert_equal {ERR x} [r eval {return redis.error_reply('-x')['err']} 0]
        assert_equal {ERR plain} [r eval {return redis.error_reply('plain')['err']} 0]
        assert_equal {lower case} [r eval {return redis.error_reply('lower case')['err']} 0]
        assert_error {ERR plain} {r eval {return redis.error_reply('plain')} 0}
    }

    test {RESP3 shapes built by a script, as a RESP2 caller receives them} {
        assert_equal {*2 $1 a :1} [wire 2 eval {return {map = {a = 1}}} 0]
        assert_equal {*1 $1 x} [wire 2 eval {return {set = {x = true}}} 0]
        assert_equal {$18 3.1400000000000001} [wire 2 eval {return {double = 3.14}} 0]
        assert_equal {$3 1.5} [wire 2 eval {return {double = 1.5}} 0]
        assert_equal {$20 12345678901234567890} \
            [wire 2 eval {return {big_number = '12345678901234567890'}} 0]
        assert_equal {$2 hi} [wire 2 eval {return {verbatim_string = {format = 'txt', string = 'hi'}}} 0]
        assert_equal {*3 :1 *2 $1 k $1 v $3 1.5} \
            [wire 2 eval {return {1, {map = {k = 'v'}}, {double = 1.5}}} 0]
        assert_equal {*2 $1 a $-1} [wire 2 eval {return {map = {a = false}}} 0]
    }

    test {RESP3 shapes built by a script, as a RESP3 caller receives them} {
        assert_equal {%1 $1 a :1} [wire 3 eval {return {map = {a = 1}}} 0]
        assert_equal {~1 $1 x} [wire 3 eval {return {set = {x = true}}} 0]
        assert_equal {,3.1400000000000001} [wire 3 eval {return {double = 3.14}} 0]
        assert_equal {,1.5} [wire 3 eval {return {double = 1.5}} 0]
        assert_equal {(12345678901234567890} \
            [wire 3 eval {return {big_number = '12345678901234567890'}} 0]
        assert_equal {=6 txt:hi} [wire 3 eval {return {verbatim_string = {format = 'txt', string = 'hi'}}} 0]
        assert_equal {*3 :1 %1 $1 k $1 v ,1.5} \
            [wire 3 eval {return {1, {map = {k = 'v'}}, {double = 1.5}}} 0]
        assert_equal {%1 $1 a _} [wire 3 eval {return {map = {a = false}}} 0]
        assert_equal {%1 $1 a *2 :1 :2} [wire 3 eval {return {map = {a = {1, 2}}}} 0]
        assert_equal {%0} [wire 3 eval {return {map = {}}} 0]
        assert_equal {~0} [wire 3 eval {return {set = {}}} 0]
        # The elements of a set are its keys, whatever the values.
        assert_equal {a b} [lsort [r eval {return {set = {a = 1, b = false}}} 0]]
        # Map keys are converted like values: a number key is an integer.
        assert_equal {%1 :1 $1 x} [wire 3 eval {return {map = {[1.5] = 'x'}}} 0]
    }

    test {Doubles are written with 17 significant digits, infinities by name} {
        foreach {lua resp2 resp3} {
            0.1     {$19 0.10000000000000001}      {,0.10000000000000001}
            1e300   {$23 1.0000000000000001e+300}  {,1.0000000000000001e+300}
            3       {$1 3}                         {,3}
            -0.0    {$2 -0}                        {,-0}
            1/0     {$3 inf}                       {,inf}
            -1/0    {$4 -inf}                      {,-inf}
        } {
            assert_equal $resp2 [wire 2 eval "return {double = $lua}" 0] $lua
            assert_equal $resp3 [wire 3 eval "return {double = $lua}" 0] $lua
        }
    }

    test {A RESP3 field of the wrong Lua type leaves an empty array} {
        foreach proto {2 3} {
            assert_equal {*0} [wire $proto eval {return {double = '2.5'}} 0]
            assert_equal {*0} [wire $proto eval {return {big_number = 123}} 0]
        }
    }

    test {Booleans after redis.setresp(3): RESP3 booleans, RESP2 integers} {
        assert_equal {#t} [wire 3 eval {redis.setresp(3) return true} 0]
        assert_equal {#f} [wire 3 eval {redis.setresp(3) return false} 0]
        assert_equal {_} [wire 3 eval {redis.setresp(3) return nil} 0]
        assert_equal {:1} [wire 2 eval {redis.setresp(3) return true} 0]
        assert_equal {:0} [wire 2 eval {redis.setresp(3) return false} 0]
        assert_equal {$-1} [wire 2 eval {redis.setresp(3) return nil} 0]
        assert_equal {*3 :1 #f #t} [wire 3 eval {redis.setresp(3) return {1, false, true}} 0]
        assert_equal {*3 :1 :0 :1} [wire 2 eval {redis.setresp(3) return {1, false, true}} 0]
    }

    test {Deeply nested tables convert; a table containing itself ends in an error element} {
        # Read raw: the client library's recursive reader is not meant for this depth.
        set c [redis_deferring_client]
        $c readraw 1
        $c eval {
            local t = {} local cur = t
            for i = 1, 1000 do cur[1] = {} cur = cur[1] end
            return t
        } 0
        for {set i 0} {$i < 1000} {incr i} {assert_equal {*1} [$c read] "level $i"}
        assert_equal {*0} [$c read]
        # A cycle is followed until the Lua stack is exhausted, then the error closes it.
        $c eval {local t = {} t[1] = t return t} 0
        set depth 0
        while {[set line [$c read]] eq "*1" && $depth < 100000} {incr depth}
        assert_equal {-ERR reached lua stack limit} $line
        assert_range $depth 1000 99999
        # The connection is still in step.
        $c ping
        assert_equal {+PONG} [$c read]
        $c close
    }

    # ---- arguments of redis.call -----------------------------------------------------------

    test {Lua numbers passed to redis.call become strings with 17 significant digits} {
        foreach {lua stored} {
            100     100
            0.1     0.10000000000000001
            1/3     0.33333333333333331
            1e20    1e+20
            -0.0    -0
            2^53    9007199254740992
        } {
            assert_equal $stored [r eval "redis.call('set', KEYS\[1\], $lua)\
                                          return redis.call('get', KEYS\[1\])" 1 num:key] $lua
        }
        r del num:key
    }

    # ---- Redis to Lua, RESP2 (the default) -------------------------------------------------

    test {redis.call in RESP2: integers, bulk strings, nil as false, arrays, statuses} {
        r del cv:list cv:missing
        r set cv:str hello
        r rpush cv:list a b c
        assert_equal {number 5} [r eval {
            local v = redis.call('strlen', KEYS[1]) return {type(v), v}} 1 cv:str]
        assert_equal {string hello} [r eval {
            local v = redis.call('get', KEYS[1]) return {type(v), v}} 1 cv:str]
        assert_equal {boolean false} [r eval {
            local v = redis.call('get', KEYS[1]) return {type(v), tostring(v)}} 1 cv:missing]
        assert_equal {table 3 a c} [r eval {
            local v = redis.call('lrange', KEYS[1], 0, -1) return {type(v), #v, v[1], v[3]}
        } 1 cv:list]
        assert_equal {table 0} [r eval {
            local v = redis.call('lrange', KEYS[1], 0, -1) return {type(v), #v}} 1 cv:missing]
        assert_equal {table OK} [r eval {
            local v = redis.call('set', KEYS[1], 'x') return {type(v), v.ok}} 1 cv:str]
        # A status returned as is goes back to the caller as a status.
        assert_equal {+PONG} [wire 2 eval {return redis.call('ping')} 0]
        assert_equal {+OK} [wire 2 eval {return redis.call('set', KEYS[1], 'y')} 1 cv:str]
        # A nil element inside an array becomes false, so the array is not cut.
        assert_equal {bool 0 y} [r eval {
            local v = redis.call('mget', 'cv:list', 'cv:missing', 'cv:str')
            return {type(v[1]) == 'boolean' and 'bool' or 'a', v[2] and 1 or 0, v[3]}
        } 0]
    }

    test {In RESP2 mode map, set and double replies arrive as arrays and strings} {
        r del cv:h cv:s cv:z
        r hset cv:h f v
        r sadd cv:s m
        r zadd cv:z 1.5 e
        foreach proto {2 3} {
            # The caller's protocol does not change the script's: still RESP2 inside.
            assert_equal {*2 $1 f $1 v} [wire $proto eval {return redis.call('hgetall', KEYS[1])} 1 cv:h]
            assert_equal {*1 $1 m} [wire $proto eval {return redis.call('smembers', KEYS[1])} 1 cv:s]
            assert_equal {$3 1.5} [wire $proto eval {return redis.call('zscore', KEYS[1], 'e')} 1 cv:z]
        }
        assert_equal {string 1.5} [r eval {
            local v = redis.call('zscore', KEYS[1], 'e') return {type(v), v}} 1 cv:z]
    }

    # ---- Redis to Lua after redis.setresp(3) -----------------------------------------------

    test {redis.call in RESP3: map, set, double and null} {
        r del cv:h cv:s cv:z cv:missing
        r hset cv:h f1 v1 f2 v2
        r sadd cv:s m1 m2
        r zadd cv:z 1.5 e
        assert_equal {table v1 v2 nil} [r eval {
            redis.setresp(3)
            local v = redis.call('hgetall', KEYS[1])
            return {type(v.map), v.map.f1, v.map.f2, tostring(v[1])}
        } 1 cv:h]
        assert_equal {true true nil} [r eval {
            redis.setresp(3)
            local v = redis.call('smembers', KEYS[1])
            return {tostring(v.set.m1), tostring(v.set.m2), tostring(v.set.m3)}
        } 1 cv:s]
        assert_equal {number 1.5} [r eval {
            redis.setresp(3)
            local v = redis.call('zscore', KEYS[1], 'e')
            return {type(v.double), tostring(v.double)}
        } 1 cv:z]
        assert_equal {nil} [r eval {
            redis.setresp(3)
            return tostring(redis.call('get', KEYS[1]))
        } 1 cv:missing]
        # setresp lasts for the rest of the script only.
        assert_equal {boolean} [r eval {return type(redis.call('get', KEYS[1]))} 1 cv:missing]
        # Switching back to 2 in the same script.
        assert_equal {table number} [r eval {
            redis.setresp(3)
            local a = redis.call('zscore', KEYS[1], 'e')
            redis.setresp(2)
            local b = redis.call('zscore', KEYS[1], 'e')
            return {type(a), type(tonumber(b))}
        } 1 cv:z]
    }

    test {RESP3 replies passed through a script, to RESP2 and RESP3 callers} {
        r del cv:h cv:s cv:z
        r hset cv:h f v
        r sadd cv:s m
        r zadd cv:z 1.5 e
        set h {redis.setresp(3) return redis.call('hgetall', KEYS[1])}
        set s {redis.setresp(3) return redis.call('smembers', KEYS[1])}
        set z {redis.setresp(3) return redis.call('zscore', KEYS[1], 'e')}
        set n {redis.setresp(3) return redis.call('get', KEYS[1])}
        assert_equal {%1 $1 f $1 v} [wire 3 eval $h 1 cv:h]
        assert_equal {*2 $1 f $1 v} [wire 2 eval $h 1 cv:h]
        assert_equal {~1 $1 m} [wire 3 eval $s 1 cv:s]
        assert_equal {*1 $1 m} [wire 2 eval $s 1 cv:s]
        assert_equal {,1.5} [wire 3 eval $z 1 cv:z]
        assert_equal {$3 1.5} [wire 2 eval $z 1 cv:z]
        assert_equal {_} [wire 3 eval $n 1 cv:missing]
        assert_equal {$-1} [wire 2 eval $n 1 cv:missing]
    }

    test {Every RESP3 type through a script, with DEBUG PROTOCOL allowed in scripts} {
        r debug set-disable-deny-scripts 1
        set probe {
            if ARGV[2] == '3' then redis.setresp(3) end
            return redis.call('debug', 'protocol', ARGV[1])
        }
        set describe {
            if ARGV[2] == '3' then redis.setresp(3) end
            local v = redis.call('debug', 'protocol', ARGV[1])
            if type(v) ~= 'table' then return {type(v), tostring(v)} end
            if v.double then return {'double', tostring(v.double)} end
            if v.big_number then return {'big_number', v.big_number} end
            if v.verbatim_string then
                return {'verbatim', v.verbatim_string.format, v.verbatim_string.string}
            end
            if v.map then
                return {'map', tostring(v.map[0]), tostring(v.map[1]), tostring(v.map[2])}
            end
            if v.set then
                return {'set', tostring(v.set[0]), tostring(v.set[1]), tostring(v.set[2])}
            end
            local out = {'array'}
            for i = 1, #v do out[#out + 1] = tostring(v[i]) end
            return out
        }
        catch {
            # What the script sees, RESP2 mode then RESP3 mode.
            foreach {type in2 in3} {
                string   {string {Hello World}}     {string {Hello World}}
                integer  {number 12345}             {number 12345}
                double   {string 3.141}             {double 3.141}
                bignum   {string 1234567999999999999999999999999999999}
                         {big_number 1234567999999999999999999999999999999}
                null     {boolean false}            {nil nil}
                true     {number 1}                 {boolean true}
                false    {number 0}                 {boolean false}
                array    {array 0 1 2}              {array 0 1 2}
                set      {array 0 1 2}              {set true true true}
                map      {array 0 0 1 1 2 0}        {map false true false}
                verbatim {string {This is a verbatim
string}}                                            {verbatim txt {This is a verbatim
string}}
                attrib   {string {Some real reply following the attribute}}
                         {string {Some real reply following the attribute}}
            } {
                assert_equal $in2 [r eval $describe 0 $type 2] "$type in RESP2 mode"
                assert_equal $in3 [r eval $describe 0 $type 3] "$type in RESP3 mode"
            }
            # And what the callers receive when the script returns it as is.
            foreach {type to2 to3} {
                double {$5 3.141}   {,3.141}
                bignum {$37 1234567999999999999999999999999999999}
                       {(1234567999999999999999999999999999999}
                null   {$-1}        {_}
                true   {:1}         {#t}
                false  {:0}         {#f}
                set    {*3 :1 :2 :0} {~3 :1 :2 :0}
            } {
                assert_equal $to2 [wire 2 eval $probe 0 $type 3] "$type to RESP2"
                assert_equal $to3 [wire 3 eval $probe 0 $type 3] "$type to RESP3"
            }
            assert_equal {0 0 1 1 2 0} [sorted_pairs [r eval $probe 0 map 3]]
            r hello 3
            assert_equal {0 0 1 1 2 0} [sorted_pairs [r eval $probe 0 map 3]]
        } err opts
        r hello 2
        r debug set-disable-deny-scripts 0
        if {[dict get $opts -code] == 1} {return -options $opts $err}
    } {} {needs:debug}
}
