"""What every part of utils/bench-anchors.py shares: logging, ports, waiting, percentiles."""
import logging
import os
import socket
import sys
import threading
import time

PY = "/usr/bin/python3"  # Debian's python, whose dist-packages hold redis, kazoo and etcd3
SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "bench-anchors.py")

logging.getLogger("kazoo").setLevel(logging.ERROR)  # its reconnect chatter is expected here


def _quiet_closed_channels(args, default=threading.excepthook):
    """python-etcd3's watch thread dies noisily when its client is closed: expected here."""
    if "Channel closed" not in str(args.exc_value):
        default(args)


threading.excepthook = _quiet_closed_channels


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, seconds, what):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if predicate():
                return
        except Exception:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(p / 100.0 * (len(s) - 1)))))]
