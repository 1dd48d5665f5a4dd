#!/usr/bin/env python3
"""Memory per element of the aggregate types, redis-tp against Debian's Redis 7.0.

Usage: utils/bench-memory.py [--ours PATH] [--redis PATH] [--small-keys N] [--big N]
                             [--only REGEX] [--timeout S]
  --ours PATH      server under test (default: src/redis-server in this repository)
  --redis PATH     reference server (default: /usr/bin/redis-server)
  --small-keys N   keys of the "small" workloads, 10 elements each (default 100000)
  --big N          elements of the one key of the "big" workloads (default 1000000)
  --only REGEX     only the workloads whose name matches (re.search), e.g. 'hash|zset'
  --timeout S      seconds one load may take before the run stops (default 300)

Method. Both servers run at once (utils/bench/respbench.py: loopback, free ports, persistence
off, no config file, Redis's default encoding thresholds). Each workload runs on each side in
turn: FLUSHALL, used_memory sampled, the workload loaded with pipelined commands (batches of
1000 requests; big keys get 100 elements per request), the element count checked with the type's
length command, used_memory sampled again. The growth divided by the number of elements (and,
for the small workloads, by the number of keys) is the figure; the key names, field names and
values are the same bytes on both sides, so the ratio compares data structures alone. OBJECT
ENCODING of one key of each workload is printed beside it, since a different encoding is the
usual reason for a different size.

Workloads: small-hash (HSET h:N f0 v0 .. f9 v9), small-intset (SADD s:N with 10 integers),
small-zset (ZADD z:N 10 scores and members), small-list (RPUSH l:N 10 elements), and one key of
--big elements: big-hash, big-set (members element:N), big-intset, big-zset, big-list.

The report is markdown on stdout, also saved as utils/bench-results/memory-<time>.md; progress
goes to stderr. Exit status: 0 when every workload ran on both sides, 1 when a server died or a
load failed (the other workloads still run when a server merely lacks a command), 2 on bad usage.
"""

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from respbench import BenchError, ratio, start_pair  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def small_hash(i):
    args = ["HSET", "h:%d" % i]
    for j in range(10):
        args += ["f%d" % j, "v%d" % (i + j)]
    return args


def small_intset(i):
    return ["SADD", "s:%d" % i] + [i * 10 + j for j in range(10)]


def small_zset(i):
    args = ["ZADD", "z:%d" % i]
    for j in range(10):
        args += [j + 0.5, "m%d" % j]
    return args


def small_list(i):
    return ["RPUSH", "l:%d" % i] + ["e%d" % (i + j) for j in range(10)]


def big(verb, per, element):
    """Commands that put `n` elements into key "big", 100 per command."""

    def commands(n):
        for first in range(0, n, 100):
            args = [verb, "big"]
            for i in range(first, min(n, first + 100)):
                args += element(i)
            yield args

    return commands


# name -> (commands(n_keys or n_elements), is_small, length command, key to check)
WORKLOADS = [
    ("small-hash", lambda n: (small_hash(i) for i in range(n)), True, "HLEN", "h:0"),
    ("small-intset", lambda n: (small_intset(i) for i in range(n)), True, "SCARD", "s:0"),
    ("small-zset", lambda n: (small_zset(i) for i in range(n)), True, "ZCARD", "z:0"),
    ("small-list", lambda n: (small_list(i) for i in range(n)), True, "LLEN", "l:0"),
    ("big-hash", big("HSET", 2, lambda i: ["field:%d" % i, "value:%d" % i]), False, "HLEN",
     "big"),
    ("big-set", big("SADD", 1, lambda i: ["element:%d" % i]), False, "SCARD", "big"),
    ("big-intset", big("SADD", 1, lambda i: [i]), False, "SCARD", "big"),
    ("big-zset", big("ZADD", 2, lambda i: [i, "element:%d" % i]), False, "ZCARD", "big"),
    ("big-list", big("RPUSH", 1, lambda i: ["element:%d" % i]), False, "LLEN", "big"),
]


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def measure(side, name, commands, is_small, length_cmd, probe, count, timeout):
    """Loads one workload into an emptied side. Returns a dict of figures, or one with
    `error` when the side refused the commands (an unimplemented command, say)."""
    side.call("FLUSHALL")
    time.sleep(0.3)
    before = side.used_memory()
    started = time.monotonic()
    errors = side.conn.pipeline(commands(count), batch=1000 if is_small else 50,
                                deadline=started + timeout)
    seconds = time.monotonic() - started
    side.require_alive(name)
    if errors:
        reply = side.conn.call(*next(iter(commands(1))))
        return {"error": "%d error replies, e.g. %s" % (errors, str(reply)[:50])}
    after = side.used_memory()
    keys = count if is_small else 1
    elements = count * 10 if is_small else count
    length = side.call(length_cmd, probe)
    dbsize = side.call("DBSIZE")
    if length != (10 if is_small else count) or dbsize != keys:
        raise BenchError("%s on %s: %s %s is %s and DBSIZE %s, expected %s and %s" %
                         (name, side.name, length_cmd, probe, length, dbsize,
                          10 if is_small else count, keys))
    encoding = side.conn.call("OBJECT", "ENCODING", probe)
    side.call("FLUSHALL")
    return {
        "grown": after - before,
        "per_element": (after - before) / elements,
        "per_key": (after - before) / keys,
        "encoding": encoding.decode() if isinstance(encoding, bytes) else str(encoding),
        "seconds": seconds,
        "elements": elements,
        "keys": keys,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ours", default=os.path.join(ROOT, "src", "redis-server"))
    parser.add_argument("--redis", default="/usr/bin/redis-server")
    parser.add_argument("--small-keys", type=int, default=100000)
    parser.add_argument("--big", type=int, default=1000000)
    parser.add_argument("--only", default="")
    parser.add_argument("--timeout", type=float, default=300)
    opts = parser.parse_args()
    if opts.small_keys < 1 or opts.big < 1 or opts.big > 20000000 or opts.small_keys > 2000000:
        log("bench-memory: --small-keys must be in 1..2000000 and --big in 1..20000000")
        return 2
    chosen = [w for w in WORKLOADS if re.search(opts.only, w[0])]
    if not chosen:
        log("bench-memory: --only '%s' matches no workload" % opts.only)
        return 2

    started_at = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    ours, redis = start_pair(opts.ours, opts.redis)
    results = {}
    versions = {}
    status = 0
    try:
        versions = {s.name: s.info("server").get("redis_version", "?") for s in (ours, redis)}
        for name, commands, is_small, length_cmd, probe in chosen:
            count = opts.small_keys if is_small else opts.big
            for side in (ours, redis):
                log("memory: %s: %s ..." % (side.name, name))
                fig = measure(side, name, commands, is_small, length_cmd, probe, count,
                              opts.timeout)
                results[(name, side.name)] = fig
                if "error" in fig:
                    status = 1
                    log("memory: %s: %s: %s" % (side.name, name, fig["error"]))
                else:
                    log("memory: %s: %s: %.1f B/element, %s, %.1f s" %
                        (side.name, name, fig["per_element"], fig["encoding"], fig["seconds"]))
    except (BenchError, OSError) as e:
        log("bench-memory: %s" % e)
        status = 1
    finally:
        ours.stop()
        redis.stop()

    lines = [
        "# Memory per element: redis-tp vs Redis 7.0",
        "",
        "- date: %s" % started_at,
        "- command: `%s`" % " ".join(sys.argv),
        "- ours: `%s` (redis_version %s)" % (opts.ours, versions.get("ours", "?")),
        "- redis: `%s` (redis_version %s)" % (opts.redis, versions.get("redis", "?")),
        "- small workloads: %d keys of 10 elements; big workloads: 1 key of %d elements" %
        (opts.small_keys, opts.big),
        "",
        "| workload | elements | ours B/element | redis B/element | ratio | ours B/key |"
        " redis B/key | encoding (ours / redis) | load s (ours / redis) |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for name, _, is_small, _, _ in chosen:
        o = results.get((name, "ours"), {"error": "not run"})
        r = results.get((name, "redis"), {"error": "not run"})
        if "error" in o or "error" in r:
            lines.append("| %s | | %s | %s | n/a | | | | |" %
                         (name, o.get("error", "%.1f" % o.get("per_element", 0)),
                          r.get("error", "%.1f" % r.get("per_element", 0))))
            continue
        lines.append("| %s | %d | %.1f | %.1f | %s | %s | %s | %s / %s | %.1f / %.1f |" % (
            name, o["elements"], o["per_element"], r["per_element"],
            ratio(o["per_element"], r["per_element"]),
            "%.0f" % o["per_key"] if is_small else "", "%.0f" % r["per_key"] if is_small else "",
            o["encoding"], r["encoding"], o["seconds"], r["seconds"]))
    lines += ["", "used_memory growth per element (small workloads: key and table entry included, "
              "so B/key is 10 x B/element); ratio = ours / redis, lower is better.", ""]
    report = "\n".join(lines)
    print(report)
    os.makedirs(os.path.join(ROOT, "utils", "bench-results"), exist_ok=True)
    path = os.path.join(ROOT, "utils", "bench-results",
                        "memory-%s.md" % time.strftime("%Y%m%d-%H%M%S"))
    with open(path, "w") as f:
        f.write(report)
    log("bench-memory: report saved to %s" % path)
    return status


if __name__ == "__main__":
    sys.exit(main())
