# A connection's query buffer (qbuf + qbuf-free in CLIENT LIST): it grows to hold a big
# argument, and the clients cron gives the room back, as Redis 7.0 does: all of it once the
# connection sent nothing for two seconds, and, while it is active, the part beyond its recent
# peak when the buffer is over 32 KB and more than twice that peak.

# qbuf + qbuf-free of the connection named `name` (the bytes its query buffer holds).
proc query_buf_size {name} {
    foreach line [split [r client list] "\r\n"] {
        if {[string match "*name=$name *" $line]} {
            regexp {qbuf=([0-9]+)} $line - used
            regexp {qbuf-free=([0-9]+)} $line - free
            return [expr {$used + $free}]
        }
    }
    return -1
}

proc idle_of {name} {
    foreach line [split [r client list] "\r\n"] {
        if {[string match "*name=$name *" $line]} {
            regexp {idle=([0-9]+)} $line - idle
            return $idle
        }
    }
    return -1
}

start_server {tags {querybuf}} {
    test {An idle connection's query buffer is given back} {
        set c [redis_client]
        $c client setname idler
        # A read buffer of 16 KB or more, not the size of a big argument.
        set size [query_buf_size idler]
        assert_range $size 16384 32767
        wait_for_condition 100 100 {
            [idle_of idler] >= 2 && [query_buf_size idler] == 0
        } else {
            fail "the idle query buffer was kept: [query_buf_size idler]"
        }
        $c close
    }

    test {The room a big argument left is given back while the connection is active} {
        r debug pause-cron 1
        set c [redis_client]
        $c client setname big
        $c set k [string repeat A 300000]
        # The buffer that held the argument outlives the command.
        set grown [query_buf_size big]
        assert {$grown > 32768}
        r debug pause-cron 0
        # Far more than its recent peak: the cron shrinks it before the connection is idle.
        wait_for_condition 100 20 {
            [query_buf_size big] < $grown
        } else {
            fail "the query buffer was not shrunk: [query_buf_size big]"
        }
        assert {[idle_of big] < 2}
        # An active connection keeps a read buffer; only idleness frees it.
        $c ping
        assert {[query_buf_size big] > 0 && [query_buf_size big] < 32768}
        assert_equal 300000 [$c strlen k]
        $c close
    } {} {needs:debug}

    test {A big argument arriving in pieces survives the cron} {
        set c [redis_deferring_client]
        $c client setname slow
        $c read
        set payload [string repeat B 200000]
        # Half the argument, then enough cron runs to shrink anything shrinkable.
        $c write "*3\r\n\$3\r\nSET\r\n\$3\r\nkp2\r\n\$200000\r\n[string range $payload 0 99999]"
        $c flush
        after 500
        $c write "[string range $payload 100000 end]\r\n"
        $c flush
        assert_equal OK [$c read]
        assert_equal $payload [r get kp2]
        $c close
    }
}

start_server {tags {querybuf external:skip} overrides {client-query-buffer-limit 1mb}} {
    test {client-query-buffer-limit closes the client with a log line} {
        set c [redis_deferring_client]
        # A bulk argument of 2 MB (under proto-max-bulk-len) of which 1.2 MB arrived.
        # The server may close the connection before the client has written everything.
        catch {
            $c write "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$2000000\r\n[string repeat x 1200000]"
            $c flush
        }
        wait_for_condition 100 50 {
            [llength [split [string trim [r client list]] "\n"]] == 1
        } else {
            fail "the client was not closed"
        }
        wait_for_condition 100 50 {
            [string match "*Closing client that reached max query buffer length*" [exec cat [srv 0 stdout]]]
        } else {
            fail "no log line"
        }
        catch {$c close}
    }
}
