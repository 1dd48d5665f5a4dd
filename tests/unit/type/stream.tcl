# Streams, the commands without consumer groups: XADD (NOMKSTREAM, MAXLEN and MINID with = and
# ~, LIMIT, `*`, `<ms>-*`, explicit ids and every id error), XLEN, XRANGE and XREVRANGE (`-`,
# `+`, exclusive `(`, COUNT, an id without a sequence meaning ms-0 as a start and ms-max as an
# end), XDEL, XTRIM, XSETID (ENTRIESADDED, MAXDELETEDID) and XINFO STREAM [FULL [COUNT]] with
# Redis 7.0's fields. Then the generic key commands on a stream (TYPE, OBJECT ENCODING, COPY,
# MEMORY USAGE, DEBUG DIGEST-VALUE), the keyspace notifications of every write, node
# boundaries with a small stream-node-max-entries / -bytes (a stream spread over many nodes,
# XDEL emptying a middle node, approximate trims that drop whole nodes only) and the RESP3
# shapes of the replies.
#
# Every expectation is what Redis 7.0 answers: this file passes against Debian's redis-server.
# Nothing here depends on time passing: `*` ids are only compared with a clock reading taken
# before the call (a lower bound).

# Every protocol line of the next reply of raw-mode client c, nested frames included.
proc xs_raw_reply {c} {
    set lines {}
    xs_raw_collect $c lines
    return $lines
}
proc xs_raw_collect {c listvar} {
    upvar 1 $listvar lines
    set line [$c read]
    lappend lines $line
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        $ {if {$n >= 0} {lappend lines [$c read]}}
        * - ~ - > {for {set i 0} {$i < $n} {incr i} {xs_raw_collect $c lines}}
        % {for {set i 0} {$i < 2 * $n} {incr i} {xs_raw_collect $c lines}}
    }
}

# The raw lines of one command's reply on a fresh connection speaking RESP `proto`.
proc xs_raw {proto args} {
    set c [redis_client]
    $c hello $proto
    $c readraw 1
    $c deferred 1
    $c {*}$args
    set lines [xs_raw_reply $c]
    $c close
    return $lines
}

# The value of `field` in a flat field/value list (an XINFO reply).
proc xs_field {reply field} {
    foreach {k v} $reply {
        if {$k eq $field} {return $v}
    }
    fail "no field '$field' in: $reply"
}

# The ids of an XRANGE-shaped reply.
proc xs_ids {entries} {
    set out {}
    foreach e $entries {lappend out [lindex $e 0]}
    return $out
}

# Fills key with entries 1-0 .. n-0, each {f <i>}.
proc xs_fill {key n} {
    r del $key
    for {set i 1} {$i <= $n} {incr i} {
        r xadd $key $i-0 f $i
    }
}

# A deferring client PSUBSCRIBEd to every keyevent channel.
proc xs_subscriber {} {
    set rd [redis_deferring_client]
    $rd psubscribe __keyevent@*
    $rd read
    return $rd
}

# The {event key} pairs `rd` received so far, fenced by a PING.
proc xs_events {rd} {
    $rd ping
    set got {}
    for {set i 0} {$i < 10000} {incr i} {
        set m [$rd read]
        if {$m eq "PONG" || [lindex $m 0] eq "pong"} {return $got}
        if {[lindex $m 0] eq "pmessage" && [string match __keyevent@* [lindex $m 2]]} {
            lappend got [list [lindex [split [lindex $m 2] :] end] [lindex $m 3]]
        }
    }
    fail "no PONG after 10000 frames"
}

start_server {tags {stream}} {
    test {XADD with an explicit id returns it; XLEN counts entries} {
        r del s
        assert_equal 1-1 [r xadd s 1-1 a 1]
        assert_equal 1-2 [r xadd s 1-2 b 2 c 3]
        assert_equal 5-0 [r xadd s 5 d 4]
        assert_equal 3 [r xlen s]
        assert_equal {{1-1 {a 1}} {1-2 {b 2 c 3}} {5-0 {d 4}}} [r xrange s - +]
    }

    test {XADD * makes an id not below the clock and above the last id} {
        r del s
        set before [clock milliseconds]
        set id [r xadd s * f v]
        lassign [split $id -] ms seq
        assert_morethan_equal $ms $before
        set id2 [r xadd s * f v]
        lassign [split $id2 -] ms2 seq2
        assert {$ms2 > $ms || ($ms2 == $ms && $seq2 == $seq + 1)}
        # Ids far in the future: * keeps increasing the sequence.
        r xadd s 99999999999999-5 f v
        assert_equal 99999999999999-6 [r xadd s * f v]
    }

    test {XADD <ms>-* picks the next sequence of that millisecond} {
        r del s
        assert_equal 5-0 [r xadd s 5-* f v]
        assert_equal 5-1 [r xadd s 5-* f v]
        assert_equal 7-0 [r xadd s 7-* f v]
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} \
            {r xadd s 6-* f v}
        r del s
        assert_equal 0-1 [r xadd s 0-* f v]
        r del s
        r xadd s 3-18446744073709551615 f v
        # No sequence is left in that millisecond: 7.0 answers with this (odd) text.
        assert_error {ERR Elements are too large to be stored} {r xadd s 3-* f v}
        assert_equal 4-0 [r xadd s 4-* f v]
    }

    test {XADD id errors: equal or smaller, 0-0, malformed, exhausted} {
        r del s
        r xadd s 2-2 f v
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} \
            {r xadd s 2-2 f v}
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} \
            {r xadd s 2-1 f v}
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} \
            {r xadd s 1 f v}
        assert_error {ERR The ID specified in XADD must be greater than 0-0} {r xadd s2 0-0 f v}
        assert_error {ERR The ID specified in XADD must be greater than 0-0} {r xadd s2 0 f v}
        assert_equal 0 [r exists s2]
        foreach bad {abc 1-x -1 1- 2-18446744073709551616 18446744073709551616-0 1-2-3 {}} {
            assert_error {ERR Invalid stream ID specified as stream command argument} \
                [list r xadd s $bad f v]
        }
        r del s
        assert_equal 18446744073709551615-18446744073709551615 \
            [r xadd s 18446744073709551615-18446744073709551615 f v]
        assert_error {ERR The stream has exhausted the last possible ID, unable to add more items} \
            {r xadd s * f v}
        assert_error {ERR The stream has exhausted the last possible ID, unable to add more items} \
            {r xadd s 18446744073709551615-* f v}
        assert_equal 1 [r xlen s]
    }

    test {XADD arity and option errors} {
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s * f}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s *}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s nomkstream * f}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s f v}
        assert_error {ERR The MAXLEN argument must be >= 0.} {r xadd s maxlen -1 * f v}
        assert_error {ERR The LIMIT argument must be >= 0.} {r xadd s maxlen ~ 1 limit -1 * f v}
        assert_error {ERR value is not an integer or out of range} {r xadd s maxlen abc * f v}
        assert_error {ERR value is not an integer or out of range} \
            {r xadd s maxlen 18446744073709551616 * f v}
        assert_error {ERR value is not an integer or out of range} {r xadd s maxlen ~ 1 limit x * f v}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s minid abc * f v}
        assert_error {ERR syntax error, LIMIT cannot be used without the special ~ option} \
            {r xadd s maxlen 10 limit 5 * f v}
        assert_error {ERR syntax error, LIMIT cannot be used without the special ~ option} \
            {r xadd s maxlen = 10 limit 5 * f v}
        assert_error {ERR syntax error, MAXLEN and MINID options at the same time are not compatible} \
            {r xadd s maxlen 1 minid 1 * f v}
        r set str x
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r xadd str * f v}
        r del str
    }

    test {XADD NOMKSTREAM does not create a key but appends to an existing stream} {
        r del s
        assert_equal {} [r xadd s nomkstream * f v]
        assert_equal 0 [r exists s]
        r xadd s 1-0 f v
        assert_equal 2-0 [r xadd s nomkstream 2-0 f v]
        assert_equal 2 [r xlen s]
    }

    test {XADD MAXLEN and MINID trim exactly after adding} {
        xs_fill s 5
        assert_equal 6-0 [r xadd s maxlen 3 6-0 f 6]
        assert_equal {4-0 5-0 6-0} [xs_ids [r xrange s - +]]
        r xadd s maxlen = 2 7-0 f 7
        assert_equal {6-0 7-0} [xs_ids [r xrange s - +]]
        r xadd s minid 7 8-0 f 8
        assert_equal {7-0 8-0} [xs_ids [r xrange s - +]]
        r xadd s minid = 8-0 9-0 f 9
        assert_equal {8-0 9-0} [xs_ids [r xrange s - +]]
        # MAXLEN 0 keeps an empty stream.
        r xadd s maxlen 0 10-0 f 10
        assert_equal 0 [r xlen s]
        assert_equal 1 [r exists s]
        assert_equal 10-0 [xs_field [r xinfo stream s] last-generated-id]
    }

    test {XLEN of a missing key is 0; XLEN of another type is WRONGTYPE} {
        r del nokey str
        assert_equal 0 [r xlen nokey]
        r set str x
        assert_error {WRONGTYPE *} {r xlen str}
        assert_error {WRONGTYPE *} {r xrange str - +}
        assert_error {WRONGTYPE *} {r xrevrange str + -}
        r del str
    }

    test {XRANGE and XREVRANGE with - and + and COUNT} {
        xs_fill s 5
        assert_equal {1-0 2-0 3-0 4-0 5-0} [xs_ids [r xrange s - +]]
        assert_equal {5-0 4-0 3-0 2-0 1-0} [xs_ids [r xrevrange s + -]]
        assert_equal {1-0 2-0} [xs_ids [r xrange s - + count 2]]
        assert_equal {5-0 4-0} [xs_ids [r xrevrange s + - COUNT 2]]
        assert_equal {} [r xrange s - + count 0]
        assert_equal {} [r xrange s - + count -1]
        assert_equal {2-0 3-0 4-0} [xs_ids [r xrange s 2 4]]
        assert_equal {4-0 3-0 2-0} [xs_ids [r xrevrange s 4 2]]
        assert_equal {} [r xrange s 4 2]
        assert_equal {} [r xrevrange s 2 4]
        assert_equal {} [r xrange nokey - +]
        assert_equal {{3-0 {f 3}}} [r xrange s 3-0 3-0]
    }

    test {XRANGE ids without a sequence: ms-0 as the start, ms-max as the end} {
        r del s
        r xadd s 1-1 a 1
        r xadd s 1-2 b 2
        r xadd s 2-0 c 3
        assert_equal {1-1 1-2} [xs_ids [r xrange s 1 1]]
        assert_equal {1-2 1-1} [xs_ids [r xrevrange s 1 1]]
        assert_equal {1-1 1-2 2-0} [xs_ids [r xrange s 0 2]]
        assert_equal {1-2} [xs_ids [r xrange s 1-2 1]]
        assert_equal {2-0} [xs_ids [r xrange s 2 +]]
    }

    test {XRANGE and XREVRANGE with exclusive ( bounds} {
        r del s
        r xadd s 1-1 a 1
        r xadd s 1-2 b 2
        r xadd s 2-0 c 3
        assert_equal {1-2} [xs_ids [r xrange s (1-1 (2-0]]
        assert_equal {1-2 2-0} [xs_ids [r xrange s (1-1 +]]
        assert_equal {2-0 1-2} [xs_ids [r xrevrange s + (1-1]]
        assert_equal {1-2} [xs_ids [r xrevrange s (2-0 (1-1]]
        assert_equal {} [r xrange s (1-2 (2-0]
        # A bare ms keeps its meaning (start: ms-0, end: ms-max), then ( steps past it.
        assert_equal {1-1 1-2 2-0} [xs_ids [r xrange s (1 +]]
        assert_equal {1-1 1-2 2-0} [xs_ids [r xrange s - (2]]
        assert_equal {1-1 1-2} [xs_ids [r xrange s - (2-0]]
        assert_error {ERR invalid start ID for the interval} \
            {r xrange s (18446744073709551615-18446744073709551615 +}
        assert_error {ERR invalid end ID for the interval} {r xrange s - (0-0}
        assert_error {ERR invalid end ID for the interval} {r xrevrange s (0-0 -}
        assert_error {ERR invalid start ID for the interval} \
            {r xrevrange s + (18446744073709551615-18446744073709551615}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xrange s (- +}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xrange s - (+}
    }

    test {XRANGE errors} {
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xrange s x +}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xrange s - 1-x}
        assert_error {ERR syntax error} {r xrange s - + count}
        assert_error {ERR syntax error} {r xrange s - + foo 1}
        assert_error {ERR value is not an integer or out of range} {r xrange s - + count x}
        assert_error {ERR wrong number of arguments for 'xrange' command} {r xrange s -}
        assert_error {ERR wrong number of arguments for 'xrevrange' command} {r xrevrange s +}
    }

    test {XDEL removes existing ids only and counts them} {
        xs_fill s 5
        assert_equal 2 [r xdel s 2-0 4-0 99-0]
        assert_equal 0 [r xdel s 2-0]
        assert_equal 0 [r xdel nokey 1-0]
        assert_equal 3 [r xlen s]
        assert_equal {1-0 3-0 5-0} [xs_ids [r xrange s - +]]
        assert_equal 4-0 [xs_field [r xinfo stream s] max-deleted-entry-id]
        # Deleting the last entry keeps the key and its last id.
        r xdel s 1-0 3-0 5-0
        assert_equal 1 [r exists s]
        assert_equal 0 [r xlen s]
        assert_equal 5-0 [xs_field [r xinfo stream s] last-generated-id]
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} \
            {r xadd s 5-0 f v}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xdel s abc}
        assert_error {ERR wrong number of arguments for 'xdel' command} {r xdel s}
    }

    test {XTRIM MAXLEN and MINID, exact and approximate} {
        xs_fill s 10
        assert_equal 4 [r xtrim s maxlen 6]
        assert_equal 0 [r xtrim s maxlen 6]
        assert_equal {5-0 6-0 7-0 8-0 9-0 10-0} [xs_ids [r xrange s - +]]
        assert_equal 2 [r xtrim s minid = 7]
        assert_equal 2 [r xtrim s MINID 9-0]
        # Trimming is not deleting: max-deleted-entry-id stays.
        assert_equal 0-0 [xs_field [r xinfo stream s] max-deleted-entry-id]
        assert_equal 2 [r xtrim s maxlen 0]
        assert_equal 1 [r exists s]
        assert_equal 0 [r xtrim nokey maxlen 0]
        assert_equal 0 [r exists nokey]
    }

    test {XTRIM errors} {
        r del s
        r xadd s 1-0 f v
        assert_error {ERR wrong number of arguments for 'xtrim' command} {r xtrim s}
        assert_error {ERR wrong number of arguments for 'xtrim' command} {r xtrim s maxlen}
        assert_error {ERR syntax error} {r xtrim s foo 1}
        assert_error {ERR syntax error} {r xtrim s maxlen 1 foo}
        assert_error {ERR The MAXLEN argument must be >= 0.} {r xtrim s maxlen -1}
        assert_error {ERR syntax error, LIMIT cannot be used without the special ~ option} \
            {r xtrim s maxlen 1 limit 1}
        assert_error {ERR syntax error, MAXLEN and MINID options at the same time are not compatible} \
            {r xtrim s maxlen 1 minid 1}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xtrim s minid x}
        assert_error {ERR The LIMIT argument must be >= 0.} {r xtrim s maxlen ~ 1 limit -1}
        r set str x
        assert_error {WRONGTYPE *} {r xtrim str maxlen 0}
        r del str
    }

    test {XSETID moves the last id, with ENTRIESADDED and MAXDELETEDID} {
        r del s
        r xadd s 5-0 a 1
        r xadd s 6-0 b 2
        assert_equal OK [r xsetid s 6-0]
        assert_equal OK [r xsetid s 10-0]
        assert_equal 10-0 [xs_field [r xinfo stream s] last-generated-id]
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} \
            {r xadd s 9-0 f v}
        assert_equal OK [r xsetid s 10-0 entriesadded 5 maxdeletedid 3-0]
        set info [r xinfo stream s]
        assert_equal 5 [xs_field $info entries-added]
        assert_equal 3-0 [xs_field $info max-deleted-entry-id]
        assert_equal 11-0 [r xadd s 11-* f v]
        assert_equal 6 [xs_field [r xinfo stream s] entries-added]
    }

    test {XSETID errors} {
        r del s
        r xadd s 5-0 a 1
        r xadd s 6-0 b 2
        assert_error {ERR The ID specified in XSETID is smaller than the target stream top item} \
            {r xsetid s 5-0}
        assert_error {ERR no such key} {r xsetid nokey 1-1}
        assert_error {ERR The entries_added specified in XSETID is smaller than the target stream length} \
            {r xsetid s 10-0 entriesadded 1}
        assert_error {ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id} \
            {r xsetid s 10-0 entriesadded 5 maxdeletedid 11-0}
        assert_error {ERR entries_added must be positive} {r xsetid s 10-0 entriesadded -1}
        assert_error {ERR syntax error} {r xsetid s 10-0 foo}
        assert_error {ERR syntax error} {r xsetid s 10-0 entriesadded}
        assert_error {ERR value is not an integer or out of range} {r xsetid s 10-0 entriesadded x}
        assert_error {ERR Invalid stream ID specified as stream command argument} \
            {r xsetid s 10-0 maxdeletedid x}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xsetid s x}
        r set str x
        assert_error {WRONGTYPE *} {r xsetid str 1-0}
        r del str
        assert_equal 6-0 [xs_field [r xinfo stream s] last-generated-id]
    }

    test {XSETID on an emptied stream may go below the last id, not below the deleted max} {
        r del s
        r xadd s 5-0 a 1
        assert_equal 1 [r xdel s 5-0]
        assert_equal OK [r xsetid s 5-0]
        assert_equal OK [r xsetid s 10-0 entriesadded 0]
        assert_equal 0 [xs_field [r xinfo stream s] entries-added]
    }

    test {XINFO STREAM fields (Redis 7.0)} {
        r del s
        r xadd s 1-0 a 1
        r xadd s 2-0 b 2
        r xadd s 3-0 c 3
        r xdel s 2-0
        set info [r xinfo stream s]
        set keys {}
        foreach {k v} $info {lappend keys $k}
        assert_equal $keys [list length radix-tree-keys radix-tree-nodes last-generated-id \
            max-deleted-entry-id entries-added recorded-first-entry-id groups first-entry last-entry]
        assert_equal 2 [xs_field $info length]
        assert_equal 3-0 [xs_field $info last-generated-id]
        assert_equal 2-0 [xs_field $info max-deleted-entry-id]
        assert_equal 3 [xs_field $info entries-added]
        assert_equal 1-0 [xs_field $info recorded-first-entry-id]
        assert_equal 0 [xs_field $info groups]
        assert_equal {1-0 {a 1}} [xs_field $info first-entry]
        assert_equal {3-0 {c 3}} [xs_field $info last-entry]
        assert_morethan [xs_field $info radix-tree-keys] 0
        r xdel s 1-0
        assert_equal 3-0 [xs_field [r xinfo stream s] recorded-first-entry-id]
        r xdel s 3-0
        set info [r xinfo stream s]
        assert_equal 0-0 [xs_field $info recorded-first-entry-id]
        assert_equal {} [xs_field $info first-entry]
        assert_equal {} [xs_field $info last-entry]
    }

    test {XINFO STREAM FULL and its COUNT} {
        r del s
        for {set i 1} {$i <= 12} {incr i} {r xadd s $i-0 f $i}
        r xgroup create s g 0
        r xreadgroup group g alice count 1 streams s >
        set full [r xinfo stream s full]
        set keys {}
        foreach {k v} $full {lappend keys $k}
        assert_equal $keys [list length radix-tree-keys radix-tree-nodes last-generated-id \
            max-deleted-entry-id entries-added recorded-first-entry-id entries groups]
        # COUNT defaults to 10; 0 means every entry.
        assert_equal 10 [llength [xs_field $full entries]]
        assert_equal 3 [llength [xs_field [r xinfo stream s full count 3] entries]]
        assert_equal 12 [llength [xs_field [r xinfo stream s full count 0] entries]]
        assert_equal {1-0 {f 1}} [lindex [xs_field $full entries] 0]
        set groups [xs_field $full groups]
        assert_equal 1 [llength $groups]
        set g [lindex $groups 0]
        set gkeys {}
        foreach {k v} $g {lappend gkeys $k}
        assert_equal {name last-delivered-id entries-read lag pel-count pending consumers} $gkeys
        assert_equal g [xs_field $g name]
        assert_equal 1-0 [xs_field $g last-delivered-id]
        assert_equal 1 [xs_field $g entries-read]
        assert_equal 11 [xs_field $g lag]
        assert_equal 1 [xs_field $g pel-count]
        set pending [xs_field $g pending]
        assert_equal 1 [llength $pending]
        lassign [lindex $pending 0] pid powner pdelivery pcount
        assert_equal {1-0 alice 1} [list $pid $powner $pcount]
        assert_morethan $pdelivery 0
        set consumers [xs_field $g consumers]
        assert_equal 1 [llength $consumers]
        set c [lindex $consumers 0]
        set ckeys {}
        foreach {k v} $c {lappend ckeys $k}
        assert_equal {name seen-time pel-count pending} $ckeys
        assert_equal alice [xs_field $c name]
        assert_equal 1 [xs_field $c pel-count]
        assert_equal 1-0 [lindex [xs_field $c pending] 0 0]
        assert_equal 1 [lindex [xs_field $c pending] 0 2]
    }

    test {XINFO STREAM errors} {
        assert_error {ERR no such key} {r xinfo stream nokey}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.} \
            {r xinfo stream s foo}
        assert_error {ERR value is not an integer or out of range} {r xinfo stream s full count x}
        r set str x
        assert_error {WRONGTYPE *} {r xinfo stream str}
        r del str
    }

    test {A stream's TYPE, OBJECT ENCODING, MEMORY USAGE, COPY and DEBUG DIGEST-VALUE} {
        r del s s2
        r xadd s 1-0 a 1 b 2
        r xadd s 2-0 c 3
        r xgroup create s g 0
        assert_equal stream [r type s]
        assert_encoding stream s
        assert_morethan [r memory usage s] 0
        assert_equal 1 [r copy s s2]
        assert_equal [r debug digest-value s] [r debug digest-value s2]
        assert_equal [r xrange s - +] [r xrange s2 - +]
        assert_equal [r xinfo stream s full] [r xinfo stream s2 full]
        # The copy is independent.
        r xadd s2 3-0 d 4
        r xgroup destroy s2 g
        assert_equal 2 [r xlen s]
        assert_equal 1 [llength [r xinfo groups s]]
        assert_not_equal [r debug digest-value s] [r debug digest-value s2]
        # The digest follows the entries.
        r del s2
        r xadd s2 1-0 a 1 b 2
        assert_not_equal [r debug digest-value s] [r debug digest-value s2]
    }

    test {Keyspace notifications of XADD, XTRIM, XDEL and XSETID} {
        r config set notify-keyspace-events KEA
        r del s
        set sub [xs_subscriber]
        r xadd s maxlen 1 1-0 a 1
        r xadd s maxlen 1 2-0 a 2
        catch {r xadd s 1-0 a 1}
        r xadd s nomkstream 3-0 a 3
        r xadd nos nomkstream * a 1
        assert_equal 0 [r xdel s 99-0]
        assert_equal 1 [r xdel s 2-0]
        assert_equal 1 [r xtrim s maxlen 0]
        assert_equal 0 [r xtrim s maxlen 0]
        r xsetid s 10-0
        set db [srv 0 db]
        assert_equal {{xadd s} {xadd s} {xtrim s} {xadd s} {xdel s} {xtrim s} {xsetid s}} \
            [xs_events $sub]
        $sub close
        r config set notify-keyspace-events ""
    }

    test {Keyspace notifications of the consumer-group writes} {
        r config set notify-keyspace-events KEA
        r del s s2
        r xadd s 1-0 a 1
        set sub [xs_subscriber]
        r xgroup create s g $
        r xgroup create s2 g $ mkstream
        r xgroup setid s g 0
        assert_equal 1 [r xgroup createconsumer s g c1]
        assert_equal 0 [r xgroup createconsumer s g c1]
        r xreadgroup group g c2 streams s >
        r xack s g 1-0
        r xreadgroup group g c2 streams s 0
        r xgroup setid s g 0
        r xreadgroup group g c2 streams s >
        # XCLAIM of nothing pending makes no consumer; XAUTOCLAIM that claims makes one.
        r xclaim s g c3 0 0-1
        r xautoclaim s g c4 0 0
        r xgroup delconsumer s g c1
        r xgroup destroy s g
        r xgroup destroy s g
        assert_equal [xs_events $sub] [list {xgroup-create s} {xgroup-create s2} {xgroup-setid s} \
            {xgroup-createconsumer s} {xgroup-createconsumer s} {xgroup-setid s} \
            {xgroup-createconsumer s} {xgroup-delconsumer s} {xgroup-destroy s}]
        $sub close
        r config set notify-keyspace-events ""
    }

    test {Entries spread over many nodes with a small stream-node-max-entries} {
        r config set stream-node-max-entries 3
        xs_fill s 10
        assert_equal 4 [xs_field [r xinfo stream s] radix-tree-keys]
        assert_equal 10 [r xlen s]
        set want {}
        for {set i 1} {$i <= 10} {incr i} {lappend want $i-0}
        assert_equal $want [xs_ids [r xrange s - +]]
        assert_equal [lreverse $want] [xs_ids [r xrevrange s + -]]
        # Ranges that start and end inside nodes, across node boundaries.
        assert_equal {3-0 4-0 5-0 6-0 7-0} [xs_ids [r xrange s 3 7]]
        assert_equal {7-0 6-0 5-0 4-0 3-0} [xs_ids [r xrevrange s 7 3]]
        assert_equal {4-0 5-0} [xs_ids [r xrange s (3-0 + count 2]]
        assert_equal {{6-0 {f 6}}} [r xrange s 6 6]
        r config set stream-node-max-entries 100
    }

    test {XDEL emptying a middle node removes it; iteration skips the gap} {
        r config set stream-node-max-entries 3
        xs_fill s 10
        assert_equal 3 [r xdel s 4-0 5-0 6-0]
        assert_equal 3 [xs_field [r xinfo stream s] radix-tree-keys]
        assert_equal {1-0 2-0 3-0 7-0 8-0 9-0 10-0} [xs_ids [r xrange s - +]]
        assert_equal {10-0 9-0 8-0 7-0 3-0 2-0 1-0} [xs_ids [r xrevrange s + -]]
        assert_equal {3-0 7-0} [xs_ids [r xrange s 3 7]]
        assert_equal {} [r xrange s 4 6]
        # Deleting inside a node keeps it.
        assert_equal 2 [r xdel s 1-0 8-0]
        assert_equal 3 [xs_field [r xinfo stream s] radix-tree-keys]
        assert_equal {2-0 3-0 7-0 9-0 10-0} [xs_ids [r xrange s - +]]
        assert_equal {2-0 {f 2}} [xs_field [r xinfo stream s] first-entry]
        r config set stream-node-max-entries 100
    }

    test {Approximate trims remove whole nodes only; LIMIT bounds them; 0 means no limit} {
        r config set stream-node-max-entries 3
        xs_fill s 10
        # Nodes: 1..3 4..6 7..9 10. Removing a second node would leave fewer than 5.
        assert_equal 3 [r xtrim s maxlen ~ 5]
        assert_equal 7 [r xlen s]
        assert_equal 3 [r xtrim s minid ~ 9]
        assert_equal {7-0 8-0 9-0 10-0} [xs_ids [r xrange s - +]]
        assert_equal 2 [r xtrim s minid 9]
        assert_equal {9-0 10-0} [xs_ids [r xrange s - +]]

        xs_fill s 10
        assert_equal 3 [r xtrim s maxlen ~ 0 limit 3]
        assert_equal 0 [r xtrim s maxlen ~ 0 limit 2]
        assert_equal 7 [r xtrim s maxlen ~ 0 limit 0]
        assert_equal 0 [r xlen s]

        # The same through XADD: the trim runs after the append.
        xs_fill s 9
        r xadd s maxlen ~ 4 10-0 f 10
        assert_equal 4 [r xlen s]
        # Nodes: 7..9 10 11; 7..9 is all below 10 and within the limit.
        r xadd s minid ~ 10 limit 3 11-0 f 11
        assert_equal {10-0 11-0} [xs_ids [r xrange s - +]]
        r config set stream-node-max-entries 100
    }

    test {A small stream-node-max-bytes splits nodes too} {
        r config set stream-node-max-bytes 64
        r del s
        for {set i 1} {$i <= 20} {incr i} {
            r xadd s $i-0 field [string repeat x 20]
        }
        assert_morethan [xs_field [r xinfo stream s] radix-tree-keys] 1
        assert_equal 20 [llength [r xrange s - +]]
        assert_equal 20 [r xlen s]
        assert_equal [list 20-0 [list field [string repeat x 20]]] [lindex [r xrevrange s + - count 1] 0]
        r config set stream-node-max-bytes 4096
    }

    test {Entries with changing field sets and binary values read back exactly} {
        r config set stream-node-max-entries 4
        r del s
        set want {}
        for {set i 1} {$i <= 30} {incr i} {
            set fields {}
            for {set j 0} {$j < 1 + $i % 4} {incr j} {
                lappend fields [expr {$j % 2 ? "k$j" : "same"}] "v\x00$i\n$j"
            }
            # A number as a value, a long one, a negative one: stored however, read back alike.
            lappend fields n [expr {$i * 1000003 - 500}]
            r xadd s $i-$i {*}$fields
            lappend want [list $i-$i $fields]
        }
        assert_equal $want [r xrange s - +]
        assert_equal [lreverse $want] [r xrevrange s + -]
        r config set stream-node-max-entries 100
    }

    test {RESP3 shapes: XRANGE arrays, XINFO STREAM a map, NOMKSTREAM null} {
        r del s
        r xadd s 1-0 a 1
        set want [list *1 *2 {$3} 1-0 *2 {$1} a {$1} 1]
        assert_equal [xs_raw 3 xrange s - +] $want
        assert_equal [xs_raw 2 xrange s - +] $want
        assert_equal [xs_raw 3 xadd nos nomkstream * f v] [list _]
        assert_equal [xs_raw 2 xadd nos nomkstream * f v] [list {$-1}]
        assert_equal {%10} [lindex [xs_raw 3 xinfo stream s] 0]
        assert_equal {*20} [lindex [xs_raw 2 xinfo stream s] 0]
        assert_equal {%9} [lindex [xs_raw 3 xinfo stream s full] 0]
        assert_equal {:1} [xs_raw 3 xlen s]
    }
}
