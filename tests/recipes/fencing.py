#!/usr/bin/python3
"""Recipe: fencing tokens stop a holder that lost its lock without knowing (redis-py, RESP2).

A holder can stall (a GC pause, a swapped-out process, a frozen VM) long enough to lose its lock
and then carry on as if it still held it. `SETTP`/`BSETTP ... FENCE` reply a fencing token from a
counter that only grows; the holder passes it with every write, and the protected resource
refuses a write whose token is lower than the highest it has seen. Here the resource is a hash
on the same server guarded by a small Lua script; any store that can compare two integers works.

`CLIENT LEASE ms` makes the server end a connection it has heard nothing from for `ms`: that is
how the stalled holder loses its lock here (a crash or a network partition ends the same way).

Run against a redis-tp server: REDISTP_PORT=6379 python3 fencing.py
Exits 0 and prints "ok: ..." when the stale holder's late write was refused.
"""
import os
import sys
import time

import redis

PORT = int(os.environ.get("REDISTP_PORT", "6379"))

# Writes ARGV[2] into the resource only if ARGV[1] (the writer's token) is not below the highest
# token the resource has accepted; returns 1 if written, 0 if refused as stale.
FENCED_WRITE = """
local highest = tonumber(redis.call('HGET', KEYS[1], 'token') or '0')
if tonumber(ARGV[1]) < highest then return 0 end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'value', ARGV[2])
return 1
"""


def connect():
    return redis.Redis(port=PORT, single_connection_client=True, decode_responses=True)


def main():
    lock, resource = "recipe:fence:lock", "recipe:fence:resource"
    store = connect()
    store.delete(lock, resource)
    fenced_write = store.register_script(FENCED_WRITE)

    a = connect()
    a.execute_command("CLIENT", "LEASE", 300)  # stall 300 ms and the server lets go of us
    token_a = a.execute_command("SETTP", lock, "a", "FENCE")
    assert token_a > 0
    assert fenced_write(keys=[resource], args=[token_a, "a-1"]) == 1

    # B queues for the lock. A now stalls: it sends nothing, so its lease runs out, the server
    # closes its connection and hands the lock to B with a larger token.
    b = connect()
    token_b = b.execute_command("BSETTP", lock, "b", 10, "FENCE")
    assert token_b > token_a, f"B's token {token_b} is not above A's {token_a}"
    assert b.get(lock) == "b"
    assert fenced_write(keys=[resource], args=[token_b, "b-1"]) == 1

    # A wakes up, still believing it holds the lock, and writes with its old token: refused.
    assert fenced_write(keys=[resource], args=[token_a, "a-2"]) == 0
    assert store.hget(resource, "value") == "b-1"
    # A's connection is gone: redis-py reconnects, but the new connection owns nothing.
    try:
        released = a.execute_command("DELTP", lock)
    except redis.ConnectionError:
        released = a.execute_command("DELTP", lock)
    assert released == 0 and b.get(lock) == "b"

    assert b.execute_command("DELTP", lock) == 1
    store.delete(resource)
    print(f"ok: fencing: stale holder's write with token {token_a} refused after "
          f"{token_b} wrote")
    return 0


if __name__ == "__main__":
    sys.exit(main())
