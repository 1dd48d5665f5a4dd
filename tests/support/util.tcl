# Assertions and small helpers used by test bodies.
#
# An assertion that does not hold raises a Tcl error carrying the error code
# ASSERTION; the `test` procedure reports those as plain failures (message
# plus the test file line that asserted), and any other error as an
# exception with its stack trace.  Helpers that talk to the server use the
# current server's default client `r` unless told otherwise.

# Raises an assertion failure with msg, pointing at the test file line.
proc fail {msg} {
    set where [::test::caller_location]
    if {$where ne ""} {append msg "\n(at $where)"}
    return -code error -errorcode ASSERTION $msg
}

proc assert {condition {detail ""}} {
    if {![uplevel 1 [list expr $condition]]} {
        set msg "Expected condition to be true: $condition"
        if {$detail ne ""} {append msg " ($detail)"}
        fail $msg
    }
}

proc assert_equal {value expected {detail ""}} {
    if {$value ne $expected} {
        set msg "Expected '[::test::shorten $value]' to be equal to\
                 '[::test::shorten $expected]'"
        if {$detail ne ""} {append msg " ($detail)"}
        fail $msg
    }
}

proc assert_not_equal {value expected {detail ""}} {
    if {$value eq $expected} {
        set msg "Expected '[::test::shorten $value]' to differ from\
                 '[::test::shorten $expected]'"
        if {$detail ne ""} {append msg " ($detail)"}
        fail $msg
    }
}

proc assert_match {pattern value {detail ""}} {
    if {![string match $pattern $value]} {
        set msg "Expected '[::test::shorten $value]' to match '$pattern'"
        if {$detail ne ""} {append msg " ($detail)"}
        fail $msg
    }
}

proc assert_no_match {pattern value} {
    if {[string match $pattern $value]} {
        fail "Expected '[::test::shorten $value]' not to match '$pattern'"
    }
}

# Runs code (in the caller's scope) and checks it raises an error whose
# message matches the glob pattern.
proc assert_error {pattern code {detail ""}} {
    if {[catch {uplevel 1 $code} err]} {
        if {![string match $pattern $err]} {
            set msg "Expected error matching '$pattern' but got '$err'"
            if {$detail ne ""} {append msg " ($detail)"}
            fail $msg
        }
        return $err
    }
    set msg "Expected an error matching '$pattern' but got\
             '[::test::shorten $err]'"
    if {$detail ne ""} {append msg " ($detail)"}
    fail $msg
}

proc assert_range {value min max {detail ""}} {
    if {!($value >= $min && $value <= $max)} {
        set msg "Expected '$value' to be between $min and $max"
        if {$detail ne ""} {append msg " ($detail)"}
        fail $msg
    }
}

proc assert_morethan {value min {detail ""}} {
    if {!($value > $min)} {
        fail "Expected '$value' to be more than '$min' $detail"
    }
}

proc assert_morethan_equal {value min {detail ""}} {
    if {!($value >= $min)} {
        fail "Expected '$value' to be more than or equal to '$min' $detail"
    }
}

proc assert_lessthan {value max {detail ""}} {
    if {!($value < $max)} {
        fail "Expected '$value' to be less than '$max' $detail"
    }
}

proc assert_lessthan_equal {value max {detail ""}} {
    if {!($value <= $max)} {
        fail "Expected '$value' to be less than or equal to '$max' $detail"
    }
}

# Checks OBJECT ENCODING of key.  Several names may be given as a list; any
# of them is accepted (e.g. {listpack ziplist}).
proc assert_encoding {enc key {level 0}} {
    set actual [r $level object encoding $key]
    if {[lsearch -exact $enc $actual] < 0} {
        fail "Expected encoding '$enc' for key '$key' but found '$actual'"
    }
}

proc assert_type {type key {level 0}} {
    assert_equal [r $level type $key] $type "TYPE of '$key'"
}

# Raises a failure if the list has duplicates.
proc assert_unique {items {detail ""}} {
    if {[llength [lsort -unique $items]] != [llength $items]} {
        fail "Expected unique elements in '[::test::shorten $items]' $detail"
    }
}

# wait_for_condition maxtries delay_ms condition else failure_script
# Re-evaluates condition (an expr, in the caller's scope) up to maxtries
# times, sleeping delay_ms between tries; runs failure_script if it never
# became true.
proc wait_for_condition {maxtries delay condition else_word else_script} {
    if {$else_word ne "else"} {
        error "wait_for_condition: expected 'else', got '$else_word'"
    }
    for {set i 0} {$i < $maxtries} {incr i} {
        if {[uplevel 1 [list expr $condition]]} return
        after $delay
    }
    uplevel 1 $else_script
}

# Blocks the server for the given number of seconds (DEBUG SLEEP).
proc debug_sleep {seconds {level 0}} {
    r $level debug sleep $seconds
}

# Returns a field from an INFO reply string.
proc getInfoProperty {info property} {
    if {[regexp "\r\n$property:(.*?)\r\n" "\r\n$info" -> value]} {
        return $value
    }
    return ""
}

# 1 when the server at `level` runs no AOF rewrite and has none scheduled (with `bgsave` 1,
# no BGSAVE either), judged from one INFO: two INFO calls could straddle the start of a
# scheduled rewrite (the first sees no child yet, the second no schedule any more).
proc aof_rewrite_idle {{level 0} {bgsave 0}} {
    set info [r $level info persistence]
    if {[getInfoProperty $info aof_rewrite_in_progress] != 0} {return 0}
    if {[getInfoProperty $info aof_rewrite_scheduled] != 0} {return 0}
    if {$bgsave && [getInfoProperty $info rdb_bgsave_in_progress] != 0} {return 0}
    return 1
}

# s ?level? field: a field of the current server's INFO.
proc s {args} {
    set level 0
    if {[string is integer -strict [lindex $args 0]]} {
        set level [lindex $args 0]
        set args [lrange $args 1 end]
    }
    return [getInfoProperty [r $level info] [lindex $args 0]]
}

# Number of keys in the current database according to INFO keyspace, or 0.
proc keyspace_keys {{db ""} {level 0}} {
    if {$db eq ""} {set db [srv $level db]}
    set line [getInfoProperty [r $level info keyspace] db$db]
    if {[regexp {keys=(\d+)} $line -> n]} {return $n}
    return 0
}

proc wait_for_blocked_clients_count {count {maxtries 100} {delay 10} {level 0}} {
    wait_for_condition $maxtries $delay {
        [s $level blocked_clients] == $count
    } else {
        fail "Timeout waiting for $count blocked clients\
              (have [s $level blocked_clients])"
    }
}

proc wait_for_blocked_client {{level 0}} {
    wait_for_blocked_clients_count 1 100 10 $level
}

# Waits until the server reports exactly n connected clients.
proc wait_for_connected_clients {count {maxtries 200} {delay 10} {level 0}} {
    wait_for_condition $maxtries $delay {
        [s $level connected_clients] == $count
    } else {
        fail "Expected $count connected clients, have\
              [s $level connected_clients]"
    }
}

# Counts lines of the server log matching the glob pattern.
proc count_log_message {pattern {level 0}} {
    set path [srv $level stdout]
    if {$path eq "" || ![file exists $path]} {return 0}
    set f [open $path r]
    set n 0
    while {[gets $f line] >= 0} {
        if {[string match $pattern $line]} {incr n}
    }
    close $f
    return $n
}

proc wait_for_log_message {pattern {maxtries 100} {delay 50} {level 0}} {
    wait_for_condition $maxtries $delay {
        [count_log_message $pattern $level] > 0
    } else {
        fail "No log line matching '$pattern' in [srv $level stdout]"
    }
}

proc randomInt {max} {
    return [expr {int(rand() * $max)}]
}

proc randomRange {min max} {
    return [expr {$min + int(rand() * ($max - $min))}]
}

# randstring min max ?alpha|binary|compr?: a random string of that length.
proc randstring {min max {type binary}} {
    set len [expr {$min + int(rand() * ($max - $min + 1))}]
    set out ""
    switch -- $type {
        alpha {set lo 48; set hi 122}
        compr {set lo 48; set hi 52}
        default {set lo 0; set hi 255}
    }
    for {set i 0} {$i < $len} {incr i} {
        append out [format %c [expr {$lo + int(rand() * ($hi - $lo + 1))}]]
    }
    return $out
}

# Creates n string keys "prefix0".. with values of the given size, through
# one pipelined batch per 1000 keys.  Returns nothing.
proc populate {n {prefix key:} {size 3} {level 0}} {
    set c [redis_deferring_client $level]
    set value [string repeat x $size]
    set pending 0
    for {set i 0} {$i < $n} {incr i} {
        $c set $prefix$i $value
        incr pending
        if {$pending == 1000} {
            for {} {$pending > 0} {incr pending -1} {$c read}
        }
    }
    for {} {$pending > 0} {incr pending -1} {$c read}
    $c close
}

# Returns the sorted, de-duplicated list.
proc lsort_unique {items} {
    return [lsort -unique $items]
}

# Runs code and returns how long it took in milliseconds.
proc elapsed_ms {code} {
    set start [clock milliseconds]
    uplevel 1 $code
    return [expr {[clock milliseconds] - $start}]
}

# ---------------------------------------------------------------------------
# Raw sockets, for protocol tests that must write malformed bytes.

# Opens a raw binary socket to the server at level (non-blocking reads with
# a bounded wait, like the client).
proc raw_connect {{level 0}} {
    return [::redis::connect_socket [srv $level host] [srv $level port] 5000]
}

proc raw_write {sock bytes} {
    puts -nonewline $sock $bytes
    flush $sock
}

# Waits up to timeout_ms for data or EOF.  Returns 1 if readable.
proc raw_wait_readable {sock timeout_ms} {
    set token ::raw_wake_[string map {: _} $sock]
    set $token ""
    fileevent $sock readable [list set $token readable]
    set timer [after $timeout_ms [list set $token timeout]]
    vwait $token
    after cancel $timer
    catch {fileevent $sock readable {}}
    set r [set $token]
    unset $token
    return [expr {$r eq "readable"}]
}

# Reads one CRLF-terminated line (returned without CRLF).  Returns the
# string "<EOF>" if the server closed the connection first; fails the test
# after timeout_ms.
proc raw_read_line {sock {timeout_ms 10000}} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    set line ""
    while 1 {
        if {[catch {read $sock 1} ch]} {return "<EOF>"}
        if {$ch eq ""} {
            if {[eof $sock]} {return "<EOF>"}
            set left [expr {$deadline - [clock milliseconds]}]
            if {$left <= 0} {fail "No line from the server within $timeout_ms ms"}
            raw_wait_readable $sock $left
            continue
        }
        append line $ch
        if {[string range $line end-1 end] eq "\r\n"} {
            return [string range $line 0 end-2]
        }
    }
}

# Reads exactly n bytes, failing after timeout_ms.
proc raw_read_bytes {sock n {timeout_ms 10000}} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    set data ""
    while {[string length $data] < $n} {
        if {[catch {read $sock [expr {$n - [string length $data]}]} chunk]} {
            fail "Connection error after [string length $data] of $n bytes"
        }
        if {$chunk eq ""} {
            if {[eof $sock]} {fail "Connection closed after [string length $data] of $n bytes"}
            set left [expr {$deadline - [clock milliseconds]}]
            if {$left <= 0} {fail "Got [string length $data] of $n bytes in $timeout_ms ms"}
            raw_wait_readable $sock $left
            continue
        }
        append data $chunk
    }
    return $data
}

# Returns 1 if the server closed the connection within timeout_ms (any
# bytes still pending are read and discarded), 0 otherwise.
proc raw_is_closed {sock {timeout_ms 5000}} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while 1 {
        if {[catch {read $sock} data]} {return 1}
        if {[eof $sock]} {return 1}
        if {$data ne ""} continue
        set left [expr {$deadline - [clock milliseconds]}]
        if {$left <= 0} {return 0}
        raw_wait_readable $sock $left
    }
}

proc raw_close {sock} {
    catch {close $sock}
}

# The value of `field` in one CLIENT LIST / CLIENT INFO line ("" if absent).
proc client_field {line field} {
    foreach pair [split [string trim $line] " "] {
        set eq [string first = $pair]
        if {[string range $pair 0 [expr {$eq - 1}]] eq $field} {
            return [string range $pair [expr {$eq + 1}] end]
        }
    }
    return ""
}

# The replication stream, read as a replica reads it: a raw connection sends SYNC, skips the
# newlines a master sends while it prepares the snapshot and the snapshot itself, and then
# receives every write the server propagates, as RESP arrays. Tests check what a replica (or
# the AOF) would be told, e.g. a relative TTL made absolute or a GETDEL written as DEL.

# Opens the stream of the server at `level`; returns the socket.
proc repl_stream_attach {{level 0}} {
    set sock [raw_connect $level]
    raw_write $sock "SYNC\r\n"
    while 1 {
        set line [string trimleft [raw_read_line $sock 60000] "\n"]
        if {$line eq ""} continue
        if {$line eq "<EOF>"} {fail "the server closed the replication stream"}
        break
    }
    if {[string index $line 0] ne "\$" || ![string is integer -strict [string range $line 1 end]]} {
        fail "not a snapshot header on the replication stream: $line"
    }
    raw_read_bytes $sock [string range $line 1 end] 60000
    return $sock
}

# The next command on the stream as a list of its arguments (PINGs included).
proc repl_stream_read {sock} {
    set line [string trimleft [raw_read_line $sock] "\n"]
    if {[string index $line 0] ne "*"} {fail "not a command on the replication stream: $line"}
    set cmd {}
    for {set i 0} {$i < [string range $line 1 end]} {incr i} {
        set len [raw_read_line $sock]
        if {[string index $len 0] ne "\$"} {fail "not a bulk string on the replication stream: $len"}
        lappend cmd [raw_read_bytes $sock [string range $len 1 end]]
        raw_read_bytes $sock 2
    }
    return $cmd
}

# Reads one command per pattern (skipping PINGs) and matches each, as a string, against its
# glob pattern: {{select *} {set k v} {pexpireat k *}}, ignoring case (Redis writes some
# records in capitals: SET ... PXAT, DEL).
proc assert_repl_stream {sock patterns} {
    foreach pattern $patterns {
        while 1 {
            set cmd [repl_stream_read $sock]
            if {![string equal -nocase [lindex $cmd 0] ping]} break
        }
        if {![string match -nocase $pattern $cmd]} {
            fail "replication stream: expected '$pattern', got '$cmd'"
        }
    }
}

proc repl_stream_close {sock} {
    raw_close $sock
}

# Runs `body` with the variable `var` holding an open replication stream of the server at level
# 0, and closes the stream whatever the body did (a master waits for an attached replica at
# shutdown).
proc with_repl_stream {var body} {
    upvar 1 $var rs
    set rs [repl_stream_attach]
    set code [catch {uplevel 1 $body} result opts]
    repl_stream_close $rs
    return -options $opts $result
}

# The pid of the server's child (a BGSAVE or an AOF rewrite), or "" when it has none.
proc server_child_pid {{level 0}} {
    set pid [srv $level pid]
    if {[catch {open /proc/$pid/task/$pid/children r} f]} {return ""}
    # The server may vanish between the open and the read (ESRCH): no child then.
    set failed [catch {read $f} kids]
    catch {close $f}
    if {$failed} {return ""}
    set kids [string trim $kids]
    return [lindex $kids 0]
}

proc wait_for_no_child {{level 0}} {
    wait_for_condition 200 50 {
        [s $level rdb_bgsave_in_progress] == 0 && [s $level aof_rewrite_in_progress] == 0
    } else {
        fail "the child did not end"
    }
}

# Calls `cmd` (the command and its key, a list) for the numbers from..to-1 in batches of 1000,
# each number made into arguments by the `format` string `shape` (the number is its only
# argument, e.g. "m:%d", "f:%d v" or {%1$d m:%1$d}): grows or cuts a big aggregate quickly.
proc batched_call {cmd from to shape} {
    for {set i $from} {$i < $to} {incr i 1000} {
        set batch {}
        for {set j $i} {$j < min($i + 1000, $to)} {incr j} {lappend batch {*}[format $shape $j]}
        r {*}$cmd {*}$batch
    }
}

# DEBUG HTSTATS-KEY of a hashtable-encoded value: the bucket count of its main table.
proc htstats_key_size {key {level 0}} {
    set stats [r $level debug htstats-key $key]
    if {![regexp {table size: ([0-9]+)} $stats - size]} {fail "no table size in: $stats"}
    return $size
}

# Whether the value's table is being rehashed (HTSTATS-KEY shows a second, target table).
proc htstats_key_rehashing {key {level 0}} {
    string match {*rehashing target*} [r $level debug htstats-key $key]
}

# Calls `access` (a command that takes incremental rehash steps, e.g. a random pick) until the
# value's table is no longer being rehashed; fails after `max` calls.
proc htstats_key_settle {key access {max 100000} {level 0}} {
    for {set i 0} {$i < $max && [htstats_key_rehashing $key $level]} {incr i} {
        r $level {*}$access
    }
    if {[htstats_key_rehashing $key $level]} {fail "$key still rehashing after $max accesses"}
}

# Starts a BGSAVE whose child sleeps on every key until held_child_end kills it, so the
# server has a child sharing its memory for as long as a test needs (the dataset must hold a
# key). Needs /proc to find the child.
proc held_child_start {{level 0}} {
    r $level config set save ""
    r $level config set rdb-key-save-delay 1000000
    r $level bgsave
    wait_for_condition 100 20 {[server_child_pid $level] ne ""} else {
        fail "the BGSAVE child did not start"
    }
}

proc held_child_end {{level 0}} {
    catch {exec kill -9 [server_child_pid $level]}
    wait_for_no_child $level
    r $level config set rdb-key-save-delay 0
}
