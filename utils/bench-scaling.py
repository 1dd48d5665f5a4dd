#!/usr/bin/env python3
"""Scaling check of the aggregate commands: time per operation on a key of 1,000 elements and
on one of 1,000,000, redis-tp beside Debian's Redis 7.0.

Usage: utils/bench-scaling.py [--ours PATH] [--redis PATH] [--small N] [--big N] [--ops N]
                              [--only REGEX] [--timeout S]
  --ours PATH    server under test (default: src/redis-server in this repository)
  --redis PATH   reference server (default: /usr/bin/redis-server)
  --small N      elements of the small keys (default 1000)
  --big N        elements of the big keys (default 1000000)
  --ops N        operations timed per case (default 20000)
  --only REGEX   only the cases whose name matches (re.search), e.g. 'ZRANK|LINDEX'
  --timeout S    seconds one load or one case may take before the run stops (default 300)

Method. For each size, each side gets four keys of that many elements (list L and set S of
"element:i", hash H mapping "element:i" to "value:i", sorted set Z giving "element:i" the
score i), loaded with pipelined commands. Then each case sends --ops requests in pipelined
batches of 100, its arguments drawn from a fixed-seed random stream (the same requests to both
sides), after CONFIG RESETSTAT; the figure is the server's own usec_per_call for the command
(INFO commandstats: the time inside the command, free of network and client noise), with the
client's wall time per request beside it. A case keeps its key's size steady: updates of
existing members (ZADD, HSET), SPOP paired with an SADD of a fresh member, LPUSH paired with an
RPOP (only the timed command's usec_per_call is read).

An O(1) or O(log N) command should cost about as much at 1M as at 1k; a ratio 1M/1k far above
Redis's own ratio for the same case (caches make every big key somewhat slower) points at an
operation that walks the aggregate. The verdict column flags a ratio over 3 and over 3 times
Redis's (runs of Redis against itself on a busy 2-core machine differ by up to 2x).

The report is markdown on stdout, also saved as utils/bench-results/scaling-<time>.md; progress
goes to stderr. Exit status: 0 when every case ran on both sides, 1 when a server died or
refused a command, 2 on bad usage.
"""

import argparse
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from respbench import BenchError, ratio, start_pair  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fill(n):
    """The commands that create L, S, H and Z with n elements each, 100 per command."""
    for first in range(0, n, 100):
        ids = range(first, min(n, first + 100))
        yield ["RPUSH", "L"] + ["element:%d" % i for i in ids]
        yield ["SADD", "S"] + ["element:%d" % i for i in ids]
        args = ["HSET", "H"]
        for i in ids:
            args += ["element:%d" % i, "value:%d" % i]
        yield args
        args = ["ZADD", "Z"]
        for i in ids:
            args += [i, "element:%d" % i]
        yield args


# name, the command whose usec_per_call is read, and the requests of one operation given
# (rng, n = the key's size, k = the operation's index).
CASES = [
    ("LINDEX head", "lindex", lambda r, n, k: [["LINDEX", "L", r.randrange(10)]]),
    ("LINDEX tail", "lindex", lambda r, n, k: [["LINDEX", "L", -1 - r.randrange(10)]]),
    ("LPUSH", "lpush", lambda r, n, k: [["LPUSH", "L", "new:%d" % k], ["RPOP", "L"]]),
    ("ZADD (update a member)", "zadd",
     lambda r, n, k: [["ZADD", "Z", r.randrange(n), "element:%d" % r.randrange(n)]]),
    ("ZRANGE BYSCORE LIMIT 0 10", "zrange",
     lambda r, n, k: [["ZRANGE", "Z", r.randrange(n), "+inf", "BYSCORE", "LIMIT", 0, 10]]),
    ("ZRANGE 0 9 (by rank)", "zrange", lambda r, n, k: [["ZRANGE", "Z", 0, 9]]),
    ("ZRANK", "zrank", lambda r, n, k: [["ZRANK", "Z", "element:%d" % r.randrange(n)]]),
    ("SPOP", "spop", lambda r, n, k: [["SADD", "S", "new:%d" % k], ["SPOP", "S"]]),
    ("HSET (update a field)", "hset",
     lambda r, n, k: [["HSET", "H", "element:%d" % r.randrange(n), "v%d" % k]]),
]


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def usec_per_call(side, command):
    stats = side.info("commandstats").get("cmdstat_" + command, "")
    m = re.search(r"usec_per_call=([0-9.]+)", stats)
    return float(m.group(1)) if m else None


def run_case(side, case, n, ops, timeout):
    """Times one case on one side; returns (usec_per_call, wall us per operation)."""
    name, command, make = case
    rng = random.Random(20261124)  # the same requests on both sides
    commands = [c for k in range(ops) for c in make(rng, n, k)]
    side.call("CONFIG", "RESETSTAT")
    started = time.monotonic()
    errors = side.conn.pipeline(commands, batch=100, deadline=started + timeout)
    wall = (time.monotonic() - started) * 1e6 / ops
    side.require_alive(name)
    if errors:
        raise BenchError("%s: %s: %d error replies, e.g. %s" %
                         (side.name, name, errors, str(side.conn.call(*commands[0]))[:60]))
    return usec_per_call(side, command), wall


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ours", default=os.path.join(ROOT, "src", "redis-server"))
    parser.add_argument("--redis", default="/usr/bin/redis-server")
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--big", type=int, default=1000000)
    parser.add_argument("--ops", type=int, default=20000)
    parser.add_argument("--only", default="")
    parser.add_argument("--timeout", type=float, default=300)
    opts = parser.parse_args()
    if not (100 <= opts.small <= opts.big <= 10000000 and 1 <= opts.ops <= 1000000):
        log("bench-scaling: need 100 <= --small <= --big <= 10000000 and --ops in 1..1000000")
        return 2
    cases = [c for c in CASES if re.search(opts.only, c[0])]
    if not cases:
        log("bench-scaling: --only '%s' matches no case" % opts.only)
        return 2

    started_at = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    ours, redis = start_pair(opts.ours, opts.redis)
    figures = {}  # (case name, size, side) -> (usec_per_call, wall)
    versions = {}
    status = 0
    try:
        versions = {s.name: s.info("server").get("redis_version", "?") for s in (ours, redis)}
        for n in (opts.small, opts.big):
            for side in (ours, redis):
                log("scaling: %s: loading 4 keys of %d elements" % (side.name, n))
                side.call("FLUSHALL")
                started = time.monotonic()
                errors = side.conn.pipeline(fill(n), batch=40, deadline=started + opts.timeout)
                side.require_alive("the load")
                if errors:
                    raise BenchError("%s refused the load (%d errors): %s" %
                                     (side.name, errors,
                                      str(side.conn.call("RPUSH", "L", "x"))[:60]))
                for case in cases:
                    figures[(case[0], n, side.name)] = run_case(side, case, n, opts.ops,
                                                                opts.timeout)
                    log("scaling: %s: %s at %d: %.2f us/call, %.2f us wall" %
                        ((side.name, case[0], n) + figures[(case[0], n, side.name)]))
                side.call("FLUSHALL")
    except (BenchError, OSError) as e:
        log("bench-scaling: %s" % e)
        status = 1
    finally:
        ours.stop()
        redis.stop()

    def cell(name, n, side, which=0):
        f = figures.get((name, n, side))
        return None if f is None or f[which] is None else f[which]

    def fmt(v):
        return "n/a" if v is None else "%.2f" % v

    small, big = opts.small, opts.big
    lines = [
        "# Scaling: time per operation at %d and at %d elements" % (small, big),
        "",
        "- date: %s" % started_at,
        "- command: `%s`" % " ".join(sys.argv),
        "- ours: `%s` (redis_version %s)" % (opts.ours, versions.get("ours", "?")),
        "- redis: `%s` (redis_version %s)" % (opts.redis, versions.get("redis", "?")),
        "- %d operations per case, pipelined 100 deep; us = INFO commandstats usec_per_call" %
        opts.ops,
        "",
        "| case | ours us @%d | ours us @%d | ours ratio | redis us @%d | redis us @%d |"
        " redis ratio | ours/redis @%d | wall us/op @%d (ours / redis) | verdict |" %
        (small, big, small, big, big, big),
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for name, _, _ in cases:
        os_, ob = cell(name, small, "ours"), cell(name, big, "ours")
        rs, rb = cell(name, small, "redis"), cell(name, big, "redis")
        ro, rr = ratio(ob, os_), ratio(rb, rs)
        verdict = "n/a"
        if ro != "n/a" and rr != "n/a":
            # usec_per_call has 0.01 us resolution: tiny figures make noisy ratios, so a case
            # is flagged only when it is also above a microsecond at the big size.
            # Caches and a shared machine move ratios by 2x between runs of the same server;
            # a walk over the aggregate moves them by orders of magnitude.
            bad = float(ro) > 3 and float(ro) > 3 * float(rr) and ob > 1.0
            verdict = "**grows**" if bad else "ok"
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |" % (
            name, fmt(os_), fmt(ob), ro, fmt(rs), fmt(rb), rr, ratio(ob, rb),
            fmt(cell(name, big, "ours", 1)), fmt(cell(name, big, "redis", 1)), verdict))
    lines += ["", "ratio = us at %d / us at %d; lower is better; a flat command stays near 1." %
              (big, small), ""]
    report = "\n".join(lines)
    print(report)
    os.makedirs(os.path.join(ROOT, "utils", "bench-results"), exist_ok=True)
    path = os.path.join(ROOT, "utils", "bench-results",
                        "scaling-%s.md" % time.strftime("%Y%m%d-%H%M%S"))
    with open(path, "w") as f:
        f.write(report)
    log("bench-scaling: report saved to %s" % path)
    return status


if __name__ == "__main__":
    sys.exit(main())
