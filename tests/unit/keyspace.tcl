# Generic key commands: DEL, UNLINK, EXISTS, TYPE, TOUCH, RENAME(NX), MOVE,
# COPY, KEYS patterns, RANDOMKEY, DBSIZE, FLUSHDB/FLUSHALL, SWAPDB, OBJECT,
# and the wrong-arity / unknown-command error texts.

start_server {tags {keyspace}} {
    test {DEL returns the number of keys removed} {
        r mset k1 a k2 b k3 c
        assert_equal [r del k1 k2 nokey] 2
        assert_equal [r exists k1 k2 k3] 1
        assert_equal [r del k3 k3] 1 "a key named twice is deleted once"
        assert_equal [r del k3] 0
    }

    test {UNLINK removes keys like DEL, including big ones} {
        r set u1 x
        r rpush u2 a b c
        for {set i 0} {$i < 1000} {incr i} {lappend members m$i}
        r sadd u3 {*}$members
        assert_equal [r unlink u1 u2 u3 nokey] 3
        assert_equal [r exists u1 u2 u3] 0
    }

    test {EXISTS counts every argument, duplicates included} {
        r set e1 v
        assert_equal [r exists e1] 1
        assert_equal [r exists e1 e1 e1] 3
        assert_equal [r exists e1 nokey e1] 2
        assert_equal [r exists nokey] 0
        r del e1
    }

    test {TYPE reports each data type} {
        r set t:string v
        r rpush t:list a
        r sadd t:set a
        r zadd t:zset 1 a
        r hset t:hash f v
        assert_equal [r type t:string] string
        assert_equal [r type t:list] list
        assert_equal [r type t:set] set
        assert_equal [r type t:zset] zset
        assert_equal [r type t:hash] hash
        assert_equal [r type nokey] none
        r del t:string t:list t:set t:zset t:hash
    }

    test {TYPE reports a stream} {
        r xadd t:stream * f v
        assert_equal [r type t:stream] stream
        r del t:stream
    }

    test {TOUCH counts existing keys} {
        r mset t1 a t2 b
        assert_equal [r touch t1 t2 nokey] 2
        assert_equal [r touch t1 t1] 2
        assert_equal [r touch nokey] 0
        r del t1 t2
    }

    test {RENAME moves the value and overwrites the destination} {
        r set src hello
        r set dst old
        assert_equal [r rename src dst] OK
        assert_equal [r get dst] hello
        assert_equal [r exists src] 0
        r rpush src a b
        r rename src dst
        assert_equal [r type dst] list
        assert_equal [r lrange dst 0 -1] {a b}
        r del dst
    }

    test {RENAME of a missing key and onto itself} {
        assert_error {ERR no such key} {r rename nokey other}
        assert_error {ERR no such key} {r renamenx nokey other}
        r set same v
        assert_equal [r rename same same] OK
        assert_equal [r get same] v
        assert_equal [r renamenx same same] 0
        r del same
    }

    test {RENAMENX only renames onto a missing key} {
        r set a 1
        r set b 2
        assert_equal [r renamenx a b] 0
        assert_equal [r get a] 1
        assert_equal [r renamenx a c] 1
        assert_equal [r get c] 1
        assert_equal [r exists a] 0
        r del b c
    }

    test {RENAME carries the TTL of the source and drops the destination's} {
        r set ttlsrc v ex 100
        r set ttldst w ex 1000
        r rename ttlsrc ttldst
        assert_range [r ttl ttldst] 90 100
        r set plain v
        r set withttl w ex 1000
        r rename plain withttl
        assert_equal [r ttl withttl] -1
        r del ttldst withttl
    }

    test {MOVE transfers a key to another database} {
        r set mv v ex 100
        assert_equal [r move mv 3] 1
        assert_equal [r exists mv] 0
        set c [redis_client]
        $c select 3
        assert_equal [$c get mv] v
        assert_range [$c ttl mv] 90 100
        # An existing key in the target blocks the move.
        r set mv local
        assert_equal [r move mv 3] 0
        assert_equal [r get mv] local
        assert_equal [$c get mv] v
        assert_equal [r move nokey 3] 0
        $c del mv
        r del mv
        $c close
    }

    test {MOVE errors} {
        r set mv v
        assert_error {ERR source and destination objects are the same} {r move mv [srv db]}
        assert_error {ERR DB index is out of range} {r move mv 16}
        assert_error {ERR value is not an integer or out of range} {r move mv x}
        r del mv
    }

    test {COPY duplicates a value, REPLACE overwrites} {
        r set c1 hello
        assert_equal [r copy c1 c2] 1
        assert_equal [r get c2] hello
        r set c3 other
        assert_equal [r copy c1 c3] 0
        assert_equal [r get c3] other
        assert_equal [r copy c1 c3 replace] 1
        assert_equal [r get c3] hello
        assert_equal [r copy nokey c4] 0
        r del c1 c2 c3
    }

    test {COPY keeps the encoding of the source string} {
        r incrbyfloat cf 0x10
        assert_equal [r object encoding cf] embstr "INCRBYFLOAT results are never int-encoded"
        r copy cf cf2
        assert_equal [r object encoding cf2] embstr
        r set ci 16
        r copy ci ci2
        assert_equal [r object encoding ci2] int
        r set cr hello
        r append cr x
        r copy cr cr2
        assert_equal [r object encoding cr2] raw
        r del cf cf2 ci ci2 cr cr2
    }

    test {COPY of aggregates is deep and keeps the TTL} {
        r hset h1 a 1 b 2
        r expire h1 100
        assert_equal [r copy h1 h2] 1
        r hset h2 c 3
        assert_equal [r hlen h1] 2
        assert_equal [r hlen h2] 3
        assert_range [r ttl h2] 90 100
        r del h1 h2
    }

    test {COPY to another database} {
        r set cdb v
        assert_equal [r copy cdb cdb db 4] 1
        set c [redis_client]
        $c select 4
        assert_equal [$c get cdb] v
        r set cdb changed
        assert_equal [r copy cdb cdb db 4] 0
        assert_equal [r copy cdb cdb db 4 replace] 1
        assert_equal [$c get cdb] changed
        $c flushdb
        $c close
        r del cdb
    }

    test {COPY errors} {
        r set cp v
        assert_error {ERR source and destination objects are the same} {r copy cp cp}
        assert_error {ERR DB index is out of range} {r copy cp x db 16}
        assert_error {ERR value is not an integer or out of range} {r copy cp x db foo}
        assert_error {ERR syntax error} {r copy cp x db}
        assert_error {ERR syntax error} {r copy cp x foo}
        r del cp
    }

    test {KEYS with *, ? and character classes} {
        r flushdb
        foreach k {a1 b1 c1 d1 ab abc a xyz} {r set $k 1}
        assert_equal [lsort [r keys *]] {a a1 ab abc b1 c1 d1 xyz}
        assert_equal [lsort [r keys ?1]] {a1 b1 c1 d1}
        assert_equal [lsort [r keys {[a-c]1}]] {a1 b1 c1}
        assert_equal [lsort [r keys {[^a]1}]] {b1 c1 d1}
        assert_equal [lsort [r keys {[bd]*}]] {b1 d1}
        assert_equal [lsort [r keys a*]] {a a1 ab abc}
        assert_equal [lsort [r keys a?]] {a1 ab}
        assert_equal [lsort [r keys *c]] {abc}
        assert_equal [r keys nomatch*] {}
    }

    test {KEYS with backslash escapes} {
        r flushdb
        foreach k {a* a? {a[1]} {x\y} ab} {r set $k 1}
        assert_equal [r keys {a\*}] {a*}
        assert_equal [r keys {a\?}] {a?}
        assert_equal [r keys {a\[1\]}] {{a[1]}}
        assert_equal [r keys {x\\y}] {{x\y}}
        assert_equal [lsort [r keys {a[*?]}]] {a* a?}
    }

    test {RANDOMKEY and DBSIZE} {
        r flushdb
        assert_equal [r randomkey] {}
        assert_equal [r dbsize] 0
        r mset r1 a r2 b r3 c
        assert_equal [r dbsize] 3
        for {set i 0} {$i < 20} {incr i} {
            assert {[r randomkey] in {r1 r2 r3}}
        }
        r del r1 r2
        assert_equal [r randomkey] r3
        assert_equal [r dbsize] 1
    }

    test {FLUSHDB empties only the current database} {
        set c [redis_client]
        $c select 5
        $c set other v
        r set mine v
        assert_equal [r flushdb] OK
        assert_equal [r dbsize] 0
        assert_equal [$c dbsize] 1
        r set mine v
        assert_equal [r flushdb async] OK
        assert_equal [r dbsize] 0
        r set mine v
        assert_equal [r flushdb sync] OK
        assert_equal [r dbsize] 0
        assert_error {ERR syntax error} {r flushdb foo}
        assert_error {ERR syntax error} {r flushdb sync x}
        $c flushdb
        $c close
    }

    test {FLUSHALL empties every database} {
        set c [redis_client]
        $c select 6
        $c set other v
        r set mine v
        assert_equal [r flushall] OK
        assert_equal [r dbsize] 0
        assert_equal [$c dbsize] 0
        $c set other v
        assert_equal [r flushall async] OK
        assert_equal [$c dbsize] 0
        $c set other v
        assert_equal [r flushall sync] OK
        assert_equal [$c dbsize] 0
        assert_error {ERR syntax error} {r flushall foo}
        $c close
    }

    test {SWAPDB exchanges two databases for every client} {
        set c1 [redis_client]
        set c2 [redis_client]
        $c1 select 1
        $c2 select 2
        $c1 flushdb
        $c2 flushdb
        $c1 set where one
        $c2 set where two
        $c2 set only2 x
        assert_equal [r swapdb 1 2] OK
        assert_equal [$c1 get where] two
        assert_equal [$c1 get only2] x
        assert_equal [$c2 get where] one
        assert_equal [$c2 dbsize] 1
        assert_equal [r swapdb 1 1] OK
        assert_equal [$c1 get where] two
        $c1 flushdb
        $c2 flushdb
        $c1 close
        $c2 close
    }

    test {SWAPDB errors} {
        assert_error {ERR invalid first DB index} {r swapdb a 1}
        assert_error {ERR invalid second DB index} {r swapdb 0 a}
        assert_error {ERR DB index is out of range} {r swapdb 0 16}
        assert_error {ERR DB index is out of range} {r swapdb -1 0}
        assert_error {ERR wrong number of arguments for 'swapdb' command} {r swapdb 0}
    }

    test {OBJECT ENCODING of strings: int, embstr, raw} {
        r set n 12345
        assert_encoding int n
        r set short hello
        assert_encoding embstr short
        r set long [string repeat x 45]
        assert_encoding raw long
        r set edge [string repeat x 44]
        assert_encoding embstr edge
        r append short " world"
        assert_encoding raw short
        r set huge 12345678901234567890
        assert_encoding embstr huge
        assert_equal [r object encoding nokey] {}
        r del n short long edge huge
    }

    test {OBJECT REFCOUNT and IDLETIME} {
        r set obj "some value"
        assert_equal [r object refcount obj] 1
        assert_equal [r object refcount nokey] {}
        assert_equal [r object idletime nokey] {}
        after 2100
        set idle [r object idletime obj]
        assert_range $idle 1 5
        # OBJECT IDLETIME itself does not count as an access; GET does.
        assert_equal [r object idletime obj] $idle
        r get obj
        assert_range [r object idletime obj] 0 1
        r del obj
    } {} {slow}

    test {OBJECT FREQ needs an LFU policy} {
        r set f v
        assert_error {ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.} {
            r object freq f
        }
        r config set maxmemory-policy allkeys-lfu
        r set f hello
        for {set i 0} {$i < 10} {incr i} {r get f}
        assert_range [r object freq f] 1 255
        assert_error {ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.} {
            r object idletime f
        }
        r config set maxmemory-policy noeviction
        r del f
    } {} {needs:config}

    test {OBJECT errors} {
        assert_error {ERR unknown subcommand 'foo'. Try OBJECT HELP.} {r object foo x}
        assert_error {ERR wrong number of arguments for 'object|encoding' command} {
            r object encoding
        }
        assert_error {ERR wrong number of arguments for 'object' command} {r object}
        assert_match {*ENCODING*} [r object help]
    }

    test {Wrong number of arguments error texts} {
        foreach {cmd} {del unlink exists touch type keys get set rename renamenx move copy
                       dbsize randomkey} {
            set argv [list $cmd]
            if {$cmd in {dbsize randomkey}} {lappend argv extra}
            if {$cmd in {set rename renamenx move copy}} {lappend argv onlyone}
            assert_error "ERR wrong number of arguments for '$cmd' command" {r {*}$argv}
        }
    }

    test {Unknown command error text} {
        assert_error {ERR unknown command 'nosuchcmd', with args beginning with: } {r nosuchcmd}
        assert_error {ERR unknown command 'nosuchcmd', with args beginning with: 'a' 'b' } {
            r nosuchcmd a b
        }
    }

    test {Error texts cut client arguments at a NUL byte, as C's %s does} {
        catch {r nosuchcmd "a\x00b" c} e
        assert_equal "ERR unknown command 'nosuchcmd', with args beginning with: 'a' 'c' " $e
        catch {r "no\x00such"} e
        assert_equal "ERR unknown command 'no', with args beginning with: " $e
        catch {r client "x\x00y"} e
        assert_equal "ERR unknown subcommand 'x'. Try CLIENT HELP." $e
        catch {r expire k 100 "fo\x00o"} e
        assert_equal "ERR Unsupported option fo" $e
        catch {r expire k 100 "a\r\nb\n"} e
        assert_equal "ERR Unsupported option a  b" $e
        catch {r function list "x\x00y"} e
        assert_equal "ERR Unknown argument x" $e
        catch {r function list "x\r\n"} e
        assert_equal "ERR Unknown argument x  " $e
        catch {r hello 2 "op\x00t"} e
        assert_equal "ERR Syntax error in HELLO option 'op'" $e
    }
}
