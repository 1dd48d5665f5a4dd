"""A small RESP2/RESP3 client for utils/soak (Python 3 standard library only).

Conn sends commands and reads replies of either protocol; a RESP3 push frame met while reading a
reply is kept aside (Conn.pushes), and a read that times out in the middle of a frame leaves the
buffer as it was, so readers can poll with short timeouts.
"""
import collections
import socket
import time


# ---- RESP client -----------------------------------------------------------------------------

class RespError(Exception):
    """An error reply (-ERR ...), raised by Conn.call."""


class Push(list):
    """A RESP3 push frame (>): WATCHEX events, Pub/Sub messages in RESP3."""


def encode(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if not isinstance(a, bytes):
            a = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    """One connection: send commands, read replies (RESP2 or RESP3). Push frames met while
    reading a reply are kept in `pushes` as (monotonic time, Push)."""

    def __init__(self, port, timeout=10.0, resp3=False):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0
        self.pushes = collections.deque()
        if resp3:
            self.call("HELLO", "3")

    def settimeout(self, t):
        self.sock.settimeout(t)

    def send(self, *args):
        self.sock.sendall(encode(args))

    def send_many(self, commands):
        self.sock.sendall(b"".join(encode(c) for c in commands))

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("connection closed by the server")
        self.buf += data

    def _frame(self):
        """One whole frame. A timeout in the middle leaves the buffer as it was, so the next
        read starts the frame again (readers poll with short timeouts)."""
        if self.pos > 65536:
            del self.buf[:self.pos]
            self.pos = 0
        start = self.pos
        try:
            return self._parse()
        except socket.timeout:
            self.pos = start
            raise

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n", self.pos)
            if i >= 0:
                line = bytes(self.buf[self.pos:i])
                self.pos = i + 2
                return line
            self._fill()

    def _bytes(self, n):
        while len(self.buf) - self.pos < n + 2:
            self._fill()
        data = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n + 2
        return data

    def _parse(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode("latin1")
        if t == b"-":
            return RespError(rest.decode("latin1"))
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._bytes(n)
        if t in (b"*", b">", b"~"):
            n = int(rest)
            if n < 0:
                return None
            items = [self._parse() for _ in range(n)]
            return Push(items) if t == b">" else items
        if t == b"%":
            n = int(rest)
            return [self._parse() for _ in range(2 * n)]
        if t == b"_":
            return None
        if t == b",":
            return float(rest)
        if t == b"#":
            return rest == b"t"
        if t == b"(":
            return int(rest)
        if t in (b"=", b"!"):
            return self._bytes(int(rest))
        if t == b"|":  # an attribute: skip it, the reply follows
            n = int(rest)
            for _ in range(2 * n):
                self._parse()
            return self._parse()
        raise ConnectionError("bad RESP type byte %r" % t)

    def read(self):
        """The next reply (an error reply is returned, not raised); pushes are set aside."""
        while True:
            r = self._frame()
            if isinstance(r, Push):
                self.pushes.append((time.monotonic(), r))
                continue
            return r

    def read_any(self):
        """The next frame, push or reply."""
        return self._frame()

    def call(self, *args):
        self.send(*args)
        r = self.read()
        if isinstance(r, RespError):
            raise r
        return r

    def reset(self):
        """Closes with an RST (SO_LINGER 0): a client that vanished."""
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        except OSError:
            pass
        self.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
