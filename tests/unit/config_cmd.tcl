# The CONFIG command: GET (names, globs, several patterns, RESP3 map), SET
# (round trip, units, all-or-nothing pairs, error texts), RESETSTAT (what it
# zeroes and what it keeps), REWRITE, HELP.

start_server {tags {config needs:config}} {
    test {CONFIG GET of an exact name, any case, answers under the name asked} {
        assert_equal [r config get maxclients] [list maxclients [lindex [r config get maxclients] 1]]
        assert_equal [lindex [r config get MAXCLIENTS] 0] MAXCLIENTS
        assert_equal [r config get no-such-parameter] {}
    }

    test {CONFIG GET with a glob and with several patterns} {
        set d [r config get maxmemory*]
        assert {[dict exists $d maxmemory]}
        assert {[dict exists $d maxmemory-policy]}
        assert {[dict exists $d maxmemory-samples]}
        foreach name [dict keys $d] {assert_match maxmemory* $name}
        # A parameter matched by several patterns is answered once.
        set d [r config get maxclients maxclients max*clients]
        assert_equal [lsort [dict keys $d]] {maxclients maxmemory-clients}
        assert_equal [llength [r config get maxclients maxclients max*clients]] 4
    }

    test {CONFIG GET is a map in RESP3} {
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd readraw 1
        $rd config get maxclients hz
        assert_equal [$rd read] {%2}
        $rd close
    }

    test {CONFIG SET and GET round trip, with memory units} {
        set old [lindex [r config get maxmemory] 1]
        assert_equal [r config set maxmemory 1mb] OK
        assert_equal [r config get maxmemory] {maxmemory 1048576}
        assert_equal [s maxmemory] 1048576
        r config set maxmemory $old
        assert_equal [r config set maxclients 1234] OK
        assert_equal [s maxclients] 1234
        r config set maxclients 10000
    }

    test {CONFIG SET of several pairs is all or nothing} {
        r config set maxmemory 0 slowlog-max-len 128
        assert_error {ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer} \
            {r config set maxmemory 2mb hz abc}
        assert_equal [r config get maxmemory] {maxmemory 0}
        assert_equal [r config set maxmemory 3mb slowlog-max-len 64] OK
        assert_equal [r config get maxmemory] {maxmemory 3145728}
        assert_equal [r config get slowlog-max-len] {slowlog-max-len 64}
        r config set maxmemory 0 slowlog-max-len 128
    }

    test {CONFIG SET reads values up to a NUL byte, masterauth and requirepass whole} {
        # Redis reads parameters as C strings (each word of a list on its own), except its
        # two binary-safe ones and plain integers (read with their length); an unknown name is
        # echoed up to the NUL too.
        assert_error {*argument couldn't be parsed into an integer*} \
            {r config set slowlog-max-len "64\x00junk"}
        set old_maxmemory [lindex [r config get maxmemory] 1]
        assert_equal OK [r config set maxmemory "5mb\x00junk"]
        assert_equal {maxmemory 5242880} [r config get maxmemory]
        r config set maxmemory $old_maxmemory
        assert_equal OK [r config set appendfsync "no\x00"]
        assert_equal {appendfsync no} [r config get appendfsync]
        set old_save [lindex [r config get save] 1]
        assert_equal OK [r config set save "100\x00x 5"]
        assert_equal {save {100 5}} [r config get save]
        r config set save $old_save
        r config set appendfsync everysec
        r config set slowlog-max-len 128
        assert_equal OK [r config set masterauth "a\x00b"]
        assert_equal [list masterauth "a\x00b"] [r config get masterauth]
        r config set masterauth ""
        assert_error {ERR Unknown option or number of arguments for CONFIG SET - 'abc'} \
            {r config set "abc\x00def" 1}
    }

    test {CONFIG SET error texts} {
        assert_error {ERR Unknown option or number of arguments for CONFIG SET - 'no-such-parameter'} \
            {r config set no-such-parameter 1}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config} \
            {r config set daemonize yes}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'maxclients') - duplicate parameter} \
            {r config set maxclients 10 maxclients 20}
        assert_error {ERR syntax error} {r config set maxclients 10 hz}
        # A refused value names the parameter in lower case (the alias if that was given);
        # a refused name is echoed as typed.
        assert_error {ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'.} \
            {r config set Notify-Keyspace-Events KE-A}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'hash-max-ziplist-entries') - argument couldn't be parsed into an integer} \
            {r config set HASH-max-ziplist-entries abc}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'Daemonize') - can't set immutable config} \
            {r config set Daemonize yes}
        assert_error {ERR wrong number of arguments for 'config|set' command} {r config set maxclients}
        assert_error {ERR wrong number of arguments for 'config|get' command} {r config get}
    }

    test {CONFIG with an unknown subcommand or none} {
        assert_error {ERR unknown subcommand 'nosuch'. Try CONFIG HELP.} {r config nosuch}
        assert_error {ERR wrong number of arguments for 'config' command} {r config}
        assert_error {ERR wrong number of arguments for 'config|resetstat' command} \
            {r config resetstat now}
    }

    test {CONFIG HELP} {
        set help [r config help]
        assert_match {CONFIG <subcommand> *} [lindex $help 0]
        foreach sub {GET SET RESETSTAT REWRITE HELP} {
            assert {[lsearch -glob $help "$sub*"] >= 0}
        }
    }

    test {CONFIG RESETSTAT zeroes the INFO counters} {
        r set k v
        r get k
        r get missing
        catch {r nosuchcommand}
        set c [redis_client]
        $c ping
        $c close
        assert_morethan [s total_commands_processed] 3
        assert_equal [r config resetstat] OK
        set info [r info everything]
        # Only CONFIG RESETSTAT itself and this INFO ran since.
        assert_equal [getInfoProperty $info total_commands_processed] 1
        assert_equal [getInfoProperty $info total_connections_received] 0
        assert_equal [getInfoProperty $info keyspace_hits] 0
        assert_equal [getInfoProperty $info keyspace_misses] 0
        assert_equal [getInfoProperty $info expired_keys] 0
        assert_equal [getInfoProperty $info total_error_replies] 0
        assert_equal [getInfoProperty $info rejected_connections] 0
        assert_no_match {*errorstat_*} $info
        assert_equal [getInfoProperty $info cmdstat_set] {}
        assert_equal [getInfoProperty $info cmdstat_get] {}
        assert_match {calls=1,*} [getInfoProperty $info {cmdstat_config\|resetstat}]
    }

    test {CONFIG RESETSTAT zeroes subcommand statistics} {
        r config get maxclients
        r config get maxclients
        assert_match {calls=2,*} [getInfoProperty [r info commandstats] {cmdstat_config\|get}]
        r config resetstat
        assert_equal [getInfoProperty [r info commandstats] {cmdstat_config\|get}] {}
    }

    test {CONFIG RESETSTAT keeps the memory peak and the uptime} {
        set peak [s used_memory_peak]
        set last_save [r lastsave]
        r config resetstat
        assert_morethan_equal [s used_memory_peak] $peak
        assert_equal [r lastsave] $last_save
    }

    test {CONFIG RESETSTAT does not clear the slowlog} {
        r config set slowlog-log-slower-than 0
        r ping
        r ping
        set len [r slowlog len]
        assert_morethan $len 1
        r config resetstat
        r config set slowlog-log-slower-than 10000
        assert_morethan_equal [r slowlog len] $len
        r slowlog reset
    }

    test {CONFIG REWRITE writes changed parameters into the config file} {
        r config set maxmemory-policy allkeys-lru
        assert_equal [r config rewrite] OK
        set f [open [srv config_file] r]
        set text [read $f]
        close $f
        assert_match "*\nmaxmemory-policy allkeys-lru*" $text
        r config set maxmemory-policy noeviction
        assert_equal [r config rewrite] OK
        set f [open [srv config_file] r]
        set text [read $f]
        close $f
        assert_no_match "*maxmemory-policy allkeys-lru*" $text
        wait_for_log_message {*CONFIG REWRITE executed with success.*}
    } {} {external:skip}
}

# rename-command: a config-file directive only (the server's command table at startup).
start_server {tags {config external:skip} overrides {rename-command {flushdb badger} rename-command {lpush ""}}} {
    test {rename-command gives a command a new name and takes the old one away} {
        assert_error {ERR unknown command 'flushdb'*} {r flushdb}
        r set k v
        assert_equal OK [r badger]
        assert_equal 0 [r dbsize]
        # The renamed command keeps its own name in COMMAND's replies.
        assert_equal flushdb [lindex [r command info badger] 0 0]
        assert_equal {{}} [r command info flushdb]
        assert_equal flushdb [lindex [r command docs badger] 0]
        assert_equal {} [r command list filterby pattern badger]
        assert_equal flushdb [r command list filterby pattern flushd*]
        # ACL rules name commands by their own names, a removed one too.
        assert_equal OK [r acl setuser renamer +flushdb]
        assert_error {*Unknown command or category name in ACL*} {r acl setuser renamer +badger}
        assert_equal OK [r acl setuser renamer +lpush]
        r acl deluser renamer
    }

    test {rename-command to "" removes the command from every listing} {
        assert_error {ERR unknown command 'lpush'*} {r lpush l a}
        assert_equal {{}} [r command info lpush]
        assert_equal {} [r command list filterby pattern lpush]
        assert_equal 1 [llength [r command list filterby pattern rpush]]
        set count [r command count]
        assert_equal $count [llength [r command]]
    }

    test {CONFIG REWRITE keeps the rename-command lines and a restart honours them} {
        assert_equal OK [r config rewrite]
        set f [open [srv config_file] r]
        set text [read $f]
        close $f
        assert_match "*rename-command flushdb badger*" $text
        restart_server
        assert_error {ERR unknown command 'flushdb'*} {r flushdb}
        assert_equal OK [r badger]
    }
}

tags {config external:skip} {
    test {rename-command of an unknown command or onto a taken name stops the start} {
        lassign [run_server_briefly {--bind 127.0.0.1 --port 0 --rename-command nosuch x}] status out
        assert_equal {exit 1} $status
        assert_match "*>>> 'rename-command \"nosuch\" \"x\"'*No such command in rename-command*" $out
        lassign [run_server_briefly {--bind 127.0.0.1 --port 0 --rename-command get set}] status out
        assert_equal {exit 1} $status
        assert_match "*Target command name already exists*" $out
        lassign [run_server_briefly {--bind 127.0.0.1 --port 0 --rename-command get}] status out
        assert_equal {exit 1} $status
        assert_match "*Bad directive or wrong number of arguments*" $out
    }
}

start_server {tags {config external:skip needs:debug}} {
    test {DEBUG CONFIG-REWRITE-FORCE-ALL writes every parameter; a server starts from the file alike} {
        r config set maxmemory-policy allkeys-lru
        set before [dict create {*}[r config get *]]
        assert_equal OK [r debug config-rewrite-force-all]
        set f [open [srv config_file] r]
        set text [read $f]
        close $f
        # Defaults are written too.
        assert_match "*\nhz 10\n*" $text
        assert_match "*\nmaxmemory-policy allkeys-lru\n*" $text
        assert_match "*\nlist-max-listpack-size -2\n*" $text
        # The file less this server's own port and dir is the base of a second server.
        set base [file join [srv dir] forced.conf]
        set out [open $base w]
        foreach line [split $text \n] {
            if {[regexp {^(port|dir) } $line]} continue
            puts $out $line
        }
        close $out
        start_server [list config $base] {
            set after [dict create {*}[r config get *]]
            dict for {k v} $before {
                if {$k in {port dir}} continue
                assert_equal $v [dict get $after $k] "parameter $k"
            }
        }
    }
}
