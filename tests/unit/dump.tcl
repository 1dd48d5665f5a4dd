# DUMP, RESTORE and MIGRATE: payloads, RESTORE's options and errors, and moving keys between
# two servers started here. Everything but the cross-server block also runs against Redis.

# The CRC-64 of DUMP payloads (Jones polynomial, reflected, initial value 0), bit by bit.
proc dump_crc64 {data} {
    set crc 0
    binary scan $data cu* bytes
    foreach b $bytes {
        set crc [expr {$crc ^ $b}]
        for {set i 0} {$i < 8} {incr i} {
            set low [expr {$crc & 1}]
            set crc [expr {$crc >> 1}]
            if {$low} {set crc [expr {$crc ^ 0x95AC9329AC4BC9B5}]}
        }
    }
    return $crc
}

# A payload around `body` with a correct trailer for RDB version `version`.
proc dump_wrap {body {version 10}} {
    set data "$body[binary format s $version]"
    set crc [dump_crc64 $data]
    if {$crc >= (1 << 63)} {set crc [expr {$crc - (1 << 64)}]}
    return "$data[binary format w $crc]"
}

# The payload's body (without the 10-byte trailer).
proc dump_body {payload} {
    return [string range $payload 0 end-10]
}

start_server {tags {dump}} {
    test {DUMP of a missing key is nil} {
        r del nokey
        assert_equal {} [r dump nokey]
    }

    test {DUMP of a short string is its RDB object, version 10 and the CRC-64} {
        r set foo bar
        set d [r dump foo]
        assert_equal "\x00\x03bar\x0a\x00" [string range $d 0 end-8]
        assert_equal $d [dump_wrap "\x00\x03bar"]
    }

    test {DUMP writes small integers in the RDB integer encodings} {
        r set i8 12
        r set i16 1234
        r set i32 123456
        assert_equal "\x00\xc0\x0c" [dump_body [r dump i8]]
        assert_equal "\x00\xc1\xd2\x04" [dump_body [r dump i16]]
        assert_equal "\x00\xc2\x40\xe2\x01\x00" [dump_body [r dump i32]]
    }

    test {DUMP compresses long repetitive strings only with rdbcompression yes} {
        r set long [string repeat a 100]
        assert_equal "\x00\xc3" [string range [r dump long] 0 1]
        r config set rdbcompression no
        assert_equal "\x00\x40\x64[string repeat a 100]" [dump_body [r dump long]]
        r config set rdbcompression yes
    }

    foreach {type encoding setup} {
        string int {r set k 987654321}
        string embstr {r set k hello}
        string raw {r set k [string repeat xyz 30]}
        list quicklist {r rpush k a b 1 2 300000}
        list quicklist {for {set i 0} {$i < 300} {incr i} {r rpush k [string repeat $i 30]}}
        set intset {r sadd k 1 2 3 -5 100000}
        set hashtable {r sadd k a b c}
        set hashtable {for {set i 0} {$i < 600} {incr i} {r sadd k m$i}}
        zset listpack {r zadd k 1 a 2.5 b -3 c}
        zset skiplist {for {set i 0} {$i < 200} {incr i} {r zadd k $i m$i}}
        hash listpack {r hset k f1 v1 f2 2}
        hash hashtable {for {set i 0} {$i < 600} {incr i} {r hset k f$i v$i}}
        string embstr {r pfadd k a b c d}
        stream stream {r xadd k 1-1 f v; r xadd k 2-1 f v2 g x}
    } {
        test "DUMP and RESTORE round trip a $type ($encoding)" {
            r del k k2
            eval $setup
            set digest [r debug digest-value k]
            set d [r dump k]
            assert_equal OK [r restore k2 0 $d]
            assert_equal $digest [r debug digest-value k2]
            assert_type $type k2
            assert_encoding $encoding k2
            assert_equal -1 [r pttl k2]
        }
    }

    test {A stream's consumer groups and pending entries survive DUMP and RESTORE} {
        r del s s2
        r xadd s 1-1 a 1
        r xadd s 2-1 b 2
        r xgroup create s g1 0
        r xreadgroup group g1 alice count 1 streams s >
        assert_equal OK [r restore s2 0 [r dump s]]
        assert_equal [r debug digest-value s] [r debug digest-value s2]
        assert_equal 1 [lindex [r xpending s2 g1] 0]
        assert_equal alice [lindex [lindex [r xpending s2 g1 - + 10] 0] 1]
    }

    test {RESTORE refuses an existing key unless REPLACE} {
        r del src dst
        r set src new
        r set dst old
        set d [r dump src]
        assert_error {BUSYKEY Target key name already exists.} {r restore dst 0 $d}
        assert_equal old [r get dst]
        r expire dst 1000
        assert_equal OK [r restore dst 0 $d replace]
        assert_equal new [r get dst]
        assert_equal -1 [r ttl dst]
    }

    test {RESTORE with a TTL sets it, ABSTTL takes a unix time in ms} {
        r del src dst
        r set src v
        set d [r dump src]
        assert_equal OK [r restore dst 100000 $d]
        assert_range [r pttl dst] 1 100000
        r del dst
        set when [expr {[clock milliseconds] + 200000}]
        assert_equal OK [r restore dst $when $d absttl]
        assert_range [r pttl dst] 100001 200000
        assert_equal $when [r pexpiretime dst]
    }

    test {RESTORE with an ABSTTL in the past replies OK and creates nothing} {
        r del src dst
        r set src v
        set d [r dump src]
        assert_equal OK [r restore dst 1 $d absttl]
        assert_equal 0 [r exists dst]
        r set dst old
        assert_equal OK [r restore dst 1 $d absttl replace]
        assert_equal 0 [r exists dst]
    }

    test {RESTORE checks options, then BUSYKEY, then the TTL, then the payload} {
        r del src dst
        r set src v
        r set dst old
        set d [r dump src]
        assert_error {ERR syntax error} {r restore dst 0 $d bogus}
        assert_error {ERR syntax error} {r restore dst 0 $d idletime}
        assert_error {ERR syntax error} {r restore dst 0 $d idletime 10 freq 5}
        assert_error {ERR syntax error} {r restore dst 0 $d freq 5 idletime 10}
        assert_error {ERR Invalid IDLETIME value, must be >= 0} {r restore dst 0 $d idletime -1}
        assert_error {ERR value is not an integer*} {r restore dst 0 $d idletime x}
        assert_error {ERR Invalid FREQ value, must be >= 0 and <= 255} {r restore dst 0 $d freq 256}
        assert_error {ERR Invalid FREQ value, must be >= 0 and <= 255} {r restore dst 0 $d freq -1}
        assert_error {BUSYKEY*} {r restore dst -1 $d}
        assert_error {BUSYKEY*} {r restore dst 0 garbage}
        assert_error {ERR Invalid TTL value, must be >= 0} {r restore dst -1 $d replace}
        assert_error {ERR value is not an integer*} {r restore dst abc $d replace}
        assert_error {ERR DUMP payload version or checksum are wrong} {r restore dst 0 x replace}
        assert_equal old [r get dst]
    }

    test {RESTORE refuses payloads with a bad trailer} {
        r set src somevalue
        set d [r dump src]
        r del dst
        # A flipped bit in the value, in the version, in the CRC.
        foreach pos [list 3 [expr {[string length $d] - 10}] [expr {[string length $d] - 1}]] {
            set c [string index $d $pos]
            set bad [string replace $d $pos $pos [format %c [expr {[scan $c %c] ^ 1}]]]
            assert_error {ERR DUMP payload version or checksum are wrong} {r restore dst 0 $bad}
        }
        # A version newer than 10, truncated payloads, an empty one.
        assert_error {ERR DUMP payload version or checksum are wrong} \
            {r restore dst 0 [dump_wrap "\x00\x03bar" 11]}
        assert_error {ERR DUMP payload version or checksum are wrong} \
            {r restore dst 0 [string range $d 0 end-1]}
        assert_error {ERR DUMP payload version or checksum are wrong} {r restore dst 0 ""}
        assert_equal 0 [r exists dst]
    }

    test {RESTORE accepts payloads of older RDB versions} {
        r del dst
        assert_equal OK [r restore dst 0 [dump_wrap "\x00\x03bar" 9]]
        assert_equal bar [r get dst]
    }

    test {RESTORE answers Bad data format for a malformed value with a valid CRC} {
        r del dst
        foreach body [list "" "\x00" "\x00\x0fab" "\x63\x01\x61" "\x02\x02\x01a" \
                          "\x02\x00" "\x04\x01\x01f" "\x0b\x05\x00\x00\x00" \
                          "\x01\x02\x01a" "\x03\x01\x01a" "\x12\x01\x02\x01\x00" \
                          "\x10\x01\x00" "\x0f\x00"] {
            assert_error {ERR Bad data format} {r restore dst 0 [dump_wrap $body]}
        }
        assert_equal 0 [r exists dst]
    }

    test {RESTORE reads the value from the whole payload, trailer included} {
        # A string whose length runs into the version and the first CRC byte loads, as in Redis.
        r del dst
        set payload [dump_wrap "\x00\x05ab"]
        assert_equal OK [r restore dst 0 $payload]
        assert_equal "ab[string range $payload 4 6]" [r get dst]
    }

    test {RESTORE IDLETIME sets the idle time under an LRU policy} {
        r config set maxmemory-policy allkeys-lru
        r del src dst
        r set src v
        assert_equal OK [r restore dst 0 [r dump src] idletime 1000]
        assert_range [r object idletime dst] 1000 1010
        r config set maxmemory-policy noeviction
    }

    test {RESTORE FREQ sets the LFU counter under an LFU policy} {
        r config set maxmemory-policy allkeys-lfu
        r del src dst
        r set src v
        assert_equal OK [r restore dst 0 [r dump src] freq 100]
        assert_equal 100 [r object freq dst]
        r config set maxmemory-policy noeviction
    }

    test {RESTORE publishes "restore", and a REPLACE does not publish "del"} {
        r config set notify-keyspace-events KEA
        r del src dst
        r set src v
        set d [r dump src]
        set rd [redis_deferring_client]
        set db [srv db]
        $rd psubscribe "__keyevent@${db}__:*"
        $rd read
        r restore dst 0 $d
        r restore dst 5000 $d replace
        r restore dst 1 $d replace absttl
        assert_equal [list pmessage __keyevent@${db}__:* __keyevent@${db}__:restore dst] [$rd read]
        assert_equal [list pmessage __keyevent@${db}__:* __keyevent@${db}__:restore dst] [$rd read]
        assert_equal [list pmessage __keyevent@${db}__:* __keyevent@${db}__:del dst] [$rd read]
        $rd close
        r config set notify-keyspace-events ""
    }

    test {RESTORE of an existing key aborts a transaction watching it} {
        r del src dst
        r set src v
        r set dst old
        set d [r dump src]
        r watch dst
        set other [redis_client]
        $other restore dst 0 $d replace
        $other close
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test {RESTORE-ASKING behaves as RESTORE without a cluster} {
        r del src dst
        r set src v
        assert_equal OK [r restore-asking dst 0 [r dump src]]
        assert_equal v [r get dst]
        assert_match {*asking*} [lindex [r command info restore-asking] 0 2]
    }
}

start_server {tags {dump}} {
    start_server {tags {dump}} {
        set src_db [srv 0 db]

        # First in the block, so no connection is cached yet.
        tags {external:skip} {
        test {MIGRATE keeps its connection cached: INFO migrate_cached_sockets} {
            assert_equal 0 [s migrate_cached_sockets]
            r set cached v
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] cached [srv -1 db] 5000]
            assert_equal 1 [s migrate_cached_sockets]
            r set cached v
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] cached [srv -1 db] 5000 replace]
            assert_equal 1 [s migrate_cached_sockets]
        }
        }

        test {MIGRATE moves a key with its TTL and deletes it at the source} {
            r -1 flushall
            r set k value
            r pexpire k 500000
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k [srv -1 db] 5000]
            assert_equal 0 [r exists k]
            assert_equal value [r -1 get k]
            assert_range [r -1 pttl k] 1 500000
        }

        test {MIGRATE with a timeout past 2^31 or 2^32 ms waits for the target like any long one} {
            # The timeout is a 64-bit integer; cut to poll's int, 2^32 would be 0 (no wait at
            # all for the reply) and 2^31 negative (a wait without end).
            foreach timeout {4294967296 2147483648 9223372036854775807} {
                r -1 flushall
                r set k $timeout
                assert_equal OK [r migrate [srv -1 host] [srv -1 port] k [srv -1 db] $timeout copy]
                assert_equal $timeout [r -1 get k]
            }
        }

        test {MIGRATE of a missing key replies NOKEY} {
            assert_equal NOKEY [r migrate [srv -1 host] [srv -1 port] nokey [srv -1 db] 5000]
        }

        test {MIGRATE COPY keeps the source key, REPLACE overwrites the target's} {
            r -1 flushall
            r set k v1
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k [srv -1 db] 5000 copy]
            assert_equal v1 [r get k]
            r set k v2
            assert_error {ERR Target instance replied with error: BUSYKEY*} \
                {r migrate [srv -1 host] [srv -1 port] k [srv -1 db] 5000 copy}
            assert_equal v1 [r -1 get k]
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k [srv -1 db] 5000 copy replace]
            assert_equal v2 [r -1 get k]
            assert_equal v2 [r get k]
        }

        test {MIGRATE KEYS moves several keys of several types} {
            r -1 flushall
            r del a b c
            r set a 1
            r rpush b x y z
            r hset c f v
            set digests [list [r debug digest-value a] [r debug digest-value b] [r debug digest-value c]]
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] "" [srv -1 db] 5000 keys a b c nokey]
            assert_equal 0 [r exists a b c]
            assert_equal $digests [list [r -1 debug digest-value a] [r -1 debug digest-value b] [r -1 debug digest-value c]]
        }

        test {MIGRATE KEYS deletes the keys the target took and reports the first error} {
            r -1 flushall
            r -1 set busy old
            r set busy new
            r set free v
            assert_error {ERR Target instance replied with error: BUSYKEY*} \
                {r migrate [srv -1 host] [srv -1 port] "" [srv -1 db] 5000 keys busy free}
            assert_equal {1 0} [list [r exists busy] [r exists free]]
            assert_equal old [r -1 get busy]
            assert_equal v [r -1 get free]
        }

        test {MIGRATE into another database of the target} {
            r -1 flushall
            r set k v
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k 3 5000]
            set other [redis_client -1]
            $other select 3
            assert_equal v [$other get k]
            $other close
            r set k2 v2
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k2 [srv -1 db] 5000]
            assert_equal v2 [r -1 get k2]
        }

        test {MIGRATE argument errors} {
            r set k v
            set h [srv -1 host]
            set p [srv -1 port]
            assert_error {ERR When using MIGRATE KEYS option, the key argument must be set to the empty string} \
                {r migrate $h $p k 0 5000 keys k}
            assert_error {ERR syntax error} {r migrate $h $p k 0 5000 bogus}
            assert_error {ERR syntax error} {r migrate $h $p k 0 5000 auth}
            assert_error {ERR syntax error} {r migrate $h $p k 0 5000 auth2 user}
            assert_error {ERR value is not an integer*} {r migrate $h $p k 0 soon}
            assert_error {ERR value is not an integer*} {r migrate $h $p k db 5000}
            assert_error {ERR Target instance replied with error: ERR DB index is out of range} \
                {r migrate $h $p k 99 5000}
            assert_equal v [r get k]
        }

        test {MIGRATE reports the target's AUTH error} {
            r set k v
            assert_error {ERR Target instance replied with error: ERR AUTH*} \
                {r migrate [srv -1 host] [srv -1 port] k [srv -1 db] 5000 auth secret}
            assert_error {ERR Target instance replied with error: WRONGPASS*} \
                {r migrate [srv -1 host] [srv -1 port] k [srv -1 db] 5000 auth2 someone secret}
            assert_equal v [r get k]
        }

        test {MIGRATE to a port nobody listens on is an IOERR and keeps the key} {
            r set k v
            set port [::server::find_free_port]
            assert_error {IOERR error or timeout*} {r migrate 127.0.0.1 $port k 0 1000}
            assert_equal v [r get k]
        }

        test {MIGRATE reuses its connection and survives the target closing it} {
            r -1 flushall
            r set k1 v1
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k1 [srv -1 db] 5000]
            r -1 client kill type normal skipme no
            reconnect -1
            r set k2 v2
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k2 [srv -1 db] 5000]
            assert_equal v2 [r -1 get k2]
        }

        test {MIGRATE's cached connection is closed by the cron after 10 idle seconds} {
            r set k3 v3
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k3 [srv -1 db] 5000]
            set with_cached [s -1 connected_clients]
            # The source's cron closes the connection; the target sees one client fewer.
            wait_for_condition 300 100 {
                [s -1 connected_clients] == $with_cached - 1
            } else {
                fail "the idle MIGRATE connection was not closed"
            }
        }
    }
}

start_server {tags {dump} overrides {requirepass secret}} {
    start_server {tags {dump}} {
        test {MIGRATE AUTH to a target with a password} {
            r set k v
            assert_error {ERR Target instance replied with error: NOAUTH*} \
                {r migrate [srv -1 host] [srv -1 port] k 0 5000}
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k 0 5000 auth secret]
            assert_equal 0 [r exists k]
            r set k2 v2
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k2 0 5000 auth2 default secret]
            r -1 auth secret
            assert_equal {v v2} [r -1 mget k k2]
        }
    }
}

start_server {tags {dump redistp} binary /usr/bin/redis-server} {
    start_server {tags {dump redistp}} {
        test {Payloads move both ways between Redis 7.0 and redis-tp} {
            r -1 flushall
            r flushall
            r -1 set s [string repeat abc 40]
            r -1 set n 42
            r -1 rpush l a b 3
            r -1 sadd st 1 2 3
            r -1 sadd sh x y z
            r -1 zadd z 1 a 2 b
            r -1 hset h f v
            r -1 xadd x 1-1 f v
            r -1 xgroup create x g 0
            foreach k {s n l st sh z h x} {
                set d [r -1 dump $k]
                assert_equal OK [r restore $k 0 $d]
                assert_equal [r -1 debug digest-value $k] [r debug digest-value $k]
                if {$k ni {sh h}} {
                    # Unordered hash tables aside, the payloads are byte for byte the same.
                    assert_equal $d [r dump $k]
                }
                r -1 del $k
                assert_equal OK [r -1 restore $k 0 [r dump $k]]
                assert_equal [r debug digest-value $k] [r -1 debug digest-value $k]
            }
        }

        test {MIGRATE between Redis 7.0 and redis-tp} {
            r -1 flushall
            r flushall
            r set k v
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] k [srv -1 db] 5000]
            assert_equal v [r -1 get k]
            assert_equal OK [r -1 migrate [srv 0 host] [srv 0 port] k [srv 0 db] 5000]
            assert_equal v [r get k]
            assert_equal 0 [r -1 exists k]
        }

        test {MIGRATE of a temporary key to Redis 7.0: the key arrives as a plain key} {
            r -1 flushall
            r flushall
            set rd [redis_deferring_client]
            $rd settp lock me FENCE
            assert {[$rd read] > 0}
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] lock [srv -1 db] 5000]
            assert_equal 0 [r exists lock]
            $rd tpkeys
            assert_equal {} [$rd read]
            assert_equal me [r -1 get lock]
            assert_equal -1 [r -1 ttl lock]
            $rd close
        }
    }
}

# MIGRATE between two redis-tp servers: the ownership travels (TPADOPT), and what the target
# appends to its AOF replays to the same owner (so a reload releases the key, as every
# temporary key of a replay is released at its end).
start_server {tags {dump redistp} overrides {appendonly yes}} {
    start_server {tags {dump redistp}} {
        test {MIGRATE of a session's key to redis-tp: resumable there, released by an AOF reload} {
            r -1 flushall
            r flushall
            set rd [redis_deferring_client]
            $rd session open 600000
            set token [$rd read]
            $rd settp lock me FENCE
            set fence [$rd read]
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] lock [srv -1 db] 5000]
            assert_equal 0 [r exists lock]
            assert_equal $fence [r -1 object fence lock]
            set there [redis_deferring_client -1]
            $there session resume $token
            assert_equal OK [$there read]
            $there tpkeys
            assert_equal lock [dict get [lindex [$there read] 0] key]
            $there settp other o FENCE
            assert {[$there read] > $fence}
            # The AOF holds RESTORE, then SESSION CREATE/OWN: the replay owns the key and
            # releases it at the end of the load, instead of keeping a plain key forever.
            r -1 debug loadaof
            assert_equal 0 [r -1 exists lock other]
            $rd close
            $there close
        }

        test {MIGRATE of a plain connection's key to redis-tp: released after tp-failover-grace-ms} {
            r -1 flushall
            r flushall
            r -1 config set tp-failover-grace-ms 100
            set rd [redis_deferring_client]
            $rd settp lock me
            assert_equal 1 [$rd read]
            assert_equal OK [r migrate [srv -1 host] [srv -1 port] lock [srv -1 db] 5000]
            set waiter [redis_deferring_client -1]
            $waiter bsettp lock w 0
            assert_equal 1 [$waiter read]
            assert_equal w [r -1 get lock]
            $rd close
            $waiter close
        }
    }
}
