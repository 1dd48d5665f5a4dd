# RDB saving under disk and fork faults, as Redis 7.0 handles them: a write error, a short
# write, a failing fsync (of the file and of its directory), a failing rename, a failing fork
# (BGSAVE, BGREWRITEAOF, a save point in cron), a child killed with SIGKILL and one stopped by
# the server. For each: the reply, the log lines (their wording is what operators' alerting
# matches), the INFO fields, the MISCONF refusal of writes, and the recovery once the fault is
# gone. The faults come from tests/support/faultinject.c (LD_PRELOAD), switched on and off
# while the server runs; every test passes against Debian's redis-server 7.0.15 too.
source tests/support/faults.tcl

proc temp_rdb_files {} {
    return [glob -nocomplain -directory [srv dir] temp-*.rdb]
}

proc file_bytes {path} {
    set f [open $path rb]
    set data [read $f]
    close $f
    return $data
}

set misconf_rdb {MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.}

start_server [list tags {persistence faults external:skip} overrides {save {3600 100000}} \
        env [faults_env]] {
    test {BGSAVE whose temp file cannot be written: both processes log it, status err, MISCONF} {
        r set a 1
        r set b 2
        set changes [s rdb_changes_since_last_save]
        fault_set {write *temp-*.rdb EIO}
        assert_equal {Background saving started} [r bgsave]
        wait_for_no_child
        wait_for_log_message {*C * # Write error saving DB on disk(rdbSaveRio): Input/output error*}
        wait_for_log_message {*M * # Background saving error*}
        assert_equal err [s rdb_last_bgsave_status]
        assert_equal $changes [s rdb_changes_since_last_save]
        assert_equal {} [temp_rdb_files]
        # Writes (and PING, as Redis 7.0 answers it on a failing master) are refused; reads
        # and admin commands are served.
        assert_error $misconf_rdb {r set c 3}
        assert_error $misconf_rdb {r ping}
        assert_error "$misconf_rdb script: *" {r eval {return redis.call('set','c','3')} 0}
        assert_equal 1 [r get a]
        assert_equal 1 [r exists b]
    }

    test {The next BGSAVE after the disk heals succeeds and writes are accepted again} {
        fault_clear
        r bgsave
        wait_for_no_child
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal 0 [s rdb_changes_since_last_save]
        assert_equal OK [r set c 3]
        assert_equal PONG [r ping]
    }

    test {SAVE that fails to write: ERR, the log line, the BGSAVE status untouched, the old file kept} {
        set before [file_bytes [file join [srv dir] dump.rdb]]
        set saves [s rdb_saves]
        # The disk fills in the middle of a write: part of it is written, then ENOSPC.
        fault_set {write *temp-*.rdb short:ENOSPC}
        assert_error ERR {r save}
        wait_for_log_message {*M * # Write error saving DB on disk(rdbSaveRio): No space left on device*}
        assert_equal [expr {$saves + 1}] [s rdb_saves]
        # A failed SAVE leaves rdb_last_bgsave_status alone, so writes go on.
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal 1 [s rdb_changes_since_last_save]
        assert_equal OK [r set d 4]
        assert_equal {} [temp_rdb_files]
        assert_equal $before [file_bytes [file join [srv dir] dump.rdb]]
        fault_clear
        assert_equal OK [r save]
        assert_equal 0 [s rdb_changes_since_last_save]
    }

    test {A failing fsync of the RDB file fails SAVE and BGSAVE with the fsync step in the log} {
        fault_set {fsync *temp-*.rdb EIO}
        r set e 5
        assert_error ERR {r save}
        wait_for_log_message {*M * # Write error saving DB on disk(fsync): Input/output error*}
        r bgsave
        wait_for_no_child
        wait_for_log_message {*C * # Write error saving DB on disk(fsync): Input/output error*}
        assert_equal err [s rdb_last_bgsave_status]
        assert_equal {} [temp_rdb_files]
        fault_clear
        r bgsave
        wait_for_no_child
        assert_equal ok [s rdb_last_bgsave_status]
    }

    test {A failing fsync of the directory after the rename fails the save} {
        fault_set [list fsync [file normalize [srv dir]] EIO]
        r set f 6
        assert_error ERR {r save}
        wait_for_log_message {*M * # Write error saving DB on disk(fsyncFileDir): Input/output error*}
        assert_equal 1 [s rdb_changes_since_last_save]
        r bgsave
        wait_for_no_child
        wait_for_log_message {*C * # Write error saving DB on disk(fsyncFileDir): Input/output error*}
        assert_equal err [s rdb_last_bgsave_status]
        fault_clear
        r bgsave
        wait_for_no_child
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal 0 [s rdb_changes_since_last_save]
    }

    test {A rename failing at the end of a save: the log line names both files, the old file stays} {
        set before [file_bytes [file join [srv dir] dump.rdb]]
        fault_set {rename *dump.rdb EACCES}
        r set g 7
        assert_error ERR {r save}
        set dir [file normalize [srv dir]]
        wait_for_log_message "*M * # Error moving temp DB file temp-[srv pid].rdb on the final destination dump.rdb (in server root dir $dir): Permission denied*"
        r bgsave
        wait_for_no_child
        wait_for_log_message "*C * # Error moving temp DB file temp-*.rdb on the final destination dump.rdb (in server root dir $dir): Permission denied*"
        wait_for_log_message {*M * # Background saving error*}
        assert_equal err [s rdb_last_bgsave_status]
        assert_equal {} [temp_rdb_files]
        assert_equal $before [file_bytes [file join [srv dir] dump.rdb]]
        fault_clear
        r bgsave
        wait_for_no_child
        assert_equal ok [s rdb_last_bgsave_status]
    }

    test {A failing fork: BGSAVE and BGREWRITEAOF answer ERR and log it once, in their own words} {
        set forks [s total_forks]
        fault_set {fork * EAGAIN}
        assert_error ERR {r bgsave}
        assert_equal err [s rdb_last_bgsave_status]
        assert_error {ERR Can't execute an AOF background rewriting. Please check the server logs for more information.} {r bgrewriteaof}
        assert_equal err [s aof_last_bgrewrite_status]
        assert_equal $forks [s total_forks]
        assert_equal 1 [count_log_message {*M * # Can't save in background: fork: Resource temporarily unavailable*}]
        assert_equal 1 [count_log_message {*M * # Can't rewrite append only file in background: fork: Resource temporarily unavailable*}]
        assert_error $misconf_rdb {r set h 8}
        fault_clear
        r bgsave
        wait_for_no_child
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal {Background append only file rewriting started} [r bgrewriteaof]
        wait_for_no_child
        assert_equal ok [s aof_last_bgrewrite_status]
        assert_equal OK [r set h 8]
    }

    test {A save point whose fork fails: logged by cron, MISCONF, retried until it succeeds} {
        r save
        fault_set {fork * ENOMEM}
        r config set save {1 1}
        r set i 9
        wait_for_log_message {*M * \* 1 changes in 1 seconds. Saving...*} 100 50
        wait_for_log_message {*M * # Can't save in background: fork: Cannot allocate memory*}
        assert_equal err [s rdb_last_bgsave_status]
        assert_error $misconf_rdb {r set i 10}
        fault_clear
        # Cron tries again 5 seconds after a failed try.
        wait_for_condition 200 100 {[s rdb_last_bgsave_status] eq "ok"} else {
            fail "the save point was not retried"
        }
        r config set save {3600 100000}
        wait_for_no_child
        assert_equal OK [r set i 10]
    }

    test {A BGSAVE child killed with SIGKILL: "terminated by signal 9", status err, no temp file} {
        r debug populate 100 slow 10
        r config set rdb-key-save-delay 100000
        r bgsave
        wait_for_condition 100 20 {[server_child_pid] ne ""} else {fail "no child"}
        exec kill -9 [server_child_pid]
        wait_for_no_child
        wait_for_log_message {*M * # Background saving terminated by signal 9*}
        assert_equal err [s rdb_last_bgsave_status]
        assert_equal {} [temp_rdb_files]
        assert_error $misconf_rdb {r set j 11}
        r config set rdb-key-save-delay 0
        r bgsave
        wait_for_no_child
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal OK [r set j 11]
    }

    test {FLUSHALL stops a running BGSAVE child: it says so, and that is no failure} {
        r debug populate 100 slow 10
        r config set rdb-key-save-delay 100000
        r bgsave
        # The child opens its temporary file after its SIGUSR1 handler is in place.
        wait_for_condition 100 20 {[llength [temp_rdb_files]] > 0} else {fail "no child"}
        r flushall
        r config set rdb-key-save-delay 0
        wait_for_no_child
        wait_for_log_message {*signal-handler (*) Received SIGUSR1 in child, exiting now.*}
        wait_for_log_message {*M * # Background saving terminated by signal 10*}
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal {} [temp_rdb_files]
    }

    test {SHUTDOWN refuses to exit while the final save fails, and exits once it can save} {
        fault_set {write *temp-*.rdb EIO}
        r set k 12
        assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {r shutdown}
        wait_for_log_message {*M * # Error trying to save the DB, can't exit.*}
        assert_equal PONG [r ping]
        fault_clear
        # The block's end stops the server with SIGTERM: the final save now succeeds.
    }
}

faults_cleanup
