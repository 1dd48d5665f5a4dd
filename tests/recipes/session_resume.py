#!/usr/bin/python3
"""Recipe: a lock that survives a reconnect, with a session (redis-py, RESP2).

Without a session a temporary key dies with its connection, so any network blip or automatic
reconnect of the client library loses the lock. `SESSION OPEN grace-ms` makes the keys this
connection creates belong to a session instead: when the connection ends the session waits,
silently (no DEL for watchers, no hand-off), for up to grace-ms, and `SESSION RESUME token` on
a new connection takes it back with every key and fencing token. If nobody resumes it in time
the keys are released as if the owner had disconnected.

redis-py calls `redis_connect_func` on every new connection it makes, so the resume rides along
with its own reconnect: the program never notices the blip, and a resume that comes too late
raises an error on the next command instead of silently carrying on without the lock.

Run against a redis-tp server: REDISTP_PORT=6379 python3 session_resume.py
Exits 0 and prints "ok: ..." when a lock survived a killed connection and a session that was
not resumed in time released its lock.
"""
import os
import sys
import time

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

PORT = int(os.environ.get("REDISTP_PORT", "6379"))


class SessionClient:
    """A redis-py client whose temporary keys belong to a session it resumes on reconnect."""

    def __init__(self, grace_ms):
        self.token = None
        self.redis = redis.Redis(
            port=PORT, single_connection_client=True, decode_responses=True,
            redis_connect_func=self._on_connect,
            # Retry a command once on a broken connection: the retry reconnects and resumes.
            retry=Retry(NoBackoff(), 1), retry_on_error=[redis.ConnectionError])
        self.token = self.redis.execute_command("SESSION", "OPEN", grace_ms)

    def _on_connect(self, connection):
        connection.on_connect()  # the usual handshake (AUTH, SELECT ...)
        if self.token is not None:
            connection.send_command("SESSION", "RESUME", self.token)
            if connection.read_response() != "OK":
                raise redis.ConnectionError("session not resumed")

    def close(self):
        """Ends the session now and releases its keys; the number released."""
        released = self.redis.execute_command("SESSION", "CLOSE")
        self.redis.close()
        return released


def drain_until(pubsub, wanted, deadline_s=5.0):
    """Reads `__watchex` messages until `wanted` arrives; every message data seen, in order."""
    seen, end = [], time.monotonic() + deadline_s
    while wanted not in seen:
        message = pubsub.get_message(timeout=max(0.0, end - time.monotonic()))
        assert message is not None, f"no {wanted} message; saw {seen}"
        if message["type"] == "message":
            seen.append(message["data"])
    return seen


def main():
    key = "recipe:session:lock"
    admin = redis.Redis(port=PORT, single_connection_client=True, decode_responses=True)
    admin.delete(key)
    watch = admin.pubsub()
    watch.subscribe(f"__watchex@0__:{key}")
    assert watch.get_message(timeout=5.0)["type"] == "subscribe"

    # 1. A blip: the server drops our connection; the next command reconnects and resumes.
    me = SessionClient(grace_ms=10000)
    token = me.redis.execute_command("SETTP", key, "me", "FENCE")
    assert token > 0
    old_client = me.redis.client_id()
    assert admin.execute_command("CLIENT", "KILL", "ID", old_client) == 1
    assert admin.exists(key) == 1, "the lock went with the connection"
    assert me.redis.get(key) == "me"  # reconnects, resumes, then runs GET
    assert me.redis.client_id() != old_client
    # "OBJECT FENCE" as one string: redis-py sends it as two arguments, and its reply parser for
    # OBJECT (made for OBJECT ENCODING and friends) stays out of the way.
    assert me.redis.execute_command("OBJECT FENCE", key) == token
    info = me.redis.execute_command("SESSION", "INFO")
    assert "state=attached" in info and "resumes=1" in info and "keys=1" in info, info
    # Still ours: DELTP releases it, and the watcher saw only that one DEL (none at the blip).
    assert me.redis.execute_command("DELTP", key) == 1
    assert drain_until(watch, "DEL") == ["ADD", "DEL"]
    assert me.close() == 0

    # 2. No resume within the grace: the server releases the lock when the grace ends.
    late = SessionClient(grace_ms=200)
    assert late.redis.execute_command("SETTP", key, "late") == 1
    assert drain_until(watch, "ADD") == ["ADD"]
    late.redis.connection.disconnect()  # the client goes away and stays away...
    assert drain_until(watch, "DEL") == ["DEL"]  # ...so after 200 ms the lock is released
    try:
        late.redis.get(key)  # ...and coming back too late is an error, not a silent loss
        raise AssertionError("a late resume succeeded")
    except redis.ResponseError as e:
        assert "invalid or expired session token" in str(e), e
    watch.close()
    print(f"ok: session_resume: lock (fence {token}) kept across a killed connection; "
          "an unresumed session's lock released at grace end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
