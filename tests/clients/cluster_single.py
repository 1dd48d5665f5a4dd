#!/usr/bin/env python3
"""redis-py 4.3.4 (Debian's python3-redis) RedisCluster against a one-node cluster: the client
discovers the node with CLUSTER SLOTS, routes commands by slot, and runs set/get, mget over a
hash tag and a pipeline, as an application would against a one-node Redis 7.0 cluster.

Model. One server of the binary under test with cluster-enabled yes on a free loopback port in
a temporary directory; the check gives it every slot (CLUSTER ADDSLOTSRANGE 0 16383) with a
plain client and waits for cluster_state:ok, then connects RedisCluster to it. A lone node
knows no address of its own (no bus told it one), so CLUSTER SLOTS names it with an empty ip,
which redis-py replaces with the address it connected to, as it does for Redis.
Prints "ok: <what>" and exits 0, or prints why and exits 1.
Usage: cluster_single.py SERVER_BINARY
"""
import sys

from redis.cluster import RedisCluster

from _server import Server, wait_until


def main():
    with Server(sys.argv[1], ["--cluster-enabled", "yes", "--cluster-node-timeout", "500"],
                prefix="cluster-single-") as server:
        port = server.port
        plain = server.client()
        assert plain.execute_command("CLUSTER", "ADDSLOTSRANGE", "0", "16383") in ("OK", True)
        wait_until("cluster_state:ok", lambda: plain.cluster("info")["cluster_state"] == "ok")

        rc = RedisCluster(host="127.0.0.1", port=port, decode_responses=True)
        assert rc.set("foo", "bar")
        assert rc.get("foo") == "bar", rc.get("foo")
        assert rc.mset({"{user1}:a": "1", "{user1}:b": "2"})
        assert rc.mget("{user1}:a", "{user1}:b") == ["1", "2"]
        # Keys of different slots: the client splits the read by slot (mget_nonatomic).
        assert rc.mget_nonatomic("foo", "{user1}:a") == ["bar", "1"]
        pipe = rc.pipeline()
        pipe.set("p1", "x")
        pipe.incr("counter")
        pipe.get("p1")
        assert pipe.execute() == [True, 1, "x"]
        assert rc.keyslot("foo") == 12182
        nodes = rc.get_nodes()
        assert len(nodes) == 1 and nodes[0].port == port, nodes
        rc.close()
        print("ok: cluster_single (RedisCluster on a one-node cluster: set/get, mget, pipeline)")


if __name__ == "__main__":
    main()
