# HyperLogLog: PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST, and the HYLL string they share with
# GET/SET. What is checked: replies and estimates (deterministic: the same elements give the
# same estimate on Redis 7.0 and here), the stored bytes (header, cache bit, sparse opcodes,
# dense registers), sparse to dense promotion at hll-sparse-max-bytes, corrupt and foreign
# strings, keyspace notifications, WATCH, and the string nature of the value (COPY, APPEND,
# OBJECT ENCODING). Every test passes against Debian's redis-server 7.0, except the one that
# moves HLLs between redis-tp and that Redis (tagged redistp).

# The 16-byte header: magic, encoding (0 dense, 1 sparse), three unused bytes, and the cached
# cardinality (8 bytes, little endian; the top bit of the last one means "stale").
proc hll_header {encoding {card 0} {stale 0}} {
    set bytes [binary format a4cx3w HYLL $encoding $card]
    if {$stale} {
        set last [expr {[scan [string index $bytes 15] %c] | 0x80}]
        set bytes [string range $bytes 0 14][format %c $last]
    }
    return $bytes
}

# A sparse HLL whose body is the given opcode bytes (a list of integers).
proc hll_sparse {opcodes {stale 1}} {
    return "[hll_header 1 0 $stale][binary format c* $opcodes]"
}

# XZERO opcode bytes covering `len` registers.
proc hll_xzero {len} {
    set l [expr {$len - 1}]
    return [list [expr {0x40 | ($l >> 8)}] [expr {$l & 0xff}]]
}

# A dense HLL whose registers all hold `value` (6 bits each, packed LSB first).
proc hll_dense_all {value {stale 1}} {
    set bits 0
    for {set i 0} {$i < 4} {incr i} {set bits [expr {$bits | ($value << (6 * $i))}]}
    set three [binary format c3 [list [expr {$bits & 0xff}] [expr {($bits >> 8) & 0xff}] \
        [expr {($bits >> 16) & 0xff}]]]
    return "[hll_header 0 0 $stale][string repeat $three 4096]"
}

# The encoding byte, the cache flag (1 = valid) and the cached value of the string at `key`.
proc hll_cache {key} {
    set v [r get $key]
    binary scan $v a4cx3w magic enc card
    # binary scan reads the 64 bits as signed: the stale bit is the sign.
    set valid [expr {$card >= 0}]
    return [list $enc $valid [expr {$card & 0x7fffffffffffffff}]]
}

start_server {tags {hll}} {
    test {PFADD creates a sparse HLL and answers whether a register changed} {
        r del h
        assert_equal 1 [r pfadd h a b c]
        assert_equal 0 [r pfadd h a b c]
        assert_equal 0 [r pfadd h]
        assert_equal 1 [r pfadd h d]
        assert_equal 4 [r pfcount h]
        assert_equal sparse [r pfdebug encoding h]
        assert_type string h
        assert_encoding raw h
    }

    test {PFADD without elements creates an empty HLL with a stale cache} {
        r del h
        assert_equal 1 [r pfadd h]
        assert_equal 0 [r pfadd h]
        assert_equal 18 [r strlen h]
        assert_equal [hll_sparse [hll_xzero 16384]] [r get h]
        assert_equal 0 [r pfcount h]
        assert_equal [hll_sparse [hll_xzero 16384] 0] [r get h]
        assert_equal Z:16384 [r pfdebug decode h]
    }

    test {PFCOUNT of a missing key is 0 and creates nothing} {
        r del nohll
        assert_equal 0 [r pfcount nohll]
        assert_equal 0 [r exists nohll]
    }

    test {Estimates are the same as Redis 7.0's for the same elements} {
        r del h
        set counts {}
        set n 0
        foreach step {10 90 900 9000 40000} {
            set batch {}
            for {set i 0} {$i < $step} {incr i} {lappend batch "element:$n"; incr n}
            for {set i 0} {$i < [llength $batch]} {incr i 1000} {
                r pfadd h {*}[lrange $batch $i [expr {$i + 999}]]
            }
            lappend counts [r pfcount h]
        }
        assert_equal {10 99 997 10017 49716} $counts
        assert_equal dense [r pfdebug encoding h]
    }

    test {Estimates stay within 2% of the truth on a fixed sample} {
        r del h
        for {set i 0} {$i < 100000} {incr i 1000} {
            set batch {}
            for {set j $i} {$j < $i + 1000} {incr j} {lappend batch $j}
            r pfadd h {*}$batch
        }
        assert_range [r pfcount h] 98000 102000
    }

    test {The sparse opcodes after a few additions} {
        r del h
        r pfadd h a b c
        assert_equal {Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603} [r pfdebug decode h]
        assert_equal 27 [r strlen h]
    }

    test {PFCOUNT of one key stores the estimate in the header and clears the stale bit} {
        r del h
        r pfadd h x y z
        assert_equal {1 0 0} [hll_cache h]
        assert_equal 3 [r pfcount h]
        assert_equal {1 1 3} [hll_cache h]
        r pfadd h x
        assert_equal {1 1 3} [hll_cache h]
        r pfadd h w
        assert_equal {1 0 3} [hll_cache h]
    }

    test {PFCOUNT answers a valid cache without reading the registers} {
        r set h "[hll_header 1 12345][binary format c* [hll_xzero 16384]]"
        assert_equal 12345 [r pfcount h]
        r set h "[hll_header 1 12345 1][binary format c* [hll_xzero 16384]]"
        assert_equal 0 [r pfcount h]
    }

    test {PFCOUNT of several keys is the union's estimate and writes no cache} {
        r del h1 h2 h3 hu
        r pfadd h1 a b c d
        r pfadd h2 c d e f
        set before1 [r get h1]
        set before2 [r get h2]
        assert_equal 6 [r pfcount h1 h2]
        assert_equal 6 [r pfcount h1 h2 h3]
        assert_equal $before1 [r get h1]
        assert_equal $before2 [r get h2]
        r pfmerge hu h1 h2
        assert_equal [r pfcount hu] [r pfcount h1 h2]
    }

    test {PFDEBUG GETREG converts to dense and lists the 16384 registers} {
        r del h
        r pfadd h a b c
        set regs [r pfdebug getreg h]
        assert_equal 16384 [llength $regs]
        assert_equal dense [r pfdebug encoding h]
        assert_equal 1 [lindex $regs 8436]
        assert_equal 2 [lindex $regs 12711]
        assert_equal 1 [lindex $regs 15780]
        assert_equal 3 [llength [lsearch -all -not -exact $regs 0]]
        assert_equal 12304 [r strlen h]
    }

    test {PFDEBUG TODENSE converts once, and the estimate does not change} {
        r del h
        r pfadd h a b c d e f g
        set c [r pfcount h]
        assert_equal 1 [r pfdebug todense h]
        assert_equal 0 [r pfdebug todense h]
        assert_equal dense [r pfdebug encoding h]
        assert_equal 12304 [r strlen h]
        assert_equal $c [r pfcount h]
        assert_error {ERR HLL encoding is not sparse} {r pfdebug decode h}
    }

    test {PFDEBUG errors} {
        r del nohll
        r rpush alist x
        r set notahll foo
        r del h
        r pfadd h a
        assert_error {ERR The specified key does not exist} {r pfdebug getreg nohll}
        assert_error {ERR The specified key does not exist} {r pfdebug nosuch nohll}
        assert_error {ERR Unknown PFDEBUG subcommand 'nosuch'} {r pfdebug nosuch h}
        assert_error {WRONGTYPE Operation against a key*} {r pfdebug encoding alist}
        assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} \
            {r pfdebug encoding notahll}
        assert_error {ERR wrong number of arguments for 'pfdebug' command} {r pfdebug getreg}
        assert_error {ERR wrong number of arguments for 'pfdebug' command} {r pfdebug getreg h x}
        assert_equal sparse [r pfdebug ENCODING h]
    }

    test {PFSELFTEST passes} {
        assert_equal OK [r pfselftest]
    }

    test {Commands on other types and other strings are type errors} {
        r del alist notahll
        r rpush alist x
        r set notahll "just a string value that is long enough"
        r set intval 12345
        foreach cmd {{pfadd alist a} {pfcount alist} {pfcount h alist} {pfmerge alist}
                     {pfmerge h alist}} {
            assert_error {WRONGTYPE Operation against a key*} {r {*}$cmd}
        }
        foreach key {notahll intval} {
            foreach cmd [list [list pfadd $key a] [list pfcount $key] [list pfcount h $key] \
                             [list pfmerge $key] [list pfmerge h $key]] {
                assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} \
                    {r {*}$cmd}
            }
        }
        assert_equal foo [r set notahll foo; r get notahll]
    }

    test {Strings with a bad header are not HLLs} {
        set body [binary format c* [hll_xzero 16384]]
        set bad [list \
            HYLL \
            [string range [hll_header 1] 0 14] \
            "HYLX[string range [hll_header 1] 4 end]$body" \
            "[binary format a4cx3w HYLL 2 0]$body" \
            "[binary format a4cx3w HYLL 255 0]$body" \
            [string range [hll_dense_all 1] 0 end-1] \
            "[hll_dense_all 1]x" \
            "[hll_header 0]$body"]
        foreach value $bad {
            r set bad $value
            assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} {r pfadd bad a}
            assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} {r pfcount bad}
            assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} \
                {r pfdebug encoding bad}
            assert_equal $value [r get bad]
        }
    }

    test {Corrupt sparse bodies: too few, too many, truncated and overflowing runs} {
        set corrupt [list \
            [hll_sparse {}] \
            [hll_sparse [hll_xzero 16383]] \
            [hll_sparse [concat [hll_xzero 16384] 0]] \
            [hll_sparse [concat [hll_xzero 16384] [hll_xzero 16384]]] \
            [hll_sparse {0x7f}] \
            [hll_sparse [concat [hll_xzero 16384] 0x40]] \
            [hll_sparse [concat [hll_xzero 16382] 0x83]] \
            [hll_sparse [concat 0xff [hll_xzero 16384]]] \
            [hll_sparse [concat [hll_xzero 16384] 0x80]]]
        foreach value $corrupt {
            r set bad $value
            assert_error {INVALIDOBJ Corrupted HLL object detected} {r pfcount bad}
            assert_error {INVALIDOBJ Corrupted HLL object detected} {r pfcount bad h}
            assert_error {INVALIDOBJ Corrupted HLL object detected} {r pfmerge dst bad}
            assert_error {INVALIDOBJ Corrupted HLL object detected} {r pfdebug todense bad}
            assert_error {INVALIDOBJ Corrupted HLL object detected} {r pfdebug getreg bad}
            assert_equal sparse [r pfdebug encoding bad]
            assert_equal $value [r get bad]
        }
        assert_equal 0 [r exists dst]
    }

    test {PFADD on a sparse body that ends early is INVALIDOBJ} {
        r set bad [hll_sparse {}]
        assert_error {INVALIDOBJ Corrupted HLL object detected} {r pfadd bad a}
        r set bad [hll_sparse [hll_xzero 100]]
        assert_error {INVALIDOBJ Corrupted HLL object detected} {r pfadd bad a b c}
    }

    test {PFDEBUG DECODE shows corrupt and non-canonical bodies as they are} {
        r set odd [hll_sparse {0x00 0x3f 0x80 0xfc 0x40 0x00}]
        assert_equal {z:1 z:64 v:1,1 v:32,1 Z:1} [r pfdebug decode odd]
        r set odd [hll_sparse {0x7f}]
        assert_equal {Z:16129} [r pfdebug decode odd]
    }

    test {Dense registers above 51 (a register overflow) are read as they are} {
        r set big [hll_dense_all 63]
        assert_equal -9223372036854775808 [r pfcount big]
        assert_equal {0 0 0} [hll_cache big]
        r set big [hll_dense_all 40]
        set c [r pfcount big]
        assert_equal 12994641697113596 $c
        r del merged
        r pfmerge merged big
        assert_equal dense [r pfdebug encoding merged]
        assert_equal $c [r pfcount merged]
    }

    test {A non-canonical sparse body is still updated and counted} {
        # Runs of one register each as ZERO opcodes, then an XZERO for the rest.
        set ops {}
        for {set i 0} {$i < 10} {incr i} {lappend ops 0}
        r set odd [hll_sparse [concat $ops [hll_xzero 16374]]]
        assert_equal 0 [r pfcount odd]
        assert_equal 1 [r pfadd odd a b c]
        assert_equal 3 [r pfcount odd]
        assert_equal {z:1 z:1 z:1 z:1 z:1 z:1 z:1 z:1 z:1 z:1 Z:8426 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603} \
            [r pfdebug decode odd]
    }

    test {PFMERGE into a missing key, with no sources, and with missing sources} {
        r del m1 m2 m3 nohll
        assert_equal OK [r pfmerge m1]
        assert_equal [hll_sparse [hll_xzero 16384]] [r get m1]
        assert_equal OK [r pfmerge m2 nohll]
        assert_equal 0 [r pfcount m2]
        r pfadd m3 a b c
        set before [r pfcount m3]
        assert_equal OK [r pfmerge m3 nohll]
        assert_equal $before [r pfcount m3]
    }

    test {PFMERGE includes the destination among its inputs} {
        r del d s1 s2
        r pfadd d a b c
        r pfadd s1 c d e
        r pfadd s2 e f g h
        r pfmerge d s1 s2
        assert_equal {1 0} [lrange [hll_cache d] 0 1]
        assert_equal 8 [r pfcount d]
        assert_equal sparse [r pfdebug encoding d]
    }

    test {PFMERGE of sparse and dense inputs is dense} {
        r del d s1 s2
        r pfadd s1 a b c
        r pfadd s2 d e f
        r pfdebug todense s2
        r pfmerge d s1 s2
        assert_equal dense [r pfdebug encoding d]
        assert_equal 6 [r pfcount d]
        r del d2
        r pfadd d2 x
        r pfmerge d2 s2
        assert_equal dense [r pfdebug encoding d2]
        assert_equal 4 [r pfcount d2]
    }

    test {PFMERGE keeps the destination's TTL and invalidates its cache} {
        r del d s1
        r pfadd d a
        r pfcount d
        r expire d 1000
        r pfadd s1 b
        r pfmerge d s1
        assert_range [r ttl d] 1 1000
        assert_equal 0 [lindex [hll_cache d] 1]
        assert_equal 2 [r pfcount d]
    }

    test {Merges give the same registers as adding everything to one HLL} {
        r del all part1 part2 merged
        set e1 {}
        set e2 {}
        for {set i 0} {$i < 500} {incr i} {lappend e1 "p1:$i"; lappend e2 "p2:$i"}
        r pfadd all {*}$e1 {*}$e2
        r pfadd part1 {*}$e1
        r pfadd part2 {*}$e2
        r pfmerge merged part1 part2
        assert_equal [r pfdebug getreg all] [r pfdebug getreg merged]
        assert_equal [r pfcount all] [r pfcount part1 part2]
    }

    test {HLL values are strings: COPY keeps one, APPEND breaks one} {
        r del h c
        r pfadd h a b c d
        r copy h c
        assert_equal [r pfcount h] [r pfcount c]
        assert_equal [r get h] [r get c]
        # A ZERO opcode of 57 registers more: the cache still answers, a merge finds it out.
        r append c x
        assert_equal [r pfcount h] [r pfcount c]
        assert_error {INVALIDOBJ Corrupted HLL object detected} {r pfcount c h}
    }

    test {An HLL set with SET becomes raw once a PF command has touched it} {
        r del h
        r pfadd h a
        set v [r get h]
        r set h2 $v
        assert_encoding embstr h2
        r pfcount h2
        assert_encoding raw h2
        r set h2 $v
        r pfadd h2 a
        assert_encoding raw h2
    }

    test {Read-only scripts may not call PFCOUNT, whatever its cache holds} {
        r del h
        r pfadd h a b
        r pfcount h
        assert_error {ERR Write commands are not allowed from read-only scripts*} \
            {r eval_ro {return redis.call('pfcount', KEYS[1])} 1 h}
        assert_error {ERR Write commands are not allowed from read-only scripts*} \
            {r eval_ro {return redis.call('pfcount', KEYS[1], 'other')} 1 h}
        r pfadd h c
        assert_equal 3 [r eval {return redis.call('pfcount', KEYS[1])} 1 h]
    }

    test {PFDEBUG TODENSE is no change for WATCH} {
        r del h
        r pfadd h a b
        r watch h
        assert_equal 1 [r pfdebug todense h]
        r multi
        r ping
        assert_equal PONG [r exec]
    }

    test {A PFADD that changes nothing does not touch the key for WATCH} {
        r del h
        r pfadd h a b
        r watch h
        r pfadd h a b
        r multi
        r ping
        assert_equal PONG [r exec]
    }

    test {A PFCOUNT that refreshes the cache is a change for WATCH, a cached one is not} {
        r del h
        r pfadd h a b
        r watch h
        r pfcount h
        r multi
        r ping
        assert_equal {} [r exec]
        r watch h
        r pfcount h
        r multi
        r ping
        assert_equal PONG [r exec]
    }
}

start_server {tags {hll needs:config}} {
    test {Sparse HLLs turn dense when they would grow past hll-sparse-max-bytes} {
        r config set hll-sparse-max-bytes 60
        r del h
        set last_sparse 0
        for {set i 0} {$i < 200} {incr i} {
            r pfadd h "el:$i"
            if {[r pfdebug encoding h] eq "dense"} break
            set last_sparse [r strlen h]
            assert_lessthan_equal $last_sparse 60
        }
        assert_equal dense [r pfdebug encoding h]
        assert_equal 12304 [r strlen h]
        # Redis promotes at the first split that would cross the limit.
        assert_equal {60 14} [list $last_sparse $i]
        r config set hll-sparse-max-bytes 3000
    }

    test {hll-sparse-max-bytes 0 makes the first change dense} {
        r config set hll-sparse-max-bytes 0
        r del h
        r pfadd h
        assert_equal sparse [r pfdebug encoding h]
        r pfadd h a
        assert_equal dense [r pfdebug encoding h]
        assert_equal 1 [r pfcount h]
        r config set hll-sparse-max-bytes 3000
    }

    test {PFMERGE into a sparse destination promotes at the same limit} {
        r config set hll-sparse-max-bytes 40
        r del big d
        for {set i 0} {$i < 30} {incr i} {lappend els "m:$i"}
        r config set hll-sparse-max-bytes 3000
        r pfadd big {*}$els
        assert_equal sparse [r pfdebug encoding big]
        r config set hll-sparse-max-bytes 40
        r pfmerge d big
        assert_equal dense [r pfdebug encoding d]
        assert_equal [r pfcount big] [r pfcount d]
        r config set hll-sparse-max-bytes 3000
    }

    test {Keyspace notifications: PFADD and PFMERGE announce pfadd, PFCOUNT nothing} {
        r config set notify-keyspace-events KEA
        r del h s
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*
        $rd read
        r pfadd h a
        r pfadd h a
        r pfcount h
        r pfadd s b
        r pfmerge h s
        r pfcount h s
        r pfdebug todense h
        r set marker 1
        set got {}
        for {set i 0} {$i < 10} {incr i} {
            set m [$rd read]
            lappend got [lindex $m 3] [lindex [split [lindex $m 2] :] 1]
            if {[lindex $m 3] eq "marker"} break
        }
        assert_equal {h pfadd s pfadd h pfadd marker set} $got
        $rd close
        r config set notify-keyspace-events ""
    }
}

# Built here, counted by Debian's Redis, and back: the bytes are the format both speak.
if {[file executable /usr/bin/redis-server]} {
    start_server {tags {hll redistp}} {
        set saved_binary $::server::binary
        set ::server::binary /usr/bin/redis-server
        start_server {} {
            set ::server::binary $saved_binary
            test {An HLL moved between redis-tp and Redis 7.0 by GET/SET keeps its estimate} {
                foreach n {3 300 3000 30000} {
                    set els {}
                    for {set i 0} {$i < $n} {incr i} {lappend els "move:$n:$i"}
                    r -1 del h
                    for {set i 0} {$i < $n} {incr i 1000} {
                        r -1 pfadd h {*}[lrange $els $i [expr {$i + 999}]]
                    }
                    r 0 del h
                    for {set i 0} {$i < $n} {incr i 1000} {
                        r 0 pfadd h {*}[lrange $els $i [expr {$i + 999}]]
                    }
                    assert_equal [r -1 get h] [r 0 get h]
                    r 0 set ours [r -1 get h]
                    r -1 set theirs [r 0 get h]
                    assert_equal [r 0 pfcount h] [r 0 pfcount ours]
                    assert_equal [r -1 pfcount h] [r -1 pfcount theirs]
                    assert_equal [r -1 pfcount h] [r 0 pfcount h]
                    assert_equal [r -1 get h] [r 0 get h]
                }
            }
        }
        set ::server::binary $saved_binary
    }
}
