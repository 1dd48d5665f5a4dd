# Fuzzing RESTORE with corrupt payloads: DUMP a real value of each encoding, change a few of
# its bytes at random (a byte set to a random or boundary value, a bit flipped, a byte dropped
# or repeated), and RESTORE it with the CRC check off. Whatever the bytes, the server must answer
# (Bad data format or OK) and stay up: a payload that loads must then survive every read and a
# few writes of its type. The random source is seeded with a fixed number, so a failure is
# reproducible; each run is bounded by a count and by wall time.
#
# With sanitize-dump-payload yes this holds for Redis 7.0 as well. With "no" Redis 7.0 loads
# payloads it has checked only shallowly and may crash (by design: an assertion) on a later
# command, so that half is redistp-only: redis-tp checks every payload deeply either way.

set ::cdf_layouts {
    {set k "a value long enough to be stored raw"}
    {set k 12345}
    {rpush k a b 3 dddd 70000 -5}
    {sadd k 1 2 3 70000}
    {sadd k alpha beta gamma 1}
    {hset k a 1 bb 22 ccc 333}
    {zadd k 1 a 2.5 b -3 c}
    {xadd k 1-1 f v}
}

# One random change of string `p` (never of its 10-byte trailer).
proc cdf_mutate {p} {
    set body [expr {[string length $p] - 10}]
    set at [randomInt $body]
    switch [randomInt 5] {
        0 {set v [randomInt 256]}
        1 {set v [lindex {0 1 63 64 127 128 191 192 254 255} [randomInt 10]]}
        2 {scan [string index $p $at] %c v; set v [expr {$v ^ (1 << [randomInt 8])}]}
        3 {return [string replace $p $at $at]}
        4 {return [string replace $p $at $at [string repeat [string index $p $at] 2]]}
    }
    return [string replace $p $at $at [binary format c $v]]
}

# Every read of key `key`, and a write or two; errors are fine, a lost connection is not.
proc cdf_exercise {key} {
    set cmds {
        {get $key} {strlen $key} {getrange $key 0 -1} {append $key x}
        {lrange $key 0 -1} {lindex $key 1} {lpop $key} {rpush $key z} {linsert $key before a b}
        {smembers $key} {srandmember $key -3} {sismember $key 2} {sadd $key 9} {srem $key 1}
        {hgetall $key} {hrandfield $key -3 withvalues} {hset $key a 9} {hdel $key bb}
        {zrange $key 0 -1 withscores} {zrangebyscore $key -inf +inf} {zadd $key 7 q}
        {zrem $key a} {zrandmember $key -3 withscores} {zscore $key b}
        {xrange $key - +} {xrevrange $key + -} {xinfo stream $key full} {xadd $key * a b}
        {xtrim $key maxlen 1} {xdel $key 1-1}
        {dump $key} {object encoding $key} {type $key} {debug object $key}
    }
    foreach c $cmds {
        catch {r {*}[subst $c]}
    }
}

# Runs up to `count` mutated payloads within `seconds`; returns {refused loaded}.
proc cdf_run {sanitize count seconds} {
    r config set sanitize-dump-payload $sanitize
    r debug set-skip-checksum-validation 1
    expr {srand(20240607)}
    set refused 0
    set loaded 0
    set deadline [expr {[clock milliseconds] + $seconds * 1000}]
    for {set i 0} {$i < $count && [clock milliseconds] < $deadline} {incr i} {
        r del k kx
        r {*}[lindex $::cdf_layouts [randomInt [llength $::cdf_layouts]]]
        set p [r dump k]
        for {set n [expr {1 + [randomInt 3]}]} {$n > 0} {incr n -1} {
            set p [cdf_mutate $p]
        }
        if {[catch {r restore kx 0 $p} e]} {
            # A payload can turn into a RESTORE-level error only by naming a bad format.
            if {![string match {ERR Bad data format} $e] &&
                ![string match {ERR DUMP payload version or checksum are wrong} $e]} {
                fail "unexpected RESTORE error: $e (payload [binary encode hex $p])"
            }
            incr refused
        } else {
            incr loaded
            cdf_exercise kx
        }
        if {[catch {r ping} pong] || $pong ne "PONG"} {
            fail "server lost after payload [binary encode hex $p]"
        }
    }
    r debug set-skip-checksum-validation 0
    return [list $refused $loaded]
}

start_server {tags {dump needs:debug external:skip} overrides {loglevel notice}} {
    test {Fuzzer corrupt restore payloads - sanitize_dump: yes} {
        lassign [cdf_run yes 2000 20] refused loaded
        assert {$refused > 0 && $loaded > 0}
    }

    test {Fuzzer corrupt restore payloads - sanitize_dump: no} {
        lassign [cdf_run no 2000 20] refused loaded
        assert {$refused > 0 && $loaded > 0}
    } {} {redistp}
}
