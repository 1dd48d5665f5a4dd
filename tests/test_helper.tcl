# Entry point of the tcl integration suite: tclsh tests/test_helper.tcl ?options?
#
# Model: this script is both the runner and the worker.  As the runner it
# finds the test files (tests/unit/**/*.tcl then tests/integration/**/*.tcl, sorted, or the
# --single ones)
# and runs each in a child `tclsh tests/test_helper.tcl --child FILE`, up to
# --clients children at a time.  The child sources the support files and
# the test file and prints one line per test; the runner counts the
# [ok]/[err]/[skip] lines, enforces the per-file timeout (killing the child
# and any server it reported starting), and ends with the line
# "N passed, N failed".  The exit status is non-zero if anything failed.
# Running every file in its own process keeps files from leaking globals,
# clients or servers into each other.

set ::helper_dir [file dirname [file normalize [info script]]]
set ::root_dir [file dirname $::helper_dir]
cd $::root_dir

foreach support {redis util test server} {
    source [file join $::helper_dir support $support.tcl]
}

proc usage {} {
    puts "Usage: tclsh tests/test_helper.tcl ?options?
  --single FILE      run only this test file (repeatable; 'unit/foo' works)
  --server PATH      server binary to start (default: src/redis-server); tests
                     tagged redistp (our own commands) run only against redis-tp
  --host H --port P  use an already running server; no server is started,
                     tests and servers tagged external:skip are skipped
  --tags \"a -b\"      run only tests tagged a, skip tests tagged b
  --only PATTERN     run only tests whose name matches the glob (repeatable)
  --clients N        run N test files in parallel (default 1)
  --timeout SECONDS  per-file time limit (default 600)
  --verbose          print test names before running and more detail
  --dump-logs        print the server log after a failed test
  --io-threads N     start every server with `io-threads N` and `io-threads-do-reads yes`,
                     and make redis-tp use the threads for every pass
                     (REDISTP_IO_THREADS_ALWAYS=1)
  --list             list the test files that would run and exit
  --help             this text"
}

proc die {msg} {
    puts stderr $msg
    exit 2
}

# Parses argv into the ::opt array.
proc parse_args {argv} {
    array set ::opt {
        singles {} server src/redis-server host "" port "" tags {} only {}
        clients 1 timeout 600 verbose 0 dump_logs 0 list 0 child "" io_threads 0
    }
    for {set i 0} {$i < [llength $argv]} {incr i} {
        set a [lindex $argv $i]
        set v [lindex $argv [expr {$i + 1}]]
        switch -- $a {
            --single {lappend ::opt(singles) $v; incr i}
            --server {set ::opt(server) $v; incr i}
            --host {set ::opt(host) $v; incr i}
            --port {set ::opt(port) $v; incr i}
            --tags {lappend ::opt(tags) {*}$v; incr i}
            --only {lappend ::opt(only) $v; incr i}
            --clients {set ::opt(clients) $v; incr i}
            --timeout {set ::opt(timeout) $v; incr i}
            --child {set ::opt(child) $v; incr i}
            --io-threads {set ::opt(io_threads) $v; incr i}
            --verbose {set ::opt(verbose) 1}
            --dump-logs {set ::opt(dump_logs) 1}
            --list {set ::opt(list) 1}
            --help {usage; exit 0}
            default {usage; die "Unknown option '$a'"}
        }
    }
    if {($::opt(host) eq "") != ($::opt(port) eq "")} {
        die "--host and --port go together"
    }
    if {![string is integer -strict $::opt(clients)] || $::opt(clients) < 1} {
        die "--clients needs a positive number"
    }
    if {$::opt(host) ne ""} {
        # Files share the one external server, so they must not overlap.
        set ::opt(clients) 1
    }
}

# All test files under dir, recursively, sorted.
proc find_tests {dir} {
    set out {}
    foreach f [glob -nocomplain -directory $dir -types f *.tcl] {
        lappend out $f
    }
    foreach d [glob -nocomplain -directory $dir -types d *] {
        lappend out {*}[find_tests $d]
    }
    return [lsort $out]
}

# Resolves a --single argument to a file path relative to the repo root.
proc resolve_test_file {name} {
    foreach candidate [list $name $name.tcl tests/$name tests/$name.tcl] {
        if {[file isfile $candidate]} {return $candidate}
    }
    die "No such test file: $name"
}

# ---------------------------------------------------------------------------
# Child side: run one file.

proc run_child {file} {
    fconfigure stdout -buffering line
    set ::test::current_file $file
    set ::test::verbose $::opt(verbose)
    set ::test::dump_logs $::opt(dump_logs)
    set ::test::only $::opt(only)
    foreach t $::opt(tags) {
        if {[string index $t 0] eq "-"} {
            lappend ::test::deny_tags [string range $t 1 end]
        } else {
            lappend ::test::allow_tags $t
        }
    }
    set ::server::root $::root_dir
    set ::server::binary [file normalize $::opt(server)]
    # Tests tagged `redistp` exercise redis-tp's own commands (SETTP, WATCHEX ...); against
    # another server, such as Debian's redis-server for a side-by-side run, they are skipped.
    if {$::opt(host) eq "" && [file executable $::server::binary] &&
        ![string match "*build=redis-tp*" [exec $::server::binary --version]]} {
        lappend ::test::deny_tags redistp
    }
    if {$::opt(host) ne ""} {
        set ::test::external 1
        set ::server::host $::opt(host)
        set ::server::port $::opt(port)
    } elseif {![file executable $::server::binary]} {
        ::test::emit "\[err\]: $file: server binary $::server::binary is missing\
                      (build it, or pass --server PATH)"
        ::test::emit "@@done"
        exit 1
    }
    if {[catch {uplevel #0 [list source $file]} err opts]} {
        set code [dict get $opts -errorcode]
        ::server::kill_all
        if {$code eq "SERVER_DIED"} {
            # The failed test and the crash were reported already.
            ::test::emit "\[info\]: rest of $file skipped: $err"
        } else {
            incr ::test::failed
            ::test::emit "\[err\]: $file: error outside a test"
            set shown [split $err \n]
            foreach line $shown {
                ::test::emit "    $line"
            }
            foreach line [split [::test::trim_trace [dict get $opts -errorinfo]] \n] {
                if {$line ni $shown} {::test::emit "    $line"}
            }
        }
    }
    ::server::kill_all
    ::test::emit "@@done"
    exit [expr {$::test::failed > 0}]
}

# ---------------------------------------------------------------------------
# Runner side: schedule children and aggregate their lines.

array set ::run {passed 0 failed 0 skipped 0 running 0 failures {}}

proc child_args {file} {
    set args [list --child $file --server $::opt(server)]
    if {$::opt(host) ne ""} {lappend args --host $::opt(host) --port $::opt(port)}
    if {[llength $::opt(tags)]} {lappend args --tags $::opt(tags)}
    foreach p $::opt(only) {lappend args --only $p}
    if {$::opt(verbose)} {lappend args --verbose}
    if {$::opt(dump_logs)} {lappend args --dump-logs}
    if {$::opt(io_threads) > 0} {lappend args --io-threads $::opt(io_threads)}
    return $args
}

# Writes runner output.  If nobody reads it any more (a closed pipe, as in
# `... | head`), the run is pointless: stop the children and their servers
# and exit, rather than erroring inside event handlers forever.
proc say {text} {
    if {[catch {puts $text; flush stdout}]} {
        foreach key [array names ::child *,fd] {
            set file [string range $key 0 end-3]
            catch {exec kill -KILL {*}[pid $::child($key)]}
            foreach pid $::child($file,servers) {catch {exec kill -KILL $pid}}
        }
        exit 1
    }
}

proc output {file line} {
    if {$::opt(clients) == 1} {
        say $line
    } else {
        lappend ::child($file,lines) $line
    }
}

proc spawn_child {file} {
    set cmd [list [info nameofexecutable] [file join $::helper_dir test_helper.tcl] \
        {*}[child_args $file]]
    set fd [open "|$cmd 2>@1" r]
    fconfigure $fd -blocking 0 -buffering line -translation lf
    set ::child($file,fd) $fd
    set ::child($file,lines) {}
    set ::child($file,servers) {}
    set ::child($file,done) 0
    set ::child($file,start) [clock milliseconds]
    set ::child($file,timer) [after [expr {$::opt(timeout) * 1000}] [list child_timeout $file]]
    fileevent $fd readable [list child_readable $file]
    incr ::run(running)
}

proc count_line {file line} {
    if {[string match {\[ok\]: *} $line]} {
        incr ::run(passed)
    } elseif {[string match {\[err\]: *} $line]} {
        incr ::run(failed)
        lappend ::run(failures) "[string range $line 7 end] ($file)"
    } elseif {[string match {\[skip\]: *} $line]} {
        incr ::run(skipped)
    }
}

proc child_readable {file} {
    set fd $::child($file,fd)
    while {[gets $fd line] >= 0} {
        if {[string match "@@server-pid *" $line]} {
            lappend ::child($file,servers) [lindex $line 1]
        } elseif {[string match "@@server-gone *" $line]} {
            set idx [lsearch -exact $::child($file,servers) [lindex $line 1]]
            if {$idx >= 0} {set ::child($file,servers) [lreplace $::child($file,servers) $idx $idx]}
        } elseif {$line eq "@@done"} {
            set ::child($file,done) 1
        } else {
            count_line $file $line
            output $file $line
        }
    }
    if {[eof $fd]} {finish_child $file ""}
}

proc child_timeout {file} {
    catch {exec kill -KILL {*}[pid $::child($file,fd)]}
    finish_child $file "timed out after $::opt(timeout) s"
}

# Reaps a child, kills servers it left behind, and reports abnormal ends.
proc finish_child {file problem} {
    set fd $::child($file,fd)
    after cancel $::child($file,timer)
    fileevent $fd readable {}
    fconfigure $fd -blocking 1
    catch {close $fd}
    foreach pid $::child($file,servers) {
        catch {exec kill -KILL $pid}
    }
    if {$problem eq "" && !$::child($file,done)} {
        set problem "test process ended unexpectedly"
    }
    if {$problem ne ""} {
        set line "\[err\]: $file: $problem"
        count_line $file $line
        output $file $line
    }
    set secs [expr {([clock milliseconds] - $::child($file,start)) / 1000.0}]
    output $file [format {[done]: %s (%.1f s)} $file $secs]
    if {$::opt(clients) > 1} {
        say [join $::child($file,lines) \n]
    }
    incr ::run(running) -1
    set ::run(event) 1
}

proc run_all {files} {
    set start [clock seconds]
    set queue $files
    while {[llength $queue] || $::run(running) > 0} {
        while {[llength $queue] && $::run(running) < $::opt(clients)} {
            spawn_child [lindex $queue 0]
            set queue [lrange $queue 1 end]
        }
        vwait ::run(event)
    }
    say ""
    if {[llength $::run(failures)]} {
        say "Failures:"
        foreach f $::run(failures) {say "  $f"}
    }
    say "Ran [llength $files] files in [expr {[clock seconds] - $start}] s,\
         $::run(skipped) tests skipped"
    say "$::run(passed) passed, $::run(failed) failed"
    exit [expr {$::run(failed) > 0 ? 1 : 0}]
}

parse_args $argv
if {$::opt(child) ne ""} {
    # Every server this child starts inherits the switch (server/threaded_io.cc).
    if {$::opt(io_threads) > 0} {set ::env(REDISTP_IO_THREADS_ALWAYS) 1}
    run_child $::opt(child)
}
if {[llength $::opt(singles)]} {
    set files {}
    foreach s $::opt(singles) {lappend files [resolve_test_file $s]}
} else {
    set files {}
    foreach f [find_tests tests/unit] {lappend files $f}
    foreach f [find_tests tests/integration] {lappend files $f}
}
if {$::opt(list)} {
    foreach f $files {puts $f}
    exit 0
}
if {![llength $files]} {
    die "No test files found"
}
if {$::opt(host) eq "" && ![file executable $::opt(server)]} {
    puts "\[err\]: server binary $::opt(server) is missing (build it, or pass --server PATH)"
    puts "0 passed, 1 failed"
    exit 1
}
run_all $files
