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
