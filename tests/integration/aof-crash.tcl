# The append-only file across kill -9: a writer streams commands, the server is killed at a
# random moment, restarted on the same directory, and what it loaded is checked against what
# the writer sent and what the server acknowledged.
#
# Model. The writer's commands form one endless sequence of "units", numbered from 0:
#   plain mode: unit j is one command, by j mod 3: INCR counter, RPUSH list <j/3>,
#               SET k:<j/3> <j/3>;
#   multi mode: unit s is MULTI, INCR counter, RPUSH list s, SET k:s s, EXEC.
# Commands are applied in order, so any state the server may legally come back with is the
# effect of exactly the first P units, for some P, and that P can be read back from the state
# (the counter, the list's length, the number of k:* keys). The checks:
#   - the state is such a prefix: no gap, no reordering, no torn MULTI/EXEC, the list holds
#     0, 1, 2, ... in order and every k:i holds i;
#   - P <= S, the units the writer sent (nothing invented);
#   - with appendfsync always, P >= A, the units whose replies the writer read: an
#     acknowledged write survives a crash. With everysec the server may acknowledge a write
#     before it reaches the file, so only the prefix and the upper bound are checked.
# The kill is a timer in this process that fires while the writer waits for replies, after a
# random delay, so it lands at a random point of a pipelined batch. Each round resumes the
# sequence where the recovered state ends, so later rounds also load files that earlier
# crashes cut short and the server then appended to. Every loop is bounded in units and time.

# Builds the RESP text of units from..to-1 in MODE.
proc aof_crash_payload {mode from to} {
    set out ""
    for {set u $from} {$u < $to} {incr u} {
        if {$mode eq "plain"} {
            set i [expr {$u / 3}]
            switch [expr {$u % 3}] {
                0 {append out [::redis::encode_command {INCR counter}]}
                1 {append out [::redis::encode_command [list RPUSH list $i]]}
                2 {append out [::redis::encode_command [list SET k:$i $i]]}
            }
        } else {
            append out [::redis::encode_command {MULTI}]
            append out [::redis::encode_command {INCR counter}]
            append out [::redis::encode_command [list RPUSH list $u]]
            append out [::redis::encode_command [list SET k:$u $u]]
            append out [::redis::encode_command {EXEC}]
        }
    }
    return $out
}

# Reads the replies of unit U from the deferring client RD and checks them. Raises an error
# starting with "I/O error" when the connection is gone, and fails the test on a wrong reply
# (a live server must answer each command exactly as Redis does).
proc aof_crash_read_unit {rd mode u} {
    if {$mode eq "plain"} {
        set i [expr {$u / 3}]
        set reply [$rd read]
        switch [expr {$u % 3}] {
            0 {assert_equal [expr {$i + 1}] $reply "INCR reply of unit $u"}
            1 {assert_equal [expr {$i + 1}] $reply "RPUSH reply of unit $u"}
            2 {assert_equal OK $reply "SET reply of unit $u"}
        }
    } else {
        assert_equal OK [$rd read] "MULTI reply of unit $u"
        foreach _ {1 2 3} {assert_equal QUEUED [$rd read] "queued reply of unit $u"}
        assert_equal [list [expr {$u + 1}] [expr {$u + 1}] OK] [$rd read] "EXEC reply of unit $u"
    }
}

# Streams units from START in batches until the server dies (killed by a timer after KILL_MS)
# or MAX_UNITS were sent or 10 s passed. Returns {acked sent}: the first unit whose replies
# were not all read, and the first unit never sent (both absolute unit numbers).
proc aof_crash_write {mode start kill_ms max_units} {
    set rd [redis_deferring_client]
    $rd timeout 5000
    set timer [after $kill_ms [list catch [list exec kill -KILL [srv 0 pid]]]]
    set deadline [expr {[clock milliseconds] + 10000}]
    set batch [expr {$mode eq "plain" ? 300 : 60}]
    set acked $start
    set sent $start
    set alive 1
    while {$alive && $sent - $start < $max_units && [clock milliseconds] < $deadline} {
        set from $sent
        set sent [expr {$sent + $batch}]
        if {[catch {$rd write [aof_crash_payload $mode $from $sent]; $rd flush}]} {
            break
        }
        for {set u $from} {$u < $sent} {incr u} {
            if {[catch {aof_crash_read_unit $rd $mode $u} err opts]} {
                if {![string match "I/O error*" $err]} {return -options $opts $err}
                set alive 0
                break
            }
            set acked [expr {$u + 1}]
        }
    }
    after cancel $timer
    catch {$rd close}
    return [list $acked $sent]
}

# Reads back the state of the server and returns P, the number of units it reflects, after
# checking that it is exactly the effect of units 0..P-1 in MODE.
proc aof_crash_recovered_units {mode} {
    set counter [r get counter]
    if {$counter eq ""} {set counter 0}
    set len [r llen list]
    set keys [expr {[r dbsize] - ($counter > 0) - ($len > 0)}]
    if {$mode eq "plain"} {
        set p [expr {$counter + $len + $keys}]
        assert_equal [expr {($p + 2) / 3}] $counter "INCRs in a prefix of $p commands"
        assert_equal [expr {($p + 1) / 3}] $len "RPUSHes in a prefix of $p commands"
        assert_equal [expr {$p / 3}] $keys "SETs in a prefix of $p commands"
    } else {
        set p $counter
        assert_equal $p $len "list length = transactions applied (no torn MULTI/EXEC)"
        assert_equal $p $keys "k:* keys = transactions applied (no torn MULTI/EXEC)"
    }
    # The list holds 0 .. len-1 in order, and every k:i holds i.
    for {set from 0} {$from < $len} {incr from 5000} {
        set want {}
        for {set i $from} {$i < min($len, $from + 5000)} {incr i} {lappend want $i}
        assert_equal $want [r lrange list $from [expr {$from + 4999}]] "list from $from"
    }
    for {set from 0} {$from < $keys} {incr from 1000} {
        set names {}
        set want {}
        for {set i $from} {$i < min($keys, $from + 1000)} {incr i} {
            lappend names k:$i
            lappend want $i
        }
        assert_equal $want [r mget {*}$names] "k:$from and the next keys"
    }
    return $p
}

# ROUNDS crash-and-restart rounds on the current server in MODE; DURABLE says whether every
# acknowledged unit must survive (appendfsync always).
proc aof_crash_rounds {mode rounds durable} {
    assert_equal 1 [s aof_enabled] "the server writes an append-only file"
    r flushall
    set start 0
    for {set round 1} {$round <= $rounds} {incr round} {
        lassign [aof_crash_write $mode $start [randomRange 20 250] 50000] acked sent
        assert_equal {} [restart_server 0 kill] "round $round: the server died on its own"
        set p [aof_crash_recovered_units $mode]
        assert_morethan_equal $p $start "round $round lost units of earlier rounds"
        assert_lessthan_equal $p $sent "round $round recovered units never sent"
        if {$durable} {
            assert_morethan_equal $p $acked \
                "round $round lost acknowledged units (acked $acked, sent $sent, got $p)"
        }
        set start $p
    }
}

# Passes against Debian's Redis 7.0 as it is, and against redis-tp.
start_server {tags {persistence aof}
              overrides {appendonly yes appendfsync always}} {
    test {AOF appendfsync always: every acknowledged write survives kill -9} {
        aof_crash_rounds plain 6 1
    }

    test {AOF appendfsync always: MULTI/EXEC is all or nothing across kill -9} {
        aof_crash_rounds multi 4 1
    }
}

start_server {tags {persistence aof}
              overrides {appendonly yes appendfsync everysec}} {
    test {AOF appendfsync everysec: the state after kill -9 is a prefix of what was sent} {
        aof_crash_rounds plain 4 0
    }
}
