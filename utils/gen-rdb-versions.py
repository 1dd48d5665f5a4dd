#!/usr/bin/env python3
"""Writes tests/assets/rdb-v11.rdb and tests/assets/rdb-v12.rdb: RDB files in the formats Redis
7.2 (RDB version 11) and Redis 7.4 (RDB version 12) write, built byte by byte here, so that
tests/integration/rdb-versions.tcl can check that redis-tp loads what those servers save
without any of their binaries at hand (Debian has only 7.0, which refuses both files).

The layouts are written from the published descriptions of the formats (the RDB file format
notes and the release notes of 7.2 and 7.4), not from a server's output:
  version 11 adds
    20 RDB_TYPE_SET_LISTPACK        the set's members as one listpack string
    21 RDB_TYPE_STREAM_LISTPACKS_3  version 2's stream, plus an 8-byte active time after each
                                    consumer's 8-byte seen time
  version 12 adds the hashes whose fields carry expire times (absolute unix ms):
    24 RDB_TYPE_HASH_METADATA       <min expire: 8 bytes LE> <count> then per field
                                    <ttl: RDB length, 0 = none, else expire - min + 1>
                                    <field string> <value string>
    25 RDB_TYPE_HASH_LISTPACK_EX    <min expire: 8 bytes LE> <listpack of field, value, expire
                                    triples, expire 0 = none>
    22, 23 (7.4's release candidates): the same without the min expire, and 22's ttl is the
                                    absolute expire time itself.
A listpack is <total bytes u32 LE> <count u16 LE> entries <0xFF>; an entry is its encoding,
its data and a back length (see _backlen). The CRC-64 and RDB primitives come from
gen-legacy-rdb.py. Run it from anywhere; it writes next to the tests and prints the paths.
`--payloads` prints DUMP payloads (hex) of a few values instead, for probing with RESTORE.
"""

import importlib.util
import os
import struct
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "gen_legacy_rdb", os.path.join(_HERE, "gen-legacy-rdb.py"))
_legacy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_legacy)
crc64, rdb_len, rdb_str = _legacy.crc64, _legacy.rdb_len, _legacy.rdb_str

# ---- listpack ----


def _backlen(n):
    """The back length of an entry of n bytes (encoding + data), read right to left: 7 bits a
    byte, least significant group last; every byte but the leftmost has its high bit set,
    which tells a reader walking backwards that another byte follows."""
    groups = []
    while True:
        groups.append(n & 0x7F)
        n >>= 7
        if n == 0:
            break
    groups.reverse()  # most significant first, as stored
    return bytes(g | (0x80 if i > 0 else 0) for i, g in enumerate(groups))


def _lp_entry(item):
    if isinstance(item, int):
        if 0 <= item <= 127:
            enc = bytes([item])
        elif -4096 <= item <= 4095:
            v = item & 0x1FFF
            enc = bytes([0xC0 | (v >> 8), v & 0xFF])
        elif -(2**15) <= item < 2**15:
            enc = b"\xf1" + struct.pack("<h", item)
        elif -(2**23) <= item < 2**23:
            enc = b"\xf2" + struct.pack("<i", item)[:3]
        elif -(2**31) <= item < 2**31:
            enc = b"\xf3" + struct.pack("<i", item)
        else:
            enc = b"\xf4" + struct.pack("<q", item)
    else:
        s = item.encode() if isinstance(item, str) else item
        n = len(s)
        if n < 64:
            enc = bytes([0x80 | n]) + s
        elif n < 4096:
            enc = bytes([0xE0 | (n >> 8), n & 0xFF]) + s
        else:
            enc = b"\xf0" + struct.pack("<I", n) + s
    return enc + _backlen(len(enc))


def listpack(items):
    body = b"".join(_lp_entry(i) for i in items)
    total = 6 + len(body) + 1
    return struct.pack("<IH", total, min(len(items), 65535)) + body + b"\xff"


# ---- values (type byte, payload) ----


def le64(v):
    return struct.pack("<Q", v)


def string(s):
    return 0, rdb_str(s)


def set_listpack(members):
    return 20, rdb_str(listpack(members))


def stream_v3(entries, groups, last_id=None, entries_added=None, max_deleted=(0, 0)):
    """entries: [((ms, seq), [(field, value), ...])], all in one node whose master entry has
    the first entry's fields. groups: [(name, last_id, entries_read, pel, consumers)] with pel
    [((ms, seq), delivery_time, count)] and consumers [(name, seen, active, [ids])]."""
    master_id = entries[0][0]
    master_fields = [f for f, _ in entries[0][1]]
    items = [len(entries), 0, len(master_fields)] + master_fields + [0]
    for (ms, seq), fv in entries:
        fields = [f for f, _ in fv]
        if fields == master_fields:
            body = [2, ms - master_id[0], seq - master_id[1]] + [v for _, v in fv]
        else:
            body = [0, ms - master_id[0], seq - master_id[1], len(fv)]
            body += [x for pair in fv for x in pair]
        items += body + [len(body)]
    out = rdb_len(1) + rdb_str(struct.pack(">QQ", *master_id)) + rdb_str(listpack(items))
    last = last_id or entries[-1][0]
    out += rdb_len(len(entries)) + rdb_len(last[0]) + rdb_len(last[1])
    first = entries[0][0]
    out += rdb_len(first[0]) + rdb_len(first[1])
    out += rdb_len(max_deleted[0]) + rdb_len(max_deleted[1])
    out += rdb_len(entries_added if entries_added is not None else len(entries))
    out += rdb_len(len(groups))
    for name, glast, entries_read, pel, consumers in groups:
        out += rdb_str(name) + rdb_len(glast[0]) + rdb_len(glast[1]) + rdb_len(entries_read)
        out += rdb_len(len(pel))
        for pid, dtime, count in pel:
            out += struct.pack(">QQ", *pid) + le64(dtime) + rdb_len(count)
        out += rdb_len(len(consumers))
        for cname, seen, active, ids in consumers:
            out += rdb_str(cname) + le64(seen) + le64(active) + rdb_len(len(ids))
            out += b"".join(struct.pack(">QQ", *i) for i in ids)
    return 21, out


def _min_expire(fields):
    ttls = [t for _, _, t in fields if t]
    return min(ttls) if ttls else 0


def hash_metadata(fields):
    """fields: [(field, value, expire_ms or 0)]."""
    low = _min_expire(fields)
    out = le64(low) + rdb_len(len(fields))
    for f, v, t in fields:
        out += rdb_len(t - low + 1 if t else 0) + rdb_str(f) + rdb_str(v)
    return 24, out


def hash_listpack_ex(fields):
    flat = [x for f, v, t in fields for x in (f, v, t)]
    return 25, le64(_min_expire(fields)) + rdb_str(listpack(flat))


def hash_metadata_pre_ga(fields):
    out = rdb_len(len(fields))
    for f, v, t in fields:
        out += rdb_len(t) + rdb_str(f) + rdb_str(v)
    return 22, out


def hash_listpack_ex_pre_ga(fields):
    return 23, rdb_str(listpack([x for f, v, t in fields for x in (f, v, t)]))


def dump_payload(value, version):
    body = bytes([value[0]]) + value[1] + struct.pack("<H", version)
    return body + struct.pack("<Q", crc64(body))


# ---- the files ----

NEVER = 4102444800000  # 2100-01-01 in ms: an expire time that stays in the future
LATER = 4102444800000 + 3600 * 1000  # an hour after it
LONG_AGO = 1000  # 1970: a field with this expire time is not loaded
T_SEEN = 1700000000123
T_ACTIVE = 1700000000456


def v11_keys():
    """(name, value). Contents are checked by rdb-versions.tcl."""
    return [
        ("str", string("plain")),
        ("set:lp", set_listpack(["a", "b", "hello world", 5, -3, "x" * 60])),
        ("set:lpints", set_listpack([1, 2, 300, -7])),
        ("stream:v3", stream_v3(
            [((1000, 0), [("f", "v1")]), ((1000, 1), [("f", "v2")]),
             ((2000, 0), [("g", "other"), ("h", "2")])],
            [("grp", (1000, 1), 2, [((1000, 0), T_SEEN, 3), ((1000, 1), T_SEEN, 1)],
              [("alice", T_SEEN, T_ACTIVE, [(1000, 0)]), ("bob", T_SEEN, T_SEEN, [(1000, 1)])]),
             ("empty", (0, 0), 0, [], [])])),
    ]


def v12_keys():
    return v11_keys() + [
        ("hash:meta", hash_metadata(
            [("f1", "v1", NEVER), ("f2", "v2", 0), ("f3", "v3", LATER), ("gone", "x", LONG_AGO)])),
        ("hash:lpex", hash_listpack_ex(
            [("a", "1", NEVER), ("b", "2", 0), ("c", "300", LATER), ("old", "x", LONG_AGO)])),
        ("hash:pre22", hash_metadata_pre_ga([("p", "q", NEVER), ("r", "s", 0)])),
        ("hash:pre23", hash_listpack_ex_pre_ga([("m", "n", NEVER), ("o", "p", 0)])),
        ("hash:noexpire", hash_listpack_ex([("k", "v", 0)])),
        ("hash:allgone", hash_metadata([("x", "y", LONG_AGO), ("z", "w", LONG_AGO + 5)])),
    ]


def rdb_file(version, redis_ver, keys):
    out = b"REDIS%04d" % version
    for name, value in (("redis-ver", redis_ver), ("redis-bits", "64"), ("ctime", "1700000000"),
                        ("used-mem", "1000000"), ("aof-base", "0")):
        out += b"\xfa" + rdb_str(name) + rdb_str(value)
    out += b"\xfe" + rdb_len(0) + b"\xfb" + rdb_len(len(keys)) + rdb_len(0)
    for name, (type_byte, payload) in keys:
        out += bytes([type_byte]) + rdb_str(name) + payload
    out += b"\xff"
    return out + le64(crc64(out))


def main():
    if "--payloads" in sys.argv:
        for version, keys in ((11, v11_keys()), (12, v12_keys())):
            for name, value in keys:
                print(version, name, dump_payload(value, version).hex())
        return
    assets = os.path.join(_HERE, "..", "tests", "assets")
    for version, redis_ver, keys in ((11, "7.2.4", v11_keys()), (12, "7.4.0", v12_keys())):
        path = os.path.normpath(os.path.join(assets, "rdb-v%d.rdb" % version))
        with open(path, "wb") as f:
            f.write(rdb_file(version, redis_ver, keys))
        print(path)


if __name__ == "__main__":
    main()
