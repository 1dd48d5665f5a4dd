"""The measurements of utils/bench-anchors.py, and the child processes some of them run."""
import os
import random
import selectors
import signal
import socket
import subprocess
import threading
import time

import redis

from .clients import make_lock, spec_arg
from .common import PY, SCRIPT, wait_until


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
    return subprocess.Popen([PY, SCRIPT, "--child", role, spec_arg(spec), name,
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
