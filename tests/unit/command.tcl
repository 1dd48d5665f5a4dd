# COMMAND: COUNT, INFO, DOCS, LIST (FILTERBY MODULE|ACLCAT|PATTERN), GETKEYS, GETKEYSANDFLAGS,
# HELP and bare COMMAND, shaped like Redis 7.0's replies.
#
# The first half checks the replies' structure and error texts and does not depend on which
# commands are registered. The second half holds facts observed on Redis 7.0.15 for every
# command redis-tp implements (arity, flags, key positions, ACL categories, tips, key specs;
# since/group/complexity/deprecation/history versions and the argument tree of COMMAND DOCS;
# the keys GETKEYSANDFLAGS finds) and checks the server reports the same. Summaries and history
# texts are free prose and only checked for presence.

# One argument of a COMMAND DOCS reply as a compact string: leaves are name:type (#key-spec),
# pure tokens their token, oneof groups name(a|b), blocks name{a b}; a token prefixes its value;
# @since, @-deprecated_since, "..." for multiple, "!" for multiple_token, [] for optional.
proc cmd_arg_fingerprint {arg} {
    set type [dict get $arg type]
    set name [dict get $arg name]
    set parts {}
    if {$type in {oneof block}} {
        foreach a [dict get $arg arguments] {lappend parts [cmd_arg_fingerprint $a]}
    }
    switch -- $type {
        pure-token {
            set s [dict get $arg token]
            if {$name ne [string tolower $s]} {append s "($name)"}
        }
        oneof {set s "$name\([join $parts |]\)"}
        block {set s "$name\{[join $parts { }]\}"}
        default {
            set s "$name:$type"
            if {[dict exists $arg key_spec_index]} {append s "#[dict get $arg key_spec_index]"}
        }
    }
    if {$type ne "pure-token" && [dict exists $arg token]} {set s "[dict get $arg token] $s"}
    if {[dict exists $arg since]} {append s "@[dict get $arg since]"}
    if {[dict exists $arg deprecated_since]} {append s "@-[dict get $arg deprecated_since]"}
    set flags {}
    if {[dict exists $arg flags]} {set flags [dict get $arg flags]}
    if {"multiple" in $flags} {append s "..."}
    if {"multiple_token" in $flags} {append s "!"}
    if {"optional" in $flags} {set s "\[$s\]"}
    return $s
}

proc cmd_args_fingerprint {doc} {
    set out {}
    if {[dict exists $doc arguments]} {
        foreach a [dict get $doc arguments] {lappend out [cmd_arg_fingerprint $a]}
    }
    return [join $out " "]
}

# One key spec of a COMMAND INFO reply: "flags begin find", e.g. "RO,access index=1 range=0,1,0".
proc cmd_keyspec_fingerprint {ks} {
    set begin [dict get $ks begin_search]
    set bspec [dict get $begin spec]
    switch -- [dict get $begin type] {
        index {set b "index=[dict get $bspec index]"}
        keyword {set b "keyword=[dict get $bspec keyword],[dict get $bspec startfrom]"}
        default {set b unknown}
    }
    set find [dict get $ks find_keys]
    set fspec [dict get $find spec]
    switch -- [dict get $find type] {
        range {
            set f "range=[dict get $fspec lastkey],[dict get $fspec keystep],[dict get $fspec limit]"
        }
        keynum {
            set f "keynum=[dict get $fspec keynumidx],[dict get $fspec firstkey],[dict get $fspec keystep]"
        }
        default {set f unknown}
    }
    return "[join [lsort [dict get $ks flags]] ,] $b $f"
}

# The COMMAND INFO entry of one command, failing the test when the server does not know it.
proc cmd_info_entry {name} {
    set entry [lindex [r command info $name] 0]
    if {$entry eq {}} {fail "'$name' is not registered"}
    return $entry
}

# The COMMAND DOCS map of one command, failing the test when the server does not know it.
proc cmd_docs_entry {name} {
    set reply [r command docs $name]
    if {[llength $reply] != 2} {fail "'$name' is not registered"}
    return [lindex $reply 1]
}

# Reads one whole reply from a client in raw mode and appends its lines to the named list
# (bulk payloads are single lines here).
proc cmd_read_raw_reply {c listvar} {
    upvar 1 $listvar lines
    set line [$c read]
    lappend lines $line
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        $ {if {$n >= 0} {lappend lines [$c read]}}
        * - ~ - > {for {set i 0} {$i < $n} {incr i} {cmd_read_raw_reply $c lines}}
        % {for {set i 0} {$i < 2 * $n} {incr i} {cmd_read_raw_reply $c lines}}
    }
}

# Runs a command on a fresh RESP3 connection and returns every line of its raw reply.
proc cmd_resp3_lines {args} {
    set c [redis_client]
    $c hello 3
    $c readraw 1
    $c deferred 1
    $c {*}$args
    set lines {}
    cmd_read_raw_reply $c lines
    $c close
    return $lines
}

# assert with a note saying which item failed (the harness's assert takes only a condition).
proc cmd_assert {condition detail} {
    if {![uplevel 1 [list expr $condition]]} {fail "Expected true: $condition ($detail)"}
}

# Facts observed on Redis 7.0.15 (COMMAND INFO / COMMAND DOCS), one row per command.
set command_info_facts {
    {ping -1 {fast} 0 0 0 {@connection @fast} {request_policy:all_shards response_policy:all_succeeded} {}}
    {echo 2 {fast loading stale} 0 0 0 {@connection @fast} {} {}}
    {quit -1 {allow_busy fast loading no_auth noscript stale} 0 0 0 {@connection @fast} {} {}}
    {hello -1 {allow_busy fast loading no_auth noscript stale} 0 0 0 {@connection @fast} {} {}}
    {auth -2 {allow_busy fast loading no_auth noscript stale} 0 0 0 {@connection @fast} {} {}}
    {select 2 {fast loading stale} 0 0 0 {@connection @fast} {} {}}
    {reset 1 {allow_busy fast loading no_auth noscript stale} 0 0 0 {@connection @fast} {} {}}
    {client -2 {} 0 0 0 {@slow} {} {}}
    {client|id 2 {loading noscript stale} 0 0 0 {@connection @slow} {} {}}
    {client|setname 3 {loading noscript stale} 0 0 0 {@connection @slow} {} {}}
    {client|getname 2 {loading noscript stale} 0 0 0 {@connection @slow} {} {}}
    {client|list -2 {admin loading noscript stale} 0 0 0 {@admin @connection @dangerous @slow} {nondeterministic_output} {}}
    {client|info 2 {loading noscript stale} 0 0 0 {@connection @slow} {nondeterministic_output} {}}
    {client|kill -3 {admin loading noscript stale} 0 0 0 {@admin @connection @dangerous @slow} {} {}}
    {client|pause -3 {admin loading noscript stale} 0 0 0 {@admin @connection @dangerous @slow} {} {}}
    {client|unpause 2 {admin loading noscript stale} 0 0 0 {@admin @connection @dangerous @slow} {} {}}
    {client|unblock -3 {admin loading noscript stale} 0 0 0 {@admin @connection @dangerous @slow} {} {}}
    {client|reply 3 {loading noscript stale} 0 0 0 {@connection @slow} {} {}}
    {client|no-evict 3 {admin loading noscript stale} 0 0 0 {@admin @connection @dangerous @slow} {} {}}
    {client|getredir 2 {loading noscript stale} 0 0 0 {@connection @slow} {} {}}
    {client|tracking -3 {loading noscript stale} 0 0 0 {@connection @slow} {} {}}
    {client|caching 3 {loading noscript stale} 0 0 0 {@connection @slow} {} {}}
    {client|trackinginfo 2 {loading noscript stale} 0 0 0 {@connection @slow} {} {}}
    {client|help 2 {loading stale} 0 0 0 {@connection @slow} {} {}}
    {command -1 {loading stale} 0 0 0 {@connection @slow} {nondeterministic_output_order} {}}
    {command|count 2 {loading stale} 0 0 0 {@connection @slow} {} {}}
    {command|info -2 {loading stale} 0 0 0 {@connection @slow} {nondeterministic_output_order} {}}
    {command|docs -2 {loading stale} 0 0 0 {@connection @slow} {nondeterministic_output_order} {}}
    {command|list -2 {loading stale} 0 0 0 {@connection @slow} {nondeterministic_output_order} {}}
    {command|getkeys -4 {loading stale} 0 0 0 {@connection @slow} {} {}}
    {command|getkeysandflags -4 {loading stale} 0 0 0 {@connection @slow} {} {}}
    {command|help 2 {loading stale} 0 0 0 {@connection @slow} {} {}}
    {info -1 {loading stale} 0 0 0 {@dangerous @slow} {nondeterministic_output request_policy:all_shards response_policy:special} {}}
    {config -2 {} 0 0 0 {@slow} {} {}}
    {config|get -3 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {} {}}
    {config|set -4 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {request_policy:all_nodes response_policy:all_succeeded} {}}
    {config|resetstat 2 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {} {}}
    {config|rewrite 2 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {} {}}
    {config|help 2 {loading stale} 0 0 0 {@slow} {} {}}
    {dbsize 1 {fast readonly} 0 0 0 {@fast @keyspace @read} {request_policy:all_shards response_policy:agg_sum} {}}
    {time 1 {fast loading stale} 0 0 0 {@fast} {nondeterministic_output} {}}
    {monitor 1 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {} {}}
    {slowlog -2 {} 0 0 0 {@slow} {} {}}
    {slowlog|get -2 {admin loading stale} 0 0 0 {@admin @dangerous @slow} {nondeterministic_output request_policy:all_nodes} {}}
    {slowlog|len 2 {admin loading stale} 0 0 0 {@admin @dangerous @slow} {nondeterministic_output request_policy:all_nodes response_policy:agg_sum} {}}
    {slowlog|reset 2 {admin loading stale} 0 0 0 {@admin @dangerous @slow} {request_policy:all_nodes response_policy:all_succeeded} {}}
    {slowlog|help 2 {loading stale} 0 0 0 {@slow} {} {}}
    {latency -2 {} 0 0 0 {@slow} {} {}}
    {latency|latest 2 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {nondeterministic_output request_policy:all_nodes response_policy:special} {}}
    {latency|reset -2 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {request_policy:all_nodes response_policy:all_succeeded} {}}
    {latency|history 3 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {nondeterministic_output request_policy:all_nodes response_policy:special} {}}
    {latency|doctor 2 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {nondeterministic_output request_policy:all_nodes response_policy:special} {}}
    {latency|help 2 {loading stale} 0 0 0 {@slow} {} {}}
    {debug -2 {admin loading noscript stale} 0 0 0 {@admin @dangerous @slow} {} {}}
    {shutdown -1 {admin allow_busy loading no_multi noscript stale} 0 0 0 {@admin @dangerous @slow} {} {}}
    {lastsave 1 {fast loading stale} 0 0 0 {@admin @dangerous @fast} {nondeterministic_output} {}}
    {memory -2 {} 0 0 0 {@slow} {} {}}
    {memory|usage -3 {readonly} 2 2 1 {@read @slow} {} {{RO index=2 range=0,1,0}}}
    {memory|stats 2 {} 0 0 0 {@slow} {nondeterministic_output request_policy:all_shards response_policy:special} {}}
    {memory|doctor 2 {} 0 0 0 {@slow} {nondeterministic_output request_policy:all_shards response_policy:special} {}}
    {memory|malloc-stats 2 {} 0 0 0 {@slow} {nondeterministic_output request_policy:all_shards response_policy:special} {}}
    {memory|purge 2 {} 0 0 0 {@slow} {request_policy:all_shards response_policy:all_succeeded} {}}
    {memory|help 2 {loading stale} 0 0 0 {@slow} {} {}}
    {function -2 {} 0 0 0 {@slow} {} {}}
    {function|flush -2 {noscript write} 0 0 0 {@scripting @slow @write} {request_policy:all_shards response_policy:all_succeeded} {}}
    {function|list -2 {noscript} 0 0 0 {@scripting @slow} {nondeterministic_output_order} {}}
    {function|stats 2 {allow_busy noscript} 0 0 0 {@scripting @slow} {nondeterministic_output request_policy:all_shards response_policy:special} {}}
    {function|help 2 {loading stale} 0 0 0 {@scripting @slow} {} {}}
    {del -2 {write} 1 -1 1 {@keyspace @slow @write} {request_policy:multi_shard response_policy:agg_sum} {{RM,delete index=1 range=-1,1,0}}}
    {unlink -2 {fast write} 1 -1 1 {@fast @keyspace @write} {request_policy:multi_shard response_policy:agg_sum} {{RM,delete index=1 range=-1,1,0}}}
    {exists -2 {fast readonly} 1 -1 1 {@fast @keyspace @read} {request_policy:multi_shard response_policy:agg_sum} {{RO index=1 range=-1,1,0}}}
    {type 2 {fast readonly} 1 1 1 {@fast @keyspace @read} {} {{RO index=1 range=0,1,0}}}
    {touch -2 {fast readonly} 1 -1 1 {@fast @keyspace @read} {request_policy:multi_shard response_policy:agg_sum} {{RO index=1 range=-1,1,0}}}
    {expire -3 {fast write} 1 1 1 {@fast @keyspace @write} {} {{RW,update index=1 range=0,1,0}}}
    {pexpire -3 {fast write} 1 1 1 {@fast @keyspace @write} {} {{RW,update index=1 range=0,1,0}}}
    {expireat -3 {fast write} 1 1 1 {@fast @keyspace @write} {} {{RW,update index=1 range=0,1,0}}}
    {pexpireat -3 {fast write} 1 1 1 {@fast @keyspace @write} {} {{RW,update index=1 range=0,1,0}}}
    {ttl 2 {fast readonly} 1 1 1 {@fast @keyspace @read} {nondeterministic_output} {{RO,access index=1 range=0,1,0}}}
    {pttl 2 {fast readonly} 1 1 1 {@fast @keyspace @read} {nondeterministic_output} {{RO,access index=1 range=0,1,0}}}
    {expiretime 2 {fast readonly} 1 1 1 {@fast @keyspace @read} {} {{RO,access index=1 range=0,1,0}}}
    {pexpiretime 2 {fast readonly} 1 1 1 {@fast @keyspace @read} {} {{RO,access index=1 range=0,1,0}}}
    {persist 2 {fast write} 1 1 1 {@fast @keyspace @write} {} {{RW,update index=1 range=0,1,0}}}
    {rename 3 {write} 1 2 1 {@keyspace @slow @write} {} {{RW,access,delete index=1 range=0,1,0} {OW,update index=2 range=0,1,0}}}
    {renamenx 3 {fast write} 1 2 1 {@fast @keyspace @write} {} {{RW,access,delete index=1 range=0,1,0} {OW,insert index=2 range=0,1,0}}}
    {move 3 {fast write} 1 1 1 {@fast @keyspace @write} {} {{RW,access,update index=1 range=0,1,0}}}
    {copy -3 {denyoom write} 1 2 1 {@keyspace @slow @write} {} {{RO,access index=1 range=0,1,0} {OW,update index=2 range=0,1,0}}}
    {keys 2 {readonly} 0 0 0 {@dangerous @keyspace @read @slow} {nondeterministic_output_order request_policy:all_shards} {}}
    {scan -2 {readonly} 0 0 0 {@keyspace @read @slow} {nondeterministic_output request_policy:special} {}}
    {randomkey 1 {readonly} 0 0 0 {@keyspace @read @slow} {nondeterministic_output request_policy:all_shards} {}}
    {object -2 {} 0 0 0 {@slow} {} {}}
    {object|encoding 3 {readonly} 2 2 1 {@keyspace @read @slow} {nondeterministic_output} {{RO index=2 range=0,1,0}}}
    {object|refcount 3 {readonly} 2 2 1 {@keyspace @read @slow} {nondeterministic_output} {{RO index=2 range=0,1,0}}}
    {object|idletime 3 {readonly} 2 2 1 {@keyspace @read @slow} {nondeterministic_output} {{RO index=2 range=0,1,0}}}
    {object|freq 3 {readonly} 2 2 1 {@keyspace @read @slow} {nondeterministic_output} {{RO index=2 range=0,1,0}}}
    {object|help 2 {loading stale} 0 0 0 {@keyspace @slow} {} {}}
    {flushdb -1 {write} 0 0 0 {@dangerous @keyspace @slow @write} {request_policy:all_shards response_policy:all_succeeded} {}}
    {flushall -1 {write} 0 0 0 {@dangerous @keyspace @slow @write} {request_policy:all_shards response_policy:all_succeeded} {}}
    {swapdb 3 {fast write} 0 0 0 {@dangerous @fast @keyspace @write} {} {}}
    {set -3 {denyoom write} 1 1 1 {@slow @string @write} {} {{RW,access,update,variable_flags index=1 range=0,1,0}}}
    {get 2 {fast readonly} 1 1 1 {@fast @read @string} {} {{RO,access index=1 range=0,1,0}}}
    {getex -2 {fast write} 1 1 1 {@fast @string @write} {} {{RW,access,update index=1 range=0,1,0}}}
    {getdel 2 {fast write} 1 1 1 {@fast @string @write} {} {{RW,access,delete index=1 range=0,1,0}}}
    {getset 3 {denyoom fast write} 1 1 1 {@fast @string @write} {} {{RW,access,update index=1 range=0,1,0}}}
    {mget -2 {fast readonly} 1 -1 1 {@fast @read @string} {request_policy:multi_shard} {{RO,access index=1 range=-1,1,0}}}
    {mset -3 {denyoom write} 1 -1 2 {@slow @string @write} {request_policy:multi_shard response_policy:all_succeeded} {{OW,update index=1 range=-1,2,0}}}
    {msetnx -3 {denyoom write} 1 -1 2 {@slow @string @write} {request_policy:multi_shard response_policy:agg_min} {{OW,insert index=1 range=-1,2,0}}}
    {setnx 3 {denyoom fast write} 1 1 1 {@fast @string @write} {} {{OW,insert index=1 range=0,1,0}}}
    {setex 4 {denyoom write} 1 1 1 {@slow @string @write} {} {{OW,update index=1 range=0,1,0}}}
    {psetex 4 {denyoom write} 1 1 1 {@slow @string @write} {} {{OW,update index=1 range=0,1,0}}}
    {append 3 {denyoom fast write} 1 1 1 {@fast @string @write} {} {{RW,insert index=1 range=0,1,0}}}
    {strlen 2 {fast readonly} 1 1 1 {@fast @read @string} {} {{RO index=1 range=0,1,0}}}
    {incr 2 {denyoom fast write} 1 1 1 {@fast @string @write} {} {{RW,access,update index=1 range=0,1,0}}}
    {decr 2 {denyoom fast write} 1 1 1 {@fast @string @write} {} {{RW,access,update index=1 range=0,1,0}}}
    {incrby 3 {denyoom fast write} 1 1 1 {@fast @string @write} {} {{RW,access,update index=1 range=0,1,0}}}
    {decrby 3 {denyoom fast write} 1 1 1 {@fast @string @write} {} {{RW,access,update index=1 range=0,1,0}}}
    {incrbyfloat 3 {denyoom fast write} 1 1 1 {@fast @string @write} {} {{RW,access,update index=1 range=0,1,0}}}
    {getrange 4 {readonly} 1 1 1 {@read @slow @string} {} {{RO,access index=1 range=0,1,0}}}
    {setrange 4 {denyoom write} 1 1 1 {@slow @string @write} {} {{RW,update index=1 range=0,1,0}}}
    {substr 4 {readonly} 1 1 1 {@read @slow @string} {} {{RO,access index=1 range=0,1,0}}}
    {lcs -3 {readonly} 1 2 1 {@read @slow @string} {} {{RO,access index=1 range=1,1,0}}}
    {setbit 4 {denyoom write} 1 1 1 {@bitmap @slow @write} {} {{RW,access,update index=1 range=0,1,0}}}
    {getbit 3 {fast readonly} 1 1 1 {@bitmap @fast @read} {} {{RO,access index=1 range=0,1,0}}}
    {bitcount -2 {readonly} 1 1 1 {@bitmap @read @slow} {} {{RO,access index=1 range=0,1,0}}}
    {bitpos -3 {readonly} 1 1 1 {@bitmap @read @slow} {} {{RO,access index=1 range=0,1,0}}}
    {bitop -4 {denyoom write} 2 -1 1 {@bitmap @slow @write} {} {{OW,update index=2 range=0,1,0} {RO,access index=3 range=-1,1,0}}}
    {bitfield -2 {denyoom write} 1 1 1 {@bitmap @slow @write} {} {{RW,access,update,variable_flags index=1 range=0,1,0}}}
    {bitfield_ro -2 {fast readonly} 1 1 1 {@bitmap @fast @read} {} {{RO,access index=1 range=0,1,0}}}
    {multi 1 {allow_busy fast loading noscript stale} 0 0 0 {@fast @transaction} {} {}}
    {exec 1 {loading noscript skip_slowlog stale} 0 0 0 {@slow @transaction} {} {}}
    {discard 1 {allow_busy fast loading noscript stale} 0 0 0 {@fast @transaction} {} {}}
    {watch -2 {allow_busy fast loading noscript stale} 1 -1 1 {@fast @transaction} {} {{RO index=1 range=-1,1,0}}}
    {unwatch 1 {allow_busy fast loading noscript stale} 0 0 0 {@fast @transaction} {} {}}
}
set command_docs_facts {
    {ping 1.0.0 connection {O(1)} {} {} {} {[message:string]}}
    {echo 1.0.0 connection {O(1)} {} {} {} message:string}
    {quit 1.0.0 connection {O(1)} {} {} {} {}}
    {hello 6.0.0 connection {O(1)} {} {} {6.2.0} {[arguments{protover:integer [AUTH username_password{username:string password:string}] [SETNAME clientname:string]}]}}
    {auth 1.0.0 connection {O(N) where N is the number of passwords defined for the user} {} {} {6.0.0} {[username:string@6.0.0] password:string}}
    {select 1.0.0 connection {O(1)} {} {} {} index:integer}
    {reset 6.2.0 connection {O(1)} {} {} {} {}}
    {client 2.4.0 connection {Depends on subcommand.} {} {} {} {}}
    {client|id 5.0.0 connection {O(1)} {} {} {} {}}
    {client|setname 2.6.9 connection {O(1)} {} {} {} connection-name:string}
    {client|getname 2.6.9 connection {O(1)} {} {} {} {}}
    {client|list 2.4.0 connection {O(N) where N is the number of client connections} {} {} {2.8.12 5.0.0 6.0.0 6.2.0 7.0.0 7.0.3} {[TYPE normal_master_replica_pubsub(NORMAL|MASTER|REPLICA|PUBSUB)@5.0.0] [ID id{client-id:integer...}@6.2.0]}}
    {client|info 6.2.0 connection {O(1)} {} {} {} {}}
    {client|kill 2.4.0 connection {O(N) where N is the number of client connections} {} {} {2.8.12 2.8.12 3.2.0 5.0.0 6.2.0} {filter(ip:port:string@-2.8.12|new-format([ID client-id:integer@2.8.12]|[TYPE normal_master_slave_pubsub(NORMAL|MASTER@3.2.0|SLAVE|REPLICA@5.0.0|PUBSUB)@2.8.12]|[USER username:string]|[ADDR ip:port:string]|[LADDR ip:port:string@6.2.0]|[SKIPME yes/no:string])...)}}
    {client|pause 2.9.50 connection {O(1)} {} {} {6.2.0} {timeout:integer [mode(WRITE|ALL)@6.2.0]}}
    {client|unpause 6.2.0 connection {O(N) Where N is the number of paused clients} {} {} {} {}}
    {client|unblock 5.0.0 connection {O(log N) where N is the number of client connections} {} {} {} {client-id:integer [timeout_error(TIMEOUT|ERROR)]}}
    {client|reply 3.2.0 connection {O(1)} {} {} {} {on_off_skip(ON|OFF|SKIP)}}
    {client|no-evict 7.0.0 connection {O(1)} {} {} {} {enabled(ON|OFF)}}
    {client|getredir 6.0.0 connection {O(1)} {} {} {} {}}
    {client|tracking 6.0.0 connection {O(1). Some options may introduce additional complexity.} {} {} {} {status(ON|OFF) [REDIRECT client-id:integer] [PREFIX prefix:string...!] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]}}
    {client|caching 6.0.0 connection {O(1)} {} {} {} {mode(YES|NO)}}
    {client|trackinginfo 6.2.0 connection {O(1)} {} {} {} {}}
    {client|help 5.0.0 connection {O(1)} {} {} {} {}}
    {command 2.8.13 server {O(N) where N is the total number of Redis commands} {} {} {} {}}
    {command|count 2.8.13 server {O(1)} {} {} {} {}}
    {command|info 2.8.13 server {O(N) where N is the number of commands to look up} {} {} {7.0.0} {[command-name:string...]}}
    {command|docs 7.0.0 server {O(N) where N is the number of commands to look up} {} {} {} {[command-name:string...]}}
    {command|list 7.0.0 server {O(N) where N is the total number of Redis commands} {} {} {} {[FILTERBY filterby(MODULE module-name:string|ACLCAT category:string|PATTERN pattern:pattern)]}}
    {command|getkeys 2.8.13 server {O(N) where N is the number of arguments to the command} {} {} {} {}}
    {command|getkeysandflags 7.0.0 server {O(N) where N is the number of arguments to the command} {} {} {} {}}
    {command|help 5.0.0 server {O(1)} {} {} {} {}}
    {info 1.0.0 server {O(1)} {} {} {7.0.0} {[section:string...]}}
    {config 2.0.0 server {Depends on subcommand.} {} {} {} {}}
    {config|get 2.0.0 server {O(N) when N is the number of configuration parameters provided} {} {} {7.0.0} {parameter{parameter:string}...}}
    {config|set 2.0.0 server {O(N) when N is the number of configuration parameters provided} {} {} {7.0.0} {parameter_value{parameter:string value:string}...}}
    {config|resetstat 2.0.0 server {O(1)} {} {} {} {}}
    {config|rewrite 2.8.0 server {O(1)} {} {} {} {}}
    {config|help 5.0.0 server {O(1)} {} {} {} {}}
    {dbsize 1.0.0 server {O(1)} {} {} {} {}}
    {time 2.6.0 server {O(1)} {} {} {} {}}
    {monitor 1.0.0 server {} {} {} {} {}}
    {slowlog 2.2.12 server {Depends on subcommand.} {} {} {} {}}
    {slowlog|get 2.2.12 server {O(N) where N is the number of entries returned} {} {} {4.0.0} {[count:integer]}}
    {slowlog|len 2.2.12 server {O(1)} {} {} {} {}}
    {slowlog|reset 2.2.12 server {O(N) where N is the number of entries in the slowlog} {} {} {} {}}
    {slowlog|help 6.2.0 server {O(1)} {} {} {} {}}
    {latency 2.8.13 server {Depends on subcommand.} {} {} {} {}}
    {latency|latest 2.8.13 server {O(1)} {} {} {} {}}
    {latency|reset 2.8.13 server {O(1)} {} {} {} {[event:string...]}}
    {latency|history 2.8.13 server {O(1)} {} {} {} event:string}
    {latency|doctor 2.8.13 server {O(1)} {} {} {} {}}
    {latency|help 2.8.13 server {O(1)} {} {} {} {}}
    {debug 1.0.0 server {Depends on subcommand.} {syscmd} {} {} {}}
    {shutdown 1.0.0 server {O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)} {} {} {7.0.0} {[nosave_save(NOSAVE|SAVE)] [NOW@7.0.0] [FORCE@7.0.0] [ABORT@7.0.0]}}
    {lastsave 1.0.0 server {O(1)} {} {} {} {}}
    {memory 4.0.0 server {Depends on subcommand.} {} {} {} {}}
    {memory|usage 4.0.0 server {O(N) where N is the number of samples.} {} {} {} {key:key#0 [SAMPLES count:integer]}}
    {memory|stats 4.0.0 server {O(1)} {} {} {} {}}
    {memory|doctor 4.0.0 server {O(1)} {} {} {} {}}
    {memory|malloc-stats 4.0.0 server {Depends on how much memory is allocated, could be slow} {} {} {} {}}
    {memory|purge 4.0.0 server {Depends on how much memory is allocated, could be slow} {} {} {} {}}
    {memory|help 4.0.0 server {O(1)} {} {} {} {}}
    {function 7.0.0 scripting {Depends on subcommand.} {} {} {} {}}
    {function|flush 7.0.0 scripting {O(N) where N is the number of functions deleted} {} {} {} {[async(ASYNC|SYNC)]}}
    {function|list 7.0.0 scripting {O(N) where N is the number of functions} {} {} {} {[LIBRARYNAME library-name-pattern:string] [WITHCODE]}}
    {function|stats 7.0.0 scripting {O(1)} {} {} {} {}}
    {function|help 7.0.0 scripting {O(1)} {} {} {} {}}
    {del 1.0.0 generic {O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).} {} {} {} key:key#0...}
    {unlink 4.0.0 generic {O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.} {} {} {} key:key#0...}
    {exists 1.0.0 generic {O(N) where N is the number of keys to check.} {} {} {3.0.3} key:key#0...}
    {type 1.0.0 generic {O(1)} {} {} {} key:key#0}
    {touch 3.2.1 generic {O(N) where N is the number of keys that will be touched.} {} {} {} key:key#0...}
    {expire 1.0.0 generic {O(1)} {} {} {7.0.0} {key:key#0 seconds:integer [condition(NX|XX|GT|LT)@7.0.0]}}
    {pexpire 2.6.0 generic {O(1)} {} {} {7.0.0} {key:key#0 milliseconds:integer [condition(NX|XX|GT|LT)@7.0.0]}}
    {expireat 1.2.0 generic {O(1)} {} {} {7.0.0} {key:key#0 unix-time-seconds:unix-time [condition(NX|XX|GT|LT)@7.0.0]}}
    {pexpireat 2.6.0 generic {O(1)} {} {} {7.0.0} {key:key#0 unix-time-milliseconds:unix-time [condition(NX|XX|GT|LT)@7.0.0]}}
    {ttl 1.0.0 generic {O(1)} {} {} {2.8.0} key:key#0}
    {pttl 2.6.0 generic {O(1)} {} {} {2.8.0} key:key#0}
    {expiretime 7.0.0 generic {O(1)} {} {} {} key:key#0}
    {pexpiretime 7.0.0 generic {O(1)} {} {} {} key:key#0}
    {persist 2.2.0 generic {O(1)} {} {} {} key:key#0}
    {rename 1.0.0 generic {O(1)} {} {} {} {key:key#0 newkey:key#1}}
    {renamenx 1.0.0 generic {O(1)} {} {} {3.2.0} {key:key#0 newkey:key#1}}
    {move 1.0.0 generic {O(1)} {} {} {} {key:key#0 db:integer}}
    {copy 6.2.0 generic {O(N) worst case for collections, where N is the number of nested items. O(1) for string values.} {} {} {} {source:key#0 destination:key#1 [DB destination-db:integer] [REPLACE]}}
    {keys 1.0.0 generic {O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.} {} {} {} pattern:pattern}
    {scan 2.8.0 generic {O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.} {} {} {6.0.0} {cursor:integer [MATCH pattern:pattern] [COUNT count:integer] [TYPE type:string@6.0.0]}}
    {randomkey 1.0.0 generic {O(1)} {} {} {} {}}
    {object 2.2.3 generic {Depends on subcommand.} {} {} {} {}}
    {object|encoding 2.2.3 generic {O(1)} {} {} {} key:key#0}
    {object|refcount 2.2.3 generic {O(1)} {} {} {} key:key#0}
    {object|idletime 2.2.3 generic {O(1)} {} {} {} key:key#0}
    {object|freq 4.0.0 generic {O(1)} {} {} {} key:key#0}
    {object|help 6.2.0 generic {O(1)} {} {} {} {}}
    {flushdb 1.0.0 server {O(N) where N is the number of keys in the selected database} {} {} {4.0.0 6.2.0} {[async(ASYNC@4.0.0|SYNC@6.2.0)]}}
    {flushall 1.0.0 server {O(N) where N is the total number of keys in all databases} {} {} {4.0.0 6.2.0} {[async(ASYNC@4.0.0|SYNC@6.2.0)]}}
    {swapdb 4.0.0 server {O(N) where N is the count of clients watching or blocking on keys from both databases.} {} {} {} {index1:integer index2:integer}}
    {set 1.0.0 string {O(1)} {} {} {2.6.12 6.0.0 6.2.0 7.0.0} {key:key#0 value:string [condition(NX|XX)@2.6.12] [GET@6.2.0] [expiration(EX seconds:integer@2.6.12|PX milliseconds:integer@2.6.12|EXAT unix-time-seconds:unix-time@6.2.0|PXAT unix-time-milliseconds:unix-time@6.2.0|KEEPTTL@6.0.0)]}}
    {get 1.0.0 string {O(1)} {} {} {} key:key#0}
    {getex 6.2.0 string {O(1)} {} {} {} {key:key#0 [expiration(EX seconds:integer|PX milliseconds:integer|EXAT unix-time-seconds:unix-time|PXAT unix-time-milliseconds:unix-time|PERSIST)]}}
    {getdel 6.2.0 string {O(1)} {} {} {} key:key#0}
    {getset 1.0.0 string {O(1)} {deprecated} 6.2.0 {} {key:key#0 value:string}}
    {mget 1.0.0 string {O(N) where N is the number of keys to retrieve.} {} {} {} key:key#0...}
    {mset 1.0.1 string {O(N) where N is the number of keys to set.} {} {} {} {key_value{key:key#0 value:string}...}}
    {msetnx 1.0.1 string {O(N) where N is the number of keys to set.} {} {} {} {key_value{key:key#0 value:string}...}}
    {setnx 1.0.0 string {O(1)} {} {} {} {key:key#0 value:string}}
    {setex 2.0.0 string {O(1)} {} {} {} {key:key#0 seconds:integer value:string}}
    {psetex 2.6.0 string {O(1)} {} {} {} {key:key#0 milliseconds:integer value:string}}
    {append 2.0.0 string {O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.} {} {} {} {key:key#0 value:string}}
    {strlen 2.2.0 string {O(1)} {} {} {} key:key#0}
    {incr 1.0.0 string {O(1)} {} {} {} key:key#0}
    {decr 1.0.0 string {O(1)} {} {} {} key:key#0}
    {incrby 1.0.0 string {O(1)} {} {} {} {key:key#0 increment:integer}}
    {decrby 1.0.0 string {O(1)} {} {} {} {key:key#0 decrement:integer}}
    {incrbyfloat 2.6.0 string {O(1)} {} {} {} {key:key#0 increment:double}}
    {getrange 2.4.0 string {O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.} {} {} {} {key:key#0 start:integer end:integer}}
    {setrange 2.2.0 string {O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.} {} {} {} {key:key#0 offset:integer value:string}}
    {substr 1.0.0 string {O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.} {deprecated} 2.0.0 {} {key:key#0 start:integer end:integer}}
    {lcs 7.0.0 string {O(N*M) where N and M are the lengths of s1 and s2, respectively} {} {} {} {key1:key#0 key2:key#0 [LEN] [IDX] [MINMATCHLEN len:integer] [WITHMATCHLEN]}}
    {setbit 2.2.0 bitmap {O(1)} {} {} {} {key:key#0 offset:integer value:integer}}
    {getbit 2.2.0 bitmap {O(1)} {} {} {} {key:key#0 offset:integer}}
    {bitcount 2.6.0 bitmap {O(N)} {} {} {7.0.0} {key:key#0 [index{start:integer end:integer [index_unit(BYTE|BIT)@7.0.0]}]}}
    {bitpos 2.8.7 bitmap {O(N)} {} {} {7.0.0} {key:key#0 bit:integer [index{start:integer [end_index{end:integer [index_unit(BYTE|BIT)@7.0.0]}]}]}}
    {bitfield 3.2.0 bitmap {O(1) for each subcommand specified} {} {} {} {key:key#0 [operation(GET encoding_offset{encoding:string offset:integer}|write{[OVERFLOW wrap_sat_fail(WRAP|SAT|FAIL)] write_operation(SET encoding_offset_value{encoding:string offset:integer value:integer}|INCRBY encoding_offset_increment{encoding:string offset:integer increment:integer})})...]}}
    {bitfield_ro 6.0.0 bitmap {O(1) for each subcommand specified} {} {} {} {key:key#0 [GET encoding_offset{encoding:string offset:integer}...!]}}
    {multi 1.2.0 transactions {O(1)} {} {} {} {}}
    {exec 1.2.0 transactions {Depends on commands in the transaction} {} {} {} {}}
    {discard 2.0.0 transactions {O(N), when N is the number of queued commands} {} {} {} {}}
    {watch 2.2.0 transactions {O(1) for every key.} {} {} {} key:key#0...}
    {unwatch 2.2.0 transactions {O(1)} {} {} {} {}}
}

# Keys and flags Redis 7.0.15's COMMAND GETKEYSANDFLAGS reports for these command lines.
set command_key_facts {
    {{get k} {{k {RO access}}}}
    {{set k v} {{k {OW update}}}}
    {{set k v get} {{k {RW access update}}}}
    {{set k get v} {{k {OW update}}}}
    {{set k v ex get} {{k {RW access update}}}}
    {{set k v EX 10 GET} {{k {RW access update}}}}
    {{mget a b c} {{a {RO access}} {b {RO access}} {c {RO access}}}}
    {{mset a 1 b 2} {{a {OW update}} {b {OW update}}}}
    {{msetnx a 1 b 2} {{a {OW insert}} {b {OW insert}}}}
    {{getex k persist} {{k {RW access update}}}}
    {{getdel k} {{k {RW access delete}}}}
    {{getset k v} {{k {RW access update}}}}
    {{setnx k v} {{k {OW insert}}}}
    {{setex k 10 v} {{k {OW update}}}}
    {{psetex k 10 v} {{k {OW update}}}}
    {{append k v} {{k {RW insert}}}}
    {{strlen k} {{k {RO}}}}
    {{incr k} {{k {RW access update}}}}
    {{incrbyfloat k 1.5} {{k {RW access update}}}}
    {{getrange k 0 1} {{k {RO access}}}}
    {{setrange k 0 v} {{k {RW update}}}}
    {{substr k 0 1} {{k {RO access}}}}
    {{lcs a b} {{a {RO access}} {b {RO access}}}}
    {{setbit k 1 1} {{k {RW access update}}}}
    {{getbit k 1} {{k {RO access}}}}
    {{bitcount k} {{k {RO access}}}}
    {{bitpos k 1} {{k {RO access}}}}
    {{bitop and d a b c} {{d {OW update}} {a {RO access}} {b {RO access}} {c {RO access}}}}
    {{bitop not d a} {{d {OW update}} {a {RO access}}}}
    {{bitfield k} {{k {RO access}}}}
    {{bitfield k get u8 0} {{k {RO access}}}}
    {{bitfield k set u8 0 1} {{k {RW access update}}}}
    {{bitfield k incrby u8 0 1} {{k {RW access update}}}}
    {{bitfield k overflow sat get u8 0} {{k {RO access}}}}
    {{bitfield k get u8} {{k {RW access update}}}}
    {{bitfield k bogus} {{k {RW access update}}}}
    {{bitfield_ro k get u8 0} {{k {RO access}}}}
    {{del a b c} {{a {RM delete}} {b {RM delete}} {c {RM delete}}}}
    {{unlink a b} {{a {RM delete}} {b {RM delete}}}}
    {{exists a a} {{a {RO}} {a {RO}}}}
    {{type k} {{k {RO}}}}
    {{touch a b} {{a {RO}} {b {RO}}}}
    {{expire k 10} {{k {RW update}}}}
    {{pexpire k 10 nx} {{k {RW update}}}}
    {{expireat k 10} {{k {RW update}}}}
    {{pexpireat k 10} {{k {RW update}}}}
    {{ttl k} {{k {RO access}}}}
    {{pttl k} {{k {RO access}}}}
    {{expiretime k} {{k {RO access}}}}
    {{pexpiretime k} {{k {RO access}}}}
    {{persist k} {{k {RW update}}}}
    {{rename a b} {{a {RW access delete}} {b {OW update}}}}
    {{renamenx a b} {{a {RW access delete}} {b {OW insert}}}}
    {{move k 1} {{k {RW access update}}}}
    {{copy a b} {{a {RO access}} {b {OW update}}}}
    {{copy a b db 1 replace} {{a {RO access}} {b {OW update}}}}
    {{memory usage k} {{k {RO}}}}
    {{memory usage k samples 0} {{k {RO}}}}
    {{object encoding k} {{k {RO}}}}
    {{object refcount k} {{k {RO}}}}
    {{object idletime k} {{k {RO}}}}
    {{object freq k} {{k {RO}}}}
    {{watch a b} {{a {RO}} {b {RO}}}}
}

start_server {tags {"introspection command"}} {
    test {COMMAND COUNT counts the top-level commands COMMAND describes} {
        set all [r command]
        assert_equal [r command count] [llength $all]
        set top 0
        foreach name [r command list] {
            if {[string first | $name] < 0} {incr top}
        }
        assert_equal [r command count] $top
        assert_morethan [r command count] 0
    }

    test {Bare COMMAND describes the same commands as COMMAND INFO without names} {
        set bare {}
        foreach e [r command] {lappend bare [lindex $e 0]}
        set info {}
        foreach e [r command info] {lappend info [lindex $e 0]}
        assert_equal [lsort $bare] [lsort $info]
        assert {[lsearch -exact $bare get] >= 0}
        assert {[lsearch -exact $bare command] >= 0}
    }

    test {Every COMMAND entry has ten fields with the expected types} {
        foreach e [r command] {
            set name [lindex $e 0]
            assert_equal [llength $e] 10 "entry of $name"
            assert_equal $name [string tolower $name]
            assert {[string is integer -strict [lindex $e 1]]}
            foreach i {3 4 5} {assert {[string is integer -strict [lindex $e $i]]}}
            foreach cat [lindex $e 6] {assert_match @* $cat}
            foreach sub [lindex $e 9] {
                assert_equal [llength $sub] 10 "subcommand entry of $name"
                assert_match "$name|*" [lindex $sub 0]
            }
        }
    }

    test {COMMAND INFO answers nil for unknown names and accepts container|sub} {
        set reply [r command info get nosuchcommand GET]
        assert_equal [llength $reply] 3
        assert_equal [lindex $reply 1] {}
        assert_equal [lindex [lindex $reply 0] 0] get
        assert_equal [lindex [lindex $reply 2] 0] get "names are case-insensitive"
        set sub [lindex [r command info COMMAND|INFO] 0]
        assert_equal [lindex $sub 0] command|info
        assert_equal [lindex $sub 1] -2
        assert_equal [r command info get|x command| command|info|x |info] {{} {} {} {}}
    }

    test {COMMAND INFO of a container lists its subcommands as full entries} {
        set e [cmd_info_entry command]
        set subs {}
        foreach s [lindex $e 9] {lappend subs [lindex $s 0]}
        assert_equal [lsort $subs] {command|count command|docs command|getkeys\
            command|getkeysandflags command|help command|info command|list}
        assert_equal [lindex [cmd_info_entry get] 9] {} "a plain command has no subcommands"
    }

    test {COMMAND INFO reports key specs as maps} {
        set ks [lindex [lindex [cmd_info_entry get] 8] 0]
        assert_equal [dict get $ks flags] {RO access}
        assert_equal [dict get $ks begin_search] {type index spec {index 1}}
        assert_equal [dict get $ks find_keys] {type range spec {lastkey 0 keystep 1 limit 0}}
        set ks [lindex [lindex [cmd_info_entry set] 8] 0]
        assert {[dict exists $ks notes] && [dict get $ks notes] ne ""}
        assert_equal [dict get $ks flags] {RW access update variable_flags}
    }

    test {COMMAND DOCS of one command: fields and argument maps} {
        set reply [r command docs get]
        assert_equal [lindex $reply 0] get
        set doc [lindex $reply 1]
        assert {[dict get $doc summary] ne ""}
        assert_equal [dict get $doc since] 1.0.0
        assert_equal [dict get $doc group] string
        assert_equal [dict get $doc complexity] O(1)
        assert_equal [dict get $doc arguments] {{name key type key key_spec_index 0}}
        assert {![dict exists $doc history]}
        assert {![dict exists $doc subcommands]}
    }

    test {COMMAND DOCS leaves unknown names out and keys results by lower-case full name} {
        assert_equal [r command docs nosuchcommand] {}
        assert_equal [r command docs get|x config| nosuch] {}
        set reply [r command docs GET nosuch command|COUNT]
        assert_equal [llength $reply] 4
        assert_equal [lindex $reply 0] get
        assert_equal [lindex $reply 2] command|count
        assert_equal [dict get [lindex $reply 3] since] 2.8.13
    }

    test {COMMAND DOCS nests subcommands under the container} {
        set doc [cmd_docs_entry command]
        assert_equal [dict get $doc group] server
        set subs [dict get $doc subcommands]
        assert_equal [lsort [dict keys $subs]] {command|count command|docs command|getkeys\
            command|getkeysandflags command|help command|info command|list}
        assert_equal [dict get $subs command|docs since] 7.0.0
    }

    test {COMMAND DOCS reports history as version/description pairs} {
        set history [dict get [cmd_docs_entry set] history]
        assert_equal [llength $history] 4
        foreach h $history {
            assert_equal [llength $h] 2
            assert {[lindex $h 1] ne ""}
        }
        assert_equal [lindex [lindex $history 0] 0] 2.6.12
    }

    test {COMMAND DOCS marks deprecated commands} {
        set doc [cmd_docs_entry getset]
        assert_equal [dict get $doc doc_flags] deprecated
        assert_equal [dict get $doc deprecated_since] 6.2.0
        assert_equal [dict get $doc replaced_by] {`SET` with the `!GET` argument}
        set doc [cmd_docs_entry substr]
        assert_equal [dict get $doc deprecated_since] 2.0.0
        assert_equal [dict get $doc replaced_by] {`GETRANGE`}
    }

    test {COMMAND DOCS without names documents every command with at least a group} {
        set all [r command docs]
        assert_equal [expr {[llength $all] / 2}] [r command count]
        foreach {name doc} $all {
            cmd_assert {[dict exists $doc group]} "group of $name"
            if {[dict exists $doc subcommands]} {
                dict for {sub subdoc} [dict get $doc subcommands] {
                    assert_match "$name|*" $sub
                    cmd_assert {[dict exists $subdoc group]} "group of $sub"
                }
            }
        }
    }

    test {Every registered command and subcommand has a summary, a since-version and a group} {
        set missing {}
        foreach {name doc} [r command docs] {
            set docs [list $name $doc]
            if {[dict exists $doc subcommands]} {lappend docs {*}[dict get $doc subcommands]}
            foreach {n d} $docs {
                foreach field {summary since group} {
                    if {![dict exists $d $field]} {lappend missing "$n:$field"}
                }
            }
        }
        assert_equal $missing {}
    }

    # redis-tp's own commands (temporary keys, existence watches) exist only on redis-tp.
    if {[lindex [r command info settp] 0] ne {}} {
        test {redis-tp's own commands are documented with their arguments and keys} {
            foreach {name args} {
                settp {key:key#0 value:string [FENCE] [REENTRANT]}
                bsettp {key:key#0 value:string timeout:double [FENCE] [REENTRANT]}
                tpinfo key:key#0
                tpwaiters key:key#0
                tpkeys {[owner(CLIENT client-id:integer|SESSION session-id:integer)]}
                deltp {key:key#0...}
                watchex {key:key#0...}
                unwatchex {[key:key#0...]}
                object|owner key:key#0
                object|fence key:key#0
                client|lease milliseconds:integer
            } {
                set doc [cmd_docs_entry $name]
                assert_match redis-tp:* [dict get $doc summary]
                assert_equal [cmd_args_fingerprint $doc] $args "arguments of $name"
            }
            assert_equal [r command getkeysandflags settp k v fence] {{k {OW insert}}}
            assert_equal [r command getkeysandflags deltp a b] {{a {RM delete}} {b {RM delete}}}
            assert_equal [r command getkeys object owner k] k
            assert_equal [r command getkeysandflags tpinfo k] {{k RO}}
            assert_equal [r command getkeysandflags tpwaiters k] {{k RO}}
        }
    }

    test {COMMAND LIST names every command and subcommand} {
        set names [r command list]
        assert_unique $names
        assert {[lsearch -exact $names get] >= 0}
        assert {[lsearch -exact $names command|list] >= 0}
        set expected {}
        foreach e [r command] {
            lappend expected [lindex $e 0]
            foreach s [lindex $e 9] {lappend expected [lindex $s 0]}
        }
        assert_equal [lsort $names] [lsort $expected]
    }

    test {COMMAND LIST FILTERBY PATTERN matches full names, ignoring case} {
        assert_equal [lsort [r command list filterby pattern command*]] {command command|count\
            command|docs command|getkeys command|getkeysandflags command|help command|info\
            command|list}
        assert_equal [lsort [r command list FILTERBY PATTERN COMMAND|G*]] \
            {command|getkeys command|getkeysandflags}
        assert_equal [r command list filterby pattern nosuch*] {}
    }

    test {COMMAND LIST FILTERBY ACLCAT uses each command's categories} {
        set conn [r command list filterby aclcat connection]
        foreach name {command command|info command|getkeys} {
            cmd_assert {[lsearch -exact $conn $name] >= 0} "$name is @connection"
        }
        assert {[lsearch -exact $conn get] < 0}
        set str [r command list filterby aclcat STRING]
        cmd_assert {[lsearch -exact $str get] >= 0} "category names ignore case"
        assert_equal [r command list filterby aclcat nosuchcategory] {}
    }

    test {COMMAND LIST FILTERBY MODULE finds nothing without modules} {
        assert_equal [r command list filterby module nosuchmodule] {}
    }

    test {COMMAND LIST rejects malformed filters} {
        assert_error {ERR syntax error} {r command list filterby}
        assert_error {ERR syntax error} {r command list filterby aclcat}
        assert_error {ERR syntax error} {r command list filterby bogus x}
        assert_error {ERR syntax error} {r command list bogus}
        assert_error {ERR syntax error} {r command list filterby pattern a b}
    }

    test {COMMAND GETKEYS finds keys with key specs} {
        assert_equal [r command getkeys get k] k
        assert_equal [r command getkeys set k v ex 10] k
        assert_equal [r command getkeys mset a 1 b 2 c 3] {a b c}
        assert_equal [r command getkeys mget a b c] {a b c}
        assert_equal [r command getkeys GET k] k "the command name ignores case"
    }

    test {COMMAND GETKEYS resolves subcommands} {
        assert_equal [r command getkeys memory usage k] k
        assert_equal [r command getkeys object encoding k] k
        assert_equal [r command getkeys OBJECT ENCODING k] k
    }

    test {COMMAND GETKEYS error texts} {
        assert_error {ERR Invalid command specified} {r command getkeys nosuchcommand a}
        assert_error {ERR Invalid command specified} {r command getkeys object nosuchsub k}
        assert_error {ERR Invalid command specified} {r command getkeys object|encoding k}
        assert_error {ERR The command has no key arguments} {r command getkeys command count}
        assert_error {ERR The command has no key arguments} {r command getkeys command info get}
        assert_error {ERR Invalid number of arguments specified for command} \
            {r command getkeys get a b}
        assert_error {ERR Invalid number of arguments specified for command} \
            {r command getkeys set a}
        assert_error {ERR Invalid number of arguments specified for command} \
            {r command getkeys object encoding}
        assert_error {ERR wrong number of arguments for 'command|getkeys' command} \
            {r command getkeys get}
        assert_error {ERR wrong number of arguments for 'command|getkeysandflags' command} \
            {r command getkeysandflags}
    }

    test {COMMAND GETKEYSANDFLAGS pairs each key with its flags} {
        assert_equal [r command getkeysandflags get k] {{k {RO access}}}
        assert_equal [r command getkeysandflags mset a 1 b 2] {{a {OW update}} {b {OW update}}}
    }

    test {COMMAND GETKEYSANDFLAGS: SET reads its key only with GET} {
        assert_equal [r command getkeysandflags set k v] {{k {OW update}}}
        assert_equal [r command getkeysandflags set k v get] {{k {RW access update}}}
        assert_equal [r command getkeysandflags set k v EX 10 GET] {{k {RW access update}}}
        assert_equal [r command getkeysandflags set k get v] {{k {OW update}}} \
            "a value that reads 'get' is not the option"
    }

    test {COMMAND GETKEYSANDFLAGS: BITFIELD only reads when it only GETs} {
        assert_equal [r command getkeysandflags bitfield k get u8 0] {{k {RO access}}}
        assert_equal [r command getkeysandflags bitfield k overflow sat get u8 0] {{k {RO access}}}
        assert_equal [r command getkeysandflags bitfield k] {{k {RO access}}}
        assert_equal [r command getkeysandflags bitfield k set u8 0 1] {{k {RW access update}}}
        assert_equal [r command getkeysandflags bitfield k get u8 0 incrby u8 0 1] \
            {{k {RW access update}}}
        assert_equal [r command getkeysandflags bitfield k get u8] {{k {RW access update}}} \
            "an incomplete operation counts as a write"
    }

    test {COMMAND HELP, and errors of the container} {
        set help [r command help]
        assert_match "COMMAND <subcommand> *" [lindex $help 0]
        foreach sub {COUNT LIST INFO DOCS GETKEYS GETKEYSANDFLAGS HELP} {
            cmd_assert {[lsearch -glob $help "$sub*"] >= 0} "help mentions $sub"
        }
        assert_error {ERR unknown subcommand 'nosuch'. Try COMMAND HELP.} {r command nosuch}
        assert_error {ERR wrong number of arguments for 'command|count' command} {r command count x}
        assert_error {ERR wrong number of arguments for 'command|help' command} {r command help x}
    }

    test {RESP3: COMMAND INFO uses sets for flags, categories, tips and key specs} {
        set lines [cmd_resp3_lines command info get]
        assert_equal [lrange $lines 0 9] {*1 *10 {$3} get :2 ~2 +readonly +fast :1 :1}
        assert_equal [lrange $lines 10 15] {:1 ~3 +@read +@string +@fast ~0}
        assert_equal [lrange $lines 16 19] {~1 %3 {$5} flags}
        assert_equal [lrange $lines 20 22] {~2 +RO +access}
    }

    test {RESP3: subcommands are an array, or an empty set when there are none} {
        set lines [cmd_resp3_lines command info get]
        assert_equal [llength $lines] 56
        assert_equal [lrange $lines end-3 end] {{$5} limit :0 ~0}
        set lines [cmd_resp3_lines command info command]
        assert_equal [lrange $lines 0 4] {*1 *10 {$7} command :-1}
        assert_equal [lrange $lines 14 18] {~1 {$29} nondeterministic_output_order ~0 *7}
    }

    test {RESP3: COMMAND DOCS is a map of maps; flags, doc_flags and history are sets} {
        set lines [cmd_resp3_lines command docs set]
        assert_equal [lrange $lines 0 3] {%1 {$3} set %6}
        assert_equal [lindex $lines [expr {[lsearch -exact $lines history] + 1}]] ~4
        assert_equal [lindex $lines [expr {[lsearch -exact $lines flags] + 1}]] ~1
        assert_equal [lindex $lines [expr {[lsearch -exact $lines arguments] + 1}]] *5
        set lines [cmd_resp3_lines command docs getset]
        set i [lsearch -exact $lines doc_flags]
        assert_equal [lrange $lines $i [expr {$i + 8}]] \
            {doc_flags ~1 +deprecated {$16} deprecated_since {$5} 6.2.0 {$11} replaced_by}
    }

    test {RESP3: COMMAND INFO of an unknown command is a null} {
        assert_equal [cmd_resp3_lines command info nosuchcommand] {*1 _}
    }

    test {RESP3: COMMAND GETKEYSANDFLAGS reports flags as a set} {
        assert_equal [cmd_resp3_lines command getkeysandflags get k] \
            {*1 *2 {$1} k ~2 +RO +access}
    }
}

start_server {tags {"introspection command"}} {
    foreach row $command_info_facts {
        lassign $row name arity flags first last step acl tips specs
        test "COMMAND INFO $name: Redis 7.0's arity, flags, keys, categories, tips, key specs" {
            set e [cmd_info_entry $name]
            assert_equal [lindex $e 0] $name
            assert_equal [lindex $e 1] $arity "arity"
            assert_equal [lsort [lindex $e 2]] [lrange $flags 0 end] "flags"
            assert_equal [lrange $e 3 5] [list $first $last $step] "first/last/step"
            assert_equal [lsort [lindex $e 6]] [lrange $acl 0 end] "ACL categories"
            assert_equal [lsort [lindex $e 7]] [lrange $tips 0 end] "tips"
            set got {}
            foreach ks [lindex $e 8] {lappend got [cmd_keyspec_fingerprint $ks]}
            assert_equal $got [lrange $specs 0 end] "key specs"
        }
    }

    foreach row $command_docs_facts {
        lassign $row name since group complexity doc_flags deprecated_since history args
        test "COMMAND DOCS $name: Redis 7.0's versions, group, complexity and arguments" {
            set doc [cmd_docs_entry $name]
            cmd_assert {[dict exists $doc summary] && [dict get $doc summary] ne ""} "summary"
            assert_equal [dict get $doc since] $since "since"
            assert_equal [dict get $doc group] $group "group"
            if {$complexity eq ""} {
                cmd_assert {![dict exists $doc complexity]} "no complexity"
            } else {
                assert_equal [dict get $doc complexity] $complexity "complexity"
            }
            set got_flags {}
            if {[dict exists $doc doc_flags]} {set got_flags [lsort [dict get $doc doc_flags]]}
            assert_equal $got_flags [lrange $doc_flags 0 end] "doc_flags"
            set got_dep {}
            if {[dict exists $doc deprecated_since]} {set got_dep [dict get $doc deprecated_since]}
            assert_equal $got_dep $deprecated_since "deprecated_since"
            assert_equal [dict exists $doc replaced_by] [expr {$deprecated_since ne ""}] \
                "replaced_by goes with deprecation"
            set got_history {}
            if {[dict exists $doc history]} {
                foreach h [dict get $doc history] {
                    cmd_assert {[lindex $h 1] ne ""} "history text"
                    lappend got_history [lindex $h 0]
                }
            }
            assert_equal $got_history [lrange $history 0 end] "history versions"
            assert_equal [cmd_args_fingerprint $doc] $args "arguments"
        }
    }

    # BITOP's row grew Redis 8.2's operations; what it shares with 7.0's row is checked on both.
    test "COMMAND DOCS bitop: Redis 7.0's since, group and complexity" {
        set doc [cmd_docs_entry bitop]
        assert_equal [dict get $doc since] 2.6.0
        assert_equal [dict get $doc group] bitmap
        assert_equal [dict get $doc complexity] {O(N)}
        assert_match {operation* destkey:key#0 key:key#1...} [cmd_args_fingerprint $doc]
    }

    # The rows that newer servers' options changed (tests/unit/newer-options.tcl runs them).
    tags {redistp} {
        foreach {name history args} {
            bitop 8.2.0 {operation(AND|OR|XOR|NOT|DIFF@8.2.0|DIFF1@8.2.0|ANDOR@8.2.0|ONE@8.2.0) destkey:key#0 key:key#1...}
            zrank 7.2.0 {key:key#0 member:string [WITHSCORE@7.2.0]}
            zrevrank 7.2.0 {key:key#0 member:string [WITHSCORE@7.2.0]}
            hscan 7.4.0 {key:key#0 cursor:integer [MATCH pattern:pattern] [COUNT count:integer] [NOVALUES@7.4.0]}
            zscan 8.0.0 {key:key#0 cursor:integer [MATCH pattern:pattern] [COUNT count:integer] [NOSCORES@8.0.0]}
        } {
            test "COMMAND DOCS $name: the newer option and its history" {
                set doc [cmd_docs_entry $name]
                set got {}
                foreach h [dict get $doc history] {lappend got [lindex $h 0]}
                assert_equal $history [lindex $got end]
                assert_equal $args [cmd_args_fingerprint $doc]
            }
        }
    }

    foreach row $command_key_facts {
        lassign $row line expected
        test "COMMAND GETKEYSANDFLAGS $line" {
            set got {}
            foreach k [r command getkeysandflags {*}$line] {
                lappend got [list [lindex $k 0] [lindex $k 1]]
            }
            set want {}
            foreach k $expected {lappend want [list [lindex $k 0] [lindex $k 1]]}
            assert_equal $got $want
            set keys {}
            foreach k $expected {lappend keys [lindex $k 0]}
            assert_equal [r command getkeys {*}$line] $keys "GETKEYS agrees"
        }
    }
}

start_server {tags {"command"}} {
    test {Every container's HELP has Redis's header and closing HELP entry} {
        foreach container {object slowlog latency command client config memory function} {
            set help [r $container help]
            set upper [string toupper $container]
            assert_equal "$upper <subcommand> \[<arg> \[value\] \[opt\] ...\]. Subcommands are:" \
                [lindex $help 0] "$container help header"
            assert_equal {HELP} [lindex $help end-1] "$container help entry"
            assert_equal {    Prints this help.} [lindex $help end] "$container help text"
        }
    }
}
