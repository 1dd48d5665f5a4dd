# Pub/Sub (issue 9): SUBSCRIBE / UNSUBSCRIBE / PSUBSCRIBE / PUNSUBSCRIBE / PUBLISH and PUBSUB
# introspection. Confirmations and counts in RESP2 (arrays) and RESP3 (push frames), exact and
# pattern delivery (glob specials), unsubscribing everything, many clients, RESP2 subscribed
# mode, RESET and QUIT, CLIENT LIST and INFO fields, and the pubsub output-buffer class.
# Shard channels are in pubsubshard.tcl.
#
# Subscribers are deferring clients; "nothing more arrived" is checked with a PING, which a
# pending message would precede.

# A deferring client speaking RESP `proto`.
proc ps_client {{proto 2}} {
    set c [redis_deferring_client]
    if {$proto == 3} {
        $c hello 3
        $c read
    }
    return $c
}

# Sends `cmd` (SUBSCRIBE, PSUBSCRIBE ...) with `names` and returns the confirmations read.
proc ps_confirm {c cmd names} {
    $c $cmd {*}$names
    set got {}
    foreach _ $names {lappend got [$c read]}
    return $got
}

proc ps_subscribe {c names} {ps_confirm $c subscribe $names}
proc ps_psubscribe {c names} {ps_confirm $c psubscribe $names}

# UNSUBSCRIBE / PUNSUBSCRIBE with names: one confirmation each.
proc ps_unsubscribe {c names} {ps_confirm $c unsubscribe $names}
proc ps_punsubscribe {c names} {ps_confirm $c punsubscribe $names}

# A PING through a subscribed connection: its reply proves nothing was pending before it.
proc ps_expect_nothing {c proto} {
    $c ping
    if {$proto == 2} {
        assert_equal {pong {}} [$c read]
    } else {
        assert_equal PONG [$c read]
    }
}

start_server {tags {pubsub}} {
    test {SUBSCRIBE confirms each channel with the running count} {
        foreach proto {2 3} {
            set c [ps_client $proto]
            assert_equal {{subscribe a 1} {subscribe b 2} {subscribe a 2}} \
                [ps_subscribe $c {a b a}] "RESP$proto"
            assert_equal {{unsubscribe a 1} {unsubscribe b 0} {unsubscribe b 0}} \
                [ps_unsubscribe $c {a b b}]
            $c close
        }
    }

    test {Confirmations are arrays in RESP2 and push frames in RESP3} {
        foreach {proto kind} {2 *3 3 >3} {
            set c [ps_client $proto]
            $c readraw 1
            $c subscribe rawchan
            assert_equal $kind [$c read] "RESP$proto"
            assert_equal {$9} [$c read]
            assert_equal subscribe [$c read]
            assert_equal {$7} [$c read]
            assert_equal rawchan [$c read]
            assert_equal {:1} [$c read]
            $c close
        }
    }

    test {PUBLISH delivers to every subscriber and counts the receivers} {
        set subs {}
        foreach proto {2 3 2 3} {
            set c [ps_client $proto]
            ps_subscribe $c {news}
            lappend subs $c
        }
        assert_equal 4 [r publish news hello]
        foreach c $subs {
            assert_equal {message news hello} [$c read]
        }
        assert_equal 0 [r publish nobody hello]
        foreach c $subs {$c close}
    }

    test {PUBLISH carries binary messages and channel names byte for byte} {
        set c [ps_client 2]
        set chan "bin\x00chan\r\n"
        set msg "a\r\nb\x00c[string repeat z 5000]"
        ps_subscribe $c [list $chan]
        assert_equal 1 [r publish $chan $msg]
        assert_equal [list message $chan $msg] [$c read]
        assert_equal 1 [r publish $chan ""]
        assert_equal [list message $chan ""] [$c read]
        $c close
    }

    test {A big message reaches many subscribers whole, in order with the small ones} {
        # One frame of 200 KB for 10 subscribers of both protocols (shared by their output
        # buffers in redis-tp), between two small messages.
        set big "[string repeat abcdefgh 25000]\r\n"
        set subs {}
        foreach proto {2 3 2 3 2 3 2 3 2 3} {
            set c [ps_client $proto]
            ps_psubscribe $c {bigchan*}
            lappend subs $c $proto
        }
        assert_equal 10 [r publish bigchan1 before]
        assert_equal 10 [r publish bigchan1 $big]
        assert_equal 10 [r publish bigchan1 after]
        foreach {c proto} $subs {
            assert_equal {pmessage bigchan* bigchan1 before} [$c read]
            assert_equal [list pmessage bigchan* bigchan1 $big] [$c read] "RESP$proto"
            assert_equal {pmessage bigchan* bigchan1 after} [$c read]
            ps_expect_nothing $c $proto
        }
        foreach {c proto} $subs {$c close}
    }

    test {A channel with no subscriber left receives nothing} {
        set c [ps_client 2]
        ps_subscribe $c {gone stay}
        ps_unsubscribe $c {gone}
        assert_equal 0 [r publish gone x]
        assert_equal 1 [r publish stay y]
        assert_equal {message stay y} [$c read]
        $c close
    }

    test {UNSUBSCRIBE without arguments leaves every channel} {
        foreach proto {2 3} {
            set c [ps_client $proto]
            ps_subscribe $c {u1 u2 u3}
            $c unsubscribe
            set got {}
            for {set i 0} {$i < 3} {incr i} {lappend got [$c read]}
            # One confirmation per channel, counting down; the order is unspecified.
            assert_equal {2 1 0} [lmap m $got {lindex $m 2}] "RESP$proto"
            assert_equal {u1 u2 u3} [lsort [lmap m $got {lindex $m 1}]]
            assert_equal {unsubscribe} [lsort -unique [lmap m $got {lindex $m 0}]]
            assert_equal 0 [r publish u1 x]
            $c close
        }
    }

    test {UNSUBSCRIBE and PUNSUBSCRIBE with nothing subscribed reply a null name and 0} {
        foreach proto {2 3} {
            set c [ps_client $proto]
            $c unsubscribe
            assert_equal {unsubscribe {} 0} [$c read]
            $c punsubscribe
            assert_equal {punsubscribe {} 0} [$c read]
            $c readraw 1
            $c unsubscribe
            if {$proto == 2} {
                assert_equal {*3} [$c read]
            } else {
                assert_equal {>3} [$c read]
            }
            $c read; $c read
            if {$proto == 2} {
                assert_equal {$-1} [$c read]
            } else {
                assert_equal {_} [$c read]
            }
            assert_equal {:0} [$c read]
            $c close
        }
    }

    test {UNSUBSCRIBE of channels never subscribed confirms each with the count} {
        set c [ps_client 2]
        ps_subscribe $c {real}
        assert_equal {{unsubscribe x 1} {unsubscribe y 1}} [ps_unsubscribe $c {x y}]
        $c close
    }

    test {PSUBSCRIBE matches with KEYS globs} {
        set c [ps_client 2]
        set want [list {psubscribe news.* 1} {psubscribe h?llo 2} [list psubscribe {r[ae]d} 3]]
        assert_equal $want [ps_psubscribe $c {news.* h?llo r[ae]d}]
        assert_equal 1 [r publish news.sport goal]
        assert_equal {pmessage news.* news.sport goal} [$c read]
        assert_equal 1 [r publish hallo x]
        assert_equal {pmessage h?llo hallo x} [$c read]
        assert_equal 0 [r publish hllo x]
        assert_equal 1 [r publish red y]
        assert_equal [list pmessage {r[ae]d} red y] [$c read]
        assert_equal 0 [r publish rid y]
        assert_equal 0 [r publish news x]
        ps_expect_nothing $c 2
        $c close
    }

    test {Pattern specials: escapes, negated sets, ranges, star runs} {
        set c [ps_client 3]
        ps_psubscribe $c {{a\*b} {x[^0-9]} {k[a-c]*} {***z}}
        assert_equal 1 [r publish a*b m1]
        assert_equal {pmessage {a\*b} a*b m1} [$c read]
        assert_equal 0 [r publish axb m2]
        assert_equal 1 [r publish xq m3]
        assert_equal {pmessage {x[^0-9]} xq m3} [$c read]
        assert_equal 0 [r publish x5 m4]
        assert_equal 1 [r publish kbzzy m5]
        assert_equal {pmessage {k[a-c]*} kbzzy m5} [$c read]
        assert_equal 1 [r publish z m6]
        assert_equal {pmessage ***z z m6} [$c read]
        ps_expect_nothing $c 3
        $c close
    }

    test {The empty channel matches only the empty pattern} {
        set c [ps_client 2]
        ps_subscribe $c {{}}
        ps_psubscribe $c {* ** {}}
        # Only the exact subscriber and the empty pattern: no glob matches an empty name.
        assert_equal 2 [r publish {} hi]
        set got [list [$c read] [$c read]]
        assert_equal [lsort [list {message {} hi} {pmessage {} {} hi}]] [lsort $got]
        assert_equal 2 [r publish x hi]
        assert_equal {{pmessage * x hi} {pmessage ** x hi}} [lsort [list [$c read] [$c read]]]
        # PUBSUB CHANNELS lists "" without a pattern only.
        assert {[lsearch -exact [r pubsub channels] {}] >= 0}
        assert {[lsearch -exact [r pubsub channels *] {}] < 0}
        $c close
    }

    test {A client subscribed to a channel and a matching pattern gets both messages} {
        foreach proto {2 3} {
            set c [ps_client $proto]
            ps_subscribe $c {both}
            ps_psubscribe $c {b*}
            assert_equal 2 [r publish both hi] "RESP$proto"
            assert_equal {message both hi} [$c read]
            assert_equal {pmessage b* both hi} [$c read]
            $c close
        }
    }

    test {Two matching patterns of one client each deliver a pmessage} {
        set c [ps_client 2]
        ps_psubscribe $c {m* *m}
        assert_equal 2 [r publish mom x]
        set got [list [$c read] [$c read]]
        assert_equal {{pmessage *m mom x} {pmessage m* mom x}} [lsort $got]
        $c close
    }

    test {The (P)SUBSCRIBE count is channels plus patterns} {
        set c [ps_client 2]
        assert_equal {{subscribe c1 1} {subscribe c2 2}} [ps_subscribe $c {c1 c2}]
        assert_equal {{psubscribe p1 3}} [ps_psubscribe $c {p1}]
        assert_equal {{unsubscribe c1 2}} [ps_unsubscribe $c {c1}]
        assert_equal {{punsubscribe p1 1}} [ps_punsubscribe $c {p1}]
        assert_equal {{punsubscribe p1 1}} [ps_punsubscribe $c {p1}]
        $c close
    }

    test {PUNSUBSCRIBE without arguments leaves every pattern and keeps channels} {
        set c [ps_client 2]
        ps_subscribe $c {keep}
        ps_psubscribe $c {p.* q.*}
        $c punsubscribe
        set got [list [$c read] [$c read]]
        assert_equal {2 1} [lmap m $got {lindex $m 2}]
        assert_equal {p.* q.*} [lsort [lmap m $got {lindex $m 1}]]
        assert_equal 0 [r publish p.x m]
        assert_equal 1 [r publish keep m]
        assert_equal {message keep m} [$c read]
        $c close
    }

    test {A channel name shaped like a pattern is an exact channel for SUBSCRIBE} {
        set c [ps_client 2]
        ps_subscribe $c {star*}
        assert_equal 0 [r publish starry x]
        assert_equal 1 [r publish star* y]
        assert_equal {message star* y} [$c read]
        $c close
    }

    test {Keyspace-like channel names are just channels} {
        set c [ps_client 2]
        ps_subscribe $c {__keyspace@0__:foo}
        assert_equal 1 [r publish __keyspace@0__:foo hand-made]
        assert_equal {message __keyspace@0__:foo hand-made} [$c read]
        $c close
    }

    test {Many clients on many channels} {
        set clients {}
        for {set i 0} {$i < 20} {incr i} {
            set c [ps_client [expr {$i % 2 ? 3 : 2}]]
            ps_subscribe $c [list many:all many:$i]
            lappend clients $c
        }
        assert_equal 20 [r publish many:all x]
        assert_equal 1 [r publish many:7 y]
        for {set i 0} {$i < 20} {incr i} {
            set c [lindex $clients $i]
            assert_equal {message many:all x} [$c read]
            if {$i == 7} {assert_equal {message many:7 y} [$c read]}
        }
        foreach c $clients {$c close}
        wait_for_condition 50 20 {[r publish many:all z] == 0} else {
            fail "subscribers of closed connections still counted"
        }
    }

    test {A disconnected subscriber is removed from its channels and patterns} {
        set c [ps_client 2]
        ps_subscribe $c {leaving}
        ps_psubscribe $c {leav*}
        $c close
        wait_for_condition 50 20 {[r publish leaving x] == 0} else {
            fail "closed subscriber still receives"
        }
        assert_equal {leaving 0} [r pubsub numsub leaving]
        assert_equal {} [r pubsub channels leav*]
        wait_for_condition 50 20 {[r pubsub numpat] == 0} else {
            fail "a closed subscriber's pattern is still counted"
        }
    }

    test {PUBLISH and (P)SUBSCRIBE arity errors} {
        assert_error {ERR wrong number of arguments for 'publish' command} {r publish a}
        assert_error {ERR wrong number of arguments for 'publish' command} {r publish a b c}
        assert_error {ERR wrong number of arguments for 'subscribe' command} {r subscribe}
        assert_error {ERR wrong number of arguments for 'psubscribe' command} {r psubscribe}
    }

    # ---- RESP2 subscribed mode --------------------------------------------------------------

    test {RESP2 subscribed mode refuses other commands with Redis's error} {
        set c [ps_client 2]
        ps_subscribe $c {mode}
        foreach {cmd name} {{get x} get {set x 1} set {client info} client|info {publish a b} publish} {
            $c {*}$cmd
            assert_error "ERR Can't execute '$name': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context" {$c read}
        }
        # Unknown commands and arity errors come first.
        $c nosuchcmd
        assert_error {ERR unknown command*} {$c read}
        $c ping a b
        assert_error {ERR wrong number of arguments for 'ping' command} {$c read}
        # (P)SUBSCRIBE and (P)UNSUBSCRIBE are allowed; leaving the last channel ends the mode.
        assert_equal {{psubscribe pm 2}} [ps_psubscribe $c {pm}]
        assert_equal {{punsubscribe pm 1}} [ps_punsubscribe $c {pm}]
        assert_equal {{unsubscribe mode 0}} [ps_unsubscribe $c {mode}]
        $c get x
        assert_equal {} [$c read]
        $c close
    }

    test {PING in RESP2 subscribed mode replies a pong array} {
        set c [ps_client 2]
        ps_psubscribe $c {pp*}
        $c ping
        assert_equal {pong {}} [$c read]
        $c ping hi
        assert_equal {pong hi} [$c read]
        $c readraw 1
        $c ping
        assert_equal {*2} [$c read]
        $c close
    }

    test {RESP3 subscribers may run any command} {
        set c [ps_client 3]
        ps_subscribe $c {free}
        $c set ps:free:k v
        assert_equal OK [$c read]
        $c get ps:free:k
        assert_equal v [$c read]
        $c ping
        assert_equal PONG [$c read]
        $c del ps:free:k
        $c read
        $c close
    }

    test {SUBSCRIBE inside MULTI: confirmations in the EXEC reply, then subscribed} {
        set c [ps_client 2]
        $c multi
        assert_equal OK [$c read]
        $c subscribe tx1
        assert_equal QUEUED [$c read]
        $c subscribe tx2 tx3
        assert_equal QUEUED [$c read]
        $c exec
        # EXEC's array counts commands, not confirmations (as Redis): the second SUBSCRIBE's
        # extra confirmation follows the array.
        assert_equal {{subscribe tx1 1} {subscribe tx2 2}} [$c read]
        assert_equal {subscribe tx3 3} [$c read]
        assert_equal 1 [r publish tx2 m]
        assert_equal {message tx2 m} [$c read]
        $c get x
        assert_error {ERR Can't execute 'get'*} {$c read}
        $c close
    }

    test {RESET leaves every subscription and replies RESET} {
        foreach proto {2 3} {
            set c [ps_client $proto]
            ps_subscribe $c {rs1 rs2}
            ps_psubscribe $c {rs*}
            $c reset
            assert_equal RESET [$c read] "RESP$proto"
            assert_equal 0 [r publish rs1 x]
            assert_equal {rs1 0 rs2 0} [r pubsub numsub rs1 rs2]
            # Out of subscribed mode: ordinary replies again.
            $c get ps:nokey
            assert_equal {} [$c read]
            $c unsubscribe
            assert_equal {unsubscribe {} 0} [$c read]
            $c close
        }
    }

    test {QUIT in subscribed mode replies OK and closes} {
        set c [ps_client 2]
        ps_subscribe $c {q}
        $c quit
        assert_equal OK [$c read]
        wait_for_condition 50 20 {[r publish q x] == 0} else {
            fail "QUIT left the subscription"
        }
        $c close
    }

    test {A PUBLISH by a RESP3 subscriber of its own channel} {
        set c [ps_client 3]
        ps_subscribe $c {self}
        $c publish self hi
        set first [$c read]
        set second [$c read]
        assert_equal [lsort [list $first $second]] [lsort [list 1 {message self hi}]]
        $c close
    }

    test {redis-tp: the publisher's own message follows its PUBLISH reply} {
        # Our ordering promise (docs/temporary-keys-and-watches.md): the connection that made
        # a change reads its reply first. Redis 7.0 writes the message before the reply.
        set c [ps_client 3]
        ps_subscribe $c {self2}
        $c publish self2 hi
        assert_equal 1 [$c read]
        assert_equal {message self2 hi} [$c read]
        $c multi
        $c read
        $c publish self2 a
        $c read
        $c publish self2 b
        $c read
        $c exec
        assert_equal {1 1} [$c read]
        assert_equal {message self2 a} [$c read]
        assert_equal {message self2 b} [$c read]
        $c close
    } {} {redistp}

    # ---- PUBSUB introspection ----------------------------------------------------------------

    test {PUBSUB CHANNELS lists active channels, filtered by a glob} {
        set a [ps_client 2]
        set b [ps_client 3]
        ps_subscribe $a {intro:one intro:two}
        ps_subscribe $b {intro:two intro:three}
        ps_psubscribe $b {intro:*}
        assert_equal {intro:one intro:three intro:two} [lsort [r pubsub channels intro:*]]
        assert_equal {intro:three intro:two} [lsort [r pubsub channels intro:t*]]
        assert_equal {} [r pubsub channels nomatch*]
        assert_equal {intro:one 1 intro:two 2 intro:three 1 nobody 0} \
            [r pubsub numsub intro:one intro:two intro:three nobody]
        assert_equal {} [r pubsub numsub]
        assert_equal 1 [r pubsub numpat]
        $a close
        $b close
        wait_for_condition 50 20 {[r pubsub channels intro:*] eq {} && [r pubsub numpat] == 0} else {
            fail "channels outlived their subscribers"
        }
    }

    test {PUBSUB NUMPAT counts distinct patterns} {
        set a [ps_client 2]
        set b [ps_client 2]
        ps_psubscribe $a {np1 np2}
        ps_psubscribe $b {np2}
        assert_equal 2 [r pubsub numpat]
        ps_punsubscribe $a {np2}
        assert_equal 2 [r pubsub numpat]
        ps_punsubscribe $b {np2}
        assert_equal 1 [r pubsub numpat]
        $a close
        $b close
    }

    test {PUBSUB errors and HELP} {
        assert_error {ERR unknown subcommand 'foo'. Try PUBSUB HELP.} {r pubsub foo}
        assert_error {ERR wrong number of arguments for 'pubsub' command} {r pubsub}
        assert_error {ERR wrong number of arguments for 'pubsub|numpat' command} {r pubsub numpat x}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB HELP.} {r pubsub channels a b}
        set help [r pubsub help]
        assert_match {PUBSUB <subcommand> *} [lindex $help 0]
        foreach sub {CHANNELS NUMPAT NUMSUB SHARDCHANNELS SHARDNUMSUB HELP} {
            assert {[lsearch -glob $help "$sub*"] >= 0}
        }
    }

    test {NUMSUB is a flat array in RESP3 too} {
        set c [ps_client 3]
        $c pubsub numsub x y
        assert_equal {x 0 y 0} [$c read]
        $c readraw 1
        $c pubsub numsub x
        assert_equal {*2} [$c read]
        $c close
    }

    # ---- visibility: CLIENT LIST / INFO, INFO stats ------------------------------------------

    test {CLIENT LIST shows sub= psub= ssub= and the P flag} {
        set c [ps_client 3]
        $c client setname pslist
        $c read
        ps_subscribe $c {l1 l2}
        ps_psubscribe $c {l*}
        set line [lsearch -inline [split [r client list] "\n"] "*name=pslist *"]
        assert_match {* flags=P *} $line
        assert_match {* sub=2 psub=1 ssub=0 *} $line
        $c client info
        assert_match {* flags=P * sub=2 psub=1 ssub=0 *} [$c read]
        ps_unsubscribe $c {l1 l2}
        ps_punsubscribe $c {l*}
        $c client info
        set line [$c read]
        assert_match {* flags=N * sub=0 psub=0 ssub=0 *} $line
        $c close
    }

    test {CLIENT LIST TYPE pubsub lists subscribers of either protocol} {
        set a [ps_client 2]
        set b [ps_client 3]
        set idle [ps_client 2]
        set ids {}
        foreach c [list $a $b $idle] {
            $c client id
            lappend ids [$c read]
        }
        lassign $ids ida idb idi
        ps_subscribe $a {t1}
        ps_psubscribe $b {t*}
        set ids {}
        foreach line [split [string trim [r client list type pubsub]] "\n"] {
            lappend ids [client_field $line id]
        }
        assert_equal [lsort -integer [list $ida $idb]] [lsort -integer $ids]
        set normal [r client list type normal]
        assert_no_match "*id=$ida *" $normal
        assert_match "*id=$idi *" $normal
        $a close
        $b close
        $idle close
    }

    test {CLIENT KILL TYPE pubsub closes only subscribers} {
        set a [ps_client 2]
        set b [ps_client 3]
        set keep [ps_client 2]
        ps_subscribe $a {k1}
        ps_subscribe $b {k1}
        assert_equal 2 [r client kill type pubsub]
        wait_for_condition 50 20 {[r pubsub numsub k1] eq {k1 0}} else {
            fail "killed subscribers still listed"
        }
        $keep ping
        assert_equal PONG [$keep read]
        catch {$a close}
        catch {$b close}
        $keep close
    }

    test {INFO stats counts channels, distinct patterns and shard channels} {
        set a [ps_client 2]
        set b [ps_client 3]
        set base_ch [s pubsub_channels]
        set base_pat [s pubsub_patterns]
        ps_subscribe $a {info:1 info:2}
        ps_subscribe $b {info:2}
        ps_psubscribe $a {info:*}
        ps_psubscribe $b {info:*}
        $b ssubscribe info:s
        $b read
        assert_equal [expr {$base_ch + 2}] [s pubsub_channels]
        assert_equal [expr {$base_pat + 1}] [s pubsub_patterns]
        assert_equal 1 [s pubsubshard_channels]
        $a close
        $b close
        wait_for_condition 50 20 {[s pubsubshard_channels] == 0 && [s pubsub_channels] == $base_ch} else {
            fail "INFO still counts closed subscribers' channels"
        }
    }
}

start_server {tags {pubsub}} {
    test {A subscriber that stops reading is closed at the pubsub hard limit} {
        r config set client-output-buffer-limit "pubsub 100kb 0 0"
        set before [count_log_message "*overcoming of output buffer limits*"]
        set c [ps_client 2]
        ps_subscribe $c {obl}
        set payload [string repeat x 4000]
        set n 1
        for {set i 0} {$i < 5000 && $n > 0} {incr i} {
            set n [r publish obl $payload]
        }
        assert_equal 0 $n "subscriber dropped"
        assert_equal {obl 0} [r pubsub numsub obl]
        assert_morethan [count_log_message "*overcoming of output buffer limits*"] $before
        catch {$c close}
        r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    } {} {needs:config external:skip}

    test {Slow subscribers of big messages are closed at the hard limit, a reader keeps all} {
        # Each message counts in full in every subscriber's output (in redis-tp the message
        # is one frame their buffers share): the two that never read are closed at the limit,
        # while the one that reads gets every message whole.
        r config set client-output-buffer-limit "pubsub 100kb 0 0"
        set slow {}
        foreach proto {2 3} {
            set c [ps_client $proto]
            ps_subscribe $c {bigobl}
            lappend slow $c
        }
        set reader [ps_client 3]
        ps_subscribe $reader {bigobl}
        set n 3
        set i 0
        for {} {$i < 5000 && $n > 1} {incr i} {
            set payload "$i:[string repeat y 8000]"
            set n [r publish bigobl $payload]
            assert_equal [list message bigobl $payload] [$reader read]
        }
        assert_equal 1 $n "both slow subscribers dropped"
        assert_equal {bigobl 1} [r pubsub numsub bigobl]
        # The reader goes on receiving after the others' buffers released the messages.
        assert_equal 1 [r publish bigobl last]
        assert_equal {message bigobl last} [$reader read]
        foreach c $slow {catch {$c close}}
        $reader close
        r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    } {} {needs:config}

    test {A subscriber over the pubsub soft limit for longer than its seconds is closed} {
        r config set client-output-buffer-limit "pubsub 0 64kb 1"
        set c [ps_client 2]
        $c client setname softsub
        $c read
        ps_subscribe $c {soft}
        # Keep publishing 200 KB messages (at most 100 of them): once the socket buffers are
        # full the backlog stays over the soft limit, and after one second there a publish
        # finds the subscriber closed.
        set payload [string repeat s 200000]
        wait_for_condition 100 50 {[r publish soft $payload] == 0} else {
            fail "the slow subscriber was not closed at the soft limit"
        }
        catch {$c close}
        r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    } {} {needs:config}

    test {The normal class does not apply to a subscriber} {
        # A normal-class hard limit small enough to kill any backlog; the pubsub class has
        # none. The subscriber survives its backlog, then reads all of it.
        r config set client-output-buffer-limit "normal 50kb 0 0 pubsub 0 0 0"
        set c [ps_client 2]
        ps_subscribe $c {nolimit}
        set payload [string repeat y 4000]
        for {set i 0} {$i < 200} {incr i} {
            assert_equal 1 [r publish nolimit $payload]
        }
        for {set i 0} {$i < 200} {incr i} {
            assert_equal [list message nolimit $payload] [$c read]
        }
        $c close
        r config set client-output-buffer-limit "normal 0 0 0 pubsub 32mb 8mb 60"
    } {} {needs:config}
}

# CLIENT REPLY OFF / SKIP suppress replies, not pushes: confirmations and messages still
# arrive, in RESP2 as in RESP3, as Redis 7.0 sends them (issue 20, defect 5a: a subscriber
# under REPLY OFF used to wait forever for its confirmations).
start_server {tags {pubsub}} {
    foreach proto {2 3} {
        test "Confirmations and messages reach a subscriber under CLIENT REPLY OFF (RESP$proto)" {
            set c [ps_client $proto]
            $c client reply off
            assert_equal {{subscribe ro 1}} [ps_subscribe $c {ro}]
            assert_equal {{psubscribe ro:* 2}} [ps_psubscribe $c {ro:*}]
            assert_equal 1 [r publish ro hello]
            assert_equal {message ro hello} [$c read]
            assert_equal 1 [r publish ro:x hi]
            assert_equal {pmessage ro:* ro:x hi} [$c read]
            assert_equal {{unsubscribe ro 1}} [ps_unsubscribe $c {ro}]
            assert_equal {{punsubscribe ro:* 0}} [ps_punsubscribe $c {ro:*}]
            # Out of subscribed mode: REPLY ON answers, and nothing else was sent meanwhile.
            $c client reply on
            assert_equal OK [$c read]
            $c ping
            assert_equal PONG [$c read]
            $c close
        }

        test "The confirmation of a SUBSCRIBE under CLIENT REPLY SKIP arrives (RESP$proto)" {
            set c [ps_client $proto]
            $c client reply skip
            assert_equal {{subscribe skipped 1}} [ps_subscribe $c {skipped}]
            assert_equal 1 [r publish skipped m]
            assert_equal {message skipped m} [$c read]
            ps_expect_nothing $c $proto
            $c close
        }

        test "Keyspace notifications reach a subscriber under CLIENT REPLY OFF (RESP$proto)" {
            r config set notify-keyspace-events KA
            set c [ps_client $proto]
            $c client reply off
            set channel "__keyspace@[srv 0 db]__:rokey"
            assert_equal [list [list subscribe $channel 1]] [ps_subscribe $c [list $channel]]
            r set rokey v
            assert_equal [list message $channel set] [$c read]
            r del rokey
            assert_equal [list message $channel del] [$c read]
            r config set notify-keyspace-events ""
            $c close
        } {} {needs:config}
    }

    test {Under CLIENT REPLY OFF, MULTI / SUBSCRIBE / EXEC sends only the confirmation (RESP3)} {
        set c [ps_client 3]
        $c client reply off
        $c multi
        $c subscribe inmulti
        $c ping
        $c exec
        assert_equal {subscribe inmulti 1} [$c read]
        $c client reply on
        assert_equal OK [$c read]
        $c close
    }
}
