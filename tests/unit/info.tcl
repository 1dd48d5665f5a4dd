# INFO (sections, arguments, layout, the fields of each section), and the other
# server introspection commands: TIME, LASTSAVE, MEMORY, FUNCTION on an empty
# function library.

# The "# Title" headers of an INFO text, in order.
proc info_headers {text} {
    set out {}
    foreach line [split $text \n] {
        set line [string trimright $line \r]
        if {[string match {# *} $line]} {
            lappend out [string range $line 2 end]
        }
    }
    return $out
}

# Parses "k1=v1,k2=v2" into a dict.
proc info_fields {value} {
    set d {}
    foreach kv [split $value ,] {
        lassign [split $kv =] k v
        dict set d $k $v
    }
    return $d
}

start_server {tags {info}} {
    set default_sections [list Server Clients Memory Persistence Stats Replication CPU \
                              Modules Errorstats Cluster Keyspace]
    set named_sections [list Server Clients Memory Persistence Stats Replication CPU Modules \
                          Commandstats Errorstats Cluster Keyspace]
    # redis-tp's own section (temporary keys, watches, hand-offs) comes last in INFO all.
    set all_sections [list Server Clients Memory Persistence Stats Replication CPU Modules \
                          Commandstats Errorstats Latencystats Cluster Keyspace]
    if {[lindex [r command info settp] 0] ne {}} {lappend all_sections Coordination}

    test {INFO without arguments and INFO default give the default sections in order} {
        r set somekey x
        assert_equal [info_headers [r info]] $default_sections
        assert_equal [info_headers [r info default]] $default_sections
        assert_equal [info_headers [r info DEFAULT]] $default_sections
    }

    test {INFO all and INFO everything add commandstats} {
        foreach arg {all everything} {
            set headers [info_headers [r info $arg]]
            assert_equal $headers $all_sections
        }
    }

    test {INFO sections come in their fixed order, named in any case} {
        assert_equal [info_headers [r info KEYSPACE cpu]] {CPU Keyspace}
        assert_equal [info_headers [r info clients Server server]] {Server Clients}
        assert_equal [info_headers [r info default commandstats]] $named_sections
        assert_equal [info_headers [r info modules]] {Modules}
        assert_equal [info_headers [r info cpu nosuchsection]] {CPU}
    }

    test {INFO of only unknown sections is an empty text} {
        assert_equal [r info nosuchsection] {}
        assert_equal [r info foo bar] {}
    }

    test {INFO layout: CRLF lines, one empty line between sections} {
        set text [r info cpu keyspace]
        assert_match "# CPU\r\nused_cpu_sys:*\r\n\r\n# Keyspace\r\ndb*\r\n" $text
        assert_equal [string range $text end-1 end] "\r\n"
        assert_no_match "*\r\n\r\n" [string range $text end-3 end]
        assert_equal [r info modules] "# Modules\r\n"
    }

    test {INFO is a verbatim string in RESP3} {
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd readraw 1
        $rd info cpu
        assert_match {=*} [$rd read]
        assert_match {txt:# CPU} [$rd read]
        $rd close
    }

    test {INFO server fields} {
        set info [r info server]
        assert_equal [getInfoProperty $info redis_version] 7.0.15
        assert_equal [getInfoProperty $info redis_mode] standalone
        assert_equal [getInfoProperty $info tcp_port] [srv port]
        assert_match {[0-9a-f]*} [getInfoProperty $info run_id]
        assert_equal [string length [getInfoProperty $info run_id]] 40
        assert_equal [getInfoProperty $info arch_bits] 64
        assert_match {Linux *} [getInfoProperty $info os]
        assert {[string is integer -strict [getInfoProperty $info process_id]]}
        assert_range [getInfoProperty $info uptime_in_seconds] 0 100000
        assert_equal [getInfoProperty $info uptime_in_days] 0
        assert_equal [getInfoProperty $info configured_hz] [lindex [r config get hz] 1]
        assert_range [getInfoProperty $info hz] 1 500
        assert_range [getInfoProperty $info lru_clock] 1 16777215
        set now_us [expr {[clock microseconds]}]
        assert_range [getInfoProperty $info server_time_usec] \
            [expr {$now_us - 5000000}] [expr {$now_us + 5000000}]
        assert_match {*redis-server*} [getInfoProperty $info executable]
    }

    test {INFO server process_id, config_file and executable describe this process} {
        set info [r info server]
        assert_equal [getInfoProperty $info process_id] [srv pid]
        assert_equal [getInfoProperty $info config_file] [file normalize [srv config_file]]
        assert_equal [file exists [getInfoProperty $info executable]] 1
    } {} {external:skip}

    test {INFO clients counts connections} {
        set before [s connected_clients]
        set c [redis_client]
        assert_equal [s connected_clients] [expr {$before + 1}]
        $c close
        wait_for_connected_clients $before
        assert_equal [s maxclients] [lindex [r config get maxclients] 1]
        assert_equal [s blocked_clients] 0
        assert {[string is integer -strict [s client_recent_max_input_buffer]]}
    }

    test {INFO memory fields} {
        set info [r info memory]
        foreach f {used_memory used_memory_rss used_memory_peak used_memory_overhead
                   used_memory_startup used_memory_dataset allocator_allocated
                   allocator_active allocator_resident total_system_memory maxmemory
                   mem_clients_normal} {
            assert {[regexp {^\d+$} [getInfoProperty $info $f]]}
        }
        assert_morethan [getInfoProperty $info used_memory] 0
        assert_morethan_equal [getInfoProperty $info used_memory_peak] \
            [getInfoProperty $info used_memory]
        assert_match {*[0-9BKMG]} [getInfoProperty $info used_memory_human]
        assert_match {*.??%} [getInfoProperty $info used_memory_peak_perc]
        assert_match {*.??} [getInfoProperty $info mem_fragmentation_ratio]
        # jemalloc in release builds; the sanitizer build runs on the system allocator.
        set allocator [getInfoProperty $info mem_allocator]
        assert {[string match jemalloc-* $allocator] || $allocator eq "libc"}
        assert_equal [getInfoProperty $info maxmemory] [lindex [r config get maxmemory] 1]
        assert_equal [getInfoProperty $info maxmemory_policy] \
            [lindex [r config get maxmemory-policy] 1]
        assert_equal [getInfoProperty $info maxmemory_human] 0B
    }

    test {INFO used_memory follows the dataset} {
        r flushall
        set before [s used_memory]
        r debug populate 20000 mem 100
        set after [s used_memory]
        assert_morethan $after [expr {$before + 2000000}]
        r flushall
        assert_lessthan [s used_memory] [expr {$after - 2000000}]
    } {} {needs:debug}

    test {INFO persistence reports no save or load activity} {
        set info [r info persistence]
        assert_equal [getInfoProperty $info loading] 0
        assert_equal [getInfoProperty $info rdb_bgsave_in_progress] 0
        assert_equal [getInfoProperty $info aof_enabled] 0
        assert_equal [getInfoProperty $info rdb_last_bgsave_status] ok
        assert_equal [getInfoProperty $info rdb_last_save_time] [r lastsave]
    }

    test {INFO stats: commands, connections, hits and misses} {
        set cmds [s total_commands_processed]
        r ping
        r ping
        # The two PINGs and the INFO that reads the counter before counting itself.
        assert_equal [s total_commands_processed] [expr {$cmds + 3}]
        set conns [s total_connections_received]
        set c [redis_client]
        $c close
        assert_equal [s total_connections_received] [expr {$conns + 1}]
        r set hitkey v
        set hits [s keyspace_hits]
        set misses [s keyspace_misses]
        r get hitkey
        r get nosuchkey
        r get nosuchkey
        assert_equal [s keyspace_hits] [expr {$hits + 1}]
        assert_equal [s keyspace_misses] [expr {$misses + 2}]
        assert_morethan [s total_net_input_bytes] 0
        assert_morethan [s total_net_output_bytes] 0
        assert {[string is integer -strict [s instantaneous_ops_per_sec]]}
        assert_match {*.??} [s instantaneous_input_kbps]
    }

    test {INFO stats: expired_keys counts lazy expiry} {
        set before [s expired_keys]
        r set volatile v
        r pexpire volatile 1
        after 20
        assert_equal [r get volatile] {}
        assert_equal [s expired_keys] [expr {$before + 1}]
    }

    test {INFO stats and errorstats count error replies by prefix} {
        set before [s total_error_replies]
        catch {r nosuchcommand}
        catch {r select 12345}
        assert_equal [s total_error_replies] [expr {$before + 2}]
        set line [getInfoProperty [r info errorstats] errorstat_ERR]
        assert_match {count=*} $line
        catch {r hello 4}
        assert_match {count=*} [getInfoProperty [r info errorstats] errorstat_NOPROTO]
    }

    test {INFO replication describes a master without replicas} {
        set info [r info replication]
        assert_equal [getInfoProperty $info role] master
        assert_equal [getInfoProperty $info connected_slaves] 0
        assert_equal [string length [getInfoProperty $info master_replid]] 40
        assert_equal [getInfoProperty $info master_replid2] [string repeat 0 40]
        assert_equal [getInfoProperty $info second_repl_offset] -1
    }

    test {INFO cpu reports seconds with microseconds} {
        set info [r info cpu]
        foreach f {used_cpu_sys used_cpu_user used_cpu_sys_children used_cpu_user_children
                   used_cpu_sys_main_thread used_cpu_user_main_thread} {
            assert {[regexp {^\d+\.\d{6}$} [getInfoProperty $info $f]]}
        }
    }

    test {INFO commandstats: calls, failed and rejected calls, subcommands} {
        r config resetstat
        r set a 1
        r set b 2
        catch {r set onlykey}
        catch {r select notanumber}
        r config get maxclients
        set info [r info commandstats]
        set set_stats [info_fields [getInfoProperty $info cmdstat_set]]
        assert_equal [dict get $set_stats calls] 2
        assert_equal [dict get $set_stats rejected_calls] 1
        assert_equal [dict get $set_stats failed_calls] 0
        assert {[string is integer -strict [dict get $set_stats usec]]}
        assert_match {*.??} [dict get $set_stats usec_per_call]
        assert_equal [dict get [info_fields [getInfoProperty $info cmdstat_select]] \
            failed_calls] 1
        assert_equal [dict get [info_fields [getInfoProperty $info {cmdstat_config\|get}]] \
            calls] 1
        # Commands never called are not listed.
        assert_equal [getInfoProperty $info cmdstat_get] {}
    } {} {needs:config}

    test {errorstats: an error inside EXEC is counted once, EXEC is not failed} {
        r config resetstat
        r set strkey notanumber
        r multi
        r set otherkey v
        r incr strkey
        set replies [r exec]
        assert_match {ERR value is not an integer*} [lindex $replies 1]
        assert_equal 1 [s total_error_replies]
        assert_equal {count=1} [getInfoProperty [r info errorstats] errorstat_ERR]
        set info [r info commandstats]
        assert_equal 1 [dict get [info_fields [getInfoProperty $info cmdstat_incr]] failed_calls]
        assert_equal 0 [dict get [info_fields [getInfoProperty $info cmdstat_exec]] failed_calls]
        assert_equal 1 [dict get [info_fields [getInfoProperty $info cmdstat_exec]] calls]
    } {} {needs:config}

    test {errorstats: a command the ACL refuses counts NOPERM and a rejected call} {
        r config resetstat
        r acl setuser errstat on >pw ~cached:* +get +info +config
        set c [redis_client]
        $c auth errstat pw
        assert_error {NOPERM*} {$c set foo bar}
        $c close
        assert_equal {count=1} [getInfoProperty [r info errorstats] errorstat_NOPERM]
        set fields [info_fields [getInfoProperty [r info commandstats] cmdstat_set]]
        assert_equal {0 1 0} [list [dict get $fields calls] [dict get $fields rejected_calls] \
                                  [dict get $fields failed_calls]]
        assert_equal 1 [s total_error_replies]
        r acl deluser errstat
        r config resetstat
        assert_equal {} [getInfoProperty [r info errorstats] errorstat_NOPERM]
    } {} {needs:config}

    test {errorstats: a block ended by CLIENT UNBLOCK ERROR counts the UNBLOCKED error} {
        r config resetstat
        r del blockedlist
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd blpop blockedlist 0
        wait_for_blocked_clients_count 1
        assert_equal 1 [r client unblock $id error]
        assert_error {UNBLOCKED client unblocked via CLIENT UNBLOCK} {$rd read}
        $rd close
        assert_equal 1 [s total_error_replies]
        assert_equal {count=1} [getInfoProperty [r info errorstats] errorstat_UNBLOCKED]
        set info [r info commandstats]
        set blpop [info_fields [getInfoProperty $info cmdstat_blpop]]
        assert_equal 1 [dict get $blpop calls]
        assert_equal 1 [dict get $blpop failed_calls]
        # Redis 7.0 counts an error written during a command as that command's failure too,
        # whoever receives it.
        set unblock [info_fields [getInfoProperty $info {cmdstat_client\|unblock}]]
        assert_equal 1 [dict get $unblock failed_calls]
    } {} {needs:config}

    test {INFO stats counts reads and writes of client connections} {
        set reads [s total_reads_processed]
        set writes [s total_writes_processed]
        r ping
        assert {[s total_reads_processed] > $reads}
        assert {[s total_writes_processed] > $writes}
    }

    test {INFO keyspace lists non-empty databases with keys, expires, avg_ttl} {
        r flushall
        assert_equal [info_headers [r info keyspace]] {Keyspace}
        assert_equal [r info keyspace] "# Keyspace\r\n"
        r set k1 v
        r set k2 v
        r expire k2 1000
        set line [getInfoProperty [r info keyspace] db[srv db]]
        assert_match {keys=2,expires=1,avg_ttl=*} $line
        r flushall
    }

    test {TIME returns seconds and microseconds of the wall clock} {
        lassign [r time] sec usec
        assert_range $sec [expr {[clock seconds] - 2}] [expr {[clock seconds] + 2}]
        assert_range $usec 0 999999
        assert_error {ERR wrong number of arguments for 'time' command} {r time x}
    }

    test {LASTSAVE is the startup time when nothing was ever saved} {
        set t [r lastsave]
        assert_range $t [expr {[clock seconds] - 3600}] [clock seconds]
        assert_equal [r lastsave] $t
        assert_error {ERR wrong number of arguments for 'lastsave' command} {r lastsave x}
    }

    test {MEMORY STATS fields} {
        r flushall
        r set k v
        set stats [r memory stats]
        foreach f {peak.allocated total.allocated startup.allocated replication.backlog
                   clients.slaves clients.normal aof.buffer overhead.total keys.count
                   keys.bytes-per-key dataset.bytes dataset.percentage peak.percentage
                   allocator.allocated allocator.active allocator.resident
                   allocator-fragmentation.ratio fragmentation fragmentation.bytes} {
            assert {[dict exists $stats $f]}
        }
        assert_equal [dict get $stats keys.count] 1
        set db [dict get $stats db.[srv db]]
        assert {[dict exists $db overhead.hashtable.main]}
        assert {[dict exists $db overhead.hashtable.expires]}
        assert {![dict exists $stats db.[expr {([srv db] + 1) % 16}]]}
        assert_error {ERR wrong number of arguments for 'memory|stats' command} {r memory stats x}
    }

    test {MEMORY STATS names the script and function caches as INFO does} {
        r script flush
        r function flush
        assert_equal 0 [dict get [r memory stats] lua.caches]
        r eval {return 1} 0
        r function load {#!lua name=memlib
redis.register_function('memf', function() return 1 end)}
        set stats [r memory stats]
        set info [r info memory]
        assert {[dict get $stats lua.caches] > 0}
        assert_equal [getInfoProperty $info used_memory_scripts_eval] [dict get $stats lua.caches]
        assert {[dict get $stats functions.caches] > 0}
        assert_equal [getInfoProperty $info used_memory_functions] [dict get $stats functions.caches]
        assert_equal 0 [dict get [dict get $stats db.[srv db]] overhead.hashtable.slot-to-keys]
        r function flush
        r script flush
    }

    test {MEMORY DOCTOR, MALLOC-STATS, PURGE and HELP} {
        assert {[string length [r memory doctor]] > 0}
        # Sanitizer builds of redis-tp run on the system allocator, which has no stats text.
        if {[string match jemalloc* [s mem_allocator]]} {
            assert_match {*jemalloc*} [r memory malloc-stats]
        } else {
            assert_equal {Stats not supported for the current allocator} [r memory malloc-stats]
        }
        assert_equal [r memory purge] OK
        set help [r memory help]
        assert_match {MEMORY <subcommand> *} [lindex $help 0]
        foreach sub {DOCTOR MALLOC-STATS PURGE STATS USAGE HELP} {
            assert {[lsearch -glob $help "$sub*"] >= 0}
        }
        assert_error {ERR unknown subcommand 'nosuch'. Try MEMORY HELP.} {r memory nosuch}
        assert_error {ERR wrong number of arguments for 'memory' command} {r memory}
    }

    test {MEMORY USAGE is part of the MEMORY container} {
        r set k v
        assert_morethan [r memory usage k] 0
        assert_equal [r memory usage nosuchkey] {}
    }

    test {FUNCTION LIST, STATS and FLUSH on an empty library} {
        r function flush
        assert_equal [r function list] {}
        assert_equal [r function list withcode libraryname *] {}
        assert_equal [r function flush async] OK
        assert_equal [r function flush SYNC] OK
        set stats [r function stats]
        assert_equal [dict get $stats running_script] {}
        assert {[dict exists $stats engines]}
    }

    test {FUNCTION argument errors} {
        assert_error {ERR FUNCTION FLUSH only supports SYNC|ASYNC option} {r function flush now}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.} \
            {r function flush sync async}
        assert_error {ERR library name argument was not given} {r function list libraryname}
        assert_error {ERR Unknown argument foo} {r function list foo}
        assert_error {ERR Unknown argument withcode} {r function list withcode withcode}
        assert_error {ERR wrong number of arguments for 'function|stats' command} \
            {r function stats x}
        assert_match {FUNCTION <subcommand> *} [lindex [r function help] 0]
    }
}
