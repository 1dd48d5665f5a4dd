# Observability (docs/temporary-keys-and-watches.md, "Observability"): TPINFO (who holds a key,
# since when, its token and holds, who waits), TPWAITERS (the line of BSETTP waiters, first
# first), TPKEYS (the keys of this connection, another one, or an owner id), each in RESP2
# (flat field/value arrays) and RESP3 (maps); INFO coordination's states and counters for every
# release cause and hand-offs; nil and empty answers; arity and syntax errors; COMMAND rows.
#
# Times are checked for plausibility against the test's own clock read before and after the
# action (the server runs on the same machine), never against a duration threshold.

proc ob_client {{proto 2}} {
    set c [redis_client]
    $c timeout 5000
    if {$proto == 3} {$c hello 3}
    return $c
}

# A deferring client with a name; returns {client id}.
proc ob_waiter {name} {
    set c [redis_deferring_client]
    $c client setname $name
    $c read
    $c client id
    return [list $c [$c read]]
}

proc ob_wait_blocked {n} {
    wait_for_condition 200 10 {[s blocked_clients] == $n} else {
        fail "expected $n blocked clients"
    }
}

proc ob_wait_gone {key} {
    wait_for_condition 100 20 {[r exists $key] == 0} else {
        fail "key '$key' still exists"
    }
}

# Field `f` of INFO coordination.
proc co {f} {
    set info [r info coordination]
    if {[regexp "\r\n$f:(\[^\r\n\]*)\r\n" "\r\n$info" -> v]} {return $v}
    error "no field $f in INFO coordination"
}

# A RESP2 flat field/value list as a dict.
proc ob_dict {flat} {return [dict create {*}$flat]}

start_server {tags {tempkeys redistp}} {
    # ---- TPINFO ------------------------------------------------------------------------------

    test {TPINFO: nil for a missing key and for an ordinary key nobody waits for} {
        assert_equal {} [r tpinfo ob:missing]
        r set ob:plain v
        assert_equal {} [r tpinfo ob:plain]
        r del ob:plain
    }

    test {TPINFO: the fields of a held key in order (RESP2 flat array)} {
        set a [ob_client]
        set id [$a client id]
        set t0 [clock milliseconds]
        set tok [$a settp ob:held v FENCE]
        set t1 [clock milliseconds]
        set info [r tpinfo ob:held]
        assert_equal {owner client session since-ms age-ms fence holds waiters} \
            [dict keys [ob_dict $info]]
        set d [ob_dict $info]
        assert_equal $id [dict get $d owner]
        assert_equal $id [dict get $d client]
        assert_equal 0 [dict get $d session]
        assert_range [dict get $d since-ms] $t0 $t1
        assert_range [dict get $d age-ms] 0 [expr {[clock milliseconds] - $t0}]
        assert_equal $tok [dict get $d fence]
        assert_equal 1 [dict get $d holds]
        assert_equal {} [dict get $d waiters]
        $a close
        ob_wait_gone ob:held
        assert_equal {} [r tpinfo ob:held]
    }

    test {TPINFO: holds follow REENTRANT and DELTP; fence 0 without FENCE} {
        set a [ob_client]
        $a settp ob:holds v REENTRANT
        $a settp ob:holds v REENTRANT
        $a settp ob:holds v REENTRANT
        set d [ob_dict [r tpinfo ob:holds]]
        assert_equal 3 [dict get $d holds]
        assert_equal 0 [dict get $d fence]
        $a deltp ob:holds
        assert_equal 2 [dict get [ob_dict [r tpinfo ob:holds]] holds]
        $a close
        ob_wait_gone ob:holds
    }

    test {TPINFO: a map in RESP3} {
        set a [ob_client]
        $a settp ob:r3 v
        set c3 [ob_client 3]
        set d [$c3 tpinfo ob:r3]
        assert_equal [$a client id] [dict get $d owner]
        assert_equal 8 [dict size $d]
        assert_equal {} [$c3 tpinfo ob:none]
        $c3 close
        # On the wire: a map of 8 pairs, and RESP3's null.
        set raw [redis_deferring_client]
        $raw hello 3
        $raw read
        $raw readraw 1
        $raw tpinfo ob:r3
        assert_equal {%8} [$raw read]
        $raw close
        set raw [redis_deferring_client]
        $raw hello 3
        $raw read
        $raw readraw 1
        $raw tpinfo ob:none
        assert_equal {_} [$raw read]
        $raw close
        $a close
        ob_wait_gone ob:r3
    }

    test {TPINFO: waiters first in line first; since-ms moves at a hand-off} {
        set a [ob_client]
        $a settp ob:line v
        set before [dict get [ob_dict [r tpinfo ob:line]] since-ms]
        lassign [ob_waiter w1] w1 id1
        $w1 bsettp ob:line x 0
        ob_wait_blocked 1
        lassign [ob_waiter w2] w2 id2
        $w2 bsettp ob:line y 0 FENCE
        ob_wait_blocked 2
        lassign [ob_waiter w3] w3 id3
        $w3 bsettp ob:line z 0
        ob_wait_blocked 3
        assert_equal [list $id1 $id2 $id3] [dict get [ob_dict [r tpinfo ob:line]] waiters]
        after 2 ;# the hand-off's time is then surely later than the creation's
        set t0 [clock milliseconds]
        assert_equal 1 [$a deltp ob:line]
        assert_equal 1 [$w1 read]
        set d [ob_dict [r tpinfo ob:line]]
        assert_equal $id1 [dict get $d owner]
        assert_equal [list $id2 $id3] [dict get $d waiters]
        assert_morethan_equal [dict get $d since-ms] $t0
        assert_morethan [dict get $d since-ms] $before
        $w1 close
        assert_morethan [$w2 read] 1
        assert_equal [list $id3] [dict get [ob_dict [r tpinfo ob:line]] waiters]
        $w2 close
        assert_equal 1 [$w3 read]
        $w3 close
        $a close
        ob_wait_gone ob:line
    }

    test {TPINFO: an ordinary key with BSETTP waiters shows owner 0 and its waiters} {
        r set ob:ord v
        lassign [ob_waiter w] w id
        $w bsettp ob:ord mine 0
        ob_wait_blocked 1
        set d [ob_dict [r tpinfo ob:ord]]
        assert_equal {0 0 0 0 0 0 0} [list [dict get $d owner] [dict get $d client] \
            [dict get $d session] [dict get $d since-ms] [dict get $d age-ms] \
            [dict get $d fence] [dict get $d holds]]
        assert_equal [list $id] [dict get $d waiters]
        r del ob:ord
        assert_equal 1 [$w read]
        $w close
        ob_wait_gone ob:ord
    }

    # ---- TPWAITERS ---------------------------------------------------------------------------

    test {TPWAITERS: empty for a key nobody waits for} {
        assert_equal {} [r tpwaiters ob:nobody]
        r set ob:nobody v
        assert_equal {} [r tpwaiters ob:nobody]
        r del ob:nobody
    }

    test {TPWAITERS: each waiter with client, addr, name, waited-ms, fence, in order} {
        # A BLPOP on the same name waits in the same queue (first, since the key was absent
        # when it came; it keeps waiting once the key is a string), but not for the lock: it is
        # not listed.
        lassign [ob_waiter popper] w3 id3
        $w3 blpop ob:w 0
        ob_wait_blocked 1
        set a [ob_client]
        $a settp ob:w v
        set t0 [clock milliseconds]
        lassign [ob_waiter first] w1 id1
        $w1 bsettp ob:w x 0 FENCE
        ob_wait_blocked 2
        lassign [ob_waiter second] w2 id2
        $w2 bsettp ob:w y 100
        ob_wait_blocked 3
        set list [r tpwaiters ob:w]
        assert_equal 2 [llength $list]
        set d1 [ob_dict [lindex $list 0]]
        set d2 [ob_dict [lindex $list 1]]
        assert_equal {client addr name waited-ms fence} [dict keys $d1]
        assert_equal [list $id1 first 1] [list [dict get $d1 client] [dict get $d1 name] \
            [dict get $d1 fence]]
        assert_equal [list $id2 second 0] [list [dict get $d2 client] [dict get $d2 name] \
            [dict get $d2 fence]]
        assert_equal [client_field [r client list id $id1] addr] [dict get $d1 addr]
        set span [expr {[clock milliseconds] - $t0}]
        assert_range [dict get $d1 waited-ms] 0 $span
        assert_range [dict get $d2 waited-ms] 0 [dict get $d1 waited-ms]
        # RESP3: maps.
        set c3 [ob_client 3]
        set l3 [$c3 tpwaiters ob:w]
        assert_equal $id1 [dict get [lindex $l3 0] client]
        assert_equal second [dict get [lindex $l3 1] name]
        $c3 close
        # A waiter that leaves leaves the list.
        $w1 close
        wait_for_condition 100 10 {[llength [r tpwaiters ob:w]] == 1} else {
            fail "the closed waiter is still listed"
        }
        assert_equal $id2 [dict get [ob_dict [lindex [r tpwaiters ob:w] 0]] client]
        $w2 close
        $w3 close
        $a close
        ob_wait_gone ob:w
    }

    # ---- TPKEYS ------------------------------------------------------------------------------

    test {TPKEYS: this connection's keys by database and key, with fence, holds, age} {
        set a [ob_client]
        set id [$a client id]
        assert_equal {} [$a tpkeys]
        $a select 10
        $a settp ob:k:b v
        $a select 9
        set tok [$a settp ob:k:z v FENCE]
        $a settp ob:k:a v REENTRANT
        $a settp ob:k:a v REENTRANT
        set list [$a tpkeys]
        assert_equal 3 [llength $list]
        set rows {}
        foreach row $list {
            set d [ob_dict $row]
            assert_equal {db key fence holds age-ms} [dict keys $d]
            assert_morethan_equal [dict get $d age-ms] 0
            lappend rows [list [dict get $d db] [dict get $d key] [dict get $d fence] \
                [dict get $d holds]]
        }
        assert_equal [list {9 ob:k:a 0 2} [list 9 ob:k:z $tok 1] {10 ob:k:b 0 1}] $rows
        # Another connection asks by client id, and by owner id (SESSION takes any owner id).
        foreach other [list [r tpkeys client $id] [r tpkeys session $id]] {
            set keys {}
            foreach row $other {lappend keys [dict get [ob_dict $row] key]}
            assert_equal {ob:k:a ob:k:z ob:k:b} $keys
        }
        # RESP3: an array of maps.
        set c3 [ob_client 3]
        set l3 [$c3 tpkeys CLIENT $id]
        assert_equal ob:k:a [dict get [lindex $l3 0] key]
        assert_equal 2 [dict get [lindex $l3 0] holds]
        $c3 close
        $a close
        wait_for_condition 100 20 {[r tpkeys session $id] eq {}} else {
            fail "the closed connection's keys are still listed"
        }
    }

    test {TPKEYS: an unknown client or owner lists nothing} {
        assert_equal {} [r tpkeys client 999999999]
        assert_equal {} [r tpkeys session 999999999]
        assert_equal {} [r tpkeys session 0]
    }

    test {TPKEYS, TPINFO, TPWAITERS: arity, syntax and integer errors} {
        assert_error {ERR syntax error} {r tpkeys client}
        assert_error {ERR syntax error} {r tpkeys owner 1}
        assert_error {ERR syntax error} {r tpkeys client 1 extra}
        assert_error {ERR value is not an integer or out of range} {r tpkeys client abc}
        assert_error {ERR value is not an integer or out of range} {r tpkeys session -1}
        assert_error {ERR wrong number of arguments for 'tpinfo' command} {r tpinfo}
        assert_error {ERR wrong number of arguments for 'tpinfo' command} {r tpinfo a b}
        assert_error {ERR wrong number of arguments for 'tpwaiters' command} {r tpwaiters}
        assert_error {ERR wrong number of arguments for 'tpwaiters' command} {r tpwaiters a b}
    }

    test {TPINFO, TPWAITERS, TPKEYS: COMMAND rows, key specs and docs} {
        assert_equal {ob:k} [r command getkeys tpinfo ob:k]
        assert_equal {ob:k} [r command getkeys tpwaiters ob:k]
        set info [lindex [r command info tpinfo] 0]
        assert_equal {tpinfo 2} [lrange $info 0 1]
        assert_match {*readonly*} [lindex $info 2]
        assert_match {*@read*} [lindex $info 6]
        set info [lindex [r command info tpkeys] 0]
        assert_equal {tpkeys -1} [lrange $info 0 1]
        foreach cmd {tpinfo tpwaiters tpkeys} {
            set docs [dict get [r command docs $cmd] $cmd]
            assert_match {redis-tp: *} [dict get $docs summary]
        }
    }

    test {TPINFO, TPWAITERS, TPKEYS inside MULTI and from a script} {
        set a [ob_client]
        $a settp ob:tx v
        $a multi
        $a tpinfo ob:tx
        $a tpkeys
        $a tpwaiters ob:tx
        set res [$a exec]
        assert_equal [$a client id] [dict get [ob_dict [lindex $res 0]] owner]
        assert_equal ob:tx [dict get [ob_dict [lindex [lindex $res 1] 0]] key]
        assert_equal {} [lindex $res 2]
        set res [$a eval {return redis.call('tpkeys')} 0]
        assert_equal ob:tx [dict get [ob_dict [lindex $res 0]] key]
        $a close
        ob_wait_gone ob:tx
    }

    # ---- INFO coordination -------------------------------------------------------------------

    test {INFO coordination: not in the default INFO, present in INFO all and everything} {
        assert_no_match {*# Coordination*} [r info]
        assert_match {*# Coordination*} [r info all]
        assert_match {*# Coordination*} [r info everything]
        assert_match {*temporary_keys:*} [r info coordination]
        assert_no_match {*# Server*} [r info coordination]
    }

    test {INFO coordination: states of keys, owners, watches and BSETTP queues} {
        set keys0 [co temporary_keys]
        set owners0 [co temporary_key_owners]
        set watchers0 [co watching_clients]
        set watches0 [co watches]
        set a [ob_client]
        set b [ob_client]
        $a settp ob:i1 v
        $a settp ob:i2 v
        $b settp ob:i3 v
        assert_equal [expr {$keys0 + 3}] [co temporary_keys]
        assert_equal [expr {$owners0 + 2}] [co temporary_key_owners]
        $b watchex ob:i1 ob:i2 ob:nothing
        assert_equal [expr {$watchers0 + 1}] [co watching_clients]
        assert_equal [expr {$watches0 + 3}] [co watches]
        lassign [ob_waiter q1] w1 id1
        $w1 bsettp ob:i1 x 0
        lassign [ob_waiter q2] w2 id2
        $w2 bsettp ob:i1 x 0
        lassign [ob_waiter q3] w3 id3
        $w3 bsettp ob:i2 x 0
        ob_wait_blocked 3
        assert_equal 3 [co bsettp_waiters]
        assert_equal 2 [co bsettp_queues]
        $w1 close
        $w2 close
        $w3 close
        wait_for_condition 100 10 {[co bsettp_waiters] == 0} else {fail "waiters left"}
        assert_equal 0 [co bsettp_queues]
        $b close
        $a close
        ob_wait_gone ob:i1
        ob_wait_gone ob:i3
        assert_equal $keys0 [co temporary_keys]
        assert_equal $owners0 [co temporary_key_owners]
        assert_equal $watches0 [co watches]
    }

    test {INFO coordination: released keys are counted by cause, hand-offs apart} {
        set disc0 [co released_by_disconnect]
        set lease0 [co released_by_lease]
        set reset0 [co released_by_reset]
        set deltp0 [co released_by_deltp]
        set hand0 [co handoffs]
        # disconnect: two keys
        set a [ob_client]
        $a settp ob:c1 v
        $a settp ob:c2 v
        $a close
        ob_wait_gone ob:c2
        assert_equal [expr {$disc0 + 2}] [co released_by_disconnect]
        # RESET: one key
        set a [ob_client]
        $a settp ob:c3 v
        assert_equal RESET [$a reset]
        assert_equal [expr {$reset0 + 1}] [co released_by_reset]
        assert_equal 0 [r exists ob:c3]
        $a close
        # DELTP: only keys deleted; a dropped hold counts nothing
        set a [ob_client]
        $a settp ob:c4 v REENTRANT
        $a settp ob:c4 v REENTRANT
        $a settp ob:c5 v
        assert_equal 1 [$a deltp ob:c4 ob:c5]
        assert_equal [expr {$deltp0 + 1}] [co released_by_deltp]
        assert_equal 1 [$a deltp ob:c4]
        assert_equal [expr {$deltp0 + 2}] [co released_by_deltp]
        # hand-offs: one per key handed to a waiter, whatever freed it
        $a settp ob:c6 v
        lassign [ob_waiter h] w id
        $w bsettp ob:c6 mine 0
        ob_wait_blocked 1
        $a deltp ob:c6
        assert_equal 1 [$w read]
        assert_equal [expr {$hand0 + 1}] [co handoffs]
        assert_equal [expr {$deltp0 + 3}] [co released_by_deltp]
        $w close
        ob_wait_gone ob:c6
        assert_equal [expr {$disc0 + 3}] [co released_by_disconnect]
        $a close
        # lease: the connection goes silent past its lease
        set a [ob_client]
        $a settp ob:c7 v
        $a client lease 50
        ob_wait_gone ob:c7
        assert_equal [expr {$lease0 + 1}] [co released_by_lease]
        catch {$a close}
        # nothing else moved
        assert_equal [expr {$disc0 + 3}] [co released_by_disconnect]
        assert_equal [expr {$reset0 + 1}] [co released_by_reset]
    }

    test {INFO coordination: CONFIG RESETSTAT zeroes the counters, not the states} {
        set a [ob_client]
        $a settp ob:rs v
        $a settp ob:rs2 v
        $a deltp ob:rs2
        assert_morethan [co released_by_deltp] 0
        r config resetstat
        foreach f {handoffs released_by_disconnect released_by_lease released_by_reset
                   released_by_deltp} {
            assert_equal 0 [co $f] $f
        }
        assert_morethan [co temporary_keys] 0
        $a close
        ob_wait_gone ob:rs
        assert_equal 1 [co released_by_disconnect]
    }

    test {INFO coordination: a release deferred past a busy script keeps its cause} {
        r config set busy-reply-threshold 20
        set a [ob_client]
        $a settp ob:busy v
        set disc0 [co released_by_disconnect]
        set rd [redis_deferring_client]
        $rd eval {
            local limit = redis.call('time')[1] + tonumber(ARGV[1])
            while redis.call('time')[1] + 0 < limit do end
            return 'done'
        } 0 10
        $rd flush
        wait_for_condition 500 10 {[catch {r ping} e] && [string match BUSY* $e]} else {
            fail "the script never became busy"
        }
        # The holder leaves while the script runs: its key stays until the script ends.
        $a close
        assert_equal OK [r script kill]
        catch {$rd read}
        $rd close
        ob_wait_gone ob:busy
        assert_equal [expr {$disc0 + 1}] [co released_by_disconnect]
        r config set busy-reply-threshold 5000
    }

    test {INFO coordination: fence_last is the last token handed out} {
        set a [ob_client]
        set tok [$a settp ob:f v FENCE]
        assert_equal $tok [co fence_last]
        $a close
        ob_wait_gone ob:f
    }
}
