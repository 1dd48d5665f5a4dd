"""The lock clients: one class per system with the same calls (acquire, release, still_held,
renew_period, close), built from a plain dict `spec` so that a child process can build the same
client from its command line."""
import os
import time

import redis


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
