#!/usr/bin/env python3
"""HyperLogLog side by side: the same random inputs to redis-tp and Debian's Redis 7.0 must
give the same PFCOUNT estimates and the same stored bytes.

Usage: utils/hll-compare.py [--ours PATH] [--redis PATH] [--trials N] [--max-size N]
                            [--seed S] [--timeout S]
  --ours PATH      server under test (default: src/redis-server in this repository)
  --redis PATH     reference server (default: /usr/bin/redis-server)
  --trials N       random HLLs built on each side (default 60)
  --max-size N     largest number of elements added to one HLL (default 1000000)
  --seed S         random seed (default: from the clock; printed, so a failure can be replayed)
  --timeout S      seconds the whole run may take (default 600)

Method. Both servers run at once (utils/bench/respbench.py: loopback, free ports, persistence
off, no config file). Each trial picks a size log-uniformly in 1..--max-size (the first trials
take the edges: 1, 2, and sizes around the sparse/dense boundary), an hll-sparse-max-bytes
(mostly the default 3000, sometimes 0, 200, 12000) set on both sides, and random elements
(binary, lengths 0..40, with repeats); they are added with pipelined PFADDs of up to 100
elements. Then, on both sides, and compared byte for byte:
  GET (stale cache bit), PFCOUNT, GET again (the cache stored), PFDEBUG ENCODING,
  PFCOUNT of this key with the previous trial's, PFMERGE of the previous trial's key into a
  copy of this one (SET of the GET bytes) and its GET and PFCOUNT.
The total number of elements is bounded (20 million) and the run by --timeout.

Exit status: 0 when everything matched, 1 on a difference or a failure, 2 on bad usage.
"""

import argparse
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from respbench import BenchError, ReplyError, start_pair  # noqa: E402

TOTAL_ELEMENTS_CAP = 20_000_000


def random_elements(rng, n):
    """n elements with repeats: a pool of distinct random byte strings drawn with replacement
    for a quarter of them."""
    out = []
    for _ in range(n):
        if out and rng.random() < 0.25:
            out.append(out[rng.randrange(len(out))])
        else:
            out.append(rng.randbytes(rng.randrange(0, 41)))
    return out


def load(side, key, elements, deadline):
    cmds = [["PFADD", key] + elements[i:i + 100] for i in range(0, len(elements), 100)]
    errors = side.conn.pipeline(cmds, batch=200, deadline=deadline)
    if errors:
        raise BenchError("%s: %d PFADD errors" % (side.name, errors))


def both(ours, redis, *args):
    """Sends one command to each side; returns the two replies (errors as values)."""
    return ours.conn.call(*args), redis.conn.call(*args)


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(here, "src", "redis-server"))
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--max-size", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    if a.trials < 1 or a.max_size < 1:
        ap.error("--trials and --max-size must be positive")
    seed = a.seed if a.seed is not None else int(time.time())
    rng = random.Random(seed)
    print("seed %d" % seed, file=sys.stderr)
    deadline = time.monotonic() + a.timeout

    ours, redis = start_pair(a.ours, a.redis)
    failures = 0
    compared = 0
    total = 0
    try:
        edges = [1, 2, 100, 700, 1500, 3000, 10000]
        previous = None
        for t in range(a.trials):
            if t < len(edges):
                size = min(edges[t], a.max_size)
            else:
                size = int(math.exp(rng.uniform(0, math.log(a.max_size))))
            if total + size > TOTAL_ELEMENTS_CAP:
                print("element cap reached after %d trials" % t, file=sys.stderr)
                break
            total += size
            sparse_max = rng.choice([3000, 3000, 3000, 0, 200, 12000])
            for side in (ours, redis):
                side.call("CONFIG", "SET", "hll-sparse-max-bytes", sparse_max)
            key = "hll:%d" % t
            elements = random_elements(rng, size)
            for side in (ours, redis):
                load(side, key, elements, deadline)
            checks = [("GET", key), ("PFCOUNT", key), ("GET", key), ("PFDEBUG", "ENCODING", key)]
            if previous is not None:
                checks.append(("PFCOUNT", key, previous))
            replies = [both(ours, redis, *cmd) for cmd in checks]
            if previous is not None:
                copy = "copy:%d" % t
                data = replies[0][1]
                for side in (ours, redis):
                    side.call("SET", copy, data)
                for cmd in (("PFMERGE", copy, previous), ("GET", copy), ("PFCOUNT", copy)):
                    checks.append(cmd)
                    replies.append(both(ours, redis, *cmd))
            for cmd, (x, y) in zip(checks, replies):
                compared += 1
                if x != y or isinstance(x, ReplyError):
                    failures += 1
                    print("DIFF trial %d size %d sparse-max %d: %s\n  ours:  %r\n  redis: %r"
                          % (t, size, sparse_max, " ".join(cmd), str(x)[:200], str(y)[:200]))
            print("trial %d: %d elements, sparse-max %d, PFCOUNT %s, %s" %
                  (t, size, sparse_max, replies[1][1], replies[3][1]), file=sys.stderr)
            if previous is not None:
                for side in (ours, redis):
                    side.call("DEL", previous)
            previous = key
            ours.require_alive("trial %d" % t)
    except BenchError as e:
        print("FAILED: %s" % e)
        return 1
    finally:
        ours.stop()
        redis.stop()
    print("%d replies compared over %d elements: %d differences (seed %d)" %
          (compared, total, failures, seed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
