# The command-line tools built on the client library: redis-tp-lock (a distributed flock(1))
# and redis-tp-watch (one line per existence change). Exit statuses, -n, -w, -E, -c, both lock
# flavours, SIGKILL of a holder freeing the lock at once for a second redis-tp-lock waiting on
# it, and redis-tp-watch's plain and JSON lines. The tools are src/redis-tp-lock and
# src/redis-tp-watch (built by `make`); they talk to the test server in its test database.

set ::tp_lock [file join $::root_dir src redis-tp-lock]
set ::tp_watch [file join $::root_dir src redis-tp-watch]
set ::tp_elect [file join $::root_dir src redis-tp-elect]
set ::tp_dir [file join $::root_dir tests tmp tools.[pid]]
file mkdir $::tp_dir

# Runs a tool in the foreground against the test server; returns {status output} (stdout and
# stderr together). Status is the exit code, or 128+N when the tool died of signal N.
proc tp_run {tool args} {
    set rc [catch {exec $tool -p [srv port] --db [srv db] {*}$args 2>@1} out opts]
    if {$rc == 0} {return [list 0 $out]}
    regsub {\n?child process exited abnormally$} $out {} out
    set code [dict get $opts -errorcode]
    switch -- [lindex $code 0] {
        CHILDSTATUS {return [list [lindex $code 2] $out]}
        CHILDKILLED {return [list 128 $out]}
        default {error "cannot run $tool: $out"}
    }
}

# Starts a tool in the background through sh, which records its output in NAME.out and its exit
# status in NAME.rc (Tcl cannot wait for a background child). Returns the path prefix.
proc tp_start {name tool args} {
    set base [file join $::tp_dir $name]
    file delete -force $base.out $base.rc
    file delete -force $base.pid
    exec sh -c {out=$1; rc=$2; pid=$3; shift 3; "$@" > "$out" 2>&1 & echo $! > "$pid"; wait $!
        echo $? > "$rc"} sh $base.out $base.rc $base.pid $tool -p [srv port] --db [srv db] {*}$args &
    return $base
}

# The pid of the tool started by tp_start as `base`.
proc tp_tool_pid {base} {
    wait_for_condition 100 20 {[string is integer -strict [string trim [tp_read $base.pid]]]} else {
        fail "no pid for [file tail $base]"
    }
    return [string trim [tp_read $base.pid]]
}

proc tp_read {path} {
    if {![file exists $path]} {return ""}
    set f [open $path r]
    set data [read $f]
    close $f
    return $data
}

# Waits (up to `seconds`) for a tool started by tp_start to exit; returns {status output}.
proc tp_wait {base {seconds 10}} {
    wait_for_condition [expr {$seconds * 50}] 20 {
        [string trim [tp_read $base.rc]] ne ""
    } else {
        fail "[file tail $base] did not exit within $seconds s: [tp_read $base.out]"
    }
    return [list [string trim [tp_read $base.rc]] [string trimright [tp_read $base.out]]]
}

proc tp_lines {path} { return [split [string trim [tp_read $path]] "\n"] }

start_server {tags {tools redistp}} {
    test {redis-tp-lock holds a temporary key while the command runs, then frees it} {
        set holder [tp_start run $::tp_lock tools:run sh -c {sleep 0.4; exit 3}]
        wait_for_condition 100 10 {[r exists tools:run] == 1} else {
            fail "the lock key never appeared: [tp_read $holder.out]"
        }
        set owner [r object owner tools:run]
        assert {[string is integer -strict $owner]}
        assert_match {redis-tp-lock:*:*} [r get tools:run]
        assert_match {* tk=1 *} [r client list id $owner]
        assert_equal {3 {}} [tp_wait $holder]
        assert_equal 0 [r exists tools:run]
    }

    test {redis-tp-lock exits with the command's status, 128+N for a signal, 126/127, 64, 69} {
        assert_equal {0 {}} [tp_run $::tp_lock tools:s true]
        assert_equal {5 {}} [tp_run $::tp_lock tools:s -c {exit 5}]
        assert_equal 0 [lindex [tp_run $::tp_lock tools:s -- sh -c {exit 0}] 0]
        assert_equal 137 [lindex [tp_run $::tp_lock tools:s sh -c {kill -9 $$}] 0]
        lassign [tp_run $::tp_lock tools:s /nonexistent/command] status out
        assert_equal 127 $status
        assert_match {*cannot run /nonexistent/command: No such file or directory*} $out
        set plain [file join $::tp_dir not-executable]
        close [open $plain w]
        assert_equal 126 [lindex [tp_run $::tp_lock tools:s $plain] 0]
        lassign [tp_run $::tp_lock] status out
        assert_equal 64 $status
        assert_match {*no lock name given*} $out
        assert_equal 64 [lindex [tp_run $::tp_lock tools:s] 0] "no command"
        assert_equal 64 [lindex [tp_run $::tp_lock --bogus tools:s true] 0]
        assert_equal 64 [lindex [tp_run $::tp_lock -w soon tools:s true] 0]
        set port [::server::find_free_port]
        set rc [catch {exec $::tp_lock -p $port tools:s true 2>@1} out opts]
        assert_equal 69 [lindex [dict get $opts -errorcode] 2]
        assert_match "*cannot connect to 127.0.0.1:$port*" $out
        assert_equal 0 [r exists tools:s]
    }

    test {redis-tp-lock --help and --version} {
        lassign [tp_run $::tp_lock --help] status out
        assert_equal 0 $status
        assert_match {*redis-tp-lock \[options\] <lockname> <command>*--nonblock*--timeout*} $out
        assert_match {redis-tp-lock (redis-tp client library *)} [exec $::tp_lock --version]
        # One version for the whole project: the tools say the server's.
        set version [getInfoProperty [r info server] redis_tp_version]
        foreach tool [list $::tp_lock $::tp_watch $::tp_elect] {
            assert_match "* (redis-tp client library $version)" [exec $tool --version]
        }
    }

    test {-n fails at once with status 1 (or -E) while someone else holds the lock} {
        set h [redis_client]
        assert_equal 1 [$h settp tools:n holder]
        set ms [elapsed_ms {lassign [tp_run $::tp_lock -n tools:n true] status out}]
        assert_equal 1 $status
        assert_match {*lock 'tools:n' is held by someone else*} $out
        assert_lessthan $ms 2000
        assert_equal 9 [lindex [tp_run $::tp_lock -n -E 9 tools:n true] 0]
        assert_equal 1 [lindex [tp_run $::tp_lock --opportunistic -n tools:n true] 0]
        assert_equal holder [r get tools:n]
        $h close
        wait_for_condition 100 10 {[r exists tools:n] == 0} else {fail "holder's key stayed"}
        assert_equal {0 ran} [tp_run $::tp_lock -n tools:n echo ran]
    }

    foreach {flavour name} {{} fair --opportunistic opportunistic} {
        test "-w gives up after the timeout, or takes the lock freed in time ($name)" {
            set h [redis_client]
            assert_equal 1 [$h settp tools:w holder]
            set ms [elapsed_ms {
                lassign [tp_run $::tp_lock {*}$flavour -w 0.4 tools:w true] status out
            }]
            assert_equal 1 $status
            assert_match {*timed out after 0.4 s waiting for lock 'tools:w'*} $out
            assert_range $ms 350 3000
            set waiter [tp_start waiter $::tp_lock {*}$flavour -w 10 tools:w echo got-it]
            after 300
            assert_equal {} [tp_read $waiter.rc] "still waiting"
            $h close
            assert_equal {0 got-it} [tp_wait $waiter]
            assert_equal 0 [r exists tools:w]
        }
    }

    test {SIGKILL of redis-tp-lock frees the lock at once for a second one waiting on it} {
        set first_out [file join $::tp_dir first.out]
        set first [exec $::tp_lock -p [srv port] --db [srv db] tools:k sleep 30 >& $first_out &]
        wait_for_condition 100 10 {[r exists tools:k] == 1} else {
            fail "the first holder never got the lock: [tp_read $first_out]"
        }
        set second [tp_start second $::tp_lock -w 20 tools:k echo second]
        wait_for_blocked_clients_count 1
        set start [clock milliseconds]
        exec kill -KILL $first
        lassign [tp_wait $second] status out
        assert_equal {0 second} [list $status $out]
        assert_lessthan [expr {[clock milliseconds] - $start}] 2000
        assert_equal 0 [r exists tools:k]
    }

    # A process is gone when it no longer exists or is a zombie nobody reaped yet (in a
    # container the reaper of orphans may be slow or absent).
    # Gone or a zombie. The process may vanish between the open and the read of its stat file
    # (the read then fails with ESRCH): that too is gone.
    proc tp_gone {pid} {
        if {[catch {set f [open /proc/$pid/stat r]}]} {return 1}
        set failed [catch {read $f} stat]
        catch {close $f}
        if {$failed} {return 1}
        return [regexp {^\d+ \(.*\) Z} $stat]
    }

    proc tp_pid_of {path} {
        wait_for_condition 100 20 {[string is integer -strict [string trim [tp_read $path]]]} else {
            fail "no pid in $path"
        }
        return [string trim [tp_read $path]]
    }

    foreach {flavour name} {{} fair --opportunistic opportunistic} {
        test "redis-tp-lock notices an operator's DEL of its lock and stops the command ($name)" {
            set pidfile [file join $::tp_dir del-$name.grandchild]
            file delete -force $pidfile
            set h [tp_start del-$name $::tp_lock {*}$flavour tools:del \
                       -c "sleep 30 & echo \$! > $pidfile; wait"]
            set grandchild [tp_pid_of $pidfile]
            assert_equal 1 [r del tools:del]
            lassign [tp_wait $h] status out
            assert_equal 143 $status
            assert_match {*lost lock 'tools:del' while the command was running: the lock key was deleted by someone else; stopping the command*} $out
            wait_for_condition 100 20 {[tp_gone $grandchild]} else {
                fail "the command's grandchild $grandchild outlived the lost lock"
            }
        }
    }

    test {SIGTERM to redis-tp-lock stops the command's whole process group, then frees the lock} {
        set pidfile [file join $::tp_dir term.pid]
        file delete -force $pidfile
        set out [file join $::tp_dir term.out]
        set tool [exec $::tp_lock -p [srv port] --db [srv db] tools:term \
                      -c "sleep 30 & echo \$! > $pidfile; wait" >& $out &]
        set grandchild [tp_pid_of $pidfile]
        exec kill -TERM $tool
        # Bounds on waiting, not timing checks: a loaded CI machine may take seconds.
        wait_for_condition 500 20 {[tp_gone $grandchild] && [tp_gone $tool]} else {
            fail "grandchild $grandchild or the tool outlived SIGTERM: [tp_read $out]"
        }
        wait_for_condition 500 20 {[r exists tools:term] == 0} else {fail "lock kept"}
    }

    test {kill -9 of redis-tp-lock: its watchdog stops the command's group, the lock is freed} {
        set pidfile [file join $::tp_dir kill9.pid]
        file delete -force $pidfile
        set out [file join $::tp_dir kill9.out]
        set tool [exec $::tp_lock -p [srv port] --db [srv db] tools:k9 \
                      -c "sleep 30 & echo \$! > $pidfile; sleep 30" >& $out &]
        set grandchild [tp_pid_of $pidfile]
        assert_equal 1 [r exists tools:k9]
        exec kill -KILL $tool
        wait_for_condition 250 20 {[tp_gone $grandchild]} else {
            fail "grandchild $grandchild outlived kill -9 of redis-tp-lock: [tp_read $out]"
        }
        wait_for_condition 100 20 {[r exists tools:k9] == 0} else {fail "lock kept"}
        assert_match {*the tool died; stopping its command*} [tp_read $out]
    }

    test {redis-tp-lock --kill-after: a command that ignores SIGTERM gets SIGKILL} {
        set h [tp_start ignore $::tp_lock --kill-after 0.2 tools:ign \
                   -c {trap "" TERM; echo ready; while :; do sleep 1; done}]
        wait_for_condition 100 20 {[string match *ready* [tp_read $h.out]]} else {
            fail "the command did not start: [tp_read $h.out]"
        }
        r del tools:ign
        lassign [tp_wait $h] status out
        assert_equal 137 $status
        assert_match {*outlived SIGTERM by 200 ms; sending SIGKILL*} $out
    }

    test {redis-tp-lock gives the command REDIS_TP_LOCK_KEY and REDIS_TP_LOCK_FENCE} {
        set h [tp_start env $::tp_lock tools:env \
                   -c {echo "$REDIS_TP_LOCK_KEY $REDIS_TP_LOCK_FENCE"; sleep 30}]
        wait_for_condition 100 20 {[tp_read $h.out] ne ""} else {fail "no output"}
        lassign [string trim [tp_read $h.out]] key fence
        assert_equal tools:env $key
        assert_equal [r object fence tools:env] $fence
        assert {$fence > 0}
        r del tools:env
        assert_equal 143 [lindex [tp_wait $h] 0]
    }

    test {redis-tp-lock: an empty command name exits 127 at once; an empty lock name is a name} {
        lassign [tp_run $::tp_lock tools:empty ""] status out
        assert_equal 127 $status
        assert_match {*cannot run '': empty command name*} $out
        assert_equal {0 <>} [tp_run $::tp_lock "" sh -c {echo "<$REDIS_TP_LOCK_KEY>"}]
        assert_equal 0 [r exists ""]
    }

    test {redis-tp-lock --lease: a holder the server stopped answering stops its command first} {
        set h [tp_start deadline $::tp_lock --lease 1000 tools:dl sleep 30]
        wait_for_condition 100 20 {[r exists tools:dl] == 1} else {fail "no lock"}
        # A frozen server cannot free anything: the tool must give up while it is frozen.
        exec kill -STOP [srv pid]
        set ok [catch {tp_wait $h 20} result]
        exec kill -CONT [srv pid]
        if {$ok != 0} {error $result}
        lassign $result status out
        assert_equal 143 $status
        assert_match {*no reply from the server for too long*stopping the command*} $out
    }

    # The client id attached to the session that owns `key` (SESSION LIST's client= field).
    proc tp_session_client {key} {
        set sid [r object owner $key]
        foreach line [split [r session list] "\n"] {
            if {[regexp "^id=$sid client=(\\d+) " $line -> client]} {return $client}
        }
        fail "no session $sid in [r session list]"
    }

    test {redis-tp-lock --session rides out a killed connection: same key, same fence, command runs} {
        set flag [file join $::tp_dir session.go]
        file delete -force $flag
        set h [tp_start session $::tp_lock --session 10000 tools:ses \
                   -c "echo \$REDIS_TP_LOCK_FENCE; while \[ ! -e $flag \]; do sleep 0.05; done; echo done"]
        wait_for_condition 100 20 {[tp_read $h.out] ne ""} else {fail "no lock: [tp_read $h.out]"}
        set fence [string trim [tp_read $h.out]]
        assert_equal $fence [r object fence tools:ses]
        set first [tp_session_client tools:ses]
        r client kill id $first
        wait_for_condition 100 20 {[tp_session_client tools:ses] ni [list 0 $first]} else {
            fail "the session was not resumed: [r session list]"
        }
        assert_match {* resumes=1*} [r session list]
        assert_equal $fence [r object fence tools:ses]
        close [open $flag w]
        lassign [tp_wait $h] status out
        assert_equal 0 $status $out
        assert_equal "$fence\ndone" $out
        assert_equal 0 [r exists tools:ses]
    }

    test {redis-tp-lock --session: a holder that cannot resume within the grace stops its command} {
        set h [tp_start noresume $::tp_lock --session 300 tools:nr sleep 30]
        wait_for_condition 100 20 {[r exists tools:nr] == 1} else {fail "no lock"}
        set tool [tp_tool_pid $h]
        set client [tp_session_client tools:nr]
        exec kill -STOP $tool
        r client kill id $client
        wait_for_condition 100 20 {[r exists tools:nr] == 0} else {
            exec kill -CONT $tool
            fail "the session's key outlived the grace"
        }
        exec kill -CONT $tool
        lassign [tp_wait $h] status out
        assert_equal 143 $status
        assert_match {*stopping the command*} $out
    }

    test {redis-tp-watch prints the first states, then every change with a timestamp} {
        r set tools:b 1
        set w [tp_start watch $::tp_watch -c 3 tools:a tools:b {tools:c d}]
        wait_for_condition 100 10 {[llength [tp_lines $w.out]] == 3} else {
            fail "no first states: [tp_read $w.out]"
        }
        r set tools:a 1
        r set tools:a 2
        r del tools:b
        r set {tools:c d} x
        assert_equal 0 [lindex [tp_wait $w] 0]
        set lines [tp_lines $w.out]
        assert_equal 6 [llength $lines] $lines
        set stamp {\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}}
        foreach line $lines want {
            {tools:a NOEXIST} {tools:b EXIST} {"tools:c d" NOEXIST}
            {tools:a ADD} {tools:b DEL} {"tools:c d" ADD}
        } {
            assert {[regexp "^$stamp (.*)\$" $line -> rest]} $line
            assert_equal $want $rest
        }
    }

    test {redis-tp-watch --json --changes-only} {
        set w [tp_start json $::tp_watch --json --changes-only -c 2 {tools:"q"}]
        wait_for_condition 100 10 {[string match {*wx=1*} [r client list]]} else {
            fail "redis-tp-watch did not register its watch: [tp_read $w.out]"
        }
        r set {tools:"q"} 1
        r del {tools:"q"}
        assert_equal 0 [lindex [tp_wait $w] 0]
        set lines [tp_lines $w.out]
        assert_equal 2 [llength $lines] $lines
        assert_match {{"time":"*","key":"tools:\\"q\\"","event":"ADD"}} [lindex $lines 0]
        assert_match {{"time":"*","key":"tools:\\"q\\"","event":"DEL"}} [lindex $lines 1]
    }

    test {redis-tp-watch usage errors and an unreachable server} {
        lassign [tp_run $::tp_watch] status out
        assert_equal 64 $status
        assert_match {*no key given*} $out
        set port [::server::find_free_port]
        set rc [catch {exec $::tp_watch -p $port k 2>@1} out opts]
        assert_equal 69 [lindex [dict get $opts -errorcode] 2]
        assert_match "*cannot connect to 127.0.0.1:$port*" $out
    }
    test {redis-tp-watch --prefix prints every ADD and DEL under the prefix, nothing else} {
        set w [tp_start prefix $::tp_watch --prefix {tools:p*[} -c 3]
        wait_for_condition 100 20 {[r pubsub numpat] == 1} else {
            fail "redis-tp-watch did not subscribe: [tp_read $w.out]"
        }
        r set tools:p:other 1
        r set {tools:p*[1} 1
        r set tools:q 1
        r settp {tools:p*[ 2} x
        r del {tools:p*[1}
        r del tools:p:other tools:q
        assert_equal 0 [lindex [tp_wait $w] 0]
        set lines [tp_lines $w.out]
        assert_equal 3 [llength $lines] $lines
        set stamp {\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}}
        foreach line $lines want {{tools:p*[1 ADD} {"tools:p*[ 2" ADD} {tools:p*[1 DEL}} {
            assert {[regexp "^$stamp (.*)\$" $line -> rest]} $line
            assert_equal $want $rest
        }
        r del {tools:p*[ 2}
    }

    test {redis-tp-watch --prefix --json, and keys with --prefix is a usage error} {
        set w [tp_start prefixjson $::tp_watch --json --prefix=tools:j -c 1]
        wait_for_condition 100 20 {[r pubsub numpat] == 1} else {fail "not subscribed"}
        r set tools:j1 1
        assert_equal 0 [lindex [tp_wait $w] 0]
        assert_match {{"time":"*","key":"tools:j1","event":"ADD"}} [string trim [tp_read $w.out]]
        lassign [tp_run $::tp_watch --prefix a k] status out
        assert_equal 64 $status
        assert_match {*give keys or --prefix, not both*} $out
    }
}

start_server {tags {tools redistp}} {
    test {redis-tp-elect: FIFO succession, one candidate woken per change of leader} {
        set a [tp_start elect-a $::tp_elect tools:el alpha]
        wait_for_condition 100 20 {[string trim [tp_read $a.out]] eq "alpha"} else {
            fail "alpha was not elected: [tp_read $a.out]"
        }
        set b [tp_start elect-b $::tp_elect tools:el beta]
        wait_for_blocked_clients_count 1
        set c [tp_start elect-c $::tp_elect tools:el gamma]
        wait_for_blocked_clients_count 2
        assert_equal alpha [r get tools:el]
        exec kill -TERM [tp_tool_pid $a]
        assert_equal {0 alpha} [tp_wait $a]
        wait_for_condition 100 20 {[string trim [tp_read $b.out]] eq "beta"} else {
            fail "beta was not elected next: [tp_read $b.out]"
        }
        assert_equal beta [r get tools:el]
        assert_equal 1 [s blocked_clients] "gamma still waits: nobody else woke"
        assert_equal {} [tp_read $c.out]
        exec kill -KILL [tp_tool_pid $b]
        wait_for_condition 100 20 {[string trim [tp_read $c.out]] eq "gamma"} else {
            fail "gamma was not elected after beta's kill -9: [tp_read $c.out]"
        }
        assert_equal gamma [r get tools:el]
        r del tools:el
        lassign [tp_wait $c] status out
        assert_equal 75 $status
        assert_match {*no longer the leader of 'tools:el': the * key was deleted by someone else*} $out
    }

    test {redis-tp-elect runs a command as leader; it proclaims by token; --listen sees each value} {
        set l [tp_start listen $::tp_elect --listen --json --count 3 tools:ec]
        wait_for_condition 100 20 {[string match {*wx=2*} [r client list]]} else {
            fail "the listener did not watch: [tp_read $l.out]"
        }
        set flag [file join $::tp_dir proclaim.go]
        file delete -force $flag
        set cmd [tp_start leader $::tp_elect tools:ec first -c [string map [list @TOOL@ $::tp_elect @PORT@ [srv port] @DB@ [srv db] @FLAG@ $flag] {
            echo "$REDIS_TP_ELECT_KEY $REDIS_TP_ELECT_FENCE $REDIS_TP_ELECT_VALUE"
            while [ ! -e @FLAG@ ]; do sleep 0.05; done
            @TOOL@ -p @PORT@ --db @DB@ --proclaim tools:ec second || exit 9
            @TOOL@ -p @PORT@ --db @DB@ --proclaim tools:ec third || exit 9
            exit 4
        }]]
        wait_for_condition 100 20 {[tp_read $cmd.out] ne ""} else {fail "no command output"}
        lassign [string trim [tp_read $cmd.out]] key fence value
        assert_equal {tools:ec first} [list $key $value]
        assert_equal [r object fence tools:ec] $fence
        # A stale token proclaims nothing.
        lassign [tp_run $::tp_elect --fence [expr {$fence - 1}] --proclaim tools:ec stale] st out
        assert_equal 1 $st
        assert_match {*not the leader of 'tools:ec'*} $out
        assert_equal first [r get tools:ec]
        close [open $flag w]
        assert_equal 4 [lindex [tp_wait $cmd] 0]
        assert_equal 0 [r exists tools:ec] "resigned when the command ended"
        assert_equal 0 [lindex [tp_wait $l] 0]
        set lines [tp_lines $l.out]
        assert_equal 3 [llength $lines] $lines
        foreach line $lines want {first second third} {
            assert_match "{\"time\":\"*\",\"value\":\"$want\",\"fence\":$fence}" $line
        }
    }

    test {redis-tp-elect --resign by token hands over and stops the leader's command} {
        set a [tp_start resign-a $::tp_elect tools:er a -c {echo "$REDIS_TP_ELECT_FENCE"; sleep 30}]
        wait_for_condition 100 20 {[tp_read $a.out] ne ""} else {fail "no leader"}
        set fence [string trim [tp_read $a.out]]
        set b [tp_start resign-b $::tp_elect tools:er b]
        wait_for_blocked_clients_count 1
        assert_equal {0 {}} [tp_run $::tp_elect --fence $fence --resign tools:er]
        lassign [tp_wait $a] status out
        assert_equal 143 $status
        assert_match {*no longer the leader*stopping the command*} $out
        wait_for_condition 100 20 {[string trim [tp_read $b.out]] eq "b"} else {
            fail "b did not take over"
        }
        assert_equal 1 [lindex [tp_run $::tp_elect --fence $fence --resign tools:er] 0]
        assert_equal b [r get tools:er]
        assert_equal 1 [lindex [tp_run $::tp_elect -n tools:er c] 0] "-n while b leads"
        exec kill -TERM [tp_tool_pid $b]
        assert_equal 0 [lindex [tp_wait $b] 0]
        assert_equal 0 [r exists tools:er]
    }

    test {redis-tp-elect --session keeps the term through a killed connection} {
        set a [tp_start ses-a $::tp_elect --session 10000 tools:es a]
        wait_for_condition 100 20 {[string trim [tp_read $a.out]] eq "a"} else {fail "no leader"}
        set fence [r object fence tools:es]
        set b [tp_start ses-b $::tp_elect tools:es b]
        wait_for_blocked_clients_count 1
        set sid [r object owner tools:es]
        set first {}
        foreach line [split [r session list] "\n"] {
            regexp "^id=$sid client=(\\d+) " $line -> first
        }
        r client kill id $first
        wait_for_condition 100 20 {[string match "*id=$sid client=* resumes=1*" [r session list]]} else {
            fail "the leader's session was not resumed: [r session list]"
        }
        assert_equal [list a $fence] [list [r get tools:es] [r object fence tools:es]]
        assert_equal {} [tp_read $b.out] "the candidate still waits"
        exec kill -TERM [tp_tool_pid $a]
        assert_equal {0 a} [tp_wait $a]
        wait_for_condition 100 20 {[string trim [tp_read $b.out]] eq "b"} else {fail "b not next"}
        exec kill -TERM [tp_tool_pid $b]
        assert_equal 0 [lindex [tp_wait $b] 0]
    }

    test {redis-tp-elect usage errors} {
        foreach {args message} {
            {} {no election name given}
            {tools:eu} {no proposal given}
            {--listen tools:eu x} {unexpected argument 'x'}
            {--proclaim tools:eu} {no value given}
            {--proclaim tools:eu v} {no fencing token*}
            {--fence x --resign tools:eu} {the fencing token must be a positive integer}
            {--bogus tools:eu v} {unknown option --bogus}
        } {
            lassign [tp_run $::tp_elect {*}$args] status out
            assert_equal 64 $status $args
            assert_match "*$message*" $out
        }
        assert_equal 127 [lindex [tp_run $::tp_elect tools:eu v ""] 0]
        lassign [tp_run $::tp_elect --help] status out
        assert_equal 0 $status
        assert_match {*--listen*--proclaim*--resign*REDIS_TP_ELECT_FENCE*} $out
    }
}

start_server {tags {tools redistp} overrides {requirepass tools-secret}} {
    test {redis-tp-watch exits 69 when the server refuses (NOAUTH), in both modes} {
        foreach mode {{k} {--prefix k}} {
            lassign [tp_run $::tp_watch --db 0 {*}$mode] status out
            assert_equal 69 $status $mode
            assert_match {*NOAUTH*} $out
        }
        lassign [tp_run $::tp_watch -a wrong k] status out
        assert_equal 69 $status
        assert_match {*WRONGPASS*} $out
    }
}

file delete -force $::tp_dir