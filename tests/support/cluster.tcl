# Clusters of several nodes for the cluster-bus tests (tests/unit/cluster/bus.tcl): nodes started
# by start_server, joined by CLUSTER MEET (or redis-cli --cluster create), and the waits that say
# when they agree. A test file sources it (`source tests/support/cluster.tcl`).
#
# Model. `start_cluster_nodes n options body` nests n start_server blocks, each `cluster 1`
# (cluster-enabled yes on a port p whose bus port p + 10000 was free too: see
# ::server::find_free_cluster_port), and runs the body inside the innermost one, so the harness
# starts, reaps and crash-checks every node as it does any server. Tests name nodes by index, 0
# being the first started, not by stack level: `cr i cmd ...` runs a command on node i,
# `cluster_node_port i` is its client port. Every node runs the --server binary except the
# indexes listed under `redis` in the options, which run Debian's Redis 7.0.15: a mixed cluster,
# where our bus must talk to a stock node. Against --server /usr/bin/redis-server a mixed
# cluster is an all-Redis one; a block that asks for a Redis node on a machine without
# /usr/bin/redis-server is reported as skipped.
#
# Agreement. A cluster has formed when every node's CLUSTER NODES lists the same set of node ids
# (the ids the nodes give for themselves in CLUSTER MYID, so no handshake id counts) with the same
# slots for each, every link `connected`, and no handshake, noaddr, fail? or fail flag
# (`wait_cluster_consistent`). cluster_state is a separate wait (`wait_cluster_state_ok`): a node
# says ok only some time after it last found itself in a minority (below).
#
# Timing. Every wait is bounded in tries and time and fails the test with what the nodes showed;
# no test measures how long something took. The bus's own clocks, in Redis 7.0 (and what ours
# must match to pass): every second a node pings the one of five random peers it heard from
# longest ago, and every 100 ms any peer whose last pong is older than half the node timeout; a
# peer silent for the node timeout is flagged fail? (PFAIL); it is flagged fail (FAIL) once a
# majority of the masters that serve slots report it within twice the node timeout; a master's
# FAIL is lifted when it answers again, two node timeouts after it was set; cluster_state turns
# ok only after the "rejoin delay" (the node timeout clamped to 500..5000 ms) since the node last
# saw itself in a minority, and never in a master's first 2 seconds. The tests use a node timeout
# of 1000 ms (`::cluster_node_timeout`): a failure is seen in a few seconds, and a Redis under
# the stress run's CPU burners still answers its pings well within it (its cron runs every
# 100 ms). Bounds: 20 s for a cluster to agree or a state to turn ok, 10 s for the rest.
#
# A failed test in a cluster block prints every node's CLUSTER NODES under its failure (a
# failure hook, as tests/support/sentinel.tcl prints the sentinels' events).
#
# Fast failure. Until a cluster has formed nothing after it can pass, so `wait_cluster_consistent`
# records in the block whether it ever succeeded, and `cluster_require_formed` fails a later test
# at once when it did not (against a server without a bus every test fails quickly and cleanly,
# one bounded wait per block, instead of one per test).

set ::cluster_redis_binary /usr/bin/redis-server
set ::cluster_node_timeout 1000

namespace eval ::cluster {
    # Nodes of the innermost start_cluster_nodes block, whether that cluster has formed, and
    # whether the failure report of a cluster that never formed was printed (once is enough).
    variable count 0
    variable formed 0
    variable unformed_reported 0
}

# What every node of the innermost block sees (CLUSTER NODES through a fresh connection with a
# short timeout: a killed or hung node must not hold up the report).
proc cluster_failure_report {} {
    if {$::cluster::count == 0} {return ""}
    if {!$::cluster::formed} {
        if {$::cluster::unformed_reported} {return ""}
        set ::cluster::unformed_reported 1
    }
    set out {}
    for {set i 0} {$i < $::cluster::count} {incr i} {
        set port [cluster_node_port $i]
        if {[catch {::redis::redis 127.0.0.1 $port 0 2000} c]} {
            set nodes "($c)"
        } else {
            if {[catch {$c cluster nodes} nodes]} {set nodes "($nodes)"}
            catch {$c close}
        }
        lappend out "node $i (port $port) CLUSTER NODES:"
        foreach line [split [string trim $nodes] \n] {lappend out "  [string trim $line]"}
    }
    return [join $out \n]
}
if {"cluster_failure_report" ni $::test::failure_hooks} {
    ::test::on_failure cluster_failure_report
}

# start_cluster_nodes n options body: starts n cluster nodes (nested start_server blocks) and
# runs body in the caller's scope with all of them up. options is a dict: `tags` (of the block),
# `overrides` (config lines for every node, after cluster-node-timeout), `redis` (indexes of the
# nodes to run with Debian's redis-server).
proc start_cluster_nodes {n options body} {
    set redis_nodes [expr {[dict exists $options redis] ? [dict get $options redis] : {}}]
    if {[llength $redis_nodes] && ![file executable $::cluster_redis_binary]} {
        skip_test "cluster block of $n nodes with Redis nodes $redis_nodes"\
            "$::cluster_redis_binary is missing"
        return
    }
    set saved [list $::cluster::count $::cluster::formed $::cluster::unformed_reported]
    set ::cluster::count $n
    set ::cluster::formed 0
    set ::cluster::unformed_reported 0
    set caller [expr {[info level] - 1}]
    set rc [catch {::cluster::nest 0 $n $options $caller $body} result opts]
    lassign $saved ::cluster::count ::cluster::formed ::cluster::unformed_reported
    return -options $opts $result
}

proc ::cluster::nest {i n options caller body} {
    if {$i == $n} {
        return [uplevel #$caller $body]
    }
    set overrides [list cluster-node-timeout $::cluster_node_timeout]
    if {[dict exists $options overrides]} {lappend overrides {*}[dict get $options overrides]}
    set server_opts [list cluster 1 db 0 overrides $overrides]
    if {$i == 0 && [dict exists $options tags]} {lappend server_opts tags [dict get $options tags]}
    if {[dict exists $options redis] && $i in [dict get $options redis]} {
        lappend server_opts binary $::cluster_redis_binary
    }
    start_server $server_opts [list ::cluster::nest [expr {$i + 1}] $n $options $caller $body]
}

# The stack level of node i (0 = the first started, the outermost server).
proc cluster_level {i} {
    if {$i < 0 || $i >= $::cluster::count} {error "no cluster node $i"}
    return [expr {$i - ($::cluster::count - 1)}]
}

proc cluster_node_count {} {return $::cluster::count}

# cr i cmd ...: runs a command on node i's default client.
proc cr {i args} {
    return [r [cluster_level $i] {*}$args]
}

proc cluster_node_port {i} {return [srv [cluster_level $i] port]}
proc cluster_node_cport {i} {return [expr {[cluster_node_port $i] + 10000}]}
proc cluster_node_id {i} {return [cr $i cluster myid]}

# The value of a CLUSTER INFO field on node i ("" when missing).
proc cluster_info_field {i field} {
    foreach line [split [cr $i cluster info] "\r\n"] {
        if {[string match "$field:*" $line]} {
            return [string range $line [string length $field:] end]
        }
    }
    return ""
}

# Parses CLUSTER NODES text into a list of dicts, one a line: id, addr (ip:port@cport[,hostname]),
# ip, port, cport, flags (a list: myself master slave fail? fail handshake noaddr nofailover ...),
# master (an id or -), ping_sent, pong_recv, config_epoch, link (connected or disconnected),
# slots (the owned slots and ranges, as printed) and migrations (the [slot->-id] and
# [slot-<-id] entries).
proc cluster_nodes_parse {text} {
    set out {}
    foreach line [split $text "\n"] {
        set line [string trim $line]
        if {$line eq ""} continue
        set f [split $line " "]
        set addr [lindex $f 1]
        set ip ""; set port ""; set cport ""
        regexp {^([^:]*):(\d+)@(\d+)} $addr -> ip port cport
        set slots {}
        set migrations {}
        foreach s [lrange $f 8 end] {
            if {[string index $s 0] eq "\["} {lappend migrations $s} else {lappend slots $s}
        }
        lappend out [dict create id [lindex $f 0] addr $addr ip $ip port $port cport $cport \
            flags [split [lindex $f 2] ,] master [lindex $f 3] ping_sent [lindex $f 4] \
            pong_recv [lindex $f 5] config_epoch [lindex $f 6] link [lindex $f 7] \
            slots $slots migrations $migrations]
    }
    return $out
}

# Node i's view: its CLUSTER NODES parsed.
proc cluster_view {i} {
    return [cluster_nodes_parse [cr $i cluster nodes]]
}

# The entry for node `id` in node i's view (an empty dict when it does not know it).
proc cluster_view_entry {i id} {
    foreach n [cluster_view $i] {
        if {[dict get $n id] eq $id} {return $n}
    }
    return {}
}

# Node 0 meets every other node (CLUSTER MEET 127.0.0.1 port cport).
proc cluster_meet_all {} {
    for {set i 1} {$i < $::cluster::count} {incr i} {
        assert_equal OK [cr 0 cluster meet 127.0.0.1 [cluster_node_port $i] [cluster_node_cport $i]]
    }
}

# Two nodes: node 0 serves slots 0-15 (a few slots a test can move), node 1 the rest; returns
# once both see the same view and the cluster is ok.
proc cluster_two_nodes_small_first {} {
    cluster_meet_all
    assert_equal OK [cr 0 cluster addslotsrange 0 15]
    assert_equal OK [cr 1 cluster addslotsrange 16 16383]
    wait_cluster_consistent
    wait_cluster_state_ok
}

# The slots node i gets in an even split of 16384 slots over the nodes: {first last}.
proc cluster_slot_range {i} {
    set n $::cluster::count
    return [list [expr {$i * 16384 / $n}] [expr {($i + 1) * 16384 / $n - 1}]]
}

# Every node takes its share of the even split with CLUSTER ADDSLOTSRANGE.
proc cluster_assign_slots {} {
    for {set i 0} {$i < $::cluster::count} {incr i} {
        assert_equal OK [cr $i cluster addslotsrange {*}[cluster_slot_range $i]]
    }
}

# Why the nodes do not agree yet ("" once they do): see the essay's "Agreement". `nodes`: the
# indexes that form the cluster (all by default; a node not yet added is left out).
proc cluster_disagreement {{nodes ""}} {
    if {$nodes eq ""} {
        for {set i 0} {$i < $::cluster::count} {incr i} {lappend nodes $i}
    }
    set ids {}
    foreach i $nodes {
        if {[catch {cluster_node_id $i} id]} {return "node $i: $id"}
        dict set ids $i $id
    }
    set expected [lsort [dict values $ids]]
    set reference ""
    foreach i $nodes {
        if {[catch {cluster_view $i} view]} {return "node $i: $view"}
        set seen {}
        set table {}
        foreach e $view {
            lappend seen [dict get $e id]
            lappend table [list [dict get $e id] [dict get $e slots]]
            foreach bad {handshake noaddr fail? fail} {
                if {$bad in [dict get $e flags]} {
                    return "node $i sees [dict get $e id] as [dict get $e flags]"
                }
            }
            if {[dict get $e link] ne "connected"} {
                return "node $i: link to [dict get $e id] is [dict get $e link]"
            }
            if {"myself" in [dict get $e flags] && [dict get $e id] ne [dict get $ids $i]} {
                return "node $i: myself is [dict get $e id], not [dict get $ids $i]"
            }
        }
        if {[lsort $seen] ne $expected} {
            return "node $i knows [lsort $seen], not $expected"
        }
        set table [lsort -index 0 $table]
        if {$reference eq ""} {
            set reference $table
            set first $i
        } elseif {$table ne $reference} {
            return "node $i sees slots $table, node $first sees $reference"
        }
    }
    return ""
}

# Waits until the nodes agree (the essay's "Agreement"); fails with the last disagreement.
proc wait_cluster_consistent {{tries 400} {delay_ms 50} {nodes ""}} {
    wait_for_condition $tries $delay_ms {[set why [cluster_disagreement $nodes]] eq ""} else {
        fail "the nodes never agreed: $why"
    }
    set ::cluster::formed 1
}

# Fails the test at once when this block's cluster never formed (an earlier failure says why).
proc cluster_require_formed {} {
    if {!$::cluster::formed} {
        fail "the cluster of this block never formed (see the first failure)"
    }
}

# Waits until cluster_state is ok on every node (or on the nodes listed).
proc wait_cluster_state_ok {{nodes ""}} {
    if {$nodes eq ""} {
        for {set i 0} {$i < $::cluster::count} {incr i} {lappend nodes $i}
    }
    foreach i $nodes {
        wait_for_condition 400 50 {[cluster_info_field $i cluster_state] eq "ok"} else {
            fail "node $i: cluster_state is not ok: [cr $i cluster info]"
        }
    }
}

# The index of the node that serves `slot` in node `viewer`'s view (-1: none known).
proc cluster_node_of_slot {slot {viewer 0}} {
    foreach e [cluster_view $viewer] {
        foreach s [dict get $e slots] {
            lassign [split $s -] first last
            if {$last eq ""} {set last $first}
            if {$slot >= $first && $slot <= $last} {
                set port [dict get $e port]
                for {set i 0} {$i < $::cluster::count} {incr i} {
                    if {[cluster_node_port $i] == $port} {return $i}
                }
            }
        }
    }
    return -1
}

# A key name (prefix:N, the smallest N) whose slot node i serves in node 0's view.
proc cluster_key_on_node {i {prefix key}} {
    for {set k 0} {$k < 1000} {incr k} {
        set slot [cr 0 cluster keyslot $prefix:$k]
        if {[cluster_node_of_slot $slot] == $i} {return $prefix:$k}
    }
    error "no key $prefix:N in 1000 tries is served by node $i"
}

# SIGKILLs node i and waits until it is gone; starts it again on the same port with the
# nodes.conf it had written (the others know a node by its address). See server_kill and
# server_restart_same_port (tests/support/server.tcl).
proc cluster_kill_node {i} {server_kill [cluster_level $i]}
proc cluster_restart_node {i} {server_restart_same_port [cluster_level $i]}

# cluster_with_nodes_down nodes body: SIGKILLs the nodes listed, runs body in the caller's scope,
# then restarts them (cluster_restart_node) whether or not body failed, so a failed test leaves
# no dead node behind (the harness would take it for a crash and abandon the file).
proc cluster_with_nodes_down {nodes body} {
    foreach i $nodes {cluster_kill_node $i}
    set rc [catch {uplevel 1 $body} result opts]
    foreach i $nodes {cluster_restart_node $i}
    return -options $opts $result
}

# Runs Debian's redis-cli (bounded by `timeout`, so a cluster that never joins cannot hang the
# file) with args; returns {exit-status output}.
proc cluster_cli {seconds args} {
    set rc [catch {exec timeout $seconds redis-cli {*}$args 2>@1} out opts]
    set status 0
    if {$rc} {
        set code [dict get $opts -errorcode]
        set status [expr {[lindex $code 0] eq "CHILDSTATUS" ? [lindex $code 2] : -1}]
    }
    return [list $status $out]
}

# redis-cli --cluster create of every node (or of the indexes in `nodes`) as a master (no
# replicas); returns {status output}.
proc cluster_create_with_cli {{nodes ""}} {
    if {$nodes eq ""} {
        for {set i 0} {$i < $::cluster::count} {incr i} {lappend nodes $i}
    }
    set addrs [lmap i $nodes {list 127.0.0.1:[cluster_node_port $i]}]
    return [cluster_cli 60 --cluster create {*}$addrs --cluster-yes]
}

# A deferring client of node i whose reads give up after 10 s (a push that never comes fails the
# test instead of hanging it).
proc cluster_client {i} {
    return [::redis::redis 127.0.0.1 [cluster_node_port $i] 1 10000]
}

# Replicas (tests/unit/cluster/replicas.tcl, failover-tempkeys.tcl).

# Nodes 0..2 serve the three thirds of the slots (node 3 and later serve none).
proc cluster_assign_three {} {
    set bounds {0 5460 5461 10922 10923 16383}
    for {set i 0} {$i < 3} {incr i} {
        assert_equal OK [cr $i cluster addslotsrange {*}[lrange $bounds [expr {2 * $i}] \
            [expr {2 * $i + 1}]]]
    }
}

# Whether every node lists node `r` as a replica of node `m` (flags and master id).
proc cluster_replica_everywhere {r m} {
    set rid [cluster_node_id $r]
    set mid [cluster_node_id $m]
    for {set j 0} {$j < [cluster_node_count]} {incr j} {
        if {[catch {cluster_view_entry $j $rid} e] || $e eq ""} {return 0}
        if {"slave" ni [dict get $e flags] || [dict get $e master] ne $mid} {return 0}
    }
    return 1
}

proc cluster_wait_replica_everywhere {r m} {
    wait_for_condition 400 50 {[cluster_replica_everywhere $r $m]} else {
        fail "not every node shows node $r as a replica of node $m"
    }
}

# Waits until node i's INFO replication says its master link is up.
proc cluster_wait_link_up {i} {
    wait_for_condition 400 50 {
        [string match *master_link_status:up* [cr $i info replication]]
    } else {
        fail "node $i: master link never came up: [cr $i info replication]"
    }
}

# Waits until every live node listed sees node `m` serving `slots` (as printed) and as a master,
# and until m's own cluster_state is ok, so the caller can send m commands: an elected replica
# that was restarted less than 2 s before keeps answering CLUSTERDOWN until then (Redis's
# writable delay for a master's first moments).
proc cluster_wait_master_of {m slots nodes} {
    set id [cluster_node_id $m]
    foreach j $nodes {
        wait_for_condition 400 50 {
            [set e [cluster_view_entry $j $id]] ne "" && "master" in [dict get $e flags] &&
            [dict get $e slots] eq $slots
        } else {
            fail "node $j does not see node $m as the master of $slots: [cr $j cluster nodes]"
        }
    }
    wait_cluster_state_ok [list $m]
}
