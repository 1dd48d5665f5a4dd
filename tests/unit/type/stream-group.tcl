# Streams, consumer-group management: XGROUP (CREATE with MKSTREAM and ENTRIESREAD, SETID,
# DESTROY, CREATECONSUMER, DELCONSUMER, HELP), XACK, XPENDING (summary and extended form with
# IDLE, exclusive ends and a consumer), XCLAIM (IDLE, TIME, RETRYCOUNT, FORCE, JUSTID, LASTID,
# entries deleted while pending) and XAUTOCLAIM (COUNT, JUSTID, its cursor and 7.0's deleted-ids
# element); their errors in Redis's order, their keyspace notifications, a destroyed group
# waking a blocked XREADGROUP, and a consumer-group failover with XAUTOCLAIM.
#
# Every expectation is what Redis 7.0 answers: this file passes against Debian's redis-server.
# Nothing depends on time passing: idle times are made with XCLAIM's IDLE option, so a
# min-idle-time either is far below or far above what an entry has.

# Fills key with entries 1-0 .. n-0, each {f v<i>}.
proc sg_fill {key n} {
    for {set i 1} {$i <= $n} {incr i} {r xadd $key $i-0 f v$i}
}

# The ids of an XRANGE-shaped reply.
proc sg_ids {entries} {
    set out {}
    foreach e $entries {lappend out [lindex $e 0]}
    return $out
}

# The value of `field` in a flat field/value list (an XINFO reply).
proc sg_field {reply field} {
    foreach {k v} $reply {
        if {$k eq $field} {return $v}
    }
    fail "no field '$field' in: $reply"
}

# XINFO GROUPS' entry for `group` of `key`.
proc sg_group {key group} {
    foreach g [r xinfo groups $key] {
        if {[sg_field $g name] eq $group} {return $g}
    }
    fail "no group '$group' on '$key'"
}

# The consumer names of `group`, in XINFO CONSUMERS's order.
proc sg_consumers {key group} {
    set out {}
    foreach c [r xinfo consumers $key $group] {lappend out [sg_field $c name]}
    return $out
}

# The lines of one reply on a fresh raw connection speaking RESP `proto`, flattened.
proc sg_raw {proto args} {
    set c [redis_client]
    $c hello $proto
    $c readraw 1
    $c deferred 1
    $c {*}$args
    set lines {}
    sg_raw_collect $c lines
    $c close
    return $lines
}
proc sg_raw_collect {c listvar} {
    upvar 1 $listvar lines
    set line [$c read]
    lappend lines $line
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        $ {if {$n >= 0} {lappend lines [$c read]}}
        * - ~ - > {for {set i 0} {$i < $n} {incr i} {sg_raw_collect $c lines}}
        % {for {set i 0} {$i < 2 * $n} {incr i} {sg_raw_collect $c lines}}
    }
}

start_server {tags {stream}} {
    test {XGROUP CREATE needs the key unless MKSTREAM creates an empty stream} {
        r del s
        assert_error {ERR The XGROUP subcommand requires the key to exist*MKSTREAM*} {
            r xgroup create s g 0
        }
        assert_equal 0 [r exists s]
        assert_equal OK [r xgroup create s g $ MKSTREAM]
        assert_equal stream [r type s]
        assert_equal 0 [r xlen s]
        assert_equal 0-0 [sg_field [sg_group s g] last-delivered-id]
    }

    test {XGROUP CREATE: BUSYGROUP, `$`, ids without a sequence, entries-read left unknown} {
        r del s
        sg_fill s 5
        assert_equal OK [r xgroup create s g $]
        assert_error {BUSYGROUP Consumer Group name already exists} {r xgroup create s g 0}
        assert_error {BUSYGROUP*} {r xgroup create s g 0 MKSTREAM MKSTREAM}
        set g [sg_group s g]
        assert_equal 5-0 [sg_field $g last-delivered-id]
        assert_equal {} [sg_field $g entries-read]
        assert_equal 0 [sg_field $g lag]
        r xgroup create s three 3
        assert_equal 3-0 [sg_field [sg_group s three] last-delivered-id]
        r xgroup create s big 18446744073709551615
        assert_equal 18446744073709551615-0 [sg_field [sg_group s big] last-delivered-id]
        # Group names are binary-safe and case-sensitive.
        r xgroup create s G 0
        assert_equal {G big g three} [lmap x [r xinfo groups s] {sg_field $x name}]
    }

    test {XGROUP CREATE ENTRIESREAD sets the counter; -1 means unknown} {
        r del s
        sg_fill s 5
        r xgroup create s g 3 ENTRIESREAD 3
        set g [sg_group s g]
        assert_equal 3 [sg_field $g entries-read]
        assert_equal 2 [sg_field $g lag]
        r xgroup create s h 0 ENTRIESREAD -1 MKSTREAM
        assert_equal {} [sg_field [sg_group s h] entries-read]
        assert_error {ERR value for ENTRIESREAD must be positive or -1} {
            r xgroup create s x 0 ENTRIESREAD -2
        }
        assert_error {ERR value is not an integer or out of range} {
            r xgroup create s x 0 ENTRIESREAD abc MKSTREAM
        }
        assert_error {*ERR value for ENTRIESREAD*} {r xgroup create nokey x 0 ENTRIESREAD -5}
        assert_equal 0 [r exists nokey]
    }

    test {XGROUP CREATE errors and their order} {
        r del s str nokey
        r xadd s 1-0 f v
        r set str x
        set syntax {ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP.}
        assert_error $syntax {r xgroup create s g 0 foo}
        assert_error $syntax {r xgroup create s g 0 ENTRIESREAD}
        assert_error $syntax {r xgroup create s g 0 MKSTREAM ENTRIESREAD 1 foo}
        assert_error $syntax {r xgroup create s g 0 ENTRIESREAD 1 ENTRIESREAD 2}
        assert_error {*for 'Create'. Try XGROUP HELP.} {r xgroup Create s g 0 foo}
        assert_error {ERR wrong number of arguments for 'xgroup|create' command} {
            r xgroup create s g
        }
        assert_error {WRONGTYPE*} {r xgroup create str g 0}
        assert_error {WRONGTYPE*} {r xgroup create str g 0 MKSTREAM}
        # The key is checked before the id; with MKSTREAM a bad id creates nothing.
        assert_error {ERR The XGROUP subcommand requires the key*} {r xgroup create nokey g abc}
        assert_error {ERR Invalid stream ID*} {r xgroup create nokey g abc MKSTREAM}
        assert_equal 0 [r exists nokey]
        foreach id {abc + - 1-2-3 -1} {
            assert_error {ERR Invalid stream ID specified as stream command argument} {
                r xgroup create s g $id
            }
        }
        assert_equal {} [r xinfo groups s]
    }

    test {XGROUP SETID moves the last-delivered id and sets entries-read} {
        r del s
        sg_fill s 5
        r xgroup create s g 0 ENTRIESREAD 0
        assert_equal OK [r xgroup setid s g 3]
        set g [sg_group s g]
        assert_equal 3-0 [sg_field $g last-delivered-id]
        assert_equal {} [sg_field $g entries-read]
        assert_equal OK [r xgroup setid s g $ ENTRIESREAD 5]
        set g [sg_group s g]
        assert_equal 5-0 [sg_field $g last-delivered-id]
        assert_equal 5 [sg_field $g entries-read]
        assert_equal 0 [sg_field $g lag]
        # Back to the start: everything is new again for the group.
        r xgroup setid s g 0 ENTRIESREAD 0
        assert_equal 5 [sg_field [sg_group s g] lag]
        assert_equal {1-0 2-0} [sg_ids [lindex [r xreadgroup group g c count 2 streams s >] 0 1]]
    }

    test {XGROUP SETID errors and their order} {
        r del s str nokey
        r xadd s 1-0 f v
        r xgroup create s g 0
        r set str x
        set syntax {ERR unknown subcommand or wrong number of arguments for 'setid'. Try XGROUP HELP.}
        assert_error $syntax {r xgroup setid s g 0 ENTRIESREAD}
        assert_error $syntax {r xgroup setid s g 0 MKSTREAM}
        assert_error $syntax {r xgroup setid s g 0 ENTRIESREAD 1 x}
        assert_error $syntax {r xgroup setid nokey g 0 foo bar}
        assert_error {ERR wrong number of arguments for 'xgroup|setid' command} {r xgroup setid s g}
        assert_error {ERR value for ENTRIESREAD must be positive or -1} {
            r xgroup setid s g 0 ENTRIESREAD -3
        }
        assert_error {WRONGTYPE*} {r xgroup setid str g 0}
        assert_error {ERR The XGROUP subcommand requires the key to exist*} {
            r xgroup setid nokey g 0
        }
        # The group is checked before the id.
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {
            r xgroup setid s nog abc
        }
        assert_error {ERR Invalid stream ID*} {r xgroup setid s g abc}
        # Unlike CREATE, SETID takes "-" and "+".
        assert_equal OK [r xgroup setid s g +]
        assert_equal 18446744073709551615-18446744073709551615 \
            [sg_field [sg_group s g] last-delivered-id]
        assert_equal OK [r xgroup setid s g -]
        assert_equal 0-0 [sg_field [sg_group s g] last-delivered-id]
    }

    test {XGROUP DESTROY, CREATECONSUMER and DELCONSUMER} {
        r del s str nokey
        sg_fill s 3
        r set str x
        r xgroup create s g 0
        assert_equal 1 [r xgroup createconsumer s g alice]
        assert_equal 0 [r xgroup createconsumer s g alice]
        assert_equal 1 [r xgroup createconsumer s g bob]
        assert_equal {alice bob} [sg_consumers s g]
        r xreadgroup group g alice count 2 streams s >
        # DELCONSUMER answers how many entries the consumer had pending; they leave the group.
        assert_equal 2 [r xgroup delconsumer s g alice]
        assert_equal 0 [r xgroup delconsumer s g alice]
        assert_equal 0 [r xgroup delconsumer s g bob]
        assert_equal {} [sg_consumers s g]
        assert_equal 0 [lindex [r xpending s g] 0]
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {
            r xgroup createconsumer s nog c
        }
        assert_error {NOGROUP*} {r xgroup delconsumer s nog c}
        assert_error {ERR The XGROUP subcommand requires the key*} {
            r xgroup createconsumer nokey g c
        }
        assert_error {WRONGTYPE*} {r xgroup delconsumer str g c}
        assert_error {ERR wrong number of arguments for 'xgroup|destroy' command} {
            r xgroup destroy s
        }
        # A missing group is no error for DESTROY.
        assert_equal 0 [r xgroup destroy s nog]
        assert_equal 1 [r xgroup destroy s g]
        assert_equal 0 [r xgroup destroy s g]
        assert_error {ERR The XGROUP subcommand requires the key*} {r xgroup destroy nokey g}
        assert_equal {} [r xinfo groups s]
        assert_equal 3 [r xlen s]
    }

    test {XGROUP HELP and unknown subcommands} {
        set help [r xgroup help]
        assert_equal {XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $help 0]
        assert_equal {CREATE <key> <groupname> <id|$> [option]} [lindex $help 1]
        assert_equal {    Prints this help.} [lindex $help end]
        assert_equal 17 [llength $help]
        assert_error {ERR unknown subcommand 'foo'. Try XGROUP HELP.} {r xgroup foo}
        assert_error {ERR wrong number of arguments for 'xgroup|help' command} {r xgroup help x}
    }

    test {XACK counts the ids that were pending, each once} {
        r del s
        sg_fill s 4
        r xgroup create s g 0
        r xreadgroup group g c streams s >
        assert_equal 1 [r xack s g 1-0 1-0 99-0]
        assert_equal 2 [r xack s g 2 3-0]
        assert_equal 0 [r xack s g 1-0]
        assert_equal {1 4-0 4-0 {{c 1}}} [r xpending s g]
        # A missing key or group answers 0 before the ids are read.
        assert_equal 0 [r xack nokey g 1-0]
        assert_equal 0 [r xack nokey g abc]
        assert_equal 0 [r xack s nog abc]
    }

    test {XACK checks every id before acknowledging any} {
        r del s str
        sg_fill s 2
        r set str x
        r xgroup create s g 0
        r xreadgroup group g c streams s >
        foreach id {abc - + 1-x} {
            assert_error {ERR Invalid stream ID specified as stream command argument} {
                r xack s g 1-0 $id
            }
        }
        assert_equal 2 [lindex [r xpending s g] 0]
        assert_error {WRONGTYPE*} {r xack str g abc}
        assert_error {ERR wrong number of arguments for 'xack' command} {r xack s g}
    }

    test {XPENDING summary: count, smallest and greatest id, consumers with entries} {
        r del s
        sg_fill s 6
        r xgroup create s g 0
        r xgroup createconsumer s g idle-one
        r xreadgroup group g bob count 2 streams s >
        r xreadgroup group g alice count 3 streams s >
        assert_equal {5 1-0 5-0 {{alice 3} {bob 2}}} [r xpending s g]
        r xack s g 1-0 2-0 3-0 4-0 5-0
        assert_equal {0 {} {} {}} [r xpending s g]
    }

    test {XPENDING summary of an empty group in RESP2 and RESP3} {
        r del s
        r xgroup create s g $ MKSTREAM
        assert_equal [list *4 :0 {$-1} {$-1} *-1] [sg_raw 2 xpending s g]
        assert_equal [list *4 :0 _ _ _] [sg_raw 3 xpending s g]
        r xadd s 1-0 f v
        r xreadgroup group g c streams s >
        assert_equal [list *4 :1 {$3} 1-0 {$3} 1-0 *1 *2 {$1} c {$1} 1] [sg_raw 3 xpending s g]
    }

    test {XPENDING extended form: ranges, exclusive ends, COUNT, a consumer} {
        r del s
        sg_fill s 6
        r xgroup create s g 0
        r xreadgroup group g alice count 3 streams s >
        r xreadgroup group g bob count 2 streams s >
        set all [r xpending s g - + 10]
        assert_equal {1-0 2-0 3-0 4-0 5-0} [sg_ids $all]
        foreach e $all {
            assert_equal 4 [llength $e]
            assert_equal 1 [lindex $e 3]
        }
        assert_equal {alice alice alice bob bob} [lmap e $all {lindex $e 1}]
        assert_equal {2-0 3-0 4-0} [sg_ids [r xpending s g (1-0 (5-0 10]]
        assert_equal {1-0 2-0} [sg_ids [r xpending s g - + 2]]
        assert_equal {3-0 4-0} [sg_ids [r xpending s g 3 4 10]]
        assert_equal {4-0 5-0} [sg_ids [r xpending s g - + 10 bob]]
        assert_equal {} [r xpending s g - + 10 nobody]
        assert_equal {} [r xpending s g - + 0]
        assert_equal {} [r xpending s g - + -1]
        assert_equal {} [r xpending s g 5 3 10]
        # Arguments after the consumer are ignored (up to nine in all).
        assert_equal {4-0 5-0} [sg_ids [r xpending s g - + 10 bob extra more]]
    }

    test {XPENDING IDLE filters by idle time} {
        r del s
        sg_fill s 4
        r xgroup create s g 0
        r xreadgroup group g c streams s >
        r xclaim s g c 0 1-0 3-0 IDLE 3600000 JUSTID
        assert_equal {1-0 3-0} [sg_ids [r xpending s g IDLE 1800000 - + 10]]
        assert_equal {3-0} [sg_ids [r xpending s g IDLE 1800000 (1-0 + 10 c]]
        assert_equal {} [r xpending s g IDLE 1800000 - + 10 nobody]
        assert_equal 4 [llength [r xpending s g idle -5 - + 10]]
        set e [lindex [r xpending s g IDLE 1800000 - + 1] 0]
        assert_range [lindex $e 2] 3600000 3700000
    }

    test {XPENDING errors and their order} {
        r del s str nokey
        sg_fill s 2
        r xgroup create s g 0
        r set str x
        foreach args {{-} {- +} {IDLE 5 - +} {IDLE 10} {- + 10 c a b c} {IDLE 5 - + 10 c x}} {
            assert_error {ERR syntax error} {r xpending s g {*}$args}
        }
        assert_error {ERR value is not an integer*} {r xpending s g - + abc}
        assert_error {ERR value is not an integer*} {r xpending s g IDLE abc - +}
        assert_error {ERR value is not an integer*} {r xpending s g - + 18446744073709551615}
        # COUNT is read before the ids.
        assert_error {ERR value is not an integer*} {r xpending s g abc + x}
        foreach id {abc ( (abc (- (+} {
            assert_error {ERR Invalid stream ID*} {r xpending s g $id + 10}
        }
        assert_error {ERR invalid start ID for the interval} {
            r xpending s g (18446744073709551615-18446744073709551615 + 10
        }
        assert_error {ERR invalid end ID for the interval} {r xpending s g - (0-0 10}
        # Arguments are read before the key.
        assert_error {ERR Invalid stream ID*} {r xpending str g abc + 10}
        assert_error {ERR Invalid stream ID*} {r xpending nokey g abc + 10}
        assert_error {WRONGTYPE*} {r xpending str g}
        assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xpending s nog}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xpending nokey g - + 1}
    }

    test {XCLAIM gives idle entries to another consumer and counts a delivery} {
        r del s
        sg_fill s 3
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r xclaim s g alice 0 1-0 2-0 IDLE 600000 JUSTID
        # Only entries idle at least min-idle-time move; the reply holds the entries.
        assert_equal {{1-0 {f v1}} {2-0 {f v2}}} [r xclaim s g bob 300000 1-0 2-0 3-0]
        set pending [r xpending s g - + 10]
        assert_equal {bob bob alice} [lmap e $pending {lindex $e 1}]
        assert_equal {2 2 1} [lmap e $pending {lindex $e 3}]
        assert_lessthan [lindex $pending 0 2] 300000
        # JUSTID answers ids and leaves the count alone; min-idle-time 0 takes anything.
        assert_equal {3-0} [r xclaim s g bob 0 3 JUSTID]
        assert_equal 1 [lindex [r xpending s g - + 10 bob] 2 3]
        assert_equal {{alice 0} {bob 3}} [lmap c [r xinfo consumers s g] {
            list [sg_field $c name] [sg_field $c pending]
        }]
        # An id given twice is claimed twice.
        assert_equal {1-0 1-0} [r xclaim s g carol 0 1-0 1-0 JUSTID]
    }

    test {XCLAIM IDLE, TIME and RETRYCOUNT set the record; the last of IDLE and TIME wins} {
        r del s
        sg_fill s 2
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r xclaim s g alice 0 1-0 IDLE 500000 RETRYCOUNT 9 JUSTID
        set e [lindex [r xpending s g - + 1] 0]
        assert_range [lindex $e 2] 500000 560000
        assert_equal 9 [lindex $e 3]
        r xclaim s g alice 0 1-0 TIME 1000 JUSTID
        assert_morethan [lindex [r xpending s g - + 1] 0 2] 1000000000
        r xclaim s g alice 0 1-0 TIME 1000 IDLE 700000 JUSTID
        assert_range [lindex [r xpending s g - + 1] 0 2] 700000 760000
        # A delivery time in the future, or a negative one, is now.
        r xclaim s g alice 0 1-0 IDLE -5 RETRYCOUNT 3 JUSTID
        r xclaim s g alice 0 2-0 TIME 99999999999999 JUSTID
        set pending [r xpending s g - + 10]
        assert_lessthan [lindex $pending 0 2] 60000
        assert_lessthan [lindex $pending 1 2] 60000
        assert_equal 3 [lindex $pending 0 3]
        # A negative RETRYCOUNT is as if none was given.
        r xclaim s g alice 0 1-0 RETRYCOUNT -2
        assert_equal 4 [lindex [r xpending s g - + 1] 0 3]
    }

    test {XCLAIM FORCE creates records for entries nobody had pending} {
        r del s
        sg_fill s 3
        r xgroup create s g 0
        assert_equal {} [r xclaim s g c 0 1-0]
        assert_equal {{1-0 {f v1}}} [r xclaim s g c 0 1-0 FORCE]
        assert_equal {2-0} [r xclaim s g c 0 2-0 FORCE JUSTID]
        # An id that is not in the stream is never forced.
        assert_equal {} [r xclaim s g c 0 9-0 FORCE]
        set pending [r xpending s g - + 10]
        assert_equal {1-0 2-0} [sg_ids $pending]
        assert_equal {2 1} [lmap e $pending {lindex $e 3}]
        # Forcing does not move the group's last-delivered id.
        assert_equal 0-0 [sg_field [sg_group s g] last-delivered-id]
    }

    test {XCLAIM drops entries deleted while pending (7.0)} {
        r del s
        sg_fill s 3
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r xdel s 2-0
        assert_equal {{1-0 {f v1}} {3-0 {f v3}}} [r xclaim s g bob 0 1-0 2-0 3-0]
        assert_equal {1-0 3-0} [sg_ids [r xpending s g - + 10]]
        r xdel s 3-0
        assert_equal {} [r xclaim s g bob 0 3-0 JUSTID]
        assert_equal {1 1-0 1-0 {{bob 1}}} [r xpending s g]
    }

    test {XCLAIM creates the consumer only when it claims something} {
        r del s
        sg_fill s 2
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        assert_equal {} [r xclaim s g newbie 3600000 1-0]
        assert_equal {} [r xclaim s g newbie 0 9-0]
        assert_equal {alice} [sg_consumers s g]
        r xclaim s g newbie 0 1-0
        assert_equal {alice newbie} [sg_consumers s g]
    }

    test {XCLAIM LASTID moves the group's last-delivered id forward only} {
        r del s
        sg_fill s 3
        r xgroup create s g 0
        r xreadgroup group g alice count 1 streams s >
        r xclaim s g bob 3600000 1-0 LASTID 50-0
        assert_equal 50-0 [sg_field [sg_group s g] last-delivered-id]
        r xclaim s g bob 0 1-0 LASTID 2-0
        assert_equal 50-0 [sg_field [sg_group s g] last-delivered-id]
    }

    test {XCLAIM errors and their order} {
        r del s str nokey
        sg_fill s 2
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r set str x
        assert_error {WRONGTYPE*} {r xclaim str g c abc 1-0}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xclaim nokey g c abc 1-0}
        assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xclaim s nog c 0 abc}
        assert_error {ERR Invalid min-idle-time argument for XCLAIM} {r xclaim s g c abc 1-0}
        assert_error {ERR Invalid min-idle-time argument for XCLAIM} {
            r xclaim s g c 18446744073709551615 1-0
        }
        assert_error {ERR Invalid min-idle-time argument for XCLAIM} {r xclaim s g c 1.5 1-0}
        # The ids end at the first argument that is not an id; what follows must be options.
        assert_error {ERR Unrecognized XCLAIM option 'abc'} {r xclaim s g c 0 abc}
        assert_error {ERR Unrecognized XCLAIM option 'abc'} {r xclaim s g c 0 1-0 abc 2-0}
        assert_error {ERR Unrecognized XCLAIM option '+'} {r xclaim s g c 0 + JUSTID}
        assert_error {ERR Unrecognized XCLAIM option 'IDLE'} {r xclaim s g c 0 1-0 IDLE}
        assert_error {ERR Unrecognized XCLAIM option 'lastid'} {r xclaim s g c 0 1-0 lastid}
        assert_error {ERR Invalid IDLE option argument for XCLAIM} {r xclaim s g c 0 1-0 IDLE x}
        assert_error {ERR Invalid TIME option argument for XCLAIM} {r xclaim s g c 0 1-0 TIME x}
        assert_error {ERR Invalid RETRYCOUNT option argument for XCLAIM} {
            r xclaim s g c 0 1-0 RETRYCOUNT x
        }
        assert_error {ERR Invalid stream ID*} {r xclaim s g c 0 1-0 LASTID abc}
        assert_error {ERR Invalid stream ID*} {r xclaim s g c 0 1-0 LASTID +}
        assert_error {ERR wrong number of arguments for 'xclaim' command} {r xclaim s g c 0}
        # Nothing changed on the way.
        assert_equal {alice} [sg_consumers s g]
        assert_equal 2-0 [sg_field [sg_group s g] last-delivered-id]
    }

    test {XAUTOCLAIM claims idle entries from a start id and answers a cursor} {
        r del s
        sg_fill s 5
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r xclaim s g alice 0 1-0 2-0 3-0 4-0 IDLE 3600000 JUSTID
        set reply [r xautoclaim s g bob 1800000 - COUNT 2]
        assert_equal 3 [llength $reply]
        assert_equal 3-0 [lindex $reply 0]
        assert_equal {{1-0 {f v1}} {2-0 {f v2}}} [lindex $reply 1]
        assert_equal {} [lindex $reply 2]
        # 5-0 is not idle enough; the walk reaches the end of the PEL: cursor 0-0.
        assert_equal {0-0 {3-0 4-0} {}} [r xautoclaim s g bob 1800000 3-0 JUSTID]
        set pending [r xpending s g - + 10]
        assert_equal {bob bob bob bob alice} [lmap e $pending {lindex $e 1}]
        # JUSTID does not count a delivery.
        assert_equal {2 2 1 1 1} [lmap e $pending {lindex $e 3}]
        # Exclusive start, and a start past everything.
        assert_equal {0-0 {4-0 5-0} {}} [r xautoclaim s g carol 0 (3-0 JUSTID]
        assert_equal {0-0 {} {}} [r xautoclaim s g carol 0 + JUSTID]
    }

    test {XAUTOCLAIM reports entries deleted while pending and drops them (7.0)} {
        r del s
        sg_fill s 5
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r xdel s 2-0 4-0
        # A deleted entry counts towards COUNT.
        assert_equal {3-0 {{1-0 {f v1}}} 2-0} [r xautoclaim s g bob 0 - COUNT 2]
        assert_equal {0-0 {3-0 5-0} 4-0} [r xautoclaim s g bob 0 3-0 JUSTID]
        assert_equal {3 1-0 5-0 {{bob 3}}} [r xpending s g]
    }

    test {XAUTOCLAIM looks at no more than COUNT x 10 records} {
        r del s
        sg_fill s 12
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r xclaim s g alice 0 11-0 12-0 IDLE 3600000 JUSTID
        assert_equal {11-0 {} {}} [r xautoclaim s g bob 1800000 - COUNT 1 JUSTID]
        assert_equal {0-0 {11-0 12-0} {}} [r xautoclaim s g bob 1800000 - COUNT 2 JUSTID]
        # The consumer exists only once it claimed something.
        r xautoclaim s g nobody 3600000 -
        assert_equal {alice bob} [sg_consumers s g]
        # The last COUNT wins.
        assert_equal {3-0 {1-0 2-0} {}} [r xautoclaim s g carol 0 - COUNT 1 COUNT 2 JUSTID JUSTID]
    }

    test {XAUTOCLAIM errors and their order} {
        r del s str nokey
        sg_fill s 2
        r xgroup create s g 0
        r set str x
        foreach n {0 -1 abc 9223372036854775807 576460752303423488} {
            assert_error {ERR COUNT must be > 0} {r xautoclaim s g c 0 - COUNT $n}
        }
        assert_error {ERR Insufficient memory, failed allocating transient memory, COUNT too high.} {
            r xautoclaim s g c 0 - COUNT 576460752303423487
        }
        assert_error {ERR syntax error} {r xautoclaim s g c 0 - COUNT}
        assert_error {ERR syntax error} {r xautoclaim s g c 0 - foo}
        assert_error {ERR syntax error} {r xautoclaim s g c 0 - JUSTID foo}
        assert_error {ERR Invalid min-idle-time argument for XAUTOCLAIM} {r xautoclaim s g c x -}
        assert_error {ERR Invalid stream ID*} {r xautoclaim s g c 0 abc}
        assert_error {ERR Invalid stream ID*} {r xautoclaim s g c 0 (+}
        assert_error {ERR invalid start ID for the interval} {
            r xautoclaim s g c 0 (18446744073709551615-18446744073709551615
        }
        # Arguments are read before the key; the size of COUNT is judged after it.
        assert_error {ERR Invalid min-idle-time argument for XAUTOCLAIM} {r xautoclaim str g c x -}
        assert_error {ERR syntax error} {r xautoclaim nokey g c 0 - foo}
        assert_error {ERR COUNT must be > 0} {r xautoclaim s nog c 0 - COUNT 0}
        assert_error {WRONGTYPE*} {r xautoclaim str g c 0 - COUNT 576460752303423487}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xautoclaim nokey g c 0 -}
        assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xautoclaim s nog c 0 -}
        assert_error {ERR wrong number of arguments for 'xautoclaim' command} {r xautoclaim s g c 0}
        assert_equal {0-0 {} {}} [r xautoclaim s g c -5 -]
    }

    test {Consumer-group failover: a dead consumer's pending entries are taken over} {
        r del jobs
        r xgroup create jobs workers $ MKSTREAM
        for {set i 1} {$i <= 20} {incr i} {r xadd jobs * job $i}
        # Two workers share the jobs; w1 acknowledges what it gets, w2 dies holding its share.
        set got1 [lindex [r xreadgroup group workers w1 count 10 streams jobs >] 0 1]
        set got2 [lindex [r xreadgroup group workers w2 count 10 streams jobs >] 0 1]
        assert_equal 10 [r xack jobs workers {*}[sg_ids $got1]]
        assert_equal [list 10 [lindex [sg_ids $got2] 0] [lindex [sg_ids $got2] end] {{w2 10}}] \
            [r xpending jobs workers]
        # Its entries look an hour old; a fresh one (never read) must not be taken.
        r xclaim jobs workers w2 0 {*}[sg_ids $got2] IDLE 3600000 JUSTID
        r xadd jobs * job late
        set late [lindex [r xreadgroup group workers w2 count 1 streams jobs >] 0 1]
        # The survivor scans with a small COUNT until the cursor comes back to 0-0.
        set taken {}
        set cursor 0-0
        set rounds 0
        while {1} {
            lassign [r xautoclaim jobs workers w3 1800000 $cursor COUNT 3] cursor claimed deleted
            assert_equal {} $deleted
            foreach e $claimed {lappend taken [lindex $e 0]}
            incr rounds
            if {$cursor eq "0-0" || $rounds > 20} break
        }
        assert_equal [sg_ids $got2] $taken
        assert_equal {job} [lindex [lindex $claimed 0 1] 0]
        # w3 now owns them, each delivered twice; w2 only keeps the fresh entry.
        assert_equal [sg_ids $late] [sg_ids [r xpending jobs workers - + 100 w2]]
        set mine [r xpending jobs workers - + 100 w3]
        assert_equal 10 [llength $mine]
        foreach e $mine {assert_equal 2 [lindex $e 3]}
        assert_equal 10 [r xack jobs workers {*}$taken]
        # The dead consumer is removed with what it still holds.
        assert_equal 1 [r xgroup delconsumer jobs workers w2]
        assert_equal {0 {} {} {}} [r xpending jobs workers]
        assert_equal {w1 w3} [sg_consumers jobs workers]
    }

    test {Group-state changes leave a WATCH standing; MKSTREAM's new key aborts it} {
        set c2 [redis_client]
        foreach {cmd want} {
            {xgroup create s g2 0} PONG
            {xgroup setid s g 0} PONG
            {xgroup createconsumer s g newc} PONG
            {xgroup delconsumer s g c} PONG
            {xgroup destroy s g} PONG
            {xack s g 1-0} PONG
            {xclaim s g other 0 1-0} PONG
            {xclaim s g other 3600000 1-0 LASTID 9-0} PONG
            {xautoclaim s g other 0 -} PONG
            {xgroup create fresh g $ MKSTREAM} {}
        } {
            r del s fresh
            sg_fill s 2
            r xgroup create s g 0
            r xreadgroup group g c streams s >
            r watch [expr {[lindex $cmd end] eq "MKSTREAM" ? "fresh" : "s"}]
            $c2 {*}$cmd
            r multi
            r ping
            assert_equal $want [r exec] "WATCH after: $cmd"
        }
        $c2 close
    }

    test {XGROUP DESTROY wakes an XREADGROUP blocked on the group} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [redis_deferring_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_client
        assert_equal 1 [r xgroup destroy s g]
        assert_error {NOGROUP the consumer group this client was blocked on no longer exists} {
            $rd read
        }
        $rd close
    }

    test {XGROUP SETID does not serve a blocked XREADGROUP} {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [redis_deferring_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_client
        r xgroup setid s g 0
        # Still blocked: the next entry is what serves it.
        assert_equal 1 [s blocked_clients]
        r xadd s 1-0 f v
        assert_equal {{s {{1-0 {f v}}}}} [$rd read]
        $rd close
    }
}

start_server {tags {stream}} {
    test {Keyspace notifications of the consumer-group commands} {
        r config set notify-keyspace-events KEA
        r del s
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*
        $rd read
        r xgroup create s g $ MKSTREAM
        catch {r xgroup create s g $ MKSTREAM}
        r xgroup setid s g 0
        r xgroup createconsumer s g c
        r xgroup createconsumer s g c
        r xadd s 1-0 f v
        r xreadgroup group g c streams s >
        r xack s g 1-0
        r xgroup setid s g 0
        r xreadgroup group g c streams s >
        r xclaim s g d 0 1-0
        r xclaim s g d 0 1-0
        r xautoclaim s g e 0 -
        r xautoclaim s g nobody 3600000 -
        r xpending s g
        r xgroup delconsumer s g c
        r xgroup delconsumer s g c
        r xgroup destroy s g
        r xgroup destroy s g
        r set done 1
        set events {}
        while {1} {
            set m [$rd read]
            set event [lindex [split [lindex $m 2] :] 1]
            if {$event eq "set"} break
            lappend events $event
        }
        $rd close
        r config set notify-keyspace-events ""
        assert_equal [list xgroup-create xgroup-setid xgroup-createconsumer xadd xgroup-setid \
            xgroup-createconsumer xgroup-createconsumer xgroup-delconsumer xgroup-destroy] $events
    }
}
