#!/usr/bin/python3
"""Recipe: a lock with SETTP, waiting on the `__watchex` channel (redis-py, RESP2).

The lock is a temporary key: it lives exactly as long as the connection that created it, so a
crashed holder frees it at once. A waiter subscribes to `__watchex@<db>__:<key>` first and only
then tries SETTP; on 0 it waits for the DEL message and tries again, with no polling and no
window in which the release could be missed.

Run against a redis-tp server: REDISTP_PORT=6379 python3 lock_watchex.py
Exits 0 and prints "ok: ..." when the waiter got the lock after the holder's connection ended.
"""
import os
import signal
import subprocess
import sys
import threading
import time

import redis

PORT = int(os.environ.get("REDISTP_PORT", "6379"))


def connect():
    # One pinned connection per lock owner: a temporary key belongs to the connection that
    # created it, so a connection pool that spreads commands over several sockets would create
    # the key on one and try to release it from another.
    return redis.Redis(port=PORT, single_connection_client=True, decode_responses=True)


def acquire(conn, key, me, deadline_s):
    """Takes `key` for `me` on `conn`; True once held, False if `deadline_s` passes first."""
    channel = f"__watchex@{conn.connection.db}__:{key}"
    pubsub = conn.pubsub()
    pubsub.subscribe(channel)
    # Wait for the subscribe confirmation before SETTP: from then on no DEL can be missed.
    while pubsub.get_message(timeout=1.0) is None:
        pass
    try:
        end = time.monotonic() + deadline_s
        while conn.execute_command("SETTP", key, me) == 0:
            left = end - time.monotonic()
            if left <= 0:
                return False
            message = pubsub.get_message(timeout=left)
            # Any message (DEL, or an ADD followed by a DEL later) is a reason to try again.
            if message is None:
                return False
        return True
    finally:
        pubsub.close()


def release(conn, key):
    """DELTP deletes the key only if this connection still owns it."""
    return conn.execute_command("DELTP", key) == 1


def hold_forever(key):
    """The holder process: takes the lock, says so on stdout, and then just keeps it."""
    conn = connect()
    assert acquire(conn, key, f"holder:{os.getpid()}", 5.0)
    print("held", flush=True)
    while True:
        time.sleep(60)


def main():
    key = "recipe:lock"
    waiter = connect()
    waiter.delete(key)

    holder = subprocess.Popen([sys.executable, __file__, "--hold", key], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "held", "the holder could not take a free lock"
    assert waiter.get(key) == f"holder:{holder.pid}"
    # A second connection cannot take it while the holder lives.
    assert waiter.execute_command("SETTP", key, "waiter") == 0
    # DELTP from a connection that does not own the key leaves it alone.
    assert waiter.execute_command("DELTP", key) == 0

    # The holder's process is killed with SIGKILL while the waiter waits: nothing releases the
    # lock but the end of its connection. The waiter, subscribed, is told at once.
    threading.Timer(0.2, holder.send_signal, (signal.SIGKILL,)).start()
    started = time.monotonic()
    assert acquire(waiter, key, "waiter", 5.0), "the waiter never got the lock"
    waited = time.monotonic() - started
    holder.wait()
    assert waiter.get(key) == "waiter"
    assert release(waiter, key), "DELTP by the owner did not delete the lock"
    assert waiter.exists(key) == 0
    print(f"ok: lock_watchex: waiter took the lock {waited * 1000:.0f} ms after it started "
          "waiting (its holder was SIGKILLed 200 ms in)")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--hold"]:
        hold_forever(sys.argv[2])
    sys.exit(main())
