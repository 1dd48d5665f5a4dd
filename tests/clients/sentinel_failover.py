#!/usr/bin/env python3
"""A redis-py Sentinel client follows a failover: the master is SIGKILLed under it, Sentinel
promotes a replica, and the same client object (redis.sentinel.Sentinel.master_for) goes on
writing to the new master without being rebuilt.

Model. Three servers of the binary under test (a master and two replicas, `replicaof` on their
command lines) and three of Debian's Sentinels (quorum 2, down-after 3 s: with 1 s a loaded
machine sees spurious second failovers, tests/support/sentinel.tcl says why), all on free loopback
ports in a temporary directory. The client writes a counter through master_for; the test waits
until the replicas hold it, kills the master with SIGKILL, then retries the client's writes
(bounded: 60 s) until one succeeds, and checks that it went to a different, promoted server that
kept the acknowledged counter. Prints "ok: <what>" and exits 0, or prints why and exits 1.
Usage: sentinel_failover.py SERVER_BINARY [SENTINEL_COMMAND...]
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import redis
from redis.sentinel import Sentinel

from _server import free_port, wait_until


def sentinel_command():
    if len(sys.argv) > 2:
        return sys.argv[2:]
    for path in ("/usr/bin/redis-sentinel", "/usr/local/bin/redis-sentinel"):
        if os.access(path, os.X_OK):
            return [path]
    return ["/usr/bin/redis-server"]  # Debian's redis-server runs Sentinel with --sentinel


class Group:
    """The servers and sentinels of one test, stopped by close() whatever happened."""

    def __init__(self, server, workdir):
        self.server = os.path.abspath(server)  # not realpath: Debian's redis-server is a symlink whose name picks the program
        self.dir = workdir
        self.procs = {}

    def start_server(self, name, extra):
        port = free_port()
        d = os.path.join(self.dir, name)
        os.mkdir(d)
        args = [self.server, "--bind", "127.0.0.1", "--port", str(port), "--dir", d,
                "--save", "", "--appendonly", "no", "--logfile", os.path.join(d, "log"),
                "--repl-diskless-sync-delay", "0"] + extra
        self.procs[name] = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
        wait_until(name + " to answer", lambda: redis.Redis(port=port).ping())
        return port

    def start_sentinel(self, name, master_port):
        port = free_port()
        d = os.path.join(self.dir, name)
        os.mkdir(d)
        conf = os.path.join(d, "sentinel.conf")
        with open(conf, "w") as f:
            f.write(f"port {port}\nbind 127.0.0.1\ndir {d}\nlogfile {d}/log\n"
                    f"sentinel monitor mymaster 127.0.0.1 {master_port} 2\n"
                    "sentinel down-after-milliseconds mymaster 3000\n"
                    "sentinel failover-timeout mymaster 10000\n")
        self.procs[name] = subprocess.Popen(sentinel_command() + [conf, "--sentinel"],
                                            stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
        wait_until(name + " to answer", lambda: redis.Redis(port=port).ping())
        return port

    def kill(self, name):
        p = self.procs.pop(name)
        p.send_signal(signal.SIGKILL)
        p.wait(10)

    def close(self):
        for p in self.procs.values():
            p.terminate()
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def run(group):
    m = group.start_server("master", [])
    replicas = [group.start_server(f"replica{i}", ["--replicaof", "127.0.0.1", str(m)])
                for i in (1, 2)]
    for port in replicas:
        wait_until(f"replica {port} to sync", lambda port=port: redis.Redis(
            port=port).info("replication").get("master_link_status") == "up")
    sentinels = [group.start_sentinel(f"sentinel{i}", m) for i in (1, 2, 3)]
    for port in sentinels:
        wait_until(f"sentinel {port} to see the group", lambda port=port: (
            len(redis.Redis(port=port).sentinel_slaves("mymaster")) == 2 and
            len(redis.Redis(port=port).sentinel_sentinels("mymaster")) == 2))

    sentinel = Sentinel([("127.0.0.1", p) for p in sentinels], socket_timeout=2)
    client = sentinel.master_for("mymaster", socket_timeout=2)
    for _ in range(100):
        client.incr("counter")
    before = sentinel.discover_master("mymaster")
    assert before == ("127.0.0.1", m), before
    # Every replica holds the counter before the master dies (async replication would lose
    # what they had not received; that is not what this test is about).
    for port in replicas:
        wait_until(f"replica {port} to have the counter",
                   lambda port=port: redis.Redis(port=port).get("counter") == b"100")

    group.kill("master")
    deadline = time.monotonic() + 60
    value = None
    while time.monotonic() < deadline:
        try:
            value = client.incr("counter")
            break
        except (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError,
                redis.sentinel.MasterNotFoundError):
            time.sleep(0.1)
    if value is None:
        raise AssertionError("the Sentinel client never reached a new master")
    after = sentinel.discover_master("mymaster")
    assert after != before and after[1] in replicas, (before, after)
    assert value == 101, value
    role = redis.Redis(port=after[1]).execute_command("ROLE")
    assert role[0] == b"master", role
    return f"redis-py Sentinel client followed the failover from {m} to {after[1]}"


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    workdir = tempfile.mkdtemp(prefix="sentinel-client-")
    group = Group(sys.argv[1], workdir)
    try:
        print("ok: " + run(group))
        ok = True
    except Exception as e:  # noqa: BLE001 - any failure is the test's failure
        print(f"failed: {type(e).__name__}: {e}")
        for name in sorted(os.listdir(workdir)):
            log = os.path.join(workdir, name, "log")
            if os.path.exists(log):
                with open(log, errors="replace") as f:
                    tail = f.readlines()[-8:]
                print(f"--- {name} log tail:\n" + "".join(tail))
        ok = False
    finally:
        group.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
