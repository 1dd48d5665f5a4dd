#!/usr/bin/env python3
"""redis-py 4.3.4 (Debian's python3-redis) RedisCluster against a cluster of three masters made
by redis-cli --cluster create: the client discovers the three nodes, routes each key to its
slot's owner (set/get of 1000 keys, which land on every node), mset/mget over a hash tag, a
pipeline whose commands go to different nodes, and Pub/Sub: a message published on one node
reaches a subscriber connected to another (the bus carries it), as an application would use a
Redis 7.0 cluster.

Model. Three servers of the binary under test with cluster-enabled yes, each on a free loopback
port whose bus port (port + 10000) is free too, in temporary directories; Debian's redis-cli
(bounded by a timeout) joins them and splits the slots, then the check waits until every node
says cluster_state:ok and knows the three, and only then connects RedisCluster to one of them.
Prints "ok: <what>" and exits 0, or prints why and exits 1.
Usage: cluster_multi.py SERVER_BINARY
"""
import contextlib
import sys

from redis.cluster import RedisCluster

from _server import start_cluster, wait_until


def main():
    with contextlib.ExitStack() as stack:
        servers = start_cluster(stack, sys.argv[1], 3, "cluster-multi-")
        plains = [s.client() for s in servers]

        rc = RedisCluster(host="127.0.0.1", port=servers[0].port, decode_responses=True)
        assert sorted(n.port for n in rc.get_nodes()) == sorted(s.port for s in servers), \
            rc.get_nodes()
        for i in range(1000):
            assert rc.set("key:%d" % i, "v%d" % i)
        for i in range(1000):
            assert rc.get("key:%d" % i) == "v%d" % i
        sizes = [plain.dbsize() for plain in plains]
        assert sum(sizes) == 1000 and all(size > 0 for size in sizes), sizes

        # One hash tag, one slot, one node: mset and mget run there as single commands.
        assert rc.mset({"{user7}:name": "ann", "{user7}:age": "41"})
        assert rc.mget("{user7}:name", "{user7}:age") == ["ann", "41"]
        assert rc.mget_nonatomic("key:1", "{user7}:name", "key:999") == ["v1", "ann", "v999"]

        pipe = rc.pipeline()
        for i in range(20):
            pipe.incr("counter:%d" % i)
        pipe.get("key:500")
        assert pipe.execute() == [1] * 20 + ["v500"]

        # A subscriber on the third node, a publisher on the first: the bus carries it.
        sub = rc.pubsub(node=rc.get_node(host="127.0.0.1", port=servers[2].port))
        sub.subscribe("news")
        wait_until("the subscribe confirmation",
                   lambda: (sub.get_message(timeout=0.1) or {}).get("type") == "subscribe")
        assert plains[0].publish("news", "hello") == 0  # no subscriber on the first node
        got = []

        def delivered():
            message = sub.get_message(timeout=0.1)
            if message and message["type"] == "message":
                got.append(message)
            return bool(got)

        wait_until("the message published on another node", delivered, seconds=10)
        assert got[0]["channel"] == "news" and got[0]["data"] == "hello", got
        sub.close()
        rc.close()
        for plain in plains:
            plain.close()
        print("ok: cluster_multi (RedisCluster on three masters from redis-cli --cluster create:"
              " 1000 keys, hash-tag mget, pipeline, Pub/Sub across nodes)")


if __name__ == "__main__":
    main()
