# A node started with cluster-enabled yes, alone (a one-node cluster): its nodes.conf, the
# CLUSTER subcommands a lone node answers, the per-slot key index, and the redirections of
# the admission gate (CROSSSLOT, CLUSTERDOWN, MOVED, ASK, TRYAGAIN), also for clients blocked on
# a slot that stops being served here (BLPOP ..., BSETTP). MOVED and ASK need a
# slot owned elsewhere: the last block starts from a nodes.conf written by hand that names a
# second node (never started: nothing here needs it to answer). Every test passes against
# Redis 7.0.15 too (--server /usr/bin/redis-server).

proc cluster_field {field} {
    foreach line [split [r cluster info] "\r\n"] {
        if {[string match "$field:*" $line]} {return [lindex [split $line :] 1]}
    }
    return ""
}

# One deferring client per command of `waits`, each sent its (blocking) command; returns the
# clients once all of them are blocked.
proc block_clients {waits} {
    set clients {}
    foreach w $waits {
        set c [redis_deferring_client]
        $c {*}$w
        lappend clients $c
    }
    wait_for_blocked_clients_count [llength $waits]
    return $clients
}

proc wait_cluster_ok {} {
    wait_for_condition 200 50 {[cluster_field cluster_state] eq "ok"} else {
        fail "cluster_state never became ok: [r cluster info]"
    }
}

start_server {tags {cluster}} {
    test {CLUSTER, READONLY, READWRITE and ASKING without cluster mode} {
        foreach cmd {{cluster info} {cluster nodes} {cluster help} {readonly} {readwrite} {asking}} {
            assert_error {ERR This instance has cluster support disabled} {r {*}$cmd}
        }
        assert_error {ERR unknown subcommand 'nosuch'*} {r cluster nosuch}
        assert_match {*cluster_enabled:0*} [r info cluster]
    }
}

start_server {tags {cluster} db 0 cluster 1 overrides {cluster-enabled yes cluster-node-timeout 500}} {
    test {A fresh node is a master without slots and saves its nodes.conf} {
        set id [r cluster myid]
        assert_match {[0-9a-f]*} $id
        assert_equal 40 [string length $id]
        set port [srv 0 port]
        set cport [expr {$port + 10000}]
        assert_equal "$id :$port@$cport myself,master - 0 0 0 connected" \
            [string trim [r cluster nodes]]
        assert_equal "fail" [cluster_field cluster_state]
        assert_equal 0 [cluster_field cluster_slots_assigned]
        assert_equal 1 [cluster_field cluster_known_nodes]
        assert_equal 0 [cluster_field cluster_current_epoch]
        assert_match {*cluster_enabled:1*} [r info cluster]
        assert_match {*redis_mode:cluster*} [r info server]
        set conf [file join [lindex [r config get dir] 1] nodes.conf]
        assert {[file exists $conf]}
        assert_match "$id *myself,master*" [exec cat $conf]
        assert_match {*vars currentEpoch 0 lastVoteEpoch 0*} [exec cat $conf]
    }

    test {CLUSTER KEYSLOT, LINKS, COUNT-FAILURE-REPORTS and the unknown node errors} {
        assert_equal 12182 [r cluster keyslot foo]
        assert_equal [r cluster keyslot {{user1}.a}] [r cluster keyslot {{user1}.b}]
        assert_equal [r cluster keyslot {a{}b}] [r cluster keyslot {a{}b}]
        assert_equal {} [r cluster links]
        assert_equal 0 [r cluster count-failure-reports [r cluster myid]]
        assert_error {ERR Unknown node nope} {r cluster count-failure-reports nope}
        assert_error {ERR Unknown node nope} {r cluster replicas nope}
        assert_equal {} [r cluster replicas [r cluster myid]]
        assert_error {ERR Can't replicate myself} {r cluster replicate [r cluster myid]}
        assert_error {ERR I tried hard but I can't forget myself...} {r cluster forget [r cluster myid]}
        assert_error {ERR Invalid TCP base port specified: x} {r cluster meet 127.0.0.1 x}
        assert_error {ERR You should send CLUSTER FAILOVER to a replica} {r cluster failover}
        assert_error {ERR syntax error} {r cluster failover soon}
    }

    test {CLUSTER ADDSLOTS / DELSLOTS and their RANGE forms check every slot first} {
        assert_error {ERR Invalid or out of range slot} {r cluster addslots 16384}
        assert_error {ERR Invalid or out of range slot} {r cluster addslots x}
        assert_error {ERR Slot 5 specified multiple times} {r cluster addslots 5 5}
        assert_error {ERR start slot number 50 is greater than end slot number 40} \
            {r cluster addslotsrange 50 40}
        assert_error {ERR wrong number of arguments for 'cluster|addslotsrange' command} \
            {r cluster addslotsrange 1 2 3}
        assert_equal 0 [cluster_field cluster_slots_assigned]
        assert_equal OK [r cluster addslots 0 1 2]
        assert_error {ERR Slot 1 is already busy} {r cluster addslots 1}
        assert_equal OK [r cluster addslotsrange 10 20 30 40]
        assert_error {ERR Slot 100 is already unassigned} {r cluster delslots 100}
        assert_equal OK [r cluster delslotsrange 10 12]
        assert_match {* connected 0-2 13-20 30-40} [string trim [r cluster nodes]]
        assert_equal 22 [cluster_field cluster_slots_assigned]
        assert_equal {{0 2} {13 20} {30 40}} [lmap r [r cluster slots] {lrange $r 0 1}]
        set conf [file join [lindex [r config get dir] 1] nodes.conf]
        assert_match {*connected 0-2 13-20 30-40*} [exec cat $conf]
        assert_equal OK [r cluster flushslots]
        assert_equal 0 [cluster_field cluster_slots_assigned]
    }

    test {CLUSTER BUMPEPOCH and SET-CONFIG-EPOCH} {
        assert_error {ERR Invalid config epoch specified: -1} {r cluster set-config-epoch -1}
        assert_equal OK [r cluster set-config-epoch 5]
        assert_error {ERR Node config epoch is already non-zero} {r cluster set-config-epoch 6}
        assert_equal 5 [cluster_field cluster_my_epoch]
        assert_equal {STILL 5} [r cluster bumpepoch]
        assert_equal 5 [cluster_field cluster_current_epoch]
    }

    test {A node holding all slots serves keys and counts them per slot} {
        assert_equal OK [r cluster addslotsrange 0 16383]
        wait_cluster_ok
        assert_equal 1 [cluster_field cluster_size]
        r set foo bar
        r mset a{t} 1 b{t} 2 c{t} 3
        assert_equal bar [r get foo]
        assert_equal 1 [r cluster countkeysinslot 12182]
        set slot [r cluster keyslot t]
        assert_equal 3 [r cluster countkeysinslot $slot]
        assert_equal {a{t} b{t} c{t}} [lsort [r cluster getkeysinslot $slot 10]]
        assert_equal 2 [llength [r cluster getkeysinslot $slot 2]]
        r rename a{t} z{t}
        r del b{t}
        assert_equal {c{t} z{t}} [lsort [r cluster getkeysinslot $slot 10]]
        # The slot index is memory MEMORY STATS names (Redis: 0 without cluster mode).
        set stats [r memory stats]
        assert {[dict get [dict get $stats db.0] overhead.hashtable.slot-to-keys] > 0}
        assert_equal [s mem_cluster_links] [dict get $stats cluster.links]
        assert_error {ERR Invalid slot} {r cluster countkeysinslot 16384}
        assert_error {ERR Invalid slot or number of keys} {r cluster getkeysinslot 0 -1}
        assert_error {*not an integer*} {r cluster getkeysinslot x 1}
        r flushall
        assert_equal 0 [r cluster countkeysinslot $slot]
    }

    test {Scripts in cluster mode: no-cluster refused, cross-slot keys only where allowed} {
        assert_error {ERR Can not run script on cluster, 'no-cluster' flag is set.} \
            {r eval "#!lua flags=no-cluster\nreturn 1" 0}
        # A script with a shebang keeps to the slot of its first keys ...
        assert_error {*Script attempted to access keys that do not hash to the same slot*} \
            {r eval "#!lua\nredis.call('set','a',1) return redis.call('set','b',1)" 0}
        assert_error {*Script attempted to access keys that do not hash to the same slot*} \
            {r eval "#!lua\nreturn redis.call('get','b')" 1 a}
        assert_equal {} [r eval "#!lua\nreturn redis.call('get','x{a}')" 1 a]
        # ... unless it allows more; a script without a shebang may always.
        assert_equal OK [r eval "#!lua flags=allow-cross-slot-keys\nredis.call('set','a',1)\
            return redis.call('set','b',1)" 0]
        assert_equal {OK OK} [r eval {return {redis.call('set','a',1), redis.call('set','b',1)}} 0]
        r function load replace "#!lua name=clib
redis.register_function{function_name='nocl', callback=function() return 1 end,
    flags={'no-cluster'}}
redis.register_function('two', function() redis.call('set','a',1)
    return redis.call('set','b',1) end)"
        assert_error {ERR Can not run script on cluster, 'no-cluster' flag is set.} {r fcall nocl 0}
        assert_error {*do not hash to the same slot*} {r fcall two 0}
        r function flush
        r del a
        r del b
    }

    test {READONLY shows in CLIENT LIST and RESET clears it} {
        assert_equal OK [r readonly]
        assert_match {*flags=r *} [r client list id [r client id]]
        r reset
        assert_match {*flags=N *} [r client list id [r client id]]
    }

    test {A second node on the same nodes.conf exits 1 with Redis's log line} {
        set dir [lindex [r config get dir] 1]
        set port [::server::find_free_port]
        set rc [catch {exec timeout 20 $::server::binary --port $port --bind 127.0.0.1 \
            --cluster-enabled yes --save "" --dir $dir 2>@1} out opts]
        assert_equal 1 $rc
        assert_match {CHILDSTATUS * 1} [dict get $opts -errorcode]
        assert_match {*Sorry, the cluster configuration file nodes.conf is already used by a\
            different Redis Cluster node. Please make sure that different nodes use different\
            cluster configuration files.*} $out
        # The node itself goes on.
        assert_equal PONG [r ping]
    }

    test {REPLICAOF and FAILOVER are the cluster's business in cluster mode} {
        assert_error {ERR REPLICAOF not allowed in cluster mode.} {r replicaof 127.0.0.1 1}
        assert_error {ERR REPLICAOF not allowed in cluster mode.} {r slaveof no one}
        assert_error {ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command*} \
            {r failover}
        set dir [lindex [r config get dir] 1]
        set rc [catch {exec timeout 20 $::server::binary --port [::server::find_free_port] \
            --bind 127.0.0.1 --cluster-enabled yes --replicaof 127.0.0.1 1 --save "" \
            --dir $dir 2>@1} out opts]
        assert_equal 1 $rc
        assert_match {CHILDSTATUS * 1} [dict get $opts -errorcode]
        assert_match {*replicaof directive not allowed in cluster mode*} $out
    }

    test {Cluster mode has one database} {
        assert_equal OK [r select 0]
        assert_error {ERR SELECT is not allowed in cluster mode} {r select 1}
        assert_error {ERR SWAPDB is not allowed in cluster mode} {r swapdb 0 1}
        r set 1{k} v
        assert_error {ERR MOVE is not allowed in cluster mode} {r move 1{k} 1}
        assert_error {ERR Copying to another database is not allowed in cluster mode} \
            {r copy 1{k} 2{k} db 1}
        assert_equal 1 [r copy 1{k} 2{k}]
    }

    test {Keys in different slots: CROSSSLOT, also for a transaction and a script's keys} {
        assert_error {CROSSSLOT Keys in request don't hash to the same slot} {r mset a 1 b 2}
        assert_equal OK [r mset a{x} 1 b{x} 2]
        assert_equal {1 2} [r mget a{x} b{x}]
        # Each queued command is served alone; EXEC judges them together and discards.
        r multi
        r set a 1
        r set b 1
        assert_error {CROSSSLOT *} {r exec}
        assert_error {ERR EXEC without MULTI} {r exec}
        # A queued command that is refused fails the transaction.
        r multi
        assert_error {CROSSSLOT *} {r mset a 1 b 2}
        assert_error {EXECABORT *} {r exec}
        assert_error {CROSSSLOT *} {r eval {return 1} 2 a b}
        assert_equal 1 [r eval {return 1} 2 a{x} b{x}]
        # Keyless commands are never redirected.
        assert_equal PONG [r ping]
        assert_equal OK [r readonly]
        assert_equal OK [r readwrite]
        assert_equal OK [r asking]
    }

    test {A slot without owner: CLUSTERDOWN, then reads when down} {
        r flushall
        assert_equal OK [r cluster delslots [r cluster keyslot foo]]
        assert_error {CLUSTERDOWN Hash slot not served} {r get foo}
        wait_for_condition 100 50 {[cluster_field cluster_state] eq "fail"} else {
            fail "cluster_state stayed ok"
        }
        assert_error {CLUSTERDOWN The cluster is down} {r get bar}
        r config set cluster-allow-reads-when-down yes
        assert_equal {} [r get bar]
        assert_error {CLUSTERDOWN The cluster is down and only accepts read commands} {r set bar 1}
        r config set cluster-allow-reads-when-down no
        r config set cluster-require-full-coverage no
        wait_cluster_ok
        assert_equal OK [r set bar 1]
        assert_error {CLUSTERDOWN Hash slot not served} {r get foo}
        r config set cluster-require-full-coverage yes
    }

    test {CLUSTER SETSLOT on one node, and RESET refuses a node with keys} {
        set me [r cluster myid]
        assert_error {ERR Invalid CLUSTER SETSLOT action*} {r cluster setslot 5 foo}
        assert_error {ERR Unknown node nope} {r cluster setslot 5 node nope}
        assert_error {ERR I don't know about node nope} {r cluster setslot 5 migrating nope}
        assert_error {ERR I'm already the owner of hash slot 5} {r cluster setslot 5 importing $me}
        assert_equal OK [r cluster setslot 5 stable]
        assert_equal OK [r cluster setslot [r cluster keyslot foo] node $me]
        assert_error {ERR CLUSTER RESET can't be called with master nodes containing keys} \
            {r cluster reset}
        assert_error {ERR DB must be empty to perform CLUSTER FLUSHSLOTS.} {r cluster flushslots}
        r flushall
        assert_equal OK [r cluster reset hard]
        assert_equal 0 [cluster_field cluster_my_epoch]
        assert_equal 0 [cluster_field cluster_slots_assigned]
        assert {[r cluster myid] ne $me}
    }
}

# A node whose nodes.conf (written by hand) gives half of the slots to another node.
set other 0123456789abcdef0123456789abcdef01234567
set mine 89abcdef0123456789abcdef0123456789abcdef
set dir [file join [pwd] tests tmp cluster-moved.[pid]]
file mkdir $dir
set fd [open [file join $dir nodes.conf] w]
puts $fd "$other 127.0.0.1:30001@40001 master - 0 0 1 connected 8192-16383"
puts $fd "$mine 127.0.0.1:30000@40000 myself,master - 0 0 2 connected 0-8191"
puts $fd "vars currentEpoch 2 lastVoteEpoch 0"
close $fd

start_server [list tags {cluster} db 0 cluster 1 dir $dir overrides {cluster-enabled yes cluster-node-timeout 60000}] {
    test {A slot owned by another node: MOVED} {
        assert_equal $mine [r cluster myid]
        wait_cluster_ok
        assert_equal 2 [cluster_field cluster_known_nodes]
        assert_equal 2 [cluster_field cluster_size]
        # CLUSTER SLOTS lists the ranges in slot order, each with its node's address and id.
        set slots [r cluster slots]
        assert_equal {{0 8191} {8192 16383}} [lmap e $slots {lrange $e 0 1}]
        assert_equal [list 127.0.0.1 30001 $other {}] [lindex $slots 1 2]
        assert_equal $mine [lindex $slots 0 2 2]
        assert_error {ERR To set a master the node must be empty and without assigned slots.} \
            {r cluster replicate $other}
        # foo hashes to 12182, the other node's; bar to 5061, ours.
        assert_error {MOVED 12182 127.0.0.1:30001} {r get foo}
        assert_error {MOVED 12182 127.0.0.1:30001} {r eval {return 1} 1 foo}
        assert_error {*Script attempted to access a non local key in a cluster node*} \
            {r eval {return redis.call('get','foo')} 0}
        assert_equal OK [r set bar 1]
        # Shard channels are routed as keys; classic Pub/Sub is not.
        assert_error {MOVED 12182 127.0.0.1:30001} {r spublish foo hi}
        assert_equal 0 [r spublish bar hi]
        assert_equal 0 [r publish foo hi]
        r multi
        assert_error {MOVED 12182 *} {r set foo 1}
        assert_error {EXECABORT *} {r exec}
    }

    test {A migrating slot: ASK for missing keys, TRYAGAIN for some, served when present} {
        set slot [r cluster keyslot bar]
        assert_equal OK [r cluster setslot $slot migrating $other]
        assert_equal 1 [r get bar]
        assert_error "ASK $slot 127.0.0.1:30001" {r get missing{bar}}
        assert_error {TRYAGAIN *} {r mget bar missing{bar}}
        assert_equal OK [r cluster setslot $slot stable]
        assert_equal {} [r get missing{bar}]
    }

    test {An importing slot: served after ASKING only, for the next command} {
        set slot [r cluster keyslot foo]
        assert_equal OK [r cluster setslot $slot importing $other]
        assert_error {MOVED *} {r get foo}
        assert_equal OK [r asking]
        assert_equal {} [r get foo]
        assert_error {MOVED *} {r get foo}
        assert_equal OK [r asking]
        assert_equal OK [r set foo 1]
        assert_equal OK [r cluster setslot $slot stable]
        assert_equal 1 [r cluster countkeysinslot $slot]
        assert_error {ERR Can't assign hashslot * while I still hold keys for this hash slot.} \
            {r cluster setslot [r cluster keyslot bar] node $other}
    }

    # A blocked client whose slot stops being served here is answered at once (Redis 7.0
    # checks its blocked clients in the cron; redis-tp after every change of the view).
    # b hashes to 3300, ours and empty.
    test {Blocked clients of a slot given to another node get MOVED} {
        set waits {{blpop b 0} {brpoplpush b b 0} {blmove b b left right 0} {bzpopmin b 0}
                   {bzmpop 0 1 b min} {xread block 0 streams b $}}
        set clients [block_clients $waits]
        assert_equal OK [r cluster setslot 3300 node $other]
        foreach c $clients {
            assert_error {MOVED 3300 127.0.0.1:30001} {$c read}
            $c close
        }
        assert_equal 0 [s blocked_clients]
        assert_equal OK [r cluster setslot 3300 node $mine]
        assert_equal {} [r lrange b 0 -1]
    }

    test {Blocked clients of a migrating or importing slot keep waiting} {
        set c [redis_deferring_client]
        $c blpop b 0
        wait_for_blocked_client
        assert_equal OK [r cluster setslot 3300 migrating $other]
        assert_equal PONG [r ping]
        assert_equal 1 [s blocked_clients]
        assert_equal OK [r cluster setslot 3300 stable]
        r rpush b x
        assert_equal {b x} [$c read]
        # d hashes to 11298, the other node's: imported, a client that said ASKING may wait on
        # it, until the slot is no longer imported.
        assert_equal OK [r cluster setslot 11298 importing $other]
        $c asking
        assert_equal OK [$c read]
        $c blpop d 0
        wait_for_blocked_client
        assert_equal PONG [r ping]
        assert_equal 1 [s blocked_clients]
        assert_equal OK [r cluster setslot 11298 stable]
        assert_error {MOVED 11298 127.0.0.1:30001} {$c read}
        $c close
    }

    test {Blocked clients get CLUSTERDOWN when the cluster fails or their slot loses its owner} {
        r del s{b}
        r xadd s{b} 1-0 f v
        r xgroup create s{b} g $
        set waits {{blpop b 0} {xread block 0 streams s{b} $} {xreadgroup group g c block 0 streams s{b} >}}
        set clients [block_clients $waits]
        # Slot 100 without owner: the state is fail (full coverage required). Reads allowed
        # while down do not keep them waiting: only a write could serve them.
        r config set cluster-allow-reads-when-down yes
        assert_equal OK [r cluster delslots 100]
        foreach c $clients {
            assert_error {CLUSTERDOWN The cluster is down} {$c read}
        }
        r config set cluster-allow-reads-when-down no
        assert_equal OK [r cluster addslots 100]
        wait_cluster_ok
        # Without full coverage the state stays ok; the slot alone loses its owner.
        r config set cluster-require-full-coverage no
        set c [lindex $clients 0]
        $c blpop b 0
        wait_for_blocked_client
        assert_equal OK [r cluster delslots 3300]
        assert_error {CLUSTERDOWN Hash slot not served} {$c read}
        assert_equal OK [r cluster addslots 3300]
        r config set cluster-require-full-coverage yes
        foreach c $clients {$c close}
        r del s{b}
    }

    tags {redistp} {
    test {A BSETTP waiter gets CLUSTERDOWN when the cluster fails} {
        set h [redis_client]
        $h timeout 5000
        assert_equal 1 [$h settp b held]
        set c [redis_deferring_client]
        $c bsettp b mine 0
        wait_for_blocked_client
        assert_equal OK [r cluster delslots 100]
        assert_error {CLUSTERDOWN The cluster is down} {$c read}
        assert_equal OK [r cluster addslots 100]
        wait_cluster_ok
        assert_equal held [r get b]
        $c close
        $h close
        wait_for_condition 100 20 {[r exists b] == 0} else {fail "b still held"}
    }
    }

    test {CLUSTER FORGET drops the other node and its slots} {
        r flushall
        assert_equal OK [r cluster forget $other]
        assert_equal 1 [cluster_field cluster_known_nodes]
        assert_error {CLUSTERDOWN Hash slot not served} {r get foo}
    }
}
file delete -force $dir
