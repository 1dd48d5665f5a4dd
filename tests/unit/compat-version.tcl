# compat-version (docs/compat-version.md): the Redis version redis-tp reports and the RDB format
# it writes. The default, 7.0.15, answers as Redis 7.0.15 in every place; 7.2.x and 7.4.x change
# INFO's redis_version, HELLO's version, the RDB version of files (11, 12), DUMP and FUNCTION DUMP
# trailers and what RESTORE accepts, and nothing else. The whole file is redis-tp's own setting
# (tagged redistp, skipped against Redis 7.0).

# The RDB format version in the trailer of a DUMP / FUNCTION DUMP payload.
proc cv_payload_version {payload} {
    binary scan [string range $payload end-9 end-8] s version
    return $version
}

# The first nine bytes of the server's dump.rdb ("REDIS0010" ...).
proc cv_rdb_magic {} {
    set f [open [server_path 0 dump.rdb] rb]
    set magic [read $f 9]
    close $f
    return $magic
}

proc cv_hello_field {reply name} {
    return [dict get $reply $name]
}

start_server {tags {redistp needs:config needs:debug}} {
    test {compat-version: 7.0.15 by default, in CONFIG GET, INFO and HELLO} {
        assert_equal {compat-version 7.0.15} [r config get compat-version]
        assert_equal 7.0.15 [s redis_version]
        assert_equal 7.0.15 [cv_hello_field [r hello 2] version]
        assert_equal redis [cv_hello_field [r hello 2] server]
    }

    test {compat-version: 7.2.x and 7.4.x change INFO's and HELLO's version, HELLO's server stays redis} {
        foreach v {7.2.4 7.4.0 7.4.12 7.2.0 7.0.15} {
            r config set compat-version $v
            assert_equal [list compat-version $v] [r config get compat-version]
            assert_equal $v [s redis_version]
            assert_equal $v [cv_hello_field [r hello 3] version]
            assert_equal redis [cv_hello_field [r hello 3] server]
            r hello 2
        }
    }

    test {compat-version: values we do not model are refused with CONFIG SET's error} {
        foreach bad {7.4 7.0.14 7.0.16 7.6.0 8.0.0 7.4.00 7.4.256 7.4.-1 7.4.1a " 7.4.0" ""} {
            assert_error "ERR CONFIG SET failed (possibly related to argument 'compat-version') - compat-version must be 7.0.15, 7.2.<patch> or 7.4.<patch>" \
                {r config set compat-version $bad}
        }
        assert_equal {compat-version 7.0.15} [r config get compat-version]
    }

    test {compat-version: Lua's redis.REDIS_VERSION stays 7.0.15} {
        r config set compat-version 7.4.0
        assert_equal 7.0.15 [r eval {return redis.REDIS_VERSION} 0]
        r config set compat-version 7.0.15
    }

    test {compat-version: DUMP's trailer follows it, RESTORE accepts up to it} {
        r del k
        r set k hello
        set payloads {}
        foreach {v rdb} {7.0.15 10 7.2.4 11 7.4.0 12} {
            r config set compat-version $v
            set p [r dump k]
            assert_equal $rdb [cv_payload_version $p]
            dict set payloads $rdb $p
        }
        # At 7.4 every payload restores; at 7.0.15 only version 10, as Redis 7.0 answers.
        foreach rdb {10 11 12} {
            r restore k2 0 [dict get $payloads $rdb] replace
            assert_equal hello [r get k2]
        }
        r config set compat-version 7.2.4
        r restore k2 0 [dict get $payloads 11] replace
        assert_error {ERR DUMP payload version or checksum are wrong} \
            {r restore k2 0 [dict get $payloads 12] replace}
        r config set compat-version 7.0.15
        r restore k2 0 [dict get $payloads 10] replace
        foreach rdb {11 12} {
            assert_error {ERR DUMP payload version or checksum are wrong} \
                {r restore k2 0 [dict get $payloads $rdb] replace}
        }
    }

    test {compat-version: a small set DUMPs as a set listpack from 7.2 on} {
        r del s
        r sadd s a b c
        r config set compat-version 7.2.4
        set p [r dump s]
        binary scan [string index $p 0] c type
        assert_equal 20 $type
        r config set compat-version 7.0.15
        binary scan [string index [r dump s] 0] c type
        assert_equal 2 $type
        r config set compat-version 7.4.0
        r restore s2 0 $p
        assert_equal {a b c} [lsort [r smembers s2]]
        r config set compat-version 7.0.15
    }

    test {compat-version: FUNCTION DUMP's trailer follows it, FUNCTION RESTORE accepts up to it} {
        r function flush
        r function load {#!lua name=cvlib
            redis.register_function('cvf', function() return 1 end)}
        r config set compat-version 7.4.0
        set p12 [r function dump]
        assert_equal 12 [cv_payload_version $p12]
        r config set compat-version 7.0.15
        assert_equal 10 [cv_payload_version [r function dump]]
        assert_error {ERR DUMP payload version or checksum are wrong} {r function restore $p12 replace}
        r config set compat-version 7.4.0
        assert_equal OK [r function restore $p12 replace]
        assert_equal 1 [r fcall cvf 0]
        r config set compat-version 7.0.15
        r function flush
    }

    test {compat-version: DEBUG RELOAD round trips at each version, the file's version follows} {
        r flushall
        r set str v
        r sadd set:small a b c
        r sadd set:ints 1 2 3
        for {set i 0} {$i < 200} {incr i} {r sadd set:big m$i}
        r hset hash f v g w
        r rpush list a b c
        r zadd zset 1 a 2 b
        r xadd stream 1-1 f v
        r xgroup create stream grp 0
        r xreadgroup group grp alice count 1 streams stream >
        set before [r debug digest]
        foreach {v magic} {7.2.4 REDIS0011 7.4.0 REDIS0012 7.0.15 REDIS0010} {
            r config set compat-version $v
            r debug reload
            assert_equal $magic [cv_rdb_magic]
            assert_equal $before [r debug digest]
            assert_equal {a b c} [lsort [r smembers set:small]]
            assert_equal 1 [llength [r xpending stream grp - + 10 alice]]
        }
    }

    test {compat-version: the redis-ver aux field of the file follows it} {
        r config set compat-version 7.4.3
        r save
        set f [open [server_path 0 dump.rdb] rb]
        set head [read $f 40]
        close $f
        assert_match {REDIS0012*redis-ver*7.4.3*} $head
        r config set compat-version 7.0.15
    }

    test {compat-version: CONFIG REWRITE writes it when set, and keeps its line as Redis keeps others} {
        r config set compat-version 7.2.1
        r config rewrite
        set f [open [srv 0 config_file]]
        set conf [read $f]
        close $f
        assert_match {*compat-version "7.2.1"*} $conf
        r config set compat-version 7.0.15
        r config rewrite
        set f [open [srv 0 config_file]]
        set conf [read $f]
        close $f
        # A line already in the file stays, with the default value (Redis does so for every
        # parameter).
        assert_match {*compat-version "7.0.15"*} $conf
    }
}

start_server {tags {redistp} overrides {compat-version 7.4.0}} {
    test {compat-version: set in the configuration file} {
        assert_equal 7.4.0 [s redis_version]
        r set k v
        assert_equal 12 [cv_payload_version [r dump k]]
    }
}

tags {redistp external:skip} {
    test {compat-version: a bad value in the configuration file stops the server} {
        lassign [run_server_briefly [list --port 0 --bind 127.0.0.1 --save "" \
            --compat-version 9.9.9]] status out
        assert_equal {exit 1} $status
        assert_match {*compat-version must be 7.0.15, 7.2.<patch> or 7.4.<patch>*} $out
    }
}
