# The Lua environment of EVAL scripts (Redis 7.0 on Lua 5.1): exactly which globals exist and
# which are hidden, the read-only globals and library tables, loadstring's rules, the redis.*
# helpers and constants (sha1hex, log, setresp, set_repl, the no-op debugger calls), the
# deterministic math.random, the cjson and bit libraries, and the error texts of scripts:
# redis.call against redis.pcall, error() with a string or a table, run-time and compile errors,
# each with the "script: <sha>, on @user_script:<line>." suffix Redis appends.
#
# Script bodies are Tcl braces, so Lua strings use single quotes.

# Runs `body` and returns its error text (the test fails if it did not fail).
proc script_error {body args} {
    if {![catch {r eval $body {*}$args} err]} {
        fail "the script did not fail: $body"
    }
    return $err
}

start_server {tags {scripting}} {
    # ---- globals ---------------------------------------------------------------------------

    test {The globals of a script are exactly Redis's} {
        set globals [r eval {
            local names = {}
            for name in pairs(_G) do names[#names + 1] = name end
            table.sort(names)
            return names
        } 0]
        assert_equal [list ARGV KEYS _G _VERSION __redis__err__handler assert bit cjson cmsgpack \
            collectgarbage coroutine error gcinfo getmetatable ipairs load loadstring math next \
            pairs pcall rawequal rawget rawset redis select setmetatable string struct table \
            tonumber tostring type unpack xpcall] $globals
        assert_equal {Lua 5.1} [r eval {return _VERSION} 0]
    }

    test {The fields of the redis table are exactly Redis's} {
        assert_equal [list LOG_DEBUG LOG_NOTICE LOG_VERBOSE LOG_WARNING REDIS_VERSION \
            REDIS_VERSION_NUM REPL_ALL REPL_AOF REPL_NONE REPL_REPLICA REPL_SLAVE acl_check_cmd \
            breakpoint call debug error_reply log pcall replicate_commands set_repl setresp \
            sha1hex status_reply] [r eval {
                local names = {}
                for name in pairs(redis) do names[#names + 1] = name end
                table.sort(names)
                return names
            } 0]
    }

    test {Hidden globals (os, io, print, require, getfenv ...) are nonexistent variables} {
        foreach name {os io debug print loadfile dofile require module getfenv setfenv newproxy
                      package} {
            assert_match "ERR user_script:1: Script attempted to access nonexistent global\
                          variable '$name' script: *, on @user_script:1." \
                [script_error "return type($name)" 0]
        }
    }

    test {Reading an undefined global is an error naming it} {
        assert_match {ERR user_script:1: Script attempted to access nonexistent global variable\
                      'nosuch' script: *, on @user_script:1.} [script_error {return nosuch()} 0]
        assert_match {ERR user_script:1: Script attempted to access nonexistent global variable\
                      'y' script: *, on @user_script:1.} [script_error {return y} 0]
    }

    test {Creating a global is refused: the global table is read-only} {
        assert_match {ERR user_script:1: Attempt to modify a readonly table script: *,\
                      on @user_script:1.} [script_error {x = 1} 0]
        assert_match {ERR user_script:1: Attempt to modify a readonly table script: *} \
            [script_error {_G.x = 1} 0]
        assert_match {ERR user_script:2: Attempt to modify a readonly table script: *,\
                      on @user_script:2.} [script_error "local a = 1\nfunction f() end" 0]
        # rawset goes through the same protection.
        assert_match {ERR Attempt to modify a readonly table script: *, on @user_script:1.} \
            [script_error {rawset(_G, 'x', 1)} 0]
        # Redefining an existing global is refused as well.
        assert_match {ERR user_script:1: Attempt to modify a readonly table script: *} \
            [script_error {tostring = nil} 0]
        # Locals are fine.
        assert_equal 55 [r eval {local s = 0 for i = 1, 10 do s = s + i end return s} 0]
    }

    test {Library tables and the string metatable are read-only} {
        foreach body {{redis.call = nil} {string.len = nil} {cjson.encode = nil} {math.pi = 3}
                      {table.insert = nil} {bit.band = nil}
                      {local mt = getmetatable('') mt.__index = nil}} {
            assert_match {ERR user_script:1: Attempt to modify a readonly table script: *} \
                [script_error $body 0] $body
        }
        # Still the very library tables: strings index `string` itself, pairs walks them.
        assert_equal 1 [r eval {return getmetatable('').__index == string} 0]
        assert_equal 1 [r eval {return type(rawget(string, 'len')) == 'function'} 0]
        assert_equal 1 [r eval {local n = 0 for _ in pairs(math) do n = n + 1 end return n > 20} 0]
    }

    test {The metatable of _G cannot be replaced, a local table's can} {
        assert_match {ERR Attempt to modify a readonly table script: *, on @user_script:1.} \
            [script_error {setmetatable(_G, {})} 0]
        assert_equal 7 [r eval {
            local t = setmetatable({}, {__index = function(_, k) return #k end})
            return t.abcdefg
        } 0]
    }

    test {loadstring compiles source text but not bytecode, and its chunk is sandboxed too} {
        assert_equal 5 [r eval {return loadstring('return 2 + 3')()} 0]
        # Binary chunks are refused: loadstring returns nil.
        assert_equal 1 [r eval {
            return loadstring(string.dump(function() return 1 end)) == nil
        } 0]
        assert_equal {[string "return 1 +"]:1: unexpected symbol near '<eof>'} \
            [r eval {local f, e = loadstring('return 1 +') return e} 0]
        assert_match {ERR *Attempt to modify a readonly table script: *} \
            [script_error {loadstring('x = 1')()} 0]
    }

    test {Global functions run from the sandbox: pcall, select, unpack, tonumber, coroutine} {
        assert_equal {0 x} [r eval {
            local ok, e = pcall(error, 'x')
            return {ok and 1 or 0, e}
        } 0]
        assert_equal 3 [r eval {return select('#', 1, 2, 3)} 0]
        assert_equal {b c} [r eval {return {unpack({'a', 'b', 'c'}, 2)}} 0]
        assert_equal 255 [r eval {return tonumber('ff', 16)} 0]
        assert_equal 3 [r eval {
            local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b end)
            local _, v = coroutine.resume(co, 2)
            return v
        } 0]
        assert_equal 1 [r eval {return collectgarbage('count') > 0} 0]
    }

    # ---- redis.* helpers -------------------------------------------------------------------

    test {REDIS_VERSION and REDIS_VERSION_NUM are the server's version} {
        set version [s redis_version]
        lassign [split $version .] major minor patch
        assert_equal [list $version [expr {($major << 16) | ($minor << 8) | $patch}]] \
            [r eval {return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}} 0]
    }

    test {The log level and replication constants} {
        assert_equal {0 1 2 3} [r eval {
            return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}
        } 0]
        assert_equal {0 1 2 2 3} [r eval {
            return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA,
                    redis.REPL_ALL}
        } 0]
    }

    test {redis.sha1hex gives the SHA1 of its argument} {
        assert_equal da39a3ee5e6b4b0d3255bfef95601890afd80709 [r eval {return redis.sha1hex('')} 0]
        assert_equal a9993e364706816aba3e25717850c26c9cd0d89d \
            [r eval {return redis.sha1hex('abc')} 0]
        # A number is taken as its string.
        assert_equal 356a192b7913b04c54574d18c28d46e6395428ab [r eval {return redis.sha1hex(1)} 0]
        assert_match {ERR wrong number of arguments script: *, on @user_script:1.} \
            [script_error {return redis.sha1hex()} 0]
        # The SHA of a script body is its cache key.
        set body {return 'sha of me'}
        assert_equal [r script load $body] [r eval {return redis.sha1hex(ARGV[1])} 0 $body]
    }

    test {redis.log writes at the levels the server logs, and checks its arguments} {
        r eval {redis.log(redis.LOG_WARNING, 'lua-warning', 'two', 3)} 0
        r eval {redis.log(redis.LOG_NOTICE, 'lua-notice')} 0
        r eval {redis.log(redis.LOG_DEBUG, 'lua-debug')} 0
        wait_for_log_message {*# lua-warning two 3*}
        wait_for_log_message {*\* lua-notice*}
        assert_equal 0 [count_log_message {*lua-debug*}] "debug is below the default loglevel"
        assert_match {ERR Invalid debug level. script: *} [script_error {redis.log(99, 'x')} 0]
        assert_match {ERR redis.log() requires two arguments or more. script: *} \
            [script_error {redis.log(redis.LOG_WARNING)} 0]
        assert_match {ERR First argument must be a number (log level). script: *} \
            [script_error {redis.log('a', 'x')} 0]
    } {} {external:skip}

    test {redis.setresp accepts 2 or 3 only} {
        assert_equal {} [r eval {return redis.setresp(2)} 0]
        assert_match {ERR RESP version must be 2 or 3. script: *, on @user_script:1.} \
            [script_error {redis.setresp(4)} 0]
        assert_match {ERR RESP version must be 2 or 3. script: *} \
            [script_error {redis.setresp('x')} 0]
        assert_match {ERR redis.setresp() requires one argument. script: *} \
            [script_error {redis.setresp()} 0]
    }

    test {redis.set_repl validates its flags} {
        assert_equal 1 [r eval {redis.set_repl(redis.REPL_ALL) return 1} 0]
        assert_equal 1 [r eval {redis.set_repl(redis.REPL_NONE) return 1} 0]
        assert_match {ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or\
                      REPL_NONE. script: *} [script_error {redis.set_repl(99)} 0]
        assert_match {ERR Invalid replication flags.*} [script_error {redis.set_repl(-1)} 0]
        # Redis's own text, "two" for one argument.
        assert_match {ERR redis.set_repl() requires two arguments. script: *} \
            [script_error {redis.set_repl()} 0]
    }

    test {replicate_commands is always on; breakpoint and debug do nothing outside the debugger} {
        assert_equal 1 [r eval {return redis.replicate_commands()} 0]
        assert_equal {} [r eval {return redis.breakpoint()} 0]
        assert_equal {} [r eval {return redis.debug('x', 1)} 0]
    }

    test {redis.error_reply and redis.status_reply check their argument} {
        foreach body {{return redis.error_reply(1)} {return redis.error_reply()}
                      {return redis.status_reply({})}} {
            assert_equal {ERR wrong number or type of arguments} [script_error $body 0] $body
        }
    }

    test {redis.acl_check_cmd answers for the script's user and knows the commands} {
        # The default user may run everything.
        assert_equal {1 1} [r eval {
            return {redis.acl_check_cmd('get', 'k') and 1 or 0, redis.acl_check_cmd('set') and 1 or 0}
        } 0]
        assert_match {ERR Invalid command passed to redis.acl_check_cmd() script: *} \
            [script_error {return redis.acl_check_cmd('nosuch')} 0]
        assert_match {ERR Please specify at least one argument for this redis lib call script: *} \
            [script_error {return redis.acl_check_cmd()} 0]
    }

    test {redis.acl_check_cmd judges the command, its keys and its channels for the caller's user} {
        r acl setuser script-checker on >pw resetchannels +@scripting +set +get +publish ~x* &ch*
        set c [redis_client]
        $c auth script-checker pw
        set body {
            local function yes(...) return redis.acl_check_cmd(...) and 1 or 0 end
            return {
                yes('set', 'xx', 1), yes('get', 'x1'), yes('publish', 'chan', 'm'),
                yes('hset', 'xx', 'f', 1), yes('set', 'yy', 1), yes('get', 12),
                yes('publish', 'other', 'm'), yes('config', 'get', 'maxmemory')
            }
        }
        assert_equal {1 1 1 0 0 0 0 0} [$c eval $body 0]
        # Asking is not being refused: ACL LOG stays empty.
        r acl log reset
        $c eval {return redis.acl_check_cmd('set', 'yy', 1)} 0
        assert_equal {} [r acl log]
        assert_error {ERR Lua redis lib command arguments must be strings or integers script: *} {
            $c eval {return redis.acl_check_cmd('set', {})} 0
        }
        assert_error {ERR Invalid command passed to redis.acl_check_cmd() script: *} {
            $c eval {return redis.acl_check_cmd('config', 'no-such-subcommand')} 0
        }
        # The default user may run all of them.
        assert_equal {1 1 1 1 1 1 1 1} [r eval $body 0]
        $c close
        r acl deluser script-checker
    }

    # ---- libraries -------------------------------------------------------------------------

    test {math.random is seeded the same way: randomseed gives Redis's sequence} {
        assert_equal {75 35 5 0.42233895809499} [r eval {
            math.randomseed(42)
            return {math.random(100), math.random(100), math.random(5, 7), tostring(math.random())}
        } 0]
        assert_equal {75 35} [r eval {math.randomseed(42) return {math.random(100), math.random(100)}} 0]
        assert_match {ERR user_script:1: bad argument #1 to 'random' (interval is empty)*} \
            [script_error {return math.random(0)} 0]
        assert_match {ERR user_script:1: bad argument #2 to 'random' (interval is empty)*} \
            [script_error {return math.random(3, 1)} 0]
        assert_match {ERR user_script:1: wrong number of arguments script: *} \
            [script_error {return math.random(1, 2, 3)} 0]
    }

    test {cjson encodes and decodes} {
        assert_equal {[1,2,"x"]} [r eval {return cjson.encode({1, 2, 'x'})} 0]
        assert_equal {{"a":1}} [r eval {return cjson.encode({a = 1})} 0]
        assert_equal {1 1 true} [r eval {
            local t = cjson.decode('{"a":[1,2,{"b":true}],"c":null}')
            return {t.a[1], t.a[3].b, tostring(t.c == cjson.null)}
        } 0]
        assert_equal {{}} [r eval {return cjson.encode(cjson.decode('[]'))} 0]
        assert_match {ERR user_script:1: Expected value but found T_END at character 4 script: *} \
            [script_error {return cjson.decode('[1,')} 0]
    }

    test {bit operates on 32-bit integers} {
        assert_equal {15 3 6 1024 000000ff -1 -2147483648} [r eval {
            return {bit.band(0xff, 0x0f), bit.bor(1, 2), bit.bxor(5, 3), bit.lshift(1, 10),
                    bit.tohex(255), bit.bnot(0), bit.lshift(1, 31)}
        } 0]
    }

    test {struct and cmsgpack are loaded} {
        assert_equal {table table function function} [r eval {
            return {type(struct), type(cmsgpack), type(struct.pack), type(cmsgpack.pack)}
        } 0]
    }

    # ---- errors: redis.call against redis.pcall --------------------------------------------

    test {redis.call raises the command's error with the script position} {
        r set env:str v
        assert_match {WRONGTYPE Operation against a key holding the wrong kind of value script: *,\
                      on @user_script:1.} [script_error {return redis.call('lpush', KEYS[1], 'x')} 1 env:str]
        assert_match {ERR Unknown Redis command called from script script: *,\
                      on @user_script:3.} [script_error "\n\nreturn redis.call('nosuch')" 0]
        assert_match {ERR Wrong number of args calling Redis command from script script: *,\
                      on @user_script:1.} [script_error {return redis.call('get')} 0]
        assert_match {ERR Please specify at least one argument for this redis lib call script: *} \
            [script_error {return redis.call()} 0]
        assert_match {ERR Lua redis lib command arguments must be strings or integers script: *} \
            [script_error {return redis.call('get', {})} 0]
        assert_match {ERR Lua redis lib command arguments must be strings or integers script: *} \
            [script_error {return redis.call({})} 0]
        assert_match {ERR Unknown Redis command called from script script: *} \
            [script_error {return redis.call(1)} 0]
    }

    test {redis.pcall returns the error as a table the script can inspect or return} {
        r set env:str v
        assert_equal {table {WRONGTYPE Operation against a key holding the wrong kind of value}} \
            [r eval {
                local e = redis.pcall('lpush', KEYS[1], 'x')
                return {type(e), e.err}
            } 1 env:str]
        # Returned as is, it is the reply's error, without the script position.
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} \
            {r eval {return redis.pcall('lpush', KEYS[1], 'x')} 1 env:str}
        assert_error {ERR Unknown Redis command called from script} \
            {r eval {return redis.pcall('nosuch')} 0}
        assert_equal {ERR Wrong number of args calling Redis command from script} \
            [r eval {return redis.pcall('get')['err']} 0]
        assert_error {ERR Please specify at least one argument for this redis lib call} \
            {r eval {return redis.pcall()} 0}
        # The script goes on after a failed pcall.
        assert_equal after [r eval {redis.pcall('nosuch') return 'after'} 0]
    }

    test {Lua pcall around redis.call catches the error as a string} {
        assert_equal {0 string {ERR Unknown Redis command called from script}} [r eval {
            local ok, e = pcall(redis.call, 'nosuch')
            return {ok and 1 or 0, type(e), e}
        } 0]
        r set env:str v
        assert_equal {WRONGTYPE Operation against a key holding the wrong kind of value} [r eval {
            local _, e = pcall(redis.call, 'lpush', KEYS[1], 'x')
            return e
        } 1 env:str]
    }

    # ---- errors raised by the script -------------------------------------------------------

    test {error() with a string gets ERR, the chunk position and the script suffix} {
        assert_match {ERR user_script:1: boom script: *, on @user_script:1.} \
            [script_error {error('boom')} 0]
        # A code-looking string does not become the error code.
        assert_match {ERR user_script:1: MYCODE boom script: *} [script_error {error('MYCODE boom')} 0]
        assert_match {ERR user_script:4: on four script: *, on @user_script:4.} \
            [script_error "local a = 1\nlocal b = 2\n\nerror('on four')" 0]
        assert_match {ERR no position script: *, on @user_script:1.} \
            [script_error {error('no position', 0)} 0]
        assert_match {ERR user_script:1: 123 script: *} [script_error {error(123)} 0]
        assert_match {ERR user_script:2: deep script: *, on @user_script:2.} \
            [script_error "local function f()\n  error('deep')\nend\nf()" 0]
    }

    test {error() with a table uses its err field as the whole error} {
        assert_match {TBL x script: *, on @user_script:1.} [script_error {error({err='TBL x'})} 0]
        assert_match {tbl script: *, on @user_script:1.} [script_error {error({err='tbl'})} 0]
        assert_match {MY custom script: *} \
            [script_error {error(redis.error_reply('MY custom'))} 0]
    }

    test {Run-time errors carry the line number} {
        assert_match {ERR user_script:2: attempt to index local 'a' (a nil value) script: *,\
                      on @user_script:2.} [script_error "local a = nil\nreturn a.b" 0]
        assert_match {ERR user_script:1: attempt to concatenate a table value script: *} \
            [script_error {return 'x' .. {}} 0]
        assert_match {ERR user_script:1: attempt to perform arithmetic on a string value script: *} \
            [script_error {return 1 + 'a'} 0]
        assert_equal {user_script:2: attempt to index local 't' (a nil value)} [r eval {
            local ok, e = pcall(function() local t = nil; return t.x end) return e
        } 0]
    }

    test {Compile errors name the chunk and have no script suffix} {
        assert_equal {ERR Error compiling script (new function): user_script:1: unexpected symbol\
                      near '<eof>'} [script_error {return 1 +} 0]
        assert_equal {ERR Error compiling script (new function): user_script:2: '<eof>' expected\
                      near 'foo'} [script_error "return 1\nfoo" 0]
        assert_match {ERR Error compiling script (new function): user_script:1: *} \
            [catch {r script load {return 1 +}} e; set e]
    }
}

start_server {tags {scripting}} {
    test {math.random starts from the same state on every new server and goes on across scripts} {
        set body {
            return {math.random(100), math.random(100), math.random(1000000),
                    tostring(math.random())}
        }
        # A fresh server: the generator starts from the same state as Redis's.
        assert_equal {40 85 353337 0.44658343468168} [r eval $body 0]
        # Redis 7 does not reseed per script: the next script continues the sequence.
        assert_equal {32 89 15583 0.58409022054825} [r eval $body 0]
    }
}
