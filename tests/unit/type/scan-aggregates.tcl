# HSCAN, SSCAN and ZSCAN: a packed encoding (listpack, intset) answers every
# element at once with cursor 0; a hashtable encoding is walked with a cursor
# that returns every element present for the whole iteration, even while the
# table grows; MATCH filters fields/members (dropping their values/scores);
# COUNT and cursor errors; TYPE is SCAN's alone; a missing key is an empty
# scan; scores read as Redis formats them.

# Runs a full HSCAN/SSCAN/ZSCAN of `key` and returns what it returned, as one
# flat list. Fails after `maxcalls` calls.
proc agg_scan_all {cmd key {extra {}} {maxcalls 100000}} {
    set cursor 0
    set items {}
    set calls 0
    while 1 {
        lassign [r $cmd $key $cursor {*}$extra] cursor batch
        lappend items {*}$batch
        incr calls
        if {$cursor == 0} break
        if {$calls >= $maxcalls} {fail "$cmd did not end after $maxcalls calls"}
    }
    return $items
}

# The distinct first halves of a flat field/value list, sorted.
proc agg_fields {pairs} {
    set out {}
    foreach {f v} $pairs {lappend out $f}
    return [lsort -unique $out]
}

start_server {tags {scan}} {
    test {HSCAN of a listpack hash answers every pair with cursor 0} {
        r del h
        r hset h a 1 b 2 c 3
        assert_encoding listpack h
        assert_equal {0 {a 1 b 2 c 3}} [r hscan h 0]
        # Cursor and COUNT do not matter for a packed value.
        assert_equal {0 {a 1 b 2 c 3}} [r hscan h 12345 count 1]
        assert_equal {0 {b 2}} [r hscan h 0 match b]
        assert_equal {0 {}} [r hscan h 0 match zz*]
    }

    test {SSCAN of an intset answers every member with cursor 0} {
        r del s
        r sadd s 3 1 2 100
        assert_encoding intset s
        lassign [r sscan s 0 count 1] cursor members
        assert_equal 0 $cursor
        assert_equal {1 2 3 100} [lsort -integer $members]
        lassign [r sscan s 0 match 1*] cursor members
        assert_equal {1 100} [lsort -integer $members]
    }

    test {ZSCAN of a listpack sorted set answers members and stored scores} {
        r del z
        r zadd z 1 a 2.5 b -3 c 0.1 d 4611686018427387904 e
        assert_encoding listpack z
        assert_equal {0 {c -3 d 0.10000000000000001 a 1 b 2.5 e 4611686018427387904}} \
            [r zscan z 0]
        assert_equal {0 {a 1}} [r zscan z 0 match a]
    }

    test {ZSCAN of a skiplist sorted set formats scores with 17 significant digits} {
        r del z
        r config set zset-max-listpack-entries 1
        r zadd z 4611686018427387904 big 0.1 tenth -0 zero 3 three inf up
        r config set zset-max-listpack-entries 128
        assert_encoding skiplist z
        set got [dict create {*}[agg_scan_all zscan z]]
        assert_equal 4.6116860184273879e+18 [dict get $got big]
        assert_equal 0.10000000000000001 [dict get $got tenth]
        assert_equal -0 [dict get $got zero]
        assert_equal 3 [dict get $got three]
        assert_equal inf [dict get $got up]
    }

    test {HSCAN walks a hashtable hash with a cursor and returns every field} {
        r del h
        set args {}
        for {set i 0} {$i < 1000} {incr i} {lappend args f$i v$i}
        r hset h {*}$args
        assert_encoding hashtable h
        set pairs [agg_scan_all hscan h]
        set fields [agg_fields $pairs]
        assert_equal 1000 [llength $fields]
        foreach {f v} $pairs {assert_equal v[string range $f 1 end] $v}
        # A COUNT below the size takes several calls.
        lassign [r hscan h 0 count 10] cursor batch
        assert {$cursor != 0}
        assert {[llength $batch] < 2000}
    }

    test {SSCAN walks a hashtable set and returns every member} {
        r del s
        set args {}
        for {set i 0} {$i < 1000} {incr i} {lappend args m$i}
        r sadd s {*}$args
        assert_encoding hashtable s
        set members [lsort -unique [agg_scan_all sscan s {count 7}]]
        assert_equal 1000 [llength $members]
        set matched [lsort -unique [agg_scan_all sscan s {match m99*}]]
        assert_equal {m99 m990 m991 m992 m993 m994 m995 m996 m997 m998 m999} $matched
    }

    test {ZSCAN walks a skiplist sorted set and returns every member} {
        r del z
        set args {}
        for {set i 0} {$i < 500} {incr i} {lappend args $i m$i}
        r zadd z {*}$args
        assert_encoding skiplist z
        set pairs [agg_scan_all zscan z {count 20}]
        assert_equal 500 [llength [agg_fields $pairs]]
        foreach {m s} $pairs {assert_equal m$s $m}
        set pairs [agg_scan_all zscan z {match m1?}]
        assert_equal {m10 m11 m12 m13 m14 m15 m16 m17 m18 m19} [agg_fields $pairs]
    }

    test {SSCAN returns every member present from start to end while the set grows} {
        r del s
        for {set i 0} {$i < 200} {incr i} {r sadd s old$i}
        set cursor 0
        set seen {}
        set added 0
        set calls 0
        while 1 {
            lassign [r sscan s $cursor count 5] cursor batch
            lappend seen {*}$batch
            # Grow the set between calls, through several rehashes.
            for {set j 0} {$j < 20} {incr j} {r sadd s new[incr added]}
            if {$cursor == 0} break
            if {[incr calls] > 10000} {fail "SSCAN did not end"}
        }
        set seen [lsort -unique $seen]
        for {set i 0} {$i < 200} {incr i} {
            assert {[lsearch -exact -sorted $seen old$i] >= 0} "old$i missing"
        }
    }

    test {Aggregate scans of a missing key are empty, of another type WRONGTYPE} {
        r del nokey str
        assert_equal {0 {}} [r hscan nokey 0]
        assert_equal {0 {}} [r sscan nokey 0]
        assert_equal {0 {}} [r zscan nokey 0]
        # A missing key answers before its options are read.
        assert_equal {0 {}} [r hscan nokey 0 count x]
        r set str x
        assert_error {WRONGTYPE*} {r hscan str 0}
        assert_error {WRONGTYPE*} {r sscan str 0}
        assert_error {WRONGTYPE*} {r zscan str 0}
        r sadd aset a
        assert_error {WRONGTYPE*} {r hscan aset 0}
        assert_error {WRONGTYPE*} {r zscan aset 0}
    }

    test {Aggregate scans check the cursor first, then the key, then the options} {
        r del h str
        r hset h a 1
        r set str x
        assert_error {ERR invalid cursor} {r hscan h x}
        assert_error {ERR invalid cursor} {r sscan nokey -x}
        assert_error {ERR invalid cursor} {r zscan str 1.5}
        assert_error {WRONGTYPE*} {r hscan str 0 count x}
        assert_error {ERR value is not an integer*} {r hscan h 0 count x}
        assert_error {ERR syntax error} {r hscan h 0 count 0}
        assert_error {ERR syntax error} {r hscan h 0 count -1}
        assert_error {ERR syntax error} {r hscan h 0 count}
        assert_error {ERR syntax error} {r hscan h 0 match}
        assert_error {ERR syntax error} {r hscan h 0 foo bar}
        # TYPE belongs to SCAN (HSCAN's NOVALUES, of Redis 7.4: tests/unit/newer-options.tcl).
        assert_error {ERR syntax error} {r hscan h 0 type hash}
        assert_error {ERR wrong number of arguments*} {r hscan h}
        assert_error {ERR wrong number of arguments*} {r sscan s}
        assert_error {ERR wrong number of arguments*} {r zscan z}
    }

    test {An aggregate cursor parses like SCAN's} {
        r del h
        r hset h a 1
        assert_equal {0 {a 1}} [r hscan h 18446744073709551615]
        assert_equal {0 {a 1}} [r hscan h -1]
        assert_error {ERR invalid cursor} {r hscan h 18446744073709551616}
    }

    test {SCAN TYPE still filters, its parsing now shared with the aggregate scans} {
        r flushdb
        r hset h a 1
        r sadd s a
        r set str x
        assert_equal {0 h} [r scan 0 type hash]
        assert_equal {0 s} [r scan 0 type set count 100]
        assert_error {ERR syntax error} {r scan 0 count 0}
        assert_error {ERR value is not an integer*} {r scan 0 count x}
    }
    # A page gathers COUNT fields or members before it stops (a field and its
    # value, a member and its score, count once), so every page but the last
    # holds at least COUNT of them whatever the table's size; a client paging
    # a sorted set with COUNT 50 gets 50 members a page, not 25.
    test {Every page but the last holds at least COUNT elements} {
        foreach {cmd sizes} {scan {200 1000 10000} sscan {200 1000 10000}
                             zscan {200 1000 10000} hscan {1000 10000}} {
            foreach n $sizes {
                r flushall
                for {set i 0} {$i < $n} {incr i 500} {
                    set args {}
                    for {set j $i} {$j < $i + 500 && $j < $n} {incr j} {
                        switch $cmd {
                            scan {lappend args key:$j v}
                            sscan {lappend args m:$j}
                            zscan {lappend args $j m:$j}
                            hscan {lappend args f:$j v}
                        }
                    }
                    switch $cmd {
                        scan {r mset {*}$args}
                        sscan {r sadd agg {*}$args}
                        zscan {r zadd agg {*}$args}
                        hscan {r hset agg {*}$args}
                    }
                }
                foreach count {10 50 100} {
                    set cursor 0
                    set seen {}
                    set pages 0
                    while 1 {
                        if {$cmd eq "scan"} {
                            lassign [r scan $cursor count $count] cursor batch
                            set got [llength $batch]
                        } else {
                            lassign [r $cmd agg $cursor count $count] cursor batch
                            set got [expr {$cmd eq "sscan" ? [llength $batch] : [llength $batch] / 2}]
                        }
                        if {$cmd eq "scan" || $cmd eq "sscan"} {
                            foreach m $batch {dict set seen $m 1}
                        } else {
                            foreach {m v} $batch {dict set seen $m 1}
                        }
                        incr pages
                        if {$cursor == 0} break
                        assert {$got >= $count}
                        if {$pages > $n} {fail "$cmd of $n did not end"}
                    }
                    assert_equal $n [dict size $seen] "$cmd n=$n count=$count"
                }
            }
        }
    }
}
