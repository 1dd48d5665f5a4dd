# The life cycle of AOF rewrites as Redis 7.0 runs it, checked file by file: what a rewrite
# that fails (its child killed) leaves behind while the AOF is on, off, or being switched on;
# which incr files become history and in what order; when history is deleted; what DEBUG
# LOADAOF reads while a rewrite is pending; the sequence numbers after a reload; and the
# back-off after repeated failures. Each expectation was first observed with Debian's Redis
# 7.0.15 (this file passes against it). Slow children come from rdb-key-save-delay (a
# microsecond delay per key written), so a child is alive when the test kills it; writes the
# tests make in between stand in for a client's write load.

proc rw_manifest {{level 0}} {
    set path [file join [server_path $level appendonlydir] appendonly.aof.manifest]
    if {![file exists $path]} {return {}}
    set fd [open $path r]
    set out {}
    foreach line [split [read $fd] "\n"] {
        if {$line eq ""} continue
        lappend out [list [lindex $line 1] [lindex $line 3] [lindex $line 5]]
    }
    close $fd
    return $out
}

proc rw_dir_has {name {level 0}} {
    return [file exists [file join [server_path $level appendonlydir] $name]]
}

proc rw_kill_child {{level 0}} {
    set pid [server_child_pid $level]
    if {$pid ne ""} {catch {exec kill -9 $pid}}
    return $pid
}

proc rw_wait_idle {{level 0}} {
    wait_for_condition 200 50 {
        [aof_rewrite_idle $level 1]
    } else {
        fail "the server still has a child or a scheduled rewrite"
    }
}

# Waits until a killed rewrite is reaped (no child left).
proc rw_wait_reaped {{level 0}} {
    wait_for_condition 200 50 {
        [s $level aof_rewrite_in_progress] == 0
    } else {
        fail "the killed rewrite was not reaped"
    }
}

# Waits until no child runs and the manifest lists `expected` (a rewrite that failed while
# the AOF is being switched on is retried by the server after a moment, so "no child now" is
# not the end of it).
proc rw_wait_manifest {expected {level 0}} {
    set expected [lrange $expected 0 end]
    wait_for_condition 200 50 {
        [s $level aof_rewrite_in_progress] == 0 && [rw_manifest $level] eq $expected
    } else {
        fail "manifest [rw_manifest $level], expected $expected"
    }
}

proc assert_manifest {expected {level 0}} {
    assert_equal [lrange $expected 0 end] [rw_manifest $level]
}

proc rw_writes {prefix n} {
    for {set i 0} {$i < $n} {incr i} {r set $prefix:$i $i}
}

proc rw_reload_keeps_digest {} {
    set before [r debug digest]
    r debug loadaof
    assert_equal $before [r debug digest]
}

tags {persistence aof external:skip} {
# Issue 20: the first DEBUG LOADAOF wrote "DEBUG LOADAOF" into the incr file, and the next one
# replayed it, which loaded the file again, recursively, until the stack ran out (a SIGSEGV
# under Aof::Load).
start_server {overrides {appendonly no save ""}} {
    test {DEBUG LOADAOF over an AOF made by CONFIG SET appendonly yes, again and again, on and off} {
        rw_writes a 50
        r config set appendonly yes
        rw_wait_manifest {{appendonly.aof.1.base.rdb 1 b} {appendonly.aof.1.incr.aof 1 i}}
        rw_writes b 50
        rw_reload_keeps_digest
        rw_reload_keeps_digest
        r config set appendonly no
        rw_reload_keeps_digest
        assert_equal 49 [r get b:49]
    }
}

start_server {overrides {appendonly no save "" aof-use-rdb-preamble yes}} {
    test {CONFIG SET appendonly yes: a failed first rewrite removes its temporary incr file and no AOF exists yet} {
        rw_writes before 20
        r config set rdb-key-save-delay 1000000
        r config set appendonly yes
        assert_equal 1 [s aof_rewrite_in_progress]
        assert_equal 1 [s aof_enabled]
        assert_equal 1 [count_log_message "*Creating AOF incr file temp-appendonly.aof.incr on background rewrite*"]
        rw_writes during 20
        rw_kill_child
        wait_for_log_message "*Removing the temp incr aof file temp-appendonly.aof.incr in the background*"
        assert_equal {} [rw_manifest]
        assert_equal 0 [rw_dir_has appendonly.aof.1.base.rdb]
        # The next try starts by itself.
        wait_for_condition 100 50 {
            [s aof_rewrite_in_progress] == 1
        } else {
            fail "no second rewrite"
        }
        rw_writes again 20
        r config set rdb-key-save-delay 0
        rw_kill_child
        rw_wait_manifest {{appendonly.aof.1.base.rdb 1 b} {appendonly.aof.1.incr.aof 1 i}}
        assert_equal 2 [count_log_message "*Removing the temp incr aof file*"]
        assert_equal 0 [rw_dir_has temp-appendonly.aof.incr]
        rw_writes after 20
        rw_reload_keeps_digest
        assert_equal 19 [r get after:19]
        assert_equal 19 [r get during:19]
    }

    test {With appendonly no, DEBUG LOADAOF still reads the AOF directory left behind} {
        set digest [r debug digest]
        r config set appendonly no
        r debug loadaof
        assert_equal $digest [r debug digest]
        assert_equal 0 [s rdb_changes_since_last_save]
    }

    test {Enabling the AOF again over an existing manifest: a failed try leaves the manifest as it was} {
        r config set rdb-key-save-delay 1000000
        rw_writes second 20
        r config set appendonly yes
        assert_equal 1 [s aof_rewrite_in_progress]
        rw_kill_child
        wait_for_condition 100 50 {
            [count_log_message "*Removing the temp incr aof file*"] == 3
        } else {
            fail "the temporary incr file was not removed"
        }
        assert_manifest {{appendonly.aof.1.base.rdb 1 b} {appendonly.aof.1.incr.aof 1 i}}
        wait_for_condition 100 50 {
            [s aof_rewrite_in_progress] == 1
        } else {
            fail "no second rewrite"
        }
        r config set rdb-key-save-delay 0
        rw_kill_child
        rw_wait_manifest {{appendonly.aof.2.base.rdb 2 b} {appendonly.aof.2.incr.aof 2 i}}
        assert_equal 4 [count_log_message "*Removing the temp incr aof file*"]
        wait_for_condition 100 50 {
            ![rw_dir_has appendonly.aof.1.base.rdb] && ![rw_dir_has appendonly.aof.1.incr.aof]
        } else {
            fail "the history files were not deleted"
        }
        rw_reload_keeps_digest
    }
}

start_server {overrides {appendonly yes save "" aof-use-rdb-preamble yes auto-aof-rewrite-percentage 0}} {
    test {Each failed BGREWRITEAOF leaves one more incr file; a success makes them all history} {
        rw_writes a 10
        r config set rdb-key-save-delay 1000000
        set pids {}
        for {set i 0} {$i < 3} {incr i} {
            r bgrewriteaof
            rw_writes fail$i 5
            lappend pids [rw_kill_child]
            rw_wait_reaped
        }
        foreach pid $pids {
            assert_equal 0 [file exists [server_path 0 temp-rewriteaof-bg-$pid.aof]]
        }
        assert_manifest {{appendonly.aof.1.base.rdb 1 b} {appendonly.aof.1.incr.aof 1 i}
            {appendonly.aof.2.incr.aof 2 i} {appendonly.aof.3.incr.aof 3 i}
            {appendonly.aof.4.incr.aof 4 i}}
        assert_equal 3 [s aof_rewrites_consecutive_failures]
        rw_reload_keeps_digest
        r config set rdb-key-save-delay 0
        r bgrewriteaof
        rw_wait_idle
        assert_manifest {{appendonly.aof.2.base.rdb 2 b} {appendonly.aof.5.incr.aof 5 i}}
        assert_equal 0 [s aof_rewrites_consecutive_failures]
        wait_for_condition 100 50 {
            ![rw_dir_has appendonly.aof.4.incr.aof] && ![rw_dir_has appendonly.aof.1.base.rdb]
        } else {
            fail "the history files were not deleted"
        }
        rw_reload_keeps_digest
    }

    test {BGREWRITEAOF with the AOF switched off leaves only a base} {
        r config set appendonly no
        r bgrewriteaof
        rw_wait_idle
        assert_manifest {{appendonly.aof.3.base.rdb 3 b}}
        wait_for_condition 100 50 {
            ![rw_dir_has appendonly.aof.5.incr.aof]
        } else {
            fail "the incr file was not deleted"
        }
        rw_reload_keeps_digest
        # Switched on again, the numbering of incr files starts over from the manifest's.
        r config set appendonly yes
        rw_wait_manifest {{appendonly.aof.4.base.rdb 4 b} {appendonly.aof.1.incr.aof 1 i}}
    }

    test {aof-disable-auto-gc yes keeps history, newest first; switched back to no it is deleted at once} {
        r config set aof-disable-auto-gc yes
        r bgrewriteaof
        rw_wait_idle
        r bgrewriteaof
        rw_wait_idle
        assert_manifest {{appendonly.aof.6.base.rdb 6 b} {appendonly.aof.2.incr.aof 2 h}
            {appendonly.aof.5.base.rdb 5 h} {appendonly.aof.1.incr.aof 1 h}
            {appendonly.aof.4.base.rdb 4 h} {appendonly.aof.3.incr.aof 3 i}}
        assert_equal 1 [rw_dir_has appendonly.aof.4.base.rdb]
        assert_equal 1 [rw_dir_has appendonly.aof.1.incr.aof]
        r config set aof-disable-auto-gc no
        assert_manifest {{appendonly.aof.6.base.rdb 6 b} {appendonly.aof.3.incr.aof 3 i}}
        wait_for_condition 100 50 {
            ![rw_dir_has appendonly.aof.4.base.rdb] && ![rw_dir_has appendonly.aof.5.base.rdb] &&
            ![rw_dir_has appendonly.aof.1.incr.aof] && ![rw_dir_has appendonly.aof.2.incr.aof]
        } else {
            fail "the history files were not deleted"
        }
    }

    test {After DEBUG LOADAOF the next rewrite continues the sequence numbers} {
        r debug loadaof
        r bgrewriteaof
        rw_wait_idle
        assert_manifest {{appendonly.aof.7.base.rdb 7 b} {appendonly.aof.4.incr.aof 4 i}}
    }

    test {appendonly yes while a BGSAVE runs: nothing is written until the scheduled rewrite ends} {
        r config set appendonly no
        r config set rdb-key-save-delay 1000000
        r set k1 v1
        r bgsave
        wait_for_condition 100 50 {
            [s rdb_bgsave_in_progress] == 1
        } else {
            fail "no BGSAVE"
        }
        r config set appendonly yes
        assert_equal 1 [s aof_rewrite_scheduled]
        assert_manifest {{appendonly.aof.7.base.rdb 7 b} {appendonly.aof.4.incr.aof 4 i}}
        r set k2 v2
        # The AOF on disk is still the old one, which has neither key.
        r debug loadaof
        assert_equal 0 [r exists k1]
        assert_equal 0 [r exists k2]
        assert_equal 1 [s rdb_bgsave_in_progress]
        set forks [s total_forks]
        r config set rdb-key-save-delay 0
        rw_kill_child
        wait_for_condition 100 50 {
            [s total_forks] == $forks + 1
        } else {
            fail "the scheduled rewrite did not start"
        }
        rw_wait_manifest {{appendonly.aof.8.base.rdb 8 b} {appendonly.aof.5.incr.aof 5 i}}
        r set k3 v3
        r debug loadaof
        assert_equal v3 [r get k3]
    }

    test {Three failed rewrites in a row hold automatic rewrites back, not BGREWRITEAOF} {
        r flushall
        r bgrewriteaof
        rw_wait_idle
        r config set rdb-key-save-delay 1000000
        r config set auto-aof-rewrite-percentage 1
        r config set auto-aof-rewrite-min-size 1kb
        r set k v
        for {set i 0} {$i < 3} {incr i} {
            r bgrewriteaof
            rw_kill_child
            rw_wait_reaped
        }
        assert_manifest {{appendonly.aof.9.base.rdb 9 b} {appendonly.aof.6.incr.aof 6 i}
            {appendonly.aof.7.incr.aof 7 i} {appendonly.aof.8.incr.aof 8 i}
            {appendonly.aof.9.incr.aof 9 i}}
        # Enough growth for an automatic rewrite: the limit holds it back, with one log line.
        r set x [string repeat x 1024]
        wait_for_log_message "*Background AOF rewrite has repeatedly failed and triggered the limit, will retry in 1 minutes*"
        assert_equal 0 [s aof_rewrite_in_progress]
        assert_manifest {{appendonly.aof.9.base.rdb 9 b} {appendonly.aof.6.incr.aof 6 i}
            {appendonly.aof.7.incr.aof 7 i} {appendonly.aof.8.incr.aof 8 i}
            {appendonly.aof.9.incr.aof 9 i}}
        r config set auto-aof-rewrite-percentage 0
        r config set rdb-key-save-delay 0
        r bgrewriteaof
        rw_wait_idle
        assert_manifest {{appendonly.aof.10.base.rdb 10 b} {appendonly.aof.10.incr.aof 10 i}}
        assert_equal 1 [count_log_message "*triggered the limit*"]
        rw_reload_keeps_digest
    }
}
}

tags {persistence aof external:skip} {
start_server {overrides {appendonly no save ""}} {
    test {SHUTDOWN during the first rewrite of appendonly yes is refused unless FORCE} {
        r set k v
        r config set rdb-key-save-delay 1000000
        r config set appendonly yes
        assert_equal 1 [s aof_rewrite_in_progress]
        assert_error {ERR Errors trying to SHUTDOWN*} {r shutdown nosave}
        assert_equal 1 [count_log_message "*Writing initial AOF, can't exit.*"]
        assert_equal v [r get k]
        catch {r shutdown nosave force} e
        assert_match {*I/O error*} $e
        wait_for_condition 100 50 {![is_alive]} else {
            fail "the server is still running after SHUTDOWN FORCE"
        }
        assert_equal 1 [count_log_message "*Writing initial AOF. Exit anyway.*"]
    }
}
}
