# A master's shutdown with a replica attached: SHUTDOWN and SIGTERM first wait (up to
# shutdown-timeout seconds, writes paused) until the replica has acknowledged the whole stream,
# so the last writes are not lost; at the end the log says which replicas were left behind
# ("Lagging replica ...", "N of M replicas are in sync when shutting down."). SHUTDOWN ABORT
# ends the wait and the waiting SHUTDOWN gets an error. The replica is held with SIGSTOP so
# the master has to wait for it.

# The replica at level 0 follows the master at -1 and has caught up with its stream.
proc shut_wait_synced {} {
    wait_for_condition 200 50 {
        [string match *master_link_status:up* [r info replication]]
    } else {
        fail "replica never came up"
    }
    wait_for_condition 200 50 {
        [s -1 master_repl_offset] == [s master_repl_offset]
    } else {
        fail "the replica did not catch up"
    }
}

# Starts following the master at -1 and writes k=1 there, seen by the replica.
proc shut_setup {timeout} {
    r -1 config set shutdown-timeout $timeout
    r -1 config set hz 100
    r replicaof [srv -1 host] [srv -1 port]
    shut_wait_synced
    r -1 set k 1
    shut_wait_synced
}

foreach how {sigterm shutdown} {
    start_server {tags {repl shutdown external:skip} overrides {save {}}} {
        start_server {overrides {save {}}} {
            test "Shutting down a master waits for its replica to catch up ($how)" {
                shut_setup 300
                set replica_pid [srv pid]
                exec kill -STOP $replica_pid
                r -1 incr k
                if {$how eq "sigterm"} {
                    exec kill -TERM [srv -1 pid]
                } else {
                    set rd [redis_deferring_client -1]
                    $rd shutdown
                }
                wait_for_log_message {*Waiting for replicas before shutting down*} 100 20 -1
                exec kill -CONT $replica_pid
                wait_for_condition 100 50 {![is_alive -1]} else {
                    fail "the master did not exit"
                }
                assert_equal [count_log_message {*Lagging replica*} -1] 0
                assert_equal [count_log_message {*1 of 1 replicas are in sync*} -1] 1
                # The write made just before the shutdown reached the replica.
                assert_equal [r get k] 2
            }
        }
    }
}

start_server {tags {repl shutdown external:skip} overrides {save {}}} {
    start_server {overrides {save {}}} {
        test {Shutting down a master gives up on a replica after shutdown-timeout} {
            shut_setup 1
            set replica_pid [srv pid]
            exec kill -STOP $replica_pid
            r -1 incr k
            set rd [redis_deferring_client -1]
            $rd shutdown
            wait_for_condition 100 50 {![is_alive -1]} else {
                exec kill -CONT $replica_pid
                fail "the master did not exit"
            }
            exec kill -CONT $replica_pid
            assert_equal [count_log_message {*Lagging replica*} -1] 1
            assert_equal [count_log_message {*0 of 1 replicas are in sync*} -1] 1
        }
    }
}

start_server {tags {repl shutdown external:skip} overrides {save {}}} {
    start_server {overrides {save {}}} {
        test {SHUTDOWN ABORT ends a master's wait for its replica} {
            shut_setup 300
            set replica_pid [srv pid]
            exec kill -STOP $replica_pid
            r -1 incr k
            set rd [redis_deferring_client -1]
            $rd shutdown
            wait_for_log_message {*Waiting for replicas before shutting down*} 100 20 -1
            assert_equal [r -1 shutdown abort] OK
            assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {$rd read}
            $rd close
            exec kill -CONT $replica_pid
            assert_equal [count_log_message {*Shutdown manually aborted*} -1] 1
            assert_equal [r -1 incr k] 3
            shut_wait_synced
            assert_equal [r get k] 3
        }
    }
}

# The wait for the replica ends well, but the final steps fail: appendonly was switched on
# meanwhile and its first rewrite (slowed down by rdb-key-save-delay) is still running, so the
# master cannot exit without losing the AOF. Every waiting SHUTDOWN gets the error, the log
# says why, and the master goes on serving writes.
start_server {tags {repl shutdown external:skip} overrides {save {}}} {
    start_server {overrides {save {}}} {
        test {Shutting down a master waits for its replica, then fails on the final steps} {
            shut_setup 300
            set replica_pid [srv pid]
            exec kill -STOP $replica_pid
            r -1 incr k
            set rd1 [redis_deferring_client -1]
            set rd2 [redis_deferring_client -1]
            $rd1 shutdown
            $rd2 shutdown
            wait_for_condition 100 50 {[s -1 blocked_clients] == 2} else {
                exec kill -CONT $replica_pid
                fail "the SHUTDOWN callers are not waiting"
            }
            r -1 config set rdb-key-save-delay 100000000
            r -1 config set appendonly yes
            # From here the slow rewrite would hold a plain exit: whatever happens, the master
            # leaves at once at the end.
            try {
                exec kill -CONT $replica_pid
                assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {$rd1 read}
                assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {$rd2 read}
                $rd1 close
                $rd2 close
                assert_equal [count_log_message {*User requested shutdown*} -1] 1
                assert_equal [count_log_message {*1 of 1 replicas are in sync*} -1] 1
                assert_equal [count_log_message {*Writing initial AOF, can't exit*} -1] 1
                assert_equal [count_log_message {*Errors trying to shut down the server*} -1] 1
                # Still the master, writes no longer paused, the replica follows.
                assert_equal [r -1 incr k] 3
                shut_wait_synced
                assert_equal [r get k] 3
            } finally {
                catch {exec kill -CONT $replica_pid}
                catch {r -1 shutdown nosave force}
            }
        }
    }
}
