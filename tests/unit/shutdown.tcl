# SHUTDOWN: argument checking, ABORT with nothing to abort, NOSAVE / plain /
# NOW / FORCE exits, and the final save: SAVE (or save points without NOSAVE)
# writes dump.rdb before exiting; when it cannot be written the server refuses
# and keeps serving (a SIGTERM too), unless FORCE. A BGSAVE child still running
# is killed and its temporary file removed.  Saves are made to fail by turning
# dump.rdb into a non-empty directory (the final rename fails, even for root).
# Every test that stops the server has a server of its own.

# Waits until the server at level 0 has exited.
proc wait_for_exit {} {
    wait_for_condition 100 50 {![is_alive]} else {
        fail "the server is still running after SHUTDOWN"
    }
}

# Sends SHUTDOWN with args: the connection must end without a reply.
proc shutdown_no_reply {args} {
    catch {r shutdown {*}$args} e
    assert_match {*I/O error*} $e
}

start_server {tags {shutdown external:skip}} {
    test {SHUTDOWN argument errors leave the server running} {
        assert_error {ERR syntax error} {r shutdown bogus}
        assert_error {ERR syntax error} {r shutdown save nosave}
        assert_error {ERR syntax error} {r shutdown nosave save}
        assert_error {ERR syntax error} {r shutdown abort now}
        assert_error {ERR syntax error} {r shutdown force abort}
        assert_error {ERR syntax error} {r shutdown nosave extra}
        assert_equal [r ping] PONG
    }

    test {SHUTDOWN ABORT with no shutdown in progress} {
        assert_error {ERR No shutdown in progress.} {r shutdown abort}
        assert_error {ERR No shutdown in progress.} {r shutdown ABORT abort}
        assert_equal [r ping] PONG
    }

    test {SHUTDOWN NOSAVE ends the process without a reply} {
        r set k v
        shutdown_no_reply nosave
        wait_for_exit
        assert_equal [count_log_message {*User requested shutdown...*}] 1
    }
}

start_server {tags {shutdown external:skip}} {
    test {Plain SHUTDOWN exits when no save points are configured} {
        assert_equal [r config get save] {save {}}
        shutdown_no_reply
        wait_for_exit
    }
}

start_server {tags {shutdown external:skip}} {
    test {SHUTDOWN NOW FORCE NOSAVE in any case exits} {
        shutdown_no_reply Now FORCE nosave
        wait_for_exit
    }
}

start_server {tags {shutdown external:skip}} {
    test {SHUTDOWN SAVE writes the snapshot and exits, even without save points} {
        r set k v
        shutdown_no_reply save
        wait_for_exit
        assert_equal [file exists [file join [srv dir] dump.rdb]] 1
        restart_server 0 term
        assert_equal [r get k] v
    }
}

start_server {tags {shutdown external:skip} overrides {save {3600 1}}} {
    test {Plain SHUTDOWN saves when save points are configured, NOSAVE does not} {
        r set k v
        shutdown_no_reply
        wait_for_exit
        restart_server 0 term
        assert_equal [r get k] v
        r set k v2
        shutdown_no_reply nosave
        wait_for_exit
        restart_server 0 term
        assert_equal [r get k] v
    }
}

# Makes the final save fail, or lets it succeed again.
proc break_rdb_file {} {
    set path [file join [srv dir] dump.rdb]
    file delete -force $path
    file mkdir [file join $path blocker]
}
proc mend_rdb_file {} {
    file delete -force [file join [srv dir] dump.rdb]
}

start_server {tags {shutdown external:skip} overrides {save {3600 1}}} {
    test {SHUTDOWN refuses when the final save fails, and keeps serving} {
        r set k v
        break_rdb_file
        assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {r shutdown}
        assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {r shutdown now}
        assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {r shutdown save}
        assert_equal [r get k] v
        assert_equal [count_log_message {*Error trying to save the DB, can't exit.*}] 3
        assert_equal [count_log_message {*Errors trying to shut down the server. Check the logs for more information.*}] 3
    }

    test {SIGTERM with a failing final save keeps the server running} {
        exec kill -TERM [srv pid]
        wait_for_log_message {*Errors trying to shut down the server. Check the logs for more information.*} 100 50
        wait_for_condition 100 50 {
            [count_log_message {*Errors trying to shut down the server*}] == 4
        } else {
            fail "no refusal logged for the SIGTERM"
        }
        assert_equal [count_log_message {*Received SIGTERM scheduling shutdown*}] 1
        assert_equal [is_alive] 1
        assert_equal [r get k] v
    }

    test {shutdown-on-sigterm force exits even though the save fails} {
        r config set shutdown-on-sigterm force
        exec kill -TERM [srv pid]
        wait_for_exit
        assert_equal [count_log_message {*Error trying to save the DB. Exit anyway.*}] 1
        mend_rdb_file
    }
}

start_server {tags {shutdown external:skip} overrides {save {3600 1}}} {
    test {shutdown-on-sigterm nosave exits without the final save} {
        r save
        r set k v
        r config set shutdown-on-sigterm nosave
        exec kill -TERM [srv pid]
        wait_for_exit
        assert_equal [count_log_message {*Saving the final RDB snapshot*}] 0
        restart_server 0 term
        assert_equal [r exists k] 0
    }
}

start_server {tags {shutdown external:skip} overrides {save {}}} {
    test {SHUTDOWN kills a running BGSAVE child and removes its temporary file} {
        for {set i 0} {$i < 100} {incr i} {r set key:$i $i}
        r config set rdb-key-save-delay 100000
        r bgsave
        set temp {}
        wait_for_condition 100 50 {
            [llength [set temp [glob -nocomplain -directory [srv dir] temp-*.rdb]]] == 1
        } else {
            fail "the BGSAVE child wrote no temporary file"
        }
        set child [string range [file rootname [file tail [lindex $temp 0]]] 5 end]
        shutdown_no_reply nosave
        wait_for_exit
        wait_for_condition 100 50 {![::server::process_alive $child]} else {
            fail "the BGSAVE child outlived the server"
        }
        assert_equal [glob -nocomplain -directory [srv dir] temp-*.rdb] {}
        assert_equal [file exists [file join [srv dir] dump.rdb]] 0
        assert_equal [count_log_message {*There is a child saving an .rdb. Killing it!*}] 1
    }
}

start_server {tags {shutdown external:skip}} {
    test {SHUTDOWN SAVE FORCE exits even when the snapshot cannot be written} {
        r set k v
        shutdown_no_reply save force
        wait_for_exit
    }
}

start_server {tags {shutdown external:skip}} {
    test {Commands pipelined after SHUTDOWN do not run} {
        set rd [redis_deferring_client]
        $rd write "*2\r\n\$8\r\nSHUTDOWN\r\n\$6\r\nNOSAVE\r\n*2\r\n\$4\r\nECHO\r\n\$5\r\nhello\r\n"
        $rd flush
        catch {$rd read} e
        assert_no_match hello $e
        wait_for_exit
        $rd close
    }
}

# A signal only records the shutdown (Redis's shutdown_asap): the cron carries it out, so a
# paused cron holds it and SHUTDOWN ABORT can cancel it.
start_server {tags {shutdown external:skip needs:debug}} {
    test {SHUTDOWN ABORT cancels a SIGTERM the paused cron has not acted on} {
        r debug pause-cron 1
        exec kill -TERM [srv pid]
        # The signal is pending before the command arrives: its handler runs first.
        assert_equal [r shutdown abort] OK
        assert_equal [count_log_message {*Shutdown manually aborted*}] 1
        assert_error {ERR No shutdown in progress.} {r shutdown abort}
        r debug pause-cron 0
        # A few cron ticks later the server still serves.
        after 300
        assert_equal [r ping] PONG
        assert_equal [is_alive] 1
    }
}

# A second SIGINT while the final save runs (the loop is not turning) exits at once from the
# handler, removing the save's temporary file, with status 1 as Redis.
start_server {tags {shutdown external:skip} overrides {save {900 1}}} {
    test {A second SIGINT during the final save exits at once and removes the temporary file} {
        for {set i 0} {$i < 20} {incr i} {r set key:$i $i}
        # 20 keys at 100 ms each: the final save takes two seconds.
        r config set rdb-key-save-delay 100000
        set pid [srv pid]
        set temp [file join [srv dir] temp-$pid.rdb]
        exec kill -INT $pid
        wait_for_log_message {*Saving the final RDB snapshot*} 100 20
        wait_for_condition 100 20 {[file exists $temp]} else {
            fail "the final save wrote no temporary file"
        }
        server_expect_exit
        exec kill -INT $pid
        wait_for_exit
        assert_equal [file exists $temp] 0
        assert_equal [count_log_message {*You insist... exiting now.*}] 1
        assert_equal [file exists [file join [srv dir] dump.rdb]] 0
    }
}
