# SHUTDOWN: argument checking, ABORT with nothing to abort, NOSAVE / plain /
# NOW / FORCE exits, and SAVE, which needs a snapshot: Redis writes one and
# exits, redis-tp (no RDB yet) refuses unless FORCE.  Every test that stops the
# server has a server of its own.

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
    test {SHUTDOWN SAVE either writes the snapshot and exits, or refuses and keeps serving} {
        r set k v
        set rdb [file join [srv dir] dump.rdb]
        catch {r shutdown save} e
        if {[string match {*I/O error*} $e]} {
            # A server with persistence: the snapshot is on disk.
            wait_for_exit
            assert_equal [file exists $rdb] 1
        } else {
            assert_equal $e {ERR Errors trying to SHUTDOWN. Check logs.}
            assert_equal [file exists $rdb] 0
            reconnect
            assert_equal [r get k] v
            assert_equal [count_log_message {*Error trying to save the DB, can't exit.*}] 1
        }
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
