# Fencing tokens never repeat (issue 20, defect 3; docs/temporary-keys-and-watches.md,
# "Fencing tokens"): across a clean restart and a kill -9, with `save ""` and no AOF, with the
# AOF, while the reservation file cannot be written (FENCE is refused, the server keeps
# running), and a damaged reservation file stops the server at startup.
#
# The counter must be far above the wall clock in microseconds for a test to mean anything:
# below it, the clock floor alone would hide a repeat. So each test starts the server on a
# hand-made RDB file (or AOF base) whose aux field redistp-fence holds 5·10^15 (below 2^53,
# so Lua scripts still see exact numbers). Before the reservation file, a kill -9 after drawing
# tokens made the next token repeat one of them.

set ::tkf_far 5000000000000000

# Writes an RDB file (version 10, checksum 0: not checked) holding only the aux field
# redistp-fence = `counter`.
proc tkf_write_rdb {path counter} {
    set f [open $path wb]
    puts -nonewline $f "REDIS0010"
    foreach {name value} [list redistp-fence $counter] {
        puts -nonewline $f [binary format c 250]
        puts -nonewline $f [binary format c [string length $name]]$name
        puts -nonewline $f [binary format c [string length $value]]$value
    }
    puts -nonewline $f [binary format c 255]
    puts -nonewline $f [binary format x8]
    close $f
}

# Draws `n` tokens in one script (SETTP FENCE then DELTP, as in the issue) and returns the last.
proc tkf_draw {n} {
    return [r eval {
        local t
        for i = 1, tonumber(ARGV[1]) do
            t = redis.call('settp', KEYS[1], 'v', 'FENCE')
            redis.call('deltp', KEYS[1])
        end
        return t
    } 1 fencekey $n]
}

# The next token, drawn from a separate connection whose key goes with it.
proc tkf_next {} {
    set c [redis_client]
    set t [$c settp nextkey v FENCE]
    $c close
    return $t
}

proc tkf_file_mark {{name redistp-fence}} {
    set f [open [server_path 0 $name] r]
    set text [read $f]
    close $f
    assert_match "redistp-fence-mark:*\n" $text
    return [string range [string trim $text] [string length "redistp-fence-mark:"] end]
}

start_server {tags {tempkeys redistp external:skip} overrides {save "" enable-protected-configs yes}} {
    tkf_write_rdb [server_path 0 dump.rdb] $::tkf_far
    restart_server 0

    test {Fencing: tokens after a kill -9 are above every earlier one (save "", no AOF)} {
        set last [tkf_draw 2000]
        assert_morethan $last $::tkf_far
        assert_equal {} [restart_server 0 kill]
        # The RDB file still says 5·10^15: only the reservation file knows better.
        set next [tkf_next]
        assert_morethan $next $last
        # Every token handed out is covered by the durable mark.
        assert_morethan_equal [tkf_file_mark] $next
        set last [tkf_draw 10]
        assert_equal {} [restart_server 0 kill]
        assert_morethan [tkf_next] $last
    }

    test {Fencing: tokens after a clean restart are above every earlier one} {
        set last [tkf_draw 100]
        assert_equal {} [restart_server 0]
        assert_morethan [tkf_next] $last
    }

    test {Fencing: a FENCE request is refused while the reservation cannot be written} {
        set before [tkf_next]
        # A new file: nothing is reserved there yet, and its temporary name is taken by a
        # directory, so the write fails (even for root).
        file mkdir [server_path 0 blocked.tmp]
        r config set tp-fence-file blocked
        assert_error "ERR fencing token unavailable: the reservation could not be made durable (*blocked.tmp*)" \
            {r settp refused v FENCE}
        assert_equal 0 [r exists refused]
        # Everything else goes on, SETTP without FENCE included; the next request retries.
        set c [redis_client]
        assert_equal 1 [$c settp unfenced v]
        assert_error "*fencing token unavailable*" {$c bsettp refused v 0 FENCE}
        $c close
        wait_for_log_message "*Fencing tokens refused*blocked.tmp*"
        file delete [server_path 0 blocked.tmp]
        set after [tkf_next]
        assert_morethan $after $before
        assert_morethan_equal [tkf_file_mark blocked] $after
        r config set tp-fence-file redistp-fence
        assert_morethan [tkf_next] $after
    } {} {needs:config}

    test {Fencing: tp-fence-file is a file name in dir} {
        assert_error "*tp-fence-file can't be a path, just a filename*" \
            {r config set tp-fence-file sub/file}
        assert_error "*tp-fence-file can't be empty*" {r config set tp-fence-file ""}
        assert_equal {tp-fence-file redistp-fence} [r config get tp-fence-file]
    } {} {needs:config}
}

start_server {tags {tempkeys redistp external:skip} overrides {appendonly yes appendfsync always}} {
    # The AOF's base file becomes the hand-made RDB: the replay starts from 5·10^15.
    set manifest [open [server_path 0 appendonlydir/appendonly.aof.manifest] r]
    set base ""
    foreach line [split [read $manifest] "\n"] {
        if {[string match "* type b*" $line]} {set base [lindex $line 1]}
    }
    close $manifest
    tkf_write_rdb [server_path 0 appendonlydir/$base] $::tkf_far
    restart_server 0

    test {Fencing: tokens after a kill -9 are above every earlier one (AOF)} {
        set last [tkf_draw 1000]
        assert_morethan $last $::tkf_far
        assert_equal {} [restart_server 0 kill]
        assert_morethan [tkf_next] $last
    }
}

start_server {tags {tempkeys redistp external:skip}} {
    test {Fencing: a damaged reservation file stops the server at startup} {
        set dir [server_path 0 damaged]
        file mkdir $dir
        set f [open [file join $dir redistp-fence] w]
        puts -nonewline $f "not a mark"
        close $f
        lassign [run_server_briefly [list --port 0 --bind 127.0.0.1 --save "" --dir $dir \
            --unixsocket [file join $dir s.sock]]] status output
        assert_equal "exit 1" $status
        assert_match "*fencing reservation file 'redistp-fence' is damaged*fencing tokens could repeat*" \
            $output
    }
}
