# Compare-and-set and compare-and-delete on strings: SET's IFEQ (Valkey 8.1, Redis 8.4), IFNE,
# IFDEQ and IFDNE (Redis 8.4), DELEX and DIGEST (Redis 8.4), DELIFEQ (Valkey 9.0). Redis 7.0
# has none of them, so every block is tagged redistp (docs/compare-and-set.md is the reference
# these tests check: replies and errors in RESP2 and RESP3, WRONGTYPE, missing and expired
# keys, TTLs, MULTI/WATCH, keyspace events, temporary keys, ACL key permissions, replication to
# a replica and an AOF reload).
#
# A digest is compared with values computed here by DIGEST itself, except for a few fixed ones
# (XXH3-64 of "hello", "", "123", and a value whose digest starts with four zeros), which pin
# the algorithm: a client computing XXH3 locally must get the same text.

# A key that exists holding `value`, with no TTL.
proc cas_fresh {key value} {
    r del $key
    r set $key $value
}

# The digest of `value` as this server computes it (through a scratch key).
proc cas_digest_of {value} {
    r set cas:scratch $value
    set d [r digest cas:scratch]
    r del cas:scratch
    return $d
}

# A 16-character digest that differs from `d` in its last digit.
proc cas_other_digest {d} {
    set last [string index $d end]
    set other [expr {$last eq "0" ? "1" : "0"}]
    return "[string range $d 0 end-1]$other"
}

# Every keyspace message the subscriber `rd` got so far, fenced by a PING, as {channel message}.
proc cas_drain {rd} {
    $rd ping
    set got {}
    for {set i 0} {$i < 1000} {incr i} {
        set m [$rd read]
        if {$m eq "PONG" || [lindex $m 0] eq "pong"} {return $got}
        if {[lindex $m 0] eq "pmessage" && ![string match {__watchex@*} [lindex $m 2]]} {
            lappend got [lrange $m 2 3]
        }
    }
    fail "no PONG after 1000 frames"
}

start_server {tags {string redistp}} {
    test {DIGEST answers XXH3-64 as 16 lowercase hex digits, leading zeros kept} {
        r set cas:d hello
        assert_equal 9555e8555c62dcfd [r digest cas:d]
        r set cas:d ""
        assert_equal 2d06800538d394c2 [r digest cas:d]
        # An integer-encoded value hashes as its decimal text.
        r set cas:d 123
        assert_encoding int cas:d
        assert_equal 404a763b3f4c8c9a [r digest cas:d]
        r set cas:d v8lf0c11xh8ymlqztfd3eeq16kfn4sspw7fqmnuuq3k3t75em5wdizgcdw7uc26nnf961u2jkfzkjytls2kwlj7626sd
        assert_equal 00006c38adf31777 [r digest cas:d]
        # Equal bytes, equal digests, whatever the key or the encoding.
        r set cas:d1 "a\x00b\xff"
        r set cas:d2 "a\x00b\xff"
        assert_equal [r digest cas:d1] [r digest cas:d2]
        r set cas:d1 [string repeat x 5000]
        assert_match {[0-9a-f]*} [r digest cas:d1]
        assert_equal 16 [string length [r digest cas:d1]]
    }

    test {DIGEST of a missing key is nil, of another type WRONGTYPE, and checks its arity} {
        r del cas:none
        assert_equal {} [r digest cas:none]
        r del cas:list
        r rpush cas:list a
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r digest cas:list}
        assert_error {ERR wrong number of arguments for 'digest' command} {r digest}
        assert_error {ERR wrong number of arguments for 'digest' command} {r digest a b}
    }

    test {SET IFEQ writes only over an equal value, byte for byte} {
        cas_fresh cas:k hello
        assert_equal OK [r set cas:k world IFEQ hello]
        assert_equal world [r get cas:k]
        assert_equal {} [r set cas:k again IFEQ hello]
        assert_equal world [r get cas:k]
        # The option word in any case; the comparison is exact (case, binary, empty).
        assert_equal {} [r set cas:k x IFEQ WORLD]
        assert_equal OK [r set cas:k "\x00\xff" ifEq world]
        assert_equal OK [r set cas:k "" IFEQ "\x00\xff"]
        assert_equal OK [r set cas:k end IFEQ ""]
        assert_equal end [r get cas:k]
        # A counter compares as its decimal text: "0123" is not 123.
        cas_fresh cas:k 123
        assert_encoding int cas:k
        assert_equal {} [r set cas:k x IFEQ 0123]
        assert_equal OK [r set cas:k x IFEQ 123]
    }

    test {SET IFEQ and IFDEQ never create a key; IFNE and IFDNE do} {
        r del cas:m
        assert_equal {} [r set cas:m v IFEQ v]
        assert_equal {} [r set cas:m v IFDEQ [cas_digest_of v]]
        assert_equal 0 [r exists cas:m]
        assert_equal OK [r set cas:m v1 IFNE x]
        assert_equal v1 [r get cas:m]
        r del cas:m
        assert_equal OK [r set cas:m v2 IFDNE [cas_digest_of v2]]
        assert_equal v2 [r get cas:m]
    }

    test {SET IFNE writes only over a different value} {
        cas_fresh cas:k hello
        assert_equal {} [r set cas:k world IFNE hello]
        assert_equal hello [r get cas:k]
        assert_equal OK [r set cas:k world IFNE other]
        assert_equal world [r get cas:k]
    }

    test {SET IFDEQ and IFDNE compare the value's digest, in either case} {
        cas_fresh cas:k hello
        set d [r digest cas:k]
        assert_equal {} [r set cas:k x IFDEQ [cas_other_digest $d]]
        assert_equal {} [r set cas:k x IFDNE $d]
        assert_equal {} [r set cas:k x IFDNE [string toupper $d]]
        assert_equal hello [r get cas:k]
        assert_equal OK [r set cas:k x IFDEQ [string toupper $d]]
        assert_equal x [r get cas:k]
        assert_equal OK [r set cas:k y IFDNE $d]
        assert_equal y [r get cas:k]
        # Only the length is checked: 16 other characters are a digest that matches nothing.
        assert_equal {} [r set cas:k z IFDEQ zzzzzzzzzzzzzzzz]
        assert_equal OK [r set cas:k z IFDNE zzzzzzzzzzzzzzzz]
    }

    test {SET IFDEQ and IFDNE refuse a digest that is not 16 characters long, changing nothing} {
        cas_fresh cas:k hello
        set d [r digest cas:k]
        foreach bad [list [string range $d 1 end] "0$d" "" abc] {
            foreach cond {IFDEQ IFDNE} {
                assert_error {ERR must be exactly 16 hexadecimal characters} \
                    {r set cas:k x $cond $bad}
                assert_error {ERR must be exactly 16 hexadecimal characters} \
                    {r set cas:k x $cond $bad GET}
            }
        }
        assert_equal hello [r get cas:k]
        # With no value to compare it with, a missing key answers as for any digest.
        r del cas:m
        assert_equal {} [r set cas:m v IFDEQ abc]
        assert_equal OK [r set cas:m v IFDNE abc]
        assert_equal v [r get cas:m]
    }

    test {SET accepts one condition: NX, XX and the compare options exclude each other} {
        cas_fresh cas:k hello
        foreach args {
            {IFEQ hello NX} {NX IFEQ hello} {IFEQ hello XX} {XX IFNE a} {IFEQ hello IFNE a}
            {IFEQ hello IFEQ hello} {IFDEQ 0000000000000000 IFDNE 0000000000000000} {IFEQ}
            {GET IFNE} {IFEQ hello EX} {IFEQ hello KEEPTTL EX 10}
        } {
            assert_error {ERR syntax error} {r set cas:k x {*}$args}
        }
        assert_equal hello [r get cas:k]
        # The other options in any order around the condition.
        assert_equal hello [r set cas:k x GET KEEPTTL IFEQ hello]
        assert_equal OK [r set cas:k y EX 100 IFEQ x]
        assert_equal y [r get cas:k]
    }

    test {SET with a compare option on another type is WRONGTYPE and changes nothing} {
        r del cas:list
        r rpush cas:list a
        foreach args {{IFEQ a} {IFNE a} {IFDEQ 0000000000000000} {IFDNE 0000000000000000}
                      {IFEQ a GET} {IFNE a GET} {IFDNE abc}} {
            assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} \
                {r set cas:list x {*}$args}
        }
        assert_equal list [r type cas:list]
    }

    test {SET with GET and a compare option answers the old value whether it wrote or not} {
        cas_fresh cas:k hello
        assert_equal hello [r set cas:k world IFEQ nope GET]
        assert_equal hello [r get cas:k]
        assert_equal hello [r set cas:k world IFEQ hello GET]
        assert_equal world [r get cas:k]
        assert_equal world [r set cas:k again IFNE world GET]
        assert_equal world [r get cas:k]
        set d [r digest cas:k]
        assert_equal world [r set cas:k d1 IFDEQ $d GET]
        assert_equal d1 [r set cas:k d2 IFDNE $d GET]
        assert_equal d2 [r get cas:k]
        r del cas:m
        assert_equal {} [r set cas:m v IFEQ v GET]
        assert_equal 0 [r exists cas:m]
        assert_equal {} [r set cas:m v IFNE v GET]
        assert_equal v [r get cas:m]
    }

    test {SET with a compare option: the TTL is replaced, cleared or kept as by plain SET} {
        cas_fresh cas:k a
        r expire cas:k 1000
        # A failed condition leaves the TTL alone.
        assert_equal {} [r set cas:k b IFEQ nope EX 50]
        assert_range [r ttl cas:k] 900 1000
        assert_equal OK [r set cas:k b IFEQ a KEEPTTL]
        assert_range [r ttl cas:k] 900 1000
        assert_equal OK [r set cas:k c IFEQ b PX 50000]
        assert_range [r pttl cas:k] 40000 50000
        assert_equal OK [r set cas:k d IFNE x]
        assert_equal -1 [r ttl cas:k]
        assert_equal OK [r set cas:k e IFDEQ [r digest cas:k] EXAT [expr {[clock seconds] + 500}]]
        assert_range [r ttl cas:k] 400 500
        # An invalid expire time is refused before the condition is looked at.
        assert_error {ERR invalid expire time in 'set' command} {r set cas:k f IFEQ e EX 0}
        assert_error {ERR invalid expire time in 'set' command} {r set cas:k f IFEQ nope PX -5}
        assert_error {ERR value is not an integer or out of range} {r set cas:k f IFNE e EX x}
        assert_equal e [r get cas:k]
    }

    test {An expired key counts as missing for every compare-and-set command} {
        r debug set-active-expire 0
        # PXAT 1 stores keys that are already past their time: expired on their next access.
        r set cas:e1 v PXAT 1
        assert_equal {} [r set cas:e1 w IFEQ v]
        r set cas:e2 v PXAT 1
        assert_equal OK [r set cas:e2 w IFNE v]
        assert_equal w [r get cas:e2]
        assert_equal -1 [r ttl cas:e2]
        r set cas:e3 v PXAT 1
        assert_equal 0 [r delifeq cas:e3 v]
        r set cas:e4 v PXAT 1
        assert_equal 0 [r delex cas:e4 IFEQ v]
        r set cas:e5 v PXAT 1
        assert_equal 0 [r delex cas:e5]
        r set cas:e6 v PXAT 1
        assert_equal {} [r digest cas:e6]
        r debug set-active-expire 1
        assert_equal 0 [r exists cas:e1 cas:e3 cas:e4 cas:e5 cas:e6]
    } {} {needs:debug}

    test {DELIFEQ deletes a key only while it holds the given string} {
        cas_fresh cas:lock token-a
        assert_equal 0 [r delifeq cas:lock token-b]
        assert_equal token-a [r get cas:lock]
        assert_equal 1 [r delifeq cas:lock token-a]
        assert_equal 0 [r exists cas:lock]
        assert_equal 0 [r delifeq cas:lock token-a]
        cas_fresh cas:lock 42
        assert_equal 0 [r delifeq cas:lock 042]
        assert_equal 1 [r delifeq cas:lock 42]
        cas_fresh cas:lock ""
        assert_equal 1 [r delifeq cas:lock ""]
    }

    test {DELIFEQ on another type is WRONGTYPE; its arity is exactly 3} {
        r del cas:set
        r sadd cas:set m
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r delifeq cas:set m}
        assert_equal 1 [r exists cas:set]
        assert_error {ERR wrong number of arguments for 'delifeq' command} {r delifeq cas:set}
        assert_error {ERR wrong number of arguments for 'delifeq' command} {r delifeq cas:set m n}
    }

    test {DELEX without a condition is DEL of one key, of any type} {
        r del cas:h
        r hset cas:h f v
        assert_equal 1 [r delex cas:h]
        assert_equal 0 [r exists cas:h]
        assert_equal 0 [r delex cas:h]
        cas_fresh cas:k v
        assert_equal 1 [r delex cas:k]
    }

    test {DELEX IFEQ, IFNE, IFDEQ and IFDNE} {
        cas_fresh cas:k hello
        set d [r digest cas:k]
        assert_equal 0 [r delex cas:k IFEQ world]
        assert_equal 0 [r delex cas:k IFNE hello]
        assert_equal 0 [r delex cas:k IFDEQ [cas_other_digest $d]]
        assert_equal 0 [r delex cas:k IFDNE [string toupper $d]]
        assert_equal hello [r get cas:k]
        assert_equal 1 [r delex cas:k ifeq hello]
        cas_fresh cas:k hello
        assert_equal 1 [r delex cas:k IFNE world]
        cas_fresh cas:k hello
        assert_equal 1 [r delex cas:k IFDEQ [string toupper $d]]
        cas_fresh cas:k hello
        assert_equal 1 [r delex cas:k IFDNE [cas_other_digest $d]]
        assert_equal 0 [r exists cas:k]
    }

    test {DELEX answers for a missing key or another type before it reads the condition} {
        r del cas:m
        foreach cond {IFEQ IFNE IFDEQ IFDNE FOO} {
            assert_equal 0 [r delex cas:m $cond x]
        }
        r del cas:list
        r rpush cas:list a
        foreach cond {IFEQ IFNE IFDEQ IFDNE FOO} {
            assert_error {ERR Key should be of string type if conditions are specified} \
                {r delex cas:list $cond a}
        }
        assert_equal 1 [r exists cas:list]
        cas_fresh cas:k hello
        assert_error {ERR Invalid condition. Use IFEQ, IFNE, IFDEQ, or IFDNE} {r delex cas:k EQ hello}
        foreach bad {abc 0123456789abcdef0 {}} {
            assert_error {ERR must be exactly 16 hexadecimal characters} {r delex cas:k IFDEQ $bad}
            assert_error {ERR must be exactly 16 hexadecimal characters} {r delex cas:k IFDNE $bad}
        }
        assert_equal hello [r get cas:k]
    }

    test {DELEX with a condition word and no value, or one argument too many, is an arity error} {
        cas_fresh cas:k hello
        r del cas:m
        foreach key {cas:k cas:m} {
            assert_error {ERR wrong number of arguments for 'delex' command} {r delex $key IFEQ}
            assert_error {ERR wrong number of arguments for 'delex' command} {r delex $key IFEQ hello x}
        }
        assert_error {ERR wrong number of arguments for 'delex' command} {r delex}
        assert_equal hello [r get cas:k]
    }

    test {RESP2 and RESP3 replies of the compare-and-set commands, on the wire} {
        set c [redis_client]
        cas_fresh cas:k hello
        r del cas:m
        $c readraw 1
        set got {}
        foreach cmd {{set cas:k x IFEQ nope} {set cas:k x IFEQ hello} {set cas:k y IFEQ x GET}
                     {digest cas:m} {delex cas:k IFEQ nope} {delifeq cas:k y}} {
            lappend got [$c {*}$cmd]
            if {[string match {$[0-9]*} [lindex $got end]]} {lappend got [$c read]}
        }
        assert_equal [list {$-1} +OK {$1} x {$-1} :0 :1] $got
        $c readraw 0
        $c hello 3
        cas_fresh cas:k hello
        set d [r digest cas:k]
        $c readraw 1
        set got {}
        foreach cmd {{set cas:k x IFEQ nope} {set cas:k x IFDEQ} {digest cas:m} {digest cas:k}
                     {set cas:k x IFEQ nope GET} {delex cas:m IFEQ a}} {
            lappend got [$c {*}$cmd]
            if {[string match {$[0-9]*} [lindex $got end]]} {lappend got [$c read]}
        }
        assert_equal [list _ {-ERR syntax error} _ {$16} $d {$5} hello :0] $got
        $c close
    }

    test {COMMAND INFO and GETKEYSANDFLAGS of the new rows; SET reads its key under a condition} {
        assert_equal {digest 2 {readonly fast} 1 1 1 {@read @string @fast}} \
            [lrange [lindex [r command info digest] 0] 0 6]
        assert_equal {delex -2 {write fast} 1 1 1 {@write @string @fast}} \
            [lrange [lindex [r command info delex] 0] 0 6]
        assert_equal {delifeq 3 {write fast} 1 1 1 {@write @string @fast}} \
            [lrange [lindex [r command info delifeq] 0] 0 6]
        assert_equal {{k {RW access update}}} [r command getkeysandflags set k v IFEQ x]
        assert_equal {{k {RW access update}}} [r command getkeysandflags set k v ifdne x]
        assert_equal {{k {OW update}}} [r command getkeysandflags set k v NX]
        assert_equal {{k {RM delete}}} [r command getkeysandflags delex k]
        assert_equal {{k {RW access delete}}} [r command getkeysandflags delex k IFEQ v]
        assert_equal {{k {RM access delete}}} [r command getkeysandflags delifeq k v]
    }

    test {ACL: a user who may only write a key cannot compare against its value} {
        r acl setuser cas-w on nopass +@all %W~cas:w*
        set c [redis_client]
        $c auth cas-w x
        assert_equal OK [$c set cas:w1 v]
        assert_error {NOPERM*} {$c set cas:w1 v IFEQ v}
        assert_error {NOPERM*} {$c delex cas:w1 IFEQ v}
        assert_error {NOPERM*} {$c digest cas:w1}
        assert_error {NOPERM*} {$c delifeq cas:w1 v}
        # Without a condition DELEX only removes, which the write permission covers.
        assert_equal 1 [$c delex cas:w1]
        $c close
        r acl deluser cas-w
    }

    test {MULTI/WATCH: a compare-and-set write touches WATCHed keys, a refused one does not} {
        set other [redis_client]
        foreach {setup cmd touches} {
            {set cas:w tok} {delifeq cas:w tok} 1
            {set cas:w tok} {delifeq cas:w nope} 0
            {set cas:w tok} {delex cas:w IFNE nope} 1
            {set cas:w tok} {delex cas:w IFEQ nope} 0
            {set cas:w tok} {set cas:w new IFEQ tok} 1
            {set cas:w tok} {set cas:w new IFEQ nope} 0
            {del cas:w} {set cas:w new IFNE x} 1
            {del cas:w} {set cas:w new IFEQ x} 0
        } {
            r {*}$setup
            r watch cas:w
            $other {*}$cmd
            r multi
            r ping
            set res [r exec]
            assert_equal [expr {$touches ? {} : {PONG}}] $res
        }
        # Inside a transaction they answer as outside it.
        r set cas:w tok
        r multi
        r set cas:w t2 IFEQ tok
        r delifeq cas:w tok
        r delex cas:w IFEQ t2
        r digest cas:w
        assert_equal {OK 0 1 {}} [r exec]
        $other close
    }

    test {Keyspace events: a conditional SET is a set, a conditional delete a del; a refused one nothing} {
        r config set notify-keyspace-events KEA
        set sub [redis_deferring_client]
        $sub psubscribe *
        $sub read
        set db [srv 0 db]
        cas_fresh cas:n v
        cas_drain $sub
        r set cas:n w IFEQ nope
        r delifeq cas:n nope
        r delex cas:n IFEQ nope
        r digest cas:n
        assert_equal {} [cas_drain $sub]
        r set cas:n w IFEQ v
        r delifeq cas:n w
        r set cas:n x IFNE w
        r delex cas:n IFDEQ [cas_digest_of x]
        set want {}
        # (KEA leaves out `new`: IFNE creating the key is a plain `set`.)
        foreach {event} {set del set del} {
            lappend want [list __keyspace@${db}__:cas:n $event] [list __keyevent@${db}__:$event cas:n]
        }
        set got [cas_drain $sub]
        # cas_digest_of's scratch key has events of its own: keep only cas:n's.
        set mine {}
        foreach m $got {
            if {[string match *cas:n* $m]} {lappend mine $m}
        }
        assert_equal $want $mine
        $sub close
        r config set notify-keyspace-events ""
    }

    test {Temporary keys: SET IFEQ keeps the owner; another connection's DELIFEQ deletes as DEL does} {
        set a [redis_client]
        set b [redis_client]
        r del cas:t
        assert_equal 1 [$a settp cas:t tok-a]
        set owner [$a client id]
        # A non-owner's conditional overwrite is a SET: the value changes, the ownership stays.
        assert_equal OK [$b set cas:t tok-b IFEQ tok-a]
        assert_equal $owner [r object owner cas:t]
        assert_equal {} [$b set cas:t x IFEQ tok-a]
        # A wrong token deletes nothing; the right one deletes the key whoever owns it.
        assert_equal 0 [$b delifeq cas:t tok-a]
        assert_equal $owner [r object owner cas:t]
        assert_equal 1 [$b delifeq cas:t tok-b]
        assert_equal 0 [r exists cas:t]
        # Re-created by b as an ordinary key: a's leaving does not touch it.
        r set cas:t mine
        $a close
        wait_for_condition 100 20 {[r object owner cas:t] eq {}} else {fail "owner still set"}
        assert_equal mine [r get cas:t]
        # DELEX of a temporary key, with and without a condition.
        set c [redis_client]
        r del cas:t
        assert_equal 1 [$c settp cas:t v]
        assert_equal 0 [$b delex cas:t IFNE v]
        assert_equal 1 [$b delex cas:t IFEQ v]
        assert_equal 1 [$c settp cas:t v]
        assert_equal 1 [$b delex cas:t]
        assert_equal 0 [r exists cas:t]
        $b close
        $c close
    }

    test {Temporary keys: a DELIFEQ release hands the key to a waiting BSETTP, as DEL does} {
        set a [redis_client]
        set w [redis_deferring_client]
        r del cas:q
        assert_equal 1 [$a settp cas:q tok-a]
        $w client id
        set wid [$w read]
        $w bsettp cas:q tok-w 0
        wait_for_condition 100 20 {[s blocked_clients] == 1} else {fail "BSETTP did not block"}
        assert_equal 1 [$a delifeq cas:q tok-a]
        assert_equal 1 [$w read]
        assert_equal tok-w [r get cas:q]
        assert_equal $wid [r object owner cas:q]
        $w close
        $a close
    }
}

start_server {tags {string redistp external:skip} overrides {appendonly yes appendfsync always}} {
    # The text of the AOF's incr files, once the buffer is written.
    proc cas_aof_text {} {
        wait_for_condition 200 20 {[s aof_buffer_length] == 0} else {
            fail "the AOF buffer was not written"
        }
        set text ""
        foreach f [lsort [glob -nocomplain [file join [server_path 0 appendonlydir] *.incr.aof]]] {
            set fd [open $f rb]
            append text [read $fd]
            close $fd
        }
        return $text
    }

    # How many times the RESP form of the command `args` occurs in `text`.
    proc cas_count {text args} {
        set needle "*[llength $args]\r\n"
        foreach a $args {append needle "\$[string length $a]\r\n$a\r\n"}
        set n 0
        set at 0
        while {[set at [string first $needle $text $at]] >= 0} {
            incr n
            incr at
        }
        return $n
    }

    test {AOF: a conditional SET is recorded as SET without its condition, a conditional delete as DEL} {
        r select 0
        r set cas:a1 v
        r set cas:a1 w IFEQ v
        r set cas:a1 x IFDNE 0000000000000000 KEEPTTL
        r set cas:a1 y IFEQ nope
        r set cas:a2 v
        r delifeq cas:a2 nope
        r delifeq cas:a2 v
        r set cas:a3 v
        r delex cas:a3 IFNE nope
        r set cas:a4 v
        r delex cas:a4
        r set cas:a5 v IFNE x EX 1000
        set text [cas_aof_text]
        assert_equal 1 [cas_count $text SET cas:a1 w]
        assert_equal 1 [cas_count $text SET cas:a1 x KEEPTTL]
        assert_equal 0 [regexp -all -nocase -- {IFEQ|IFNE|IFDEQ|IFDNE|DELIFEQ|DELEX} $text]
        assert_equal 0 [cas_count $text SET cas:a1 y]
        foreach k {cas:a2 cas:a3 cas:a4} {
            assert_equal 1 [cas_count $text DEL $k]
        }
        assert_equal 1 [regexp -all -- {\*5\r\n\$3\r\nSET\r\n\$6\r\ncas:a5\r\n\$1\r\nv\r\n\$4\r\nPXAT\r\n} $text]
    }

    test {AOF: a reload reaches the same data} {
        r set cas:r1 a
        r set cas:r1 b IFEQ a
        r set cas:r2 a EX 1000
        r set cas:r2 b IFDEQ [r digest cas:r2] KEEPTTL
        r set cas:r3 a
        r delifeq cas:r3 a
        set digest [r debug digest]
        r debug loadaof
        assert_equal $digest [r debug digest]
        assert_equal {b b 0} [list [r get cas:r1] [r get cas:r2] [r exists cas:r3]]
        assert_range [r ttl cas:r2] 900 1000
    } {} {needs:debug}
}

start_server {tags {repl string redistp external:skip}} {
    start_server {} {
        r replicaof [srv -1 host] [srv -1 port]
        wait_for_condition 500 20 {[getInfoProperty [r info replication] master_link_status] eq "up"} else {
            fail "the replica did not connect"
        }

        test {Replication: the replica applies what the master's compare-and-set did} {
            set m [redis_client -1]
            $m set cas:r1 a
            $m set cas:r1 b IFEQ a
            $m set cas:r1 c IFEQ nope
            $m set cas:r2 a PX 500000
            $m set cas:r2 b IFNE x KEEPTTL
            $m set cas:r3 a
            $m delifeq cas:r3 a
            $m set cas:r4 a
            $m delex cas:r4 IFDEQ [$m digest cas:r4]
            $m set cas:r5 a
            $m delex cas:r5 IFEQ nope
            $m set cas:done 1
            wait_for_condition 500 20 {[r get cas:done] eq 1} else {
                fail "the replica did not catch up"
            }
            assert_equal {b b 0 0 a} [list [r get cas:r1] [r get cas:r2] [r exists cas:r3] \
                                          [r exists cas:r4] [r get cas:r5]]
            assert_range [r pttl cas:r2] 400000 500000
            assert_equal [$m debug digest] [r debug digest]
            $m close
        }

        test {Replication: a replica refuses the compare-and-set writes as it refuses SET} {
            assert_error {READONLY*} {r set cas:r5 x IFEQ a}
            assert_error {READONLY*} {r delifeq cas:r5 a}
            assert_error {READONLY*} {r delex cas:r5}
            assert_equal [r digest cas:r5] [r -1 digest cas:r5]
        }
    }
}
