# FAILOVER and SHUTDOWN with replicas, as Redis 7.0 documents them.
#
# FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms] hands the master role to a replica
# without losing acknowledged writes: the master pauses writes (CLIENT PAUSE WRITE), waits until
# the target (or any replica) has acknowledged its whole stream (master_failover_state
# waiting-for-sync), then becomes a replica of it and asks it to take over with
# `PSYNC <replid> <offset> FAILOVER` (failover-in-progress) until the target answers. A TIMEOUT
# that passes before the target catches up aborts, unless FORCE says go anyway; ABORT gives up.
# SHUTDOWN on a master with replicas pauses writes in the same way and waits, at most
# shutdown-timeout seconds, for them to acknowledge the whole stream; NOW and FORCE do not
# wait, SHUTDOWN ABORT cancels, SIGTERM waits as SHUTDOWN does.
#
# A replica that must lag is stopped with SIGSTOP (so it cannot acknowledge anything, whatever
# the timing) and resumed with SIGCONT. Every pair of tests runs with the --server binary in both
# roles, then, when that binary is not Redis, with Debian's Redis as the master of ours and as
# its replica: FAILOVER between the two is Redis's protocol (PSYNC ... FAILOVER).
source tests/support/sentinel.tcl

set ::redis_binary /usr/bin/redis-server

proc server_pause_process {level} { exec kill -STOP [srv $level pid] }
proc server_resume_process {level} { exec kill -CONT [srv $level pid] }

# Whether the server at `level` is a replica of the one at `master_level`, its link up.
proc follows {level master_level} {
    return [replica_of_port [srv $level port] [srv $master_level port]]
}

proc wait_follows {level master_level} {
    wait_for_condition 300 50 {[follows $level $master_level]} else {
        fail "server at $level does not follow $master_level: [on_port [srv $level port] role]"
    }
}

proc failover_state {level} { return [info_on_port [srv $level port] master_failover_state] }

# Waits until the master at `level` has seen every replica acknowledge its whole stream.
proc wait_replicas_synced {level} {
    wait_for_condition 300 50 {
        [regexp {offset=(\d+)} [info_on_port [srv $level port] slave0] -> off] &&
        $off == [info_on_port [srv $level port] master_repl_offset]
    } else {
        fail "replica never acknowledged: [on_port [srv $level port] info replication]"
    }
}

# --- argument checking, on a master without replicas and on a replica -------------------------

start_server {tags {repl failover external:skip}} {
    test {FAILOVER: argument errors come before anything else} {
        assert_error {ERR syntax error} {r failover bogus}
        assert_error {ERR syntax error} {r failover to 127.0.0.1}
        assert_error {ERR syntax error} {r failover timeout 10 timeout 20}
        assert_error {ERR syntax error} {r failover abort abort}
        assert_error {ERR syntax error} {r failover abort timeout 10}
        assert_error {ERR syntax error} {r failover to 127.0.0.1 1 abort}
        assert_error {ERR syntax error} {r failover to a 1 to b 2}
        assert_error {ERR value is not an integer or out of range} {r failover to 127.0.0.1 x}
        assert_error {ERR value is not an integer or out of range} {r failover timeout abc}
        assert_error {ERR value is not an integer or out of range} \
            {r failover timeout 99999999999999999999}
        assert_error {ERR FAILOVER timeout must be greater than 0} {r failover timeout 0}
        assert_error {ERR FAILOVER timeout must be greater than 0} {r failover timeout -1}
    }

    test {FAILOVER: a master without replicas refuses; ABORT finds nothing to abort} {
        assert_error {ERR FAILOVER requires connected replicas.} {r failover}
        assert_error {ERR FAILOVER requires connected replicas.} {r failover to 127.0.0.1 1}
        assert_error {ERR FAILOVER requires connected replicas.} {r failover force}
        assert_error {ERR No failover in progress.} {r failover abort}
        assert_equal no-failover [s master_failover_state]
        assert_equal master [lindex [r role] 0]
    }

    test {SHUTDOWN ABORT without a shutdown in progress} {
        assert_error {ERR No shutdown in progress.} {r shutdown abort}
    }
}

# The FAILOVER and SHUTDOWN tests of one master/replica pair; `mbin` and `rbin` are the binaries
# of the master and the replica ("" = the --server binary), `label` names the pair in the tests.
proc failover_pair_tests {mbin rbin label} {
    set mopts [list tags {repl failover external:skip} binary $mbin \
        overrides {repl-diskless-sync-delay 0}]
    start_server $mopts {
        set mport [srv 0 port]
        start_server [list binary $rbin overrides [list replicaof "127.0.0.1 $mport" \
            repl-diskless-sync-delay 0]] {
            set rport [srv 0 port]
            test "FAILOVER ($label): the replica follows its master" {wait_follows 0 -1}

            test "FAILOVER ($label): refused on a replica; FORCE and target errors on the master" {
                assert_error {ERR FAILOVER is not valid when server is a replica.} {r failover}
                assert_error {ERR FAILOVER is not valid when server is a replica.} \
                    {r failover to 127.0.0.1 $mport}
                assert_error {ERR FAILOVER timeout must be greater than 0} {r failover timeout 0}
                assert_error {ERR No failover in progress.} {r failover abort}
                set force_err {ERR FAILOVER with force option requires both a timeout and target HOST and IP.}
                assert_error $force_err {r -1 failover force}
                assert_error $force_err {r -1 failover force timeout 100}
                assert_error $force_err {r -1 failover to 127.0.0.1 $rport force}
                assert_error {ERR FAILOVER target HOST and PORT is not a replica.} \
                    {r -1 failover to 127.0.0.1 [expr {$rport == 1 ? 2 : 1}]}
                assert_error {ERR FAILOVER target HOST and PORT is not a replica.} \
                    {r -1 failover to 127.0.0.1 [expr {$rport == 1 ? 2 : 1}] force timeout 10}
                assert_equal no-failover [failover_state -1]
            }

            test "FAILOVER ($label): the replica becomes the master, the master its replica" {
                for {set i 0} {$i < 50} {incr i} {r -1 rpush list $i}
                r -1 set last before-failover
                assert_equal OK [r -1 failover]
                wait_for_condition 300 50 {
                    [master_on_port $rport] && [follows -1 0]
                } else {
                    fail "roles: [on_port $mport role] / [on_port $rport role]"
                }
                wait_for_condition 100 50 {
                    [failover_state -1] eq "no-failover" && [failover_state 0] eq "no-failover"
                } else {
                    fail "failover state stuck: [failover_state -1] [failover_state 0]"
                }
                # Nothing was lost: the old master, now replica, has what the new master has.
                r set last after-failover
                wait_for_condition 100 50 {[r -1 get last] eq "after-failover"} else {
                    fail "writes on the new master do not reach the old one"
                }
                assert_equal 50 [r -1 llen list]
                assert_equal [on_port $rport debug digest] [on_port $mport debug digest]
                assert_error {READONLY*} {r -1 set x y}
            }

            test "FAILOVER ($label): TO host port, back to the first server" {
                wait_replicas_synced 0
                assert_equal OK [r failover to 127.0.0.1 $mport timeout 20000]
                wait_for_condition 300 50 {[master_on_port $mport] && [follows 0 -1]} else {
                    fail "roles: [on_port $mport role] / [on_port $rport role]"
                }
                assert_equal after-failover [r -1 get last]
            }

            test "FAILOVER ($label): waits for the lagging replica with writes paused; ABORT" {
                wait_replicas_synced -1
                server_pause_process 0
                set rc [catch {
                    r -1 set lagging 1
                    assert_equal OK [r -1 failover timeout 60000]
                    assert_equal waiting-for-sync [failover_state -1]
                    assert_error {ERR FAILOVER already in progress.} {r -1 failover}
                    assert_error {ERR REPLICAOF not allowed while failing over.} \
                        {r -1 replicaof no one}
                    # Writes wait (CLIENT PAUSE WRITE); reads go on.
                    set w [redis_deferring_client -1]
                    $w set held-write 1
                    wait_for_blocked_clients_count 1 200 50 -1
                    assert_equal {} [r -1 get held-write]
                    assert_equal OK [r -1 failover abort]
                    assert_equal OK [$w read]
                    $w close
                    assert_equal no-failover [failover_state -1]
                    assert_equal 1 [r -1 get held-write]
                    assert_equal master [lindex [r -1 role] 0]
                } result opts]
                server_resume_process 0
                return -options $opts $result
            }

            test "FAILOVER ($label): TIMEOUT passes before the replica catches up: aborted" {
                wait_follows 0 -1
                server_pause_process 0
                set rc [catch {
                    r -1 incr lagging
                    assert_equal OK [r -1 failover timeout 300]
                    wait_for_condition 200 50 {[failover_state -1] eq "no-failover"} else {
                        fail "the failover did not time out: [failover_state -1]"
                    }
                    assert_equal master [lindex [r -1 role] 0]
                    assert_equal OK [r -1 set after-timeout 1]
                } result opts]
                server_resume_process 0
                return -options $opts $result
            }

            test "FAILOVER ($label): FORCE goes anyway when TIMEOUT passes" {
                wait_follows 0 -1
                server_pause_process 0
                set rc [catch {
                    r -1 incr lagging
                    assert_equal OK [r -1 failover to 127.0.0.1 $rport force timeout 300]
                    # The master turns replica of the target without waiting for it, and stays
                    # failover-in-progress until the target (stopped) answers its PSYNC.
                    wait_for_condition 200 50 {
                        [failover_state -1] eq "failover-in-progress"
                    } else {
                        fail "state: [failover_state -1]"
                    }
                    assert_equal slave [lindex [on_port $mport role] 0]
                } result opts]
                server_resume_process 0
                if {$rc} {return -options $opts $result}
                wait_for_condition 300 50 {[master_on_port $rport] && [follows -1 0]} else {
                    fail "roles: [on_port $mport role] / [on_port $rport role]"
                }
                wait_for_condition 100 50 {[failover_state -1] eq "no-failover"} else {
                    fail "state: [failover_state -1]"
                }
                # Writes sent after the pause began are on the promoted server.
                assert_equal 3 [r get lagging]
            }
        }
    }

    # SHUTDOWN waits for a lagging replica: the write it had not acknowledged reaches it before
    # the master exits.
    start_server $mopts {
        set mport [srv 0 port]
        r config set shutdown-timeout 60
        start_server [list binary $rbin overrides [list replicaof "127.0.0.1 $mport"]] {
            test "SHUTDOWN ($label): the replica follows its master" {wait_follows 0 -1}

            test "SHUTDOWN ($label): waits for a lagging replica; ABORT keeps the master serving" {
                wait_replicas_synced -1
                server_pause_process 0
                set rc [catch {
                    r -1 set k1 v1
                    set sd [redis_deferring_client -1]
                    $sd shutdown
                    wait_for_blocked_clients_count 1 200 50 -1
                    set w [redis_deferring_client -1]
                    $w set held 1
                    wait_for_blocked_clients_count 2 200 50 -1
                    assert_equal OK [r -1 shutdown abort]
                    assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {$sd read}
                    assert_equal OK [$w read]
                    $sd close
                    $w close
                    assert_equal 1 [r -1 get held]
                } result opts]
                server_resume_process 0
                return -options $opts $result
            }

            test "SHUTDOWN ($label): the lagging replica receives the last write before the exit" {
                wait_replicas_synced -1
                server_pause_process 0
                set rc [catch {
                    r -1 set last-word 42
                    set sd [redis_deferring_client -1]
                    $sd shutdown
                    wait_for_blocked_clients_count 1 200 50 -1
                } result opts]
                server_resume_process 0
                if {$rc} {return -options $opts $result}
                set mpid [srv -1 pid]
                wait_for_condition 200 50 {![::server::process_alive $mpid]} else {
                    fail "the master did not exit after its replica caught up"
                }
                catch {$sd close}
                assert_equal 42 [r get last-word]
            }
        }
    }

    # SIGTERM waits as SHUTDOWN does; SHUTDOWN NOW does not wait.
    start_server $mopts {
        set mport [srv 0 port]
        r config set shutdown-timeout 60
        start_server [list binary $rbin overrides [list replicaof "127.0.0.1 $mport"]] {
            test "SHUTDOWN ($label): the replica follows its master" {wait_follows 0 -1}

            test "SHUTDOWN ($label): SIGTERM waits for the lagging replica too" {
                wait_replicas_synced -1
                server_pause_process 0
                set rc [catch {
                    r -1 set by-sigterm 7
                    exec kill -TERM [srv -1 pid]
                    wait_for_log_message "*Waiting for replicas before shutting down*" 200 50 -1
                    assert {[::server::process_alive [srv -1 pid]]}
                } result opts]
                server_resume_process 0
                if {$rc} {return -options $opts $result}
                set mpid [srv -1 pid]
                wait_for_condition 200 50 {![::server::process_alive $mpid]} else {
                    fail "the master did not exit"
                }
                assert_equal 7 [r get by-sigterm]
            }
        }
    }

    start_server $mopts {
        set mport [srv 0 port]
        r config set shutdown-timeout 60
        start_server [list binary $rbin overrides [list replicaof "127.0.0.1 $mport"]] {
            test "SHUTDOWN ($label): the replica follows its master" {wait_follows 0 -1}

            test "SHUTDOWN ($label): NOW exits without waiting for the lagging replica" {
                wait_replicas_synced -1
                server_pause_process 0
                set rc [catch {
                    r -1 set unseen 1
                    set mpid [srv -1 pid]
                    # The replica, stopped, acknowledges nothing until the master is gone.
                    catch {r -1 shutdown now}
                    wait_for_condition 200 50 {![::server::process_alive $mpid]} else {
                        fail "SHUTDOWN NOW did not exit"
                    }
                } result opts]
                server_resume_process 0
                return -options $opts $result
            }
        }
    }

    start_server $mopts {
        set mport [srv 0 port]
        r config set shutdown-timeout 1
        start_server [list binary $rbin overrides [list replicaof "127.0.0.1 $mport"]] {
            test "SHUTDOWN ($label): the replica follows its master" {wait_follows 0 -1}

            test "SHUTDOWN ($label): after shutdown-timeout the master exits anyway" {
                wait_replicas_synced -1
                server_pause_process 0
                set rc [catch {
                    r -1 set unseen 1
                    set mpid [srv -1 pid]
                    set sd [redis_deferring_client -1]
                    $sd shutdown
                    wait_for_condition 200 50 {![::server::process_alive $mpid]} else {
                        fail "SHUTDOWN did not give up waiting"
                    }
                    catch {$sd close}
                    wait_for_log_message "*Lagging replica*" 10 50 -1
                } result opts]
                server_resume_process 0
                return -options $opts $result
            }
        }
    }
}

failover_pair_tests "" "" "same binary"
if {[file normalize $::server::binary] ne [file normalize [file readlink $::redis_binary]] &&
        [file normalize $::server::binary] ne [file normalize $::redis_binary]} {
    failover_pair_tests $::redis_binary "" "Redis master, our replica"
    failover_pair_tests "" $::redis_binary "our master, Redis replica"
}
