# Starting, reaching and stopping the servers under test.
#
# Model: `start_server` pushes a server on a stack, runs its body, and pops
# it.  Level 0 is the innermost server, -1 the one around it, and so on
# (`srv -1 port`, `r -1 get foo`).  A local server gets its own directory
# tests/tmp/server.<pid>.<n>/ holding the generated config file and the
# server's combined stdout/stderr ("stdout", which is also its log), listens
# on 127.0.0.1 on a free port, and is started as a command pipeline so that
# closing the pipeline reaps it and yields its exit status.
#
# When the body ends the server is sent SIGTERM, then SIGKILL after 10 s.
# The server counts as crashed (one failure) if it died of a signal other
# than our SIGTERM, exited with a non-zero status, needed SIGKILL, or its
# log has a sanitizer report.  After a failed test the servers on the stack
# are checked; if one is gone the rest of the file is abandoned, because
# every later test would fail for the same reason.
#
# With `tls 1` the server listens with TLS only (port 0, tls-port on the free
# port) using the run's certificates (tls_cert_dir), and its clients, the
# default one included, connect with TLS and the client certificate.
#
# With `cluster 1` the server is a cluster node (cluster-enabled yes) on a port p whose bus port
# p + 10000 is free too (find_free_cluster_port): a random free port could otherwise hand one
# node's bus port to another server as its client port. A restart_server keeps that rule.
# tests/support/cluster.tcl builds clusters of such nodes.
#
# With --host/--port no server is started: every start_server uses the
# external server, blocks tagged external:skip are skipped, and so are blocks
# that need a config of their own (overrides, args or config).

namespace eval ::server {
    variable stack {}
    variable binary ""
    variable host ""
    variable port 0
    variable counter 0
    variable startup_timeout_ms 10000
    variable shutdown_timeout_ms 10000
    variable ready_when_loading 0
    variable default_db 9
    variable root ""
}

# srv ?level? property: host, port, client, pid, stdout (log path),
# config_file, dir, db, external, tls (the client's ::tls::import options,
# empty for a plain server).
proc srv {args} {
    set level 0
    if {[string is integer -strict [lindex $args 0]]} {
        set level [lindex $args 0]
        set args [lrange $args 1 end]
    }
    set entry [::server::entry $level]
    set property [lindex $args 0]
    if {$property eq "config"} {set property config_file}
    if {![dict exists $entry $property]} {
        error "srv: unknown property '$property'"
    }
    return [dict get $entry $property]
}

proc ::server::index {level} {
    variable stack
    set idx [expr {[llength $stack] - 1 + $level}]
    if {$level > 0 || $idx < 0} {
        error "no server at level $level (there are [llength $stack])"
    }
    return $idx
}

proc ::server::entry {level} {
    return [lindex $::server::stack [index $level]]
}

proc ::server::set_property {level key value} {
    variable stack
    set idx [index $level]
    set entry [lindex $stack $idx]
    dict set entry $key $value
    lset stack $idx $entry
}

# r ?level? command args...: runs a command on a server's default client.
proc r {args} {
    set level 0
    if {[string is integer -strict [lindex $args 0]]} {
        set level [lindex $args 0]
        set args [lrange $args 1 end]
    }
    set client [srv $level client]
    if {[info commands $client] eq ""} {
        # The test closed the default client (`r close`): reopen it.
        reconnect $level
        set client [srv $level client]
    }
    return [$client {*}$args]
}

# A new synchronous client on the server at level, with its test db selected.
proc redis_client {{level 0}} {
    set c [::redis::redis [srv $level host] [srv $level port] 0 "" [::server::tls_of $level]]
    set db [srv $level db]
    if {$db != 0} {$c select $db}
    return $c
}

# A new deferring client: commands are sent, replies are read with `$c read`.
proc redis_deferring_client {{level 0}} {
    set c [::redis::redis [srv $level host] [srv $level port] 1 "" [::server::tls_of $level]]
    set db [srv $level db]
    if {$db != 0} {
        $c select $db
        $c read
    }
    return $c
}

# Replaces the default client of the server at level with a fresh one.
proc reconnect {{level 0}} {
    catch {[srv $level client] close}
    ::server::set_property $level client [redis_client $level]
}

# Returns 1 if the process exists and is not a zombie.
proc ::server::process_alive {pid} {
    if {$pid eq ""} {return 0}
    if {[catch {open /proc/$pid/stat r} f]} {return 0}
    # The process may vanish between the open and the read (ESRCH): then it is not alive.
    set failed [catch {read $f} stat]
    catch {close $f}
    if {$failed} {return 0}
    set state [lindex [string range $stat [expr {[string last ")" $stat] + 2}] end] 0]
    return [expr {$state ni {Z X}}]
}

proc is_alive {{level 0}} {
    return [::server::process_alive [srv $level pid]]
}

# Picks a port nobody listens on now: a random one in 20000-32767 (below
# Linux's ephemeral range) that we can bind ourselves.
proc ::server::find_free_port {} {
    for {set i 0} {$i < 200} {incr i} {
        set port [expr {20000 + int(rand() * 12700)}]
        if {[catch {socket -server {apply {args {}}} -myaddr 127.0.0.1 $port} s]} {
            continue
        }
        close $s
        return $port
    }
    error "no free port found"
}

# Picks a port p for a cluster node such that p and its bus port p + 10000 are both free now:
# p in 20000-22767, so the bus port (30000-32767) stays in the harness's range, below Linux's
# ephemeral ports, like every other port here.
proc ::server::find_free_cluster_port {} {
    for {set i 0} {$i < 200} {incr i} {
        set port [expr {20000 + int(rand() * 2768)}]
        set held {}
        foreach p [list $port [expr {$port + 10000}]] {
            if {[catch {socket -server {apply {args {}}} -myaddr 127.0.0.1 $p} s]} break
            lappend held $s
        }
        foreach s $held {close $s}
        if {[llength $held] == 2} {return $port}
    }
    error "no free port pair (p, p + 10000) found"
}

proc ::server::new_dir {} {
    variable counter
    set dir [file join $::server::root tests tmp server.[pid].[incr counter]]
    file mkdir $dir
    return $dir
}

# Returns the last n lines of the file (or "" if missing).
proc ::server::tail {path {n 60}} {
    if {$path eq "" || ![file exists $path]} {return ""}
    set f [open $path r]
    fconfigure $f -translation binary
    set lines [split [read $f] \n]
    close $f
    return [join [lrange $lines end-$n end] \n]
}

# The TLS options of the server at level's clients (empty: plain).
proc ::server::tls_of {level} {
    set entry [entry $level]
    if {[dict exists $entry tls]} {return [dict get $entry tls]}
    return {}
}

# The directory holding this run's test certificates, made on first use with
# openssl: ca.crt/ca.key (the CA), server.crt/server.key and client.crt/
# client.key (signed by it).  One set per test process.
proc tls_cert_dir {} {
    set dir [file join $::server::root tests tmp tls-certs.[pid]]
    if {[file exists [file join $dir client.crt]]} {return $dir}
    file mkdir $dir
    set ca [file join $dir ca]
    exec openssl genrsa -out $ca.key 2048 2>@1
    exec openssl req -x509 -new -nodes -sha256 -key $ca.key -days 30 \
        -subj /O=redis-tp-test/CN=test-ca -out $ca.crt 2>@1
    foreach name {server client} {
        set p [file join $dir $name]
        exec openssl genrsa -out $p.key 2048 2>@1
        exec openssl req -new -sha256 -key $p.key -subj /O=redis-tp-test/CN=$name \
            -out $p.csr 2>@1
        exec openssl x509 -req -sha256 -in $p.csr -CA $ca.crt -CAkey $ca.key \
            -CAcreateserial -days 30 -out $p.crt 2>@1
    }
    return $dir
}

# ::tls::import options for a test client: trust the test CA and, with
# `cert`, present the client certificate.
proc tls_client_options {{cert 1}} {
    set dir [tls_cert_dir]
    set opts [list -cafile [file join $dir ca.crt] -require 1]
    if {$cert} {
        lappend opts -certfile [file join $dir client.crt] -keyfile [file join $dir client.key]
    }
    return $opts
}

# The config lines that make a server use the test certificates.
proc tls_server_overrides {} {
    set dir [tls_cert_dir]
    return [list tls-cert-file [file join $dir server.crt] \
                tls-key-file [file join $dir server.key] \
                tls-ca-cert-file [file join $dir ca.crt]]
}

# Formats a config value for a config file line: empty becomes "".
proc ::server::config_value {v} {
    if {$v eq ""} {return {""}}
    return $v
}

proc ::server::write_config {path dir port base overrides} {
    set f [open $path w]
    puts $f "# Generated by tests/support/server.tcl for one test server."
    puts $f "bind 127.0.0.1"
    puts $f "port $port"
    puts $f "dir [file normalize $dir]"
    puts $f "daemonize no"
    puts $f "save \"\""
    puts $f "appendonly no"
    puts $f "enable-debug-command yes"
    if {[info exists ::opt(io_threads)] && $::opt(io_threads) > 0} {
        puts $f "io-threads $::opt(io_threads)"
        puts $f "io-threads-do-reads yes"
    }
    if {$base ne ""} {
        set in [open $base r]
        puts $f [read $in]
        close $in
    }
    foreach {k v} $overrides {
        puts $f "$k [config_value $v]"
    }
    close $f
}

# Runs `open` on a command pipeline with extra environment variables (a dict of
# name value) set for the child only.
proc ::server::open_with_env {env cmd} {
    set saved {}
    dict for {k v} $env {
        if {[info exists ::env($k)]} {
            dict set saved $k [list 1 $::env($k)]
        } else {
            dict set saved $k [list 0 ""]
        }
        set ::env($k) $v
    }
    set rc [catch {open $cmd w} result]
    dict for {k old} $saved {
        if {[lindex $old 0]} {set ::env($k) [lindex $old 1]} else {unset ::env($k)}
    }
    if {$rc} {error $result}
    return $result
}

# Starts the binary and waits until it answers PING.  Returns the server
# dict, or raises with the reason (log tail included).  `env` is a dict of
# environment variables for the server process (LD_PRELOAD for the fault
# injection shim, tests/support/faults.tcl). With `cluster` set the server is a cluster node
# whose port and bus port (port + 10000) were both free (see find_free_cluster_port).
proc ::server::launch {dir base overrides extra_args {bin ""} {env {}} {tls 0} {cluster 0}} {
    variable binary
    if {$bin eq ""} {set bin $binary}
    set config [file join $dir redis.conf]
    set stdout [file join $dir stdout]
    set node_lines [expr {$cluster ? [concat {cluster-enabled yes} $overrides] : $overrides}]
    for {set attempt 1} {$attempt <= 5} {incr attempt} {
        set port [expr {$cluster ? [find_free_cluster_port] : [find_free_port]}]
        set lines $node_lines
        set client_tls {}
        if {$tls} {
            set lines [concat [list port 0 tls-port $port] [tls_server_overrides] $node_lines]
            set client_tls [tls_client_options]
        }
        write_config $config $dir $port $base $lines
        set pipe [open_with_env $env "|[list $bin $config {*}$extra_args] >>& [list $stdout]"]
        set pid [pid $pipe]
        ::test::emit "@@server-pid $pid"
        set entry [dict create host 127.0.0.1 port $port pid $pid pipe $pipe \
            stdout $stdout config_file $config dir $dir external 0 \
            client "" db 0 overrides $overrides args $extra_args base $base \
            binary $bin env $env expect_exit 0 tls $client_tls tls_on $tls cluster $cluster]
        set status [wait_ready $pid $port $client_tls]
        if {$status eq "ready"} {return $entry}
        stop_process $entry
        if {$status eq "exited" &&
                [string match -nocase "*address already in use*" [tail $stdout 20]]} {
            continue
        }
        error "server failed to start ($status):\n[tail $stdout 40]"
    }
    error "server failed to start: no usable port after 5 attempts"
}

# Polls until the server answers PING: returns ready, exited or timeout.
proc ::server::wait_ready {pid port {tls {}}} {
    variable startup_timeout_ms
    set deadline [expr {[clock milliseconds] + $startup_timeout_ms}]
    while {[clock milliseconds] < $deadline} {
        if {![process_alive $pid]} {return exited}
        if {![catch {::redis::redis 127.0.0.1 $port 0 1000 $tls} c]} {
            # NOAUTH counts as serving: the server may require a password.
            set rc [catch {$c ping} reply]
            # LOADING counts only when the caller asked for a server still loading
            # (restart_server ... loading).
            set ok [expr {($rc == 0 && $reply eq "PONG") ||
                          ($rc == 1 && [string match NOAUTH* $reply]) ||
                          ($rc == 1 && $::server::ready_when_loading &&
                           [string match LOADING* $reply])}]
            $c close
            # The port may belong to someone else if our server died.
            if {$ok && [process_alive $pid]} {return ready}
        }
        after 20
    }
    return timeout
}

# Stops a local server and reaps it.  Returns a list of problems (empty if
# it ended cleanly).
proc ::server::stop_process {entry} {
    variable shutdown_timeout_ms
    set pid [dict get $entry pid]
    set problems {}
    set was_alive [process_alive $pid]
    if {$was_alive} {
        catch {exec kill -TERM $pid}
        set deadline [expr {[clock milliseconds] + $shutdown_timeout_ms}]
        while {[process_alive $pid] && [clock milliseconds] < $deadline} {
            after 10
        }
        if {[process_alive $pid]} {
            catch {exec kill -KILL $pid}
            lappend problems "did not exit within $shutdown_timeout_ms ms of SIGTERM"
        }
    }
    catch {close [dict get $entry pipe]} err opts
    set code [expr {[dict exists $opts -errorcode] ? [dict get $opts -errorcode] : "NONE"}]
    switch -- [lindex $code 0] {
        CHILDKILLED {
            set sig [lindex $code 2]
            if {!($was_alive && $sig in {SIGTERM SIGKILL})} {
                lappend problems "killed by signal $sig"
            }
        }
        CHILDSTATUS {
            # A test that made the server exit on purpose (server_expect_exit) expects it.
            if {!([dict exists $entry expect_exit] && [dict get $entry expect_exit]
                  && !$was_alive)} {
                lappend problems "exited with status [lindex $code 2]"
            }
        }
    }
    ::test::emit "@@server-gone $pid"
    set patterns {"*ERROR: AddressSanitizer*" "*runtime error:*" "*LeakSanitizer*"
        "*ThreadSanitizer*" "*=== REDIS BUG REPORT*" "*crashed by signal*"}
    set path [dict get $entry stdout]
    if {[file exists $path]} {
        set f [open $path r]
        fconfigure $f -translation binary
        while {[gets $f line] >= 0} {
            foreach p $patterns {
                if {[string match $p $line]} {
                    lappend problems "log: [string trim $line]"
                    break
                }
            }
        }
        close $f
    }
    return $problems
}

# Reports a crashed server as one failure, with its log tail.
proc ::server::report_crash {entry problems} {
    incr ::test::failed
    ::test::emit "\[err\]: server crashed (pid [dict get $entry pid],\
                  port [dict get $entry port]) in $::test::current_file"
    foreach p [lrange $problems 0 9] {
        ::test::emit "    $p"
    }
    ::test::emit "    log file: [dict get $entry stdout]"
    foreach line [split [tail [dict get $entry stdout] 40] \n] {
        ::test::emit "    | $line"
    }
}

# Called by `test` after a failure: dumps logs if asked, abandons the file
# if a server died, and gives every server a fresh default client (the old
# one may hold unread replies).
proc ::server::after_test_failure {} {
    variable stack
    set levels [llength $stack]
    for {set i 0} {$i < $levels} {incr i} {
        set level [expr {-$i}]
        set entry [entry $level]
        if {[dict get $entry external]} {
            catch {reconnect $level}
            continue
        }
        if {$::test::dump_logs} {
            ::test::emit "    --- log of server at level $level ([dict get $entry stdout])"
            foreach line [split [tail [dict get $entry stdout] 200] \n] {
                ::test::emit "    | $line"
            }
        }
        if {![process_alive [dict get $entry pid]]} {
            return -code error -errorcode SERVER_DIED \
                "server at level $level (pid [dict get $entry pid]) is gone"
        }
        if {[catch {reconnect $level} err]} {
            return -code error -errorcode SERVER_DIED \
                "server at level $level does not accept connections: $err"
        }
    }
}

# Parses start_server options into a dict with defaults filled in.
proc ::server::parse_options {options} {
    set opts [dict create tags {} overrides {} config "" args {} db "" dir "" binary "" env {} \
                  tls 0 cluster 0]
    foreach {k v} $options {
        if {![dict exists $opts $k]} {
            error "start_server: unknown option '$k'"
        }
        dict set opts $k $v
    }
    return $opts
}

# The db a server's clients select: 9 (like the classic suite, to keep tests
# away from db 0) unless `db` was given, the server has fewer databases, or
# it needs a password (clients start unauthenticated and cannot SELECT).
proc ::server::pick_db {opts} {
    if {[dict get $opts db] ne ""} {return [dict get $opts db]}
    set overrides [dict get $opts overrides]
    if {[dict exists $overrides requirepass]} {return 0}
    if {[dict exists $overrides databases] &&
            [dict get $overrides databases] <= $::server::default_db} {
        return 0
    }
    return $::server::default_db
}

# start_server {tags {...} overrides {k v ...} config FILE args {...} db N cluster 0|1} body
proc start_server {options {code {}}} {
    set opts [::server::parse_options $options]
    lappend ::test::tags [dict get $opts tags]
    set rc [catch {::server::run_with_server $opts $code} result ropts]
    set ::test::tags [lrange $::test::tags 0 end-1]
    return -options $ropts $result
}

proc ::server::run_with_server {opts code} {
    set why [::test::skip_reason [::test::current_tags] 1]
    if {$why ne ""} {
        incr ::test::skipped
        ::test::emit "\[skip\]: server block with tags {[::test::current_tags]} ($why)"
        return
    }
    if {[dict get $opts tls] && [catch {package require tls}]} {
        incr ::test::skipped
        ::test::emit "\[skip\]: server block with tags {[::test::current_tags]} (tcl's tls\
                      package is not installed: deps/install-deps.sh)"
        return
    }
    if {$::test::external} {
        return [run_external $opts $code]
    }
    set base [dict get $opts config]
    if {$base ne "" && ![file exists $base]} {
        set base [file join $::server::root tests assets $base]
    }
    # `dir` runs the server in a directory the test prepared (persistence tests put files in
    # it first); it is the test's, so it is not deleted afterwards.
    set own_dir [expr {[dict get $opts dir] eq ""}]
    set dir [expr {$own_dir ? [new_dir] : [dict get $opts dir]}]
    file mkdir $dir
    set failed_before $::test::failed
    set entry [launch $dir $base [dict get $opts overrides] [dict get $opts args] \
        [dict get $opts binary] [dict get $opts env] [dict get $opts tls] [dict get $opts cluster]]
    dict set entry db [pick_db $opts]
    lappend ::server::stack $entry
    if {$::test::verbose} {
        ::test::emit "    (server pid [dict get $entry pid] port [dict get $entry port]\
                      dir $dir)"
    }
    set rc [catch {
        reconnect 0
        uplevel 2 $code
    } result ropts]
    set entry [entry 0]
    catch {[dict get $entry client] close}
    set ::server::stack [lrange $::server::stack 0 end-1]
    set problems [stop_process $entry]
    if {[llength $problems]} {
        report_crash $entry $problems
    } elseif {$::test::failed == $failed_before && $rc != 1 && $own_dir} {
        catch {file delete -force $dir}
    }
    return -options $ropts $result
}

proc ::server::run_external {opts code} {
    if {[llength [dict get $opts overrides]] || [llength [dict get $opts args]] ||
            [dict get $opts config] ne "" || [llength [dict get $opts env]] ||
            [dict get $opts cluster]} {
        incr ::test::skipped
        ::test::emit "\[skip\]: server block needing its own config\
                      (tags [::test::current_tags])"
        return
    }
    set entry [dict create host $::server::host port $::server::port pid "" \
        pipe "" stdout "" config_file "" dir "" external 1 client "" \
        db [pick_db $opts] overrides {} args {}]
    lappend ::server::stack $entry
    set rc [catch {
        reconnect 0
        r flushall
        uplevel 2 $code
    } result ropts]
    catch {[srv 0 client] close}
    set ::server::stack [lrange $::server::stack 0 end-1]
    return -options $ropts $result
}

# Stops every server still on the stack (used when the child exits early).
proc ::server::kill_all {} {
    foreach entry $::server::stack {
        if {![dict get $entry external]} {
            catch {::server::stop_process $entry}
        }
    }
    set ::server::stack {}
}

# Runs the server binary with the given arguments (no generated config) for
# at most timeout_ms, for tests of startup failures.  Returns {status output}
# where status is "exit N", "signal NAME" or "running" (it was still up at
# the deadline and has been killed).  Never give it arguments that would let
# it bind a public address: pass --bind 127.0.0.1 and a free port.
proc run_server_briefly {argv {timeout_ms 5000}} {
    set dir [::server::new_dir]
    set out [file join $dir stdout]
    set pipe [open "|[list $::server::binary {*}$argv] >& [list $out]" w]
    set pid [pid $pipe]
    ::test::emit "@@server-pid $pid"
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {[::server::process_alive $pid] && [clock milliseconds] < $deadline} {
        after 20
    }
    set still_running [::server::process_alive $pid]
    if {$still_running} {
        catch {exec kill -KILL $pid}
    }
    catch {close $pipe} err opts
    set code [expr {[dict exists $opts -errorcode] ? [dict get $opts -errorcode] : "NONE"}]
    switch -- [lindex $code 0] {
        CHILDSTATUS {set status "exit [lindex $code 2]"}
        CHILDKILLED {set status "signal [lindex $code 2]"}
        default {set status "exit 0"}
    }
    if {$still_running} {set status running}
    ::test::emit "@@server-gone $pid"
    set f [open $out r]
    set output [read $f]
    close $f
    file delete -force $dir
    return [list $status $output]
}

# restart_server ?level? ?how?: stops the server at `level` and starts it again in the same
# directory with the same binary, config and arguments (on a new port), then reconnects its
# default client. `how` is "term" (SIGTERM: a clean shutdown, which saves when save points are
# configured) or "kill" (SIGKILL: a crash). The log keeps growing in the same file. Returns
# the problems of the stop (empty when it ended as asked).
#
# With `wait` "loading" the server counts as started as soon as it answers LOADING (it
# serves clients while its dataset loads); by default it must answer PONG.
proc restart_server {{level 0} {how term} {wait pong}} {
    set entry [::server::entry $level]
    catch {[dict get $entry client] close}
    set pid [dict get $entry pid]
    if {$how eq "kill"} {
        catch {exec kill -KILL $pid}
        while {[::server::process_alive $pid]} {after 5}
    }
    set problems [::server::stop_process $entry]
    if {$how eq "kill"} {
        set problems [lsearch -all -inline -not $problems "killed by signal SIGKILL"]
    }
    set ::server::ready_when_loading [expr {$wait eq "loading"}]
    set rc [catch {
        ::server::launch [dict get $entry dir] [dict get $entry base] \
            [dict get $entry overrides] [dict get $entry args] [dict get $entry binary] \
            [dict get $entry env] [dict get $entry tls_on] [dict get $entry cluster]
    } new opts]
    set ::server::ready_when_loading 0
    if {$rc} {return -options $opts $new}
    dict set new db [dict get $entry db]
    lset ::server::stack [::server::index $level] $new
    reconnect $level
    return $problems
}

# Tells the harness that the server at `level` is meant to exit by itself with a non-zero
# status (Redis exits on an AOF error under appendfsync always): its exit is then no crash.
# A signal or a sanitizer report still is.
proc server_expect_exit {{level 0}} {
    ::server::set_property $level expect_exit 1
}

# The path of a file in the directory of the server at `level` (dump.rdb, appendonlydir...).
proc server_path {{level 0} {name ""}} {
    return [file join [srv $level dir] $name]
}

# SIGKILLs the server at `level` and waits until it is gone (its pipe is reaped at the restart).
proc server_kill {level} {
    set pid [srv $level pid]
    catch {exec kill -KILL $pid}
    set deadline [expr {[clock milliseconds] + 10000}]
    while {[::server::process_alive $pid] && [clock milliseconds] < $deadline} {after 5}
}

# Starts the server at `level` again (after server_kill) with its config file as it is now, so
# on the same port (Sentinel and cluster nodes know servers by address).
proc server_restart_same_port {level} {
    set entry [::server::entry $level]
    catch {[dict get $entry client] close}
    catch {close [dict get $entry pipe]}
    ::test::emit "@@server-gone [dict get $entry pid]"
    set pipe [open "|[list [dict get $entry binary] [dict get $entry config_file] \
        {*}[dict get $entry args]] >>& [list [dict get $entry stdout]]" w]
    set pid [pid $pipe]
    ::test::emit "@@server-pid $pid"
    ::server::set_property $level pid $pid
    ::server::set_property $level pipe $pipe
    set status [::server::wait_ready $pid [dict get $entry port]]
    if {$status ne "ready"} {
        error "server did not restart ($status):\n[::server::tail [dict get $entry stdout] 30]"
    }
    reconnect $level
}
