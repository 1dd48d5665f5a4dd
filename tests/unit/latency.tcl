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
}
