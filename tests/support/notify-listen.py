#!/usr/bin/env python3
"""The service manager's end of sd_notify(3), for tests/service-check.sh.

Binds a datagram socket at PATH (writable by any user, as the server runs as another one) and
appends each line of each message it receives to LOG, flushed at once. Exits after 120 s without
a message (the test kills it sooner).

Usage: notify-listen.py PATH LOG
"""
import os
import socket
import sys


def main():
    path, log = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path + ".tmp")
    os.chmod(path + ".tmp", 0o666)
    os.rename(path + ".tmp", path)  # the test waits for PATH: it exists only once bound
    sock.settimeout(120)
    with open(log, "a", buffering=1) as out:
        while True:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                return
            for line in data.decode(errors="replace").splitlines():
                out.write(line + "\n")


if __name__ == "__main__":
    main()
