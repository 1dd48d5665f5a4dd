# Replicas in a cluster: CLUSTER REPLICATE (its errors in Redis's order, the replica syncing its
# master's data, every node's NODES / SLOTS / SHARDS / REPLICAS showing it), READONLY reads on a
# replica and MOVED for its writes, the failovers (CLUSTER FAILOVER default / FORCE / TAKEOVER,
# and the automatic one after a master's kill -9, the old master rejoining as a replica), a
# replica restarted from its nodes.conf, cluster-replica-no-failover, redis-cli --cluster create
# --cluster-replicas 1 / add-node --cluster-slave, and replica migration to an orphaned master.
# A mixed block: a replica of ours promoted when its Redis 7.0.15 master is killed, then manual
# failovers between a Redis node and ours both ways. Every test passes against Redis (--server
# /usr/bin/redis-server); waits are bounded (tests/support/cluster.tcl).

source tests/support/cluster.tcl

start_cluster_nodes 4 {tags {cluster replicas}} {
    test {CLUSTER REPLICATE errors: unknown node, myself, a master with slots} {
        cluster_meet_all
        cluster_assign_three
        wait_cluster_consistent
        wait_cluster_state_ok
        assert_error "ERR Unknown node 0123456789012345678901234567890123456789" \
            {cr 3 cluster replicate 0123456789012345678901234567890123456789}
        assert_error "ERR Can't replicate myself" {cr 3 cluster replicate [cluster_node_id 3]}
        assert_error "ERR To set a master the node must be empty and without assigned slots." \
            {cr 1 cluster replicate [cluster_node_id 0]}
        assert_error "ERR You should send CLUSTER FAILOVER to a replica" {cr 0 cluster failover}
        # A key of the shard of node 0 (slots 0-5460), whoever serves it later.
        set ::crep_key [cluster_key_on_node 0 rk]
    }

    test {A node made a replica by CLUSTER REPLICATE syncs its master's data} {
        cluster_require_formed
        set k $::crep_key
        assert_equal OK [cr 0 set $k before]
        assert_equal OK [cr 3 cluster replicate [cluster_node_id 0]]
        cluster_wait_link_up 3
        assert_equal OK [cr 0 set $k after]
        set rc [::redis::redis 127.0.0.1 [cluster_node_port 3] 0 10000]
        $rc readonly
        wait_for_condition 200 50 {[$rc get $k] eq "after"} else {
            fail "the replica holds [$rc get $k]"
        }
        $rc close
        assert_equal 1 [cr 3 dbsize]
        set info [cr 3 info replication]
        assert_match *role:slave* $info
        assert_match "*master_port:[cluster_node_port 0]*" $info
        wait_for_condition 200 50 {
            [string match *connected_slaves:1* [cr 0 info replication]]
        } else {
            fail "master: [cr 0 info replication]"
        }
        # A master in a cluster refuses REPLICAOF still.
        assert_error "ERR REPLICAOF not allowed in cluster mode." {cr 3 replicaof no one}
    }

    test {CLUSTER REPLICATE of the master already followed: OK, the link is made again (PSYNC)} {
        cluster_require_formed
        cluster_wait_link_up 3
        set partial [getInfoProperty [cr 0 info stats] sync_partial_ok]
        set full [getInfoProperty [cr 0 info stats] sync_full]
        set link [cr 0 client list type replica]
        assert_equal 1 [llength [split [string trim $link] "\n"]]
        assert_equal OK [cr 3 cluster replicate [cluster_node_id 0]]
        # Redis 7.0 drops the link and connects again: the master sees a new replica
        # connection, which continues the stream with a partial resync.
        wait_for_condition 200 50 {
            [getInfoProperty [cr 0 info stats] sync_partial_ok] == $partial + 1
        } else {
            fail "no partial resync: [cr 0 info stats]"
        }
        assert_equal $full [getInfoProperty [cr 0 info stats] sync_full]
        cluster_wait_link_up 3
        set relink [cr 0 client list type replica]
        assert_equal 1 [llength [split [string trim $relink] "\n"]]
        assert {[lindex [split $relink " "] 0] ne [lindex [split $link " "] 0]}
        assert_equal OK [cr 0 set $::crep_key again]
        set rc [::redis::redis 127.0.0.1 [cluster_node_port 3] 0 10000]
        $rc readonly
        wait_for_condition 200 50 {[$rc get $::crep_key] eq "again"} else {
            fail "the replica holds [$rc get $::crep_key]"
        }
        assert_equal OK [cr 0 set $::crep_key after]
        wait_for_condition 200 50 {[$rc get $::crep_key] eq "after"} else {
            fail "the replica holds [$rc get $::crep_key]"
        }
        $rc close
    }

    test {Every node shows the replica: NODES, REPLICAS, SLOTS and SHARDS} {
        cluster_require_formed
        cluster_wait_replica_everywhere 3 0
        wait_cluster_consistent
        set rid [cluster_node_id 3]
        set mid [cluster_node_id 0]
        assert_equal "myself slave" [dict get [cluster_view_entry 3 $rid] flags]
        for {set j 0} {$j < 4} {incr j} {
            set reps [cr $j cluster replicas $mid]
            assert_equal 1 [llength $reps]
            assert_match "$rid 127.0.0.1:[cluster_node_port 3]@* *slave $mid *" [lindex $reps 0]
            # The same nodes under the old name (the ping/pong times may move in between).
            assert_equal [lmap l $reps {lrange [split $l " "] 0 3}] \
                [lmap l [cr $j cluster slaves $mid] {lrange [split $l " "] 0 3}]
            # Listed by SLOTS once it announced a replication offset (7.0.15 hides a replica
            # still at offset 0).
            wait_for_condition 200 50 {
                [llength [set range [lsearch -inline -index 0 [cr $j cluster slots] 0]]] == 4
            } else {
                fail "node $j: CLUSTER SLOTS is [cr $j cluster slots]"
            }
            assert_equal [list 127.0.0.1 [cluster_node_port 3] $rid] \
                [lrange [lindex $range 3] 0 2]
            set shard {}
            foreach sh [cr $j cluster shards] {
                if {[dict get $sh slots] eq {0 5460}} {set shard $sh}
            }
            set nodes [dict get $shard nodes]
            assert_equal 2 [llength $nodes]
            assert_equal {master replica} [lmap n $nodes {dict get $n role}]
            assert_equal {online online} [lmap n $nodes {dict get $n health}]
            assert_equal [list $mid $rid] [lmap n $nodes {dict get $n id}]
        }
        assert_error "ERR I can only replicate a master, not a replica." \
            {cr 0 cluster replicate $rid}
        # A replica of ours says its master in CLUSTER NODES' master field on every node, and in
        # nodes.conf (saved): its line reads the same after CLUSTER SAVECONFIG.
        assert_equal OK [cr 3 cluster saveconfig]
    }

    test {READONLY reads on a replica, MOVED for writes and for clients without READONLY} {
        cluster_require_formed
        set k $::crep_key
        set slot [cr 0 cluster keyslot $k]
        set moved "MOVED $slot 127.0.0.1:[cluster_node_port 0]"
        set rc [::redis::redis 127.0.0.1 [cluster_node_port 3] 0 10000]
        assert_error $moved {$rc get $k}
        assert_equal OK [$rc readonly]
        assert_equal after [$rc get $k]
        assert_error $moved {$rc set $k x}
        # Another shard's key goes to its own master, READONLY or not.
        set other [cluster_key_on_node 1 rk]
        assert_error "MOVED [cr 0 cluster keyslot $other] 127.0.0.1:[cluster_node_port 1]" \
            {$rc get $other}
        assert_equal OK [$rc readwrite]
        assert_error $moved {$rc get $k}
        $rc close
    }

    test {A READONLY reader blocked on a replica stays blocked across view changes, then is served} {
        cluster_require_formed
        set s "{$::crep_key}:stream"
        assert_match *-* [cr 0 xadd $s * f 0]
        set rd [::redis::redis 127.0.0.1 [cluster_node_port 3] 1 20000]
        $rd readonly
        assert_equal OK [$rd read]
        # `$` is the last entry the replica has: wait until the first one reached it, or the
        # reader would be served that one.
        wait_for_condition 200 50 {
            [apply {{rd s} {$rd xlen $s; $rd read}} $rd $s] == 1
        } else {
            fail "the replica never got the stream's first entry"
        }
        $rd xread block 0 streams $s {$}
        wait_for_condition 200 50 {
            [string match *blocked_clients:1* [cr 3 info clients]]
        } else {
            fail "the reader never blocked: [cr 3 info clients]"
        }
        # A change of the view on every node (a new epoch), which makes a node check its
        # blocked clients; the replica still serves its master's slot to this reader.
        assert_match {[BS]* *} [cr 1 cluster bumpepoch]
        set epoch [cluster_info_field 1 cluster_my_epoch]
        wait_for_condition 200 50 {[cluster_info_field 3 cluster_current_epoch] >= $epoch} else {
            fail "node 3 never learned epoch $epoch"
        }
        assert_match *-* [cr 0 xadd $s * f 1]
        set reply [$rd read]
        assert_equal $s [lindex $reply 0 0]
        assert_equal {f 1} [lindex $reply 0 1 0 1]
        $rd close
    }

    test {CLUSTER FAILOVER: the replica takes the slots, no write lost, the master follows it} {
        cluster_require_formed
        set k $::crep_key
        for {set n 0} {$n < 100} {incr n} {cr 0 set "{$k}:$n" $n}
        assert_equal OK [cr 3 cluster failover]
        cluster_wait_master_of 3 {0-5460} {0 1 2 3}
        cluster_wait_replica_everywhere 0 3
        cluster_wait_link_up 0
        wait_cluster_consistent
        wait_cluster_state_ok
        for {set n 0} {$n < 100} {incr n} {
            assert_equal $n [cr 3 get "{$k}:$n"]
        }
        set slot [cr 1 cluster keyslot $k]
        assert_error "MOVED $slot 127.0.0.1:[cluster_node_port 3]" {cr 0 set $k x}
        assert_equal OK [cr 3 set $k failed-over]
        wait_for_condition 200 50 {[cr 0 dbsize] == [cr 3 dbsize]} else {
            fail "old master holds [cr 0 dbsize] keys, new one [cr 3 dbsize]"
        }
        assert_error "ERR You should send CLUSTER FAILOVER to a replica" {cr 3 cluster failover}
    }

    test {CLUSTER FAILOVER FORCE and TAKEOVER} {
        cluster_require_formed
        assert_equal OK [cr 0 cluster failover force]
        cluster_wait_master_of 0 {0-5460} {0 1 2 3}
        cluster_wait_replica_everywhere 3 0
        cluster_wait_link_up 3
        wait_cluster_consistent
        set epoch [cluster_info_field 3 cluster_current_epoch]
        assert_equal OK [cr 3 cluster failover takeover]
        cluster_wait_master_of 3 {0-5460} {0 1 2 3}
        cluster_wait_replica_everywhere 0 3
        cluster_wait_link_up 0
        wait_cluster_consistent
        wait_cluster_state_ok
        assert_morethan [cluster_info_field 3 cluster_my_epoch] $epoch
        assert_equal failed-over [cr 3 get $::crep_key]
    }

    test {A master killed: its replica is elected, the data is intact, the master rejoins} {
        cluster_require_formed
        set keys [cr 3 dbsize]
        cluster_with_nodes_down {3} {
            cluster_wait_master_of 0 {0-5460} {0 1 2}
            wait_cluster_state_ok {0 1 2}
            assert_equal $keys [cr 0 dbsize]
            assert_equal failed-over [cr 0 get $::crep_key]
            assert_equal OK [cr 0 set $::crep_key elected]
        }
        cluster_wait_replica_everywhere 3 0
        cluster_wait_link_up 3
        wait_cluster_consistent
        wait_for_condition 200 50 {[cr 3 dbsize] == $keys} else {
            fail "the old master holds [cr 3 dbsize] keys, not $keys"
        }
        set rc [::redis::redis 127.0.0.1 [cluster_node_port 3] 0 10000]
        $rc readonly
        wait_for_condition 200 50 {[$rc get $::crep_key] eq "elected"} else {
            fail "the old master did not sync the new one's write"
        }
        $rc close
    }

    test {A replica restarted follows its master again (myself,slave in its nodes.conf)} {
        cluster_require_formed
        # Its last sync was a full one: the RDB it received stays in its directory (persistence
        # disabled, rdb-del-sync-files no), so the restart continues with a partial resync.
        cluster_wait_link_up 3
        set full [getInfoProperty [cr 0 info stats] sync_full]
        set partial [getInfoProperty [cr 0 info stats] sync_partial_ok]
        cluster_kill_node 3
        cluster_restart_node 3
        cluster_wait_link_up 3
        assert_equal $full [getInfoProperty [cr 0 info stats] sync_full]
        assert_equal [expr {$partial + 1}] [getInfoProperty [cr 0 info stats] sync_partial_ok]
        cluster_wait_replica_everywhere 3 0
        wait_cluster_consistent
        assert_equal "myself slave" [dict get [cluster_view_entry 3 [cluster_node_id 3]] flags]
    }

    test {cluster-replica-no-failover: shown as nofailover; a failed master needs FAILOVER FORCE} {
        cluster_require_formed
        assert_equal OK [cr 3 config set cluster-replica-no-failover yes]
        set rid [cluster_node_id 3]
        for {set j 0} {$j < 4} {incr j} {
            wait_for_condition 200 50 {
                "nofailover" in [dict get [cluster_view_entry $j $rid] flags]
            } else {
                fail "node $j: [cr $j cluster nodes]"
            }
        }
        set mid [cluster_node_id 0]
        cluster_with_nodes_down {0} {
            wait_for_condition 400 50 {
                "fail" in [dict get [cluster_view_entry 3 $mid] flags]
            } else {
                fail "node 3 never saw its master fail: [cr 3 cluster nodes]"
            }
            assert_error "ERR Master is down or failed, please use CLUSTER FAILOVER FORCE" \
                {cr 3 cluster failover}
            assert_equal OK [cr 3 cluster failover force]
            cluster_wait_master_of 3 {0-5460} {1 2 3}
            wait_cluster_state_ok {1 2 3}
        }
        cluster_wait_replica_everywhere 0 3
        cluster_wait_link_up 0
        wait_cluster_consistent
        assert_equal OK [cr 3 config set cluster-replica-no-failover no]
    }
}

start_cluster_nodes 7 {tags {cluster replicas}} {
    test {redis-cli --cluster create --cluster-replicas 1, then add-node --cluster-slave} {
        set addrs {}
        for {set i 0} {$i < 6} {incr i} {lappend addrs 127.0.0.1:[cluster_node_port $i]}
        lassign [cluster_cli 90 --cluster create {*}$addrs --cluster-replicas 1 --cluster-yes] \
            status out
        assert_equal 0 $status $out
        wait_for_condition 400 50 {
            [lindex [cluster_cli 30 --cluster check 127.0.0.1:[cluster_node_port 0]] 0] == 0
        } else {
            fail "cluster check: [cluster_cli 30 --cluster check 127.0.0.1:[cluster_node_port 0]]"
        }
        # Every node learns the replicas' roles from their own headers.
        for {set j 0} {$j < 6} {incr j} {
            wait_for_condition 400 50 {
                [llength [lsearch -all [lmap e [cluster_view $j] {dict get $e flags}] *slave*]] == 3
            } else {
                fail "node $j: [cr $j cluster nodes]"
            }
        }
        set masters {}
        foreach e [cluster_view 0] {
            if {"master" in [dict get $e flags]} {lappend masters [dict get $e id]}
        }
        assert_equal 3 [llength $masters]
        foreach m $masters {assert_equal 1 [llength [cr 0 cluster replicas $m]]}
        set mid [lindex $masters 0]
        lassign [cluster_cli 60 --cluster add-node 127.0.0.1:[cluster_node_port 6] \
            127.0.0.1:[cluster_node_port 0] --cluster-slave --cluster-master-id $mid] status out
        assert_equal 0 $status $out
        wait_for_condition 400 50 {[llength [cr 0 cluster replicas $mid]] == 2} else {
            fail "replicas of $mid: [cr 0 cluster replicas $mid]"
        }
        cluster_wait_link_up 6
        wait_for_condition 400 50 {
            [lindex [cluster_cli 30 --cluster check 127.0.0.1:[cluster_node_port 0]] 0] == 0
        } else {
            fail "cluster check: [cluster_cli 30 --cluster check 127.0.0.1:[cluster_node_port 0]]"
        }
    }
}

start_cluster_nodes 4 {tags {cluster replicas} redis {0}} {
    test {Mixed: a replica of ours follows a Redis master and is elected when it is killed} {
        cluster_meet_all
        cluster_assign_three
        wait_cluster_consistent
        wait_cluster_state_ok
        set k [cluster_key_on_node 0 mk]
        assert_equal OK [cr 0 set $k from-redis]
        assert_equal OK [cr 3 cluster replicate [cluster_node_id 0]]
        cluster_wait_replica_everywhere 3 0
        cluster_wait_link_up 3
        wait_for_condition 200 50 {[cr 3 dbsize] == 1} else {
            fail "the replica holds [cr 3 dbsize] keys"
        }
        cluster_with_nodes_down {0} {
            cluster_wait_master_of 3 {0-5460} {1 2 3}
            wait_cluster_state_ok {1 2 3}
            assert_equal from-redis [cr 3 get $k]
        }
        cluster_wait_replica_everywhere 0 3
        cluster_wait_link_up 0
        wait_cluster_consistent
    }

    test {Mixed: CLUSTER FAILOVER of a Redis replica of our master, then of ours back} {
        cluster_require_formed
        set k [cluster_key_on_node 3 mk]
        assert_equal OK [cr 3 set $k ours]
        # Redis asks our master to pause (MFSTART) and waits for our offset.
        assert_equal OK [cr 0 cluster failover]
        cluster_wait_master_of 0 {0-5460} {0 1 2 3}
        cluster_wait_replica_everywhere 3 0
        assert_equal ours [cr 0 get $k]
        cluster_wait_link_up 3
        wait_cluster_consistent
        assert_equal OK [cr 0 set $k redis]
        # Ours asks the Redis master in turn.
        assert_equal OK [cr 3 cluster failover]
        cluster_wait_master_of 3 {0-5460} {0 1 2 3}
        cluster_wait_replica_everywhere 0 3
        assert_equal redis [cr 3 get $k]
        cluster_wait_link_up 0
        wait_cluster_consistent
    }
}

start_cluster_nodes 6 {tags {cluster replicas}} {
    test {Replica migration: a master left without replicas gets one from a master with two} {
        cluster_meet_all
        cluster_assign_three
        wait_cluster_consistent
        foreach {r m} {3 0 4 0 5 1} {
            assert_equal OK [cr $r cluster replicate [cluster_node_id $m]]
        }
        foreach {r m} {3 0 4 0 5 1} {cluster_wait_replica_everywhere $r $m}
        foreach r {3 4 5} {cluster_wait_link_up $r}
        wait_cluster_state_ok
        # Of the two replicas of node 0, the one with the smaller id moves.
        set id3 [cluster_node_id 3]
        set id4 [cluster_node_id 4]
        set mover [expr {$id3 < $id4 ? 3 : 4}]
        set stayer [expr {$mover == 3 ? 4 : 3}]
        cluster_with_nodes_down {5} {
            wait_for_condition 600 50 {
                [dict get [cluster_view_entry $mover [cluster_node_id $mover]] master] eq
                [cluster_node_id 1]
            } else {
                fail "node $mover never migrated: [cr $mover cluster nodes]"
            }
            cluster_wait_link_up $mover
            assert_equal [cluster_node_id 0] \
                [dict get [cluster_view_entry $stayer [cluster_node_id $stayer]] master]
        }
        wait_for_condition 400 50 {
            [lsearch [cr 0 cluster replicas [cluster_node_id 1]] "[cluster_node_id $mover] *"] >= 0
        } else {
            fail "node 0 does not list node $mover under node 1: [cr 0 cluster nodes]"
        }
        set ::crep_mover $mover
    }

    test {Two replicas of a killed master: one is elected, the other follows it} {
        cluster_require_formed
        set mover $::crep_mover
        # Node 5 came back as a replica of node 1 (its nodes.conf), beside the migrated one.
        cluster_wait_replica_everywhere 5 1
        cluster_wait_replica_everywhere $mover 1
        cluster_wait_link_up 5
        cluster_wait_link_up $mover
        wait_cluster_consistent
        set k [cluster_key_on_node 1 two]
        assert_equal OK [cr 1 set $k v]
        cluster_with_nodes_down {1} {
            set winner -1
            wait_for_condition 400 50 {
                [set winner [cluster_node_of_slot 5461 0]] in [list $mover 5]
            } else {
                fail "no replica took slot 5461: [cr 0 cluster nodes]"
            }
            set other [expr {$winner == 5 ? $mover : 5}]
            cluster_wait_master_of $winner {5461-10922} [list 0 2 $mover 5]
            wait_for_condition 400 50 {
                [dict get [cluster_view_entry $other [cluster_node_id $other]] master] eq
                [cluster_node_id $winner]
            } else {
                fail "node $other does not follow node $winner: [cr $other cluster nodes]"
            }
            cluster_wait_link_up $other
            assert_equal v [cr $winner get $k]
        }
    }

    test {CLUSTER RESET on a replica: an empty master that knows nobody} {
        cluster_require_formed
        set r [expr {$::crep_mover == 3 ? 4 : 3}]
        cluster_wait_link_up $r
        assert_equal OK [cr 0 set [cluster_key_on_node 0 rz] v]
        wait_for_condition 200 50 {[cr $r dbsize] > 0} else {
            fail "the replica never got its master's key"
        }
        assert_equal OK [cr $r cluster reset]
        set e [cluster_view_entry $r [cluster_node_id $r]]
        assert_equal "myself master" [dict get $e flags]
        assert_equal - [dict get $e master]
        assert_equal 1 [llength [cluster_view $r]]
        assert_equal 0 [cr $r dbsize]
        assert_match *role:master* [cr $r info replication]
    }
}
