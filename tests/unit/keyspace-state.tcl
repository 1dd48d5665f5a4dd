# The keyspace's shared state as a client sees it, checked against Debian's Redis 7.0.15: the
# time a script's commands run at (the script's start), expiry held by CLIENT PAUSE but not for
# a write of the transaction that paused, DEBUG SET-ACTIVE-EXPIRE, and the change counter
# (rdb_changes_since_last_save) of FLUSHDB, FLUSHALL and SORT ... STORE. In redis-tp each of
# these has one owner (src/db/keyspace_state.h, Database); these tests pin what they must do.

start_server {tags {keyspace}} {
    test {A script's commands run at its start time: a TTL that passes mid-script has not} {
        r flushall
        # The script spins on TIME until 30 ms of wall time have passed (bounded in count).
        set script {
            redis.call('set', KEYS[1], 'v', 'px', 5)
            local t0 = redis.call('time')
            local start_us = t0[1] * 1000000 + t0[2]
            local spins = 0
            while spins < 5000000 do
                local t = redis.call('time')
                if t[1] * 1000000 + t[2] - start_us >= 30000 then break end
                spins = spins + 1
            end
            return {redis.call('exists', KEYS[1]), redis.call('get', KEYS[1]), spins < 5000000}
        }
        assert_equal {1 v 1} [r eval $script 1 scripted]
        # Outside the script the key's time has passed.
        assert_equal 0 [r exists scripted]
    }

    test {DEBUG SET-ACTIVE-EXPIRE 0 leaves expired keys to lookups} {
        r flushall
        r debug set-active-expire 0
        r set gone v px 1
        r set kept v
        # The TTL passes, and several cron ticks go by that would have deleted the key.
        after 300
        assert_equal 2 [r dbsize]
        set expired [s expired_keys]
        assert_equal 0 [r exists gone]
        assert_equal [expr {$expired + 1}] [s expired_keys]
        assert_equal 1 [r dbsize]
        r debug set-active-expire 1
    } {OK} {needs:debug}

    # Redis 7.0.15 fails an assertion here (db.c:191, dbAdd of the key the pause keeps), so the
    # test is redis-tp's own: the write sees the expired key, deletes it, and creates it anew.
    test {A write in the transaction that paused deletes an expired key and creates it anew} {
        r flushall
        r debug set-active-expire 0
        r set k old px 1
        after 20
        set expired [s expired_keys]
        r multi
        r client pause 60000 write
        r set k new nx
        r get k
        assert_equal {OK OK new} [r exec]
        assert_equal [expr {$expired + 1}] [s expired_keys]
        r client unpause
        assert_equal new [r get k]
        r debug set-active-expire 1
    } {OK} {needs:debug redistp}

    test {FLUSHDB and FLUSHALL count every key dropped; SORT STORE one change per element} {
        r flushall
        r config set save ""
        r select 9
        r save
        assert_equal 0 [s rdb_changes_since_last_save]
        # One element per RPUSH: Redis counts one change per element pushed, redis-tp one per
        # command (a difference of the counter this test does not pin).
        foreach v {3 1 2 5 4} {r rpush list $v}
        assert_equal 5 [s rdb_changes_since_last_save]
        assert_equal 5 [r sort list store sorted]
        assert_equal 10 [s rdb_changes_since_last_save]
        r select 2
        r set a 1
        r set b 2
        r select 9
        assert_equal 12 [s rdb_changes_since_last_save]
        r flushdb
        # list and sorted: two keys.
        assert_equal 14 [s rdb_changes_since_last_save]
        r flushdb
        assert_equal 14 [s rdb_changes_since_last_save]
        set before [s rdb_changes_since_last_save]
        r flushall
        # Two keys in database 2.
        assert_equal 2 [expr {[s rdb_changes_since_last_save] - $before}]
    }
}
