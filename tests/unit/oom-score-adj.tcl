# oom-score-adj: the server writes its own /proc/<pid>/oom_score_adj (and its
# background children's) from oom-score-adj-values, relative to the value it
# started with or absolute, and gives the starting value back when turned off.

proc oom_score_of {pid} {
    set f [open /proc/$pid/oom_score_adj r]
    set v [string trim [read $f]]
    close $f
    return $v
}

# The first child process of `pid`, or "" (read from /proc, Linux only).
proc first_child_of {pid} {
    if {[catch {open /proc/$pid/task/$pid/children r} f]} {return ""}
    set failed [catch {read $f} kids]
    catch {close $f}
    if {$failed} {return ""}
    return [lindex [string trim $kids] 0]
}

if {![file exists /proc/self/oom_score_adj]} {
    puts "oom-score-adj: no /proc/self/oom_score_adj here, tests skipped"
    return
}

start_server {tags {oom-score-adj external:skip}} {
    set pid [srv 0 pid]
    set base [oom_score_of $pid]

    test {oom-score-adj no leaves the process's value alone} {
        assert_equal no [lindex [r config get oom-score-adj] 1]
        assert_equal {0 200 800} [lindex [r config get oom-score-adj-values] 1]
        r config set oom-score-adj-values "7 8 9"
        assert_equal $base [oom_score_of $pid]
    }

    test {oom-score-adj relative adds the master's value to the starting one} {
        r config set oom-score-adj-values "10 20 30"
        r config set oom-score-adj relative
        assert_equal [expr {$base + 10}] [oom_score_of $pid]
        # A new set of values applies at once.
        r config set oom-score-adj-values "25 20 30"
        assert_equal [expr {$base + 25}] [oom_score_of $pid]
        # yes is relative.
        r config set oom-score-adj yes
        assert_equal [expr {$base + 25}] [oom_score_of $pid]
    }

    test {oom-score-adj absolute uses the value itself, clamped to 1000} {
        r config set oom-score-adj absolute
        assert_equal 25 [oom_score_of $pid]
        r config set oom-score-adj-values "1500 0 0"
        assert_equal 1000 [oom_score_of $pid]
        r config set oom-score-adj relative
        assert_equal 1000 [oom_score_of $pid]
    }

    test {oom-score-adj no gives the starting value back} {
        r config set oom-score-adj-values "40 20 30"
        r config set oom-score-adj relative
        assert_equal [expr {$base + 40}] [oom_score_of $pid]
        r config set oom-score-adj no
        assert_equal $base [oom_score_of $pid]
    }

    test {A background save's child takes the child value} {
        r config set oom-score-adj-values "10 20 30"
        r config set oom-score-adj relative
        r set somekey someval
        r config set rdb-key-save-delay 1000000
        r bgsave
        set child ""
        wait_for_condition 100 20 {
            [set child [first_child_of $pid]] ne ""
        } else {
            fail "no child process"
        }
        wait_for_condition 100 20 {
            [oom_score_of $child] == $base + 30
        } else {
            fail "child oom_score_adj is [oom_score_of $child], expected [expr {$base + 30}]"
        }
        assert_equal [expr {$base + 10}] [oom_score_of $pid]
        r config set rdb-key-save-delay 0
        catch {exec kill -9 $child}
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 0} else {fail "bgsave still running"}
        r config set oom-score-adj no
    } {} {needs:config}

    test {oom-score-adj-values are checked} {
        assert_error {ERR CONFIG SET failed*} {r config set oom-score-adj-values "1 2"}
        assert_error {ERR CONFIG SET failed*} {r config set oom-score-adj-values "1 2 3000"}
        assert_error {ERR CONFIG SET failed*} {r config set oom-score-adj-values "a b c"}
        assert_error {ERR CONFIG SET failed*} {r config set oom-score-adj maybe}
    }
}

start_server {tags {oom-score-adj external:skip}} {
    set master_port [srv 0 port]
    start_server {} {
        set pid [srv 0 pid]
        set base [oom_score_of $pid]

        test {A replica takes the replica value, a master the master value} {
            r config set oom-score-adj-values "10 20 30"
            r config set oom-score-adj relative
            assert_equal [expr {$base + 10}] [oom_score_of $pid]
            r replicaof 127.0.0.1 $master_port
            assert_equal [expr {$base + 20}] [oom_score_of $pid]
            r replicaof no one
            assert_equal [expr {$base + 10}] [oom_score_of $pid]
            r config set oom-score-adj no
            assert_equal $base [oom_score_of $pid]
        } {} {needs:config}
    }
}
