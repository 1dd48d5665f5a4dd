# LATENCY: LATEST, HISTORY, RESET, DOCTOR, HELP, what the command events
# record, and the container's errors.

start_server {tags {latency}} {
    test {Without samples LATEST and HISTORY are empty and RESET counts 0} {
        r latency reset
        assert_equal {} [r latency latest]
        assert_equal {} [r latency history command]
        assert_equal {} [r latency history no-such-event]
        assert_equal 0 [r latency reset]
        assert_equal 0 [r latency reset command fast-command]
    }

    test {LATENCY DOCTOR says how to turn the monitor on when it is off} {
        r config set latency-monitor-threshold 0
        r latency reset
        set text [r latency doctor]
        assert_match {*latency-monitor-threshold*} $text
    }

    test {Commands under the threshold leave no sample} {
        r config set latency-monitor-threshold 200
        r set k v
        r get k
        assert_equal {} [r latency latest]
    }

    test {A slow command records a "command" sample} {
        r config set latency-monitor-threshold 100
        r latency reset
        set before [clock seconds]
        r debug sleep 0.25
        set latest [r latency latest]
        assert_equal 1 [llength $latest]
        lassign [lindex $latest 0] event time last max
        assert_equal command $event
        assert_range $time [expr {$before - 1}] [expr {[clock seconds] + 1}]
        assert_range $last 200 3000
        assert_equal $last $max

        set history [r latency history command]
        assert_equal 1 [llength $history]
        assert_equal [list $time $last] [lindex $history 0]
        assert_equal {} [r latency history fast-command]
    } {} {needs:debug}

    test {LATEST keeps the worst sample, HISTORY one sample per second} {
        r latency reset
        r debug sleep 0.3
        after 1100
        r debug sleep 0.15
        lassign [lindex [r latency latest] 0] event time last max
        assert_range $last 100 299
        assert_range $max 300 3000
        set history [r latency history command]
        assert_equal 2 [llength $history]
        assert {[lindex $history 0 0] < [lindex $history 1 0]}
        assert_equal $max [lindex $history 0 1]
        assert_equal $last [lindex $history 1 1]
    } {} {needs:debug}

    test {LATENCY DOCTOR reports the recorded events} {
        set text [r latency doctor]
        assert_match {*command*} $text
    } {} {needs:debug}

    test {LATENCY RESET forgets only the named events and counts them} {
        assert_equal 0 [r latency reset no-such-event]
        assert_equal 1 [r latency reset command no-such-event]
        assert_equal {} [r latency latest]
        assert_equal {} [r latency history command]
        r debug sleep 0.15
        assert_equal 1 [llength [r latency latest]]
        assert_equal 1 [r latency reset]
        assert_equal {} [r latency latest]
        r config set latency-monitor-threshold 0
    } {} {needs:debug}

    test {LATENCY HELP} {
        set help [r latency help]
        assert_match {LATENCY <subcommand>*} [lindex $help 0]
        foreach sub {LATEST HISTORY RESET DOCTOR HELP} {assert_match "*$sub*" $help}
    }

    test {LATENCY errors} {
        assert_error {ERR wrong number of arguments for 'latency' command} {r latency}
        assert_error {ERR unknown subcommand 'nosuch'. Try LATENCY HELP.} {r latency nosuch}
        assert_error {ERR wrong number of arguments for 'latency|history' command} {
            r latency history
        }
        assert_error {ERR wrong number of arguments for 'latency|history' command} {
            r latency history a b
        }
        assert_error {ERR wrong number of arguments for 'latency|latest' command} {
            r latency latest x
        }
        assert_error {ERR wrong number of arguments for 'latency|doctor' command} {
            r latency doctor x
        }
    }

    test {LATENCY GRAPH draws one sample as the lowest bar, with its age below} {
        r config set latency-monitor-threshold 10
        r latency reset
        r debug sleep 0.03
        set lines [split [r latency graph command] "\n"]
        set ms [lindex [r latency latest] 0 2]
        assert_equal "command - high $ms ms, low $ms ms (all time high $ms ms)" [lindex $lines 0]
        assert_equal [string repeat - 80] [lindex $lines 1]
        # Four rows of bar (only the bottom one marked), a spacer, then the age ("0s" ...)
        # written downwards, and the final newline.
        assert_equal [list { } { } { } _ { }] [lrange $lines 2 6]
        assert_match {[0-9]} [lindex $lines 7]
        assert_equal [list s {}] [lrange $lines 8 end]
    } {} {needs:debug}

    test {LATENCY GRAPH scales the bars between the lowest and the highest sample} {
        r config set latency-monitor-threshold 10
        r latency reset
        r debug sleep 0.02
        # The next sample must fall in another second to be a sample of its own.
        set first [clock seconds]
        wait_for_condition 100 20 {[clock seconds] > $first} else {fail "the clock stood still"}
        r debug sleep 0.08
        set history [r latency history command]
        assert_equal 2 [llength $history]
        set lo [lindex $history 0 1]
        set hi [lindex $history 1 1]
        set lines [split [r latency graph command] "\n"]
        assert_equal "command - high $hi ms, low $lo ms (all time high $hi ms)" [lindex $lines 0]
        assert_equal [list { #} { |} { |} _| {  }] [lrange $lines 2 6]
        # Each column's age reads downwards, the older first.
        set ages [lrange $lines 7 end-1]
        set older {}
        set newer {}
        foreach line $ages {
            append older [string index $line 0]
            append newer [string index $line 1]
        }
        assert_match {[0-9]*s} [string trim $older]
        assert_match {[0-9]*s} [string trim $newer]
    } {} {needs:debug}

    test {LATENCY GRAPH of an event without samples, and its arity} {
        r latency reset
        assert_error {ERR No samples available for event 'no-such-event'} {
            r latency graph no-such-event
        }
        assert_error {ERR wrong number of arguments for 'latency|graph' command} {r latency graph}
        assert_error {ERR wrong number of arguments for 'latency|graph' command} {
            r latency graph command fast-command
        }
    }
}

# LATENCY HISTOGRAM and INFO latencystats: per-command latency distributions,
# recorded while latency-tracking is on (the default) and emptied by CONFIG
# RESETSTAT.

# The histogram of one command as a dict: calls, histogram_usec (a flat list of
# bucket/count pairs), or {} when the command has none.
proc command_histogram {cmd} {
    set reply [r latency histogram $cmd]
    if {$reply eq {}} {return {}}
    assert_equal 2 [llength $reply]
    assert_equal $cmd [lindex $reply 0]
    return [lindex $reply 1]
}

# The value of latency_percentiles_usec_<cmd> in INFO latencystats, or "" when
# the line is absent.
proc latency_percentiles {cmd} {
    set pattern [string map {| \\|} $cmd]
    if {[regexp "\r\nlatency_percentiles_usec_$pattern:(\[^\r\]*)\r" \
             "\r\n[r info latencystats]" -> value]} {
        return $value
    }
    return ""
}

start_server {tags {latency}} {
    test {LATENCY HISTOGRAM of a command: its calls and a cumulative distribution} {
        r config resetstat
        for {set i 0} {$i < 20} {incr i} {r set histkey $i}
        set h [command_histogram set]
        assert_equal {calls histogram_usec} [dict keys $h]
        assert_equal 20 [dict get $h calls]
        # Buckets are the powers of two from 1 microsecond as the histogram
        # resolves them; counts are cumulative, so they grow and end at calls.
        set levels {1 2 4 8 16 33 66 132 264 528 1056 2113 4227 8454 16908 33816
                    67633 135266 270532 541065 1002438}
        set previous 0
        foreach {bucket count} [dict get $h histogram_usec] {
            assert {[lsearch -exact $levels $bucket] >= 0}
            assert {$count > $previous}
            set previous $count
        }
        assert_equal 20 $previous
    }

    test {LATENCY HISTOGRAM is a map of maps in RESP3} {
        r config resetstat
        r set histkey v
        r hello 3
        set reply [r latency histogram set]
        r hello 2
        assert_equal {set} [dict keys $reply]
        assert_equal 1 [dict get $reply set calls]
        # One bucket and its count.
        assert_equal 2 [llength [dict get $reply set histogram_usec]]
    }

    test {LATENCY HISTOGRAM names subcommands, containers and skips unknown names} {
        r config resetstat
        r client id
        r config get maxmemory
        # A name given twice is answered twice (a map with a repeated key).
        set reply [r latency histogram client|id CLIENT|ID no-such-command get set|x]
        assert_equal 4 [llength $reply]
        assert_equal {client|id client|id} [list [lindex $reply 0] [lindex $reply 2]]
        # A container stands for those of its subcommands that were called.
        set reply [r latency histogram config]
        assert_equal {config|get config|resetstat} [lsort [dict keys $reply]]
    }

    test {LATENCY HISTOGRAM without names lists every command called} {
        r config resetstat
        r get histkey
        r ping
        set names [dict keys [r latency histogram]]
        foreach cmd {get ping config|resetstat} {assert {[lsearch -exact $names $cmd] >= 0}}
        assert_equal -1 [lsearch -exact $names set]
    }

    test {CONFIG RESETSTAT empties the histograms} {
        r set histkey v
        r config resetstat
        assert_equal {} [r latency histogram set]
        assert_equal {} [r latency histogram get set]
        assert_equal "" [latency_percentiles set]
    }

    test {INFO latencystats: p50, p99 and p99.9 of each command called} {
        r config resetstat
        r set histkey v
        r client id
        assert_match {p50=*,p99=*,p99.9=*} [latency_percentiles set]
        assert_match {p50=*,p99=*,p99.9=*} [latency_percentiles client|id]
        assert_equal "" [latency_percentiles get]
        foreach kv [split [latency_percentiles set] ,] {
            assert_match {p*=*.???} $kv
        }
    }

    test {INFO latencystats is part of INFO all, not of the default sections} {
        assert_match "*# Latencystats\r\n*" [r info all]
        assert_match "*# Latencystats\r\n*" [r info everything]
        assert_no_match "*# Latencystats*" [r info]
        assert_match "*# Errorstats\r\n*# Latencystats\r\n*# Cluster\r\n*" [r info all]
    }

    test {INFO latencystats follows latency-tracking-info-percentiles} {
        r config resetstat
        r config set latency-tracking-info-percentiles "0 50 99.99 100"
        assert_equal {0 50 99.99 100} \
            [lindex [r config get latency-tracking-info-percentiles] 1]
        r set histkey v
        r set histkey v
        set value [latency_percentiles set]
        assert_match {p0=*,p50=*,p99.99=*,p100=*} $value
        # Percentiles of one distribution never decrease.
        set last 0
        foreach kv [split $value ,] {
            set v [lindex [split $kv =] 1]
            assert {$v >= $last}
            set last $v
        }
        r config set latency-tracking-info-percentiles ""
        assert_equal "" [latency_percentiles set]
        assert_match "*\r\nlatency_percentiles_usec_set:\r\n*" [r info latencystats]
        r config set latency-tracking-info-percentiles "50 99 99.9"
        assert_error {ERR CONFIG SET failed*} {
            r config set latency-tracking-info-percentiles "50 101"
        }
        assert_error {ERR CONFIG SET failed*} {
            r config set latency-tracking-info-percentiles "abc"
        }
    } {} {needs:config}

    test {latency-tracking no stops recording and empties INFO latencystats} {
        r config resetstat
        r set histkey v
        r config set latency-tracking no
        r set histkey v
        r get histkey
        # Recorded distributions stay readable; nothing new is added.
        assert_equal 1 [dict get [command_histogram set] calls]
        assert_equal {} [r latency histogram get]
        assert_equal "# Latencystats\r\n" [r info latencystats]
        r config set latency-tracking yes
        r get histkey
        assert_equal 1 [dict get [command_histogram get] calls]
        assert_match {p50=*} [latency_percentiles get]
    } {} {needs:config}

    test {The latency of a slow command lands in the right bucket} {
        r config resetstat
        r debug sleep 0.05
        set value [latency_percentiles debug]
        regexp {p50=([0-9.]+)} $value -> p50
        # At least the 50 ms it slept; a second is the distribution's ceiling.
        assert {$p50 >= 50000 && $p50 <= 1002439}
        set h [command_histogram debug]
        set buckets [dict get $h histogram_usec]
        assert_equal 2 [llength $buckets]
        assert {[lindex $buckets 0] >= 50000}
    } {} {needs:debug}

    test {A blocking command served later has its latency recorded} {
        r config resetstat
        r del blist
        set rd [redis_deferring_client]
        $rd blpop blist 0
        wait_for_blocked_clients_count 1
        r lpush blist x
        assert_equal {blist x} [$rd read]
        $rd close
        assert_match {p50=*,p99=*,p99.9=*} [latency_percentiles blpop]
        assert_match {p50=*,p99=*,p99.9=*} [latency_percentiles lpush]
    }

    test {LATENCY HISTOGRAM is listed in LATENCY HELP and COMMAND} {
        assert_match {*HISTOGRAM*} [r latency help]
        set info [lindex [r command info latency|histogram] 0]
        assert_equal {latency|histogram -2} [lrange $info 0 1]
        assert_equal {admin noscript loading stale} [lindex $info 2]
    }
}

start_server {tags {latency}} {
    test {A long active expiry cycle is an expire-cycle latency event} {
        r config set latency-monitor-threshold 1
        r latency reset
        r debug set-active-expire 0
        r eval {for i = 1, 100000 do redis.call('set', 'exp:' .. i, 'v', 'px', 1) end} 0
        after 10
        r debug set-active-expire 1
        wait_for_condition 200 50 {[r dbsize] == 0} else {fail "keys did not expire"}
        set events {}
        foreach sample [r latency latest] {lappend events [lindex $sample 0]}
        assert {[lsearch -exact $events expire-cycle] >= 0}
        r config set latency-monitor-threshold 0
    } {} {needs:debug needs:config}
}
