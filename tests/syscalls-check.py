#!/usr/bin/env python3
"""Regression check: ours makes no more reads, writes or epoll_ctl calls per request than Redis.

Usage: tests/syscalls-check.py [SERVER] [--redis PATH] [-n N]
  SERVER        server under test (default: src/redis-server in this repository)
  --redis PATH  reference server (default: /usr/bin/redis-server)
  -n N          requests per row (default 2000)

Each row runs N requests of redis-benchmark on ONE connection (-c 1, so the counts do not
depend on how many clients one loop turn happens to find ready) against both servers, each
under `strace -c -f` (utils/bench-syscalls.py does the measuring), and compares counts, not
times: for each kind that matters per request, read, write (write and writev together),
epoll_ctl and the total, ours must not exceed Redis's by more than 1% + 20 calls (the idle
loop's timer wake-ups and the benchmark's connection set-up differ a little; a regression of the
kind this guards against, an epoll_ctl or an extra read or write per request, adds N). Prints
one [ok]/[err] line per row and kind, or one [skip] line when strace cannot attach (ptrace not
permitted) or is missing, or Redis is missing. Exit status 0 unless a check failed.
"""

import argparse
import importlib.util
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "utils", "bench-syscalls.py")

ROWS = [
    ("ping, -P 1", ["-t", "ping_mbulk"], None, 1),
    ("set, -P 1", ["-t", "set"], None, 1),
    ("get 1 KB, -P 1", ["-t", "get", "-d", "1024"], "get-1k", 1),
    ("lrange 0 99, -P 1", ["lrange", "mylist", "0", "99"], "list", 1),
    ("set, -P 16", ["-t", "set"], None, 16),
    ("incr, -P 16", ["-t", "incr"], None, 16),
    # 16 SETs of 1 KB are a little over 16 KB: one read(2) once the query buffer has grown.
    ("set 1 KB, -P 16", ["-t", "set", "-d", "1024"], None, 16),
]


def load_tool():
    spec = importlib.util.spec_from_file_location("bench_syscalls", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kinds(calls):
    return {
        "read": calls.get("read", 0),
        "write": calls.get("write", 0) + calls.get("writev", 0),
        "epoll_ctl": calls.get("epoll_ctl", 0),
        "total": sum(calls.values()),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server", nargs="?", default=os.path.join(HERE, "..", "src", "redis-server"))
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("-n", type=int, default=2000)
    args = ap.parse_args()
    for need in ("strace", "redis-benchmark"):
        if shutil.which(need) is None:
            print("[skip]: system calls per request against Redis (%s not installed)" % need)
            return 0
    if not os.access(args.redis, os.X_OK):
        print("[skip]: system calls per request against Redis (%s missing)" % args.redis)
        return 0
    tool = load_tool()
    ours, redis = tool.start_pair(os.path.abspath(args.server), args.redis)
    failed = 0
    try:
        for name, bench_args, prep, pipeline in ROWS:
            counts = []
            for side in (ours, redis):
                tool.prepare(side, prep, args.n)
                try:
                    counts.append(kinds(tool.run_strace_row(side, bench_args, args.n, 1,
                                                            pipeline, 120)))
                except tool.BenchError as e:
                    if "could not attach" in str(e):
                        print("[skip]: system calls per request against Redis (%s)" % e)
                        return 0
                    raise
            for kind in ("read", "write", "epoll_ctl", "total"):
                a, b = counts[0][kind], counts[1][kind]
                allowed = b + b // 100 + 20
                ok = a <= allowed
                failed += 0 if ok else 1
                print("[%s]: syscalls %s: %s per %d requests, ours %d, Redis %d (at most %d)"
                      % ("ok" if ok else "err", name, kind, args.n, a, b, allowed))
    finally:
        ours.stop()
        redis.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a server that died, a benchmark that failed: one [err] line
        print("[err]: system calls per request against Redis: %s" % e)
        sys.exit(1)
