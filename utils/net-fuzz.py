#!/usr/bin/env python3
"""Network fuzzer for redis-tp (or any Redis 7.0-compatible server); Python 3 standard library.

Model. The fuzzer starts the server under test on a free loopback port, then runs three kinds
of actor until a time or frame budget is spent:
  - workers (--workers threads) open connection after connection; each connection sends a few
    hostile payloads (bad multibulk and bulk lengths, huge declared sizes, pipelines cut short,
    inline junk, raw binary, nested MULTI/WATCH, valid commands with hostile arguments), reads
    some of what comes back, and ends by a normal close, an abrupt RST (SO_LINGER 0), or by
    just leaving the socket open until the connection budget recycles it;
  - one probe connection sends PING after PING and records each round trip: the maximum is the
    figure to watch (a server stuck in a loop stops answering it);
  - at the end the fuzzer checks the server still answers, sends SIGTERM and measures how long
    the process takes to exit.
It fails (exit 1) if the server dies, the probe gets no PONG for --max-stall seconds, or SIGTERM
does not stop the server within --term-timeout seconds. Everything is bounded: --seconds,
--frames and per-socket timeouts. Commands that would stop, pause or reconfigure the server
(SHUTDOWN, DEBUG, CONFIG SET, CLIENT PAUSE/KILL, REPLICAOF, ...) are never sent.

Usage: utils/net-fuzz.py [--server src/redis-server] [--seconds 30] [--workers 8] [--seed N]
"""
import argparse
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

DENIED = {
    "shutdown", "debug", "config", "client", "replicaof", "slaveof", "sync", "psync",
    "failover", "save", "bgsave", "bgrewriteaof", "module", "acl", "monitor", "cluster",
    "script", "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "function",
    "migrate", "restore", "restore-asking", "wait", "waitaof", "quit", "reset", "hello",
    "auth", "subscribe", "psubscribe", "ssubscribe", "lastsave", "latency", "swapdb",
}
KEYS = [b"k0", b"k1", b"k2", b"{t}a", b"{t}b", b"", b"\x00\xff", b"tk"]
HOSTILE_ARGS = [
    b"0", b"-1", b"1", b"-9223372036854775808", b"9223372036854775807",
    b"9223372036854775808", b"18446744073709551616", b"1e400", b"nan", b"inf", b"-inf",
    b"0x1f", b" 5", b"5 ", b"", b"\r\n", b"\x00", b"*", b"[", b"\\", b"%s%n%x",
    b"EX", b"PX", b"NX", b"XX", b"GET", b"KEEPTTL", b"COUNT", b"MATCH", b"TYPE", b"LIMIT",
    b"FENCE", b"TIMEOUT", b"OVERFLOW", b"FAIL", b"u63", b"i64", b"#0", b"99999999",
    b"x" * 300, b"\xc3\x28" * 20, b"WITHMATCHLEN", b"IDX", b"LEN",
]


def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Payloads:
    """Hostile byte strings; one generator per shape, picked at random."""

    def __init__(self, rng, commands):
        self.rng = rng
        self.commands = commands

    def hostile_command(self):
        r = self.rng
        name = r.choice(self.commands)
        args = [name.encode()]
        for _ in range(r.randrange(0, 7)):
            args.append(r.choice(KEYS) if r.random() < 0.4 else r.choice(HOSTILE_ARGS))
        return resp(*args)

    def bad_multibulk_len(self):
        return self.rng.choice([b"*-5\r\n", b"*abc\r\n", b"*99999999999\r\n", b"*2147483648\r\n",
                                b"*1048577\r\n", b"*\r\n", b"*3\r\n$3\r\nSET\r\n", b"*1\r\n\r\n",
                                b"*+1\r\n$4\r\nPING\r\n", b"* 1\r\n"])

    def bad_bulk_len(self):
        return self.rng.choice([b"*1\r\n$-1\r\n", b"*1\r\n$abc\r\n", b"*2\r\n$3\r\nGET\r\n$x\r\n",
                                b"*1\r\n$99999999999999\r\n", b"*1\r\n%4\r\nPING\r\n",
                                b"*1\r\n$4\r\nPINGPONG\r\n", b"*1\r\n$536870913\r\n",
                                b"*1\r\n$4\nPING\r\n"])

    def huge_declared(self):
        r = self.rng
        n = r.choice([536870912, 100000000, 2000000, 70000, 1 << 30])
        return b"*3\r\n$3\r\nSET\r\n$2\r\nhk\r\n$%d\r\n" % n + b"y" * r.randrange(0, 5000)

    def cut_pipeline(self):
        r = self.rng
        whole = b"".join(self.hostile_command() for _ in range(r.randrange(2, 20)))
        return whole[: r.randrange(1, len(whole))]

    def inline_junk(self):
        r = self.rng
        choice = r.randrange(5)
        if choice == 0:
            return b"SET k \"unbalanced\r\n"
        if choice == 1:
            return b"GET 'a'b\r\n"
        if choice == 2:
            return b"x" * r.choice([100, 65535, 65537, 70000])  # no newline: inline limit
        if choice == 3:
            return b"ECHO \"\\x41\\xzz\\n\" '\\''\r\n\r\n\n\n"
        return bytes(r.choice(b" \"'\\\r\nabcXYZ019\t") for _ in range(r.randrange(1, 200)))

    def binary(self):
        return os.urandom(self.rng.randrange(1, 2000))

    def nested_multi(self):
        r = self.rng
        parts = [b"MULTI", b"MULTI", b"WATCH k0", b"EXEC", b"DISCARD", b"EXEC x", b"UNWATCH",
                 b"SET k0 v", b"INCR k0", b"WATCHEX k1", b"BSETTP tk v 1", b"SETTP tk v"]
        return b"".join(r.choice(parts) + b"\r\n" for _ in range(r.randrange(2, 12)))

    def valid_pipeline(self):
        return b"".join(self.hostile_command() for _ in range(self.rng.randrange(1, 30)))

    def pick(self):
        shapes = [self.bad_multibulk_len, self.bad_bulk_len, self.huge_declared,
                  self.cut_pipeline, self.inline_junk, self.binary, self.nested_multi,
                  self.valid_pipeline, self.valid_pipeline, self.valid_pipeline]
        return self.rng.choice(shapes)()


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.frames = 0
        self.connections = 0
        self.resets = 0
        self.bytes_sent = 0

    def add(self, frames=0, connections=0, resets=0, sent=0):
        with self.lock:
            self.frames += frames
            self.connections += connections
            self.resets += resets
            self.bytes_sent += sent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def connect(port, timeout=2.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def roundtrip(s, data, timeout=5.0):
    """Sends data and reads until one full line arrives; returns the line (b'' if closed)."""
    s.settimeout(timeout)
    s.sendall(data)
    buf = b""
    while not buf.endswith(b"\r\n"):
        chunk = s.recv(65536)
        if not chunk:
            return b""
        buf += chunk
    return buf


def command_names(port):
    """The server's top-level commands (COMMAND LIST), minus the denied ones."""
    s = connect(port)
    s.sendall(resp("COMMAND", "LIST"))
    s.settimeout(5)
    buf = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
        lines = buf.split(b"\r\n")
        if lines and lines[0].startswith(b"*"):
            n = int(lines[0][1:])
            if len(lines) >= 1 + 2 * n:
                break
    s.close()
    lines = buf.split(b"\r\n")
    names = [lines[i].decode() for i in range(2, len(lines), 2) if lines[i - 1].startswith(b"$")]
    return sorted(n for n in names if n.lower() not in DENIED)


def worker(port, seed, stop, stats, frame_budget):
    rng = random.Random(seed)
    payloads = Payloads(rng, COMMANDS)
    while not stop.is_set():
        with stats.lock:
            if stats.frames >= frame_budget:
                return
        try:
            s = connect(port)
        except OSError:
            time.sleep(0.05)
            continue
        stats.add(connections=1)
        try:
            for _ in range(rng.randrange(1, 6)):
                data = payloads.pick()
                s.settimeout(1.0)
                s.sendall(data)
                stats.add(frames=1, sent=len(data))
                if rng.random() < 0.5:
                    s.settimeout(0.05)
                    try:
                        s.recv(1 << 20)
                    except socket.timeout:
                        pass
            end = rng.randrange(3)
            if end == 0:  # abrupt: RST instead of FIN
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                stats.add(resets=1)
            elif end == 1:
                s.shutdown(socket.SHUT_WR)
                s.settimeout(0.2)
                try:
                    while s.recv(1 << 20):
                        pass
                except OSError:
                    pass
        except OSError:
            pass  # the server closed us: expected for protocol errors
        finally:
            s.close()


class Probe(threading.Thread):
    """PING, PING, ... on one connection; records the worst round trip and any stall."""

    def __init__(self, port, stop, max_stall):
        super().__init__(daemon=True)
        self.port, self.stop, self.max_stall = port, stop, max_stall
        self.pings = 0
        self.max_latency = 0.0
        self.failure = None

    def run(self):
        try:
            s = connect(self.port)
            while not self.stop.is_set():
                t0 = time.monotonic()
                try:
                    reply = roundtrip(s, b"PING\r\n", timeout=self.max_stall)
                except socket.timeout:
                    self.failure = "no PONG for %.1f s" % self.max_stall
                    return
                dt = time.monotonic() - t0
                if reply != b"+PONG\r\n":
                    self.failure = "probe got %r" % reply[:80]
                    return
                self.pings += 1
                self.max_latency = max(self.max_latency, dt)
                time.sleep(0.01)
            s.close()
        except OSError as e:
            self.failure = "probe connection failed: %s" % e


COMMANDS = []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default="src/redis-server")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--frames", type=int, default=1000000, help="stop after this many payloads")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--max-stall", type=float, default=5.0)
    ap.add_argument("--term-timeout", type=float, default=5.0)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)

    port = free_port()
    workdir = tempfile.mkdtemp(prefix="redistp-netfuzz.")
    log = os.path.join(workdir, "server.log")
    proc = subprocess.Popen(
        [args.server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--logfile", log, "--dir", workdir],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            s = connect(port)
            ok = roundtrip(s, b"PING\r\n") == b"+PONG\r\n"
            s.close()
            if ok:
                break
        except OSError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            print("net-fuzz: the server did not start (log: %s)" % log)
            proc.kill()
            return 1
        time.sleep(0.05)

    COMMANDS.extend(command_names(port))
    stop = threading.Event()
    stats = Stats()
    probe = Probe(port, stop, args.max_stall)
    probe.start()
    threads = [threading.Thread(target=worker, daemon=True,
                                args=(port, seed + i, stop, stats, args.frames))
               for i in range(args.workers)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    while time.monotonic() - t0 < args.seconds and probe.failure is None:
        if proc.poll() is not None or not any(t.is_alive() for t in threads):
            break
        time.sleep(0.1)
    stop.set()
    for t in threads:
        t.join(timeout=5)
    probe.join(timeout=args.max_stall + 1)
    elapsed = time.monotonic() - t0

    failures = []
    if probe.failure:
        failures.append(probe.failure)
    if proc.poll() is not None:
        failures.append("the server exited during the run (code %s)" % proc.returncode)
    else:
        try:
            s = connect(port)
            if roundtrip(s, b"PING\r\n") != b"+PONG\r\n":
                failures.append("no PONG after the run")
            s.close()
        except OSError as e:
            failures.append("no connection after the run: %s" % e)
    term_s = None
    if proc.poll() is None:
        t_term = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=args.term_timeout)
            term_s = time.monotonic() - t_term
        except subprocess.TimeoutExpired:
            failures.append("SIGTERM did not stop the server within %.0f s" % args.term_timeout)
            proc.kill()
            proc.wait()

    print("net-fuzz: seed %d, %.1f s, %d payloads (%d bytes) over %d connections (%d RST), "
          "%d probe PINGs, max PING latency %.1f ms, SIGTERM exit in %s" % (
              seed, elapsed, stats.frames, stats.bytes_sent, stats.connections, stats.resets,
              probe.pings, probe.max_latency * 1000,
              "%.0f ms" % (term_s * 1000) if term_s is not None else "-"))
    if failures:
        for f in failures:
            print("net-fuzz: FAIL: %s (server log: %s)" % (f, log))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
