# Lazy free: UNLINK, FLUSHDB/FLUSHALL ASYNC and the lazyfree-lazy-* parameters hand big values
# to a background thread. What a client can observe: the key is gone when the reply arrives,
# INFO's lazyfreed_objects counts each value (or each key of a flushed database) the thread
# freed, values that are cheap to free (strings, compact encodings, small aggregates) are freed
# at once and not counted, and the memory comes back. Counters are polled with
# wait_for_condition, never timed.

# Creates a set of n integer members (hashtable encoded once past set-max-intset-entries) in
# batches of one command per 500 members.
proc lf_big_set {key n} {
    for {set i 0} {$i < $n} {incr i 500} {
        set members {}
        for {set j $i} {$j < $i + 500 && $j < $n} {incr j} { lappend members m$j }
        r sadd $key {*}$members
    }
}

proc lf_freed {} { s lazyfreed_objects }

# Waits until lazyfreed_objects reaches `want` and nothing is pending.
proc lf_wait_freed {want} {
    wait_for_condition 500 10 {
        [lf_freed] == $want && [s lazyfree_pending_objects] == 0
    } else {
        fail "lazyfreed_objects is [lf_freed], expected $want"
    }
}

start_server {tags {lazyfree}} {
    test {UNLINK of a big set frees it in the background and the memory comes back} {
        r config resetstat
        set before [s used_memory]
        lf_big_set bigset 100000
        set grown [s used_memory]
        assert {$grown > $before + 1000000}
        assert_equal 1 [r unlink bigset]
        assert_equal 0 [r exists bigset]
        lf_wait_freed 1
        wait_for_condition 500 10 {
            [s used_memory] < $before + ($grown - $before) / 4
        } else {
            fail "memory not reclaimed after UNLINK: before $before, grown $grown, now [s used_memory]"
        }
    }

    test {UNLINK frees cheap values at once and does not count them} {
        r config resetstat
        r set str [string repeat x 1000]
        r sadd smallset 1 2 3
        r hset smallhash a 1 b 2
        r rpush smalllist a b c
        lf_big_set smallht 50 ;# a hashtable of 50 members: under the threshold of 64
        assert_equal 5 [r unlink str smallset smallhash smalllist smallht nosuchkey]
        assert_equal 0 [r exists str smallset smallhash smalllist smallht]
        assert_equal 0 [lf_freed]
        assert_equal 0 [s lazyfree_pending_objects]
    }

    test {DEL frees at once unless lazyfree-lazy-user-del is yes} {
        r config resetstat
        lf_big_set s1 1000
        assert_equal 1 [r del s1]
        assert_equal 0 [r exists s1]
        assert_equal 0 [lf_freed]
        r config set lazyfree-lazy-user-del yes
        lf_big_set s2 1000
        assert_equal 1 [r del s2]
        assert_equal 0 [r exists s2]
        lf_wait_freed 1
        r config set lazyfree-lazy-user-del no
    }

    test {FLUSHDB ASYNC and FLUSHALL ASYNC count every key of the flushed databases} {
        r config resetstat
        for {set i 0} {$i < 100} {incr i} { r set k$i v }
        r flushdb async
        assert_equal 0 [r dbsize]
        lf_wait_freed 100
        for {set i 0} {$i < 10} {incr i} { r set k$i v }
        r flushall async
        assert_equal 0 [r dbsize]
        lf_wait_freed 110
        # An empty database is nothing to hand over.
        r flushall async
        lf_wait_freed 110
    }

    test {FLUSHALL SYNC frees at once; lazyfree-lazy-user-flush makes a plain FLUSHALL async} {
        r config resetstat
        for {set i 0} {$i < 10} {incr i} { r set k$i v }
        r flushall sync
        assert_equal 0 [r dbsize]
        assert_equal 0 [lf_freed]
        for {set i 0} {$i < 10} {incr i} { r set k$i v }
        r flushall
        assert_equal 0 [lf_freed]
        r config set lazyfree-lazy-user-flush yes
        for {set i 0} {$i < 10} {incr i} { r set k$i v }
        r flushall
        assert_equal 0 [r dbsize]
        lf_wait_freed 10
        # SYNC wins over the parameter.
        for {set i 0} {$i < 10} {incr i} { r set k$i v }
        r flushdb sync
        assert_equal 10 [lf_freed]
        r config set lazyfree-lazy-user-flush no
    }

    test {lazyfree-lazy-server-del: a big value replaced by SET or RENAME is freed in the background} {
        r config resetstat
        lf_big_set victim 1000
        r set victim plain
        assert_equal 0 [lf_freed]
        r config set lazyfree-lazy-server-del yes
        lf_big_set victim2 1000
        r set victim2 plain
        assert_equal plain [r get victim2]
        lf_wait_freed 1
        lf_big_set victim3 1000
        r set src other
        r rename src victim3
        assert_equal other [r get victim3]
        lf_wait_freed 2
        r config set lazyfree-lazy-server-del no
        r flushall
    }

    test {lazyfree-lazy-expire: an expired big value is freed in the background} {
        r config resetstat
        r config set lazyfree-lazy-expire yes
        lf_big_set exp 1000
        r pexpire exp 10
        wait_for_condition 500 10 {
            [r exists exp] == 0
        } else {
            fail "the key did not expire"
        }
        lf_wait_freed 1
        r config set lazyfree-lazy-expire no
    }

    test {CONFIG RESETSTAT zeroes lazyfreed_objects} {
        lf_big_set again 1000
        r unlink again
        wait_for_condition 500 10 {
            [lf_freed] >= 1
        } else {
            fail "nothing freed"
        }
        r config resetstat
        assert_equal 0 [lf_freed]
    }

    test {A stream with groups, consumers and pending entries goes to the background} {
        wait_for_condition 500 10 {
            [s lazyfree_pending_objects] == 0
        } else {
            fail "lazy free jobs still pending"
        }
        set before [lf_freed]
        for {set i 0} {$i < 2000} {incr i} { r xadd st * f $i }
        r xgroup create st g1 0
        r xgroup create st g2 0
        r xreadgroup group g1 alice count 200 streams st >
        r xreadgroup group g2 bob count 50 streams st >
        assert_equal 1 [r unlink st]
        assert_equal 0 [r exists st]
        lf_wait_freed [expr {$before + 1}]
    }

    test {A small stream whose group was destroyed is freed at once} {
        r config resetstat
        r xadd st2 * a 1
        r xgroup create st2 g 0
        r xreadgroup group g c streams st2 >
        r xgroup destroy st2 g
        assert_equal 1 [r unlink st2]
        assert_equal 0 [lf_freed]
    }

    test {lazyfree-lazy-eviction: evicted big values are freed in the background} {
        r flushall
        r config resetstat
        r config set lazyfree-lazy-eviction yes
        for {set i 0} {$i < 5} {incr i} { lf_big_set ev$i 2000 }
        set used [s used_memory]
        r config set maxmemory-policy allkeys-random
        r config set maxmemory [expr {$used - 200000}]
        # The next write makes room by evicting.
        catch {r set trigger 1}
        wait_for_condition 500 10 {
            [s evicted_keys] > 0 && [lf_freed] > 0 && [s lazyfree_pending_objects] == 0
        } else {
            fail "evicted [s evicted_keys], lazily freed [lf_freed]"
        }
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
        r config set lazyfree-lazy-eviction no
    }
}
