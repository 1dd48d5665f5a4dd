"""Start-up support shared by the client checks of tests/clients/ (not a check itself: run.sh
skips the files whose name starts with "_").

Model. A check starts the servers it needs itself, each on a free loopback port in a temporary
directory of its own, and stops them whatever happened. Server does that for one server of the
binary under test: the process, its port and directory, a bounded wait for its first PONG, and
the teardown (SIGTERM, SIGKILL after 10 s, the directory removed). Ports are below 55536 so that
a cluster node's bus port (port + 10000) exists too; a check starting several cluster nodes
asks for free_cluster_port(), whose bus port is free as well, or start_cluster() for a whole
cluster of masters made by redis-cli. wait_until is the one bounded poll.
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time

import redis


def free_port():
    """A loopback port nobody listens on now, below 55536 (the cluster bus adds 10000)."""
    for _ in range(100):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        if port <= 55535:
            return port
    raise AssertionError("no free port below 55536")


def free_cluster_port():
    """A free loopback port p below 55536 whose bus port p + 10000 is free too (several nodes
    of one check must not take each other's bus ports)."""
    for _ in range(100):
        port = free_port()
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue
        finally:
            s.close()
    raise AssertionError("no free port pair (p, p + 10000)")


def wait_until(what, predicate, seconds=30.0, step=0.05):
    """Polls predicate() until it is true; a Redis or socket error counts as not yet. Raises
    AssertionError("timed out waiting for <what>") after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except (redis.RedisError, OSError):
            pass
        time.sleep(step)
    raise AssertionError("timed out waiting for " + what)


class Server:
    """One server of `binary` (the path as given, made absolute but not resolved: Debian's
    redis-server is a symlink whose name picks the program) with `args` after the common ones
    (port, bind 127.0.0.1, dir, no RDB save, no AOF; later options override them). Its output
    goes to <dir>/stdout, and it listens on `port` (default: a free one). Use as a context
    manager: on entry it is answering PING (AssertionError if it exits or stays silent for
    30 s), on exit it is stopped and its directory removed."""

    def __init__(self, binary, args=(), prefix="redistp-client-", port=None):
        self.binary = os.path.abspath(binary)
        self.args = list(args)
        self.prefix = prefix
        self.dir = None
        self.requested_port = port
        self.port = None
        self.proc = None

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix=self.prefix)
        self.port = self.requested_port or free_port()
        with open(os.path.join(self.dir, "stdout"), "w") as log:
            self.proc = subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                 "--save", "", "--appendonly", "no"] + self.args,
                stdout=log, stderr=subprocess.STDOUT)
        try:
            probe = self.client()

            def answers():
                if self.proc.poll() is not None:
                    raise AssertionError("the server exited with status %d" % self.proc.returncode)
                return probe.ping()

            wait_until("the server to answer PING", answers)
            probe.close()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def client(self, **kwargs):
        """A redis-py client of this server (decode_responses unless told otherwise)."""
        kwargs.setdefault("decode_responses", True)
        return redis.Redis(host="127.0.0.1", port=self.port, **kwargs)

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


def cluster_joined(client, nodes):
    """True once the node says cluster_state:ok, knows `nodes` nodes, and none of them is in
    handshake or flagged failing."""
    info = client.cluster("info")
    if info["cluster_state"] != "ok" or int(info["cluster_known_nodes"]) != nodes:
        return False
    text = client.execute_command("CLUSTER", "NODES")
    return not any(flag in text for flag in ("handshake", "fail", "noaddr"))


def start_cluster(stack, binary, masters, prefix):
    """`masters` servers of `binary` with cluster-enabled yes (node timeout 1 s), entered into
    the contextlib.ExitStack `stack`, joined and split by Debian's redis-cli --cluster create
    (bounded by a timeout); returns the servers once every node says ok and knows them all."""
    servers = []
    for i in range(masters):
        servers.append(stack.enter_context(Server(
            binary, ["--cluster-enabled", "yes", "--cluster-node-timeout", "1000"],
            prefix="%s%d-" % (prefix, i), port=free_cluster_port())))
    addrs = ["127.0.0.1:%d" % s.port for s in servers]
    create = subprocess.run(
        ["redis-cli", "--cluster", "create", *addrs, "--cluster-yes"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    assert create.returncode == 0, "redis-cli --cluster create failed:\n" + create.stdout
    for server in servers:
        plain = server.client()
        wait_until("every node to see the %d nodes and cluster_state:ok" % masters,
                   lambda: cluster_joined(plain, masters))
    return servers
