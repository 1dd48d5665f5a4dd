#!/usr/bin/env python3
"""Writes the corpus of small hand-built RDB files that tests/integration/rdb-corrupt.tcl loads.

Usage: tests/assets/make-rdb-corpus.py [OUTDIR]   (default: tests/assets/rdb-corpus)

Each file is built record by record with the writer below (RDB version 10: the length and
string encodings, opcodes and the CRC-64 trailer as Redis 7.0 writes them), so every file is
a valid image except for the one fault its name says. The table at the end of rdb-corrupt.tcl
says, per file, whether a server must load it or refuse it and the log line it must print;
that table was checked against Debian's redis-server 7.0.15. Standard library only.
"""
import os
import struct
import sys

# ---- CRC-64 (Jones polynomial, reflected, init 0, no final xor: Redis's crc64) ----
_POLY = 0x95AC9329AC4BC9B5  # 0xad93d23594c935a9 bit-reversed
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc64(data, crc=0):
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA

# ---- the RDB writer ----
OP_FUNCTION2, OP_MODULE_AUX, OP_IDLE, OP_FREQ, OP_AUX = 245, 247, 248, 249, 250
OP_RESIZEDB, OP_EXPIRETIME_MS, OP_SELECTDB, OP_EOF = 251, 252, 254, 255
T_STRING, T_LIST, T_SET, T_HASH_LISTPACK, T_LIST_QUICKLIST2, T_MODULE2 = 0, 1, 2, 16, 18, 7


def length(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    if n <= 0xFFFFFFFF:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def string(s):
    s = s if isinstance(s, bytes) else s.encode()
    return length(len(s)) + s


def aux(name, value):
    return bytes([OP_AUX]) + string(name) + string(value)


def header(version=b"0010"):
    return b"REDIS" + version + aux("redis-ver", "7.0.15") + aux("redis-bits", "64")


def db(n, keys, expires=0):
    return bytes([OP_SELECTDB]) + length(n) + bytes([OP_RESIZEDB]) + length(keys) + length(expires)


def string_key(key, value):
    return bytes([T_STRING]) + string(key) + string(value)


def listpack(entries):
    """A listpack of short strings (< 64 bytes each): header, entries, end byte."""
    body = b""
    for e in entries:
        e = e.encode() if isinstance(e, str) else e
        enc = bytes([0x80 | len(e)]) + e
        body += enc + bytes([len(enc)])  # backlen fits one byte for these sizes
    total = 6 + len(body) + 1
    return struct.pack("<IH", total, len(entries)) + body + b"\xff"


def finish(body, checksum=True):
    body += bytes([OP_EOF])
    return body + struct.pack("<Q", crc64(body) if checksum else 0)


def good_body():
    return header() + db(0, 2) + string_key("a", "1") + string_key("b", "hello")


def corpus():
    files = {}
    files["ok-no-checksum.rdb"] = finish(good_body(), checksum=False)
    files["ok-empty-set-skipped.rdb"] = finish(
        header() + db(0, 2) + string_key("a", "1") + bytes([T_SET]) + string("s") + length(0))
    good = finish(good_body())
    files["bad-magic.rdb"] = b"RODIS" + good[5:]
    files["version-13.rdb"] = finish(header(b"0013") + db(0, 1) + string_key("a", "1"))
    files["version-0.rdb"] = finish(header(b"0000") + db(0, 1) + string_key("a", "1"))
    files["empty-file.rdb"] = b""
    files["bad-checksum.rdb"] = good[:-1] + bytes([good[-1] ^ 0x01])
    files["flipped-value-byte.rdb"] = good[:-12] + b"j" + good[-11:]  # "hello" -> "hejlo"
    files["truncated-in-value.rdb"] = good_body()[:-2]
    files["truncated-before-eof.rdb"] = good_body()
    files["truncated-in-checksum.rdb"] = good[:-3]
    files["unknown-type.rdb"] = finish(header() + db(0, 1) + bytes([100]) + string("k") + string("v"))
    files["module-type.rdb"] = finish(
        header() + db(0, 1) + bytes([T_MODULE2]) + string("k") + length(0x1234567890) + b"\x00")
    files["module-aux.rdb"] = finish(
        header() + bytes([OP_MODULE_AUX]) + length(0x1234567890) + length(2) + b"\x00")
    files["duplicate-key.rdb"] = finish(
        header() + db(0, 2) + string_key("a", "1") + string_key("a", "2"))
    files["bad-string-encoding.rdb"] = finish(
        header() + db(0, 1) + bytes([T_STRING]) + string("k") + b"\xc5")
    files["db-out-of-range.rdb"] = finish(header() + db(16, 1) + string_key("a", "1"))
    bad_lp = bytearray(listpack(["f", "v"]))
    bad_lp[0] += 1  # the header's total size no longer matches the blob
    files["bad-listpack-header.rdb"] = finish(
        header() + db(0, 1) + bytes([T_HASH_LISTPACK]) + string("h") + string(bytes(bad_lp)))
    files["hash-listpack-odd-count.rdb"] = finish(
        header() + db(0, 1) + bytes([T_HASH_LISTPACK]) + string("h") + string(listpack(["f", "v", "x"])))
    files["huge-length.rdb"] = finish(
        header() + db(0, 1) + bytes([T_STRING]) + string("k") + length(1 << 40) + b"xx")
    return files


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "rdb-corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(corpus().items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("%d files in %s" % (len(corpus()), out))


if __name__ == "__main__":
    main()
