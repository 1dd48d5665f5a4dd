# Saving the RDB file in a forked child, and what the server reports and refuses around it:
# BGSAVE's snapshot is the data at fork time (writes keep being served meanwhile), INFO
# persistence while a child runs and after it, save points, stop-writes-on-bgsave-error and its
# MISCONF refusal, FLUSHALL's save, rdbchecksum/rdbcompression at save time.
#
# A save is kept running with rdb-key-save-delay (microseconds slept per key in the child), and
# made to fail by turning dump.rdb into a non-empty directory (the final rename fails, even for
# root). Nothing waits for a fixed time: asynchronous effects are polled with
# wait_for_condition. Every test passes against Debian's redis-server 7.0.

proc wait_for_bgsave_end {{level 0}} {
    wait_for_condition 200 50 {[s $level rdb_bgsave_in_progress] == 0} else {
        fail "the BGSAVE did not end"
    }
}

# Makes every save fail (dump.rdb becomes a directory the rename cannot replace), or undoes it.
proc break_rdb_file {} {
    set path [server_path 0 dump.rdb]
    file delete -force $path
    file mkdir [file join $path blocker]
}
proc mend_rdb_file {} {
    file delete -force [server_path 0 dump.rdb]
}

proc temp_files {} {
    return [glob -nocomplain -directory [server_path 0] temp-*.rdb]
}

start_server {tags {persistence} overrides {save {}}} {
    test {INFO persistence has Redis 7.0's fields in its order} {
        set names {}
        foreach line [split [r info persistence] "\n"] {
            set line [string trim $line]
            if {$line eq "" || [string index $line 0] eq "#"} continue
            lappend names [lindex [split $line :] 0]
        }
        set rdb_part [lrange $names 0 [expr {[lsearch $names aof_enabled] - 1}]]
        assert_equal [list {*}{loading async_loading current_cow_peak current_cow_size
            current_cow_size_age current_fork_perc current_save_keys_processed
            current_save_keys_total rdb_changes_since_last_save rdb_bgsave_in_progress
            rdb_last_save_time rdb_last_bgsave_status rdb_last_bgsave_time_sec
            rdb_current_bgsave_time_sec rdb_saves rdb_last_cow_size rdb_last_load_keys_expired
            rdb_last_load_keys_loaded}] $rdb_part
    }

    test {The changes counter counts writes and SAVE resets it; SAVE counts in rdb_saves} {
        r flushall
        r save
        assert_equal 0 [s rdb_changes_since_last_save]
        r set a 1
        r set b 2
        r del a
        assert_equal 3 [s rdb_changes_since_last_save]
        set saves [s rdb_saves]
        set before [r lastsave]
        r save
        assert_equal 0 [s rdb_changes_since_last_save]
        assert_equal [expr {$saves + 1}] [s rdb_saves]
        assert_morethan_equal [r lastsave] $before
        assert_equal [r lastsave] [s rdb_last_save_time]
    }

    test {BGSAVE in progress: INFO reports the child, a second BGSAVE and SAVE are refused} {
        r flushall
        populate 2100 key: 3
        set forks [s total_forks]
        set saves [s rdb_saves]
        r config set rdb-key-save-delay 1000
        assert_equal {Background saving started} [r bgsave]
        assert_equal 1 [s rdb_bgsave_in_progress]
        assert_equal 2100 [s current_save_keys_total]
        assert_equal [expr {$forks + 1}] [s total_forks]
        assert_equal [expr {$saves + 1}] [s rdb_saves]
        assert_morethan_equal [s rdb_current_bgsave_time_sec] 0
        assert_match {*.??} [s current_fork_perc]
        assert_error {ERR Background save already in progress} {r bgsave}
        assert_error {ERR Background save already in progress} {r save}
        # The child reports its progress on the info pipe.
        wait_for_condition 200 50 {[s current_save_keys_processed] > 0} else {
            fail "no progress reported by the child"
        }
        r config set rdb-key-save-delay 0
        wait_for_bgsave_end
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal -1 [s rdb_current_bgsave_time_sec]
        assert_morethan_equal [s rdb_last_bgsave_time_sec] 0
        assert_equal 0 [s current_save_keys_total]
        assert_equal 0 [s current_save_keys_processed]
        assert_equal 0 [s rdb_changes_since_last_save]
        assert_equal 0 [llength [temp_files]]
        wait_for_log_message {*Background saving terminated with success*}
        assert_morethan_equal [count_log_message {*Fork CoW for RDB: current * MB, peak * MB, average * MB*}] 1
    }

    test {BGSAVE saves the data of the fork moment while the parent keeps serving writes} {
        r flushall
        populate 200 key: 10
        r set counter 0
        set digest [r debug digest]
        r config set rdb-key-save-delay 5000
        r bgsave
        # Writes served while the child writes: none of them may reach the file.
        for {set i 0} {$i < 100} {incr i} {
            r incr counter
            r set new:$i $i
            r del key:$i
        }
        assert_equal 1 [s rdb_bgsave_in_progress]
        r config set rdb-key-save-delay 0
        wait_for_bgsave_end
        assert_equal ok [s rdb_last_bgsave_status]
        # The changes made while the child wrote are still to be saved.
        assert_equal 300 [s rdb_changes_since_last_save]
        restart_server 0 kill
        assert_equal $digest [r debug digest]
        assert_equal 0 [r get counter]
    }
}

start_server {tags {persistence} overrides {save {3600 1}}} {
    test {A failed BGSAVE turns on MISCONF for writes and PING, reads still work} {
        r set k v
        r function load {#!lua name=misconf
            redis.register_function('writer', function() return 4 end)
            redis.register_function{function_name='reader', callback=function() return 5 end,
                flags={'no-writes'}}
        }
        break_rdb_file
        r bgsave
        wait_for_bgsave_end
        assert_equal err [s rdb_last_bgsave_status]
        assert_equal 0 [llength [temp_files]]
        assert_error {MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.} {r set k v2}
        assert_error {MISCONF *} {r ping}
        assert_error {MISCONF *} {r del k}
        assert_equal v [r get k]
        assert_equal 1 [r exists k]
        wait_for_log_message {*Background saving error*}
    }

    test {MISCONF inside MULTI fails the transaction} {
        r multi
        assert_error {MISCONF *} {r set k v3}
        assert_equal QUEUED [r get k]
        assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
        assert_equal v [r get k]
    }

    test {MISCONF in scripts: writes inside are refused, flagged writing scripts are refused whole} {
        assert_equal 1 [r eval {return 1} 0]
        assert_error {MISCONF *} {r eval {return redis.call('set', KEYS[1], 'x')} 1 k}
        assert_match {MISCONF *} [r eval {return redis.pcall('set', KEYS[1], 'x')['err']} 1 k]
        assert_error {MISCONF *} {r eval "#!lua\nreturn 1" 0}
        assert_equal 2 [r eval "#!lua flags=no-writes\nreturn 2" 0]
        assert_equal 3 [r eval_ro {return 3} 0]
        assert_error {MISCONF *} {r fcall writer 0}
        assert_equal 5 [r fcall reader 0]
        assert_equal v [r get k]
    }

    test {A failed SAVE neither sets nor clears the error status} {
        assert_error {ERR*} {r save}
        assert_equal err [s rdb_last_bgsave_status]
    }

    test {stop-writes-on-bgsave-error no lets writes through, yes refuses them again} {
        r config set stop-writes-on-bgsave-error no
        assert_equal OK [r set k v4]
        assert_equal PONG [r ping]
        r config set stop-writes-on-bgsave-error yes
        assert_error {MISCONF *} {r set k v5}
    }

    test {Without save points a failed BGSAVE refuses nothing} {
        r config set save ""
        assert_equal OK [r set k v6]
        r config set save "3600 1"
        assert_error {MISCONF *} {r set k v7}
    }

    test {A successful save clears MISCONF} {
        mend_rdb_file
        r bgsave
        wait_for_bgsave_end
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal OK [r set k v8]
        assert_equal PONG [r ping]
    }

    test {A BGSAVE child killed by a signal is an error, and its temp file is removed} {
        populate 300 key: 3
        set cow [s rdb_last_cow_size]
        r config set rdb-key-save-delay 10000
        r bgsave
        wait_for_condition 100 50 {[server_child_pid] ne "" && [llength [temp_files]] == 1} else {
            fail "no child with a temp file"
        }
        exec kill -9 [server_child_pid]
        wait_for_bgsave_end
        r config set rdb-key-save-delay 0
        assert_equal err [s rdb_last_bgsave_status]
        # Only a child that finishes reports its copy-on-write size.
        assert_equal $cow [s rdb_last_cow_size]
        wait_for_condition 100 50 {[llength [temp_files]] == 0} else {
            fail "the killed child's temp file is still there"
        }
        wait_for_log_message {*Background saving terminated by signal 9*}
        assert_error {MISCONF *} {r set k v9}
        r save
        assert_equal OK [r set k v10]
    }
}

start_server {tags {persistence} overrides {save {3600 1}}} {
    test {FLUSHALL kills a running BGSAVE and saves the empty dataset at once} {
        populate 300 key: 3
        r config set rdb-key-save-delay 10000
        r bgsave
        assert_equal 1 [s rdb_bgsave_in_progress]
        set saves [s rdb_saves]
        r flushall
        wait_for_bgsave_end
        r config set rdb-key-save-delay 0
        # Killed on purpose (SIGUSR1): not an error; FLUSHALL's own save does not count.
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal 0 [s rdb_changes_since_last_save]
        assert_equal $saves [s rdb_saves]
        wait_for_condition 100 50 {[llength [temp_files]] == 0} else {
            fail "the killed child's temp file is still there"
        }
        r set after 1
        restart_server 0 kill
        assert_equal 0 [r dbsize]
    }

    test {Without save points FLUSHALL saves nothing; each key it removes is a change} {
        r config set save ""
        r set a 1
        r save
        r set b 2
        r flushall
        assert_equal 3 [s rdb_changes_since_last_save]
        r flushall
        assert_equal 3 [s rdb_changes_since_last_save]
        r set c 1
        r flushdb
        assert_equal 5 [s rdb_changes_since_last_save]
        restart_server 0 kill
        assert_equal 1 [r get a]
        assert_equal 0 [r exists b]
    }
}

start_server {tags {persistence} overrides {save {}}} {
    test {A save point reached starts a BGSAVE} {
        r set k v
        r config set save "1 1"
        wait_for_condition 100 100 {[s rdb_changes_since_last_save] == 0} else {
            fail "the save point did not save"
        }
        wait_for_log_message {*1 changes in 1 seconds. Saving...*}
        wait_for_bgsave_end
        r config set save ""
        restart_server 0 kill
        assert_equal v [r get k]
    }

    test {A save point not reached saves nothing} {
        r config set save "3600 1000"
        r set k v2
        assert_equal 1 [s rdb_changes_since_last_save]
        assert_equal 0 [s rdb_bgsave_in_progress]
        r config set save ""
    }

    test {rdbcompression decides whether long compressible strings are stored as they are} {
        r flushall
        set value [string repeat abcdefgh 100]
        r set k $value
        foreach {setting plain} {no 1 yes 0} {
            r config set rdbcompression $setting
            r save
            set f [open [server_path 0 dump.rdb] rb]
            set data [read $f]
            close $f
            assert_equal $plain [expr {[string first $value $data] >= 0}]
        }
        r config set rdbcompression yes
    }
}

# rdbchecksum cannot be changed at runtime (Redis 7.0): one server per setting.
foreach {setting zero} {no 1 yes 0} {
    start_server [list tags {persistence} overrides [list save {} rdbchecksum $setting]] {
        test "rdbchecksum $setting: the file's checksum trailer is [expr {$zero ? {zero} : {set}}]" {
            r set k v
            r save
            set f [open [server_path 0 dump.rdb] rb]
            set data [read $f]
            close $f
            set tail [string range $data end-7 end]
            assert_equal $zero [expr {$tail eq [string repeat \x00 8]}]
            restart_server 0 kill
            assert_equal v [r get k]
        }
    }
}
