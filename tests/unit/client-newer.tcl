# The CLIENT subcommands that newer servers added and current libraries send: SETINFO (7.2),
# NO-TOUCH (7.2), KILL MAXAGE (7.4), CAPA (8.0), MAINT_NOTIFICATIONS (8.2). Redis 7.0 has none
# of them, so these tests carry the tag redistp; the untagged ones hold on both servers.

start_server {tags {client}} {
    test {CLIENT LIST keeps Redis 7.0's fields first whatever a client set} {
        # A line is parsed as key=value pairs: whatever follows resp= is extra to a 7.0 reader.
        set line [string trim [r client info]]
        assert_match {id=* addr=* * cmd=client|info user=default redir=-1 resp=2*} $line
    }

    test {An unknown CLIENT subcommand is refused on every server} {
        assert_error {ERR unknown subcommand 'no-such-thing'*} {r client no-such-thing}
    }
}

start_server {tags {client redistp}} {
    test {CLIENT SETINFO records the library's name and version for CLIENT LIST and INFO} {
        set c [redis_client]
        set id [$c client id]
        # Shown always, empty until set, right after resp= as Redis 7.2 places them.
        assert_match {* resp=2 lib-name= lib-ver= *} [string trim [r client list id $id]]
        assert_equal OK [$c client setinfo lib-name redis-py(om_v1.0)]
        assert_equal OK [$c client setinfo LIB-VER 5.0.1]
        set line [string trim [r client list id $id]]
        assert_match {* resp=2 lib-name=redis-py(om_v1.0) lib-ver=5.0.1 *} $line
        assert_equal redis-py(om_v1.0) [client_field [$c client info] lib-name]
        assert_equal 5.0.1 [client_field [$c client info] lib-ver]
        # The name is another attribute: SETINFO leaves it, SETNAME leaves the library's.
        assert_equal {} [client_field $line name]
        $c client setname app
        assert_equal redis-py(om_v1.0) [client_field [$c client info] lib-name]
        # An empty value clears the attribute.
        assert_equal OK [$c client setinfo lib-ver ""]
        assert_equal {} [client_field [$c client info] lib-ver]
        $c close
    }

    test {CLIENT SETINFO refuses unknown attributes and values that would break CLIENT LIST} {
        assert_error {ERR Unrecognized option 'lib-color'} {r client setinfo lib-color blue}
        assert_error {ERR lib-name cannot contain spaces, newlines or special characters.} \
            {r client setinfo lib-name "two words"}
        assert_error {ERR LIB-VER cannot contain spaces, newlines or special characters.} \
            {r client setinfo LIB-VER "1.0\n"}
        assert_error {ERR wrong number of arguments for 'client|setinfo' command} \
            {r client setinfo lib-name}
        assert_error {ERR wrong number of arguments for 'client|setinfo' command} \
            {r client setinfo lib-name a b}
        # A refused value leaves the attribute as it was.
        r client setinfo lib-name keep
        catch {r client setinfo lib-name "x y"}
        assert_equal keep [client_field [r client info] lib-name]
    }

    test {RESET keeps the library attributes; HELLO SETNAME sets only the name} {
        set c [redis_client]
        $c client setinfo lib-name jedis
        $c client setinfo lib-ver 5.1.0
        assert_equal RESET [$c reset]
        assert_equal jedis [client_field [$c client info] lib-name]
        assert_equal 5.1.0 [client_field [$c client info] lib-ver]
        $c hello 2 setname fromhello
        set info [$c client info]
        assert_equal fromhello [client_field $info name]
        assert_equal jedis [client_field $info lib-name]
        $c close
    }

    test {CLIENT NO-TOUCH: reads leave the LFU counter, TOUCH still counts, OFF counts again} {
        # Under LFU with log factor 0 and no decay every access adds exactly one to the counter.
        r config set maxmemory-policy allkeys-lfu
        r config set lfu-log-factor 0
        r config set lfu-decay-time 0
        r set nt:k v
        set c [redis_client]
        set f0 [r object freq nt:k]
        $c get nt:k
        assert_equal [expr {$f0 + 1}] [r object freq nt:k]
        assert_equal OK [$c client no-touch on]
        assert_equal T [client_field [$c client info] flags]
        $c get nt:k
        $c strlen nt:k
        $c exists nt:k
        # A script's reads are the caller's.
        $c eval {return redis.call('get', KEYS[1])} 1 nt:k
        # A write that edits the value in place finds it without touching it either.
        $c append nt:k w
        assert_equal [expr {$f0 + 1}] [r object freq nt:k]
        # TOUCH exists to touch.
        assert_equal 1 [$c touch nt:k]
        assert_equal [expr {$f0 + 2}] [r object freq nt:k]
        # Another connection's reads count as always.
        r get nt:k
        assert_equal [expr {$f0 + 3}] [r object freq nt:k]
        assert_equal OK [$c client no-touch off]
        assert_equal N [client_field [$c client info] flags]
        $c get nt:k
        assert_equal [expr {$f0 + 4}] [r object freq nt:k]
        assert_error {ERR syntax error} {$c client no-touch maybe}
        assert_error {ERR wrong number of arguments for 'client|no-touch' command} \
            {$c client no-touch}
        $c close
        r config set maxmemory-policy noeviction
        r config set lfu-log-factor 10
        r config set lfu-decay-time 1
    } {OK} {needs:config-maxmemory}

    test {CLIENT NO-TOUCH inside MULTI applies to the queued reads} {
        r config set maxmemory-policy allkeys-lfu
        r config set lfu-log-factor 0
        r config set lfu-decay-time 0
        r set nt:m v
        set c [redis_client]
        set f0 [r object freq nt:m]
        $c client no-touch on
        $c multi
        $c get nt:m
        $c get nt:m
        assert_equal {v v} [$c exec]
        assert_equal $f0 [r object freq nt:m]
        $c close
        r config set maxmemory-policy noeviction
        r config set lfu-log-factor 10
        r config set lfu-decay-time 1
    } {OK} {needs:config-maxmemory}

    test {CLIENT KILL MAXAGE closes only the connections at least that old} {
        set old [redis_client]
        set old_id [$old client id]
        wait_for_condition 100 50 {
            [client_field [r client list id $old_id] age] >= 2
        } else {
            fail "the connection never became two seconds old"
        }
        set young [redis_client]
        set young_id [$young client id]
        # The caller is old too, but spared (SKIPME yes by default).
        assert_equal 1 [r client kill maxage 2 id $old_id]
        assert_equal 0 [r client kill maxage 2 id $young_id]
        assert_equal {} [string trim [r client list id $old_id]]
        assert_equal PONG [$young ping]
        # Combined with other filters it narrows them, as every filter does.
        assert_equal 0 [r client kill maxage 1000000 type normal]
        assert_error {ERR maxage is not an integer or out of range} {r client kill maxage soon}
        # One word after KILL is the old ip:port form, not a filter.
        assert_error {ERR No such client} {r client kill maxage}
        assert_error {ERR syntax error} {r client kill maxage 5 skipme}
        $young close
        catch {$old close}
    }

    test {CLIENT CAPA accepts what the client announces; unknown capabilities are ignored} {
        assert_equal OK [r client capa redirect]
        assert_equal OK [r client capa something-newer redirect another]
        assert_error {ERR wrong number of arguments for 'client|capa' command} {r client capa}
    }

    test {CLIENT MAINT_NOTIFICATIONS takes ON/OFF and a known moving-endpoint-type} {
        assert_equal OK [r client maint_notifications on]
        assert_equal OK [r client maint_notifications ON moving-endpoint-type internal-ip]
        foreach t {internal-fqdn external-ip external-fqdn none} {
            assert_equal OK [r client maint_notifications on moving-endpoint-type $t]
        }
        assert_equal OK [r client maint_notifications off]
        assert_error {ERR syntax error} {r client maint_notifications maybe}
        assert_error {ERR syntax error} \
            {r client maint_notifications on moving-endpoint-type somewhere}
        assert_error {ERR syntax error} {r client maint_notifications on moving-endpoint-type}
        assert_error {ERR syntax error} {r client maint_notifications on colour blue}
        assert_error {ERR wrong number of arguments for 'client|maint_notifications' command} \
            {r client maint_notifications}
    }

    test {The new CLIENT rows are in COMMAND INFO and DOCS with the version they come from} {
        foreach {sub arity since} {setinfo 4 7.2.0 no-touch 3 7.2.0 capa -3 8.0.0
                                   maint_notifications -3 8.2.0} {
            set info [lindex [r command info client|$sub] 0]
            assert_equal client|$sub [lindex $info 0]
            assert_equal $arity [lindex $info 1]
            assert_match {*@connection*} [lindex $info 6]
            set docs [lindex [r command docs client|$sub] 1]
            assert_equal $since [dict get $docs since]
        }
        # The CLIENT container lists them among its subcommands.
        set subs {}
        foreach s [lindex [lindex [r command info client] 0] 9] {lappend subs [lindex $s 0]}
        foreach sub {setinfo no-touch capa maint_notifications} {
            assert {[lsearch $subs client|$sub] >= 0}
        }
    }
}

# Reads the RESP lines a raw connection receives until the server closes it.
proc maint_lines_until_eof {sock} {
    set lines {}
    while {1} {
        set line [raw_read_line $sock]
        if {$line eq "<EOF>"} {return $lines}
        lappend lines $line
    }
}

# A raw connection (to the server at `level`) in RESP `proto` that asked for maintenance
# notices (`maint` 1) or not.
proc maint_client {proto maint {level 0}} {
    set sock [raw_connect $level]
    raw_write $sock "*2\r\n\$5\r\nHELLO\r\n\$1\r\n$proto\r\n"
    # HELLO's reply is a map (RESP3) or an array (RESP2): read until its last field, the modules.
    while {[raw_read_line $sock] ne "modules"} {}
    raw_read_line $sock
    if {$maint} {
        raw_write $sock "*3\r\n\$6\r\nCLIENT\r\n\$19\r\nMAINT_NOTIFICATIONS\r\n\$2\r\nON\r\n"
        assert_equal +OK [raw_read_line $sock]
    }
    return $sock
}

start_server {tags {client redistp external:skip}} {
    test {A planned SHUTDOWN pushes one MOVING notice to the RESP3 connections that asked} {
        set asked [maint_client 3 1]
        set resp2 [maint_client 2 1]
        set quiet [maint_client 3 0]
        catch {r shutdown nosave}
        # MOVING <seq> <seconds> <endpoint>: no successor is known, so null, and 0 seconds.
        # Exactly one notice: its six lines and nothing else before the close.
        set lines [maint_lines_until_eof $asked]
        assert_equal 6 [llength $lines]
        assert_equal [list >4 {$6} MOVING] [lrange $lines 0 2]
        assert_match {:[1-9]*} [lindex $lines 3]
        assert_equal {:0 _} [lrange $lines 4 5]
        # RESP2 has no place for it; a connection that did not ask gets none.
        assert_equal {} [maint_lines_until_eof $resp2]
        assert_equal {} [maint_lines_until_eof $quiet]
        foreach s [list $asked $resp2 $quiet] {raw_close $s}
    }
}

start_server {tags {client redistp repl external:skip} overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        set replica_port [srv 0 port]
        r replicaof 127.0.0.1 [srv -1 port]
        wait_for_condition 100 50 {
            [string match *master_link_status:up* [r info replication]]
        } else {
            fail "the replica never came up"
        }

        test {FAILOVER TO a replica pushes MOVING with the new master's address first} {
            set asked [maint_client 3 1 -1]
            assert_equal OK [r -1 failover to 127.0.0.1 $replica_port timeout 5000]
            assert_equal [list >4 {$6} MOVING] [list [raw_read_line $asked] \
                [raw_read_line $asked] [raw_read_line $asked]]
            assert_match {:[1-9]*} [raw_read_line $asked]
            # The FAILOVER's bound in seconds, then where the master goes.
            assert_equal :5 [raw_read_line $asked]
            set endpoint 127.0.0.1:$replica_port
            assert_equal "\$[string length $endpoint]" [raw_read_line $asked]
            assert_equal $endpoint [raw_read_line $asked]
            raw_close $asked
            wait_for_condition 100 50 {
                [string match *role:master* [r info replication]]
            } else {
                fail "the failover never ended"
            }
        }
    }
}
