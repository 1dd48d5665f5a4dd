# A stock Sentinel group over the servers under test: one master, two replicas (replicaof in
# their config) and three of Debian's Redis Sentinels (quorum 2, down-after
# $::sentinel_down_after_ms: tests/support/sentinel.tcl says why not less). What Sentinel
# does with a group is its business; what the servers must do is look to it exactly like Redis:
# INFO replication that it parses (run_id, role, slaveN lines, master_link_status, offsets,
# slave_priority), the __sentinel__:hello channel through which sentinels find each other, ROLE,
# and the reconfiguration transaction it sends (MULTI, SLAVEOF, CONFIG REWRITE, CLIENT KILL TYPE
# normal/pubsub, EXEC). So the tests watch outcomes only: the sentinels find the replicas and each
# other, a SIGKILLed master is replaced by one of its replicas which the other follows, writes on
# the new master reach the replicas, the old master comes back as a replica of the new one, and
# SENTINEL FAILOVER moves the master again. The same file passes with --server
# /usr/bin/redis-server (every server role is the --server binary). Servers and sentinels are
# reached by port through fresh connections (tests/support/sentinel.tcl says why). The tests
# follow the master the sentinels agree on (`sentinels_settled_master`) rather than a port fixed
# in advance, and a failed test prints what the sentinels saw (`sentinel_events`); the
# servers sync without the diskless delay (repl-diskless-sync-delay 0), which has nothing to do
# with what is tested and would cost seconds at each full sync.
source tests/support/sentinel.tcl

set sentinel_options [list down-after-milliseconds $::sentinel_down_after_ms \
    failover-timeout 10000 parallel-syncs 1]

# Writes a few keys of several types in db 0 and db 3 of the server on `port`.
proc sentinel_write_batch {port tag} {
    set c [::redis::redis 127.0.0.1 $port 0 5000]
    foreach db {0 3} {
        $c select $db
        for {set i 0} {$i < 20} {incr i} {
            $c set "$tag:s:$i" "value $i"
            $c rpush "$tag:l" $i
            $c hset "$tag:h" "f$i" $i
            $c zadd "$tag:z" $i "m$i"
        }
        $c expire "$tag:s:0" 1000
    }
    $c close
}

# Whether every server of `ports` has the same non-empty dataset as the one on `port`.
proc same_data_as {port ports} {
    if {[catch {on_port $port debug digest} want]} {return 0}
    if {$want eq [string repeat 0 40]} {return 0}
    foreach p $ports {
        if {[catch {on_port $p debug digest} got] || $got ne $want} {return 0}
    }
    return 1
}

if {[sentinel_binary] eq ""} {
    incr ::test::skipped
    ::test::emit "\[skip\]: sentinel group (no redis-sentinel on this machine)"
    return
}

start_server {tags {repl sentinel external:skip slow} overrides {repl-diskless-sync-delay 0}} {
    set master_port [srv 0 port]
    set ports [list $master_port]
    set replica_overrides [list repl-diskless-sync-delay 0 replicaof "127.0.0.1 $master_port"]
    start_server [list overrides $replica_overrides] {
        lappend ports [srv 0 port]
        start_server [list overrides $replica_overrides] {
            lappend ports [srv 0 port]
            # Level of the server on each port, for restarts.
            set level_of [dict create $master_port -2 [lindex $ports 1] -1 [lindex $ports 2] 0]

            test {Sentinel group: the two replicas follow the master before the sentinels start} {
                wait_for_condition 200 50 {
                    [replica_of_port [lindex $ports 1] $master_port] &&
                    [replica_of_port [lindex $ports 2] $master_port] &&
                    [info_on_port $master_port connected_slaves] == 2
                } else {
                    fail "replicas did not connect: [on_port $master_port info replication]"
                }
                sentinel_write_batch $master_port a
                wait_for_condition 200 50 {[same_data_as $master_port [lrange $ports 1 end]]} else {
                    fail "replicas did not receive the first writes"
                }
            }

            with_sentinels sentinels 3 mymaster $master_port 2 $sentinel_options {
                test {Sentinel group: each sentinel finds both replicas and the two other sentinels} {
                    foreach s $sentinels {
                        set sp [dict get $s port]
                        wait_for_condition 300 100 {
                            [llength [on_port $sp sentinel replicas mymaster]] == 2 &&
                            [llength [on_port $sp sentinel sentinels mymaster]] == 2
                        } else {
                            fail "sentinel $sp: replicas [on_port $sp sentinel replicas mymaster]\
                                  sentinels [on_port $sp sentinel sentinels mymaster]"
                        }
                        set found {}
                        foreach rep [on_port $sp sentinel replicas mymaster] {
                            lappend found [dict get $rep port]
                        }
                        assert_equal [lsort [lrange $ports 1 end]] [lsort $found]
                    }
                }

                test {Sentinel group: get-master-addr-by-name names the master; it is healthy} {
                    foreach s $sentinels {
                        assert_equal [list 127.0.0.1 $master_port] [sentinel_master_addr $s mymaster]
                        set m [on_port [dict get $s port] sentinel master mymaster]
                        assert_equal master [dict get $m flags]
                        assert_equal 2 [dict get $m num-slaves]
                        assert_equal 2 [dict get $m num-other-sentinels]
                    }
                    # The hello channel carries each sentinel's announcement through the master.
                    assert_morethan_equal [lindex [on_port $master_port pubsub numsub \
                        __sentinel__:hello] 1] 3
                }

                test {Sentinel group: kill -9 of the master promotes a replica the other follows} {
                    server_kill [dict get $level_of $master_port]
                    set new_port ""
                    wait_for_condition 600 100 {
                        [set new_port [sentinels_settled_master $sentinels mymaster \
                            [lrange $ports 1 end]]] ne ""
                    } else {
                        fail "no failover to a replica the other follows:\
                              [sentinel_master_addr [lindex $sentinels 0] mymaster]\
                              [on_port [lindex $ports 1] role] / [on_port [lindex $ports 2] role]"
                    }
                    assert_equal 1 [info_on_port $new_port connected_slaves]
                    set ::new_port $new_port
                    set ::other_port [lsearch -inline -not -exact [lrange $ports 1 end] $new_port]
                }

                test {Sentinel group: writes on the promoted master reach the remaining replica} {
                    sentinel_write_batch $::new_port b
                    wait_for_condition 200 50 {[same_data_as $::new_port [list $::other_port]]} else {
                        fail "digests differ: [on_port $::new_port debug digest]\
                              [on_port $::other_port debug digest]"
                    }
                    assert_equal 20 [on_port $::new_port llen b:l]
                }

                # The master is the one the sentinels agree on when the old one is back: the
                # promoted replica, unless the group failed over again meanwhile (then the
                # claim holds of the master it moved to; a verbose run says so).
                test {Sentinel group: the old master, restarted, becomes a replica of the new one} {
                    server_restart_same_port [dict get $level_of $master_port]
                    set current ""
                    wait_for_condition 400 100 {
                        [set current [sentinels_settled_master $sentinels mymaster $ports]] ne "" &&
                        $current != $master_port
                    } else {
                        fail "old master role: [on_port $master_port role]\
                              (sentinels' master [sentinel_master_addr [lindex $sentinels 0] \
                              mymaster])"
                    }
                    if {$current != $::new_port && $::test::verbose} {
                        ::test::emit "    (the master moved again: $::new_port -> $current)"
                    }
                    set ::new_port $current
                    set rest [lsearch -all -inline -not -exact $ports $current]
                    wait_for_condition 200 50 {[same_data_as $current $rest]} else {
                        fail "the old master did not resync"
                    }
                    # Every sentinel sees it as a replica too (its INFO of replicas is refreshed
                    # every 10 s).
                    wait_for_condition 300 100 {
                        [sentinels_see_replicas $sentinels mymaster $current $rest]
                    } else {
                        fail "the sentinels do not all see [join $rest ,] as replicas of $current:\
                              [on_port [dict get [lindex $sentinels 0] port] sentinel replicas \
                              mymaster]"
                    }
                }

                test {Sentinel group: SENTINEL FAILOVER moves the master to a replica} {
                    # A replica is a candidate once its sentinel has seen its link up recently;
                    # every sentinel must see both replicas as such, or one that still sees a
                    # replica as the master it was converts it back after its promotion.
                    set s [lindex $sentinels 0]
                    set from ""
                    wait_for_condition 300 100 {
                        [set from [sentinels_settled_master $sentinels mymaster $ports]] ne "" &&
                        [sentinels_see_replicas $sentinels mymaster $from \
                            [lsearch -all -inline -not -exact $ports $from]]
                    } else {
                        fail "replicas not both up before the manual failover:\
                              [sentinel_master_addr $s mymaster]"
                    }
                    assert_equal OK [on_port [dict get $s port] sentinel failover mymaster]
                    set third ""
                    wait_for_condition 600 100 {
                        [set third [sentinels_settled_master $sentinels mymaster $ports]] ne "" &&
                        $third != $from
                    } else {
                        fail "manual failover did not move the master from $from:\
                              [sentinel_master_addr $s mymaster]"
                    }
                    set rest [lsearch -all -inline -not -exact $ports $third]
                    sentinel_write_batch $third c
                    wait_for_condition 200 50 {[same_data_as $third $rest]} else {
                        fail "writes after the manual failover did not reach both replicas"
                    }
                }
            }
        }
    }
}
