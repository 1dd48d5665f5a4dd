# RDB files of the formats after Redis 7.0's: version 11 (Redis 7.2: RDB_TYPE_SET_LISTPACK,
# RDB_TYPE_STREAM_LISTPACKS_3) and version 12 (Redis 7.4: the hashes whose fields carry expire
# times, types 24 and 25 and the release candidates' 22 and 23). No 7.2 or 7.4 binary is at
# hand, so tests/assets/rdb-v11.rdb and rdb-v12.rdb are built byte by byte from the formats'
# descriptions by utils/gen-rdb-versions.py (its docstring lists each key); the contents expected
# here are the ones written there. Then what compat-version writes (docs/compat-version.md): our
# own files of each version load back, a file written at the default 7.0.15 loads in Debian's
# Redis 7.0 and one written at 7.2 is refused there, and a 7.0-format save of a hash with field
# TTLs keeps the fields and logs that their times were left out.
#
# Tagged redistp: Redis 7.0 cannot load these files at all (that refusal is checked below).

set ::rdbv_redis /usr/bin/redis-server
set ::rdbv_assets [file join $::server::root tests assets]

# A fresh directory holding `asset` as dump.rdb.
proc rdbv_dir_with {asset} {
    set d [::server::new_dir]
    file copy -force [file join $::rdbv_assets $asset] [file join $d dump.rdb]
    return $d
}

# The RDB type byte that starts a DUMP payload.
proc rdbv_dump_type {key} {
    binary scan [string index [r dump $key] 0] cu type
    return $type
}

proc rdbv_hash {key} {
    set out {}
    foreach {f v} [r hgetall $key] {lappend out [list $f $v]}
    return [lsort $out]
}

tags {persistence redistp} {

start_server [list dir [rdbv_dir_with rdb-v11.rdb] db 0] {
    test {RDB 11: every key of a Redis 7.2 file loads} {
        r select 0
        assert_equal 4 [r dbsize]
        assert_equal plain [r get str]
        assert_equal 1 [count_log_message "*Loading RDB produced by version 7.2.4*"]
        wait_for_log_message "*Done loading RDB, keys loaded: 4, keys expired: 0.*"
    }

    test {RDB 11: a set listpack becomes a set in our encodings} {
        assert_equal [lsort [list a b {hello world} 5 -3 [string repeat x 60]]] \
            [lsort [r smembers set:lp]]
        assert_encoding hashtable set:lp
        assert_equal {-7 1 2 300} [lsort -integer [r smembers set:lpints]]
        assert_encoding intset set:lpints
    }

    test {RDB 11: a stream _3 keeps entries, groups, PEL and consumers; the seen time is 7.0's} {
        assert_equal 3 [r xlen stream:v3]
        assert_equal {{1000-0 {f v1}} {1000-1 {f v2}} {2000-0 {g other h 2}}} \
            [r xrange stream:v3 - +]
        set info [r xinfo stream stream:v3 full]
        assert_equal 3 [dict get $info entries-added]
        set groups [dict get $info groups]
        assert_equal 2 [llength $groups]
        set grp [lindex $groups 1]
        assert_equal grp [dict get $grp name]
        assert_equal 1000-1 [dict get $grp last-delivered-id]
        assert_equal 2 [dict get $grp entries-read]
        assert_equal {{1000-0 alice 1700000000123 3} {1000-1 bob 1700000000123 1}} \
            [dict get $grp pending]
        foreach c [dict get $grp consumers] {
            assert_equal 1700000000123 [dict get $c seen-time]
        }
        assert_equal {1000-0} [lindex [r xpending stream:v3 grp - + 10 alice] 0 0]
    }

    test {RDB 11: what we write at 7.2 loads back the same} {
        set digest [r debug digest]
        r config set compat-version 7.2.4
        r debug reload
        assert_equal $digest [r debug digest]
        assert_equal 20 [rdbv_dump_type set:lp]
        assert_equal 21 [rdbv_dump_type stream:v3]
        r config set compat-version 7.0.15
        r debug reload
        assert_equal $digest [r debug digest]
        assert_equal 2 [rdbv_dump_type set:lp]
        assert_equal 19 [rdbv_dump_type stream:v3]
    }
}

start_server [list dir [rdbv_dir_with rdb-v12.rdb] db 0] {
    test {RDB 12: hashes with field TTLs load; expired fields and an all-expired hash are not loaded} {
        r select 0
        assert_equal 1 [count_log_message "*Loading RDB produced by version 7.4.0*"]
        assert_equal 1 [count_log_message "*rdbLoadObject skipping empty key: hash:allgone*"]
        wait_for_log_message "*Done loading RDB, keys loaded: 9, keys expired: 0, empty keys skipped: 1.*"
        assert_equal 9 [r dbsize]
        assert_equal 0 [r exists hash:allgone]
        assert_equal {{f1 v1} {f2 v2} {f3 v3}} [rdbv_hash hash:meta]
        assert_equal {{a 1} {b 2} {c 300}} [rdbv_hash hash:lpex]
        assert_equal {{p q} {r s}} [rdbv_hash hash:pre22]
        assert_equal {{m n} {o p}} [rdbv_hash hash:pre23]
        assert_equal {{k v}} [rdbv_hash hash:noexpire]
        assert_equal 4 [llength [r smembers set:lpints]]
    }

    test {RDB 12: the hashes keep their field TTLs: DUMP at 7.4 writes them as HASH_METADATA} {
        r config set compat-version 7.4.0
        foreach key {hash:meta hash:lpex hash:pre22 hash:pre23} {
            assert_equal 24 [rdbv_dump_type $key]
        }
        # A hash none of whose fields has a time keeps its 7.0 form.
        assert_equal 16 [rdbv_dump_type hash:noexpire]
        # The payload restores into a hash with the same fields, still with times.
        r restore copy 0 [r dump hash:meta]
        assert_equal {{f1 v1} {f2 v2} {f3 v3}} [rdbv_hash copy]
        assert_equal 24 [rdbv_dump_type copy]
        r del copy
        r config set compat-version 7.0.15
    }

    test {RDB 12: DEBUG RELOAD at 7.4 keeps the field TTLs} {
        r config set compat-version 7.4.0
        set digest [r debug digest]
        r debug reload
        assert_equal $digest [r debug digest]
        foreach key {hash:meta hash:lpex hash:pre22 hash:pre23} {
            assert_equal 24 [rdbv_dump_type $key]
        }
        assert_equal {{f1 v1} {f2 v2} {f3 v3}} [rdbv_hash hash:meta]
        r config set compat-version 7.0.15
    }

    test {RDB 12: field times read back the same after DEBUG RELOAD at 7.4, and loaded ones still expire} {
        r config set compat-version 7.4.0
        set times [r hpexpiretime hash:meta FIELDS 3 f1 f2 f3]
        # The file's times (utils/gen-rdb-versions.py): f1 2100-01-01, f2 none, f3 an hour later.
        assert_equal {4102444800000 -1 4102448400000} $times
        r hset ours x 1 y 2
        r hpexpire ours 100000000 FIELDS 1 x
        set mine [r hpexpiretime ours FIELDS 2 x y]
        # A hash whose only field is due shortly after the reload: nothing reads it, so only the
        # active cycle over the loaded hashes can remove it (DBSIZE does not look at keys).
        r hset soon z 1
        r hpexpire soon 500 FIELDS 1 z
        r debug reload
        assert_equal $times [r hpexpiretime hash:meta FIELDS 3 f1 f2 f3]
        assert_equal $mine [r hpexpiretime ours FIELDS 2 x y]
        assert_equal -1 [lindex $mine 1]
        set n [r dbsize]
        wait_for_condition 100 100 {[r dbsize] == $n - 1} else {
            fail "a loaded hash whose last field fell due was not removed by active expiry"
        }
        assert_equal 0 [r exists soon]
        r del ours
        r config set compat-version 7.0.15
    }

    test {RDB 12: a save at 7.0.15 keeps the fields and values, drops their TTLs, and says so} {
        r config set compat-version 7.0.15
        set before [count_log_message "*has no field expire times: 4 hash(es) saved without them*"]
        r debug reload
        assert_equal [expr {$before + 1}] \
            [count_log_message "*has no field expire times: 4 hash(es) saved without them*"]
        assert_equal {{f1 v1} {f2 v2} {f3 v3}} [rdbv_hash hash:meta]
        assert_equal {{a 1} {b 2} {c 300}} [rdbv_hash hash:lpex]
        r config set compat-version 7.4.0
        assert_equal 16 [rdbv_dump_type hash:meta]
        r config set compat-version 7.0.15
    }
}

start_server [list dir [rdbv_dir_with rdb-v12.rdb] db 0] {
    test {RDB 12: DUMP of a hash with field TTLs at 7.0.15 logs that the TTLs were left out} {
        r select 0
        set p [r dump hash:meta]
        binary scan [string index $p 0] cu type
        assert_equal 4 $type
        assert_equal 1 [count_log_message "*DUMP payload format of compat-version 7.0.15 has no field expire times: hash 'hash:meta'*"]
        r dump hash:noexpire
        assert_equal 0 [count_log_message "*hash 'hash:noexpire'*"]
    }
}

if {[file executable $::rdbv_redis]} {
    start_server {overrides {save ""}} {
        r select 0
        r sadd set:small a b c
        r sadd set:ints 1 2 3
        r hset hash f v
        r xadd stream 1-1 f v
        r xgroup create stream grp 0
        r xreadgroup group grp alice count 1 streams stream >

        test {RDB versions: a file written at 7.0.15 loads in Redis 7.0} {
            r save
            set d [::server::new_dir]
            file copy -force [server_path 0 dump.rdb] [file join $d dump.rdb]
            start_server [list binary $::rdbv_redis dir $d db 0] {
                assert_equal 4 [r dbsize]
                assert_equal {a b c} [lsort [r smembers set:small]]
                assert_equal 1 [llength [r xpending stream grp - + 10 alice]]
            }
        }

        test {RDB versions: Redis 7.0 loads our 7.0.15 save of hashes that had field TTLs} {
            start_server [list dir [rdbv_dir_with rdb-v12.rdb] db 0 overrides {save ""}] {
                r save
                set d [::server::new_dir]
                file copy -force [server_path 0 dump.rdb] [file join $d dump.rdb]
                start_server [list binary $::rdbv_redis dir $d db 0] {
                    assert_equal 9 [r dbsize]
                    assert_equal {{f1 v1} {f2 v2} {f3 v3}} [rdbv_hash hash:meta]
                    assert_equal {{a 1} {b 2} {c 300}} [rdbv_hash hash:lpex]
                    assert_equal -1 [r ttl hash:meta]
                }
            }
        }

        test {RDB versions: a file written at 7.2 or 7.4 is refused by Redis 7.0} {
            foreach {v n} {7.2.4 11 7.4.0 12} {
                r config set compat-version $v
                r save
                set d [::server::new_dir]
                file copy -force [server_path 0 dump.rdb] [file join $d dump.rdb]
                # No TCP port: the unix socket keeps it listening up to the load.
                catch {exec timeout 20 $::rdbv_redis --port 0 --save "" --dir $d \
                    --unixsocket [file join $d s.sock]} out
                assert_match "*Can't handle RDB format version $n*" $out
            }
            r config set compat-version 7.0.15
        }
    }
}

}
