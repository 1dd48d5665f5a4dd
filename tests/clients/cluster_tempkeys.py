#!/usr/bin/env python3
"""redis-py 4.3.4 (Debian's python3-redis) RedisCluster and redis-tp's temporary keys: a lock
taken with SETTP through RedisCluster lands on the master that serves the key's slot (the
client finds the key in COMMAND's reply, as for any keyed command), TPINFO and OBJECT OWNER
reach it the same way, and when the holder's connection to that master closes, the lock is
released and handed to a BSETTP waiter of the same node, itself sent through another
RedisCluster; the waiter's reply is 1 and the key is its own.

Model. Three servers of the binary under test with cluster-enabled yes, joined and split by
Debian's redis-cli --cluster create (bounded by a timeout), as cluster_multi.py does. The waiter
runs in a thread (RedisCluster blocks in BSETTP); every wait is bounded.
Prints "ok: <what>" and exits 0, "skip: <why>" for a binary that is not redis-tp's, or prints
why and exits 1. Usage: cluster_tempkeys.py SERVER_BINARY
"""
import contextlib
import os
import subprocess
import sys
import threading

from redis.cluster import RedisCluster

from _server import start_cluster, wait_until


def main():
    binary = os.path.abspath(sys.argv[1])
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    if "redis-tp" not in version:
        print("skip: cluster_tempkeys (not a redis-tp binary: SETTP is ours)")
        return
    with contextlib.ExitStack() as stack:
        servers = start_cluster(stack, binary, 3, "cluster-tempkeys-")
        plains = [s.client() for s in servers]

        holder = RedisCluster(host="127.0.0.1", port=servers[0].port, decode_responses=True)
        key = "{orders}:lock"
        node = holder.get_node_from_key(key)
        owner_index = [s.port for s in servers].index(node.port)
        owner_plain = plains[owner_index]
        assert holder.execute_command("SETTP", key, "holder") == 1
        # The lock lives on its slot's master only, owned by the holder's connection there.
        sizes = [plain.dbsize() for plain in plains]
        assert sizes[owner_index] == 1 and sum(sizes) == 1, sizes
        owner = holder.object("OWNER", key)  # redis-py parses OBJECT by its infotype
        info = holder.execute_command("TPINFO", key)
        assert info[info.index("owner") + 1] == owner, info
        assert "id=%d " % owner in owner_plain.execute_command("CLIENT", "LIST"), owner
        assert holder.execute_command("SETTP", key, "again") == 0

        waiter = RedisCluster(host="127.0.0.1", port=servers[1].port, decode_responses=True)
        result = {}

        def wait_for_lock():
            result["reply"] = waiter.execute_command("BSETTP", key, "waiter", 20)
            result["owner"] = waiter.object("OWNER", key)

        thread = threading.Thread(target=wait_for_lock)
        thread.start()
        wait_until("the BSETTP waiter to block on the lock's node",
                   lambda: owner_plain.info("clients")["blocked_clients"] == 1)
        assert owner_plain.execute_command("TPWAITERS", key) != []
        # The holder leaves: its connections close, the lock goes to the waiter. (redis-py
        # 4.3.4's RedisCluster.close() returns connections to their pools without closing them.)
        holder.disconnect_connection_pools()
        holder.close()
        thread.join(timeout=20)
        assert not thread.is_alive(), "BSETTP was not served"
        assert result["reply"] == 1, result
        assert owner_plain.get(key) == "waiter"
        assert result["owner"] == owner_plain.execute_command(
            "TPINFO", key)[1], result
        assert result["owner"] != owner, (result, owner)
        waiter.disconnect_connection_pools()
        waiter.close()
        wait_until("the waiter's lock to go with its connections",
                   lambda: owner_plain.exists(key) == 0)
        for plain in plains:
            plain.close()
        print("ok: cluster_tempkeys (RedisCluster: SETTP on the slot's master, released on"
              " close and handed to a BSETTP waiter of that node)")


if __name__ == "__main__":
    main()
