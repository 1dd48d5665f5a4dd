# DEBUG: the enable-debug-command gate, HELP, DIGEST and DIGEST-VALUE (Redis's
# exact SHA1 signatures), OBJECT, SLEEP, LOG, SET-ACTIVE-EXPIRE, POPULATE,
# ERROR, and the error texts for bad subcommands.

start_server {tags {debug needs:debug}} {
    test {DEBUG HELP lists the subcommands; extra arguments are an error} {
        set help [r debug help]
        assert_match {DEBUG <subcommand> *} [lindex $help 0]
        foreach sub {DIGEST DIGEST-VALUE OBJECT SLEEP SET-ACTIVE-EXPIRE HELP} {
            assert {[lsearch -glob $help "$sub*"] >= 0}
        }
        assert_error {ERR unknown subcommand or wrong number of arguments for 'help'. Try DEBUG HELP.} \
            {r debug help extra}
    }

    test {Unknown subcommands and wrong argument counts share one error} {
        assert_error {ERR unknown subcommand or wrong number of arguments for 'nosuchsub'. Try DEBUG HELP.} \
            {r debug nosuchsub}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'Object'. Try DEBUG HELP.} \
            {r debug Object}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG HELP.} \
            {r debug sleep}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'digest'. Try DEBUG HELP.} \
            {r debug digest extra}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'jmap'. Try DEBUG HELP.} \
            {r debug jmap}
        assert_error {ERR wrong number of arguments for 'debug' command} {r debug}
    }

    test {DEBUG DIGEST of an empty dataset is forty zeros} {
        r flushall
        assert_equal [r debug digest] [string repeat 0 40]
    }

    test {DEBUG DIGEST matches Redis's signature of a known dataset} {
        r flushall
        r select 9
        r set foo bar
        r set n 42
        r expire n 100
        assert_equal [r debug digest] d9476cc719341b32f361232155ac938caccea744
        r select [srv db]
    }

    test {DEBUG DIGEST ignores insertion order and sees every change} {
        r flushall
        r set a 1
        r set b 2
        set d1 [r debug digest]
        r flushall
        r set b 2
        r set a 1
        assert_equal [r debug digest] $d1
        r set a 3
        assert_not_equal [r debug digest] $d1
        r set a 1
        assert_equal [r debug digest] $d1
        # A TTL is part of the signature, its value is not.
        r expire a 1000
        set with_ttl [r debug digest]
        assert_not_equal $with_ttl $d1
        r expire a 2000
        assert_equal [r debug digest] $with_ttl
        r persist a
        assert_equal [r debug digest] $d1
    }

    test {DEBUG DIGEST depends on the database a key lives in} {
        r flushall
        r select 9
        r set k v
        set in9 [r debug digest]
        r flushall
        r select 10
        r set k v
        assert_not_equal [r debug digest] $in9
        r select [srv db]
    }

    test {DEBUG DIGEST-VALUE hashes values only, zeros for a missing key} {
        r flushall
        r set k1 bar
        r set k2 bar
        r set k3 other
        set d [r debug digest-value k1 k2 k3 missing]
        assert_equal [llength $d] 4
        assert_equal [lindex $d 0] 68467c70ae30376e7ce005bcc8827f5ba7fd67dc
        assert_equal [lindex $d 1] [lindex $d 0]
        assert_not_equal [lindex $d 2] [lindex $d 0]
        assert_equal [lindex $d 3] [string repeat 0 40]
        assert_equal [r debug digest-value] {}
    }

    test {DEBUG OBJECT reports address, refcount, encoding, serialized length, LRU} {
        r set s bar
        set o [r debug object s]
        assert_match {Value at:0x* refcount:1 encoding:embstr serializedlength:4 lru:* lru_seconds_idle:*} $o
        assert {[regexp {^Value at:0x[0-9a-f]+ refcount:1 encoding:embstr serializedlength:4 lru:\d+ lru_seconds_idle:\d+$} $o]}
        r set big [string repeat x 50]
        assert_match {* encoding:raw serializedlength:* lru:*} [r debug object big]
        assert_error {ERR no such key} {r debug object missing}
    }

    test {DEBUG OBJECT: small integers report a shared object} {
        r set n 123
        assert_match {* refcount:2147483647 encoding:int serializedlength:2 *} [r debug object n]
        r set n 100000
        assert_match {* refcount:1 encoding:int serializedlength:5 *} [r debug object n]
    }

    test {DEBUG OBJECT serializedlength follows RDB's integer and length forms} {
        foreach {value len} {-5 2 127 2 128 3 -32768 3 32768 5 -2147483648 5
                             2147483648 11 123456789012 13 abc 4} {
            r set v $value
            assert_match "* serializedlength:$len *" [r debug object v] "value $value"
        }
        # Strings of distinct bytes (nothing for LZF to compress): 1-byte length
        # prefix below 64 bytes, 2 bytes from 64 on.
        set distinct 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_
        r set v [string range $distinct 0 62]
        assert_match {* serializedlength:64 *} [r debug object v]
        r set v $distinct
        assert_match {* serializedlength:66 *} [r debug object v]
    }

    test {DEBUG OBJECT lru_seconds_idle grows while the key is untouched} {
        r set idle v
        after 2100
        regexp {lru_seconds_idle:(\d+)} [r debug object idle] -> secs
        assert_range $secs 1 4
    } {} {slow}

    test {DEBUG SLEEP blocks the whole server} {
        set rd [redis_deferring_client]
        set start [clock milliseconds]
        $rd debug sleep 0.3
        after 50
        assert_equal [r ping] PONG
        set elapsed [expr {[clock milliseconds] - $start}]
        assert_morethan_equal $elapsed 280
        assert_equal [$rd read] OK
        $rd close
    }

    test {DEBUG SLEEP reads its argument like strtod} {
        assert_lessthan [elapsed_ms {assert_equal [r debug sleep abc] OK}] 200
        assert_lessthan [elapsed_ms {assert_equal [r debug sleep -1] OK}] 200
        assert_equal [r debug sleep 0] OK
    }

    test {DEBUG LOG writes the message to the server log} {
        assert_equal [r debug log "hello from debug.tcl"] OK
        wait_for_log_message {*DEBUG LOG: hello from debug.tcl*}
    } {} {external:skip}

    test {DEBUG SET-ACTIVE-EXPIRE 0 stops background expiry; 1 restarts it} {
        r flushall
        r debug set-active-expire 0
        for {set i 0} {$i < 20} {incr i} {
            r set k$i v
            r pexpire k$i 50
        }
        after 300
        assert_equal [keyspace_keys] 20
        r debug set-active-expire 1
        wait_for_condition 100 20 {[keyspace_keys] == 0} else {
            fail "active expiry did not resume"
        }
    }

    test {DEBUG SET-ACTIVE-EXPIRE reads its argument like atoi} {
        r flushall
        r debug set-active-expire junk
        r set k v
        r pexpire k 20
        after 250
        assert_equal [keyspace_keys] 1
        r debug set-active-expire 7
        wait_for_condition 100 20 {[keyspace_keys] == 0} else {
            fail "a non-zero value did not enable active expiry"
        }
    }

    test {DEBUG PAUSE-CRON 1 stops the periodic tasks; 0 restarts them} {
        r flushall
        assert_equal OK [r debug pause-cron 1]
        for {set i 0} {$i < 20} {incr i} {
            r set k$i v
            r pexpire k$i 50
        }
        after 300
        assert_equal [keyspace_keys] 20
        assert_equal OK [r debug pause-cron 0]
        wait_for_condition 100 20 {[keyspace_keys] == 0} else {
            fail "the cron did not resume"
        }
        assert_error {ERR unknown subcommand or wrong number of arguments for 'pause-cron'. Try DEBUG HELP.} \
            {r debug pause-cron}
    }

    test {DEBUG POPULATE creates missing keys and leaves existing ones} {
        r flushall
        r set key:1 mine
        assert_equal [r debug populate 3] OK
        assert_equal [r dbsize] 3
        assert_equal [r get key:0] value:0
        assert_equal [r get key:1] mine
        assert_equal [r get key:2] value:2
        assert_equal [r debug populate 0] OK
        assert_equal [r dbsize] 3
    }

    test {DEBUG POPULATE with a prefix and a size cuts or zero-pads values} {
        r flushall
        r debug populate 2 p 3
        assert_equal [r get p:1] val
        r debug populate 1 q 10
        assert_equal [r get q:0] "value:0\x00\x00\x00"
        r debug populate 1 w 0
        assert_equal [r get w:0] value:0
        r debug populate 1 raw 100
        assert_equal [string length [r get raw:0]] 100
        assert_match {* encoding:raw *} [r debug object raw:0]
    }

    test {DEBUG POPULATE errors} {
        assert_error {ERR value is out of range, must be positive} {r debug populate -1}
        assert_error {ERR value is out of range, must be positive} {r debug populate abc}
        assert_error {ERR value is out of range, must be positive} {r debug populate 1 p -1}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'populate'. Try DEBUG HELP.} \
            {r debug populate 1 a 2 extra}
    }

    test {DEBUG ERROR replies with the given error, outside the error statistics} {
        set before [s total_error_replies]
        assert_error {MYERR custom failure} {r debug error "MYERR custom failure"}
        assert_error {lower case text} {r debug error "lower case text"}
        assert_equal [s total_error_replies] $before
        assert_no_match {*errorstat_MYERR*} [r info errorstats]
    }
}

start_server {tags {debug} overrides {enable-debug-command no}} {
    test {DEBUG is refused when enable-debug-command is no} {
        set msg {ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.}
        catch {r debug help} e
        assert_equal $e $msg
        catch {r debug object foo} e
        assert_equal $e $msg
    }

    test {DEBUG is refused when queued in MULTI, and a script may not call it} {
        set msg {ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.}
        r multi
        catch {r debug sleep 0} e
        assert_equal $e $msg
        assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
        assert_error {*This Redis command is not allowed from script*} \
            {r eval {return redis.call('debug', 'sleep', '0')} 0}
        assert_error {*This Redis command is not allowed from script*} \
            {r eval {return redis.pcall('debug', 'help')} 0}
    }

    test {enable-debug-command cannot be changed at run time} {
        assert_error {*immutable*} {r config set enable-debug-command yes}
        assert_equal [r config get enable-debug-command] {enable-debug-command no}
    } {} {needs:config}
}

start_server {tags {debug} overrides {enable-debug-command local}} {
    test {enable-debug-command local lets loopback clients use DEBUG} {
        assert_equal [r debug sleep 0] OK
        assert_match {DEBUG <subcommand> *} [lindex [r debug help] 0]
    }
}

# A non-loopback address of this machine, or "" when it has none: a connection to it is not
# local, which enable-debug-command local refuses.
proc debug_outside_address {} {
    if {[catch {exec hostname -I} out]} {return ""}
    foreach a [split [string trim $out]] {
        if {[regexp {^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$} $a] && ![string match 127.* $a]} {
            return $a
        }
    }
    return ""
}

set outside [debug_outside_address]
if {$outside eq ""} {
    skip_test {enable-debug-command local refuses a connection that is not local} \
        {this machine has no address besides loopback}
} else {
    start_server [list tags {debug external:skip} overrides [list enable-debug-command local protected-mode no bind "127.0.0.1 $outside"]] {
        test {enable-debug-command local refuses a connection that is not local} {
            set msg {ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.}
            set c [::redis::redis $outside [srv 0 port] 0 "" [::server::tls_of 0]]
            catch {$c debug sleep 0} e
            assert_equal $e $msg
            $c multi
            catch {$c debug sleep 0} e
            assert_equal $e $msg
            assert_error {EXECABORT*} {$c exec}
            # The same server answers a loopback connection.
            assert_equal [r debug sleep 0] OK
            $c close
        }
    }
}

start_server {tags {debug needs:debug}} {
    test {DEBUG HTSTATS shows a database's key table and its TTL index} {
        r select 9
        r flushdb
        set empty [split [r debug htstats 9] \n]
        assert_equal [list {[Dictionary HT]} {Hash table 0 stats (main hash table):} \
            {No stats available for empty dictionaries} {[Expires HT]} \
            {Hash table 0 stats (main hash table):} \
            {No stats available for empty dictionaries} {}] $empty
        for {set i 0} {$i < 100} {incr i} {r set key:$i v}
        r set ttl:1 v ex 100
        set lines [split [r debug htstats 9] \n]
        assert_equal {[Dictionary HT]} [lindex $lines 0]
        assert_equal { number of elements: 101} [lindex $lines 3]
        assert_match { table size: *} [lindex $lines 2]
        foreach field {{different slots} {max chain length} {avg chain length (counted)}
                       {Chain length distribution}} {
            assert {[lsearch -glob $lines " $field:*"] > 0}
        }
        set expires [lsearch -exact $lines {[Expires HT]}]
        assert {$expires > 0}
        assert_equal { number of elements: 1} [lindex $lines [expr {$expires + 3}]]
        r flushdb
    }

    test {DEBUG HTSTATS errors} {
        assert_error {ERR Out of range database} {r debug htstats 16}
        assert_error {ERR Out of range database} {r debug htstats -1}
        assert_error {ERR value is not an integer or out of range} {r debug htstats abc}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'htstats'. Try DEBUG HELP.} \
            {r debug htstats 0 extra}
    }
}
