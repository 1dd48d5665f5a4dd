# Stream consumer groups: XGROUP (CREATE with MKSTREAM and ENTRIESREAD, SETID, DESTROY,
# CREATECONSUMER, DELCONSUMER), XREADGROUP without blocking (`>`, a history id, NOACK, COUNT),
# XACK, XPENDING (summary, extended with IDLE and a consumer), XCLAIM (IDLE, TIME, RETRYCOUNT,
# FORCE, JUSTID, LASTID), XAUTOCLAIM (COUNT, JUSTID, 7.0's array of deleted ids), a consumer
# taking over a failed one's entries with XAUTOCLAIM, Redis 7.0's entries-read and lag in XINFO
# GROUPS through XDEL, XTRIM and XSETID, XINFO CONSUMERS, every error text, which writes abort
# a WATCH (7.0: only entries coming or going do), and DEBUG RELOAD keeping all of it.
#
# Every expectation is what Redis 7.0 answers: this file passes against Debian's redis-server.
# Idle times are set explicitly (IDLE, TIME) or only bounded from below; nothing waits for time.

# The value of `field` in a flat field/value list.
proc xg_field {reply field} {
    foreach {k v} $reply {
        if {$k eq $field} {return $v}
    }
    fail "no field '$field' in: $reply"
}

# The keys of a flat field/value list.
proc xg_keys {reply} {
    set out {}
    foreach {k v} $reply {lappend out $k}
    return $out
}

# {name entries-read lag} of every group of key, in XINFO GROUPS order (by name).
proc xg_lags {key} {
    set out {}
    foreach g [r xinfo groups $key] {
        lappend out [list [xg_field $g name] [xg_field $g entries-read] [xg_field $g lag]]
    }
    return $out
}

# The ids of an XRANGE-shaped reply.
proc xg_ids {entries} {
    set out {}
    foreach e $entries {lappend out [lindex $e 0]}
    return $out
}

# Fills key with entries 1-0 .. n-0, each {f <i>}.
proc xg_fill {key n} {
    r del $key
    for {set i 1} {$i <= $n} {incr i} {
        r xadd $key $i-0 f $i
    }
}

set ::xg_nokey {ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.}

start_server {tags {stream}} {
    test {XGROUP CREATE at 0, $ and an id; MKSTREAM; BUSYGROUP} {
        xg_fill s 3
        assert_equal OK [r xgroup create s g0 0]
        assert_equal OK [r xgroup create s gd $]
        assert_equal OK [r xgroup create s gm 2-0]
        assert_error {BUSYGROUP Consumer Group name already exists} {r xgroup create s g0 $}
        set groups [r xinfo groups s]
        assert_equal {g0 gd gm} [lmap g $groups {xg_field $g name}]
        assert_equal {0-0 3-0 2-0} [lmap g $groups {xg_field $g last-delivered-id}]
        r del nokey
        assert_error $::xg_nokey {r xgroup create nokey g 0}
        assert_equal 0 [r exists nokey]
        assert_equal OK [r xgroup create nokey g $ mkstream]
        assert_equal 0 [r xlen nokey]
        assert_equal 1 [llength [r xinfo groups nokey]]
        r set str x
        assert_error {WRONGTYPE *} {r xgroup create str g 0 mkstream}
        r del str nokey
    }

    test {XGROUP CREATE and SETID with ENTRIESREAD} {
        xg_fill s 5
        assert_equal OK [r xgroup create s g 2-0 entriesread 2]
        assert_equal {{g 2 3}} [xg_lags s]
        assert_equal OK [r xgroup setid s g 4-0 entriesread 4]
        assert_equal {{g 4 1}} [xg_lags s]
        assert_equal OK [r xgroup setid s g 0 entriesread -1]
        assert_equal {{g {} 5}} [xg_lags s]
        assert_error {ERR value for ENTRIESREAD must be positive or -1} \
            {r xgroup create s g2 0 entriesread -5}
        assert_error {ERR value for ENTRIESREAD must be positive or -1} \
            {r xgroup setid s g 0 entriesread -2}
        assert_error {ERR value is not an integer or out of range} {r xgroup create s g2 0 entriesread x}
    }

    test {XGROUP errors} {
        xg_fill s 3
        r xgroup create s g 0
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xgroup create s g2 x}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP.} \
            {r xgroup create s g2 0 foo}
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xgroup setid s nog 0}
        assert_error $::xg_nokey {r xgroup setid nokey g 0}
        assert_error $::xg_nokey {r xgroup destroy nokey g}
        assert_error $::xg_nokey {r xgroup createconsumer nokey g c}
        assert_error $::xg_nokey {r xgroup delconsumer nokey g c}
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} \
            {r xgroup createconsumer s nog c}
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xgroup delconsumer s nog c}
        assert_error {ERR unknown subcommand 'foo'. Try XGROUP HELP.} {r xgroup foo}
        assert_error {ERR wrong number of arguments for 'xgroup|create' command} {r xgroup create s}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xgroup setid s g x}
    }

    test {XGROUP DESTROY, CREATECONSUMER and DELCONSUMER replies} {
        xg_fill s 3
        r xgroup create s g 0
        assert_equal 1 [r xgroup createconsumer s g alice]
        assert_equal 0 [r xgroup createconsumer s g alice]
        assert_equal 0 [r xgroup delconsumer s g nobody]
        r xreadgroup group g bob count 2 streams s >
        # DELCONSUMER answers the pending count it dropped.
        assert_equal 2 [r xgroup delconsumer s g bob]
        assert_equal {0 {} {} {}} [r xpending s g]
        assert_equal {alice} [lmap c [r xinfo consumers s g] {xg_field $c name}]
        assert_equal 1 [r xgroup destroy s g]
        assert_equal 0 [r xgroup destroy s g]
        assert_equal {} [r xinfo groups s]
    }

    test {XREADGROUP > delivers new entries once and records them pending} {
        xg_fill s 4
        r xgroup create s g 0
        assert_equal {{s {{1-0 {f 1}} {2-0 {f 2}}}}} [r xreadgroup group g alice count 2 streams s >]
        assert_equal {{s {{3-0 {f 3}} {4-0 {f 4}}}}} [r xreadgroup group g bob streams s >]
        assert_equal {} [r xreadgroup group g bob streams s >]
        set p [r xpending s g]
        assert_equal {4 1-0 4-0 {{alice 2} {bob 2}}} $p
        set g [lindex [r xinfo groups s] 0]
        assert_equal {2 4 4-0 4 0} [list [xg_field $g consumers] [xg_field $g pending] \
            [xg_field $g last-delivered-id] [xg_field $g entries-read] [xg_field $g lag]]
    }

    test {XREADGROUP with a history id reads the consumer's own pending entries} {
        xg_fill s 3
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r xdel s 2-0
        # A deleted pending entry comes back with nil fields.
        assert_equal {{s {{1-0 {f 1}} {2-0 {}} {3-0 {f 3}}}}} [r xreadgroup group g alice streams s 0]
        assert_equal {{s {{3-0 {f 3}}}}} [r xreadgroup group g alice streams s 2-0]
        assert_equal {{s {{1-0 {f 1}}}}} [r xreadgroup group g alice count 1 streams s 0]
        assert_equal {{s {}}} [r xreadgroup group g bob streams s 0]
        # Reading history counts as a delivery, except of a deleted entry.
        set ext [r xpending s g - + 10]
        assert_equal {{1-0 alice 3} {2-0 alice 1} {3-0 alice 3}} \
            [lmap e $ext {list [lindex $e 0] [lindex $e 1] [lindex $e 3]}]
        r xack s g 1-0 2-0 3-0
        assert_equal {{s {}}} [r xreadgroup group g alice streams s 0]
    }

    test {XREADGROUP NOACK does not record pending entries} {
        xg_fill s 3
        r xgroup create s g 0
        assert_equal {{s {{1-0 {f 1}} {2-0 {f 2}}}}} [r xreadgroup group g alice count 2 noack streams s >]
        assert_equal {0 {} {} {}} [r xpending s g]
        assert_equal {{s {{3-0 {f 3}}}}} [r xreadgroup group g alice streams s >]
        assert_equal 1 [lindex [r xpending s g] 0]
    }

    test {XREADGROUP over several streams, one of them with nothing new} {
        xg_fill s1 2
        xg_fill s2 1
        r xgroup create s1 g 0
        r xgroup create s2 g $
        assert_equal {{s1 {{1-0 {f 1}} {2-0 {f 2}}}}} [r xreadgroup group g c streams s1 s2 > >]
        r xadd s2 5-0 f 5
        assert_equal {{s2 {{5-0 {f 5}}}}} [r xreadgroup group g c streams s1 s2 > >]
        assert_equal {{s1 {{1-0 {f 1}} {2-0 {f 2}}}} {s2 {{5-0 {f 5}}}}} \
            [r xreadgroup group g c streams s1 s2 0 0]
    }

    test {XREADGROUP and XREAD errors} {
        xg_fill s 1
        r xgroup create s g 0
        assert_error {NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option} \
            {r xreadgroup group nog c streams s >}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option} \
            {r xreadgroup group g c streams nokey >}
        assert_error {ERR wrong number of arguments for 'xreadgroup' command} {r xreadgroup group g c streams s}
        assert_error {ERR wrong number of arguments for 'xreadgroup' command} {r xreadgroup group g streams s >}
        assert_error {ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.} \
            {r xreadgroup group g c streams s > >}
        assert_error {ERR value is not an integer or out of range} {r xreadgroup group g c count x streams s >}
        assert_error {ERR Invalid stream ID specified as stream command argument} \
            {r xreadgroup group g c streams s x}
        assert_error {ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.} \
            {r xread streams s >}
        # XREAD's `+` is Redis 7.4's "last entry" (newer-options.tcl); XREADGROUP refuses it.
        assert_error {ERR Invalid stream ID specified as stream command argument} \
            {r xreadgroup group g c streams s +}
        assert_error {ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.} \
            {r xread streams s s 0}
        r set str x
        assert_error {WRONGTYPE *} {r xreadgroup group g c streams str >}
        assert_error {WRONGTYPE *} {r xread streams str 0}
        r del str
    }

    test {XACK acknowledges pending ids only} {
        xg_fill s 3
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        assert_equal 2 [r xack s g 1-0 3-0 9-0]
        assert_equal 0 [r xack s g 1-0]
        assert_equal 0 [r xack s nog 2-0]
        assert_equal 0 [r xack nokey g 2-0]
        assert_equal {1 2-0 2-0 {{alice 1}}} [r xpending s g]
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xack s g 2-0 x}
        # A bad id anywhere refuses the whole command.
        assert_equal 1 [lindex [r xpending s g] 0]
        assert_error {ERR wrong number of arguments for 'xack' command} {r xack s g}
        r set str x
        assert_error {WRONGTYPE *} {r xack str g 1-0}
        r del str
    }

    test {XPENDING summary and extended forms, with a consumer and IDLE} {
        xg_fill s 5
        r xgroup create s g 0
        r xreadgroup group g alice count 3 streams s >
        r xreadgroup group g bob streams s >
        assert_equal {5 1-0 5-0 {{alice 3} {bob 2}}} [r xpending s g]
        set ext [r xpending s g - + 10]
        assert_equal {1-0 2-0 3-0 4-0 5-0} [lmap e $ext {lindex $e 0}]
        assert_equal {alice alice alice bob bob} [lmap e $ext {lindex $e 1}]
        assert_equal {1 1 1 1 1} [lmap e $ext {lindex $e 3}]
        foreach e $ext {assert_morethan_equal [lindex $e 2] 0}
        assert_equal {4-0 5-0} [lmap e [r xpending s g - + 10 bob] {lindex $e 0}]
        assert_equal {2-0} [lmap e [r xpending s g (1-0 + 1] {lindex $e 0}]
        assert_equal {2-0 3-0} [lmap e [r xpending s g 2 (4-0 10] {lindex $e 0}]
        assert_equal {} [r xpending s g - + 0]
        assert_equal {} [r xpending s g - + 10 nobody]
        # IDLE: make 1-0 idle for a long time, then only it qualifies.
        r xclaim s g alice 0 1-0 idle 1000000
        assert_equal {1-0} [lmap e [r xpending s g idle 500000 - + 10] {lindex $e 0}]
        assert_equal {1-0} [lmap e [r xpending s g IDLE 500000 - + 10 alice] {lindex $e 0}]
        assert_equal {} [r xpending s g idle 500000 - + 10 bob]
        assert_morethan_equal [lindex [r xpending s g - + 1] 0 2] 1000000
    }

    test {XPENDING errors} {
        xg_fill s 1
        r xgroup create s g 0
        assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xpending s nog}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xpending nokey g}
        assert_error {ERR syntax error} {r xpending s g - +}
        assert_error {ERR syntax error} {r xpending s g idle 10 - +}
        assert_error {ERR value is not an integer or out of range} {r xpending s g - + x}
        assert_error {ERR value is not an integer or out of range} {r xpending s g idle x - + 10}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xpending s g x + 10}
        # Words after the consumer are not looked at.
        assert_equal {} [r xpending s g - + 10 c extra]
        r set str x
        assert_error {WRONGTYPE *} {r xpending str g}
        r del str
    }

    test {XCLAIM moves pending entries to another consumer} {
        xg_fill s 3
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        # Nothing is idle for 1000000 ms yet.
        assert_equal {} [r xclaim s g bob 1000000 1-0]
        assert_equal {{1-0 {f 1}} {2-0 {f 2}}} [r xclaim s g bob 0 1-0 2-0]
        assert_equal {{alice 1} {bob 2}} [lindex [r xpending s g] 3]
        # The claim counts a delivery and resets the idle time.
        set ext [r xpending s g - + 10 bob]
        assert_equal {2 2} [lmap e $ext {lindex $e 3}]
        # JUSTID neither counts a delivery nor returns the fields.
        assert_equal {3-0} [r xclaim s g bob 0 3-0 justid]
        assert_equal 1 [lindex [r xpending s g 3-0 3-0 1] 0 3]
        # An id not pending is not claimed without FORCE.
        r xadd s 4-0 f 4
        assert_equal {} [r xclaim s g bob 0 4-0]
        assert_equal 3 [lindex [r xpending s g] 0]
    }

    test {XCLAIM IDLE, TIME, RETRYCOUNT, FORCE and LASTID} {
        xg_fill s 5
        r xgroup create s g 0
        r xreadgroup group g alice count 2 streams s >
        r xclaim s g alice 0 1-0 idle 5000000 retrycount 7 justid
        set e [lindex [r xpending s g 1-0 1-0 1] 0]
        assert_equal {1-0 alice 7} [list [lindex $e 0] [lindex $e 1] [lindex $e 3]]
        assert_morethan_equal [lindex $e 2] 5000000
        # TIME is a unix time in ms: two hours back means at least that idle.
        set t [expr {[clock milliseconds] - 7200000}]
        r xclaim s g alice 0 2-0 time $t justid
        assert_morethan_equal [lindex [r xpending s g 2-0 2-0 1] 0 2] 7200000
        # FORCE claims an id that exists in the stream but is pending nowhere (its new pending
        # entry starts at one delivery, and the claim counts another).
        assert_equal {{4-0 {f 4}}} [r xclaim s g bob 0 4-0 force]
        assert_equal {4-0 bob 2} [lmap i {0 1 3} {lindex [r xpending s g 4-0 4-0 1] 0 $i}]
        # FORCE does not invent entries the stream lacks.
        assert_equal {} [r xclaim s g bob 0 9-0 force]
        assert_equal 3 [lindex [r xpending s g] 0]
        # LASTID moves the group's last delivered id forward only.
        r xclaim s g bob 0 4-0 lastid 5-0 justid
        assert_equal 5-0 [xg_field [lindex [r xinfo groups s] 0] last-delivered-id]
        r xclaim s g bob 0 4-0 lastid 3-0 justid
        assert_equal 5-0 [xg_field [lindex [r xinfo groups s] 0] last-delivered-id]
        assert_equal {} [r xreadgroup group g alice streams s >]
    }

    test {XCLAIM drops a deleted entry from the PEL instead of returning it} {
        xg_fill s 3
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r xdel s 2-0
        assert_equal {{1-0 {f 1}} {3-0 {f 3}}} [r xclaim s g bob 0 1-0 2-0 3-0]
        assert_equal {2 1-0 3-0 {{bob 2}}} [r xpending s g]
    }

    test {XCLAIM errors} {
        xg_fill s 1
        r xgroup create s g 0
        assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xclaim s nog c 0 1-0}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xclaim nokey g c 0 1-0}
        assert_error {ERR Invalid min-idle-time argument for XCLAIM} {r xclaim s g c x 1-0}
        assert_error {ERR Unrecognized XCLAIM option 'x'} {r xclaim s g c 0 x}
        assert_error {ERR Unrecognized XCLAIM option 'foo'} {r xclaim s g c 0 1-0 foo}
        assert_error {ERR Invalid IDLE option argument for XCLAIM} {r xclaim s g c 0 1-0 idle x}
        assert_error {ERR Invalid stream ID specified as stream command argument} \
            {r xclaim s g c 0 1-0 lastid x}
        assert_error {ERR wrong number of arguments for 'xclaim' command} {r xclaim s g c 0}
    }

    test {XAUTOCLAIM scans from a cursor, COUNT bounds it, JUSTID, deleted ids} {
        xg_fill s 5
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        assert_equal {2-0 {{1-0 {f 1}}} {}} [r xautoclaim s g bob 0 0 count 1]
        assert_equal {4-0 {2-0 3-0} {}} [r xautoclaim s g bob 0 2-0 count 2 justid]
        r xdel s 4-0
        # The deleted entry is dropped from the PEL and listed as such.
        assert_equal [r xautoclaim s g bob 0 4-0] [list 0-0 {{5-0 {f 5}}} [list 4-0]]
        assert_equal {4 1-0 5-0 {{bob 4}}} [r xpending s g]
        # Nothing idle long enough: the whole PEL is scanned, nothing claimed.
        assert_equal {0-0 {} {}} [r xautoclaim s g carol 1000000 0]
        # carol claimed nothing, so she was not created.
        assert_equal {alice bob} [lmap c [r xinfo consumers s g] {xg_field $c name}]
        # JUSTID does not count a delivery; the other form does.
        set counts [lmap e [r xpending s g - + 10] {lindex $e 3}]
        assert_equal {2 1 1 2} $counts
    }

    test {XAUTOCLAIM errors} {
        xg_fill s 1
        r xgroup create s g 0
        assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xautoclaim s nog c 0 0}
        assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xautoclaim nokey g c 0 0}
        assert_error {ERR COUNT must be > 0} {r xautoclaim s g c 0 0 count 0}
        assert_error {ERR COUNT must be > 0} {r xautoclaim s g c 0 0 count -1}
        assert_error {ERR Invalid min-idle-time argument for XAUTOCLAIM} {r xautoclaim s g c x 0}
        assert_error {ERR Invalid stream ID specified as stream command argument} {r xautoclaim s g c 0 x}
        assert_error {ERR syntax error} {r xautoclaim s g c 0 0 foo}
        assert_error {ERR wrong number of arguments for 'xautoclaim' command} {r xautoclaim s g c 0}
    }

    test {Consumer failover: a survivor takes the failed consumer's entries with XAUTOCLAIM} {
        xg_fill s 10
        r xgroup create s g 0
        r xreadgroup group g worker1 count 4 streams s >
        r xreadgroup group g worker2 count 4 streams s >
        # worker2 processes its entries; worker1 stops. Its entries age (set explicitly).
        r xack s g 5-0 6-0 7-0 8-0
        foreach id {1-0 2-0 3-0 4-0} {r xclaim s g worker1 0 $id idle 600000 justid}
        # worker2 sweeps the PEL in pages of 3 for entries idle over a minute.
        set cursor 0
        set claimed {}
        for {set i 0} {$i < 10} {incr i} {
            lassign [r xautoclaim s g worker2 60000 $cursor count 3] cursor entries deleted
            lappend claimed {*}[xg_ids $entries]
            if {$cursor eq "0-0"} break
        }
        assert_equal {1-0 2-0 3-0 4-0} $claimed
        assert_equal {4 1-0 4-0 {{worker2 4}}} [r xpending s g]
        r xack s g {*}$claimed
        assert_equal 0 [lindex [r xpending s g] 0]
        # The remaining entries still go to whoever reads next.
        assert_equal {9-0 10-0} [xg_ids [lindex [r xreadgroup group g worker2 streams s >] 0 1]]
    }

    test {entries-read and lag through reads, XDEL, XADD, XTRIM and XSETID} {
        xg_fill s 5
        r xgroup create s g0 0
        r xgroup create s gd $
        r xgroup create s gm 2-0
        r xgroup create s ge 2-0 entriesread 2
        assert_equal {{g0 {} 5} {gd {} 0} {ge 2 3} {gm {} {}}} [xg_lags s]
        r xreadgroup group g0 c count 2 streams s >
        assert_equal {{g0 2 3} {gd {} 0} {ge 2 3} {gm {} {}}} [xg_lags s]
        # A deletion after a group's last delivered id makes its lag unknown.
        r xdel s 4-0
        assert_equal {{g0 2 {}} {gd {} 0} {ge 2 {}} {gm {} {}}} [xg_lags s]
        r xreadgroup group g0 c streams s >
        assert_equal {{g0 5 0} {gd {} 0} {ge 2 {}} {gm {} {}}} [xg_lags s]
        r xadd s 6-0 f 6
        assert_equal {{g0 5 1} {gd {} {}} {ge 2 {}} {gm {} {}}} [xg_lags s]
        r xdel s 1-0
        assert_equal {{g0 5 1} {gd {} {}} {ge 2 {}} {gm {} {}}} [xg_lags s]
        # Trimming past the deletions makes every lag computable again.
        r xtrim s maxlen 2
        assert_equal {{g0 5 1} {gd {} 1} {ge 2 4} {gm {} 2}} [xg_lags s]
        r xsetid s 6-0 entriesadded 100
        assert_equal {{g0 5 95} {gd {} 1} {ge 2 98} {gm {} 2}} [xg_lags s]
    }

    test {XINFO GROUPS and XINFO CONSUMERS fields} {
        xg_fill s 3
        r xgroup create s g 0
        r xreadgroup group g alice count 2 streams s >
        r xgroup createconsumer s g bob
        set g [lindex [r xinfo groups s] 0]
        assert_equal {name consumers pending last-delivered-id entries-read lag} [xg_keys $g]
        assert_equal {g 2 2 2-0 2 1} [lmap k [xg_keys $g] {xg_field $g $k}]
        set cs [r xinfo consumers s g]
        assert_equal 2 [llength $cs]
        assert_equal {name pending idle} [xg_keys [lindex $cs 0]]
        assert_equal {{alice 2} {bob 0}} \
            [lmap c $cs {list [xg_field $c name] [xg_field $c pending]}]
        foreach c $cs {assert_morethan_equal [xg_field $c idle] 0}
        assert_error {ERR no such key} {r xinfo groups nokey}
        assert_error {ERR no such key} {r xinfo consumers nokey g}
        assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xinfo consumers s nog}
        assert_error {ERR unknown subcommand 'foo'. Try XINFO HELP.} {r xinfo foo}
    }

    test {Deleting or replacing the stream drops its groups} {
        xg_fill s 2
        r xgroup create s g 0
        r del s
        r xadd s 1-0 f 1
        assert_equal {} [r xinfo groups s]
        assert_error {NOGROUP *} {r xreadgroup group g c streams s >}
    }

    test {Which stream writes abort a WATCH: entries added or removed, not group state} {
        # Redis 7.0 signals a modified key when entries come or go; group and consumer changes,
        # XSETID and writes that change nothing leave a WATCH standing.
        set rows {
            {{xadd s 5-0 a b} aborted}
            {{xdel s 2-0} aborted}
            {{xtrim s maxlen 1} aborted}
            {{set s x} aborted}
            {{xdel s 99-0} kept}
            {{xtrim s maxlen 100} kept}
            {{xreadgroup group g c count 1 streams s >} kept}
            {{xreadgroup group g c streams s 0} kept}
            {{xack s g 1-0} kept}
            {{xgroup createconsumer s g newc} kept}
            {{xgroup delconsumer s g c} kept}
            {{xgroup setid s g 0} kept}
            {{xgroup create s g2 0} kept}
            {{xgroup destroy s g} kept}
            {{xclaim s g other 0 1-0} kept}
            {{xautoclaim s g other 0 0} kept}
            {{xsetid s 100-0} kept}
            {{xpending s g} kept}
            {{xinfo stream s full} kept}
        }
        set c2 [redis_client]
        foreach row $rows {
            lassign $row cmd want
            xg_fill s 2
            r xgroup create s g 0
            r xreadgroup group g c count 1 streams s >
            r watch s
            $c2 {*}$cmd
            r multi
            r ping
            set got [expr {[r exec] eq "PONG" ? "kept" : "aborted"}]
            assert_equal $want $got "WATCH after: $cmd"
        }
        $c2 close
    }

    test {DEBUG RELOAD keeps entries, ids, counters, groups, PEL and consumers} {
        r config set stream-node-max-entries 3
        xg_fill s 10
        r xdel s 5-0
        r xgroup create s g 0
        r xgroup create s g2 3-0 entriesread 3
        r xreadgroup group g alice count 4 streams s >
        r xreadgroup group g bob count 2 streams s >
        r xgroup createconsumer s g idle-one
        r xclaim s g alice 0 2-0 idle 5000000 retrycount 9 justid
        r xsetid s 10-0 entriesadded 20 maxdeletedid 5-0
        set before [list [r xrange s - +] [r xinfo stream s] [lmap e [r xpending s g - + 10] {lreplace $e 2 2}] \
            [r debug digest-value s]]
        set groups [lmap g [r xinfo groups s] {lrange $g 0 end}]
        # Idle times go on counting: the pending entries are compared without them.
        r debug reload
        assert_equal $before [list [r xrange s - +] [r xinfo stream s] [lmap e [r xpending s g - + 10] {lreplace $e 2 2}] \
            [r debug digest-value s]]
        assert_equal $groups [r xinfo groups s]
        assert_equal {alice bob idle-one} [lmap c [r xinfo consumers s g] {xg_field $c name}]
        r config set stream-node-max-entries 100
    }

    test {Consumer-group writes inside MULTI and their RESP3 replies} {
        xg_fill s 2
        r xgroup create s g 0
        r multi
        r xreadgroup group g c streams s >
        r xack s g 1-0
        r xpending s g
        assert_equal {{{s {{1-0 {f 1}} {2-0 {f 2}}}}} 1 {1 2-0 2-0 {{c 1}}}} [r exec]
        set c [redis_client]
        $c hello 3
        # RESP3: XREADGROUP answers a map of stream name to entries (flattened by this client).
        assert_equal {s {{2-0 {f 2}}}} [$c xreadgroup group g c streams s 0]
        assert_equal {name g consumers 1} [lrange [lindex [$c xinfo groups s] 0] 0 3]
        $c close
    }
}

# A stream with no entries and no last id (made by XGROUP CREATE ... MKSTREAM) still exists, so
# an AOF rewritten as commands must recreate it, its group included.
start_server {tags {stream needs:debug external:skip} overrides {appendonly yes aof-use-rdb-preamble no}} {
    test {An empty stream made by MKSTREAM survives an AOF rewrite and reload} {
        r xgroup create empty grp $ mkstream
        assert_equal 0 [r xlen empty]
        set groups [r xinfo groups empty]
        r bgrewriteaof
        wait_for_condition 100 50 {
            [aof_rewrite_idle]
        } else {
            fail "the AOF rewrite did not finish"
        }
        r debug loadaof
        assert_equal stream [r type empty]
        assert_equal 0 [r xlen empty]
        assert_equal $groups [r xinfo groups empty]
    }
}
