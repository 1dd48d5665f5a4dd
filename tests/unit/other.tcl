# Odds and ends of the server: the process title (set-proc-title, proc-title-template, as
# /proc/<pid>/cmdline shows it) and the key table's resize policy while a background child
# shares the memory (DEBUG HTSTATS shows the table).

# The words of a process's command line, as /proc shows it: a list of the runs of bytes
# between spaces and NUL bytes.
proc cmdline_words {pid} {
    set f [open /proc/$pid/cmdline r]
    fconfigure $f -translation binary
    set text [read $f]
    close $f
    return [lsearch -all -inline -not -exact [split $text " \0"] {}]
}

# The first child process of `pid`, or "" (Linux /proc).
proc child_of {pid} {
    if {[catch {open /proc/$pid/task/$pid/children r} f]} {return ""}
    set failed [catch {read $f} kids]
    catch {close $f}
    if {$failed} {return ""}
    return [lindex [string trim $kids] 0]
}

if {![file exists /proc/self/cmdline]} {
    puts "other: no /proc here, process title tests skipped"
    return
}

start_server {tags {other external:skip}} {
    set pid [srv 0 pid]

    test {The process title is the executable and the listening address from the start} {
        set words [cmdline_words $pid]
        assert_match */redis-server [lindex $words 0]
        assert_equal "127.0.0.1:[srv 0 port]" [lindex $words 1]
        # No server mode, and nothing after it: the title is trimmed.
        assert_equal 2 [llength $words]
    }

    test {CONFIG SET proc-title-template retitles the process at once, every variable expanded} {
        r config set proc-title-template \
            "TEST {title} {listen-addr} {port} {tls-port} <{unixsocket}> {config-file}"
        set words [cmdline_words $pid]
        assert_equal TEST [lindex $words 0]
        assert_match */redis-server [lindex $words 1]
        assert_equal "127.0.0.1:[srv 0 port]" [lindex $words 2]
        assert_equal [srv 0 port] [lindex $words 3]
        assert_equal 0 [lindex $words 4]
        # No unix socket: an empty variable.
        assert_equal <> [lindex $words 5]
        assert_equal [file join [srv 0 dir] redis.conf] [file normalize [lindex $words 6]]
    }

    test {A title longer than the original command line fits, and spaces at its ends go} {
        set long [string repeat abcdefghij 20]
        r config set proc-title-template "   $long {port}   "
        assert_equal [list $long [srv 0 port]] [lrange [cmdline_words $pid] 0 1]
        r config set proc-title-template "{{literal}} {port}"
        # A doubled opening brace is one literal brace; a lone closing brace is itself.
        assert_equal [list "\{literal\}\}" [srv 0 port]] [lrange [cmdline_words $pid] 0 1]
        # 255 bytes at most.
        r config set proc-title-template "[string repeat x 300] {port}"
        assert_equal [string repeat x 255] [lindex [cmdline_words $pid] 0]
    }

    test {A bad template is refused and the title stays} {
        r config set proc-title-template "KEEP {port}"
        assert_error {*template format is invalid or contains unknown variables*} \
            {r config set proc-title-template "{invalid-var}"}
        assert_error {*template format is invalid*} {r config set proc-title-template "\{port"}
        # A template that expands to nothing but spaces is no title.
        assert_error {*template format is invalid*} {r config set proc-title-template "   {title}  "}
        assert_equal [list KEEP [srv 0 port]] [lrange [cmdline_words $pid] 0 1]
        assert_equal {KEEP {port}} [lindex [r config get proc-title-template] 1]
    }

    test {set-proc-title is immutable} {
        assert_error {*can't set immutable config*} {r config set set-proc-title no}
    }

    test {A background save's child names itself redis-rdb-bgsave} {
        r config set proc-title-template "{title} {port}"
        r config set save ""
        r set somekey someval
        r config set rdb-key-save-delay 1000000
        r bgsave
        set child ""
        wait_for_condition 100 20 {
            [set child [child_of $pid]] ne "" &&
            [lindex [cmdline_words $child] 0] eq "redis-rdb-bgsave"
        } else {
            fail "no child titled redis-rdb-bgsave (child '$child')"
        }
        assert_equal [srv 0 port] [lindex [cmdline_words $child] 1]
        # The parent keeps its own title.
        assert_match */redis-server [lindex [cmdline_words $pid] 0]
        catch {exec kill -9 $child}
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 0} else {
            fail "the killed child was not reaped"
        }
        r config set rdb-key-save-delay 0
    } {} {needs:config}
}

start_server {tags {other external:skip} overrides {set-proc-title no}} {
    test {set-proc-title no leaves the command line as started} {
        set words [cmdline_words [srv 0 pid]]
        assert_match */redis-server [lindex $words 0]
        assert {[lsearch -exact $words "127.0.0.1:[srv 0 port]"] < 0}
        # A CONFIG SET of the template still retitles the process, as in Redis 7.0.
        r config set proc-title-template "TEST {port}"
        assert_equal [list TEST [srv 0 port]] [lrange [cmdline_words [srv 0 pid]] 0 1]
    }
}

start_server {tags {other external:skip needs:debug}} {
    test {The key table does not grow while a background child shares the memory} {
        r config set save ""
        r config set rdb-key-save-delay 1000000
        r select 9
        r flushdb
        # 4096 keys fill a table of 4096 buckets to a load of one.
        populate 4096 key: 1
        # The growth to 4096 buckets finishes in the background (cron rehashing).
        wait_for_condition 100 50 {
            ![string match "*rehashing target*" [r debug htstats 9]]
        } else {
            fail "the key table is still rehashing"
        }
        assert_match "*table size: 4096\n*number of elements: 4096\n*" [r debug htstats 9]
        r bgsave
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 1} else {
            fail "bgsave did not start"
        }
        r mset k1 v1 k2 v2
        assert_no_match "*table size: 8192*" [r debug htstats 9]
        catch {exec kill -9 [child_of [srv 0 pid]]}
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 0} else {
            fail "the killed child was not reaped"
        }
        # No child: the next insertion starts growing to the next power of two.
        r set k3 v3
        assert_match "*table size: 8192*" [r debug htstats 9]
        r config set rdb-key-save-delay 0
    } {} {needs:config}
}
