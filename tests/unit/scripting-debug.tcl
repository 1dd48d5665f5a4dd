# SCRIPT DEBUG and the Lua debugger (redis-cli --ldb): the mode a connection asks for, the
# debugger's commands and their log lines, the end of a session (forked: changes dropped;
# sync: changes kept; the connection closed either way), and hostile input while a session
# reads commands from the client's socket. Each reply below was checked against Redis 7.0.

# Sends one debugger command (or any command) on client `c` and returns its reply: the log
# lines of a session come as one array of status lines, i.e. a Tcl list.
proc ldb {c args} {
    return [$c {*}$args]
}

# Starts a session on a new client: SCRIPT DEBUG `mode`, then EVAL of `body` with `numkeys`
# and the rest. Returns {client first-log}.
proc ldb_start {mode body args} {
    set c [redis_client]
    assert_equal OK [$c script debug $mode]
    set log [$c eval $body {*}$args]
    return [list $c $log]
}

# The end of a session: the log's last line is <endsession>, then the script's reply, then the
# server closes the connection. Returns the reply (an error reply as "ERR:<text>").
proc ldb_finish {c last_log} {
    assert_equal <endsession> [lindex $last_log end]
    if {[catch {$c read} reply]} {set reply "ERR:$reply"}
    assert {[raw_is_closed [$c channel]]}
    catch {$c close}
    return $reply
}

start_server {tags {scripting}} {
    test {SCRIPT DEBUG takes YES, SYNC or NO} {
        assert_error {ERR Use SCRIPT DEBUG YES/SYNC/NO} {r script debug maybe}
        assert_error {ERR wrong number of arguments for 'script|debug' command} {r script debug}
        assert_error {ERR wrong number of arguments for 'script|debug' command} \
            {r script debug yes no}
        assert_equal OK [r script debug no]
        assert_equal OK [r script debug NO]
    }

    test {SCRIPT DEBUG is refused inside scripts and transactions} {
        assert_error {*not allowed from script*} {r eval {return redis.call('script','debug','no')} 0}
        r multi
        r script debug yes
        set replies [r exec]
        assert_match {*SCRIPT DEBUG must be called outside a pipeline*} $replies
    }

    test {SCRIPT DEBUG behind a pending reply is refused as a pipeline} {
        set s [raw_connect]
        raw_write $s "PING\r\nSCRIPT DEBUG YES\r\n"
        assert_equal +PONG [raw_read_line $s]
        assert_equal {-ERR SCRIPT DEBUG must be called outside a pipeline} [raw_read_line $s]
        raw_close $s
    }

    test {SCRIPT DEBUG in RESP3} {
        set c [redis_client]
        $c hello 3
        assert_equal OK [$c script debug sync]
        assert_equal OK [$c script debug no]
        assert_equal 7 [$c eval {return 7} 0]
        $c close
    }

    test {SCRIPT DEBUG NO turns the mode off again} {
        set c [redis_client]
        assert_equal OK [$c script debug sync]
        assert_equal OK [$c script debug no]
        assert_equal 5 [$c eval {return 5} 0]
        assert_equal PONG [$c ping]
        $c close
    }

    test {A debugging session shows the source: EVALSHA is refused} {
        set sha [r script load {return 1}]
        set c [redis_client]
        assert_equal OK [$c script debug sync]
        assert_error {ERR Please use EVAL instead of EVALSHA for debugging} {$c evalsha $sha 0}
        $c close
    }

    test {FCALL is not debugged} {
        r function load replace {#!lua name=ldblib
            redis.register_function('ldbf', function() return 'fn' end)}
        set c [redis_client]
        assert_equal OK [$c script debug sync]
        assert_equal fn [$c fcall ldbf 0]
        assert_equal PONG [$c ping]
        $c close
        r function delete ldblib
    }

    test {Outside a session redis.debug and redis.breakpoint do nothing} {
        assert_equal false [r eval {return tostring(redis.breakpoint())} 0]
        assert_error {*bad argument #1 to 'tostring'*} {r eval {return tostring(redis.debug('x'))} 0}
    }

    test {Sync session: stepping, the log of redis.call, the end keeps the changes} {
        r del ldb:k
        set script "local a = 1\nredis.call('set', KEYS\[1\], ARGV\[1\])\nlocal b = {1,2,'x'}\nreturn a + 1"
        lassign [ldb_start sync $script 1 ldb:k v1] c log
        assert_equal {{* Stopped at 1, stop reason = step over} {-> 1   local a = 1}} $log
        assert_equal {{* Stopped at 2, stop reason = step over} {-> 2   redis.call('set', KEYS[1], ARGV[1])}} [ldb $c s]
        assert_equal {{<redis> set ldb:k v1} {<reply> "+OK"} {* Stopped at 3, stop reason = step over} {-> 3   local b = {1,2,'x'}}} [ldb $c next]
        assert_equal {{<value> a = 1}} [ldb $c p]
        assert_equal {{<value> 1}} [ldb $c print a]
        assert_equal {{<value> {"ldb:k"}}} [ldb $c p KEYS]
        assert_equal {{No such variable.}} [ldb $c p nothere]
        assert_equal 2 [ldb_finish $c [ldb $c c]]
        assert_equal v1 [r get ldb:k]
    }

    test {Forked session: the changes are rolled back and the server serves others meanwhile} {
        r set ldb:f before
        set forks [s total_forks]
        set script "redis.call('set', 'ldb:f', 'after')\nreturn redis.call('get', 'ldb:f')"
        lassign [ldb_start yes $script 0] c log
        assert_equal {{* Stopped at 1, stop reason = step over} {-> 1   redis.call('set', 'ldb:f', 'after')}} $log
        # The session waits in the child: the server answers everyone else, and runs no script.
        assert_equal PONG [r ping]
        assert_error {NOTBUSY*} {r script kill}
        assert_equal {{<redis> set ldb:f after} {<reply> "+OK"} {* Stopped at 2, stop reason = step over} {-> 2   return redis.call('get', 'ldb:f')}} [ldb $c s]
        assert_equal {{<redis> get ldb:f} {<reply> "after"}} [ldb $c redis get ldb:f]
        assert_equal before [r get ldb:f]
        assert_equal after [ldb_finish $c [ldb $c continue]]
        assert_equal before [r get ldb:f]
        assert_equal [expr {$forks + 1}] [s total_forks]
        assert_equal 0 [s rdb_bgsave_in_progress]
    }

    test {Replies pending before a debugged EVAL come after the session's log} {
        # Inside EXEC: EXEC's array header waits in the buffer while the session runs.
        set c [redis_client]
        assert_equal OK [$c script debug sync]
        $c multi
        $c eval {return 1} 0
        assert_equal {{* Stopped at 1, stop reason = step over} {-> 1   return 1}} [$c exec]
        assert_equal {1} [ldb_finish $c [ldb $c c]]
        # Pipelined behind a PING.
        set s [raw_connect]
        raw_write $s "SCRIPT DEBUG SYNC\r\n"
        assert_equal +OK [raw_read_line $s]
        raw_write $s "PING\r\n*3\r\n\$4\r\neval\r\n\$8\r\nreturn 2\r\n\$1\r\n0\r\n"
        foreach line {*2 {+* Stopped at 1, stop reason = step over} {+-> 1   return 2}} {
            assert_equal $line [raw_read_line $s]
        }
        raw_write $s "*1\r\n\$1\r\nc\r\n"
        foreach line {*1 +<endsession> +PONG :2 <EOF>} {
            assert_equal $line [raw_read_line $s]
        }
        raw_close $s
    }

    test {print where there is no local variable} {
        lassign [ldb_start sync "return 1" 0] c log
        assert_equal {{No local variables in the current context.}} [ldb $c p]
        assert_equal 1 [ldb_finish $c [ldb $c c]]
    }

    test {list, whole and trace} {
        set script "local function inner(x)\n  local y = x + 1\n  return y\nend\nlocal v = inner(1)\nreturn v\n"
        lassign [ldb_start sync $script 0] c log
        # The first instruction of that chunk is the closure, made at the line of its end.
        assert_equal {{* Stopped at 4, stop reason = step over} {-> 4   end}} $log
        assert_equal {{   1   local function inner(x)} {   2     local y = x + 1} {   3     return y} {-> 4   end} {   5   local v = inner(1)} {   6   return v}} [ldb $c w]
        assert_equal {{   3     return y} {-> 4   end} {   5   local v = inner(1)}} [ldb $c l 0 1]
        assert_equal {{   1   local function inner(x)} {   2     local y = x + 1}} [ldb $c list 1 1]
        assert_equal {} [ldb $c l 100]
        # Huge and negative numbers read as Redis reads them (an int), without a long loop.
        assert_equal 6 [llength [ldb $c l 1 2000000000]]
        assert_equal {} [ldb $c l -5 -5]
        assert_equal {{   3     return y} {-> 4   end} {   5   local v = inner(1)}} [ldb $c l -1 1]
        assert_equal {{* Stopped at 5, stop reason = step over} {-> 5   local v = inner(1)}} [ldb $c s]
        assert_equal {{* Stopped at 2, stop reason = step over} {-> 2     local y = x + 1}} [ldb $c s]
        assert_equal {{In inner:} {-> 2     local y = x + 1} {From top level:} {   5   local v = inner(1)}} [ldb $c t]
        assert_equal {{<value> x = 1}} [ldb $c p]
        assert_equal 2 [ldb_finish $c [ldb $c c]]
    }

    test {Breakpoints: set, list, remove, and where the script stops} {
        set script "local a = 1\nlocal b = 2\nlocal c = 3\nreturn a + b + c"
        lassign [ldb_start sync $script 0] c log
        assert_equal {{No breakpoints set. Use 'b <line>' to add one.}} [ldb $c b]
        assert_equal {{-> 1   local a = 1} {  #2   local b = 2} {   3   local c = 3}} [ldb $c b 2]
        assert_equal {{Wrong line number.}} [ldb $c b 2]
        assert_equal {{Wrong line number.}} [ldb $c b 99]
        assert_equal {{Invalid argument:'x'}} [ldb $c b x]
        assert_equal {{  #2   local b = 2} {  #3   local c = 3} {   4   return a + b + c}} [ldb $c b 3]
        assert_equal {{2 breakpoints set:} {  #2   local b = 2} {  #3   local c = 3}} [ldb $c break]
        assert_equal {{Breakpoint removed.}} [ldb $c b -2]
        assert_equal {{No breakpoint in the specified line.}} [ldb $c b -2]
        assert_equal {{* Stopped at 3, stop reason = break point} {->#3   local c = 3}} [ldb $c c]
        assert_equal {{All breakpoints removed.}} [ldb $c b 0]
        assert_equal 6 [ldb_finish $c [ldb $c c]]
    }

    test {redis.breakpoint() stops at the next line and redis.debug() logs to the console} {
        set script "local t = {1, 'two', k = 'v'}\nredis.debug('here', t, {1, 2})\nlocal stops = redis.breakpoint()\nlocal z = stops\nreturn z"
        lassign [ldb_start sync $script 0] c log
        assert_equal {{<debug> line 2: "here", {[1]=1; [2]="two"; ["k"]="v"}, {1; 2}} {* Stopped at 4, stop reason = redis.breakpoint() called} {-> 4   local z = stops}} [ldb $c c]
        assert_equal {{<value> true}} [ldb $c p stops]
        assert_equal 1 [ldb_finish $c [ldb $c c]]
    }

    test {eval runs code in its own frame; redis runs commands and logs their replies} {
        r del ldb:h
        lassign [ldb_start sync "local a = 'str'\nreturn a" 0] c log
        assert_equal {{<retval> 2}} [ldb $c e return 1+1]
        assert_equal {{<retval> {1; 2}}} [ldb $c eval return {{1,2}}]
        assert_equal {{<retval> nil}} [ldb $c e]
        # A statement is tried as an expression first.
        assert_equal {{<retval> {["ok"]="OK"}}} [ldb $c e redis.call('set','ldb:e','v')]
        assert_equal {{<retval> nil}} [ldb $c e local z = 5]
        assert_equal {{<error> ldb_eval:1: boom}} [ldb $c e error('boom')]
        assert_match {{<error> ldb_eval:1: *}} [ldb $c e {bad code (}]
        assert_equal {{<redis> hset ldb:h f 1} {<reply> 1}} [ldb $c r hset ldb:h f 1]
        assert_equal {{<redis> hgetall ldb:h} {<reply> ["f","1"]}} [ldb $c r hgetall ldb:h]
        assert_equal {{<redis> get ldb:none} {<reply> NULL}} [ldb $c r get ldb:none]
        assert_equal {{<redis> incr ldb:h} {<error> -WRONGTYPE Operation against a key holding the wrong kind of value} {<reply> "-WRONGTYPE Operation against a key holding the wrong kind of value"}} [ldb $c r incr ldb:h]
        assert_equal {{<redis> lrange ldb:h} {<error> Wrong number of args calling Redis command from script}} [ldb $c r lrange ldb:h]
        assert_equal {{<redis> nosuchcommand} {<error> Unknown Redis command called from script}} [ldb $c r nosuchcommand]
        assert_equal {{<redis> hello} {<error> This Redis command is not allowed from script}} [ldb $c redis hello]
        assert_equal str [ldb_finish $c [ldb $c c]]
    }

    test {maxlen trims logged values and replies, with one hint} {
        lassign [ldb_start sync "local s = string.rep('a', 300)\nreturn 1" 0] c log
        ldb $c s
        set long [string repeat a 300]
        set cut "<value> s = \"[string repeat a 243] ..."
        assert_equal [list $cut {<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.}] [ldb $c p]
        assert_equal [list $cut] [ldb $c p]
        assert_equal {{<value> replies are truncated at 256 bytes.}} [ldb $c m]
        assert_equal {{<value> replies are truncated at 60 bytes.}} [ldb $c maxlen 10]
        assert_equal [list "<value> \"[string repeat a 51] ..."] [ldb $c p s]
        assert_equal {{<value> replies are unlimited.}} [ldb $c m 0]
        assert_equal [list "<value> \"$long\""] [ldb $c p s]
        assert_equal 1 [ldb_finish $c [ldb $c c]]
    }

    test {Values as the debugger shows them} {
        set script "local s = 'a\\nb\\\"'\nlocal t = {true, false, 1.5, 1e16, {}}\nlocal u = {a = {b = {}}}\nreturn 1"
        lassign [ldb_start sync $script 0] c log
        ldb $c s
        ldb $c s
        ldb $c s
        assert_equal {{<value> s = "a\nb\""} {<value> t = {true; false; 1.5; 1e+16; {}}} {<value> u = {["a"]={["b"]={}}}}} [ldb $c p]
        assert_equal 1 [ldb_finish $c [ldb $c c]]
    }

    test {RESP3 replies in the log} {
        r del ldb:s ldb:z ldb:m
        r sadd ldb:s a
        r zadd ldb:z 1.5 m
        r hset ldb:m f v
        lassign [ldb_start sync "redis.setresp(3)\nlocal x = 1\nreturn x" 0] c log
        ldb $c s
        assert_equal {{<redis> smembers ldb:s} {<reply> ~("a")}} [ldb $c r smembers ldb:s]
        assert_equal {{<redis> zscore ldb:z m} {<reply> (double) 1.5}} [ldb $c r zscore ldb:z m]
        assert_equal {{<redis> hgetall ldb:m} {<reply> {"f" => "v"}}} [ldb $c r hgetall ldb:m]
        assert_equal {{<redis> get ldb:none} {<reply> (null)}} [ldb $c r get ldb:none]
        assert_equal 1 [ldb_finish $c [ldb $c c]]
    }

    test {An unknown debugger command is an error and the session goes on} {
        lassign [ldb_start sync "return 'done'" 0] c log
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [ldb $c nosuch]
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [ldb $c r]
        set help [ldb $c help]
        assert_equal {Redis Lua debugger help:} [lindex $help 0]
        assert_match {*\[r\]edis <cmd>*} $help
        assert_equal done [ldb_finish $c [ldb $c c]]
    }

    test {abort stops the script; in sync mode the changes it made stay} {
        r del ldb:a
        lassign [ldb_start sync "redis.call('set', 'ldb:a', 1)\nlocal x = 2\nreturn x" 0] c log
        ldb $c s
        set reply [ldb_finish $c [ldb $c abort]]
        assert_match {ERR:ERR script aborted for user request script: *, on @user_script:2.} $reply
        assert_equal 1 [r get ldb:a]
    }

    test {A script error ends the session with the error} {
        lassign [ldb_start sync "local e = redis.call('set', 'x')\nreturn 1" 0] c log
        set reply [ldb_finish $c [ldb $c c]]
        assert_match {ERR:ERR Wrong number of args calling Redis command from script script: *} $reply
    }

    test {A script left running past busy-reply-threshold stops: infinite loop?} {
        r config set busy-reply-threshold 100
        lassign [ldb_start sync "local i = 0\nwhile true do\n  i = i + 1\nend\nreturn i" 0] c log
        assert_equal {{* Stopped at 3, stop reason = timeout reached, infinite loop?} {-> 3     i = i + 1}} [ldb $c c]
        set reply [ldb_finish $c [ldb $c abort]]
        assert_match {ERR:ERR script aborted for user request script: *, on @user_script:3.} $reply
        r config set busy-reply-threshold 5000
        assert_equal PONG [r ping]
    } {} {needs:config}

    test {Test scripting debug protocol parsing} {
        # A command with a NUL byte is just an unknown command.
        lassign [ldb_start sync "redis.debug('x')\nreturn 1" 0] c log
        foreach cmd [list "hello\x00world" "hello\x00" "\x00hello" "\x00hello\x00"] {
            assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} \
                [ldb $c $cmd]
        }
        # An argument cut in two writes is read whole.
        $c write "*1\r\n\$3\r\nfo"
        $c flush
        $c write "o\r\n"
        $c flush
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [$c read]
        assert_equal 1 [ldb_finish $c [ldb $c c]]
        # Anything but an array of bulk strings, or too big, ends the session with an error.
        foreach bad [list "PING\r\n" "*x\r\n" "*1\r\n\$-1\r\n" "*1\r\n:5\r\n" "*1025\r\n" \
                         "*1\r\n\$1025\r\n" "*1\r\n\$0\r\n\r\n"] {
            lassign [ldb_start sync "return 1" 0] c log
            $c write $bad
            $c flush
            set reply [ldb_finish $c [$c read]]
            assert_match {ERR:ERR protocol error script: *, on @user_script:1.} $reply
        }
        # The longest argument taken is 1024 bytes.
        lassign [ldb_start sync "return 1" 0] c log
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} \
            [ldb $c [string repeat x 1024]]
        assert_equal 1 [ldb_finish $c [ldb $c c]]
        assert_equal PONG [r ping]
    }

    test {Test scripting debug lua stack overflow} {
        lassign [ldb_start sync "return 'hello'" 0] c log
        set cmd "*101\r\n\$5\r\nredis\r\n"
        append cmd [string repeat "\$4\r\ntest\r\n" 100]
        $c write $cmd
        $c flush
        assert_equal {{<redis> test test test test test test test test test test ... (89 more)} {<error> Unknown Redis command called from script}} [$c read]
        # The widest command the protocol allows.
        set cmd "*1024\r\n\$1\r\nr\r\n"
        append cmd [string repeat "\$4\r\ntest\r\n" 1023]
        $c write $cmd
        $c flush
        assert_equal {{<redis> test test test test test test test test test test ... (1012 more)} {<error> Unknown Redis command called from script}} [$c read]
        assert_equal hello [ldb_finish $c [ldb $c c]]
        assert_equal PONG [r ping]
    }

    test {A client that leaves in the middle of a sync session frees the server} {
        lassign [ldb_start sync "local a = 1\nreturn a" 0] c log
        $c close
        assert_equal PONG [r ping]
        lassign [ldb_start yes "local a = 1\nreturn a" 0] c log
        $c close
        assert_equal PONG [r ping]
    }

    test {redis-cli --ldb and --ldb-sync-mode} {
        set file [file join [srv 0 dir] ldb-cli.lua]
        set f [open $file w]
        puts $f "redis.call('set', KEYS\[1\], ARGV\[1\])\nreturn ARGV\[1\]"
        close $f
        r set ldb:cli old
        set cli [list timeout 20 redis-cli -h [srv 0 host] -p [srv 0 port] -n [srv 0 db]]
        set out [exec {*}$cli --ldb --eval $file ldb:cli , new << "s\nc\n"]
        assert_match {*Stopped at 1*<redis> set ldb:cli new*<reply> "+OK"*"new"*Lua debugging session ended -- dataset changes rolled back*} $out
        assert_equal old [r get ldb:cli]
        set out [exec {*}$cli --ldb-sync-mode --eval $file ldb:cli , new << "c\n"]
        assert_match {*"new"*Lua debugging session ended*} $out
        assert_equal new [r get ldb:cli]
    }
}

start_server {tags {scripting external:skip needs:debug} overrides {appendonly yes}} {
    test {A forked session writes nothing to the AOF and its child is reaped} {
        r set ldb:aof before
        lassign [ldb_start yes "redis.call('set', 'ldb:aof', 'child')\nreturn 1" 0] c log
        assert_equal 1 [ldb_finish $c [ldb $c c]]
        r debug loadaof
        assert_equal before [r get ldb:aof]
        # No child left behind (the server reaps it in its cron).
        wait_for_condition 100 50 {
            [catch {exec pgrep -P [srv 0 pid]} kids] != 0
        } else {
            fail "a debugging session's child was not reaped: $kids"
        }
    }

    test {Shutdown kills the forked sessions still running} {
        lassign [ldb_start yes "local a = 1\nreturn a" 0] c log
        wait_for_condition 100 50 {
            [catch {exec pgrep -P [srv 0 pid]} kids] == 0
        } else {
            fail "no child for the session"
        }
        catch {r shutdown nosave}
        wait_for_log_message {*Killing debugging session*}
        catch {$c close}
    }
}

if {![catch {package require tls}]} {
    # Redis 7.0.15 closes a TLS connection that starts a session (its debugger reads the socket
    # without TLS); ours debugs over TLS as over TCP, hence the redistp tag.
    start_server {tags {scripting tls external:skip redistp} tls 1} {
        test {Debugging sessions over TLS, sync and forked} {
            r del ldb:tls
            foreach {mode expected} {sync kept yes {}} {
                lassign [ldb_start $mode "redis.call('set', 'ldb:tls', 'kept')\nreturn 'ok'" 0] c log
                assert_equal {{* Stopped at 1, stop reason = step over} {-> 1   redis.call('set', 'ldb:tls', 'kept')}} $log
                assert_equal {{<value> {}}} [ldb $c p KEYS]
                assert_equal ok [ldb_finish $c [ldb $c c]]
                assert_equal $expected [r get ldb:tls]
                r del ldb:tls
            }
            assert_equal PONG [r ping]
        }
    }
}

start_server {tags {scripting redistp}} {
    test {Temporary keys in a debugged script belong to the caller, as in a normal EVAL} {
        lassign [ldb_start sync "return redis.call('settp', 'ldb:tp', 'mine')" 0] c log
        assert_equal 1 [ldb_finish $c [ldb $c c]]
        # The session's end closed the connection: its temporary key went with it.
        wait_for_condition 50 20 {[r exists ldb:tp] == 0} else {fail "ldb:tp stayed"}
        # A forked session's parent side lets the connection go at the fork.
        set c [redis_client]
        assert_equal 1 [$c settp ldb:tp2 held]
        assert_equal OK [$c script debug yes]
        $c eval {return redis.call('exists', 'ldb:tp2')} 0
        wait_for_condition 50 20 {[r exists ldb:tp2] == 0} else {fail "ldb:tp2 stayed"}
        assert_equal 1 [ldb_finish $c [ldb $c c]]
    }

    test {eval of code whose redis.call raises shows the error (Redis 7.0 crashes here)} {
        lassign [ldb_start sync "return 1" 0] c log
        assert_equal {{<error> ERR Unknown Redis command called from script}} \
            [ldb $c e return redis.call('nosuch')]
        assert_equal {{<error> (error object is not a string)}} [ldb $c e error({})]
        assert_equal 1 [ldb_finish $c [ldb $c c]]
    }

    test {Fencing tokens a forked session hands out are never handed out again} {
        set before [r settp ldb:fa v FENCE]
        lassign [ldb_start yes "return redis.call('settp', 'ldb:fc', 'v', 'FENCE')" 0] c log
        set child [ldb_finish $c [ldb $c c]]
        assert_morethan $child $before
        set after [r settp ldb:fb v FENCE]
        assert_morethan $after $child
        assert_equal 0 [r exists ldb:fc]
    }
}

start_server {tags {scripting external:skip}} {
    test {SIGTERM while a sync session waits for the client: the server still shuts down} {
        lassign [ldb_start sync "local a = 1\nreturn a" 0] c log
        assert_equal {{* Stopped at 1, stop reason = step over} {-> 1   local a = 1}} $log
        exec kill -TERM [srv 0 pid]
        wait_for_condition 100 50 {![is_alive]} else {
            fail "the server is still running after SIGTERM"
        }
        catch {$c close}
    }
}

source tests/support/faults.tcl

start_server [list tags {scripting faults external:skip} env [faults_env]] {
    test {A forked session whose fork fails: the error, and the next EVAL runs as usual} {
        fault_set {fork * EAGAIN times=1}
        set c [redis_client]
        assert_equal OK [$c script debug yes]
        assert_error {ERR Fork() failed: can't run EVAL in debugging mode: Resource temporarily unavailable} \
            {$c eval {return 1} 0}
        assert_equal 2 [$c eval {return 2} 0]
        assert_equal PONG [$c ping]
        $c close
        fault_clear
    }
}
faults_cleanup
