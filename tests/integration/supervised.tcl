# `supervised`: how the server talks to its init system (systemd's Type=notify, upstart's
# expect stop), as Redis 7.0 does. A stand-in for systemd's notification socket
# (tests/support/notify_recv.py) records every datagram; the server finds it through
# NOTIFY_SOCKET in its environment. Claims, each measured on Debian's redis-server 7.0.15:
# the messages and their order at startup, on a replica and at shutdown; INFO's
# process_supervised; what happens without a socket; upstart's self-stop.

set ::notify_python [expr {[file executable /usr/bin/python3] ? "/usr/bin/python3" : "python3"}]

# Starts a receiver in a fresh directory; returns {sock out pid}.
proc notify_start {} {
    set dir [file normalize [file join tests tmp notify.[pid].[clock microseconds]]]
    file mkdir $dir
    set sock [file join $dir notify.sock]
    set out [file join $dir notify.txt]
    set pid [exec $::notify_python tests/support/notify_recv.py $sock $out 60 &]
    wait_for_condition 100 50 {[file exists $out] && [file exists $sock]} else {
        fail "the notification receiver did not start"
    }
    return [list $sock $out $pid]
}

# The datagrams received so far, one list element each (the "listening" marker dropped).
proc notify_messages {receiver} {
    set f [open [lindex $receiver 1]]
    set lines [split [string trimright [read $f] "\n"] "\n"]
    close $f
    return [lrange $lines 1 end]
}

proc notify_wait {receiver message} {
    wait_for_condition 100 50 {[lsearch -exact [notify_messages $receiver] $message] >= 0} else {
        fail "no '$message' among [notify_messages $receiver]"
    }
}

proc notify_stop {receiver} {
    catch {exec kill [lindex $receiver 2]}
}

set ::ready_messages [list {STATUS=Redis is loading...\n} {STATUS=Ready to accept connections\n} \
                          {READY=1\n}]

foreach mode {systemd auto} {
    set receiver [notify_start]
    start_server [list tags {supervised external:skip} overrides {save {}} args \
                      [list --supervised $mode] env [list NOTIFY_SOCKET [lindex $receiver 0]]] {
        test "supervised $mode: loading, ready and READY=1 reach NOTIFY_SOCKET in order" {
            notify_wait $receiver {READY=1\n}
            assert_equal $::ready_messages [notify_messages $receiver]
            assert_equal systemd [s process_supervised]
            assert_equal 1 [count_log_message {*Supervised by systemd. Please make sure you set\
                appropriate values for TimeoutStartSec and TimeoutStopSec*}]
        }

        test "supervised $mode: SHUTDOWN SAVE says STOPPING=1, then that it saves" {
            server_expect_exit
            catch {r shutdown save}
            wait_for_condition 100 50 {![is_alive]} else {fail "the server did not exit"}
            assert_equal [concat $::ready_messages [list {STOPPING=1\n} \
                {STATUS=Saving the final RDB snapshot\n}]] [notify_messages $receiver]
        }
    }
    notify_stop $receiver
}

# A replica started with replicaof says it waits for its master, then that the sync is done.
start_server {tags {supervised repl external:skip} overrides {save {} repl-diskless-sync-delay 0}} {
    set receiver [notify_start]
    start_server [list overrides [list save {} replicaof [list [srv host] [srv port]]] args \
                      {--supervised systemd} env [list NOTIFY_SOCKET [lindex $receiver 0]]] {
        test {supervised systemd on a replica: read-only until the sync finished} {
            set done {STATUS=MASTER <-> REPLICA sync: Finished with success. Ready to accept\
                connections in read-write mode.\n}
            notify_wait $receiver $done
            assert_equal [list {STATUS=Redis is loading...\n} {STATUS=Ready to accept\
                connections in read-only mode. Waiting for MASTER <-> REPLICA sync\n}\
                {READY=1\n} $done] [notify_messages $receiver]
        }

        test {supervised systemd on a replica: a partial resync says so} {
            r client kill type master
            set partial {STATUS=MASTER <-> REPLICA sync: Partial Resynchronization accepted.\
                Ready to accept connections in read-write mode.\n}
            notify_wait $receiver $partial
            assert_equal $partial [lindex [notify_messages $receiver] end]
        }
    }
    notify_stop $receiver
}

# No socket to talk to: the server runs unsupervised and says why.
start_server {tags {supervised external:skip} overrides {save {}} args {--supervised systemd}} {
    test {supervised systemd without NOTIFY_SOCKET: not supervised, the error logged} {
        assert_equal no [s process_supervised]
        assert_morethan [count_log_message {*systemd supervision error: NOTIFY_SOCKET not found!*}] 0
        assert_equal 0 [count_log_message {*Supervised by systemd*}]
    }
}

start_server {tags {supervised external:skip} overrides {save {}} args {--supervised auto}} {
    test {supervised auto with neither variable: not supervised, nothing logged} {
        assert_equal no [s process_supervised]
        assert_equal 0 [count_log_message {*supervision*}]
    }
}

# upstart: the process stops itself (SIGSTOP) before it serves, and runs on once resumed.
# Started by hand: the harness waits for a server to answer, which a stopped one never does.
test {supervised upstart: the server stops itself until resumed, then serves} {
    set dir [file normalize [file join tests tmp upstart.[pid].[clock microseconds]]]
    file mkdir $dir
    set port [::server::find_free_port]
    set ::env(UPSTART_JOB) redis-test
    set pid [exec $::server::binary --port $port --bind 127.0.0.1 --save {} --dir $dir \
                 --logfile [file join $dir log] --supervised auto &]
    unset ::env(UPSTART_JOB)
    set state ""
    wait_for_condition 100 50 {
        [regexp {State:\s+T} [set state [exec cat /proc/$pid/status]]]
    } else {
        exec kill -9 $pid
        fail "the server did not stop itself: $state"
    }
    exec kill -CONT $pid
    wait_for_condition 100 50 {![catch {::redis::redis 127.0.0.1 $port} c]} else {
        exec kill -9 $pid
        fail "the server did not answer once resumed"
    }
    set supervised [getInfoProperty [$c info server] process_supervised]
    catch {$c shutdown nosave}
    catch {$c close}
    # (exec's child stays a zombie once it exits: the port tells instead)
    wait_for_condition 100 50 {[catch {::redis::redis 127.0.0.1 $port} c2]} else {
        exec kill -9 $pid
        fail "the server did not exit"
    }
    set f [open [file join $dir log]]
    set log [read $f]
    close $f
    assert_equal upstart $supervised
    assert_match {*supervised by upstart, will stop to signal readiness.*} $log
}
