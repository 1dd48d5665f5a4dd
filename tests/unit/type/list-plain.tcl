# Plain quicklist nodes: an element at least `quicklist packed threshold` bytes long (1 GB by
# default) is kept in a list node of its own, and DEBUG QUICKLIST-PACKED-THRESHOLD lowers the
# threshold so that small elements take that path. These tests use thresholds of a few bytes and
# check the list's contents after each command, and the node layout through DEBUG OBJECT's
# ql_nodes: a plain node never takes a second element and never merges with a neighbour, so the
# node count tells where each element went. Every figure here was read from Redis 7.0.

# The ql_nodes field of DEBUG OBJECT.
proc ql_nodes {key} {
    regexp {ql_nodes:(\d+)} [r debug object $key] -> n
    return $n
}

start_server {tags {list needs:debug}} {
    test {DEBUG QUICKLIST-PACKED-THRESHOLD takes memory units up to 4gb less 1mb} {
        foreach ok {1b 100 1k 1kb 4095mb 0 {}} {
            assert_equal OK [r debug quicklist-packed-threshold $ok]
        }
        foreach bad {4gb 4294967295 -1 abc 1.5 10x} {
            assert_error {ERR argument must be a memory value bigger than 1 and smaller than 4gb} \
                {r debug quicklist-packed-threshold $bad}
        }
        assert_error {ERR unknown subcommand*} {r debug quicklist-packed-threshold}
        # The size is read as a C string: it ends at a NUL byte.
        assert_equal OK [r debug quicklist-packed-threshold "1k\x00x"]
        assert_equal OK [r debug quicklist-packed-threshold "\x00x"]
        assert_error {ERR argument must be a memory value*} \
            {r debug quicklist-packed-threshold "1x\x00"}
        r debug quicklist-packed-threshold 0
    }

    test {Elements at or over the threshold get nodes of their own, small ones never join them} {
        r del l
        r debug quicklist-packed-threshold 10
        r rpush l 1 2 3
        r rpush l 0123456789 4 5
        assert_equal 3 [ql_nodes l]
        r lpush l 0123456789x y
        assert_equal 5 [ql_nodes l]
        assert_equal {y 0123456789x 1 2 3 0123456789 4 5} [r lrange l 0 -1]
        assert_encoding quicklist l
        # One byte under the threshold is packed with its neighbours.
        r rpush l 012345678
        assert_equal 5 [ql_nodes l]
        r debug quicklist-packed-threshold 0
    }

    test {LINSERT of a large element splits a packed node; a small one goes beside a plain node} {
        r del l
        r debug quicklist-packed-threshold 10
        r rpush l 1 2 3 4 5
        assert_equal 6 [r linsert l after 3 LLLLLLLLLLLL]
        assert_equal 3 [ql_nodes l]
        assert_equal 7 [r linsert l before 1 LLLLLLLLLLLLa]
        assert_equal 4 [ql_nodes l]
        assert_equal 8 [r linsert l before LLLLLLLLLLLL s]
        assert_equal 4 [ql_nodes l]
        assert_equal {LLLLLLLLLLLLa 1 2 3 s LLLLLLLLLLLL 4 5} [r lrange l 0 -1]
        assert_equal 9 [r linsert l after LLLLLLLLLLLLa t]
        assert_equal {LLLLLLLLLLLLa t 1 2 3 s LLLLLLLLLLLL 4 5} [r lrange l 0 -1]
        assert_equal 4 [ql_nodes l]
        set all [r lrange l 0 -1]
        foreach i {0 3 5 6 -1} {
            assert_equal [lindex $all [expr {$i < 0 ? [llength $all] + $i : $i}]] [r lindex l $i]
        }
        r debug quicklist-packed-threshold 0
    }

    test {LSET across plain and packed nodes, both ways} {
        r del l
        r debug quicklist-packed-threshold 10
        r rpush l 1 2 3 4 5
        r lset l 2 BIGBIGBIGBIG
        assert_equal 3 [ql_nodes l]
        assert_equal {1 2 BIGBIGBIGBIG 4 5} [r lrange l 0 -1]
        r lset l 2 sm
        assert_equal 2 [ql_nodes l]
        r lset l 0 BIGBIGBIGBIG0
        assert_equal 3 [ql_nodes l]
        # Large over large: replaced in place.
        r lset l 0 BIGBIGBIGBIG00
        assert_equal 3 [ql_nodes l]
        r lset l -1 BIGBIGBIGBIG5
        assert_equal 4 [ql_nodes l]
        assert_equal {BIGBIGBIGBIG00 2 sm 4 BIGBIGBIGBIG5} [r lrange l 0 -1]
        # A packed node of one element replaced by a large element.
        r del one
        r rpush one BIGBIGBIGBIG a
        r lset one 1 BIGBIGBIGBIG1
        assert_equal 2 [ql_nodes one]
        assert_equal {BIGBIGBIGBIG BIGBIGBIGBIG1} [r lrange one 0 -1]
        r debug quicklist-packed-threshold 0
    }

    test {LPOS, LREM and LTRIM see plain elements like any other} {
        r del l
        r debug quicklist-packed-threshold 5
        r rpush l aaaaa b aaaaa c aaaaa d bbbbbbb aaaaa
        assert_equal {0 2 4 7} [r lpos l aaaaa count 0]
        assert_equal 4 [r lpos l aaaaa rank -2]
        assert_equal 6 [r lpos l bbbbbbb]
        assert_equal 2 [r lrem l 2 aaaaa]
        assert_equal {b c aaaaa d bbbbbbb aaaaa} [r lrange l 0 -1]
        assert_equal 1 [r lrem l -1 aaaaa]
        assert_equal {b c aaaaa d bbbbbbb} [r lrange l 0 -1]
        r ltrim l 2 3
        assert_equal {aaaaa d} [r lrange l 0 -1]
        assert_equal 2 [ql_nodes l]
        r ltrim l 1 1
        assert_equal {d} [r lrange l 0 -1]
        assert_equal 1 [ql_nodes l]
        r debug quicklist-packed-threshold 0
    }

    test {LPOP and RPOP with counts, LMOVE and BLMOVE across plain and packed nodes} {
        r del l dst
        r debug quicklist-packed-threshold 4
        r rpush l xxxx 1 2 yyyy 3 zzzz
        assert_equal {xxxx 1 2} [r lpop l 3]
        assert_equal {zzzz 3} [r rpop l 2]
        assert_equal {yyyy} [r lrange l 0 -1]
        r rpush l 4 wwww
        assert_equal wwww [r lmove l dst right left]
        assert_equal yyyy [r blmove l dst left left 0]
        assert_equal {yyyy wwww} [r lrange dst 0 -1]
        assert_equal 2 [ql_nodes dst]
        assert_equal yyyy [r lmove dst dst left right]
        assert_equal {wwww yyyy} [r lrange dst 0 -1]
        assert_equal {4} [r lrange l 0 -1]
        r debug quicklist-packed-threshold 0
    }

    test {Plain nodes under compression: pushes, LSET, LTRIM and LREM keep the contents} {
        r config set list-compress-depth 1
        r debug quicklist-packed-threshold 1b
        r del l
        set model {}
        for {set i 0} {$i < 30} {incr i} {
            set v [string repeat [format %c [expr {97 + $i % 26}]] [expr {50 + $i}]]
            r rpush l $v
            lappend model $v
        }
        r lpush l head
        set model [linsert $model 0 head]
        assert_equal 31 [ql_nodes l]
        r lset l 10 [string repeat Q 80]
        lset model 10 [string repeat Q 80]
        r linsert l before [lindex $model 20] mid
        set model [linsert $model 20 mid]
        assert_equal $model [r lrange l 0 -1]
        r lrem l 0 [lindex $model 5]
        set model [lreplace $model 5 5]
        r ltrim l 1 -2
        set model [lrange $model 1 end-1]
        assert_equal $model [r lrange l 0 -1]
        assert_equal [lindex $model 15] [r lindex l 15]
        r config set list-compress-depth 0
        r debug quicklist-packed-threshold 0
    }

    # Compressed interior nodes are split by a large insert and emptied by deletes next to plain
    # nodes; each step is checked against a model and the node count against Redis's.
    test {Large inserts split compressed nodes; deletes empty them next to plain nodes} {
        r config set list-compress-depth 1
        r config set list-max-listpack-size 4
        r debug quicklist-packed-threshold 20
        r del l
        set model {}
        for {set i 0} {$i < 40} {incr i} {
            set v [format "element-%02d" $i]
            r rpush l $v
            lappend model $v
        }
        assert_equal 10 [ql_nodes l]
        # Into the middle of interior (compressed) nodes: each splits around a plain node.
        foreach {pivot where} {element-09 after element-17 before element-26 after} {
            set big [string repeat [string index $pivot end] 60]
            r linsert l $where $pivot $big
            set at [lsearch -exact $model $pivot]
            set model [linsert $model [expr {$where eq "after" ? $at + 1 : $at}] $big]
            assert_equal $model [r lrange l 0 -1]
        }
        assert_equal 16 [ql_nodes l]
        # Empty the packed halves on both sides of a plain node, then the plain node itself.
        foreach v {element-08 element-09 element-10 element-11} {
            assert_equal 1 [r lrem l 1 $v]
            set model [lsearch -all -inline -not -exact $model $v]
        }
        assert_equal $model [r lrange l 0 -1]
        assert_equal 14 [ql_nodes l]
        assert_equal 1 [r lrem l 0 [string repeat 9 60]]
        set model [lsearch -all -inline -not -exact $model [string repeat 9 60]]
        assert_equal $model [r lrange l 0 -1]
        r lset l 20 [string repeat Z 70]
        lset model 20 [string repeat Z 70]
        r lset l 21 small
        lset model 21 small
        assert_equal $model [r lrange l 0 -1]
        assert_equal 14 [ql_nodes l]
        set expected_nodes [ql_nodes l]
        r debug reload
        assert_equal $model [r lrange l 0 -1]
        assert_equal $expected_nodes [ql_nodes l]
        r config set list-compress-depth 0
        r config set list-max-listpack-size -2
        r debug quicklist-packed-threshold 0
    }

    test {Plain nodes survive DEBUG RELOAD, DUMP/RESTORE and SORT STORE} {
        r del l copy sorted
        r debug quicklist-packed-threshold 100
        set big [string repeat B 300]
        r rpush l a $big b [string repeat C 100] 12345
        assert_equal 5 [ql_nodes l]
        set digest [r debug digest-value l]
        r debug reload
        assert_equal 5 [ql_nodes l]
        assert_equal $digest [r debug digest-value l]
        # A loaded plain node stays plain even when the threshold is back at 1 GB.
        r debug quicklist-packed-threshold 0
        set payload [r dump l]
        r restore copy 0 $payload
        assert_equal 5 [ql_nodes copy]
        assert_equal [r lrange l 0 -1] [r lrange copy 0 -1]
        assert_equal $payload [r dump copy]
        r debug quicklist-packed-threshold 100
        r sort l alpha store sorted
        assert_equal [lsort [r lrange l 0 -1]] [r lrange sorted 0 -1]
        assert_equal 4 [ql_nodes sorted]
        r debug quicklist-packed-threshold 0
    }

    test {A plain element small enough for an integer keeps its text through DUMP/RESTORE} {
        r del l copy
        r debug quicklist-packed-threshold 1b
        r rpush l 12345 -7 0 abc
        assert_equal 4 [ql_nodes l]
        r restore copy 0 [r dump l]
        assert_equal {12345 -7 0 abc} [r lrange copy 0 -1]
        assert_equal 4 [ql_nodes copy]
        r debug quicklist-packed-threshold 0
    }

    test {MEMORY USAGE of a list counts its plain elements} {
        r del l
        r debug quicklist-packed-threshold 1kb
        r rpush l [string repeat x 5000] [string repeat y 5000] small
        assert_equal 3 [ql_nodes l]
        assert_morethan [r memory usage l] 10000
        assert_lessthan [r memory usage l] 12000
        r debug quicklist-packed-threshold 0
    }

    test {DEBUG QUICKLIST answers for a list, errors for other keys} {
        r del l s
        r rpush l a b
        r set s x
        assert_equal {Quicklist structure printed on stdout} [r debug quicklist l]
        assert_equal {Quicklist structure printed on stdout} [r debug quicklist l 1]
        assert_error {ERR no such key} {r debug quicklist nokey}
        assert_error {ERR Not a quicklist encoded object.} {r debug quicklist s}
    }
}

start_server {tags {list needs:debug}} {
    test {RESTORE refuses a quicklist node of an unknown container kind, or an empty one} {
        r debug quicklist-packed-threshold 1b
        r del l
        r rpush l abc
        set payload [r dump l]
        r debug quicklist-packed-threshold 0
        # type 18 (quicklist 2), one node, container 1 (plain), "abc": make it container 3.
        assert_equal "\x12\x01\x01\x03abc" [string range $payload 0 6]
        r config set sanitize-dump-payload yes
        r debug set-skip-checksum-validation 1
        set bad "\x12\x01\x03[string range $payload 3 end]"
        assert_error {ERR Bad data format} {r restore k 0 $bad}
        set empty "\x12\x01\x01\x00[string range $payload 7 end]"
        assert_error {ERR Bad data format} {r restore k 0 $empty}
        assert_equal 0 [r exists k]
        r debug set-skip-checksum-validation 0
        r config set sanitize-dump-payload no
    }
}

start_server {tags {list needs:debug external:skip} overrides {appendonly yes}} {
    test {An AOF rewrite of a list with plain nodes loads back with the same elements} {
        r debug quicklist-packed-threshold 10
        r del l
        r rpush l a [string repeat X 30] b c [string repeat Y 12] 1234567890123
        r linsert l after b [string repeat Z 15]
        set before [r lrange l 0 -1]
        set nodes [ql_nodes l]
        r bgrewriteaof
        wait_for_condition 100 50 {
            [s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0
        } else {
            fail "the AOF rewrite did not finish"
        }
        r debug loadaof
        assert_equal $before [r lrange l 0 -1]
        assert_equal $nodes [ql_nodes l]
        # The rewrite's RDB preamble keeps plain nodes plain whatever the threshold.
        r debug quicklist-packed-threshold 0
        r debug loadaof
        assert_equal $before [r lrange l 0 -1]
        assert_equal $nodes [ql_nodes l]
        # Without the preamble the list is replayed as RPUSH, under the threshold of the load.
        r config set aof-use-rdb-preamble no
        r bgrewriteaof
        wait_for_condition 100 50 {
            [s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0
        } else {
            fail "the AOF rewrite did not finish"
        }
        r debug loadaof
        assert_equal $before [r lrange l 0 -1]
        assert_equal 1 [ql_nodes l]
        r debug quicklist-packed-threshold 10
        r debug loadaof
        assert_equal $before [r lrange l 0 -1]
        assert_equal $nodes [ql_nodes l]
        r debug quicklist-packed-threshold 0
        r config set aof-use-rdb-preamble yes
    }
}
