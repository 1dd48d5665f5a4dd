# SCAN and the per-type scans: the full-iteration guarantee (every key present
# from start to end is returned at least once, even while the table grows
# and shrinks), MATCH, COUNT, TYPE, termination at cursor 0, cursor errors.

# Runs a full SCAN with extra arguments and returns {keys calls}.  Gives up
# (failing the test) after maxcalls calls.
proc scan_all {{extra {}} {maxcalls 100000}} {
    set cursor 0
    set keys {}
    set calls 0
    while 1 {
        lassign [r scan $cursor {*}$extra] cursor batch
        lappend keys {*}$batch
        incr calls
        if {$cursor == 0} break
        if {$calls >= $maxcalls} {fail "SCAN did not end after $maxcalls calls"}
    }
    return [list $keys $calls]
}

start_server {tags {scan}} {
    test {SCAN on an empty database ends at once} {
        r flushdb
        assert_equal [r scan 0] {0 {}}
    }

    test {SCAN returns every key of a static keyspace} {
        r flushdb
        populate 1000 key:
        lassign [scan_all] keys calls
        assert_equal [llength [lsort -unique $keys]] 1000
        assert_morethan $calls 1 "1000 keys need more than one default SCAN call"
        foreach k [lrange [lsort -unique $keys] 0 4] {assert_match key:* $k}
    }

    test {SCAN with COUNT} {
        r flushdb
        populate 1000 key:
        foreach count {1 5 100 10000} {
            lassign [scan_all [list count $count]] keys calls
            assert_equal [llength [lsort -unique $keys]] 1000 "COUNT $count"
        }
        lassign [scan_all {count 10000}] keys calls
        assert_lessthan_equal $calls 5
    }

    test {SCAN with MATCH} {
        r flushdb
        populate 500 key:
        populate 500 other:
        lassign [scan_all {match key:1*}] keys calls
        set expected {}
        for {set i 0} {$i < 500} {incr i} {
            if {[string match 1* $i]} {lappend expected key:$i}
        }
        assert_equal [lsort -unique $keys] [lsort $expected]
        lassign [scan_all {match nomatch* count 100}] keys calls
        assert_equal $keys {}
    }

    test {SCAN with TYPE} {
        r flushdb
        for {set i 0} {$i < 100} {incr i} {
            r set s:$i v
            if {$i % 10 == 0} {
                r rpush l:$i a
                r hset h:$i f v
                r zadd z:$i 1 m
            }
        }
        foreach {type prefix count} {string s: 100 list l: 10 hash h: 10 zset z: 10} {
            lassign [scan_all [list type $type]] keys calls
            set keys [lsort -unique $keys]
            assert_equal [llength $keys] $count "TYPE $type"
            foreach k $keys {assert_match $prefix* $k}
        }
        lassign [scan_all {type set}] keys calls
        assert_equal $keys {}
        lassign [scan_all {type list match l:1*}] keys calls
        assert_equal [lsort $keys] {l:10}
    }

    test {SCAN guarantees hold while the keyspace grows and shrinks} {
        r flushdb
        populate 1000 stable:
        set cursor 0
        set seen {}
        set calls 0
        set grown 0
        while 1 {
            lassign [r scan $cursor count 20] cursor batch
            lappend seen {*}$batch
            incr calls
            # Grow the table a lot early on, then shrink it back.
            if {$calls == 3} {
                populate 5000 grow:
                set grown 1
            }
            if {$calls == 20} {
                set c [redis_deferring_client]
                for {set i 0} {$i < 5000} {incr i} {$c del grow:$i}
                for {set i 0} {$i < 5000} {incr i} {$c read}
                $c close
            }
            if {$cursor == 0} break
            if {$calls > 20000} {fail "SCAN did not terminate"}
        }
        assert_equal $grown 1
        set stable {}
        foreach k [lsort -unique $seen] {
            if {[string match stable:* $k]} {lappend stable $k}
        }
        assert_equal [llength $stable] 1000 "every stable key returned"
        assert_equal [r dbsize] 1000
    }

    test {SCAN cursor errors} {
        assert_error {ERR invalid cursor} {r scan abc}
        assert_error {ERR invalid cursor} {r scan 18446744073709551616}
        assert_error {ERR invalid cursor} {r scan 1.5}
        assert_error {ERR syntax error} {r scan 0 count 0}
        assert_error {ERR syntax error} {r scan 0 count -1}
        assert_error {ERR value is not an integer or out of range} {r scan 0 count abc}
        assert_error {ERR syntax error} {r scan 0 match}
        assert_error {ERR syntax error} {r scan 0 foo bar}
        assert_error {ERR wrong number of arguments for 'scan' command} {r scan}
    }

    test {SCAN's cursor ends at a NUL byte, as strtoul on a C string} {
        r flushdb
        r set k v
        assert_equal [lindex [r scan "\x00\xff"] 0] 0
        assert_equal [lindex [r scan 0 count 100] 1] k
        assert_equal [lindex [r scan "0\x00junk" count 100] 1] k
        assert_error {ERR invalid cursor} {r scan "+\x001"}
    }

    test {SCAN skips keys that have expired} {
        r flushdb
        r debug set-active-expire 0
        for {set i 0} {$i < 20} {incr i} {r set gone:$i v px 20}
        r set here v
        after 100
        lassign [scan_all] keys calls
        assert_equal $keys {here}
        r debug set-active-expire 1
    } {} {needs:debug}

    test {SSCAN, HSCAN and ZSCAN return small collections in one call} {
        r del s h z
        r sadd s a b c
        r hset h f1 v1 f2 v2
        r zadd z 1 a 2 b
        lassign [r sscan s 0] cursor items
        assert_equal $cursor 0
        assert_equal [lsort $items] {a b c}
        lassign [r hscan h 0] cursor items
        assert_equal $cursor 0
        assert_equal [dict get $items f1] v1
        assert_equal [dict get $items f2] v2
        lassign [r zscan z 0] cursor items
        assert_equal $cursor 0
        assert_equal $items {a 1 b 2}
        lassign [r hscan h 0 match f1] cursor items
        assert_equal $items {f1 v1}
    }

    test {SSCAN, HSCAN and ZSCAN iterate big collections completely} {
        r del s h z
        set members {}
        set pairs {}
        set zpairs {}
        for {set i 0} {$i < 1000} {incr i} {
            lappend members m$i
            lappend pairs f$i v$i
            lappend zpairs $i m$i
        }
        r sadd s {*}$members
        r hset h {*}$pairs
        r zadd z {*}$zpairs
        foreach {cmd key} {sscan s hscan h zscan z} {
            set cursor 0
            set got {}
            set calls 0
            while 1 {
                lassign [r $cmd $key $cursor count 50] cursor items
                lappend got {*}$items
                if {$cursor == 0 || [incr calls] > 10000} break
            }
            if {$cmd eq "sscan"} {
                assert_equal [llength [lsort -unique $got]] 1000
            } else {
                assert_equal [dict size $got] 1000 $cmd
                if {$cmd eq "hscan"} {assert_equal [dict get $got f7] v7}
                if {$cmd eq "zscan"} {assert_equal [dict get $got m7] 7}
            }
        }
        assert_error {ERR invalid cursor} {r sscan s abc}
        r set str v
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {
            r hscan str 0
        }
        assert_equal [r sscan nokey 0] {0 {}}
    }
}
