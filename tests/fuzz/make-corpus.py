#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer harnesses in tests/fuzz/ (standard library only).

Usage: make-corpus.py OUTDIR  ->  OUTDIR/request_parser/, OUTDIR/dispatch/, OUTDIR/rdb_load/,
OUTDIR/lua/, OUTDIR/bus_message/

request_parser seeds: the first byte is the harness's control byte (chunk size, AUTH state,
small proto-max-bulk-len); the rest is a client byte stream: valid multibulk and inline requests,
pipelines, and each protocol error shape.
rdb_load seeds: the RDB files tests/assets/make-rdb-corpus.py builds, and one file per class of
corrupt value that tests/integration/corrupt-dump.tcl refuses (bad ziplist headers, prevlens and
encodings, empty containers, repeated members, NaN scores, bad LZF, huge declared counts, stream
listpacks that do not walk), so the fuzzer starts next to each check.
dispatch seeds: steps in dispatch_fuzz.cc's format. A "command" step names its command by index
into the live command table, which the script cannot see, so seeds use every index byte 0..255
with a few argument shapes; the fuzzer then keeps what reaches new code.
lua seeds: the scripts that crashed the server or differed from Redis (issue 20), as literal
scripts (first byte with its top bit set, see lua_fuzz.cc), each with plain, RESP3 and
SCRIPT KILL flags; and generator inputs (first byte without it) of a few byte patterns.
bus_message seeds: the cluster bus frames captured from Redis 7.0 nodes
(tests/assets/cluster/frames), each whole and cut one byte short.
"""
import os
import struct
import sys


def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else a.encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


PARSER_STREAMS = [
    resp("PING"),
    resp("SET", "k", "v") + resp("GET", "k"),
    resp("MSET", "a", "1", "b", "2") * 3,
    b"PING\r\nSET k \"a b\\x41\" 'c\\'d'\r\n",
    b"\r\n\r\n" + resp("ECHO", b"\x00\xff\r\n"),
    b"*0\r\n*-1\r\n" + resp("PING"),
    b"*1\r\n$4\r\nPI",  # cut in the middle
    b"*2\r\n$3\r\nGET\r\n$100\r\nshort",  # bulk shorter than declared
    b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$70\r\n" + b"x" * 70 + b"\r\n",  # over the small limit
    b"*1\r\nPING\r\n",  # expected '$'
    b"*abc\r\n",
    b"*1\r\n$-5\r\n",
    b"*99999999999\r\n",
    b"*20\r\n",  # over the unauthenticated multibulk limit
    b"SET \"unbalanced\r\n",
    b"GET 'a'b\r\n",
    b"*1\r\n$18446744073709551616\r\n",
    b"*2\r\n$3\r\nget\r\n$1\r\nk\r\nGARBAGE\n",
]

DISPATCH_SEEDS = []
for name in range(256):
    DISPATCH_SEEDS.append(bytes([0, name, 0]))
    # two key arguments, an integer, a keyword
    DISPATCH_SEEDS.append(bytes([1, name, 4, 0, 0, 1, 1, 3, 1, 5, 4]))
# raw protocol steps: a cut pipeline, then a bad length
DISPATCH_SEEDS.append(bytes([4, 12]) + b"*2\r\n$3\r\nGET" + bytes([4, 8]) + b"*1\r\n$-9\r")
DISPATCH_SEEDS.append(bytes([5, 10]) + b"MULTI\r\nEXE" + bytes([5, 6]) + b"C\r\n\r\n")


# Scripts that crashed redis-tp (a Lua panic, or a crash in reply conversion) or answered other
# than Redis 7.0 does; each must now answer and leave the server serving.
LUA_CRASHERS = [
    "return _G",
    "local a = {}; setmetatable(a,{__index=function() foo() end}) return a",
    "return setmetatable({}, {__index=function(t,k) return 'x' end})",
    "return {1,2,setmetatable({}, {__index=function(t,k) return 'y' end})}",
    "return {map=_G}",
    "return {false, {{{{}}}}, _G}",
    "return setmetatable({[1.5]=1}, {__index=function() error('x') end})",
    "return setmetatable({err='x'},{__index=function() error('z') end})",
    "error({})",
    "error(setmetatable({}, {__index=function() error('q') end}))",
    "error(setmetatable({}, {__newindex=rawset}))",
    "error({err={}})",
    "error(_G)",
    "error(setmetatable({}, {__newindex=error}))",
    "local co = coroutine.wrap(function() error({}) end) co()",
    "table.insert(nil, 1)",
    "return table.concat({1,{}})",
    "return pairs(nil)",
    "return next({}, 'x')",
    "return #unpack({}, 1, 7999)",
    "local t = {} ; for i=1,7999 do t[i]='a' end; return redis.call('del', unpack(t))",
    "local g = getmetatable(_G); g.__index = {}",
    "print(1)",
    "return {pcall()}",
    "return {verbatim_string={format='a',string='x'}}",
    "redis.setresp(3) return redis.call('debug', 'protocol', 'attrib')",
    "local t = {} t[1] = t return t",
    "return cmsgpack.unpack(cmsgpack.pack(_G))",
    "return cjson.encode(setmetatable({}, {__index=function() error('j') end}))",
    # found by the fuzzer: a C cast of an out-of-range double (UBSan)
    "redis.setresp(1/0)",
    "return {pcall(redis.set_repl, 0/0), pcall(redis.log, -1/0, 'x'), pcall(redis.setresp, 2^40)}",
    "return {math.random(-2^31, 2^31 - 1), math.random(0, 2^31 - 1), math.random(-2^31, -1)}",
    # found by the fuzzer: redis.acl_check_cmd raised its error with a vector alive (LSan)
    "return redis.acl_check_cmd('get', {})",
    "return {pcall(redis.acl_check_cmd, 'nosuch', 'a'), pcall(redis.acl_check_cmd, 'get', 1.5, {})}",
]


def lua_seeds():
    items = []
    for script in LUA_CRASHERS:
        for flags in (0x80, 0x81, 0x86, 0x98):
            items.append(bytes([flags]) + script.encode())
    for pattern in range(32):
        items.append(bytes([pattern & 0x7F]) + bytes((pattern * 37 + i * 11) % 256 for i in range(64)))
    return items


def write(dirname, items):
    os.makedirs(dirname, exist_ok=True)
    for i, data in enumerate(items):
        with open(os.path.join(dirname, "seed-%03d" % i), "wb") as f:
            f.write(data)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-corpus.py OUTDIR")
    out = sys.argv[1]
    parser_items = []
    for s in PARSER_STREAMS:
        for control in (0x00, 0x01, 0x07, 0x40, 0x80):
            parser_items.append(bytes([control]) + s)
    write(os.path.join(out, "request_parser"), parser_items)
    write(os.path.join(out, "dispatch"), DISPATCH_SEEDS)
    write(os.path.join(out, "rdb_load"), rdb_seeds())
    write(os.path.join(out, "lua"), lua_seeds())
    write(os.path.join(out, "bus_message"), bus_message_seeds())


def bus_message_seeds():
    """bus_message seeds: the cluster bus frames captured from Redis 7.0 nodes
    (utils/capture-bus-frames.sh), each whole and cut short."""
    here = os.path.dirname(os.path.abspath(__file__))
    frames_dir = os.path.join(here, "..", "assets", "cluster", "frames")
    items = []
    for name in sorted(os.listdir(frames_dir)):
        with open(os.path.join(frames_dir, name), "rb") as f:
            frame = f.read()
        items.append(frame)
        items.append(frame[: len(frame) - 1])
    return items


def rdb_seeds():
    """rdb_load seeds: the hand-built files of tests/assets (good ones and one fault each)."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "assets"))
    import importlib
    sys.dont_write_bytecode = True  # no __pycache__ in tests/assets
    rdb = importlib.import_module("make-rdb-corpus")
    corpus = rdb.corpus()
    # Whole files of Redis 7.2's and 7.4's formats (utils/gen-rdb-versions.py builds them).
    newer = []
    for name in ("rdb-v11.rdb", "rdb-v12.rdb"):
        with open(os.path.join(here, "..", "assets", name), "rb") as f:
            newer.append(f.read())
    return [corpus[name] for name in sorted(corpus)] + newer + corrupt_value_seeds(rdb)


def zl_entry(prevlen, text):
    return bytes([prevlen, len(text)]) + text


def ziplist(entries, zlbytes=None, tail=None, count=None):
    """A ziplist of raw entries; header fields right unless given."""
    body = b"".join(entries)
    last = len(entries[-1]) if entries else 0
    zlbytes = 10 + len(body) + 1 if zlbytes is None else zlbytes
    tail = 10 + len(body) - last if tail is None else tail
    count = len(entries) if count is None else count
    return struct.pack("<IIH", zlbytes, tail, count) + body + b"\xff"


def corrupt_value_seeds(rdb):
    """One no-checksum file per corrupt-value class: key k of RDB type t with body b."""
    e0, e1, e2 = zl_entry(0, b"a"), zl_entry(3, b"bb"), zl_entry(4, b"cccc")
    good_zl = ziplist([e0, e1, e2])
    bad_zls = [
        ziplist([e0, e1, e2], zlbytes=60), ziplist([e0, e1, e2], zlbytes=3),
        ziplist([e0, e1, e2], tail=200), ziplist([e0, e1, e2], tail=11),
        ziplist([e0, e1, e2], count=7), ziplist([e0, zl_entry(200, b"bb"), e2]),
        ziplist([e0, zl_entry(1, b"bb"), e2]), ziplist([e0, e1, b"\x04\x30cc"]),
        ziplist([e0, e1, b"\x04\xc5cc"]), ziplist([e0, e1, b"\x04\xf0"]),
        struct.pack("<I", len(good_zl) + 3) + good_zl[4:] + b"\xff\x01\x02",
    ]
    s, n = rdb.string, rdb.length
    values = [(14, n(1) + s(z)) for z in bad_zls] + [(10, s(z)) for z in bad_zls]
    empty_zl = ziplist([])
    hz = lambda items: ziplist([zl_entry(0 if i == 0 else 3, x) for i, x in enumerate(items)])
    values += [
        (14, n(0)), (18, n(0)), (14, n(2) + s(empty_zl) + s(empty_zl)),
        (18, n(1) + n(2) + s(rdb.listpack([]))),
        (13, s(hz([b"a", b"1", b"b"]))), (13, s(hz([b"a", b"1", b"a", b"2"]))),
        (16, s(rdb.listpack(["a", "1", "a", "2"]))), (16, s(rdb.listpack(["a", "1", "b"]))),
        (9, s(b"\x00\xff")), (9, s(b"\x02\x01a\x01\x001\x01a\x01\x002\xff")),
        (4, n(2) + s("a") + s("1") + s("a") + s("2")),
        (12, s(hz([b"a", b"1", b"a", b"2"]))), (17, s(rdb.listpack(["a", "nan"]))),
        (5, n(2) + s("a") + struct.pack("<d", float("nan")) + s("b") + struct.pack("<d", 1.0)),
        (3, n(1) + s("a") + b"\xfd"), (3, n(1) + s("a") + b"\x64\x31"),
        (11, s(struct.pack("<IIhh", 2, 3, 1, 2))), (11, s(struct.pack("<IIhh", 2, 2, 5, 1))),
        (11, s(struct.pack("<II", 3, 1) + b"\x01\x00\x00")), (2, n(2) + s("a") + s("a")),
        (2, n(1 << 28) + s("a")), (4, n(1 << 28) + s("a") + s("b")),
        (0, b"\xc3\x05\x14\x1f\x00\x00\x00\x00"), (0, n((1 << 32) + 5) + b"abc"),
    ]
    # A one-entry stream (1-1 f v) and its node listpack broken in the ways the tests break it.
    node = bytes.fromhex("00000000000000010000000000000001")
    good_lp = bytes.fromhex("1d0000000a00010100010101816602000102010001000181760204" "01ff")
    stream_lps = [rdb.listpack([]), good_lp, good_lp[:6] + b"\x28" + good_lp[7:],
                  good_lp[:7] + b"\x7f" + good_lp[8:],
                  struct.pack("<I", len(good_lp) + 5) + good_lp[4:]]
    # length 1, last id 1-1, first id 1-1, max deleted 0-0, entries added 1, no groups
    meta = bytes.fromhex("010101010100000100")
    values += [(19, n(1) + s(node) + s(lp) + meta) for lp in stream_lps]
    values += [(19, n(0) + meta), (19, n(1) + s(node[:8]) + s(good_lp) + meta)]
    # RDB 11/12 types: a set listpack with a repeat and an empty one; hashes with field times
    # out of range, truncated, not in triples, with a time that is not a number.
    values += [
        (20, s(rdb.listpack(["a", "b", "a"]))), (20, s(rdb.listpack([]))),
        (24, struct.pack("<Q", 5) + n(1) + n(1 << 50) + s("f") + s("v")),
        (24, struct.pack("<Q", 5) + n(2) + n(1) + s("f") + s("v")),
        (25, struct.pack("<Q", 0) + s(rdb.listpack(["a", "1"]))),
        (23, s(rdb.listpack(["a", "1", "x"]))), (22, n(2) + (n(0) + s("f") + s("v")) * 2),
    ]
    seeds = []
    for t, body in values:
        head = rdb.header() + rdb.db(0, 1) + bytes([t]) + s("k") + body
        seeds.append(rdb.finish(head, checksum=False))
    return seeds


if __name__ == "__main__":
    main()
