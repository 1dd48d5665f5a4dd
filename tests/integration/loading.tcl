# Serving clients while a dataset loads: an RDB file or an AOF at startup, DEBUG RELOAD and
# DEBUG LOADAOF answer the other connections every loading-process-events-interval-bytes.
# They hear LOADING for data commands, the commands flagged `loading` (INFO, CONFIG, CLIENT,
# SELECT, SHUTDOWN ...) are served, INFO persistence shows the progress, a parameter that would
# disturb the load is refused, and SHUTDOWN or SIGTERM end the process at once without saving.
# key-load-delay (µs per key) holds the server in the loading state: a file of 20000 small keys
# takes several seconds to load with 300 µs each, and every block ends it with SIGTERM.

# Fills the test database with `n` keys and saves dump.rdb.
proc loading_fill {n} {
    r debug populate $n key 100
    r save
}

# Waits until the server at level 0 has exited.
proc loading_wait_exit {} {
    wait_for_condition 200 50 {![is_alive]} else {
        fail "the server is still running"
    }
}

# The value of one INFO persistence field.
proc loading_field {name} {
    return [getInfoProperty [r info persistence] $name]
}

set loading_conf {key-load-delay 300 loading-process-events-interval-bytes 1024
                  rdbcompression no save {} enable-protected-configs yes}

start_server [list tags {loading external:skip needs:debug} overrides $loading_conf] {
    loading_fill 20000
    set rdb_size [file size [server_path 0 dump.rdb]]
    restart_server 0 term loading

    test {Data commands get LOADING while the RDB file loads} {
        assert_equal [s loading] 1
        assert_error {LOADING Redis is loading the dataset in memory} {r get key:1}
        assert_error {LOADING*} {r ping}
        assert_error {LOADING*} {r dbsize}
        assert_error {LOADING*} {r set k v}
        assert_error {LOADING*} {r eval {return 1} 0}
    }

    test {INFO persistence shows the progress of the load} {
        set info [r info persistence]
        assert_equal [getInfoProperty $info loading] 1
        assert_equal [getInfoProperty $info async_loading] 0
        assert_equal [getInfoProperty $info loading_total_bytes] $rdb_size
        set loaded [getInfoProperty $info loading_loaded_bytes]
        assert_range $loaded 1 [expr {$rdb_size - 1}]
        assert_morethan [getInfoProperty $info loading_rdb_used_mem] 0
        assert_match {[0-9]*.[0-9][0-9]} [getInfoProperty $info loading_loaded_perc]
        assert_morethan_equal [getInfoProperty $info loading_eta_seconds] 0
        set start [getInfoProperty $info loading_start_time]
        assert_range $start [expr {[clock seconds] - 120}] [expr {[clock seconds] + 1}]
    }

    test {Commands flagged loading are served while loading} {
        assert_equal [r echo hi] hi
        assert_equal [r select 9] OK
        assert_equal [llength [r time]] 2
        assert_equal [string is integer [r client id]] 1
        assert_equal [r config set loglevel verbose] OK
        assert_equal [r config get loglevel] {loglevel verbose}
        assert_equal [r config set loglevel notice] OK
        assert_error {ERR No shutdown in progress.} {r shutdown abort}
        assert_equal [s loading] 1
    }

    test {CONFIG SET of dir, appendonly or repl-diskless-load is refused with LOADING} {
        assert_error {LOADING*} {r config set appendonly yes}
        # dir is protected (allowed in these blocks); the load still refuses it.
        assert_error {LOADING*} {r config set dir [srv dir]}
        assert_error {LOADING*} {r config set repl-diskless-load swapdb}
        # The names are judged in order (unknown, immutable, then this refusal, then
        # duplicates), before any value: the first fault is the one reported, nothing changes.
        assert_error {ERR Unknown option*'no-such-parameter'} \
            {r config set no-such-parameter 1 appendonly yes}
        assert_error {LOADING*} {r config set appendonly yes no-such-parameter 1}
        assert_error {*can't set immutable config} {r config set databases 4 appendonly yes}
        assert_error {LOADING*} {r config set appendonly yes databases 4}
        assert_error {LOADING*} {r config set appendonly yes appendonly no}
        assert_error {LOADING*} {r config set maxmemory-policy allkeys-lru appendonly yes}
        assert_error {LOADING*} {r config set appendonly yes maxmemory bad}
        assert_equal [r config get maxmemory-policy] {maxmemory-policy noeviction}
        assert_equal [r config get appendonly] {appendonly no}
    }

    test {Clients that leave during loading are freed} {
        set clients {}
        for {set j 0} {$j < 5} {incr j} {
            lappend clients [redis_deferring_client]
        }
        foreach rd $clients {$rd debug log bla}
        foreach rd $clients {assert_equal [$rd read] OK}
        foreach rd $clients {$rd close}
        wait_for_condition 100 50 {[s connected_clients] < 3} else {
            fail "the clients were not freed"
        }
        assert_equal [s loading] 1
    }

    test {SIGTERM during loading ends the server at once} {
        exec kill -TERM [srv pid]
        loading_wait_exit
        assert_equal [count_log_message {*Received shutdown signal during loading*}] 1
    }
}

start_server [list tags {loading external:skip needs:debug} \
                  overrides [dict replace $loading_conf save {900 1}]] {
    loading_fill 20000
    restart_server 0 term loading

    test {SHUTDOWN during loading exits without saving, even with save points} {
        assert_equal [s loading] 1
        set saves [count_log_message {*Saving the final RDB snapshot*}]
        catch {r shutdown} e
        assert_match {*I/O error*} $e
        loading_wait_exit
        assert_equal [count_log_message {*Saving the final RDB snapshot*}] $saves
        assert_morethan [count_log_message {*User requested shutdown*}] 0
    }
}

start_server [list tags {loading external:skip needs:debug} \
                  overrides [dict replace $loading_conf key-load-delay 0]] {
    loading_fill 20000

    test {DEBUG RELOAD serves the other clients with LOADING} {
        r config set key-load-delay 300
        set rd [redis_deferring_client]
        $rd debug reload nosave
        wait_for_condition 200 10 {[catch {r ping} e] == 1} else {
            fail "the reload did not start"
        }
        assert_match {LOADING*} $e
        assert_equal [s loading] 1
        # CONFIG SET is served meanwhile: the rest of the load goes at full speed.
        r config set key-load-delay 0
        assert_equal [$rd read] OK
        $rd close
        assert_equal [r dbsize] 20000
        assert_equal [s loading] 0
        assert_equal [r ping] PONG
    }
}

start_server [list tags {loading aof external:skip needs:debug} \
                  overrides [dict replace $loading_conf appendonly yes]] {
    r debug populate 20000 key 100
    r bgrewriteaof
    wait_for_condition 200 50 {
        [aof_rewrite_idle]
    } else {
        fail "the rewrite did not end"
    }
    set total 0
    foreach f [glob [server_path 0 appendonlydir]/appendonly.aof.*] {
        if {![string match *.manifest $f]} {incr total [file size $f]}
    }
    restart_server 0 term loading

    test {The AOF's RDB preamble loads with clients served, over the size of every file} {
        assert_equal [s loading] 1
        assert_error {LOADING*} {r get key:1}
        assert_equal [loading_field loading_total_bytes] $total
        assert_range [loading_field loading_loaded_bytes] 1 [expr {$total - 1}]
        exec kill -TERM [srv pid]
        loading_wait_exit
    }
}

start_server {tags {loading aof external:skip needs:debug}
              overrides {appendonly yes lua-time-limit 1 aof-use-rdb-preamble no}} {
    test {A slow script replayed by DEBUG LOADAOF: the others get LOADING, not BUSY} {
        r set x n
        # The AOF holds a script verbatim only when written by hand (scripts are recorded by
        # their effects): append one that runs far longer than lua-time-limit.
        wait_for_condition 200 20 {[s aof_buffer_length] == 0} else {fail "AOF not written"}
        set incr ""
        set fd [open [server_path 0 appendonlydir/appendonly.aof.manifest] r]
        foreach line [split [read $fd] "\n"] {
            if {[lindex $line 5] eq "i"} {set incr [lindex $line 1]}
        }
        close $fd
        set script {redis.call('set',KEYS[1],'y'); for i=1,500000 do redis.call('ping') end return 'ok'}
        set fd [open [server_path 0 appendonlydir/$incr] ab]
        puts -nonewline $fd "*2\r\n\$6\r\nSELECT\r\n\$1\r\n9\r\n"
        puts -nonewline $fd "*4\r\n\$4\r\neval\r\n\$[string length $script]\r\n$script\r\n"
        puts -nonewline $fd "\$1\r\n1\r\n\$1\r\nx\r\n"
        close $fd
        set rd [redis_deferring_client]
        $rd debug loadaof
        wait_for_condition 200 10 {[catch {r ping} e] == 1} else {
            fail "the replay did not get busy"
        }
        assert_match {LOADING*} $e
        assert_error {LOADING*} {r ping}
        assert_equal [$rd read] OK
        $rd close
        assert_equal [r get x] y
    }
}

start_server {tags {aof external:skip needs:debug}
              overrides {appendonly yes appendfsync always}} {
    test {AOF fsync always: each reply comes after its record is in the file} {
        # DEBUG AOF-FLUSH-SLEEP stretches every write, so a reply sent before its write (and
        # fsync) would be seen before the record.
        assert_equal [r debug aof-flush-sleep 2000] OK
        set incr ""
        set fd [open [server_path 0 appendonlydir/appendonly.aof.manifest] r]
        foreach line [split [read $fd] "\n"] {
            if {[lindex $line 5] eq "i"} {set incr [lindex $line 1]}
        }
        close $fd
        set path [server_path 0 appendonlydir/$incr]
        set rd [redis_deferring_client]
        for {set i 0} {$i < 20} {incr i} {
            $rd set barrier:$i value-$i
            assert_equal [$rd read] OK
            set fd [open $path rb]
            set text [read $fd]
            close $fd
            assert_match "*value-$i\r\n*" $text
        }
        $rd close
        assert_equal [r debug aof-flush-sleep 0] OK
    }
}
