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
