# RESTORE of corrupt payloads: a DUMP payload whose CRC is right but whose object is not (made
# here by changing one byte of a good payload and telling the server, with DEBUG
# SET-SKIP-CHECKSUM-VALIDATION, not to check the CRC) must be refused with "Bad data format" and
# a log line naming the check that failed, or loaded as a value every read command can walk,
# never crash the server. Redis 7.0 only promises that with sanitize-dump-payload yes (without
# it, Redis crashes on some of these payloads; redis-tp checks deeply whatever the setting), so
# the sweeps run with "yes" and this file passes against Debian's Redis 7.0 too.

# Every key layout the sweep corrupts: a name and the commands that build key `k`.
set ::cd_layouts {
    string-raw {{set k "a value long enough to be stored raw"}}
    string-int {{set k 12345}}
    list {{rpush k a b 3 dddd}}
    list-plain {{debug quicklist-packed-threshold 3} {rpush k a bb cccc dd 12345}
                {debug quicklist-packed-threshold 0}}
    intset {{sadd k 1 2 3 70000}}
    set-table {{sadd k alpha beta gamma delta 1 2 3}}
    hash-listpack {{hset k a 1 bb 22 ccc 333}}
    hash-table {{hset k a 1 b 2 c 3} {hset k long [string repeat x 70]}}
    zset-listpack {{zadd k 1 a 2.5 b -3 c}}
    zset-skiplist {{zadd k 1 a 2.5 b -3 c} {zadd k 4 [string repeat m 70]}}
    stream {{xadd k 1-1 f v} {xadd k 1-2 f v g w} {xgroup create k grp 0}
            {xreadgroup group grp alice count 1 streams k >}
            {xreadgroup group grp bob count 1 streams k >}}
}

# Reads every part of key `key` with the commands of its type. Errors other than the server
# going away are fine (a loaded value only has to be walkable, not meaningful).
proc cd_walk {key} {
    switch [r type $key] {
        string {r get $key; r strlen $key; r getrange $key 0 -1}
        list {r lrange $key 0 -1; r llen $key; r lindex $key -1; r lpos $key a}
        set {r smembers $key; r scard $key; r srandmember $key -5; r sismember $key 1
             r sscan $key 0 count 100}
        hash {r hgetall $key; r hlen $key; r hrandfield $key -5 withvalues
              r hscan $key 0 count 100}
        zset {r zrange $key 0 -1 withscores; r zrevrange $key 0 -1; r zcard $key
              r zrangebyscore $key -inf +inf; r zrandmember $key -5 withscores
              r zscan $key 0 count 100}
        stream {r xrange $key - +; r xrevrange $key + -; r xlen $key
                r xinfo stream $key full; r xinfo groups $key}
    }
    # A value that loaded must dump and restore again.
    set again [r dump $key]
    r restore $key.copy 0 $again replace
    r del $key.copy
}

start_server {tags {dump needs:debug external:skip} overrides {loglevel verbose}} {
    test {DEBUG SET-SKIP-CHECKSUM-VALIDATION lets a payload with a wrong CRC reach the object checks} {
        r set s hello
        set p [r dump s]
        # The last byte is the top byte of the CRC-64.
        set bad [string replace $p end end [binary format c [expr {([scan [string index $p end] %c] + 1) % 256}]]]
        assert_error {ERR DUMP payload version or checksum are wrong} {r restore s2 0 $bad}
        r debug set-skip-checksum-validation 1
        assert_equal OK [r restore s2 0 $bad]
        assert_equal hello [r get s2]
        r debug set-skip-checksum-validation 0
        assert_error {ERR DUMP payload version or checksum are wrong} {r restore s3 0 $bad}
        # The version is still checked: a payload from a newer RDB version is refused.
        r debug set-skip-checksum-validation 1
        set newer [string replace $p end-9 end-8 [binary format s 99]]
        assert_error {ERR DUMP payload version or checksum are wrong} {r restore s3 0 $newer}
        r debug set-skip-checksum-validation 0
        assert_equal 0 [r exists s3]
    }

    test {A corrupt listpack hash is refused with Bad data format and logged as an integrity failure} {
        r config set sanitize-dump-payload yes
        r debug set-skip-checksum-validation 1
        r del h
        r hset h f1 v1 f2 v2
        set p [r dump h]
        # Byte 2..5 is the listpack's total length: claim a length the blob does not have.
        set bad [string replace $p 2 2 [binary format c 0x7f]]
        assert_error {ERR Bad data format} {r restore h2 0 $bad}
        assert_equal 0 [r exists h2]
        wait_for_log_message {*Hash listpack integrity check failed*}
        r debug set-skip-checksum-validation 0
    }

    test {A stream whose group names one consumer twice is refused as a duplicate consumer} {
        r config set sanitize-dump-payload yes
        r debug set-skip-checksum-validation 1
        r del st
        r xadd st 1-1 f v
        r xgroup create st grp 0
        r xgroup createconsumer st grp cons1
        r xgroup createconsumer st grp cons2
        set p [r dump st]
        set at [string first cons2 $p]
        assert {$at > 0}
        set bad [string replace $p $at [expr {$at + 4}] cons1]
        assert_error {ERR Bad data format} {r restore st2 0 $bad}
        wait_for_log_message {*Duplicate stream consumer detected*}
        r debug set-skip-checksum-validation 0
    }

    foreach {name setup} $::cd_layouts {
        test "Every one-byte change of a $name payload is refused or loads a walkable value" {
            r config set sanitize-dump-payload yes
            r del k
            foreach c $setup {r {*}[subst $c]}
            set p [r dump k]
            r debug set-skip-checksum-validation 1
            set refused 0
            set loaded 0
            # Every byte of the object (not the 10-byte trailer), each set to a few values that
            # make lengths huge, zero or negative and encodings unknown.
            for {set pos 0} {$pos < [string length $p] - 10} {incr pos} {
                foreach v {0x00 0x01 0x7f 0x80 0xfe 0xff} {
                    # Redis 7.0 sizes a skiplist sorted set's table from the declared member
                    # count before reading any member, so a count of billions (byte 1 made the
                    # 32-bit length marker) stalls it; redis-tp refuses it (tested below).
                    if {$name eq "zset-skiplist" && $pos == 1 && $v == 0x80} continue
                    set bad [string replace $p $pos $pos [binary format c $v]]
                    if {[catch {r restore kx 0 $bad replace} e]} {
                        assert_match {ERR Bad data format} $e
                        incr refused
                    } else {
                        incr loaded
                        catch {cd_walk kx}
                    }
                    assert_equal PONG [r ping]
                }
            }
            r debug set-skip-checksum-validation 0
            # The unchanged payload is among the loads; most changes are caught.
            assert {$loaded >= 1 && $refused >= 1}
        }
    }

    # Redis 7.0 stalls on this one (above); redis-tp bounds every declared count by the bytes
    # left in the payload.
    test {A sorted set declaring billions of members in a short payload is refused at once} {
        r config set sanitize-dump-payload yes
        r del z
        r zadd z 1 a 2 b
        r zadd z 3 [string repeat m 70]
        set p [r dump z]
        set bad [string replace $p 1 1 [binary format c 0x80]]
        r debug set-skip-checksum-validation 1
        assert_error {ERR Bad data format} {r restore z2 0 $bad}
        r debug set-skip-checksum-validation 0
        assert_equal 0 [r exists z2]
    } {} {redistp}

    # Payloads in the older list encodings Redis 7.0 still loads, built here byte by byte: a
    # ziplist of two entries whose second entry claims 63 bytes of text where 4 follow.
    proc cd_bad_ziplist {} {
        set entries "\x00\x04aaaa\x06\x3fAAAA"
        set total [expr {10 + [string length $entries] + 1}]
        return "[binary format iis $total 16 2]$entries\xff"
    }
    # An object of RDB type `type` and body `body` with a 7.0 trailer (RDB version 10, a CRC
    # the server is told not to check).
    proc cd_payload {type body} {
        return "[binary format c $type]$body\x0a\x00[string repeat \x00 8]"
    }

    test {A corrupt ziplist inside a quicklist or a ziplist list is refused and logged} {
        r debug set-skip-checksum-validation 1
        set zl [cd_bad_ziplist]
        set len [binary format c [string length $zl]]
        foreach sanitize {yes no} {
            r config set sanitize-dump-payload $sanitize
            # RDB type 14: a quicklist of one ziplist node.
            assert_error {ERR Bad data format} {r restore k14 0 [cd_payload 14 "\x01$len$zl"]}
            wait_for_log_message {*Ziplist integrity check failed*}
            # RDB type 10: the list as one ziplist.
            assert_error {ERR Bad data format} {r restore k10 0 [cd_payload 10 "$len$zl"]}
            wait_for_log_message {*List ziplist integrity check failed*}
        }
        assert_equal 0 [r exists k14 k10]
        r debug set-skip-checksum-validation 0
        r config set sanitize-dump-payload no
    }

    test {Quicklist nodes: bad container kinds, empty nodes and bad listpacks are refused} {
        r config set sanitize-dump-payload yes
        r debug set-skip-checksum-validation 1
        r del k
        # Type 18, one node, container 5 (only 1 plain and 2 packed exist).
        assert_error {ERR Bad data format} {r restore k 0 [cd_payload 18 "\x01\x05\x03abc"]}
        wait_for_log_message {*Quicklist integrity check failed*}
        # An empty plain node, an empty packed node.
        assert_error {ERR Bad data format} {r restore k 0 [cd_payload 18 "\x01\x01\x00"]}
        assert_error {ERR Bad data format} {r restore k 0 [cd_payload 18 "\x01\x02\x00"]}
        # A packed node whose listpack header counts 3 entries where 2 follow.
        set lp "[binary format is 13 3]\x83abc\x04\x01\x01\xff"
        set len [binary format c [string length $lp]]
        assert_error {ERR Bad data format} {r restore k 0 [cd_payload 18 "\x01\x02$len$lp"]}
        wait_for_log_message {*Listpack integrity check failed*}
        # A node count larger than the nodes that follow.
        assert_error {ERR Bad data format} {r restore k 0 [cd_payload 18 "\x03\x01\x03abc"]}
        assert_equal 0 [r exists k]
        # The same node, well formed, loads as a plain node.
        assert_equal OK [r restore k 0 [cd_payload 18 "\x01\x01\x03abc"]]
        assert_equal {abc} [r lrange k 0 -1]
        r debug set-skip-checksum-validation 0
        r config set sanitize-dump-payload no
    }

    # An empty node between good ones is dropped at load (an index walk must never meet it).
    test {Empty ziplist and listpack nodes between good ones are skipped at load} {
        r debug set-skip-checksum-validation 1
        set good_zl "[binary format iis 17 13 2]\x00\x01a\x03\x01b\xff"
        set empty_zl "[binary format iis 11 10 0]\xff"
        set good_lp "[binary format is 13 2]\x81a\x02\x81b\x02\xff"
        set empty_lp "[binary format is 7 0]\xff"
        foreach sanitize {yes no} {
            r config set sanitize-dump-payload $sanitize
            r del k k2
            assert_equal OK [r restore k 0 [cd_payload 14 "\x03\x11$good_zl\x0b$empty_zl\x11$good_zl"]]
            assert_equal {a b a b} [r lrange k 0 -1]
            assert_equal {b a} [list [r lindex k 1] [r lindex k 2]]
            assert_equal OK [r restore k2 0 [cd_payload 18 "\x03\x02\x0d$good_lp\x02\x07$empty_lp\x01\x03xyz"]]
            assert_equal {a b xyz} [r lrange k2 0 -1]
            assert_equal xyz [r lindex k2 2]
        }
        r debug set-skip-checksum-validation 0
        r config set sanitize-dump-payload no
    }
}

# ---------------------------------------------------------------------------------------------
# One test per family of corruptions Redis 7.0's fuzzing found, each payload built here byte by
# byte (helpers below) so the test says what is wrong with it. Every refusal must come with a
# new log line naming the check ("... integrity check failed", "Stream listpack integrity check
# failed"), and leave no key behind. Tests tagged redistp cover payloads Redis 7.0 loads without
# sanitize-dump-payload and then crashes on (an assertion) or panics on: redis-tp refuses them.

# RDB length encoding of n (6-bit, 14-bit, 32-bit and 64-bit forms).
proc cdi_len {n} {
    if {$n < 64} {return [binary format c $n]}
    if {$n < 16384} {return [binary format cc [expr {0x40 | ($n >> 8)}] [expr {$n & 0xff}]]}
    if {$n < 4294967296} {return "\x80[binary format I $n]"}
    return "\x81[binary format W $n]"
}
proc cdi_str {s} {return "[cdi_len [string length $s]]$s"}

# A ziplist entry holding short text `s`, after an entry of `prevlen` bytes.
proc cdi_zl_entry {prevlen s} {
    return "[binary format c $prevlen][binary format c [string length $s]]$s"
}
# A ziplist of raw entries with a right header (total bytes, tail offset, count) unless the
# caller overrides one of them.
proc cdi_ziplist {entries {bytes {}} {tail {}} {count {}}} {
    set body [join $entries ""]
    set last [expr {[llength $entries] ? [string length [lindex $entries end]] : 0}]
    if {$bytes eq {}} {set bytes [expr {10 + [string length $body] + 1}]}
    if {$tail eq {}} {set tail [expr {10 + [string length $body] - $last}]}
    if {$count eq {}} {set count [llength $entries]}
    return "[binary format iis $bytes $tail $count]$body\xff"
}
# A ziplist of the texts in `items`, each entry's prevlen right.
proc cdi_zl {items} {
    set entries {}
    set prev 0
    foreach s $items {
        set e [cdi_zl_entry $prev $s]
        lappend entries $e
        set prev [string length $e]
    }
    return [cdi_ziplist $entries]
}
# A listpack of the short texts in `items` (count taken from the list unless given).
proc cdi_lp {items {count {}}} {
    set body ""
    foreach s $items {
        set e "[binary format c [expr {0x80 | [string length $s]}]]$s"
        append body $e [binary format c [string length $e]]
    }
    if {$count eq {}} {set count [llength $items]}
    return "[binary format is [expr {6 + [string length $body] + 1}] $count]$body\xff"
}

# RESTORE of `payload` into `key` must be refused with Redis's error, with a new log line
# matching `pattern` (empty: no log check) and no key left.
proc cdi_refused {key payload {pattern {}}} {
    r del $key
    set before [expr {$pattern eq {} ? 0 : [count_log_message $pattern]}]
    assert_error {ERR Bad data format} {r restore $key 0 $payload}
    if {$pattern ne {}} {
        wait_for_condition 100 20 {[count_log_message $pattern] > $before} else {
            fail "no new log line matching $pattern"
        }
    }
    assert_equal 0 [r exists $key]
    assert_equal PONG [r ping]
}

start_server {tags {dump needs:debug external:skip} overrides {loglevel verbose}} {
    r debug set-skip-checksum-validation 1

    test {Corrupt list ziplists: sizes, tail, count, prevlens, encodings and trailing bytes} {
        set e0 [cdi_zl_entry 0 a]
        set e1 [cdi_zl_entry 3 bb]
        set e2 [cdi_zl_entry 4 cccc]
        set good [cdi_ziplist [list $e0 $e1 $e2]]
        set bad {}
        # zlbytes larger and smaller than the blob (#3080, invalid zlbytes header)
        lappend bad [cdi_ziplist [list $e0 $e1 $e2] 60]
        lappend bad [cdi_ziplist [list $e0 $e1 $e2] 3]
        # tail offset outside the ziplist, and pointing into the middle of an entry
        lappend bad [cdi_ziplist [list $e0 $e1 $e2] {} 200]
        lappend bad [cdi_ziplist [list $e0 $e1 $e2] {} 11]
        # entry count wrong (quicklist ziplist wrong count)
        lappend bad [cdi_ziplist [list $e0 $e1 $e2] {} {} 7]
        # prevlen too big, too small, reaching before the ziplist (big / small prev len)
        lappend bad [cdi_ziplist [list $e0 [cdi_zl_entry 200 bb] $e2]]
        lappend bad [cdi_ziplist [list $e0 [cdi_zl_entry 1 bb] $e2]]
        lappend bad [cdi_ziplist [list [cdi_zl_entry 9 a] $e1 $e2]]
        # an entry claiming more text than the ziplist holds, an unknown encoding, a cut int
        lappend bad [cdi_ziplist [list $e0 $e1 "\x04\x30cc"]]
        lappend bad [cdi_ziplist [list $e0 $e1 "\x04\xc5cc"]]
        lappend bad [cdi_ziplist [list $e0 $e1 "\x04\xf0"]]
        # extra bytes after the end mark, starting with another 0xff (tail followed by data)
        set extra "$good\xff\x01\x02"
        lappend bad "[binary format i [string length $extra]][string range $extra 4 end]"
        foreach sanitize {no yes} {
            r config set sanitize-dump-payload $sanitize
            foreach zl $bad {
                cdi_refused k [cd_payload 14 "\x01[cdi_str $zl]"] {*Ziplist integrity check failed*}
                cdi_refused k [cd_payload 10 [cdi_str $zl]] {*List ziplist integrity check failed*}
            }
            # The good one loads in both containers.
            assert_equal OK [r restore k 0 [cd_payload 14 "\x01[cdi_str $good]"] replace]
            assert_equal {a bb cccc} [r lrange k 0 -1]
            assert_equal OK [r restore k 0 [cd_payload 10 [cdi_str $good]] replace]
            assert_equal {a bb cccc} [r lrange k 0 -1]
            r del k
        }
    }

    test {Empty containers are refused: no quicklist nodes, only empty nodes, empty hash, set, zset} {
        set empty_zl [cdi_ziplist {}]
        set empty_lp [cdi_lp {}]
        foreach sanitize {no yes} {
            r config set sanitize-dump-payload $sanitize
            cdi_refused k [cd_payload 14 "\x00"]
            cdi_refused k [cd_payload 18 "\x00"]
            cdi_refused k [cd_payload 14 "\x01[cdi_str $empty_zl]"]
            cdi_refused k [cd_payload 14 "\x02[cdi_str $empty_zl][cdi_str $empty_zl]"]
            cdi_refused k [cd_payload 18 "\x01\x02[cdi_str $empty_lp]"]
            cdi_refused k [cd_payload 13 [cdi_str $empty_zl]]
            cdi_refused k [cd_payload 16 [cdi_str $empty_lp]]
            cdi_refused k [cd_payload 4 "\x00"]
            cdi_refused k [cd_payload 12 [cdi_str $empty_zl]]
            cdi_refused k [cd_payload 17 [cdi_str $empty_lp]]
            cdi_refused k [cd_payload 5 "\x00"]
            cdi_refused k [cd_payload 2 "\x00"]
            cdi_refused k [cd_payload 11 [cdi_str [binary format ii 2 0]]] {*Intset integrity check failed*}
            cdi_refused k [cd_payload 9 [cdi_str "\x00\xff"]] {*Zipmap integrity check failed*}
        }
    }

    test {Corrupt small hashes: odd counts, repeated fields, bad entry lengths} {
        foreach sanitize {no yes} {
            r config set sanitize-dump-payload $sanitize
            # ziplist (old small hash): uneven record count, a field twice, a bad entry length
            cdi_refused k [cd_payload 13 [cdi_str [cdi_zl {a 1 b}]]] {*Hash ziplist integrity check failed*}
            cdi_refused k [cd_payload 13 [cdi_str [cdi_zl {a 1 a 2}]]] {*Hash ziplist integrity check failed*}
            set e0 [cdi_zl_entry 0 a]
            set e1 [cdi_zl_entry 3 1]
            cdi_refused k [cd_payload 13 [cdi_str [cdi_ziplist [list $e0 $e1 "\x03\x30ab" $e1]]]] \
                {*Hash ziplist integrity check failed*}
            # listpack whose total size is wrong
            set lp [cdi_lp {a 1 b 2}]
            cdi_refused k [cd_payload 16 [cdi_str "[binary format i 90][string range $lp 4 end]"]] \
                {*Hash listpack integrity check failed*}
            # zipmap with a field twice
            cdi_refused k [cd_payload 9 [cdi_str "\x02\x01a\x01\x001\x01a\x01\x002\xff"]]
        }
        # With deep sanitizing, a hashtable or listpack with a repeated field, a listpack with an
        # odd count or a first entry longer than the listpack are refused too.
        r config set sanitize-dump-payload yes
        cdi_refused k [cd_payload 4 "\x02[cdi_str a][cdi_str 1][cdi_str a][cdi_str 2]"]
        cdi_refused k [cd_payload 16 [cdi_str [cdi_lp {a 1 b}]]] {*Hash listpack integrity check failed*}
        cdi_refused k [cd_payload 16 [cdi_str [cdi_lp {a 1 a 2}]]] {*Hash listpack integrity check failed*}
        set lp [cdi_lp {a 1}]
        set lp "[string range $lp 0 5]\x8f[string range $lp 7 end]"
        cdi_refused k [cd_payload 16 [cdi_str $lp]] {*Hash listpack integrity check failed*}
        # A good zipmap still loads, as a hash.
        assert_equal OK [r restore k 0 [cd_payload 9 [cdi_str "\x02\x01a\x01\x001\x01b\x01\x002\xff"]]]
        assert_equal {1 2 a b} [lsort [r hgetall k]]
        r del k
        r config set sanitize-dump-payload no
    }

    # Redis 7.0 loads these without sanitize-dump-payload, then asserts on HGETALL or, converting
    # to a hashtable (hash-max-listpack-entries 1), panics on the repeated field.
    test {Without sanitizing too, odd or repeated listpack hashes are refused (not loaded to crash later)} {
        r config set sanitize-dump-payload no
        cdi_refused k [cd_payload 16 [cdi_str [cdi_lp {a 1 b}]]] {*Hash listpack integrity check failed*}
        cdi_refused k [cd_payload 16 [cdi_str [cdi_lp {a 1 a 2}]]] {*Hash listpack integrity check failed*}
        r config set hash-max-listpack-entries 1
        cdi_refused k [cd_payload 16 [cdi_str [cdi_lp {a 1 a 2}]]] {*Hash listpack integrity check failed*}
        r config set hash-max-listpack-entries 128
    } {} {redistp}

    test {Corrupt sorted sets: repeated members, NaN and unreadable scores, bad ziplist tail} {
        set nan [binary format q NaN]
        foreach sanitize {no yes} {
            r config set sanitize-dump-payload $sanitize
            cdi_refused k [cd_payload 12 [cdi_str [cdi_zl {a 1 b}]]] {*Zset ziplist integrity check failed*}
            cdi_refused k [cd_payload 12 [cdi_str [cdi_zl {a 1 a 2}]]] {*Zset ziplist integrity check failed*}
            set e0 [cdi_zl_entry 0 a]
            cdi_refused k [cd_payload 12 [cdi_str [cdi_ziplist [list $e0 [cdi_zl_entry 3 1]] {} 11]]] \
                {*Zset ziplist integrity check failed*}
            # an entry whose prevlen says 0 where 3 bytes precede it
            cdi_refused k [cd_payload 12 [cdi_str [cdi_ziplist [list $e0 [cdi_zl_entry 0 1]]]]] \
                {*Zset ziplist integrity check failed*}
            # binary and text scores that are NaN (zslInsert would assert on them)
            cdi_refused k [cd_payload 5 "\x02[cdi_str a]$nan[cdi_str b][binary format q 1.0]"]
            cdi_refused k [cd_payload 3 "\x01[cdi_str a]\xfd"]
            # a text score whose length runs past the payload (bad rdbLoadDoubleValue)
            cdi_refused k [cd_payload 3 "\x01[cdi_str a]\x64\x31"]
            cdi_refused k [cd_payload 5 "\x02[cdi_str a][binary format q 1.0][cdi_str a][binary format q 2.0]"]
        }
        r config set sanitize-dump-payload yes
        cdi_refused k [cd_payload 17 [cdi_str [cdi_lp {a 1 a 2}]]] {*Zset listpack integrity check failed*}
        r config set sanitize-dump-payload no
    }

    test {Corrupt sets and intsets: sizes, encodings, order, repeats, huge declared counts} {
        foreach sanitize {no yes} {
            r config set sanitize-dump-payload $sanitize
            # intset: length disagrees with the blob, unknown encoding
            cdi_refused k [cd_payload 11 [cdi_str [binary format iiss 2 3 1 2]]] {*Intset integrity check failed*}
            cdi_refused k [cd_payload 11 [cdi_str "[binary format ii 3 1]\x01\x00\x00"]] {*Intset integrity check failed*}
            # a set listing a member twice (leak in rdbloading due to dup entry in set)
            cdi_refused k [cd_payload 2 "\x02[cdi_str a][cdi_str a]"]
            # a set and a hash declaring 2^28 members in a few bytes (dict init to huge size)
            cdi_refused k [cd_payload 2 "[cdi_len 268435456][cdi_str a]"]
            cdi_refused k [cd_payload 4 "[cdi_len 268435456][cdi_str a][cdi_str b]"]
        }
        # Deep sanitizing also catches an unsorted or repeating intset.
        r config set sanitize-dump-payload yes
        cdi_refused k [cd_payload 11 [cdi_str [binary format iiss 2 2 5 1]]] {*Intset integrity check failed*}
        cdi_refused k [cd_payload 11 [cdi_str [binary format iiss 2 2 1 1]]] {*Intset integrity check failed*}
        r config set sanitize-dump-payload no
    }

    test {Corrupt strings: bad LZF data and lengths past the payload} {
        foreach sanitize {no yes} {
            r config set sanitize-dump-payload $sanitize
            # LZF: 5 compressed bytes said to expand to 20, holding a back reference before the
            # start of the output (invalid read in lzf_decompress)
            cdi_refused k [cd_payload 0 "\xc3\x05\x14\x1f\x00\x00\x00\x00"]
            # LZF: a literal run longer than the compressed data
            cdi_refused k [cd_payload 0 "\xc3\x03\x14\x1faa"]
            # a string of 2^32+5 bytes in a short payload (huge string)
            cdi_refused k [cd_payload 0 "[cdi_len 4294967301]abc"]
        }
    }
}

# A stream's DUMP split at its first node: {head lp tail}, head being the type byte, the node
# count, the master id and the listpack's length, lp the node's listpack, tail the rest (the
# metadata, the groups and the 10-byte trailer). The stream must have one node shorter than 64
# bytes and be dumped uncompressed.
proc cdi_split_stream {p} {
    assert_equal "\x01\x10" [string range $p 1 2]
    scan [string index $p 19] %c b
    assert_equal 0 [expr {$b >> 6}]
    set lp [string range $p 20 [expr {19 + $b}]]
    return [list [string range $p 0 18] $lp [string range $p [expr {20 + $b}] end]]
}
proc cdi_join_stream {head lp tail} {
    return "$head[cdi_str $lp]$tail"
}

start_server {tags {dump needs:debug external:skip stream} overrides {loglevel verbose rdbcompression no}} {
    r debug set-skip-checksum-validation 1
    r xadd s 1-1 f v
    r xadd s 1-2 f w
    r xgroup create s g 0
    r xreadgroup group g alice count 1 streams s >
    set ::cdi_stream [r dump s]
    r del s

    test {Corrupt stream listpacks are refused as Stream listpack integrity failures} {
        lassign [cdi_split_stream $::cdi_stream] head lp tail
        set n [string length $lp]
        # total size in the header larger than the listpack (listpack invalid size header)
        set size [cdi_join_stream $head "[binary format i [expr {$n + 5}]][string range $lp 4 end]" $tail]
        foreach sanitize {no yes} {
            r config set sanitize-dump-payload $sanitize
            cdi_refused s $size {*Stream listpack integrity check failed*}
            # no node at all while the stream says it has entries (stream with no records)
            cdi_refused s "[string index $::cdi_stream 0]\x00$tail"
            # a node key that is not a 16-byte id
            cdi_refused s "[string range $head 0 1]\x08[string range $head 3 10][cdi_str $lp]$tail"
            # the same node twice (double insert of one master id)
            cdi_refused s "[string index $head 0]\x02[string range $head 2 end][cdi_str $lp][string range $head 2 end][cdi_str $lp]$tail"
        }
        r config set sanitize-dump-payload yes
        # the first entry (the master entry's count, lp_count) says 40 entries
        cdi_refused s [cdi_join_stream $head "[string range $lp 0 5]\x28[string range $lp 7 end]" $tail] \
            {*Stream listpack integrity check failed*}
        # the back-length of the first entry says 127 bytes (listpack too long entry prev len)
        cdi_refused s [cdi_join_stream $head "[string range $lp 0 6]\x7f[string range $lp 8 end]" $tail] \
            {*Stream listpack integrity check failed*}
        # the master field "f" claims 15 and then 2^32-1 bytes (too long / very long entry len)
        set at [string first "\x81f" $lp]
        assert {$at > 0}
        cdi_refused s [cdi_join_stream $head [string replace $lp $at $at "\x8f"] $tail] \
            {*Stream listpack integrity check failed*}
        cdi_refused s [cdi_join_stream $head [string replace $lp $at $at "\xf0\xff\xff\xff\xff"] $tail] \
            {*Stream listpack integrity check failed*}
        # The payload itself loads.
        assert_equal OK [r restore s 0 $::cdi_stream]
        assert_equal {{1-1 {f v}} {1-2 {f w}}} [r xrange s - +]
        r del s
        r config set sanitize-dump-payload no
    }

    test {A stream PEL entry that no consumer owns is refused} {
        # alice's record ends the payload: name, seen time (8 bytes), PEL count 1, one 16-byte id.
        set at [string first "\x05alice" $::cdi_stream]
        assert {$at > 0}
        set cut [expr {$at + 6 + 8}]
        assert_equal "\x01" [string index $::cdi_stream $cut]
        set bad "[string range $::cdi_stream 0 [expr {$cut - 1}]]\x00[string range $::cdi_stream end-9 end]"
        r config set sanitize-dump-payload yes
        cdi_refused s $bad
        r config set sanitize-dump-payload no
    }

    # Redis 7.0 loads these unsanitized and asserts when a read walks the node; redis-tp checks
    # every node whatever sanitize-dump-payload says.
    test {Without sanitizing too, stream nodes that do not walk are refused} {
        lassign [cdi_split_stream $::cdi_stream] head lp tail
        r config set sanitize-dump-payload no
        set at [string first "\x81f" $lp]
        cdi_refused s [cdi_join_stream $head [string replace $lp $at $at "\x8f"] $tail] \
            {*Stream listpack integrity check failed*}
        cdi_refused s [cdi_join_stream $head [string replace $lp $at $at "\xf0\xff\xff\xff\xff"] $tail] \
            {*Stream listpack integrity check failed*}
        cdi_refused s [cdi_join_stream $head "[string range $lp 0 5]\x28[string range $lp 7 end]" $tail] \
            {*Stream listpack integrity check failed*}
        set at [string first "\x05alice" $::cdi_stream]
        set cut [expr {$at + 6 + 8}]
        cdi_refused s "[string range $::cdi_stream 0 [expr {$cut - 1}]]\x00[string range $::cdi_stream end-9 end]"
    } {} {redistp}
}
