# Temporary keys and existence watches under load, bounded in count and time (about 20-60 s):
#   - 10,000 connections that each SETTP a key from a shared pool, WATCHEX two keys and end
#     (QUIT, peer close or RESET) leave no temporary key, no watch and no memory behind, and two
#     long-lived watchers see, per key, exactly the alternating ADD / DEL pushes the successful
#     SETTPs imply;
#   - 1,000 connections watching one key each receive exactly one push per change;
#   - 100 BSETTP waiters on one key are handed it one at a time, exactly one per release.
#
# The load runs on raw sockets read by polling (no fileevent), so it never depends on the Tcl
# notifier's descriptor limits; every wait has a deadline.

# A raw socket to the test server, non-blocking, binary.
proc st_connect {} {
    set s [socket [srv host] [srv port]]
    fconfigure $s -blocking 0 -translation binary -buffering none
    return $s
}

proc st_send {s args} {
    puts -nonewline $s [::redis::encode_command $args]
}

# Appends what `s` has to the variable `bufvar` until it contains `needle`; fails on EOF or
# after timeout_ms.
proc st_read_until {s bufvar needle {timeout_ms 10000}} {
    upvar 1 $bufvar buf
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {[string first $needle $buf] < 0} {
        if {[catch {read $s} chunk]} {fail "read error waiting for '$needle': $chunk"}
        if {$chunk ne ""} {
            append buf $chunk
            continue
        }
        if {[eof $s]} {fail "connection closed while waiting for '$needle' (got '$buf')"}
        if {[clock milliseconds] > $deadline} {fail "no '$needle' within $timeout_ms ms: '$buf'"}
        after 1
    }
}

# Reads exactly n bytes from `s`.
proc st_read_exact {s n {timeout_ms 10000}} {
    set buf ""
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {[string length $buf] < $n} {
        if {[catch {read $s [expr {$n - [string length $buf]}]} chunk]} {
            fail "read error after [string length $buf] of $n bytes"
        }
        if {$chunk ne ""} {
            append buf $chunk
            continue
        }
        if {[eof $s]} {fail "connection closed after [string length $buf] of $n bytes: '$buf'"}
        if {[clock milliseconds] > $deadline} {fail "got [string length $buf] of $n bytes: '$buf'"}
        after 1
    }
    return $buf
}

# Waits until the server closes `s` (discarding whatever it still sends), then closes it.
proc st_wait_eof {s {timeout_ms 10000}} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while 1 {
        if {[catch {read $s} chunk]} break
        if {$chunk eq "" && [eof $s]} break
        if {$chunk eq ""} {
            if {[clock milliseconds] > $deadline} {fail "the server did not close the connection"}
            after 1
        }
    }
    catch {close $s}
}

# The wire bytes of one push in RESP `proto`.
proc st_push_bytes {proto key event} {
    set head [expr {$proto == 3 ? ">3" : "*3"}]
    set out "$head\r\n\$7\r\nwatchex\r\n"
    append out "\$[string length $key]\r\n$key\r\n\$[string length $event]\r\n$event\r\n"
    return $out
}

# Sum of the wx= fields of every connection.
proc st_total_watches {} {
    set total 0
    foreach line [split [string trim [r client list]] "\n"] {
        if {[regexp {wx=(\d+)} $line -> n]} {incr total $n}
    }
    return $total
}

start_server {tags {tempkeys stress redistp}} {
    test {10,000 connect / SETTP / WATCHEX / disconnect cycles leave nothing behind} {
        set pool 500
        set watched 50
        set cycles 10000
        set batch 50
        # Two long-lived watchers of the first keys of the pool.
        set survivors {}
        foreach proto {2 3} {
            set c [redis_client]
            $c timeout 10000
            if {$proto == 3} {$c hello 3}
            set keys {}
            for {set k 0} {$k < $watched} {incr k} {lappend keys st:k$k}
            $c watchex {*}$keys
            lappend survivors $c
        }
        set start_conn [s total_connections_received]
        set mem_before 0
        set wins [dict create]
        set started [clock milliseconds]
        for {set b 0} {$b < $cycles / $batch} {incr b} {
            # Measure memory once the allocator has warmed up with a first few batches.
            if {$b == 4} {set mem_before [s used_memory]}
            set socks {}
            for {set j 0} {$j < $batch} {incr j} {
                set i [expr {$b * $batch + $j}]
                set s [st_connect]
                # Two connections of each batch want each key: exactly one of them wins.
                set key st:k[expr {$j % ($batch / 2) + ($b % ($pool * 2 / $batch)) * ($batch / 2)}]
                set other st:k[expr {($i * 13 + 1) % $pool}]
                st_send $s select 9
                st_send $s settp $key v$i
                st_send $s watchex $other st:w$i
                st_send $s ping m$i
                lappend socks $s $i $key
            }
            foreach {s i key} $socks {
                set buf ""
                st_read_until $s buf "\r\nm$i\r\n"
                if {[string range $buf 0 8] eq "+OK\r\n:1\r\n"} {
                    dict incr wins $key
                } elseif {[string range $buf 0 8] ne "+OK\r\n:0\r\n"} {
                    fail "unexpected start of replies: '[string range $buf 0 40]'"
                }
            }
            foreach {s i key} $socks {
                switch [expr {$i % 3}] {
                    0 {
                        st_send $s quit
                        st_wait_eof $s
                    }
                    1 {
                        close $s
                    }
                    2 {
                        st_send $s reset
                        set buf ""
                        st_read_until $s buf "+RESET\r\n"
                        close $s
                    }
                }
            }
            if {[clock milliseconds] - $started > 90000} {fail "cycles took over 90 s"}
        }
        wait_for_condition 200 50 {[s connected_clients] == 3} else {
            fail "connections left: [s connected_clients]"
        }
        assert_morethan_equal [expr {[s total_connections_received] - $start_conn}] $cycles
        assert_equal 0 [r dbsize] "no temporary key is left"
        assert_no_match {*keys=*} [r info keyspace]
        assert_equal [expr {2 * $watched}] [st_total_watches] "only the survivors' watches are left"
        # Each watched key: ADD and DEL alternate, starting with ADD, one pair per successful SETTP.
        set expected 0
        for {set k 0} {$k < $watched} {incr k} {
            if {[dict exists $wins st:k$k]} {incr expected [expr {2 * [dict get $wins st:k$k]}]}
        }
        assert_morethan $expected 0
        set total_wins 0
        dict for {key count} $wins {incr total_wins $count}
        assert_equal [expr {$cycles / 2}] $total_wins "one SETTP of each pair succeeds"
        foreach c $survivors {
            set last [dict create]
            for {set n 0} {$n < $expected} {incr n} {
                lassign [$c read] kind key event
                assert_equal watchex $kind
                set added [expr {[dict exists $last $key] && [dict get $last $key] eq "ADD"}]
                set want [expr {$added ? "DEL" : "ADD"}]
                assert_equal $want $event "push $n for $key"
                dict set last $key $event
            }
            assert_equal PONG [$c ping] "no push beyond the expected $expected"
        }
        # Memory: back near where it was (loose: client buffers and allocator caches vary).
        set mem_after [s used_memory]
        assert_lessthan [expr {$mem_after - $mem_before}] [expr {2 * 1024 * 1024}] \
            "used_memory went from $mem_before to $mem_after"
        foreach c $survivors {$c close}
    }

    test {1,000 connections watching one key each get exactly one push per change} {
        set n 1000
        r del st:hot
        set socks {}
        for {set i 0} {$i < $n} {incr i} {
            set s [st_connect]
            set proto [expr {$i % 2 ? 3 : 2}]
            if {$proto == 3} {st_send $s hello 3}
            st_send $s select 9
            st_send $s watchex st:hot
            lappend socks $s $proto
        }
        foreach {s proto} $socks {
            set buf ""
            st_read_until $s buf "+NOEXIST\r\n"
        }
        assert_equal $n [st_total_watches]
        # ADD, a value change (nothing), DEL, ADD, DEL.
        r set st:hot a
        r set st:hot b
        r del st:hot
        r set st:hot c
        r del st:hot
        foreach proto {2 3} {
            set wire($proto) ""
            foreach ev {ADD DEL ADD DEL} {append wire($proto) [st_push_bytes $proto st:hot $ev]}
            append wire($proto) "+PONG\r\n"
        }
        foreach {s proto} $socks {st_send $s ping}
        foreach {s proto} $socks {
            assert_equal $wire($proto) [st_read_exact $s [string length $wire($proto)]]
        }
        foreach {s proto} $socks {close $s}
        wait_for_condition 200 50 {[s connected_clients] == 1} else {
            fail "connections left: [s connected_clients]"
        }
        assert_equal 0 [st_total_watches]
    }

    test {100 BSETTP waiters on one key: each release hands it to exactly one} {
        set n 100
        set holder [redis_client]
        $holder settp st:chain held
        set socks {}
        for {set i 0} {$i < $n} {incr i} {
            set s [st_connect]
            st_send $s select 9
            set buf ""
            st_read_until $s buf "+OK\r\n"
            st_send $s bsettp st:chain w$i 0
            lappend socks $s
        }
        wait_for_condition 200 20 {[regexp -all {flags=b} [r client list]] == $n} else {
            fail "not all waiters blocked"
        }
        $holder close
        set served {}
        for {set round 0} {$round < $n} {incr round} {
            # Exactly one waiter receives :1; find it.
            set winner ""
            set deadline [expr {[clock milliseconds] + 5000}]
            while {$winner eq ""} {
                foreach s $socks {
                    if {[catch {read $s} chunk]} {fail "a waiter's connection failed"}
                    if {$chunk eq ""} continue
                    assert_equal ":1\r\n" $chunk "round $round"
                    if {$winner ne ""} {fail "two waiters served in round $round"}
                    set winner $s
                }
                if {$winner eq "" && [clock milliseconds] > $deadline} {
                    fail "nobody served in round $round"
                }
                if {$winner eq ""} {after 1}
            }
            set idx [lsearch -exact $socks $winner]
            set value [r get st:chain]
            assert {[regexp {^w(\d+)$} $value -> wi]}
            assert {$wi ni $served} "a waiter served twice"
            lappend served $wi
            assert_equal [expr {$n - $round - 1}] [regexp -all {flags=b} [r client list]]
            set socks [lreplace $socks $idx $idx]
            close $winner
        }
        assert_equal $n [llength [lsort -unique $served]]
        wait_for_condition 100 20 {[r exists st:chain] == 0} else {
            fail "the last holder's key survived it"
        }
    }
}
