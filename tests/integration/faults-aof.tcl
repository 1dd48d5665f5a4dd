# The append-only file under disk and fork faults, as Redis 7.0 handles them: a write error
# and a short write on the incr file (everysec: writes refused with MISCONF until the buffer is
# written; always: the server exits), a failing background fsync, a hung one
# (aof_delayed_fsync), the rewrite child failing to write, fsync or rename its base, the parent
# failing to rename it or to write the manifest, a failing fork, a rewrite child killed with
# SIGKILL. For each: replies, log lines, INFO fields, refusals, recovery, and that nothing
# acknowledged is lost (a restart reads it all back from the AOF). The faults come from
# tests/support/faultinject.c; every test passes against Debian's redis-server 7.0.15 too, but
# the one tagged redistp, where Redis 7.0 replays a record twice.
source tests/support/faults.tcl

proc aof_dir {} {return [file join [srv dir] appendonlydir]}

proc manifest_text {} {
    set f [open [file join [aof_dir] appendonly.aof.manifest] r]
    set text [read $f]
    close $f
    return $text
}

proc incr_files {} {
    return [lsort [glob -nocomplain -tails -directory [aof_dir] *.incr.aof]]
}

proc temp_rewrite_files {} {
    return [glob -nocomplain -tails -directory [srv dir] temp-rewriteaof-*]
}

set aof_tags {persistence faults external:skip}

start_server [list tags $aof_tags overrides {appendonly yes appendfsync everysec} \
        env [faults_env]] {
    test {An AOF write error: the acknowledged write waits, MISCONF, logged once, then recovery} {
        r set before 1
        fault_set {write *.incr.aof EIO}
        # The reply is sent although its record could not be written (everysec promises no
        # more); the record stays in the buffer and is written once the disk works again.
        assert_equal OK [r set held 1]
        # The write is tried before the reply goes out, unless a background fsync of the
        # previous record still runs (a slow machine): then it is postponed, as in Redis, and
        # fails at the next try.
        wait_for_condition 100 50 {[s aof_last_write_status] eq "err"} else {
            fail "the AOF write did not fail"
        }
        assert_morethan [s aof_buffer_length] 0
        # INFO memory counts the held bytes.
        assert_morethan_equal [s mem_aof_buffer] [s aof_buffer_length]
        assert_error {MISCONF Errors writing to the AOF file: Input/output error} {r set refused 1}
        assert_error {MISCONF Errors writing to the AOF file: Input/output error} {r ping}
        assert_error {MISCONF Errors writing to the AOF file: Input/output error*} {
            r eval {return redis.call('incr','refused')} 0
        }
        assert_equal 1 [r get held]
        # The write is retried every loop turn and every cron tick, but logged only once (Redis
        # logs a failing AOF write at most every 30 seconds).
        wait_for_condition 100 50 {[fault_log_count write] >= 10} else {fail "no retries"}
        assert_equal 1 [count_log_message {*M * # Error writing to the AOF file: Input/output error*}]
        fault_clear
        wait_for_condition 100 50 {[s aof_last_write_status] eq "ok"} else {fail "no recovery"}
        wait_for_log_message {*M * # AOF write error looks solved, Redis can write again.*}
        assert_equal 0 [s aof_buffer_length]
        assert_equal OK [r set after 1]
        # A burst's buffer is not kept once it is written (it was, up to 4 MB).
        set rd [redis_deferring_client]
        for {set i 0} {$i < 2000} {incr i} {$rd set burst:$i [string repeat b 100]}
        for {set i 0} {$i < 2000} {incr i} {$rd read}
        $rd close
        assert_lessthan [s mem_aof_buffer] 4000
        restart_server
        assert_equal {1 1 1 0} [list [r get before] [r get held] [r get after] [r exists refused]]
    }
}

start_server [list tags $aof_tags overrides {appendonly yes appendfsync everysec} \
        env [faults_env]] {
    test {A short AOF write: logged with both sizes, cut back to the last record, then recovery} {
        r set before 1
        set incr [file join [aof_dir] [lindex [incr_files] end]]
        set size [file size $incr]
        fault_set {write *.incr.aof short:ENOSPC}
        assert_equal OK [r set held [string repeat x 100]]
        wait_for_log_message {*M * # Short write while writing to the AOF file: (nwritten=*, expected=*)*}
        set line [lindex [split [exec grep {Short write while writing} [srv stdout]] \n] 0]
        regexp {nwritten=(\d+), expected=(\d+)} $line -> written expected
        assert_equal [expr {$expected / 2}] $written
        # The half record was taken back: the file ends where it ended before.
        assert_equal $size [file size $incr]
        assert_error {MISCONF Errors writing to the AOF file: No space left on device} {r set x 1}
        fault_clear
        wait_for_condition 100 50 {[s aof_last_write_status] eq "ok"} else {fail "no recovery"}
        restart_server
        assert_equal [string repeat x 100] [r get held]
    }
}

start_server [list tags $aof_tags overrides {appendonly yes appendfsync everysec} \
        env [faults_env]] {
    test {A failed background fsync refuses writes until a later fsync succeeds} {
        r debug set-active-expire 0
        r set soon 1 px 1
        fault_set {fsync *.incr.aof EIO}
        assert_equal OK [r set written 1]
        wait_for_condition 100 50 {[s aof_last_write_status] eq "err"} else {
            fail "the fsync error was not noticed"
        }
        wait_for_log_message {*M * # Fail to fsync the AOF file: Input/output error*}
        assert_error {MISCONF Errors writing to the AOF file: Input/output error} {r set refused 1}
        assert_equal 0 [s aof_buffer_length]
        fault_clear
        # Writes stay refused until something reaches the file and is fsynced: here the DEL of
        # a key expiring when it is read (reads are served).
        assert_equal {} [r get soon]
        wait_for_condition 100 50 {[s aof_last_write_status] eq "ok"} else {
            fail "the refusal was not lifted"
        }
        assert_equal OK [r set accepted 1]
        assert_equal 1 [count_log_message {*Fail to fsync the AOF file*}]
        r debug set-active-expire 1
    }

    test {CONFIG SET appendonly no lifts a background fsync refusal, appendonly yes forgets it} {
        fault_set {fsync *.incr.aof EIO}
        r set written2 1
        wait_for_condition 100 50 {[s aof_last_write_status] eq "err"} else {
            fail "the fsync error was not noticed"
        }
        assert_error {MISCONF*} {r set refused 1}
        fault_clear
        # With the AOF off nothing is refused, though INFO still reports the failure ...
        r config set appendonly no
        assert_equal err [s aof_last_write_status]
        assert_equal OK [r set accepted2 1]
        # ... which switching it on again forgets.
        r config set appendonly yes
        wait_for_log_message {*M * # AOF reopen, just ignore the AOF fsync error in bio job*}
        assert_equal ok [s aof_last_write_status]
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0 && [s aof_enabled] == 1} else {
            fail "the AOF did not come back"
        }
        assert_equal OK [r set accepted3 1]
        restart_server
        assert_equal {1 1 1 1} [r mget written written2 accepted2 accepted3]
    }

    test {A hung fsync: writes go on, delayed past 2 seconds ("taking too long"), aof_delayed_fsync} {
        fault_set {fsync *.incr.aof hang}
        set i 0
        while {$i < 100 && [s aof_delayed_fsync] == 0} {
            r set slow [incr i]
            after 100
        }
        assert_morethan [s aof_delayed_fsync] 0
        wait_for_log_message {*M * \* Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.*}
        assert_equal 1 [s aof_pending_bio_fsync]
        assert_equal ok [s aof_last_write_status]
        fault_clear
        wait_for_condition 100 50 {[s aof_pending_bio_fsync] == 0} else {fail "fsync still hung"}
        restart_server
        assert_equal $i [r get slow]
    }
}

start_server [list tags $aof_tags overrides {appendonly yes appendfsync always} \
        env [faults_env]] {
    test {appendfsync always: an fsync error makes the server exit, and what was acknowledged survives} {
        r set kept 1
        fault_set {fsync *.incr.aof EIO}
        server_expect_exit
        # No reply: the write could not be made durable as promised.
        catch {r set unacknowledged 1} e
        wait_for_condition 100 50 {![is_alive]} else {fail "the server kept running"}
        wait_for_log_message {*M * # Can't persist AOF for fsync error when the AOF fsync policy is 'always': Input/output error. Exiting...*}
        fault_clear
        restart_server
        assert_equal 1 [r get kept]
    }
}

start_server [list tags $aof_tags overrides {appendonly yes appendfsync always} \
        env [faults_env]] {
    test {appendfsync always: a short write makes the server exit, and the file stays loadable} {
        r set kept 1
        fault_set {write *.incr.aof short:ENOSPC}
        server_expect_exit
        catch {r set unacknowledged [string repeat y 100]} e
        wait_for_condition 100 50 {![is_alive]} else {fail "the server kept running"}
        wait_for_log_message {*M * # Short write while writing to the AOF file: (nwritten=*, expected=*)*}
        wait_for_log_message {*M * # Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...*}
        fault_clear
        restart_server
        assert_equal 1 [r get kept]
        assert_equal 0 [r exists unacknowledged]
    }
}

start_server [list tags $aof_tags overrides {appendonly yes aof-disable-auto-gc yes} \
        env [faults_env]] {
    test {A failing fork: BGREWRITEAOF answers ERR after opening the new incr file, as Redis} {
        r set a 1
        fault_set {fork * EAGAIN}
        assert_error {ERR Can't execute an AOF background rewriting. Please check the server logs for more information.} {r bgrewriteaof}
        wait_for_log_message {*M * \* Creating AOF incr file appendonly.aof.2.incr.aof on background rewrite*}
        wait_for_log_message {*M * # Can't rewrite append only file in background: fork: Resource temporarily unavailable*}
        assert_equal 0 [count_log_message {*Can't save in background*}]
        assert_equal err [s aof_last_bgrewrite_status]
        assert_equal {appendonly.aof.1.incr.aof appendonly.aof.2.incr.aof} [incr_files]
        fault_clear
        r set b 2
        restart_server
        assert_equal {1 2} [r mget a b]
    }

    test {A successful rewrite reports its copy-on-write size, in the log and in INFO} {
        r bgrewriteaof
        wait_for_no_child
        assert_equal ok [s aof_last_bgrewrite_status]
        wait_for_log_message {*C * \* Fork CoW for AOF rewrite: current * MB, peak * MB, average * MB*}
        assert {[string is integer -strict [s aof_last_cow_size]]}
    }
}

start_server [list tags $aof_tags overrides {appendonly yes} env [faults_env]] {
    foreach {what rule child_line} {
        {write error} {write *temp-rewriteaof-* EIO}
            {*C * # Write error writing append only file on disk: Input/output error*}
        {fsync error} {fsync *temp-rewriteaof-* EIO}
            {*C * # Write error writing append only file on disk: Input/output error*}
        {rename error} {rename *temp-rewriteaof-bg-* EACCES}
            {*C * # Error moving temp append only file on the final destination: Permission denied*}
    } {
        test "The rewrite child fails with a $what: logged by both processes, status err, data intact" {
            r incr counter
            set before [count_log_message {*Background AOF rewrite terminated with error*}]
            set failures [s aof_rewrites_consecutive_failures]
            fault_set $rule
            assert_equal {Background append only file rewriting started} [r bgrewriteaof]
            wait_for_no_child
            wait_for_log_message $child_line
            wait_for_condition 100 50 {
                [count_log_message {*M * # Background AOF rewrite terminated with error*}] == $before + 1
            } else {
                fail "no error reported"
            }
            assert_equal err [s aof_last_bgrewrite_status]
            assert_equal [expr {$failures + 1}] [s aof_rewrites_consecutive_failures]
            assert_equal {} [temp_rewrite_files]
            fault_clear
            set value [r incr counter]
            restart_server
            assert_equal $value [r get counter]
        }
    }

    test {The parent cannot rename the new base: logged with both names, status err, data intact} {
        fault_set {rename *appendonlydir/appendonly.aof.*.base.rdb EACCES}
        r incr counter
        r bgrewriteaof
        wait_for_no_child
        wait_for_log_message {*M * # Error trying to rename the temporary AOF base file temp-rewriteaof-bg-*.aof into appendonlydir/appendonly.aof.2.base.rdb: Permission denied*}
        assert_equal err [s aof_last_bgrewrite_status]
        assert_equal {} [temp_rewrite_files]
        fault_clear
        set value [r incr counter]
        restart_server
        assert_equal $value [r get counter]
        r bgrewriteaof
        wait_for_no_child
        assert_equal ok [s aof_last_bgrewrite_status]
        assert_equal 0 [s aof_rewrites_consecutive_failures]
    }

    foreach {rule line} {
        {write *temp-appendonly.aof.manifest EIO}
            {*M * # Error trying to write the temporary AOF manifest file temp-appendonly.aof.manifest: Input/output error*}
        {fsync *temp-appendonly.aof.manifest EIO}
            {*M * # Fail to fsync the temp AOF file temp-appendonly.aof.manifest: Input/output error.*}
        {rename *appendonly.aof.manifest EACCES}
            {*M * # Error trying to rename the temporary AOF manifest file temp-appendonly.aof.manifest into appendonly.aof.manifest: Permission denied*}
    } {
        test "The manifest cannot be written ($rule): BGREWRITEAOF answers ERR, the AOF goes on" {
            set manifest [manifest_text]
            fault_set $rule
            assert_error {ERR Can't execute an AOF background rewriting. Please check the server logs for more information.} {r bgrewriteaof}
            wait_for_log_message $line
            fault_clear
            assert_equal $manifest [manifest_text]
            set value [r incr counter]
            restart_server
            assert_equal $value [r get counter]
        }
    }

    test {The AOF directory cannot be fsynced after the manifest: BGREWRITEAOF answers ERR} {
        fault_set {fsync */appendonlydir EIO}
        assert_error {ERR Can't execute an AOF background rewriting. Please check the server logs for more information.} {r bgrewriteaof}
        wait_for_log_message {*M * # Fail to fsync AOF directory appendonlydir/appendonly.aof.manifest: Input/output error.*}
        fault_clear
        set value [r incr counter]
        assert_equal $value [r get counter]
    }
}

start_server [list tags $aof_tags overrides {appendonly yes} env [faults_env]] {
    test {A rewrite child killed with SIGKILL: "terminated by signal 9", status err, data intact} {
        r debug populate 100 slow 10
        r incr counter
        r config set rdb-key-save-delay 100000
        r bgrewriteaof
        wait_for_condition 100 20 {[server_child_pid] ne ""} else {fail "no child"}
        exec kill -9 [server_child_pid]
        wait_for_no_child
        wait_for_log_message {*M * # Background AOF rewrite terminated by signal 9*}
        assert_equal err [s aof_last_bgrewrite_status]
        assert_equal 1 [s aof_rewrites_consecutive_failures]
        assert_equal {} [temp_rewrite_files]
        r config set rdb-key-save-delay 0
        set value [r incr counter]
        restart_server
        assert_equal $value [r get counter]
    }
}

start_server [list tags $aof_tags overrides {appendonly no} env [faults_env]] {
    test {CONFIG SET appendonly yes when fork fails: refused, with every log line Redis writes} {
        r set a 1
        fault_set {fork * EAGAIN}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'appendonly') - Unable to turn on AOF. Check server logs.} {r config set appendonly yes}
        wait_for_log_message {*M * \* Creating AOF incr file temp-appendonly.aof.incr on background rewrite*}
        wait_for_log_message {*M * # Can't rewrite append only file in background: fork: Resource temporarily unavailable*}
        wait_for_log_message {*M * # Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.*}
        wait_for_log_message {*M * # Failed applying new configuration. Possibly related to new appendonly setting. Restoring previous settings.*}
        assert_equal 0 [s aof_enabled]
        assert_equal no [lindex [r config get appendonly] 1]
        fault_clear
        assert_equal OK [r config set appendonly yes]
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0 && [s aof_last_bgrewrite_status] eq "ok"} else {
            fail "the AOF was not created"
        }
    }
}

start_server [list tags $aof_tags overrides {appendonly no} env [faults_env]] {
    test {CONFIG SET appendonly yes whose rewrite child is killed: the temp incr file goes, it tries again} {
        r debug populate 100 slow 10
        r config set rdb-key-save-delay 100000
        assert_equal OK [r config set appendonly yes]
        wait_for_condition 100 20 {[server_child_pid] ne ""} else {fail "no child"}
        # The next try is not to be slow (the running child keeps its own setting).
        r config set rdb-key-save-delay 0
        exec kill -9 [server_child_pid]
        wait_for_log_message {*M * # Background AOF rewrite terminated by signal 9*}
        wait_for_log_message {*M * \* Removing the temp incr aof file temp-appendonly.aof.incr in the background*}
        wait_for_condition 200 50 {[s aof_last_bgrewrite_status] eq "ok" && [s aof_rewrite_in_progress] == 0} else {
            fail "the rewrite was not tried again"
        }
        assert_equal 2 [count_log_message {*Creating AOF incr file temp-appendonly.aof.incr on background rewrite*}]
        r set after 1
        # A restart would read the RDB file (the config file says appendonly no): load the
        # AOF in place instead.
        assert_equal OK [r debug loadaof]
        assert_equal {1 101} [list [r get after] [r dbsize]]
    }
}

start_server [list tags [concat $aof_tags redistp] overrides {appendonly yes} env [faults_env]] {
    # Redis 7.0.15 starts the rewrite at once: the held INCR is in the new base and in the new
    # incr file, and is replayed twice on load (counter 2 after DEBUG LOADAOF).
    test {BGREWRITEAOF while a write error holds records back waits until they are written} {
        fault_set {write *appendonly.aof.1.incr.aof EIO}
        assert_equal 1 [r incr counter]
        assert_equal {Background append only file rewriting scheduled} [r bgrewriteaof]
        assert_equal 1 [s aof_rewrite_scheduled]
        fault_clear
        wait_for_condition 100 50 {[s aof_rewrites] >= 1 && [aof_rewrite_idle]} else {
            fail "the scheduled rewrite did not run"
        }
        assert_equal ok [s aof_last_bgrewrite_status]
        restart_server
        assert_equal 1 [r get counter]
    }
}

faults_cleanup
