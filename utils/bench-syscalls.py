#!/usr/bin/env python3
"""System calls per request, redis-tp against Debian's Redis 7.0, per redis-benchmark row.

Usage: utils/bench-syscalls.py [--ours PATH] [--redis PATH] [-n N] [--clients LIST]
                               [--pipelines LIST] [--only REGEX] [--kinds LIST] [--timeout S]
  --ours PATH       server under test (default: src/redis-server in this repository)
  --redis PATH      reference server (default: /usr/bin/redis-server)
  -n N              requests per row (default 20000)
  --clients LIST    redis-benchmark -c values, comma separated (default 1,50)
  --pipelines LIST  redis-benchmark -P values, comma separated (default 1,16)
  --only REGEX      only the rows whose name matches (re.search), e.g. '^(set|get)$'
  --kinds LIST      system calls with a column of their own (default
                    read,write,writev,epoll_wait,epoll_ctl); the rest are summed in "other"
  --timeout S       seconds one row may take before the run stops (default 120)

Why counts. The machine is shared, so CPU time per request swings from run to run; the number
of system calls a server makes for a fixed number of requests does not (only the idle loop's
timer wake-ups and the connection set-up of the benchmark's clients are added, a few dozen per
row, the same for both servers). Each system call costs a kernel entry and exit, so a server
that makes more of them per request spends more CPU per request.

Method. Both servers run at once (utils/bench/respbench.py: loopback, free ports, persistence
off). For each row and each side: FLUSHALL, the row's keys prepared (the LRANGE rows need a
600-element list, SPOP a set of N members), then `strace -c -f -p <pid>` is attached to every
thread of the server, redis-benchmark runs the row's N requests (`-t <test>` for its own tests,
or a command line of its own), strace is stopped with SIGINT and its summary read. The figure is
calls of each kind divided by N. The LRANGE and SPOP rows use a command line (redis-benchmark's
own lrange test first fills the list in the same run, which would mix two workloads).

Output: one markdown table on stdout, a row per (test, -c, -P), both sides, the ratio of the
totals (ours / redis); progress on stderr. Exit status: 0 when every row ran on both sides, 1
when a side failed (strace could not attach, a server died, redis-benchmark failed), 2 on bad
usage. Without ptrace permission strace cannot attach: the script says so and exits 1.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from respbench import BenchError, start_pair  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# (row name, redis-benchmark arguments after the common ones, preparation)
ROWS = [
    ("set", ["-t", "set"], None),
    ("get", ["-t", "get"], None),
    ("set-1k", ["-t", "set", "-d", "1024"], None),
    ("get-1k", ["-t", "get", "-d", "1024"], "get-1k"),
    ("incr", ["-t", "incr"], None),
    ("lpush", ["-t", "lpush"], None),
    ("rpop", ["-t", "rpop"], "list"),
    ("sadd", ["-t", "sadd"], None),
    ("hset", ["-t", "hset"], None),
    ("zadd", ["-t", "zadd"], None),
    ("mset", ["-t", "mset"], None),
    ("spop", ["spop", "myset"], "set"),
    ("lrange_100", ["lrange", "mylist", "0", "99"], "list"),
    ("lrange_600", ["lrange", "mylist", "0", "599"], "list"),
]


def prepare(side, what, n):
    side.call("FLUSHALL")
    if what == "list":
        for i in range(0, 600, 100):
            side.call("RPUSH", "mylist", *["element:%d" % j for j in range(i, i + 100)])
        # RPOP must find elements for every request: N of them at most (plus the 600 above).
        for i in range(0, n, 1000):
            side.call("RPUSH", "mylist", *["x"] * min(1000, n - i))
    elif what == "set":
        for i in range(0, n, 1000):
            side.call("SADD", "myset", *["m:%d" % j for j in range(i, min(n, i + 1000))])
    elif what == "get-1k":
        side.call("SET", "key:__rand_int__", "x" * 1024)


def run_strace_row(side, bench_args, n, c, p, timeout):
    """Calls per kind (a dict) made by `side` while redis-benchmark runs one row."""
    out = os.path.join(side.dir, "strace.out")
    if os.path.exists(out):
        os.unlink(out)
    st = subprocess.Popen(["strace", "-c", "-f", "-o", out, "-p", str(side.proc.pid)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # strace reports each attached thread on stderr; the first line means it is attached.
    line = st.stderr.readline()
    if "attached" not in line:
        st.kill()
        st.wait()
        raise BenchError("%s: strace could not attach (ptrace not permitted?): %s"
                         % (side.name, line.strip() or "no output"))
    time.sleep(0.2)  # the other threads' attach lines follow at once
    cmd = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(side.port), "-n", str(n),
           "-c", str(c), "-P", str(p), "-q"] + bench_args
    try:
        bench = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=timeout)
    finally:
        st.send_signal(signal.SIGINT)
        try:
            st.wait(timeout=30)
        except subprocess.TimeoutExpired:
            st.kill()
            st.wait()
    if bench.returncode != 0 or "ERR" in bench.stdout:
        raise BenchError("%s: redis-benchmark failed: %s" % (side.name, bench.stdout[-300:]))
    side.require_alive("the row")
    return parse_summary(out)


def parse_summary(path):
    """strace -c's table as {syscall: calls}."""
    calls = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            # % time, seconds, usecs/call, calls, [errors], syscall
            if len(parts) < 5 or not re.match(r"^\d+\.\d+$", parts[0]) or parts[-1] == "total":
                continue
            calls[parts[-1]] = int(parts[3])
    return calls


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument("--ours", default=os.path.join(HERE, "..", "src", "redis-server"))
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("-n", type=int, default=20000)
    ap.add_argument("--clients", default="1,50")
    ap.add_argument("--pipelines", default="1,16")
    ap.add_argument("--only", default="")
    ap.add_argument("--kinds", default="read,write,writev,epoll_wait,epoll_ctl")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()  # exits 2 on bad usage
    try:
        clients = [int(x) for x in args.clients.split(",")]
        pipelines = [int(x) for x in args.pipelines.split(",")]
    except ValueError:
        return 2
    if args.n <= 0:
        return 2
    kinds = args.kinds.split(",")
    # A SIGTERM unwinds through the finally below, so both servers are stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    ours, redis = start_pair(os.path.abspath(args.ours), args.redis)
    failed = False
    print("System calls per request, N=%d per row (strace -c -f on each server)\n" % args.n)
    head = ["row", "-c", "-P"]
    for side in ("ours", "redis"):
        head += ["%s %s" % (side, k) for k in kinds] + ["%s other" % side, "%s total" % side]
    head.append("ours/redis")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * 3 + "---:|" * (len(head) - 3))
    try:
        for name, bench_args, prep in ROWS:
            if args.only and not re.search(args.only, name):
                continue
            for c in clients:
                for p in pipelines:
                    cells = [name, str(c), str(p)]
                    totals = []
                    for side in (ours, redis):
                        print("%s -c %d -P %d on %s" % (name, c, p, side.name), file=sys.stderr)
                        try:
                            prepare(side, prep, args.n)
                            calls = run_strace_row(side, bench_args, args.n, c, p,
                                                   args.timeout)
                        except BenchError as e:
                            print(str(e), file=sys.stderr)
                            failed = True
                            cells += ["-"] * (len(kinds) + 2)
                            totals.append(None)
                            continue
                        other = sum(v for k, v in calls.items() if k not in kinds)
                        total = sum(calls.values())
                        cells += ["%.3f" % (calls.get(k, 0) / args.n) for k in kinds]
                        cells += ["%.3f" % (other / args.n), "%.3f" % (total / args.n)]
                        totals.append(total)
                    ok = None not in totals and totals[1] > 0
                    cells.append("%.2f" % (totals[0] / totals[1]) if ok else "n/a")
                    print("| " + " | ".join(cells) + " |", flush=True)
    finally:
        ours.stop()
        redis.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as e:
        print(str(e), file=sys.stderr)
        sys.exit(1)
