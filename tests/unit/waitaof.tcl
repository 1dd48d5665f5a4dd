# WAITAOF numlocal numreplicas timeout (Redis 7.2): the reply [local, replicas] counts the
# local AOF (1 once every write taken before the call is fsynced) and the replicas whose own
# AOF has fsynced the caller's offset (their REPLCONF ACK ... FACK). Redis 7.0 has no WAITAOF:
# every test here carries the tag redistp.

# Waits until the server at `level` runs no AOF rewrite and has none scheduled.
proc waitaof_rewrite_done {{level 0}} {
    wait_for_condition 200 50 {[aof_rewrite_idle $level]} else {
        fail "the AOF rewrite at level $level never ended"
    }
}

start_server {tags {waitaof redistp}} {
    test {WAITAOF checks its arguments before anything else} {
        assert_error {ERR value is not an integer or out of range} {r waitaof x 0 0}
        assert_error {ERR value is out of range, value must between 0 and 1} {r waitaof 2 0 0}
        assert_error {ERR value is out of range, value must between 0 and 1} {r waitaof -1 0 0}
        assert_error {ERR value is not an integer or out of range} {r waitaof 0 x 0}
        assert_error {ERR value is out of range, must be positive} {r waitaof 0 -1 0}
        assert_error {ERR timeout is not an integer or out of range} {r waitaof 0 0 x}
        assert_error {ERR timeout is negative} {r waitaof 0 0 -1}
        assert_error {ERR wrong number of arguments for 'waitaof' command} {r waitaof 0 0}
    }

    test {WAITAOF with appendonly off: numlocal is refused, numlocal 0 answers at once} {
        assert_error {ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.} \
            {r waitaof 1 0 0}
        r set k v
        assert_equal {0 0} [r waitaof 0 0 0]
        # No replica will ever answer: the timeout replies the counts reached.
        assert_equal {0 0} [r waitaof 0 1 50]
    }

    test {WAITAOF is refused in scripts and answers at once inside MULTI} {
        assert_error {*not allowed from script*} {r eval {return redis.call('waitaof', 0, 0, 0)} 0}
        r multi
        r set k v
        r waitaof 0 1 0
        assert_equal {OK {0 0}} [r exec]
    }

    test {WAITAOF with appendfsync always: the write is fsynced before the reply} {
        r config set appendfsync always
        r config set appendonly yes
        waitaof_rewrite_done
        r set k v1
        assert_equal {1 0} [r waitaof 1 0 0]
        r incr counter
        assert_equal {1 0} [r waitaof 1 0 0]
    }

    test {WAITAOF with appendfsync everysec waits for the background fsync} {
        r config set appendfsync everysec
        r set k v2
        # Blocks (no timeout) until the background fsync of the second covers the SET.
        assert_equal {1 0} [r waitaof 1 0 0]
        # Nothing new: every write taken so far is already synced.
        assert_equal {1 0} [r waitaof 1 0 0]
    }

    test {WAITAOF with appendfsync no: nothing is ever fsynced, the timeout replies 0} {
        r config set appendfsync no
        r set k v3
        assert_equal {0 0} [r waitaof 1 0 100]
        r config set appendfsync everysec
        assert_equal {1 0} [r waitaof 1 0 0]
    }

    test {A WAITAOF blocked on the local fsync gets the AOF-off error when the AOF stops} {
        r config set appendfsync no
        r set k v4
        set rd [redis_deferring_client]
        $rd waitaof 1 0 0
        wait_for_blocked_client
        r config set appendonly no
        assert_error {ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.} \
            {$rd read}
        $rd close
        r config set appendfsync everysec
    }

    test {CLIENT UNBLOCK ends a WAITAOF with the counts reached} {
        r config set appendonly yes
        waitaof_rewrite_done
        r config set appendfsync no
        r set k v5
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd waitaof 1 0 0
        wait_for_blocked_client
        assert_equal 1 [r client unblock $id]
        assert_equal {0 0} [$rd read]
        $rd close
        r config set appendfsync everysec
        r config set appendonly no
    }
}

# Replicas count once their own AOF has fsynced the caller's offset (REPLCONF ACK ... FACK).
start_server {tags {waitaof redistp repl external:skip} overrides {repl-diskless-sync-delay 0}} {
    r config set appendonly yes
    r config set appendfsync always
    waitaof_rewrite_done

    start_server {overrides {appendonly yes appendfsync always}} {
        set master [redis_client -1]
        set replica [redis_client]
        waitaof_rewrite_done
        $replica replicaof 127.0.0.1 [srv -1 port]
        wait_for_condition 100 50 {
            [string match *master_link_status:up* [$replica info replication]]
        } else {
            fail "the replica never came up"
        }

        test {WAITAOF counts a replica once its AOF has fsynced the write} {
            # The full sync's rewrite of the replica's AOF must be over before it counts.
            waitaof_rewrite_done
            $master set rk v1
            assert_equal {1 1} [$master waitaof 1 1 0]
            # The reply counts what is synced, whatever was asked for.
            $master incr rcounter
            assert_equal {1 1} [$master waitaof 0 1 0]
        }

        test {WAITAOF on a replica is refused} {
            assert_error {ERR WAITAOF cannot be used with replica instances*} \
                {$replica waitaof 0 0 0}
        }

        test {A replica with appendfsync no never counts: the timeout replies what was reached} {
            $replica config set appendfsync no
            $master set rk v2
            assert_equal {1 0} [$master waitaof 1 1 200]
            # WAIT (the stream received, not fsynced) still counts it.
            assert_equal 1 [$master wait 1 0]
            $replica config set appendfsync always
            $master set rk v3
            set got [$master waitaof 1 1 0]
            if {$got ne {1 1}} {puts [$master info persistence]; puts [$master config get appendfsync]}
            assert_equal {1 1} $got
        }

        test {A replica whose AOF is off sends no FACK and never counts} {
            $replica config set appendonly no
            $master set rk v4
            assert_equal {1 0} [$master waitaof 1 1 200]
        }
    }
}

# A Redis 7.0 replica acknowledges without FACK: WAIT counts it, WAITAOF never does.
start_server {tags {waitaof redistp repl external:skip} overrides {repl-diskless-sync-delay 0}} {
    start_server [list binary /usr/bin/redis-server overrides {appendonly yes}] {
        set master [redis_client -1]
        set replica [redis_client]
        $replica replicaof 127.0.0.1 [srv -1 port]
        wait_for_condition 100 50 {
            [string match *master_link_status:up* [$replica info replication]]
        } else {
            fail "the replica never came up"
        }

        test {A Redis 7.0 replica (no FACK) counts for WAIT but not for WAITAOF} {
            $master set k v
            assert_equal 1 [$master wait 1 0]
            assert_equal {0 0} [$master waitaof 0 1 200]
        }
    }
}
