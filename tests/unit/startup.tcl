# Starting the server the way tools and harnesses do: the start banner and
# the log lines they wait for, config files and command lines in every form
# redis-server accepts (and the exact errors of the ones it refuses), and the
# crash report a fatal signal leaves in the log before the process dies by
# that signal.  Every test passes against Redis 7.0 as well.

# The whole log of the server at level 0.
proc server_log {} {
    set f [open [srv stdout] r]
    set text [read $f]
    close $f
    return $text
}

# Starts the binary with argv (stdin from in_file if given, "" for none) and
# returns a dict with pid, pipe and out (its log).  The caller reaps it with
# finish_server.  Not start_server: these servers are meant to crash, and a
# crash report in a start_server log counts as a failure.
# "@DIR@" in argv stands for the server's own directory.
proc launch_server {argv {in_file ""}} {
    set dir [::server::new_dir]
    set out [file join $dir stdout]
    set cmd [list $::server::binary {*}[string map [list @DIR@ $dir] $argv]]
    if {$in_file ne ""} {
        # A pipeline cannot both take a file as stdin and send its output
        # elsewhere, so this one runs in the background: no exit status.
        set pipe ""
        set pid [exec {*}$cmd < $in_file >& $out &]
    } else {
        set pipe [open "|$cmd >& [list $out]" w]
        set pid [pid $pipe]
    }
    ::test::emit "@@server-pid $pid"
    return [dict create pid $pid pipe $pipe out $out dir $dir]
}

# Waits (bounded) for the server to answer PING on port.
proc wait_server_ready {server port} {
    set status [::server::wait_ready [dict get $server pid] $port]
    if {$status ne "ready"} {
        error "server not ready ($status):\n[::server::tail [dict get $server out] 30]"
    }
}

# Waits (bounded) for the process to end, kills it if it does not, and
# returns {status log} with status "exit N", "signal NAME", "running", or
# "unknown" for a server started in the background.
proc finish_server {server} {
    set pid [dict get $server pid]
    wait_for_condition 200 50 {![::server::process_alive $pid]} else {}
    set status ""
    if {[::server::process_alive $pid]} {
        catch {exec kill -KILL $pid}
        set status running
    }
    set opts {}
    if {[dict get $server pipe] ne ""} {
        catch {close [dict get $server pipe]} err opts
    } elseif {$status eq ""} {
        set status unknown
    }
    set code [expr {[dict exists $opts -errorcode] ? [dict get $opts -errorcode] : "NONE"}]
    if {$status eq ""} {
        switch -- [lindex $code 0] {
            CHILDSTATUS {set status "exit [lindex $code 2]"}
            CHILDKILLED {set status "signal [lindex $code 2]"}
            default {set status "exit 0"}
        }
    }
    ::test::emit "@@server-gone $pid"
    set f [open [dict get $server out] r]
    set log [read $f]
    close $f
    file delete -force [dict get $server dir]
    return [list $status $log]
}

# A config file in a fresh directory holding text; returns its path.  The
# directories are removed by remove_temp_configs.
set ::temp_config_dirs {}
proc write_temp_config {text} {
    set dir [::server::new_dir]
    lappend ::temp_config_dirs $dir
    set path [file join $dir extra.conf]
    set f [open $path w]
    puts -nonewline $f $text
    close $f
    return $path
}

proc remove_temp_configs {} {
    foreach dir $::temp_config_dirs {file delete -force $dir}
    set ::temp_config_dirs {}
}

start_server {tags {startup external:skip} overrides {always-show-logo yes}} {
    test {always-show-logo yes prints a banner with version, mode, port and PID} {
        set log [server_log]
        set pid [s process_id]
        set port [srv port]
        assert_match "*Redis [s redis_version] *64 bit*" $log
        assert_match "*Running in standalone mode*" $log
        assert_match "*Port: $port\n*" $log
        # What Redis's own test harness waits for.
        assert {[regexp -- " PID: $pid\n.*Server initialized" $log]}
        assert_equal 0 [count_log_message "*Running mode=standalone*"]
    }
}

start_server {tags {startup external:skip} overrides {always-show-logo no}} {
    test {always-show-logo no logs the one-line form instead of the banner} {
        assert_equal 1 [count_log_message "*Running mode=standalone, port=[srv port]."]
        assert_equal 0 [count_log_message "* PID: *"]
    }

    test {Startup log lines have Redis's text, level marks and roles} {
        set pid [s process_id]
        foreach pattern [list \
            "$pid:C * # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo" \
            "$pid:C * # Redis version=[s redis_version], bits=64, *, pid=$pid, just started*" \
            "$pid:C * # Configuration loaded" \
            "$pid:M * # Server initialized" \
            "$pid:M * \\* Ready to accept connections"] {
            assert_equal 1 [count_log_message $pattern] $pattern
        }
    }
}

start_server {tags {startup external:skip}} {
    test {Server initialized is logged before the dataset loads, as Redis logs it} {
        r set k v
        r save
        restart_server
        set log [server_log]
        set init [string last "Server initialized" $log]
        set loaded [string last "DB loaded from disk" $log]
        assert {$init >= 0}
        assert {$loaded > $init}
        assert_equal v [r get k]
    }
}

tags {startup external:skip} {
    test {A bare save line means no save points} {
        set conf [write_temp_config "save\n"]
        start_server [list config $conf] {
            assert_equal {save {}} [r config get save]
        }
        remove_temp_configs
    }

    test {A bare save line after save points adds none} {
        set conf [write_temp_config "save 100 1\nsave\nsave 200 2\n"]
        start_server [list config $conf] {
            assert_equal {save {100 1 200 2}} [r config get save]
        }
        remove_temp_configs
    }

}

start_server {tags {startup external:skip}
              args {{--maxmemory-policy volatile-lru} {--maxmemory 700mb}
                    --hz 5 --hz 7 --save --appendonly no}} {
    test {An option and its value in one argument, and a repeated option's last value} {
        assert_equal {maxmemory-policy volatile-lru} [r config get maxmemory-policy]
        assert_equal {maxmemory 734003200} [r config get maxmemory]
        assert_equal {hz 7} [r config get hz]
    }

    test {--save followed by another option means save ""} {
        assert_equal {save {}} [r config get save]
        assert_equal {appendonly no} [r config get appendonly]
    }
}

start_server {tags {startup external:skip} args {--save 100 1 --save}} {
    test {--save as the last argument means save ""} {
        assert_equal {save {}} [r config get save]
    }
}

start_server {tags {startup external:skip} db 0 args {--requirepass --x --hz 9}} {
    test {The word right after a bare option is its value even if it starts with --} {
        r auth --x
        assert_equal {requirepass --x} [r config get requirepass]
        assert_equal {hz 9} [r config get hz]
    }
}

tags {startup external:skip} {
    test {Config file, then stdin, then options (options win)} {
        set port [::server::find_free_port]
        set conf [write_temp_config "port $port\nbind 127.0.0.1\nsave 100 1\nhz 3\n"]
        set in [write_temp_config "hz 9\nsave\nmaxmemory-policy allkeys-lfu\n"]
        set server [launch_server [list $conf --dir @DIR@ --maxmemory-policy allkeys-lru -] $in]
        wait_server_ready $server $port
        set c [::redis::redis 127.0.0.1 $port 0]
        set got [list [$c config get hz] [$c config get save] \
            [$c config get maxmemory-policy]]
        catch {$c shutdown nosave}
        $c close
        lassign [finish_server $server] status log
        assert_equal {{hz 9} {save {100 1}} {maxmemory-policy allkeys-lru}} $got
        assert_equal unknown $status
        remove_temp_configs
    }

    test {Command-line errors: exit 1 with Redis's FATAL block} {
        set base [list --port 0 --bind 127.0.0.1 --save ""]
        foreach {argv line message} {
            {--shutdown-on-sigint}
            {shutdown-on-sigint}
            {argument(s) must be one of the following: default, save, nosave, now, force}
            {--maxmemory-policy bogus}
            {maxmemory-policy "bogus"}
            {argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction}
            {{--maxmemory-policy bogus}}
            {maxmemory-policy bogus}
            {argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction}
            {{--maxmemory 700mb} extra}
            {maxmemory 700mb "extra"}
            {wrong number of arguments}
            {--port}
            {port}
            {wrong number of arguments}
            {--maxmemory lots}
            {maxmemory "lots"}
            {argument must be a memory value}
            {--no-such-option 1}
            {no-such-option "1"}
            {Bad directive or wrong number of arguments}
        } {
            lassign [run_server_briefly [concat $base $argv]] status output
            assert_equal "exit 1" $status $argv
            assert_match "*FATAL CONFIG FILE ERROR (Redis *) ***\nReading the configuration file,*" \
                $output $argv
            assert {[string first "\n>>> '$line'\n$message\n" $output] >= 0}
        }
    }

    test {Users left disabled by the config are logged at startup} {
        set conf [write_temp_config "user foo\nuser bar on\nuser baz on off\nuser qux reset on\n"]
        start_server [list config $conf] {
            foreach {user n} {foo 1 bar 0 baz 1 qux 0} {
                assert_equal $n [count_log_message "* \\* The user '$user' is disabled (there is no 'on' modifier in the user description). Make sure this is not a configuration error."] $user
            }
        }
        remove_temp_configs
    }

    test {A user defined twice is a fatal config error} {
        lassign [run_server_briefly [list --port 0 --bind 127.0.0.1 --save "" \
            --user foo --user foo]] status output
        assert_equal "exit 1" $status
        assert_match "*>>> 'user \"foo\"'\nError in user declaration 'foo': Duplicate user found. A user can only be defined once in config files*" $output
    }

    start_server {overrides {save {}}} {
        test {A port already in use: why, then that the server gives up, exit 1} {
            # Our own test server holds its port; a second server on it cannot bind.
            set port [srv port]
            lassign [run_server_briefly [list --port $port --bind 127.0.0.1 --save ""]] \
                status output
            assert_equal "exit 1" $status
            assert_match "*# Warning: Could not create server TCP listening socket\
                127.0.0.1:$port: bind: Address already in use\n*# Failed listening on port $port\
                (TCP), aborting.*" $output
        }
    }

    test {A user rule that is not an ACL rule is a fatal config error} {
        lassign [run_server_briefly [list --port 0 --bind 127.0.0.1 --save "" \
            --user foo on badrule]] status output
        assert_equal "exit 1" $status
        assert_match "*Error in user declaration 'foo': Syntax error*" $output
    }
}

# ---- Crash reports ----------------------------------------------------------

# Starts a server that may crash; returns {server port}.  Redis's memory test
# (crash-memcheck-enabled) is turned off: it makes the report slow, and it can
# itself fault, so Redis would then die by SIGSEGV whatever the signal was.
proc launch_crashable {{extra {}}} {
    set port [::server::find_free_port]
    set server [launch_server [list --port $port --bind 127.0.0.1 --save "" \
        --dir @DIR@ --enable-debug-command yes --crash-memcheck-enabled no {*}$extra]]
    wait_server_ready $server $port
    return [list $server $port]
}

tags {startup external:skip} {
    test {DEBUG SEGFAULT leaves a crash report and the process dies by SIGSEGV} {
        lassign [launch_crashable] server port
        set c [::redis::redis 127.0.0.1 $port 0]
        $c set foo bar
        catch {$c debug segfault}
        catch {$c close}
        lassign [finish_server $server] status log
        assert_equal "signal SIGSEGV" $status
        assert_match "*=== REDIS BUG REPORT START: Cut & paste starting from here ===*" $log
        assert_match "*# Redis * crashed by signal: 11, si_code: *" $log
        assert_match "*# Accessing address: *" $log
        assert_match "*# Crashed running the instruction at: *" $log
        assert_match "*------ STACK TRACE ------\nEIP:\n*Backtrace:\n*" $log
        assert_match "*------ INFO OUTPUT ------*redis_version:*db0:keys=1,*" $log
        assert_match "*------ CLIENT LIST OUTPUT ------\nid=*cmd=debug*" $log
        assert_match "*------ CURRENT CLIENT INFO ------\nid=*\nargv\\\[0\\\]: '\"debug\"'\nargv\\\[1\\\]: '\"segfault\"'\n*" $log
        assert_match "*=== REDIS BUG REPORT END. Make sure to include from START to END. ===*" $log
    }

    test {A fatal signal sent by another process is reported with its sender} {
        foreach {sig number} {SIGABRT 6 SIGBUS 7 SIGFPE 8 SIGILL 4 SIGSEGV 11} {
            lassign [launch_crashable] server port
            exec kill -[string range $sig 3 end] [dict get $server pid]
            lassign [finish_server $server] status log
            assert_equal "signal $sig" $status
            assert_match "*# Redis * crashed by signal: $number, si_code: 0\n*" $log $sig
            assert_match "*# Killed by PID: *, UID: *" $log $sig
            assert_match "*------ STACK TRACE ------*------ INFO OUTPUT ------*" $log $sig
            assert_match "*=== REDIS BUG REPORT END. *" $log $sig
        }
    }
    test {crash-log-enabled no: the process dies by the signal without a report} {
        lassign [launch_crashable {--crash-log-enabled no}] server port
        set c [::redis::redis 127.0.0.1 $port 0]
        catch {$c debug segfault}
        catch {$c close}
        lassign [finish_server $server] status log
        assert_equal "signal SIGSEGV" $status
        assert_no_match "*crashed by signal*" $log
        assert_no_match "*REDIS BUG REPORT*" $log
    }

    test {CONFIG SET crash-log-enabled turns the report off and on again} {
        lassign [launch_crashable] server port
        set c [::redis::redis 127.0.0.1 $port 0]
        assert_equal OK [$c config set crash-log-enabled no]
        assert_equal OK [$c config set crash-log-enabled yes]
        catch {$c debug segfault}
        catch {$c close}
        lassign [finish_server $server] status log
        assert_equal "signal SIGSEGV" $status
        assert_match "*crashed by signal: 11*" $log

        lassign [launch_crashable] server port
        set c [::redis::redis 127.0.0.1 $port 0]
        assert_equal OK [$c config set crash-log-enabled no]
        catch {$c debug segfault}
        catch {$c close}
        lassign [finish_server $server] status log
        assert_equal "signal SIGSEGV" $status
        assert_no_match "*crashed by signal*" $log
    }
}
