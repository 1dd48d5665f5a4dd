# redis-cli's replica-protocol tools against the server: --rdb and --functions-rdb fetch a
# snapshot the way a replica does (REPLCONF capa eof, rdb-only 1, rdb-filter-only, SYNC) and
# --replica follows the stream and prints each command the master writes. The snapshots are
# checked by loading them into the server (DEBUG RELOAD NOSAVE from the dump file), and the
# REPLCONF options they rely on are checked on their own, byte for byte.

# Debian's redis-cli (7.0) on PATH: the client whose handshake the server must accept.
proc cli_binary {} {return redis-cli}

# Runs redis-cli against the server at `level` with `args`; returns its output.
proc cli_run {level args} {
    return [exec [cli_binary] -h [srv $level host] -p [srv $level port] {*}$args 2>@1]
}

# One RESP command on a raw socket, its one-line reply back.
proc cli_raw_cmd {sock args} {
    set out "*[llength $args]\r\n"
    foreach a $args {append out "\$[string length $a]\r\n$a\r\n"}
    raw_write $sock $out
    return [raw_read_line $sock]
}

# Everything the server sends on `sock` until it closes it (fails after 10 s).
proc cli_read_to_eof {sock} {
    set deadline [expr {[clock milliseconds] + 10000}]
    set data ""
    while 1 {
        if {[catch {read $sock} chunk]} break
        append data $chunk
        if {[eof $sock]} break
        set left [expr {$deadline - [clock milliseconds]}]
        if {$left <= 0} {fail "the connection stayed open after [string length $data] bytes"}
        if {$chunk eq ""} {raw_wait_readable $sock $left}
    }
    return $data
}

# A library with one function and two keys, in the server at level 0.
proc cli_fill {} {
    r function flush
    r flushall
    r function load {#!lua name=clilib
redis.register_function('clifn', function() return 'from the library' end)}
    r set k1 v1
    r hset h f v
}

foreach functions_only {no yes} {
    foreach diskless {no yes} {
        start_server {tags {cli repl external:skip needs:debug} overrides {save {}}} {
            test "Dumping an RDB - functions only: $functions_only (diskless: $diskless)" {
                r config set repl-diskless-sync $diskless
                r config set repl-diskless-sync-delay 0
                cli_fill
                set file [file join [lindex [r config get dir] 1] [lindex [r config get dbfilename] 1]]
                file delete -force $file
                if {$functions_only eq "yes"} {
                    set out [cli_run 0 --functions-rdb $file]
                } else {
                    set out [cli_run 0 --rdb $file]
                }
                assert_match {*Transfer finished with success*} $out
                # The file alone now tells what the snapshot held.
                r function flush
                r flushall
                r debug reload nosave
                assert_equal [r fcall clifn 0] {from the library}
                if {$functions_only eq "yes"} {
                    assert_equal [r dbsize] 0
                } else {
                    assert_equal [r dbsize] 2
                    assert_equal [r get k1] v1
                    assert_equal [r hget h f] v
                }
                # The master kept no replica: a snapshot-only connection is closed.
                wait_for_condition 100 50 {[s connected_slaves] == 0} else {
                    fail "the snapshot-only replica is still attached"
                }
            }
        }
    }
}

start_server {tags {cli repl external:skip} overrides {save {}}} {
    test {Connecting as a replica} {
        r config set repl-diskless-sync-delay 0
        r set before 1
        set fd [open "|[list [cli_binary] -h [srv host] -p [srv port] --replica] 2>@1" r]
        fconfigure $fd -blocking 0 -buffering line
        set seen ""
        # Reads what redis-cli printed so far into `seen`; true once it holds `pattern`.
        proc cli_seen {fd var pattern} {
            upvar $var seen
            append seen [read $fd]
            return [string match $pattern $seen]
        }
        wait_for_condition 200 50 {[cli_seen $fd seen {*SYNC done*}]} else {
            catch {exec kill [pid $fd]}
            fail "redis-cli --replica did not connect: $seen"
        }
        assert_equal [s connected_slaves] 1
        r set foo bar
        r incr counter
        wait_for_condition 200 50 {[cli_seen $fd seen {*"incr","counter"*}]} else {
            catch {exec kill [pid $fd]}
            fail "redis-cli --replica did not print the stream: $seen"
        }
        assert_match {*"set","foo","bar"*"incr","counter"*} $seen
        exec kill [pid $fd]
        catch {close $fd}
        wait_for_condition 100 50 {[s connected_slaves] == 0} else {
            fail "the replica link stayed after redis-cli exited"
        }
    }
}

start_server {tags {cli repl external:skip} overrides {save {}}} {
    test {REPLCONF rdb-filter-only: empty, functions, and its errors} {
        assert_equal [r replconf rdb-filter-only ""] OK
        assert_equal [r replconf rdb-filter-only "   "] OK
        assert_equal [r replconf rdb-filter-only functions] OK
        assert_equal [r replconf rdb-filter-only FUNCTIONS] OK
        assert_equal [r replconf rdb-filter-only {"functions" functions}] OK
        assert_error {ERR Unsupported rdb-filter-only option: foo} {r replconf rdb-filter-only foo}
        assert_error {ERR Unsupported rdb-filter-only option: keys} \
            {r replconf rdb-filter-only "functions keys"}
        assert_error {ERR Missing rdb-filter-only values} {r replconf rdb-filter-only {"functions}}
        assert_error {ERR value is out of range, value must between 0 and 1} \
            {r replconf rdb-only 2}
        assert_equal [r replconf rdb-only 1] OK
        assert_equal [r replconf rdb-only 0] OK
    }

    test {A filtered SYNC without capa eof is refused, and may ask again} {
        r config set repl-diskless-sync-delay 0
        cli_fill
        set sock [raw_connect]
        assert_equal [cli_raw_cmd $sock REPLCONF rdb-filter-only functions] +OK
        assert_equal [cli_raw_cmd $sock SYNC] {-ERR Filtered replica requires EOF capability}
        assert_equal [s connected_slaves] 0
        # The connection keeps its filter: with the capability its SYNC is served.
        assert_equal [cli_raw_cmd $sock REPLCONF capa eof] +OK
        assert_equal [cli_raw_cmd $sock REPLCONF rdb-only 1] +OK
        assert_equal [cli_raw_cmd $sock PSYNC ? -1] "+FULLRESYNC [s master_replid] [s master_repl_offset]"
        set head [raw_read_line $sock]
        assert_match {$EOF:*} $head
        set mark [string range $head 5 end]
        assert_equal [string length $mark] 40
        # What follows, up to the mark, is the snapshot (the library, and not one key); then
        # the master closes the connection.
        set body [cli_read_to_eof $sock]
        assert_equal [string range $body end-39 end] $mark
        assert_match {REDIS0010*clilib*} $body
        assert_equal [string first k1 $body] -1
        raw_close $sock
        wait_for_log_message {*rdb only replica*should be disconnected asap*}
    }
}

start_server {tags {cli repl external:skip} overrides {save {}}} {
    test {A functions-only snapshot and a full one asked together are made apart} {
        r config set repl-diskless-sync yes
        r config set repl-diskless-sync-delay 1
        cli_fill
        set socks {}
        foreach filter {functions none} {
            set sock [raw_connect]
            assert_equal [cli_raw_cmd $sock REPLCONF capa eof] +OK
            assert_equal [cli_raw_cmd $sock REPLCONF rdb-only 1] +OK
            if {$filter ne "none"} {
                assert_equal [cli_raw_cmd $sock REPLCONF rdb-filter-only $filter] +OK
            }
            raw_write $sock "*3\r\n\$5\r\nPSYNC\r\n\$1\r\n?\r\n\$2\r\n-1\r\n"
            lappend socks $sock
        }
        # Each gets its own snapshot: the filtered one the library alone, the other everything.
        set filtered [cli_read_to_eof [lindex $socks 0]]
        set full [cli_read_to_eof [lindex $socks 1]]
        foreach sock $socks {raw_close $sock}
        assert_match {*+FULLRESYNC*$EOF:*REDIS0010*clilib*} $filtered
        assert_equal [string first k1 $filtered] -1
        assert_match {*+FULLRESYNC*$EOF:*REDIS0010*clilib*k1*} $full
        assert_equal [count_log_message {*Starting BGSAVE for SYNC with target: replicas sockets*}] 2
    }
}

start_server {tags {cli repl external:skip} overrides {save {}}} {
    test {An empty rdb-filter-only includes nothing: the snapshot has no library and no key} {
        # As Redis 7.0 answers redis-cli --replica, which discards the snapshot anyway.
        r config set repl-diskless-sync-delay 0
        cli_fill
        set sock [raw_connect]
        assert_equal [cli_raw_cmd $sock REPLCONF capa eof] +OK
        assert_equal [cli_raw_cmd $sock REPLCONF rdb-only 1] +OK
        assert_equal [cli_raw_cmd $sock REPLCONF rdb-filter-only ""] +OK
        raw_write $sock "*3\r\n\$5\r\nPSYNC\r\n\$1\r\n?\r\n\$2\r\n-1\r\n"
        set body [cli_read_to_eof $sock]
        raw_close $sock
        assert_match {*+FULLRESYNC*$EOF:*REDIS0010*} $body
        assert_equal [string first clilib $body] -1
        assert_equal [string first k1 $body] -1
    }
}
