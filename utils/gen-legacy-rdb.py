#!/usr/bin/env python3
"""Writes tests/assets/legacy-encodings.rdb: an RDB version 9 file whose keys use the value
encodings Redis 7.0 still loads but no longer writes (ziplist lists, quicklists of ziplists,
zipmap and ziplist hashes, ziplist zsets, zsets with scores as text) plus the intset and plain
encodings that both versions share. tests/integration/rdb-legacy.tcl loads the file into a
server and checks every key's contents and OBJECT ENCODING; the same test passes against
Debian's Redis 7.0, which is what makes the file a cross-check.

The byte layouts are written from the published descriptions of the formats:
  ziplist  <zlbytes u32><zltail u32><zllen u16> entries <0xFF>; an entry is
           <prevlen: 1 byte, or 0xFE + u32> <encoding [+ string length]> <data>
  zipmap   <zmlen u8> { <len> key <len> <free u8> value <free bytes> } <0xFF>;
           a len is one byte below 254, or 254 + u32
  intset   <encoding u32 (2, 4 or 8)> <count u32> sorted little-endian integers
All multi-byte integers in these blobs are little-endian, except the big-endian string lengths
inside ziplist entries. Only the standard library is used. Run it from anywhere; it writes next
to the tests and prints the path. `--payloads` prints DUMP payloads (hex) of a few values
instead, for probing a server with RESTORE.
"""

import os
import struct
import sys

# ---- CRC-64 (Jones polynomial, reflected, as RDB files and DUMP payloads use) ----

_POLY_REFLECTED = 0x95AC9329AC4BC9B5
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY_REFLECTED if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc64(data, crc=0):
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA

# ---- RDB primitives ----


def rdb_len(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    if n < 2**32:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def rdb_str(s):
    if isinstance(s, str):
        s = s.encode()
    return rdb_len(len(s)) + s


# ---- ziplist ----


def _zl_int_encoding(v):
    if 0 <= v <= 12:
        return bytes([0xF1 + v])
    if -128 <= v <= 127:
        return b"\xfe" + struct.pack("<b", v)
    if -32768 <= v <= 32767:
        return b"\xc0" + struct.pack("<h", v)
    if -(2**23) <= v < 2**23:
        return b"\xf0" + struct.pack("<i", v)[:3]
    if -(2**31) <= v < 2**31:
        return b"\xd0" + struct.pack("<i", v)
    return b"\xe0" + struct.pack("<q", v)


def _zl_str_encoding(s):
    n = len(s)
    if n <= 63:
        return bytes([n]) + s
    if n <= 16383:
        return bytes([0x40 | (n >> 8), n & 0xFF]) + s
    return b"\x80" + struct.pack(">I", n) + s


def ziplist(items, zllen=None):
    """items: ints (integer encodings) and bytes/str (string encodings), in order."""
    body = b""
    prev = 0
    tail = 10
    for it in items:
        if isinstance(it, str):
            it = it.encode()
        enc = _zl_int_encoding(it) if isinstance(it, int) else _zl_str_encoding(it)
        prevlen = bytes([prev]) if prev < 254 else b"\xfe" + struct.pack("<I", prev)
        entry = prevlen + enc
        tail = 10 + len(body)
        body += entry
        prev = len(entry)
    total = 10 + len(body) + 1
    count = len(items) if zllen is None else zllen
    return struct.pack("<IIH", total, tail, min(count, 0xFFFF)) + body + b"\xff"


# ---- zipmap ----


def _zm_len(n):
    return bytes([n]) if n < 254 else b"\xfe" + struct.pack("<I", n)


def zipmap(pairs, free=0):
    out = bytes([min(len(pairs), 254)])
    for k, v in pairs:
        k = k.encode() if isinstance(k, str) else k
        v = v.encode() if isinstance(v, str) else v
        out += _zm_len(len(k)) + k + _zm_len(len(v)) + bytes([free]) + v + b"\x00" * free
    return out + b"\xff"


# ---- intset ----


def intset(values, width):
    fmt = {2: "<h", 4: "<i", 8: "<q"}[width]
    vals = sorted(values)
    return struct.pack("<II", width, len(vals)) + b"".join(struct.pack(fmt, v) for v in vals)


# ---- values (type byte, payload) ----


def list_ziplist(items):
    return 10, rdb_str(ziplist(items))


def list_quicklist(nodes):
    return 14, rdb_len(len(nodes)) + b"".join(rdb_str(ziplist(n)) for n in nodes)


def list_plain(items):
    return 1, rdb_len(len(items)) + b"".join(rdb_str(str(i)) for i in items)


def hash_zipmap(pairs, free=0):
    return 9, rdb_str(zipmap(pairs, free))


def hash_ziplist(pairs):
    return 13, rdb_str(ziplist([x for p in pairs for x in p]))


def zset_ziplist(pairs):
    """pairs: (member, score) with score an int or the score's text."""
    return 12, rdb_str(ziplist([x for p in pairs for x in p]))


def _text_score(s):
    if s == float("inf"):
        return b"\xfe"
    if s == float("-inf"):
        return b"\xff"
    t = repr(float(s)).encode() if not isinstance(s, bytes) else s
    return bytes([len(t)]) + t


def zset_v1(pairs):
    """RDB_TYPE_ZSET: member string, then the score as <len u8> text (253 nan, 254 +inf,
    255 -inf)."""
    out = rdb_len(len(pairs))
    for m, s in pairs:
        out += rdb_str(m) + _text_score(s)
    return 3, out


def set_intset(values, width):
    return 11, rdb_str(intset(values, width))


def dump_payload(value, version=9):
    body = bytes([value[0]]) + value[1] + struct.pack("<H", version)
    return body + struct.pack("<Q", crc64(body))


# ---- the file ----

NEVER = 4102444800000  # 2100-01-01 in ms: a TTL that stays positive
LONG_AGO = 1000  # 1970: the key has expired and is not loaded


def keys():
    """(name, value, expire_ms or None). Contents are checked by rdb-legacy.tcl."""
    big = "x" * 300  # needs the 5-byte prevlen form in the entry after it
    return [
        ("list:ziplist", list_ziplist(["a", 1, -2, 300, 70000, 2**40, "hello", big, "end"]), None),
        ("list:quicklist",
         list_quicklist([[f"n{i}" for i in range(100)], [], list(range(100, 250))]), None),
        ("list:plain", list_plain(range(5)), None),
        ("hash:zipmap", hash_zipmap([("f1", "v1"), ("f2", "2"), ("name", "redis")], free=2), None),
        ("hash:zipmap:big", hash_zipmap([(f"f{i}", f"v{i}") for i in range(600)]), None),
        ("hash:zipmap:longvalue", hash_zipmap([("k", "y" * 300)]), None),
        ("hash:ziplist", hash_ziplist([("a", "1"), ("b", 2), ("c", "three")]), None),
        ("hash:ziplist:big", hash_ziplist([(f"f{i}", i) for i in range(600)]), None),
        ("hash:ziplist:longvalue", hash_ziplist([("k", "z" * 100)]), None),
        ("zset:ziplist", zset_ziplist([("a", 1), ("b", "2.5"), ("c", 300)]), None),
        ("zset:ziplist:big", zset_ziplist([(f"m{i}", i) for i in range(200)]), None),
        ("zset:v1", zset_v1([("x", 1.5), ("y", float("inf")), ("z", float("-inf")),
                             ("w", b"-3")]), None),
        ("zset:v1:big", zset_v1([(f"m{i}", i / 4) for i in range(200)]), None),
        ("zset:v1:longmember", zset_v1([("q" * 100, 1)]), None),
        ("set:intset16", set_intset([3, 1, -2], 2), None),
        ("set:intset32", set_intset([100000, -5], 4), None),
        ("set:intset64", set_intset([2**40, 7], 8), None),
        ("set:intset:big", set_intset(range(600), 2), None),
        ("ttl:ziplist", list_ziplist(["t"]), NEVER),
        ("expired:ziplist", list_ziplist(["gone"]), LONG_AGO),
    ]


def rdb_file():
    out = b"REDIS0009"
    for name, value in [("redis-ver", "5.0.14"), ("redis-bits", "64"), ("ctime", "1600000000"),
                        ("used-mem", "1000000"), ("aof-preamble", "0")]:
        out += b"\xfa" + rdb_str(name) + rdb_str(value)
    ks = keys()
    out += b"\xfe" + rdb_len(0)
    out += b"\xfb" + rdb_len(len(ks)) + rdb_len(sum(1 for k in ks if k[2] is not None))
    for name, (rtype, payload), expire in ks:
        if expire is not None:
            out += b"\xfc" + struct.pack("<Q", expire)
        out += bytes([rtype]) + rdb_str(name) + payload
    out += b"\xff"
    return out + struct.pack("<Q", crc64(out))


def main():
    if "--payloads" in sys.argv:
        for name, value, _ in keys():
            print(name, dump_payload(value).hex())
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "tests", "assets", "legacy-encodings.rdb")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(rdb_file())
    print(path)


if __name__ == "__main__":
    main()
