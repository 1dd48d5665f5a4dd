# Wire protocol: inline and multibulk requests, pipelining, malformed
# requests that must close the connection, binary safety, big arguments,
# RESP3 reply types and HELLO.

# Sends bytes on a fresh raw connection and returns the first reply line and
# whether the server closed the connection within wait_ms, as {line closed}.
proc proto_exchange {bytes {wait_ms 3000}} {
    set s [raw_connect]
    raw_write $s $bytes
    set line [raw_read_line $s]
    set closed [raw_is_closed $s $wait_ms]
    raw_close $s
    return [list $line $closed]
}

# Checks a malformed request gets exactly this error and a closed socket,
# and that the server keeps serving the default client.
proc assert_protocol_error {bytes expected} {
    lassign [proto_exchange $bytes] line closed
    assert_equal $line "-ERR Protocol error: $expected"
    assert_equal $closed 1 "connection closed after the protocol error"
    assert_equal [r ping] PONG
}

start_server {tags {protocol}} {
    test {Inline PING and commands with arguments} {
        set s [raw_connect]
        raw_write $s "PING\r\n"
        assert_equal [raw_read_line $s] +PONG
        raw_write $s "SET inline:k hello\r\nGET inline:k\r\n"
        assert_equal [raw_read_line $s] +OK
        assert_equal [raw_read_line $s] {$5}
        assert_equal [raw_read_line $s] hello
        raw_close $s
    }

    test {Inline command terminated by a bare newline} {
        set s [raw_connect]
        raw_write $s "PING\nECHO hi\n"
        assert_equal [raw_read_line $s] +PONG
        assert_equal [raw_read_line $s] {$2}
        assert_equal [raw_read_line $s] hi
        raw_close $s
    }

    test {Inline quoting: double quotes with escapes, single quotes} {
        set s [raw_connect]
        raw_write $s "SET \"inline q\" \"a b\\x41\\n\"\r\nGET \"inline q\"\r\n"
        assert_equal [raw_read_line $s] +OK
        assert_equal [raw_read_line $s] {$5}
        assert_equal [raw_read_bytes $s 7] "a bA\n\r\n"
        raw_write $s "ECHO 'x y'\r\n"
        assert_equal [raw_read_line $s] {$3}
        assert_equal [raw_read_line $s] {x y}
        raw_close $s
    }

    test {Empty lines between commands are ignored} {
        set s [raw_connect]
        raw_write $s "\r\n\r\n\n   \r\nPING\r\n"
        assert_equal [raw_read_line $s] +PONG
        raw_close $s
    }

    test {Zero and negative multibulk counts are ignored} {
        set s [raw_connect]
        raw_write $s "*0\r\n*-1\r\n*-5\r\nPING\r\n"
        assert_equal [raw_read_line $s] +PONG
        raw_close $s
    }

    test {Unknown command error text, inline and multibulk} {
        lassign [proto_exchange "FOO bar baz\r\n" 200] line closed
        assert_equal $line "-ERR unknown command 'FOO', with args beginning with: 'bar' 'baz' "
        assert_equal $closed 0
        lassign [proto_exchange "*2\r\n\$3\r\nFOO\r\n\$3\r\nbar\r\n" 200] line closed
        assert_equal $line "-ERR unknown command 'FOO', with args beginning with: 'bar' "
        assert_equal $closed 0
    }

    test {REPLCONF's unknown-option error: CR/LF trimmed at its end, spaces inside, cut at a NUL} {
        # REPLCONF's unknown option ends its error text: a trailing newline of the argument is
        # trimmed, one inside it becomes a space (the line must stay one RESP line).
        lassign [proto_exchange "*3\r\n\$8\r\nREPLCONF\r\n\$4\r\nfoo\n\r\n\$1\r\n1\r\n" 200] line closed
        assert_equal $line "-ERR Unrecognized REPLCONF option: foo"
        lassign [proto_exchange "*3\r\n\$8\r\nREPLCONF\r\n\$5\r\nf\ro\no\r\n\$1\r\n1\r\n" 200] line closed
        assert_equal $line "-ERR Unrecognized REPLCONF option: f o o"
        assert_equal $closed 0
        # Texts Redis formats with %s end at an argument's first NUL byte.
        lassign [proto_exchange "*3\r\n\$8\r\nREPLCONF\r\n\$3\r\na\x00b\r\n\$1\r\n1\r\n" 200] line closed
        assert_equal $line "-ERR Unrecognized REPLCONF option: a"
    }

    test {A request split across many small writes} {
        set s [raw_connect]
        foreach piece [list "*3\r" "\n\$3\r\nSE" "T\r\n\$5\r\nsplit" "\r\n\$1" "\r\nv\r" "\n"] {
            raw_write $s $piece
            after 20
        }
        assert_equal [raw_read_line $s] +OK
        raw_close $s
        assert_equal [r get split] {}
        r select 0
        assert_equal [r get split] v
        r select [srv db]
    }

    test {Pipelining 10000 commands through one socket} {
        set c [::redis::redis [srv host] [srv port]]
        $c flushdb
        set batch ""
        for {set i 0} {$i < 10000} {incr i} {
            append batch [::redis::encode_command [list SET pipe:$i val:$i]]
        }
        $c write $batch
        $c flush
        set oks 0
        for {set i 0} {$i < 10000} {incr i} {
            if {[$c read] eq "OK"} {incr oks}
        }
        assert_equal $oks 10000
        set batch ""
        for {set i 0} {$i < 10000} {incr i} {
            append batch "GET pipe:$i\r\n"
        }
        $c write $batch
        $c flush
        set good 0
        for {set i 0} {$i < 10000} {incr i} {
            if {[$c read] eq "val:$i"} {incr good}
        }
        assert_equal $good 10000
        assert_equal [$c dbsize] 10000
        $c flushdb
        $c close
    }

    test {Mixed inline and multibulk requests in one pipeline} {
        set s [raw_connect]
        raw_write $s "PING\r\n*2\r\n\$4\r\nECHO\r\n\$3\r\nabc\r\nECHO def\r\n*1\r\n\$4\r\nPING\r\n"
        assert_equal [raw_read_line $s] +PONG
        assert_equal [raw_read_line $s] {$3}
        assert_equal [raw_read_line $s] abc
        assert_equal [raw_read_line $s] {$3}
        assert_equal [raw_read_line $s] def
        assert_equal [raw_read_line $s] +PONG
        raw_close $s
    }

    test {Errors in a pipeline keep their place among the replies} {
        set s [raw_connect]
        raw_write $s "SET pe 1\r\nNOSUCH\r\nGET pe\r\nINCR pe x\r\nINCR pe\r\n"
        assert_equal [raw_read_line $s] +OK
        assert_equal [raw_read_line $s] "-ERR unknown command 'NOSUCH', with args beginning with: "
        assert_equal [raw_read_line $s] {$1}
        assert_equal [raw_read_line $s] 1
        assert_equal [raw_read_line $s] "-ERR wrong number of arguments for 'incr' command"
        assert_equal [raw_read_line $s] :2
        raw_write $s "DEL pe\r\n"
        assert_equal [raw_read_line $s] :1
        raw_close $s
    }

    test {A command with 100000 arguments} {
        set elements {}
        for {set i 0} {$i < 100000} {incr i} {lappend elements $i}
        assert_equal [r rpush manyargs {*}$elements] 100000
        assert_equal [r llen manyargs] 100000
        assert_equal [r lindex manyargs 99999] 99999
        r del manyargs
    }

    test {Protocol error: invalid multibulk length} {
        assert_protocol_error "*abc\r\n" {invalid multibulk length}
        assert_protocol_error "*2147483648\r\n" {invalid multibulk length}
    }

    test {Protocol error: invalid bulk length (garbage, negative, 2GB)} {
        assert_protocol_error "*1\r\n\$abc\r\n" {invalid bulk length}
        assert_protocol_error "*1\r\n\$-5\r\n" {invalid bulk length}
        assert_protocol_error "*1\r\n\$2147483648\r\n" {invalid bulk length}
        assert_protocol_error "*1\r\n\$536870913\r\n" {invalid bulk length}
    }

    test {Protocol error: expected '$'} {
        assert_protocol_error "*3\r\n\$3\r\nSET\r\nx\r\n" {expected '$', got 'x'}
        assert_protocol_error "*1\r\n:1\r\n" {expected '$', got ':'}
    }

    test {Protocol error: unbalanced quotes in inline request} {
        assert_protocol_error "SET \"a b\r\n" {unbalanced quotes in request}
        assert_protocol_error "SET 'a b\r\n" {unbalanced quotes in request}
        assert_protocol_error "SET \"a\"b c\r\n" {unbalanced quotes in request}
    }

    test {Protocol error: too big inline request} {
        assert_protocol_error [string repeat a 70000] {too big inline request}
    }

    test {Protocol error: too big mbulk and bulk count strings} {
        assert_protocol_error "*[string repeat 1 70000]" {too big mbulk count string}
        assert_protocol_error "*1\r\n\$[string repeat 1 70000]" {too big bulk count string}
    }

    test {Commands before a protocol error in the same read are served} {
        lassign [proto_exchange "PING\r\n*abc\r\n"] line closed
        assert_equal $line +PONG
        assert_equal $closed 1
    }

    test {A valid bulk length is accepted and its payload awaited} {
        set s [raw_connect]
        raw_write $s "*1\r\n\$1048576\r\n"
        assert_equal [raw_is_closed $s 300] 0 "the server waits for the payload"
        raw_close $s
        assert_equal [r ping] PONG
    }

    test {Truncated requests followed by a close do not disturb the server} {
        set other [redis_client]
        foreach partial [list "*3\r\n\$3\r\nSET\r\n\$5\r\ntrunc\r\n\$5\r\nab" \
                             "*3\r\n\$3\r\nSET\r\n\$5\r\ntrunc" "*3\r\n" "SET trunc x"] {
            set s [raw_connect]
            raw_write $s $partial
            after 20
            raw_close $s
            assert_equal [$other ping] PONG
        }
        r select 0
        assert_equal [r exists trunc] 0
        r select [srv db]
        $other close
    }

    test {Binary-safe keys and values with CR, LF and NUL} {
        set key "bin\r\nkey\x00end"
        set value "v\x00\r\n\x01\xff\r\n"
        r set $key $value
        assert_equal [r get $key] $value
        assert_equal [r strlen $key] 8
        assert_equal [r exists "bin\r\nkey"] 0
        assert_equal [r keys "bin*"] [list $key]
        r del $key
    }

    test {Every byte value round-trips in a value} {
        set all ""
        for {set i 0} {$i < 256} {incr i} {append all [format %c $i]}
        r set bytes $all
        assert_equal [r get bytes] $all
        assert_equal [r strlen bytes] 256
    }

    test {10 MB argument round trip} {
        set big [string repeat "0123456789" 1048576]
        r set bigval $big
        assert_equal [r strlen bigval] 10485760
        set back [r get bigval]
        assert_equal [string length $back] 10485760
        assert {$back eq $big}
        r del bigval
    }

    test {proto-max-bulk-len limits bulk arguments} {
        assert_error {*argument must be between 1048576 and*} {
            r config set proto-max-bulk-len 1000
        }
        r config set proto-max-bulk-len 2mb
        assert_equal [r config get proto-max-bulk-len] {proto-max-bulk-len 2097152}
        assert_protocol_error "*1\r\n\$2097153\r\n" {invalid bulk length}
        r set limited [string repeat x 2097152]
        assert_equal [r strlen limited] 2097152
        r config set proto-max-bulk-len 512mb
        r del limited
    } {} {needs:config}
}

start_server {tags {protocol resp3}} {
    test {HELLO 3 returns the server map} {
        set c [redis_client]
        set info [$c hello 3]
        assert_equal [dict get $info server] redis
        assert_equal [dict get $info proto] 3
        assert_match {7.*} [dict get $info version]
        assert_equal [dict get $info mode] standalone
        assert_equal [dict get $info role] master
        assert_equal [dict get $info modules] {}
        assert {[string is integer -strict [dict get $info id]]}
        assert_equal [dict get $info id] [$c client id]
        $c close
    }

    test {RESP3 frames: null, map, double, set} {
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd readraw 1
        $rd get nokey
        assert_equal [$rd read] _
        $rd hset h f v
        assert_equal [$rd read] :1
        $rd hgetall h
        assert_equal [$rd read] %1
        assert_equal [$rd read] {$1}
        assert_equal [$rd read] f
        assert_equal [$rd read] {$1}
        assert_equal [$rd read] v
        $rd zadd z 1.5 m
        assert_equal [$rd read] :1
        $rd zscore z m
        assert_equal [$rd read] ,1.5
        $rd sadd s a
        assert_equal [$rd read] :1
        $rd smembers s
        assert_equal [$rd read] ~1
        assert_equal [$rd read] {$1}
        assert_equal [$rd read] a
        $rd close
    }

    test {RESP2 frames for the same commands} {
        set rd [redis_deferring_client]
        $rd readraw 1
        $rd get nokey
        assert_equal [$rd read] {$-1}
        $rd zscore z m
        assert_equal [$rd read] {$3}
        assert_equal [$rd read] 1.5
        $rd hgetall h
        assert_equal [$rd read] *2
        $rd close
    }

    test {HELLO without arguments keeps the protocol; HELLO 2 switches back} {
        set c [redis_client]
        $c hello 3
        assert_equal [dict get [$c hello] proto] 3
        assert_equal [dict get [$c hello 2] proto] 2
        assert_equal [dict get [$c hello] proto] 2
        $c readraw 1
        assert_equal [$c get nokey] {$-1}
        $c close
    }

    test {HELLO error texts} {
        assert_error {NOPROTO unsupported protocol version} {r hello 4}
        assert_error {NOPROTO unsupported protocol version} {r hello 1}
        assert_error {NOPROTO unsupported protocol version} {r hello 0}
        assert_error {ERR Protocol version is not an integer or out of range} {r hello abc}
        assert_error {ERR Syntax error in HELLO option 'foo'} {r hello 3 foo}
        assert_error {ERR Syntax error in HELLO option 'AUTH'} {r hello 3 AUTH}
        # A failed HELLO leaves the protocol alone.
        set c [redis_client]
        catch {$c hello 3 foo}
        $c readraw 1
        assert_equal [$c get nokey] {$-1}
        $c close
    }

    test {RESP3 reply types through DEBUG PROTOCOL} {
        set c [redis_client]
        $c hello 3
        assert_equal [$c debug protocol string] {Hello World}
        assert_equal [$c debug protocol integer] 12345
        assert_equal [$c debug protocol double] 3.141
        assert_equal [$c debug protocol bignum] 1234567999999999999999999999999999999
        assert_equal [$c debug protocol null] {}
        assert_equal [$c debug protocol array] {0 1 2}
        assert_equal [$c debug protocol set] {0 1 2}
        assert_equal [$c debug protocol map] {0 0 1 1 2 0}
        assert_equal [$c debug protocol true] 1
        assert_equal [$c debug protocol false] 0
        assert_equal [$c debug protocol verbatim] "This is a verbatim\nstring"
        assert_equal [$c debug protocol attrib] {Some real reply following the attribute}
        assert_equal [$c attributes] {key-popularity {key:123 90}}
        # The push frame comes first and is read as its own reply.
        assert_equal [$c debug protocol push] {server-cpu-usage 42}
        assert_equal [$c read] {Some real reply following the push reply}
        $c close
    } {} {needs:debug}

    test {RESP3 raw frames for double, boolean, big number, verbatim} {
        set rd [redis_deferring_client]
        $rd hello 3
        $rd read
        $rd readraw 1
        $rd debug protocol double
        assert_equal [$rd read] ,3.141
        $rd debug protocol true
        assert_equal [$rd read] #t
        $rd debug protocol false
        assert_equal [$rd read] #f
        $rd debug protocol bignum
        assert_equal [$rd read] (1234567999999999999999999999999999999
        $rd debug protocol verbatim
        assert_equal [$rd read] =29
        $rd close
    } {} {needs:debug}

    test {DEBUG PROTOCOL in RESP2 degrades types} {
        set c [redis_client]
        assert_equal [$c debug protocol true] 1
        assert_equal [$c debug protocol null] {}
        assert_equal [$c debug protocol double] 3.141
        assert_equal [$c debug protocol map] {0 0 1 1 2 0}
        assert_error {ERR RESP2 is not supported by this command} {$c debug protocol push}
        $c close
    } {} {needs:debug}

    tags {pubsub} {
        test {Pub/Sub messages are push frames in RESP3} {
            set sub [redis_deferring_client]
            $sub hello 3
            $sub read
            $sub subscribe chan
            assert_equal [$sub read] {subscribe chan 1}
            # A RESP3 subscriber may still run regular commands.
            $sub ping
            assert_equal [$sub read] PONG
            assert_equal [r publish chan hello] 1
            $sub readraw 1
            assert_equal [$sub read] >3
            $sub readraw 0
            assert_equal [$sub read] message
            assert_equal [$sub read] chan
            assert_equal [$sub read] hello
            $sub close
        }
    }
}
