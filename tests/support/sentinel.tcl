# Sentinel groups for the failover tests: stock Redis Sentinel processes watching servers that
# start_server started (ours or Redis, whichever --server names).
#
# Model. The servers of a group are ordinary start_server blocks (so the harness reaps them and
# checks them for crashes); the sentinels are processes of Debian's Redis started here, each with
# a sentinel.conf of its own in its own directory under tests/tmp (Sentinel rewrites its config,
# so it must be a file we own). A sentinel is a dict {pid pipe port dir log}. Everything talks to
# servers by port through short-lived connections (`on_port`), because Sentinel kills the normal
# clients of every server it reconfigures (CLIENT KILL TYPE normal): a test's long-lived client
# would die under it. A server that a test kills with SIGKILL comes back on the same port
# (`server_kill` then `server_restart_same_port`), since Sentinel knows servers by address.
#
# Timing. Sentinel judges a server down when it has not answered a PING for down-after-
# milliseconds, and it starts that clock when it (re)creates its view of a master: at the start
# and after every switch-master. But after a switch-master it opens its links to the new master
# only about a second later (its reconnect period; seen in the servers' verbose logs, the same
# with ours and with Redis), so with down-after 1000 its first PONG races the deadline, and a
# loaded machine loses the race. Right after a failover the other sentinels' "master is down"
# answers about the old master are still fresh (Sentinel keeps them 5 s), so that one sentinel
# declares the new master objectively down at once and starts a second, unrequested failover
# (CI: the restarted old master followed a third server). Hence `sentinel_down_after_ms`, and
# tests that follow the master the sentinels agree on where their claim allows. A sentinel also
# refreshes its INFO of a replica only every 10 s and acts on the role it last saw (see
# `sentinels_see_replicas`). While sentinels run, a failed test prints `sentinel_events` (what
# each sentinel saw) under its failure, through the harness's failure hooks.
#
# Sentinel is Debian's redis-sentinel, or failing that the redis-server of Debian's package run
# with --sentinel (the same program); `sentinel_binary` is empty when neither exists, and the
# tests then skip.

# down-after-milliseconds of the test groups: long enough that a loaded machine does not fail
# over spuriously (see the essay), short enough that a killed master is replaced in seconds.
set ::sentinel_down_after_ms 3000

# The sentinels started and not yet stopped, whose events a failed test prints (the hook below).
set ::sentinel_running {}
proc sentinel_failure_report {} {
    if {$::sentinel_running eq {}} {return ""}
    return [sentinel_events $::sentinel_running]
}
if {"sentinel_failure_report" ni $::test::failure_hooks} {
    ::test::on_failure sentinel_failure_report
}

# The command that starts a sentinel (a list), or "" when there is none.
proc sentinel_binary {} {
    foreach path {/usr/bin/redis-sentinel /usr/local/bin/redis-sentinel} {
        if {[file executable $path]} {return [list $path]}
    }
    foreach path {/usr/bin/redis-server} {
        if {[file executable $path] && ![catch {exec $path --version} v] &&
                [string match "Redis server v=*" $v]} {
            return [list $path]
        }
    }
    return ""
}

# Runs one command on the server listening on `port`, through a fresh connection (closed after).
proc on_port {port args} {
    set c [::redis::redis 127.0.0.1 $port 0 5000]
    set rc [catch {$c {*}$args} reply opts]
    catch {$c close}
    return -options $opts $reply
}

# The value of an INFO field of the server on `port` ("" when missing or unreachable).
proc info_on_port {port field} {
    if {[catch {on_port $port info all} info]} {return ""}
    return [getInfoProperty $info $field]
}

# Starts a sentinel monitoring `master_name` at 127.0.0.1:master_port with the given quorum and
# extra `sentinel` lines (a list of {name value} for `sentinel <name> <master> <value>`).
proc sentinel_start {master_name master_port quorum {options {}}} {
    set cmd [sentinel_binary]
    if {$cmd eq ""} {error "no redis-sentinel"}
    set dir [::server::new_dir]
    set log [file join $dir stdout]
    set conf [file join $dir sentinel.conf]
    for {set attempt 1} {$attempt <= 5} {incr attempt} {
        set port [::server::find_free_port]
        set f [open $conf w]
        puts $f "port $port"
        puts $f "bind 127.0.0.1"
        puts $f "daemonize no"
        puts $f "dir [file normalize $dir]"
        puts $f "sentinel monitor $master_name 127.0.0.1 $master_port $quorum"
        foreach {name value} $options {
            puts $f "sentinel $name $master_name $value"
        }
        close $f
        set pipe [open "|[list {*}$cmd $conf --sentinel] >>& [list $log]" w]
        set pid [pid $pipe]
        ::test::emit "@@server-pid $pid"
        set s [dict create pid $pid pipe $pipe port $port dir $dir log $log]
        if {[::server::wait_ready $pid $port] eq "ready"} {
            lappend ::sentinel_running $s
            return $s
        }
        sentinel_stop $s
        if {![string match -nocase "*address already in use*" [::server::tail $log 20]]} {
            error "sentinel failed to start:\n[::server::tail $log 30]"
        }
    }
    error "sentinel failed to start: no usable port"
}

# Stops a sentinel (SIGTERM, then SIGKILL after 10 s) and reaps it. Its directory stays when the
# file had failures (for the logs), and goes otherwise.
proc sentinel_stop {s} {
    set i [lsearch -exact $::sentinel_running $s]
    if {$i >= 0} {set ::sentinel_running [lreplace $::sentinel_running $i $i]}
    set pid [dict get $s pid]
    catch {exec kill -TERM $pid}
    set deadline [expr {[clock milliseconds] + 10000}]
    while {[::server::process_alive $pid] && [clock milliseconds] < $deadline} {after 10}
    if {[::server::process_alive $pid]} {catch {exec kill -KILL $pid}}
    catch {close [dict get $s pipe]}
    ::test::emit "@@server-gone $pid"
    if {$::test::failed == 0} {catch {file delete -force [dict get $s dir]}}
}

# Runs `body` with `n` sentinels (a list of sentinel dicts in the variable named `var`), stopping
# them however the body ends.
proc with_sentinels {var n master_name master_port quorum options body} {
    upvar 1 $var sentinels
    set sentinels {}
    set rc [catch {
        for {set i 0} {$i < $n} {incr i} {
            lappend sentinels [sentinel_start $master_name $master_port $quorum $options]
        }
        uplevel 1 $body
    } result opts]
    foreach s $sentinels {sentinel_stop $s}
    return -options $opts $result
}

# The address {host port} that a sentinel gives for the master (empty if it has none).
proc sentinel_master_addr {s name} {
    if {[catch {on_port [dict get $s port] sentinel get-master-addr-by-name $name} addr]} {
        return {}
    }
    return $addr
}

# The port every sentinel of `sentinels` agrees the master is on, or "" while they disagree.
proc sentinels_agreed_master_port {sentinels name} {
    set ports {}
    foreach s $sentinels {
        lappend ports [lindex [sentinel_master_addr $s $name] 1]
    }
    if {[llength [lsort -unique $ports]] == 1} {return [lindex $ports 0]}
    return ""
}

# Whether the server on `port` is a replica of the master on `master_port`, its link up.
proc replica_of_port {port master_port} {
    if {[catch {on_port $port role} role]} {return 0}
    return [expr {[lindex $role 0] eq "slave" && [lindex $role 2] == $master_port &&
                  [lindex $role 3] eq "connected"}]
}

# Whether the server on `port` answers ROLE as a master.
proc master_on_port {port} {
    if {[catch {on_port $port role} role]} {return 0}
    return [expr {[lindex $role 0] eq "master"}]
}

# The failover events in the logs of `sentinels` (sdown/odown, elections, switch-master, tilt,
# failover steps, conversions), one line each as "sentinel <port> <time> <event>" in time order,
# at most `limit` lines per sentinel (its latest): for failure messages, so that a spurious
# failover or a server judged down shows in the test's output.
proc sentinel_events {sentinels {limit 40}} {
    set pattern {^\d+:X \d+ \w+ \d+ ([\d:.]+) [#*] ([-+](s|o)down|\+switch-master|[-+]tilt|}
    append pattern {\+try-failover|\+elected-leader|\+failover-|\+promoted-slave|}
    append pattern {\+convert-to-slave|\+reboot|-failover-abort|\+new-epoch)(.*)$}
    set out {}
    foreach s $sentinels {
        if {[catch {open [dict get $s log]} f]} {continue}
        set lines {}
        while {[gets $f line] >= 0} {
            if {[regexp $pattern $line -> time event -> rest]} {
                lappend lines "sentinel [dict get $s port] $time $event$rest"
            }
        }
        close $f
        lappend out {*}[lrange $lines end-[expr {$limit - 1}] end]
    }
    if {$out eq {}} {return "(no sentinel events)"}
    set out [lsort -command {apply {{a b} {
        string compare [lindex [split $a " "] 2] [lindex [split $b " "] 2]
    }}} $out]
    return "sentinel events:\n[join $out \n]"
}

# The port of the master of `ports` once the group has settled on it: every sentinel of
# `sentinels` names it, it is one of `ports` and answers ROLE as a master, and every other server
# of `ports` is its replica with the link up. "" while that does not hold. Tests wait on this
# rather than on a port fixed in advance, so that they follow the master the sentinels agree on.
proc sentinels_settled_master {sentinels name ports} {
    set port [sentinels_agreed_master_port $sentinels $name]
    if {$port eq "" || $port ni $ports || ![master_on_port $port]} {return ""}
    foreach p $ports {
        if {$p != $port && ![replica_of_port $p $port]} {return ""}
    }
    return $port
}

# Whether every sentinel of `sentinels` lists each server of `replica_ports` as a replica that
# reported, in its last INFO, the role of slave of the master on `master_port` with the link up.
# A sentinel refreshes a replica's INFO only every 10 s, and until then acts on the role it last
# saw: one that still sees a restarted old master as a master converts it back to a replica
# (+convert-to-slave) even if another sentinel has just promoted it. So a manual failover waits
# for this first.
proc sentinels_see_replicas {sentinels name master_port replica_ports} {
    foreach s $sentinels {
        if {[catch {on_port [dict get $s port] sentinel replicas $name} replicas]} {return 0}
        set seen {}
        foreach rep $replicas {
            if {[dict get $rep flags] eq "slave" && [dict get $rep role-reported] eq "slave" &&
                    [dict get $rep master-port] == $master_port &&
                    [dict get $rep master-link-status] eq "ok"} {
                lappend seen [dict get $rep port]
            }
        }
        foreach p $replica_ports {
            if {$p ni $seen} {return 0}
        }
    }
    return 1
}
