# Memory tooling as Debian's Redis 7.0 has it: active defragmentation cannot be turned on (the
# system jemalloc lacks the hint the defragmenter needs), and DEBUG MALLCTL / MALLCTL-STR read
# and write jemalloc's controls.

start_server {tags {memefficiency needs:config}} {
    test {activedefrag yes is refused with the reason; no stays} {
        catch {r config set activedefrag yes} e
        assert_equal "ERR CONFIG SET failed (possibly related to argument 'activedefrag') - Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution" $e
        assert_equal {activedefrag no} [r config get activedefrag]
        assert_equal OK [r config set activedefrag no]
        assert_error {*argument must be 'yes' or 'no'*} {r config set activedefrag maybe}
        # The tuning parameters are still there to read and set.
        assert_equal OK [r config set active-defrag-cycle-min 2]
        assert_equal {active-defrag-cycle-min 2} [r config get active-defrag-cycle-min]
        r config set active-defrag-cycle-min 1
    }

    test {INFO memory reports no defragmentation under way} {
        assert_equal 0 [s active_defrag_running]
    }
}

tags {memefficiency external:skip} {
    test {activedefrag yes on the command line stops the start} {
        lassign [run_server_briefly {--bind 127.0.0.1 --port 0 --activedefrag yes}] status out
        assert_equal {exit 1} $status
        assert_match "*FATAL CONFIG FILE ERROR*>>> 'activedefrag \"yes\"'*Active defragmentation cannot be enabled*" $out
    }
}

start_server {tags {memefficiency needs:debug}} {
    # Only a jemalloc build has these subcommands (as in Redis).
    set have_mallctl [expr {![catch {r debug mallctl-str version}]}]

    test {DEBUG MALLCTL-STR reads jemalloc's string controls} {
        if {!$have_mallctl} {return}
        assert_match {5.*} [r debug mallctl-str version]
        # A read-only control refuses the write but still gives its value.
        set thp [r debug mallctl-str opt.metadata_thp]
        assert_equal $thp [r debug mallctl-str opt.metadata_thp always]
        assert_error {ERR No such file or directory} {r debug mallctl-str no.such.control}
        # VOID triggers a control that takes no value.
        assert_equal OK [r debug mallctl-str thread.tcache.flush VOID]
        assert_error {ERR Operation not permitted} {r debug mallctl-str thread.tcache.flush}
    }

    test {DEBUG MALLCTL reads and writes jemalloc's 8-byte integer controls} {
        if {!$have_mallctl} {return}
        assert_equal 4096 [r debug mallctl arenas.page]
        assert {[r debug mallctl stats.active] > 0}
        set decay [r debug mallctl arenas.dirty_decay_ms]
        # A write answers the old value.
        assert_equal $decay [r debug mallctl arenas.dirty_decay_ms 5000]
        assert_equal 5000 [r debug mallctl arenas.dirty_decay_ms]
        r debug mallctl arenas.dirty_decay_ms $decay
        # Narrower controls do not read as 8 bytes; read-only ones refuse writes.
        assert_error {ERR Invalid argument} {r debug mallctl opt.narenas}
        assert_error {ERR Operation not permitted} {r debug mallctl opt.narenas 4}
        assert_error {ERR Operation not permitted} {r debug mallctl version 5}
        assert_error {ERR No such file or directory} {r debug mallctl no.such.control}
        assert_error {ERR value is not an integer or out of range} {r debug mallctl stats.active abc}
    }
}
