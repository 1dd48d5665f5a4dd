# Temporary keys, sessions and fencing tokens across replication and promotion (redis-tp to
# redis-tp; docs/replication.md). A master and a replica of it: the replica holds every
# temporary key with the master's owner (in the inherited namespace, bit 62), exact fencing
# token and hold count; a watcher on the replica follows the stream; nothing is released on the
# replica by a link drop or by a local connection that has the owner's id; after REPLICAOF NO
# ONE a session resumes with its token and fence, a plain connection's key goes to a BSETTP
# waiter once tp-failover-grace-ms has passed, and tokens are above every earlier one, also
# those the old master handed out after the promotion.
#
# Nothing waits for a fixed time: the replica's progress is polled with wait_for_condition, and
# the failover grace is made to pass by CONFIG SET, not by sleeping.

# The replica (level 0) has applied everything the master (level -1) sent so far.
proc rt_wait_sync {} {
    wait_for_condition 500 20 {
        [status 0 master_link_status] eq "up" &&
        [status -1 master_repl_offset] == [status 0 slave_repl_offset]
    } else {
        fail "the replica did not catch up with the master"
    }
}

# A field of INFO at `level` (util.tcl's `s` takes the default section only).
proc status {level field} {
    getInfoProperty [r $level info replication] $field
}

proc rt_inherited {id} { expr {(1 << 62) + $id} }

# A client of the master closed: the master handles the disconnect in a later turn, so wait
# until it has released `key` there before comparing offsets.
proc rt_master_released {key} {
    wait_for_condition 500 20 {[r -1 exists $key] == 0} else {
        fail "the master did not release $key"
    }
}

start_server {tags {repl external:skip redistp}} {
    # Held before the replica exists: they reach it through the full sync's image.
    set pre [redis_client]
    set prefence [$pre settp rt:pre v FENCE]
    set pres [redis_client]
    set pretoken [$pres session open 600000]
    $pres settp rt:presession v
    start_server {} {
        r replicaof [srv -1 host] [srv -1 port]
        wait_for_condition 500 20 {[status 0 master_link_status] eq "up"} else {
            fail "the replica did not connect"
        }

        test {Replica: the full sync carries temporary keys and sessions} {
            rt_wait_sync
            assert_equal $prefence [r object fence rt:pre]
            assert_equal [rt_inherited [$pre client id]] [r object owner rt:pre]
            assert_match "*id=[rt_inherited [lindex [split $pretoken :] 0]] *keys=1*" \
                [r session list]
            # Their releases come through the stream.
            $pre close
            $pres session close
            rt_master_released rt:pre
            rt_wait_sync
            assert_equal 0 [r exists rt:pre]
            assert_equal 0 [r exists rt:presession]
            assert_equal {} [r session list]
            $pres close
        }

        test {Replica: a temporary key with its owner, exact fence and hold count} {
            set a [redis_client -1]
            set fence [$a settp rt:lock v FENCE]
            assert_equal $fence [$a settp rt:lock v REENTRANT]
            rt_wait_sync
            assert_equal v [r get rt:lock]
            assert_equal $fence [r object fence rt:lock]
            assert_equal [rt_inherited [$a client id]] [r object owner rt:lock]
            set info [r tpinfo rt:lock]
            assert_equal 2 [dict get $info holds]
            assert_equal $fence [dict get $info fence]
            # Holds follow the master's DELTP one by one.
            assert_equal 0 [$a deltp rt:lock]
            rt_wait_sync
            assert_equal 1 [dict get [r tpinfo rt:lock] holds]
            assert_equal 1 [$a deltp rt:lock]
            rt_wait_sync
            assert_equal 0 [r exists rt:lock]
            $a close
        }

        test {Replica: sessions and temporary keys are read-only there} {
            assert_error {READONLY*} {r settp rt:ro v}
            assert_error {READONLY*} {r session open 1000}
            assert_error {READONLY*} {r session resume 1:00000000000000000000000000000000}
        }

        test {Replica: the owner leaving the master deletes the key, a watcher on the replica sees ADD and DEL} {
            set w [redis_deferring_client]
            $w watchex rt:w
            assert_equal NOEXIST [$w read]
            set a [redis_client -1]
            assert_equal 1 [$a settp rt:w v]
            assert_equal {watchex rt:w ADD} [$w read]
            rt_wait_sync
            $a close
            assert_equal {watchex rt:w DEL} [$w read]
            assert_equal 0 [r exists rt:w]
            $w close
        }

        test {Replica: a link drop and a local connection with the owner's id release nothing} {
            set a [redis_client -1]
            set owner [$a client id]
            assert_equal 1 [$a settp rt:keep v]
            rt_wait_sync
            # A connection of the replica with the master owner's id: open connections until
            # one gets it (or, if the replica's ids are past it, use a fresh owner on the
            # master whose id the replica has not reached yet).
            set local [redis_client]
            set tries 0
            while {[$local client id] < $owner && [incr tries] < 2000} {
                $local close
                set local [redis_client]
            }
            if {[$local client id] > $owner} {
                # The master's counter is behind: give the key to a master connection whose id
                # the replica reaches next.
                set next [expr {[$local client id] + 1}]
                set b [redis_client -1]
                set tries 0
                while {[$b client id] < $next && [incr tries] < 2000} {
                    $b close
                    set b [redis_client -1]
                }
                assert_equal 1 [$b settp rt:keep2 v]
                rt_wait_sync
                $local close
                set local [redis_client]
                assert_equal [$b client id] [$local client id]
                set key rt:keep2
            } else {
                set key rt:keep
            }
            assert_equal 1 [r exists $key]
            set lid [$local client id]
            $local close
            wait_for_condition 500 20 {![string match "*id=$lid *" [r client list]]} else {
                fail "the replica did not see its connection $lid end"
            }
            assert_equal 1 [r exists $key]
            # The link drops: the replica reconnects and keeps everything.
            r client kill type master
            wait_for_condition 500 20 {[status 0 master_link_status] eq "up"} else {
                fail "the replica did not reconnect"
            }
            rt_wait_sync
            assert_equal 1 [r exists rt:keep]
            assert_equal 1 [r exists $key]
            $a close
            catch {$b close}
            rt_master_released rt:keep
            rt_wait_sync
            assert_equal 0 [r exists rt:keep]
        }

        test {Promotion: sessions resume with their fence, plain keys go after tp-failover-grace-ms, tokens grow} {
            set s [redis_client -1]
            set token [$s session open 600000]
            set sfence [$s settp rt:slock v FENCE]
            set a [redis_client -1]
            set pfence [$a settp rt:plain v FENCE]
            rt_wait_sync
            r config set tp-failover-grace-ms 100000000
            r replicaof no one
            # The old master keeps handing out tokens (split brain): the promoted server's
            # are above them anyway.
            set stale [$a settp rt:other v FENCE]
            assert_morethan $stale $pfence

            set c [redis_client]
            assert_equal OK [$c session resume $token]
            assert_equal $sfence [$c object fence rt:slock]
            assert_equal $sfence [$c settp rt:slock v REENTRANT FENCE]
            set fresh [$c settp rt:fresh v FENCE]
            assert_morethan $fresh $stale
            assert_morethan $fresh [expr {$sfence + (1 << 32)}]

            # The plain connection's key waits for the grace; a BSETTP waiter gets it then.
            set w [redis_deferring_client]
            $w bsettp rt:plain mine 0
            wait_for_blocked_clients_count 1
            assert_equal v [r get rt:plain]
            r config set tp-failover-grace-ms 0
            assert_equal 1 [$w read]
            assert_equal mine [r get rt:plain]
            $w client id
            set wid [$w read]
            assert_equal $wid [r object owner rt:plain]
            assert_equal 1 [getInfoProperty [r info coordination] released_by_failover]
            $w close
            $c close
            $s close
            $a close
        }
    }
}

# Clients through Redis Sentinel: Debian's redis-server in sentinel mode monitors our master;
# redis-tp-lock --sentinel asks it for the master and takes the lock there.
proc rt_start_sentinel {master_port} {
    set dir [file join $::root_dir tests tmp sentinel.[pid]]
    file mkdir $dir
    set port [::server::find_free_port]
    set conf [file join $dir sentinel.conf]
    set f [open $conf w]
    puts $f "port $port\nbind 127.0.0.1\ndir $dir\nlogfile [file join $dir sentinel.log]"
    puts $f "sentinel monitor mymaster 127.0.0.1 $master_port 1"
    close $f
    set pid [exec /usr/bin/redis-server $conf --sentinel &]
    set r [list $pid $port $dir]
    wait_for_condition 100 50 {
        ![catch {exec redis-cli -p $port sentinel get-master-addr-by-name mymaster} addr] &&
        [lindex $addr 1] == $master_port
    } else {
        exec kill $pid
        fail "the sentinel did not come up"
    }
    return $r
}

# Stops the sentinel of rt_start_sentinel and removes its directory. Sentinel writes its config
# and log while it shuts down, so the directory goes only once the process is gone (deleting it
# at once failed under load: "file already exists").
proc rt_stop_sentinel {pid dir} {
    catch {exec kill -TERM $pid}
    wait_for_condition 200 50 {![::server::process_alive $pid]} else {
        catch {exec kill -KILL $pid}
    }
    file delete -force $dir
}

start_server {tags {repl external:skip redistp}} {
    test {redis-tp-lock --sentinel takes the lock on the master the sentinel names} {
        lassign [rt_start_sentinel [srv port]] pid sport dir
        set lock [file join $::root_dir src redis-tp-lock]
        set rc [catch {exec $lock --sentinel 127.0.0.1:$sport --master-name mymaster \
                           --db [srv db] rt:sl -c "redis-cli -p [srv port] -n [srv db] exists rt:sl" \
                           2>@1} out]
        set rc2 [catch {exec $lock --sentinel 127.0.0.1:$sport --master-name nosuch -w 1 \
                            rt:sl -c true 2>@1} out2]
        rt_stop_sentinel $pid $dir
        assert_equal {0 1} [list $rc [string trim $out]]
        assert_equal 1 $rc2
        assert_match {*no address from the sentinels*does not know nosuch*} $out2
        assert_equal 0 [r exists rt:sl]
    }
}
