# EVAL and the script cache: EVAL / EVALSHA / EVAL_RO / EVALSHA_RO argument rules (numkeys,
# KEYS and ARGV), NOSCRIPT, SCRIPT LOAD / EXISTS / FLUSH / KILL / HELP, the cache across
# FLUSHALL, the shebang line and its flags, read-only scripts, commands refused inside scripts,
# SELECT inside a script, and what MONITOR, SLOWLOG and INFO show of scripts.
#
# The Lua environment (globals, sandbox, redis.* helpers, error texts) is in scripting-env.tcl;
# reply conversion in both directions, RESP2 and RESP3, in scripting-convert.tcl. Busy scripts
# and SCRIPT KILL of a running script are tested elsewhere.

# The SHA1 of `body` as the server computes it (redis.sha1hex, checked in scripting-env.tcl).
# It runs a script of its own, which the cache keeps too.
proc script_sha {body} {
    return [r eval {return redis.sha1hex(ARGV[1])} 0 $body]
}

start_server {tags {scripting}} {
    # ---- EVAL arguments --------------------------------------------------------------------

    test {EVAL passes KEYS and ARGV split by numkeys} {
        assert_equal {k1 k2 a1 a2 a3} [r eval {
            return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3]}
        } 2 k1 k2 a1 a2 a3]
        assert_equal {0 2} [r eval {return {#KEYS, #ARGV}} 0 x y]
        assert_equal {3 0} [r eval {return {#KEYS, #ARGV}} 3 x y z]
        # Arguments are strings, whatever they look like.
        assert_equal {string string} [r eval {return {type(KEYS[1]), type(ARGV[1])}} 1 10 20]
        assert_equal "a\x00b" [r eval {return ARGV[1]} 0 "a\x00b"]
    }

    test {Each call gets its own KEYS and ARGV} {
        set body {return {#KEYS, #ARGV, tostring(KEYS[1]), tostring(ARGV[1])}}
        assert_equal {1 2 k a} [r eval $body 1 k a b]
        assert_equal {0 0 nil nil} [r eval $body 0]
        set sha [r script load $body]
        assert_equal {2 0 x nil} [r evalsha $sha 2 x y]
        assert_equal {0 1 nil z} [r evalsha $sha 0 z]
    }

    test {Large arguments and large replies pass through unchanged} {
        set big [string repeat "0123456789abcdef" 65536]
        assert_equal $big [r eval {return ARGV[1]} 0 $big]
        assert_equal [string length $big] [r eval {return string.len(ARGV[1])} 0 $big]
        set many [r eval {
            local t = {}
            for i = 1, 10000 do t[i] = i end
            return t
        } 0]
        assert_equal 10000 [llength $many]
        assert_equal {1 10000} [list [lindex $many 0] [lindex $many end]]
        # A script body with a zero byte in a string literal.
        assert_equal "a\x00b" [r eval "return 'a\x00b'" 0]
    }

    test {EVAL numkeys errors: negative, more than the arguments, not an integer} {
        foreach cmd {eval eval_ro} {
            assert_error {ERR Number of keys can't be negative} {r $cmd {return 1} -1}
            assert_error {ERR Number of keys can't be greater than number of args} \
                {r $cmd {return 1} 2 onlyone}
            assert_error {ERR value is not an integer or out of range} {r $cmd {return 1} abc}
            assert_error {ERR value is not an integer or out of range} {r $cmd {return 1} 1.5}
        }
        assert_error {ERR wrong number of arguments for 'eval' command} {r eval {return 1}}
        assert_error {ERR wrong number of arguments for 'evalsha' command} {r evalsha abc}
        assert_error {ERR wrong number of arguments for 'eval_ro' command} {r eval_ro {return 1}}
        assert_error {ERR wrong number of arguments for 'evalsha_ro' command} {r evalsha_ro abc}
    }

    test {EVALSHA numkeys errors come before the script lookup, unless the SHA is malformed} {
        set sha [r script load {return 1}]
        assert_error {ERR Number of keys can't be negative} {r evalsha $sha -1}
        assert_error {ERR Number of keys can't be greater than number of args} {r evalsha $sha 1}
        assert_error {ERR Number of keys can't be negative} {r evalsha_ro $sha -1}
        # So do they for a well-formed SHA that is not cached ...
        set unknown ffffffffffffffffffffffffffffffffffffffff
        assert_error {ERR Number of keys can't be greater than number of args} {r evalsha $unknown 6}
        assert_error {ERR value is not an integer or out of range} {r evalsha $unknown x}
        # ... but a SHA that is not 40 characters long is NOSCRIPT before anything else.
        assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha OK 6 1.5}
        assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha OK x}
        assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha_ro abc -1}
    }

    # ---- the script cache ------------------------------------------------------------------

    test {SCRIPT LOAD returns the SHA1 of the body and EVALSHA runs it} {
        set sha [r script load {return 'loaded ' .. ARGV[1]}]
        assert_equal [script_sha {return 'loaded ' .. ARGV[1]}] $sha
        assert_match {[0-9a-f]*} $sha
        assert_equal 40 [string length $sha]
        assert_equal {loaded x} [r evalsha $sha 0 x]
        assert_equal {loaded y} [r evalsha_ro $sha 0 y]
        # Loading the same body again gives the same SHA.
        assert_equal $sha [r script load {return 'loaded ' .. ARGV[1]}]
    }

    test {EVALSHA accepts the SHA in upper case} {
        set sha [r script load {return 'upper'}]
        assert_equal upper [r evalsha [string toupper $sha] 0]
        assert_equal upper [r evalsha_ro [string toupper $sha] 0]
    }

    test {EVALSHA of an unknown SHA replies NOSCRIPT} {
        set err {NOSCRIPT No matching script. Please use EVAL.}
        assert_error $err {r evalsha ffffffffffffffffffffffffffffffffffffffff 0}
        assert_error $err {r evalsha_ro ffffffffffffffffffffffffffffffffffffffff 0}
        # Not 40 characters long: still just not found.
        assert_error $err {r evalsha abc 0}
        assert_error $err {r evalsha [string repeat a 41] 0}
    }

    test {EVAL adds its script to the cache, so EVALSHA finds it afterwards} {
        set body {return 'from eval ' .. #KEYS}
        set sha [script_sha $body]
        assert_equal 0 [r script exists $sha]
        assert_equal {from eval 1} [r eval $body 1 k]
        assert_equal 1 [r script exists $sha]
        assert_equal {from eval 0} [r evalsha $sha 0]
    }

    test {A script that fails to compile is not cached} {
        set body {return 1 +}
        set sha [script_sha $body]
        catch {r eval $body 0}
        assert_equal 0 [r script exists $sha]
        assert_error {ERR Error compiling script*} {r script load $body}
        assert_equal 0 [r script exists $sha]
    }

    test {A script that fails at run time stays cached} {
        set body {return redis.call('nosuchcommand')}
        set sha [script_sha $body]
        catch {r eval $body 0}
        assert_equal 1 [r script exists $sha]
    }

    test {SCRIPT EXISTS answers 1 or 0 per SHA, in order, in any letter case} {
        set a [r script load {return 'a'}]
        set b [r script load {return 'b'}]
        assert_equal {1 0 1 1} [r script exists $a [string repeat 0 40] $b [string toupper $a]]
        assert_equal {0} [r script exists notasha]
        assert_error {ERR wrong number of arguments for 'script|exists' command} {r script exists}
    }

    test {SCRIPT FLUSH empties the cache, SYNC or ASYNC} {
        foreach mode {{} sync async SYNC ASYNC} {
            set sha [r script load {return 'to flush'}]
            assert_equal 1 [r script exists $sha]
            assert_equal OK [r script flush {*}$mode]
            assert_equal 0 [r script exists $sha] "mode '$mode'"
            assert_error {NOSCRIPT*} {r evalsha $sha 0}
        }
    }

    test {SCRIPT FLUSH with a bad mode, or two modes, is an error} {
        set err {ERR SCRIPT FLUSH only support SYNC|ASYNC option}
        assert_error $err {r script flush now}
        assert_error $err {r script flush sync async}
    }

    test {The script cache survives FLUSHALL and FLUSHDB} {
        set sha [r script load {return 'survivor'}]
        r flushall
        r flushdb
        assert_equal 1 [r script exists $sha]
        assert_equal survivor [r evalsha $sha 0]
    }

    test {SCRIPT KILL with no script running replies NOTBUSY} {
        assert_error {NOTBUSY No scripts in execution right now.} {r script kill}
    }

    test {SCRIPT LOAD and the container's errors} {
        assert_error {ERR wrong number of arguments for 'script|load' command} {r script load}
        assert_error {ERR wrong number of arguments for 'script|load' command} {r script load a b}
        assert_error {ERR wrong number of arguments for 'script' command} {r script}
        assert_error {ERR unknown subcommand 'foo'. Try SCRIPT HELP.} {r script foo}
        assert_error {ERR wrong number of arguments for 'script|kill' command} {r script kill x}
    }

    test {SCRIPT HELP lists the subcommands} {
        set help [r script help]
        assert_equal {SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} \
            [lindex $help 0]
        foreach line {{EXISTS <sha1> [<sha1> ...]} {FLUSH [ASYNC|SYNC]} KILL {LOAD <script>}
                      HELP} {
            assert {[lsearch -exact $help $line] >= 0} "missing '$line'"
        }
        assert_equal {    Prints this help.} [lindex $help end]
    }

    # ---- the shebang line and script flags -------------------------------------------------

    test {A shebang line without flags is an ordinary script} {
        assert_equal 1 [r eval "#!lua\nreturn 1" 0]
        assert_equal 2 [r eval "#!lua flags=\nreturn 2" 0]
        assert_equal 3 [r eval "#!lua  flags=no-writes\nreturn 3" 0]
        set all no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys
        assert_equal 4 [r eval "#!lua flags=$all\nreturn 4" 0]
    }

    test {Shebang errors: unknown engine, option and flag, no newline} {
        assert_error {ERR Unexpected engine in script shebang: #!python} \
            {r eval "#!python\nreturn 1" 0}
        assert_error {ERR Unknown lua shebang option: name=x} {r eval "#!lua name=x\nreturn 1" 0}
        assert_error {ERR Unknown lua shebang option: x} {r eval "#!lua x\nreturn 1" 0}
        assert_error {ERR Unexpected flag in script shebang: bad-flag} \
            {r eval "#!lua flags=bad-flag\nreturn 1" 0}
        assert_error {ERR Invalid script shebang} {r eval "#!lua" 0}
        assert_error {ERR Invalid script shebang} {r eval "#!lua flags=no-writes" 0}
        assert_error {ERR Unexpected flag in script shebang: bad-flag} \
            {r script load "#!lua flags=bad-flag\nreturn 1"}
        # An empty flags= declares no flag, but an empty piece of a list is an unknown flag.
        assert_equal 1 [r eval "#!lua flags=\nreturn 1" 0]
        assert_error {ERR Unexpected flag in script shebang: } \
            {r eval "#!lua flags=no-writes,\nreturn 1" 0}
        assert_error {ERR Unexpected flag in script shebang: } \
            {r eval "#!lua flags=no-writes,,allow-oom\nreturn 1" 0}
    }

    test {A no-writes script may read but not write} {
        r set sb:key v
        assert_equal v [r eval "#!lua flags=no-writes\nreturn redis.call('get', KEYS\[1\])" \
            1 sb:key]
        assert_error {ERR Write commands are not allowed from read-only scripts. script: *,\
                      on @user_script:2.} \
            {r eval "#!lua flags=no-writes\nreturn redis.call('set', KEYS\[1\], 'x')" 1 sb:key}
        assert_equal v [r get sb:key]
    }

    test {EVAL_RO and EVALSHA_RO refuse writes} {
        r set ro:key v
        assert_error {ERR Write commands are not allowed from read-only scripts. script: *,\
                      on @user_script:1.} \
            {r eval_ro {return redis.call('set', KEYS[1], 'x')} 1 ro:key}
        assert_equal {ERR Write commands are not allowed from read-only scripts.} \
            [r eval_ro {return redis.pcall('del', KEYS[1])['err']} 1 ro:key]
        set sha [r script load {return redis.call('incr', KEYS[1])}]
        assert_error {ERR Write commands are not allowed from read-only scripts.*} \
            {r evalsha_ro $sha 1 ro:n}
        assert_equal v [r eval_ro {return redis.call('get', KEYS[1])} 1 ro:key]
        assert_equal 0 [r exists ro:n]
        # The same script through plain EVALSHA may write.
        assert_equal 1 [r evalsha $sha 1 ro:n]
    }

    test {Under OOM a shebang script that may write is refused before it runs} {
        r set oom:key v
        r config set maxmemory 1
        catch {
            # With a shebang and no no-writes / allow-oom flag the whole script is refused.
            assert_error {OOM command not allowed when used memory > 'maxmemory'.} \
                {r eval "#!lua\nreturn redis.call('get', KEYS\[1\])" 1 oom:key}
            assert_equal v [r eval "#!lua flags=no-writes\nreturn redis.call('get', KEYS\[1\])" \
                1 oom:key]
            # allow-oom lets the script write even past maxmemory.
            assert_equal OK [r eval "#!lua flags=allow-oom\nreturn redis.call('set', KEYS\[1\], 'w')" \
                1 oom:key]
        } err opts
        r config set maxmemory 0
        if {[dict get $opts -code] == 1} {return -options $opts $err}
        assert_equal w [r get oom:key]
    } {} {needs:config}

    test {Without enough good replicas a script that may write is refused, a read-only one runs} {
        r set nr:key v
        r function load replace {#!lua name=nrlib
            redis.register_function('nrwrite', function() return 1 end)
            redis.register_function{function_name='nrread', flags={'no-writes'},
                callback=function(keys) return redis.call('get', keys[1]) end}
        }
        # No replica is connected: one required is already too many, from the next command on.
        r config set min-replicas-to-write 1
        catch {
            assert_equal v [r eval "#!lua flags=no-writes\nreturn redis.call('get', KEYS\[1\])" \
                1 nr:key]
            assert_equal v [r eval {return redis.call('get', KEYS[1])} 1 nr:key]
            # A shebang without no-writes declares a write: refused whole, before it runs.
            assert_error {NOREPLICAS Not enough good replicas to write.} \
                {r eval "#!lua\nreturn redis.call('get', KEYS\[1\])" 1 nr:key}
            # Without a shebang each write is refused when the script reaches it.
            assert_error {NOREPLICAS Not enough good replicas to write. script: *} \
                {r eval {return redis.call('set', KEYS[1], 'w')} 1 nr:key}
            assert_equal {NOREPLICAS Not enough good replicas to write.} \
                [r eval {return redis.pcall('set', KEYS[1], 'w')['err']} 1 nr:key]
            assert_error {NOREPLICAS *} {r fcall nrwrite 0}
            assert_equal v [r fcall nrread 1 nr:key]
            # NOREPLICAS comes before the _RO form's refusal of a script that may write.
            assert_error {NOREPLICAS *} {r eval_ro "#!lua\nreturn 1" 0}
            assert_error {NOREPLICAS *} {r fcall_ro nrwrite 0}
        } err opts
        r config set min-replicas-to-write 0
        r function delete nrlib
        if {[dict get $opts -code] == 1} {return -options $opts $err}
        assert_equal v [r get nr:key]
        assert_error {*Can not execute a script with write flag using \*_ro command*} \
            {r eval_ro "#!lua\nreturn 1" 0}
    } {} {needs:config}

    test {Under OOM a shebang script that may write is refused before the _RO refusal} {
        r config set maxmemory 1
        catch {r eval_ro "#!lua\nreturn 1" 0} e
        r config set maxmemory 0
        assert_match {OOM command not allowed*} $e
    } {} {needs:config}

    test {Under OOM a script without a shebang runs, and only its growing commands are refused} {
        r set oom2:key v
        r config set maxmemory 1
        catch {
            assert_equal v [r eval {return redis.call('get', KEYS[1])} 1 oom2:key]
            assert_equal 1 [r eval_ro {return 1} 0]
            assert_error {OOM command not allowed when used memory > 'maxmemory'. script: *,\
                          on @user_script:1.} {r eval {return redis.call('set', 'oom2:o', 'x')} 0}
            assert_equal {OOM command not allowed when used memory > 'maxmemory'.} \
                [r eval {return redis.pcall('set', 'oom2:o', 'x')['err']} 0]
            # DEL does not grow memory, so it is allowed.
            assert_equal 1 [r eval {return redis.call('del', 'oom2:key')} 0]
        } err opts
        r config set maxmemory 0
        if {[dict get $opts -code] == 1} {return -options $opts $err}
        assert_equal 0 [r exists oom2:o]
    } {} {needs:config}

    test {EVAL_RO refuses a shebang script that does not declare no-writes} {
        assert_error {ERR Can not execute a script with write flag using \*_ro command.} \
            {r eval_ro "#!lua\nreturn redis.call('get', 'k')" 0}
        assert_equal 5 [r eval_ro "#!lua flags=no-writes\nreturn 5" 0]
        set sha [r script load "#!lua\nreturn 6"]
        assert_error {ERR Can not execute a script with write flag using \*_ro command.} \
            {r evalsha_ro $sha 0}
        assert_equal 6 [r evalsha $sha 0]
    }

    test {The flags of a loaded script hold for EVALSHA too} {
        set sha [r script load "#!lua flags=no-writes\nreturn redis.call('set', KEYS\[1\], 'x')"]
        assert_error "ERR Write commands are not allowed from read-only scripts. script: $sha,\
                      on @user_script:2." {r evalsha $sha 1 fl:key}
        assert_equal 0 [r exists fl:key]
    }

    test {PUBLISH counts as a write in a read-only script} {
        assert_equal 0 [r eval {return redis.call('publish', 'ro:ch', 'x')} 0]
        assert_error {ERR Write commands are not allowed from read-only scripts.*} \
            {r eval_ro {return redis.call('publish', 'ro:ch', 'x')} 0}
        assert_error {ERR Write commands are not allowed from read-only scripts.*} \
            {r eval "#!lua flags=no-writes\nreturn redis.call('publish', 'ro:ch', 'x')" 0}
        assert_error {ERR Write commands are not allowed from read-only scripts.*} \
            {r eval_ro {return redis.call('expire', 'ro:key', 10)} 0}
    }

    test {An empty script replies nil} {
        assert_equal {} [r eval {} 0]
        assert_equal {} [r eval { } 0]
    }

    # ---- scripts among transactions, watches and notifications -----------------------------

    test {Writes made before a script fails stay: there is no rollback} {
        r del nr:key
        assert_error {ERR user_script:1: after write script: *} \
            {r eval {redis.call('set', KEYS[1], '1') error('after write')} 1 nr:key}
        assert_equal 1 [r get nr:key]
    }

    test {EVAL inside MULTI runs at EXEC, its errors are elements of the EXEC reply} {
        r del mx:key
        r multi
        assert_equal QUEUED [r eval {return redis.call('incr', KEYS[1])} 1 mx:key]
        assert_equal QUEUED [r eval {return 1 +} 0]
        assert_equal QUEUED [r evalsha ffffffffffffffffffffffffffffffffffffffff 0]
        assert_equal QUEUED [r eval {return 1} -1]
        assert_equal QUEUED [r eval {return {1, 2}} 0]
        set reply [r exec]
        assert_equal 5 [llength $reply]
        assert_equal 1 [lindex $reply 0]
        assert_match {ERR Error compiling script (new function): user_script:1: *} [lindex $reply 1]
        assert_equal {NOSCRIPT No matching script. Please use EVAL.} [lindex $reply 2]
        assert_equal {ERR Number of keys can't be negative} [lindex $reply 3]
        assert_equal {1 2} [lindex $reply 4]
        # An arity error is caught when queuing and aborts the transaction.
        r multi
        assert_error {ERR wrong number of arguments for 'eval' command} {r eval {return 1}}
        assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    }

    test {A key changed by a script fails another connection's WATCH} {
        r set wt:key 1
        set c [redis_client]
        $c watch wt:key
        r eval {return redis.call('incr', KEYS[1])} 1 wt:key
        $c multi
        $c get wt:key
        assert_equal {} [$c exec]
        # A script that only reads leaves the watch intact.
        $c watch wt:key
        r eval {return redis.call('get', KEYS[1])} 1 wt:key
        $c multi
        $c get wt:key
        assert_equal {2} [$c exec]
        $c close
    }

    test {The commands a script runs send their keyspace notifications} {
        r config set notify-keyspace-events KEA
        set sub [redis_deferring_client]
        $sub psubscribe {__keyevent@*__:*}
        assert_equal {psubscribe __keyevent@*__:* 1} [$sub read]
        r eval {redis.call('set', KEYS[1], 'v') redis.call('del', KEYS[1])} 1 kn:key
        assert_equal {pmessage __keyevent@*__:* __keyevent@9__:set kn:key} [$sub read]
        assert_equal {pmessage __keyevent@*__:* __keyevent@9__:del kn:key} [$sub read]
        $sub close
        r config set notify-keyspace-events ""
    } {} {needs:config}

    test {INFO commandstats counts EVAL and the commands run inside it} {
        r config resetstat
        r eval {redis.call('set', KEYS[1], '1') return redis.call('get', KEYS[1])} 1 cs:key
        r eval {return redis.call('get', KEYS[1])} 1 cs:key
        set stats [r info commandstats]
        assert_match {*calls=2,*} [getInfoProperty $stats cmdstat_eval]
        assert_match {*calls=1,*} [getInfoProperty $stats cmdstat_set]
        assert_match {*calls=2,*} [getInfoProperty $stats cmdstat_get]
    } {} {needs:config}

    test {Errors inside scripts in INFO errorstats and failed_calls} {
        r config resetstat
        r set es:str v
        # Each failed inner command counts once; so does each failed EVAL.
        catch {r eval {return redis.call('lpush', KEYS[1], 'x')} 1 es:str}
        catch {r eval {return redis.pcall('lpush', KEYS[1], 'x')} 1 es:str}
        catch {r eval {error('x')} 0}
        set errors [r info errorstats]
        assert_equal {count=2} [getInfoProperty $errors errorstat_WRONGTYPE]
        assert_equal {count=1} [getInfoProperty $errors errorstat_ERR]
        set stats [r info commandstats]
        assert_match {*calls=2,*failed_calls=2} [getInfoProperty $stats cmdstat_lpush]
        assert_match {*calls=3,*failed_calls=3} [getInfoProperty $stats cmdstat_eval]
        assert_equal 3 [s total_error_replies]
    } {} {needs:config}

    test {A command refused inside a script counts as a rejected call and one error reply} {
        r config resetstat
        # Refusals with call: the EVAL's own error reply is not counted a second time.
        catch {r eval {return redis.call('nosuchcommand')} 0} e
        assert_match {ERR Unknown Redis command called from script*} $e
        catch {r eval {return redis.call('get')} 0} e
        assert_match {ERR Wrong number of args calling Redis command from script*} $e
        catch {r eval_ro {return redis.call('set', KEYS[1], 'v')} 1 rj:k} e
        assert_match {ERR Write commands are not allowed from read-only scripts.*} $e
        assert_equal {count=3} [getInfoProperty [r info errorstats] errorstat_ERR]
        assert_equal 3 [s total_error_replies]
        set stats [r info commandstats]
        assert_match {calls=0,*rejected_calls=1,failed_calls=0} [getInfoProperty $stats cmdstat_get]
        assert_match {calls=0,*rejected_calls=1,failed_calls=0} [getInfoProperty $stats cmdstat_set]
        assert_match {calls=1,*rejected_calls=0,failed_calls=1} [getInfoProperty $stats cmdstat_eval_ro]

        # Refusals caught with pcall count too, though the script itself succeeds.
        r config resetstat
        assert_equal {ERR This Redis command is not allowed from script} \
            [r eval {return redis.pcall('save')['err']} 0]
        assert_equal {ERR Write commands are not allowed from read-only scripts.} \
            [r eval_ro {return redis.pcall('set', KEYS[1], 'v')['err']} 1 rj:k]
        assert_equal {count=2} [getInfoProperty [r info errorstats] errorstat_ERR]
        assert_equal 2 [s total_error_replies]
        set stats [r info commandstats]
        assert_match {calls=0,*rejected_calls=1,failed_calls=0} [getInfoProperty $stats cmdstat_save]
        assert_match {calls=1,*rejected_calls=0,failed_calls=0} [getInfoProperty $stats cmdstat_eval]

        # A returned refusal is the script's reply and still one error.
        r config resetstat
        catch {r eval_ro {return redis.pcall('set', KEYS[1], 'v')} 1 rj:k} e
        assert_equal {ERR Write commands are not allowed from read-only scripts.} $e
        assert_equal 1 [s total_error_replies]
        assert_match {calls=1,*failed_calls=1} [getInfoProperty [r info commandstats] cmdstat_eval_ro]

        # Bad arguments to redis.call are the script's error, not a command's.
        r config resetstat
        assert_equal 1 [r eval {redis.pcall('get', {}) return 1} 0]
        assert_equal 0 [s total_error_replies]
    } {} {needs:config}

    test {Under OOM a write refused inside a script is counted as an OOM error of that command} {
        r config resetstat
        r config set maxmemory 1
        catch {r eval {return redis.call('set', KEYS[1], 'v')} 1 rj:oom} e
        assert_match {OOM command not allowed when used memory > 'maxmemory'.*} $e
        assert_equal {count=1} [getInfoProperty [r info errorstats] errorstat_OOM]
        assert_equal 1 [s total_error_replies]
        assert_match {calls=0,*rejected_calls=1,*} [getInfoProperty [r info commandstats] cmdstat_set]

        # Caught and compared by the script: the refusal is still counted once.
        r config resetstat
        assert_equal 1 [r eval {
            local t = redis.pcall('set', KEYS[1], 'v')
            if t['err'] == "OOM command not allowed when used memory > 'maxmemory'." then
                return 1
            end
            return 0
        } 1 rj:oom]
        assert_equal {count=1} [getInfoProperty [r info errorstats] errorstat_OOM]
        assert_equal 1 [s total_error_replies]
        assert_match {calls=1,*rejected_calls=0,failed_calls=0} \
            [getInfoProperty [r info commandstats] cmdstat_eval]
        r config set maxmemory 0
    } {OK} {needs:config}

    test {Calls a script makes that are refused count as rejected calls and errors} {
        # Each refusal is one error reply and, for a known command, one rejected call (never a
        # call); a refusal the script raises is not counted again by the script's own error.
        r config resetstat
        r eval {
            redis.pcall('set', 'x')
            redis.pcall('nosuchcommand')
            redis.pcall('config', 'get', 'x')
            return 1
        } 0
        assert_equal {count=3} [getInfoProperty [r info errorstats] errorstat_ERR]
        set stats [r info commandstats]
        assert_match {calls=0,*,rejected_calls=1,failed_calls=0} [getInfoProperty $stats cmdstat_set]
        assert_match {calls=0,*,rejected_calls=1,failed_calls=0} \
            [getInfoProperty $stats {cmdstat_config\|get}]
        assert_equal 3 [s total_error_replies]
        assert_error {ERR Wrong number of args*} {r eval {return redis.call('get')} 0}
        assert_equal {count=4} [getInfoProperty [r info errorstats] errorstat_ERR]
        assert_equal 4 [s total_error_replies]
        assert_match {calls=0,*,rejected_calls=1,failed_calls=0} \
            [getInfoProperty [r info commandstats] cmdstat_get]
    } {} {needs:config}

    # ---- commands refused or changed inside scripts ----------------------------------------

    test {Commands flagged noscript are refused inside scripts} {
        set refused {
            {subscribe ch} {psubscribe p*} {unsubscribe} {multi} {exec} {watch k}
            {eval {return 1} 0} {script load {return 1}} {client list} {monitor}
            {auth x} {hello} {reset} {quit} {function list}
            {blpop sc:list 0} {brpoplpush sc:a sc:b 0} {bzpopmin sc:z 0}
            {blmove sc:a sc:b left right 0} {debug sleep 0}
        }
        foreach cmd $refused {
            set args [join [lmap a $cmd {string cat ' $a '}] ,]
            assert_equal {ERR This Redis command is not allowed from script} \
                [r eval "return redis.pcall($args)\['err'\]" 0] $cmd
        }
        assert_error {ERR This Redis command is not allowed from script script: *,\
                      on @user_script:1.} {r eval {return redis.call('multi')} 0}
    }

    test {WAIT is refused inside scripts} {
        assert_equal {ERR This Redis command is not allowed from script} \
            [r eval {return redis.pcall('wait', '0', '0')['err']} 0]
    } {}

    test {SAVE is refused inside scripts} {
        assert_equal {ERR This Redis command is not allowed from script} \
            [r eval {return redis.pcall('save')['err']} 0]
    }

    test {XREAD with BLOCK is refused inside scripts} {
        assert_equal {ERR xread command is not allowed with BLOCK option from scripts} \
            [r eval {return redis.pcall('xread', 'block', '0', 'streams', 's', '$')['err']} 0]
    }

    test {Blocking list commands are refused in scripts, even on a list with elements} {
        r del sc:full
        r rpush sc:full a
        assert_equal {ERR This Redis command is not allowed from script} \
            [r eval {return redis.pcall('blpop', KEYS[1], '0')['err']} 1 sc:full]
        assert_equal {a} [r lrange sc:full 0 -1]
    }

    test {SELECT inside a script does not change the caller's database} {
        r select 9
        r set sel:key db9
        r select 10
        r set sel:key db10
        r select 9
        assert_equal {db10 db9} [r eval {
            redis.call('select', '10')
            local a = redis.call('get', KEYS[1])
            redis.call('select', '9')
            return {a, redis.call('get', KEYS[1])}
        } 1 sel:key]
        assert_equal db10 [r eval {redis.call('select', '10') return redis.call('get', 'sel:key')} 0]
        assert_equal db9 [r get sel:key] "the caller is still in db 9"
        # A new script starts in the caller's database again.
        assert_equal db9 [r eval {return redis.call('get', 'sel:key')} 0]
        r select 10
        r del sel:key
        r select 9
        r del sel:key
    }

    test {Time stands still while a script runs: a key that expires meanwhile is still there} {
        r del frozen
        r debug set-disable-deny-scripts 1
        assert_equal 1 [r eval {
            redis.call('set', KEYS[1], 'v', 'px', 1)
            redis.call('debug', 'sleep', 0.01)
            return redis.call('exists', KEYS[1])
        } 1 frozen]
        r debug set-disable-deny-scripts 0
        # Once the script is over, the key's time has come.
        wait_for_condition 100 20 {[r exists frozen] == 0} else {fail "the key did not expire"}
    } {} {needs:debug}

    test {A script that touches an expired key deletes it, as a command does} {
        r debug set-active-expire 0
        r set gone v px 1
        set deadline [expr {[clock milliseconds] + 2}]
        wait_for_condition 100 10 {[clock milliseconds] > $deadline} else {fail "no time passed"}
        # DEBUG OBJECT looks without expiring: the key is still stored.
        assert_match {*encoding:*} [r debug object gone]
        assert_equal 0 [r eval {return redis.call('exists', KEYS[1])} 1 gone]
        assert_error {ERR no such key} {r debug object gone}
        r debug set-active-expire 1
    } {} {needs:debug}

    test {Scripts read and delete keys that have a TTL} {
        r set ttlkey v ex 100
        assert_equal v [r eval {return redis.call('get', KEYS[1])} 1 ttlkey]
        assert_equal 1 [r eval {return redis.call('del', KEYS[1])} 1 ttlkey]
        assert_equal 0 [r exists ttlkey]
    }

    test {SORT BY a constant inside a script gives the set's members in lexicographic order} {
        r del sset snum
        r sadd sset q a zz b aa c
        assert_equal {a aa b c q zz} [r eval {return redis.call('sort', KEYS[1], 'by', 'nokey')} 1 sset]
        # The reply follows the same order with GET patterns too (missing keys are nil).
        assert_equal {a {} aa {} b {} c {} q {} zz {}} [r eval {
            return redis.call('sort', KEYS[1], 'by', 'nokey', 'get', '#', 'get', 'none:*')
        } 1 sset]
        # An ordinary SORT still compares numbers, not strings.
        r rpush snum 10 2 1
        assert_equal {1 2 10} [r eval {return redis.call('sort', KEYS[1])} 1 snum]
    }

    test {Commands allowed in scripts run normally: PING, ECHO, TIME, DBSIZE} {
        assert_equal PONG [r eval {return redis.call('ping')['ok']} 0]
        assert_equal hi [r eval {return redis.call('echo', 'hi')} 0]
        assert_equal 2 [llength [r eval {return redis.call('time')} 0]]
        assert_equal [r dbsize] [r eval {return redis.call('dbsize')} 0]
    }

    # ---- MONITOR, SLOWLOG, INFO ------------------------------------------------------------

    test {MONITOR shows EVAL, then each command the script ran as [db lua]} {
        set m [::redis::redis [srv host] [srv port] 1]
        $m monitor
        assert_equal OK [$m read]
        r eval {
            redis.call('set', KEYS[1], 'v')
            redis.call('select', '3')
            return redis.call('get', KEYS[1])
        } 1 mon:key
        assert_match {*\[9 127.0.0.1:*\] "eval" *"1" "mon:key"} [$m read]
        assert_match {*\[9 lua\] "set" "mon:key" "v"} [$m read]
        assert_match {*\[3 lua\] "select" "3"} [$m read]
        assert_match {*\[3 lua\] "get" "mon:key"} [$m read]
        set sha [r script load {return redis.call('ping')}]
        assert_match {*"script" "load" *} [$m read]
        r evalsha $sha 0
        assert_match "*\\\[9 127.0.0.1:*\\\] \"evalsha\" \"$sha\" \"0\"" [$m read]
        assert_match {*\[9 lua\] "ping"} [$m read]
        $m close
        r del mon:key
    }

    test {SLOWLOG records EVAL after the commands the script ran, those with peer ?:0} {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r eval {return redis.call('set', KEYS[1], ARGV[1])} 1 slow:key v
        set entries [r slowlog get]
        assert_equal 3 [llength $entries]
        # Newest first: the EVAL ends after its inner SET was logged.
        assert_equal {eval {return redis.call('set', KEYS[1], ARGV[1])} 1 slow:key v} \
            [lindex $entries 0 3]
        assert_match {127.0.0.1:*} [lindex $entries 0 4]
        assert_equal {set slow:key v} [lindex $entries 1 3]
        assert_equal {?:0} [lindex $entries 1 4]
        assert_equal {} [lindex $entries 1 5]
        assert_equal {slowlog reset} [lindex $entries 2 3]
        set sha [r script load {return 1}]
        r slowlog reset
        r evalsha $sha 0
        assert_equal [list evalsha $sha 0] [lindex [r slowlog get 1] 0 3]
        r config set slowlog-log-slower-than 10000
        r del slow:key
    } {} {needs:config}

    test {INFO reports the script cache and the Lua memory} {
        r script flush
        set info [r info memory]
        assert_equal 0 [getInfoProperty $info number_of_cached_scripts]
        foreach field {used_memory_lua used_memory_scripts used_memory_vm_eval
                       used_memory_scripts_eval used_memory_lua_human
                       used_memory_scripts_human} {
            assert {[getInfoProperty $info $field] ne ""} "INFO memory lacks $field"
        }
        assert_morethan [getInfoProperty $info used_memory_lua] 0
        set scripts_before [getInfoProperty $info used_memory_scripts_eval]
        r script load {return 'one'}
        r eval {return 'two'} 0
        r eval {return 'two'} 0
        set info [r info memory]
        assert_equal 2 [getInfoProperty $info number_of_cached_scripts]
        assert_morethan [getInfoProperty $info used_memory_scripts_eval] $scripts_before
        r script flush
        assert_equal 0 [s number_of_cached_scripts]
        assert_equal $scripts_before [s used_memory_scripts_eval]
    }
}

# The coordination commands inside scripts: the calling connection owns what a script takes.
start_server {tags {scripting redistp}} {
    test {SETTP in a script makes the calling connection the owner} {
        set c [redis_client]
        set id [$c client id]
        assert_equal 1 [$c eval {return redis.call('settp', KEYS[1], ARGV[1])} 1 lk:s me]
        assert_equal $id [r object owner lk:s]
        assert_equal $id [r eval {return redis.call('object', 'owner', KEYS[1])} 1 lk:s]
        assert_equal 0 [$c eval {return redis.call('settp', KEYS[1], 'again')} 1 lk:s]
        $c close
        wait_for_condition 100 20 {[r exists lk:s] == 0} else {
            fail "the key taken in a script outlived its owner"
        }
    }

    test {DELTP in a script releases only the caller's keys} {
        set a [redis_client]
        set b [redis_client]
        $a settp lk:d a
        assert_equal 0 [$b eval {return redis.call('deltp', KEYS[1])} 1 lk:d]
        assert_equal a [r get lk:d]
        assert_equal 1 [$a eval {return redis.call('deltp', KEYS[1])} 1 lk:d]
        assert_equal 0 [r exists lk:d]
        $a close
        $b close
    }

    test {BSETTP in a script never blocks: it answers like SETTP} {
        set a [redis_client]
        set b [redis_client]
        $a settp lk:b held
        assert_equal 0 [$b eval {return redis.call('bsettp', KEYS[1], 'w', '0')} 1 lk:b]
        assert_equal 1 [$b eval {return redis.call('bsettp', KEYS[1], 'w', '0')} 1 lk:free]
        assert_equal [$b client id] [r object owner lk:free]
        assert_equal held [r get lk:b]
        $a close
        $b close
    }

    test {WATCHEX is refused inside scripts} {
        assert_equal {ERR This Redis command is not allowed from script} \
            [r eval {return redis.pcall('watchex', KEYS[1])['err']} 1 lk:w]
        assert_error {ERR This Redis command is not allowed from script*} \
            {r eval {return redis.call('watchex', KEYS[1])} 1 lk:w}
    }
}
