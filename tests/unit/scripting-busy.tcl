# Long scripts: once a script has run for busy-reply-threshold (alias lua-time-limit) the server
# serves the other connections again, but only to say BUSY, except for the commands flagged
# allow-busy (SCRIPT KILL, FUNCTION KILL, SHUTDOWN NOSAVE, MULTI/DISCARD/WATCH/UNWATCH, HELLO,
# AUTH, QUIT, RESET). SCRIPT KILL stops a script that has not written; one that wrote is
# UNKILLABLE and must finish by itself; SHUTDOWN NOSAVE ends the server. The error texts, the
# log lines, the statistics and the MULTI interplay are Redis 7.0's.
#
# The scripts spin on redis.call('time') for at most a few seconds of the server's clock, so
# every one of them ends even if a kill never comes; the tests never measure time: they wait
# (wait_for_condition, bounded) until a PING is answered BUSY.

# Spins until killed, at most ARGV[1] seconds. Line 2 is the loop a kill interrupts.
set ::spin_script "local limit = redis.call('time')\[1\] + tonumber(ARGV\[1\])
while redis.call('time')\[1\] + 0 < limit do end
return 'finished'"

# Writes KEYS[1], then spins until some client has been answered UNKILLABLE (the script reads
# INFO errorstats), at most ARGV[1] seconds.
set ::writer_script "redis.call('set', KEYS\[1\], 'written')
local limit = redis.call('time')\[1\] + tonumber(ARGV\[1\])
while redis.call('time')\[1\] + 0 < limit do
  if string.find(redis.call('info', 'errorstats'), 'errorstat_UNKILLABLE', 1, true) then
    return 'finished by itself'
  end
end
return 'time limit'"

set ::busy_eval_err {BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.}
set ::busy_function_err {BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.}
set ::unkillable_err {UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.}

# Waits until a PING from the main client is answered BUSY (the script is past the threshold).
proc wait_for_busy {{expected_text ""}} {
    if {$expected_text eq ""} {set expected_text $::busy_eval_err}
    wait_for_condition 500 10 {
        [catch {r ping} e] && $e eq $expected_text
    } else {
        fail "no BUSY reply while the script runs (last reply: $e)"
    }
}

# Starts the spinning script from a new deferring client and waits until the server is busy.
# Returns the client; its EVAL reply is still to be read.
proc start_spin {{seconds 10}} {
    set rd [redis_deferring_client]
    $rd eval $::spin_script 0 $seconds
    $rd flush
    wait_for_busy
    return $rd
}

# Kills the running script and checks what its caller is told.
proc kill_spin {rd} {
    assert_equal [r script kill] OK
    assert_equal [catch {$rd read} e] 1
    set sha [r script load $::spin_script]
    assert_equal $e "ERR Script killed by user with SCRIPT KILL... script: $sha, on @user_script:2."
    $rd close
}

start_server {tags {scripting needs:config}} {
    r config set busy-reply-threshold 20

    test {SCRIPT KILL stops a script that has run past busy-reply-threshold} {
        set rd [start_spin]
        assert_error $::busy_eval_err {r get x}
        kill_spin $rd
        assert_equal [r ping] PONG
    }

    test {SCRIPT KILL with no script running is NOTBUSY} {
        assert_error {NOTBUSY No scripts in execution right now.} {r script kill}
    }

    test {Only the allow-busy commands are served while a script is busy} {
        set rd [start_spin]
        foreach cmd {{set x 1} {get x} {eval {return 1} 0} {script load {return 1}}
                     {config get maxmemory} {info} {client list} {select 0}} {
            assert_error $::busy_eval_err {r {*}$cmd} $cmd
        }
        # An unknown command, or a wrong number of arguments, is told so first.
        assert_error {ERR unknown command*} {r nosuchcommand}
        assert_error {ERR wrong number of arguments for 'get' command} {r get}
        assert_equal [r watch x] OK
        assert_equal [r unwatch] OK
        assert_equal [lindex [r hello 2] 0] server
        kill_spin $rd
    }

    test {A connection made while a script is busy is answered BUSY, and QUIT closes it} {
        set rd [start_spin]
        set fd [raw_connect]
        raw_write $fd "PING\r\n"
        assert_equal [raw_read_line $fd] "-$::busy_eval_err"
        raw_write $fd "*2\r\n\$3\r\nGET\r\n\$1\r\nx\r\n"
        assert_equal [raw_read_line $fd] "-$::busy_eval_err"
        raw_write $fd "QUIT\r\n"
        assert_equal [raw_read_line $fd] "+OK"
        assert_equal [raw_is_closed $fd] 1
        raw_close $fd
        kill_spin $rd
    }

    test {A command queued in MULTI while a script is busy fails the transaction} {
        set m [redis_client]
        assert_equal [$m multi] OK
        set rd [start_spin]
        assert_error $::busy_eval_err {$m set x 1}
        assert_error "EXECABORT Transaction discarded because of: $::busy_eval_err" {$m exec}
        # MULTI and DISCARD are served; SCRIPT KILL inside MULTI is only queued.
        assert_equal [$m multi] OK
        assert_error $::busy_eval_err {$m get x}
        assert_equal [$m discard] OK
        assert_equal [$m multi] OK
        assert_equal [$m script kill] QUEUED
        assert_error "EXECABORT Transaction discarded because of: $::busy_eval_err" {$m exec}
        kill_spin $rd
        # The connection is usable again, with no transaction open.
        assert_equal [$m ping] PONG
        $m close
    }

    test {A script that wrote is UNKILLABLE and finishes by itself} {
        r del busy:key
        r config resetstat
        set rd [redis_deferring_client]
        $rd eval $::writer_script 1 busy:key 10
        $rd flush
        wait_for_busy
        assert_error $::unkillable_err {r script kill}
        assert_equal [$rd read] {finished by itself}
        assert_equal [r get busy:key] written
        $rd close
    }

    test {A killed script that catches the error with pcall is stopped at its next line} {
        r del busy:after
        set body "local limit = redis.call('time')\[1\] + 10
local ok = pcall(function()
  while redis.call('time')\[1\] + 0 < limit do end
end)
redis.call('set', 'busy:after', 'ran')
return 'finished'"
        set sha [r script load $body]
        set rd [redis_deferring_client]
        $rd eval $body 0
        $rd flush
        wait_for_busy
        assert_equal [r script kill] OK
        assert_error "ERR Script killed by user with SCRIPT KILL... script: $sha, on @user_script:5." {
            $rd read
        }
        assert_equal [r exists busy:after] 0
        $rd close
    }

    test {SHUTDOWN without NOSAVE is refused with BUSY while a script is busy} {
        set rd [start_spin]
        assert_error $::busy_eval_err {r shutdown}
        assert_error $::busy_eval_err {r shutdown save}
        assert_error $::busy_eval_err {r shutdown now}
        assert_error {ERR No shutdown in progress.} {r shutdown abort}
        kill_spin $rd
        assert_equal [r ping] PONG
    }

    test {Connections that close while a script is busy are closed after it, the caller too} {
        set before [s connected_clients]
        set other [redis_client]
        set rd [start_spin]
        $other close
        set fd [raw_connect]
        raw_close $fd
        # The caller leaves too: its script goes on until killed.
        $rd close
        assert_equal [r script kill] OK
        # The script stops at its next hook, just after the OK: until then INFO is BUSY too.
        wait_for_condition 100 20 {
            [catch {s connected_clients} n] == 0 && $n == $before
        } else {
            fail "connected_clients is $n, expected $before"
        }
        assert_equal [r ping] PONG
    }

    test {Statistics after a killed script} {
        r config resetstat
        set rd [start_spin]
        kill_spin $rd
        set errors [r info errorstats]
        assert_match {*errorstat_BUSY:count=*} $errors
        assert_match {*errorstat_ERR:count=1*} $errors
        assert_match {*cmdstat_eval:calls=1,*,rejected_calls=0,failed_calls=1*} [r info commandstats]
        assert_match {*cmdstat_ping:calls=*,rejected_calls=[1-9]*} [r info commandstats]
    }

    test {lua-time-limit is the same setting} {
        r config set lua-time-limit 30
        assert_equal [r config get busy-reply-threshold] {busy-reply-threshold 30}
        set rd [start_spin]
        kill_spin $rd
        r config set busy-reply-threshold 20
    }
}

start_server {tags {scripting needs:config external:skip}} {
    r config set busy-reply-threshold 20

    test {The log tells of the slow script and of its killing} {
        set sha [r script load $::spin_script]
        set rd [start_spin]
        kill_spin $rd
        assert_equal [count_log_message "*Slow script detected: still in execution after * milliseconds. You can try killing the script using the SCRIPT KILL command. Script name is: $sha."] 1
        assert_equal [count_log_message {*Lua script killed by user with SCRIPT KILL.}] 1
    }

    test {With busy-reply-threshold 0 a script is never interrupted} {
        set slow_lines [count_log_message {*Slow script detected*}]
        r config set busy-reply-threshold 0
        set rd [redis_deferring_client]
        # A script of a bounded length (one second boundary of the server's clock at most).
        $rd eval "local t = redis.call('time')\[1\] + 1
while redis.call('time')\[1\] + 0 < t do end
return 'finished'" 0
        $rd flush
        assert_equal [r ping] PONG
        assert_equal [$rd read] finished
        assert_equal [count_log_message {*Slow script detected*}] $slow_lines
        $rd close
        r config set busy-reply-threshold 20
    }
}

start_server {tags {scripting needs:config external:skip}} {
    test {SHUTDOWN NOSAVE ends a busy script and the server; nobody gets a reply} {
        r config set busy-reply-threshold 20
        set rd [redis_deferring_client]
        $rd eval $::spin_script 0 10
        $rd flush
        wait_for_busy
        catch {r shutdown nosave} e
        assert_match {*I/O error*} $e
        catch {$rd read} e
        assert_match {*I/O error*} $e
        wait_for_condition 100 50 {![is_alive]} else {
            fail "the server is still running after SHUTDOWN NOSAVE"
        }
        assert_equal [count_log_message {*User requested shutdown...*}] 1
        assert_equal [count_log_message {*Lua script killed*}] 0
    }
}

# FUNCTION KILL: the running function's name in the log and in the caller's error.
set ::busy_library "#!lua name=busylib
redis.register_function('spin', function(keys, args)
  local limit = redis.call('time')\[1\] + tonumber(args\[1\])
  while redis.call('time')\[1\] + 0 < limit do end
  return 'finished'
end)"

start_server {tags {scripting needs:config}} {
    r config set busy-reply-threshold 20
    r function load replace $::busy_library

    test {FUNCTION KILL stops a busy function; SCRIPT KILL is BUSY then} {
        set rd [redis_deferring_client]
        $rd fcall spin 0 10
        $rd flush
        wait_for_busy $::busy_function_err
        assert_error $::busy_function_err {r get x}
        assert_error $::busy_function_err {r script kill}
        assert_equal [r function kill] OK
        assert_error {ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:4.} {
            $rd read
        }
        $rd close
        assert_equal [r ping] PONG
    }

    test {FUNCTION KILL during a busy EVAL is BUSY, and NOTBUSY when nothing runs} {
        set rd [start_spin]
        assert_error $::busy_eval_err {r function kill}
        kill_spin $rd
        assert_error {NOTBUSY No scripts in execution right now.} {r function kill}
    }

    test {FUNCTION KILL of an EVAL script that wrote is UNKILLABLE} {
        r config resetstat
        set rd [redis_deferring_client]
        $rd eval $::writer_script 1 busy:key 10
        $rd flush
        wait_for_busy
        assert_error $::unkillable_err {r function kill}
        assert_equal [$rd read] {finished by itself}
        $rd close
    }
}

start_server {tags {scripting needs:config external:skip}} {
    r config set busy-reply-threshold 20
    r function load replace $::busy_library

    test {The log names the busy function and FUNCTION KILL} {
        set rd [redis_deferring_client]
        $rd fcall spin 0 10
        $rd flush
        wait_for_busy $::busy_function_err
        assert_equal [r function kill] OK
        catch {$rd read}
        $rd close
        assert_equal [count_log_message "*Slow script detected: still in execution after * milliseconds. You can try killing the script using the FUNCTION KILL command. Script name is: spin."] 1
        assert_equal [count_log_message {*Lua script killed by user with SCRIPT KILL.}] 1
    }
}

# A timed-out script must not leave its caller, or anyone else, unanswered: the pipelined
# command after the script is served once the script is killed, and so is every connection
# made meanwhile (Redis 7.0's "Timedout script does not cause a false dead client" and
# "Timedout script link is still usable after Lua returns", through EVAL and FCALL). Defect 5b
# of issue 20: with FCALL the server stopped answering.
proc resp_command {args} {
    set out "*[llength $args]\r\n"
    foreach a $args {append out "\$[string length $a]\r\n$a\r\n"}
    return $out
}
foreach kind {eval fcall} {
    start_server [list tags [list scripting needs:config]] {
        test "A timed-out script ($kind) does not leave its pipelined caller or others unanswered" {
            r config set lua-time-limit 10
            set kind_kill [expr {$kind eq "eval" ? "script" : "function"}]
            set rd [redis_deferring_client]
            set body "while 1 do redis.call('ping') end"
            if {$kind eq "eval"} {
                $rd write [resp_command eval $body 0]
            } else {
                set lib "#!lua name=spinlib\nredis.register_function('spin', function() $body end)"
                $rd write [resp_command function load replace $lib]
                $rd write [resp_command fcall spin 0]
            }
            $rd write [resp_command ping]
            $rd flush
            wait_for_condition 500 10 {
                [catch {r ping} e] == 1
            } else {
                fail "the script never made the server busy"
            }
            assert_match {BUSY*} $e
            # The caller's replies wait until its script ends, FUNCTION LOAD's too.
            assert_equal OK [r $kind_kill kill]
            wait_for_condition 500 10 {
                [catch {r ping} e] == 0
            } else {
                fail "the server did not answer after the kill: $e"
            }
            assert_equal PONG [r ping]
            if {$kind eq "fcall"} {assert_equal spinlib [$rd read]}
            catch {$rd read} res
            assert_match {*killed by user*} $res
            assert_equal PONG [$rd read]
            set rd2 [redis_deferring_client]
            $rd2 ping
            $rd2 flush
            assert_equal PONG [$rd2 read]
            $rd2 close
            $rd close
        }

        test "A connection used by a timed-out script ($kind) that ended by itself stays usable" {
            r config set lua-time-limit 10
            if {$kind eq "eval"} {
                assert_equal ok [r eval {for i=1,100000 do redis.call('ping') end return 'ok'} 0]
            } else {
                r function load replace "#!lua name=longlib\nredis.register_function('long', function() for i=1,100000 do redis.call('ping') end return 'ok' end)"
                assert_equal ok [r fcall long 0]
            }
            assert_equal PONG [r ping]
        }
    }
}
