# Fencing tokens across a slot move with no temporary key left in the slot (issue 26;
# docs/cluster.md, "Fencing tokens in a cluster"). A master's fencing counter can run ahead of
# another's (each start of a node opens a new block of 2^24 tokens), so when a slot moves without
# a key carrying a TPADOPT floor, the new owner must still learn the old owner's floor from the
# bus: a lock taken on the new owner gets a token above every token the old owner handed out for
# that lock. The slot moves by redis-cli --cluster reshard, by hand (SETSLOT IMPORTING /
# MIGRATING / NODE as redis-cli sends them), by SETSLOT NODE on the new owner alone (the old one
# learns it from the bus), and by DELSLOTS then ADDSLOTS. With the old owner stopped, the new
# owner answers SETTP ... FENCE with TRYAGAIN until the floor arrives, or until an operator's
# SETSLOT STABLE ends the wait. A mixed cluster shows a Redis 7.0 node
# takes the floor messages (module-type bus messages) silently. Every test is tagged redistp
# (fencing tokens are redis-tp's); before this change the first three moves failed here (the
# new owner's token was below the old owner's).

source tests/support/cluster.tcl

# INFO's fence_last of node i: the last token the node handed out or was raised to.
proc ff_fence_last {i} {
    return [getInfoProperty [cr $i info coordination] fence_last]
}

# A key prefix:N whose slot is `slot`, found with CLUSTER KEYSLOT on node 0 (bounded).
proc ff_key_in_slot {slot prefix} {
    for {set k 0} {$k < 200000} {incr k} {
        if {[cr 0 cluster keyslot $prefix:$k] == $slot} {return $prefix:$k}
    }
    error "no key $prefix:N in slot $slot in 200000 tries"
}

# Takes `key` on node i with SETTP ... FENCE and releases it with DELTP, `times` times; returns
# the tokens.
proc ff_take_and_release {i key times} {
    set tokens {}
    for {set n 0} {$n < $times} {incr n} {
        set t [cr $i settp $key holder FENCE]
        assert {$t > 0}
        lappend tokens $t
        assert_equal 1 [cr $i deltp $key]
    }
    return $tokens
}

# Makes node i's fencing counter run ahead of node `target`'s: a lock on `key` taken and
# released three times, then node i killed and started again (each start opens a new block of
# 2^24 tokens above the last durable mark) and the cluster waited for, until node i's tokens are
# above node `target`'s counter (two rounds at least, eight at most). Returns every token drawn.
proc ff_run_ahead {i key target} {
    set tokens {}
    for {set r 0} {$r < 8} {incr r} {
        lappend tokens {*}[ff_take_and_release $i $key 3]
        if {$r >= 2 && [ff_max $tokens] > [ff_fence_last $target]} {return $tokens}
        cluster_kill_node $i
        cluster_restart_node $i
        wait_cluster_consistent
        wait_cluster_state_ok
    }
    error "node $i's tokens never passed node $target's counter in 8 restarts"
}

proc ff_max {list} {
    set m 0
    foreach x $list {if {$x > $m} {set m $x}}
    return $m
}

# Waits until every node sees `slot` at node `owner`.
proc ff_wait_slot_at {slot owner} {
    for {set i 0} {$i < [cluster_node_count]} {incr i} {
        wait_for_condition 200 50 {[cluster_node_of_slot $slot $i] == $owner} else {
            fail "node $i sees slot $slot at node [cluster_node_of_slot $slot $i], not $owner"
        }
    }
}

# The token node i hands out for `key` now (taken and released). A TRYAGAIN (the node still
# waits for the old owner's floor) is retried, as a client does, at most 100 times.
proc ff_token_on {i key} {
    for {set n 0} {$n < 100} {incr n} {
        if {![catch {cr $i settp $key holder FENCE} t]} {
            assert_equal 1 [cr $i deltp $key]
            return $t
        }
        if {![string match {TRYAGAIN*} $t]} {error $t}
        after 20
    }
    error "node $i still answers TRYAGAIN for $key: $t"
}

start_cluster_nodes 2 {tags {cluster redistp}} {
    test {Setup: node 0 serves slots 0-15, node 1 the rest} {
        cluster_two_nodes_small_first
    }

    test {An empty slot moved by redis-cli --cluster reshard: the new owner's token is above the old owner's} {
        cluster_require_formed
        set key [ff_key_in_slot 5 ff]
        set tokens [ff_run_ahead 0 $key 1]
        set top [ff_max $tokens]
        # The hazard is real: the new owner's counter is below the old owner's tokens.
        assert {[ff_fence_last 1] < $top}
        assert_equal 0 [cr 0 cluster countkeysinslot 5]
        # Half of node 0's slots (redis-cli takes them in order: 0-7); with none left node 0
        # would turn replica.
        lassign [cluster_cli 120 --cluster reshard 127.0.0.1:[cluster_node_port 0] \
                     --cluster-from [cluster_node_id 0] --cluster-to [cluster_node_id 1] \
                     --cluster-slots 8 --cluster-yes] status out
        assert_equal 0 $status $out
        ff_wait_slot_at 5 1
        set after [ff_token_on 1 $key]
        assert {$after > $top} "token $after on the new owner, old owner's up to $top"
    }

    test {An empty slot moved by hand (SETSLOT IMPORTING, MIGRATING, NODE): the new owner's token is above} {
        cluster_require_formed
        # Slot 7 went to node 1 with the reshard; it comes back after node 1 ran ahead.
        set key [ff_key_in_slot 7 fh]
        set top [ff_max [ff_run_ahead 1 $key 0]]
        assert {[ff_fence_last 0] < $top}
        assert_equal OK [cr 0 cluster setslot 7 importing [cluster_node_id 1]]
        assert_equal OK [cr 1 cluster setslot 7 migrating [cluster_node_id 0]]
        assert_equal {} [cr 1 cluster getkeysinslot 7 10]
        assert_equal OK [cr 0 cluster setslot 7 node [cluster_node_id 0]]
        assert_equal OK [cr 1 cluster setslot 7 node [cluster_node_id 0]]
        ff_wait_slot_at 7 0
        set after [ff_token_on 0 $key]
        assert {$after > $top} "token $after on the new owner, old owner's up to $top"
    }

    test {An empty slot taken by SETSLOT NODE on the new owner alone: the new owner's token is above} {
        cluster_require_formed
        # Slot 7 is node 0's; node 0 runs ahead, node 1 takes the slot with a new epoch and
        # node 0 learns the move from the bus.
        set key [ff_key_in_slot 7 fn]
        set top [ff_max [ff_run_ahead 0 $key 1]]
        assert {[ff_fence_last 1] < $top}
        assert_match {[BS]* *} [cr 1 cluster bumpepoch]
        assert_equal OK [cr 1 cluster setslot 7 node [cluster_node_id 1]]
        ff_wait_slot_at 7 1
        set after [ff_token_on 1 $key]
        assert {$after > $top} "token $after on the new owner, old owner's up to $top"
    }

    test {A slot given up by DELSLOTS and taken by ADDSLOTS elsewhere: the new owner's token is above} {
        cluster_require_formed
        # Slot 9 goes from node 0 to node 1 through nobody (the cluster is down meanwhile).
        set key [ff_key_in_slot 9 fd]
        set top [ff_max [ff_run_ahead 0 $key 1]]
        assert {[ff_fence_last 1] < $top}
        # DELSLOTS on every node (a node's DELSLOTS only changes its own view), then ADDSLOTS.
        assert_equal OK [cr 0 cluster delslots 9]
        assert_equal OK [cr 1 cluster delslots 9]
        assert_equal OK [cr 1 cluster addslots 9]
        ff_wait_slot_at 9 1
        wait_cluster_state_ok
        set after [ff_token_on 1 $key]
        assert {$after > $top} "token $after on the new owner, old owner's up to $top"
    }

    test {A floor raises the counter durably: a crash of the new owner right after cannot go below it} {
        cluster_require_formed
        # Slot 10 is node 0's: node 0 runs ahead, starts giving the slot to node 1, and node 1
        # is killed before it draws any token; after its restart its token is still above.
        set key [ff_key_in_slot 10 fc]
        set top [ff_max [ff_run_ahead 0 $key 1]]
        assert {[ff_fence_last 1] < $top}
        assert_equal OK [cr 1 cluster setslot 10 importing [cluster_node_id 0]]
        assert_equal OK [cr 0 cluster setslot 10 migrating [cluster_node_id 1]]
        wait_for_condition 100 50 {[ff_fence_last 1] >= $top} else {
            fail "node 1's counter [ff_fence_last 1] never reached $top"
        }
        cluster_kill_node 1
        cluster_restart_node 1
        wait_cluster_consistent
        wait_cluster_state_ok
        assert_equal OK [cr 1 cluster setslot 10 node [cluster_node_id 1]]
        assert_equal OK [cr 0 cluster setslot 10 node [cluster_node_id 1]]
        ff_wait_slot_at 10 1
        set after [ff_token_on 1 $key]
        assert {$after > $top} "token $after on the new owner, old owner's up to $top"
    }
}

# The target waits for the floor: with the source stopped (SIGSTOP) the target imports a slot
# and refuses to draw a token for its keys (TRYAGAIN) until the source, running again, answers.
start_cluster_nodes 2 {tags {cluster redistp}} {
    test {Setup: node 0 serves slots 0-15, node 1 the rest} {
        cluster_two_nodes_small_first
    }

    test {An importing slot refuses SETTP ... FENCE with TRYAGAIN until the source's floor arrives} {
        cluster_require_formed
        set key [ff_key_in_slot 12 fw]
        set top [ff_max [ff_run_ahead 0 $key 1]]
        assert {[ff_fence_last 1] < $top}
        set pid [srv [cluster_level 0] pid]
        set rd [::redis::redis 127.0.0.1 [cluster_node_port 1] 1 10000]
        set id0 [cluster_node_id 0]
        exec kill -STOP $pid
        set rc [catch {
            assert_equal OK [cr 1 cluster setslot 12 importing $id0]
            $rd asking
            assert_equal OK [$rd read]
            $rd settp $key holder FENCE
            assert_error {TRYAGAIN Fencing floor*} {$rd read}
            # A SETTP without FENCE draws no token: served.
            $rd asking
            $rd read
            $rd settp $key holder
            assert_equal 1 [$rd read]
            $rd asking
            $rd read
            $rd deltp $key
            assert_equal 1 [$rd read]
        } err opts]
        exec kill -CONT $pid
        if {$rc} {return -options $opts $err}
        set after ""
        wait_for_condition 100 50 {
            [catch {
                $rd asking
                $rd read
                $rd settp $key holder FENCE
                set after [$rd read]
            }] == 0
        } else {
            fail "node 1 still refuses the token"
        }
        assert {$after > $top} "token $after on the importing node, source's up to $top"
        $rd asking
        $rd read
        $rd deltp $key
        assert_equal 1 [$rd read]
        assert_equal OK [cr 1 cluster setslot 12 stable]
        $rd close
    }

    test {A wait whose old owner is gone ends with SETSLOT STABLE on the new owner} {
        cluster_require_formed
        # Node 0 is stopped; node 1 takes slot 13 by SETSLOT NODE: it asks node 0 and waits.
        set key [ff_key_in_slot 13 fs]
        set pid [srv [cluster_level 0] pid]
        set id1 [cluster_node_id 1]
        exec kill -STOP $pid
        set rc [catch {
            assert_match {[BS]* *} [cr 1 cluster bumpepoch]
            assert_equal OK [cr 1 cluster setslot 13 node $id1]
            assert_error {TRYAGAIN Fencing floor*} {cr 1 settp $key holder FENCE}
            assert_equal OK [cr 1 cluster setslot 13 stable]
            set t [cr 1 settp $key holder FENCE]
            assert {$t > 0}
            assert_equal 1 [cr 1 deltp $key]
            # A SETSLOT NODE to itself now, the slot being its own, waits no more.
            assert_equal OK [cr 1 cluster setslot 13 node $id1]
            assert {[cr 1 settp $key holder FENCE] > $t}
            assert_equal 1 [cr 1 deltp $key]
        } err opts]
        exec kill -CONT $pid
        if {$rc} {return -options $opts $err}
        ff_wait_slot_at 13 1
    }
}

# A mixed cluster: node 0 is redis-tp, node 1 Debian's Redis 7.0.15. The floor messages (and
# requests) redis-tp sends when slots move reach the Redis node as module messages of a module
# it does not have: counted in its CLUSTER INFO, dropped without a line in its log.
start_cluster_nodes 2 {tags {cluster redistp} redis {1}} {
    test {Setup: node 0 (redis-tp) serves slots 0-15, node 1 (Redis 7.0) the rest} {
        cluster_meet_all
        assert_equal OK [cr 0 cluster addslotsrange 0 15]
        assert_equal OK [cr 1 cluster addslotsrange 16 16383]
        wait_cluster_consistent
        wait_cluster_state_ok
    }

    test {Slots moved between redis-tp and Redis 7.0: the Redis node takes the floor messages silently} {
        cluster_require_formed
        set log [srv [cluster_level 1] stdout]
        set before [llength [split [exec cat $log] "\n"]]
        set key [ff_key_in_slot 3 fm]
        ff_take_and_release 0 $key 3
        # redis-tp to Redis by reshard (slots 0-7), back by hand, then DELSLOTS / ADDSLOTS
        # both ways.
        lassign [cluster_cli 120 --cluster reshard 127.0.0.1:[cluster_node_port 0] \
                     --cluster-from [cluster_node_id 0] --cluster-to [cluster_node_id 1] \
                     --cluster-slots 8 --cluster-yes] status out
        assert_equal 0 $status $out
        ff_wait_slot_at 3 1
        assert_equal OK [cr 0 cluster setslot 3 importing [cluster_node_id 1]]
        assert_equal OK [cr 1 cluster setslot 3 migrating [cluster_node_id 0]]
        assert_equal OK [cr 0 cluster setslot 3 node [cluster_node_id 0]]
        assert_equal OK [cr 1 cluster setslot 3 node [cluster_node_id 0]]
        ff_wait_slot_at 3 0
        wait_cluster_state_ok
        ff_take_and_release 0 $key 3
        assert_equal OK [cr 0 cluster delslots 3]
        assert_equal OK [cr 1 cluster delslots 3]
        assert_equal OK [cr 1 cluster addslots 3]
        ff_wait_slot_at 3 1
        assert_equal OK [cr 1 cluster delslots 3]
        assert_equal OK [cr 0 cluster delslots 3]
        assert_equal OK [cr 0 cluster addslots 3]
        ff_wait_slot_at 3 0
        wait_cluster_consistent
        wait_cluster_state_ok
        # The Redis node received module messages ...
        wait_for_condition 100 50 {
            [cluster_info_field 1 cluster_stats_messages_module_received] ne ""
        } else {
            fail "the Redis node counted no module message"
        }
        assert {[cluster_info_field 1 cluster_stats_messages_module_received] > 0}
        # ... and logged nothing about them: every warning it wrote since is one the same moves
        # write between Redis nodes (the epoch taken for an imported slot, two lines; the state
        # while slot 3 had no owner), and no line speaks of a module, a message type or an
        # extension.
        set lines [lrange [split [exec cat $log] "\n"] $before end]
        foreach line $lines {
            if {![string match {* # *} $line]} continue
            if {[string match {*New configEpoch set to*} $line]} continue
            if {[string match {*configEpoch updated after importing slot*} $line]} continue
            if {[string match {*Cluster state changed: *} $line]} continue
            fail "unexpected warning in the Redis node's log: $line"
        }
        foreach line $lines {
            foreach word {module extension unknown type} {
                assert {![string match -nocase "*$word*" $line]} $line
            }
        }
    }
}
