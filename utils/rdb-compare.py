#!/usr/bin/env python3
"""Compares the datasets of two running servers key by key (Redis 7.0 and redis-tp, or any two).

Usage: utils/rdb-compare.py PORT_A PORT_B [--host 127.0.0.1] [--no-encoding] [--no-idle]

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


def main():
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
