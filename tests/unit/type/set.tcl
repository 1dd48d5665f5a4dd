# Set family: SADD SREM SMEMBERS SISMEMBER SMISMEMBER SCARD SPOP SRANDMEMBER SMOVE and the
# algebra SINTER SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE — replies in
# RESP2 and RESP3, the intset/hashtable encodings and their conversions (CONFIG SET of
# set-max-intset-entries included), every error text and argument order, WRONGTYPE, empty-key
# deletion, MULTI/WATCH invalidation, fair and duplicate-free random picks (chi-square bounds
# as Redis's own tests use), and, tagged redistp, WATCHEX ADD/DEL on creation and emptying.

# Pearson's chi-square statistic of a list of drawn members against a uniform expectation
# over the distinct members seen.
proc set_chi_square {drawn} {
    array set count {}
    foreach m $drawn {incr count($m)}
    set expected [expr {double([llength $drawn]) / [array size count]}]
    set chi 0.0
    foreach m [array names count] {
        set d [expr {$count($m) - $expected}]
        set chi [expr {$chi + $d * $d / $expected}]
    }
    return $chi
}

# Reads one RESP3 reply header and the bulk strings it announces, in raw mode.
proc set_read_raw_aggregate {rd} {
    set header [$rd read]
    set n [string range $header 1 end]
    set items {}
    for {set i 0} {$i < $n} {incr i} {
        set line [$rd read]
        if {[string index $line 0] eq {$}} {lappend items [$rd read]} else {lappend items $line}
    }
    return [list [string index $header 0] [lsort $items]]
}

start_server {tags {set}} {
    # ---- SADD, SMEMBERS, SCARD, SISMEMBER, SMISMEMBER -------------------------------------

    test {SADD counts new members only, SMEMBERS and SCARD see them} {
        r del s
        assert_equal 3 [r sadd s a b c]
        assert_equal 1 [r sadd s c d]
        assert_equal 0 [r sadd s a a b]
        assert_equal 2 [r sadd s e e f]
        assert_equal {a b c d e f} [lsort [r smembers s]]
        assert_equal 6 [r scard s]
        assert_equal set [r type s]
    }

    test {SISMEMBER and SMISMEMBER on members, non-members and a missing key} {
        r del s
        r sadd s a 5
        assert_equal 1 [r sismember s a]
        assert_equal 1 [r sismember s 5]
        assert_equal 0 [r sismember s b]
        assert_equal 0 [r sismember nokey a]
        assert_equal {1 0 1 1} [r smismember s a b 5 a]
        assert_equal {0 0} [r smismember nokey a b]
    }

    test {SMEMBERS and SCARD of a missing key} {
        assert_equal {} [r smembers nokey]
        assert_equal 0 [r scard nokey]
    }

    test {Members are binary safe} {
        r del s
        set weird "a\x00b\r\n\xff"
        assert_equal 2 [r sadd s $weird ""]
        assert_equal 1 [r sismember s $weird]
        assert_equal 1 [r sismember s ""]
        assert_equal 0 [r sismember s "a"]
        assert_equal [lsort [list $weird ""]] [lsort [r smembers s]]
    }

    # ---- encodings ----------------------------------------------------------------------

    test {A set of integers is an intset, SMEMBERS answers them sorted} {
        r del s
        r sadd s 17 -3 5 9223372036854775807 -9223372036854775808 0
        assert_encoding intset s
        assert_equal {-9223372036854775808 -3 0 5 17 9223372036854775807} [r smembers s]
        assert_equal 1 [r sismember s -3]
        assert_equal 0 [r sismember s -03]
    }

    test {Non-canonical integers and strings make a hashtable} {
        foreach m {a 007 +1 -0 " 1" 1.0 9223372036854775808 0x10} {
            r del s
            r sadd s $m
            assert_encoding hashtable s
            assert_equal [list $m] [r smembers s]
        }
    }

    test {An intset converts to a hashtable on a non-integer and never back} {
        r del s
        r sadd s 1 2 3
        assert_encoding intset s
        r sadd s x
        assert_encoding hashtable s
        assert_equal {1 2 3 x} [lsort [r smembers s]]
        r srem s x
        assert_encoding hashtable s
        assert_equal 1 [r sismember s 2]
    }

    test {An intset converts past set-max-intset-entries, read at each change} {
        set old [lindex [r config get set-max-intset-entries] 1]
        r config set set-max-intset-entries 4
        r del s t
        r sadd s 1 2 3 4
        assert_encoding intset s
        r sadd s 4
        assert_encoding intset s
        r sadd s 5
        assert_encoding hashtable s
        assert_equal 5 [r scard s]
        # One SADD that crosses the limit converts too.
        r sadd t 1 2 3 4 5 6
        assert_encoding hashtable t
        # Raising the limit at run time lets a new set grow further as an intset.
        r config set set-max-intset-entries 10
        r del t
        r sadd t 1 2 3 4 5 6
        assert_encoding intset t
        r config set set-max-intset-entries $old
    } {} {needs:config}

    test {A big set of integers is a hashtable and answers every membership} {
        r del s
        set members {}
        for {set i 0} {$i < 1000} {incr i} {lappend members $i}
        r sadd s {*}$members
        assert_encoding hashtable s
        assert_equal 1000 [r scard s]
        assert_equal 1 [r sismember s 999]
        assert_equal 0 [r sismember s 1000]
    }

    # ---- SREM ---------------------------------------------------------------------------

    test {SREM counts removed members and deletes the emptied key} {
        foreach {enc members} {intset {1 2 3} hashtable {a b c}} {
            r del s
            r sadd s {*}$members
            assert_encoding $enc s
            assert_equal 0 [r srem s nope 42 x]
            assert_equal 1 [r srem s [lindex $members 0] [lindex $members 0]]
            assert_equal [lrange $members 1 end] [lsort [r smembers s]]
            assert_equal 2 [r srem s {*}[lrange $members 1 end] nope]
            assert_equal 0 [r exists s] "$enc: the emptied set is deleted"
            assert_equal 0 [r srem s a]
        }
    }

    test {SREM of a non-integer from an intset changes nothing} {
        r del s
        r sadd s 1 2
        assert_equal 0 [r srem s a 1.0 01]
        assert_encoding intset s
        assert_equal {1 2} [r smembers s]
    }

    # ---- errors ---------------------------------------------------------------------------

    test {Every set command answers WRONGTYPE on a string key} {
        r del s
        r set str v
        r sadd s a
        foreach cmd {
            {sadd str a} {srem str a} {smembers str} {sismember str a} {smismember str a}
            {scard str} {spop str} {spop str 2} {spop str 0} {srandmember str}
            {srandmember str 2} {srandmember str 0} {smove str s a} {smove s str a}
            {sinter str} {sinter s str} {sinterstore d str} {sintercard 1 str}
            {sunion s str} {sunionstore d s str} {sdiff s str} {sdiff str s}
            {sdiffstore d s str}
        } {
            assert_error {WRONGTYPE*} {r {*}$cmd} $cmd
        }
        assert_equal v [r get str]
        assert_equal {a} [r smembers s]
    }

    test {A missing key before a wrong-type key still answers WRONGTYPE} {
        r set str v
        r del d
        assert_error {WRONGTYPE*} {r sinter nokey str}
        assert_error {WRONGTYPE*} {r sintercard 2 nokey str}
        assert_error {WRONGTYPE*} {r sinterstore d nokey str}
        assert_error {WRONGTYPE*} {r sdiff nokey str}
        assert_error {WRONGTYPE*} {r sunion nokey str}
        assert_equal 0 [r exists d]
    }

    test {Wrong arity of every set command} {
        foreach cmd {
            {sadd s} {srem s} {smembers} {smembers s t} {sismember s} {sismember s a b}
            {smismember s} {scard} {scard s t} {spop} {srandmember} {smove s d}
            {smove s d a b} {sinter} {sintercard 1} {sinterstore d} {sunion} {sunionstore d}
            {sdiff} {sdiffstore d}
        } {
            set name [lindex $cmd 0]
            assert_error "ERR wrong number of arguments for '$name' command" {r {*}$cmd} $cmd
        }
    }

    # ---- SPOP -----------------------------------------------------------------------------

    test {SPOP removes and returns one member until the set is gone} {
        foreach {enc members} {intset {1 2 3 4 5} hashtable {a b c d e}} {
            r del s
            r sadd s {*}$members
            assert_encoding $enc s
            set popped {}
            for {set i 0} {$i < 5} {incr i} {lappend popped [r spop s]}
            assert_equal $members [lsort $popped]
            assert_equal 0 [r exists s]
            assert_equal {} [r spop s]
        }
    }

    test {SPOP with a count returns distinct members and leaves the rest} {
        foreach {enc prefix} {intset "" hashtable m} {
            foreach count {1 3 10 25 29} {
                r del s
                set members {}
                for {set i 0} {$i < 30} {incr i} {lappend members $prefix$i}
                r sadd s {*}$members
                assert_encoding $enc s
                set popped [r spop s $count]
                assert_equal $count [llength $popped]
                assert_equal $count [llength [lsort -unique $popped]] "$enc $count: distinct"
                set rest [r smembers s]
                assert_equal [expr {30 - $count}] [llength $rest]
                assert_equal [lsort $members] [lsort [concat $popped $rest]]
            }
        }
    }

    test {SPOP with a count of the set's size or more takes it all and deletes the key} {
        foreach members {{1 2 3} {a b c}} {
            foreach count {3 4 1000} {
                r del s
                r sadd s {*}$members
                assert_equal $members [lsort [r spop s $count]]
                assert_equal 0 [r exists s]
            }
        }
    }

    test {SPOP with count 0 or on a missing key returns an empty set} {
        r del s
        r sadd s a b
        assert_equal {} [r spop s 0]
        assert_equal 2 [r scard s]
        assert_equal {} [r spop nokey 0]
        assert_equal {} [r spop nokey 5]
        assert_equal 0 [r exists nokey]
    }

    test {SPOP count errors, checked before the key} {
        r del s
        r set str v
        r sadd s a
        assert_error {ERR value is out of range, must be positive} {r spop s -1}
        assert_error {ERR value is out of range, must be positive} {r spop s a}
        assert_error {ERR value is out of range, must be positive} {r spop s 1.5}
        assert_error {ERR value is out of range, must be positive} {r spop str -1}
        assert_error {WRONGTYPE*} {r spop str 0}
        assert_error {ERR syntax error} {r spop s 1 2}
        assert_equal {a} [r smembers s]
    }

    test {SPOP of a big set pops every member exactly once} {
        r del s
        set members {}
        for {set i 0} {$i < 500} {incr i} {lappend members m$i}
        r sadd s {*}$members
        set popped {}
        while {[r scard s] > 0} {lappend popped {*}[r spop s 37]}
        assert_equal [lsort $members] [lsort $popped]
        assert_equal 0 [r exists s]
    }

    # ---- SRANDMEMBER ----------------------------------------------------------------------

    test {SRANDMEMBER without a count returns a member and changes nothing} {
        foreach members {{1 2 3} {a b c}} {
            r del s
            r sadd s {*}$members
            for {set i 0} {$i < 20} {incr i} {
                assert {[lsearch -exact $members [r srandmember s]] >= 0}
            }
            assert_equal 3 [r scard s]
        }
        assert_equal {} [r srandmember nokey]
    }

    test {SRANDMEMBER with a positive count never repeats a member} {
        foreach {enc prefix} {intset "" hashtable m} {
            r del s
            set members {}
            for {set i 0} {$i < 40} {incr i} {lappend members $prefix$i}
            r sadd s {*}$members
            assert_encoding $enc s
            foreach count {1 5 13 14 30 39} {
                set got [r srandmember s $count]
                assert_equal $count [llength $got]
                assert_equal $count [llength [lsort -unique $got]] "$enc $count: distinct"
                foreach m $got {assert {[lsearch -exact $members $m] >= 0}}
            }
            # The whole set for a count of its size or more.
            foreach count {40 41 1000} {
                assert_equal [lsort $members] [lsort [r srandmember s $count]]
            }
            assert_equal 40 [r scard s]
        }
    }

    test {SRANDMEMBER with a negative count returns that many picks, repeats allowed} {
        r del s
        r sadd s a b c
        set got [r srandmember s -100]
        assert_equal 100 [llength $got]
        assert_equal {a b c} [lsort -unique $got]
        r del s
        r sadd s only
        assert_equal {only only only} [r srandmember s -3]
    }

    test {SRANDMEMBER with count 0, or with a count on a missing key, is empty} {
        r del s
        r sadd s a
        assert_equal {} [r srandmember s 0]
        assert_equal {} [r srandmember nokey 5]
        assert_equal {} [r srandmember nokey -5]
    }

    test {SRANDMEMBER count errors} {
        r sadd s a
        assert_error {ERR value is not an integer or out of range} {r srandmember s a}
        assert_error {ERR value is not an integer or out of range} {r srandmember s 1.5}
        assert_error {ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807} {r srandmember s -9223372036854775808}
        assert_error {ERR value is not an integer or out of range} {r srandmember nokey x}
        assert_error {ERR syntax error} {r srandmember s 1 2}
    }

    # The bound 40 for 9 degrees of freedom is passed by a fair sampler with probability
    # 1 - 1e-5 per check, as in Redis's own histogram tests.
    foreach {enc members} {
        intset {1 2 3 4 5 6 7 8 9 10}
        hashtable {a b c d e f g h i j}
    } {
        test "SRANDMEMBER histogram distribution - $enc" {
            r del s
            r sadd s {*}$members
            assert_encoding $enc s
            # Independent picks.
            assert_lessthan [set_chi_square [r srandmember s -1000]] 40
            # Distinct picks: both of Redis's strategies (a large and a small share).
            foreach size {8 2} {
                set all {}
                for {set i 0} {$i < 1000 / $size} {incr i} {
                    lappend all {*}[r srandmember s $size]
                }
                assert_lessthan [set_chi_square $all] 40
            }
        }

        test "SPOP distribution - $enc" {
            # Which member the first SPOP of a fresh copy takes, over many copies.
            set first {}
            for {set i 0} {$i < 500} {incr i} {
                r del s
                r sadd s {*}$members
                lappend first [r spop s]
            }
            assert_lessthan [set_chi_square $first] 40
        }
    }

    test {SRANDMEMBER of a big hashtable reaches every member} {
        r del s
        set members {}
        for {set i 0} {$i < 200} {incr i} {lappend members m$i}
        r sadd s {*}$members
        set seen [lsort -unique [r srandmember s -5000]]
        assert_equal [lsort $members] $seen
    }

    # ---- SMOVE ----------------------------------------------------------------------------

    test {SMOVE moves a member, creating the destination with the member's encoding} {
        r del src dst
        r sadd src 1 2 a
        assert_equal 1 [r smove src dst 1]
        assert_encoding intset dst
        assert_equal {1} [r smembers dst]
        assert_equal 1 [r smove src dst a]
        assert_encoding hashtable dst
        assert_equal {1 a} [lsort [r smembers dst]]
        assert_equal {2} [r smembers src]
    }

    test {SMOVE of a missing member or from a missing key answers 0 and changes nothing} {
        r del src dst
        r sadd src a
        assert_equal 0 [r smove src dst nope]
        assert_equal 0 [r exists dst]
        assert_equal 0 [r smove nokey dst a]
        assert_equal 0 [r exists dst]
        assert_equal {a} [r smembers src]
    }

    test {SMOVE from a missing key answers 0 even when the destination has another type} {
        r set str v
        assert_equal 0 [r smove nokey str a]
        r sadd src a
        assert_error {WRONGTYPE*} {r smove src str a}
        assert_error {WRONGTYPE*} {r smove str src a}
        assert_equal {a} [r smembers src]
    }

    test {SMOVE of a member the destination already has removes it from the source} {
        r del src dst
        r sadd src a b
        r sadd dst a
        assert_equal 1 [r smove src dst a]
        assert_equal {b} [r smembers src]
        assert_equal {a} [r smembers dst]
    }

    test {SMOVE of the last member deletes the source} {
        r del src dst
        r sadd src x
        r sadd dst y
        assert_equal 1 [r smove src dst x]
        assert_equal 0 [r exists src]
        assert_equal {x y} [lsort [r smembers dst]]
    }

    test {SMOVE within one key answers whether the member is there} {
        r del s
        r sadd s a b
        assert_equal 1 [r smove s s a]
        assert_equal 0 [r smove s s c]
        assert_equal {a b} [lsort [r smembers s]]
    }

    test {SMOVE into an intset converts it like SADD} {
        r del src dst
        r sadd src x
        r sadd dst 1 2
        r smove src dst x
        assert_encoding hashtable dst
    }

    # ---- SINTER, SINTERCARD, SINTERSTORE ----------------------------------------------------

    foreach {enc a b} {
        intset {1 2 3 4 5 6} {4 5 6 7 8}
        hashtable {a b c d e 1} {d e 1 x y}
    } {
        test "SINTER, SUNION and SDIFF of two sets - $enc" {
            r del a b c
            r sadd a {*}$a
            r sadd b {*}$b
            assert_encoding $enc a
            set inter [lsort [r sinter a b]]
            set union [lsort [r sunion a b]]
            set diff [lsort [r sdiff a b]]
            set expected_inter {}
            set expected_diff {}
            foreach m $a {
                if {[lsearch -exact $b $m] >= 0} {lappend expected_inter $m} else {lappend expected_diff $m}
            }
            assert_equal [lsort $expected_inter] $inter
            assert_equal [lsort -unique [concat $a $b]] $union
            assert_equal [lsort $expected_diff] $diff
            assert_equal [lsort $a] [lsort [r sinter a]]
            assert_equal [lsort $a] [lsort [r sinter a a]]
            assert_equal {} [r sdiff a a]
            assert_equal [lsort $a] [lsort [r sdiff a]]
        }
    }

    test {SINTER with a missing key is empty; SUNION and SDIFF treat it as empty} {
        r del a
        r sadd a 1 2
        assert_equal {} [r sinter a nokey]
        assert_equal {} [r sinter nokey a]
        assert_equal {1 2} [lsort [r sunion nokey a nokey2]]
        assert_equal {1 2} [lsort [r sdiff a nokey]]
        assert_equal {} [r sdiff nokey a]
        assert_equal {} [r sunion nokey]
    }

    test {SINTER of three sets and SDIFF of several} {
        r del a b c
        r sadd a 1 2 3 4 x
        r sadd b 2 3 4 x y
        r sadd c 3 4 x z
        assert_equal {3 4 x} [lsort [r sinter a b c]]
        assert_equal {1} [r sdiff a b c]
        assert_equal {y} [r sdiff b a c]
        assert_equal {z} [r sdiff c a b]
        assert_equal 7 [llength [r sunion a b c]]
    }

    test {SDIFF picks either strategy and agrees with a model} {
        # A small first set against a big one, and a big first set against small ones.
        r del small big
        r sadd small m1 m5 m999 zz
        set members {}
        for {set i 0} {$i < 1000} {incr i} {lappend members m$i}
        r sadd big {*}$members
        assert_equal {zz} [r sdiff small big]
        set got [r sdiff big small small]
        assert_equal 997 [llength $got]
        assert_equal -1 [lsearch -exact $got m5]
        assert_equal 0 [llength [r sdiff big big]]
    }

    test {SINTERCARD counts the intersection, LIMIT stops early} {
        r del a b
        r sadd a 1 2 3 4 5 x
        r sadd b 2 3 4 x y
        assert_equal 4 [r sintercard 2 a b]
        assert_equal 4 [r sintercard 2 a b LIMIT 0]
        assert_equal 2 [r sintercard 2 a b LIMIT 2]
        assert_equal 4 [r sintercard 2 a b limit 10]
        assert_equal 1 [r sintercard 2 a b LIMIT 5 LIMIT 1]
        assert_equal 6 [r sintercard 1 a]
        assert_equal 0 [r sintercard 2 a nokey]
        assert_equal 0 [r sintercard 1 nokey]
    }

    test {SINTERCARD argument errors of Redis 7.0} {
        r sadd a 1
        assert_error {ERR numkeys should be greater than 0} {r sintercard 0 a}
        assert_error {ERR numkeys should be greater than 0} {r sintercard -1 a}
        assert_error {ERR numkeys should be greater than 0} {r sintercard x a}
        assert_error {ERR Number of keys can't be greater than number of args} {r sintercard 2 a}
        assert_error {ERR LIMIT can't be negative} {r sintercard 1 a LIMIT -1}
        assert_error {ERR LIMIT can't be negative} {r sintercard 1 a LIMIT x}
        assert_error {ERR syntax error} {r sintercard 1 a LIMIT}
        assert_error {ERR syntax error} {r sintercard 1 a FOO 1}
        # Arguments are checked before the keys.
        r set str v
        assert_error {ERR syntax error} {r sintercard 1 str FOO}
    }

    test {SINTERCARD's keys for COMMAND GETKEYS} {
        assert_equal {a b} [r command getkeys sintercard 2 a b LIMIT 1]
    }

    # ---- the STORE forms ------------------------------------------------------------------

    test {SINTERSTORE, SUNIONSTORE and SDIFFSTORE store and answer the cardinality} {
        r del a b d
        r sadd a 1 2 3 x
        r sadd b 2 3 4 x
        assert_equal 3 [r sinterstore d a b]
        assert_equal {2 3 x} [lsort [r smembers d]]
        assert_equal 5 [r sunionstore d a b]
        assert_equal {1 2 3 4 x} [lsort [r smembers d]]
        assert_equal 1 [r sdiffstore d a b]
        assert_equal {1} [r smembers d]
    }

    test {An empty STORE result deletes the destination and answers 0} {
        foreach cmd {sinterstore sdiffstore} {
            r del a d
            r sadd a 1
            r sadd d old
            assert_equal 0 [r $cmd d a nokey2 a nokey]
            assert_equal 0 [r exists d] $cmd
        }
        r sadd d old
        assert_equal 0 [r sunionstore d nokey nokey2]
        assert_equal 0 [r exists d]
        # No destination: nothing to delete.
        assert_equal 0 [r sinterstore d nokey]
        assert_equal 0 [r exists d]
    }

    test {A STORE overwrites a string destination} {
        r del a
        r sadd a 1 2
        foreach cmd {sinterstore sunionstore sdiffstore} {
            r set d string EX 100
            assert_equal 2 [r $cmd d a]
            assert_equal {1 2} [r smembers d]
            assert_equal -1 [r ttl d]
        }
    }

    test {A STORE may name a source as its destination} {
        r del a b
        r sadd a 1 2 3
        r sadd b 2 3 4
        assert_equal 2 [r sinterstore a a b]
        assert_equal {2 3} [r smembers a]
        assert_equal 3 [r sunionstore b a b]
        assert_equal {2 3 4} [r smembers b]
        assert_equal 1 [r sdiffstore b b a]
        assert_equal {4} [r smembers b]
    }

    test {STORE results are intsets when all members are integers, within the limit} {
        r del a b d
        r sadd a x 1 2 3
        r sadd b 1 2 3 y
        assert_encoding hashtable a
        r sinterstore d a b
        assert_encoding intset d
        r sdiffstore d a b
        assert_encoding hashtable d
        r sunionstore d a b
        assert_encoding hashtable d
        r srem a x
        r srem b y
        r sunionstore d a b
        assert_encoding intset d
        r sdiffstore d a nokey
        assert_encoding intset d
    }

    test {STORE results convert past set-max-intset-entries} {
        set old [lindex [r config get set-max-intset-entries] 1]
        r config set set-max-intset-entries 5
        r del a b d
        r sadd a 1 2 3
        r sadd b 4 5 6
        r sunionstore d a b
        assert_encoding hashtable d
        r sinterstore d a a
        assert_encoding intset d
        r config set set-max-intset-entries $old
    } {} {needs:config}

    # ---- RESP3 reply types ----------------------------------------------------------------

    test {RESP3 reply types of the set commands} {
        r del s t
        r sadd s a b
        r sadd t b c
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd readraw 1
        foreach {cmd type items} {
            {smembers s} ~ {a b}
            {sinter s t} ~ {b}
            {sunion s t} ~ {a b c}
            {sdiff s t} ~ {a}
            {smembers nokey} ~ {}
            {sinter s nokey} ~ {}
            {spop nokey 2} ~ {}
            {srandmember s 5} * {a b}
            {srandmember s -1} * {}
            {srandmember nokey 5} * {}
            {smismember s a z} * {:0 :1}
        } {
            $rd {*}$cmd
            lassign [set_read_raw_aggregate $rd] got_type got_items
            assert_equal $type $got_type $cmd
            if {$cmd ne {srandmember s -1}} {assert_equal $items $got_items $cmd}
        }
        $rd spop s 5
        assert_equal {~2} [$rd read]
        $rd read; $rd read; $rd read; $rd read
        $rd spop nokey
        assert_equal {_} [$rd read]
        $rd srandmember nokey
        assert_equal {_} [$rd read]
        $rd sismember t b
        assert_equal {:1} [$rd read]
        $rd scard t
        assert_equal {:2} [$rd read]
        $rd close
    }

    test {RESP2 null replies of SPOP and SRANDMEMBER} {
        set rd [redis_deferring_client]
        $rd readraw 1
        $rd spop nokey
        assert_equal {$-1} [$rd read]
        $rd srandmember nokey
        assert_equal {$-1} [$rd read]
        $rd spop nokey 1
        assert_equal {*0} [$rd read]
        $rd close
    }

    # ---- transactions ---------------------------------------------------------------------

    test {Set writes invalidate WATCH, no-op writes do not} {
        r del s d
        r sadd s a b
        foreach {cmd touches} {
            {sadd s a} 0
            {srem s nope} 0
            {spop s 0} 0
            {smove s d nope} 0
            {sadd s c} 1
            {srem s a} 1
            {spop s 1} 1
            {smove s d a} 1
            {sinterstore s s} 1
        } {
            r del s d
            r sadd s a b
            r watch s
            r {*}$cmd
            r multi
            r ping
            set result [r exec]
            if {$touches} {
                assert_equal {} $result "$cmd must invalidate WATCH"
            } else {
                assert_equal {PONG} $result "$cmd must leave WATCH alone"
            }
        }
    }

    test {SMOVE invalidates WATCH on the destination} {
        r del s d
        r sadd s a
        r watch d
        r smove s d a
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test {Emptying a set by SPOP invalidates WATCH and deletes it} {
        r del s
        r sadd s a
        r watch s
        r spop s
        r multi
        r ping
        assert_equal {} [r exec]
        assert_equal 0 [r exists s]
    }

    test {Set commands inside MULTI} {
        r del s
        r multi
        r sadd s 1 2 3
        r srem s 1
        r spop s 5
        r scard s
        set result [r exec]
        assert_equal 3 [lindex $result 0]
        assert_equal 1 [lindex $result 1]
        assert_equal {2 3} [lsort [lindex $result 2]]
        assert_equal 0 [lindex $result 3]
    }

    # ---- key commands on sets -----------------------------------------------------------

    test {DEL, EXISTS, TYPE, RENAME and COPY on a set} {
        r del s s2 s3
        r sadd s 1 2 x
        assert_equal set [r type s]
        r rename s s2
        assert_equal {1 2 x} [lsort [r smembers s2]]
        assert_equal 1 [r copy s2 s3]
        r sadd s3 y
        assert_equal 3 [r scard s2]
        assert_equal 4 [r scard s3]
        assert_encoding hashtable s3
        assert_equal 2 [r del s2 s3]
    }

    test {A set's TTL survives SADD and SREM, and the set expires} {
        r del s
        r sadd s a b
        r pexpire s 100000
        r sadd s c
        r srem s a
        assert_range [r pttl s] 1 100000
    }
}

start_server {tags {set redistp}} {
    # WATCHEX (our command): a set appears when SADD/SMOVE/STORE creates it and disappears
    # when its last member goes.

    proc set_wx_client {} {
        set c [redis_client]
        $c timeout 3000
        return $c
    }

    test {WATCHEX sees ADD when SADD creates a set, nothing for later additions} {
        set c [set_wx_client]
        r del ws
        assert_equal NOEXIST [$c watchex ws]
        r sadd ws a
        assert_equal {watchex ws ADD} [$c read]
        r sadd ws b
        r srem ws b
        assert_equal PONG [$c ping]
        $c close
        r del ws
    }

    test {WATCHEX sees DEL when SREM, SPOP or SMOVE removes the last member} {
        foreach cmd {{srem ws a} {spop ws} {spop ws 3} {smove ws other a}} {
            r del ws other
            r sadd ws a
            set c [set_wx_client]
            assert_equal EXIST [$c watchex ws]
            r {*}$cmd
            assert_equal {watchex ws DEL} [$c read] $cmd
            $c close
        }
    }

    test {WATCHEX sees ADD when SMOVE or a STORE creates the destination} {
        foreach cmd {{smove src wd a} {sinterstore wd src} {sunionstore wd src} {sdiffstore wd src}} {
            r del src wd
            r sadd src a
            set c [set_wx_client]
            assert_equal NOEXIST [$c watchex wd]
            r {*}$cmd
            assert_equal {watchex wd ADD} [$c read] $cmd
            $c close
        }
    }

    test {WATCHEX sees DEL when an empty STORE result deletes the destination} {
        r del wd
        r sadd wd x
        set c [set_wx_client]
        assert_equal EXIST [$c watchex wd]
        r sinterstore wd nokey
        assert_equal {watchex wd DEL} [$c read]
        $c close
    }
}

# DEBUG HTSTATS-KEY describes the hash table behind a set, hash or sorted set.
start_server {tags {set needs:debug}} {
    # Reads the main table's figures; the chain length rows must add up to the table size.
    proc htstats_main {key} {
        set stats [r debug htstats-key $key]
        assert_match {Hash table 0 stats (main hash table):*} $stats
        set main [lindex [split [string map {"Hash table 1" "\x01"} $stats] "\x01"] 0]
        foreach field {{table size} {number of elements} {different slots} {max chain length}} {
            assert {[regexp "$field: (\[0-9\]+)" $main - value]}
            dict set out $field $value
        }
        set buckets 0
        foreach {- n} [regexp -all -inline {\n   [0-9]+: ([0-9]+) \(} $main] {incr buckets $n}
        assert_equal [dict get $out {table size}] $buckets
        return $out
    }

    test {DEBUG HTSTATS-KEY describes the table of a hashtable-encoded value} {
        r del s h z
        for {set i 0} {$i < 100} {incr i} {r sadd s m:$i}
        r hset h f [string repeat x 100]
        r zadd z 1 [string repeat y 100]
        foreach {key n} {s 100 h 1 z 1} {
            set st [htstats_main $key]
            if {![string match {*rehashing target*} [r debug htstats-key $key]]} {
                assert_equal $n [dict get $st {number of elements}]
            }
            assert {[dict get $st {different slots}] >= 1}
            assert {[dict get $st {max chain length}] >= 1}
        }
    }

    test {DEBUG HTSTATS-KEY refuses packed values and missing keys} {
        r del i h z str
        r sadd i 1 2 3
        r hset h f v
        r zadd z 1 a
        r set str x
        foreach k {i h z str} {
            assert_error {ERR The value stored at the specified key is not represented using an hash table} {r debug htstats-key $k}
        }
        assert_error {ERR no such key} {r debug htstats-key nokey}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'htstats-key'*} {r debug htstats-key}
    }
}

# While a forked child (BGSAVE, AOF rewrite) shares the memory, a set's table holds still as
# the key table does: it grows only past 5 members per bucket and never shrinks, so a resize
# does not make the kernel copy the set's pages for the child. Random picks must still reach
# every member of such a table, whether its chains are long or its buckets mostly empty.
start_server {tags {set needs:debug needs:config external:skip}} {
    test {SRANDMEMBER with a dict containing long chain} {
        r flushall
        r set anchor x
        held_child_start
        # Added one at a time while the child runs: 4 buckets take up to 24 members (a load of
        # 6 before the 25th insertion grows the table), so some chain holds at least 6.
        for {set i 0} {$i < 24} {incr i} {r sadd myset m:$i}
        assert_encoding hashtable myset
        assert_equal 4 [htstats_key_size myset]
        set stats [r debug htstats-key myset]
        assert {[regexp {max chain length: ([0-9]+)} $stats - longest]}
        assert_morethan_equal $longest 6

        # Every member is drawn, with repetition (negative count) and without.
        set all [lsort [r smembers myset]]
        foreach count {-10 10} {
            unset -nocomplain drawn
            array set drawn {}
            for {set round 0} {$round < 2000 && [array size drawn] < 24} {incr round} {
                foreach m [r srandmember myset $count] {set drawn($m) 1}
            }
            assert_equal $all [lsort [array names drawn]] "SRANDMEMBER $count"
        }
        # A positive count returns that many distinct members, or the whole set.
        foreach count {1 5 12 20 23 24 30} {
            set res [r srandmember myset $count]
            set want [expr {min($count, 24)}]
            assert_equal $want [llength $res]
            assert_equal $want [llength [lsort -unique $res]]
        }
        held_child_end

        # No child: the next insertion grows the table to a load under one.
        r sadd myset m:24
        htstats_key_settle myset {srandmember myset}
        assert_equal 32 [htstats_key_size myset]
        assert_equal 25 [r scard myset]
    }

    test {A set's table keeps its size while a child runs and shrinks after it} {
        r flushall
        r set anchor x
        batched_call {sadd myset} 0 12000 m:%d
        htstats_key_settle myset {srandmember myset}
        assert_equal 16384 [htstats_key_size myset]

        held_child_start
        batched_call {srem myset} 0 11900 m:%d
        assert_equal 100 [r scard myset]
        # 100 members in 16384 buckets: no shrink while the child runs.
        assert_equal 16384 [htstats_key_size myset]
        assert_equal 0 [htstats_key_rehashing myset]
        unset -nocomplain drawn
        array set drawn {}
        for {set round 0} {$round < 5000 && [array size drawn] < 100} {incr round} {
            foreach m [r srandmember myset -20] {set drawn($m) 1}
        }
        assert_equal [lsort [r smembers myset]] [lsort [array names drawn]]
        assert_equal 50 [llength [lsort -unique [r srandmember myset 50]]]
        held_child_end

        # Untouched, the table waits; the next removal starts the shrink, which random picks
        # carry to its end: the smallest power of two that holds the 99 members left.
        assert_equal 16384 [htstats_key_size myset]
        r srem myset m:11900
        assert_equal 1 [htstats_key_rehashing myset]
        htstats_key_settle myset {srandmember myset}
        assert_equal 128 [htstats_key_size myset]
        assert_equal 99 [r scard myset]
    }
}
