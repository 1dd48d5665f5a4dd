"""The actors of utils/soak and what they share (see utils/soak for the model).

Each actor runs in a thread of its own until Shared.stop (or Shared.stop_lockers for the
lockers and publishers) is set, counts what it did in Shared, and reports every broken
invariant with Shared.fail. The probe runs in a process of its own.
"""
import collections
import random
import socket
import threading
import time

from soaklib.resp import Conn, Push, RespError


# ---- shared state ----------------------------------------------------------------------------

class Shared:
    """What the actors count and what the checks found; one lock for all of it."""

    def __init__(self, args, t0):
        self.args = args
        self.t0 = t0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.stop_lockers = threading.Event()
        self.commands = 0
        self.connections = 0
        self.resets = 0
        self.resets_holding = 0
        self.resets_blocked = 0
        self.failures = []
        self.unexpected = collections.Counter()
        self.worker_max_ms = 0.0
        self.worker_max_at = 0.0
        self.worker_max_cmd = ""
        self.tokens = []
        self.lock_max_token = {}
        self.acquired = collections.Counter()
        self.released = collections.Counter()
        self.published = collections.Counter()
        self.fork_windows = []  # (start, end) monotonic
        self.bgsaves = 0
        self.rewrites = 0
        self.pushes = 0
        self.messages = 0

    def now(self):
        return time.monotonic() - self.t0

    def fail(self, what):
        with self.lock:
            if len(self.failures) < 50:
                self.failures.append("%.1f s: %s" % (self.now(), what))

    def count(self, n=1):
        with self.lock:
            self.commands += n

    def connected(self):
        with self.lock:
            self.connections += 1

    def latency(self, ms, cmd):
        if ms > self.worker_max_ms:
            with self.lock:
                if ms > self.worker_max_ms:
                    self.worker_max_ms = ms
                    self.worker_max_at = self.now()
                    self.worker_max_cmd = cmd

    def limit_reached(self):
        return self.args.max_commands and self.commands >= self.args.max_commands


def timed_call(sh, conn, *args):
    """A command whose reply time counts as the worker latency."""
    t = time.monotonic()
    r = conn.call(*args)
    sh.latency((time.monotonic() - t) * 1000, args[0])
    sh.count()
    return r


# ---- workers: every data family, scripts, transactions ----------------------------------------

LIBRARY = """#!lua name=soaklib
redis.register_function('soak_hincr', function(keys, args)
  return redis.call('hincrby', keys[1], args[1], 1)
end)
redis.register_function{function_name='soak_len', callback=function(keys)
  return redis.call('strlen', keys[1])
end, flags={'no-writes'}}
"""
COUNTER_SCRIPT = "return redis.call('incr', KEYS[1])"


def worker(sh, port, wid, seed):
    rng = random.Random(seed)
    p = "w%d:" % wid
    counters = collections.Counter()
    hcounters = collections.Counter()
    sha = None
    conn = None
    while not sh.stop.is_set() and not sh.limit_reached():
        try:
            if conn is None:
                conn = Conn(port)
                sh.connected()
                sha = conn.call("SCRIPT", "LOAD", COUNTER_SCRIPT).decode()
                # This worker's counters start where the server has them.
                for k in list(counters):
                    v = conn.call("GET", k)
                    counters[k] = int(v) if v is not None else 0
                for k in list(hcounters):
                    v = conn.call("HGET", p + "h", k)
                    hcounters[k] = int(v) if v is not None else 0
            op = rng.randrange(16)
            n = rng.randrange(50)
            if op == 0:
                k = p + "ctr%d" % (n % 5)
                r = timed_call(sh, conn, "INCR", k)
                counters[k] += 1
                if r != counters[k]:
                    sh.fail("INCR %s gave %r, expected %d" % (k, r, counters[k]))
            elif op == 1:
                timed_call(sh, conn, "SET", p + "s%d" % n, "v" * rng.randrange(1, 1000),
                           "EX", rng.randrange(1, 30))
                timed_call(sh, conn, "GET", p + "s%d" % rng.randrange(50))
                timed_call(sh, conn, "APPEND", p + "a%d" % (n % 10), "xy")
                if rng.random() < 0.1:
                    timed_call(sh, conn, "DEL", p + "a%d" % (n % 10))
            elif op == 2:
                f = "f%d" % (n % 8)
                r = timed_call(sh, conn, "HINCRBY", p + "h", f, 1)
                hcounters[f] += 1
                if r != hcounters[f]:
                    sh.fail("HINCRBY %sh %s gave %r, expected %d" % (p, f, r, hcounters[f]))
                timed_call(sh, conn, "HSET", p + "hh%d" % (n % 5), "a", n, "b", "x" * n)
                timed_call(sh, conn, "HGETALL", p + "hh%d" % (n % 5))
            elif op == 3:
                k = p + "l%d" % (n % 5)
                timed_call(sh, conn, "RPUSH", k, *["e%d" % i for i in range(rng.randrange(1, 20))])
                timed_call(sh, conn, "LTRIM", k, 0, 200)
                timed_call(sh, conn, "LRANGE", k, 0, 10)
                sh.count()
                conn.call("BLPOP", k, "0.05")
            elif op == 4:
                k = p + "set%d" % (n % 5)
                timed_call(sh, conn, "SADD", k, *["m%d" % rng.randrange(300) for _ in range(10)])
                timed_call(sh, conn, "SREM", k, "m%d" % rng.randrange(300))
                timed_call(sh, conn, "SINTER", k, p + "set%d" % ((n + 1) % 5))
            elif op == 5:
                k = p + "z%d" % (n % 5)
                timed_call(sh, conn, "ZADD", k, rng.random() * 100, "m%d" % rng.randrange(200))
                timed_call(sh, conn, "ZINCRBY", k, 1, "m%d" % rng.randrange(200))
                timed_call(sh, conn, "ZRANGE", k, 0, 20, "WITHSCORES")
                if rng.random() < 0.2:
                    timed_call(sh, conn, "ZPOPMIN", k, 3)
            elif op == 6:
                k = p + "x%d" % (n % 3)
                timed_call(sh, conn, "XADD", k, "MAXLEN", "~", 200, "*", "f", n, "g", "v" * n)
                timed_call(sh, conn, "XRANGE", k, "-", "+", "COUNT", 10)
                timed_call(sh, conn, "XLEN", k)
            elif op == 7:
                k = p + "hll%d" % (n % 3)
                timed_call(sh, conn, "PFADD", k, *["e%d" % rng.randrange(100000) for _ in range(20)])
                timed_call(sh, conn, "PFCOUNT", k)
            elif op == 8:
                k = p + "geo"
                timed_call(sh, conn, "GEOADD", k, rng.uniform(-170, 170), rng.uniform(-80, 80),
                           "p%d" % rng.randrange(200))
                timed_call(sh, conn, "GEOSEARCH", k, "FROMLONLAT", 0, 0, "BYRADIUS", 5000, "km",
                           "COUNT", 5, "ASC")
            elif op == 9:
                k = p + "bits"
                timed_call(sh, conn, "SETBIT", k, rng.randrange(100000), rng.randrange(2))
                timed_call(sh, conn, "BITCOUNT", k)
            elif op == 10:
                k = p + "ctr%d" % (n % 5)
                if rng.random() < 0.5:
                    r = timed_call(sh, conn, "EVAL", COUNTER_SCRIPT, 1, k)
                else:
                    r = timed_call(sh, conn, "EVALSHA", sha, 1, k)
                counters[k] += 1
                if r != counters[k]:
                    sh.fail("script INCR %s gave %r, expected %d" % (k, r, counters[k]))
            elif op == 11:
                f = "f%d" % (n % 8)
                r = timed_call(sh, conn, "FCALL", "soak_hincr", 1, p + "h", f)
                hcounters[f] += 1
                if r != hcounters[f]:
                    sh.fail("FCALL soak_hincr gave %r, expected %d" % (r, hcounters[f]))
                timed_call(sh, conn, "FCALL_RO", "soak_len", 1, p + "s%d" % n)
            elif op == 12:
                k = p + "ctr%d" % (n % 5)
                conn.send_many([("MULTI",), ("INCR", k), ("SET", p + "m", n), ("GET", p + "m"),
                                ("EXEC",)])
                replies = [conn.read() for _ in range(5)]
                sh.count(5)
                counters[k] += 1
                if not isinstance(replies[4], list) or replies[4][0] != counters[k]:
                    sh.fail("MULTI INCR %s gave %r, expected %d" % (k, replies[4], counters[k]))
            elif op == 13:
                # Pipelined small writes and reads.
                cmds = [("SET", p + "pp%d" % i, i) for i in range(20)] + [("MGET",) + tuple(
                    p + "pp%d" % i for i in range(20))]
                conn.send_many(cmds)
                for _ in cmds:
                    r = conn.read()
                    if isinstance(r, RespError):
                        sh.unexpected[str(r)[:60]] += 1
                sh.count(len(cmds))
            elif op == 14:
                timed_call(sh, conn, "EXPIRE", p + "l%d" % (n % 5), rng.randrange(1, 20))
                timed_call(sh, conn, "TTL", p + "l%d" % (n % 5))
                timed_call(sh, conn, "EXISTS", p + "watched%d" % (n % 4))
            else:
                # Keys the watchers watch: created and deleted, sometimes expiring.
                k = p + "watched%d" % (n % 4)
                if rng.random() < 0.5:
                    timed_call(sh, conn, "SET", k, n, "PX", rng.randrange(50, 3000))
                else:
                    timed_call(sh, conn, "DEL", k)
        except RespError as e:
            with sh.lock:
                sh.unexpected[str(e)[:60]] += 1
        except (OSError, ConnectionError) as e:
            if not sh.stop.is_set():
                sh.fail("worker %d: connection lost: %s" % (wid, e))
            if conn is not None:
                conn.close()
            conn = None
            time.sleep(0.1)
    if conn is not None:
        conn.close()


# ---- lockers: temporary keys, BSETTP queues, fencing tokens -----------------------------------

def locker(sh, port, lid, seed):
    rng = random.Random(seed)
    me = "locker%d" % lid
    conn = None
    last_token = 0  # per connection
    while not sh.stop_lockers.is_set():
        try:
            if conn is None:
                conn = Conn(port)
                sh.connected()
                last_token = 0
            key = "lock:%d" % rng.randrange(sh.args.lock_keys)
            if rng.random() < 0.5:
                conn.settimeout(10)
                t = conn.call("SETTP", key, me, "FENCE")
            else:
                conn.settimeout(10 + 1)
                t = conn.call("BSETTP", key, me, "0.3", "FENCE")
            sh.count()
            if t == 0:
                time.sleep(rng.random() * 0.01)
                continue
            with sh.lock:
                sh.tokens.append(t)
                sh.acquired[key] += 1
                prev = sh.lock_max_token.get(key, 0)
                if t <= prev:
                    sh.failures.append("%.1f s: %s got token %d after %d was used" %
                                       (sh.now(), key, t, prev))
                sh.lock_max_token[key] = t
            if t <= last_token:
                sh.fail("connection got token %d after %d" % (t, last_token))
            last_token = t
            if conn.call("GET", key) != me.encode():
                sh.fail("%s held by %s does not hold its value" % (key, me))
            if conn.call("OBJECT", "FENCE", key) != t:
                sh.fail("OBJECT FENCE %s is not %d" % (key, t))
            sh.count(2)
            time.sleep(rng.random() * 0.02)
            how = rng.random()
            if how < 0.7:
                if conn.call("DELTP", key) != 1:
                    sh.fail("DELTP %s by its owner did not delete it" % key)
                sh.count()
            else:
                # Gone while holding: politely or with a reset.
                if how < 0.85:
                    conn.call("QUIT")
                    conn.close()
                else:
                    conn.reset()
                    with sh.lock:
                        sh.resets += 1
                        sh.resets_holding += 1
                conn = None
            with sh.lock:
                sh.released[key] += 1
        except RespError as e:
            with sh.lock:
                sh.unexpected[str(e)[:60]] += 1
        except (OSError, ConnectionError) as e:
            sh.fail("locker %d: connection lost: %s" % (lid, e))
            if conn is not None:
                conn.close()
            conn = None
            time.sleep(0.1)
    if conn is not None:
        conn.close()


# ---- watchers: WATCHEX pushes against the keys' history ----------------------------------------

class Watcher(threading.Thread):
    def __init__(self, sh, port, keys, idx):
        super().__init__(daemon=True)
        self.sh = sh
        self.port = port
        self.keys = keys
        self.idx = idx
        self.state = {}
        self.adds = collections.Counter()
        self.dels = collections.Counter()
        self.ready = threading.Event()
        self.done = threading.Event()
        self.conn = None

    def handle(self, push):
        if len(push) != 3 or push[0] != b"watchex":
            self.sh.fail("watcher %d: unexpected push %r" % (self.idx, push[:3]))
            return
        key, ev = push[1].decode(), push[2]
        with self.sh.lock:
            self.sh.pushes += 1
        if ev == b"ADD":
            if self.state.get(key):
                self.sh.fail("watcher %d: ADD of %s, which existed" % (self.idx, key))
            self.state[key] = True
            self.adds[key] += 1
        elif ev == b"DEL":
            if not self.state.get(key):
                self.sh.fail("watcher %d: DEL of %s, which did not exist" % (self.idx, key))
            self.state[key] = False
            self.dels[key] += 1
        else:
            self.sh.fail("watcher %d: event %r" % (self.idx, ev))

    def drain(self):
        while self.conn.pushes:
            self.handle(self.conn.pushes.popleft()[1])

    def run(self):
        try:
            self.conn = Conn(self.port, resp3=True)
            self.sh.connected()
            states = self.conn.call("WATCHEX", *self.keys)
            for k, s in zip(self.keys, states):
                self.state[k] = s == "EXIST"
            self.ready.set()
            self.conn.settimeout(0.05)
            rng = random.Random(self.idx)
            while not self.done.is_set():
                try:
                    self.handle_frame(self.conn.read_any())
                except socket.timeout:
                    pass
                if rng.random() < 0.05:
                    # The connection stays usable: a command between the pushes.
                    self.conn.settimeout(10)
                    self.conn.send("GET", rng.choice(self.keys))
                    r = self.conn.read()
                    self.drain()
                    if isinstance(r, RespError):
                        self.sh.fail("watcher %d: GET answered %s" % (self.idx, r))
                    self.sh.count()
                    self.conn.settimeout(0.05)
            self.conn.close()
        except (OSError, ConnectionError) as e:
            self.sh.fail("watcher %d: connection lost: %s" % (self.idx, e))
            self.ready.set()

    def handle_frame(self, frame):
        if isinstance(frame, Push):
            self.handle(frame)
        else:
            self.sh.fail("watcher %d: reply %r with no command" % (self.idx, frame))


# ---- Pub/Sub ---------------------------------------------------------------------------------

def publisher(sh, port, pid_, channels, seed):
    rng = random.Random(seed)
    seq = collections.Counter()
    conn = Conn(port)
    sh.connected()
    try:
        while not sh.stop_lockers.is_set():
            ch = rng.choice(channels)
            seq[ch] += 1
            conn.call("PUBLISH", ch, "%d:%d" % (pid_, seq[ch]))
            sh.count()
            with sh.lock:
                sh.published[(ch, pid_)] = seq[ch]
            time.sleep(rng.random() * 0.005)
    except (OSError, ConnectionError, RespError) as e:
        sh.fail("publisher %d: %s" % (pid_, e))
    conn.close()


class Subscriber(threading.Thread):
    def __init__(self, sh, port, channels, idx):
        super().__init__(daemon=True)
        self.sh, self.port, self.channels, self.idx = sh, port, channels, idx
        self.seen = {}  # (kind, channel, publisher) -> last seq
        self.ready = threading.Event()
        self.done = threading.Event()

    def run(self):
        try:
            conn = Conn(self.port)
            self.sh.connected()
            conn.send("SUBSCRIBE", *self.channels)
            for _ in self.channels:
                conn.read()
            conn.send("PSUBSCRIBE", "soakchan:*")
            conn.read()
            self.ready.set()
            conn.settimeout(0.1)
            while not self.done.is_set():
                try:
                    m = conn.read()
                except socket.timeout:
                    continue
                if not isinstance(m, list):
                    self.sh.fail("subscriber %d: %r" % (self.idx, m))
                    continue
                kind = m[0]
                ch, payload = (m[1], m[2]) if kind == b"message" else (m[2], m[3])
                pub, seq = (int(x) for x in payload.decode().split(":"))
                key = (kind, ch.decode(), pub)
                if seq != self.seen.get(key, 0) + 1:
                    self.sh.fail("subscriber %d: %s %s from %d: %d after %d" % (
                        self.idx, kind.decode(), ch.decode(), pub, seq, self.seen.get(key, 0)))
                self.seen[key] = seq
                with self.sh.lock:
                    self.sh.messages += 1
            conn.close()
        except (OSError, ConnectionError, ValueError) as e:
            self.sh.fail("subscriber %d: %s" % (self.idx, e))
            self.ready.set()


# ---- churn: connections that die in every state -----------------------------------------------

def churner(sh, port, cid, seed, monitor_port):
    rng = random.Random(seed)
    check = Conn(monitor_port)
    n = 0
    while not sh.stop.is_set() and not sh.limit_reached():
        n += 1
        try:
            c = Conn(port)
            sh.connected()
            what = rng.randrange(6)
            if what == 0:
                key = "tk:churn:%d:%d" % (cid, n)
                if c.call("SETTP", key, "v") != 1:
                    sh.fail("SETTP %s on a fresh name answered 0" % key)
                c.reset()
                with sh.lock:
                    sh.resets += 1
                    sh.resets_holding += 1
                # The key must go with its owner, promptly.
                deadline = time.monotonic() + 5
                while check.call("EXISTS", key) == 1:
                    if time.monotonic() > deadline:
                        sh.fail("temporary key %s outlived its owner" % key)
                        break
                    time.sleep(0.01)
            elif what == 1:
                c.send("BLPOP", "churn:emptylist:%d" % cid, "5")
                time.sleep(rng.random() * 0.05)
                c.reset()
                with sh.lock:
                    sh.resets += 1
                    sh.resets_blocked += 1
            elif what == 2:
                c.send("BSETTP", "lock:%d" % rng.randrange(sh.args.lock_keys), "churner", "5")
                time.sleep(rng.random() * 0.05)
                c.reset()
                with sh.lock:
                    sh.resets += 1
                    sh.resets_blocked += 1
                    # It may have got the lock before dying: the watchers saw an ADD and a DEL.
                sh.count()
            elif what == 3:
                c.send("SUBSCRIBE", "soakchan:%d" % rng.randrange(4))
                c.read()
                c.close()
            elif what == 4:
                c.send_many([("MULTI",), ("SET", "churn:m%d" % cid, n), ("INCR", "churn:c%d" % cid)])
                c.close()
            else:
                c.send_many([("SET", "churn:p%d:%d" % (cid, i), "x" * 100) for i in range(200)])
                c.reset()
                with sh.lock:
                    sh.resets += 1
            sh.count()
        except (OSError, ConnectionError, RespError) as e:
            if not sh.stop.is_set():
                sh.fail("churner %d: %s" % (cid, e))
            time.sleep(0.1)
        time.sleep(rng.random() * 0.02)
    check.close()


# ---- persistence -----------------------------------------------------------------------------

def persister(sh, port):
    conn = Conn(port)
    sh.connected()
    next_save = time.monotonic() + sh.args.save_every
    next_rewrite = time.monotonic() + sh.args.rewrite_every
    while not sh.stop.is_set():
        now = time.monotonic()
        try:
            for kind, due in (("BGSAVE", next_save), ("BGREWRITEAOF", next_rewrite)):
                if now < due:
                    continue
                t = time.monotonic()
                try:
                    r = conn.call(kind)
                except RespError as e:
                    # Another child runs: BGSAVE SCHEDULE waits for it.
                    if kind == "BGSAVE" and "already in progress" not in str(e):
                        r = conn.call("BGSAVE", "SCHEDULE")
                    elif "already in progress" not in str(e):
                        raise
                    else:
                        r = str(e)
                with sh.lock:
                    sh.fork_windows.append((t, time.monotonic()))
                    if kind == "BGSAVE":
                        sh.bgsaves += 1
                    else:
                        sh.rewrites += 1
                if kind == "BGSAVE":
                    next_save = now + sh.args.save_every
                else:
                    next_rewrite = now + sh.args.rewrite_every
        except (OSError, ConnectionError, RespError) as e:
            sh.fail("persistence: %s" % e)
            return
        sh.stop.wait(0.1)
    conn.close()


# ---- probe (own process) and monitor ----------------------------------------------------------

def run_delay_ms(path):
    """Milliseconds a thread has waited for a CPU so far (the second field of schedstat), or 0."""
    try:
        with open(path) as f:
            return int(f.read().split()[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return 0.0


def probe_main(port, server_pid, threshold_ms, t0, stop, out):
    """Runs in its own process: PING after PING; sends back the worst round trips. Each comes
    with the time the server's event-loop thread and this process spent waiting for a CPU
    meanwhile (/proc/.../schedstat): a round trip that is mostly such waiting measures a busy
    machine, not the server."""
    conn = Conn(port)
    server_stat = "/proc/%d/schedstat" % server_pid
    pings = 0
    worst = []  # (ms, at_s, start_monotonic, end_monotonic, cpu_wait_ms)
    maxms = 0.0
    while not stop.is_set():
        w0 = run_delay_ms(server_stat) + run_delay_ms("/proc/self/schedstat")
        t = time.monotonic()
        try:
            r = conn.call("PING")
        except Exception as e:  # noqa: BLE001 - report anything
            out.put(("error", str(e)))
            return
        e = time.monotonic()
        ms = (e - t) * 1000
        pings += 1
        if r != "PONG":
            out.put(("error", "PING answered %r" % r))
            return
        if ms > maxms:
            maxms = ms
        if ms > threshold_ms or len(worst) < 5 or ms > min(w[0] for w in worst):
            wait = run_delay_ms(server_stat) + run_delay_ms("/proc/self/schedstat") - w0
            worst.append((ms, t - t0, t, e, wait))
            worst.sort(reverse=True)
            del worst[200:]
        time.sleep(0.005)
    out.put(("done", pings, maxms, worst))


def info(conn):
    text = conn.call("INFO").decode()
    d = {}
    for line in text.split("\r\n"):
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            d[k] = v
    return d


class Monitor(threading.Thread):
    def __init__(self, sh, port, proc):
        super().__init__(daemon=True)
        self.sh, self.port, self.proc = sh, port, proc
        self.peak = 0
        self.forks = 0
        self.max_fork_usec = 0
        self.fork_seen = []  # monotonic times when a new fork was noticed

    def run(self):
        conn = Conn(self.port)
        last_forks = None
        while not self.sh.stop.is_set():
            if self.proc.poll() is not None:
                self.sh.fail("the server exited (code %s)" % self.proc.returncode)
                self.sh.stop.set()
                self.sh.stop_lockers.set()
                return
            try:
                d = info(conn)
            except (OSError, ConnectionError, RespError) as e:
                self.sh.fail("monitor: %s" % e)
                return
            self.peak = max(self.peak, int(d.get("used_memory", 0)))
            forks = int(d.get("total_forks", 0))
            if last_forks is not None and forks != last_forks:
                self.fork_seen.append(time.monotonic())
            last_forks = forks
            self.forks = forks
            self.max_fork_usec = max(self.max_fork_usec, int(d.get("latest_fork_usec", 0)))
            self.sh.stop.wait(0.25)
        conn.close()
