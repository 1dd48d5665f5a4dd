#!/usr/bin/python3
"""Recipe: leader election with BSETTP, observed over `__watchex` (redis-py, RESP2).

Every candidate campaigns with `BSETTP election <its name> 0 FENCE`: the first becomes leader,
the others queue in arrival order. The leader leads for as long as its connection lives; when
it resigns (DELTP) or dies, the server makes the next candidate leader at once, with a fencing
token (its term) larger than any before: FIFO succession, one candidate woken per change.
Anyone can observe: `GET election` names the leader, and a subscriber to
`__watchex@0__:election` hears DEL and ADD as leadership passes.

Run against a redis-tp server: REDISTP_PORT=6379 python3 election.py
Exits 0 and prints "ok: ..." when leadership passed c1 -> c2 (resign) -> c3 (c2 killed).
"""
import os
import signal
import subprocess
import sys
import time

import redis

PORT = int(os.environ.get("REDISTP_PORT", "6379"))
KEY = "recipe:election"


def connect():
    return redis.Redis(port=PORT, single_connection_client=True, decode_responses=True)


def campaign(name):
    """A candidate process: waits to lead, says so, then leads until told to resign or killed."""
    conn = connect()
    term = conn.execute_command("BSETTP", KEY, name, 0, "FENCE")
    print(f"leader {name} {term}", flush=True)
    sys.stdin.readline()  # the parent says "resign" (or the process is killed)
    conn.execute_command("DELTP", KEY)
    print(f"resigned {name}", flush=True)


def start_candidate(name):
    return subprocess.Popen([sys.executable, __file__, "--campaign", name],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def wait_for_blocked(admin, count, deadline_s=5.0):
    end = time.monotonic() + deadline_s
    while admin.info("clients")["blocked_clients"] != count:
        assert time.monotonic() < end, f"never saw {count} blocked clients"
        time.sleep(0.01)


def next_leader(observer, conn, deadline_s=5.0):
    """Reads the observer's messages until the key is ADDed again; returns GET's answer."""
    end = time.monotonic() + deadline_s
    while True:
        message = observer.get_message(timeout=max(0.0, end - time.monotonic()))
        assert message is not None, "no leader change observed"
        if message["type"] == "message" and message["data"] == "ADD":
            return conn.get(KEY)


def main():
    observer_conn = connect()
    observer_conn.delete(KEY)
    observer = observer_conn.pubsub()
    observer.subscribe(f"__watchex@0__:{KEY}")
    assert observer.get_message(timeout=5.0)["type"] == "subscribe"

    c1 = start_candidate("c1")
    word, name, term1 = c1.stdout.readline().split()
    assert (word, name) == ("leader", "c1")
    assert next_leader(observer, observer_conn) == "c1"
    c2 = start_candidate("c2")
    wait_for_blocked(observer_conn, 1)
    c3 = start_candidate("c3")
    wait_for_blocked(observer_conn, 2)

    c1.stdin.write("resign\n")
    c1.stdin.flush()
    assert c1.stdout.readline().split() == ["resigned", "c1"]
    assert next_leader(observer, observer_conn) == "c2"
    word, name, term2 = c2.stdout.readline().split()
    assert (word, name) == ("leader", "c2")

    c2.send_signal(signal.SIGKILL)  # the leader's process dies: no resign, no TTL to wait out
    assert next_leader(observer, observer_conn) == "c3"
    word, name, term3 = c3.stdout.readline().split()
    assert (word, name) == ("leader", "c3")
    assert int(term1) < int(term2) < int(term3), "terms must grow"

    c3.stdin.write("resign\n")
    c3.stdin.flush()
    for c in (c1, c2, c3):
        c.wait(5)
    assert observer_conn.exists(KEY) == 0
    observer.close()
    print(f"ok: election: c1 -> c2 (resigned) -> c3 (c2 killed), terms {term1} < {term2} < "
          f"{term3}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--campaign"]:
        campaign(sys.argv[2])
        sys.exit(0)
    sys.exit(main())
