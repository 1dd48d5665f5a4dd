# SLOWLOG: what is recorded (threshold, max length, argument trimming,
# redaction), the entry layout, GET/LEN/RESET and the container's errors.

start_server {tags {slowlog}} {
    test {Nothing is logged under the threshold} {
        r config set slowlog-log-slower-than 1000000
        r slowlog reset
        r ping
        r set fast 1
        # Only the RESET itself can be slow enough; nothing here is.
        assert_equal 0 [r slowlog len]
        assert_equal {} [r slowlog get]
    }

    test {With a threshold of 0 every command is logged, newest first} {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r set slowkey value
        r get slowkey
        set entries [r slowlog get]
        # get, set, and the RESET that emptied the log.
        assert_equal 3 [llength $entries]
        assert_equal {get slowkey} [lindex $entries 0 3]
        assert_equal {set slowkey value} [lindex $entries 1 3]
        assert_equal {slowlog reset} [lindex $entries 2 3]
        set ids [list [lindex $entries 0 0] [lindex $entries 1 0] [lindex $entries 2 0]]
        assert {[lindex $ids 0] > [lindex $ids 1] && [lindex $ids 1] > [lindex $ids 2]}
    }

    test {A slowlog entry is id, time, duration, arguments, peer and name} {
        r slowlog reset
        r client setname slowclient
        r echo hello
        set e [lindex [r slowlog get 1] 0]
        assert_equal 6 [llength $e]
        lassign $e id time duration args peer name
        assert {[string is integer -strict $id]}
        assert_range $time [expr {[clock seconds] - 5}] [expr {[clock seconds] + 5}]
        assert {[string is integer -strict $duration] && $duration >= 0}
        assert_equal {echo hello} $args
        assert_equal [lindex [regexp -inline {addr=(\S+)} [r client info]] 1] $peer
        assert_equal slowclient $name
        r client setname ""
    }

    test {The client name is the one it has after the command ran} {
        r slowlog reset
        r client setname renamed
        assert_equal renamed [lindex [r slowlog get 1] 0 5]
        r client setname ""
        assert_equal {} [lindex [r slowlog get 1] 0 5]
    }

    test {A negative threshold disables the log} {
        r config set slowlog-log-slower-than -1
        r slowlog reset
        r set a 1
        r get a
        assert_equal 0 [r slowlog len]
        r config set slowlog-log-slower-than 0
    }

    test {Admin commands are logged too} {
        r slowlog reset
        r client list
        r config get slowlog-max-len
        set entries [r slowlog get 2]
        assert_equal {config get slowlog-max-len} [lindex $entries 0 3]
        assert_equal {client list} [lindex $entries 1 3]
    }

    test {Rejected commands are not logged} {
        r slowlog reset
        catch {r nosuchcommand} e
        catch {r get} e
        catch {r slowlog nosuch} e
        # Only the RESET is there.
        assert_equal 1 [r slowlog len]
    }

    test {SLOWLOG GET count: default 10, -1 for all, 0 for none} {
        r slowlog reset
        for {set i 0} {$i < 20} {incr i} {r ping}
        # Each SLOWLOG GET is itself logged once it has replied.
        assert_equal 21 [llength [r slowlog get -1]]
        assert_equal 22 [llength [r slowlog get 1000]]
        assert_equal 10 [llength [r slowlog get]]
        assert_equal 5 [llength [r slowlog get 5]]
        assert_equal {} [r slowlog get 0]
    }

    test {slowlog-max-len bounds the log} {
        r config set slowlog-max-len 10
        for {set i 0} {$i < 30} {incr i} {r ping}
        assert_equal 10 [r slowlog len]
        assert_equal 10 [llength [r slowlog get -1]]
        r config set slowlog-max-len 0
        r ping
        assert_equal 0 [r slowlog len]
        r config set slowlog-max-len 128
    }

    test {SLOWLOG RESET empties the log and ids keep growing} {
        r ping
        set before [lindex [r slowlog get 1] 0 0]
        assert_equal OK [r slowlog reset]
        set e [lindex [r slowlog get 1] 0]
        assert_equal {slowlog reset} [lindex $e 3]
        assert_morethan [lindex $e 0] $before
        assert_equal 2 [r slowlog len]
    }
}

start_server {tags {slowlog}} {
    test {Arguments beyond 32 are summarised, long ones trimmed to 128 bytes} {
        r config set slowlog-log-slower-than 0
        set many {}
        for {set i 1} {$i <= 40} {incr i} {lappend many a$i}
        r slowlog reset
        r del {*}$many
        set args [lindex [r slowlog get 1] 0 3]
        assert_equal 32 [llength $args]
        assert_equal del [lindex $args 0]
        assert_equal a30 [lindex $args 30]
        assert_equal {... (10 more arguments)} [lindex $args 31]

        r slowlog reset
        r set longvalue [string repeat x 200]
        set args [lindex [r slowlog get 1] 0 3]
        assert_equal "[string repeat x 128]... (72 more bytes)" [lindex $args 2]
        # Exactly 128 bytes is kept whole.
        r set longvalue [string repeat y 128]
        assert_equal [string repeat y 128] [lindex [r slowlog get 1] 0 3 2]
    }

    test {SLOWLOG redacts AUTH and HELLO AUTH credentials} {
        set c [redis_client]
        catch {$c auth justpassword} e
        assert_equal {auth (redacted)} [lindex [r slowlog get 1] 0 3]
        $c auth default anything
        assert_equal {auth (redacted) (redacted)} [lindex [r slowlog get 1] 0 3]
        $c hello 2 auth default secret setname slow-hello
        assert_equal {hello 2 auth (redacted) (redacted) setname slow-hello} \
            [lindex [r slowlog get 1] 0 3]
        $c close
    }

    test {SLOWLOG hides the user name and password of MIGRATE's AUTH and AUTH2} {
        # No key "nosuch" exists, so MIGRATE answers NOKEY without connecting anywhere.
        set port [srv port]
        r migrate 127.0.0.1 $port nosuch 0 1000 AUTH secret
        assert_equal "migrate 127.0.0.1 $port nosuch 0 1000 AUTH (redacted)" \
            [lindex [r slowlog get 1] 0 3]
        r migrate 127.0.0.1 $port "" 0 1000 copy AUTH2 someone secret auth other KEYS nosuch
        assert_equal [list migrate 127.0.0.1 $port {} 0 1000 copy \
                          AUTH2 (redacted) (redacted) auth (redacted) KEYS nosuch] \
            [lindex [r slowlog get 1] 0 3]
        # A missing value is a syntax error, and there is nothing to hide.
        catch {r migrate 127.0.0.1 $port nosuch 0 1000 AUTH} e
        assert_match {ERR syntax error*} $e
        assert_equal "migrate 127.0.0.1 $port nosuch 0 1000 AUTH" [lindex [r slowlog get 1] 0 3]
    }

    test {A slow command is logged with its duration} {
        r config set slowlog-log-slower-than 100000
        r slowlog reset
        r debug sleep 0.2
        r ping
        set entries [r slowlog get]
        assert_equal 1 [llength $entries] $entries
        set e [lindex $entries 0]
        assert_equal {debug sleep 0.2} [lindex $e 3]
        assert_range [lindex $e 2] 150000 2000000
        r config set slowlog-log-slower-than 0
    } {} {needs:debug}

    test {In a pipeline, each command's time starts when the one before it ended} {
        # One write carries the whole pipeline, so the server reads it at once. The commands
        # after the sleep start when the sleep ended: the key has expired for them, and their
        # own durations leave the sleep out.
        r config set slowlog-log-slower-than 100000
        r slowlog reset
        r config resetstat
        set cmds {{set pipe:k v px 100} {debug sleep 0.2} {exists pipe:k} {ping} {ping}}
        set raw ""
        foreach cmd $cmds {
            append raw "*[llength $cmd]\r\n"
            foreach a $cmd {append raw "\$[string length $a]\r\n$a\r\n"}
        }
        r write $raw
        r flush
        set replies {}
        foreach cmd $cmds {lappend replies [r read]}
        assert_equal {OK OK 0 PONG PONG} $replies
        set entries [r slowlog get]
        assert_equal 1 [llength $entries] $entries
        assert_equal {debug sleep 0.2} [lindex $entries 0 3]
        regexp {cmdstat_ping:calls=2,usec=([0-9]+),} [r info commandstats] -> ping_usec
        assert_range $ping_usec 0 99999
        r config set slowlog-log-slower-than 0
    } {} {needs:debug}

    test {SLOWLOG GET, LEN, RESET errors} {
        assert_error {ERR count should be greater than or equal to -1} {r slowlog get -2}
        assert_error {ERR count should be greater than or equal to -1} {r slowlog get abc}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP.} {
            r slowlog get 1 2
        }
        assert_error {ERR wrong number of arguments for 'slowlog|len' command} {r slowlog len x}
        assert_error {ERR wrong number of arguments for 'slowlog|reset' command} {
            r slowlog reset x
        }
        assert_error {ERR wrong number of arguments for 'slowlog' command} {r slowlog}
        assert_error {ERR unknown subcommand 'foo'. Try SLOWLOG HELP.} {r slowlog foo}
    }

    test {SLOWLOG HELP} {
        set help [r slowlog help]
        assert_match {SLOWLOG <subcommand>*} [lindex $help 0]
        foreach sub {GET LEN RESET HELP} {assert_match "*$sub*" $help}
    }
}

start_server {tags {slowlog}} {
    r config set slowlog-log-slower-than 0

    test {SLOWLOG redacts MIGRATE's AUTH and AUTH2 credentials} {
        r slowlog reset
        # Nothing listens on port 1 of this host: the migration fails, the entry remains.
        catch {r migrate 127.0.0.1 1 key 9 5000 AUTH secretpass}
        assert_match {migrate 127.0.0.1 1 key 9 5000 AUTH (redacted)} \
            [lindex [r slowlog get 1] 0 3]
        catch {r migrate 127.0.0.1 1 key 9 5000 AUTH2 someuser secretpass}
        assert_match {migrate 127.0.0.1 1 key 9 5000 AUTH2 (redacted) (redacted)} \
            [lindex [r slowlog get 1] 0 3]
        # After KEYS come key names, shown as they are.
        catch {r migrate 127.0.0.1 1 "" 9 5000 AUTH2 u p KEYS auth k2}
        assert_equal {migrate 127.0.0.1 1 {} 9 5000 AUTH2 (redacted) (redacted) KEYS auth k2} \
            [lindex [r slowlog get 1] 0 3]
    }

    test {SLOWLOG redacts the values of password parameters in CONFIG SET} {
        r slowlog reset
        r config set masterauth topsecret
        assert_equal {config set masterauth (redacted)} [lindex [r slowlog get 1] 0 3]
        r config set maxmemory 0 masterauth "" maxmemory-samples 5
        assert_equal {config set maxmemory 0 masterauth (redacted) maxmemory-samples 5} \
            [lindex [r slowlog get 1] 0 3]
        r config set slowlog-max-len 128
        assert_equal {config set slowlog-max-len 128} [lindex [r slowlog get 1] 0 3]
    } {} {needs:config}

    # Redis 7.0.15 shows the TLS key passphrases as given; redis-tp redacts them, as later Redis
    # releases do (docs/compatibility.md).
    tags {redistp} {
        test {SLOWLOG redacts the TLS key passphrases in CONFIG SET} {
            r slowlog reset
            r config set tls-key-file-pass sesame tls-client-key-file-pass sesame2
            assert_equal {config set tls-key-file-pass (redacted) tls-client-key-file-pass (redacted)} \
                [lindex [r slowlog get 1] 0 3]
            r config set tls-key-file-pass "" tls-client-key-file-pass ""
        } {OK} {needs:config}
    }

    test {SLOWLOG redacts masteruser and every argument of ACL SETUSER, not GETUSER or DELUSER} {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r config set masteruser someone
        r config set masteruser ""
        r acl setuser slowlog-probe on >pw1 +get ~k*
        r acl getuser slowlog-probe
        r acl deluser slowlog-probe no-such-user
        # A refused ACL SETUSER (wrong arity) never ran: it leaves no entry.
        catch {r acl setuser}
        set logged {}
        foreach e [lrange [r slowlog get -1] 0 end-1] {lappend logged [lindex $e 3]}
        assert_equal [list \
            {acl deluser slowlog-probe no-such-user} \
            {acl getuser slowlog-probe} \
            {acl setuser (redacted) (redacted) (redacted) (redacted) (redacted)} \
            {config set masteruser (redacted)} \
            {config set masteruser (redacted)} \
        ] $logged
    } {} {needs:config}

    test {Commands replicated in another form are logged as the client sent them} {
        r config set slowlog-log-slower-than 0
        r del rw rwf rws rwh rwx
        r slowlog reset
        r set rw v ex 100
        r expire rw 200
        r getex rw px 300000
        r incrbyfloat rwf 1.5
        r sadd rws a b c
        r spop rws 2
        r hset rwh f 1
        r hincrbyfloat rwh f 0.5
        r xgroup create rwx g $ mkstream
        r xadd rwx 1-0 f v
        r xreadgroup group g c streams rwx >
        r eval {return redis.call('set', KEYS[1], 'w', 'px', '100000')} 1 rw
        set logged {}
        foreach e [lrange [r slowlog get -1] 0 end-1] {lappend logged [lindex $e 3]}
        assert_equal [list \
            {eval {return redis.call('set', KEYS[1], 'w', 'px', '100000')} 1 rw} \
            {set rw w px 100000} \
            {xreadgroup group g c streams rwx >} \
            {xadd rwx 1-0 f v} \
            {xgroup create rwx g {$} mkstream} \
            {hincrbyfloat rwh f 0.5} \
            {hset rwh f 1} \
            {spop rws 2} \
            {sadd rws a b c} \
            {incrbyfloat rwf 1.5} \
            {getex rw px 300000} \
            {expire rw 200} \
            {set rw v ex 100} \
        ] $logged
    } {} {needs:config}

    test {A blocking command is logged when it completes, with its own arguments} {
        r del blocklist
        set rd [redis_deferring_client]
        $rd blpop blocklist 0
        wait_for_blocked_clients_count 1
        r slowlog reset
        r lpush blocklist v
        assert_equal {blocklist v} [$rd read]
        # BLPOP completed after SLOWLOG RESET and LPUSH: its entry is the newest.
        set entries [r slowlog get]
        assert_equal {blpop blocklist 0} [lindex $entries 0 3]
        assert_equal {lpush blocklist v} [lindex $entries 1 3]
        # One that times out is counted as a call but, as in Redis 7.0, leaves no entry.
        r config resetstat
        r slowlog reset
        $rd blpop blocklist 0.05
        assert_equal {} [$rd read]
        assert_equal {slowlog reset} [lindex [r slowlog get] 0 3]
        assert_match {calls=1,*} [getInfoProperty [r info commandstats] cmdstat_blpop]
        $rd close
    }

    test {A blocked command served inside a transaction is logged after it} {
        r del blocklist
        set rd [redis_deferring_client]
        $rd blpop blocklist 0
        wait_for_blocked_clients_count 1
        r multi
        r lpush blocklist v
        r slowlog reset
        r exec
        assert_equal {blocklist v} [$rd read]
        assert_equal {blpop blocklist 0} [lindex [r slowlog get] 0 3]
        $rd close
    }
}
