# The `test` and `tags` procedures, tag filtering and result reporting.
#
# Model: a test file is sourced in a child tclsh (see test_helper.tcl).  Each
# `test` call prints exactly one result line on stdout:
#
#   [ok]: name (N ms)     the body ran to the end (and matched `expected`)
#   [err]: name           followed by indented detail lines
#   [skip]: name          filtered out by tags
#
# The parent process counts those lines, so they are the only channel of
# results; lines starting with "@@" are private messages to the parent.
# Tags form a stack: `tags {...} {body}` and `start_server {tags {...}}`
# push, and a test carries every tag on the stack when it runs.

namespace eval ::test {
    variable passed 0
    variable failed 0
    variable skipped 0
    variable tags {}
    variable allow_tags {}
    variable deny_tags {}
    variable only {}
    variable verbose 0
    variable dump_logs 0
    variable external 0
    variable current_file ""
    variable current_test ""
    # Commands run after a failed test, each returning text (or "") printed under the failure:
    # what a support file knows that helps read it (tests/support/sentinel.tcl: the sentinels'
    # events). Added with ::test::on_failure.
    variable failure_hooks {}
}

proc ::test::on_failure {command} {
    lappend ::test::failure_hooks $command
}


# Prints one line to stdout right away (the parent reads it through a pipe).
proc ::test::emit {line} {
    puts stdout $line
    flush stdout
}

proc ::test::current_tags {} {
    return [concat {*}$::test::tags]
}

# Returns why a test (or server) with these tags must be skipped, or "" if
# it runs.  With for_server set, the allow-list is not applied: a server
# block runs so the tests inside can be filtered one by one.
proc ::test::skip_reason {tags {for_server 0}} {
    if {$::test::external && "external:skip" in $tags} {
        return "external:skip"
    }
    foreach t $::test::deny_tags {
        if {$t in $tags} {return "tag $t excluded"}
    }
    if {!$for_server && [llength $::test::allow_tags]} {
        set hit 0
        foreach t $::test::allow_tags {
            if {$t in $tags} {set hit 1}
        }
        if {!$hit} {return "no requested tag"}
    }
    return ""
}

# Returns "file:line" of the innermost command of the current test file on
# the call stack, so a failed assertion points at the line that made it.
# Bodies run through uplevel show up as "eval" frames whose line counts from
# the start of that body; consecutive eval frames belong to the same body
# (nested loops are compiled into it).  Adding the line to the line of the
# command that owns the body gives the absolute line, exact when bodies
# open on their command's line, the usual layout.
proc ::test::caller_location {} {
    set target [file normalize $::test::current_file]
    set abs ""
    set script_base ""
    set previous ""
    for {set level 1} {$level < [info frame]} {incr level} {
        set frame [info frame $level]
        set type [dict get $frame type]
        if {$type eq "source" && [dict exists $frame file] &&
                [file normalize [dict get $frame file]] eq $target} {
            set abs [dict get $frame line]
        } elseif {$type eq "eval" && $abs ne "" && [dict exists $frame line]} {
            if {$previous ne "eval"} {set script_base $abs}
            set abs [expr {$script_base + [dict get $frame line] - 1}]
        }
        set previous $type
    }
    if {$abs eq ""} {return ""}
    return "$::test::current_file:$abs"
}

# Truncates long values in failure messages.
proc ::test::shorten {value {limit 300}} {
    if {[string length $value] > $limit} {
        return "[string range $value 0 $limit]...([string length $value] chars)"
    }
    return $value
}

# Keeps the useful head of a Tcl stack trace.
proc ::test::trim_trace {trace} {
    set lines [split $trace \n]
    set out {}
    foreach line $lines {
        if {[string match {*("uplevel" body line*} $line]} break
        lappend out $line
        if {[llength $out] >= 8} break
    }
    return [join $out \n]
}

# Turns the stack trace of an error raised by a test body into two lines:
# the innermost command written in the test that failed, and its file:line.
# A Tcl trace is a list of blocks, innermost first: a command's text, then
# its context, e.g. (procedure "r" line 13) or ("foreach" body line 3).
# The blocks from the innermost non-procedure one up to the first
# ("uplevel" body line N) are the test's own code; their line numbers add
# up (each counted from its enclosing command's line, exact when bodies
# open on their command's line) starting at the line of `test`.
proc ::test::describe_error {trace test_location} {
    set blocks {}
    set cmd {}
    foreach line [lrange [split $trace \n] 1 end] {
        if {[regexp {^\s*(invoked from within|while executing)$} $line]} {
            set cmd {}
        } elseif {[regexp {^\s*\((.*) line (\d+)\)$} $line -> context n]} {
            lappend blocks [list [join $cmd \n] $context $n]
            set cmd {}
        } else {
            lappend cmd $line
        }
    }
    set top -1
    for {set i 0} {$i < [llength $blocks]} {incr i} {
        if {[string match {"uplevel" body} [lindex $blocks $i 1]]} {
            set top $i
            break
        }
    }
    if {$top < 0} {return [trim_trace $trace]}
    set first $top
    while {$first > 0 && ![string match {procedure *} [lindex $blocks $first-1 1]] &&
            ![string match {file *} [lindex $blocks $first-1 1]]} {
        incr first -1
    }
    set out "while running: [lindex $blocks $first 0]"
    if {[regexp {^(.*):(\d+)$} $test_location -> file line]} {
        for {set i $first} {$i <= $top} {incr i} {
            incr line [expr {[lindex $blocks $i 2] - 1}]
        }
        append out "\n(at $file:$line)"
    }
    return $out
}

# tags {list} {body}: runs body with extra tags on the stack.
proc tags {tags code} {
    lappend ::test::tags $tags
    set rc [catch {uplevel 1 $code} result opts]
    set ::test::tags [lrange $::test::tags 0 end-1]
    return -options $opts $result
}

# test name body ?expected? ?tags?: runs body in the caller's scope and
# reports.  expected, when given and not empty, must equal (or glob-match)
# the body's result; tags apply to this test only.
# Reports a test as skipped, with the reason (a machine without what the test needs, or a
# known difference the file names), so the skip shows in the run's output and its count.
proc skip_test {name why} {
    incr ::test::skipped
    ::test::emit "\[skip\]: $name ($why)"
}

proc test {name code {expected __no_expectation__} {tags {}}} {
    set why [::test::skip_reason [concat [::test::current_tags] $tags]]
    if {$why ne ""} {
        incr ::test::skipped
        ::test::emit "\[skip\]: $name"
        if {$::test::verbose} {::test::emit "    ($why)"}
        return
    }
    if {[llength $::test::only]} {
        set hit 0
        foreach p $::test::only {
            if {[string match $p $name]} {set hit 1}
        }
        if {!$hit} {
            incr ::test::skipped
            return
        }
    }
    if {$::test::verbose} {::test::emit "\[test\]: $name"}
    set ::test::current_test $name
    set test_location [::test::caller_location]
    set start [clock milliseconds]
    set rc [catch {uplevel 1 $code} result opts]
    set ms [expr {[clock milliseconds] - $start}]
    set ::test::current_test ""
    set problem ""
    if {$rc == 1} {
        if {[dict get $opts -errorcode] eq "ASSERTION"} {
            set problem $result
        } else {
            set problem "Exception: $result\n[::test::describe_error \
                [dict get $opts -errorinfo] $test_location]"
        }
    } elseif {$expected ni {__no_expectation__ ""} && $result ne $expected &&
              ![string match $expected $result]} {
        set problem "Expected '[::test::shorten $expected]' but the test returned\
                     '[::test::shorten $result]'"
    }
    if {$problem eq ""} {
        incr ::test::passed
        ::test::emit "\[ok\]: $name ($ms ms)"
        return
    }
    incr ::test::failed
    ::test::emit "\[err\]: $name"
    foreach line [split $problem \n] {
        ::test::emit "    $line"
    }
    ::test::emit "    in $::test::current_file"
    foreach hook $::test::failure_hooks {
        if {[catch {uplevel #0 $hook} text]} {set text "(failure hook $hook: $text)"}
        foreach line [split $text \n] {
            if {$line ne ""} {::test::emit "    $line"}
        }
    }
    ::server::after_test_failure
}
