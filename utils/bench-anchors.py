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
import random
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import logging

import redis

logging.getLogger("kazoo").setLevel(logging.ERROR)  # its reconnect chatter is expected here


def _quiet_closed_channels(args, default=threading.excepthook):
    """python-etcd3's watch thread dies noisily when its client is closed: expected here."""
    if "Channel closed" not in str(args.exc_value):
        default(args)


threading.excepthook = _quiet_closed_channels
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, seconds, what):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if predicate():
                return
        except Exception:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(p / 100.0 * (len(s) - 1)))))]


# ---- servers ------------------------------------------------------------------------------------

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


# ---- the lock clients: one class per system, the same three calls -------------------------------
# acquire(timeout_s) -> bool, release(), close(). `spec` is a plain dict so that a child process
# can build the same client from the command line.

class OursLock:
    """redis-tp's fair lock: BSETTP name token timeout / DELTP, on one pinned connection."""

    def __init__(self, spec, name):
        self.name = name
        self.grace = spec.get("grace")
        self.token = None
        port = spec.get("via", spec["port"])
        self.r = redis.Redis(port=port, single_connection_client=True,
                             redis_connect_func=self._on_connect, socket_connect_timeout=2)
        if self.grace is not None:
            self.token = self.r.execute_command("SESSION", "OPEN", self.grace)

    def _on_connect(self, connection):
        connection.on_connect()
        if self.token is not None:
            connection.send_command("SESSION", "RESUME", self.token)
            if connection.read_response() != b"OK":
                raise redis.ConnectionError("resume refused")

    def acquire(self, timeout_s=30):
        return self.r.execute_command("BSETTP", self.name, "me", timeout_s) == 1

    def release(self):
        self.r.execute_command("DELTP", self.name)

    def renew_period(self):
        return None

    def still_held(self):
        """True while the session (resumed on reconnect) still owns the lock."""
        owner = self.r.execute_command("OBJECT OWNER", self.name)
        return owner is not None and int(owner) == int(self.token.split(b":")[0])

    def close(self):
        if self.token is not None:
            try:
                self.r.execute_command("SESSION", "CLOSE")
            except redis.RedisError:
                pass
        self.r.connection.disconnect()


class RedisTtlLock:
    """Redis 7.0 with redis-py's Lock: SET NX PX, Lua release, a 0.1 s poll while waiting."""

    def __init__(self, spec, name):
        self.r = redis.Redis(port=spec.get("via", spec["port"]), socket_connect_timeout=2)
        self.px = spec["px"]
        # thread_local=False: the benchmark acquires in one thread and releases in another.
        self.lock = self.r.lock(name, timeout=self.px / 1000.0, sleep=0.1, thread_local=False)

    def acquire(self, timeout_s=30):
        return self.lock.acquire(blocking=True, blocking_timeout=timeout_s)

    def release(self):
        self.lock.release()

    def renew_period(self):
        return self.px / 3000.0

    def still_held(self):
        return self.lock.reacquire()  # the watchdog's renewal: PEXPIRE if still ours

    def close(self):
        self.r.connection_pool.disconnect()


class ZkLock:
    """ZooKeeper with kazoo's Lock recipe (sequential ephemeral nodes, watch the predecessor)."""

    def __init__(self, spec, name):
        from kazoo.client import KazooClient
        self.client = KazooClient(hosts=f"127.0.0.1:{spec.get('via', spec['port'])}",
                                  timeout=spec["session_s"])
        self.states = []
        self.client.add_listener(lambda s: self.states.append((time.perf_counter(), s)))
        self.client.start(timeout=10)
        self.lock = self.client.Lock("/bench/" + name)

    def acquire(self, timeout_s=30):
        return self.lock.acquire(timeout=timeout_s)

    def release(self):
        self.lock.release()

    def renew_period(self):
        return None

    def close(self):
        self.client.stop()
        self.client.close()


class EtcdLock:
    """etcd 3.4 with python-etcd3's lock algorithm: a key under a lease, created by a transaction
    if absent; a waiter watches the key and tries again when it changes.

    Debian's python3-etcd3 0.12 Lock.acquire crashes as soon as it must wait (its tenacity
    `wait` callback has the old two-argument signature: TypeError), so the waiting path is
    written here, the same algorithm with one fix: the watch starts at the revision after the
    failed transaction saw the key, so a release between the two cannot be missed (python-etcd3
    would sleep out its timeout). Uncontended, this is exactly what its Lock does."""

    def __init__(self, spec, name):
        import etcd3
        self.client = etcd3.client(port=spec.get("via", spec["port"]), timeout=5)
        self.key = "/locks/" + name
        self.ttl = spec["ttl"]
        self.uuid = os.urandom(16).hex()
        self.lease = None

    def acquire(self, timeout_s=30):
        import etcd3
        end = time.monotonic() + timeout_s
        tx = self.client.transactions
        while True:
            lease = self.client.lease(self.ttl)
            ok, responses = self.client.transaction(
                compare=[tx.create(self.key) == 0],
                success=[tx.put(self.key, self.uuid, lease=lease)],
                failure=[tx.get(self.key)])
            if ok:
                self.lease = lease
                return True
            kvs = responses[0] if responses else []
            left = end - time.monotonic()
            if left <= 0:
                return False
            if not kvs:
                continue  # released between the compare and the get: try again at once
            try:
                self.client.watch_once(self.key, timeout=left,
                                       start_revision=kvs[0][1].mod_revision + 1)
            except etcd3.exceptions.WatchTimedOut:
                return False

    def release(self):
        tx = self.client.transactions
        self.client.transaction(compare=[tx.value(self.key) == self.uuid],
                                success=[tx.delete(self.key)], failure=[])
        self.lease = None

    def renew_period(self):
        return max(self.lease.granted_ttl, 1) / 3.0

    def still_held(self):
        list(self.lease.refresh())  # the lease keep-alive
        value, _ = self.client.get(self.key)
        return value == self.uuid.encode()

    def close(self):
        self.client.close()


KINDS = {"ours": OursLock, "redis": RedisTtlLock, "zk": ZkLock, "etcd": EtcdLock}


def make_lock(spec, name):
    return KINDS[spec["kind"]](spec, name)


def spec_arg(spec):
    return ",".join(f"{k}={v}" for k, v in spec.items())


def parse_spec(text):
    spec = {}
    for item in text.split(","):
        k, v = item.split("=", 1)
        spec[k] = v if k == "kind" else (float(v) if "." in v else int(v))
    return spec


# ---- child processes: a holder to kill, a cycling worker ----------------------------------------

def child_main(role, spec, name, arg):
    lock = make_lock(spec, name)
    if role == "hold":
        assert lock.acquire(30)
        print("held", flush=True)
        # A TTL holder renews as a real one must (Redisson's watchdog: every third of the lease;
        # an etcd lease keep-alive likewise), so after the kill the lock lives out at most one
        # lease, as it would in production. ZooKeeper's client pings by itself; ours needs none.
        period = lock.renew_period()
        while True:
            time.sleep(period or 60)
            if period:
                lock.still_held()
    if role == "cycles":
        start_at, seconds = float(arg.split(":")[0]), float(arg.split(":")[1])
        time.sleep(max(0.0, start_at - time.time()))
        end, n = time.monotonic() + seconds, 0
        while time.monotonic() < end:
            if lock.acquire(30):
                lock.release()
                n += 1
        print(n, flush=True)
        lock.close()


def spawn_child(role, spec, name, arg=""):
    return subprocess.Popen([PY, os.path.abspath(__file__), "--child", role, spec_arg(spec), name,
                             arg], stdout=subprocess.PIPE, text=True, start_new_session=True)


# ---- the measurements ---------------------------------------------------------------------------

def measure_uncontended(spec, n):
    lock = make_lock(spec, f"unc-{time.monotonic_ns()}")
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        assert lock.acquire(10)
        lock.release()
        out.append(time.perf_counter() - t0)
    lock.close()
    return out


def handoff_once(holder, waiter, release):
    """Queues `waiter`, then `release()`s the holder; seconds until the waiter holds the lock."""
    got = {}

    def wait():
        ok = waiter.acquire(120)
        got["t"] = time.perf_counter() if ok else None
    t = threading.Thread(target=wait)
    t.start()
    # Let the waiter queue (or start polling); the random part puts the release at a random
    # point of a polling waiter's 0.1 s period, as a real release would fall.
    time.sleep(0.3 + random.random() * 0.1)
    t0 = time.perf_counter()
    release()
    t.join(150)
    if got.get("t") is None:
        raise RuntimeError("the waiter never got the lock")
    return got["t"] - t0


def measure_clean_handoff(spec, n):
    name = f"ho-{time.monotonic_ns()}"
    a, b = make_lock(spec, name), make_lock(spec, name)
    out = []
    for i in range(n):
        holder, waiter = (a, b) if i % 2 == 0 else (b, a)
        if i == 0:
            assert holder.acquire(10)
        out.append(handoff_once(holder, waiter, holder.release))
    (b if n % 2 else a).release()
    a.close()
    b.close()
    return out


def measure_kill_handoff(spec, n):
    out = []
    for _ in range(n):
        name = f"kill-{time.monotonic_ns()}"
        child = spawn_child("hold", spec, name)
        if child.stdout.readline().strip() != "held":
            raise RuntimeError("the holder process did not take the lock")
        waiter = make_lock(spec, name)

        def kill():
            os.killpg(child.pid, signal.SIGKILL)
        out.append(handoff_once(None, waiter, kill))
        child.wait()
        waiter.release()
        waiter.close()
    return out


class BlipProxy:
    """A TCP proxy that can drop every connection and refuse new ones for a while.

    During a blip its port is closed, so a client's connection attempts are refused at once (as
    from a host that rebooted or a link that resets), rather than accepted and dropped: gRPC,
    for one, treats a connection dropped during its handshake as a slow failure and backs off
    for many seconds, which would blame the client for the proxy's manners."""

    def __init__(self, upstream_port):
        self.upstream = upstream_port
        self.port = None
        self.pairs = []
        self.lock = threading.Lock()
        self._listen()

    def _listen(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port or 0))
        listener.listen(512)
        self.port = listener.getsockname()[1]
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener):
        while True:
            try:
                c, _ = listener.accept()
            except OSError:
                return
            try:
                u = socket.create_connection(("127.0.0.1", self.upstream))
            except OSError:
                c.close()
                continue
            for s in (c, u):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.pairs.append((c, u))
            threading.Thread(target=self._pump, args=(c, u), daemon=True).start()
            threading.Thread(target=self._pump, args=(u, c), daemon=True).start()

    @staticmethod
    def _pump(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def blip(self, seconds):
        """Drops every connection now and refuses new ones for `seconds`; the restore time."""
        # shutdown() first: a bare close() would leave the socket listening inside the accept()
        # that another thread is blocked in.
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for c, u in pairs:
            for s in (c, u):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass
        time.sleep(seconds)
        self._listen()
        return time.perf_counter()

    def close(self):
        self.listener.close()


def measure_blip(spec, n, blip_s=1.0):
    """Seconds from the end of a blip until the holder knows it still holds its lock."""
    out = []
    proxy = BlipProxy(spec["port"])
    spec = dict(spec, via=proxy.port)
    for _ in range(n):
        name = f"blip-{time.monotonic_ns()}"
        lock = make_lock(spec, name)
        assert lock.acquire(10)
        if spec["kind"] == "zk":
            from kazoo.protocol.states import KazooState
            mark = len(lock.states)
            restored = proxy.blip(blip_s)
            wait_until(lambda: any(s == KazooState.CONNECTED for _, s in lock.states[mark:]),
                       60, "kazoo to reconnect")
            t1 = next(t for t, s in lock.states[mark:] if s == KazooState.CONNECTED)
            node = f"{lock.lock.path}/{lock.lock.node}"
            if not lock.lock.is_acquired or lock.client.exists(node) is None:
                raise RuntimeError("ZooKeeper lost the lock in the blip")
            out.append(max(0.0, t1 - restored))
        else:
            stop = threading.Event()
            result = {}

            def app():  # the application's loop: confirm the lock every 10 ms
                while not stop.is_set():
                    try:
                        if lock.still_held():
                            result.setdefault("ok", []).append(time.perf_counter())
                        else:
                            result["lost"] = True
                    except Exception:
                        pass
                    time.sleep(0.01)
            t = threading.Thread(target=app)
            t.start()
            time.sleep(0.05)
            restored = proxy.blip(blip_s)
            wait_until(lambda: any(x > restored for x in result.get("ok", [])) or
                       result.get("lost"), 60, "the holder to confirm its lock")
            stop.set()
            t.join()
            if result.get("lost"):
                raise RuntimeError(f"{spec['kind']} lost the lock in the blip")
            out.append(min(x for x in result["ok"] if x > restored) - restored)
        lock.release()
        lock.close()
    proxy.close()
    return out


def measure_fanout(kind, port, watchers, changes):
    """Per (change, watcher) latency of an existence change reaching a watcher."""
    key = f"fan{time.monotonic_ns()}"
    lat, state = [], {"t0": 0.0, "left": 0, "armed": watchers}
    done = threading.Event()
    mu = threading.Lock()

    def seen():
        t = time.perf_counter()
        with mu:
            lat.append(t - state["t0"])
            state["left"] -= 1
            if state["left"] == 0:
                done.set()

    cleanup = []
    if kind in ("ours", "redis"):
        channel = (f"__watchex@0__:{key}" if kind == "ours" else f"__keyspace@0__:{key}")
        if kind == "redis":
            redis.Redis(port=port).config_set("notify-keyspace-events", "Kg$")
        sel = selectors.DefaultSelector()
        subs = []
        for _ in range(watchers):
            p = redis.Redis(port=port).pubsub()
            p.subscribe(channel)
            while p.get_message(timeout=5) is None:
                pass
            sel.register(p.connection._sock, selectors.EVENT_READ, p)
            subs.append(p)
        writer = redis.Redis(port=port, single_connection_client=True)
        stop = threading.Event()

        def reader():
            while not stop.is_set():
                for k, _ in sel.select(0.1):
                    while k.data.get_message(timeout=0) is not None:
                        seen()
        rt = threading.Thread(target=reader)
        rt.start()
        write = [lambda: writer.execute_command("SETTP" if kind == "ours" else "SET", key, "v"),
                 lambda: writer.execute_command("DELTP" if kind == "ours" else "DEL", key)]
        cleanup = [stop.set, rt.join, lambda: [p.close() for p in subs], writer.close]
    elif kind == "zk":
        from kazoo.client import KazooClient
        clients = []
        path = "/bench/" + key

        def armed(_):
            with mu:
                state["armed"] += 1

        def arm(c):
            # A ZooKeeper watch fires once: each watcher sets it again at once, and the writer
            # waits until every watcher has (the "armed" count) before the next change.
            def cb(event):
                seen()
                c.exists_async(path, watch=cb).rawlink(armed)
            c.exists(path, watch=cb)
        for _ in range(watchers):
            c = KazooClient(hosts=f"127.0.0.1:{port}", timeout=10)
            c.start(timeout=20)
            arm(c)
            clients.append(c)
        writer = KazooClient(hosts=f"127.0.0.1:{port}", timeout=10)
        writer.start(timeout=20)
        writer.ensure_path("/bench")
        write = [lambda: writer.create(path, b"v", ephemeral=True), lambda: writer.delete(path)]
        cleanup = [lambda: [(c.stop(), c.close()) for c in clients + [writer]]]
    else:  # etcd
        import etcd3
        clients = []
        for _ in range(watchers):
            c = etcd3.client(port=port, timeout=10)
            c.add_watch_callback(key, lambda response: seen())
            clients.append(c)
        writer = etcd3.client(port=port, timeout=10)
        time.sleep(1.0)  # let every watch stream be established
        write = [lambda: writer.put(key, "v"), lambda: writer.delete(key)]
        cleanup = [lambda: [c.close() for c in clients + [writer]]]

    lost = 0
    try:
        for i in range(changes):
            end = time.monotonic() + 10
            while state["armed"] < watchers and time.monotonic() < end:
                time.sleep(0.005)
            done.clear()
            with mu:
                state["left"] = watchers
                state["armed"] = watchers if kind != "zk" else 0
                state["t0"] = time.perf_counter()
            write[i % 2]()
            if not done.wait(30):
                with mu:
                    lost += state["left"]
                    state["left"] = -10 ** 9  # ignore stragglers of this change
            time.sleep(0.02)
    finally:
        for f in cleanup:
            f()
    return lat, lost


def measure_cycles(spec, clients, seconds):
    name = f"cyc-{time.monotonic_ns()}"
    start_at = time.time() + 3.0  # every worker process has started and connected by then
    kids = [spawn_child("cycles", spec, name, f"{start_at}:{seconds}") for _ in range(clients)]
    counts = []
    for k in kids:
        line = k.stdout.readline().strip()
        k.wait(seconds + 60)
        counts.append(int(line or 0))
    rate = sum(counts) / seconds
    if clients == 1:
        return rate
    return (rate, f"{rate:,.0f}/s (per client {min(counts) / seconds:,.0f}–"
                  f"{max(counts) / seconds:,.0f})")


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
        if "cycles" in parts:
            for n in (1, 8):
                run_row(f"lock cycles per second, {n} client process{'es' if n > 1 else ''} "
                        f"({cyc_s} s)", typical, measure_cycles, n, cyc_s, rate=True)
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
        (f" --only {a.only}" if a.only != ap.get_default("only") else "")
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
