#!/usr/bin/env python3
"""Fan-out cost of one key change to many watchers: the server's CPU, not the client's.

Usage: utils/bench-fanout.py [--ours PATH] [--redis PATH] [--rounds N] [--watchers LIST]
                             [--changes N] [--pause-us N] [--quick]

Method. Both servers run at once, pinned to CPU 0 (`taskset -c 0`), on free loopback ports,
with no configuration file and no persistence; the load tool (build/coord-bench/coord-bench,
C++ with one epoll loop over raw sockets, built here as utils/bench/coord-tool.sh builds it)
runs pinned to CPU 1, so the reader never competes with a server for its core. For each
watcher count N (default 100 and 1,000) and each round, one tool run opens N watchers per
target and makes K changes of the watched key per target (SET, DEL, SET ... with a pause
between changes; targets take turns change by change, so the machine's other load falls on
both alike):
  ours   WATCHEX on RESP3 connections (`>3 watchex <key> ADD|DEL`);
  redis  keyspace notifications (notify-keyspace-events KEA), the watchers SUBSCRIBEd to
         `__keyspace@0__:<key>` — the comparison docs/benchmarks.md's coordination rows use.
The tool prints `phase changes` once every watcher is registered and `phase done` after the
last change has reached every watcher; this script samples each server's utime+stime from
/proc/<pid>/stat at those two marks, so the figure is the CPU the servers spent on the
changes alone (their command, its key event and N pushes each), divided by K*N: CPU per change
per receiver. Latency is the tool's per-change figure from just before the writer sends to the
read that completes the change's last watcher (last_p50_us / last_p99_us), and its per-pair
p50/p99 too. Lost, reordered or unexpected notifications are counted by the tool and printed.

Each round gives ours/redis ratios measured in the same run; the report shows every round's
ratio and the median and spread (min..max) over the rounds. Markdown on stdout; progress on
stderr. Exit status 0 when every round ran, 1 when a server or the tool failed, 2 on bad usage.
"""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "build", "coord-bench", "coord-bench")
SERVER_CPU = "0"
TOOL_CPU = "1"
START_TIMEOUT_S = 20
TOOL_TIMEOUT_S = 600
CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def build_tool():
    """Builds the load tool the way utils/bench/coord-tool.sh does (only when stale)."""
    script = (
        f'bench_log() {{ printf "%s\\n" "$*" >&2; }}; COORD_TOOL_ROOT="{ROOT}"; '
        f'source "{ROOT}/utils/bench/coord-tool.sh"; coord_tool_build'
    )
    subprocess.run(["bash", "-c", script], check=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ping(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class Server:
    """One server pinned to SERVER_CPU in a scratch directory of its own."""

    def __init__(self, name, binary, workdir):
        self.name = name
        self.port = free_port()
        self.dir = os.path.join(workdir, name)
        os.makedirs(self.dir)
        args = ["taskset", "-c", SERVER_CPU, binary, "--port", str(self.port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", self.dir, "--maxclients", "10000", "--logfile", "server.log"]
        self.proc = subprocess.Popen(args, cwd=self.dir, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ping(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{name}: {binary} did not start")
            time.sleep(0.05)

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # utime and stime are fields 14 and 15; fields[0] here is field 3 (state).
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def parse_result(line):
    fields = dict(kv.split("=", 1) for kv in line.split()[1:])
    return fields


def run_round(servers, watchers, changes, pause_us):
    """One tool run over both targets; returns {name: result fields + cpu_us}."""
    targets = []
    for s in servers:
        mode = "keyspace" if s.name == "redis" else "watchex3"
        targets += ["--target", f"{s.name}={s.port}:{mode}"]
    args = ["taskset", "-c", TOOL_CPU, TOOL, "fanout", "--watchers", str(watchers),
            "--changes", str(changes), "--pause-us", str(pause_us), "--max-seconds", "300",
            "--key", f"fanout:{time.monotonic_ns()}"] + targets
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    before = after = None
    results = {}
    deadline = time.monotonic() + TOOL_TIMEOUT_S
    for line in proc.stdout:
        if line.startswith("phase changes"):
            before = {s.name: s.cpu_seconds() for s in servers}
        elif line.startswith("phase done"):
            after = {s.name: s.cpu_seconds() for s in servers}
        elif line.startswith("result "):
            r = parse_result(line)
            results[r["name"]] = r
        if time.monotonic() > deadline:
            proc.kill()
            break
    rc = proc.wait()
    if rc != 0 or before is None or after is None or len(results) != len(servers):
        raise RuntimeError(f"coord-bench fanout failed (exit {rc})")
    for s in servers:
        r = results[s.name]
        done = int(r["changes"])
        r["cpu_us_per_delivery"] = (after[s.name] - before[s.name]) * 1e6 / (done * watchers)
        r["cpu_s"] = after[s.name] - before[s.name]
    return results


def spread(values):
    return f"{statistics.median(values):.2f} ({min(values):.2f}..{max(values):.2f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", default=os.path.join(ROOT, "src", "redis-server"))
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--watchers", default="100,1000")
    ap.add_argument("--changes", type=int, default=0,
                    help="changes per target and round (default: 3000 for 100 watchers, "
                         "1000 for 1,000)")
    ap.add_argument("--pause-us", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="1 round, 200 changes")
    opts = ap.parse_args()
    if opts.quick:
        opts.rounds, opts.changes = 1, 200
    if not (1 <= opts.rounds <= 20):
        ap.error("--rounds must be in 1..20")
    watcher_counts = [int(w) for w in opts.watchers.split(",")]
    build_tool()
    workdir = tempfile.mkdtemp(prefix="bench-fanout.")
    servers = []
    try:
        servers = [Server("ours", opts.ours, workdir), Server("redis", opts.redis, workdir)]
        rows = []
        for n in watcher_counts:
            k = opts.changes or (3000 if n <= 100 else 1000)
            per_round = []
            for rnd in range(opts.rounds):
                log(f"bench-fanout: {n} watchers, {k} changes, round {rnd + 1}/{opts.rounds}")
                per_round.append(run_round(servers, n, k, opts.pause_us))
            rows.append((n, k, per_round))
        report(rows, opts)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        log(f"bench-fanout: {e}")
        return 1
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


def report(rows, opts):
    print(f"## Fan-out: server CPU per change per receiver ({opts.rounds} rounds, "
          f"servers on CPU {SERVER_CPU}, reader on CPU {TOOL_CPU})\n")
    print("ours: WATCHEX, RESP3 pushes; redis: keyspace notifications (KEA), SUBSCRIBE "
          "`__keyspace@0__:<key>`. Ratio = ours / redis in the same round; median "
          "(min..max) over the rounds.\n")
    print("| watchers | changes | figure | ours | redis | ratio per round | ratio median "
          "(spread) |")
    print("|---:|---:|---|---:|---:|---|---:|")
    figures = [("CPU µs per change per receiver", "cpu_us_per_delivery", "{:.3f}"),
               ("last receiver p50 µs", "last_p50_us", "{:.0f}"),
               ("last receiver p99 µs", "last_p99_us", "{:.0f}"),
               ("per pair p50 µs", "p50_us", "{:.0f}"),
               ("per pair p99 µs", "p99_us", "{:.0f}")]
    for n, k, per_round in rows:
        for label, field, fmt in figures:
            ours = [float(r["ours"][field]) for r in per_round]
            redis = [float(r["redis"][field]) for r in per_round]
            ratios = [o / r if r else float("nan") for o, r in zip(ours, redis)]
            print(f"| {n} | {k} | {label} | {fmt.format(statistics.median(ours))} | "
                  f"{fmt.format(statistics.median(redis))} | "
                  f"{' / '.join(f'{x:.2f}' for x in ratios)} | {spread(ratios)} |")
    print()
    for n, k, per_round in rows:
        for i, r in enumerate(per_round):
            for name in ("ours", "redis"):
                f = r[name]
                print(f"- {n} watchers, round {i + 1}, {name}: lost={f['lost']} "
                      f"disorder={f['disorder']} unexpected={f['unexpected']} "
                      f"timeouts={f['timeouts']} cpu={f['cpu_s']:.2f}s")


if __name__ == "__main__":
    sys.exit(main())
