# Shard channels (Redis 7.0): SSUBSCRIBE / SUNSUBSCRIBE / SPUBLISH and PUBSUB SHARDCHANNELS /
# SHARDNUMSUB on a server without cluster mode, where every shard channel lives on the one
# shard. Shard channels are a namespace of their own: classic channels and patterns never see
# SPUBLISH, and the shard confirmations count shard channels only.

proc pss_client {{proto 2}} {
    set c [redis_deferring_client]
    if {$proto == 3} {
        $c hello 3
        $c read
    }
    return $c
}

# Sends `cmd` with `names`; returns one confirmation per name.
proc pss_confirm {c cmd names} {
    $c $cmd {*}$names
    set got {}
    foreach _ $names {lappend got [$c read]}
    return $got
}

start_server {tags {pubsub}} {
    test {SSUBSCRIBE confirms each shard channel with the shard count} {
        foreach proto {2 3} {
            set c [pss_client $proto]
            assert_equal {{ssubscribe s1 1} {ssubscribe s2 2} {ssubscribe s1 2}} \
                [pss_confirm $c ssubscribe {s1 s2 s1}] "RESP$proto"
            assert_equal {{sunsubscribe s1 1} {sunsubscribe zz 1} {sunsubscribe s2 0}} \
                [pss_confirm $c sunsubscribe {s1 zz s2}]
            $c close
        }
    }

    test {Shard confirmations are push frames in RESP3} {
        foreach {proto kind} {2 *3 3 >3} {
            set c [pss_client $proto]
            $c readraw 1
            $c ssubscribe rawshard
            assert_equal $kind [$c read] "RESP$proto"
            $c close
        }
    }

    test {SPUBLISH delivers smessage to shard subscribers only} {
        set shard [pss_client 2]
        set shard3 [pss_client 3]
        set classic [pss_client 2]
        pss_confirm $shard ssubscribe {orders}
        pss_confirm $shard3 ssubscribe {orders}
        pss_confirm $classic subscribe {orders}
        pss_confirm $classic psubscribe {ord*}
        assert_equal 2 [r spublish orders o1]
        assert_equal {smessage orders o1} [$shard read]
        assert_equal {smessage orders o1} [$shard3 read]
        # PUBLISH reaches the classic channel and pattern, never the shard subscribers.
        assert_equal 2 [r publish orders o2]
        assert_equal {message orders o2} [$classic read]
        assert_equal {pmessage ord* orders o2} [$classic read]
        $shard ping
        assert_equal {pong {}} [$shard read]
        $classic ping
        assert_equal {pong {}} [$classic read]
        assert_equal 0 [r spublish nobody x]
        foreach c [list $shard $shard3 $classic] {$c close}
    }

    test {Shard and classic subscription counts are separate} {
        set c [pss_client 2]
        assert_equal {{subscribe c1 1}} [pss_confirm $c subscribe {c1}]
        assert_equal {{ssubscribe s1 1} {ssubscribe s2 2}} [pss_confirm $c ssubscribe {s1 s2}]
        assert_equal {{psubscribe p* 2}} [pss_confirm $c psubscribe {p*}]
        assert_equal {{sunsubscribe s1 1}} [pss_confirm $c sunsubscribe {s1}]
        assert_equal {{unsubscribe c1 1}} [pss_confirm $c unsubscribe {c1}]
        $c close
    }

    test {SUNSUBSCRIBE without arguments leaves every shard channel, then replies null and 0} {
        foreach proto {2 3} {
            set c [pss_client $proto]
            pss_confirm $c ssubscribe {a1 a2}
            pss_confirm $c subscribe {keep}
            $c sunsubscribe
            set got [list [$c read] [$c read]]
            assert_equal {1 0} [lmap m $got {lindex $m 2}] "RESP$proto"
            assert_equal {a1 a2} [lsort [lmap m $got {lindex $m 1}]]
            $c sunsubscribe
            assert_equal {sunsubscribe {} 0} [$c read]
            assert_equal 1 [r publish keep k]
            assert_equal {message keep k} [$c read]
            $c close
        }
    }

    test {A shard-only subscriber is in RESP2 subscribed mode} {
        set c [pss_client 2]
        pss_confirm $c ssubscribe {mode}
        $c get x
        assert_error {ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context} {$c read}
        $c spublish mode x
        assert_error {ERR Can't execute 'spublish'*} {$c read}
        pss_confirm $c sunsubscribe {mode}
        $c get x
        assert_equal {} [$c read]
        $c close
    }

    test {SSUBSCRIBE inside MULTI is refused at EXEC (DENY BLOCKING), SUBSCRIBE is not} {
        set c [pss_client 2]
        $c multi
        $c read
        $c ssubscribe s
        assert_equal QUEUED [$c read]
        $c exec
        set reply [$c read]
        assert_equal 1 [llength $reply]
        assert_match {ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client} [lindex $reply 0]
        $c client info
        assert_match {* ssub=0 *} [$c read]
        $c close
    }

    test {PUBSUB SHARDCHANNELS and SHARDNUMSUB} {
        set a [pss_client 2]
        set b [pss_client 3]
        pss_confirm $a ssubscribe {sh:one sh:two}
        pss_confirm $b ssubscribe {sh:two sh:three}
        pss_confirm $b subscribe {sh:classic}
        assert_equal {sh:one sh:three sh:two} [lsort [r pubsub shardchannels sh:*]]
        assert_equal {sh:three sh:two} [lsort [r pubsub shardchannels sh:t*]]
        assert_equal {sh:one 1 sh:two 2 sh:classic 0} [r pubsub shardnumsub sh:one sh:two sh:classic]
        assert_equal {sh:two 0} [r pubsub numsub sh:two]
        assert_equal {} [r pubsub shardnumsub]
        assert_error {ERR unknown subcommand or wrong number of arguments for 'shardchannels'. Try PUBSUB HELP.} {r pubsub shardchannels a b}
        $a close
        $b close
        wait_for_condition 50 20 {[r pubsub shardchannels sh:*] eq {}} else {
            fail "shard channels outlived their subscribers"
        }
    }

    test {CLIENT LIST ssub= counts shard channels} {
        set c [pss_client 3]
        pss_confirm $c ssubscribe {x1 x2 x3}
        $c client info
        assert_match {* flags=P * sub=0 psub=0 ssub=3 *} [$c read]
        $c close
    }

    test {RESET leaves shard subscriptions} {
        set c [pss_client 2]
        pss_confirm $c ssubscribe {rs}
        $c reset
        assert_equal RESET [$c read]
        assert_equal 0 [r spublish rs x]
        $c close
    }

    test {Shard channels are not keys for COMMAND GETKEYS} {
        assert_error {ERR The command has no key arguments} {r command getkeys ssubscribe a b}
        assert_error {ERR The command has no key arguments} {r command getkeys spublish a b}
        set info [lindex [r command info spublish] 0]
        assert_equal {1 1 1} [lrange $info 3 5]
    }

    test {SPUBLISH and SSUBSCRIBE arity errors} {
        assert_error {ERR wrong number of arguments for 'spublish' command} {r spublish a}
        assert_error {ERR wrong number of arguments for 'ssubscribe' command} {r ssubscribe}
    }

    foreach proto {2 3} {
        test "Shard confirmations and messages reach a subscriber under CLIENT REPLY OFF (RESP$proto)" {
            set c [pss_client $proto]
            $c client reply off
            assert_equal {{ssubscribe quiet 1}} [pss_confirm $c ssubscribe {quiet}]
            assert_equal 1 [r spublish quiet hello]
            assert_equal {smessage quiet hello} [$c read]
            assert_equal {{sunsubscribe quiet 0}} [pss_confirm $c sunsubscribe {quiet}]
            # Nothing else was sent meanwhile: REPLY ON is the next reply.
            $c client reply on
            assert_equal OK [$c read]
            $c close
        }
    }
}
