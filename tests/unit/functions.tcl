# Functions (Redis 7.0): FUNCTION LOAD and the `#!lua name=` shebang with its errors,
# redis.register_function in its positional and named-argument forms with flags, FCALL and
# FCALL_RO (key counts, read-only rules, OOM admission), FUNCTION DELETE / FLUSH / LIST / STATS
# / HELP in RESP2 and RESP3, FUNCTION DUMP / RESTORE (payload layout, CRC64 trailer, restore
# policies, bad payloads), the Lua environment a library's load code sees and the one its
# functions run in, libraries surviving FLUSHALL, and the INFO memory fields of functions.
#
# Libraries and functions are kept in hash tables whose iteration order Redis randomises per
# process, so every test that looks at an order loads one library of one function, or sorts.

# A library `name` of one function `fn` whose body is `body`, registered positionally.
proc fn_lib {name fn body} {
    return "#!lua name=$name\nredis.register_function('$fn', function(keys, args) $body end)"
}

# The CRC64 Redis puts at the end of DUMP payloads (Jones polynomial, reflected, initial value
# 0, no final xor), computed bit by bit: payloads in these tests are a few hundred bytes.
proc fn_crc64 {data} {
    set crc 0
    binary scan $data cu* bytes
    foreach b $bytes {
        set crc [expr {$crc ^ $b}]
        for {set i 0} {$i < 8} {incr i} {
            if {$crc & 1} {
                set crc [expr {($crc >> 1) ^ 0x95AC9329AC4BC9B5}]
            } else {
                set crc [expr {$crc >> 1}]
            }
        }
    }
    return $crc
}

# `body` (opcodes and library strings) followed by the RDB version (2 bytes, little endian) and
# the CRC64 of both (8 bytes, little endian): a payload FUNCTION RESTORE accepts.
proc fn_payload {body {version 10}} {
    set data "$body[binary format s $version]"
    set crc [fn_crc64 $data]
    if {$crc >= (1 << 63)} {set crc [expr {$crc - (1 << 64)}]}
    return "$data[binary format w $crc]"
}

# A library code as an uncompressed RDB string (lengths below 16384 bytes).
proc fn_rdb_string {s} {
    set n [string length $s]
    if {$n < 64} {return "[binary format c $n]$s"}
    return "[binary format S [expr {0x4000 | $n}]]$s"
}

# The next n raw reply lines of deferring client rd (in readraw mode), joined by spaces.
proc fn_read_lines {rd n} {
    set lines {}
    for {set i 0} {$i < $n} {incr i} {lappend lines [$rd read]}
    return [join $lines " "]
}

# The library names FUNCTION LIST reports, sorted.
proc fn_library_names {} {
    set names {}
    foreach lib [r function list] {lappend names [dict get $lib library_name]}
    return [lsort $names]
}

start_server {tags {functions}} {
    # ---- FUNCTION LOAD and the shebang ----------------------------------------------------

    test {FUNCTION LOAD returns the library name and FCALL runs its function} {
        r function flush
        assert_equal lib1 [r function load [fn_lib lib1 f1 {return 'hello'}]]
        assert_equal hello [r fcall f1 0]
    }

    test {FCALL passes keys and arguments as the function's two parameters} {
        r function load replace [fn_lib lib1 f1 {return {keys, args, #keys, #args}}]
        assert_equal {{a b} {c d e} 2 3} [r fcall f1 2 a b c d e]
        assert_equal {{} {} 0 0} [r fcall f1 0]
        assert_equal {{} x 0 1} [r fcall f1 0 x]
    }

    test {FUNCTION LOAD without a shebang line is refused} {
        assert_error {ERR Missing library metadata} {
            r function load "redis.register_function('f', function() return 1 end)"
        }
        assert_error {ERR Missing library metadata} {r function load ""}
    }

    test {FUNCTION LOAD of a shebang without a line end is invalid metadata} {
        assert_error {ERR Invalid library metadata} {r function load "#!lua name=solo"}
        assert_error {ERR Invalid library metadata} {r function load "#!lua"}
    }

    test {FUNCTION LOAD names the missing or unknown engine} {
        assert_error {ERR Engine 'foo' not found} {
            r function load "#!foo name=x\nredis.register_function('f', function() end)"
        }
        assert_error {ERR Engine '' not found} {
            r function load "#! name=x\nredis.register_function('f', function() end)"
        }
    }

    test {The engine name in the shebang is case-insensitive} {
        assert_equal upper [r function load "#!LUA name=upper\nredis.register_function('fu', function() return 1 end)"]
        assert_equal 1 [r fcall fu 0]
        r function delete upper
    }

    test {FUNCTION LOAD requires a valid library name in the shebang} {
        assert_error {ERR Library name was not given} {
            r function load "#!lua\nredis.register_function('f', function() end)"
        }
        assert_error {ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} {
            r function load "#!lua name=\nredis.register_function('f', function() end)"
        }
        assert_error {ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} {
            r function load "#!lua name=a-b\nredis.register_function('f', function() end)"
        }
        assert_error {ERR Invalid metadata value given: 1} {
            r function load "#!lua name=lib 1\nredis.register_function('f', function() end)"
        }
        assert_error {ERR Invalid metadata value given: foo=bar} {
            r function load "#!lua name=x foo=bar\nredis.register_function('f', function() end)"
        }
        assert_error {ERR Invalid metadata value, name argument was given multiple times} {
            r function load "#!lua name=x name=y\nredis.register_function('f', function() end)"
        }
        assert_equal {lib1} [fn_library_names] "nothing was loaded by the failed attempts"
    }

    test {FUNCTION LOAD of an existing library fails without REPLACE} {
        assert_error {ERR Library 'lib1' already exists} {
            r function load [fn_lib lib1 other {return 1}]
        }
        assert_error {ERR Function not found} {r fcall other 0}
    }

    test {Library names are case-sensitive} {
        assert_equal LIB1 [r function load [fn_lib LIB1 upperf {return 'upper'}]]
        assert_equal {LIB1 lib1} [fn_library_names]
        r function delete LIB1
        assert_equal {lib1} [fn_library_names]
    }

    test {FUNCTION LOAD REPLACE swaps a library's functions} {
        r function load [fn_lib swap sa {return 'a1'}]
        assert_equal swap [r function load replace [fn_lib swap sa {return 'a2'}]]
        assert_equal a2 [r fcall sa 0]
        r function load replace [fn_lib swap sb {return 'b'}]
        assert_error {ERR Function not found} {r fcall sa 0}
        assert_equal b [r fcall sb 0]
        r function delete swap
    }

    test {A failed FUNCTION LOAD REPLACE keeps the old library} {
        r function load [fn_lib keep k1 {return 'old'}]
        assert_error {ERR Error compiling function: user_function:2: '=' expected near 'code'} {
            r function load replace "#!lua name=keep\nbad code"
        }
        assert_error {ERR Function f1 already exists} {
            r function load replace [fn_lib keep f1 {return 'steal'}]
        }
        assert_equal old [r fcall k1 0]
        assert_equal {a {} 1 0} [r fcall f1 1 a]
        r function delete keep
    }

    test {FUNCTION LOAD accepts REPLACE before the code, and nothing else} {
        assert_error {ERR Unknown option given: foo} {r function load foo "#!lua name=x\n"}
        # The option ends the error line: a CR/LF at its end is trimmed, one inside becomes a
        # space, and a NUL cuts it, as Redis formats the line.
        catch {r function load "\t\n" foo} e
        assert_equal "ERR Unknown option given: \t" $e
        catch {r function load "a\nb\r\n" foo} e
        assert_equal "ERR Unknown option given: a b" $e
        catch {r function load "a\0b" foo} e
        assert_equal "ERR Unknown option given: a" $e
        assert_error {ERR wrong number of arguments for 'function|load' command} {r function load}
        assert_error {ERR Missing library metadata} {r function load replace}
        assert_equal rr [r function load replace replace [fn_lib rr frr {return 1}]]
        r function delete rr
    }

    test {A library that registers no function is refused} {
        assert_error {ERR No functions registered} {r function load "#!lua name=empty\nreturn 1"}
        assert_error {ERR No functions registered} {r function load "#!lua name=empty\n"}
    }

    test {Load code that runs too long is stopped} {
        assert_error {ERR Error registering functions: ERR FUNCTION LOAD timeout} {
            r function load "#!lua name=forever\nredis.register_function('fv', function() end)\nlocal i = 0 while true do i = i + 1 end"
        }
        assert_error {ERR Function not found} {r fcall fv 0}
        assert_equal PONG [r ping]
    }

    test {Compile and run errors of the load code are reported} {
        assert_error {ERR Error compiling function: user_function:2: '=' expected near 'error'} {
            r function load "#!lua name=bad\nsyntax error here"
        }
        assert_error {ERR Error registering functions: ERR user_function:3: attempt to perform arithmetic on a nil value} {
            r function load "#!lua name=bad\nredis.register_function('b', function() end)\nlocal x = nil + 1"
        }
        assert_error {ERR Error registering functions: ERR redis.log() requires two arguments or more.} {
            r function load "#!lua name=bad\nredis.log(redis.LOG_WARNING)"
        }
        assert_error {ERR Function not found} {r fcall b 0}
    }

    test {A function name used by another library is refused} {
        assert_error {ERR Function f1 already exists} {r function load [fn_lib other f1 {return 1}]}
        assert_error {ERR Function F1 already exists} {r function load [fn_lib other F1 {return 1}]}
        assert_equal {lib1} [fn_library_names]
    }

    test {Function names are looked up case-insensitively and listed as registered} {
        r function load [fn_lib mixed MiXed {return 'mixed'}]
        assert_equal mixed [r fcall mixed 0]
        assert_equal mixed [r fcall MIXED 0]
        set lib [lindex [r function list libraryname mixed] 0]
        assert_equal MiXed [dict get [lindex [dict get $lib functions] 0] name]
        r function delete mixed
    }

    # ---- redis.register_function ----------------------------------------------------------

    test {register_function in the named-argument form takes flags and a description} {
        r function load "#!lua name=named\nredis.register_function{function_name='nf', callback=function(keys, args) return args\[1\] end, flags={'no-writes'}, description='echoes'}"
        assert_equal hi [r fcall nf 0 hi]
        set f [lindex [dict get [lindex [r function list libraryname named] 0] functions] 0]
        assert_equal {name nf description echoes flags no-writes} $f
        r function delete named
    }

    test {register_function accepts every function flag} {
        r function load "#!lua name=allflags\nredis.register_function{function_name='af', callback=function() return 'ok' end, flags={'no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}}"
        assert_equal ok [r fcall af 0]
        set f [lindex [dict get [lindex [r function list libraryname allflags] 0] functions] 0]
        assert_equal {no-writes allow-oom allow-stale no-cluster allow-cross-slot-keys} [dict get $f flags]
        r function delete allflags
    }

    test {register_function's errors come back through FUNCTION LOAD} {
        set cases {
            {redis.register_function('f2', function() end) redis.register_function('f2', function() end)}
            {ERR Error registering functions: ERR Function already exists in the library}
            {redis.register_function('f-1', function() end)}
            {ERR Error registering functions: ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long}
            {redis.register_function('', function() end)}
            {ERR Error registering functions: ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long}
            {redis.register_function{function_name='f2', callback=function() end, flags={'no-writes', 'bogus'}}}
            {ERR Error registering functions: ERR unknown flag given}
            {redis.register_function{function_name='f2', callback=function() end, flags={1}}}
            {ERR Error registering functions: ERR unknown flag given}
            {redis.register_function{function_name='f2', callback=function() end, flags='no-writes'}}
            {ERR Error registering functions: ERR flags argument to redis.register_function must be a table representing function flags}
            {redis.register_function{function_name='f2', callback=function() end, foo=1}}
            {ERR Error registering functions: ERR unknown argument given to redis.register_function}
            {redis.register_function{function_name='f2'}}
            {ERR Error registering functions: ERR redis.register_function must get a callback argument}
            {redis.register_function{callback=function() end}}
            {ERR Error registering functions: ERR redis.register_function must get a function name argument}
            {redis.register_function{function_name={}, callback=function() end}}
            {ERR Error registering functions: ERR function_name argument given to redis.register_function must be a string}
            {redis.register_function{function_name='f2', callback='x'}}
            {ERR Error registering functions: ERR callback argument given to redis.register_function must be a function}
            {redis.register_function('f2')}
            {ERR Error registering functions: ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).}
            {redis.register_function('f2', 'notfn')}
            {ERR Error registering functions: ERR second argument to redis.register_function must be a function}
            {redis.register_function({}, function() end)}
            {ERR Error registering functions: ERR first argument to redis.register_function must be a string}
            {redis.register_function('f2', function() end, 'extra')}
            {ERR Error registering functions: ERR wrong number of arguments to redis.register_function}
            {redis.register_function()}
            {ERR Error registering functions: ERR wrong number of arguments to redis.register_function}
        }
        foreach {code expected} $cases {
            set err [assert_error * {r function load "#!lua name=regerr\n$code"} $code]
            assert_equal $expected $err $code
        }
        assert_equal {lib1} [fn_library_names]
    }

    test {register_function converts a numeric name and description to strings} {
        r function load "#!lua name=numeric\nredis.register_function{function_name=42, callback=function() return 'n' end, description=5}"
        assert_equal n [r fcall 42 0]
        set f [lindex [dict get [lindex [r function list libraryname numeric] 0] functions] 0]
        assert_equal {name 42 description 5 flags {}} $f
        r function delete numeric
    }

    test {register_function can not be called once the library is loaded} {
        r function load [fn_lib late late {return redis.register_function == nil}]
        assert_equal 1 [r fcall late 0]
        r function delete late
    }

    # ---- FCALL and FCALL_RO ---------------------------------------------------------------

    test {FCALL checks its key count} {
        assert_error {ERR wrong number of arguments for 'fcall' command} {r fcall f1}
        assert_error {ERR Bad number of keys provided} {r fcall f1 x}
        assert_error {ERR Number of keys can't be negative} {r fcall f1 -1}
        assert_error {ERR Number of keys can't be greater than number of args} {r fcall f1 3 a}
        assert_error {ERR Number of keys can't be greater than number of args} {r fcall_ro f1 1}
        assert_error {ERR Bad number of keys provided} {r fcall_ro f1 1.5}
    }

    test {FCALL and FCALL_RO of an unknown function} {
        assert_error {ERR Function not found} {r fcall nosuch 0}
        assert_error {ERR Function not found} {r fcall_ro nosuch 0}
    }

    test {FCALL_RO runs no-writes functions and refuses the others} {
        r function load "#!lua name=rw
            redis.register_function{function_name='reader', callback=function(keys) return redis.call('get', keys\[1\]) end, flags={'no-writes'}}
            redis.register_function{function_name='writer', callback=function(keys, args) return redis.call('set', keys\[1\], args\[1\]) end}"
        assert_equal OK [r fcall writer 1 fk v1]
        assert_equal v1 [r fcall reader 1 fk]
        assert_equal v1 [r fcall_ro reader 1 fk]
        assert_error {ERR Can not execute a script with write flag using \*_ro command.} {
            r fcall_ro writer 1 fk v2
        }
        assert_equal v1 [r get fk]
    }

    test {A no-writes function can not write} {
        r function load "#!lua name=nowrite
            redis.register_function{function_name='nw', callback=function(keys) return redis.call('set', keys\[1\], 'x') end, flags={'no-writes'}}
            redis.register_function{function_name='nwp', callback=function(keys) local r = redis.pcall('set', keys\[1\], 'x') return r\['err'\] end, flags={'no-writes'}}"
        assert_error {ERR Write commands are not allowed from read-only scripts. script: nw, on @user_function:2.} {
            r fcall nw 1 fk
        }
        assert_equal {ERR Write commands are not allowed from read-only scripts.} [r fcall nwp 1 fk]
        assert_equal v1 [r get fk]
        r function delete nowrite
    }

    test {Errors raised by a function name the function and the line} {
        r function load "#!lua name=errs
            redis.register_function('raise', function() error('boom') end)
            redis.register_function('custom', function() return redis.error_reply('MY custom') end)
            redis.register_function('errtable', function() return {err='plain'} end)"
        assert_error {ERR user_function:2: boom script: raise, on @user_function:2.} {r fcall raise 0}
        assert_error {MY custom} {r fcall custom 0}
        assert_error {plain} {r fcall errtable 0}
        r function delete errs
    }

    test {Scripts and functions can not call FCALL, FUNCTION or EVAL} {
        set before [fn_library_names]
        r function load "#!lua name=nested
            redis.register_function('callfcall', function() return redis.call('fcall', 'f1', 0) end)
            redis.register_function('callfunction', function() return redis.call('function', 'list') end)
            redis.register_function('calleval', function() return redis.call('eval', 'return 1', 0) end)"
        assert_error {ERR This Redis command is not allowed from script script: callfcall, on @user_function:2.} {r fcall callfcall 0}
        assert_error {ERR This Redis command is not allowed from script script: callfunction, on @user_function:3.} {r fcall callfunction 0}
        assert_error {ERR This Redis command is not allowed from script script: calleval, on @user_function:4.} {r fcall calleval 0}
        assert_error {ERR This Redis command is not allowed from script*} {r eval "return redis.call('fcall', 'f1', 0)" 0}
        assert_error {ERR This Redis command is not allowed from script*} {r eval "return redis.call('function', 'flush')" 0}
        assert_equal [lsort [concat $before nested]] [fn_library_names]
        r function delete nested
    }

    test {FCALL inside MULTI runs at EXEC} {
        r multi
        assert_equal QUEUED [r fcall f1 1 m]
        assert_equal QUEUED [r fcall writer 1 fk v3]
        assert_equal {{m {} 1 0} OK} [r exec]
        assert_equal v3 [r get fk]
        r function delete rw
        r del fk
    }

    test {Under maxmemory only no-writes and allow-oom functions run} {
        r function load "#!lua name=oom
            redis.register_function{function_name='plain', callback=function(keys) return redis.call('set', keys\[1\], 'v') end}
            redis.register_function{function_name='oomok', callback=function(keys) return redis.call('set', keys\[1\], 'oom') end, flags={'allow-oom'}}
            redis.register_function{function_name='looker', callback=function(keys) return redis.call('get', keys\[1\]) end, flags={'no-writes'}}"
        r config set maxmemory 1
        set err [catch {
            assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r fcall plain 1 ok}
            assert_equal OK [r fcall oomok 1 ok]
            assert_equal oom [r fcall looker 1 ok]
            assert_equal oom [r fcall_ro looker 1 ok]
        } e opts]
        r config set maxmemory 0
        if {$err} {return -options $opts $e}
        r function delete oom
        r del ok
    }

    # ---- the Lua environment --------------------------------------------------------------

    test {Functions see no KEYS or ARGV globals} {
        r function load "#!lua name=env
            redis.register_function('keys', function() return KEYS end)
            redis.register_function('argv', function() return ARGV end)"
        assert_error {ERR user_function:2: Script attempted to access nonexistent global variable 'KEYS' script: keys, on @user_function:2.} {
            r fcall keys 1 a
        }
        assert_error {ERR user_function:3: Script attempted to access nonexistent global variable 'ARGV' script: argv, on @user_function:3.} {
            r fcall argv 0 a
        }
        r function delete env
    }

    test {Functions can not create or change globals} {
        r function load "#!lua name=globals
            redis.register_function('setg', function() newglobal = 1 end)
            redis.register_function('readg', function() return newglobal end)
            redis.register_function('rawsetg', function() rawset(_G, 'newglobal', 1) return 1 end)
            redis.register_function('setmt', function() setmetatable(_G, nil) return 1 end)
            redis.register_function('libfield', function() string.extra = 1 return 1 end)"
        assert_error {ERR user_function:2: Attempt to modify a readonly table script: setg, on @user_function:2.} {r fcall setg 0}
        assert_error {ERR user_function:3: Script attempted to access nonexistent global variable 'newglobal' script: readg, on @user_function:3.} {r fcall readg 0}
        assert_error {ERR Attempt to modify a readonly table script: rawsetg, on @user_function:4.} {r fcall rawsetg 0}
        assert_error {ERR Attempt to modify a readonly table script: setmt, on @user_function:5.} {r fcall setmt 0}
        assert_error {ERR user_function:6: Attempt to modify a readonly table script: libfield, on @user_function:6.} {r fcall libfield 0}
        r function delete globals
    }

    test {Functions run with the same globals as scripts, minus KEYS and ARGV} {
        r function load [fn_lib g g {local n = {} for k in pairs(_G) do table.insert(n, k) end table.sort(n) return table.concat(n, ',')}]
        set globals [r fcall g 0]
        r function delete g
        assert_equal {_G,_VERSION,assert,bit,cjson,cmsgpack,collectgarbage,coroutine,error,gcinfo,getmetatable,ipairs,load,loadstring,math,next,pairs,pcall,rawequal,rawget,rawset,redis,select,setmetatable,string,struct,table,tonumber,tostring,type,unpack,xpcall} $globals
    }

    test {The redis table of a running function} {
        r function load [fn_lib rt rt {local n = {} for k in pairs(redis) do table.insert(n, k) end table.sort(n) return table.concat(n, ',')}]
        set fields [r fcall rt 0]
        r function delete rt
        assert_equal {LOG_DEBUG,LOG_NOTICE,LOG_VERBOSE,LOG_WARNING,REDIS_VERSION,REDIS_VERSION_NUM,REPL_ALL,REPL_AOF,REPL_NONE,REPL_REPLICA,REPL_SLAVE,acl_check_cmd,call,error_reply,log,pcall,set_repl,setresp,sha1hex,status_reply} $fields
    }

    test {Load code sees only register_function, log and the version in redis} {
        foreach field {register_function log LOG_WARNING LOG_NOTICE LOG_VERBOSE LOG_DEBUG REDIS_VERSION REDIS_VERSION_NUM} {
            r function load "#!lua name=ok\nlocal x = redis.$field\nredis.register_function('ok', function() return 1 end)"
            r function delete ok
        }
        foreach field {call pcall setresp error_reply status_reply sha1hex set_repl REPL_ALL breakpoint debug replicate_commands acl_check_cmd} {
            assert_error "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable '$field'" {
                r function load "#!lua name=no\nlocal x = redis.$field\nredis.register_function('no', function() return 1 end)"
            } $field
        }
        assert_equal {lib1} [fn_library_names]
    }

    test {Load code can not call redis.call} {
        assert_error {ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'} {
            r function load "#!lua name=callatload\nredis.call('set', 'x', 'y')\nredis.register_function('c', function() return 1 end)"
        }
        assert_equal 0 [r exists x]
    }

    test {Load code sees no other globals} {
        foreach name {pairs type tostring string table math bit cjson struct cmsgpack error pcall _G KEYS ARGV os print} {
            assert_error "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable '$name'" {
                r function load "#!lua name=no\nlocal x = $name\nredis.register_function('no', function() return 1 end)"
            } $name
        }
    }

    test {Load code can not create globals or change redis} {
        assert_error {ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table} {
            r function load "#!lua name=w\nx = 1\nredis.register_function('w', function() return 1 end)"
        }
        assert_error {ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table} {
            r function load "#!lua name=w\nredis.x = 1\nredis.register_function('w', function() return 1 end)"
        }
        assert_error {ERR Function not found} {r fcall w 0}
    }

    test {Helpers defined by the load code see every global when functions run} {
        r function load "#!lua name=helpers\nlocal function shout(s) return string.upper(s) .. '!' end\nredis.register_function('shout', function(keys, args) return shout(args\[1\]) end)"
        assert_equal {HI!} [r fcall shout 0 hi]
        r function delete helpers
    }

    test {A kept reference to the load-time redis table stays the load-time table} {
        r function load "#!lua name=kept\nlocal r = redis\n
            redis.register_function('keptcall', function() return r.call('ping') end)
            redis.register_function('keptlog', function() r.log(r.LOG_DEBUG, 'kept') return r.REDIS_VERSION end)
            redis.register_function('keptreg', function() r.register_function('x', function() end) return 1 end)"
        assert_error {ERR user_function:4: Script attempted to access nonexistent global variable 'call' script: keptcall, on @user_function:4.} {
            r fcall keptcall 0
        }
        assert_equal [r fcall keptlog 0] [dict get [r hello] version]
        assert_error {ERR redis.register_function can only be called on FUNCTION LOAD command script: keptreg, on @user_function:6.} {
            r fcall keptreg 0
        }
        assert_error {ERR Function not found} {r fcall x 0}
        r function delete kept
    }

    test {register_function refuses a description that is not a string} {
        assert_error {ERR Error registering functions: ERR description argument given to redis.register_function must be a string} {
            r function load "#!lua name=d\nredis.register_function{function_name='d', callback=function() return 1 end, description={}}"
        }
        assert_error {ERR Error registering functions: ERR unknown argument given to redis.register_function} {
            r function load "#!lua name=d\nredis.register_function{\[1\]='d', callback=function() return 1 end}"
        }
    }

    test {FUNCTION LOAD and RESTORE are refused under maxmemory} {
        set dump [r function dump]
        r config set maxmemory 1
        set err [catch {
            assert_error {OOM command not allowed when used memory > 'maxmemory'.} {
                r function load [fn_lib oomlib oomf {return 1}]
            }
            assert_error {OOM command not allowed when used memory > 'maxmemory'.} {
                r function restore $dump
            }
            assert_equal OK [r function flush]
        } e opts]
        r config set maxmemory 0
        if {$err} {return -options $opts $e}
        assert_equal OK [r function restore $dump]
    }

    test {Load code can write to the server log} {
        r function load "#!lua name=logs\nredis.log(redis.LOG_WARNING, 'fn-load-log-line')\nredis.register_function('lg', function() return 1 end)"
        wait_for_log_message {*fn-load-log-line*}
        r function delete logs
    }

    test {Functions keep upvalues of their library between calls} {
        r function load "#!lua name=counter\nlocal n = 0\nredis.register_function('bump', function() n = n + 1 return n end)"
        assert_equal 1 [r fcall bump 0]
        assert_equal 2 [r fcall bump 0]
        r function load replace "#!lua name=counter\nlocal n = 10\nredis.register_function('bump', function() n = n + 1 return n end)"
        assert_equal 11 [r fcall bump 0]
        r function delete counter
    }

    # ---- DELETE, FLUSH, LIST, STATS, HELP -------------------------------------------------

    test {FUNCTION DELETE removes a library and its functions} {
        r function load [fn_lib gone gf {return 1}]
        assert_equal OK [r function delete gone]
        assert_error {ERR Function not found} {r fcall gf 0}
        assert_error {ERR Library not found} {r function delete gone}
        assert_error {ERR wrong number of arguments for 'function|delete' command} {r function delete}
        assert_error {ERR wrong number of arguments for 'function|delete' command} {r function delete a b}
    }

    test {FUNCTION FLUSH removes every library, in both modes} {
        foreach mode {{} sync async SYNC ASYNC} {
            r function load [fn_lib fl1 ff1 {return 1}]
            r function load [fn_lib fl2 ff2 {return 2}]
            assert_equal OK [r function flush {*}$mode]
            assert_equal {} [r function list] $mode
            assert_error {ERR Function not found} {r fcall ff1 0}
        }
        assert_error {ERR FUNCTION FLUSH only supports SYNC|ASYNC option} {r function flush foo}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.} {
            r function flush sync async
        }
    }

    test {FUNCTION LIST reports name, engine and functions} {
        r function load "#!lua name=shape\nredis.register_function{function_name='sf', callback=function() return 1 end, flags={'no-writes', 'allow-stale'}, description='a shape'}"
        assert_equal {{library_name shape engine LUA functions {{name sf description {a shape} flags {no-writes allow-stale}}}}} [r function list]
        set code [r function load [fn_lib other of {return 1}]]
        assert_equal {other shape} [fn_library_names]
    }

    test {FUNCTION LIST WITHCODE adds the library code} {
        set code [fn_lib other of {return 1}]
        assert_equal [list [list library_name other engine LUA functions {{name of description {} flags {}}} library_code $code]] [r function list withcode libraryname other]
        assert_equal [list [list library_name other engine LUA functions {{name of description {} flags {}}} library_code $code]] [r function list libraryname other withcode]
    }

    test {FUNCTION LIST LIBRARYNAME filters by a case-insensitive glob pattern} {
        assert_equal {other} [dict get [lindex [r function list libraryname o*] 0] library_name]
        assert_equal {other} [dict get [lindex [r function list libraryname OTH?R] 0] library_name]
        assert_equal 2 [llength [r function list libraryname *]]
        assert_equal {} [r function list libraryname nomatch*]
        assert_equal {shape} [dict get [lindex [r function list libraryname {[s]hape}] 0] library_name]
    }

    test {FUNCTION LIST argument errors} {
        assert_error {ERR library name argument was not given} {r function list libraryname}
        assert_error {ERR Unknown argument libraryname} {r function list libraryname a libraryname b}
        assert_error {ERR Unknown argument withcode} {r function list withcode withcode}
        assert_error {ERR Unknown argument foo} {r function list foo}
    }

    test {FUNCTION LIST in RESP2 sends a null description and an empty flag array} {
        set rd [redis_deferring_client]
        $rd readraw 1
        $rd function list libraryname other
        assert_equal {*1 *6 $12 library_name $5 other $6 engine $3 LUA $9 functions *1 *6 $4 name $2 of $11 description $-1 $5 flags *0} [fn_read_lines $rd 24]
        $rd function list libraryname shape
        assert_equal {*1 *6 $12 library_name $5 shape $6 engine $3 LUA $9 functions *1 *6 $4 name $2 sf $11 description $7 a shape $5 flags *2 +no-writes +allow-stale} [fn_read_lines $rd 27]
        $rd close
    }

    test {FUNCTION LIST in RESP3 sends maps, a null and a set of flags} {
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd readraw 1
        $rd function list libraryname other
        assert_equal {*1 %3 $12 library_name $5 other $6 engine $3 LUA $9 functions *1 %3 $4 name $2 of $11 description _ $5 flags ~0} [fn_read_lines $rd 24]
        $rd function list libraryname shape
        assert_equal {*1 %3 $12 library_name $5 shape $6 engine $3 LUA $9 functions *1 %3 $4 name $2 sf $11 description $7 a shape $5 flags ~2 +no-writes +allow-stale} [fn_read_lines $rd 27]
        $rd close
    }

    test {FUNCTION STATS when no function runs, RESP2 and RESP3} {
        assert_equal {running_script {} engines {LUA {libraries_count 2 functions_count 2}}} [r function stats]
        set rd [redis_deferring_client]
        $rd readraw 1
        $rd function stats
        assert_equal {*4 $14 running_script $-1 $7 engines *2 $3 LUA *4 $15 libraries_count :2 $15 functions_count :2} [fn_read_lines $rd 16]
        $rd readraw 0
        $rd hello 3
        $rd read
        $rd readraw 1
        $rd function stats
        assert_equal {%2 $14 running_script _ $7 engines %1 $3 LUA %2 $15 libraries_count :2 $15 functions_count :2} [fn_read_lines $rd 16]
        $rd close
    }

    test {FUNCTION HELP lists the subcommands} {
        set help [r function help]
        assert_equal {FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $help 0]
        foreach sub {{LOAD [REPLACE] <FUNCTION CODE>} {DELETE <LIBRARY NAME>} {LIST [LIBRARYNAME PATTERN] [WITHCODE]} STATS KILL {FLUSH [ASYNC|SYNC]} DUMP {RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]}} {
            assert {[lsearch -exact $help $sub] >= 0} $sub
        }
        assert_equal {HELP {    Prints this help.}} [lrange $help end-1 end]
    }

    test {FUNCTION subcommand errors} {
        assert_error {ERR wrong number of arguments for 'function' command} {r function}
        assert_error {ERR unknown subcommand 'foo'. Try FUNCTION HELP.} {r function foo}
    }

    # ---- DUMP and RESTORE -----------------------------------------------------------------

    test {FUNCTION DUMP of no library is the RDB version and a CRC64} {
        r function flush
        assert_equal [fn_payload ""] [r function dump]
        assert_equal "\x0a\x00\x5d\x9b\x5c\x40\x0f\x7f\xa2\xda" [r function dump]
    }

    test {FUNCTION DUMP of one library: the function opcode and the code as an RDB string} {
        set short [fn_lib s s {return 1}]
        r function load $short
        assert_equal [fn_payload "\xf5[fn_rdb_string $short]"] [r function dump]
        r function flush
        set long [fn_lib l l {return 1}]
        assert_morethan [string length $long] 63
        r function load $long
        assert_equal [fn_payload "\xf5[fn_rdb_string $long]"] [r function dump]
    }

    test {FUNCTION DUMP compresses long repetitive code with LZF} {
        r function flush
        set code "#!lua name=rep\n-- [string repeat a 94]\nredis.register_function('f1', function() return 1 end)"
        r function load $code
        set dump [r function dump]
        assert_equal "\xf5\xc3" [string range $dump 0 1]
        assert_equal [fn_payload [string range $dump 0 end-10]] $dump
        assert_lessthan [string length $dump] [string length $code]
        r function flush
        assert_equal OK [r function restore $dump]
        assert_equal [list [list library_name rep engine LUA functions {{name f1 description {} flags {}}} library_code $code]] [r function list withcode]
    }

    test {FUNCTION DUMP and RESTORE round trip several libraries} {
        r function flush
        r function load [fn_lib ra fa {return 'a'}]
        r function load "#!lua name=rb\nredis.register_function{function_name='fb', callback=function() return 'b' end, flags={'no-writes'}, description='bee'}"
        set before [lsort [r function list withcode]]
        set dump [r function dump]
        r function flush
        assert_equal OK [r function restore $dump]
        assert_equal $before [lsort [r function list withcode]]
        assert_equal a [r fcall fa 0]
        assert_equal b [r fcall_ro fb 0]
    }

    test {FUNCTION RESTORE policies: APPEND aborts on a collision, REPLACE and FLUSH do not} {
        set dump [r function dump]
        assert_error {ERR Library r? already exists} {r function restore $dump}
        assert_error {ERR Library r? already exists} {r function restore $dump append}
        assert_error {ERR Library r? already exists} {r function restore $dump APPEND}
        assert_equal OK [r function restore $dump replace]
        r function load [fn_lib extra fe {return 'e'}]
        assert_equal OK [r function restore $dump flush]
        assert_equal {ra rb} [fn_library_names]
        r function load [fn_lib extra fe {return 'e'}]
        r function delete ra
        assert_equal OK [r function restore [fn_payload "\xf5[fn_rdb_string [fn_lib ra fa {return 'a'}]]"]]
        assert_equal {extra ra rb} [fn_library_names]
    }

    test {FUNCTION RESTORE REPLACE still fails on a function owned by another library} {
        r function flush
        r function load [fn_lib ra fa {return 'a'}]
        set dump [r function dump]
        r function delete ra
        r function load [fn_lib thief fa {return 'thief'}]
        assert_error {ERR Function fa already exists} {r function restore $dump replace}
        assert_equal {thief} [fn_library_names]
        assert_equal thief [r fcall fa 0]
        assert_equal OK [r function restore $dump flush]
        assert_equal {ra} [fn_library_names]
        assert_equal a [r fcall fa 0]
    }

    test {A failed FUNCTION RESTORE leaves the libraries as they were} {
        set two [fn_payload "\xf5[fn_rdb_string [fn_lib fresh fr {return 1}]]\xf5[fn_rdb_string [fn_lib ra fa {return 'new'}]]"]
        assert_error {ERR Library ra already exists} {r function restore $two}
        assert_equal {ra} [fn_library_names]
        set bad [fn_payload "\xf5[fn_rdb_string [fn_lib fresh fr {return 1}]]\xf5[fn_rdb_string {#!lua name=broken
bad code}]"]
        assert_error {ERR Error compiling function: user_function:2: '=' expected near 'code'} {r function restore $bad}
        assert_equal {ra} [fn_library_names]
        assert_equal a [r fcall fa 0]
    }

    test {FUNCTION RESTORE refuses a bad version or checksum} {
        set body "\xf5[fn_rdb_string [fn_lib fresh fr {return 1}]]"
        set good [fn_payload $body]
        foreach bad [list bad "" [string range $good 0 end-1] "[string range $good 0 end-1]x" [fn_payload $body 11]] {
            assert_error {ERR DUMP payload version or checksum are wrong} {r function restore $bad}
        }
        assert_equal {ra} [fn_library_names]
        assert_equal OK [r function restore [fn_payload $body 9]]
        assert_equal {fresh ra} [fn_library_names]
    }

    test {FUNCTION RESTORE refuses payloads that are not functions} {
        set lib [fn_lib fresh2 fr2 {return 1}]
        assert_error {ERR given type is not a function} {r function restore [fn_payload "\x00"]}
        assert_error {ERR given type is not a function} {r function restore [fn_payload "\xf5[fn_rdb_string $lib]\x00"]}
        assert_error {ERR Missing library metadata} {r function restore [fn_payload "\xf5[fn_rdb_string {return 1}]"]}
        assert_equal {fresh ra} [fn_library_names]
    }

    test {FUNCTION RESTORE reads the pre-GA library format: name, engine, description, code} {
        set code "redis.register_function('pg', function() return 'pre' end)"
        set body "\xf6[fn_rdb_string pglib][fn_rdb_string LUA]\x00[fn_rdb_string $code]"
        assert_equal OK [r function restore [fn_payload $body]]
        assert_equal pre [r fcall pg 0]
        assert_equal "#!LUA name=pglib\n$code" [dict get [lindex [r function list withcode libraryname pglib] 0] library_code]
        r function delete pglib
        set body "\xf6[fn_rdb_string pglib][fn_rdb_string lua]\x01[fn_rdb_string {a description}][fn_rdb_string $code]"
        assert_equal OK [r function restore [fn_payload $body]]
        set lib [lindex [r function list withcode libraryname pglib] 0]
        assert_equal "#!lua name=pglib\n$code" [dict get $lib library_code]
        assert_equal {{name pg description {} flags {}}} [dict get $lib functions]
        r function delete pglib
        assert_error {ERR Engine 'foo' not found} {
            r function restore [fn_payload "\xf6[fn_rdb_string pglib][fn_rdb_string foo]\x00[fn_rdb_string $code]"]
        }
        assert_error {ERR Failed loading library name} {r function restore [fn_payload "\xf6"]}
        assert_error {ERR Failed loading engine name} {r function restore [fn_payload "\xf6[fn_rdb_string pglib]"]}
        assert_error {ERR Failed loading library blob} {r function restore [fn_payload "\xf6[fn_rdb_string pglib][fn_rdb_string LUA]\x00"]}
        assert_error {ERR Failed loading library blob} {r function restore [fn_payload "\xf6[fn_rdb_string pglib][fn_rdb_string LUA]\x02[fn_rdb_string $code]"]}
        assert_equal {fresh ra} [fn_library_names]
    }

    test {FUNCTION RESTORE of a payload naming one library twice} {
        set body "\xf5[fn_rdb_string [fn_lib twice t1 {return 1}]]\xf5[fn_rdb_string [fn_lib twice t2 {return 2}]]"
        assert_error {*} {r function restore [fn_payload $body]}
        assert_equal {fresh ra} [fn_library_names]
    }

    test {FUNCTION RESTORE of a bad LZF string or a missing library string} {
        assert_error {ERR Failed loading library payload} {r function restore [fn_payload "\xf5"]}
        assert_error {ERR Failed loading library payload} {r function restore [fn_payload "\xf5\xc3\x02\x05ab"]}
        assert_equal {fresh ra} [fn_library_names]
    }

    test {FUNCTION RESTORE refuses a truncated library string} {
        set lib [fn_lib fresh3 fr3 {return 1}]
        set body "\xf5[fn_rdb_string $lib]"
        assert_error {ERR Invalid library metadata} {r function restore [fn_payload "\xf5[fn_rdb_string {#!lua}]"]}
        assert_error {*} {r function restore [fn_payload [string range $body 0 end-5]]}
        assert_equal {fresh ra} [fn_library_names]
    }

    test {FUNCTION RESTORE argument errors} {
        set dump [r function dump]
        assert_error {ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.} {
            r function restore $dump foo
        }
        assert_error {ERR wrong number of arguments for 'function|restore' command} {r function restore}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.} {
            r function restore $dump flush extra
        }
    }

    # ---- FLUSHALL, INFO -------------------------------------------------------------------

    test {Libraries survive FLUSHALL and FLUSHDB} {
        r set somekey v
        r flushall
        r flushdb
        assert_equal {fresh ra} [fn_library_names]
        assert_equal a [r fcall fa 0]
    }

    test {INFO memory counts functions and libraries} {
        r function flush
        assert_equal 0 [s number_of_functions]
        assert_equal 0 [s number_of_libraries]
        set before [s used_memory_functions]
        r function load "#!lua name=i1\nredis.register_function('i1a', function() return 1 end)\nredis.register_function('i1b', function() return 1 end)"
        r function load [fn_lib i2 i2a {return 1}]
        assert_equal 3 [s number_of_functions]
        assert_equal 2 [s number_of_libraries]
        assert_morethan [s used_memory_functions] $before
        assert_morethan [s used_memory_vm_functions] 0
        assert_equal [expr {[s used_memory_vm_eval] + [s used_memory_vm_functions]}] [s used_memory_vm_total]
        r function delete i2
        assert_equal 2 [s number_of_functions]
        assert_equal 1 [s number_of_libraries]
        r function flush
        assert_equal 0 [s number_of_functions]
        assert_equal $before [s used_memory_functions]
    }

    test {FCALL and FCALL_RO count in INFO commandstats} {
        r config resetstat
        r function load "#!lua name=st\nredis.register_function{function_name='st', callback=function() return 1 end, flags={'no-writes'}}"
        r fcall st 0
        r fcall st 0
        r fcall_ro st 0
        set info [r info commandstats]
        assert_match {calls=2,*} [getInfoProperty $info cmdstat_fcall]
        assert_match {calls=1,*} [getInfoProperty $info cmdstat_fcall_ro]
        assert {[string first "cmdstat_function|load:calls=1," $info] >= 0}
    }
}
