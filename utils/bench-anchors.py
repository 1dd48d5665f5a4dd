#!/usr/bin/python3
"""Locks, hand-offs, resumes and watches: redis-tp side by side with the anchors, in one run.

The anchors are what people use for coordination today: ZooKeeper 3.8 (Debian's zookeeperd,
client python3-kazoo with its Lock recipe), etcd 3.4 (etcd-server, client python3-etcd3 with
its lock) and Redis 7.0.15 with a TTL lock (redis-py's Lock: SET NX PX, a Lua compare-and-delete
release, polling every 0.1 s while it waits). redis-tp is driven by redis-py too (BSETTP/DELTP,
SESSION, the `__watchex` channels), so every column is a python client on the same machine:
like is compared with like, and the client's own cost is in every figure alike. (The C load
tool utils/coord-bench measures the servers without a python client in the way:
utils/bench-coordination.sh.)

Every server is started here, on 127.0.0.1 and free ports, in a private scratch directory, and
stopped at the end: two ZooKeepers (Debian's zoo.cfg timing, tickTime 2000 ms, so sessions of
4-40 s; and tickTime 200 ms, the most aggressive configuration we run, sessions from 400 ms;
both with maxClientCnxns=0 so that 1,000 watchers may connect), one etcd (its defaults: the
server raises a lease TTL below its minimum to that minimum), Debian's Redis and ours.

Measured (p50 / p99 unless said; "ratio" is the best anchor's figure over ours for latencies
and ours over the best anchor's for rates, so above 1 means redis-tp is ahead):
 1. uncontended acquire + release of a free lock;
 2. clean hand-off: a waiter is queued (0.3 s to settle), the holder releases; from just before
    the release call to the waiter's acquire returning;
 3. hand-off after SIGKILL of the holder's process (a child process that took the lock), from
    just before the kill to the waiter's acquire returning; each anchor at its defaults (kazoo
    session 10 s, etcd3 lock TTL 60 s, Redis PX 30000 as Redisson's default lease) and at the
    most aggressive timeout it accepts (ZooKeeper tickTime 200 with a 400 ms session, etcd TTL 1
    as requested, Redis PX 1000); ours plain and with a session (grace 10000 ms in the defaults
    row, 0 ms in the aggressive one: a session keeps a dead holder's lock for its grace, by design);
 4. resume after a 1 s blip: every client talks through a TCP proxy here which drops every
    connection and refuses new ones for 1 s; from the end of the blip until the holder knows it
    still holds its lock (ours: a command that reconnects and runs SESSION RESUME; ZooKeeper:
    kazoo back in CONNECTED with its session; etcd: the lock's lease refreshed; Redis: the TTL
    lock's PEXPIRE renewal). The application retries every 10 ms; each library's own reconnect
    back-off is part of the figure;
 5. watch fan-out: W watcher connections (W = 100, 1,000) on one key, a writer that creates and
    deletes it; from just before the write to each watcher's callback (kazoo exists-watch re-armed
    on each event; etcd3 add_watch_callback; Redis SUBSCRIBE __keyspace@0__:<key>; ours
    SUBSCRIBE __watchex@0__:<key>), over every (change, watcher) pair;
 6. lock cycles per second (acquire, release) with 1 and 8 client processes on one lock.

Usage: utils/bench-anchors.py [--quick] [--ours PATH] [--redis PATH] [--only LIST] [--out FILE]
  --quick   fewer samples, the anchors' default-timeout rows skipped: about 2 minutes
  --only    comma-separated parts: uncontended,handoff,kill,blip,fanout,cycles
Markdown goes to stdout (and --out); progress to stderr. Not part of make test: it needs
zookeeperd, etcd-server, python3-kazoo and python3-etcd3 (deps/install-deps.sh --bench).
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

import redis

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench_anchors.clients import parse_spec  # noqa: E402
from bench_anchors.common import log, percentile  # noqa: E402
from bench_anchors.measure import (child_main, measure_blip, measure_clean_handoff,  # noqa: E402
                                   measure_cycles, measure_fanout, measure_kill_handoff,
                                   measure_uncontended)
from bench_anchors.servers import Servers  # noqa: E402


# ---- the report ---------------------------------------------------------------------------------

def fmt_s(x):
    if x >= 1.0:
        return f"{x:.2f} s"
    if x >= 0.001:
        return f"{x * 1000:.2f} ms" if x < 0.01 else f"{x * 1000:.1f} ms"
    return f"{x * 1e6:.0f} µs"


def cell(samples):
    if samples is None:
        return "—"
    if isinstance(samples, str):
        return samples
    return f"{fmt_s(percentile(samples, 50))} / {fmt_s(percentile(samples, 99))}"


COLUMNS = ["ours", "ours+session", "zk", "etcd", "redis"]
HEADS = {"ours": "redis-tp", "ours+session": "redis-tp, session", "zk": "ZooKeeper 3.8",
         "etcd": "etcd 3.4", "redis": "Redis 7.0 (TTL lock)"}


def ratio(row, rate=False):
    def val(c):
        v = row.get(c)
        if isinstance(v, tuple):
            v = v[0]
        if v is None or isinstance(v, str):
            return None
        return v if rate else percentile(v, 50)
    anchors = [val(c) for c in ("zk", "etcd", "redis") if val(c) is not None]
    ours = [val(c) for c in ("ours", "ours+session") if val(c) is not None]
    if not anchors or not ours:
        return "—"
    if rate:
        return f"{max(ours) / max(anchors):.1f}×"
    return f"{min(anchors) / min(ours):.0f}×" if min(anchors) / min(ours) >= 10 else \
        f"{min(anchors) / min(ours):.2f}×"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--ours", default=os.path.join(ROOT, "build/release/redis-server"))
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--only", default="uncontended,handoff,kill,blip,fanout,cycles")
    ap.add_argument("--out")
    ap.add_argument("--anchor-watchers-max", type=int, default=100,
                    help="largest fan-out run with kazoo/etcd3 clients (default 100: 1,000 "
                         "python ZooKeeper clients drove this 2-core machine's load to 195)")
    ap.add_argument("--child", nargs=4)
    a = ap.parse_args()
    if a.child:
        return child_main(a.child[0], parse_spec(a.child[1]), a.child[2], a.child[3])
    try:
        import etcd3  # noqa: F401
        import kazoo  # noqa: F401
        ok = shutil.which("etcd") and os.path.exists("/usr/share/java/zookeeper.jar")
    except ImportError:
        ok = False
    if not ok:
        log("installing the anchors (deps/install-deps.sh --bench) ...")
        subprocess.run([os.path.join(ROOT, "deps/install-deps.sh"), "--bench"], check=True)
    parts = set(a.only.split(","))
    q = a.quick
    n_unc, n_ho, n_kill, n_kill_def, n_blip = (50, 10, 5, 0, 2) if q else (1000, 50, 15, 2, 8)
    fan_sizes, fan_changes = ([100], 6) if q else ([100, 1000], 20)
    cyc_s = 3 if q else 8
    started = time.time()
    load_before = os.getloadavg()

    def stop_on_signal(signum, frame):
        raise SystemExit(128 + signum)  # unwinds through `finally`, which stops the servers
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGINT, stop_on_signal)
    srv = Servers(a.ours, a.redis)
    rows = []  # (label, {column: samples or rate or text}, rate?)
    try:
        log("starting servers ...")
        ours_port = srv.start_redis_like("ours", a.ours)
        redis_port = srv.start_redis_like("redis", a.redis)
        zk_def = srv.start_zookeeper("zk-default", 2000)
        zk_fast = srv.start_zookeeper("zk-fast", 200)
        etcd_port = srv.start_etcd()
        has_session = True
        try:
            r = redis.Redis(port=ours_port)
            r.execute_command("SESSION", "OPEN", 0)
            r.close()
        except redis.ResponseError:
            has_session = False
            log("our server has no SESSION command: the session column is left empty")

        ours = {"kind": "ours", "port": ours_port}
        ours_s = lambda g: dict(ours, grace=g) if has_session else None  # noqa: E731
        zk = lambda s, port=zk_def: {"kind": "zk", "port": port, "session_s": s}  # noqa: E731
        etcd = lambda ttl: {"kind": "etcd", "port": etcd_port, "ttl": ttl}  # noqa: E731
        red = lambda px: {"kind": "redis", "port": redis_port, "px": px}  # noqa: E731
        typical = {"ours": ours, "ours+session": ours_s(10000), "zk": zk(10.0),
                   "etcd": etcd(60), "redis": red(30000)}

        def run_row(label, specs, fn, *args, rate=False):
            row = {}
            for col, spec in specs.items():
                if spec is None:
                    continue
                log(f"{label}: {col} ...")
                try:
                    row[col] = fn(spec, *args)
                except Exception as e:  # a failing system is reported in its cell, not hidden
                    log(f"  {col} failed: {e!r}")
                    row[col] = f"failed: {type(e).__name__}"
            rows.append((label, row, rate))

        if "uncontended" in parts:
            run_row(f"uncontended acquire + release ({n_unc}×)", typical, measure_uncontended,
                    n_unc)
        if "handoff" in parts:
            run_row(f"clean hand-off to a queued waiter ({n_ho}×)", typical,
                    measure_clean_handoff, n_ho)
        if "kill" in parts:
            if n_kill_def:
                run_row(f"hand-off after SIGKILL of the holder, anchors at defaults ({n_kill_def}×; "
                        "ZK session 10 s, etcd TTL 60 s, PX 30000; session grace 10 s)",
                        {"ours": ours, "ours+session": ours_s(10000), "zk": zk(10.0),
                         "etcd": etcd(60), "redis": red(30000)},
                        measure_kill_handoff, n_kill_def)
            run_row(f"hand-off after SIGKILL of the holder, most aggressive timeouts ({n_kill}×; "
                    "ZK tickTime 200 + session 0.4 s, etcd TTL 1, PX 1000; session grace 0)",
                    {"ours": ours, "ours+session": ours_s(0), "zk": zk(0.4, zk_fast),
                     "etcd": etcd(1), "redis": red(1000)},
                    measure_kill_handoff, n_kill)
        if "blip" in parts:
            run_row(f"holder confirms its lock after a 1 s blip ({n_blip}×)",
                    {"ours": "lost (no session)", "ours+session": ours_s(10000),
                     "zk": zk(10.0), "etcd": etcd(60), "redis": red(30000)},
                    lambda spec, n: spec if isinstance(spec, str) else measure_blip(spec, n),
                    n_blip)
        # Cycles before fan-out: fan-out's hundreds of python clients take a while to wind
        # down, and would otherwise weigh on the rows measured after it.
        if "cycles" in parts:
            for n in (1, 8):
                run_row(f"lock cycles per second, {n} client process{'es' if n > 1 else ''} "
                        f"({cyc_s} s)", typical, measure_cycles, n, cyc_s, rate=True)
        if "fanout" in parts:
            # Rounds alternate the systems, so that a change in the machine's load is spread
            # over all of them rather than landing on one column.
            rounds = 1 if q else 4
            for w in fan_sizes:
                row, lost = {}, {}
                for rnd in range(rounds):
                    for col, port in (("ours", ours_port), ("redis", redis_port),
                                      ("zk", zk_def), ("etcd", etcd_port)):
                        if col in ("zk", "etcd") and w > a.anchor_watchers_max:
                            row[col] = "not run"
                            continue
                        if isinstance(row.get(col), str):
                            continue
                        log(f"fan-out to {w}, round {rnd + 1}: {col} ...")
                        try:
                            lat, n_lost = measure_fanout(col, port, w, fan_changes // rounds)
                            row.setdefault(col, []).extend(lat)
                            lost[col] = lost.get(col, 0) + n_lost
                        except Exception as e:
                            log(f"  {col} failed: {e!r}")
                            row[col] = f"failed: {type(e).__name__}"
                for col, n_lost in lost.items():
                    if n_lost and not isinstance(row[col], str):
                        row[col] = f"{cell(row[col])} ({n_lost} lost)"
                rows.append((f"watch fan-out to {w} watchers ({fan_changes} changes)", row, False))
    finally:
        srv.stop()

    load_after = os.getloadavg()
    lines = []
    cols = [c for c in COLUMNS if any(c in r for _, r, _ in rows)]
    lines.append("| " + " | ".join(["p50 / p99"] + [HEADS[c] for c in cols] +
                                    ["best anchor ÷ ours"]) + " |")
    lines.append("|---|" + "---:|" * (len(cols) + 1))
    for label, row, rate in rows:
        cells = []
        for c in cols:
            v = row.get(c)
            if rate and isinstance(v, float):
                cells.append(f"{v:,.0f}/s")
            elif rate and isinstance(v, tuple):
                cells.append(v[1])
            else:
                cells.append(cell(v))
        r = ratio(row, rate)
        if rate and r != "—":
            r = f"ours ÷ best: {r}"
        lines.append("| " + " | ".join([label] + cells + [r]) + " |")
    cmd = "utils/bench-anchors.py" + (" --quick" if q else "") + \
        (f" --only {a.only}" if a.only != ap.get_default("only") else "") + \
        (f" --ours {a.ours}" if a.ours != ap.get_default("ours") else "")
    lines.append("")
    lines.append(f"`{cmd}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}, "
                 f"{time.time() - started:.0f} s; load average {load_before[0]:.1f} before, "
                 f"{load_after[0]:.1f} after, on {os.cpu_count()} cores.")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
