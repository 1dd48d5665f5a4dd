#!/usr/bin/env bash
# Lock availability across a Sentinel failover, redis-tp beside Redis 7.0, as markdown on stdout.
#
# Each run starts a group of the server under test -- a master, two replicas -- and three of
# Debian's Sentinels (quorum 2, down-after-milliseconds $DOWN_AFTER_MS, the group a test's, on
# free loopback ports), puts a lock holder on the master, waits until both replicas hold its
# key, SIGKILLs the master, and times (monotonic clock, from the kill) how long a client that
# asks Sentinel for the master and retries every 50 ms takes to:
#   - write:   write at all on the new master (the failover itself, the floor of the others);
#   - bsettp:  hold the lock as a BSETTP waiter on the new master (redis-tp: the holder's plain
#              connection key is released after tp-failover-grace-ms on the promoted replica);
#   - resume:  resume the holder's session there (SESSION RESUME: the owner keeps its lock);
#   - set-nx:  take a SET NX PX $LOCK_TTL_MS lock (the classic Redis lock: free once its TTL
#              runs out on the new master), on both servers.
# A step that does not succeed within 60 s is reported as such (with the last error), not as a
# figure. Figures are the median and the spread of $RUNS runs. Comparison points (not measured
# here): a ZooKeeper ephemeral node goes when its session times out (the client's session
# timeout, bounded by 2 and 20 ticks of the server, 4-40 s with the default tickTime of 2 s);
# an etcd lock goes when its lease TTL runs out (etcd's concurrency package: 60 s by default).
# Usage: utils/bench-failover.sh [OUR_BINARY] ; env RUNS (3), DOWN_AFTER_MS (1000),
# LOCK_TTL_MS (10000), REDIS_BINARY (/usr/bin/redis-server).
set -u
cd "$(dirname "$0")/.."
ours=${1:-src/redis-server}
ours=$(cd "$(dirname "$ours")" && pwd)/$(basename "$ours")
export BENCH_OURS=$ours
export BENCH_REDIS=${REDIS_BINARY:-/usr/bin/redis-server}
export RUNS=${RUNS:-3} DOWN_AFTER_MS=${DOWN_AFTER_MS:-1000} LOCK_TTL_MS=${LOCK_TTL_MS:-10000}
exec /usr/bin/python3 - <<'PY'
import os, statistics, subprocess, sys, tempfile, shutil, time
sys.path.insert(0, "tests/clients")
import redis
from redis.sentinel import Sentinel
import sentinel_failover as sf

RUNS = int(os.environ["RUNS"])
DOWN_AFTER = int(os.environ["DOWN_AFTER_MS"])
TTL = int(os.environ["LOCK_TTL_MS"])
LIMIT_S = 60.0


def group_up(binary, workdir):
    g = sf.Group(binary, workdir)
    m = g.start_server("master", [])
    reps = [g.start_server(f"replica{i}", ["--replicaof", "127.0.0.1", str(m)]) for i in (1, 2)]
    for p in reps:
        sf.wait_until("replica sync", lambda p=p: redis.Redis(port=p).info(
            "replication").get("master_link_status") == "up")
    sents = []
    for i in (1, 2, 3):
        port = sf.free_port()
        d = os.path.join(workdir, f"sentinel{i}")
        os.mkdir(d)
        conf = os.path.join(d, "sentinel.conf")
        with open(conf, "w") as f:
            f.write(f"port {port}\nbind 127.0.0.1\ndir {d}\nlogfile {d}/log\n"
                    f"sentinel monitor mymaster 127.0.0.1 {m} 2\n"
                    f"sentinel down-after-milliseconds mymaster {DOWN_AFTER}\n"
                    "sentinel failover-timeout mymaster 10000\n")
        g.procs[f"sentinel{i}"] = subprocess.Popen(
            sf.sentinel_command() + [conf, "--sentinel"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sf.wait_until("sentinel", lambda port=port: redis.Redis(port=port).ping())
        sents.append(port)
    for p in sents:
        sf.wait_until("sentinel discovery", lambda p=p: (
            len(redis.Redis(port=p).sentinel_slaves("mymaster")) == 2 and
            len(redis.Redis(port=p).sentinel_sentinels("mymaster")) == 2))
    return g, m, reps, sents


def retry_on_new_master(sents, old_port, attempt):
    """Calls attempt(client) on whatever master Sentinel names (not the killed one) every 50 ms
    until it returns True; returns (seconds, None) or (None, last error)."""
    sentinel = Sentinel([("127.0.0.1", p) for p in sents], socket_timeout=1)
    t0 = time.monotonic()
    last = "no master other than the killed one"
    while time.monotonic() - t0 < LIMIT_S:
        try:
            host, port = sentinel.discover_master("mymaster")
            if port != old_port:
                c = redis.Redis(host=host, port=port, socket_timeout=LIMIT_S)
                if attempt(c):
                    return time.monotonic() - t0, None
                last = "attempt refused"
        except Exception as e:  # noqa: BLE001 - every failure is retried until the limit
            last = f"{type(e).__name__}: {e}"
        time.sleep(0.05)
    return None, last


def one_run(binary, scenario):
    workdir = tempfile.mkdtemp(prefix="bench-failover-")
    g = None
    try:
        g, m, reps, sents = group_up(binary, workdir)
        holder = redis.Redis(port=m)
        token = None
        if scenario == "bsettp":
            holder.execute_command("SETTP", "lock", "holder")
            key = "lock"
        elif scenario == "resume":
            token = holder.execute_command("SESSION", "OPEN", 60000)
            holder.execute_command("SETTP", "slock", "holder")
            key = "slock"
        elif scenario == "write":
            holder.set("plain", "before")
            key = "plain"
        else:
            holder.set("nxlock", "holder", nx=True, px=TTL)
            key = "nxlock"
        for p in reps:
            sf.wait_until("replicas hold the lock",
                          lambda p=p: redis.Redis(port=p).exists(key) == 1, seconds=10)
        g.kill("master")
        if scenario == "bsettp":
            attempt = lambda c: c.execute_command("BSETTP", "lock", "waiter", LIMIT_S) == 1
        elif scenario == "resume":
            def attempt(c):
                c.execute_command("SESSION", "RESUME", token)
                return c.get("slock") == b"holder"
        elif scenario == "write":
            attempt = lambda c: c.set("plain", "after") is True
        else:
            attempt = lambda c: c.set("nxlock", "waiter", nx=True, px=TTL) is True
        return retry_on_new_master(sents, m, attempt)
    except Exception as e:  # noqa: BLE001
        return None, f"setup: {type(e).__name__}: {e}"
    finally:
        if g is not None:
            g.close()
        shutil.rmtree(workdir, ignore_errors=True)


rows = []
for label, binary, scenarios in (("redis-tp", os.environ["BENCH_OURS"], ("write", "bsettp", "resume", "set-nx")),
                                 ("Redis 7.0", os.environ["BENCH_REDIS"], ("write", "set-nx"))):
    for sc in scenarios:
        times, err = [], None
        for _ in range(RUNS):
            t, e = one_run(binary, sc)
            if t is None:
                err = e
                break
            times.append(t)
        rows.append((label, sc, times, err))

what = {"write": "a write succeeds on the promoted replica (the failover itself)",
        "bsettp": "BSETTP waiter holds the lock (holder's connection key released after the grace)",
        "resume": "session owner resumes its lock (SESSION RESUME)",
        "set-nx": f"SET NX PX {TTL} lock taken by a waiter"}
print(f"## Lock availability across a Sentinel failover\n")
print(f"Three servers, three sentinels (quorum 2, down-after-milliseconds {DOWN_AFTER}); "
      f"time from the master's SIGKILL, median of {RUNS} runs (min-max).\n")
print("| server | what | time from SIGKILL |")
print("| --- | --- | --- |")
for label, sc, times, err in rows:
    if err is not None and err.startswith("setup"):
        cell = f"could not run ({err})"
    elif err is not None:
        cell = f"not reached in {LIMIT_S:.0f} s ({err})"
    else:
        cell = (f"{statistics.median(times):.2f} s ({min(times):.2f}-{max(times):.2f})")
    print(f"| {label} | {what[sc]} | {cell} |")
print("\nComparison points (configured, not measured): ZooKeeper releases an ephemeral-node lock "
      "when the holder's session times out (client-chosen, bounded by 2-20 server ticks: 4-40 s "
      "with the default tickTime of 2 s); etcd releases a lock when its lease TTL runs out "
      "(the concurrency package's default session TTL is 60 s).")
PY
