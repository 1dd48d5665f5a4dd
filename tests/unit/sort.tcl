# SORT and SORT_RO: numeric and ALPHA order on lists, sets and sorted sets,
# BY weights from strings and hash fields, BY without '*' (native order,
# with DESC and LIMIT), GET columns, LIMIT clamping, STORE (a list, TTL
# dropped, an empty result deleting the destination), Redis's strtod reading
# of weights and its conversion error, the forced ALPHA of a stored set,
# SORT_RO refusing STORE, WRONGTYPE, COMMAND GETKEYS, WATCH invalidation.

# The raw first line of a reply on a fresh connection speaking RESP `proto`.
proc sort_raw_reply {proto args} {
    set c [redis_client]
    if {$proto == 3} {$c hello 3}
    $c readraw 1
    $c deferred 1
    $c {*}$args
    set line [$c read]
    set rest {}
    while {[string index $line 0] eq "*" && [string range $line 1 end] > 0} {
        for {set i 0} {$i < [string range $line 1 end]} {incr i} {
            set item [$c read]
            if {[string index $item 0] eq "\$" && $item ne "\$-1"} {set item [$c read]}
            lappend rest $item
        }
        break
    }
    $c close
    return [list $line $rest]
}

start_server {tags {sort}} {
    test {SORT orders a list numerically, ascending or descending} {
        r del l
        r rpush l 3 10 -2 1.5 7 0
        assert_equal {-2 0 1.5 3 7 10} [r sort l]
        assert_equal {-2 0 1.5 3 7 10} [r sort l asc]
        assert_equal {10 7 3 1.5 0 -2} [r sort l desc]
        # The list itself is untouched.
        assert_equal {3 10 -2 1.5 7 0} [r lrange l 0 -1]
    }

    test {SORT ALPHA compares bytes} {
        r del l
        r rpush l banana Apple cherry 10 9 apple
        assert_equal {10 9 Apple apple banana cherry} [r sort l alpha]
        assert_equal {cherry banana apple Apple 9 10} [r sort l alpha desc]
    }

    test {SORT ALPHA compares texts up to the first NUL byte, a STORE all bytes} {
        # Redis compares with strcoll on C strings: the three are equal and keep the list's
        # order, ascending or descending; into a STORE it compares every byte.
        r del l dst
        r rpush l "a\x00z" a "a\x00b" b
        assert_equal [list "a\x00z" a "a\x00b" b] [r sort l alpha]
        assert_equal [list b "a\x00z" a "a\x00b"] [r sort l alpha desc]
        assert_equal 4 [r sort l alpha store dst]
        assert_equal [list a "a\x00b" "a\x00z" b] [r lrange dst 0 -1]
        assert_equal 4 [r sort l alpha desc store dst]
        assert_equal [list b "a\x00z" "a\x00b" a] [r lrange dst 0 -1]
    }

    test {SORT of a set in both encodings} {
        r del si sh
        r sadd si 5 3 100 -7 1
        assert_encoding intset si
        assert_equal {-7 1 3 5 100} [r sort si]
        r sadd sh 5 3 2.5 -7 1
        assert_encoding hashtable sh
        assert_equal {-7 1 2.5 3 5} [r sort sh]
        assert_equal {5 3 2.5 1 -7} [r sort sh desc]
    }

    test {SORT of a sorted set orders its members, not its scores} {
        r del z
        r zadd z 1 30 2 10 3 20
        assert_equal {10 20 30} [r sort z]
        r del z
        r zadd z 1 b 2 a 3 c
        assert_equal {a b c} [r sort z alpha]
        assert_error {ERR One or more scores can't be converted into double} {r sort z}
    }

    test {SORT BY a pattern without '*' keeps a sorted set's score order} {
        r del z
        r zadd z 5 e 1 a 3 c 2 b 4 d
        assert_equal {a b c d e} [r sort z by nosort]
        assert_equal {e d c b a} [r sort z by nosort desc]
        assert_equal {b c} [r sort z by nosort limit 1 2]
        assert_equal {d c} [r sort z by nosort desc limit 1 2]
        assert_equal {d e} [r sort z by nosort limit 3 10]
        assert_equal {} [r sort z by nosort limit 5 1]
        assert_equal {a b c d e} [r sort z by noSuchPattern]
        # "#" has no star either; and once off, a later BY with a star does not sort.
        assert_equal {a b c d e} [r sort z by #]
        assert_equal {a b c d e} [r sort z by nosort by w_*]
    }

    test {SORT turns a listpack sorted set into a skiplist, as Redis 7.0 does} {
        r del z
        r zadd z 1 a 2 b
        assert_encoding listpack z
        r sort z by nosort
        assert_encoding skiplist z
        assert_equal {a 1 b 2} [r zrange z 0 -1 withscores]
    }

    test {SORT BY nosort keeps a list's order, reversed by DESC, cut by LIMIT} {
        r del l
        r rpush l c a d b e
        assert_equal {c a d b e} [r sort l by nosort]
        assert_equal {e b d a c} [r sort l by nosort desc]
        assert_equal {a d} [r sort l by nosort limit 1 2]
        assert_equal {b d} [r sort l by nosort desc limit 1 2]
        assert_equal {c a d b e} [r sort l by nosort limit -5 -1]
        assert_equal {} [r sort l by nosort limit 0 0]
        assert_equal {} [r sort l by nosort limit 5 2]
        assert_equal {e} [r sort l by nosort limit 4 100]
    }

    test {SORT LIMIT after sorting: negative offset is 0, negative count is the rest} {
        r del l
        r rpush l 5 1 4 2 3
        assert_equal {1 2} [r sort l limit 0 2]
        assert_equal {3 4 5} [r sort l limit 2 -1]
        assert_equal {1 2} [r sort l limit -10 2]
        assert_equal {5 4} [r sort l desc limit 0 2]
        assert_equal {} [r sort l limit 5 1]
        assert_equal {5} [r sort l limit 4 9223372036854775807]
        assert_error {ERR value is not an integer*} {r sort l limit a 1}
        assert_error {ERR value is not an integer*} {r sort l limit 0 1.5}
        assert_error {ERR syntax error} {r sort l limit 0}
    }

    test {SORT BY string weights, with missing weights counting as 0} {
        r del l w_a w_b w_c w_d
        r rpush l a b c d
        r mset w_a 30 w_b 10 w_c 20
        assert_equal {d b c a} [r sort l by w_*]
        assert_equal {a c b d} [r sort l by w_* desc]
        assert_equal {b c} [r sort l by w_* limit 1 2]
        # ALPHA with BY compares the weights as bytes; no weight sorts first.
        r mset w_a x w_b z w_c y
        assert_equal {d a c b} [r sort l by w_* alpha]
    }

    test {SORT orders equal numeric weights by the elements' bytes} {
        r del l wt_a wt_b wt_c
        r rpush l c a b
        r mset wt_a 1 wt_b 1 wt_c 1
        assert_equal {a b c} [r sort l by wt_*]
        assert_equal {c b a} [r sort l by wt_* desc]
    }

    test {SORT reads weights as C's strtod does} {
        r del l k1 k2 k3 k4
        r rpush l 1 2 3 4
        r set k1 " 5"
        r set k2 ""
        r set k3 0x10
        r set k4 -1e1
        assert_equal {4 2 1 3} [r sort l by k*]
        r set k1 "5 "
        assert_error {ERR One or more scores can't be converted into double} {r sort l by k*}
        r set k1 nan
        assert_error {ERR One or more scores can't be converted into double} {r sort l by k*}
        r set k1 1e400
        assert_error {ERR One or more scores can't be converted into double} {r sort l by k*}
        r del l
        r rpush l 1 x 3
        assert_error {ERR One or more scores can't be converted into double} {r sort l}
        assert_equal {1 3 x} [r sort l alpha]
    }

    test {SORT GET: the element with #, other keys, several columns, missing as null} {
        r del l obj_1 obj_2 obj_3 name_1 name_3
        r rpush l 3 1 2
        r mset obj_1 one obj_2 two obj_3 three name_1 uno name_3 tres
        assert_equal {one two three} [r sort l get obj_*]
        assert_equal {1 one uno 2 two {} 3 three tres} [r sort l get # get obj_* get name_*]
        assert_equal {three two} [r sort l desc limit 0 2 get obj_*]
        assert_equal {{} {} {}} [r sort l get nostar]
    }

    test {SORT GET of a missing value is a null in RESP2 and RESP3} {
        r del l
        r rpush l 1
        lassign [sort_raw_reply 2 sort l get nokey_*] header items
        assert_equal {*1} $header
        assert_equal {$-1} [lindex $items 0]
        lassign [sort_raw_reply 3 sort l get nokey_*] header items
        assert_equal {*1} $header
        assert_equal {_} [lindex $items 0]
    }

    test {SORT BY and GET read hash fields with ->} {
        r del l h_1 h_2 h_3
        r rpush l 1 2 3
        r hset h_1 w 3 name alice
        r hset h_2 w 1 name bob
        r hset h_3 w 2
        assert_equal {2 3 1} [r sort l by h_*->w]
        assert_equal {bob {} alice} [r sort l by h_*->w get h_*->name]
        assert_equal {alice bob {}} [r sort l get h_*->name]
        # A string key read with -> or a hash read without gives no value.
        r set s_1 x
        assert_equal {{} {}} [r sort l get h_* get s_*->w limit 0 1]
    }

    test {SORT keeps "->" with nothing after it as part of the key name} {
        r del l {k1->} {k2->}
        r rpush l 1 2
        r set {k1->} b
        r set {k2->} a
        assert_equal {2 1} [r sort l by k*-> alpha]
        assert_equal {b a} [r sort l get k*->]
    }

    test {SORT of a missing key is empty, of a string or hash WRONGTYPE} {
        r del nokey str h
        assert_equal {} [r sort nokey]
        assert_equal {} [r sort_ro nokey by nosort]
        r set str x
        assert_error {WRONGTYPE*} {r sort str}
        assert_error {WRONGTYPE*} {r sort_ro str}
        r hset h f v
        assert_error {WRONGTYPE*} {r sort h}
        # Options are checked before the key.
        assert_error {ERR syntax error} {r sort str foo}
    }

    test {SORT rejects unknown options and options missing their argument} {
        r del l
        r rpush l 1
        assert_error {ERR syntax error} {r sort l foo}
        assert_error {ERR syntax error} {r sort l by}
        assert_error {ERR syntax error} {r sort l get}
        assert_error {ERR syntax error} {r sort l store}
        assert_error {ERR wrong number of arguments*} {r sort}
        assert_error {ERR wrong number of arguments*} {r sort_ro}
    }

    test {SORT_RO sorts like SORT and refuses STORE} {
        r del l
        r rpush l 3 1 2
        assert_equal {1 2 3} [r sort_ro l]
        assert_equal {3 2} [r sort_ro l desc limit 0 2]
        assert_error {ERR syntax error} {r sort_ro l store dst}
    }

    test {SORT STORE writes a list, answers its length and drops the old TTL} {
        r del l dst
        r rpush l 3 1 2
        r set dst old ex 100
        assert_equal 3 [r sort l store dst]
        assert_type list dst
        assert_equal {1 2 3} [r lrange dst 0 -1]
        assert_equal -1 [r ttl dst]
        assert_equal 3 [r sort l desc store dst]
        assert_equal {3 2 1} [r lrange dst 0 -1]
        # The last STORE wins.
        r del dst2
        assert_equal 3 [r sort l store dst store dst2]
        assert_equal {1 2 3} [r lrange dst2 0 -1]
    }

    test {SORT STORE with GET stores missing values as empty strings} {
        r del l dst v_1
        r rpush l 1 2
        r set v_1 x
        assert_equal 4 [r sort l get # get v_* store dst]
        assert_equal {1 x 2 {}} [r lrange dst 0 -1]
    }

    test {SORT STORE of an empty result deletes the destination} {
        r del l dst nokey
        r rpush dst a
        assert_equal 0 [r sort nokey store dst]
        assert_equal 0 [r exists dst]
        r rpush l 1 2
        r rpush dst a
        assert_equal 0 [r sort l limit 5 1 store dst]
        assert_equal 0 [r exists dst]
        assert_equal 0 [r sort l limit 5 1 store dst]
    }

    test {SORT STORE stores nothing when a weight is not a number} {
        r del l dst
        r rpush l 1 x
        r rpush dst keep
        assert_error {ERR One or more scores*} {r sort l store dst}
        assert_equal {keep} [r lrange dst 0 -1]
    }

    test {SORT STORE of a set BY nosort orders it ALPHA} {
        r del s dst
        r sadd s c 10 a 9 b
        assert_equal 5 [r sort s by nosort store dst]
        assert_equal {10 9 a b c} [r lrange dst 0 -1]
    }

    test {SORT STORE into the sorted key replaces it} {
        r del l
        r rpush l 3 1 2
        assert_equal 3 [r sort l store l]
        assert_equal {1 2 3} [r lrange l 0 -1]
    }

    test {SORT STORE invalidates a WATCH on the destination} {
        r del l dst
        r rpush l 1
        r watch dst
        set other [redis_client]
        $other sort l store dst
        $other close
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test {SORT inside MULTI} {
        r del l dst
        r rpush l 2 1
        r multi
        r sort l
        r sort l store dst
        assert_equal {{1 2} 2} [r exec]
    }

    test {COMMAND GETKEYS finds the sorted key and the last STORE destination} {
        assert_equal {k} [r command getkeys sort k by w_* get g_*]
        assert_equal {k d2} [r command getkeys sort k store d1 limit 0 1 store d2]
        assert_equal {k} [r command getkeys sort k store]
        assert_equal {k} [r command getkeys sort_ro k by w_* get #]
        assert_equal {{k {RO access}} {d {OW update}}} \
            [r command getkeysandflags sort k store d]
    }
}
