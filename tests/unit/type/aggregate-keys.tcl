# The generic key commands on hashes, lists, sets and sorted sets, in every
# encoding: TYPE, OBJECT, COPY (a deep copy, also to another DB), MOVE,
# RENAME, EXPIRE/TTL/PERSIST, DEL/UNLINK/EXISTS, SCAN TYPE, RANDOMKEY,
# MEMORY USAGE, DEBUG OBJECT and DEBUG DIGEST(-VALUE), whose values equal
# Redis 7.0's for the same contents.

# The kinds under test: name {type encoding}.
set ::agg_kinds {
    list       {list quicklist}
    set_int    {set intset}
    set_ht     {set hashtable}
    hash_lp    {hash listpack}
    hash_ht    {hash hashtable}
    zset_lp    {zset listpack}
    zset_sl    {zset skiplist}
}

# Creates `key` holding a small value of `kind`, in that kind's encoding
# (thresholds lowered for the moment the key is written, then restored).
proc agg_make {kind key} {
    r del $key
    switch $kind {
        list {r rpush $key a b 1 2}
        set_int {r sadd $key 1 2 3}
        set_ht {r sadd $key a b c}
        hash_lp {r hset $key f1 v1 f2 v2}
        hash_ht {
            r config set hash-max-listpack-entries 1
            r hset $key f1 v1 f2 v2
            r config set hash-max-listpack-entries 128
        }
        zset_lp {r zadd $key 1 a 2.5 b}
        zset_sl {
            r config set zset-max-listpack-entries 1
            r zadd $key 1 a 2.5 b
            r config set zset-max-listpack-entries 128
        }
    }
}

# The contents of `key` in a canonical form.
proc agg_read {kind key} {
    switch -glob $kind {
        list {return [r lrange $key 0 -1]}
        set_* {return [lsort [r smembers $key]]}
        hash_* {return [lsort [r hgetall $key]]}
        zset_* {return [r zrange $key 0 -1 withscores]}
    }
}

# Adds one element to `key` (keeping its encoding).
proc agg_add {kind key} {
    switch -glob $kind {
        list {r rpush $key added}
        set_int {r sadd $key 99}
        set_ht {r sadd $key added}
        hash_* {r hset $key added 1}
        zset_* {r zadd $key 9 added}
    }
}

# DEBUG DIGEST-VALUE of each kind's agg_make contents, read from Redis 7.0.15.
set ::agg_digests {
    list    6b15aa298e0e4d1f6244448df32b23e74a4147ce
    set_int 2a462a3f51a1db89738ebbeef0c47ce1bbc85246
    set_ht  593c2414786d75446e97f4ea5d4b731f3313da72
    hash_lp 047cc60ea73a34cde6d08a2721a4a26d19ee6570
    hash_ht 047cc60ea73a34cde6d08a2721a4a26d19ee6570
    zset_lp c45c5b051acd64070e5ed1a949939d5145f806c5
    zset_sl c45c5b051acd64070e5ed1a949939d5145f806c5
}

start_server {tags {keyspace}} {
    foreach {kind te} $::agg_kinds {
        lassign $te type enc

        test "TYPE and OBJECT ENCODING of a $kind" {
            agg_make $kind k
            assert_equal $type [r type k]
            assert_equal $enc [r object encoding k]
            assert_equal 1 [r object refcount k]
            assert_range [r object idletime k] 0 100
        }

        test "COPY of a $kind is a deep copy in the same encoding" {
            agg_make $kind k
            r del k2
            assert_equal 1 [r copy k k2]
            assert_equal $enc [r object encoding k2]
            set before [agg_read $kind k]
            assert_equal $before [agg_read $kind k2]
            agg_add $kind k2
            assert_equal $before [agg_read $kind k]
            assert_not_equal $before [agg_read $kind k2]
            # Without REPLACE an existing destination stays; with it, it is replaced.
            assert_equal 0 [r copy k k2]
            assert_equal 1 [r copy k k2 replace]
            assert_equal $before [agg_read $kind k2]
        }

        test "COPY of a $kind to another DB, and MOVE back" {
            set cur [srv db]
            set other [expr {$cur == 10 ? 11 : 10}]
            agg_make $kind k
            set before [agg_read $kind k]
            r select $other
            r del k
            r select $cur
            assert_equal 1 [r copy k k db $other]
            r select $other
            assert_equal $before [agg_read $kind k]
            assert_equal $enc [r object encoding k]
            agg_add $kind k
            set changed [agg_read $kind k]
            r select $cur
            assert_equal $before [agg_read $kind k]
            r del k
            r select $other
            assert_equal 1 [r move k $cur]
            assert_equal 0 [r exists k]
            r select $cur
            assert_equal $changed [agg_read $kind k]
        }

        test "RENAME and RENAMENX of a $kind carry the value and its TTL" {
            agg_make $kind k
            r del k2 k3
            set before [agg_read $kind k]
            r expire k 1000
            r rename k k2
            assert_equal 0 [r exists k]
            assert_equal $before [agg_read $kind k2]
            assert_range [r ttl k2] 990 1000
            r set k3 x
            assert_equal 0 [r renamenx k2 k3]
            assert_equal 1 [r renamenx k2 k4]
            assert_equal $type [r type k4]
            r del k3 k4
        }

        test "EXPIRE, TTL and PERSIST on a $kind" {
            agg_make $kind k
            assert_equal -1 [r ttl k]
            assert_equal 1 [r expire k 100]
            assert_range [r ttl k] 90 100
            assert_equal 1 [r persist k]
            assert_equal -1 [r ttl k]
            r pexpire k 1
            wait_for_condition 100 10 {[r exists k] == 0} else {fail "the $kind did not expire"}
            assert_equal -2 [r ttl k]
        }

        test "DEL, UNLINK and EXISTS on a $kind" {
            agg_make $kind k
            agg_make $kind k2
            assert_equal 2 [r exists k k2 nokey]
            assert_equal 1 [r del k]
            assert_equal 1 [r unlink k2]
            assert_equal 0 [r exists k k2]
        }

        test "SCAN TYPE $type finds a $kind" {
            r flushdb
            agg_make $kind k
            r set str x
            assert_equal {0 k} [r scan 0 type $type count 100]
            assert_equal {0 str} [r scan 0 type string count 100]
        }

        test "MEMORY USAGE of a $kind is sane and grows with it" {
            agg_make $kind k
            set small [r memory usage k]
            assert_morethan $small 0
            assert_morethan_equal [r memory usage k samples 0] 1
            for {set i 0} {$i < 40} {incr i} {agg_add $kind k}
            switch -glob $kind {
                list {for {set i 0} {$i < 200} {incr i} {r rpush k [string repeat x 50]}}
                set_int {for {set i 0} {$i < 200} {incr i} {r sadd k [expr {1000 + $i}]}}
                set_ht {for {set i 0} {$i < 200} {incr i} {r sadd k m$i}}
                hash_lp {for {set i 0} {$i < 60} {incr i} {r hset k f$i v$i}}
                hash_ht {for {set i 0} {$i < 200} {incr i} {r hset k f$i v$i}}
                zset_lp {for {set i 0} {$i < 60} {incr i} {r zadd k $i m$i}}
                zset_sl {for {set i 0} {$i < 200} {incr i} {r zadd k $i m$i}}
            }
            assert_equal $enc [r object encoding k]
            assert_morethan [r memory usage k samples 0] $small
        }

        test "DEBUG DIGEST-VALUE of a $kind equals Redis's" {
            agg_make $kind k
            assert_equal [dict get $::agg_digests $kind] [r debug digest-value k]
            r del k2
            r copy k k2
            assert_equal [r debug digest-value k] [r debug digest-value k2]
            agg_add $kind k2
            assert_not_equal [r debug digest-value k] [r debug digest-value k2]
        } {} {needs:debug}

        test "DEBUG OBJECT of a $kind names its encoding" {
            agg_make $kind k
            set line [r debug object k]
            assert_match "*refcount:1 encoding:$enc serializedlength:*" $line
            if {$kind eq "list"} {
                assert_match {* ql_nodes:1 ql_avg_node:4.00 ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:17} $line
            } else {
                assert_no_match {*ql_nodes*} $line
            }
        } {} {needs:debug}
    }

    test {DEBUG DIGEST of a database of aggregates equals Redis's} {
        r flushall
        foreach {kind te} $::agg_kinds {agg_make $kind $kind}
        assert_equal fefd1eb4b7bc6f9048d0ac46f38ccf62acc597cc [r debug digest]
    } {} {needs:debug}

    test {DEBUG OBJECT of a list counts nodes, fill and compression} {
        r del l
        r config set list-max-listpack-size 4
        r config set list-compress-depth 1
        for {set i 0} {$i < 10} {incr i} {r rpush l [string repeat a 100]}
        r config set list-max-listpack-size -2
        r config set list-compress-depth 0
        set line [r debug object l]
        assert_match {* ql_nodes:3 ql_avg_node:3.33 ql_listpack_max:4 ql_compressed:1 *} $line
        regexp {ql_uncompressed_size:(\d+)} $line -> raw
        assert_morethan $raw 1000
    } {} {needs:debug}

    test {RANDOMKEY returns aggregate keys} {
        r flushdb
        r rpush l a
        r sadd s a
        r hset h f v
        r zadd z 1 a
        set seen {}
        for {set i 0} {$i < 200} {incr i} {dict set seen [r randomkey] 1}
        assert_equal {h l s z} [lsort [dict keys $seen]]
    }

    test {OBJECT FREQ of an aggregate under an LFU policy} {
        r del h
        r config set maxmemory-policy allkeys-lfu
        r hset h f v
        for {set i 0} {$i < 10} {incr i} {r hget h f}
        assert_morethan_equal [r object freq h] 1
        r config set maxmemory-policy noeviction
        assert_error {*LFU*} {r object freq h}
    } {} {needs:config}

    test {An aggregate emptied by its last element is gone} {
        r del l s h z
        r rpush l a
        r lpop l
        r sadd s a
        r srem s a
        r hset h f v
        r hdel h f
        r zadd z 1 a
        r zrem z a
        assert_equal 0 [r exists l s h z]
    }
}
