# CLIENT: ID, SETNAME/GETNAME, INFO, LIST (format and filters), KILL (old and
# filter forms), PAUSE/UNPAUSE, UNBLOCK, REPLY, NO-EVICT, GETREDIR, HELP and
# the container's errors.

# The CLIENT LIST line of connection `id`, as seen by the default client.
proc client_line {id} {
    return [string trim [r client list id $id]]
}

# The field names of a CLIENT LIST line, in order.
proc client_field_names {line} {
    set names {}
    foreach pair [split [string trim $line] " "] {
        lappend names [string range $pair 0 [expr {[string first = $pair] - 1}]]
    }
    return $names
}

start_server {tags {client}} {
    test {CLIENT ID is positive, distinct per connection and matches CLIENT INFO} {
        set c1 [redis_client]
        set c2 [redis_client]
        set id1 [$c1 client id]
        set id2 [$c2 client id]
        assert {$id1 > 0 && $id2 > $id1}
        assert_equal $id1 [client_field [$c1 client info] id]
        assert_equal $id2 [client_field [$c2 client info] id]
        $c1 close
        $c2 close
        assert_error {ERR wrong number of arguments for 'client|id' command} {r client id x}
    }

    test {An idle connection's read buffer is given back by the cron (qbuf-free drops to 0)} {
        set c [redis_client]
        $c client setname idle-reader
        set id [$c client id]
        # Just after its command the connection still holds a read buffer.
        set line [r client list id $id]
        assert {[client_field $line qbuf-free] > 0}
        # After two seconds without input the clients cron frees it.
        wait_for_condition 60 100 {
            [client_field [r client list id $id] qbuf-free] == 0
        } else {
            fail "the idle connection kept its read buffer: [r client list id $id]"
        }
        # The connection still works and reads again.
        assert_equal idle-reader [$c client getname]
        $c close
    }

    test {An idle connection's grown reply buffer shrinks back (rbs drops to 1024)} {
        set c [redis_client]
        r set big-reply [string repeat x 12000]
        assert_equal 12000 [string length [$c get big-reply]]
        set id [$c client id]
        assert {[client_field [r client list id $id] rbs] > 1024}
        wait_for_condition 100 100 {
            [client_field [r client list id $id] rbs] == 1024
        } else {
            fail "the idle connection kept its reply buffer: [r client list id $id]"
        }
        assert_equal 12000 [string length [$c get big-reply]]
        r del big-reply
        $c close
    }

    test {CLIENT SETNAME and GETNAME} {
        set c [redis_client]
        assert_equal {} [$c client getname]
        assert_equal OK [$c client setname my-conn_1]
        assert_equal my-conn_1 [$c client getname]
        assert_equal my-conn_1 [client_field [$c client info] name]
        # The empty name clears it.
        assert_equal OK [$c client setname ""]
        assert_equal {} [$c client getname]
        assert_equal {} [client_field [$c client info] name]
        $c close
    }

    test {CLIENT SETNAME refuses spaces, newlines and non-printable bytes} {
        set c [redis_client]
        $c client setname keep
        foreach bad [list "a b" "a\nb" "tab\t" "\x7f" "caf\xe9" " "] {
            assert_error {ERR Client names cannot contain spaces, newlines or special characters.} {
                $c client setname $bad
            }
        }
        assert_equal keep [$c client getname]
        $c close
    }

    test {CLIENT LIST has Redis 7.0's fields in Redis 7.0's order} {
        set line [string trim [r client list id [r client id]]]
        set expected {id addr laddr fd name age idle flags db sub psub ssub multi qbuf
            qbuf-free argv-mem multi-mem rbs rbp obl oll omem tot-mem events cmd user
            redir resp}
        set names [client_field_names $line]
        set expected [join $expected " "]
        assert_equal $expected [lrange $names 0 [expr {[llength $expected] - 1}]]
    }

    test {CLIENT INFO describes the caller in one line} {
        r client setname infotest
        set info [r client info]
        assert_match "id=[r client id] addr=127.0.0.1:* laddr=127.0.0.1:[srv port] *" $info
        assert_equal 1 [llength [split [string trim $info] "\n"]]
        assert {[string index $info end] eq "\n"}
        assert_equal infotest [client_field $info name]
        assert_equal N [client_field $info flags]
        assert_equal 9 [client_field $info db]
        assert_equal client|info [client_field $info cmd]
        assert_equal default [client_field $info user]
        assert_equal 2 [client_field $info resp]
        assert_equal -1 [client_field $info multi]
        assert_equal -1 [client_field $info redir]
        r client setname ""
    }

    test {CLIENT LIST shows the running command and its argument bytes} {
        set line [client_line [r client id]]
        assert_equal client|list [client_field $line cmd]
        # "client" "list" "id" and the id itself.
        set id [r client id]
        assert_equal [expr {12 + [string length $id]}] [client_field $line argv-mem]
        # An idle connection holds no arguments and no query bytes.
        set c [redis_client]
        set cid [$c client id]
        $c ping
        set other [client_line $cid]
        assert_equal 0 [client_field $other argv-mem]
        assert_equal 0 [client_field $other qbuf]
        assert_equal ping [client_field $other cmd]
        $c close
    }

    test {CLIENT LIST cmd= follows the last command looked up, NULL when unknown} {
        set c [redis_client]
        set id [$c client id]
        $c get somekey
        assert_equal get [client_field [client_line $id] cmd]
        catch {$c get} e
        assert_equal get [client_field [client_line $id] cmd]
        catch {$c client} e
        assert_equal client [client_field [client_line $id] cmd]
        catch {$c nosuchcommand} e
        assert_equal NULL [client_field [client_line $id] cmd]
        catch {$c client nosuchsub} e
        assert_equal NULL [client_field [client_line $id] cmd]
        $c client getname
        assert_equal client|getname [client_field [client_line $id] cmd]
        $c close
    }

    test {CLIENT LIST db= follows SELECT and age/idle count seconds} {
        set c [redis_client]
        set id [$c client id]
        $c select 3
        set line [client_line $id]
        assert_equal 3 [client_field $line db]
        assert_equal 0 [client_field $line idle]
        after 1100
        set line [client_line $id]
        assert_morethan_equal [client_field $line idle] 1
        assert_morethan_equal [client_field $line age] 1
        $c close
    }

    test {CLIENT LIST lists every connection, one line each, in connection order} {
        set c1 [redis_client]
        set c2 [redis_client]
        set ids {}
        foreach line [split [string trim [r client list]] "\n"] {
            lappend ids [client_field $line id]
        }
        set id1 [$c1 client id]
        set id2 [$c2 client id]
        assert {[r client id] in $ids}
        assert {$id1 in $ids && $id2 in $ids}
        assert_equal $ids [lsort -integer $ids]
        $c1 close
        $c2 close
    }

    test {CLIENT LIST ID picks connections by id} {
        set c1 [redis_client]
        set c2 [redis_client]
        set id1 [$c1 client id]
        set id2 [$c2 client id]
        set lines [split [string trim [r client list id $id2 999999 $id1]] "\n"]
        assert_equal 2 [llength $lines]
        assert_equal $id2 [client_field [lindex $lines 0] id]
        assert_equal $id1 [client_field [lindex $lines 1] id]
        assert_equal {} [r client list id 999999]
        assert_equal {} [r client list id 0]
        assert_equal {} [r client list id -5]
        assert_error {ERR Invalid client ID} {r client list id $id1 abc}
        assert_error {ERR syntax error} {r client list id}
        $c1 close
        $c2 close
    }

    test {CLIENT LIST TYPE filters by connection type} {
        set me [r client id]
        set normal [r client list type normal]
        assert_match "*id=$me *" $normal
        assert_match "*id=$me *" [r client list type NORMAL]
        assert_equal {} [r client list type master]
        assert_equal {} [r client list type replica]
        assert_equal {} [r client list type slave]
        assert_no_match "*id=$me *" [r client list type pubsub]
        assert_error {ERR Unknown client type 'foo'} {r client list type foo}
        assert_error {ERR syntax error} {r client list type}
        assert_error {ERR syntax error} {r client list type normal id 1}
        assert_error {ERR syntax error} {r client list foo}
    }

    test {CLIENT INFO and LIST are verbatim strings in RESP3} {
        set c [redis_deferring_client]
        $c hello 3
        $c read
        $c readraw 1
        $c client info
        assert_match {=*} [$c read]
        assert_match {txt:id=*} [$c read]
        $c client list id 0
        assert_equal {=4} [$c read]
        assert_equal {txt:} [$c read]
        $c close
    }

    test {CLIENT KILL ip:port closes that connection} {
        set victim [redis_client]
        set addr [client_field [$victim client info] addr]
        assert_equal OK [r client kill $addr]
        assert_error {*} {$victim ping}
        assert_no_match "*addr=$addr *" [r client list]
        assert_error {ERR No such client} {r client kill $addr}
        assert_error {ERR No such client} {r client kill 1.2.3.4:5}
        assert_error {ERR No such client} {r client kill not-an-address}
        catch {$victim close}
    }

    test {CLIENT KILL ip:port on itself replies OK, then closes} {
        set c [redis_deferring_client]
        $c client info
        set addr [client_field [$c read] addr]
        $c client kill $addr
        assert_equal OK [$c read]
        $c ping
        assert_error {*} {$c read}
        catch {$c close}
    }

    test {CLIENT KILL ID and ADDR filters reply with the number killed} {
        set v1 [redis_client]
        set v2 [redis_client]
        set id1 [$v1 client id]
        set addr2 [client_field [$v2 client info] addr]
        assert_equal 1 [r client kill id $id1]
        assert_error {*} {$v1 ping}
        assert_equal 0 [r client kill id $id1]
        assert_equal 1 [r client kill addr $addr2]
        assert_error {*} {$v2 ping}
        assert_equal 0 [r client kill addr $addr2]
        catch {$v1 close}
        catch {$v2 close}
    }

    test {CLIENT KILL filters combine with AND} {
        set v [redis_client]
        set id [$v client id]
        set addr [client_field [$v client info] addr]
        assert_equal 0 [r client kill id $id addr 1.2.3.4:5]
        assert_equal 0 [r client kill id $id type pubsub]
        assert_equal 0 [r client kill id $id laddr 1.2.3.4:5]
        assert_equal pong [$v ping pong]
        assert_equal 1 [r client kill id $id addr $addr type normal user default \
                            laddr 127.0.0.1:[srv port]]
        assert_error {*} {$v ping}
        catch {$v close}
    }

    test {CLIENT KILL LADDR kills every connection made to that local address} {
        set v1 [redis_client]
        set v2 [redis_client]
        set laddr [client_field [r client info] laddr]
        set before [llength [split [string trim [r client list]] "\n"]]
        # SKIPME defaults to yes: everything but the caller.
        assert_equal [expr {$before - 1}] [r client kill laddr $laddr]
        assert_error {*} {$v1 ping}
        assert_error {*} {$v2 ping}
        assert_equal PONG [r ping]
        catch {$v1 close}
        catch {$v2 close}
    }

    test {CLIENT KILL SKIPME no may kill the caller, after its reply} {
        set c [redis_deferring_client]
        $c client id
        set id [$c read]
        $c client kill id $id
        assert_equal 0 [$c read]
        $c client kill id $id skipme YES
        assert_equal 0 [$c read]
        $c client kill id $id skipme no
        assert_equal 1 [$c read]
        $c ping
        assert_error {*} {$c read}
        catch {$c close}
    }

    test {CLIENT KILL argument errors} {
        assert_error {ERR client-id should be greater than 0} {r client kill id 0}
        assert_error {ERR client-id should be greater than 0} {r client kill id -1}
        assert_error {ERR client-id should be greater than 0} {r client kill id abc}
        assert_error {ERR Unknown client type 'bogus'} {r client kill type bogus}
        assert_error {ERR No such user 'nobody'} {r client kill user nobody}
        assert_error {ERR syntax error} {r client kill skipme maybe}
        assert_error {ERR syntax error} {r client kill id 1 skipme}
        assert_error {ERR syntax error} {r client kill foo bar}
        assert_error {ERR syntax error} {r client kill a b c}
        # A bad pair anywhere fails the whole command before anything is killed.
        set v [redis_client]
        assert_error {ERR syntax error} {r client kill id [$v client id] bogus x}
        assert_equal PONG [$v ping]
        $v close
        assert_error {ERR wrong number of arguments for 'client|kill' command} {r client kill}
    }

    test {CLIENT PAUSE argument errors} {
        assert_error {ERR timeout is not an integer or out of range} {r client pause abc}
        assert_error {ERR timeout is not an integer or out of range} {r client pause 1.5}
        assert_error {ERR timeout is not an integer or out of range} {
            r client pause 99999999999999999999
        }
        assert_error {ERR timeout is negative} {r client pause -1}
        assert_error {ERR CLIENT PAUSE mode must be WRITE or ALL} {r client pause 10 read}
        # The mode is checked before the timeout.
        assert_error {ERR CLIENT PAUSE mode must be WRITE or ALL} {r client pause abc read}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP.} {
            r client pause 10 write extra
        }
        assert_error {ERR wrong number of arguments for 'client|pause' command} {r client pause}
        # A zero timeout pauses nothing.
        assert_equal OK [r client pause 0]
        assert_equal OK [r set pausekey 1]
    }

    test {CLIENT PAUSE WRITE holds writes but lets reads through} {
        r del pausekey
        set rd [redis_deferring_client]
        assert_equal OK [r client pause 100000 write]
        $rd set pausekey held
        # Reads are served while the write waits.
        after 100
        assert_equal {} [r get pausekey]
        assert_equal PONG [r ping]
        assert_equal OK [r client unpause]
        assert_equal OK [$rd read]
        assert_equal held [r get pausekey]
        $rd close
    }

    test {CLIENT PAUSE WRITE ends by itself after the timeout} {
        set rd [redis_deferring_client]
        set start [clock milliseconds]
        r client pause 300 write
        $rd incr pausecounter
        assert_equal 1 [$rd read]
        assert_morethan_equal [expr {[clock milliseconds] - $start}] 250
        $rd close
    }

    test {CLIENT PAUSE ALL holds every command, even PING} {
        set rd [redis_deferring_client]
        set start [clock milliseconds]
        r client pause 300 all
        $rd ping
        assert_equal PONG [$rd read]
        assert_morethan_equal [expr {[clock milliseconds] - $start}] 250
        # The caller is paused too.
        set start [clock milliseconds]
        r client pause 300
        assert_equal PONG [r ping]
        assert_morethan_equal [expr {[clock milliseconds] - $start}] 250
        $rd close
    }

    test {CLIENT PAUSE only extends, and ALL is not downgraded by WRITE} {
        set rd [redis_deferring_client]
        set start [clock milliseconds]
        # The shorter pause keeps the longer end; the WRITE pause then keeps ALL mode.
        r client pause 600 write
        r client pause 100 all
        $rd ping
        assert_equal PONG [$rd read]
        assert_morethan_equal [expr {[clock milliseconds] - $start}] 500
        $rd close
    }

    test {CLIENT UNPAUSE without a pause is harmless} {
        assert_equal OK [r client unpause]
        assert_equal OK [r set unpaused 1]
        assert_error {ERR wrong number of arguments for 'client|unpause' command} {
            r client unpause now
        }
    }

    test {CLIENT UNBLOCK returns 0 for a connection that is not blocked} {
        set c [redis_client]
        set id [$c client id]
        assert_equal 0 [r client unblock $id]
        assert_equal 0 [r client unblock $id timeout]
        assert_equal 0 [r client unblock $id ERROR]
        assert_equal 0 [r client unblock 999999]
        assert_equal 0 [r client unblock 0]
        assert_equal PONG [$c ping]
        assert_error {ERR value is not an integer or out of range} {r client unblock abc}
        assert_error {ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR} {
            r client unblock $id later
        }
        assert_error {ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.} {
            r client unblock $id timeout x
        }
        $c close
    }

    # Blocks the deferring client $rd in whatever blocking command the server has
    # (BSETTP on a held key in redis-tp, BLPOP on an empty list in Redis) and
    # returns the reply that command gives when its wait times out.
    proc block_client {rd} {
        set info [r command info bsettp]
        if {[llength [lindex $info 0]] > 0} {
            r set unblock:held x
            $rd bsettp unblock:held v 0
            return 0
        }
        r del unblock:list
        $rd blpop unblock:list 0
        return {}
    }

    test {CLIENT UNBLOCK ends a blocking wait as a timeout, or with an error} {
        foreach {reason expected} {timeout ok TIMEOUT ok error err} {
            set rd [redis_deferring_client]
            $rd client id
            set id [$rd read]
            set timeout_reply [block_client $rd]
            wait_for_condition 50 20 {[client_field [client_line $id] flags] eq "b"} else {
                fail "client $id did not block"
            }
            assert_equal 1 [r client unblock $id $reason]
            if {$expected eq "ok"} {
                assert_equal $timeout_reply [$rd read]
            } else {
                assert_error {UNBLOCKED client unblocked via CLIENT UNBLOCK} {$rd read}
            }
            # No longer blocked: a second UNBLOCK finds nothing to do.
            assert_equal 0 [r client unblock $id]
            $rd ping
            assert_equal PONG [$rd read]
            $rd close
        }
    }

    test {CLIENT REPLY SKIP drops the next reply only} {
        set rd [redis_deferring_client]
        $rd readraw 1
        $rd client reply skip
        $rd ping first
        $rd ping second
        assert_equal {$6} [$rd read]
        assert_equal second [$rd read]
        $rd close
    }

    test {CLIENT REPLY OFF drops every reply, errors included, until ON} {
        set rd [redis_deferring_client]
        $rd readraw 1
        $rd client reply off
        $rd ping one
        $rd nosuchcommand
        $rd client reply bogus
        $rd set replyoff yes
        $rd client reply skip
        $rd ping two
        $rd client reply on
        assert_equal +OK [$rd read]
        $rd ping three
        assert_equal {$5} [$rd read]
        assert_equal three [$rd read]
        $rd close
        assert_equal yes [r get replyoff]
    }

    test {CLIENT REPLY errors} {
        assert_error {ERR syntax error} {r client reply maybe}
        assert_error {ERR wrong number of arguments for 'client|reply' command} {r client reply}
        assert_equal OK [r client reply on]
    }

    test {CLIENT NO-EVICT sets and clears the e flag} {
        assert_equal OK [r client no-evict on]
        assert_equal e [client_field [r client info] flags]
        assert_equal OK [r client no-evict OFF]
        assert_equal N [client_field [r client info] flags]
        assert_error {ERR syntax error} {r client no-evict maybe}
        assert_error {ERR wrong number of arguments for 'client|no-evict' command} {
            r client no-evict
        }
    }

    test {CLIENT GETREDIR is -1 without tracking} {
        assert_equal -1 [r client getredir]
    }

    test {A MONITOR connection is listed as a normal client with flag O} {
        set m [redis_deferring_client]
        $m client id
        set id [$m read]
        $m monitor
        assert_equal OK [$m read]
        set line [client_line $id]
        assert_equal O [client_field $line flags]
        assert_equal monitor [client_field $line cmd]
        assert_match "*id=$id *" [r client list type normal]
        $m close
    }

    test {CLIENT HELP lists the subcommands} {
        set help [r client help]
        assert_morethan [llength $help] 10
        assert_match {CLIENT <subcommand>*} [lindex $help 0]
        foreach sub {ID INFO LIST KILL SETNAME GETNAME PAUSE UNPAUSE UNBLOCK REPLY NO-EVICT} {
            assert_match "*$sub*" $help
        }
        assert_error {ERR wrong number of arguments for 'client|help' command} {r client help x}
    }

    test {CLIENT container errors} {
        assert_error {ERR wrong number of arguments for 'client' command} {r client}
        assert_error {ERR unknown subcommand 'nosuch'. Try CLIENT HELP.} {r client nosuch}
        assert_error {ERR wrong number of arguments for 'client|setname' command} {
            r client setname
        }
        assert_error {ERR wrong number of arguments for 'client|getname' command} {
            r client getname x
        }
        assert_error {ERR wrong number of arguments for 'client|info' command} {r client info x}
    }

    test {CLIENT LIST counts reply blocks: an idle client has omem=0, a backlog costs what it holds} {
        set idle [r client info]
        assert_equal 0 [client_field $idle omem]
        assert_equal 0 [client_field $idle oll]
        r set bigreply [string repeat x 100000]
        # A connection that pipelines 200 GETs of 100 KB and reads nothing.
        set s [raw_connect]
        set req "CLIENT SETNAME slowreader\r\nSELECT [srv db]\r\n"
        for {set i 0} {$i < 200} {incr i} {append req "GET bigreply\r\n"}
        raw_write $s $req
        wait_for_condition 50 100 {
            [client_field [lsearch -inline [split [r client list] "\n"] *name=slowreader*] oll] > 0
        } else {
            fail "the slow reader never had reply blocks queued"
        }
        set line [lsearch -inline [split [r client list] "\n"] *name=slowreader*]
        set omem [client_field $line omem]
        assert {$omem > 0}
        # Never more than the replies themselves plus one partly filled block of slack.
        assert {$omem <= 200 * 100011 + 16384} "omem $omem"
        raw_close $s
        r del bigreply
    }
}
