# A full disk, for real: the server's `dir` is a small tmpfs, filled up by a filler file next
# to the data. BGSAVE, SAVE, AOF appends, BGREWRITEAOF and CONFIG SET appendonly yes run out of
# space; then the filler goes and the server must recover by itself (or on the next save or
# rewrite), with every acknowledged write still there after a restart. Replies, log lines and
# INFO fields are Redis 7.0's; every test passes against Debian's redis-server 7.0.15 too.
#
# Mounting needs root (the CI and this machine run the tests as root); elsewhere every test is
# reported as skipped with the reason.
source tests/support/faults.tcl

# Fills `dir` with a file leaving about `leave` bytes free; returns its path.
proc fill_disk {dir leave} {
    set path [file join $dir filler]
    set free [fs_free_bytes $dir]
    if {[file exists $path]} {set free [expr {$free + [file size $path]}]}
    set size [expr {max(0, $free - $leave)}]
    set f [open $path w]
    fconfigure $f -translation binary
    set chunk [string repeat x 65536]
    for {set n 0} {$n + 65536 <= $size} {incr n 65536} {puts -nonewline $f $chunk}
    puts -nonewline $f [string range $chunk 0 [expr {$size - $n - 1}]]
    close $f
    return $path
}

proc free_disk {dir} {file delete -force [file join $dir filler]}

proc temp_files_in {dir} {
    return [glob -nocomplain -tails -directory $dir temp-*]
}

set misconf_rdb {MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.}

set disk_tests {
    {BGSAVE and SAVE on a full disk fail as Redis's do; with space again the next save succeeds}
    {AOF appends on a full disk are refused with MISCONF; once space is back nothing acknowledged is lost}
    {BGREWRITEAOF on a full disk fails in the child; with space again it succeeds}
    {CONFIG SET appendonly yes on a full disk: the rewrite is retried until the failure limit}
}

set mnt [tmpfs_mount 4m]
if {$mnt eq ""} {
    foreach name $disk_tests {skip_test $name $::faults::why}
} else {
try {
    start_server [list tags {persistence faults external:skip} \
            overrides [list dir $mnt save {3600 100000} rdbcompression no]] {
        test [lindex $disk_tests 0] {
            # About 1.5 MB of data, with room for one copy only when the filler is gone.
            r debug populate 1500 big 1000
            r set marker 1
            fill_disk $mnt [expr {512 * 1024}]
            assert_equal {Background saving started} [r bgsave]
            wait_for_no_child
            wait_for_log_message {*C * # Write error saving DB on disk(rdbSaveRio): No space left on device*}
            wait_for_log_message {*M * # Background saving error*}
            assert_equal err [s rdb_last_bgsave_status]
            assert_error $misconf_rdb {r set marker 2}
            assert_error ERR {r save}
            wait_for_log_message {*M * # Write error saving DB on disk(rdbSaveRio): No space left on device*}
            # The half-written temporary files are gone: the space is free again.
            assert_equal {} [temp_files_in $mnt]
            free_disk $mnt
            r bgsave
            wait_for_no_child
            assert_equal ok [s rdb_last_bgsave_status]
            assert_equal 0 [s rdb_changes_since_last_save]
            assert_equal OK [r set marker 2]
            assert_equal OK [r save]
            restart_server
            assert_equal {2 1501} [list [r get marker] [r dbsize]]
        }
        # Whatever the test left, the final save at shutdown needs the space.
        free_disk $mnt
    }
    file delete -force {*}[glob -nocomplain -directory $mnt *]

    start_server [list tags {persistence faults external:skip} \
            overrides [list dir $mnt appendonly yes appendfsync everysec rdbcompression no]] {
        test [lindex $disk_tests 1] {
            fill_disk $mnt [expr {96 * 1024}]
            set acked {}
            set refused ""
            for {set i 0} {$i < 1000} {incr i} {
                if {[catch {r set k:$i [string repeat v 1000]} e]} {
                    set refused $e
                    break
                }
                lappend acked $i
            }
            assert_equal {MISCONF Errors writing to the AOF file: No space left on device} $refused
            assert_morethan [llength $acked] 0
            assert_equal err [s aof_last_write_status]
            wait_for_condition 100 50 {
                [count_log_message {*M * # Error writing to the AOF file: No space left on device*}] +
                [count_log_message {*M * # Short write while writing to the AOF file: (nwritten=*, expected=*)*}] > 0
            } else {
                fail "the full disk was not logged"
            }
            # Reads go on.
            assert_equal [string repeat v 1000] [r get k:[lindex $acked end]]
            free_disk $mnt
            wait_for_condition 100 50 {[s aof_last_write_status] eq "ok"} else {
                fail "no recovery once space was back"
            }
            wait_for_log_message {*M * # AOF write error looks solved, Redis can write again.*}
            assert_equal OK [r set after 1]
            restart_server
            assert_equal [expr {[llength $acked] + 1}] [r dbsize]
            foreach i $acked {
                if {[r get k:$i] ne [string repeat v 1000]} {fail "k:$i was lost"}
            }
        }

        test [lindex $disk_tests 2] {
            r debug populate 1500 big 1000
            r incr counter
            fill_disk $mnt [expr {256 * 1024}]
            assert_equal {Background append only file rewriting started} [r bgrewriteaof]
            wait_for_no_child
            wait_for_log_message {*C * # Write error writing append only file on disk: No space left on device*}
            wait_for_log_message {*M * # Background AOF rewrite terminated with error*}
            assert_equal err [s aof_last_bgrewrite_status]
            assert_equal {} [temp_files_in [srv dir]]
            free_disk $mnt
            assert_equal {Background append only file rewriting started} [r bgrewriteaof]
            wait_for_no_child
            assert_equal ok [s aof_last_bgrewrite_status]
            assert_equal 2 [r incr counter]
            restart_server
            assert_equal 2 [r get counter]
            assert_equal 1 [r exists big:1499]
        }
        free_disk $mnt
    }
    file delete -force {*}[glob -nocomplain -directory $mnt *]

    start_server [list tags {persistence faults external:skip} \
            overrides [list dir $mnt appendonly no rdbcompression no]] {
        test [lindex $disk_tests 3] {
            r debug populate 1500 big 1000
            fill_disk $mnt [expr {256 * 1024}]
            assert_equal OK [r config set appendonly yes]
            wait_for_log_message {*M * # Background AOF rewrite has repeatedly failed and triggered the limit, will retry in 1 minutes*} 200 50
            assert_equal 3 [count_log_message {*M * # Background AOF rewrite terminated with error*}]
            assert_equal 3 [count_log_message {*M * \* Removing the temp incr aof file temp-appendonly.aof.incr in the background*}]
            assert_equal 1 [s aof_rewrite_scheduled]
            assert_equal 3 [s aof_rewrites_consecutive_failures]
            free_disk $mnt
            # BGREWRITEAOF is not held back by the limit.
            assert_equal {Background append only file rewriting started} [r bgrewriteaof]
            wait_for_condition 200 50 {[s aof_last_bgrewrite_status] eq "ok" && [s aof_rewrite_in_progress] == 0} else {
                fail "the AOF was not created"
            }
            assert_equal 0 [s aof_rewrites_consecutive_failures]
            assert_equal 1 [s aof_enabled]
        }
        free_disk $mnt
    }
} finally {
    tmpfs_umount $mnt
}
}
