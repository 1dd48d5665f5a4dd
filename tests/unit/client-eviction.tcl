# Client eviction (maxmemory-clients): when the connections together hold more memory than the
# limit, the server closes the biggest ones until the total is under it again, counts each in
# INFO's evicted_clients, and spares connections with CLIENT NO-EVICT on. A connection's memory
# is what CLIENT LIST shows as tot-mem: its query buffer (a big argument still arriving), its
# unread replies, its MULTI queue, its WATCHed keys, its subscriptions. Absolute figures differ
# between servers, so every test sizes the limit from the tot-mem values the server reports.

# The CLIENT LIST line of the connection named `name`, or "" when there is none.
proc ce_line {name} {
    foreach line [split [r client list] "\n"] {
        if {[client_field $line name] eq $name} { return $line }
    }
    return ""
}

proc ce_exists {name} { expr {[ce_line $name] ne ""} }

proc ce_mem {name} { client_field [ce_line $name] tot-mem }

# Sum of tot-mem over every connection.
proc ce_total {} {
    set total 0
    foreach line [split [string trim [r client list]] "\n"] {
        incr total [client_field $line tot-mem]
    }
    return $total
}

# A raw connection named `name` that has announced a SET whose value is `bytes` long and sent
# only its first kilobyte: the server holds a query buffer for the whole value meanwhile.
proc ce_partial_set {name bytes} {
    set s [raw_connect]
    raw_write $s "*3\r\n\$6\r\nCLIENT\r\n\$7\r\nSETNAME\r\n\$[string length $name]\r\n$name\r\n"
    gets $s
    raw_write $s "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$$bytes\r\n"
    after 50
    raw_write $s [string repeat x 1024]
    wait_for_condition 200 10 {
        [ce_exists $name] && [ce_mem $name] > $bytes / 2
    } else {
        fail "the partial argument of $name does not show in tot-mem"
    }
    return $s
}

# Waits until the named connection is gone.
proc ce_wait_gone {name} {
    wait_for_condition 200 20 {
        ![ce_exists $name]
    } else {
        fail "$name was not evicted"
    }
}

start_server {tags {client-eviction}} {
    r client setname control
    r client no-evict on

    test {A client whose big argument is still arriving is evicted when over the limit} {
        r config resetstat
        set s [ce_partial_set big 1000000]
        r config set maxmemory-clients 500000
        ce_wait_gone big
        assert_equal 1 [s evicted_clients]
        assert_equal PONG [r ping]
        close $s
        r config set maxmemory-clients 0
    }

    test {A client holding unread replies is evicted} {
        r config resetstat
        r set bigval [string repeat v 100000]
        set rd [redis_deferring_client]
        $rd client setname reader
        $rd read
        r config set maxmemory-clients 2000000
        # Ask for 50 copies of the value and never read them.
        for {set i 0} {$i < 50} {incr i} { $rd get bigval }
        $rd flush
        ce_wait_gone reader
        assert_equal 1 [s evicted_clients]
        $rd close
        r config set maxmemory-clients 0
        r del bigval
    }

    test {A client with a long MULTI queue is evicted} {
        r config resetstat
        set rd [redis_deferring_client]
        $rd client setname queuer
        $rd read
        r config set maxmemory-clients 1000000
        $rd multi
        $rd read
        set arg [string repeat q 10000]
        # 200 queued commands of 10 KB each exceed the limit.
        # The server may close the connection while the commands are still being written.
        for {set i 0} {$i < 200} {incr i} { catch {$rd set q $arg} }
        catch {$rd flush}
        ce_wait_gone queuer
        assert {[s evicted_clients] >= 1}
        assert_equal 0 [r exists q]
        $rd close
        r config set maxmemory-clients 0
    }

    test {A client watching many keys is evicted} {
        r config resetstat
        set rd [redis_deferring_client]
        $rd client setname watcher
        $rd read
        r config set maxmemory-clients 300000
        # At most 40 rounds of 2000 keys: far past the limit on any server.
        for {set round 0} {$round < 40 && [ce_exists watcher]} {incr round} {
            set keys {}
            for {set i 0} {$i < 2000} {incr i} { lappend keys w$round.$i }
            if {[catch {$rd watch {*}$keys; $rd read}]} break
        }
        ce_wait_gone watcher
        assert {[s evicted_clients] >= 1}
        $rd close
        r config set maxmemory-clients 0
    }

    test {A client subscribed to many channels is evicted} {
        r config resetstat
        set rd [redis_deferring_client]
        $rd client setname subscriber
        $rd read
        r config set maxmemory-clients 500000
        set prefix [string repeat c 500]
        for {set round 0} {$round < 40 && [ce_exists subscriber]} {incr round} {
            set chans {}
            for {set i 0} {$i < 500} {incr i} { lappend chans $prefix.$round.$i }
            $rd subscribe {*}$chans
            $rd flush
            after 20
        }
        ce_wait_gone subscriber
        assert {[s evicted_clients] >= 1}
        $rd close
        r config set maxmemory-clients 0
    }

    test {CLIENT NO-EVICT on spares a client while another one is evicted} {
        r config resetstat
        set s [ce_partial_set spared 1000000]
        set raw_ne "*3\r\n\$6\r\nCLIENT\r\n\$8\r\nNO-EVICT\r\n\$2\r\nON\r\n"
        # The named client is mid-argument, so NO-EVICT is set on a second connection that
        # then grows the same way.
        set s2 [raw_connect]
        raw_write $s2 "*3\r\n\$6\r\nCLIENT\r\n\$7\r\nSETNAME\r\n\$7\r\nspared2\r\n"
        gets $s2
        raw_write $s2 $raw_ne
        gets $s2
        raw_write $s2 "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$1000000\r\n"
        after 50
        raw_write $s2 [string repeat x 1024]
        wait_for_condition 200 10 {
            [ce_mem spared2] > 500000
        } else {
            fail "spared2 did not grow"
        }
        assert_match {*e*} [client_field [ce_line spared2] flags]
        r config set maxmemory-clients 1500000
        ce_wait_gone spared
        assert [ce_exists spared2]
        assert_equal 1 [s evicted_clients]
        close $s
        close $s2
        r config set maxmemory-clients 0
    }

    test {CLIENT NO-EVICT off makes a grown client evictable again} {
        r config resetstat
        r set bigval [string repeat v 100000]
        set rd [redis_deferring_client]
        $rd client setname protected
        $rd read
        $rd client no-evict on
        $rd read
        r config set maxmemory-clients 2000000
        # Unread replies well past the limit (20 MB asked, more than the socket buffers take):
        # spared while NO-EVICT is on.
        for {set i 0} {$i < 200} {incr i} { $rd get bigval }
        $rd flush
        wait_for_condition 200 10 {
            [ce_mem protected] > 2000000
        } else {
            fail "the replies did not accumulate"
        }
        after 300
        assert [ce_exists protected]
        assert_equal 0 [s evicted_clients]
        $rd client no-evict off
        $rd flush
        ce_wait_gone protected
        assert_equal 1 [s evicted_clients]
        $rd close
        r config set maxmemory-clients 0
        r del bigval
    }

    test {With maxmemory-clients 0 a client may grow without being evicted} {
        r config resetstat
        set s [ce_partial_set free 2000000]
        assert [ce_exists free]
        assert_equal 0 [s evicted_clients]
        close $s
    }

    test {A lower maxmemory-clients evicts at once; a percentage of maxmemory works too} {
        r config resetstat
        set s [ce_partial_set pct 1000000]
        r config set maxmemory-clients 10000000
        after 200
        assert [ce_exists pct]
        # 10% of 5 MB is 500 KB, under what pct holds.
        r config set maxmemory 5000000
        r config set maxmemory-clients 10%
        ce_wait_gone pct
        assert_equal 1 [s evicted_clients]
        close $s
        r config set maxmemory-clients 0
        r config set maxmemory 0
    }

    test {Clients are evicted largest first, and only until the total is under the limit} {
        r config resetstat
        set small [ce_partial_set small 200000]
        set medium [ce_partial_set medium 600000]
        set large [ce_partial_set large 1200000]
        set total [ce_total]
        set lm [ce_mem large]
        set mm [ce_mem medium]
        # Room for everything but half of the largest: only the largest goes.
        r config set maxmemory-clients [expr {$total - $lm / 2}]
        ce_wait_gone large
        after 200
        assert [ce_exists medium]
        assert [ce_exists small]
        assert_equal 1 [s evicted_clients]
        # Now room for all but half of the medium one.
        set total [ce_total]
        r config set maxmemory-clients [expr {$total - $mm / 2}]
        ce_wait_gone medium
        after 200
        assert [ce_exists small]
        assert_equal 2 [s evicted_clients]
        foreach s [list $small $medium $large] { catch {close $s} }
        r config set maxmemory-clients 0
    }

    test {A client closed by its output buffer limit is not counted as evicted} {
        r config resetstat
        r config set client-output-buffer-limit {normal 200000 0 0}
        r config set maxmemory-clients 3000000
        r set bigval [string repeat v 100000]
        set rd [redis_deferring_client]
        $rd client setname obuf
        $rd read
        # The server may close the connection before all 50 are sent.
        catch {
            for {set i 0} {$i < 50} {incr i} { $rd get bigval }
            $rd flush
        }
        ce_wait_gone obuf
        assert_equal 0 [s evicted_clients]
        $rd close
        r config set maxmemory-clients 0
        r config set client-output-buffer-limit {normal 0 0 0}
        r del bigval
    }
}

start_server {tags {client-eviction}} {
    r client setname control
    r client no-evict on

    test {Under maxmemory, connections that fill memory with replies go before any key} {
        r config resetstat
        set value [string repeat k 10000]
        for {set i 0} {$i < 100} {incr i} { r set key$i $value }
        set keys {}
        for {set i 0} {$i < 100} {incr i} { lappend keys key$i }
        r config set maxmemory-policy allkeys-random
        r config set maxmemory [expr {[s used_memory] + 4000000}]
        r config set maxmemory-clients 2000000
        # Five connections ask for 1 MB replies without reading them; at most 40 each.
        set clients {}
        for {set n 0} {$n < 5} {incr n} {
            set rd [redis_deferring_client]
            lappend clients $rd
            for {set i 0} {$i < 40} {incr i} { catch {$rd mget {*}$keys} }
            catch {$rd flush}
        }
        wait_for_condition 200 20 {
            [s evicted_clients] > 0
        } else {
            fail "no client was evicted"
        }
        assert_equal 0 [s evicted_keys]
        assert_equal 100 [r dbsize]
        foreach rd $clients { catch {$rd close} }
        r config set maxmemory 0
        r config set maxmemory-clients 0
        r config set maxmemory-policy noeviction
    }
}

# Memory that grows without a command of the client that holds it: invalidations written to a
# redirect target, and BCAST prefixes.
start_server {tags {client-eviction}} {
    r client setname control
    r client no-evict on

    test {A redirect target filled by invalidations is evicted without the cron} {
        set target [redis_deferring_client]
        $target client setname redirected
        $target read
        $target client id
        set id [$target read]
        $target subscribe __redis__:invalidate
        $target read
        set tracker [redis_client]
        $tracker client tracking on redirect $id bcast
        # Every change of this 200 KB key sends its name to the target, which never reads.
        set long_key [string repeat k [expr {200 * 1024}]]
        set sha [$tracker script load "redis.call('incr', '$long_key')"]
        r config set maxmemory-clients 3mb
        # The cron must not be what notices: the write of the invalidation does.
        r debug pause-cron 1
        set evicted 0
        for {set i 0} {$i < 200} {incr i} {
            if {![ce_exists redirected]} {
                set evicted 1
                break
            }
            assert {[ce_mem redirected] < 3 * 1024 * 1024}
            $tracker evalsha $sha 0
        }
        r debug pause-cron 0
        assert_equal 1 $evicted
        assert {[s evicted_clients] >= 1}
        r config set maxmemory-clients 0
        $tracker close
        catch {$target close}
    } {} {needs:debug needs:config}

    test {A client with many tracking prefixes is evicted} {
        set c [redis_client]
        $c client setname prefixes
        set prefixes {}
        for {set i 0} {$i < 2000} {incr i} {
            lappend prefixes prefix [format "p%05d:%s" $i [string repeat x 100]]
        }
        set base [ce_mem prefixes]
        $c client tracking on bcast {*}$prefixes
        set mem [ce_mem prefixes]
        # 2000 prefixes of 107 bytes count in its memory.
        assert {$mem > $base + 100000}
        r config set maxmemory-clients [expr {[ce_total] - $mem / 2}]
        # The next command of the client counts it again and evicts it.
        catch {$c ping}
        ce_wait_gone prefixes
        r config set maxmemory-clients 0
        catch {$c close}
    } {} {needs:config}
}
