# Loading an RDB file written in the encodings Redis 7.0 reads but no longer writes: ziplist and
# quicklist-of-ziplist lists, zipmap and ziplist hashes, ziplist zsets, zsets with text scores,
# intsets of every width. tests/assets/legacy-encodings.rdb comes from utils/gen-legacy-rdb.py
# (an RDB version 9 file); the contents and OBJECT ENCODING expected here are what Redis 7.0.15
# gives after loading it, so this file passes against Debian's Redis as well.

set legacy_dir [::server::new_dir]
file copy -force [file join $::server::root tests assets legacy-encodings.rdb] \
    [file join $legacy_dir dump.rdb]

proc legacy_range {from to {prefix ""}} {
    set out {}
    for {set i $from} {$i < $to} {incr i} {lappend out $prefix$i}
    return $out
}

start_server [list tags {persistence} dir $legacy_dir db 0] {
    test {Legacy RDB: every key but the expired one is loaded} {
        assert_equal 19 [r dbsize]
        assert_equal 0 [r exists expired:ziplist]
        assert_morethan [r ttl ttl:ziplist] 0
        assert_equal {t} [r lrange ttl:ziplist 0 -1]
        wait_for_log_message "*Done loading RDB, keys loaded: 19, keys expired: 1.*"
    }

    test {Legacy RDB: ziplist, quicklist-of-ziplists and plain lists become quicklists} {
        assert_equal [list a 1 -2 300 70000 1099511627776 hello [string repeat x 300] end] \
            [r lrange list:ziplist 0 -1]
        assert_encoding quicklist list:ziplist
        # The middle node of list:quicklist is an empty ziplist, which is skipped.
        assert_equal [concat [legacy_range 0 100 n] [legacy_range 100 250]] \
            [r lrange list:quicklist 0 -1]
        assert_encoding quicklist list:quicklist
        assert_equal {0 1 2 3 4} [r lrange list:plain 0 -1]
        assert_encoding quicklist list:plain
    }

    test {Legacy RDB: zipmap hashes convert past either listpack limit} {
        assert_equal {f1 v1 f2 2 name redis} [r hgetall hash:zipmap]
        assert_encoding listpack hash:zipmap
        assert_equal 600 [r hlen hash:zipmap:big]
        assert_equal v599 [r hget hash:zipmap:big f599]
        assert_encoding hashtable hash:zipmap:big
        assert_equal [string repeat y 300] [r hget hash:zipmap:longvalue k]
        assert_encoding hashtable hash:zipmap:longvalue
    }

    test {Legacy RDB: ziplist hashes convert past the entries limit only} {
        assert_equal {a 1 b 2 c three} [r hgetall hash:ziplist]
        assert_encoding listpack hash:ziplist
        assert_equal 600 [r hlen hash:ziplist:big]
        assert_equal 599 [r hget hash:ziplist:big f599]
        assert_encoding hashtable hash:ziplist:big
        assert_equal [string repeat z 100] [r hget hash:ziplist:longvalue k]
        assert_encoding listpack hash:ziplist:longvalue
    }

    test {Legacy RDB: ziplist zsets convert past the entries limit only} {
        assert_equal {a 1 b 2.5 c 300} [r zrange zset:ziplist 0 -1 withscores]
        assert_encoding listpack zset:ziplist
        assert_equal 200 [r zcard zset:ziplist:big]
        assert_equal 199 [r zscore zset:ziplist:big m199]
        assert_encoding skiplist zset:ziplist:big
    }

    test {Legacy RDB: zsets with text scores load as ZSET_2 does} {
        assert_equal {z -inf w -3 x 1.5 y inf} [r zrange zset:v1 0 -1 withscores]
        assert_encoding listpack zset:v1
        assert_equal 200 [r zcard zset:v1:big]
        assert_equal 49.75 [r zscore zset:v1:big m199]
        assert_encoding skiplist zset:v1:big
        assert_equal [list [string repeat q 100] 1] [r zrange zset:v1:longmember 0 -1 withscores]
        assert_encoding skiplist zset:v1:longmember
    }

    test {Legacy RDB: intsets of 16, 32 and 64 bits} {
        assert_equal {-2 1 3} [lsort -integer [r smembers set:intset16]]
        assert_encoding intset set:intset16
        assert_equal {-5 100000} [lsort -integer [r smembers set:intset32]]
        assert_encoding intset set:intset32
        assert_equal {7 1099511627776} [lsort -integer [r smembers set:intset64]]
        assert_encoding intset set:intset64
        assert_equal 600 [r scard set:intset:big]
        assert_equal 1 [r sismember set:intset:big 599]
        assert_encoding hashtable set:intset:big
    }

    test {Legacy RDB: the loaded keys survive a save and reload in the current format} {
        set digest [r debug digest]
        r debug reload
        assert_equal $digest [r debug digest]
        assert_equal 19 [r dbsize]
    }
}

file delete -force $legacy_dir

# Side by side with Debian's Redis 7.0: both load their own copy of the file, and the whole
# dataset digests the same (contents, types and expire times of every key).
if {[file executable /usr/bin/redis-server]} {
    set ours_dir [::server::new_dir]
    set theirs_dir [::server::new_dir]
    foreach d [list $ours_dir $theirs_dir] {
        file copy -force [file join $::server::root tests assets legacy-encodings.rdb] \
            [file join $d dump.rdb]
    }
    start_server [list tags {persistence redistp} dir $ours_dir db 0] {
        start_server [list dir $theirs_dir db 0 binary /usr/bin/redis-server] {
            test {Legacy RDB: the dataset digests as on Redis 7.0} {
                assert_equal 19 [r -1 dbsize]
                assert_equal [r 0 debug digest] [r -1 debug digest]
                foreach key [r 0 keys *] {
                    assert_equal [r 0 debug digest-value $key] [r -1 debug digest-value $key] $key
                }
            }
        }
    }
    file delete -force $ours_dir $theirs_dir
}
