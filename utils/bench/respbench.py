"""Shared ground of the Python benchmarks (bench-memory.py, bench-scaling.py).

Model. A benchmark compares two servers, "ours" and "redis", started here side by side: each
listens on 127.0.0.1 only, on a port nothing else was using, with `--save "" --appendonly no`,
its own scratch directory and no configuration file. A Side owns its process and one plain TCP
connection speaking RESP2. Commands are sent in pipelined batches (a batch is written at once,
then exactly as many replies are read), so a load of a million elements takes seconds.

Invariants: every socket read has a timeout and every load a deadline, so a wedged server
becomes an error (BenchError) rather than a hang; every process started here is stopped by
Side.stop(), which the scripts call in a `finally`. Nothing here prints: the scripts report.
"""

import os
import random
import shutil
import socket
import subprocess
import tempfile
import time


class BenchError(Exception):
    """A server died, did not start, answered an error, or a step ran out of time."""


class ReplyError(str):
    """A RESP error reply, kept as a value so a batch can count them."""


def encode(args):
    """One request as a RESP array of bulk strings (args: str, bytes, int or float)."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, (int, float)):
            a = str(a).encode()
        elif isinstance(a, str):
            a = a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Connection:
    """A blocking RESP2 connection with a read timeout on every receive."""

    def __init__(self, port, timeout=60.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0

    def close(self):
        self.sock.close()

    def _fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise BenchError("the server closed the connection")
        if self.pos > (1 << 20):
            del self.buf[: self.pos]
            self.pos = 0
        self.buf += chunk

    def _line(self):
        while True:
            end = self.buf.find(b"\r\n", self.pos)
            if end >= 0:
                line = bytes(self.buf[self.pos : end])
                self.pos = end + 2
                return line
            self._fill()

    def read_reply(self):
        """Reads one reply: int, bytes, None, list, str (status) or ReplyError."""
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return ReplyError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) - self.pos < n + 2:
                self._fill()
            data = bytes(self.buf[self.pos : self.pos + n])
            self.pos += n + 2
            return data
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read_reply() for _ in range(n)]
        raise BenchError("unexpected RESP line %r" % line[:40])

    def call(self, *args):
        self.sock.sendall(encode(args))
        return self.read_reply()

    def pipeline(self, commands, batch=1000, deadline=None):
        """Sends `commands` (an iterable of argument lists) in batches of `batch`, reads every
        reply and returns the number of error replies. Raises BenchError past `deadline`
        (a time.monotonic() value)."""
        errors = 0
        pending = []
        for cmd in commands:
            pending.append(encode(cmd))
            if len(pending) == batch:
                errors += self._flush(pending, deadline)
                pending = []
        if pending:
            errors += self._flush(pending, deadline)
        return errors

    def _flush(self, pending, deadline):
        if deadline is not None and time.monotonic() > deadline:
            raise BenchError("the load did not finish in time")
        self.sock.sendall(b"".join(pending))
        errors = 0
        for _ in pending:
            if isinstance(self.read_reply(), ReplyError):
                errors += 1
        return errors


def free_port(taken):
    """A loopback port in 20000-59999 that nothing listens on and `taken` does not hold."""
    for _ in range(200):
        port = random.randint(20000, 59999)
        if port in taken:
            continue
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise BenchError("no free loopback port")


class Side:
    """One server process of the comparison and a connection to it."""

    def __init__(self, name, binary, extra_args=()):
        self.name = name
        self.binary = binary
        self.extra_args = list(extra_args)
        self.proc = None
        self.dir = None
        self.port = None
        self.conn = None

    def start(self, taken_ports=()):
        """Starts the server and waits (10 s at most) until it answers PING."""
        if not os.access(self.binary, os.X_OK):
            raise BenchError("%s: '%s' is not an executable" % (self.name, self.binary))
        self.dir = tempfile.mkdtemp(prefix="bench-%s." % self.name)
        for _ in range(5):
            self.port = free_port(set(taken_ports))
            log = open(os.path.join(self.dir, "server.log"), "wb")
            self.proc = subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", self.dir] + self.extra_args,
                cwd=self.dir, stdout=log, stderr=subprocess.STDOUT)
            log.close()
            for _ in range(100):
                if self.proc.poll() is not None:
                    break
                try:
                    self.conn = Connection(self.port)
                    if self.conn.call("PING") == "PONG":
                        return
                except OSError:
                    self.conn = None
                time.sleep(0.1)
            if self.proc.poll() is None:
                self.stop()
                raise BenchError("%s did not answer PING within 10 s" % self.name)
            if b"already in use" not in open(os.path.join(self.dir, "server.log"), "rb").read():
                raise BenchError("%s exited at start: %s" % (self.name, self.log_tail()))
        raise BenchError("%s: no port could be bound" % self.name)

    def log_tail(self, lines=10):
        try:
            with open(os.path.join(self.dir, "server.log"), "rb") as f:
                return b"\n".join(f.read().splitlines()[-lines:]).decode(errors="replace")
        except OSError:
            return "(no log)"

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def require_alive(self, step):
        if not self.alive():
            raise BenchError("%s died during %s:\n%s" % (self.name, step, self.log_tail()))

    def call(self, *args):
        reply = self.conn.call(*args)
        if isinstance(reply, ReplyError):
            raise BenchError("%s: %s -> %s" % (self.name, " ".join(map(str, args)), reply))
        return reply

    def info(self, section):
        """INFO `section` as a dict of field -> text."""
        text = self.call("INFO", section).decode()
        out = {}
        for line in text.splitlines():
            if ":" in line and not line.startswith("#"):
                k, v = line.split(":", 1)
                out[k] = v
        return out

    def used_memory(self):
        return int(self.info("memory")["used_memory"])

    def stop(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass
            self.conn = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


def start_pair(ours, redis):
    """Starts ours and Redis; returns the two Sides (stops both if either fails)."""
    a = Side("ours", ours)
    b = Side("redis", redis)
    try:
        a.start()
        b.start(taken_ports=(a.port,))
    except BenchError:
        a.stop()
        b.stop()
        raise
    return a, b


def ratio(a, b):
    return "n/a" if a is None or b in (None, 0) else "%.2f" % (a / b)
