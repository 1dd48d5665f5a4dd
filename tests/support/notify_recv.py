#!/usr/bin/env python3
"""A stand-in for systemd's notification socket, for tests/integration/supervised.tcl.

Binds a unix datagram socket at PATH and appends every datagram it receives to OUT, one line
per datagram with its newlines written as the two characters \\n, until SECONDS have passed
(bounded: it never outlives a test run). Usage: notify_recv.py PATH OUT SECONDS
"""
import os
import socket
import sys
import time


def main():
    path, out, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(0.1)
    # The socket exists: the test may start the server now.
    with open(out, "w") as f:
        f.write("listening\n")
        f.flush()
        end = time.time() + seconds
        while time.time() < end:
            try:
                data = s.recv(65536)
            except socket.timeout:
                continue
            f.write(data.decode(errors="replace").replace("\n", "\\n") + "\n")
            f.flush()
    os.unlink(path)


if __name__ == "__main__":
    main()
