# The cluster bus between live nodes: CLUSTER MEET and gossip (every node knows every node, with
# the same ids and slots and connected links), a node learning its own address, redirections to
# another node's real port, config epochs (collisions resolved, a slot moved by SETSLOT NODE and
# BUMPEPOCH), failure detection (fail? and fail, the cluster down, a restarted node rejoining),
# FORGET and its ban, Pub/Sub over the bus, redis-cli --cluster create / check and redis-cli -c,
# and mixed clusters with one node of Debian's Redis 7.0.15 (met by ours, and meeting ours).
# Every test passes against Redis (--server /usr/bin/redis-server); tests/support/cluster.tcl's
# essay says how the nodes are started and how long the waits may take. Against a server whose
# bus is missing or broken, each block fails at its first bounded wait and its later tests fail
# at once (cluster_require_formed).

source tests/support/cluster.tcl

# A deferring client of node i whose reads give up after 10 s (a message that never crosses the
# bus fails the test instead of hanging it).
proc cluster_subscriber {i} {
    return [::redis::redis 127.0.0.1 [cluster_node_port $i] 1 10000]
}

start_cluster_nodes 3 {tags {cluster bus}} {
    test {Three nodes joined by CLUSTER MEET from one of them know each other by the same ids} {
        cluster_meet_all
        wait_cluster_consistent
        for {set i 0} {$i < 3} {incr i} {
            assert_equal 3 [cluster_info_field $i cluster_known_nodes]
            assert_equal 3 [llength [cluster_view $i]]
        }
    }

    test {A node learns its own address from the bus: 127.0.0.1:port@cport in every view} {
        cluster_require_formed
        for {set i 0} {$i < 3} {incr i} {
            set id [cluster_node_id $i]
            set addr 127.0.0.1:[cluster_node_port $i]@[cluster_node_cport $i]
            for {set j 0} {$j < 3} {incr j} {
                wait_for_condition 200 50 {
                    [dict get [cluster_view_entry $j $id] addr] eq $addr
                } else {
                    fail "node $j shows node $i as [cluster_view_entry $j $id], not at $addr"
                }
            }
            assert_equal "myself master" [dict get [cluster_view_entry $i $id] flags]
        }
    }

    test {Slots added with ADDSLOTSRANGE on each node: CLUSTER SLOTS and SHARDS agree, state ok} {
        cluster_require_formed
        cluster_assign_slots
        wait_cluster_consistent
        wait_cluster_state_ok
        set expected {}
        for {set i 0} {$i < 3} {incr i} {
            lassign [cluster_slot_range $i] first last
            lappend expected [list $first $last 127.0.0.1 [cluster_node_port $i] \
                [cluster_node_id $i]]
        }
        for {set i 0} {$i < 3} {incr i} {
            set slots [lsort -integer -index 0 [cr $i cluster slots]]
            assert_equal $expected [lmap s $slots {
                list {*}[lrange $s 0 1] {*}[lrange [lindex $s 2] 0 2]
            }] "CLUSTER SLOTS of node $i"
            # CLUSTER SHARDS: one shard per master, its slots, the master online.
            set shards [lmap sh [cr $i cluster shards] {
                set n [lindex [dict get $sh nodes] 0]
                list {*}[dict get $sh slots] [dict get $n ip] [dict get $n port] [dict get $n id] \
                    [dict get $n role] [dict get $n health] [llength [dict get $sh nodes]]
            }]
            assert_equal [lmap e $expected {list {*}$e master online 1}] \
                [lsort -integer -index 0 $shards] "CLUSTER SHARDS of node $i"
            assert_equal 16384 [cluster_info_field $i cluster_slots_assigned]
            assert_equal 16384 [cluster_info_field $i cluster_slots_ok]
            assert_equal 3 [cluster_info_field $i cluster_size]
        }
    }

    test {CLUSTER INFO counts pings sent and pongs received, CLUSTER LINKS shows both directions} {
        cluster_require_formed
        set fields {direction node create-time events send-buffer-allocated send-buffer-used}
        for {set i 0} {$i < 3} {incr i} {
            assert_morethan [cluster_info_field $i cluster_stats_messages_ping_sent] 0
            assert_morethan [cluster_info_field $i cluster_stats_messages_pong_received] 0
            assert_morethan [cluster_info_field $i cluster_stats_messages_sent] 0
            assert_morethan [cluster_info_field $i cluster_stats_messages_received] 0
            set expected {}
            for {set j 0} {$j < 3} {incr j} {
                if {$j != $i} {
                    lappend expected [list to [cluster_node_id $j]] [list from [cluster_node_id $j]]
                }
            }
            set expected [lsort $expected]
            # An inbound link exists once the peer connected; each side connects by itself.
            wait_for_condition 200 50 {
                [lsort [lmap l [cr $i cluster links] {
                    list [dict get $l direction] [dict get $l node]
                }]] eq $expected
            } else {
                fail "node $i: CLUSTER LINKS is [cr $i cluster links], expected $expected"
            }
            foreach l [cr $i cluster links] {
                assert_equal $fields [dict keys $l]
                assert_morethan_equal [dict get $l create-time] 1
            }
        }
    }

    test {A key is served by its slot's owner; the other nodes answer MOVED with the owner's port} {
        cluster_require_formed
        set slot [cr 0 cluster keyslot foo]
        set owner [cluster_node_of_slot $slot]
        assert_equal 2 $owner
        assert_equal OK [cr $owner set foo bar]
        assert_equal bar [cr $owner get foo]
        for {set i 0} {$i < 3} {incr i} {
            if {$i == $owner} continue
            assert_error "MOVED $slot 127.0.0.1:[cluster_node_port $owner]" {cr $i get foo}
            assert_equal $owner [cluster_node_of_slot $slot $i]
        }
        # Keys of one hash tag live together on the tag's owner.
        set tag_owner [cluster_node_of_slot [cr 0 cluster keyslot u1]]
        assert_equal OK [cr $tag_owner mset "{u1}.a" 1 "{u1}.b" 2]
        assert_equal {1 2} [cr $tag_owner mget "{u1}.a" "{u1}.b"]
        set other [expr {($tag_owner + 1) % 3}]
        assert_error "MOVED [cr 0 cluster keyslot u1] 127.0.0.1:[cluster_node_port $tag_owner]" \
            {cr $other mget "{u1}.a" "{u1}.b"}
    }

    test {Masters that all start at config epoch 0 end with distinct epochs} {
        cluster_require_formed
        # The epoch of each node as node 0 sees it, and as the node itself says.
        wait_for_condition 200 50 {
            [llength [lsort -unique [lmap e [cluster_view 0] {dict get $e config_epoch}]]] == 3
        } else {
            fail "node 0 still sees equal config epochs: [cr 0 cluster nodes]"
        }
        set max 0
        for {set i 0} {$i < 3} {incr i} {
            set mine [cluster_info_field $i cluster_my_epoch]
            set id [cluster_node_id $i]
            wait_for_condition 200 50 {
                [dict get [cluster_view_entry 0 $id] config_epoch] == $mine
            } else {
                fail "node 0 sees node $i at epoch\
                      [dict get [cluster_view_entry 0 $id] config_epoch], it says $mine"
            }
            if {$mine > $max} {set max $mine}
        }
        for {set i 0} {$i < 3} {incr i} {
            wait_for_condition 200 50 {
                [cluster_info_field $i cluster_current_epoch] == $max
            } else {
                fail "node $i: current epoch [cluster_info_field $i cluster_current_epoch],\
                      the highest config epoch is $max"
            }
        }
    }

    test {A slot moved by SETSLOT NODE and BUMPEPOCH on its new owner is moved on every node} {
        cluster_require_formed
        set slot [cr 0 cluster keyslot movekey]
        set old [cluster_node_of_slot $slot]
        set new [expr {($old + 1) % 3}]
        set new_id [cluster_node_id $new]
        # The epoch first: a claim made with a lower epoch than the old owner's could be undone
        # by its UPDATE message before the bump. STILL when it already is the one highest.
        assert_match {[BS]* *} [cr $new cluster bumpepoch]
        assert_equal OK [cr $new cluster setslot $slot node $new_id]
        for {set i 0} {$i < 3} {incr i} {
            wait_for_condition 200 50 {[cluster_node_of_slot $slot $i] == $new} else {
                fail "node $i sees slot $slot at node [cluster_node_of_slot $slot $i], not $new"
            }
        }
        wait_cluster_consistent
        assert_error "MOVED $slot 127.0.0.1:[cluster_node_port $new]" {cr $old set movekey 1}
        assert_equal OK [cr $new set movekey 1]
        # The new owner's epoch is the highest, and every node's current epoch reached it.
        set epoch [cluster_info_field $new cluster_my_epoch]
        for {set i 0} {$i < 3} {incr i} {
            if {$i != $new} {assert_lessthan [cluster_info_field $i cluster_my_epoch] $epoch}
            wait_for_condition 200 50 {
                [cluster_info_field $i cluster_current_epoch] == $epoch
            } else {
                fail "node $i: current epoch [cluster_info_field $i cluster_current_epoch],\
                      not $epoch"
            }
        }
    }

    test {Pub/Sub: PUBLISH on one node reaches a SUBSCRIBE client of another} {
        cluster_require_formed
        set sub [cluster_subscriber 2]
        $sub subscribe news
        assert_equal {subscribe news 1} [$sub read]
        # PUBLISH counts the receivers of the node it ran on only.
        assert_equal 0 [cr 0 publish news hello]
        assert_equal {message news hello} [$sub read]
        assert_equal 0 [cr 1 publish news again]
        assert_equal {message news again} [$sub read]
        $sub close
    }

    test {Pub/Sub: SPUBLISH on the owner of the channel's slot reaches its SSUBSCRIBE clients} {
        cluster_require_formed
        set slot [cr 0 cluster keyslot orders]
        set owner [cluster_node_of_slot $slot]
        set other [expr {($owner + 1) % 3}]
        set sub [cluster_subscriber $owner]
        $sub ssubscribe orders
        assert_equal {ssubscribe orders 1} [$sub read]
        assert_error "MOVED $slot 127.0.0.1:[cluster_node_port $owner]" \
            {cr $other spublish orders x}
        assert_equal 1 [cr $owner spublish orders paid]
        assert_equal {smessage orders paid} [$sub read]
        $sub close
    }

    test {A killed master is flagged fail by the others and the cluster goes down} {
        cluster_require_formed
        set ::victim_id [cluster_node_id 2]
        # Node 2 is restarted (same port, its nodes.conf) when this body ends.
        cluster_with_nodes_down {2} {
            foreach i {0 1} {
                wait_for_condition 200 50 {
                    "fail" in [dict get [cluster_view_entry $i $::victim_id] flags]
                } else {
                    fail "node $i sees the killed node as [cluster_view_entry $i $::victim_id]"
                }
                wait_for_condition 200 50 {[cluster_info_field $i cluster_state] eq "fail"} else {
                    fail "node $i: cluster_state stayed [cluster_info_field $i cluster_state]"
                }
                assert_error {CLUSTERDOWN The cluster is down} {cr $i get foo}
            }
        }
    }

    test {Restarted on its port with its nodes.conf, the failed master rejoins, FAIL cleared} {
        cluster_require_formed
        assert_equal $::victim_id [cluster_node_id 2]
        wait_cluster_consistent
        wait_cluster_state_ok
        # Its slots are its own again (the data is gone: no persistence in these tests).
        assert_equal OK [cr 2 set foo back]
        assert_error "MOVED [cr 0 cluster keyslot foo] 127.0.0.1:[cluster_node_port 2]" \
            {cr 0 get foo}
    }

    test {Alone, a surviving master flags the other two fail? and not fail (no majority)} {
        cluster_require_formed
        set ids [list [cluster_node_id 1] [cluster_node_id 2]]
        cluster_with_nodes_down {1 2} {
            foreach id $ids {
                wait_for_condition 200 50 {
                    "fail?" in [dict get [cluster_view_entry 0 $id] flags]
                } else {
                    fail "node 0 sees a killed node as [cluster_view_entry 0 $id]"
                }
            }
            foreach id $ids {
                assert_equal {master fail?} [dict get [cluster_view_entry 0 $id] flags]
            }
            wait_for_condition 200 50 {[cluster_info_field 0 cluster_state] eq "fail"} else {
                fail "node 0: cluster_state stayed [cluster_info_field 0 cluster_state]"
            }
        }
        wait_cluster_consistent
        wait_cluster_state_ok
    }

    test {CLUSTER FORGET removes a node; gossip about it does not bring it back during the ban} {
        cluster_require_formed
        set gone [cluster_node_id 2]
        assert_equal OK [cr 0 cluster forget $gone]
        assert_equal {} [cluster_view_entry 0 $gone]
        assert_equal 2 [cluster_info_field 0 cluster_known_nodes]
        # Node 1 still knows node 2 and names it in the gossip of its pings to node 0.
        set received [cluster_info_field 0 cluster_stats_messages_received]
        wait_for_condition 200 50 {
            [cluster_info_field 0 cluster_stats_messages_received] >= $received + 10
        } else {
            fail "node 0 received no messages after the FORGET"
        }
        # Re-added by gossip, it would show as a handshake node (a random id) first: so the
        # check is the whole set of ids, not the absence of one.
        set kept [lsort [list [cluster_node_id 0] [cluster_node_id 1]]]
        assert_equal $kept [lsort [lmap e [cluster_view 0] {dict get $e id}]]
        assert_equal 2 [cluster_info_field 0 cluster_known_nodes]
        assert_equal OK [cr 1 cluster forget $gone]
        set received [cluster_info_field 0 cluster_stats_messages_received]
        wait_for_condition 200 50 {
            [cluster_info_field 0 cluster_stats_messages_received] >= $received + 10
        } else {
            fail "node 0 received no messages after the second FORGET"
        }
        foreach i {0 1} {
            assert_equal $kept [lsort [lmap e [cluster_view $i] {dict get $e id}]] \
                "the nodes node $i knows"
            assert_equal 2 [cluster_info_field $i cluster_known_nodes]
        }
        assert_error {ERR Unknown node *} {cr 0 cluster forget $gone}
    }
}

start_cluster_nodes 3 {tags {cluster bus}} {
    test {redis-cli --cluster create: three masters, distinct epochs; --cluster check passes} {
        lassign [cluster_create_with_cli] status out
        assert_equal 0 $status "redis-cli --cluster create: $out"
        assert_match {*All 16384 slots covered*} $out
        wait_cluster_consistent
        wait_cluster_state_ok
        set epochs {}
        for {set i 0} {$i < 3} {incr i} {
            lappend epochs [cluster_info_field $i cluster_my_epoch]
            assert_equal 1 [llength [dict get [cluster_view_entry $i [cluster_node_id $i]] slots]]
        }
        assert_equal 3 [llength [lsort -unique $epochs]] "config epochs $epochs"
        lassign [cluster_cli 30 --cluster check 127.0.0.1:[cluster_node_port 0]] status out
        assert_equal 0 $status "redis-cli --cluster check: $out"
        assert_match {*All nodes agree about slots configuration*} $out
        assert_match {*All 16384 slots covered*} $out
    }

    test {redis-cli -c follows the redirection for a SET/GET pair} {
        cluster_require_formed
        set key [cluster_key_on_node 2 cli]
        set slot [cr 0 cluster keyslot $key]
        lassign [cluster_cli 10 -p [cluster_node_port 0] set $key v1] status out
        assert_equal 0 $status
        assert_match "*MOVED $slot 127.0.0.1:[cluster_node_port 2]*" $out
        lassign [cluster_cli 10 -c -p [cluster_node_port 0] set $key v1] status out
        assert_equal {0 OK} [list $status $out]
        lassign [cluster_cli 10 -c -p [cluster_node_port 1] get $key] status out
        assert_equal {0 v1} [list $status $out]
        assert_equal v1 [cr 2 get $key]
    }
}

# Mixed clusters: one node is Debian's Redis 7.0.15, the two others the server under test. With
# the Redis node last, one of ours sends every MEET (ours to ours, ours to Redis); with it first,
# Redis meets ours.
foreach {redis_node who} {2 {node 0 (ours) meets the others} 0 {node 0 (Redis) meets ours}} {
    start_cluster_nodes 3 [list tags {cluster bus} redis [list $redis_node]] {
        test "Mixed cluster, $who: MEET, slots and agreement" {
            cluster_meet_all
            wait_cluster_consistent
            cluster_assign_slots
            wait_cluster_consistent
            wait_cluster_state_ok
            set reference [lsort -integer -index 0 [cr 0 cluster slots]]
            assert_equal 3 [llength $reference]
            for {set i 0} {$i < 3} {incr i} {
                assert_equal $reference [lsort -integer -index 0 [cr $i cluster slots]] \
                    "CLUSTER SLOTS of node $i"
                assert_equal 3 [cluster_info_field $i cluster_known_nodes]
                set addr 127.0.0.1:[cluster_node_port $i]@[cluster_node_cport $i]
                wait_for_condition 200 50 {
                    [dict get [cluster_view_entry $i [cluster_node_id $i]] addr] eq $addr
                } else {
                    fail "node $i shows itself at\
                          [dict get [cluster_view_entry $i [cluster_node_id $i]] addr], not $addr"
                }
            }
        }

        test "Mixed cluster, $who: each node serves its keys, the others answer MOVED to it" {
            cluster_require_formed
            for {set owner 0} {$owner < 3} {incr owner} {
                set key [cluster_key_on_node $owner mixed]
                set slot [cr 0 cluster keyslot $key]
                assert_equal OK [cr $owner set $key v$owner]
                for {set i 0} {$i < 3} {incr i} {
                    if {$i == $owner} continue
                    assert_error "MOVED $slot 127.0.0.1:[cluster_node_port $owner]" \
                        {cr $i get $key}
                }
                assert_equal v$owner [cr $owner get $key]
            }
        }
    }
}
