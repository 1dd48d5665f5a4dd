# Generic key and expiry commands, the corners keyspace.tcl, expire.tcl and
# scan.tcl leave out: which lookups count as keyspace hits or accesses, how
# expired keys look to each command, argument parsing order and limits,
# COPY's encodings, SCAN's cursor syntax, OBJECT REFCOUNT/HELP, MEMORY USAGE.

proc hits_misses {} {
    list [s keyspace_hits] [s keyspace_misses]
}

# Runs body and returns how much keyspace_hits and keyspace_misses grew.
proc stat_delta {body} {
    lassign [hits_misses] h0 m0
    uplevel 1 $body
    lassign [hits_misses] h1 m1
    list [expr {$h1 - $h0}] [expr {$m1 - $m0}]
}

start_server {tags {keyspace}} {
    test {Read lookups count keyspace hits and misses, write lookups do not} {
        r flushdb
        r set a 1
        assert_equal [stat_delta {r exists a nokey a}] {2 1}
        assert_equal [stat_delta {r type a; r type nokey}] {1 1}
        assert_equal [stat_delta {r ttl a; r pttl nokey; r expiretime a}] {2 1}
        assert_equal [stat_delta {r object encoding a; r object refcount nokey}] {1 1}
        assert_equal [stat_delta {r touch a nokey}] {1 1}
        assert_equal [stat_delta {r copy a b; r copy nokey c}] {1 1}
        assert_equal [stat_delta {
            r rename b c; r renamenx c d; r expire d 100; r persist d; r del d nokey
        }] {0 0}
        assert_equal [stat_delta {r memory usage a; r memory usage nokey}] {0 0}
        assert_equal [stat_delta {r keys *; r dbsize; r randomkey}] {0 0}
        # SCAN's TYPE filter looks every candidate key up.
        r set b 2
        assert_equal [stat_delta {r scan 0 type string count 100}] {2 0}
        assert_equal [stat_delta {r scan 0 count 100}] {0 0}
    }

    test {TOUCH is an access, EXISTS, TYPE, TTL and OBJECT are not} {
        r flushdb
        r set idle v
        after 2100
        r exists idle
        r type idle
        r ttl idle
        r object encoding idle
        assert_range [r object idletime idle] 2 4
        assert_equal [r touch idle] 1
        assert_range [r object idletime idle] 0 1
    }

    test {While a BGSAVE child runs, reads and in-place edits leave the access time} {
        # As in Redis: writing it would copy a page for the child on every read.
        r flushdb
        r config set save ""
        r set idle v
        r rpush list a
        after 2100
        r config set rdb-key-save-delay 500000
        r bgsave
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 1} else {
            fail "no background save started"
        }
        r get idle
        r touch idle
        r rpush list b
        assert_range [r object idletime idle] 2 4
        assert_range [r object idletime list] 2 4
        r config set rdb-key-save-delay 0
        wait_for_condition 200 50 {[s rdb_bgsave_in_progress] == 0} else {
            fail "the background save never ended"
        }
        # The child is gone: accesses count again.
        r get idle
        r rpush list c
        assert_range [r object idletime idle] 0 1
        assert_range [r object idletime list] 0 1
    }

    test {RENAME and RENAMENX carry the TTL to a new name} {
        r flushdb
        r set src v ex 100
        assert_equal [r renamenx src dst] 1
        assert_range [r ttl dst] 99 100
        assert_equal [r ttl src] -2
        r set plain v
        assert_equal [r renamenx plain dst] 0
        assert_equal [r ttl plain] -1
    }

    test {MOVE, COPY and SWAPDB parse the DB index as a 32-bit integer} {
        r set k v
        set range_err {ERR value is out of range, value must between -2147483648 and 2147483647}
        assert_error $range_err {r move k 99999999999}
        assert_error $range_err {r copy k j db 99999999999}
        assert_error {ERR DB index is out of range} {r move k -1}
        assert_error {ERR DB index is out of range} {r copy k j db -1}
        assert_error {ERR DB index is out of range} {r move k 2147483647}
        assert_error {ERR invalid first DB index} {r swapdb 2147483648 0}
        assert_error {ERR invalid second DB index} {r swapdb 0 99999999999}
        assert_error {ERR invalid second DB index} {r swapdb 0 1.5}
        assert_error {ERR DB index is out of range} {r swapdb 0 -1}
        # The index is checked before the key: a missing key still gets the errors.
        assert_error {ERR source and destination objects are the same} {r move nokey [srv db]}
        assert_error {ERR DB index is out of range} {r move nokey 16}
        assert_error {ERR source and destination objects are the same} {r copy nokey nokey}
        r del k
    }

    test {COPY keeps the string encoding and the TTL} {
        r flushdb
        r set int 123
        r set emb hello
        r set big 12345678901234567890
        r set long [string repeat x 50]
        r set app hello
        r append app x
        r pexpire emb 100000
        foreach {key enc} {int int emb embstr big embstr long raw app raw} {
            assert_equal [r copy $key $key:copy] 1
            assert_encoding $enc $key:copy
            assert_equal [r get $key:copy] [r get $key]
        }
        assert_range [r pttl emb:copy] 98000 100000
        assert_equal [r ttl int:copy] -1
        # The copy is independent of its source.
        r append emb:copy !
        assert_equal [r get emb] hello
        assert_equal [r get emb:copy] hello!
    }

    test {COPY options may repeat; the last DB wins} {
        r flushdb
        r set k v
        assert_equal [r copy k j replace replace] 1
        assert_equal [r copy k k db 1 db 2] 1
        set c [redis_client]
        $c select 2
        assert_equal [$c get k] v
        $c select 1
        assert_equal [$c exists k] 0
        $c select 2
        $c flushdb
        $c close
        assert_error {ERR syntax error} {r copy k j db 1 foo}
        assert_error {ERR syntax error} {r copy k j replace db}
    }

    test {SCAN parses its cursor like strtoull} {
        r flushdb
        r set a 1
        foreach cursor {0 00 +0 {} -1 18446744073709551615 -18446744073709551615} {
            set reply [r scan $cursor]
            assert_equal [llength $reply] 2 "cursor '$cursor'"
        }
        assert_equal [lindex [r scan {}] 1] {a}
        foreach cursor {{ 1} {1 } + - 0x1 1e3 -18446744073709551616 18446744073709551616} {
            assert_error {ERR invalid cursor} {r scan $cursor}
        }
        # The cursor is checked before the options.
        assert_error {ERR invalid cursor} {r scan abc count 0}
    }

    test {SCAN options: huge COUNT, case-insensitive TYPE, MATCH *} {
        r flushdb
        r mset a 1 b 2 c 3
        assert_equal [lsort [lindex [r scan 0 count 9223372036854775807] 1]] {a b c}
        assert_equal [lsort [lindex [r scan 0 type STRING count 100] 1]] {a b c}
        assert_equal [lindex [r scan 0 type nosuchtype count 100] 1] {}
        assert_equal [lsort [lindex [r scan 0 match * count 100] 1]] {a b c}
        assert_equal [lsort [lindex [r scan 0 MATCH {[ab]} COUNT 100] 1]] {a b}
        assert_error {ERR value is not an integer or out of range} {
            r scan 0 count 99999999999999999999
        }
        assert_error {ERR syntax error} {r scan 0 count 10 type}
    }

    test {OBJECT REFCOUNT reports shared small integers} {
        foreach {value refcount} {0 2147483647 9999 2147483647 10000 1 -1 1 01 1 abc 1} {
            r set n $value
            assert_equal [r object refcount n] $refcount "value $value"
        }
        r set n 41
        r incr n
        assert_equal [r object refcount n] 2147483647
        r del n
    }

    test {OBJECT subcommands on a missing key reply nil} {
        foreach sub {encoding refcount idletime freq} {
            assert_equal [r object $sub nokey] {} $sub
        }
    }

    test {OBJECT HELP lists the subcommands} {
        set help [r object help]
        assert_equal [llength $help] 15
        assert_equal [lindex $help 0] \
            {OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:}
        assert_equal [lindex $help 1] {ENCODING <key>}
        assert_equal [lindex $help end-1] {HELP}
        assert_equal [lindex $help end] {    Prints this help.}
        assert_error {ERR wrong number of arguments for 'object|help' command} {r object help x}
    }

    test {MEMORY USAGE} {
        r flushdb
        r set small v
        r set large [string repeat x 1000]
        set s [r memory usage small]
        set l [r memory usage large]
        assert_morethan $s 0
        assert_morethan_equal $l [expr {$s + 1000}]
        assert_equal [r memory usage small samples 0] $s
        assert_equal [r memory usage small SAMPLES 5 samples 6] $s
        assert_equal [r memory usage nokey] {}
        assert_error {ERR syntax error} {r memory usage small samples -1}
        assert_error {ERR syntax error} {r memory usage nokey samples -1}
        assert_error {ERR value is not an integer or out of range} {
            r memory usage small samples x
        }
        assert_error {ERR syntax error} {r memory usage small samples}
        assert_error {ERR syntax error} {r memory usage small foo}
        assert_error {ERR wrong number of arguments for 'memory|usage' command} {r memory usage}
    }

    test {SWAPDB, FLUSHDB and FLUSHALL take the TTLs along} {
        r flushall
        set c [redis_client]
        $c select 1
        $c set vol v ex 100
        $c set perm v
        assert_equal [r swapdb 1 2] OK
        $c select 2
        assert_range [$c ttl vol] 99 100
        assert_equal [$c ttl perm] -1
        assert_match {keys=2,expires=1*} [getInfoProperty [r info keyspace] db2]
        assert_equal [getInfoProperty [r info keyspace] db1] {}
        $c flushdb
        assert_equal [getInfoProperty [r info keyspace] db2] {}
        $c set vol v ex 100
        r flushall
        assert_equal [$c ttl vol] -2
        assert_equal [getInfoProperty [r info keyspace] db2] {}
        $c close
    }
}

start_server {tags {expire}} {
    test {EXPIRE options are case-insensitive and may repeat} {
        r set k v
        assert_equal [r expire k 100 NX] 1
        assert_equal [r expire k 200 Xx xx] 1
        assert_range [r ttl k] 199 200
        assert_equal [r expire k 300 gt GT] 1
        assert_equal [r expire k 100 lT] 1
        assert_range [r ttl k] 99 100
        assert_equal [r expire k 100 nx NX] 0
    }

    test {EXPIRE option order: unknown option, conflicts, then the time} {
        r set k v
        assert_error {ERR Unsupported option foo} {r expire k 10 nx xx foo}
        assert_error {ERR Unsupported option foo} {r expire k abc foo}
        assert_error {ERR NX and XX, GT or LT options at the same time are not compatible} {
            r expire k abc nx xx
        }
        assert_error {ERR NX and XX, GT or LT options at the same time are not compatible} {
            r expire nokey 10 nx lt
        }
        assert_error {ERR GT and LT options at the same time are not compatible} {
            r expireat k 10 xx gt lt
        }
        assert_equal [r ttl k] -1
    }

    test {A past time with GT or LT: the options decide before the deletion} {
        r set k v
        assert_equal [r expire k -5 gt] 0
        assert_equal [r exists k] 1
        assert_equal [r expire k 0 lt] 1
        assert_equal [r exists k] 0
        r set k v ex 100
        assert_equal [r expire k -5 gt] 0
        assert_equal [r exists k] 1
        assert_equal [r pexpire k 0 xx] 1
        assert_equal [r exists k] 0
        r set k v
        assert_equal [r expire k -5 xx] 0
        assert_equal [r exists k] 1
    }

    test {Expire times at the limits of 64 bits} {
        r set k v
        assert_equal [r pexpireat k 9223372036854775807] 1
        assert_equal [r pexpiretime k] 9223372036854775807
        assert_equal [r expiretime k] 9223372036854776
        assert_morethan [r ttl k] 9000000000000000
        assert_morethan [r pttl k] 9000000000000000000
        assert_error {ERR invalid expire time in 'pexpire' command} {
            r pexpire k 9223372036854775000
        }
        assert_error {ERR invalid expire time in 'expireat' command} {
            r expireat k -9223372036854775808
        }
        assert_equal [r pexpiretime k] 9223372036854775807
        # The most negative times are valid: they are in the past.
        assert_equal [r pexpire k -9223372036854775808] 1
        assert_equal [r exists k] 0
        r set k v
        assert_equal [r expire k -9223372036854775] 1
        assert_equal [r exists k] 0
        r set k v
        assert_equal [r pexpireat k -9223372036854775808] 1
        assert_equal [r exists k] 0
    }

    test {An EXPIRE in the past is a deletion, not an expiry} {
        set before [s expired_keys]
        r set k v
        assert_equal [r expire k -1] 1
        r set k v
        assert_equal [r pexpireat k 1] 1
        assert_equal [r exists k] 0
        assert_equal [s expired_keys] $before
    }
}

start_server {tags {expire needs:debug}} {
    # Leaves `n` keys prefix:0.. whose TTL has passed but that active expiry has not
    # reclaimed (it is switched off until the caller switches it back on).
    proc make_stale {prefix n} {
        r debug set-active-expire 0
        for {set i 0} {$i < $n} {incr i} {r set $prefix:$i v px 10}
        after 50
    }

    test {DEL and UNLINK do not count expired keys, which are expired instead} {
        r flushdb
        make_stale gone 3
        set before [s expired_keys]
        assert_equal [r del gone:0 gone:1] 0
        assert_equal [r unlink gone:2] 0
        assert_equal [expr {[s expired_keys] - $before}] 3
        assert_equal [r dbsize] 0
        r debug set-active-expire 1
    }

    test {KEYS hides expired keys without deleting them; SCAN deletes them} {
        r flushdb
        make_stale stale 5
        r set live v
        assert_equal [r keys *] {live}
        assert_equal [r keys stale:*] {}
        assert_equal [r dbsize] 6
        set cursor 0
        set seen {}
        while 1 {
            lassign [r scan $cursor] cursor batch
            lappend seen {*}$batch
            if {$cursor == 0} break
        }
        assert_equal $seen {live}
        assert_equal [r dbsize] 1
        r debug set-active-expire 1
    }

    test {Expired keys are missing for RENAME, MOVE, COPY, EXPIRE and PERSIST} {
        r flushdb
        make_stale s 6
        assert_error {ERR no such key} {r rename s:0 x}
        assert_error {ERR no such key} {r renamenx s:1 x}
        assert_equal [r move s:2 3] 0
        assert_equal [r copy s:3 x] 0
        assert_equal [r expire s:4 100] 0
        assert_equal [r persist s:5] 0
        assert_equal [r ttl s:5] -2
        assert_equal [r dbsize] 0
        r debug set-active-expire 1
    }

    test {An expired destination does not block RENAMENX, MOVE or COPY} {
        r flushdb
        make_stale d 3
        r mset a 1 b 2 c 3
        assert_equal [r renamenx a d:0] 1
        assert_equal [r get d:0] 1
        assert_equal [r copy b d:1] 1
        assert_equal [r get d:1] 2
        set c [redis_client]
        $c select 5
        $c set d:2 v px 10
        after 50
        r rename c d:2
        assert_equal [r move d:2 5] 1
        assert_equal [$c get d:2] 3
        $c flushdb
        $c close
        r debug set-active-expire 1
    }

    test {RANDOMKEY returns nil when every key has expired} {
        r flushdb
        make_stale r 20
        assert_equal [r randomkey] {}
        assert_equal [r dbsize] 0
        r set live v
        make_stale r 20
        assert_equal [r randomkey] {live}
        r debug set-active-expire 1
    }
}

start_server {tags {keyspace external:skip}
              overrides {maxmemory 100mb maxmemory-policy allkeys-lru}} {
    test {With an LRU policy small integers are not shared} {
        r set n 5
        assert_equal [r object refcount n] 1
        assert_encoding int n
    }
}
