#!/usr/bin/python3
"""Recipe: a fair lock with BSETTP (redis-py, RESP2), and fencing tokens.

`BSETTP key value timeout FENCE` takes the key at once if it is free; otherwise the connection
waits in a first-come first-served queue for that key. When the holder releases it (DELTP) or
its connection ends, the server gives the key to the first waiter and answers only that one:
no thundering herd, no retry loop. With FENCE the reply is a fencing token that only grows.

Run against a redis-tp server: REDISTP_PORT=6379 python3 fair_lock.py
Exits 0 and prints "ok: ..." when three queued workers got the lock in the order they queued.
"""
import os
import sys
import threading
import time

import redis

PORT = int(os.environ.get("REDISTP_PORT", "6379"))


def connect():
    # A temporary key belongs to one connection: pin it (no pool spreading commands around).
    return redis.Redis(port=PORT, single_connection_client=True, decode_responses=True)


def acquire(conn, key, me, timeout_s=0):
    """Waits in the queue (timeout_s=0: for ever); the fencing token, or None on timeout."""
    token = conn.execute_command("BSETTP", key, me, timeout_s, "FENCE")
    return token or None


def release(conn, key):
    return conn.execute_command("DELTP", key) == 1


def wait_for_blocked(admin, count, deadline_s=5.0):
    """Waits until `count` connections are blocked (INFO clients), so queue order is known."""
    end = time.monotonic() + deadline_s
    while admin.info("clients")["blocked_clients"] != count:
        assert time.monotonic() < end, f"never saw {count} blocked clients"
        time.sleep(0.01)


def main():
    key = "recipe:fair"
    admin = connect()
    admin.delete(key)
    order = []  # (worker, token), appended while the worker holds the lock

    def worker(name):
        conn = connect()
        token = acquire(conn, key, name)
        order.append((name, token))
        assert conn.get(key) == name
        time.sleep(0.05)  # the critical section
        assert release(conn, key)
        conn.close()

    first = connect()
    first_token = acquire(first, key, "first")
    assert first_token, "a free lock was not granted at once"

    threads = []
    for i, name in enumerate(["A", "B", "C"]):
        t = threading.Thread(target=worker, args=(name,))
        t.start()
        wait_for_blocked(admin, i + 1)  # A queues before B, B before C
        threads.append(t)

    # Nobody else can take it meanwhile, not even with a zero-length wait.
    assert admin.execute_command("BSETTP", key, "late", 0.01) == 0

    assert release(first, key)
    for t in threads:
        t.join(10)
        assert not t.is_alive(), "a worker never got the lock"

    names = [name for name, _ in order]
    tokens = [token for _, token in order]
    assert names == ["A", "B", "C"], f"not served in queue order: {names}"
    assert first_token < tokens[0] < tokens[1] < tokens[2], f"tokens do not grow: {tokens}"
    assert admin.exists(key) == 0
    print(f"ok: fair_lock: served in queue order {names}, fencing tokens "
          f"{[first_token] + tokens} strictly increasing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
