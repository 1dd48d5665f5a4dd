# Temporary keys, existence watches and sessions in a cluster (docs/cluster.md, "Temporary keys,
# watches and sessions"): the keyed coordination commands are redirected like any keyed command
# (MOVED, ASK, CROSSSLOT), TPKEYS and SESSION are answered by the node asked, a lock taken
# through a cluster client lives on the master of its slot and is released, and handed to a
# BSETTP waiter, when its owner leaves. Most tests use redis-tp's own commands and are tagged
# redistp; the others hold against Redis 7.0.15 (--server /usr/bin/redis-server) too. Nodes are
# started as tests/support/cluster.tcl's essay says; every wait is bounded.

source tests/support/cluster.tcl

# The redirection a command gets from node i, as "MOVED <slot> <addr>", "ASK ...", an error
# text, or "served: <reply>".
proc cluster_try {i args} {
    if {[catch {cr $i {*}$args} reply]} {return $reply}
    return "served: $reply"
}


# A redis-cli -c process connected to node i, reading commands from a pipe line by line (as an
# operator's session would): `cli_send $f cmd` sends one and returns its reply line, waiting at
# most 10 s for it.
proc cli_open {i} {
    set f [open "|redis-cli -c -p [cluster_node_port $i] 2>@1" r+]
    fconfigure $f -buffering line -blocking 0
    return $f
}
proc cli_send {f cmd} {
    puts $f $cmd
    for {set n 0} {$n < 1000} {incr n} {
        if {[gets $f line] >= 0} {
            # redis-cli -c says where it followed a MOVED before the reply.
            if {[string match {-> Redirected to slot*} $line]} continue
            return $line
        }
        after 10
    }
    error "redis-cli gave no reply to $cmd in 10 s"
}

# Moves `slot` to node `to` the way bus.tcl does (BUMPEPOCH, then SETSLOT NODE on the new
# owner), and waits until every node sees it there. The old owner learns it from the bus.
proc cluster_move_slot {slot to} {
    assert_match {[BS]* *} [cr $to cluster bumpepoch]
    assert_equal OK [cr $to cluster setslot $slot node [cluster_node_id $to]]
    for {set i 0} {$i < [cluster_node_count]} {incr i} {
        wait_for_condition 200 50 {[cluster_node_of_slot $slot $i] == $to} else {
            fail "node $i sees slot $slot at node [cluster_node_of_slot $slot $i], not $to"
        }
    }
}

# The wx= field of client `id` in node i's CLIENT LIST.
proc cluster_client_wx {i id} {
    foreach line [split [cr $i client list id $id] "\n"] {
        if {[regexp { wx=([0-9]+)} $line -> wx]} {return $wx}
    }
    return ""
}

# A key name (prefix:N) served by node i whose `__watchex@0__:` channel is served by node j.
proc cluster_key_with_channel_on {i j prefix} {
    for {set k 0} {$k < 1000} {incr k} {
        if {[cluster_node_of_slot [cr 0 cluster keyslot $prefix:$k]] != $i} continue
        if {[cluster_node_of_slot [cr 0 cluster keyslot __watchex@0__:$prefix:$k]] == $j} {
            return $prefix:$k
        }
    }
    error "no key $prefix:N of node $i with its channel on node $j in 1000 tries"
}

# A holder on node `node` takes `key` with SETTP and leaves: the shard subscriber `sub` of
# `channel` hears the ADD, then the DEL of the release.
proc lock_heard_by {node key sub channel} {
    set holder [cluster_client $node]
    $holder settp $key h
    assert_equal 1 [$holder read]
    assert_equal [list smessage $channel ADD] [$sub read]
    $holder close
    assert_equal [list smessage $channel DEL] [$sub read]
}

start_cluster_nodes 3 {tags {cluster redistp}} {
    test {Setup: three masters with an even split of the slots} {
        cluster_meet_all
        cluster_assign_slots
        wait_cluster_consistent
        wait_cluster_state_ok
    }

    test {Every keyed coordination command is redirected with MOVED to its slot's master} {
        cluster_require_formed
        set key [cluster_key_on_node 1 lock]
        set slot [cr 0 cluster keyslot $key]
        set moved "MOVED $slot 127.0.0.1:[cluster_node_port 1]"
        foreach cmd [list \
            [list settp $key v] [list settp $key v FENCE] [list bsettp $key v 0] \
            [list deltp $key] [list watchex $key] [list unwatchex $key] [list tpinfo $key] \
            [list tpwaiters $key] [list object owner $key] [list object fence $key]] {
            assert_equal $moved [cluster_try 0 {*}$cmd] "$cmd"
            assert_equal $moved [cluster_try 2 {*}$cmd] "$cmd"
        }
        assert_equal 0 [cr 0 dbsize]
        # Cluster clients find the keys the same way, from COMMAND GETKEYS.
        assert_equal {a} [cr 0 command getkeys settp a v FENCE]
        assert_equal {a} [cr 0 command getkeys bsettp a v 0]
        assert_equal {a b} [cr 0 command getkeys deltp a b]
        assert_equal {a b} [cr 0 command getkeys watchex a b]
        assert_equal {a} [cr 0 command getkeys object owner a]
        assert_equal {a} [cr 0 command getkeys tpwaiters a]
    }

    test {Keys of two slots: CROSSSLOT for DELTP, WATCHEX and UNWATCHEX; one hash tag is served} {
        cluster_require_formed
        set a [cluster_key_on_node 0 a]
        set b [cluster_key_on_node 1 b]
        foreach cmd {deltp watchex unwatchex} {
            assert_equal {CROSSSLOT Keys in request don't hash to the same slot} \
                [cluster_try 0 $cmd $a $b]
        }
        # Keys of one hash tag share a slot: served where the tag's slot lives.
        set tag [lindex [split [cluster_key_on_node 0 t] :] 1]
        set k1 "{t:$tag}.1"
        set k2 "{t:$tag}.2"
        assert_equal [cr 0 cluster keyslot $k1] [cr 0 cluster keyslot t:$tag]
        assert_equal {served: NOEXIST NOEXIST} [cluster_try 0 watchex $k1 $k2]
        assert_equal {served: 2} [cluster_try 0 unwatchex $k1 $k2]
    }

    test {TPKEYS, SESSION and UNWATCHEX without keys are answered by the node asked} {
        cluster_require_formed
        for {set i 0} {$i < 3} {incr i} {
            assert_equal {} [cr $i tpkeys]
            assert_equal {} [cr $i tpkeys client 1]
            assert_equal {} [cr $i tpkeys session 1]
            assert_equal 0 [cr $i unwatchex]
            assert_equal {} [cr $i session info]
            assert_equal {} [cr $i session list]
        }
        # A session opened on one node owns keys of that node's slots only.
        set rd [redis_deferring_client [cluster_level 1]]
        $rd session open 5000
        set token [$rd read]
        assert_match {*:*} $token
        set mine [cluster_key_on_node 1 s]
        set other [cluster_key_on_node 2 s]
        $rd settp $mine v
        assert_equal 1 [$rd read]
        $rd settp $other v
        assert_equal "MOVED [cr 0 cluster keyslot $other] 127.0.0.1:[cluster_node_port 2]" \
            [catch {$rd read} e; set e]
        $rd tpkeys
        assert_equal $mine [dict get [lindex [$rd read] 0] key]
        # The token names a session of node 1 only.
        assert_error {ERR invalid or expired session token} {cr 2 session resume $token}
        $rd session close
        assert_equal 1 [$rd read]
        $rd close
    }

    test {ASK for a temporary key's slot in migration, served on the target after ASKING} {
        cluster_require_formed
        set base [cluster_key_on_node 1 mig]
        set key "{$base}.free"
        set held "{$base}.held"
        set slot [cr 0 cluster keyslot $base]
        set id1 [cluster_node_id 1]
        set id2 [cluster_node_id 2]
        set holder [redis_deferring_client [cluster_level 1]]
        $holder settp $held h
        assert_equal 1 [$holder read]
        assert_equal OK [cr 2 cluster setslot $slot importing $id1]
        assert_equal OK [cr 1 cluster setslot $slot migrating $id2]
        set ask "ASK $slot 127.0.0.1:[cluster_node_port 2]"
        foreach cmd [list [list settp $key v] [list bsettp $key v 0] [list deltp $key] \
                         [list watchex $key] [list tpinfo $key] [list object owner $key]] {
            assert_equal $ask [cluster_try 1 {*}$cmd] $cmd
        }
        # A key still on the source is served there while its slot migrates; two keys of
        # which one has gone are TRYAGAIN.
        assert_equal {served: 0} [cluster_try 1 settp $held v]
        assert_equal {served: EXIST} [cluster_try 1 watchex $held]
        assert_equal {served: 1} [cluster_try 1 unwatchex $held]
        assert_match {TRYAGAIN *} [cluster_try 1 deltp $held $key]
        # The target serves the missing key after ASKING, and redirects it back without.
        assert_equal "MOVED $slot 127.0.0.1:[cluster_node_port 1]" [cluster_try 2 settp $key v]
        set rd [redis_deferring_client [cluster_level 2]]
        $rd asking
        assert_equal OK [$rd read]
        $rd settp $key v FENCE
        set fence [$rd read]
        assert {$fence > 1}
        $rd asking
        $rd read
        $rd object fence $key
        assert_equal $fence [$rd read]
        $rd close
        wait_for_condition 100 20 {[cr 2 dbsize] == 0} else {
            fail "the target kept the key of a closed connection"
        }
        $holder close
        wait_for_condition 100 20 {[cr 1 dbsize] == 0} else {
            fail "the source kept the key of a closed connection"
        }
        assert_equal OK [cr 1 cluster setslot $slot stable]
        assert_equal OK [cr 2 cluster setslot $slot stable]
    }

    test {A slot moved away: the watcher reads DEL, then MOVED, and its watch ends; BSETTP too} {
        cluster_require_formed
        set base [cluster_key_on_node 1 away]
        set slot [cr 0 cluster keyslot $base]
        set held "{$base}.held"
        set free "{$base}.free"
        set holder [cluster_client 1]
        $holder settp $held h
        assert_equal 1 [$holder read]
        set watcher [cluster_client 1]
        $watcher client id
        set wid [$watcher read]
        $watcher watchex $held $free
        assert_equal {EXIST NOEXIST} [$watcher read]
        set waiter [cluster_client 1]
        $waiter bsettp $held w 0
        wait_for_blocked_clients_count 1 100 10 [cluster_level 1]
        cluster_move_slot $slot 2
        set moved "MOVED $slot 127.0.0.1:[cluster_node_port 2]"
        # The key went with the slot (its DEL first), then both watches end with the new place.
        assert_equal [list watchex $held DEL] [$watcher read]
        set last [list [$watcher read] [$watcher read]]
        assert_equal [lsort [list [list watchex $held $moved] [list watchex $free $moved]]] \
            [lsort $last]
        assert_equal $moved [catch {$waiter read} e; set e]
        assert_equal 0 [cluster_client_wx 1 $wid]
        $watcher unwatchex
        assert_equal 0 [$watcher read]
        # The holder's connection stays, its key is gone with the slot.
        $holder tpkeys
        assert_equal {} [$holder read]
        # Watching again on the node named: its reply tells the existence there.
        set there [cluster_client 2]
        $there watchex $held
        assert_equal NOEXIST [$there read]
        # Moved back: the watch on node 2 ends the same way.
        cluster_move_slot $slot 1
        assert_equal [list watchex $held "MOVED $slot 127.0.0.1:[cluster_node_port 1]"] \
            [$there read]
        foreach c [list $holder $watcher $waiter $there] {$c close}
        wait_cluster_consistent
    }

    test {A slot in migration: a watched key that leaves the source ends its watch with ASK} {
        cluster_require_formed
        set base [cluster_key_on_node 1 ask]
        set slot [cr 0 cluster keyslot $base]
        set held "{$base}.held"
        set plain "{$base}.plain"
        set free "{$base}.free"
        set holder [cluster_client 1]
        $holder settp $held h
        assert_equal 1 [$holder read]
        cr 1 set $plain p
        set watcher [cluster_client 1]
        $watcher watchex $held $plain $free
        assert_equal {EXIST EXIST NOEXIST} [$watcher read]
        assert_equal OK [cr 2 cluster setslot $slot importing [cluster_node_id 1]]
        assert_equal OK [cr 1 cluster setslot $slot migrating [cluster_node_id 2]]
        set ask "ASK $slot 127.0.0.1:[cluster_node_port 2]"
        # The absent key would be created on the target: its watch ends at once.
        assert_equal [list watchex $free $ask] [$watcher read]
        # A key moved to the target has left this node: DEL, then where it went. (Moved by
        # hand as MIGRATE does it: DUMP, RESTORE after ASKING on the target, DEL here.)
        set payload [cr 1 dump $plain]
        set target [cluster_client 2]
        $target asking
        assert_equal OK [$target read]
        $target restore $plain 0 $payload
        assert_equal OK [$target read]
        $target close
        assert_equal 1 [cr 1 del $plain]
        assert_equal [list watchex $plain DEL] [$watcher read]
        assert_equal [list watchex $plain $ask] [$watcher read]
        # The lock released by its holder's leaving: the same.
        $holder close
        assert_equal [list watchex $held DEL] [$watcher read]
        assert_equal [list watchex $held $ask] [$watcher read]
        $watcher unwatchex
        assert_equal 0 [$watcher read]
        # A watch on the target, after ASKING, stays while it imports.
        set there [cluster_client 2]
        $there asking
        assert_equal OK [$there read]
        $there watchex $plain
        assert_equal EXIST [$there read]
        cr 2 asking
        assert_equal 1 [cr 2 del $plain]
        assert_equal [list watchex $plain DEL] [$there read]
        assert_equal OK [cr 1 cluster setslot $slot stable]
        assert_equal OK [cr 2 cluster setslot $slot stable]
        # The import cancelled: the target serves the slot no more, its watch ends with MOVED.
        assert_equal [list watchex $plain "MOVED $slot 127.0.0.1:[cluster_node_port 1]"] \
            [$there read]
        $watcher close
        $there close
    }

    test {A slot deleted without full coverage: the watch ends with CLUSTERDOWN Hash slot not served} {
        cluster_require_formed
        set key [cluster_key_on_node 1 gone]
        set slot [cr 0 cluster keyslot $key]
        set watcher [cluster_client 1]
        $watcher hello 3
        $watcher read
        $watcher watchex $key
        assert_equal NOEXIST [$watcher read]
        cr 1 config set cluster-require-full-coverage no
        assert_equal OK [cr 1 cluster delslots $slot]
        assert_equal [list watchex $key {CLUSTERDOWN Hash slot not served}] [$watcher read]
        assert_equal OK [cr 1 cluster addslots $slot]
        cr 1 config set cluster-require-full-coverage yes
        $watcher close
        wait_cluster_consistent
    }

    test {While cluster_state is fail, watches stay: the node still holds its keys} {
        cluster_require_formed
        set key [cluster_key_on_node 1 stay]
        set slot [cr 0 cluster keyslot $key]
        set watcher [cluster_client 1]
        $watcher client id
        set wid [$watcher read]
        $watcher watchex $key
        assert_equal NOEXIST [$watcher read]
        # Full coverage required: the slot without owner turns the state fail, and nothing ends.
        assert_equal OK [cr 1 cluster delslots $slot]
        assert_equal fail [cluster_info_field 1 cluster_state]
        assert_equal 1 [cluster_client_wx 1 $wid]
        assert_equal OK [cr 1 cluster addslots $slot]
        wait_cluster_state_ok 1
        assert_equal 1 [cluster_client_wx 1 $wid]
        cr 1 set $key v
        assert_equal [list watchex $key ADD] [$watcher read]
        cr 1 del $key
        assert_equal [list watchex $key DEL] [$watcher read]
        $watcher close
        wait_cluster_consistent
    }

    test {Existence events as sharded Pub/Sub: SSUBSCRIBE a hash-tagged key's channel on its master} {
        cluster_require_formed
        set tag [cluster_key_on_node 1 ev]
        set key "{$tag}"
        set channel "__watchex@0__:{$tag}"
        assert_equal [cr 0 cluster keyslot $key] [cr 0 cluster keyslot $channel]
        # Routed by the channel's slot like any SSUBSCRIBE.
        assert_match "MOVED * 127.0.0.1:[cluster_node_port 1]" [cluster_try 0 ssubscribe $channel]
        set sub [cluster_client 1]
        $sub ssubscribe $channel
        assert_equal [list ssubscribe $channel 1] [$sub read]
        cr 1 set $key v
        assert_equal [list smessage $channel ADD] [$sub read]
        cr 1 set $key v2
        cr 1 del $key
        assert_equal [list smessage $channel DEL] [$sub read]
        # A lock: taken, then released by its holder's leaving.
        lock_heard_by 1 $key $sub $channel
        # A connection subscribed both ways gets the classic message first.
        set both [cluster_client 1]
        $both hello 3
        $both read
        $both subscribe $channel
        $both read
        $both ssubscribe $channel
        $both read
        cr 1 set $key v
        assert_equal [list message $channel ADD] [$both read]
        assert_equal [list smessage $channel ADD] [$both read]
        assert_equal [list smessage $channel ADD] [$sub read]
        cr 1 del $key
        assert_equal [list smessage $channel DEL] [$sub read]
        $both close
        $sub close
    }

    test {A channel served by another node: the bus carries the event with tp-watchex-shard-forward yes} {
        cluster_require_formed
        set key [cluster_key_with_channel_on 1 2 fw]
        set channel "__watchex@0__:$key"
        assert_equal no [lindex [cr 1 config get tp-watchex-shard-forward] 1]
        set sub [cluster_client 2]
        $sub ssubscribe $channel
        assert_equal [list ssubscribe $channel 1] [$sub read]
        # A classic subscriber of the same name on node 2 stays node-local.
        set local [cluster_client 2]
        $local subscribe $channel
        assert_equal [list subscribe $channel 1] [$local read]
        # Forwarding off (the default): nothing crosses. Then on: the next change does. One link
        # carries both in order, so the first message read proves the first change was not sent.
        cr 1 set $key v
        cr 1 config set tp-watchex-shard-forward yes
        cr 1 del $key
        assert_equal [list smessage $channel DEL] [$sub read]
        # A lock taken on node 1 and released by its holder's leaving, heard on node 2.
        lock_heard_by 1 $key $sub $channel
        # The classic subscriber on node 2 heard none of node 1's changes.
        assert_equal 1 [cr 2 publish $channel marker]
        assert_equal [list message $channel marker] [$local read]
        cr 1 config set tp-watchex-shard-forward no
        $sub close
        $local close
    }

    test {A lock taken through redis-cli -c lives on its slot's master, released on exit} {
        cluster_require_formed
        set key [cluster_key_on_node 1 lock]
        set f [cli_open 0]
        assert_equal 1 [cli_send $f "SETTP $key holder"]
        # Only node 1 has it, owned by redis-cli's connection to node 1.
        assert_equal 0 [cr 0 dbsize]
        assert_equal 0 [cr 2 dbsize]
        set owner [cr 1 object owner $key]
        assert_match "*id=$owner *" [cr 1 client list]
        # A waiter on the same node, in line behind the holder.
        set rd [redis_deferring_client [cluster_level 1]]
        $rd bsettp $key waiter 0
        wait_for_blocked_clients_count 1 100 10 [cluster_level 1]
        assert_equal 0 [cli_send $f "SETTP $key again"]
        close $f
        assert_equal 1 [$rd read]
        assert_equal waiter [cr 1 get $key]
        $rd client id
        assert_equal [$rd read] [cr 1 object owner $key]
        $rd close
        wait_for_condition 100 20 {[cr 1 exists $key] == 0} else {
            fail "the waiter's key stayed after its connection closed"
        }
    }
}

start_server {tags {redistp}} {
    test {Standalone: existence events reach the shard subscribers of the channel too} {
        set ch __watchex@[srv 0 db]__:solo
        set sub [redis_deferring_client]
        $sub ssubscribe $ch
        assert_equal [list ssubscribe $ch 1] [$sub read]
        r set solo 1
        assert_equal [list smessage $ch ADD] [$sub read]
        r del solo
        assert_equal [list smessage $ch DEL] [$sub read]
        # The mark stays while either kind has subscribers.
        set classic [redis_deferring_client]
        $classic subscribe $ch
        $classic read
        $sub sunsubscribe $ch
        $sub read
        r set solo 1
        assert_equal [list message $ch ADD] [$classic read]
        $sub ssubscribe $ch
        $sub read
        $classic unsubscribe $ch
        $classic read
        r del solo
        assert_equal [list smessage $ch DEL] [$sub read]
        $sub close
        $classic close
    }
}

start_cluster_nodes 2 {tags {cluster}} {
    test {Setup: two masters with an even split of the slots} {
        cluster_meet_all
        cluster_assign_slots
        wait_cluster_consistent
        wait_cluster_state_ok
    }

    test {A shard channel's slot moved away: its subscribers get sunsubscribe} {
        cluster_require_formed
        set tag [cluster_key_on_node 0 sh]
        set channel "news{$tag}"
        set slot [cr 0 cluster keyslot $channel]
        set sub [cluster_client 0]
        $sub ssubscribe $channel
        assert_equal [list ssubscribe $channel 1] [$sub read]
        set other [cluster_client 0]
        $other ssubscribe "other{$tag}"
        assert_equal [list ssubscribe "other{$tag}" 1] [$other read]
        cluster_move_slot $slot 1
        assert_equal [list sunsubscribe $channel 0] [$sub read]
        assert_equal [list sunsubscribe "other{$tag}" 0] [$other read]
        # The connection is usable again (no subscription left, RESP2 subscribed mode ended).
        $sub ping
        assert_equal PONG [$sub read]
        assert_equal [list $channel 0] [cr 0 pubsub shardnumsub $channel]
        $sub close
        $other close
    }
}

# Slot migration of temporary keys (docs/cluster.md): MIGRATE carries a key's owner and fencing
# token to a redis-tp target (TPADOPT after its RESTORE-ASKING). Node 0 serves slots 0-15 only,
# so that redis-cli --cluster reshard of 16 slots moves exactly its slots.
start_cluster_nodes 2 {tags {cluster redistp}} {
    # A key name prefix:N whose slot node 0 serves (slots 0-15), bounded in tries.
    proc tpm_key_on_0 {prefix} {
        for {set k 0} {$k < 100000} {incr k} {
            if {[cr 0 cluster keyslot $prefix:$k] < 16} {return $prefix:$k}
        }
        error "no key $prefix:N of slots 0-15 in 100000 tries"
    }
    # Sends `cmd` after ASKING on the deferring client rd; returns the command's reply.
    proc tpm_asking {rd args} {
        $rd asking
        assert_equal OK [$rd read]
        $rd {*}$args
        return [$rd read]
    }

    test {Setup: node 0 serves slots 0-15, node 1 the rest} {
        cluster_two_nodes_small_first
    }

    test {MIGRATE of temporary keys: sessions resumable on the target, plain locks released after tp-failover-grace-ms} {
        cluster_require_formed
        set base [tpm_key_on_0 tpm]
        set slot [cr 0 cluster keyslot $base]
        set skey "{$base}.session"
        set ekey "{$base}.expiring"
        set pkey "{$base}.plain"
        set port1 [cluster_node_port 1]
        # Two session locks (one resumed on the target, one whose grace ends there) and a
        # plain connection's lock, all with fencing tokens.
        set holder [cluster_client 0]
        $holder session open 600000
        set token [$holder read]
        $holder settp $skey s FENCE
        set sfence [$holder read]
        set short [cluster_client 0]
        $short session open 100
        $short read
        $short settp $ekey e FENCE
        $short read
        set plain [cluster_client 0]
        $plain settp $pkey p FENCE
        set pfence [$plain read]
        # A BSETTP waiter of the session's lock on the source.
        set waiter [cluster_client 0]
        $waiter bsettp $skey w 0
        wait_for_blocked_clients_count 1 100 10 [cluster_level 0]
        assert_equal OK [cr 1 config set tp-failover-grace-ms 100]
        assert_equal OK [cr 1 cluster setslot $slot importing [cluster_node_id 0]]
        assert_equal OK [cr 0 cluster setslot $slot migrating [cluster_node_id 1]]
        assert_equal OK [cr 0 migrate 127.0.0.1 $port1 "" 0 5000 keys $skey $ekey $pkey]
        # The source's waiter is redirected, not handed the key; the source holds nothing.
        assert_equal "ASK $slot 127.0.0.1:$port1" [catch {$waiter read} e; set e]
        assert_equal "ASK $slot 127.0.0.1:$port1" [cluster_try 0 exists $skey $ekey $pkey]
        $holder tpkeys
        assert_equal {} [$holder read]
        # On the target: the session's key, its owner and fence as they were.
        set rd [cluster_client 1]
        assert_equal $sfence [tpm_asking $rd object fence $skey]
        $rd session resume $token
        assert_equal OK [$rd read]
        set held [tpm_asking $rd tpkeys]
        assert_equal 1 [llength $held]
        assert_equal $skey [dict get [lindex $held 0] key]
        assert_equal $sfence [dict get [lindex $held 0] fence]
        # A token drawn on the target is above every token of the source.
        set after [tpm_asking $rd settp "{$base}.new" n FENCE]
        assert {$after > $pfence && $after > $sfence}
        # The plain lock is released after the grace and handed to a waiter there; the
        # short session's lock when its grace ends.
        set w2 [cluster_client 1]
        assert {[tpm_asking $w2 bsettp $pkey w2 0 FENCE] > $after}
        wait_for_condition 100 50 {[tpm_asking $rd exists $ekey] == 0} else {
            fail "the expiring session's key stayed on the target"
        }
        # The resumed session still holds its key; closing it releases it.
        assert_equal 2 [tpm_asking $rd session close]
        assert_equal OK [cr 0 cluster setslot $slot node [cluster_node_id 1]]
        assert_equal OK [cr 1 cluster setslot $slot node [cluster_node_id 1]]
        foreach c [list $holder $short $plain $waiter $rd $w2] {$c close}
        wait_cluster_consistent
    }

    test {redis-cli --cluster reshard moves session locks: resumable on the new owner, or released after their grace} {
        cluster_require_formed
        set slots 0
        for {set slot 0} {$slot < 16} {incr slot} {
            if {[cluster_node_of_slot $slot] == 0} {incr slots}
        }
        set base ""
        for {set k 0} {$k < 100000 && $base eq ""} {incr k} {
            set slot [cr 0 cluster keyslot rs:$k]
            if {$slot < 16 && [cluster_node_of_slot $slot] == 0} {set base rs:$k}
        }
        assert {$base ne ""}
        set skey "{$base}.session"
        set ekey "{$base}.expiring"
        set holder [cluster_client 0]
        $holder session open 600000
        set token [$holder read]
        $holder settp $skey s FENCE
        set fence [$holder read]
        set short [cluster_client 0]
        $short session open 100
        $short read
        $short settp $ekey e
        assert_equal 1 [$short read]
        lassign [cluster_cli 120 --cluster reshard 127.0.0.1:[cluster_node_port 0] \
                     --cluster-from [cluster_node_id 0] --cluster-to [cluster_node_id 1] \
                     --cluster-slots $slots --cluster-yes] status out
        assert_equal 0 $status $out
        wait_for_condition 200 50 {[cluster_node_of_slot $slot 0] == 1} else {
            fail "slot $slot still at node [cluster_node_of_slot $slot 0]"
        }
        assert_equal $fence [cr 1 object fence $skey]
        set rd [cluster_client 1]
        $rd session resume $token
        assert_equal OK [$rd read]
        $rd tpkeys
        assert_equal $skey [dict get [lindex [$rd read] 0] key]
        wait_for_condition 100 50 {[cr 1 exists $ekey] == 0} else {
            fail "the expiring session's key stayed on the new owner"
        }
        $rd session close
        assert_equal 1 [$rd read]
        foreach c [list $holder $short $rd] {$c close}
    }
}
