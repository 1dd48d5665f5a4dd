# Connection commands and connection lifetime: PING, ECHO, SELECT, QUIT,
# RESET, AUTH and HELLO AUTH with requirepass, idle timeout, maxclients and
# many concurrent clients.

start_server {tags {connection}} {
    test {PING with and without an argument} {
        assert_equal [r ping] PONG
        assert_equal [r ping "hello world"] "hello world"
        assert_equal [r ping ""] ""
        assert_error {ERR wrong number of arguments for 'ping' command} {r ping a b}
    }

    test {PING reply frames in RESP2 and RESP3} {
        set rd [redis_deferring_client]
        $rd readraw 1
        $rd ping
        assert_equal [$rd read] +PONG
        $rd ping msg
        assert_equal [$rd read] {$3}
        assert_equal [$rd read] msg
        $rd hello 3
        $rd readraw 0
        $rd read
        $rd readraw 1
        $rd ping
        assert_equal [$rd read] +PONG
        $rd close
    }

    tags {pubsub} {
        test {PING inside a RESP2 subscription returns a pong array} {
            set rd [redis_deferring_client]
            $rd subscribe chan
            assert_equal [$rd read] {subscribe chan 1}
            $rd ping
            assert_equal [$rd read] {pong {}}
            $rd ping hi
            assert_equal [$rd read] {pong hi}
            $rd get x
            assert_error {ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context} {$rd read}
            $rd close
        }
    }

    test {ECHO returns its argument byte for byte} {
        assert_equal [r echo hello] hello
        assert_equal [r echo ""] ""
        assert_equal [r echo "a\r\nb\x00c"] "a\r\nb\x00c"
        assert_error {ERR wrong number of arguments for 'echo' command} {r echo}
        assert_error {ERR wrong number of arguments for 'echo' command} {r echo a b}
    }

    test {SELECT accepts 0..15 and rejects the rest} {
        set c [redis_client]
        for {set db 0} {$db < 16} {incr db} {
            assert_equal [$c select $db] OK
        }
        assert_error {ERR DB index is out of range} {$c select 16}
        assert_error {ERR DB index is out of range} {$c select -1}
        assert_error {ERR value is not an integer or out of range} {$c select abc}
        assert_error {ERR value is not an integer or out of range} {$c select 1.5}
        assert_error {ERR value is out of range, value must between -2147483648 and 2147483647} {
            $c select 2147483648
        }
        assert_error {ERR wrong number of arguments for 'select' command} {$c select}
        $c close
    }

    test {SELECT changes where keys are read and written} {
        set c [redis_client]
        $c select 3
        $c set selkey three
        $c select 4
        assert_equal [$c get selkey] {}
        $c set selkey four
        $c select 3
        assert_equal [$c get selkey] three
        $c flushall
        $c close
    }

    test {QUIT replies OK, closes, and skips pipelined commands after it} {
        set s [raw_connect]
        raw_write $s "SET quitkey 1\r\nQUIT\r\nSET quitkey 2\r\n"
        assert_equal [raw_read_line $s] +OK
        assert_equal [raw_read_line $s] +OK
        assert_equal [raw_is_closed $s] 1
        raw_close $s
        set c [::redis::redis [srv host] [srv port]]
        assert_equal [$c get quitkey] 1
        $c del quitkey
        $c close
    }

    test {QUIT ignores extra arguments} {
        set s [raw_connect]
        raw_write $s "QUIT now please\r\n"
        assert_equal [raw_read_line $s] +OK
        assert_equal [raw_is_closed $s] 1
        raw_close $s
    }

    test {RESET replies RESET and restores the connection defaults} {
        set c [redis_client]
        $c select 5
        $c client setname resetme
        $c multi
        assert_equal [$c reset] RESET
        assert_equal [$c client getname] {}
        assert_match {* db=0 *} [$c client info]
        assert_error {ERR EXEC without MULTI} {$c exec}
        $c close
    }

    tags {pubsub} {
        test {RESET returns to RESP2 and leaves subscriptions} {
            set rd [redis_deferring_client]
            $rd hello 3
            $rd read
            $rd subscribe chan
            assert_equal [$rd read] {subscribe chan 1}
            $rd reset
            assert_equal [$rd read] RESET
            assert_equal [r publish chan msg] 0
            $rd readraw 1
            $rd get nokey
            assert_equal [$rd read] {$-1}
            $rd close
        }
    }

    test {AUTH without a configured password} {
        assert_error {ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?} {
            r auth foo
        }
        assert_error {WRONGPASS invalid username-password pair or user is disabled.} {
            r auth nosuchuser wrong
        }
        # The default user has no password: any password is accepted.
        assert_equal [r auth default anything] OK
        assert_error {ERR syntax error} {r auth a b c}
        assert_error {ERR wrong number of arguments for 'auth' command} {r auth}
    }

    test {HELLO SETNAME sets the name and rejects bad names} {
        set c [redis_client]
        $c hello 2 setname helloname
        assert_equal [$c client getname] helloname
        assert_error {ERR Client names cannot contain spaces, newlines or special characters.} {
            $c hello 3 setname "a b"
        }
        assert_equal [$c client getname] helloname
        $c close
    }

    test {HELLO applies SETNAME as it parses: a later bad option leaves the name set} {
        set c [redis_client]
        assert_error {ERR Syntax error in HELLO option 'SETNAME'} {$c hello 2 setname early SETNAME}
        assert_equal [$c client getname] early
        assert_error {ERR Client names cannot contain*} {$c hello 3 setname second setname "a b"}
        assert_equal [$c client getname] second
        assert_equal [$c ping] PONG "the protocol stayed RESP2"
        $c close
    }

    test {200 concurrent clients each see their own commands} {
        set clients {}
        for {set i 0} {$i < 200} {incr i} {
            set c [redis_deferring_client]
            lappend clients $c
            $c set client:$i $i
        }
        foreach c $clients {
            assert_equal [$c read] OK
        }
        assert_morethan_equal [s connected_clients] 201
        set i 0
        foreach c $clients {
            $c incr shared
            $c get client:$i
            incr i
        }
        set seen {}
        set i 0
        foreach c $clients {
            lappend seen [$c read]
            assert_equal [$c read] $i
            incr i
        }
        set expected {}
        for {set i 1} {$i <= 200} {incr i} {lappend expected $i}
        assert_equal [lsort -integer $seen] $expected "every INCR saw a distinct value"
        assert_equal [r get shared] 200
        foreach c $clients {$c close}
        wait_for_connected_clients 1
    }
}

start_server {tags {connection auth external:skip} overrides {requirepass secret}} {
    test {Commands need AUTH when requirepass is set} {
        set c [::redis::redis [srv host] [srv port]]
        assert_error {NOAUTH Authentication required.} {$c ping}
        assert_error {NOAUTH Authentication required.} {$c get x}
        # EXEC's rejections go through Redis's transaction-abort path, MULTI or not.
        assert_error {EXECABORT Transaction discarded because of: NOAUTH Authentication required.} {
            $c exec
        }
        assert_error {WRONGPASS invalid username-password pair or user is disabled.} {
            $c auth wrong
        }
        assert_error {WRONGPASS invalid username-password pair or user is disabled.} {
            $c auth default wrong
        }
        assert_equal [$c auth secret] OK
        assert_equal [$c ping] PONG
        assert_equal [$c auth default secret] OK
        $c close
    }

    test {HELLO before AUTH is refused unless it authenticates} {
        set c [::redis::redis [srv host] [srv port]]
        assert_error {NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time} {
            $c hello 3
        }
        assert_error {WRONGPASS invalid username-password pair or user is disabled.} {
            $c hello 3 auth default wrong
        }
        assert_error {ERR Syntax error in HELLO option 'auth'} {$c hello 3 auth default}
        set info [$c hello 3 auth default secret setname authed]
        assert_equal [dict get $info proto] 3
        assert_equal [$c client getname] authed
        assert_equal [$c ping] PONG
        $c close
    }

    test {RESET drops the authentication} {
        set c [::redis::redis [srv host] [srv port]]
        $c auth secret
        assert_equal [$c ping] PONG
        assert_equal [$c reset] RESET
        assert_error {NOAUTH Authentication required.} {$c ping}
        $c close
    }

    test {Unauthenticated clients may still QUIT} {
        set s [raw_connect]
        raw_write $s "QUIT\r\n"
        assert_equal [raw_read_line $s] +OK
        assert_equal [raw_is_closed $s] 1
        raw_close $s
    }
}

start_server {tags {connection timeout slow} overrides {timeout 1}} {
    test {An idle client is closed after the timeout} {
        set s [raw_connect]
        raw_write $s "PING\r\n"
        assert_equal [raw_read_line $s] +PONG
        set start [clock milliseconds]
        assert_equal [raw_is_closed $s 6000] 1 "idle client closed"
        assert_morethan_equal [expr {[clock milliseconds] - $start}] 900
        raw_close $s
    }

    tags {pubsub} {
        test {A subscribed client is not closed by the idle timeout} {
            set rd [redis_deferring_client]
            $rd subscribe chan
            assert_equal [$rd read] {subscribe chan 1}
            after 2500
            set c [redis_client]
            assert_equal [$c publish chan still-here] 1
            assert_equal [$rd read] {message chan still-here}
            $c close
            $rd close
        }
    }

    test {timeout 0 keeps idle clients forever} {
        set c [redis_client]
        $c config set timeout 0
        set s [raw_connect]
        assert_equal [raw_is_closed $s 2500] 0
        raw_write $s "PING\r\n"
        assert_equal [raw_read_line $s] +PONG
        raw_close $s
        $c close
    } {} {needs:config}
}

start_server {tags {connection maxclients external:skip} overrides {maxclients 10}} {
    test {Clients beyond maxclients get an error and are closed} {
        # The default client is connected already: nine more fit.
        set socks {}
        for {set i 0} {$i < 9} {incr i} {
            set s [raw_connect]
            raw_write $s "PING\r\n"
            assert_equal [raw_read_line $s] +PONG
            lappend socks $s
        }
        set extra [raw_connect]
        assert_equal [raw_read_line $extra] {-ERR max number of clients reached}
        assert_equal [raw_is_closed $extra] 1
        raw_close $extra
        assert_equal [r ping] PONG
        # Freeing a slot lets a new client in.
        raw_close [lindex $socks 0]
        set socks [lrange $socks 1 end]
        wait_for_connected_clients 9
        set s [raw_connect]
        raw_write $s "PING\r\n"
        assert_equal [raw_read_line $s] +PONG
        lappend socks $s
        foreach s $socks {raw_close $s}
    }

    test {maxclients can be changed at runtime} {
        r config set maxclients 2
        set s [raw_connect]
        raw_write $s "PING\r\n"
        assert_equal [raw_read_line $s] +PONG
        set extra [raw_connect]
        assert_equal [raw_read_line $extra] {-ERR max number of clients reached}
        raw_close $extra
        raw_close $s
        r config set maxclients 10
        assert_equal [r config get maxclients] {maxclients 10}
    } {} {needs:config}
}
