# Locks and acknowledged writes across a Sentinel failover (docs/replication.md, "Failover: what
# a promoted replica does" and "What asynchronous replication cannot promise"). Each test has a
# group of its own: a master, two replicas of it and three of Debian's sentinels (quorum 2,
# down-after $::sentinel_down_after_ms: tests/support/sentinel.tcl says why not less), the
# master SIGKILLed and the new master found through SENTINEL get-master-addr-by-name, as a
# client library would. Servers sync without the diskless delay (repl-diskless-sync-delay 0),
# which has nothing to do with what is tested; a failure prints the sentinels' events.
#
# 1. (redis-tp, tp-failover-grace-ms 2000) A session's lock and a plain connection's lock,
#    both acknowledged by WAIT on the two replicas, survive the promotion: the session resumes
#    with the same fence, the plain connection's key goes to a BSETTP waiter after the grace,
#    and a new token is above the old ones.
# 2. (any server, also Redis 7.0) Under a write load, every write that WAIT reported on both
#    replicas is on the new master with its value.
#
# Only outcomes are asserted: every wait is wait_for_condition or a blocking read, with generous
# bounds. Servers and sentinels are reached by port through fresh connections (Sentinel kills
# the normal clients of a server it reconfigures; tests/support/sentinel.tcl). The killed master
# is started again on its port when its group ends, so the harness reaps a live process.
source tests/support/sentinel.tcl

set sl_sentinel_options [list down-after-milliseconds $::sentinel_down_after_ms \
    failover-timeout 10000 parallel-syncs 1]

# A connection to the server on `port` (db 0, replies waited for at most 20 s).
proc sl_client {port} {
    return [::redis::redis 127.0.0.1 $port 0 20000]
}

# Runs `body` in the caller's scope over a fresh group: the master at level -2, its replicas at
# -1 and 0, every server with `overrides` (and no diskless sync delay), three sentinels. Sets
# the caller's `master_port`, `replica_ports` and `sentinels`.
proc sl_with_group {tags overrides body} {
    upvar 1 master_port master_port replica_ports replica_ports sentinels sentinels
    # As they stay when the block is skipped (tags).
    set result ""
    set opts {-code ok}
    set overrides [concat {repl-diskless-sync-delay 0} $overrides]
    start_server [list tags $tags overrides $overrides] {
        set master_port [srv 0 port]
        set replica_overrides [concat $overrides [list replicaof "127.0.0.1 $master_port"]]
        start_server [list overrides $replica_overrides] {
            start_server [list overrides $replica_overrides] {
                set replica_ports [list [srv -1 port] [srv 0 port]]
                # The sentinels start once both replicas follow the master (sl_wait_group, in
                # the test, asserts it): a sentinel learns the replicas from its first INFO of
                # the master and asks again only 10 s later.
                wait_for_condition 200 50 {
                    [replica_of_port [lindex $replica_ports 0] $master_port] &&
                    [replica_of_port [lindex $replica_ports 1] $master_port]
                } else {}
                set rc [catch {
                    with_sentinels sentinels 3 mymaster $master_port 2 $::sl_sentinel_options {
                        uplevel 1 $body
                    }
                } result opts]
                # The test killed the master: bring it back (the sentinels are gone by now)
                # so that the end of the block stops a live server.
                if {![is_alive -2]} {
                    catch {server_restart_same_port -2}
                }
            }
        }
    }
    return -options $opts $result
}

# Waits until both replicas follow the master and every sentinel knows both replicas and the
# two other sentinels (a failover needs the sentinels to have found each other).
proc sl_wait_group {master_port replica_ports sentinels} {
    wait_for_condition 200 50 {
        [replica_of_port [lindex $replica_ports 0] $master_port] &&
        [replica_of_port [lindex $replica_ports 1] $master_port] &&
        [info_on_port $master_port connected_slaves] == 2
    } else {
        fail "replicas did not connect: [on_port $master_port info replication]"
    }
    foreach s $sentinels {
        set sp [dict get $s port]
        wait_for_condition 300 100 {
            [llength [on_port $sp sentinel replicas mymaster]] == 2 &&
            [llength [on_port $sp sentinel sentinels mymaster]] == 2
        } else {
            fail "sentinel $sp: replicas [on_port $sp sentinel replicas mymaster]\
                  sentinels [on_port $sp sentinel sentinels mymaster]"
        }
    }
}

# Waits until every sentinel names one of the replicas as the master, that server answers as a
# master and the other replica follows it. Returns the new master's port.
proc sl_wait_failover {sentinels replica_ports} {
    set new_port ""
    wait_for_condition 600 100 {
        [set new_port [sentinels_settled_master $sentinels mymaster $replica_ports]] ne ""
    } else {
        fail "no failover to a replica the other follows:\
              [sentinel_master_addr [lindex $sentinels 0] mymaster]\
              [on_port [lindex $replica_ports 0] role] / [on_port [lindex $replica_ports 1] role]"
    }
    return $new_port
}

# The master a client would find now: the port the first sentinel names.
proc sl_master_from_sentinel {sentinels} {
    set addr [sentinel_master_addr [lindex $sentinels 0] mymaster]
    assert_equal 127.0.0.1 [lindex $addr 0]
    return [lindex $addr 1]
}

if {[sentinel_binary] eq ""} {
    incr ::test::skipped
    ::test::emit "\[skip\]: sentinel locks (no redis-sentinel on this machine)"
    return
}

sl_with_group {repl sentinel external:skip slow redistp} {tp-failover-grace-ms 2000} {
    test {Sentinel failover: a session's lock resumes with its fence, a plain lock goes to a waiter after the grace, tokens grow} {
        sl_wait_group $master_port $replica_ports $sentinels

        # Two holders on the master: a session's lock with a fencing token, a plain
        # connection's lock; both acknowledged by the two replicas.
        set s [sl_client $master_port]
        set token [$s session open 30000]
        set session_id [lindex [split $token :] 0]
        set fence_a [$s settp lockA me FENCE]
        assert_morethan $fence_a 0
        set p [sl_client $master_port]
        assert_equal 1 [$p settp lockB x]
        assert_equal 2 [$p wait 2 5000]
        foreach port $replica_ports {
            assert_equal $fence_a [on_port $port object fence lockA]
            assert_equal x [on_port $port get lockB]
        }

        server_kill -2
        set new_port [sl_wait_failover $sentinels $replica_ports]
        assert_equal $new_port [sl_master_from_sentinel $sentinels]
        catch {$s close}
        catch {$p close}

        # The session owner comes back on the new master: same key, same fence, still its.
        set c [sl_client $new_port]
        assert_equal OK [$c session resume $token]
        assert_equal $fence_a [$c object fence lockA]
        assert_equal me [$c get lockA]
        # An owner id inherited from the old master carries bit 62 (docs/replication.md).
        assert_equal [expr {(1 << 62) + $session_id}] [$c object owner lockA]
        set held {}
        foreach rec [$c tpkeys] {
            lappend held [dict get $rec key] [dict get $rec fence]
        }
        assert_equal [list lockA $fence_a] $held

        # The plain connection's lock has no owner that could come back: a waiter gets it once
        # tp-failover-grace-ms has passed (or at once, if it already has).
        set w [::redis::redis 127.0.0.1 $new_port 1 20000]
        $w client id
        set wid [$w read]
        $w bsettp lockB y 0
        assert_equal 1 [$w read]
        assert_equal y [$c get lockB]
        assert_equal $wid [$c object owner lockB]
        assert_equal 1 [getInfoProperty [$c info coordination] released_by_failover]
        # The session's lock was not released by the failover grace.
        assert_equal $fence_a [$c object fence lockA]

        # A token of the new master is above every token of the old one.
        set n [sl_client $new_port]
        set fence_c [$n settp lockC z FENCE]
        assert_morethan $fence_c $fence_a

        $n close
        $w close
        $c close
    }
}

sl_with_group {repl sentinel external:skip slow} {} {
    test {Sentinel failover: no write acknowledged by WAIT on both replicas is lost at kill -9 of the master} {
        sl_wait_group $master_port $replica_ports $sentinels

        # Writes with WAIT after each; the master is killed after the 100th acknowledged one,
        # and the loop goes on against the dead master (those writes fail) until its bounds.
        set m [sl_client $master_port]
        $m timeout 5000
        set acked {}
        set killed 0
        set failed_writes 0
        set deadline [expr {[clock milliseconds] + 10000}]
        for {set i 0} {$i < 300 && [clock milliseconds] < $deadline} {incr i} {
            if {[catch {
                $m set k:$i $i
                set got [$m wait 2 2000]
            }]} {
                incr failed_writes
                continue
            }
            if {$got == 2} {lappend acked $i}
            if {!$killed && [llength $acked] >= 100} {
                server_kill -2
                set killed 1
            }
        }
        if {!$killed} {server_kill -2}
        catch {$m close}
        if {$::test::verbose} {
            ::test::emit "    ([llength $acked] writes acknowledged, $failed_writes failed)"
        }
        assert_morethan [llength $acked] 0

        set new_port [sl_wait_failover $sentinels $replica_ports]
        assert_equal $new_port [sl_master_from_sentinel $sentinels]
        set c [sl_client $new_port]
        set missing {}
        foreach i $acked {
            if {[$c get k:$i] ne $i} {lappend missing $i}
        }
        $c close
        assert_equal {} $missing "acknowledged writes missing on the new master (of [llength $acked])"
    }
}
