#!/usr/bin/env python3
"""What current client libraries send on every connection, through Debian's redis-py (4.3.4):
CLIENT SETINFO as newer redis-py pipelines it after the handshake (4.3.4 predates it, so it is
sent with execute_command, the way a 5.x client's bytes look on the wire), the attributes read
back from CLIENT LIST, CLIENT NO-TOUCH, and WAITAOF with the AOF on.

Model. One server of the binary under test on a free loopback port in a temporary directory,
with appendonly yes and appendfsync always (so WAITAOF's local count is 1 at once); stopped
whatever happened. Prints "ok: <what>" and exits 0, "skip: <why>" for a binary that is not
redis-tp's (Redis 7.0 has none of these commands), or prints why and exits 1.
Usage: newer_handshake.py SERVER_BINARY
"""
import os
import subprocess
import sys

import redis

from _server import Server


def main():
    binary = os.path.abspath(sys.argv[1])
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    if "redis-tp" not in version:
        print("skip: newer handshake (not a redis-tp binary; Redis 7.0 refuses CLIENT SETINFO)")
        return 0
    with Server(binary, ["--appendonly", "yes", "--appendfsync", "always"],
                prefix="newer-handshake-") as server:
        r = server.client(socket_timeout=10)
        # The handshake of redis-py 5 / Jedis 5 / go-redis 9, on a pooled connection.
        assert r.execute_command("CLIENT SETINFO", "LIB-NAME", "redis-py") in (True, "OK")
        assert r.execute_command("CLIENT SETINFO", "LIB-VER", "4.3.4") in (True, "OK")
        me = r.client_info()
        assert me.get("lib-name") == "redis-py", me
        assert me.get("lib-ver") == "4.3.4", me
        # redis-py parses CLIENT LIST into dicts: the new fields come out as any other.
        mine = [c for c in r.client_list() if str(c["id"]) == str(me["id"])]
        assert mine and mine[0]["lib-name"] == "redis-py", mine
        try:
            r.execute_command("CLIENT SETINFO", "LIB-NAME", "has space")
            raise AssertionError("a value with a space was accepted")
        except redis.ResponseError as e:
            assert "cannot contain spaces" in str(e), e
        assert r.execute_command("CLIENT NO-TOUCH", "ON") in (True, "OK")
        r.set("k", "v")
        assert r.get("k") == "v"
        # WAITAOF numlocal numreplicas timeout: [local, replicas].
        assert r.execute_command("WAITAOF", 1, 0, 0) == [1, 0]
        print("ok: redis-py %s: CLIENT SETINFO shows in CLIENT LIST/INFO, NO-TOUCH, WAITAOF"
              % redis.__version__)
        return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # the harness reads the reason from the output
        print("error: %r" % (e,))
        sys.exit(1)
