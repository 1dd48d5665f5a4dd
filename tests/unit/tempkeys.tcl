# Temporary keys (docs/temporary-keys-and-watches.md): SETTP and DELTP, ownership that
# belongs to the key entry (survives value changes, moves with RENAME / MOVE / SWAPDB, ends
# with DEL, expiry, FLUSHDB / FLUSHALL and being overwritten as a destination), the invariant
# that a key re-created by someone else is never touched, every way a connection ends (QUIT,
# peer close, RESET, CLIENT KILL, idle timeout, output-buffer-limit kill, CLIENT LEASE),
# MULTI / EXEC, fencing tokens, OBJECT OWNER / FENCE, the tk= and wx= fields of CLIENT LIST,
# and bad input. BSETTP has its own file (bsettp.tcl), WATCHEX too (watchex.tcl).
#
# Checks are made from the default client `r` while the owner is a separate connection.

# A new synchronous client with the test database selected, speaking RESP `proto`. Reads give
# up after 5 s so a reply that never comes fails the test quickly.
proc tk_client {{proto 2}} {
    set c [redis_client]
    $c timeout 5000
    if {$proto == 3} {$c hello 3}
    return $c
}

# tk= (temporary keys owned) and wx= (existence watches) of connection `id`.
proc tk_of {id} { return [client_field [r client list id $id] tk] }
proc wx_of {id} { return [client_field [r client list id $id] wx] }

# Waits until `key` of the default client's database stops existing.
proc tk_wait_gone {key} {
    wait_for_condition 100 20 {[r exists $key] == 0} else {
        fail "key '$key' still exists"
    }
}

# Waits until connection `id` is no longer listed.
proc tk_wait_client_gone {id} {
    wait_for_condition 100 20 {[string trim [r client list id $id]] eq ""} else {
        fail "client $id is still connected"
    }
}

start_server {tags {tempkeys redistp}} {
    test {SETTP creates a key only if it does not exist: 1, then 0} {
        set a [tk_client]
        set b [tk_client]
        assert_equal 1 [$a settp tk:basic owner-a]
        assert_equal 0 [$a settp tk:basic again] "the owner itself gets 0"
        assert_equal 0 [$b settp tk:basic b] "another connection gets 0"
        assert_equal owner-a [r get tk:basic]
        assert_equal string [r type tk:basic]
        r set tk:plain v
        assert_equal 0 [$a settp tk:plain x] "an ordinary key counts as existing"
        assert_equal v [r get tk:plain]
        assert_equal 1 [$a settp tk:empty ""] "an empty value is a value"
        assert_equal 1 [r exists tk:empty]
        $a close
        $b close
        tk_wait_gone tk:basic
        assert_equal v [r get tk:plain]
    }

    test {SETTP over a key whose TTL has passed creates it and owns it} {
        r debug set-active-expire 0
        r set tk:stale old px 1
        after 20
        set a [tk_client]
        set id [$a client id]
        assert_equal 1 [$a settp tk:stale new]
        r debug set-active-expire 1
        assert_equal new [r get tk:stale]
        assert_equal -1 [r pttl tk:stale] "the new key has no TTL"
        assert_equal 1 [tk_of $id]
        $a close
        tk_wait_gone tk:stale
    } {} {needs:debug}

    test {SETTP replies are integers in RESP2 and RESP3} {
        foreach proto {2 3} {
            set rd [redis_deferring_client]
            $rd hello $proto
            $rd read
            $rd readraw 1
            $rd settp tk:wire$proto v
            assert_equal {:1} [$rd read] "RESP$proto"
            $rd settp tk:wire$proto v
            assert_equal {:0} [$rd read] "RESP$proto"
            $rd deltp tk:wire$proto nokey
            assert_equal {:1} [$rd read] "RESP$proto"
            $rd close
        }
    }

    # ---- every way a connection ends -------------------------------------------------------

    test {Peer close deletes every key the connection owns, in every database} {
        set a [tk_client]
        $a settp tk:pc1 v
        $a settp tk:pc2 v
        $a select 10
        $a settp tk:pc1 v10
        $a close
        tk_wait_gone tk:pc1
        tk_wait_gone tk:pc2
        r select 10
        set left [r exists tk:pc1]
        r select 9
        assert_equal 0 $left "the key in db 10 is deleted too"
    }

    test {QUIT deletes the owner's keys before any later command runs} {
        set a [tk_client]
        $a settp tk:quit v
        assert_equal OK [$a quit]
        assert_equal 0 [r exists tk:quit]
        $a close
    }

    test {RESET deletes the owner's keys and the connection goes on} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:reset1 v
        $a settp tk:reset2 v
        assert_equal 2 [tk_of $id]
        assert_equal RESET [$a reset]
        assert_equal 0 [r exists tk:reset1 tk:reset2]
        assert_equal 0 [tk_of $id]
        # RESET selects db 0: the connection is usable and owns new keys again.
        $a select 9
        assert_equal 1 [$a settp tk:reset1 again]
        assert_equal 1 [tk_of $id]
        assert_equal again [r get tk:reset1]
        $a close
        tk_wait_gone tk:reset1
    }

    test {CLIENT KILL ID deletes the killed connection's keys at once} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:killid v
        assert_equal 1 [r client kill id $id]
        assert_equal 0 [r exists tk:killid]
        $a close
    }

    test {CLIENT KILL ADDR (new form) deletes the killed connection's keys} {
        set a [tk_client]
        set addr [client_field [$a client info] addr]
        $a settp tk:killaddr v
        assert_equal 1 [r client kill addr $addr]
        assert_equal 0 [r exists tk:killaddr]
        $a close
    }

    test {CLIENT KILL ip:port (old form) deletes the killed connection's keys} {
        set a [tk_client]
        set addr [client_field [$a client info] addr]
        $a settp tk:killold v
        assert_equal OK [r client kill $addr]
        assert_equal 0 [r exists tk:killold]
        $a close
    }

    test {A connection killing itself loses its keys after the reply} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:killself v
        assert_equal 1 [$a client kill id $id skipme no]
        tk_wait_client_gone $id
        assert_equal 0 [r exists tk:killself]
        $a close
    }

    test {The idle timeout ends an owner and deletes its keys} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:idle v
        r config set timeout 1
        # wait_for_condition keeps the default client busy, so only the owner is idle.
        wait_for_condition 50 100 {[r exists tk:idle] == 0} else {
            r config set timeout 0
            fail "the idle owner's key survived the timeout"
        }
        r config set timeout 0
        assert_equal {} [string trim [r client list id $id]]
        $a close
    } {} {needs:config}

    test {An output-buffer-limit kill deletes the owner's keys} {
        r set tk:big [string repeat x 262144]
        set a [redis_deferring_client]
        $a client id
        set id [$a read]
        $a settp tk:obl v
        assert_equal 1 [$a read]
        r config set client-output-buffer-limit {normal 1mb 0 0}
        # 100 replies of 256 KB that the owner never reads: far past 1 MB plus socket buffers.
        catch {
            for {set i 0} {$i < 100} {incr i} {$a get tk:big}
        }
        wait_for_condition 100 50 {[r exists tk:obl] == 0} else {
            r config set client-output-buffer-limit {normal 0 0 0}
            fail "the owner was not killed by the output buffer limit"
        }
        r config set client-output-buffer-limit {normal 0 0 0}
        assert_equal {} [string trim [r client list id $id]]
        $a close
        r del tk:big
    } {} {needs:config}

    # CLIENT LEASE (spec: "CLIENT LEASE milliseconds").

    test {CLIENT LEASE: no bytes for the lease time ends the connection and its keys} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:lease v
        assert_equal OK [$a client lease 300]
        wait_for_condition 100 30 {[r exists tk:lease] == 0} else {
            fail "the lapsed lease did not delete the key"
        }
        tk_wait_client_gone $id
        $a close
    }

    test {CLIENT LEASE: a client that keeps pinging keeps its keys; 0 removes the lease} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:leaseping v
        # A lease ten times the pings' interval: a loaded machine may delay a ping by most of
        # a second without the lease running out, and 1.5 s of pings still outlast it.
        assert_equal OK [$a client lease 1000]
        for {set i 0} {$i < 15} {incr i} {
            after 100
            assert_equal PONG [$a ping]
        }
        assert_equal 1 [r exists tk:leaseping] "1.5 s of pings every 100 ms keep a 1000 ms lease"
        assert_equal OK [$a client lease 0]
        after 1200
        assert_equal 1 [r exists tk:leaseping] "lease 0 removes the lease"
        assert_equal PONG [$a ping]
        $a close
        tk_wait_gone tk:leaseping
    }

    test {CLIENT LEASE: the lease applies to a blocked BSETTP waiter} {
        set holder [tk_client]
        $holder settp tk:leaseblk held
        set w [redis_deferring_client]
        $w client id
        set wid [$w read]
        $w client lease 300
        assert_equal OK [$w read]
        $w bsettp tk:leaseblk mine 0
        wait_for_condition 100 20 {
            [string match *b* [client_field [r client list id $wid] flags]]
        } else {
            fail "the waiter did not block"
        }
        # Blocked and silent: the lease ends the waiter, which leaves the queue.
        tk_wait_client_gone $wid
        assert_equal 1 [$holder deltp tk:leaseblk]
        after 50
        assert_equal 0 [r exists tk:leaseblk] "a departed waiter is never handed the key"
        $w close
        $holder close
    }

    test {CLIENT LEASE: bytes from a blocked waiter renew its lease} {
        set holder [tk_client]
        $holder settp tk:leaseren held
        set w [redis_deferring_client]
        $w client id
        set wid [$w read]
        # As above: a lease ten times the interval, outlasted by the pings.
        $w client lease 1000
        assert_equal OK [$w read]
        $w bsettp tk:leaseren mine 0
        for {set i 0} {$i < 15} {incr i} {
            after 100
            $w ping
        }
        assert_match *b* [client_field [r client list id $wid] flags] "still blocked after 1.5 s"
        assert_equal 1 [$holder deltp tk:leaseren]
        assert_equal 1 [$w read]
        for {set i 0} {$i < 15} {incr i} {assert_equal PONG [$w read]}
        assert_equal mine [r get tk:leaseren]
        $w client lease 0
        assert_equal OK [$w read]
        $w close
        $holder close
        tk_wait_gone tk:leaseren
    }

    test {CLIENT LEASE rejects a value that is not a number} {
        set a [tk_client]
        assert_equal OK [$a client lease 0]
        assert_error {ERR*} {$a client lease abc}
        assert_error {ERR*} {$a client lease -5}
        $a close
    }

    # ---- ownership survives value changes --------------------------------------------------

    foreach {what cmd} {
        SET {set $k other}
        {SET with KEEPTTL} {set $k other keepttl}
        GETSET {getset $k other}
        APPEND {append $k 1}
        INCR {incr $k}
        INCRBYFLOAT {incrbyfloat $k 1.5}
        SETRANGE {setrange $k 0 99}
        EXPIRE {expire $k 1000}
        PERSIST {persist $k}
    } {
        test "Ownership survives $what from another connection" {
            set a [tk_client]
            set id [$a client id]
            set k "tk:survive:[string map {{ } _} $what]"
            assert_equal 1 [$a settp $k 10]
            r pexpire $k 100000
            r {*}[subst $cmd]
            assert_equal 1 [r exists $k]
            assert_equal 1 [tk_of $id] "the owner still owns the key"
            $a close
            tk_wait_gone $k
        }
    }

    test {Ownership survives a change by the owner itself} {
        set a [tk_client]
        $a settp tk:selfchange 1
        $a incrby tk:selfchange 5
        $a set tk:selfchange x
        $a close
        tk_wait_gone tk:selfchange
    }

    # ---- ownership moves with the entry ----------------------------------------------------

    test {RENAME moves ownership: the new name is deleted when the owner leaves} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:rn:src v
        assert_equal OK [r rename tk:rn:src tk:rn:dst]
        assert_equal 1 [tk_of $id]
        $a close
        tk_wait_gone tk:rn:dst
        assert_equal 0 [r exists tk:rn:src]
    }

    test {RENAME onto an existing ordinary key: the destination becomes temporary} {
        set a [tk_client]
        $a settp tk:rn2:src v
        r set tk:rn2:dst ordinary
        assert_equal OK [r rename tk:rn2:src tk:rn2:dst]
        assert_equal v [r get tk:rn2:dst]
        $a close
        tk_wait_gone tk:rn2:dst
    }

    test {RENAMENX moves ownership} {
        set a [tk_client]
        $a settp tk:rnx:src v
        assert_equal 1 [r renamenx tk:rnx:src tk:rnx:dst]
        $a close
        tk_wait_gone tk:rnx:dst
    }

    test {MOVE moves ownership: the key is deleted in its new database} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:mv v
        assert_equal 1 [r move tk:mv 10]
        assert_equal 1 [tk_of $id]
        r select 10
        assert_equal v [r get tk:mv]
        r select 9
        $a close
        tk_wait_client_gone $id
        r select 10
        set left [r exists tk:mv]
        r select 9
        assert_equal 0 $left
    }

    test {SWAPDB moves ownership with the database contents} {
        r flushall
        set a [tk_client]
        set id [$a client id]
        $a settp tk:swap temp9
        r select 10
        r set tk:swap ordinary10
        r select 9
        assert_equal OK [r swapdb 9 10]
        assert_equal ordinary10 [r get tk:swap]
        assert_equal 1 [tk_of $id]
        $a close
        tk_wait_client_gone $id
        assert_equal ordinary10 [r get tk:swap] "the ordinary key swapped in is untouched"
        r select 10
        set left [r exists tk:swap]
        r select 9
        assert_equal 0 $left "the temporary key is deleted where it now lives"
        r flushall
    }

    # ---- ownership ends when the key stops existing ----------------------------------------

    foreach {what cmd} {
        DEL {del $k}
        UNLINK {unlink $k}
        GETDEL {getdel $k}
        FLUSHDB {flushdb}
        FLUSHALL {flushall}
    } {
        test "Ownership ends with $what: a key re-created later is ordinary" {
            set a [tk_client]
            set id [$a client id]
            set k "tk:end:$what"
            $a settp $k v
            r {*}[subst $cmd]
            assert_equal 0 [r exists $k]
            assert_equal 0 [tk_of $id]
            r set $k recreated
            $a close
            tk_wait_client_gone $id
            assert_equal recreated [r get $k]
            r del $k
        }
    }

    test {Ownership ends with expiry (lazy)} {
        set a [tk_client]
        set id [$a client id]
        r debug set-active-expire 0
        $a settp tk:exp:lazy v
        r pexpire tk:exp:lazy 50
        after 120
        assert_equal {} [r get tk:exp:lazy]
        assert_equal 0 [tk_of $id]
        r debug set-active-expire 1
        r set tk:exp:lazy recreated
        $a close
        tk_wait_client_gone $id
        assert_equal recreated [r get tk:exp:lazy]
    } {} {needs:debug}

    test {Ownership ends with expiry (active)} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:exp:active v
        r pexpire tk:exp:active 50
        wait_for_condition 100 20 {[tk_of $id] == 0} else {
            fail "active expiry did not end the ownership"
        }
        r set tk:exp:active recreated
        $a close
        tk_wait_client_gone $id
        assert_equal recreated [r get tk:exp:active]
    }

    test {Ownership ends when the key is overwritten as a RENAME destination} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:ow:dst temp
        r set tk:ow:src ordinary
        assert_equal OK [r rename tk:ow:src tk:ow:dst]
        assert_equal 0 [tk_of $id]
        $a close
        tk_wait_client_gone $id
        assert_equal ordinary [r get tk:ow:dst]
    }

    test {COPY: the destination is an ordinary key, the source stays temporary} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:cp:src v
        assert_equal 1 [r copy tk:cp:src tk:cp:dst]
        assert_equal 1 [r copy tk:cp:src tk:cp:dst10 db 10]
        assert_equal 1 [tk_of $id]
        $a close
        tk_wait_gone tk:cp:src
        assert_equal v [r get tk:cp:dst]
        r select 10
        set copied [r get tk:cp:dst10]
        r del tk:cp:dst10
        r select 9
        assert_equal v $copied
    }

    test {Ownership ends when the key is overwritten by COPY REPLACE} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:cpr:dst temp
        r set tk:cpr:src ordinary
        assert_equal 1 [r copy tk:cpr:src tk:cpr:dst replace]
        assert_equal 0 [tk_of $id]
        $a close
        tk_wait_client_gone $id
        assert_equal ordinary [r get tk:cpr:dst]
    }

    # ---- the invariant ---------------------------------------------------------------------

    test {Invariant: a key deleted and re-created with SET by someone else survives the owner} {
        set a [tk_client]
        set b [tk_client]
        set ida [$a client id]
        $a settp tk:inv v-a
        r del tk:inv
        assert_equal OK [$b set tk:inv v-b]
        $a close
        tk_wait_client_gone $ida
        assert_equal v-b [r get tk:inv]
        $b close
        assert_equal v-b [r get tk:inv] "B's key is ordinary"
    }

    test {Invariant: a key re-created with SETTP belongs to its new owner only} {
        set a [tk_client]
        set b [tk_client]
        set ida [$a client id]
        set idb [$b client id]
        $a settp tk:inv2 v-a
        r del tk:inv2
        assert_equal 1 [$b settp tk:inv2 v-b]
        assert_equal 0 [tk_of $ida]
        assert_equal 1 [tk_of $idb]
        $a close
        tk_wait_client_gone $ida
        assert_equal v-b [r get tk:inv2]
        $b close
        tk_wait_gone tk:inv2
    }

    test {Invariant: after RENAME, the old name re-created by another owner is not touched} {
        set a [tk_client]
        set b [tk_client]
        set ida [$a client id]
        $a settp tk:inv3 v-a
        r rename tk:inv3 tk:inv3:moved
        assert_equal 1 [$b settp tk:inv3 v-b]
        $a close
        tk_wait_gone tk:inv3:moved
        assert_equal v-b [r get tk:inv3]
        $b close
        tk_wait_gone tk:inv3
    }

    test {Invariant: the owner's ordinary keys are never touched} {
        set a [tk_client]
        set id [$a client id]
        $a set tk:own:ordinary v
        $a settp tk:own:temp v
        $a close
        tk_wait_gone tk:own:temp
        assert_equal v [r get tk:own:ordinary]
    }

    # ---- MULTI / EXEC ----------------------------------------------------------------------

    test {SETTP inside MULTI / EXEC: the caller owns the keys} {
        set a [tk_client]
        set id [$a client id]
        $a multi
        assert_equal QUEUED [$a settp tk:tx1 v]
        $a settp tk:tx1 w
        $a settp tk:tx2 v
        $a deltp tk:tx2
        $a settp tk:tx3 v fence
        set res [$a exec]
        assert_equal {1 0 1 1} [lrange $res 0 3]
        assert {[lindex $res 4] > 0}
        assert_equal 2 [tk_of $id]
        assert_equal v [r get tk:tx1]
        $a close
        tk_wait_gone tk:tx1
        tk_wait_gone tk:tx3
    }

    test {BSETTP inside MULTI never blocks: 0 for a held key, 1 for a free one} {
        set holder [tk_client]
        $holder settp tk:txb:held x
        set a [tk_client]
        set id [$a client id]
        $a multi
        $a bsettp tk:txb:held v 0
        $a bsettp tk:txb:free v 0
        set ms [elapsed_ms {set res [$a exec]}]
        assert_equal {0 1} $res
        assert_lessthan $ms 1000
        assert_equal 1 [tk_of $id]
        assert_equal x [r get tk:txb:held]
        $a close
        $holder close
        tk_wait_gone tk:txb:free
        tk_wait_gone tk:txb:held
    }

    test {A temporary key's release touches a MULTI WATCH on it} {
        set a [tk_client]
        set b [tk_client]
        $a settp tk:txw v
        $b watch tk:txw
        $a close
        tk_wait_gone tk:txw
        $b multi
        $b ping
        assert_equal {} [$b exec]
        $b close
    }

    # ---- DELTP -----------------------------------------------------------------------------

    test {DELTP deletes only the caller's own keys and counts them} {
        set a [tk_client]
        set b [tk_client]
        $a settp tk:dt:a1 v
        $a settp tk:dt:a2 v
        $b settp tk:dt:b1 v
        r set tk:dt:ord v
        assert_equal 1 [$a deltp tk:dt:a1] "own key"
        assert_equal 0 [$a deltp tk:dt:b1] "foreign key"
        assert_equal 0 [$a deltp tk:dt:ord] "ordinary key"
        assert_equal 0 [$a deltp tk:dt:missing] "missing key"
        assert_equal 1 [r exists tk:dt:b1]
        assert_equal 1 [r exists tk:dt:ord]
        assert_equal 0 [r exists tk:dt:a1]
        $a settp tk:dt:a1 again
        assert_equal 2 [$a deltp tk:dt:a1 tk:dt:b1 tk:dt:ord tk:dt:missing tk:dt:a2]
        assert_equal 0 [r exists tk:dt:a1 tk:dt:a2]
        assert_equal 2 [r exists tk:dt:b1 tk:dt:ord]
        assert_equal 0 [r deltp tk:dt:b1] "the default client owns nothing"
        $a close
        $b close
        tk_wait_gone tk:dt:b1
        r del tk:dt:ord
    }

    test {DELTP of a key named twice deletes it once} {
        set a [tk_client]
        $a settp tk:dt2 v
        assert_equal 1 [$a deltp tk:dt2 tk:dt2]
        $a close
    }

    test {DELTP follows the entry: a renamed own key is still own, a re-created one is not} {
        set a [tk_client]
        set b [tk_client]
        $a settp tk:dt3 v
        r rename tk:dt3 tk:dt3:new
        assert_equal 1 [$a deltp tk:dt3:new]
        $a settp tk:dt4 v
        r del tk:dt4
        $b settp tk:dt4 v-b
        assert_equal 0 [$a deltp tk:dt4] "B's re-created key is not A's"
        assert_equal v-b [r get tk:dt4]
        $a close
        $b close
        tk_wait_gone tk:dt4
    }

    # ---- fencing tokens, OBJECT OWNER / FENCE ----------------------------------------------

    test {SETTP FENCE replies tokens that strictly increase across keys and connections} {
        set a [tk_client]
        set b [tk_client]
        set t1 [$a settp tk:f1 v FENCE]
        assert_morethan $t1 0
        set t2 [$b settp tk:f2 v fence]
        assert_morethan $t2 $t1
        assert_equal 0 [$a settp tk:f2 v FENCE] "failure still replies 0"
        assert_equal 1 [$a settp tk:f3 v] "no FENCE: reply 1"
        $a deltp tk:f1
        set t4 [$a settp tk:f1 v FENCE]
        assert_morethan $t4 $t2
        $a close
        $b close
        tk_wait_gone tk:f1
        tk_wait_gone tk:f2
    }

    test {OBJECT OWNER: the owner's client id, nil for ordinary and missing keys} {
        set a [tk_client]
        set id [$a client id]
        $a settp tk:oo v
        r set tk:oo:ord v
        assert_equal $id [r object owner tk:oo]
        assert_equal {} [r object owner tk:oo:ord]
        assert_equal {} [r object owner tk:oo:missing]
        r rename tk:oo tk:oo:moved
        assert_equal $id [r object owner tk:oo:moved] "ownership moved with RENAME"
        r copy tk:oo:moved tk:oo:copy
        assert_equal {} [r object owner tk:oo:copy] "a COPY is ordinary"
        $a close
        tk_wait_gone tk:oo:moved
        r del tk:oo:ord tk:oo:copy
    }

    test {OBJECT OWNER follows MOVE and SWAPDB; tk= counts keys in every database} {
        r flushall
        set a [tk_client]
        set id [$a client id]
        $a settp tk:oo2:a v
        $a settp tk:oo2:b v
        r move tk:oo2:a 10
        r swapdb 9 10
        assert_equal $id [r object owner tk:oo2:a] "moved to 10, then swapped back to 9"
        assert_equal 0 [r exists tk:oo2:b]
        r select 10
        set owner_b [r object owner tk:oo2:b]
        r select 9
        assert_equal $id $owner_b "swapped to db 10"
        assert_equal 2 [tk_of $id]
        $a close
        tk_wait_gone tk:oo2:a
        r select 10
        set left [r exists tk:oo2:b]
        r select 9
        assert_equal 0 $left
    }

    test {OBJECT OWNER nil on the wire: $-1 in RESP2, _ in RESP3} {
        foreach {proto null} {2 {$-1} 3 {_}} {
            set rd [redis_deferring_client]
            $rd hello $proto
            $rd read
            $rd readraw 1
            $rd object owner tk:oo:nokey
            assert_equal $null [$rd read] "RESP$proto"
            $rd settp tk:oo:wire v
            $rd read
            $rd client id
            set id [string range [$rd read] 1 end]
            $rd object owner tk:oo:wire
            assert_equal ":$id" [$rd read] "RESP$proto"
            $rd close
            tk_wait_gone tk:oo:wire
        }
    }

    test {OBJECT FENCE: the token of a FENCE key, nil otherwise} {
        set a [tk_client]
        set t [$a settp tk:of:fenced v FENCE]
        $a settp tk:of:plain v
        r set tk:of:ord v
        assert_equal $t [r object fence tk:of:fenced]
        assert_equal {} [r object fence tk:of:plain]
        assert_equal {} [r object fence tk:of:ord]
        assert_equal {} [r object fence tk:of:missing]
        r rename tk:of:fenced tk:of:moved
        assert_equal $t [r object fence tk:of:moved] "the token moves with the entry"
        $a close
        tk_wait_gone tk:of:moved
        r del tk:of:ord
    }

    # ---- CLIENT LIST / CLIENT INFO ---------------------------------------------------------

    test {CLIENT INFO and CLIENT LIST show tk= and wx=} {
        set a [tk_client]
        set id [$a client id]
        assert_equal 0 [client_field [$a client info] tk]
        assert_equal 0 [client_field [$a client info] wx]
        $a settp tk:cl1 v
        $a settp tk:cl2 v
        $a settp tk:cl2 v
        $a watchex tk:cl1 tk:cl3 tk:cl4
        $a watchex tk:cl1
        set info [$a client info]
        assert_equal 2 [client_field $info tk]
        assert_equal 3 [client_field $info wx]
        assert_equal 2 [tk_of $id]
        assert_equal 3 [wx_of $id]
        # The fields are the last two of the line, after the fields Redis has (7.2 ends at lib-ver=).
        assert_match {* resp=2 lib-name= lib-ver= tk=2 wx=3} [string trim [r client list id $id]]
        $a deltp tk:cl1
        $a unwatchex tk:cl3
        assert_equal 1 [tk_of $id]
        assert_equal 2 [wx_of $id]
        $a close
        tk_wait_gone tk:cl2
    }

    # ---- bad input -------------------------------------------------------------------------

    test {Wrong arity errors} {
        assert_error {ERR wrong number of arguments for 'settp' command} {r settp}
        assert_error {ERR wrong number of arguments for 'settp' command} {r settp k}
        assert_error {ERR wrong number of arguments for 'bsettp' command} {r bsettp k v}
        assert_error {ERR wrong number of arguments for 'deltp' command} {r deltp}
        assert_error {ERR wrong number of arguments for 'watchex' command} {r watchex}
        assert_equal 0 [r exists k]
    }

    test {SETTP with a bad flag is a syntax error and creates nothing} {
        assert_error {ERR syntax error} {r settp tk:bad v NOFENCE}
        assert_error {ERR syntax error} {r settp tk:bad v FENCE FENCE}
        assert_error {ERR syntax error} {r settp tk:bad v FENCE x}
        assert_equal 0 [r exists tk:bad]
        assert_error {ERR syntax error} {r bsettp tk:bad v 0 NOFENCE}
        assert_equal 0 [r exists tk:bad]
    }

    test {SETTP on a key holding another type replies 0} {
        r del tk:otype
        r setbit tk:otype 3 1
        assert_equal 0 [r settp tk:otype v]
        r del tk:otype
    }

    test {A 1 MB key name: SETTP, DELTP and a 1 MB value; the server keeps serving} {
        set a [tk_client]
        set big [string repeat k 1048576]
        assert_equal 1 [$a settp $big v]
        assert_equal 1 [r exists $big]
        assert_equal 0 [$a settp $big w]
        assert_equal 1 [$a deltp $big]
        assert_equal 0 [r exists $big]
        assert_equal 1 [$a settp $big [string repeat v 1048576]]
        assert_equal 1048576 [r strlen $big]
        $a close
        tk_wait_gone $big
        assert_equal PONG [r ping]
    }
}
