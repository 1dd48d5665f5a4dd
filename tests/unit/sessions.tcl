# Sessions (docs/temporary-keys-and-watches.md, "Sessions"): SESSION OPEN/RESUME/CLOSE/INFO/LIST.
# A session owns its connection's temporary keys; when the connection ends (or RESETs) the
# session detaches silently and keeps the keys for its grace; RESUME from any connection within
# the grace gets them back (same fences); at the grace's end they are released like a
# disconnect's (DEL pushes, BSETTP hand-offs). The token's secret is never shown.
#
# Graces are either long (60 s: "within the grace", never reached by a test) or short (a few
# hundred ms: the test waits for the release with wait_for_condition, never for a time).

proc ss_client {{proto 2}} {
    set c [redis_client]
    $c timeout 5000
    if {$proto == 3} {$c hello 3}
    return $c
}

proc ss_field {line field} { return [client_field $line $field] }

# A field of INFO coordination (not among INFO's default sections).
proc ss_info {field} { return [getInfoProperty [r info coordination] $field] }

# The id in a token "<id>:<secret>".
proc ss_id {token} { return [lindex [split $token :] 0] }

proc ss_wait_gone {key} {
    wait_for_condition 100 20 {[r exists $key] == 0} else {
        fail "key '$key' still exists"
    }
}

proc ss_wait_client_gone {id} {
    wait_for_condition 100 20 {[r client list id $id] eq ""} else {
        fail "client $id is still connected"
    }
}

# Sends PING on synchronous RESP3 client `c` and returns the pushes read before its PONG (by
# the ordering promise a pending push comes first).
proc ss_pushes_until_pong {c} {
    set pushes {}
    set f [$c ping]
    for {set i 0} {$i < 20} {incr i} {
        if {$f eq "PONG"} {return $pushes}
        lappend pushes $f
        set f [$c read]
    }
    fail "no PONG"
}

start_server {tags {sessions redistp}} {
    test {SESSION OPEN replies a token; INFO, LIST and CLOSE describe and end the session} {
        set a [ss_client]
        set aid [$a client id]
        set token [$a session open 60000]
        assert_match {[0-9]*:[0-9a-f]*} $token
        set id [ss_id $token]
        assert_equal 32 [string length [lindex [split $token :] 1]]
        assert {$id > $aid}
        set info [$a session info]
        assert_match "id=$id client=$aid state=attached grace-ms=60000 age=* detached-ms=0 keys=0 resumes=0\n" $info
        assert_equal 1 [$a settp ss:k1 v]
        assert_equal 1 [$a settp ss:k2 v]
        assert_equal $id [r object owner ss:k1]
        assert_equal 2 [ss_field [$a session info] keys]
        assert_equal 2 [ss_field [r client list id $aid] tk]
        assert_match "*id=$id client=$aid state=attached*" [r session list]
        assert_equal {} [r session info]
        assert_equal 2 [$a session close]
        assert_equal 0 [r exists ss:k1 ss:k2]
        assert_equal {} [$a session info]
        assert_no_match "*id=$id *" [r session list]
        $a close
    }

    test {Keys owned before SESSION OPEN move into the session} {
        set a [ss_client]
        set aid [$a client id]
        set fence [$a settp ss:before v FENCE]
        assert_equal $aid [r object owner ss:before]
        set id [ss_id [$a session open 60000]]
        assert_equal $id [r object owner ss:before]
        assert_equal $fence [r object fence ss:before]
        assert_equal 1 [$a deltp ss:before]
        assert_equal 0 [$a session close]
        $a close
    }

    test {A disconnect detaches the session silently; RESUME elsewhere gets the same keys and fences} {
        set w [ss_client 3]
        set a [ss_client]
        set token [$a session open 60000]
        set id [ss_id $token]
        set fence [$a settp ss:lock holder FENCE]
        assert_equal EXIST [$w watchex ss:lock]
        set aid [$a client id]
        $a close
        ss_wait_client_gone $aid
        assert_equal holder [r get ss:lock]
        assert_equal $id [r object owner ss:lock]
        assert_match "*id=$id client=0 state=detached grace-ms=60000 *keys=1 resumes=0*" [r session list]
        assert_equal {} [ss_pushes_until_pong $w] "no event while detached"
        set b [ss_client]
        assert_equal OK [$b session resume $token]
        assert_equal $id [r object owner ss:lock]
        assert_equal $fence [r object fence ss:lock]
        set info [$b session info]
        assert_equal attached [ss_field $info state]
        assert_equal [$b client id] [ss_field $info client]
        assert_equal 1 [ss_field $info resumes]
        assert_equal 1 [$b deltp ss:lock]
        assert_equal [list [list watchex ss:lock DEL]] [ss_pushes_until_pong $w]
        assert_equal 0 [$b session close]
        $b close
        $w close
    }

    test {Grace end releases the keys: a DEL push to a watcher and a BSETTP hand-off to a waiter} {
        set w [ss_client 3]
        set a [ss_client]
        set token [$a session open 300]
        assert_equal 1 [$a settp ss:grace holder]
        assert_equal EXIST [$w watchex ss:grace]
        set waiter [redis_deferring_client]
        $waiter client id
        set wid [$waiter read]
        $waiter bsettp ss:grace mine 0
        wait_for_condition 100 10 {[string match *b* [ss_field [r client list id $wid] flags]]} else {
            fail "the waiter did not block"
        }
        set expired [ss_info sessions_expired]
        $a close
        assert_equal 1 [$waiter read]
        assert_equal mine [r get ss:grace]
        assert_equal $wid [r object owner ss:grace]
        assert_equal [list [list watchex ss:grace DEL] [list watchex ss:grace ADD]] [ss_pushes_until_pong $w]
        assert_equal [expr {$expired + 1}] [ss_info sessions_expired]
        assert_error {ERR invalid or expired session token} {r session resume $token}
        $waiter close
        $w close
    }

    test {A wrong, malformed or unknown token is an error and changes nothing} {
        set a [ss_client]
        set token [$a session open 60000]
        set id [ss_id $token]
        $a settp ss:tok v
        set secret [lindex [split $token :] 1]
        set wrong [string map {0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8 9 9 a a b b c c d d e e f f 0} $secret]
        set b [ss_client]
        foreach bad [list "$id:$wrong" "$id:" ":$secret" $secret "$id:[string toupper $secret]" \
                     "$id:${secret}0" "999999999:$secret" "x$id:$secret" "" "18446744073709551616:$secret"] {
            assert_error {ERR invalid or expired session token} {$b session resume $bad}
        }
        assert_equal {} [$b session info]
        assert_equal [$a client id] [ss_field [$a session info] client]
        assert_equal $id [r object owner ss:tok]
        assert_equal 0 [ss_field [$a session info] resumes]
        $a session close
        $a close
        $b close
    }

    test {A second SESSION OPEN is an error; RESUME of another session too; RESUME of its own is OK} {
        set a [ss_client]
        set b [ss_client]
        set ta [$a session open 60000]
        set tb [$b session open 60000]
        assert_error {ERR this connection already has a session} {$a session open 1000}
        assert_error {ERR this connection already has a session} {$a session resume $tb}
        assert_equal OK [$a session resume $ta]
        assert_equal 0 [ss_field [$a session info] resumes]
        assert_equal [ss_id $tb] [ss_field [$b session info] id]
        $a session close
        $b session close
        $a close
        $b close
    }

    test {RESET detaches the session; the keys stay; the same connection can resume it} {
        set a [ss_client]
        set token [$a session open 60000]
        set id [ss_id $token]
        $a settp ss:reset v
        assert_equal RESET [$a reset]
        $a select 9
        assert_equal {} [$a session info]
        assert_equal 1 [r exists ss:reset]
        assert_equal $id [r object owner ss:reset]
        assert_equal 0 [$a deltp ss:reset]
        assert_equal detached [ss_field [r session list] state]
        assert_equal OK [$a session resume $token]
        assert_equal 1 [$a deltp ss:reset]
        $a session close
        $a close
    }

    test {RESUME of a session attached elsewhere closes that connection; the keys stay} {
        set a [ss_client]
        set aid [$a client id]
        set token [$a session open 60000]
        $a settp ss:moved v
        set b [ss_client]
        assert_equal OK [$b session resume $token]
        ss_wait_client_gone $aid
        assert_error {*} {$a ping}
        assert_equal 1 [r exists ss:moved]
        assert_equal [$b client id] [ss_field [$b session info] client]
        assert_equal 1 [$b session close]
        $b close
    }

    test {SESSION in MULTI, and SETTP in MULTI and in a script owned by the session} {
        set a [ss_client]
        $a multi
        $a session open 60000
        $a settp ss:multi v
        set res [$a exec]
        set id [ss_id [lindex $res 0]]
        assert_equal 1 [lindex $res 1]
        assert_equal $id [r object owner ss:multi]
        assert_equal 1 [$a eval {return redis.call('settp', KEYS[1], 'v')} 1 ss:script]
        assert_equal $id [r object owner ss:script]
        assert_error {*not allowed from script*} {$a eval {return redis.call('session', 'info')} 0}
        assert_error {*not allowed from script*} {$a eval {return redis.call('session', 'close')} 0}
        assert_equal 2 [$a session close]
        $a close
    }

    test {CLIENT LEASE still closes a silent session holder; its keys stay for the grace} {
        set a [redis_deferring_client]
        $a client id
        set aid [$a read]
        $a session open 60000
        set token [$a read]
        $a settp ss:lease v
        assert_equal 1 [$a read]
        $a client lease 200
        assert_equal OK [$a read]
        ss_wait_client_gone $aid
        assert_equal 1 [r exists ss:lease]
        assert_equal detached [ss_field [r session list] state]
        set b [ss_client]
        assert_equal OK [$b session resume $token]
        assert_equal 1 [$b session close]
        $b close
        $a close
    }

    test {The secret never shows: SLOWLOG, MONITOR, CLIENT LIST, INFO} {
        set a [ss_client]
        set token [$a session open 60000]
        set secret [lindex [split $token :] 1]
        $a close
        r config set slowlog-log-slower-than 0
        r slowlog reset
        set m [redis_deferring_client]
        $m monitor
        assert_equal OK [$m read]
        set b [ss_client]
        assert_equal OK [$b session resume $token]
        assert_error {*invalid*} {$b session resume "1:$secret"}
        assert_error {*wrong number*} {$b session resume $token extra}
        set line [$m read]
        for {set i 0} {$i < 5 && ![string match {*"session"*} $line]} {incr i} {set line [$m read]}
        assert_match {*"session" "resume" "(redacted)"} $line
        set log [r slowlog get]
        r config set slowlog-log-slower-than 10000
        assert_no_match "*$secret*" $log
        assert_match {*session resume (redacted)*} $log
        assert_no_match "*$secret*" [r client list]
        assert_no_match "*$secret*" [r info everything]
        assert_no_match "*$secret*" [r session list]
        assert_no_match "*$secret*" [$b session info]
        $b session close
        $b close
        $m close
    }

    test {INFO coordination counts sessions and releases} {
        set opened [ss_info sessions_opened]
        set attached [ss_info sessions_attached]
        set detached [ss_info sessions_detached]
        set total [ss_info sessions]
        set resumed [ss_info sessions_resumed]
        set closed [ss_info released_by_session_close]
        set a [ss_client]
        set token [$a session open 60000]
        $a settp ss:info1 v
        $a settp ss:info2 v
        assert_equal [expr {$opened + 1}] [ss_info sessions_opened]
        assert_equal [expr {$attached + 1}] [ss_info sessions_attached]
        $a close
        wait_for_condition 100 20 {[ss_info sessions_detached] == $detached + 1} else {
            fail "not detached"
        }
        assert_equal $attached [ss_info sessions_attached]
        assert_equal [expr {$total + 1}] [ss_info sessions]
        set b [ss_client]
        $b session resume $token
        assert_equal [expr {$resumed + 1}] [ss_info sessions_resumed]
        assert_equal 2 [$b session close]
        assert_equal [expr {$closed + 2}] [ss_info released_by_session_close]
        assert_equal $total [ss_info sessions]
        assert_match "*# Coordination*sessions:$total*" [r info coordination]
        assert_no_match "*Coordination*" [r info]
        $b close
    }

    test {SESSION errors: arity, unknown subcommand, grace range, no session, replay records} {
        assert_error {ERR wrong number of arguments for 'session' command} {r session}
        assert_error {ERR wrong number of arguments for 'session|open' command} {r session open}
        assert_error {ERR wrong number of arguments for 'session|open' command} {r session open 1 2}
        assert_error {ERR wrong number of arguments for 'session|resume' command} {r session resume}
        assert_error {ERR wrong number of arguments for 'session|close' command} {r session close x}
        assert_error {ERR wrong number of arguments for 'session|info' command} {r session info x}
        assert_error {ERR unknown subcommand 'nosuch'. Try SESSION HELP.} {r session nosuch}
        foreach g {-1 86400001 abc 1.5 ""} {
            assert_error {ERR grace is not an integer or out of range} {r session open $g}
        }
        assert_error {ERR this connection has no session} {r session close}
        # The propagation records exist only for the AOF's loader.
        assert_error {ERR unknown subcommand 'create'. Try SESSION HELP.} {r session create 5 100 00}
        assert_error {ERR unknown subcommand 'own'. Try SESSION HELP.} {r session own 5 0 k}
        assert_error {ERR unknown subcommand 'drop'. Try SESSION HELP.} {r session drop 5}
        assert_match {*OPEN*RESUME*CLOSE*INFO*LIST*HELP*} [r session help]
        set docs [r command docs session]
        assert_match {*subcommands*session|open*session|resume*} $docs
        assert_no_match {*session|create*} $docs
        assert_no_match {*session|create*} [r command list]
        assert_equal {} [r session info]
        set t [r session open 0]
        assert_equal 0 [r session close]
    }

    test {A session with grace 0 releases its keys as soon as its connection ends} {
        set a [ss_client]
        $a session open 0
        $a settp ss:zero v
        $a close
        ss_wait_gone ss:zero
    }
}

# The AOF: SESSION CREATE/OWN/DROP records carry no secret, and a file with sessions loads
# with no temporary key left (a restart is not a blip).
proc ss_aof_text {} {
    set text ""
    foreach f [lsort [glob -nocomplain [file join [server_path 0 appendonlydir] *.incr.aof]]] {
        set fd [open $f rb]
        append text [read $fd]
        close $fd
    }
    return $text
}

start_server {tags {sessions redistp external:skip needs:debug} overrides {appendonly yes appendfsync always}} {
    test {An AOF with sessions records no secret and reloads with no temporary key} {
        r set ordinary v
        set a [ss_client]
        $a settp ss:pre v
        set token [$a session open 60000]
        set id [ss_id $token]
        set secret [lindex [split $token :] 1]
        $a settp ss:aof v FENCE
        $a bsettp ss:aof2 v 0
        set b [ss_client]
        $b session open 50
        $b settp ss:short v
        $b close
        ss_wait_gone ss:short
        set text [ss_aof_text]
        assert_match "*SESSION\r\n\$6\r\nCREATE\r\n\$[string length $id]\r\n$id\r\n*" $text
        assert_match "*OWN\r\n*ss:pre\r\n*" $text
        assert_match "*OWN\r\n*ss:aof2\r\n*" $text
        assert_match "*DROP\r\n*" $text
        assert_no_match "*$secret*" $text
        assert_equal OK [r debug loadaof]
        assert_equal 1 [r exists ordinary]
        assert_equal 0 [r exists ss:pre ss:aof ss:aof2]
        # The live session survives DEBUG LOADAOF without its keys; the loaded ones are gone.
        assert_equal $id [ss_field [$a session info] id]
        assert_equal 1 [llength [split [string trim [r session list]] "\n"]]
        $a settp ss:after v
        assert_equal $id [r object owner ss:after]
        $a close
        restart_server 0 kill
        assert_equal 1 [r exists ordinary]
        assert_equal 0 [r exists ss:pre ss:aof ss:aof2 ss:after]
        assert_equal {} [r session list]
        assert_error {ERR invalid or expired session token} {r session resume $token}
    }
}
