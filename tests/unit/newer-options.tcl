# The smaller options of Redis 7.2 to 8.2 (and Valkey 8.0) that current client libraries send:
# ZRANK/ZREVRANK ... WITHSCORE (7.2), HSCAN ... NOVALUES (7.4), ZSCAN ... NOSCORES (8.0),
# XREAD ... STREAMS key + (7.4), SCRIPT SHOW (Valkey 8.0) and BITOP DIFF|DIFF1|ANDOR|ONE (8.2).
# Redis 7.0 refuses each of them, so their tests carry the tag redistp; the block without it
# checks that every neighbouring argument keeps Redis 7.0's answer, and runs on both servers.

# A string of `n` random bytes.
proc newopt_random_bytes {n} {
    set out {}
    for {set i 0} {$i < $n} {incr i} {append out [binary format c [expr {int(rand() * 256)}]]}
    return $out
}

# What BITOP `op` answers for the byte strings in `srcs`, worked out here a byte at a time from
# the definitions: a shorter source reads as zero bytes past its end; DIFF is the first source
# and none of the others, DIFF1 one or more of the others and not the first, ANDOR the first
# and one or more of the others, ONE the bits set in exactly one source.
proc newopt_bitop_model {op srcs} {
    set len 0
    set bytes {}
    foreach s $srcs {
        binary scan $s cu* b
        lappend bytes $b
        if {[llength $b] > $len} {set len [llength $b]}
    }
    set out {}
    for {set i 0} {$i < $len} {incr i} {
        set vals {}
        foreach b $bytes {lappend vals [expr {$i < [llength $b] ? [lindex $b $i] : 0}]}
        set x [lindex $vals 0]
        set others 0
        foreach y [lrange $vals 1 end] {set others [expr {$others | $y}]}
        switch $op {
            DIFF  {set r [expr {$x & ~$others & 0xff}]}
            DIFF1 {set r [expr {~$x & $others & 0xff}]}
            ANDOR {set r [expr {$x & $others}]}
            ONE {
                set r 0
                for {set bit 0} {$bit < 8} {incr bit} {
                    set n 0
                    foreach v $vals {incr n [expr {($v >> $bit) & 1}]}
                    if {$n == 1} {set r [expr {$r | (1 << $bit)}]}
                }
            }
        }
        append out [binary format c $r]
    }
    return $out
}

# Reads one reply of a readraw client as the list of its lines, down to the last line of the
# reply: `n` lines.
proc newopt_read_lines {c n} {
    set lines {}
    for {set i 0} {$i < $n} {incr i} {lappend lines [$c read]}
    return $lines
}

start_server {tags {newer-options}} {
    # ---- Redis 7.0's answers around the new options (both servers) --------------------------

    test {ZRANK and ZREVRANK keep Redis 7.0's arity error for any other extra word} {
        r del z
        r zadd z 1 a
        assert_error {ERR wrong number of arguments for 'zrank' command} {r zrank z a foo}
        assert_error {ERR wrong number of arguments for 'zrevrank' command} {r zrevrank z a foo}
        assert_error {ERR wrong number of arguments for 'zrank' command} {r zrank z a withscore x}
        assert_error {ERR wrong number of arguments for 'zrank' command} {r zrank z}
        assert_equal 0 [r zrank z a]
        assert_equal {} [r zrank z nosuch]
    }

    test {ZRANK's arity error comes at admission: MULTI aborts, scripts and GETKEYS refuse} {
        r del z
        r zadd z 1 a
        r multi
        assert_error {ERR wrong number of arguments for 'zrank' command} {r zrank z a foo}
        assert_error {EXECABORT*} {r exec}
        assert_error {*Wrong number of args calling Redis command from script*} \
            {r eval {return redis.call('zrank', KEYS[1], 'a', 'foo')} 1 z}
        assert_error {ERR Invalid number of arguments specified for command} \
            {r command getkeys zrank z a foo}
    }

    test {A refused ZRANK reads no key: tracking remembers nothing} {
        r del z
        r zadd z 1 a
        r client tracking on
        catch {r zrank z a foo}
        assert_equal 0 [getInfoProperty [r info stats] tracking_total_keys]
        r zrank z a
        assert_equal 1 [getInfoProperty [r info stats] tracking_total_keys]
        r client tracking off
    }

    test {The scan family keeps the syntax error for a word it does not take} {
        r del h s z
        r hset h f v
        r sadd s m
        r zadd z 1 m
        assert_error {ERR syntax error} {r scan 0 novalues}
        assert_error {ERR syntax error} {r sscan s 0 novalues}
        assert_error {ERR syntax error} {r sscan s 0 noscores}
        assert_error {ERR syntax error} {r zscan z 0 novalues}
        assert_error {ERR syntax error} {r hscan h 0 noscores}
        assert_error {ERR syntax error} {r hscan h 0 count}
        assert_error {ERR syntax error} {r hscan h 0 nosuchoption}
    }

    test {XREADGROUP keeps refusing + as an invalid id} {
        r del st
        r xadd st 1-1 f v
        r xgroup create st g 0
        assert_error {ERR Invalid stream ID*} {r xreadgroup group g c streams st +}
        assert_error {ERR Invalid stream ID*} {r xread streams st -}
    }

    test {BITOP keeps its syntax error for an unknown operation and NOT's single source} {
        r del a b
        r set a x
        assert_error {ERR syntax error} {r bitop nand dest a b}
        assert_error {ERR syntax error} {r bitop diff2 dest a b}
        assert_error {ERR BITOP NOT must be called with a single source key.} {r bitop not d a b}
    }

    test {SCRIPT without a known subcommand is refused as before} {
        assert_error {ERR unknown subcommand*} {r script nosuch}
    }
}

start_server {tags {newer-options redistp}} {
    # ---- ZRANK / ZREVRANK WITHSCORE (Redis 7.2) ---------------------------------------------

    foreach enc {listpack skiplist} {
        test "ZRANK and ZREVRANK WITHSCORE answer the rank and the score ($enc)" {
            r del z
            r zadd z 1 a 2.5 b 3 c -inf lo
            if {$enc eq "skiplist"} {
                for {set i 0} {$i < 200} {incr i} {r zadd z 1000 filler$i}
            }
            assert_encoding $enc z
            assert_equal {2 2.5} [r zrank z b withscore]
            assert_equal {0 -inf} [r zrank z lo WITHSCORE]
            assert_equal [r zrank z c] [lindex [r zrank z c WithScore] 0]
            set n [r zcard z]
            assert_equal [list [expr {$n - 3}] 2.5] [r zrevrank z b withscore]
            assert_equal [list [expr {$n - 1}] -inf] [r zrevrank z lo withscore]
        }
    }

    test {ZRANK WITHSCORE of a missing member or key is a null array (RESP2 and RESP3)} {
        r del z nokey
        r zadd z 1 a
        set c [redis_client]
        $c readraw 1
        assert_equal {*-1} [$c zrank z nosuch withscore]
        assert_equal {*-1} [$c zrevrank nokey a withscore]
        # Without the option it stays a null bulk.
        assert_equal {$-1} [$c zrank z nosuch]
        $c close

        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd readraw 1
        $rd zrank z nosuch withscore
        assert_equal _ [$rd read]
        $rd zrank z a withscore
        assert_equal {*2 :0 ,1} [newopt_read_lines $rd 3]
        $rd zrevrank z a withscore
        assert_equal {*2 :0 ,1} [newopt_read_lines $rd 3]
        $rd close
    }

    test {ZRANK WITHSCORE in RESP2: the score is a bulk string} {
        r del z
        r zadd z 0.1 a
        set c [redis_client]
        $c readraw 1
        assert_equal [list *2 :0 {$19} 0.10000000000000001] [list [$c zrank z a withscore] \
            [$c read] [$c read] [$c read]]
        $c close
    }

    test {ZRANK WITHSCORE: WRONGTYPE, and the option is read before the key} {
        r del s
        r set s text
        assert_error {WRONGTYPE*} {r zrank s a withscore}
        # A bad fourth word is refused before the key's type is looked at.
        assert_error {ERR wrong number of arguments for 'zrank' command} {r zrank s a foo}
    }

    test {ZRANK WITHSCORE inside MULTI, from a script and in COMMAND GETKEYS} {
        r del z
        r zadd z 1 a 2 b
        r multi
        r zrank z b withscore
        r zrevrank z b withscore
        assert_equal {{1 2} {0 2}} [r exec]
        assert_equal {1 2} [r eval {return redis.call('zrank', KEYS[1], 'b', 'WITHSCORE')} 1 z]
        assert_equal {z} [r command getkeys zrevrank z b withscore]
    }

    # ---- HSCAN NOVALUES (Redis 7.4) ----------------------------------------------------------

    test {HSCAN NOVALUES of a listpack hash lists the fields alone} {
        r del h
        r hset h a 1 b 2 c 3
        assert_encoding listpack h
        assert_equal {0 {a b c}} [r hscan h 0 novalues]
        assert_equal {0 b} [r hscan h 0 match b NOVALUES]
        assert_equal {0 {a b c}} [r hscan h 0 NoValues count 1]
        assert_equal {0 {}} [r hscan h 0 novalues match zz*]
        assert_equal {0 {}} [r hscan nokey 0 novalues]
    }

    test {HSCAN NOVALUES walks a hashtable hash to the end, fields only} {
        r del h
        set want {}
        for {set i 0} {$i < 1000} {incr i} {
            r hset h field:$i value:$i
            lappend want field:$i
        }
        assert_encoding hashtable h
        set seen {}
        set cursor 0
        set calls 0
        while 1 {
            lassign [r hscan h $cursor count 50 novalues] cursor batch
            foreach f $batch {
                assert_match {field:*} $f
                lappend seen $f
            }
            incr calls
            if {$cursor == 0} break
            if {$calls > 10000} {fail "HSCAN NOVALUES did not end"}
        }
        assert_equal [lsort $want] [lsort -unique $seen]
        # MATCH still filters by field.
        set cursor 0
        set calls 0
        set matched {}
        while 1 {
            lassign [r hscan h $cursor match field:99* novalues] cursor batch
            lappend matched {*}$batch
            incr calls
            if {$cursor == 0} break
            if {$calls > 10000} {fail "HSCAN NOVALUES MATCH did not end"}
        }
        set want {field:99}
        for {set i 990} {$i < 1000} {incr i} {lappend want field:$i}
        assert_equal $want [lsort -unique $matched]
    }

    test {HSCAN NOVALUES of a wrong type is WRONGTYPE} {
        r del z
        r zadd z 1 a
        assert_error {WRONGTYPE*} {r hscan z 0 novalues}
    }

    # ---- ZSCAN NOSCORES (Redis 8.0) ----------------------------------------------------------

    test {ZSCAN NOSCORES of a listpack sorted set lists the members alone} {
        r del z
        r zadd z 1 a 2.5 b -3 c
        assert_encoding listpack z
        assert_equal {0 {c a b}} [r zscan z 0 noscores]
        assert_equal {0 b} [r zscan z 0 NOSCORES match b]
        assert_equal {0 {}} [r zscan nokey 0 noscores]
    }

    test {ZSCAN NOSCORES walks a skiplist sorted set to the end, members only} {
        r del z
        set want {}
        for {set i 0} {$i < 500} {incr i} {
            r zadd z $i member:$i
            lappend want member:$i
        }
        assert_encoding skiplist z
        set seen {}
        set cursor 0
        set calls 0
        while 1 {
            lassign [r zscan z $cursor noscores count 30] cursor batch
            foreach m $batch {
                assert_match {member:*} $m
                lappend seen $m
            }
            incr calls
            if {$cursor == 0} break
            if {$calls > 10000} {fail "ZSCAN NOSCORES did not end"}
        }
        assert_equal [lsort $want] [lsort -unique $seen]
    }

    # ---- XREAD + (Redis 7.4) -----------------------------------------------------------------

    test {XREAD + answers the last entry of each stream, whatever COUNT says} {
        r del s1 s2 nostream
        r xadd s1 1-1 f a
        r xadd s1 2-1 f b
        r xadd s1 3-1 f c
        r xadd s2 7-0 g x
        assert_equal {{s1 {{3-1 {f c}}}}} [r xread streams s1 +]
        assert_equal {{s1 {{3-1 {f c}}}} {s2 {{7-0 {g x}}}}} \
            [r xread count 10 streams s1 s2 nostream + + +]
        # Mixed with ordinary ids.
        assert_equal {{s1 {{2-1 {f b}} {3-1 {f c}}}} {s2 {{7-0 {g x}}}}} \
            [r xread streams s1 s2 1-1 +]
        assert_equal {} [r xread streams nostream +]
    }

    test {XREAD + skips a deleted last entry and answers nothing for an emptied stream} {
        r del s1
        r xadd s1 1-1 f a
        r xadd s1 2-1 f b
        r xdel s1 2-1
        assert_equal {{s1 {{1-1 {f a}}}}} [r xread streams s1 +]
        r xdel s1 1-1
        assert_equal 0 [r xlen s1]
        assert_equal {} [r xread streams s1 +]
    }

    test {XREAD + in RESP3 is a map} {
        r del s1
        r xadd s1 5-5 k v
        r hello 3
        assert_equal {s1 {{5-5 {k v}}}} [r xread streams s1 +]
        r hello 2
    }

    test {XREAD BLOCK with + answers the last entry at once} {
        r del s1
        r xadd s1 1-1 f a
        r xadd s1 2-1 f b
        assert_equal {{s1 {{2-1 {f b}}}}} [r xread block 0 streams s1 +]
    }

    test {XREAD BLOCK with + on a missing stream waits for the first entry} {
        r del s1
        set rd [redis_deferring_client]
        $rd xread block 20000 streams s1 +
        wait_for_blocked_clients_count 1
        r xadd s1 4-4 f first
        assert_equal {{s1 {{4-4 {f first}}}}} [$rd read]
        $rd close
    }

    test {XREAD BLOCK with + on an emptied stream waits for the next entry} {
        r del s1
        r xadd s1 1-1 f a
        r xdel s1 1-1
        set rd [redis_deferring_client]
        $rd xread block 20000 streams s1 +
        wait_for_blocked_clients_count 1
        r xadd s1 9-0 f next
        assert_equal {{s1 {{9-0 {f next}}}}} [$rd read]
        $rd close
    }

    test {XREAD + of a key of another type is WRONGTYPE} {
        r del str
        r set str v
        assert_error {WRONGTYPE*} {r xread streams str +}
    }

    # ---- SCRIPT SHOW (Valkey 8.0) ------------------------------------------------------------

    test {SCRIPT SHOW answers a loaded script's body, in any case of its SHA1} {
        r script flush
        set body "return 'shown'"
        set sha [r script load $body]
        assert_equal $body [r script show $sha]
        assert_equal $body [r script show [string toupper $sha]]
    }

    test {SCRIPT SHOW answers scripts cached by EVAL, shebang and bytes as sent} {
        r script flush
        set body "#!lua flags=no-writes\nreturn 'a\x00b'"
        assert_equal "a\x00b" [r eval $body 0]
        set sha [lindex [r script load $body] 0]
        assert_equal $body [r script show $sha]
    }

    test {SCRIPT SHOW of an unknown SHA1 is NOSCRIPT} {
        r script flush
        set sha [r script load "return 1"]
        assert_error {NOSCRIPT*} {r script show 0000000000000000000000000000000000000000}
        assert_error {NOSCRIPT*} {r script show abc}
        r script flush
        assert_error {NOSCRIPT*} {r script show $sha}
        assert_error {ERR wrong number of arguments for 'script|show' command} {r script show}
    }

    test {SCRIPT SHOW is refused inside a script} {
        set sha [r script load "return 1"]
        assert_error {*This Redis command is not allowed from script*} \
            {r eval "return redis.call('script', 'show', ARGV\[1\])" 0 $sha}
    }

    # ---- BITOP DIFF, DIFF1, ANDOR, ONE (Redis 8.2) -------------------------------------------

    test {BITOP DIFF, DIFF1, ANDOR and ONE on a small example} {
        r del a b c dest
        r set a "\xf0"
        r set b "\x3c"
        r set c "\x0f\xff"
        assert_equal 2 [r bitop diff dest a b c]
        assert_equal "\xc0\x00" [r get dest]
        assert_equal 2 [r bitop DIFF1 dest a b c]
        assert_equal "\x0f\xff" [r get dest]
        assert_equal 2 [r bitop AndOr dest a b c]
        assert_equal "\x30\x00" [r get dest]
        assert_equal 2 [r bitop one dest a b c]
        assert_equal "\xc3\xff" [r get dest]
    }

    foreach op {DIFF DIFF1 ANDOR ONE} {
        test "BITOP $op agrees with a bit-by-bit model on random strings" {
            for {set round 0} {$round < 30} {incr round} {
                set n [expr {2 + int(rand() * 4)}]
                set keys {}
                set srcs {}
                for {set k 0} {$k < $n} {incr k} {
                    # Lengths from 0 to 40 bytes: word loops, byte tails and zero padding.
                    set s [newopt_random_bytes [expr {int(rand() * 41)}]]
                    r set src$k $s
                    lappend keys src$k
                    lappend srcs $s
                }
                set want [newopt_bitop_model $op $srcs]
                assert_equal [string length $want] [r bitop $op dest {*}$keys]
                if {$want eq ""} {
                    assert_equal 0 [r exists dest]
                } else {
                    assert_equal $want [r get dest]
                }
            }
        }
    }

    test {BITOP DIFF, DIFF1 and ANDOR need two sources; ONE takes one} {
        r del a dest
        r set a "\x81"
        assert_error {ERR BITOP DIFF must be called with at least two source keys.} \
            {r bitop diff dest a}
        assert_error {ERR BITOP DIFF1 must be called with at least two source keys.} \
            {r bitop Diff1 dest a}
        assert_error {ERR BITOP ANDOR must be called with at least two source keys.} \
            {r bitop andor dest a}
        assert_equal 0 [r exists dest]
        assert_equal 1 [r bitop one dest a]
        assert_equal "\x81" [r get dest]
    }

    test {BITOP DIFF: missing keys read as empty, an empty result deletes the destination} {
        r del a dest nokey1 nokey2
        r set dest old
        r expire dest 1000
        assert_equal 0 [r bitop diff dest nokey1 nokey2]
        assert_equal 0 [r exists dest]
        r set a "\xff\xff"
        r set dest old
        r expire dest 1000
        assert_equal 2 [r bitop diff1 dest nokey1 a]
        assert_equal "\xff\xff" [r get dest]
        # The destination is replaced as a plain string: its TTL is gone.
        assert_equal -1 [r ttl dest]
        assert_equal 2 [r bitop diff dest a nokey1]
        assert_equal "\xff\xff" [r get dest]
    }

    test {BITOP ONE: the destination may be one of its sources} {
        r del a b
        r set a "\x0f"
        r set b "\xff"
        assert_equal 1 [r bitop one a a b]
        assert_equal "\xf0" [r get a]
    }

    test {BITOP DIFF of a key of another type is WRONGTYPE, nothing written} {
        r del a l dest
        r set a x
        r rpush l 1
        assert_error {WRONGTYPE*} {r bitop diff dest a l}
        assert_equal 0 [r exists dest]
    }

    # ---- COMMAND DOCS and COMMAND GETKEYS of the new options ---------------------------------

    test {COMMAND DOCS lists the new options with the versions they come from} {
        set zrank [dict get [r command docs zrank] zrank]
        assert_match {*withscore*WITHSCORE*} [dict get $zrank arguments]
        assert_equal 7.2.0 [lindex [dict get $zrank history] 0 0]
        # The rows keep Redis 7.0's arity; WITHSCORE is admitted as a widening of it.
        assert_equal 3 [lindex [r command info zrank] 0 1]
        assert_equal 3 [lindex [r command info zrevrank] 0 1]
        set hscan [dict get [r command docs hscan] hscan]
        assert_match {*NOVALUES*7.4.0*} [dict get $hscan arguments]
        set zscan [dict get [r command docs zscan] zscan]
        assert_match {*NOSCORES*8.0.0*} [dict get $zscan arguments]
        set bitop [dict get [r command docs bitop] bitop]
        assert_match {*DIFF1*ANDOR*ONE*} [dict get $bitop arguments]
        assert_equal 8.2.0 [lindex [dict get $bitop history] 0 0]
        set xread [dict get [r command docs xread] xread]
        assert_equal 7.4.0 [lindex [dict get $xread history] 0 0]
        set show [dict get [r command docs script|show] script|show]
        assert_equal 8.0.0 [dict get $show since]
        assert_equal {script|show 3 {noscript stale} 0 0 0} \
            [lrange [lindex [r command info script|show] 0] 0 5]
    }

    test {COMMAND GETKEYS of the new forms} {
        assert_equal {z} [r command getkeys zrank z m withscore]
        assert_equal {h} [r command getkeys hscan h 0 novalues]
        assert_equal {dest a b} [r command getkeys bitop diff dest a b]
        assert_equal {s1 s2} [r command getkeys xread streams s1 s2 + +]
    }
}

# Redis 8.2's BITOP operations reach replicas and the AOF as the SET (or DEL) of their result,
# which Redis 7.0 replays; AND, OR, XOR and NOT go as they came, as in 7.0.
start_server {tags {newer-options repl redistp external:skip}} {
    test {BITOP DIFF, DIFF1, ANDOR and ONE replicate as SET or DEL of their result} {
        r set a "\xf0"
        r set b "\x3c"
        r set gone x
        with_repl_stream rs {
            r bitop diff d a b
            r bitop one d a b
            r bitop and d a b
            r bitop andor gone nokey1 nokey2
            r bitop diff1 nothing nokey1 nokey2
            r set marker 1
            assert_repl_stream $rs [list {select *} "set d \xc0" "set d \xcc" {bitop and d a b} \
                {del gone} {set marker 1}]
        }
    }
}
