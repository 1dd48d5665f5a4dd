#!/usr/bin/python3
"""Recipe: a TTL lock with a token, released without Lua (redis-py, RESP2).

The classic Redis lock is `SET lock <token> NX PX <ms>`: the holder picks a random token, and
the key expires on its own if the holder dies. Its release must not delete a lock that already
expired and was taken by someone else, so it has always been a compare-and-delete Lua script.
`DELIFEQ lock <token>` (Valkey 9.0) and `DELEX lock IFEQ <token>` (Redis 8.4) are that script as
one command, and `SET lock <token> IFEQ <token> PX <ms>` renews the lease only while the key
still holds the token. Each is atomic, so no WATCH/MULTI and no script cache.

The program checks that the commands and the script decide alike: a holder whose lease ran out
cannot renew or release the lock its successor took, with either form.

Run against a redis-tp server: REDISTP_PORT=6379 python3 token_lock.py
Exits 0 and prints "ok: ..." when every release and renewal answered as expected.
"""
import os
import secrets
import sys
import time

import redis

PORT = int(os.environ.get("REDISTP_PORT", "6379"))

# What DELIFEQ replaces: delete KEYS[1] only if it still holds ARGV[1] (the caller's token).
RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


def acquire(conn, lock, token, lease_ms):
    """Takes `lock` with `token` for `lease_ms` if nobody holds it; True if taken."""
    return conn.set(lock, token, nx=True, px=lease_ms) is True


def renew(conn, lock, token, lease_ms):
    """Extends the lease only while `lock` still holds `token`; True if renewed."""
    # redis-py turns SET's OK into True, and the nil of a refused condition into None.
    return conn.execute_command("SET", lock, token, "IFEQ", token, "PX", lease_ms) is True


def release(conn, lock, token):
    """Deletes `lock` only if it still holds `token`: True if this call released it."""
    return conn.execute_command("DELIFEQ", lock, token) == 1


def release_delex(conn, lock, token):
    """The same release with Redis 8.4's spelling."""
    return conn.execute_command("DELEX", lock, "IFEQ", token) == 1


def wait_gone(conn, key, deadline_s):
    """Polls until `key` no longer exists (its lease ran out); False after `deadline_s`."""
    end = time.monotonic() + deadline_s
    while conn.exists(key):
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def main():
    lock = "recipe:token:lock"
    conn = redis.Redis(port=PORT, decode_responses=True)
    conn.delete(lock)
    release_script = conn.register_script(RELEASE_SCRIPT)

    for name, do_release in (("DELIFEQ", release), ("DELEX IFEQ", release_delex),
                             ("Lua", lambda c, k, t: release_script(keys=[k], args=[t]) == 1)):
        a, b = secrets.token_hex(16), secrets.token_hex(16)
        assert acquire(conn, lock, a, 10000)
        assert not acquire(conn, lock, b, 10000)
        assert renew(conn, lock, a, 10000) and not renew(conn, lock, b, 10000)
        # A stalls past its lease: shorten it (as time would) and let it run out.
        assert renew(conn, lock, a, 50)
        assert wait_gone(conn, lock, 5.0), "the lease did not run out"
        assert acquire(conn, lock, b, 10000)
        # A wakes up: its renewal and its release must not touch B's lock.
        assert not renew(conn, lock, a, 10000)
        assert not do_release(conn, lock, a), f"{name}: A released B's lock"
        assert conn.get(lock) == b
        assert do_release(conn, lock, b), f"{name}: B could not release its own lock"
        assert not conn.exists(lock)

    print("ok: token lock: DELIFEQ, DELEX IFEQ and the Lua release agree; "
          "a stale holder neither renewed nor released")
    return 0


if __name__ == "__main__":
    sys.exit(main())
