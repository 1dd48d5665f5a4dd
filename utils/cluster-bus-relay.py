#!/usr/bin/env python3
"""Cluster bus relay: records the frames Redis Cluster nodes exchange.

Each node is told to announce a relay port as its bus port (cluster-announce-bus-port), so every
link to that node passes through here. The relay accepts on 127.0.0.1:<listen>, connects to
127.0.0.1:<target> and copies bytes both ways unchanged. Along the way it cuts each direction's
stream into frames (4-byte signature "RCmb", then a big-endian 32-bit total length) and writes
each frame to <outdir>/<seq>-<type>-<listen>-<dir>.bin, keeping at most --keep frames per
(type, listen port, direction) so a capture stays small. Used to build the unit-test corpus in
tests/assets/cluster/frames.

Usage: cluster-bus-relay.py OUTDIR LISTEN:TARGET [LISTEN:TARGET ...] [--keep N] [--seconds S]
"""
import argparse
import os
import selectors
import socket
import struct
import time

TYPES = {0: "ping", 1: "pong", 2: "meet", 3: "fail", 4: "publish", 5: "authreq", 6: "authack",
         7: "update", 8: "mfstart", 9: "module", 10: "publishshard"}


class Stream:
    """One direction of one connection: buffers bytes and cuts whole frames out of them."""

    def __init__(self, relay, listen, direction):
        self.relay, self.listen, self.direction, self.buf = relay, listen, direction, b""

    def feed(self, data):
        self.buf += data
        while len(self.buf) >= 8:
            if self.buf[:4] != b"RCmb":
                self.buf = b""  # not a bus stream (or lost sync): stop recording it
                return
            (totlen,) = struct.unpack(">I", self.buf[4:8])
            if len(self.buf) < totlen:
                return
            frame, self.buf = self.buf[:totlen], self.buf[totlen:]
            self.relay.record(frame, self.listen, self.direction)


class Relay:
    def __init__(self, outdir, keep):
        self.outdir, self.keep, self.seq, self.counts = outdir, keep, 0, {}
        os.makedirs(outdir, exist_ok=True)

    def record(self, frame, listen, direction):
        (mtype,) = struct.unpack(">H", frame[12:14]) if len(frame) >= 14 else (99,)
        name = TYPES.get(mtype, "type%d" % mtype)
        key = (name, listen, direction)
        self.counts[key] = self.counts.get(key, 0) + 1
        if self.counts[key] > self.keep:
            return
        self.seq += 1
        path = os.path.join(self.outdir, "%04d-%s-%d-%s.bin" % (self.seq, name, listen, direction))
        with open(path, "wb") as f:
            f.write(frame)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("pairs", nargs="+")
    ap.add_argument("--keep", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=300.0)
    args = ap.parse_args()
    relay = Relay(args.outdir, args.keep)
    sel = selectors.DefaultSelector()
    for pair in args.pairs:
        listen, target = (int(x) for x in pair.split(":"))
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("127.0.0.1", listen))
        ls.listen(16)
        sel.register(ls, selectors.EVENT_READ, ("accept", listen, target))
    deadline = time.time() + args.seconds  # bounded: the relay always ends
    while time.time() < deadline:
        for key, _ in sel.select(timeout=0.5):
            kind = key.data[0]
            if kind == "accept":
                _, listen, target = key.data
                a, _ = key.fileobj.accept()
                try:
                    b = socket.create_connection(("127.0.0.1", target))
                except OSError:
                    a.close()  # the node behind this port is down: refuse like it would
                    continue
                sel.register(a, selectors.EVENT_READ, ("copy", b, Stream(relay, listen, "in")))
                sel.register(b, selectors.EVENT_READ, ("copy", a, Stream(relay, listen, "out")))
                continue
            _, peer, stream = key.data
            try:
                data = key.fileobj.recv(65536)
            except OSError:
                data = b""
            if not data:
                for s in (key.fileobj, peer):
                    try:
                        sel.unregister(s)
                    except (KeyError, ValueError):
                        pass
                    s.close()
                continue
            stream.feed(data)
            peer.sendall(data)


if __name__ == "__main__":
    main()
