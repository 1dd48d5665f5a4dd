# Re-entry (docs/temporary-keys-and-watches.md, "Re-entry"): a connection never waits on a key
# it owns (BSETTP answers at once, with or without a timeout, as SETTP would), and the opt-in
# REENTRANT flag keeps a hold count per key: SETTP/BSETTP REENTRANT by the owner adds a hold and
# replies what the first acquisition replied (its fencing token, else 1), DELTP takes one hold
# off and deletes the key at the last one. Without REENTRANT nothing changes. Also: the flags'
# syntax, MULTI and scripts, a re-created key starting again at one hold, and what the AOF
# records (creations as plain SETTP, nothing for a re-entry or a dropped hold) and reloads.
#
# Clients have a read timeout: a command that blocked when it should answer fails the test with
# an I/O error instead of hanging it.

proc re_client {{proto 2}} {
    set c [redis_client]
    $c timeout 5000
    if {$proto == 3} {$c hello 3}
    return $c
}

proc re_wait_gone {key} {
    wait_for_condition 100 20 {[r exists $key] == 0} else {
        fail "key '$key' still exists"
    }
}

start_server {tags {tempkeys redistp}} {
    # ---- no self-wait ----------------------------------------------------------------------

    test {Re-entry: BSETTP on a key the caller owns answers 0 at once (timeout 0: forever)} {
        set a [re_client]
        assert_equal 1 [$a settp re:self v]
        assert_equal 0 [$a bsettp re:self w 0]
        assert_equal v [r get re:self]
        # The connection is usable and not blocked: it answers the next command.
        assert_equal PONG [$a ping]
        assert {![string match *b* [client_field [r client list id [$a client id]] flags]]}
        $a close
        re_wait_gone re:self
    }

    test {Re-entry: BSETTP with a timeout on an owned key answers 0 at once, not at the timeout} {
        set a [re_client]
        assert_equal 1 [$a bsettp re:selft v 0]
        # A 100000 s timeout would outlast the client's 5 s read timeout if it waited.
        assert_equal 0 [$a bsettp re:selft w 100000]
        assert_equal 0 [$a bsettp re:selft w 100000 FENCE]
        assert_equal v [r get re:selft]
        $a close
        re_wait_gone re:selft
    }

    test {Re-entry: BSETTP on an owned key with waiters queued behind does not take their turn} {
        set a [re_client]
        assert_equal 1 [$a settp re:queue v]
        set w [redis_deferring_client]
        $w client id
        set wid [$w read]
        $w bsettp re:queue mine 0
        wait_for_blocked_clients_count 1
        assert_equal 0 [$a bsettp re:queue again 0]
        assert_equal 1 [$a deltp re:queue]
        assert_equal 1 [$w read]
        assert_equal $wid [r object owner re:queue]
        $w close
        $a close
        re_wait_gone re:queue
    }

    # ---- REENTRANT -------------------------------------------------------------------------

    test {Re-entry: without REENTRANT SETTP on an own key still replies 0 and adds no hold} {
        set a [re_client]
        assert_equal 1 [$a settp re:plain v]
        assert_equal 0 [$a settp re:plain w]
        assert_equal 1 [$a deltp re:plain]
        assert_equal 0 [r exists re:plain]
        $a close
    }

    test {Re-entry: SETTP REENTRANT counts holds; DELTP deletes at the last one} {
        set a [re_client]
        assert_equal 1 [$a settp re:cnt v REENTRANT]
        assert_equal 1 [$a settp re:cnt w REENTRANT]
        assert_equal 1 [$a bsettp re:cnt x 0 REENTRANT]
        # The value is not changed by a re-entry.
        assert_equal v [r get re:cnt]
        assert_equal 0 [$a deltp re:cnt]
        assert_equal 1 [r exists re:cnt]
        assert_equal 0 [$a deltp re:cnt]
        assert_equal 1 [r exists re:cnt]
        assert_equal 1 [$a deltp re:cnt]
        assert_equal 0 [r exists re:cnt]
        assert_equal 0 [$a deltp re:cnt]
        $a close
    }

    test {Re-entry: REENTRANT on a key created without it counts too} {
        set a [re_client]
        assert_equal 1 [$a settp re:late v]
        assert_equal 1 [$a settp re:late v REENTRANT]
        assert_equal 0 [$a deltp re:late]
        assert_equal 1 [$a deltp re:late]
        assert_equal 0 [r exists re:late]
        $a close
    }

    test {Re-entry: the reply of a re-entry is the first acquisition's fencing token} {
        set a [re_client]
        set t [$a settp re:fence v FENCE]
        assert_morethan $t 1
        assert_equal $t [$a settp re:fence v REENTRANT FENCE]
        assert_equal $t [$a settp re:fence v FENCE REENTRANT]
        assert_equal $t [$a bsettp re:fence v 0 REENTRANT FENCE]
        # A re-entry without FENCE gets the key's token too: it is the first reply.
        assert_equal $t [$a settp re:fence v REENTRANT]
        assert_equal $t [r object fence re:fence]
        # Tokens keep growing after re-entries.
        set t2 [$a settp re:fence2 v FENCE]
        assert_morethan $t2 $t
        # A key created without FENCE answers 1 to a re-entry with FENCE: no token is made up.
        assert_equal 1 [$a settp re:nofence v]
        assert_equal 1 [$a settp re:nofence v REENTRANT FENCE]
        assert_equal {} [r object fence re:nofence]
        $a close
        re_wait_gone re:fence
    }

    test {Re-entry: a foreign or ordinary key answers 0 to REENTRANT and counts nothing} {
        set a [re_client]
        set b [re_client]
        assert_equal 1 [$b settp re:foreign v]
        assert_equal 0 [$a settp re:foreign w REENTRANT]
        r set re:ordinary v
        assert_equal 0 [$a settp re:ordinary w REENTRANT]
        assert_equal 0 [$a deltp re:foreign re:ordinary]
        assert_equal 1 [$b deltp re:foreign]
        assert_equal 0 [r exists re:foreign]
        assert_equal v [r get re:ordinary]
        $b close
        $a close
    }

    test {Re-entry: DELTP of several keys counts only the ones it deleted} {
        set a [re_client]
        $a settp re:m1 v
        $a settp re:m2 v REENTRANT
        $a settp re:m2 v REENTRANT
        $a settp re:m3 v
        assert_equal 2 [$a deltp re:m1 re:m2 re:m3]
        assert_equal {0 1 0} [list [r exists re:m1] [r exists re:m2] [r exists re:m3]]
        assert_equal 1 [$a deltp re:m2]
        $a close
    }

    test {Re-entry: a re-created key starts again at one hold} {
        set a [re_client]
        $a settp re:again v REENTRANT
        $a settp re:again v REENTRANT
        $a settp re:again v REENTRANT
        # DEL ends the key and its holds, whatever their number.
        assert_equal 1 [r del re:again]
        assert_equal 1 [$a settp re:again v REENTRANT]
        assert_equal 1 [$a deltp re:again]
        assert_equal 0 [r exists re:again]
        $a close
    }

    test {Re-entry: a disconnect releases a key whatever its hold count} {
        set a [re_client]
        $a settp re:disc v REENTRANT
        $a settp re:disc v REENTRANT
        $a close
        re_wait_gone re:disc
    }

    test {Re-entry: a hand-off to a BSETTP waiter starts at one hold} {
        set a [re_client]
        $a settp re:hand v
        set w [redis_deferring_client]
        $w bsettp re:hand mine 0 REENTRANT
        wait_for_blocked_clients_count 1
        assert_equal 1 [$a deltp re:hand]
        assert_equal 1 [$w read]
        $w settp re:hand mine REENTRANT
        assert_equal 1 [$w read]
        $w deltp re:hand
        assert_equal 0 [$w read]
        $w deltp re:hand
        assert_equal 1 [$w read]
        assert_equal 0 [r exists re:hand]
        $w close
        $a close
    }

    test {Re-entry: RENAME keeps the hold count} {
        set a [re_client]
        $a settp re:ren v REENTRANT
        $a settp re:ren v REENTRANT
        assert_equal OK [r rename re:ren re:ren2]
        assert_equal 0 [$a deltp re:ren2]
        assert_equal 1 [$a deltp re:ren2]
        assert_equal 0 [r exists re:ren2]
        $a close
    }

    # ---- syntax ------------------------------------------------------------------------------

    test {Re-entry: flags in any order, each at most once, else a syntax error} {
        set a [re_client]
        assert_error {ERR syntax error} {$a settp re:syn v REENTRANT REENTRANT}
        assert_error {ERR syntax error} {$a settp re:syn v FENCE FENCE}
        assert_error {ERR syntax error} {$a settp re:syn v FENCE REENTRANT FENCE}
        assert_error {ERR syntax error} {$a settp re:syn v REENTRANT bogus}
        assert_error {ERR syntax error} {$a bsettp re:syn v 0 REENTRANT REENTRANT}
        assert_error {ERR syntax error} {$a bsettp re:syn v 0 FENCE REENTRANT FENCE}
        assert_error {ERR syntax error} {$a bsettp re:syn v 0 reentrant nope}
        # Nothing was created by the refused commands.
        assert_equal 0 [r exists re:syn]
        assert_equal 1 [$a settp re:syn v reentrant]
        assert_morethan [$a settp re:syn2 v Reentrant fEnCe] 1
        assert_error {ERR wrong number of arguments for 'settp' command} {$a settp re:syn}
        $a close
    }

    # ---- MULTI and scripts -------------------------------------------------------------------

    test {Re-entry: inside MULTI BSETTP on an own key replies 0 and REENTRANT counts} {
        set a [re_client]
        $a multi
        $a settp re:tx v REENTRANT
        $a settp re:tx v REENTRANT
        $a bsettp re:tx v 0
        $a bsettp re:tx v 0 REENTRANT
        $a deltp re:tx
        assert_equal {1 1 0 1 0} [$a exec]
        assert_equal 1 [r exists re:tx]
        assert_equal 0 [$a deltp re:tx]
        assert_equal 1 [$a deltp re:tx]
        assert_equal 0 [r exists re:tx]
        $a close
    }

    test {Re-entry: in a script the caller re-enters its own key and DELTP drops holds} {
        set a [re_client]
        set res [$a eval {
            local r = {}
            r[1] = redis.call('settp', KEYS[1], 'v', 'REENTRANT')
            r[2] = redis.call('settp', KEYS[1], 'v', 'REENTRANT')
            r[3] = redis.call('bsettp', KEYS[1], 'v', 0)
            r[4] = redis.call('deltp', KEYS[1])
            r[5] = redis.call('exists', KEYS[1])
            return r
        } 1 re:lua]
        assert_equal {1 1 0 0 1} $res
        assert_equal [$a client id] [r object owner re:lua]
        assert_equal 1 [$a deltp re:lua]
        $a close
    }
}

start_server {tags {tempkeys redistp external:skip} overrides {appendonly yes appendfsync always}} {
    # The AOF text of the incr files, once the buffer is written.
    proc re_aof_text {} {
        wait_for_condition 200 20 {[s aof_buffer_length] == 0} else {
            fail "the AOF buffer was not written"
        }
        set text ""
        foreach f [lsort [glob -nocomplain [file join [server_path 0 appendonlydir] *.incr.aof]]] {
            set fd [open $f rb]
            append text [read $fd]
            close $fd
        }
        return $text
    }

    test {Re-entry: the AOF records creations as plain SETTP, nothing for holds, DEL at the end} {
        set a [re_client]
        set t [$a settp re:aof v REENTRANT FENCE]
        assert_equal $t [$a settp re:aof v REENTRANT]
        assert_equal 1 [$a bsettp re:aofb w 0 REENTRANT]
        assert_equal 1 [$a bsettp re:aofb w 0 REENTRANT]
        assert_equal 0 [$a deltp re:aof]
        r set re:mark 1
        set text [re_aof_text]
        # Exactly one record per creation, without REENTRANT; no DEL for the dropped hold.
        assert_equal 1 [regexp -all {\$5\r\nSETTP\r\n\$6\r\nre:aof\r\n\$1\r\nv\r\n\$5\r\nFENCE\r\n} $text]
        assert_equal 1 [regexp -all {\$5\r\nSETTP\r\n\$7\r\nre:aofb\r\n\$1\r\nw\r\n\*} $text]
        assert_equal 0 [regexp -all -nocase {REENTRANT} $text]
        assert_equal 0 [regexp -all {\$3\r\nDEL\r\n\$6\r\nre:aof\r\n} $text]
        # The last hold's DELTP is the DEL a replay needs.
        assert_equal 1 [$a deltp re:aof]
        set text [re_aof_text]
        assert_equal 1 [regexp -all {\$3\r\nDEL\r\n\$6\r\nre:aof\r\n} $text]
        $a close
        re_wait_gone re:aofb
    }

    test {Re-entry: a reload of an AOF with re-entered keys reaches the same ordinary data} {
        set a [re_client]
        $a settp re:ld1 v REENTRANT
        $a settp re:ld1 v REENTRANT
        $a deltp re:ld1
        $a settp re:ld2 v FENCE REENTRANT
        $a settp re:ld2 v FENCE REENTRANT
        $a deltp re:ld2
        $a deltp re:ld2
        r set re:ld3 x
        assert_equal {1 0 1} [list [r exists re:ld1] [r exists re:ld2] [r exists re:ld3]]
        $a close
        re_wait_gone re:ld1
        set digest [r debug digest]
        r debug loadaof
        # Every temporary key is released by the load's end; the ordinary data is identical.
        assert_equal $digest [r debug digest]
        assert_equal {0 0 1} [list [r exists re:ld1] [r exists re:ld2] [r exists re:ld3]]
        set b [re_client]
        assert_equal 1 [$b settp re:ld1 v REENTRANT]
        assert_equal 1 [$b deltp re:ld1]
        $b close
    }
}
