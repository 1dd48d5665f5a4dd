# RDB files moving between Debian's Redis 7.0 and redis-tp, both ways, compared key by key.
#
# Each test fills one server (the writer) with a data set covering every type in every encoding
# Redis 7.0 writes, SAVEs, copies dump.rdb into a fresh directory and starts the other server
# (the reader) on it; then both run side by side and every key of every database is compared:
# TYPE, OBJECT ENCODING, DEBUG DIGEST-VALUE (the digest of the value's contents), the TTL, the
# whole XINFO STREAM FULL of streams, and FUNCTION LIST WITHCODE. Our files must also pass
# Debian's redis-check-rdb ("RDB looks OK", exit 0).
#
# The file is tagged redistp: it starts both binaries itself, so it is a cross check rather than
# a test of one server (against --server /usr/bin/redis-server it would compare Redis with
# Redis, and is skipped). Without /usr/bin/redis-server the blocks are skipped too.

set ::rdbx_redis /usr/bin/redis-server
set ::rdbx_check /usr/bin/redis-check-rdb
set ::rdbx_dirs {}

# A fresh directory for a server that loads a copied file (removed at the end of the file).
proc rdbx_dir {} {
    set d [::server::new_dir]
    lappend ::rdbx_dirs $d
    return $d
}

# Copies the dump.rdb of the server at `level` into a new directory and returns the directory.
proc rdbx_copy_dump {{level 0}} {
    set d [rdbx_dir]
    file copy -force [server_path $level dump.rdb] [file join $d dump.rdb]
    return $d
}

# The writer's data set: every type in every encoding Redis 7.0 writes, in databases 0, 3, 9
# (the clients' default) and 15. `big` adds four aggregates of 100000 elements.
proc rdbx_fill {{big 0} {level 0}} {
    set ::rdbx_level $level
    rr flushall
    rr function flush
    # Strings: int, negative int, over 32 bits, embstr, raw, compressible (LZF), binary.
    rr set s:int 12345
    rr set s:neg -42
    rr set s:int64 9223372036854775807
    rr set s:embstr hello
    rr set s:raw [string repeat r 100]
    rr set s:lzf [string repeat abcd 1000]
    rr set s:binary "a\x00b\xffc\r\n"
    rr set "bin\x00key\xff" v
    rr set s:float 3.14159
    # Lists: listpack, quicklist of several nodes, a long element.
    rr rpush l:lp a b c 1 2 3 -5
    rr rpush l:ql {*}[lmap i [lseq 0 2999] {format v%d $i}]
    rr rpush l:long small [string repeat L 5000] small2
    # Plain nodes: elements over the packed threshold, one an integer written as such.
    rr debug quicklist-packed-threshold 100
    rr rpush l:plain a [string repeat P 300] b [string repeat Q 150] 123456789
    rr debug quicklist-packed-threshold 1b
    rr rpush l:plain1 12345 x
    rr debug quicklist-packed-threshold 0
    # Sets: intset, hashtable by size and by member type.
    rr sadd set:int 1 2 3 -4 100000
    rr sadd set:ints {*}[lseq 0 599]
    rr sadd set:ht a b c
    # Sorted sets: listpack with inf/-inf/negative/fractional scores, skiplist by count and by
    # member length.
    rr zadd z:lp 1 a 2.5 b -3 c inf d -inf e 0 f
    rr zadd z:sl {*}[concat {*}[lmap i [lseq 0 199] {list $i m$i}]]
    rr zadd z:long 1 [string repeat m 100] -0.5 x 1e300 y
    # Hashes: listpack, hashtable by count and by value size.
    rr hset h:lp f1 v1 f2 2 f3 "x\x00y"
    rr hset h:count {*}[concat {*}[lmap i [lseq 0 599] {list f$i v$i}]]
    rr hset h:long f [string repeat V 100]
    # Streams: several nodes, deleted entries, groups with PEL and consumers, an emptied one.
    for {set i 1} {$i <= 250} {incr i} {rr xadd st:big $i-1 f[expr {$i % 5}] v$i}
    rr xdel st:big 1-1 100-1 250-1
    rr xgroup create st:big g1 0
    rr xgroup create st:big g2 200-1 entriesread 5
    rr xreadgroup group g1 alice count 10 streams st:big >
    rr xreadgroup group g1 bob count 3 streams st:big >
    rr xack st:big g1 2-1
    rr xgroup createconsumer st:big g1 carol
    rr xadd st:empty 1-1 a 1
    rr xdel st:empty 1-1
    rr xadd st:small * a 1 b 2
    # HyperLogLogs: sparse and dense.
    rr pfadd hll:sparse a b c d
    rr pfadd hll:dense {*}[lmap i [lseq 0 4999] {format e%d $i}]
    # Expiries.
    rr set ttl:ms v px 100000000
    rr set ttl:s v ex 50000
    rr hset ttl:hash f v
    rr pexpireat ttl:hash 32503680000000
    # Other databases (the default client is in 9).
    rr select 0
    rr set db0:key zero
    rr select 3
    rr rpush db3:list x y
    rr select 15
    rr zadd db15:zset 1 a
    rr select 9
    # A function library.
    rr function load {#!lua name=rdbxlib
        redis.register_function('rdbx_echo', function(keys, args) return args[1] end)
        redis.register_function{function_name='rdbx_ro', callback=function() return 1 end,
                                flags={'no-writes'}}}
    if {$big} {
        rr rpush big:list {*}[lseq 0 99999]
        rr sadd big:set {*}[lmap i [lseq 0 99999] {format m%d $i}]
        rr zadd big:zset {*}[concat {*}[lmap i [lseq 0 99999] {list $i m$i}]]
        rr hset big:hash {*}[concat {*}[lmap i [lseq 0 99999] {list f$i $i}]]
    }
}

# The client of the server rdbx_fill is filling.
proc rr {args} {
    return [r $::rdbx_level {*}$args]
}

# 0..n-1 (Tcl 8.6 has no lseq).
proc lseq {from to} {
    set out {}
    for {set i $from} {$i <= $to} {incr i} {lappend out $i}
    return $out
}

# Every key of database `db` on the server at `level`, sorted (SCAN, bounded).
proc rdbx_keys {level db} {
    r $level select $db
    set keys {}
    set cursor 0
    for {set i 0} {$i < 100000} {incr i} {
        lassign [r $level scan $cursor count 1000] cursor batch
        lappend keys {*}$batch
        if {$cursor eq "0"} break
    }
    return [lsort -unique $keys]
}

# Compares the datasets of the servers at levels `a` and `b` key by key; returns the list of
# differences (empty when they hold the same data). Leaves both clients in database 9.
proc rdbx_differences {a b} {
    set diffs {}
    for {set db 0} {$db < 16} {incr db} {
        set ka [rdbx_keys $a $db]
        set kb [rdbx_keys $b $db]
        if {$ka ne $kb} {
            lappend diffs "db $db keys: [llength $ka] vs [llength $kb]"
            continue
        }
        r $b select $db
        foreach k $ka {
            foreach cmd {{type} {object encoding} {debug digest-value}} {
                set va [r $a {*}$cmd $k]
                set vb [r $b {*}$cmd $k]
                if {$va ne $vb} {lappend diffs "db $db key $k: $cmd: $va vs $vb"}
            }
            set ta [r $a pttl $k]
            set tb [r $b pttl $k]
            if {($ta < 0 || $tb < 0) ? $ta != $tb : abs($ta - $tb) > 60000} {
                lappend diffs "db $db key $k: pttl $ta vs $tb"
            }
            if {[r $a type $k] eq "list"} {
                # The node layout too: a plain node must load as a plain node.
                regexp {ql_nodes:\d+} [r $a debug object $k] na
                regexp {ql_nodes:\d+} [r $b debug object $k] nb
                if {$na ne $nb} {lappend diffs "db $db key $k: $na vs $nb"}
            }
            if {[r $a type $k] eq "stream"} {
                set xa [r $a xinfo stream $k full]
                set xb [r $b xinfo stream $k full]
                if {$xa ne $xb} {lappend diffs "db $db key $k: xinfo stream full: $xa vs $xb"}
            }
        }
    }
    r $a select 9
    r $b select 9
    set fa [rdbx_functions $a]
    set fb [rdbx_functions $b]
    if {$fa ne $fb} {lappend diffs "function list: $fa vs $fb"}
    return $diffs
}

# FUNCTION LIST WITHCODE with each library's functions sorted by name (Redis lists them in its
# hash table's order, which differs from process to process).
proc rdbx_functions {level} {
    set out {}
    foreach lib [r $level function list withcode] {
        set fns [lsort -index 1 [dict get $lib functions]]
        dict set lib functions $fns
        lappend out $lib
    }
    return $out
}

# Asserts that the servers at `a` (the writer) and `b` (which loaded the writer's dump.rdb)
# hold the same data. The writer first reloads the same file itself (DEBUG RELOAD NOSAVE), so
# encodings that loading decides are compared alike: Redis loads a short string created raw
# (a HyperLogLog, an APPENDed value) as embstr.
proc rdbx_assert_same {a b} {
    assert_equal OK [r $a debug reload nosave]
    set diffs [rdbx_differences $a $b]
    assert_equal {} [lrange $diffs 0 9] "[llength $diffs] differences"
}

# Runs Debian's redis-check-rdb on a file: returns {exit-code output}.
proc rdbx_check_rdb {path} {
    set rc [catch {exec $::rdbx_check $path 2>@1} out opts]
    set code 0
    if {$rc} {
        set ec [dict get $opts -errorcode]
        set code [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : -1}]
    }
    return [list $code $out]
}

if {![file executable $::rdbx_redis] || ![file executable $::rdbx_check]} {
    puts "\[skip\]: rdb-compat: $::rdbx_redis or $::rdbx_check missing"
    return
}

tags {redistp persistence} {

start_server [list binary $::rdbx_redis] {
    test {A file Redis 7.0 wrote loads into redis-tp with the same keys, values, encodings and TTLs} {
        rdbx_fill
        # Plain quicklist nodes: Redis 7.0 makes them for elements over a threshold that
        # only DEBUG lowers (1 GB by default).
        r debug quicklist-packed-threshold 100
        r rpush l:plain a [string repeat P 300] b [string repeat Q 5000]
        r debug quicklist-packed-threshold 1073741824
        assert_equal OK [r save]
        start_server [list dir [rdbx_copy_dump]] {
            assert_equal [r -1 dbsize] [r dbsize]
            rdbx_assert_same -1 0
            assert_equal [lrange [r -1 lrange l:plain 0 -1] 0 end] [r lrange l:plain 0 -1]
            assert_equal 1 [count_log_message "*Loading RDB produced by version 7.0.*"]
            assert_equal 1 [count_log_message "*Done loading RDB, keys loaded: *"]
        }
    }

    test {redis-tp loads Redis 7.0's big keys, empty databases and an uncompressed file} {
        r flushall
        r config set rdbcompression no
        rdbx_fill 1
        r select 0
        r flushdb
        r select 9
        assert_equal OK [r save]
        r config set rdbcompression yes
        start_server [list dir [rdbx_copy_dump]] {
            rdbx_assert_same -1 0
            assert_equal 100000 [r llen big:list]
            r select 0
            assert_equal 0 [r dbsize]
            r select 9
        }
    }

    test {Keys whose time passed are written by Redis and dropped by redis-tp when it loads} {
        r flushall
        r debug set-active-expire 0
        r set gone v px 1
        r set stays v
        after 5
        assert_equal OK [r save]
        r debug set-active-expire 1
        start_server [list dir [rdbx_copy_dump]] {
            assert_equal 0 [r exists gone]
            assert_equal 1 [r exists stays]
            assert_equal 1 [count_log_message "*keys loaded: 1, keys expired: 1.*"]
        }
    }
}

start_server [list binary $::rdbx_redis] {
    start_server {} {
        test {For the same commands, both files hold byte-identical values (DUMP-level payloads)} {
            rdbx_fill 0 -1
            rdbx_fill 0 0
            assert_equal OK [r -1 save]
            assert_equal OK [r save]
            # Streams are left out: their payloads hold consumers' seen-times and the PEL's
            # delivery times. Hash-table sets and hashes are compared as sorted elements.
            set rc [catch {exec python3 [file join $::server::root utils rdb-compare.py] \
                --files [server_path -1 dump.rdb] [server_path 0 dump.rdb] \
                --skip-type 15,19} out]
            assert_equal 0 $rc $out
            assert_match {* 0 differences*} $out
        }
    }
}

start_server [list binary $::rdbx_redis overrides {rdbchecksum no}] {
    test {A Redis file without a checksum (CRC 0) loads into redis-tp, which checks by default} {
        rdbx_fill
        assert_equal OK [r save]
        set f [open [server_path 0 dump.rdb] rb]
        set data [read $f]
        close $f
        assert_equal [string repeat "\x00" 8] [string range $data end-7 end]
        start_server [list dir [rdbx_copy_dump]] {
            assert_equal yes [lindex [r config get rdbchecksum] 1]
            rdbx_assert_same -1 0
            assert_equal 1 [count_log_message "*RDB file was saved with checksum disabled*"]
        }
    }
}

start_server [list binary $::rdbx_redis overrides {maxmemory-policy allkeys-lfu}] {
    test {LFU counters move from Redis to redis-tp (the FREQ opcode)} {
        r flushall
        r set k v
        set payload [r dump k]
        r restore hot 0 $payload freq 100
        r restore cold 0 $payload freq 0
        assert_equal OK [r save]
        start_server [list dir [rdbx_copy_dump] overrides {maxmemory-policy allkeys-lfu}] {
            # The counter decays one step per lfu-decay-time minute from the load on.
            assert_range [r object freq hot] 99 100
            assert_range [r object freq cold] 0 1
        }
    }
}

start_server [list binary $::rdbx_redis overrides {maxmemory-policy allkeys-lru}] {
    test {LRU idle times move from Redis to redis-tp (the IDLE opcode)} {
        r flushall
        r set k v
        r restore old 0 [r dump k] idletime 50000
        assert_equal OK [r save]
        start_server [list dir [rdbx_copy_dump] overrides {maxmemory-policy allkeys-lru}] {
            set ours [r object idletime old]
            assert {$ours >= 50000}
            assert {$ours <= [r -1 object idletime old] + 2}
        }
    }
}

start_server {} {
    test {A file redis-tp wrote passes redis-check-rdb and loads into Redis with the same data} {
        rdbx_fill
        assert_equal OK [r save]
        lassign [rdbx_check_rdb [server_path 0 dump.rdb]] code out
        assert_equal 0 $code
        assert_match {*RDB looks OK*} $out
        assert_match {*AUX FIELD redis-ver = '7.0.15'*} $out
        start_server [list binary $::rdbx_redis dir [rdbx_copy_dump]] {
            assert_equal [r -1 dbsize] [r dbsize]
            rdbx_assert_same -1 0
        }
    }

    test {Big keys and an uncompressed file from redis-tp load into Redis} {
        r config set rdbcompression no
        rdbx_fill 1
        assert_equal OK [r save]
        r config set rdbcompression yes
        lassign [rdbx_check_rdb [server_path 0 dump.rdb]] code out
        assert_equal 0 $code
        start_server [list binary $::rdbx_redis dir [rdbx_copy_dump]] {
            rdbx_assert_same -1 0
        }
    }

    test {An empty dataset from redis-tp is a valid file Redis loads} {
        r flushall
        r function flush
        assert_equal OK [r save]
        lassign [rdbx_check_rdb [server_path 0 dump.rdb]] code out
        assert_equal 0 $code
        assert_match {*RDB looks OK*} $out
        start_server [list binary $::rdbx_redis dir [rdbx_copy_dump]] {
            assert_equal 0 [r dbsize]
            assert_equal {} [r function list]
        }
    }

    test {Keys whose time passed are dropped by Redis when it loads redis-tp's file} {
        r flushall
        r debug set-active-expire 0
        r set gone v px 1
        r set stays v
        after 5
        assert_equal OK [r save]
        r debug set-active-expire 1
        start_server [list binary $::rdbx_redis dir [rdbx_copy_dump]] {
            assert_equal 0 [r exists gone]
            assert_equal 1 [r exists stays]
            assert_equal 1 [count_log_message "*keys loaded: 1, keys expired: 1.*"]
        }
    }

    test {Temporary keys are not in the file, and the fence aux field is one Redis ignores} {
        r flushall
        r set ordinary v
        r settp temp v
        set token [r settp fenced v FENCE]
        assert_equal OK [r save]
        lassign [rdbx_check_rdb [server_path 0 dump.rdb]] code out
        assert_equal 0 $code
        assert_match "*AUX FIELD redistp-fence = '$token'*" $out
        assert_match {*1 keys read*} $out
        start_server [list binary $::rdbx_redis dir [rdbx_copy_dump]] {
            assert_equal {ordinary} [r keys *]
        }
    }
}

start_server {overrides {rdbchecksum no}} {
    test {A redis-tp file without a checksum loads into Redis and passes redis-check-rdb} {
        rdbx_fill
        assert_equal OK [r save]
        lassign [rdbx_check_rdb [server_path 0 dump.rdb]] code out
        assert_equal 0 $code
        start_server [list binary $::rdbx_redis dir [rdbx_copy_dump]] {
            rdbx_assert_same -1 0
        }
    }
}

start_server {overrides {maxmemory-policy allkeys-lfu}} {
    test {LFU counters move from redis-tp to Redis} {
        r flushall
        r set hot v
        r set cold v
        for {set i 0} {$i < 2000} {incr i} {r get hot}
        set freq [r object freq hot]
        assert {$freq > 5}
        assert_equal OK [r save]
        start_server [list binary $::rdbx_redis dir [rdbx_copy_dump] \
                          overrides {maxmemory-policy allkeys-lfu}] {
            assert_range [r object freq hot] [expr {$freq - 1}] $freq
            assert_range [r object freq cold] 0 [r -1 object freq cold]
        }
    }
}

}

foreach d $::rdbx_dirs {catch {file delete -force $d}}
