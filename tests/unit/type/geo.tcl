# Geo commands: GEOADD (NX XX CH), GEODIST (units), GEOHASH, GEOPOS, GEORADIUS,
# GEORADIUSBYMEMBER and their _RO forms (STORE/STOREDIST), GEOSEARCH (FROMMEMBER/FROMLONLAT,
# BYRADIUS/BYBOX, ASC/DESC, COUNT [ANY], WITH*), GEOSEARCHSTORE (STOREDIST). Exact coordinates,
# distances and hashes are the ones Redis 7.0 answers; so are the unsorted result orders, the
# edge cases near the poles and the antimeridian (where Redis's nine-cell search misses points
# across the ±180 line), every error text and the order of the checks, RESP3 reply types, the
# encodings and the keyspace notifications. The last block sends the same random commands to
# our server and to Debian's redis-server side by side and asserts identical replies (skipped
# when /usr/bin/redis-server is absent). Every test here passes against Debian's Redis.

# The raw protocol lines of one command's reply, on a fresh connection speaking RESP `proto`.
proc geo_raw {proto args} {
    set c [redis_client]
    $c hello $proto
    $c readraw 1
    $c deferred 1
    $c {*}$args
    set lines {}
    geo_raw_collect $c lines
    $c close
    return $lines
}
proc geo_raw_collect {c listvar} {
    upvar 1 $listvar lines
    set line [$c read]
    lappend lines $line
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        $ {if {$n >= 0} {lappend lines [$c read]}}
        * - ~ - > {for {set i 0} {$i < $n} {incr i} {geo_raw_collect $c lines}}
        % {for {set i 0} {$i < 2 * $n} {incr i} {geo_raw_collect $c lines}}
    }
}

proc geo_sicily {} {
    r del Sicily
    r geoadd Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania \
        13.583333 37.316667 Agrigento
}

start_server {tags {geo}} {
    test {GEOADD adds points and replies how many were new} {
        r del Sicily
        assert_equal 2 [r geoadd Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania]
        assert_equal 0 [r geoadd Sicily 13.361389 38.115556 Palermo]
        assert_equal 2 [r zcard Sicily]
        assert_equal zset [r type Sicily]
        # The score is the 52-bit geohash, an integer.
        assert_equal 3479099956230698 [r zscore Sicily Palermo]
    }

    test {GEOADD NX, XX and CH} {
        r del g
        assert_equal 1 [r geoadd g 10 10 a]
        assert_equal 0 [r geoadd g xx 11 11 b]
        assert_equal {{}} [r geopos g b]
        # NX leaves a where it is, but adds c.
        assert_equal 1 [r geoadd g nx 20 20 a 30 30 c]
        assert_equal 1 [r exists g]
        assert_equal 2 [r zcard g]
        set before [r zscore g a]
        assert_equal 0 [r geoadd g xx 20 20 a]
        assert_not_equal $before [r zscore g a]
        assert_equal 1 [r geoadd g ch 21 21 a]
        assert_equal 0 [r geoadd g ch 21 21 a]
        assert_equal 2 [r geoadd g CH xx 22 22 a 31 31 c]
        assert_equal 2 [r geoadd g ch nx 1 1 d 2 2 e 22 22 a]
    }

    test {GEOADD XX on a missing key creates nothing} {
        r del nokey
        assert_equal 0 [r geoadd nokey xx 1 1 a]
        assert_equal 0 [r exists nokey]
    }

    test {GEOADD errors: arity, triples, NX with XX, floats, coordinate limits} {
        r del g
        assert_error {*wrong number of arguments*} {r geoadd g 1 2}
        assert_error {ERR syntax error} {r geoadd g 1 2 a 3}
        assert_error {ERR syntax error} {r geoadd g nx xx 1 2 a}
        # Options and no triple at all.
        assert_error {ERR syntax error} {r geoadd g nx ch xx}
        assert_error {ERR value is not a valid float} {r geoadd g abc 2 a}
        assert_error {ERR value is not a valid float} {r geoadd g 1 nan a}
        assert_error {ERR invalid longitude,latitude pair 200.000000,2.000000} \
            {r geoadd g 200 2 a}
        assert_error {ERR invalid longitude,latitude pair 1.000000,86.000000} \
            {r geoadd g 1 86 a}
        assert_error {ERR invalid longitude,latitude pair -180.000010,0.000000} \
            {r geoadd g -180.00001 0 a}
        # A bad triple anywhere leaves the set untouched.
        assert_error {ERR invalid*} {r geoadd g 1 1 ok 1 90 bad}
        assert_equal 0 [r exists g]
    }

    test {GEOADD is announced as zadd} {
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*__:*
        $rd read
        r del g
        r geoadd g 1 1 a
        r geoadd g nx 1 1 a
        r geoadd g 2 2 b
        $rd ping
        set events {}
        while 1 {
            set m [$rd read]
            if {[string tolower [lindex $m 0]] eq "pong"} break
            lappend events [lindex [split [lindex $m 2] :] 1]
        }
        $rd close
        r config set notify-keyspace-events {}
        # The NX GEOADD changed nothing and announced nothing.
        assert_equal {zadd zadd} $events
    }

    test {GEOPOS and GEOHASH answer Redis's exact texts} {
        geo_sicily
        assert_equal {{13.36138933897018433 38.11555639549629859} {15.08726745843887329 37.50266842333162032}} \
            [r geopos Sicily Palermo Catania]
        assert_equal {sqc8b49rny0 sqdtr74hyu0} [r geohash Sicily Palermo Catania]
        r del e
        r geoadd e 0 0 zero
        assert_equal {{0.00000268220901489 0.00000126736058093}} [r geopos e zero]
        assert_equal {s0000000000} [r geohash e zero]
    }

    test {GEOPOS and GEOHASH: missing members and keys} {
        geo_sicily
        r del nokey
        assert_equal {{} {}} [r geopos nokey a b]
        assert_equal {{} {}} [r geohash nokey a b]
        assert_equal {sqc8b49rny0 {}} [r geohash Sicily Palermo nosuch]
        assert_equal {} [r geohash Sicily]
        assert_equal {} [r geopos Sicily]
        # RESP2: GEOPOS's missing member is a null array, GEOHASH's a null bulk.
        assert_equal {*1 *-1} [geo_raw 2 geopos Sicily nosuch]
        assert_equal [list *1 {$-1}] [geo_raw 2 geohash Sicily nosuch]
        assert_equal {*1 _} [geo_raw 3 geopos Sicily nosuch]
    }

    test {GEODIST in every unit, and its nil and error cases} {
        geo_sicily
        assert_equal 166274.1516 [r geodist Sicily Palermo Catania]
        assert_equal 166274.1516 [r geodist Sicily Palermo Catania m]
        assert_equal 166.2742 [r geodist Sicily Palermo Catania km]
        assert_equal 166.2742 [r geodist Sicily Palermo Catania KM]
        assert_equal 545518.8700 [r geodist Sicily Palermo Catania ft]
        assert_equal 103.3182 [r geodist Sicily Palermo Catania mi]
        assert_equal 0.0000 [r geodist Sicily Palermo Palermo]
        assert_equal {} [r geodist Sicily Palermo nosuch]
        assert_equal {} [r geodist nokey a b]
        assert_error {ERR unsupported unit provided. please use M, KM, FT, MI} \
            {r geodist Sicily Palermo Catania yd}
        # The unit is checked before the key.
        assert_error {ERR unsupported unit*} {r geodist nokey a b yd}
        assert_error {ERR syntax error} {r geodist Sicily Palermo Catania km x}
    }

    test {Points at the latitude limits are stored and reported clamped} {
        r del pole
        assert_equal 2 [r geoadd pole 0 85.05112878 n 0 -85.05112878 s]
        assert_equal {{0.00000268220901489 85.0511287799999991} {0.00000268220901489 -85.05112751263942528}} \
            [r geopos pole n s]
        assert_equal {up05b5048p0 h0bh0hbj200} [r geohash pole n s]
        assert_equal 18919.8446 [r geodist pole n s km]
        r geoadd pole 180 85.05112878 corner
        assert_equal {{180 85.0511287799999991}} [r geopos pole corner]
        assert_equal bp05b5048p0 [r geohash pole corner]
    }

    test {GEORADIUS: members in the circle, unsorted in Redis's walk order} {
        geo_sicily
        assert_equal {Catania} [r georadius Sicily 15 37 100 km]
        assert_equal {Agrigento Palermo Catania} [r georadius Sicily 15 37 200 km]
        assert_equal {Catania Agrigento Palermo} [r georadius Sicily 15 37 200 km asc]
        assert_equal {Palermo Agrigento Catania} [r georadius Sicily 15 37 200 km desc]
        assert_equal {} [r georadius Sicily 15 37 1 km]
    }

    test {GEORADIUS WITHDIST, WITHHASH and WITHCOORD, in that order in each item} {
        geo_sicily
        assert_equal {{Palermo 190.4424 3479099956230698 {13.36138933897018433 38.11555639549629859}}} \
            [r georadius Sicily 15 37 200 km withcoord withhash withdist count 1 desc]
        assert_equal {{Agrigento 0.0000 3479030013248308 {13.5833314061164856 37.31666804993816555}}} \
            [r georadiusbymember Sicily Agrigento 1 km withcoord withhash withdist]
        assert_equal {{Catania 56.4413} {Agrigento 130.4235}} \
            [r georadius Sicily 15 37 150 km withdist asc]
        assert_equal {{Catania 35.0711}} [r georadius Sicily 15 37 40 mi withdist]
        assert_equal {{Catania 3479447370796909}} [r georadius Sicily 15 37 60 km withhash]
    }

    test {GEORADIUSBYMEMBER measures from the member's stored position} {
        geo_sicily
        assert_equal {{Agrigento 0.0000} {Palermo 90.9778}} \
            [r georadiusbymember Sicily Agrigento 100 km withdist asc]
        assert_equal {Agrigento} [r georadiusbymember Sicily Agrigento 0 km]
        assert_error {ERR could not decode requested zset member} \
            {r georadiusbymember Sicily nosuch 100 km}
        assert_equal {Agrigento Palermo} [r georadiusbymember_ro Sicily Agrigento 100 km asc]
    }

    test {GEOSEARCH FROMLONLAT / FROMMEMBER with BYRADIUS and BYBOX} {
        geo_sicily
        assert_equal {{Catania 56.4413} {Agrigento 130.4235} {Palermo 190.4424}} \
            [r geosearch Sicily fromlonlat 15 37 bybox 400 400 km asc withdist]
        assert_equal {Catania} [r geosearch Sicily fromlonlat 15 37 bybox 200 200 km asc]
        assert_equal {Catania Agrigento} [r geosearch Sicily fromlonlat 15 37 bybox 270 200 km asc]
        assert_equal {Palermo Agrigento} \
            [r geosearch Sicily frommember Palermo byradius 100 km asc]
        assert_equal {Palermo} [r geosearch Sicily frommember Palermo bybox 1 1 m]
        # The box's sides are measured in the unit: 200 km is about 124 mi.
        assert_equal {Catania} [r geosearch Sicily fromlonlat 15 37 bybox 125 125 mi asc]
    }

    test {COUNT sorts by distance unless ANY; ANY stops at the first COUNT found} {
        geo_sicily
        assert_equal {Catania} [r geosearch Sicily fromlonlat 15 37 byradius 500 km count 1]
        assert_equal {Catania Agrigento} \
            [r geosearch Sicily fromlonlat 15 37 byradius 500 km count 2]
        # Agrigento is the first member met in the walk.
        assert_equal {Agrigento Palermo Catania} [r geosearch Sicily fromlonlat 15 37 byradius 500 km]
        assert_equal {Agrigento} [r geosearch Sicily fromlonlat 15 37 byradius 500 km count 1 any]
        assert_equal {Agrigento Palermo} \
            [r geosearch Sicily fromlonlat 15 37 byradius 500 km count 2 any]
        # ANY with an order sorts what it found.
        assert_equal {Palermo Agrigento} \
            [r geosearch Sicily fromlonlat 15 37 byradius 500 km count 2 any desc]
        assert_equal {Catania Agrigento Palermo} \
            [r geosearch Sicily fromlonlat 15 37 byradius 500 km count 10]
        assert_equal {Palermo} [r georadius Sicily 15 37 500 km count 1 desc]
        assert_equal {Agrigento} [r georadius Sicily 15 37 500 km count 1 any]
    }

    test {Members at one position: all found, in member order} {
        r del same
        r geoadd same 10 10 d 10 10 b 10 10 c 10 10 a 10 10 e
        assert_equal {a b c d e} [r geosearch same fromlonlat 10 10 byradius 1 km]
        assert_equal {a b c d e} [r geosearch same fromlonlat 10 10 byradius 1 km asc]
        assert_equal {a b c d e} [r geosearch same fromlonlat 10 10 byradius 1 km desc]
        assert_equal 3 [llength [r geosearch same fromlonlat 10 10 byradius 1 km count 3]]
        assert_equal {a b} [r geosearch same fromlonlat 10 10 byradius 1 km count 2 any]
        assert_equal 0.0000 [r geodist same a e]
    }

    test {Zero radius finds a member at the centre, a huge radius finds each member once} {
        r del p
        r geoadd p 0 85 n1 90 85 n2 180 85 n3 -90 85 n4 0 -85 s1 10 10 mid
        assert_equal {s1} [r geosearch p frommember s1 byradius 0 m]
        assert_equal {mid} [r geosearch p frommember mid bybox 0 0 km]
        set all [r georadius p 0 0 40000 km]
        assert_equal [lsort -unique $all] [lsort $all]
        # n3, at (180, 85), lies in no cell of these searches.
        assert_equal 5 [llength $all]
        assert_equal {mid n1 n2 s1 n4} [r georadius p 0 85 40000 km]
        assert_equal {mid n1 n2 s1 n4} [r geosearch p fromlonlat 0 85 bybox 40000 40000 km]
    }

    test {Near the pole the search widens its cells} {
        r del p
        r geoadd p 0 85 n1 90 85 n2 -90 85 n4 0 -85 s1
        assert_equal {{n1 0.0000} {n4 785.9889} {n2 785.9890}} \
            [r geosearch p fromlonlat 0 85 byradius 1000 km asc withdist]
    }

    test {Near the antimeridian: the search crosses the ±180 line only westwards} {
        r del w
        r geoadd w 179.99 0 east -179.99 0 west 0 0 origin
        assert_equal 2.2250 [r geodist w east west km]
        # Both points are 1.1 km from (180, 0), but from there the cells searched lie on one
        # side only; from (-180, 0) the west neighbour wraps around to the east edge.
        assert_equal {{east 1.1125}} [r geosearch w fromlonlat 180 0 byradius 10 km withdist]
        assert_equal {east} [r geosearch w fromlonlat 180 0 bybox 10 10 km]
        assert_equal {{west 1.1125} {east 1.1125}} \
            [r geosearch w fromlonlat -180 0 byradius 10 km withdist]
        assert_equal {{west 0.5563} {east 1.6686}} \
            [r geosearch w fromlonlat -179.995 0 bybox 30 30 km withdist]
    }

    test {STORE and STOREDIST write a sorted set; an empty result deletes the destination} {
        geo_sicily
        r set dest junk
        r expire dest 1000
        assert_equal 2 [r georadius Sicily 15 37 150 km store dest]
        assert_equal zset [r type dest]
        assert_equal -1 [r ttl dest]
        assert_equal {Agrigento 3479030013248308 Catania 3479447370796909} \
            [r zrange dest 0 -1 withscores]
        assert_equal 2 [r georadius Sicily 15 37 150 km storedist dest]
        assert_equal {Catania 56.441257870158204 Agrigento 130.42348706714702} \
            [r zrange dest 0 -1 withscores]
        assert_equal 1 [r georadiusbymember Sicily Palermo 10 km store dest]
        assert_equal {Palermo} [r zrange dest 0 -1]
        assert_equal 0 [r georadius Sicily 0 0 1 km store dest]
        assert_equal 0 [r exists dest]
        r set dest junk
        r del nokey
        assert_equal 0 [r georadius nokey 15 37 150 km store dest]
        assert_equal 0 [r exists dest]
    }

    test {GEOSEARCHSTORE and STOREDIST, and storing into the source key} {
        geo_sicily
        assert_equal 2 [r geosearchstore dest Sicily fromlonlat 15 37 byradius 150 km]
        assert_equal {Agrigento Catania} [r zrange dest 0 -1]
        assert_equal 1 [r geosearchstore dest Sicily fromlonlat 15 37 byradius 150 km \
                            count 1 storedist]
        assert_equal {Catania 56.441257870158204} [r zrange dest 0 -1 withscores]
        assert_equal 2 [r geosearchstore Sicily Sicily fromlonlat 15 37 byradius 150 km]
        assert_equal {Agrigento Catania} [r zrange Sicily 0 -1]
        assert_equal 0 [r geosearchstore Sicily Sicily fromlonlat 0 0 byradius 1 km]
        assert_equal 0 [r exists Sicily]
    }

    test {STORE forms announce georadiusstore / geosearchstore, or del when empty} {
        geo_sicily
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*__:*
        $rd read
        r georadius Sicily 15 37 150 km store dest
        r geosearchstore dest Sicily fromlonlat 15 37 byradius 150 km
        r georadius Sicily 0 0 1 km store dest
        r georadius Sicily 0 0 1 km store dest
        $rd ping
        set events {}
        while 1 {
            set m [$rd read]
            if {[string tolower [lindex $m 0]] eq "pong"} break
            lappend events [list [lindex [split [lindex $m 2] :] 1] [lindex $m 3]]
        }
        $rd close
        r config set notify-keyspace-events {}
        assert_equal {{georadiusstore dest} {geosearchstore dest} {del dest}} $events
    }

    test {Search errors, in Redis's order of checks} {
        geo_sicily
        r set str v
        assert_error {WRONGTYPE*} {r georadius str 1 2 abc km}
        assert_error {WRONGTYPE*} {r geosearch str frommember a byradius abc km}
        assert_error {ERR need numeric radius} {r georadius Sicily 15 37 abc km}
        assert_error {ERR radius cannot be negative} {r georadius Sicily 15 37 -1 km}
        assert_error {ERR unsupported unit*} {r georadius Sicily 15 37 100 yd}
        assert_error {ERR value is not a valid float} {r georadius Sicily x 37 100 km}
        assert_error {ERR invalid longitude,latitude pair 200.000000,1.000000} \
            {r geosearch Sicily fromlonlat 200 1 byradius 1 km}
        assert_error {ERR need numeric width} {r geosearch Sicily frommember Palermo bybox a 1 km}
        assert_error {ERR need numeric height} {r geosearch Sicily frommember Palermo bybox 1 a km}
        assert_error {ERR height or width cannot be negative} \
            {r geosearch Sicily frommember Palermo bybox -1 1 km}
        assert_error {ERR COUNT must be > 0} {r geosearch Sicily frommember Palermo byradius 1 km count 0}
        assert_error {ERR value is not an integer or out of range} \
            {r geosearch Sicily frommember Palermo byradius 1 km count abc}
        assert_error {ERR the ANY argument requires COUNT argument} \
            {r geosearch Sicily frommember Palermo byradius 1 km any}
        assert_error {ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options} \
            {r georadius Sicily 15 37 200 km store x withdist}
        assert_error {ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options} \
            {r geosearchstore x Sicily frommember Palermo byradius 10 km withcoord}
        assert_error {ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearch} \
            {r geosearch Sicily byradius 10 km withdist withhash}
        assert_error {ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOsearch} \
            {r GEOsearch Sicily byradius 10 km withdist withhash}
        assert_error {ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch} \
            {r geosearch Sicily fromlonlat 1 2 withdist withhash asc}
        assert_error {ERR syntax error} {r geosearch Sicily frommember Palermo fromlonlat 1 2 byradius 10 km}
        assert_error {ERR syntax error} {r geosearch Sicily frommember Palermo byradius 10 km bybox 1 1 km}
        assert_error {ERR syntax error} {r geosearch Sicily frommember Palermo byradius 10 km storedist}
        assert_error {ERR syntax error} {r geosearch Sicily frommember Palermo byradius 10 km store x}
        assert_error {ERR syntax error} {r geosearchstore x Sicily frommember Palermo byradius 10 km store y}
        assert_error {ERR syntax error} {r georadius_ro Sicily 15 37 200 km store x}
        assert_error {ERR syntax error} {r georadiusbymember_ro Sicily Palermo 200 km storedist x}
        assert_error {ERR syntax error} {r georadius Sicily 15 37 200 km count 1 store}
        assert_error {ERR syntax error} {r georadius Sicily 15 37 200 km byradius 1 km}
        # An option error comes before the later checks.
        assert_error {ERR COUNT must be > 0} {r georadius Sicily 15 37 200 km withdist store x count 0}
    }

    test {A missing source key skips what needed it: empty array, or 0 for STORE} {
        r del nokey dest
        assert_equal {} [r georadius nokey 15 37 200 km]
        assert_equal {} [r georadiusbymember nokey m 1 km]
        # The radius is not even parsed when there is no member to measure from.
        assert_equal {} [r georadiusbymember nokey m abc km]
        assert_equal {} [r geosearch nokey frommember x byradius 1 km]
        assert_error {ERR need numeric radius} {r geosearch nokey frommember x byradius abc km}
        assert_error {ERR STORE option*} {r georadiusbymember nokey m 1 km withdist store dest}
        assert_equal 0 [r geosearchstore dest nokey frommember x byradius 1 km]
    }

    test {RESP3: coordinates are doubles, distances bulk strings, hashes integers} {
        geo_sicily
        assert_equal {*1 *2 ,13.36138933897018433 ,38.11555639549629859} \
            [geo_raw 3 geopos Sicily Palermo]
        assert_equal [list *1 *2 {$20} 13.36138933897018433 {$20} 38.11555639549629859] \
            [geo_raw 2 geopos Sicily Palermo]
        assert_equal [list {$11} 166274.1516] [geo_raw 3 geodist Sicily Palermo Catania]
        assert_equal [list *1 *4 {$7} Catania {$7} 56.4413 :3479447370796909 \
                          *2 ,15.08726745843887329 ,37.50266842333162032] \
            [geo_raw 3 geosearch Sicily fromlonlat 15 37 byradius 60 km withdist withhash withcoord]
    }

    test {A geo set's encoding follows the sorted set's limits} {
        r del enc
        r geoadd enc 1 1 a 2 2 b
        assert_encoding listpack enc
        r config set zset-max-listpack-entries 2
        r geoadd enc 3 3 c
        assert_encoding skiplist enc
        r config set zset-max-listpack-entries 128
        assert_equal {a b} [r geosearch enc fromlonlat 1 1 byradius 200 km asc]
        # A stored result that fits is a listpack again.
        r geosearchstore dest enc fromlonlat 1 1 byradius 200 km
        assert_encoding listpack dest
    }

    test {Skiplist and listpack sets answer the same searches} {
        r del lp sk
        r config set zset-max-listpack-entries 0
        r geoadd sk 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 13.583333 37.316667 Agrigento
        r config set zset-max-listpack-entries 128
        r geoadd lp 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 13.583333 37.316667 Agrigento
        assert_encoding skiplist sk
        assert_encoding listpack lp
        foreach args {
            {fromlonlat 15 37 byradius 200 km}
            {fromlonlat 15 37 byradius 200 km count 1 any}
            {fromlonlat 15 37 bybox 300 300 km desc withdist withcoord}
        } {
            assert_equal [r geosearch lp {*}$args] [r geosearch sk {*}$args] $args
        }
    }

    test {Members ZADDed with scores no GEOADD makes decode as in Redis} {
        r del odd
        r zadd odd -5 neg 1e300 huge 5.5 frac inf pinf -inf ninf 9.3e18 big
        assert_equal {{180 85.0511287799999991} {-179.99999731779098511 -85.05112751263942528} {-179.99999731779098511 -85.05111990847595393} {-179.99999731779098511 -85.05112751263942528} {180 -85.05112751263942528} {180 85.0511287799999991}} \
            [r geopos odd neg huge frac pinf ninf big]
        assert_equal {bp05b5048p0 00bh0hbj200 00bh0hbj240 00bh0hbj200 00bh0hbj200 bp05b5048p0} \
            [r geohash odd neg huge frac pinf ninf big]
    }

    test {Integer members of a listpack set are reported intact} {
        r del nums
        r geoadd nums 1 1 100 1.001 1.001 200 1.002 1.002 -300
        assert_equal {100 200 -300} [r geosearch nums fromlonlat 1 1 byradius 10 km asc]
    }
}

# Side by side with Debian's Redis: the same random geo commands, the same replies.
if {[file executable /usr/bin/redis-server]} {
    start_server {tags {geo}} {
        set ours_binary $::server::binary
        set ::server::binary /usr/bin/redis-server
        set rc [catch {
            start_server {} {
                # Level 0 is the reference, level -1 is the server under test.
                set ::server::binary $ours_binary
                test {Random geo commands answer exactly as Debian's redis-server} {
                    expr {srand(20260)}
                    proc geo_rand {lo hi} {expr {$lo + rand() * ($hi - $lo)}}
                    proc geo_coord {} {
                        # Mostly clustered around a few centres, sometimes at the edges.
                        set pick [expr {int(rand() * 10)}]
                        if {$pick == 0} {
                            return [list [lindex {-180 180 179.9999 -179.9999} [expr {int(rand()*4)}]] \
                                         [format %.6f [geo_rand -85.05112878 85.05112878]]]
                        } elseif {$pick == 1} {
                            return [list [format %.6f [geo_rand -180 180]] \
                                         [lindex {85.05112878 -85.05112878 85 -85} [expr {int(rand()*4)}]]]
                        } elseif {$pick == 2} {
                            return [list [format %.7f [geo_rand -180 180]] \
                                         [format %.7f [geo_rand -85.05112878 85.05112878]]]
                        }
                        set centres {{13.36 38.11} {-0.12 51.5} {179.5 -16.5} {0 0} {-73.98 40.75} {100 80}}
                        lassign [lindex $centres [expr {$pick % 6}]] lon lat
                        set lon [expr {max(-180, min(180, $lon + [geo_rand -2 2]))}]
                        set lat [expr {max(-85.05112878, min(85.05112878, $lat + [geo_rand -2 2]))}]
                        return [list [format %.6f $lon] [format %.6f $lat]]
                    }
                    proc geo_shape {} {
                        set unit [lindex {m km ft mi KM} [expr {int(rand() * 5)}]]
                        set scale [dict get {m 1000 km 1 ft 3000 mi 1 KM 1} $unit]
                        set r [lindex {0 0.5 5 50 300 3000 20000} [expr {int(rand() * 7)}]]
                        set r [format %.3f [expr {$r * $scale * (0.5 + rand())}]]
                        if {rand() < 0.5} {return [list byradius $r $unit]}
                        set h [format %.3f [expr {$r * (0.2 + 2 * rand())}]]
                        return [list bybox $r $h $unit]
                    }
                    proc geo_options {} {
                        set opts {}
                        foreach w {withdist withhash withcoord} {
                            if {rand() < 0.3} {lappend opts $w}
                        }
                        set o [expr {int(rand() * 3)}]
                        if {$o == 1} {lappend opts asc} elseif {$o == 2} {lappend opts desc}
                        if {rand() < 0.3} {
                            lappend opts count [expr {1 + int(rand() * 5)}]
                            if {rand() < 0.4} {lappend opts any}
                        }
                        return $opts
                    }
                    set members {}
                    for {set i 0} {$i < 300} {incr i} {lappend members "m$i"}
                    for {set i 0} {$i < 40} {incr i} {lappend members $i}
                    set compared 0
                    for {set step 0} {$step < 600} {incr step} {
                        set key [lindex {geo1 geo2} [expr {$step % 2}]]
                        set m [lindex $members [expr {int(rand() * [llength $members])}]]
                        set m2 [lindex $members [expr {int(rand() * [llength $members])}]]
                        set kind [expr {int(rand() * 10)}]
                        switch $kind {
                            0 - 1 - 2 {
                                set cmd [list geoadd $key]
                                for {set j 0} {$j < 1 + int(rand() * 6)} {incr j} {
                                    lappend cmd {*}[geo_coord] [lindex $members [expr {int(rand() * [llength $members])}]]
                                }
                            }
                            3 {set cmd [list geodist $key $m $m2 [lindex {m km ft mi} [expr {int(rand()*4)}]]]}
                            4 {set cmd [list geopos $key $m $m2]}
                            5 {set cmd [list geohash $key $m $m2]}
                            6 {set cmd [list geosearch $key fromlonlat {*}[geo_coord] {*}[geo_shape] {*}[geo_options]]}
                            7 {set cmd [list geosearch $key frommember $m {*}[geo_shape] {*}[geo_options]]}
                            8 {
                                set s [geo_shape]
                                if {[lindex $s 0] eq "byradius"} {
                                    set cmd [list georadiusbymember $key $m {*}[lrange $s 1 end] {*}[geo_options]]
                                } else {
                                    set cmd [list georadius $key {*}[geo_coord] [lindex $s 1] [lindex $s 3] {*}[geo_options]]
                                }
                            }
                            9 {
                                set cmd [list geosearchstore dst $key fromlonlat {*}[geo_coord] {*}[geo_shape]]
                                if {rand() < 0.5} {lappend cmd storedist}
                            }
                        }
                        # Ties at one distance under COUNT without ANY are picked by Redis's
                        # partial quicksort (see geo_search.cc): compare those as sets.
                        set want [catch {r 0 {*}$cmd} ref]
                        set got [catch {r -1 {*}$cmd} ours]
                        if {[lsearch -exact $cmd count] >= 0 && [lsearch -exact $cmd any] < 0 &&
                            [lsearch -exact $cmd withdist] < 0} {
                            set ref [lsort $ref]
                            set ours [lsort $ours]
                        }
                        assert_equal $want $got "error status of: $cmd"
                        assert_equal $ref $ours $cmd
                        if {$kind == 9} {
                            assert_equal [r 0 zrange dst 0 -1 withscores] [r -1 zrange dst 0 -1 withscores] $cmd
                        }
                        incr compared
                    }
                    assert_equal 600 $compared
                    assert_equal [r 0 zrange geo1 0 -1 withscores] [r -1 zrange geo1 0 -1 withscores]
                    assert_equal [r 0 zrange geo2 0 -1 withscores] [r -1 zrange geo2 0 -1 withscores]
                }
            }
        } result ropts]
        set ::server::binary $ours_binary
        if {$rc} {return -options $ropts $result}
    }
}
