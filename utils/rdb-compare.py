#!/usr/bin/env python3
"""Compares two datasets key by key: two running servers, or two RDB files byte for byte.

Usage: utils/rdb-compare.py PORT_A PORT_B [--host 127.0.0.1] [--no-encoding]
       utils/rdb-compare.py --files A.rdb B.rdb [--skip-type 15,19]

With --files it splits both files into records (database, key) -> (expire time, type byte,
value payload bytes) and compares the payloads byte for byte; the header's aux fields, the
order of keys and the order of hash-table-encoded sets' and hashes' elements (hash table order)
are allowed to differ. --skip-type leaves out types whose
payload holds times (streams carry consumers' seen-time and PEL delivery times).

For every database with keys on either side and every key in it (SCAN), it compares TYPE,
OBJECT ENCODING, DEBUG DIGEST-VALUE (needs enable-debug-command), the TTL (PTTL within 5 s), and
for streams XINFO STREAM FULL; then FUNCTION LIST WITHCODE. It prints one line per difference
and a summary "N keys compared, N differences", and exits 1 if anything differs. Both servers
must be idle while it runs. Standard library only: the RESP client is the few lines below.
"""
import argparse
import socket
import sys


class Resp:
    """A minimal blocking RESP2 client: send a command, read one reply (errors as RespError)."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=30)
        self.buf = b""

    def call(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        return self._reply()

    def _fill(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill(len(self.buf) + 1)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest
        if kind == b"-":
            return RespError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            self._fill(n + 2)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ValueError("bad reply %r" % line)


class RespError(str):
    pass


def keys_of(c, db):
    c.call("SELECT", db)
    cursor, keys = b"0", set()
    for _ in range(10_000_000):
        cursor, batch = c.call("SCAN", cursor, "COUNT", 1000)
        keys.update(batch)
        if cursor == b"0":
            break
    return keys


def strip_stream_volatile(info):
    """XINFO STREAM FULL minus fields that legitimately differ (seen-time of consumers)."""
    if not isinstance(info, list):
        return info
    out = []
    skip = False
    for i, v in enumerate(info):
        if skip:
            skip = False
            continue
        if v in (b"seen-time",):
            skip = True
            continue
        out.append(strip_stream_volatile(v))
    return out


class RdbSplitter:
    """Walks an RDB v10 image record by record, returning each key's payload as raw bytes."""

    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, n):
        if self.p + n > len(self.d):
            raise ValueError("short read at %d" % self.p)
        out = self.d[self.p:self.p + n]
        self.p += n
        return out

    def length(self):
        """(value, is_encoded) of a length or special string encoding."""
        b = self.take(1)[0]
        kind = b >> 6
        if kind == 0:
            return b & 0x3F, False
        if kind == 1:
            return ((b & 0x3F) << 8) | self.take(1)[0], False
        if kind == 3:
            return b & 0x3F, True
        if b == 0x80:
            return int.from_bytes(self.take(4), "big"), False
        if b == 0x81:
            return int.from_bytes(self.take(8), "big"), False
        raise ValueError("bad length byte %#x at %d" % (b, self.p - 1))

    def string(self):
        n, enc = self.length()
        if not enc:
            self.take(n)
        elif n in (0, 1, 2):
            self.take(1 << n)
        elif n == 3:
            clen, _ = self.length()
            self.length()
            self.take(clen)
        else:
            raise ValueError("bad string encoding %d" % n)

    def plain_length(self):
        n, enc = self.length()
        if enc:
            raise ValueError("encoded length at %d" % self.p)
        return n

    def payload(self, t):
        start = self.p
        if t in (0, 9, 10, 11, 12, 13, 16, 17):  # a string or one blob
            self.string()
        elif t == 1:  # list: n strings
            for _ in range(self.plain_length()):
                self.string()
        elif t == 2:  # set (hash table order): the sorted members stand for the payload
            items = []
            for _ in range(self.plain_length()):
                at = self.p
                self.string()
                items.append(self.d[at:self.p])
            return b"set:" + b"|".join(sorted(items))
        elif t == 3:  # zset v1: member, score as a length-prefixed string
            for _ in range(self.plain_length()):
                self.string()
                n = self.take(1)[0]
                if n < 253:
                    self.take(n)
        elif t == 4:  # hash (hash table order): the sorted field/value pairs
            items = []
            for _ in range(self.plain_length()):
                at = self.p
                self.string()
                self.string()
                items.append(self.d[at:self.p])
            return b"hash:" + b"|".join(sorted(items))
        elif t == 5:  # zset2: member, 8-byte double
            for _ in range(self.plain_length()):
                self.string()
                self.take(8)
        elif t == 14:  # quicklist v1: n ziplists
            for _ in range(self.plain_length()):
                self.string()
        elif t == 18:  # quicklist v2: n (container, blob)
            for _ in range(self.plain_length()):
                self.plain_length()
                self.string()
        elif t in (15, 19):  # streams
            for _ in range(self.plain_length()):
                self.string()
                self.string()
            for _ in range(3):
                self.plain_length()
            if t == 19:
                for _ in range(5):
                    self.plain_length()
            for _ in range(self.plain_length()):  # groups
                self.string()
                self.plain_length()
                self.plain_length()
                if t == 19:
                    self.plain_length()
                for _ in range(self.plain_length()):  # group PEL
                    self.take(16 + 8)
                    self.plain_length()
                for _ in range(self.plain_length()):  # consumers
                    self.string()
                    self.take(8)
                    for _ in range(self.plain_length()):
                        self.take(16)
        else:
            raise ValueError("unknown type %d at %d" % (t, self.p))
        return self.d[start:self.p]

    def records(self):
        if self.take(9)[:5] != b"REDIS":
            raise ValueError("not an RDB file")
        out, db, expire = {}, 0, None
        while True:
            op = self.take(1)[0]
            if op == 255:
                return out
            if op == 250:
                self.string()
                self.string()
            elif op == 245:
                self.string()
            elif op == 254:
                db = self.plain_length()
            elif op == 251:
                self.plain_length()
                self.plain_length()
            elif op == 252:
                expire = int.from_bytes(self.take(8), "little")
            elif op == 248:
                self.plain_length()
            elif op == 249:
                self.take(1)
            else:
                kstart = self.p
                self.string()
                key = self.d[kstart:self.p]
                out[(db, key)] = (expire, op, self.payload(op))
                expire = None


def compare_files(path_a, path_b, skip_types):
    with open(path_a, "rb") as f:
        ra = RdbSplitter(f.read()).records()
    with open(path_b, "rb") as f:
        rb = RdbSplitter(f.read()).records()
    diffs = []
    for k in sorted(set(ra) | set(rb)):
        if k not in ra or k not in rb:
            diffs.append("db %d key %r only in %s" % (k[0], k[1], path_a if k in ra else path_b))
            continue
        (ea, ta, pa), (eb, tb, pb) = ra[k], rb[k]
        if ta in skip_types:
            continue
        if ta != tb or pa != pb or (ea is None) != (eb is None):
            diffs.append("db %d key %r: type %d vs %d, payload %s vs %s" % (
                k[0], k[1], ta, tb, pa[:48].hex(), pb[:48].hex()))
    for d in diffs:
        print(d)
    print("%d keys compared, %d differences" % (len(set(ra) | set(rb)), len(diffs)))
    return 1 if diffs else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--files":
        fp = argparse.ArgumentParser()
        fp.add_argument("--files", nargs=2, required=True)
        fp.add_argument("--skip-type", default="")
        fa = fp.parse_args()
        skip = {int(t) for t in fa.skip_type.split(",") if t}
        return compare_files(fa.files[0], fa.files[1], skip)
    ap = argparse.ArgumentParser()
    ap.add_argument("port_a", type=int)
    ap.add_argument("port_b", type=int)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--no-encoding", action="store_true")
    ap.add_argument("--databases", type=int, default=16)
    args = ap.parse_args()
    a, b = Resp(args.host, args.port_a), Resp(args.host, args.port_b)
    diffs, compared = [], 0

    def differ(what):
        diffs.append(what)
        print(what)

    for db in range(args.databases):
        ka, kb = keys_of(a, db), keys_of(b, db)
        for k in sorted(ka ^ kb):
            differ("db %d: key %r only on %s" % (db, k, "A" if k in ka else "B"))
        for k in sorted(ka & kb):
            compared += 1
            checks = [("TYPE", k), ("DEBUG", "DIGEST-VALUE", k)]
            if not args.no_encoding:
                checks.append(("OBJECT", "ENCODING", k))
            for cmd in checks:
                ra, rb = a.call(*cmd), b.call(*cmd)
                if ra != rb:
                    differ("db %d key %r: %s: %r vs %r" % (db, k, cmd[0], ra, rb))
            ta, tb = a.call("PTTL", k), b.call("PTTL", k)
            if (ta < 0 or tb < 0) and ta != tb or abs(ta - tb) > 5000:
                differ("db %d key %r: PTTL %r vs %r" % (db, k, ta, tb))
            if a.call("TYPE", k) == b"stream":
                xa = strip_stream_volatile(a.call("XINFO", "STREAM", k, "FULL"))
                xb = strip_stream_volatile(b.call("XINFO", "STREAM", k, "FULL"))
                if xa != xb:
                    differ("db %d key %r: XINFO STREAM FULL %r vs %r" % (db, k, xa, xb))
    fa, fb = a.call("FUNCTION", "LIST", "WITHCODE"), b.call("FUNCTION", "LIST", "WITHCODE")
    if sorted(map(repr, fa)) != sorted(map(repr, fb)):
        differ("FUNCTION LIST WITHCODE %r vs %r" % (fa, fb))
    print("%d keys compared, %d differences" % (compared, len(diffs)))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
