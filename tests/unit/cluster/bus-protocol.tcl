# The cluster bus's protocol details that the multi-node acceptance tests (bus.tcl) leave
# aside: CLUSTER MEET's address errors, CLUSTER LINKS's reply shape in RESP2 and RESP3, INFO's
# cluster_connections, the hostname a node announces, PUBLISH's local count, and failure reports
# (COUNT-FAILURE-REPORTS) about a node that stops answering (SIGSTOP, then SIGCONT: no restart).
# Three nodes, each given a cluster-port of its own (a port found free, so no bus port collides
# with another server's client port). Every test passes against Redis 7.0.15 too
# (--server /usr/bin/redis-server). Waits are bounded (wait_for_condition); nothing is timed.

proc bp_overrides {extra} {
    return [concat [list cluster-enabled yes cluster-port [::server::find_free_port] \
                        cluster-node-timeout 1000] $extra]
}

proc bp_field {level field} {
    foreach line [split [r $level cluster info] "\r\n"] {
        if {[string match "$field:*" $line]} {return [lindex [split $line :] 1]}
    }
    return ""
}

# CLUSTER NODES of the node at `level` as {id flags link slots...} lists.
proc bp_nodes {level} {
    set out {}
    foreach line [split [string trim [r $level cluster nodes]] "\n"] {
        lappend out [string trim $line]
    }
    return $out
}

# The node at `level` knows `n` nodes, none in handshake, all connected.
proc bp_agrees {level n} {
    set lines [bp_nodes $level]
    if {[llength $lines] != $n} {return 0}
    foreach l $lines {
        if {[string match *handshake* [lindex $l 2]]} {return 0}
        if {[lindex $l 7] ne "connected"} {return 0}
    }
    return 1
}

# Flags, link state and slots of node `id` in the CLUSTER NODES of the node at `level`.
proc bp_line_of {level id} {
    foreach l [bp_nodes $level] {
        if {[lindex $l 0] eq $id} {return [list [lindex $l 2] [lindex $l 7] {*}[lrange $l 8 end]]}
    }
    return ""
}

proc bp_wait_agree {n} {
    foreach level {0 -1 -2} {
        wait_for_condition 400 50 {[bp_agrees $level $n]} else {
            fail "node at level $level: [r $level cluster nodes]"
        }
    }
}

start_server [list tags {cluster} db 0 overrides [bp_overrides {}]] {
start_server [list tags {cluster} db 0 overrides [bp_overrides {cluster-announce-hostname node-one.example}]] {
start_server [list tags {cluster} db 0 overrides [bp_overrides {}]] {
    test {CLUSTER MEET refuses what is not an address with Redis's texts} {
        assert_error {ERR Invalid node address specified: 1.2.3:7000} {r cluster meet 1.2.3 7000}
        assert_error {ERR Invalid node address specified: localhost:7000} \
            {r cluster meet localhost 7000}
        assert_error {ERR Invalid TCP base port specified: abc} {r cluster meet 127.0.0.1 abc}
        assert_error {ERR Invalid TCP bus port specified: x} {r cluster meet 127.0.0.1 7000 x}
        assert_error {ERR Invalid node address specified: 127.0.0.1:0} {r cluster meet 127.0.0.1 0}
        assert_error {ERR Invalid node address specified: 127.0.0.1:70000} \
            {r cluster meet 127.0.0.1 70000}
        assert_error {ERR Invalid node address specified: 127.0.0.1:7000} \
            {r cluster meet 127.0.0.1 7000 70000}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'meet'*} \
            {r cluster meet 127.0.0.1 7000 1 2}
        # Nothing was started by any of them.
        assert_equal 1 [llength [bp_nodes 0]]
        assert_equal {} [r cluster links]
        assert_match "*cluster_connections:0*" [r info clients]
    }

    test {Three nodes meet; each lists a link to and from each other node in CLUSTER LINKS} {
        foreach level {-1 -2} {
            assert_equal OK [r cluster meet 127.0.0.1 [srv $level port] \
                                 [lindex [r $level config get cluster-port] 1]]
        }
        bp_wait_agree 3
        set others {}
        foreach level {-1 -2} {lappend others [r $level cluster myid]}
        # Links are made on both sides as the nodes ping each other: wait for all four.
        wait_for_condition 200 50 {[llength [r cluster links]] == 4} else {
            fail "links: [r cluster links]"
        }
        set seen {}
        foreach link [r cluster links] {
            assert_equal {direction node create-time events send-buffer-allocated send-buffer-used} \
                [dict keys $link]
            assert_match {[0-9]*} [dict get $link create-time]
            assert {[dict get $link events] in {r rw}}
            assert {[dict get $link node] in $others}
            lappend seen "[dict get $link direction] [dict get $link node]"
        }
        set expected {}
        foreach id $others {lappend expected "to $id" "from $id"}
        assert_equal [lsort $expected] [lsort $seen]
        # Two per other node, as Redis counts them.
        assert_match "*cluster_connections:4*" [r info clients]
        # A link whose frames went out holds no send buffer (Redis frees a drained one).
        wait_for_condition 100 50 {
            [lsort -unique [lmap l [r cluster links] {dict get $l send-buffer-allocated}]] eq {0}
        } else {
            fail "idle links keep a send buffer: [r cluster links]"
        }
    }

    test {CLUSTER LINKS in RESP3 is an array of maps with the same fields} {
        set c [redis_client]
        $c hello 3
        set links [$c cluster links]
        $c close
        assert_equal 4 [llength $links]
        foreach link $links {
            assert_equal 6 [dict size $link]
            assert {[dict get $link direction] in {to from}}
        }
    }

    test {The hostname a node announces shows in the other nodes' CLUSTER NODES} {
        set id [r -1 cluster myid]
        foreach level {0 -2} {
            wait_for_condition 200 50 {
                [string match "*:[srv -1 port]@*,node-one.example *" [r $level cluster nodes]]
            } else {
                fail "node at level $level: [r $level cluster nodes]"
            }
        }
    }

    test {PUBLISH answers the subscribers of this node only; the other node's subscriber hears it} {
        foreach level {0 -1 -2} range {{0 5460} {5461 10922} {10923 16383}} {
            assert_equal OK [r $level cluster addslotsrange {*}$range]
        }
        set sub [redis_deferring_client -2]
        $sub subscribe news
        assert_equal {subscribe news 1} [$sub read]
        assert_equal 0 [r publish news hello]
        assert_equal {message news hello} [$sub read]
        $sub close
    }

    test {A node that stops answering gets failure reports from the masters, then is flagged fail} {
        foreach level {0 -1 -2} {
            wait_for_condition 400 50 {[bp_field $level cluster_state] eq "ok"} else {
                fail "node at level $level: [r $level cluster info]"
            }
        }
        set id [r -2 cluster myid]
        assert_equal 0 [r cluster count-failure-reports $id]
        assert_error {ERR Unknown node nosuchnode} {r cluster count-failure-reports nosuchnode}
        set pid [srv -2 pid]
        exec kill -STOP $pid
        # The other master, which sees it failing too, reports it in its gossip.
        wait_for_condition 400 50 {[r cluster count-failure-reports $id] >= 1} else {
            exec kill -CONT $pid
            fail "no failure report: [r cluster nodes]"
        }
        wait_for_condition 400 50 {
            [string match "*master,fail *" [lsearch -inline [bp_nodes 0] "$id *"]]
        } else {
            exec kill -CONT $pid
            fail "never flagged fail: [r cluster nodes]"
        }
        exec kill -CONT $pid
        # Reachable again: the FAIL is cleared (after 2 x node timeout for a master with slots).
        foreach level {0 -1} {
            wait_for_condition 400 50 {[bp_field $level cluster_state] eq "ok"} else {
                fail "node at level $level: [r $level cluster nodes]"
            }
        }
        bp_wait_agree 3
    }

    test {cluster-link-sendbuf-limit is a setting like any other} {
        assert_equal OK [r config set cluster-link-sendbuf-limit 1mb]
        assert_equal {cluster-link-sendbuf-limit 1048576} [r config get cluster-link-sendbuf-limit]
        assert_equal OK [r config set cluster-link-sendbuf-limit 0]
        assert_match "*total_cluster_links_buffer_limit_exceeded:0*" [r cluster info]
    }
}
}
}

# Votes: a Redis replica of a master of the --server binary is elected when its master stops
# answering, with the votes of the other two masters (ours when --server is redis-tp).
if {[file executable /usr/bin/redis-server]} {
start_server [list tags {cluster} db 0 overrides [bp_overrides {}]] {
start_server [list tags {cluster} db 0 overrides [bp_overrides {}]] {
start_server [list tags {cluster} db 0 overrides [bp_overrides {}]] {
start_server [list tags {cluster} db 0 binary /usr/bin/redis-server overrides [bp_overrides {}]] {
    test {A Redis replica of a stopped master wins the election with the other masters' votes} {
        foreach level {-1 -2 -3} {
            assert_equal OK [r cluster meet 127.0.0.1 [srv $level port] \
                                 [lindex [r $level config get cluster-port] 1]]
        }
        foreach level {-3 -2 -1} range {{0 5460} {5461 10922} {10923 16383}} {
            assert_equal OK [r $level cluster addslotsrange {*}$range]
        }
        foreach level {0 -1 -2 -3} {
            wait_for_condition 400 50 {[bp_agrees $level 4]} else {
                fail "node at level $level: [r $level cluster nodes]"
            }
        }
        set master_id [r -3 cluster myid]
        set replica_id [r cluster myid]
        assert_equal OK [r cluster replicate $master_id]
        wait_for_condition 400 50 {
            [string match "*master_link_status:up*" [r info replication]]
        } else {
            fail "the replica never synced: [r info replication]"
        }
        # Every master sees the replica of the first one.
        foreach level {-1 -2 -3} {
            wait_for_condition 400 50 {
                [string match "*$replica_id *slave $master_id *" [r $level cluster nodes]]
            } else {
                fail "node at level $level: [r $level cluster nodes]"
            }
        }
        set pid [srv -3 pid]
        exec kill -STOP $pid
        try {
            # The two other masters flag it fail and vote; the replica takes its slots with an
            # epoch of its own.
            foreach level {-1 -2} {
                wait_for_condition 400 50 {
                    [bp_line_of $level $replica_id] eq "master connected 0-5460"
                } else {
                    fail "node at level $level: [r $level cluster nodes]"
                }
                wait_for_condition 400 50 {[bp_field $level cluster_state] eq "ok"} else {
                    fail "node at level $level: [r $level cluster info]"
                }
                assert_match {*cluster_stats_messages_auth-req_received:*} [r $level cluster info]
                assert_equal 1 [bp_field $level cluster_stats_messages_auth-ack_sent]
            }
            assert_match {*role:master*} [r info replication]
        } finally {
            exec kill -CONT $pid
        }
    }
}
}
}
}
}
