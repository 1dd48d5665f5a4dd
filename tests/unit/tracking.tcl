# Client-side caching (CLIENT TRACKING, issue 9): the default mode (keys remembered after a
# read, each reader told once), NOLOOP, OPTIN / OPTOUT with CLIENT CACHING, BCAST with and
# without prefixes, REDIRECT in RESP3 and in RESP2 through `__redis__:invalidate`, the broken
# redirect, the null invalidation of FLUSHALL / FLUSHDB, tracking-table-max-keys, expiry,
# MULTI/EXEC, the order of a client's own invalidation after its reply, and the
# replies and errors of CLIENT TRACKING / CACHING / GETREDIR / TRACKINGINFO, CLIENT LIST and
# INFO fields.
#
# Trackers are synchronous RESP3 clients: a push is read with `$c read`. "Nothing arrived" is
# checked with a PING: a pending invalidation would be read before the PONG. Every test
# starts from FLUSHALL (which ends with a null invalidation to every tracker, so each test
# makes its trackers after it) and closes its own clients.

# A client with the test database selected, RESP `proto`; reads give up after 3 s so a push
# that never comes fails the test quickly.
proc trk_client {{proto 3}} {
    set c [redis_client]
    $c timeout 3000
    if {$proto == 3} {$c hello 3}
    return $c
}

# A RESP3 client with tracking turned on with `args` (options after ON).
proc trk_tracker {args} {
    set c [trk_client 3]
    assert_equal OK [$c client tracking on {*}$args]
    return $c
}

proc trk_expect_nothing {c {detail ""}} {
    assert_equal PONG [$c ping] $detail
}

# A RESP2 connection subscribed to __redis__:invalidate (a deferring client), and its id.
proc trk_redirect_target {} {
    set rd [redis_deferring_client]
    $rd client id
    set id [$rd read]
    $rd subscribe __redis__:invalidate
    assert_equal {subscribe __redis__:invalidate 1} [$rd read]
    return [list $rd $id]
}

proc trk_close {args} {
    foreach c $args {$c close}
}

start_server {tags {tracking}} {
    # ---- the default mode -------------------------------------------------------------------

    test {A key read by a tracking client is invalidated when another client changes it} {
        r flushall
        set t [trk_tracker]
        $t get k1
        r set k1 v
        assert_equal {invalidate k1} [$t read]
        trk_close $t
    }

    test {Each read is told once: a second change without a new read sends nothing} {
        r flushall
        set t [trk_tracker]
        $t get k1
        r set k1 a
        assert_equal {invalidate k1} [$t read]
        r set k1 b
        trk_expect_nothing $t
        $t get k1
        r del k1
        assert_equal {invalidate k1} [$t read]
        trk_close $t
    }

    test {A BITFIELD that creates a key but FAILs every write invalidates nothing} {
        r flushall
        set t [trk_tracker]
        $t get bf
        # The key appears (as Redis's dbAdd makes it) but no write happened: no modification.
        assert_equal {{}} [r bitfield bf overflow fail incrby u2 0 10]
        assert_equal 1 [r exists bf]
        trk_expect_nothing $t
        # A write that succeeds is a change again.
        r bitfield bf set u8 0 1
        assert_equal {invalidate bf} [$t read]
        trk_close $t
    }

    test {Every key of a multi-key read is remembered and invalidated on its own} {
        r flushall
        set t [trk_tracker]
        $t mget k1 k2 k3
        r mset k2 x k1 y
        set got [list [$t read] [$t read]]
        assert_equal {{invalidate k1} {invalidate k2}} [lsort $got]
        trk_expect_nothing $t
        r set k3 z
        assert_equal {invalidate k3} [$t read]
        trk_close $t
    }

    test {Keys of a write command are not remembered} {
        r flushall
        set t [trk_tracker]
        $t set w1 v
        $t incr w2
        r set w1 x
        r set w2 1
        trk_expect_nothing $t
        trk_close $t
    }

    test {SORT ... STORE is a write: it invalidates its destination and remembers nothing} {
        r flushall
        set t [trk_tracker]
        r sadd so:src 3 1 2
        $t get so:dst
        assert_equal 3 [r sort so:src store so:dst]
        assert_equal {invalidate so:dst} [$t read]
        # The tracker's own SORT ... STORE: neither its source nor its destination is remembered.
        assert_equal 3 [$t sort so:src store so:dst2]
        r sadd so:src 4
        r del so:dst2
        trk_expect_nothing $t
        # SORT_RO is a read: its source is remembered.
        assert_equal {1 2 3 4} [$t sort_ro so:src]
        r sadd so:src 5
        assert_equal {invalidate so:src} [$t read]
        trk_close $t
    }

    test {A refused SORT ... STORE changes nothing: its destination's readers stay tracked} {
        r flushall
        set t [trk_tracker]
        # 1e400 is out of a double's range: SORT refuses the whole source, stores nothing.
        r sadd so:bad 1 1e400
        r set so:dst old
        $t get so:dst
        assert_error {*can't be converted into double*} {r sort so:bad store so:dst}
        assert_equal old [r get so:dst]
        trk_expect_nothing $t
        # The read is still remembered: the next change of the destination is told.
        r set so:dst new
        assert_equal {invalidate so:dst} [$t read]
        trk_close $t
    }

    test {A tracking client's own change is invalidated after its reply} {
        r flushall
        set t [trk_tracker]
        $t get own
        # A push sent before the reply would be returned here in place of OK.
        assert_equal OK [$t set own v]
        assert_equal {invalidate own} [$t read]
        trk_close $t
    }

    test {Inside MULTI/EXEC the own invalidation follows the EXEC reply} {
        r flushall
        set t [trk_tracker]
        $t get mk
        $t multi
        $t set mk 1
        $t get mk
        assert_equal {OK 1} [$t exec]
        assert_equal {invalidate mk} [$t read]
        # The GET inside EXEC read the key again: another change tells the client again.
        r set mk 2
        assert_equal {invalidate mk} [$t read]
        trk_close $t
    }

    test {Keys of a failing read are remembered as Redis's key procedures find them} {
        r flushall
        set t [trk_tracker]
        # numkeys is read like C's atoi: "1e3" is 1, so `b` is the one key (the command fails).
        catch {$t zunion 1e3 b key:1 x}
        r set key:1 v
        r set b v
        assert_equal {invalidate b} [$t read]
        trk_expect_nothing $t
        # More keys announced than arguments given: no key at all.
        catch {$t sintercard 5 s:c s:i}
        r sadd s:c m
        trk_expect_nothing $t
        trk_close $t
    }

    test {Tracking remembers what the key procedure finds, not what COMMAND GETKEYS reports} {
        r flushall
        set t [trk_tracker]
        # The key specs take the COUNT value "STREAMS" for the keyword and report it as the key;
        # XREAD's own procedure skips COUNT's value and finds `a` (the command then fails).
        assert_equal {STREAMS} [r command getkeys xread COUNT STREAMS STREAMS a 0]
        catch {$t xread COUNT STREAMS STREAMS a 0}
        r set STREAMS v
        r set a v
        assert_equal {invalidate a} [$t read]
        trk_expect_nothing $t
        trk_close $t
    }

    test {A client's own invalidations follow those of other clients for the same command} {
        r flushall
        lassign [trk_redirect_target] rd id
        set a [trk_client 2]
        set b [trk_client 2]
        $a client tracking on redirect $id
        $b client tracking on redirect $id
        $a mget c x
        $b get c
        # b's invalidation goes at once; a's own are held until its command ends.
        $a mset x 1 c 2
        assert_equal {message __redis__:invalidate c} [$rd read]
        assert_equal {message __redis__:invalidate x} [$rd read]
        assert_equal {message __redis__:invalidate c} [$rd read]
        trk_close $a $b $rd
    }

    test {The tracking table knows key names, not databases} {
        r flushall
        set t [trk_tracker]
        $t get dbkey
        r select 10
        r set dbkey v
        r select 9
        assert_equal {invalidate dbkey} [$t read]
        trk_close $t
    }

    test {SWAPDB invalidates nothing} {
        r flushall
        r select 10
        r set sk v
        r select 9
        set t [trk_tracker]
        $t get sk
        r swapdb 9 10
        trk_expect_nothing $t
        r swapdb 9 10
        trk_close $t
        r flushall
    }

    test {Expiry invalidates a tracked key} {
        r flushall
        r set ek v
        r pexpire ek 100
        set t [trk_tracker]
        assert_equal v [$t get ek]
        wait_for_condition 100 20 {[r exists ek] == 0} else {fail "ek never expired"}
        assert_equal {invalidate ek} [$t read]
        trk_close $t
    }

    test {NOLOOP: no invalidation for the client's own changes} {
        r flushall
        set t [trk_tracker noloop]
        $t get nk
        assert_equal OK [$t set nk 1]
        trk_expect_nothing $t
        $t get nk
        r set nk 2
        assert_equal {invalidate nk} [$t read]
        trk_close $t
    }

    test {RESP2 without a redirect: tracking on, but nothing can be sent} {
        r flushall
        set t [trk_client 2]
        assert_equal OK [$t client tracking on]
        $t get r2k
        r set r2k v
        # A RESP2 connection has no out-of-band frames: the next reply is the PING's.
        assert_equal PONG [$t ping]
        trk_close $t
    }

    test {HELLO 2 keeps tracking on; the invalidations of that time are dropped} {
        r flushall
        set t [trk_tracker]
        $t hello 2
        $t get hk
        r set hk 1
        $t hello 3
        r set hk 2
        trk_expect_nothing $t
        assert_match {*on*} [dict get [$t client trackinginfo] flags]
        trk_close $t
    }

    # ---- OPTIN / OPTOUT ---------------------------------------------------------------------

    test {OPTIN: only the command after CLIENT CACHING YES is remembered} {
        r flushall
        set t [trk_tracker optin]
        $t get o1
        r set o1 x
        trk_expect_nothing $t
        assert_equal OK [$t client caching yes]
        $t get o1
        $t get o2
        r mset o1 y o2 y
        assert_equal {invalidate o1} [$t read]
        trk_expect_nothing $t
        trk_close $t
    }

    test {OPTIN: CLIENT CACHING YES before MULTI covers the whole transaction} {
        r flushall
        set t [trk_tracker optin]
        $t client caching yes
        $t multi
        $t get tx1
        $t get tx2
        $t exec
        r mset tx1 a tx2 b
        set got [list [$t read] [$t read]]
        assert_equal {{invalidate tx1} {invalidate tx2}} [lsort $got]
        trk_close $t
    }

    test {OPTOUT: every read is remembered except the one after CLIENT CACHING NO} {
        r flushall
        set t [trk_tracker optout]
        $t get p1
        assert_equal OK [$t client caching no]
        $t get p2
        $t get p3
        r mset p1 a p2 a p3 a
        set got [list [$t read] [$t read]]
        assert_equal {{invalidate p1} {invalidate p3}} [lsort $got]
        trk_expect_nothing $t
        trk_close $t
    }

    test {CLIENT CACHING errors} {
        set c [trk_client 3]
        assert_error {*CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled*} {$c client caching yes}
        $c client tracking on
        assert_error {*CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.*} {$c client caching yes}
        assert_error {*CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.*} {$c client caching no}
        $c client tracking on optin
        assert_error {*CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.*} {$c client caching no}
        assert_error {*syntax error*} {$c client caching maybe}
        assert_error {*wrong number of arguments for 'client|caching' command*} {$c client caching}
        trk_close $c
    }

    # ---- BCAST ------------------------------------------------------------------------------

    test {BCAST without a prefix: every changed key, nothing needs to be read} {
        r flushall
        set t [trk_tracker bcast]
        r set anything 1
        assert_equal {invalidate anything} [$t read]
        trk_close $t
    }

    test {BCAST: the keys one command changes arrive in one message, in byte order} {
        r flushall
        set t [trk_tracker bcast prefix a:]
        r mset a:3 x a:1 x b:1 x a:2 x
        assert_equal {invalidate {a:1 a:2 a:3}} [$t read]
        trk_expect_nothing $t
        trk_close $t
    }

    test {BCAST: one message per prefix, only keys matching a prefix} {
        r flushall
        set t [trk_tracker bcast prefix a: prefix b:]
        r mset b:1 x a:1 x c:1 x
        assert_equal {invalidate a:1} [$t read]
        assert_equal {invalidate b:1} [$t read]
        trk_expect_nothing $t
        trk_close $t
    }

    test {BCAST: enabling again adds prefixes} {
        r flushall
        set t [trk_tracker bcast prefix a:]
        $t client tracking on bcast prefix c:
        assert_equal {a: c:} [dict get [$t client trackinginfo] prefixes]
        r set c:1 x
        assert_equal {invalidate c:1} [$t read]
        trk_close $t
    }

    test {BCAST with NOLOOP leaves out the keys the client changed itself} {
        r flushall
        set t [trk_tracker bcast noloop prefix n:]
        assert_equal OK [$t set n:own 1]
        trk_expect_nothing $t
        r set n:other 1
        assert_equal {invalidate n:other} [$t read]
        trk_close $t
    }

    test {Prefix overlap errors} {
        set c [trk_client 3]
        assert_error {*Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client must not overlap.*} {$c client tracking on bcast prefix a prefix ab}
        assert_error {*Prefix 'x' overlaps with another provided prefix 'x'.*} {$c client tracking on bcast prefix x prefix x}
        $c client tracking on bcast prefix foo
        assert_error {*Prefix 'fo' overlaps with an existing prefix 'foo'. Prefixes for a single client must not overlap.*} {$c client tracking on bcast prefix fo}
        assert_error {*Prefix 'foobar' overlaps with an existing prefix 'foo'.*} {$c client tracking on bcast prefix foobar}
        $c client tracking off
        $c client tracking on bcast
        assert_error {*Prefix 'z' overlaps with an existing prefix ''.*} {$c client tracking on bcast prefix z}
        trk_close $c
    }

    # ---- REDIRECT ---------------------------------------------------------------------------

    test {RESP2 REDIRECT: invalidations as messages on __redis__:invalidate} {
        r flushall
        lassign [trk_redirect_target] rd id
        set t [trk_client 2]
        assert_equal OK [$t client tracking on redirect $id]
        $t mget rk1 rk2
        r set rk1 v
        assert_equal {message __redis__:invalidate rk1} [$rd read]
        r flushall
        assert_equal {message __redis__:invalidate {}} [$rd read]
        trk_close $t $rd
    }

    test {RESP2 REDIRECT with BCAST: the keys of a turn in one message} {
        r flushall
        lassign [trk_redirect_target] rd id
        set t [trk_client 2]
        $t client tracking on redirect $id bcast prefix q:
        r mset q:2 v q:1 v
        assert_equal {message __redis__:invalidate {q:1 q:2}} [$rd read]
        trk_close $t $rd
    }

    test {REDIRECT to a RESP3 connection: invalidate pushes there, nothing to the tracker} {
        r flushall
        set target [trk_client 3]
        set id [$target client id]
        set t [trk_tracker redirect $id]
        $t get rr
        r set rr v
        assert_equal {invalidate rr} [$target read]
        trk_expect_nothing $t
        trk_close $t $target
    }

    test {A redirect target that went away: tracking-redir-broken and the R flag} {
        r flushall
        set target [trk_client 3]
        set id [$target client id]
        set t [trk_tracker redirect $id]
        $t get br
        $target close
        wait_for_condition 100 10 {![string match "*id=$id *" [r client list]]} else {
            fail "the redirect target is still connected"
        }
        r set br v
        assert_equal [list tracking-redir-broken $id] [$t read]
        assert_match {*flags=tR *} [$t client info]
        assert_equal [list on broken_redirect] [dict get [$t client trackinginfo] flags]
        assert_equal $id [$t client getredir]
        trk_close $t
    }

    test {CLIENT TRACKING REDIRECT errors} {
        set c [trk_client 3]
        assert_error {*The client ID you want redirect to does not exist*} {$c client tracking on redirect 999999}
        assert_error {*value is not an integer or out of range*} {$c client tracking on redirect abc}
        set other [redis_client]
        set oid [$other client id]
        set myid [$c client id]
        assert_error {*A client can only redirect to a single other client*} {$c client tracking on redirect $oid redirect $myid}
        assert_error {*syntax error*} {$c client tracking on redirect}
        assert_equal -1 [$c client getredir]
        trk_close $c $other
    }

    # ---- FLUSHALL / FLUSHDB -----------------------------------------------------------------

    test {FLUSHALL and FLUSHDB send one null invalidation to every tracking client} {
        r flushall
        set t1 [trk_tracker]
        set t2 [trk_tracker bcast]
        r flushall
        assert_equal {invalidate {}} [$t1 read]
        assert_equal {invalidate {}} [$t2 read]
        trk_expect_nothing $t1 "one null for all the databases"
        r flushdb
        assert_equal {invalidate {}} [$t1 read]
        assert_equal {invalidate {}} [$t2 read]
        trk_expect_nothing $t2
        trk_close $t1 $t2
    }

    test {FLUSHALL forgets the table: a key read before it is not invalidated after} {
        r flushall
        set t [trk_tracker]
        $t get fk
        r flushall
        assert_equal {invalidate {}} [$t read]
        r set fk v
        trk_expect_nothing $t
        assert_equal 0 [s tracking_total_keys]
        trk_close $t
    }

    test {The flushing client's own null invalidation follows its reply} {
        set t [trk_tracker]
        assert_equal OK [$t flushdb]
        assert_equal {invalidate {}} [$t read]
        trk_close $t
    }

    # ---- tracking-table-max-keys ------------------------------------------------------------

    test {tracking-table-max-keys: keys over the limit are invalidated} {
        r flushall
        set t [trk_tracker]
        $t mget e1 e2 e3 e4 e5 e6 e7 e8
        assert_equal 8 [s tracking_total_keys]
        r config set tracking-table-max-keys 5
        # The limit is enforced before each command (and in cron).
        r ping
        set got {}
        for {set i 0} {$i < 3} {incr i} {lappend got [lindex [$t read] 1]}
        assert_equal 3 [llength [lsort -unique $got]]
        foreach k $got {assert_match {e[1-8]} $k}
        assert_equal 5 [s tracking_total_keys]
        r config set tracking-table-max-keys 1000000
        trk_close $t
    }

    # ---- replies and errors -----------------------------------------------------------------

    test {CLIENT TRACKING option errors} {
        set c [trk_client 3]
        assert_error {*PREFIX option requires BCAST mode to be enabled*} {$c client tracking on prefix x}
        assert_error {*OPTIN and OPTOUT are not compatible with BCAST*} {$c client tracking on bcast optin}
        assert_error {*You can't specify both OPTIN mode and OPTOUT mode*} {$c client tracking on optin optout}
        assert_error {*syntax error*} {$c client tracking maybe}
        assert_error {*syntax error*} {$c client tracking on foo}
        assert_error {*wrong number of arguments for 'client|tracking' command*} {$c client tracking}
        $c client tracking on
        assert_error {*You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.*} {$c client tracking on bcast}
        $c client tracking on optin
        assert_error {*You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.*} {$c client tracking on optout}
        assert_equal OK [$c client tracking off]
        assert_equal OK [$c client tracking on optout]
        trk_close $c
    }

    test {CLIENT TRACKINGINFO in RESP3 and RESP2} {
        set c [trk_client 3]
        assert_equal {flags off redirect -1 prefixes {}} [$c client trackinginfo]
        $c client tracking on optin noloop
        $c client caching yes
        assert_equal {flags {on optin caching-yes noloop} redirect 0 prefixes {}} \
            [$c client trackinginfo]
        $c client tracking off
        $c client tracking on optout
        $c client caching no
        assert_equal {on optout caching-no} [dict get [$c client trackinginfo] flags]
        $c client tracking off
        $c client tracking on bcast prefix b prefix a
        assert_equal {flags {on bcast} redirect 0 prefixes {a b}} [$c client trackinginfo]
        $c readraw 1
        assert_equal {%3} [$c client trackinginfo]
        assert_equal {$5} [$c read]
        assert_equal {flags} [$c read]
        assert_equal {~2} [$c read]
        trk_close $c
        set c2 [trk_client 2]
        $c2 readraw 1
        assert_equal {*6} [$c2 client trackinginfo]
        trk_close $c2
    }

    test {CLIENT GETREDIR: -1 when off, 0 without a redirect, the id with one} {
        set c [trk_client 3]
        assert_equal -1 [$c client getredir]
        $c client tracking on
        assert_equal 0 [$c client getredir]
        set other [redis_client]
        set oid [$other client id]
        $c client tracking on redirect $oid
        assert_equal $oid [$c client getredir]
        $c client tracking off
        assert_equal -1 [$c client getredir]
        trk_close $c $other
    }

    test {CLIENT LIST shows t, B and redir} {
        set c [trk_client 3]
        assert_match {*flags=N *redir=-1 *} [$c client info]
        $c client tracking on
        assert_match {*flags=t *redir=0 *} [$c client info]
        $c client tracking off
        $c client tracking on bcast
        assert_match {*flags=tB *} [$c client info]
        trk_close $c
    }

    test {RESET turns tracking off} {
        set c [trk_client 3]
        $c client tracking on bcast prefix r:
        assert_equal RESET [$c reset]
        assert_equal {flags off redirect -1 prefixes {}} [$c client trackinginfo]
        trk_close $c
    }

    # Invalidations are pushes: CLIENT REPLY OFF does not drop them (issue 20, defect 5a).
    # The cron is paused so that nothing but the commands below runs meanwhile.
    test {Invalidations reach a RESP3 tracker under CLIENT REPLY OFF, its own too} {
        r flushall
        r debug pause-cron 1
        set t [trk_tracker]
        $t get offkey
        $t deferred 1
        $t client reply off
        r set offkey 1
        assert_equal {invalidate offkey} [$t read]
        # Its own write: the reply is dropped, the invalidation that follows it is not.
        $t get offkey
        $t set offkey 2
        assert_equal {invalidate offkey} [$t read]
        $t client reply on
        assert_equal OK [$t read]
        $t ping
        assert_equal PONG [$t read]
        $t deferred 0
        r debug pause-cron 0
        trk_close $t
    } {} {needs:debug}

    test {Invalidations reach a RESP3 redirect target under CLIENT REPLY OFF} {
        r flushall
        set target [trk_client 3]
        set id [$target client id]
        $target deferred 1
        $target client reply off
        set t [trk_tracker redirect $id]
        $t get redirkey
        r set redirkey 1
        assert_equal {invalidate redirkey} [$target read]
        $target client reply on
        assert_equal OK [$target read]
        $target deferred 0
        trk_close $t $target
    }

    test {INFO: tracking_clients, tracking_total_keys, _items and _prefixes} {
        r flushall
        set base [s tracking_clients]
        set base_prefixes [s tracking_total_prefixes]
        set t1 [trk_tracker]
        set t2 [trk_tracker]
        set t3 [trk_tracker bcast prefix i1 prefix i2]
        assert_equal [expr {$base + 3}] [s tracking_clients]
        $t1 mget ik1 ik2
        $t2 get ik1
        assert_equal 2 [s tracking_total_keys]
        assert_equal 3 [s tracking_total_items]
        assert_equal [expr {$base_prefixes + 2}] [s tracking_total_prefixes]
        trk_close $t3
        wait_for_condition 100 10 {[s tracking_total_prefixes] == $base_prefixes} else {
            fail "the closed BCAST client's prefixes stayed"
        }
        trk_close $t1 $t2
        wait_for_condition 100 10 {[s tracking_clients] == $base} else {
            fail "tracking_clients did not come back down"
        }
    }
}

# Eviction and blocking with tracking: keys evicted before a command runs are invalidated
# before that command's reply, even on the connection whose command made the eviction happen;
# a served waiter's own change comes after its reply.
start_server {tags {tracking maxmemory}} {
    test {Invalidations of keys evicted for a command come before its reply} {
        r flushall
        r config set latency-tracking no
        set t [trk_tracker]
        # Only keys with a TTL go: the tracked one.
        r config set maxmemory-policy volatile-random
        $t setex evictme 10000 x
        $t get evictme
        r config set maxmemory [expr {[s used_memory] + 100 * 1024}]
        # 200 KB through SETBIT (its argument is small), then the next command must evict.
        $t setbit bigbits 1600000 0
        assert_equal {invalidate evictme} [$t getbit bigbits 0]
        assert_equal 0 [$t read]
        assert_equal 0 [r exists evictme]
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
        trk_close $t
    } {} {needs:config}

    test {A BLMOVE waiter that tracks its destination gets its reply, then the invalidation} {
        r flushall
        r rpush dstlist first
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd client tracking on
        $rd read
        $rd lrange dstlist 0 -1
        assert_equal first [$rd read]
        $rd blmove srclist dstlist left left 0
        wait_for_blocked_clients_count 1
        r rpush srclist moved
        # Its own move changed the tracked list: the reply first, as for any own command.
        assert_equal moved [$rd read]
        assert_equal {invalidate dstlist} [$rd read]
        trk_close $rd
    }
}

start_server {tags {tracking redistp}} {
    # Redis 7.0.15 answers the error and then also OK (two replies to one command), tracking
    # on, when the clash is between two new prefixes after the first; redis-tp answers the
    # error alone and changes nothing.
    test {A prefix clash among later new prefixes is one error and changes nothing} {
        set c [trk_client 3]
        assert_error {*Prefix 'b' overlaps with another provided prefix 'bb'.*} {$c client tracking on bcast prefix a prefix b prefix bb}
        assert_equal {flags off redirect -1 prefixes {}} [$c client trackinginfo]
        trk_close $c
    }

    # Redis writes the null in the tracking client's protocol into the target's connection
    # (`_` on a RESP2 connection); redis-tp writes it in the target's protocol.
    test {The null invalidation for a RESP2 redirect target is a RESP2 null} {
        lassign [trk_redirect_target] rd id
        set t [trk_tracker redirect $id]
        r flushall
        $rd readraw 1
        assert_equal {*3} [$rd read]
        assert_equal {$7} [$rd read]
        assert_equal {message} [$rd read]
        assert_equal {$20} [$rd read]
        assert_equal {__redis__:invalidate} [$rd read]
        assert_equal {$-1} [$rd read]
        trk_close $t $rd
    }
}
