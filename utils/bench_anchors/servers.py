"""The servers of one benchmark run, each on 127.0.0.1 and a free port, in one scratch directory."""
import os
import shutil
import signal
import subprocess
import tempfile

import redis

from .common import free_port, wait_until


class Servers:
    """Starts and stops every server of the run in one scratch directory."""

    def __init__(self, ours, redis_bin):
        self.dir = tempfile.mkdtemp(prefix="bench-anchors.")
        self.procs = []
        self.ours_bin, self.redis_bin = ours, redis_bin

    def spawn(self, name, argv, cwd=None):
        logf = open(os.path.join(self.dir, name + ".log"), "w")
        p = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, cwd=cwd,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def start_redis_like(self, name, binary):
        port = free_port()
        d = os.path.join(self.dir, name)
        os.makedirs(d)
        self.spawn(name, [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", d,
                          "--save", "", "--appendonly", "no", "--maxclients", "10000"])
        wait_until(lambda: redis.Redis(port=port).ping(), 10, f"{name} to answer PING")
        return port

    def start_zookeeper(self, name, tick_ms):
        port = free_port()
        d = os.path.join(self.dir, name)
        os.makedirs(d)
        cfg = os.path.join(d, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write(f"tickTime={tick_ms}\ninitLimit=10\nsyncLimit=5\ndataDir={d}\n"
                    f"clientPort={port}\nclientPortAddress=127.0.0.1\nmaxClientCnxns=0\n"
                    "admin.enableServer=false\n")
        self.spawn(name, ["java", "-Xmx1g", f"-Dzookeeper.log.dir={d}",
                          "-Dzookeeper.root.logger=WARN,CONSOLE",
                          "-cp", "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar",
                          "org.apache.zookeeper.server.ZooKeeperServerMain", cfg])

        def up():
            from kazoo.client import KazooClient
            c = KazooClient(hosts=f"127.0.0.1:{port}", timeout=4)
            c.start(timeout=2)
            c.stop()
            c.close()
            return True
        wait_until(up, 60, f"{name} to accept a session")
        return port

    def start_etcd(self):
        port, peer = free_port(), free_port()
        d = os.path.join(self.dir, "etcd")
        self.spawn("etcd", ["etcd", "--name", "bench", "--data-dir", d,
                            "--listen-client-urls", f"http://127.0.0.1:{port}",
                            "--advertise-client-urls", f"http://127.0.0.1:{port}",
                            "--listen-peer-urls", f"http://127.0.0.1:{peer}",
                            "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
                            "--initial-cluster", f"bench=http://127.0.0.1:{peer}",
                            "--log-level", "error", "--logger", "zap"])
        import etcd3
        wait_until(lambda: etcd3.client(port=port).status() is not None, 30, "etcd")
        return port

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
