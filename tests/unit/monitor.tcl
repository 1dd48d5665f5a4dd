# MONITOR: the line format, which commands are shown, redaction of secrets,
# what a monitoring connection may still do, and leaving the mode.

# Opens a monitoring connection and returns it (its +OK already read). It is
# opened without the usual SELECT, so no line of its own precedes the test's.
proc start_monitor {} {
    set m [::redis::redis [srv host] [srv port] 1]
    $m monitor
    assert_equal OK [$m read]
    return $m
}

# A monitor line without its leading timestamp: "[db addr] "arg" ...".
proc monitor_tail {line} {
    return [string range $line [expr {[string first " " $line] + 1}] end]
}

start_server {tags {monitor}} {
    test {MONITOR streams each command with time, db and peer address} {
        set c [redis_client]
        set addr [lindex [regexp -inline {addr=(\S+)} [$c client info]] 1]
        set m [start_monitor]
        $c set monkey monvalue
        set line [$m read]
        assert_equal "\[9 $addr\] \"set\" \"monkey\" \"monvalue\"" [monitor_tail $line]
        # Seconds and microseconds, the microseconds always six digits.
        assert {[regexp {^(\d+)\.(\d{6}) } $line -> sec usec]}
        assert_range $sec [expr {[clock seconds] - 5}] [expr {[clock seconds] + 5}]
        $c select 2
        $c get monkey
        # SELECT is shown with the database it switched to: lines are made after the command ran.
        assert_equal "\[2 $addr\] \"select\" \"2\"" [monitor_tail [$m read]]
        assert_equal "\[2 $addr\] \"get\" \"monkey\"" [monitor_tail [$m read]]
        $c close
        $m close
    }

    test {MONITOR lines start with + on the wire} {
        set m [redis_deferring_client]
        $m readraw 1
        $m monitor
        assert_equal +OK [$m read]
        r ping
        assert_match {+*"ping"} [$m read]
        $m close
    }

    test {MONITOR quotes arguments with C escapes} {
        set m [start_monitor]
        r set "quo\"te" "a\\b\r\n\t\x01\xff end\a\b"
        set line [$m read]
        set args [string range $line [expr {[string first "\] " $line] + 2}] end]
        assert_equal {"set" "quo\"te" "a\\b\r\n\t\x01\xff end\a\b"} $args
        r echo ""
        assert_match {*"echo" ""} [$m read]
        $m close
    }

    test {MONITOR keeps the arguments as the client sent them} {
        set m [start_monitor]
        r SeT MixedCase Value
        assert_match {*"SeT" "MixedCase" "Value"} [$m read]
        $m close
    }

    test {MONITOR hides administrative commands but shows the others} {
        set m [start_monitor]
        r client list
        r client kill id 999999
        r slowlog len
        r latency latest
        r client setname watched
        r client setname ""
        r ping
        assert_match {*"client" "setname" "watched"} [$m read]
        assert_match {*"client" "setname" ""} [$m read]
        assert_match {*"ping"} [$m read]
        $m close
    }

    test {MONITOR shows commands that failed while running, not rejected ones} {
        set m [start_monitor]
        r del notalist
        r set notalist x
        catch {r lpush} e
        catch {r nosuchcommand arg} e
        catch {r client nosuchsub} e
        catch {r incr notalist} e
        r ping done
        assert_match {*"del" "notalist"} [$m read]
        assert_match {*"set" "notalist" "x"} [$m read]
        assert_match {*"incr" "notalist"} [$m read]
        assert_match {*"ping" "done"} [$m read]
        $m close
    }

    test {MONITOR redacts AUTH and HELLO AUTH credentials} {
        set c [redis_client]
        set m [start_monitor]
        catch {$c auth onlypassword} e
        $c auth default anything
        catch {$c auth a b c} e
        $c hello 2 auth default secret setname hello-name
        $c hello 2 setname plain-name
        catch {$c hello 9 auth default secret} e
        $c ping end
        assert_match {*"auth" "(redacted)"} [$m read]
        assert_match {*"auth" "(redacted)" "(redacted)"} [$m read]
        # Too many arguments: AUTH refuses them without looking at them.
        assert_match {*"auth" "a" "b" "c"} [$m read]
        assert_match {*"hello" "2" "auth" "(redacted)" "(redacted)" "setname" "hello-name"} \
            [$m read]
        assert_match {*"hello" "2" "setname" "plain-name"} [$m read]
        # An unsupported protocol version stops HELLO before it reads the options.
        assert_match {*"hello" "9" "auth" "default" "secret"} [$m read]
        assert_match {*"ping" "end"} [$m read]
        $c close
        $m close
    }

    test {MONITOR redacts MIGRATE's AUTH and AUTH2 credentials} {
        set m [start_monitor]
        set port [srv port]
        # No key "absent" exists, so MIGRATE answers NOKEY without connecting anywhere.
        r migrate 127.0.0.1 $port absent 0 1000 AUTH secret
        r migrate 127.0.0.1 $port absent 0 1000 REPLACE AUTH2 someone secret
        r migrate 127.0.0.1 $port "" 0 1000 AUTH2 someone secret KEYS absent auth
        assert_match "*\"migrate\" \"127.0.0.1\" \"$port\" \"absent\" \"0\" \"1000\" \"AUTH\" \"(redacted)\"" \
            [$m read]
        assert_match {*"REPLACE" "AUTH2" "(redacted)" "(redacted)"} [$m read]
        # After KEYS come key names only: an "auth" there is a key and is shown.
        assert_match {*"" "0" "1000" "AUTH2" "(redacted)" "(redacted)" "KEYS" "absent" "auth"} \
            [$m read]
        $m close
    }

    test {MONITOR shows FCALL and FCALL_RO before the commands the function runs} {
        r function load replace {#!lua name=monlib
            redis.register_function('monset', function(keys, args)
                return redis.call('set', keys[1], args[1])
            end)
            redis.register_function{function_name='monget', flags={'no-writes'},
                callback=function(keys) return redis.call('get', keys[1]) end}
        }
        set m [start_monitor]
        r fcall monset 1 fk fv
        r fcall_ro monget 1 fk
        # Calls that fail once admitted are shown too: an unknown function, a bad key count.
        catch {r fcall nosuchfunction 0} e
        assert_match {*Function not found*} $e
        catch {r fcall monset notanumber} e
        assert_match {*Bad number of keys*} $e
        assert_match {*"fcall" "monset" "1" "fk" "fv"} [$m read]
        assert_match {*lua\] "set" "fk" "fv"} [$m read]
        assert_match {*"fcall_ro" "monget" "1" "fk"} [$m read]
        assert_match {*lua\] "get" "fk"} [$m read]
        assert_match {*"fcall" "nosuchfunction" "0"} [$m read]
        assert_match {*"fcall" "monset" "notanumber"} [$m read]
        $m close
        r function flush
    }

    test {MONITOR does not show a script call its declared flags refused, but shows later errors} {
        r function load replace {#!lua name=oomlib
            redis.register_function('oomw', function() return 1 end)
        }
        set m [start_monitor]
        r config set maxmemory 1
        catch {
            # Refused before running, by the flags the shebang or the function declares.
            assert_error {OOM *} {r eval "#!lua\nreturn 1" 0}
            assert_error {OOM *} {r fcall oomw 0}
            assert_error {OOM *} {r eval_ro "#!lua\nreturn 1" 0}
            # Admitted, then failing in the command itself.
            assert_equal 1 [r eval "#!lua flags=no-writes\nreturn 1" 0]
            assert_error {ERR Unexpected flag*} {r eval "#!lua flags=bad\nreturn 1" 0}
        } err opts
        r config set maxmemory 0
        if {[dict get $opts -code] == 1} {return -options $opts $err}
        assert_error {ERR Can not execute a script with write flag*} {r eval_ro "#!lua\nreturn 1" 0}
        r ping done
        # (CONFIG is an administrative command: never shown.)
        assert_match {*"eval" "#!lua flags=no-writes\\nreturn 1" "0"} [$m read]
        assert_match {*"eval" "#!lua flags=bad\\nreturn 1" "0"} [$m read]
        assert_match {*"eval_ro" "#!lua\\nreturn 1" "0"} [$m read]
        assert_match {*"ping" "done"} [$m read]
        $m close
        r function flush
    } {OK} {needs:config}

    test {Every monitor receives every line} {
        set m1 [start_monitor]
        set m2 [start_monitor]
        r set both 1
        assert_match {*"set" "both" "1"} [$m1 read]
        assert_match {*"set" "both" "1"} [$m2 read]
        $m1 close
        $m2 close
    }

    test {A monitor sees its own commands after their replies} {
        set m [start_monitor]
        $m ping
        assert_equal PONG [$m read]
        assert_match {*"ping"} [$m read]
        $m close
    }

    test {A monitor may not read or write keys} {
        set m [start_monitor]
        $m get monkey
        assert_error {ERR Replica can't interact with the keyspace} {$m read}
        $m set monkey other
        assert_error {ERR Replica can't interact with the keyspace} {$m read}
        # Rejected, so not shown either: the next line is the PING.
        $m ping
        assert_equal PONG [$m read]
        assert_match {*"ping"} [$m read]
        $m close
        assert_equal monvalue [r get monkey]
    }

    test {MONITOR on a monitor is ignored without a reply} {
        set m [start_monitor]
        $m monitor
        $m ping again
        assert_equal again [$m read]
        assert_match {*"ping" "again"} [$m read]
        $m close
    }

    test {RESET ends monitoring} {
        set m [start_monitor]
        $m reset
        assert_equal RESET [$m read]
        r set after-reset 1
        $m ping
        assert_equal PONG [$m read]
        $m close
        wait_for_condition 50 20 {![string match {*flags=O*} [r client list]]} else {
            fail "a monitor is still listed: [r client list]"
        }
    }

    test {Closed or killed monitors stop receiving and do not disturb the server} {
        set m1 [start_monitor]
        $m1 client id
        set id1 [$m1 read]
        set m2 [redis_deferring_client]
        $m2 client id
        set id2 [$m2 read]
        $m2 monitor
        assert_equal OK [$m2 read]
        $m1 close
        assert_equal 1 [r client kill id $id2]
        assert_error {*} {$m2 read}
        catch {$m2 close}
        for {set i 0} {$i < 50} {incr i} {r set k$i $i}
        assert_equal PONG [r ping]
        wait_for_condition 50 20 {[r client list id $id1] eq ""} else {
            fail "closed monitor still listed"
        }
    }

    test {MONITOR takes no arguments} {
        assert_error {ERR wrong number of arguments for 'monitor' command} {r monitor now}
    }
}
