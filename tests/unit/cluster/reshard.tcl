# Slot migration between live nodes, driven by Debian's redis-cli --cluster (reshard, rebalance,
# add-node, del-node, check, fix, info): each ends with the end state Redis reaches, every key on
# its slot's owner with its value. The steps of one slot's move, as redis-cli 7.0 takes them:
# SETSLOT IMPORTING on the target, MIGRATING on the source, GETKEYSINSLOT and MIGRATE ... KEYS
# (sent on as RESTORE-ASKING) until the slot is empty, then SETSLOT NODE on the target (which
# takes a new config epoch and tells the others), on the source and on every other master.
# During the move the source answers ASK for a key it no longer holds and TRYAGAIN for a
# multi-key request split between the two, and the target serves the slot after ASKING.
# A reshard under a bounded write load (redis-cli -c, and a client of our own that follows MOVED
# and ASK as cluster clients do and reads each write back) loses no write, and keys of every type move from a Redis node to ours and back with their
# values and TTLs. Every test passes against Redis (--server /usr/bin/redis-server).

source tests/support/cluster.tcl

# The index of the node listening on `port`.
proc reshard_port_node {port} {
    for {set i 0} {$i < [cluster_node_count]} {incr i} {
        if {[cluster_node_port $i] == $port} {return $i}
    }
    error "no node listens on port $port"
}

# reshard_routed cmd key ...: a routed client. The slot's owner as last learned (from node 0's
# CLUSTER NODES, then from MOVED), ASK followed for one command with ASKING, TRYAGAIN retried;
# at most 50 tries, so a node that never settles fails the test. Counts the redirections in
# ::reshard_redirects.
proc reshard_routed {args} {
    set key [lindex $args 1]
    set slot [cr 0 cluster keyslot $key]
    if {![info exists ::reshard_route($slot)]} {
        set ::reshard_route($slot) [cluster_node_of_slot $slot]
    }
    set node $::reshard_route($slot)
    set asking 0
    for {set try 0} {$try < 50} {incr try} {
        if {$asking} {cr $node asking}
        if {![catch {cr $node {*}$args} reply]} {return $reply}
        if {[regexp {^MOVED [0-9]+ [0-9.]+:([0-9]+)} $reply -> port]} {
            set node [reshard_port_node $port]
            set ::reshard_route($slot) $node
            set asking 0
            incr ::reshard_redirects(moved)
        } elseif {[regexp {^ASK [0-9]+ [0-9.]+:([0-9]+)} $reply -> port]} {
            set node [reshard_port_node $port]
            set asking 1
            incr ::reshard_redirects(ask)
        } elseif {[string match {TRYAGAIN*} $reply]} {
            after 10
        } else {
            error $reply
        }
    }
    error "no node served $args in 50 tries"
}

# Writes key:0..n-1 = v0..v(n-1) through the routed client.
proc reshard_fill {n {prefix key}} {
    for {set k 0} {$k < $n} {incr k} {reshard_routed set $prefix:$k v$k}
}

# Fails unless every key in `expected` (a dict key -> value) is on its slot's owner (in node 0's
# view) with that value, and the nodes hold exactly the keys written (the sum of their DBSIZE).
proc reshard_assert_keys {expected} {
    foreach {key value} $expected {
        set owner [cluster_node_of_slot [cr 0 cluster keyslot $key]]
        assert_equal $value [cr $owner get $key] "$key on node $owner"
    }
    set total 0
    for {set i 0} {$i < [cluster_node_count]} {incr i} {incr total [cr $i dbsize]}
    assert_equal [dict size $expected] $total "keys on all nodes"
}

# redis-cli --cluster reshard of `count` slots from node `from` to node `to`.
proc reshard_cli {from to count {seconds 120}} {
    return [cluster_cli $seconds --cluster reshard 127.0.0.1:[cluster_node_port 0] \
        --cluster-from [cluster_node_id $from] --cluster-to [cluster_node_id $to] \
        --cluster-slots $count --cluster-yes]
}

# The slot ranges node i owns in its own view.
proc reshard_slot_ranges {i} {
    return [dict get [cluster_view_entry $i [cluster_node_id $i]] slots]
}

# The [slot->-id] and [slot-<-id] entries of every node for itself ({} when no slot is open).
proc reshard_open_slots {} {
    set open {}
    for {set i 0} {$i < [cluster_node_count]} {incr i} {
        set m [dict get [cluster_view_entry $i [cluster_node_id $i]] migrations]
        if {$m ne ""} {lappend open "node $i: $m"}
    }
    return $open
}

# The nodes that form the cluster (node 3 of the first block joins with add-node).
proc reshard_agree {} {wait_cluster_consistent 400 50 $::reshard_members}

start_cluster_nodes 4 {tags {cluster reshard}} {
    array unset ::reshard_route
    set ::reshard_members {0 1 2}
    set expected {}

    test {redis-cli --cluster reshard moves 300 slots and their keys; every node agrees} {
        lassign [cluster_create_with_cli {0 1 2}] status out
        assert_equal 0 $status "redis-cli --cluster create: $out"
        reshard_agree
        wait_cluster_state_ok {0 1 2}
        reshard_fill 2000
        for {set k 0} {$k < 2000} {incr k} {dict set expected key:$k v$k}
        lassign [reshard_cli 0 1 300] status out
        assert_equal 0 $status "redis-cli --cluster reshard: $out"
        assert_match "*Moving slot 299 from 127.0.0.1:[cluster_node_port 0]*" $out
        reshard_agree
        for {set i 0} {$i < 3} {incr i} {
            assert_equal {0-299 5461-10922} [dict get [cluster_view_entry $i \
                [cluster_node_id 1]] slots] "node 1's slots in node $i's view"
        }
        reshard_assert_keys $expected
        # The importing node took a config epoch above every other.
        set e1 [cluster_info_field 1 cluster_my_epoch]
        foreach i {0 2} {assert_morethan $e1 [cluster_info_field $i cluster_my_epoch]}
        assert_equal {} [reshard_open_slots]
    }

    test {During a move: ASK for a key gone, TRYAGAIN for a split MGET, ASKING on the target} {
        cluster_require_formed
        set key "{mv}a"
        set slot [cr 0 cluster keyslot $key]
        set src [cluster_node_of_slot $slot]
        set dst [expr {($src + 1) % 3}]
        cr $src mset "{mv}a" 1 "{mv}b" 2 "{mv}d" 5
        assert_equal OK [cr $dst cluster setslot $slot importing [cluster_node_id $src]]
        assert_equal OK [cr $src cluster setslot $slot migrating [cluster_node_id $dst]]
        # The slot stays open for the next test.
        set ::reshard_open [list $slot $src $dst]
        assert_equal OK [cr $src migrate 127.0.0.1 [cluster_node_port $dst] "" 0 5000 keys "{mv}a"]
        set dst_addr 127.0.0.1:[cluster_node_port $dst]
        assert_error "ASK $slot $dst_addr" {cr $src get "{mv}a"}
        assert_equal 2 [cr $src get "{mv}b"]
        assert_error {TRYAGAIN *} {cr $src mget "{mv}a" "{mv}b"}
        assert_error "MOVED $slot 127.0.0.1:[cluster_node_port $src]" {cr $dst get "{mv}a"}
        cr $dst asking
        assert_equal 1 [cr $dst get "{mv}a"]
        # On the target too, a multi-key request with a key not there yet is TRYAGAIN.
        cr $dst asking
        assert_error {TRYAGAIN *} {cr $dst mget "{mv}a" "{mv}b"}
        # COPY keeps the key here; a second MIGRATE finds it there: BUSYKEY unless REPLACE.
        set dst_port [cluster_node_port $dst]
        assert_equal OK [cr $src migrate 127.0.0.1 $dst_port "{mv}d" 0 5000 copy]
        assert_equal 5 [cr $src get "{mv}d"]
        assert_error {*BUSYKEY*} {cr $src migrate 127.0.0.1 $dst_port "{mv}d" 0 5000}
        assert_equal OK [cr $src migrate 127.0.0.1 $dst_port "" 0 5000 replace keys "{mv}d"]
        assert_error "ASK $slot $dst_addr" {cr $src get "{mv}d"}
        # AUTH2 for the target's user; a wrong password is the target's error.
        cr $dst acl setuser mover on >pw +@all ~*
        assert_error "*Target instance replied with error: WRONGPASS*" \
            {cr $src migrate 127.0.0.1 $dst_port "" 0 5000 copy auth2 mover nope keys "{mv}b"}
        # The RESTORE sent behind the refused AUTH still ran, as the target connection's default
        # user (Redis writes them in one go and reads the replies after).
        cr $dst asking
        assert_equal 2 [cr $dst get "{mv}b"]
        assert_equal OK [cr $src migrate 127.0.0.1 $dst_port "" 0 5000 copy replace \
            auth2 mover pw keys "{mv}b"]
        cr $dst asking
        assert_equal 1 [cr $dst del "{mv}b"]
        cr $dst acl deluser mover
        # A node that is not importing the slot refuses the RESTORE-ASKING with MOVED; the
        # key stays.
        set third [expr {($src + 2) % 3}]
        assert_error "*Target instance replied with error: MOVED $slot*" \
            {cr $src migrate 127.0.0.1 [cluster_node_port $third] "{mv}b" 0 5000}
        assert_equal 2 [cr $src get "{mv}b"]
    }

    test {redis-cli --cluster check warns of the open slot; --cluster fix closes it, keys kept} {
        cluster_require_formed
        lassign $::reshard_open slot src dst
        lassign [cluster_cli 30 --cluster check 127.0.0.1:[cluster_node_port 0]] status out
        assert_match "*\\\[WARNING\\\] Node 127.0.0.1:[cluster_node_port $src] has slots in\
            migrating state $slot.*" $out
        assert_match "*\\\[WARNING\\\] Node 127.0.0.1:[cluster_node_port $dst] has slots in\
            importing state $slot.*" $out
        assert_match "*\\\[WARNING\\\] The following slots are open: $slot.*" $out
        lassign [cluster_cli 60 --cluster fix 127.0.0.1:[cluster_node_port 0]] status out
        assert_equal 0 $status "redis-cli --cluster fix: $out"
        assert_match "*>>> Fixing open slot $slot*" $out
        lassign [cluster_cli 30 --cluster check 127.0.0.1:[cluster_node_port 0]] status out
        assert_equal 0 $status "redis-cli --cluster check: $out"
        assert_no_match {*slots are open*} $out
        reshard_agree
        assert_equal {} [reshard_open_slots]
        dict set expected "{mv}a" 1
        dict set expected "{mv}b" 2
        dict set expected "{mv}d" 5
        reshard_assert_keys $expected
    }

    test {Slots without an owner: --cluster check says [ERR], --cluster fix covers them} {
        cluster_require_formed
        # Two slots of node 2 without keys, deleted on every node.
        set empty {}
        for {set s 16383} {[llength $empty] < 2 && $s > 10923} {incr s -1} {
            if {[cr 2 cluster countkeysinslot $s] == 0} {lappend empty $s}
        }
        for {set i 0} {$i < 3} {incr i} {assert_equal OK [cr $i cluster delslots {*}$empty]}
        reshard_agree
        lassign [cluster_cli 30 --cluster check 127.0.0.1:[cluster_node_port 0]] status out
        assert_match {*\[ERR\] Not all 16384 slots are covered by nodes.*} $out
        # fix asks before covering them with a random master: the answer comes on stdin.
        set rc [catch {
            exec timeout 60 redis-cli --cluster fix 127.0.0.1:[cluster_node_port 0] << "yes\n" 2>@1
        } out]
        assert_equal 0 $rc "redis-cli --cluster fix: $out"
        assert_match {*The following uncovered slots have no keys across the cluster*} $out
        foreach s $empty {assert_match "*>>> Covering slot $s with*" $out}
        reshard_agree
        lassign [cluster_cli 30 --cluster check 127.0.0.1:[cluster_node_port 0]] status out
        assert_equal 0 $status "redis-cli --cluster check: $out"
        assert_match {*\[OK\] All 16384 slots covered.*} $out
        reshard_assert_keys $expected
    }

    test {redis-cli --cluster rebalance evens the slots out; --cluster info counts every key} {
        cluster_require_formed
        lassign [cluster_cli 120 --cluster rebalance 127.0.0.1:[cluster_node_port 0]] status out
        assert_equal 0 $status "redis-cli --cluster rebalance: $out"
        assert_match {*Rebalancing across 3 nodes*} $out
        reshard_agree
        set counts {}
        for {set i 0} {$i < 3} {incr i} {
            set n 0
            foreach r [reshard_slot_ranges $i] {
                lassign [split $r -] a b
                if {$b eq ""} {set b $a}
                incr n [expr {$b - $a + 1}]
            }
            lappend counts $n
        }
        assert_equal {5461 5461 5462} [lsort -integer $counts]
        reshard_assert_keys $expected
        lassign [cluster_cli 30 --cluster info 127.0.0.1:[cluster_node_port 0]] status out
        assert_equal 0 $status
        assert_match "*\\\[OK\\\] [dict size $expected] keys in 3 masters.*" $out
    }

    test {A reshard of 2000 slots under a write load loses no write (last value, right node)} {
        cluster_require_formed
        array unset ::reshard_redirects
        set done [file join $::server::root tests tmp reshard-load-[pid].out]
        file delete $done
        # A second writer, redis-cli -c (which follows MOVED and ASK itself), sets cli:0..9999
        # from a file of commands, started just before the reshard.
        set cli_cmds [file join $::server::root tests tmp reshard-cli-[pid].cmds]
        set cli_out [file join $::server::root tests tmp reshard-cli-[pid].out]
        set f [open $cli_cmds w]
        for {set k 0} {$k < 10000} {incr k} {puts $f "SET cli:$k c$k"}
        close $f
        file delete $cli_out
        exec timeout 300 sh -c "redis-cli -c -p [cluster_node_port 0] < $cli_cmds > $cli_out\
            2>&1; echo status=\$? >> $cli_out" &
        # The reshard runs in the background; its exit status is the file's last line.
        set cmd "redis-cli --cluster reshard 127.0.0.1:[cluster_node_port 0]\
            --cluster-from [cluster_node_id 2] --cluster-to [cluster_node_id 1]\
            --cluster-slots 2000 --cluster-yes > $done 2>&1; echo status=\$? >> $done"
        exec timeout 300 sh -c $cmd &
        # Writes (and reads back) load:0..499 over and over until the reshard ends, at most
        # 200000 writes: a key's last value is the last one written.
        set writes 0
        while {$writes < 200000} {
            set k [expr {$writes % 500}]
            reshard_routed set load:$k w$writes
            assert_equal w$writes [reshard_routed get load:$k]
            dict set expected load:$k w$writes
            incr writes
            if {$writes % 50 == 0 && [file exists $done] &&
                [regexp {status=([0-9]+)} [exec cat $done] -> st]} {
                break
            }
        }
        wait_for_condition 600 500 {
            [file exists $done] && [regexp {status=([0-9]+)} [exec cat $done] -> st]
        } else {
            fail "the reshard never ended: [exec tail -c 500 $done]"
        }
        assert_equal 0 $st "redis-cli --cluster reshard: [exec tail -c 1000 $done]"
        file delete $done
        wait_for_condition 600 500 {
            [file exists $cli_out] && [regexp {status=([0-9]+)} [exec tail -n 1 $cli_out] -> st]
        } else {
            fail "redis-cli -c never ended: [exec tail -c 500 $cli_out]"
        }
        assert_equal 0 $st
        set replies [split [string trim [exec cat $cli_out]] "\n"]
        assert_equal 10000 [llength [lsearch -all -exact $replies OK]] \
            "redis-cli -c replies: [lsort -unique $replies]"
        file delete $cli_cmds $cli_out
        for {set k 0} {$k < 10000} {incr k} {dict set expected cli:$k c$k}
        reshard_agree
        assert_equal {} [reshard_open_slots]
        reshard_assert_keys $expected
        # The writes ran during the move: some were sent elsewhere (MOVED or ASK).
        assert_morethan $writes 100
        assert_morethan [array size ::reshard_redirects] 0 "redirections seen: none"
    }

    test {add-node as a master, reshard onto it, empty it, del-node: keys intact} {
        cluster_require_formed
        set new_id [cluster_node_id 3]
        lassign [cluster_cli 30 --cluster add-node 127.0.0.1:[cluster_node_port 3] \
            127.0.0.1:[cluster_node_port 0]] status out
        assert_equal 0 $status "redis-cli --cluster add-node: $out"
        assert_match {*New node added correctly*} $out
        set ::reshard_members {0 1 2 3}
        reshard_agree
        # A node just joined says fail (and refuses keys, RESTORE-ASKING too) until its rejoin
        # delay has passed, on Redis as here.
        wait_cluster_state_ok {0 1 2 3}
        # 300 slots of node 2 to the new master.
        lassign [reshard_cli 2 3 300] status out
        assert_equal 0 $status "redis-cli --cluster reshard: $out"
        reshard_agree
        assert_morethan [cr 3 dbsize] 0
        reshard_assert_keys $expected
        # Empty it again (its 300 slots to node 0), then remove it.
        lassign [reshard_cli 3 0 300] status out
        assert_equal 0 $status "redis-cli --cluster reshard: $out"
        assert_equal 0 [cr 3 dbsize]
        reshard_agree
        lassign [cluster_cli 30 --cluster del-node 127.0.0.1:[cluster_node_port 0] \
            $new_id] status out
        assert_equal 0 $status "redis-cli --cluster del-node: $out"
        assert_match {*Sending CLUSTER RESET SOFT to the deleted node*} $out
        set ::reshard_members {0 1 2}
        reshard_agree
        for {set i 0} {$i < 3} {incr i} {assert_equal 3 [cluster_info_field $i cluster_known_nodes]}
        assert_equal 1 [cluster_info_field 3 cluster_known_nodes]
        reshard_assert_keys $expected
    }
}

# Mixed: node 2 is Debian's Redis 7.0.15. Keys of every type (and TTLs) move from the Redis node
# to one of ours and back: MIGRATE's DUMP payloads and RESTORE-ASKING in both directions.
start_cluster_nodes 3 {tags {cluster reshard} redis {2} overrides {enable-debug-command yes}} {
    test {Mixed cluster: slots move from a Redis node to ours and back with keys of every type} {
        # Node 2 (Redis) serves the low slots, so that redis-cli, which takes a source's slots
        # from the lowest, moves the same 200 slots there and back.
        cluster_meet_all
        wait_cluster_consistent
        assert_equal OK [cr 2 cluster addslotsrange 0 5460]
        assert_equal OK [cr 0 cluster addslotsrange 5461 10922]
        assert_equal OK [cr 1 cluster addslotsrange 10923 16383]
        wait_cluster_consistent
        wait_cluster_state_ok
        array unset ::reshard_route
        set keys {}
        for {set k 0} {[llength $keys] < 24 && $k < 20000} {incr k} {
            if {[cr 0 cluster keyslot t:$k] < 200} {lappend keys t:$k}
        }
        assert_equal 24 [llength $keys]
        set digests {}
        foreach key $keys {
            switch [expr {[llength $digests] % 6}] {
                0 {cr 2 set $key [string repeat x 100]}
                1 {cr 2 rpush $key a b c 1 2 3}
                2 {cr 2 hset $key f1 v1 f2 2}
                3 {cr 2 zadd $key 1 a 2.5 b}
                4 {cr 2 sadd $key x y z 7}
                5 {cr 2 xadd $key 1-1 f v}
            }
            cr 2 pexpire $key 1000000
            lappend digests [cr 2 debug digest-value $key]
        }
        foreach {from to} {2 0 0 2} {
            lassign [reshard_cli $from $to 200] status out
            assert_equal 0 $status "reshard $from -> $to: $out"
            wait_cluster_consistent
            set i 0
            foreach key $keys {
                assert_equal $to [cluster_node_of_slot [cr 0 cluster keyslot $key]] \
                    "$key's owner after moving $from -> $to"
                assert_equal [lindex $digests $i] [cr $to debug digest-value $key] $key
                assert_range [cr $to pttl $key] 1 1000000
                incr i
            }
            assert_equal 0 [cr $from dbsize]
        }
        assert_equal {} [reshard_open_slots]
    }
}
