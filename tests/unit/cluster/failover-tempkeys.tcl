# Temporary keys, sessions, BSETTP waiters and WATCHEX watchers across a cluster failover
# (docs/cluster.md, "Temporary keys, watches and sessions" / "Failover", and
# docs/replication.md, "Failover: what a promoted replica does"): three masters with one replica
# each; a master killed with SIGKILL (its replica elected by the others), and a manual CLUSTER
# FAILOVER. A session's lock is resumable on the promoted replica with its fencing token, or
# released when its grace ends; a plain connection's lock is kept for tp-failover-grace-ms, then
# handed to a BSETTP waiter that reconnected to the new master, with a token above the old
# master's; a watcher on the dead master loses its connection, one on the new master reads the
# release. The plain-keys test holds against an all-Redis 7.0.15 cluster too (--server
# /usr/bin/redis-server); the rest is tagged redistp. Nodes are started as
# tests/support/cluster.tcl's essay says (node timeout 1000 ms); every wait is bounded.

source tests/support/cluster.tcl

# The reply of one command on the deferring client rd.
proc fot_call {rd args} {
    $rd {*}$args
    return [$rd read]
}

# Node m's replica r was elected in its place: every live node sees r serving `slots` as a
# master and says cluster_state ok.
proc fot_wait_elected {r slots live} {
    cluster_wait_master_of $r $slots $live
    wait_cluster_state_ok $live
}

# Node `old` is back (restarted by cluster_with_nodes_down) and follows node `m`.
proc fot_wait_rejoined {old m} {
    cluster_wait_replica_everywhere $old $m
    cluster_wait_link_up $old
    wait_cluster_consistent
}

# Whether reading rd fails (its server died with the connection open).
proc fot_connection_lost {rd} {
    return [catch {$rd read}]
}

start_cluster_nodes 6 {tags {cluster}} {
    test {Setup: three masters, each with one replica} {
        cluster_meet_all
        cluster_assign_three
        wait_cluster_consistent
        foreach {r m} {3 0 4 1 5 2} {
            assert_equal OK [cr $r cluster replicate [cluster_node_id $m]]
        }
        foreach {r m} {3 0 4 1 5 2} {cluster_wait_replica_everywhere $r $m}
        foreach r {3 4 5} {cluster_wait_link_up $r}
        wait_cluster_consistent
        wait_cluster_state_ok
    }

    test {A master killed: a key written before (and acknowledged by WAIT) is on the elected replica} {
        cluster_require_formed
        set k [cluster_key_on_node 0 fk]
        set slot [cr 0 cluster keyslot $k]
        set rd [cluster_client 0]
        assert_equal OK [fot_call $rd set $k before-kill]
        assert_equal 1 [fot_call $rd wait 1 5000]
        cluster_with_nodes_down {0} {
            assert_equal 1 [fot_connection_lost $rd]
            fot_wait_elected 3 {0-5460} {1 2 3 4 5}
            assert_equal before-kill [cr 3 get $k]
            assert_error "MOVED $slot 127.0.0.1:[cluster_node_port 3]" {cr 1 get $k}
            assert_equal OK [cr 3 set $k after-kill]
        }
        $rd close
        fot_wait_rejoined 0 3
        set rc [::redis::redis 127.0.0.1 [cluster_node_port 0] 0 10000]
        $rc readonly
        wait_for_condition 200 50 {[$rc get $k] eq "after-kill"} else {
            fail "the old master did not sync the new master's write: [$rc get $k]"
        }
        $rc close
    }

    tags {redistp} {
    test {A master killed: a session's lock is resumed on the elected replica with its fence; an unresumed one ends with its grace} {
        cluster_require_formed
        set base [cluster_key_on_node 1 fs]
        set skey "{$base}.resumed"
        set ekey "{$base}.expiring"
        set holder [cluster_client 1]
        set token [fot_call $holder session open 600000]
        set sfence [fot_call $holder settp $skey s FENCE]
        set short [cluster_client 1]
        set stoken [fot_call $short session open 1000]
        set efence [fot_call $short settp $ekey e FENCE]
        assert_equal 1 [fot_call $holder wait 1 5000]
        assert_equal 1 [fot_call $short wait 1 5000]
        # The replica holds both keys with their owners' fences (no grace runs on a replica).
        set rc [::redis::redis 127.0.0.1 [cluster_node_port 4] 0 10000]
        $rc readonly
        assert_equal $sfence [$rc object fence $skey]
        assert_equal $efence [$rc object fence $ekey]
        $rc close
        cluster_with_nodes_down {1} {
            assert_equal 1 [fot_connection_lost $holder]
            fot_wait_elected 4 {5461-10922} {0 2 3 4 5}
            set watcher [cluster_client 4]
            lassign [fot_call $watcher watchex $skey $ekey] sexists eexists
            assert_equal EXIST $sexists
            # SESSION RESUME on the new master: the same key, the same fence.
            set rd [cluster_client 4]
            assert_equal OK [fot_call $rd session resume $token]
            assert_equal $sfence [fot_call $rd object fence $skey]
            set held [fot_call $rd tpkeys]
            assert_equal 1 [llength $held]
            assert_equal $skey [dict get [lindex $held 0] key]
            assert_equal $sfence [dict get [lindex $held 0] fence]
            # A token drawn on the new master is above every token of the old one.
            set nfence [fot_call $rd settp "{$base}.new" n FENCE]
            assert {$nfence > $sfence && $nfence > $efence}
            # The session nobody resumed is released when its grace (1 s) ends.
            if {$eexists eq "EXIST"} {
                assert_equal [list watchex $ekey DEL] [$watcher read]
            } else {
                assert_equal NOEXIST $eexists
            }
            assert_equal 0 [cr 4 exists $ekey]
            assert_error "ERR invalid or expired session token" {cr 4 session resume $stoken}
            # The resumed session still holds its keys; closing it releases them.
            assert_equal 2 [fot_call $rd session close]
            assert_equal [list watchex $skey DEL] [$watcher read]
            assert_equal 0 [cr 4 exists $skey]
            foreach c [list $watcher $rd] {$c close}
        }
        foreach c [list $holder $short] {$c close}
        fot_wait_rejoined 1 4
    }

    test {A master killed: a plain connection's lock goes to a BSETTP waiter on the new master after tp-failover-grace-ms} {
        cluster_require_formed
        set key "{[cluster_key_on_node 2 fp]}.lock"
        set slot [cr 0 cluster keyslot $key]
        assert_equal OK [cr 5 config set tp-failover-grace-ms 600000]
        set holder [cluster_client 2]
        set hfence [fot_call $holder settp $key h FENCE]
        assert_equal 1 [fot_call $holder wait 1 5000]
        set waiter [cluster_client 2]
        $waiter bsettp $key w 0 FENCE
        wait_for_blocked_clients_count 1 100 50 [cluster_level 2]
        set oldwatcher [cluster_client 2]
        assert_equal EXIST [fot_call $oldwatcher watchex $key]
        set released [getInfoProperty [cr 5 info coordination] released_by_failover]
        cluster_with_nodes_down {2} {
            # Every connection to the dead master drops: the waiter and the watcher learn it
            # from their sockets, as a cluster client does.
            assert_equal 1 [fot_connection_lost $waiter]
            assert_equal 1 [fot_connection_lost $oldwatcher]
            fot_wait_elected 5 {10923-16383} {0 1 3 4 5}
            # A cluster client asking any node is sent to the new master, which holds the key
            # for the old owner (no owner can come back: its connection went with the master).
            assert_error "MOVED $slot 127.0.0.1:[cluster_node_port 5]" {cr 0 exists $key}
            assert_equal h [cr 5 get $key]
            assert_equal $hfence [cr 5 object fence $key]
            set watcher [cluster_client 5]
            assert_equal EXIST [fot_call $watcher watchex $key]
            set waiter2 [cluster_client 5]
            $waiter2 bsettp $key w 0 FENCE
            wait_for_blocked_clients_count 1 100 50 [cluster_level 5]
            assert_equal 1 [cr 5 exists $key]
            # The grace ends (at the next cron tick): the key is released and handed over.
            assert_equal OK [cr 5 config set tp-failover-grace-ms 0]
            set wfence [$waiter2 read]
            # The new master's tokens start 2^32 above the highest it saw.
            assert {$wfence - $hfence >= 4294967296}
            assert_equal [list watchex $key DEL] [$watcher read]
            assert_equal [list watchex $key ADD] [$watcher read]
            assert_equal w [cr 5 get $key]
            assert_equal $wfence [cr 5 object fence $key]
            assert_equal [expr {$released + 1}] \
                [getInfoProperty [cr 5 info coordination] released_by_failover]
            $waiter2 close
            assert_equal [list watchex $key DEL] [$watcher read]
            $watcher close
        }
        foreach c [list $holder $waiter $oldwatcher] {$c close}
        assert_equal OK [cr 5 config set tp-failover-grace-ms 10000]
        fot_wait_rejoined 2 5
    }

    test {A replica killed and restarted keeps its master's locks: PSYNC from its RDB, then elected} {
        cluster_require_formed
        # Node 4 serves slots 5461-10922 since the second kill; node 1 follows it.
        set base [cluster_key_on_node 4 fr]
        set skey "{$base}.session"
        set pkey "{$base}.plain"
        cluster_wait_link_up 1
        set holder [cluster_client 4]
        set token [fot_call $holder session open 600000]
        set sfence [fot_call $holder settp $skey s FENCE]
        set plain [cluster_client 4]
        set pfence [fot_call $plain settp $pkey p FENCE]
        assert_equal 1 [fot_call $plain wait 1 5000]
        # A full sync of node 1 now (restarted without a file): the RDB it receives holds the
        # locks and the session, and stays in its directory (rdb-del-sync-files no).
        set full [getInfoProperty [cr 4 info stats] sync_full]
        cluster_kill_node 1
        file delete [server_path [cluster_level 1] dump.rdb]
        cluster_restart_node 1
        cluster_wait_link_up 1
        assert_equal [incr full] [getInfoProperty [cr 4 info stats] sync_full]
        # Restarted again: it loads that file as its master's data, owners and sessions
        # included, and continues with a partial resync (nothing resends them).
        set partial [getInfoProperty [cr 4 info stats] sync_partial_ok]
        cluster_kill_node 1
        cluster_restart_node 1
        cluster_wait_link_up 1
        assert_equal $full [getInfoProperty [cr 4 info stats] sync_full]
        assert_equal [incr partial] [getInfoProperty [cr 4 info stats] sync_partial_ok]
        set rc [::redis::redis 127.0.0.1 [cluster_node_port 1] 0 10000]
        $rc readonly
        assert_equal $sfence [$rc object fence $skey]
        assert_equal $pfence [$rc object fence $pkey]
        assert_match "id=* client=0 state=detached grace-ms=600000 *keys=1 *" [$rc session list]
        $rc close
        # So they survive a failover to it: the session is resumed there with its fence.
        assert_equal OK [cr 1 config set tp-failover-grace-ms 600000]
        assert_equal OK [cr 1 cluster failover]
        cluster_wait_master_of 1 {5461-10922} {0 1 2 3 4 5}
        set rd [cluster_client 1]
        assert_equal OK [fot_call $rd session resume $token]
        assert_equal $sfence [fot_call $rd object fence $skey]
        assert_equal $pfence [cr 1 object fence $pkey]
        assert_equal 1 [fot_call $rd session close]
        assert_equal OK [cr 1 config set tp-failover-grace-ms 0]
        wait_for_condition 100 50 {[cr 1 exists $pkey] == 0} else {
            fail "the plain lock stayed after its grace"
        }
        assert_equal OK [cr 1 config set tp-failover-grace-ms 10000]
        foreach c [list $holder $plain $rd] {$c close}
        cluster_wait_replica_everywhere 4 1
        cluster_wait_link_up 4
        wait_cluster_consistent
    }

    test {CLUSTER FAILOVER (no kill): the session's lock stays held and resumable, no DEL lost} {
        cluster_require_formed
        # Node 3 serves slots 0-5460 since the first kill; node 0 is its replica.
        set base [cluster_key_on_node 3 fm]
        set slot [cr 3 cluster keyslot $base]
        set skey "{$base}.session"
        set pkey "{$base}.plain"
        set holder [cluster_client 3]
        set token [fot_call $holder session open 600000]
        set sfence [fot_call $holder settp $skey s FENCE]
        set plain [cluster_client 3]
        set pfence [fot_call $plain settp $pkey p FENCE]
        set oldwatcher [cluster_client 3]
        assert_equal {EXIST EXIST} [fot_call $oldwatcher watchex $skey $pkey]
        assert_equal OK [cr 0 config set tp-failover-grace-ms 600000]
        assert_equal OK [cr 0 cluster failover]
        cluster_wait_master_of 0 {0-5460} {0 1 2 3 4 5}
        cluster_wait_replica_everywhere 3 0
        set moved "MOVED $slot 127.0.0.1:[cluster_node_port 0]"
        # The watches on the old master end with the slot's new place; nothing was deleted.
        set last [list [$oldwatcher read] [$oldwatcher read]]
        assert_equal [lsort [list [list watchex $skey $moved] [list watchex $pkey $moved]]] \
            [lsort $last]
        # Both keys are on the new master with their fences.
        assert_equal $sfence [cr 0 object fence $skey]
        assert_equal $pfence [cr 0 object fence $pkey]
        set watcher [cluster_client 0]
        assert_equal {EXIST EXIST} [fot_call $watcher watchex $skey $pkey]
        set rd [cluster_client 0]
        assert_equal OK [fot_call $rd session resume $token]
        assert_equal $sfence [fot_call $rd object fence $skey]
        # The plain lock's owner stayed on the old master: released after the grace.
        assert_equal OK [cr 0 config set tp-failover-grace-ms 0]
        assert_equal [list watchex $pkey DEL] [$watcher read]
        assert_equal 1 [fot_call $rd session close]
        assert_equal [list watchex $skey DEL] [$watcher read]
        assert_equal 0 [cr 0 exists $skey $pkey]
        foreach c [list $holder $plain $oldwatcher $watcher $rd] {$c close}
        assert_equal OK [cr 0 config set tp-failover-grace-ms 10000]
        cluster_wait_link_up 3
        wait_cluster_consistent
    }
    }
}
