# maxmemory and eviction: every maxmemory-policy evicts the class of keys it names (all keys,
# or only keys with a TTL), in its order (least recently used, least frequently used, nearest
# expiry, any), noeviction refuses deny-oom commands with the OOM error and serves the rest,
# MULTI/EXEC follow Redis 7.0's admission rules, and a lower maxmemory set at runtime takes
# effect on the next command. Memory figures differ between servers, so the tests size the
# limit from the server's own used_memory and assert behaviour, not counts.

# Writes n keys prefix0..prefix{n-1} holding size-byte values (with EX ttl when ttl > 0),
# pipelined. Returns the number of OOM refusals met.
proc mm_fill {prefix n {size 1000} {ttl 0}} {
    set c [redis_deferring_client]
    set value [string repeat x $size]
    set refused 0
    set pending 0
    for {set i 0} {$i < $n} {incr i} {
        if {$ttl > 0} {
            $c set $prefix$i $value ex $ttl
        } else {
            $c set $prefix$i $value
        }
        incr pending
        if {$pending == 200 || $i == $n - 1} {
            for {} {$pending > 0} {incr pending -1} {
                if {[catch {$c read} e]} {
                    if {![string match {OOM *} $e]} { error $e }
                    incr refused
                }
            }
        }
    }
    $c close
    return $refused
}

# Writes prefix0, prefix1 ... with `r`, one at a time, until the server refuses one with the
# OOM error (at most n). Returns how many were written. One at a time, so that no pipelined
# query buffer inflates the figure while it fills and deflates it afterwards.
proc mm_fill_until_oom {prefix n {size 1000}} {
    set value [string repeat x $size]
    for {set i 0} {$i < $n} {incr i} {
        if {[catch {r set $prefix$i $value} e]} {
            assert_match {OOM command not allowed when used memory > 'maxmemory'.} $e
            return $i
        }
    }
    return $n
}

# How many of prefix0..prefix{n-1} exist.
proc mm_count {prefix n} {
    set keys {}
    for {set i 0} {$i < $n} {incr i} { lappend keys $prefix$i }
    r exists {*}$keys
}

# Sets maxmemory to the current used_memory plus `extra` bytes and returns the limit.
proc mm_limit_above_used {extra} {
    set limit [expr {[s used_memory] + $extra}]
    r config set maxmemory $limit
    return $limit
}

start_server {tags {maxmemory external:skip needs:config}} {
    test {maxmemory and maxmemory-policy show in INFO memory} {
        r config set maxmemory 10mb
        r config set maxmemory-policy allkeys-lru
        assert_equal [s maxmemory] 10485760
        assert_equal [s maxmemory_policy] allkeys-lru
        assert_equal [s mem_not_counted_for_evict] 0
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
    }

    foreach policy {allkeys-lru allkeys-lfu allkeys-random} {
        test "$policy evicts keys to stay under maxmemory" {
            r flushall
            r config set maxmemory-policy $policy
            set before [s evicted_keys]
            set limit [mm_limit_above_used 2000000]
            assert_equal 0 [mm_fill k: 4000]
            set kept [r dbsize]
            assert_morethan $kept 0
            assert_lessthan $kept 4000
            assert_morethan [s evicted_keys] $before
            # Eviction runs before each command, so at most the last write is over the limit;
            # a pass that ran out of its time budget (slow builds) is finished by the cron.
            wait_for_condition 50 100 {
                [s used_memory] < $limit + 64 * 1024
            } else {
                fail "used_memory stays over maxmemory: [s used_memory] > $limit"
            }
            r config set maxmemory 0
        }
    }

    foreach policy {volatile-lru volatile-lfu volatile-random volatile-ttl} {
        test "$policy evicts only keys with a TTL" {
            r flushall
            r config set maxmemory-policy $policy
            set limit [mm_limit_above_used 2000000]
            assert_equal 0 [mm_fill p: 500]
            set before [s evicted_keys]
            assert_equal 0 [mm_fill v: 4000 1000 100000]
            assert_morethan [s evicted_keys] $before
            assert_equal 500 [mm_count p: 500] "keys without a TTL are never evicted"
            assert_lessthan [mm_count v: 4000] 4000
            r config set maxmemory 0
        }
    }

    test {volatile-* with no volatile key left refuses writes with OOM} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy volatile-lru
        r config resetstat
        set limit [mm_limit_above_used 500000]
        assert_lessthan [mm_fill_until_oom p: 5000] 5000
        # Right at the limit a refused command's own arguments may tip the figure back under
        # it; well below, every write is refused.
        r config set maxmemory [expr {[s used_memory] - 100000}]
        assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r set one more}
        assert_equal 0 [s evicted_keys]
        r config set maxmemory 0
    }

    test {volatile-ttl evicts the nearest expiry first} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy volatile-ttl
        set limit [mm_limit_above_used 2000000]
        # 800 keys expiring soon, then keys expiring much later until evictions have happened.
        assert_equal 0 [mm_fill near: 800 1000 10000]
        assert_equal 0 [mm_fill far: 3000 1000 1000000]
        set near_left [expr {[mm_count near: 800] / 800.0}]
        set far_left [expr {[mm_count far: 3000] / 3000.0}]
        assert {$near_left < $far_left}
        r config set maxmemory 0
    }

    test {allkeys-lru keeps the keys that were read recently} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy allkeys-lru
        assert_equal 0 [mm_fill old: 1000]
        # The LRU clock counts seconds: wait until the keys are visibly idle, then read half.
        wait_for_condition 50 100 {
            [r object idletime old:999] >= 2
        } else {
            fail "keys never became idle"
        }
        for {set i 0} {$i < 500} {incr i} { r get old:$i }
        set limit [mm_limit_above_used 200000]
        assert_equal 0 [mm_fill new: 1000]
        set read_left 0
        set unread_left 0
        for {set i 0} {$i < 500} {incr i} {
            incr read_left [r exists old:$i]
            incr unread_left [r exists old:[expr {$i + 500}]]
        }
        assert_morethan $read_left $unread_left
        r config set maxmemory 0
    }

    test {allkeys-lfu keeps the keys that are read often} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy allkeys-lfu
        r config set lfu-log-factor 0
        assert_equal 0 [mm_fill f: 1000]
        for {set round 0} {$round < 10} {incr round} {
            for {set i 0} {$i < 500} {incr i} { r get f:$i }
        }
        set limit [mm_limit_above_used 200000]
        assert_equal 0 [mm_fill new: 1000]
        set hot_left 0
        set cold_left 0
        for {set i 0} {$i < 500} {incr i} {
            incr hot_left [r exists f:$i]
            incr cold_left [r exists f:[expr {$i + 500}]]
        }
        assert_morethan $hot_left $cold_left
        r config set lfu-log-factor 10
        r config set maxmemory 0
    }

    test {noeviction refuses writes with OOM but serves reads and DEL} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy noeviction
        r config resetstat
        r set kept value
        set limit [mm_limit_above_used 500000]
        assert_lessthan [mm_fill_until_oom k: 5000] 5000
        r config set maxmemory [expr {[s used_memory] - 100000}]
        assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r set one more}
        assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r lpush l a}
        assert_equal value [r get kept]
        assert_equal 1 [r exists k:0]
        assert_equal 1 [r del k:0]
        assert_equal 0 [s evicted_keys]
        r config set maxmemory 0
        assert_equal OK [r set one more]
    }

    test {Over the limit inside MULTI: queueing is refused, EXEC aborts, DISCARD works} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy noeviction
        set limit [mm_limit_above_used 500000]
        assert_lessthan [mm_fill_until_oom k: 5000] 5000
        r config set maxmemory [expr {[s used_memory] - 100000}]
        r multi
        assert_error {OOM command not allowed*} {r set a b}
        assert_error {OOM command not allowed*} {r get k:1}
        assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
        r multi
        assert_error {OOM command not allowed*} {r get k:1}
        assert_equal OK [r discard]
        r config set maxmemory 0
    }

    test {EXEC of a queued write is refused when memory went over the limit meanwhile} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy noeviction
        assert_equal 0 [mm_fill k: 1000]
        set limit [expr {[s used_memory] - 200000}]
        r multi
        assert_equal QUEUED [r set a b]
        assert_equal QUEUED [r get k:1]
        set other [redis_client]
        $other config set maxmemory $limit
        assert_error {EXECABORT Transaction discarded because of: OOM command not allowed when used memory > 'maxmemory'.} {r exec}
        assert_equal 0 [r exists a]
        assert_equal [string repeat x 1000] [r get k:1] "reads outside MULTI are served"
        $other config set maxmemory 0
        $other close
    }

    test {A RESP2 subscriber past the limit: OOM for a write, the subscribed-context error for a read} {
        # The memory check comes before the subscribed-context check, as in Redis 7.0.
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy noeviction
        set sub [redis_deferring_client]
        $sub subscribe mm:ch
        assert_equal {subscribe mm:ch 1} [$sub read]
        r config set maxmemory 1
        $sub set mm:k v
        assert_error {OOM command not allowed*} {$sub read}
        $sub get mm:k
        assert_error {ERR Can't execute 'get': only (P|S)SUBSCRIBE*} {$sub read}
        r config set maxmemory 0
        $sub close
    }

    test {A lower maxmemory set at runtime evicts on the next write} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy allkeys-random
        assert_equal 0 [mm_fill k: 2000]
        set before [s evicted_keys]
        set limit [expr {[s used_memory] - 1000000}]
        r config set maxmemory $limit
        r set trigger 1
        assert_morethan [s evicted_keys] $before
        assert_lessthan [r dbsize] 2001
        # The cron finishes a pass that ran out of its time budget (slow builds).
        wait_for_condition 50 100 {
            [s used_memory] < $limit + 64 * 1024
        } else {
            fail "used_memory stays over maxmemory: [s used_memory] > $limit"
        }
        r config set maxmemory 0
    }

    test {No eviction while clients are paused; it resumes with the next command after} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy allkeys-random
        assert_equal 0 [mm_fill k: 2000]
        set before [s evicted_keys]
        r client pause 100000 write
        r config set maxmemory [expr {[s used_memory] - 1000000}]
        assert_equal [string repeat x 1000] [r get k:1]
        assert_equal $before [s evicted_keys]
        assert_equal 2000 [r dbsize]
        r client unpause
        r get k:1
        assert_morethan [s evicted_keys] $before
        r config set maxmemory 0
    }
}

start_server {tags {maxmemory redistp external:skip needs:config}} {
    test {Temporary keys are never evicted} {
        r config set maxmemory-policy allkeys-random
        set owner [redis_client]
        for {set i 0} {$i < 50} {incr i} {
            assert_equal 1 [$owner settp lock:$i [string repeat y 1000]]
        }
        set limit [mm_limit_above_used 1000000]
        set before [s evicted_keys]
        assert_equal 0 [mm_fill k: 3000]
        assert_morethan [s evicted_keys] $before
        assert_equal 50 [mm_count lock: 50]
        r config set maxmemory 0
        $owner close
    }

    test {A dataset of temporary keys only cannot be evicted: writes are refused} {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy allkeys-lru
        set owner [redis_client]
        set limit [mm_limit_above_used 300000]
        set refused 0
        for {set i 0} {$i < 1000 && !$refused} {incr i} {
            if {[catch {$owner settp lock:$i [string repeat y 1000]} e]} {
                assert_match {OOM command not allowed*} $e
                set refused 1
            }
        }
        assert_equal 1 $refused
        assert_equal [r dbsize] [mm_count lock: $i]
        r config set maxmemory 0
        $owner close
    }
}

start_server {tags {maxmemory}} {
    test {The key table does not grow past maxmemory: growing it would itself evict keys} {
        r flushall
        # 4096 keys fill a table of 4096 buckets: the next new key would double it (64 KB more),
        # which the 40 KB of room left below cannot hold.
        for {set i 0} {$i < 4096} {incr i 512} {
            set pairs {}
            for {set j $i} {$j < $i + 512} {incr j} { lappend pairs k$j v }
            r mset {*}$pairs
        }
        assert_equal 4096 [r dbsize]
        r config set maxmemory-policy allkeys-random
        # The first INFO replies grow this connection's buffers: read until the figure settles.
        set used [s used_memory]
        for {set i 0} {$i < 10} {incr i} {
            set again [s used_memory]
            if {$again == $used} break
            set used $again
        }
        r config set maxmemory [expr {$used + 40000}]
        r set extra1 v
        r set extra2 v
        assert_equal 4098 [r dbsize]
        assert_equal 0 [s evicted_keys]
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
    }
}

start_server {tags {maxmemory external:skip}} {
    test {The key table does not grow with 10 KB of room, measured once} {
        r config set latency-tracking no
        r config set maxmemory 0
        r config set maxmemory-policy allkeys-random
        # 4096 keys: the next new key would double the table (64 KB more).
        populate 4096 "" 1
        r config set maxmemory [expr {[s used_memory] + 10 * 1024}]
        r set k1 v1
        r set k2 v2
        assert_equal 4098 [r dbsize]
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
    } {OK} {needs:config}

    test {Invalidations of evicted keys do not make eviction evict far more} {
        r flushall
        r config set latency-tracking no
        r config set maxmemory 0
        r config set maxmemory-policy allkeys-lru
        r config set maxmemory-eviction-tenacity 100
        # Ten RESP3 trackers, each reading every key: each evicted key sends ten invalidations
        # of its 1 KB name.
        set trackers {}
        for {set j 0} {$j < 10} {incr j} {
            set rd [redis_deferring_client]
            $rd hello 3
            $rd read
            $rd client tracking on
            $rd read
            lappend trackers $rd
        }
        for {set j 0} {$j < 300} {incr j} {
            set key $j[string repeat k 1000]
            r set $key v
            foreach rd $trackers {
                $rd get $key
                $rd read
            }
        }
        # The cron gives back the trackers' spare query buffer room first, so the figure
        # read below is the one the next command's eviction sees.
        after 1100
        r config set maxmemory [expr {[s used_memory] - 40000}]
        set evicted [s evicted_keys]
        # About 40 KB were needed: a few dozen keys of 2 KB (the key and its tracking entry),
        # not a drained database.
        assert_range [r dbsize] 200 300
        assert_range $evicted 10 50
        foreach rd $trackers {
            # Each tracker was told about the evicted keys.
            assert_match {invalidate *} [$rd read]
            $rd close
        }
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
        r config set maxmemory-eviction-tenacity 10
    } {OK} {needs:config}
}

# Memory that clients hold (output buffers, query buffers) counts against maxmemory. With
# maxmemory-clients set, the clients go before any key does; without it, keys are evicted.
start_server {tags {maxmemory external:skip}} {
    # 50 keys of 100 KB, under a maxmemory with 8 MB of room above them.
    proc mmc_init {client_eviction} {
        r flushdb
        r config set maxmemory 0
        r config set maxmemory-policy allkeys-random
        if {$client_eviction} {
            r config set maxmemory-clients 3mb
            r client no-evict on
        } else {
            r config set maxmemory-clients 0
        }
        r config resetstat
        for {set j 0} {$j < 50} {incr j} {
            r setrange $j 100000 x
        }
        r config set maxmemory [expr {[s used_memory] + 8 * 1024 * 1024}]
    }

    # Client eviction: clients went, no key did. Without it: keys went, no client did.
    proc mmc_evicted_as_expected {client_eviction} {
        set clients [s evicted_clients]
        set keys [s evicted_keys]
        if {$client_eviction} {
            return [expr {$clients > 0 && $keys == 0 && [r dbsize] == 50}]
        }
        return [expr {$clients == 0 && $keys > 0 && [r dbsize] < 50}]
    }

    proc mmc_something_evicted {} {
        return [expr {[s evicted_clients] > 0 || [s evicted_keys] > 0}]
    }

    proc mmc_done {} {
        r config set maxmemory 0
        r config set maxmemory-clients 0
        r client no-evict off
        r flushdb
    }

    foreach client_eviction {false true} {
        # With client eviction on, a client closed before its own command runs (it is the
        # largest) gives back its piled-up replies at once: the next command's key eviction
        # must not count them, so no key goes.
        test "eviction due to output buffers of many MGET clients, client eviction: $client_eviction" {
            mmc_init $client_eviction
            set clients {}
            for {set j 0} {$j < 20} {incr j} {
                lappend clients [redis_deferring_client]
            }
            # The clients never read: their replies pile up in the server until something
            # is evicted (bounded: 2000 rounds, 30 s).
            set start [clock seconds]
            for {set round 0} {$round < 2000 && ![mmc_something_evicted] &&
                               [clock seconds] - $start < 30} {incr round} {
                foreach rd $clients {
                    if {[catch {$rd mget 1; $rd flush}]} {
                        set clients [lsearch -all -inline -not -exact $clients $rd]
                    }
                }
            }
            assert [mmc_evicted_as_expected $client_eviction]
            foreach rd $clients {catch {$rd close}}
            mmc_done
        } {OK} {needs:config}

        test "eviction due to input buffer of a dead client, client eviction: $client_eviction" {
            mmc_init $client_eviction
            set rd [redis_deferring_client]
            $rd client setname dead
            $rd read
            # A command that never ends: one bulk argument, sent but never completed.
            $rd write "*2\r\n\$3\r\nGET\r\n\$500000000\r\n"
            set chunk [string repeat x 100000]
            set start [clock seconds]
            for {set i 0} {$i < 1000 && ![mmc_something_evicted] &&
                           [clock seconds] - $start < 30} {incr i} {
                if {[catch {$rd write $chunk; $rd flush}]} break
            }
            assert [mmc_evicted_as_expected $client_eviction]
            catch {$rd close}
            mmc_done
        } {OK} {needs:config}

        test "eviction due to output buffers of pubsub, client eviction: $client_eviction" {
            mmc_init $client_eviction
            set rd [redis_deferring_client]
            $rd subscribe bigchan
            $rd read
            set msg [string repeat m 100000]
            set start [clock seconds]
            for {set i 0} {$i < 1000 && ![mmc_something_evicted] &&
                           [clock seconds] - $start < 30} {incr i} {
                r publish bigchan $msg
            }
            assert [mmc_evicted_as_expected $client_eviction]
            catch {$rd close}
            mmc_done
        } {OK} {needs:config}
    }
}
