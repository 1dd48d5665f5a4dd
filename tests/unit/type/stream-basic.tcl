# Streams, the commands without consumer groups: XADD (ids, NOMKSTREAM, MAXLEN/MINID with = and
# ~, LIMIT), XLEN, XRANGE/XREVRANGE (-, +, exclusive ends, COUNT), XDEL, XTRIM, XSETID and
# XINFO STREAM/GROUPS/CONSUMERS/HELP: replies in RESP2 and RESP3, every error text and the order
# in which they are checked, the keyspace notifications, and XINFO's radix-tree figures for
# node layouts of several shapes. The XINFO tests that need groups read them through XGROUP and
# XREADGROUP.
#
# Every test passes against Redis 7.0 as well; the expected figures were read from it.

# A deferring client subscribed to every keyspace and keyevent channel of the test database.
proc xb_subscriber {} {
    set rd [redis_deferring_client]
    $rd psubscribe "__key*@[srv 0 db]__:*"
    $rd read
    return $rd
}

# The value of `field` in a flat field/value reply (RESP2 map).
proc xb_field {reply field} {
    return [dict get $reply $field]
}

start_server {tags {stream}} {
    # ---- XADD: ids ----------------------------------------------------------------------------

    test {XADD with explicit ids appends in order and replies the id} {
        r del s
        assert_equal 1-1 [r xadd s 1-1 a 1]
        assert_equal 1-2 [r xadd s 1-2 b 2 c 3]
        assert_equal 5-0 [r xadd s 5 d 4]
        assert_equal 3 [r xlen s]
        assert_equal {{1-1 {a 1}} {1-2 {b 2 c 3}} {5-0 {d 4}}} [r xrange s - +]
        assert_type stream s
        assert_encoding stream s
    }

    test {XADD * generates <ms>-<seq> ids that always grow} {
        r del s
        set a [r xadd s * f 1]
        set b [r xadd s * f 2]
        assert_match {[0-9]*-[0-9]*} $a
        lassign [split $a -] ams aseq
        lassign [split $b -] bms bseq
        assert {$bms > $ams || ($bms == $ams && $bseq == $aseq + 1)}
        # An explicit id far in the future makes * continue from it.
        r xadd s 99999999999999-5 f 3
        assert_equal 99999999999999-6 [r xadd s * f 4]
    }

    test {XADD <ms>-* takes the next sequence of that millisecond, or 0 for a new one} {
        r del s
        assert_equal 7-0 [r xadd s 7-* f 1]
        assert_equal 7-1 [r xadd s 7-* f 1]
        assert_equal 9-0 [r xadd s 9-* f 1]
        assert_error {*equal or smaller than the target stream top item*} {r xadd s 8-* f 1}
        r del s
        assert_equal 0-1 [r xadd s 0-* f 1]
    }

    test {XADD refuses 0-0 and ids not above the top item} {
        r del s
        assert_error {ERR The ID specified in XADD must be greater than 0-0} {r xadd s 0-0 f 1}
        assert_error {ERR The ID specified in XADD must be greater than 0-0} {r xadd s 0 f 1}
        assert_equal 0 [r exists s]
        r xadd s 5-5 f 1
        assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} {r xadd s 5-5 f 1}
        assert_error {*equal or smaller*} {r xadd s 5 f 1}
        assert_error {*equal or smaller*} {r xadd s 4-9 f 1}
        assert_equal 1 [r xlen s]
    }

    test {XADD at the largest id exhausts the stream} {
        r del s
        set max 18446744073709551615
        assert_equal $max-$max [r xadd s $max-$max f 1]
        assert_error {ERR The stream has exhausted the last possible ID, unable to add more items} {r xadd s * f 1}
        assert_error {*exhausted*} {r xadd s $max-* f 1}
        r del s
        assert_equal $max-0 [r xadd s $max-* f 1]
        assert_error {*equal or smaller*} {r xadd s 5-$max f 1}
    }

    test {XADD <ms>-* on a millisecond whose sequences are used up answers "too large"} {
        r del s
        r xadd s 10-18446744073709551615 f 1
        assert_error {ERR Elements are too large to be stored} {r xadd s 10-* f 1}
        assert_equal 11-0 [r xadd s 11-* f 1]
    }

    test {XADD id syntax: invalid forms are refused} {
        r del s
        r xadd s 5-1 f 1
        foreach id {abc - + (5 -5 5- 5-x 0-1-* 18446744073709551616 10-18446744073709551616} {
            assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s $id f 1}
        }
        assert_equal 1 [r xlen s]
    }

    test {XADD needs an even, nonzero number of field and value arguments} {
        r del s
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s * f}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s * f 1 g}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s nomkstream * f}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s maxlen 5}
        assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s maxlen ~}
        assert_equal 0 [r exists s]
    }

    test {XADD keeps duplicate fields and binary values} {
        r del s
        r xadd s 1-1 f 1 f 2 "a\x00b" "\xff"
        assert_equal [list [list 1-1 [list f 1 f 2 "a\x00b" "\xff"]]] [r xrange s - +]
    }

    test {XADD on a key of another type is WRONGTYPE, after the syntax checks} {
        r del str
        r set str x
        assert_error {WRONGTYPE*} {r xadd str * f 1}
        assert_error {WRONGTYPE*} {r xadd str nomkstream * f 1}
        assert_error {ERR wrong number of arguments*} {r xadd str * f}
        assert_error {ERR Invalid stream ID*} {r xadd str abc f 1}
    }

    test {XADD NOMKSTREAM replies nil and creates nothing on a missing key} {
        r del s
        assert_equal {} [r xadd s nomkstream * f 1]
        assert_equal {} [r xadd s nomkstream maxlen 5 * f 1]
        assert_equal 0 [r exists s]
        r xadd s 1-1 f 1
        assert_equal 1-2 [r xadd s NOMKSTREAM 1-2 f 2]
        assert_equal 2 [r xlen s]
    }

    test {XADD NOMKSTREAM's nil is a null bulk in RESP2 and _ in RESP3} {
        r del s
        set c [redis_client]
        $c readraw 1
        assert_equal {$-1} [$c xadd s nomkstream * f 1]
        $c readraw 0
        $c hello 3
        $c readraw 1
        assert_equal {_} [$c xadd s nomkstream * f 1]
        $c close
    }

    # ---- XADD and XTRIM: trimming -------------------------------------------------------------

    test {XADD/XTRIM option errors, in Redis's order} {
        r del s
        r xadd s 1-1 f 1
        foreach {args err} {
            {maxlen -1 * f 1} {ERR The MAXLEN argument must be >= 0.}
            {maxlen ~ -1 * f 1} {ERR The MAXLEN argument must be >= 0.}
            {maxlen abc * f 1} {ERR value is not an integer or out of range}
            {maxlen 1 limit 5 * f 1} {ERR syntax error, LIMIT cannot be used without the special ~ option}
            {limit 5 * f 1} {ERR syntax error, LIMIT cannot be used without specifying a trimming strategy}
            {limit 0 * f 1} {ERR syntax error, LIMIT cannot be used without the special ~ option}
            {maxlen ~ 5 limit -1 * f 1} {ERR The LIMIT argument must be >= 0.}
            {maxlen ~ 5 limit abc * f 1} {ERR value is not an integer or out of range}
            {maxlen 1 minid 5 * f 1} {ERR syntax error, MAXLEN and MINID options at the same time are not compatible}
            {maxlen 1 maxlen 2 * f 1} {ERR syntax error, MAXLEN and MINID options at the same time are not compatible}
            {minid 1 minid abc * f 1} {ERR syntax error, MAXLEN and MINID options at the same time are not compatible}
            {minid abc * f 1} {ERR Invalid stream ID specified as stream command argument}
            {minid - * f 1} {ERR Invalid stream ID specified as stream command argument}
            {MAXLEN 5 LiMit 3 * f 1} {ERR syntax error, LIMIT cannot be used without the special ~ option}
        } {
            assert_error $err {r xadd s {*}$args}
        }
        foreach {args err} {
            {maxlen -1} {ERR The MAXLEN argument must be >= 0.}
            {maxlen 1 limit 1} {ERR syntax error, LIMIT cannot be used without the special ~ option}
            {limit 5 maxlen} {ERR syntax error}
            {limit 0 limit 0} {ERR syntax error, XTRIM must be called with a trimming strategy}
            {limit 3 x} {ERR syntax error}
            {maxlen 1 extra} {ERR syntax error}
            {nomkstream maxlen 1} {ERR syntax error}
            {maxlen 5 maxlen abc} {ERR syntax error, MAXLEN and MINID options at the same time are not compatible}
        } {
            assert_error $err {r xtrim s {*}$args}
        }
        assert_error {ERR wrong number of arguments for 'xtrim' command} {r xtrim s maxlen}
        assert_equal 1 [r xlen s]
    }

    test {XTRIM parses its options before looking at the key} {
        r del nokey str
        r set str x
        assert_equal 0 [r xtrim nokey maxlen 5]
        assert_error {ERR value is not an integer*} {r xtrim nokey maxlen abc}
        assert_error {*without specifying a trimming strategy*} {r xtrim nokey limit 5 limit 5}
        assert_error {ERR value is not an integer*} {r xtrim str maxlen abc}
        assert_error {WRONGTYPE*} {r xtrim str maxlen 5}
    }

    test {Exact MAXLEN keeps the newest entries; MAXLEN 0 keeps an empty stream} {
        r del s
        for {set i 1} {$i <= 10} {incr i} {r xadd s maxlen 4 $i-1 f $i}
        assert_equal 4 [r xlen s]
        assert_equal {7-1 8-1 9-1 10-1} [lmap e [r xrange s - +] {lindex $e 0}]
        assert_equal 2 [r xtrim s maxlen 2]
        assert_equal 0 [r xtrim s MAXLEN = 2]
        assert_equal 2 [r xtrim s maxlen 0]
        assert_equal 0 [r xlen s]
        assert_equal 1 [r exists s]
        assert_equal 11-0 [r xadd s maxlen 0 11 f 1]
        assert_equal 0 [r xlen s]
        assert_equal 11-0 [xb_field [r xinfo stream s] last-generated-id]
    }

    test {Exact MINID evicts the entries below the id} {
        r del s
        for {set i 1} {$i <= 10} {incr i} {r xadd s $i-1 f $i}
        assert_equal 4 [r xtrim s minid 5]
        assert_equal 5-1 [lindex [r xrange s - + count 1] 0 0]
        assert_equal 2 [r xtrim s minid 6-2]
        assert_equal 0 [r xtrim s minid 0]
        assert_equal 11-1 [r xadd s minid 8 11-1 f 1]
        assert_equal 4 [r xlen s]
    }

    test {~ trimming removes whole nodes only, at most LIMIT entries} {
        r config set stream-node-max-entries 10
        r del s
        for {set i 1} {$i <= 101} {incr i} {r xadd s $i-1 f $i}
        # Nodes of 10: removing a node must leave at least the threshold.
        r xadd s maxlen ~ 55 200-1 f v
        assert_equal 62 [r xlen s]
        assert_equal 7 [xb_field [r xinfo stream s] radix-tree-keys]
        # LIMIT counts entries; a node that would pass it is kept.
        assert_equal 20 [r xtrim s maxlen ~ 0 limit 25]
        assert_equal 0 [r xtrim s maxlen ~ 0 limit 5]
        assert_equal 30 [r xtrim s minid ~ 95]
        assert_equal 12 [r xlen s]
        assert_equal 91-1 [lindex [r xrange s - + count 1] 0 0]
        assert_equal 4 [r xtrim s minid 95]
        assert_equal 95-1 [lindex [r xrange s - + count 1] 0 0]
        r config set stream-node-max-entries 100
    } {OK}

    test {~ trimming without LIMIT evicts at most 100 nodes' worth of entries} {
        r config set stream-node-max-entries 1
        r del s
        for {set i 1} {$i <= 150} {incr i} {r xadd s $i-1 f $i}
        # The default limit is 100 x stream-node-max-entries.
        assert_equal 100 [r xtrim s maxlen ~ 0]
        assert_equal 50 [r xlen s]
        assert_equal 50 [r xtrim s maxlen ~ 0]
        r config set stream-node-max-entries 100
    } {OK}

    # ---- XLEN, XRANGE, XREVRANGE --------------------------------------------------------------

    test {XLEN of a missing key is 0; of another type WRONGTYPE} {
        r del nokey str
        r set str x
        assert_equal 0 [r xlen nokey]
        assert_error {WRONGTYPE*} {r xlen str}
    }

    test {XRANGE and XREVRANGE with -, +, ids without sequence and COUNT} {
        r del s
        foreach id {1-1 2-1 2-2 3-1} {r xadd s $id f $id}
        set ids {}
        foreach e [r xrange s - +] {lappend ids [lindex $e 0]}
        assert_equal {1-1 2-1 2-2 3-1} $ids
        assert_equal {{2-1 {f 2-1}} {2-2 {f 2-2}}} [r xrange s 2 2]
        assert_equal {{3-1 {f 3-1}} {2-2 {f 2-2}} {2-1 {f 2-1}}} [r xrevrange s + 2]
        assert_equal {{1-1 {f 1-1}} {2-1 {f 2-1}}} [r xrange s - + COUNT 2]
        assert_equal {{3-1 {f 3-1}}} [r xrevrange s + - count 1]
        assert_equal {{1-1 {f 1-1}} {2-1 {f 2-1}}} [r xrange s - + count 1 count 2]
        assert_equal {} [r xrange s 3 2]
        assert_equal {} [r xrange s + -]
        assert_equal {} [r xrevrange s - +]
        assert_equal {{3-1 {f 3-1}}} [r xrange s "  3" +]
    }

    test {XRANGE exclusive ends with (} {
        r del s
        foreach id {1-1 2-1 2-2 3-1} {r xadd s $id f $id}
        assert_equal {{2-2 {f 2-2}} {3-1 {f 3-1}}} [r xrange s (2-1 +]
        assert_equal {{1-1 {f 1-1}} {2-1 {f 2-1}}} [r xrange s - (2-2]
        assert_equal {{2-1 {f 2-1}}} [r xrevrange s (2-2 (1-1]
        # (<ms> on the start side means after <ms>-0, on the end side before <ms>-max.
        assert_equal 4 [llength [r xrange s (0 +]]
        assert_equal {} [r xrange s - (0]
        assert_equal {} [r xrange s (3-1 +]
        foreach arg {( (- (+} {
            assert_error {ERR Invalid stream ID specified as stream command argument} {r xrange s $arg +}
        }
        assert_error {ERR Invalid stream ID*} {r xrange s - (+}
        assert_error {ERR invalid start ID for the interval} {r xrange s (18446744073709551615-18446744073709551615 +}
        assert_error {ERR invalid end ID for the interval} {r xrange s - (0-0}
        assert_error {ERR invalid end ID for the interval} {r xrevrange s (0-0 -}
        # XREVRANGE checks its start (the last argument) first.
        assert_error {ERR invalid start ID for the interval} {r xrevrange s abc (18446744073709551615-18446744073709551615}
    }

    test {XRANGE COUNT 0 or negative is a null array; a missing key an empty array} {
        r del s nokey
        r xadd s 1-1 f 1
        set c [redis_client]
        $c readraw 1
        assert_equal {*-1} [$c xrange s - + count 0]
        assert_equal {*-1} [$c xrevrange s + - count -5]
        assert_equal {*0} [$c xrange nokey - + count 0]
        assert_equal {*0} [$c xrange s 5 +]
        $c readraw 0
        $c hello 3
        $c readraw 1
        assert_equal {_} [$c xrange s - + count 0]
        $c close
    }

    test {XRANGE errors, in Redis's order: ids, then COUNT, then the key} {
        r del s nokey str
        r set str x
        r xadd s 1-1 f 1
        foreach id {-1 2- -2 2-1-1 2-x abc} {
            assert_error {ERR Invalid stream ID*} {r xrange s $id +}
        }
        assert_error {ERR syntax error} {r xrange s - + count}
        assert_error {ERR syntax error} {r xrange s - + foo 1}
        assert_error {ERR syntax error} {r xrange nokey - + foo}
        assert_error {ERR value is not an integer or out of range} {r xrange s - + count abc}
        assert_error {ERR value is not an integer*} {r xrange s - + count 99999999999999999999}
        assert_error {ERR Invalid stream ID*} {r xrange nokey foo +}
        assert_error {ERR Invalid stream ID*} {r xrange str foo +}
        assert_error {ERR value is not an integer*} {r xrange str - + count abc}
        assert_error {WRONGTYPE*} {r xrange str - + count 0}
        assert_equal {} [r xrange nokey - +]
    }

    test {XRANGE walks across many nodes both ways} {
        r config set stream-node-max-entries 3
        r del s
        for {set i 1} {$i <= 50} {incr i} {r xadd s $i-$i f $i}
        set fwd [lmap e [r xrange s - +] {lindex $e 1 1}]
        set rev [lmap e [r xrevrange s + -] {lindex $e 1 1}]
        assert_equal 50 [llength $fwd]
        assert_equal $fwd [lreverse $rev]
        assert_equal {20 21 22} [lmap e [r xrange s 20 + count 3] {lindex $e 1 1}]
        assert_equal {20 19 18} [lmap e [r xrevrange s 20-20 - count 3] {lindex $e 1 1}]
        r config set stream-node-max-entries 100
    } {OK}

    # ---- XDEL ---------------------------------------------------------------------------------

    test {XDEL counts the entries it deleted; the key stays when the last goes} {
        r del s
        foreach id {1-1 2-1 3-1} {r xadd s $id f 1}
        assert_equal 0 [r xdel s 3 9-9]
        assert_equal 1 [r xdel s 2-1 2-1]
        assert_equal 2 [r xlen s]
        assert_equal 2-1 [xb_field [r xinfo stream s] max-deleted-entry-id]
        assert_equal 2 [r xdel s 1-1 3-1]
        assert_equal 0 [r xlen s]
        assert_equal 1 [r exists s]
        assert_equal 3-1 [xb_field [r xinfo stream s] max-deleted-entry-id]
        assert_equal 3 [xb_field [r xinfo stream s] entries-added]
    }

    test {XDEL checks every id before deleting any; a missing key answers 0 first} {
        r del s nokey str
        r set str x
        r xadd s 1-1 f 1
        assert_error {ERR Invalid stream ID*} {r xdel s 1-1 abc}
        assert_error {ERR Invalid stream ID*} {r xdel s -}
        assert_error {ERR Invalid stream ID*} {r xdel s +}
        assert_equal 1 [r xlen s]
        assert_equal 0 [r xdel nokey abc]
        assert_error {WRONGTYPE*} {r xdel str abc}
        assert_error {ERR wrong number of arguments for 'xdel' command} {r xdel s}
    }

    # ---- XSETID -------------------------------------------------------------------------------

    test {XSETID sets the last id, entries added and the greatest deleted id} {
        r del s
        r xadd s 10-1 f 1
        r xadd s 11-1 f 1
        assert_equal OK [r xsetid s 12 entriesadded 5 maxdeletedid 11-1]
        set info [r xinfo stream s]
        assert_equal 12-0 [xb_field $info last-generated-id]
        assert_equal 5 [xb_field $info entries-added]
        assert_equal 11-1 [xb_field $info max-deleted-entry-id]
        assert_equal 12-1 [r xadd s 12-* f 1]
        # A MAXDELETEDID of 0-0 leaves the value as it was; the last one of a repeated option wins.
        r xsetid s 13 maxdeletedid 0-0 entriesadded 7 entriesadded 9
        set info [r xinfo stream s]
        assert_equal 11-1 [xb_field $info max-deleted-entry-id]
        assert_equal 9 [xb_field $info entries-added]
    }

    test {XSETID on an empty stream may move the last id back} {
        r del s
        r xadd s 5-1 f 1
        r xdel s 5-1
        assert_equal OK [r xsetid s 4-0]
        assert_equal OK [r xsetid s 6-0 maxdeletedid 5-5 entriesadded 0]
        set info [r xinfo stream s]
        assert_equal 6-0 [xb_field $info last-generated-id]
        assert_equal 5-5 [xb_field $info max-deleted-entry-id]
        assert_equal 0 [xb_field $info entries-added]
    }

    test {XSETID errors} {
        r del s nokey str
        r set str x
        r xadd s 10-1 f 1
        r xadd s 11-1 f 1
        assert_error {ERR no such key} {r xsetid nokey 1-1}
        assert_error {ERR no such key} {r xsetid nokey 5-5 entriesadded 3 maxdeletedid 1}
        assert_error {ERR Invalid stream ID*} {r xsetid nokey abc}
        assert_error {WRONGTYPE*} {r xsetid str 1}
        assert_error {ERR Invalid stream ID*} {r xsetid s -}
        assert_error {ERR Invalid stream ID*} {r xsetid s +}
        assert_error {ERR entries_added must be positive} {r xsetid s 12 entriesadded -1}
        assert_error {ERR value is not an integer or out of range} {r xsetid s 12 entriesadded abc}
        assert_error {ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id} {r xsetid s 12 maxdeletedid 13}
        assert_error {ERR Invalid stream ID*} {r xsetid s 12 maxdeletedid abc}
        assert_error {ERR syntax error} {r xsetid s 12 foo}
        assert_error {ERR syntax error} {r xsetid s 12 entriesadded}
        assert_error {ERR The ID specified in XSETID is smaller than the target stream top item} {r xsetid s 11-0}
        assert_error {ERR The entries_added specified in XSETID is smaller than the target stream length} {r xsetid s 11-1 entriesadded 1}
        assert_equal OK [r xsetid s 11-1 entriesadded 2]
    }

    # ---- XINFO --------------------------------------------------------------------------------

    test {XINFO STREAM: 7.0's fields in 7.0's order} {
        r del s
        r xadd s 1-1 a 1 b 2
        r xadd s 2-1 a 1 b 2
        r xadd s 3-1 c 3
        r xdel s 2-1
        assert_equal {length 2 radix-tree-keys 1 radix-tree-nodes 2 last-generated-id 3-1 max-deleted-entry-id 2-1 entries-added 3 recorded-first-entry-id 1-1 groups 0 first-entry {1-1 {a 1 b 2}} last-entry {3-1 {c 3}}} [r xinfo stream s]
    }

    test {XINFO STREAM FULL: entries up to COUNT (default and negative 10, 0 for all)} {
        r del s
        for {set i 1} {$i <= 12} {incr i} {r xadd s $i-0 f $i}
        set full [r xinfo stream s full]
        assert_equal {length radix-tree-keys radix-tree-nodes last-generated-id max-deleted-entry-id entries-added recorded-first-entry-id entries groups} [dict keys $full]
        assert_equal 10 [llength [dict get $full entries]]
        assert_equal {} [dict get $full groups]
        assert_equal 3 [llength [dict get [r xinfo stream s full count 3] entries]]
        assert_equal 12 [llength [dict get [r xinfo stream s full count 0] entries]]
        # A negative COUNT means the default.
        assert_equal 10 [llength [dict get [r xinfo stream s FULL COUNT -1] entries]]
    }

    test {XINFO STREAM of an empty stream: nil edge entries, 0-0 first id, one rax node} {
        r del s
        r xadd s 5-1 f 1
        r xdel s 5-1
        assert_equal {length 0 radix-tree-keys 0 radix-tree-nodes 1 last-generated-id 5-1 max-deleted-entry-id 5-1 entries-added 1 recorded-first-entry-id 0-0 groups 0 first-entry {} last-entry {}} [r xinfo stream s]
        assert_equal {length 0 radix-tree-keys 0 radix-tree-nodes 1 last-generated-id 5-1 max-deleted-entry-id 5-1 entries-added 1 recorded-first-entry-id 0-0 entries {} groups {}} [r xinfo stream s full]
    }

    test {XINFO STREAM radix-tree figures follow Redis's rax for several node layouts} {
        r config set stream-node-max-entries 10
        r del a b c
        for {set i 1} {$i <= 101} {incr i} {r xadd a $i-1 f $i}
        r xadd a maxlen ~ 55 200-1 f v
        assert_equal {7 16} [list [xb_field [r xinfo stream a] radix-tree-keys] [xb_field [r xinfo stream a] radix-tree-nodes]]
        for {set i 1} {$i <= 1000} {incr i} {r xadd b [expr {$i * 1000}]-$i f $i}
        r xdel b 1000-1 2000-2 500000-500
        assert_equal {100 217} [list [xb_field [r xinfo stream b] radix-tree-keys] [xb_field [r xinfo stream b] radix-tree-nodes]]
        r config set stream-node-max-entries 1
        for {set i 1} {$i <= 300} {incr i} {r xadd c [expr {$i * 7919}]-[expr {$i * $i}] f $i}
        assert_equal {300 639} [list [xb_field [r xinfo stream c] radix-tree-keys] [xb_field [r xinfo stream c] radix-tree-nodes]]
        r config set stream-node-max-entries 100
    } {OK}

    test {XINFO STREAM is a map in RESP3} {
        r del s
        r xadd s 1-1 f 1
        r hello 3
        set info [r xinfo stream s]
        assert_equal 1 [dict get $info length]
        assert_equal {1-1 {f 1}} [dict get $info first-entry]
        r hello 2
        assert_equal 1 [dict get [r xinfo stream s] length]
    }

    test {XINFO errors: the key is looked up before the other arguments are checked} {
        r del s nokey str
        r set str x
        r xadd s 1-1 f 1
        assert_error {ERR wrong number of arguments for 'xinfo' command} {r xinfo}
        assert_error {ERR unknown subcommand 'foo'. Try XINFO HELP.} {r xinfo foo}
        assert_error {ERR wrong number of arguments for 'xinfo|stream' command} {r xinfo stream}
        assert_error {ERR wrong number of arguments for 'xinfo|groups' command} {r xinfo groups s x}
        assert_error {ERR no such key} {r xinfo stream nokey}
        assert_error {ERR no such key} {r xinfo stream nokey foo}
        assert_error {ERR no such key} {r xinfo groups nokey}
        assert_error {ERR no such key} {r xinfo consumers nokey g}
        assert_error {WRONGTYPE*} {r xinfo stream str}
        assert_error {WRONGTYPE*} {r xinfo stream str full count x}
        assert_error {NOGROUP No such consumer group 'g' for key name 's'} {r xinfo consumers s g}
        foreach args {{foo} {full count} {full foo 1} {full count 1 count 2}} {
            assert_error {ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.} {r xinfo stream s {*}$args}
        }
        assert_error {*for 'STREAM'. Try XINFO HELP.} {r xinfo STREAM s FULL x}
        assert_error {ERR value is not an integer or out of range} {r xinfo stream s full count abc}
        assert_equal {} [r xinfo groups s]
    }

    test {XINFO HELP} {
        set help [r xinfo help]
        assert_match {XINFO <subcommand> *} [lindex $help 0]
        assert_equal {CONSUMERS <key> <groupname>} [lindex $help 1]
        assert_equal {STREAM <key> [FULL [COUNT <count>]} [lindex $help 5]
        assert_equal HELP [lindex $help 7]
        assert_equal 9 [llength $help]
    }

    test {XINFO GROUPS, CONSUMERS and STREAM FULL describe groups, PELs and consumers} {
        r del s
        r xadd s 1-1 a 1
        r xadd s 2-1 b 2
        r xadd s 3-1 c 3
        r xgroup create s g1 0
        r xgroup create s g0 $
        r xreadgroup group g1 alice count 2 streams s >
        r xgroup createconsumer s g1 bob
        set groups [r xinfo groups s]
        assert_equal {name g0 consumers 0 pending 0 last-delivered-id 3-1 entries-read {} lag 0} [lindex $groups 0]
        assert_equal {name g1 consumers 2 pending 2 last-delivered-id 2-1 entries-read 2 lag 1} [lindex $groups 1]
        set consumers [r xinfo consumers s g1]
        assert_equal {name pending idle} [dict keys [lindex $consumers 0]]
        assert_equal {alice 2 bob 0} [concat {*}[lmap c $consumers {list [dict get $c name] [dict get $c pending]}]]
        assert {[dict get [lindex $consumers 0] idle] >= 0}
        set full [r xinfo stream s full count 1]
        set g1 [lindex [dict get $full groups] 1]
        assert_equal {name last-delivered-id entries-read lag pel-count pending consumers} [dict keys $g1]
        assert_equal 2 [dict get $g1 pel-count]
        assert_equal 1 [llength [dict get $g1 pending]]
        assert_equal {1-1 alice} [lrange [lindex [dict get $g1 pending] 0] 0 1]
        set alice [lindex [dict get $g1 consumers] 0]
        assert_equal {name seen-time pel-count pending} [dict keys $alice]
        assert_equal 2 [dict get $alice pel-count]
        assert_equal 1 [llength [dict get $alice pending]]
        assert_equal 1-1 [lindex [dict get $alice pending] 0 0]
        assert_equal 1 [lindex [dict get $alice pending] 0 2]
    }

    # ---- notifications ------------------------------------------------------------------------

    test {Notifications: xadd, then xtrim only when something was evicted; xdel; xsetid} {
        r config set notify-keyspace-events Et
        r del s
        set rd [xb_subscriber]
        r xadd s 1-1 f 1
        r xadd s maxlen 5 2-1 f 1
        r xadd s maxlen 1 3-1 f 1
        r xtrim s maxlen 1
        r xtrim s maxlen 0
        r xdel s 9-9
        r xadd s 4-1 f 1
        r xdel s 4-1
        r xsetid s 5-0
        catch {r xadd s 1-1 f 1}
        r xadd s nomkstream 6-1 f 1
        r xadd nokey nomkstream * f 1
        set expected {}
        foreach ev {xadd xadd xadd xtrim xtrim xadd xdel xsetid xadd} {
            lappend expected __keyevent@[srv 0 db]__:$ev
        }
        set got {}
        $rd ping
        for {set i 0} {$i < 100} {incr i} {
            set m [$rd read]
            if {$m eq "PONG" || [lindex $m 0] eq "pong"} break
            if {[lindex $m 0] eq "pmessage" && [string match {__keyevent*} [lindex $m 2]]} {
                lappend got [lindex $m 2]
                assert_equal s [lindex $m 3]
            }
        }
        assert_equal $expected $got
        $rd close
        r config set notify-keyspace-events ""
    } {OK}

    # ---- commands table -----------------------------------------------------------------------

    test {COMMAND INFO of the stream commands} {
        assert_equal [list xadd -5 {write denyoom fast} 1 1 1] [lrange [lindex [r command info xadd] 0] 0 5]
        assert_equal [list xtrim -4 write 1 1 1] [lrange [lindex [r command info xtrim] 0] 0 5]
        assert_equal [list xrange -4 readonly 1 1 1] [lrange [lindex [r command info xrange] 0] 0 5]
        assert_equal [list xsetid -3 {write denyoom fast} 1 1 1] [lrange [lindex [r command info xsetid] 0] 0 5]
    }
}
