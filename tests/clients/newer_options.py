#!/usr/bin/env python3
"""redis-py 4.3.4 (Debian's python3-redis) sends the newer servers' options redis-tp answers:
ZRANK/ZREVRANK ... WITHSCORE (Redis 7.2), HSCAN ... NOVALUES (7.4), ZSCAN ... NOSCORES (8.0),
XREAD ... STREAMS key + (7.4), SCRIPT SHOW (Valkey 8.0) and BITOP DIFF|DIFF1|ANDOR|ONE (8.2).

Model. One server of the binary under test on a free loopback port in a temporary directory.
redis-py 4.3.4 predates these options, so most go through execute_command, the path an
application on that version takes; where the library's own method passes the words through
(bitop's operation, xread's ids, hscan/zscan via execute_command's reply parsing) the method is
used. Each reply is checked as the library decodes it, in RESP2 (4.3.4 speaks nothing else).
Prints "ok: <what>" and exits 0, "skip: <why>" for a binary that is not redis-tp's, or prints
why and exits 1. Usage: newer_options.py SERVER_BINARY
"""
import os
import subprocess
import sys

import redis

from _server import Server


def expect(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def checks(r, raw):
    r.flushall()
    # redis-py 4.3.4 parses ZRANK's reply as an integer and pairs up HSCAN's and ZSCAN's pages
    # (5.x learned WITHSCORE, NOVALUES and NOSCORES), so an application on it that sends the
    # options registers its own reply callbacks, as here: the replies come back as sent.
    for name in ("ZRANK", "ZREVRANK", "HSCAN", "ZSCAN"):
        r.set_response_callback(name, lambda reply, **options: reply)
    # ZRANK / ZREVRANK WITHSCORE: [rank, score]; the score is a bulk string in RESP2.
    r.zadd("z", {"a": 1, "b": 2.5, "c": 3})
    expect("zrank withscore", r.execute_command("ZRANK", "z", "b", "WITHSCORE"), [1, "2.5"])
    expect("zrevrank withscore", r.execute_command("ZREVRANK", "z", "a", "WITHSCORE"), [2, "1"])
    expect("zrank withscore, no member", r.execute_command("ZRANK", "z", "x", "WITHSCORE"), None)
    # HSCAN NOVALUES: the fields alone, over a whole iteration of a hashtable hash.
    fields = {f"f{i}": f"v{i}" for i in range(600)}
    r.hset("h", mapping=fields)
    cursor, seen = "0", set()
    for _ in range(10000):
        cursor, page = r.execute_command("HSCAN", "h", cursor, "COUNT", 100, "NOVALUES")
        seen.update(page)
        if str(cursor) == "0":
            break
    expect("hscan novalues", seen, set(fields))
    # ZSCAN NOSCORES: the members alone.
    expect("zscan noscores", r.execute_command("ZSCAN", "z", 0, "NOSCORES"), ["0", ["a", "b", "c"]])
    # XREAD +: the last entry, through the library's own xread.
    r.xadd("s", {"f": "1"}, id="1-1")
    r.xadd("s", {"f": "2"}, id="2-1")
    expect("xread +", r.xread({"s": "+"}), [["s", [("2-1", {"f": "2"})]]])
    # SCRIPT SHOW: the cached body.
    body = "return redis.call('get', KEYS[1])"
    sha = r.script_load(body)
    expect("script show", r.execute_command("SCRIPT", "SHOW", sha), body)
    try:
        r.execute_command("SCRIPT", "SHOW", "0" * 40)
        raise AssertionError("script show of an unknown sha did not fail")
    except redis.exceptions.NoScriptError:
        pass
    # BITOP's newer operations, through the library's own bitop.
    r.set("x", b"\xf0")
    r.set("y", b"\x3c")
    for op, want in (("DIFF", b"\xc0"), ("DIFF1", b"\x0c"), ("ANDOR", b"\x30"), ("ONE", b"\xcc")):
        expect(f"bitop {op}", r.bitop(op, "d", "x", "y"), 1)
        expect(f"bitop {op} result", raw.get("d"), want)
    try:
        r.bitop("DIFF", "d", "x")
        raise AssertionError("bitop diff of one key did not fail")
    except redis.exceptions.ResponseError as e:
        expect("bitop diff error", str(e),
               "BITOP DIFF must be called with at least two source keys.")


def main():
    binary = os.path.abspath(sys.argv[1])
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    if "redis-tp" not in version:
        print("skip: redis-py newer options (not a redis-tp binary; Redis 7.0 refuses them)")
        return 0
    try:
        with Server(binary, prefix="redistp-newer-") as server:
            client = server.client()
            raw = server.client(decode_responses=False)  # bytes, for the bitmaps
            checks(client, raw)
            client.close()
            raw.close()
        print("ok: redis-py 4.3.4 sends ZRANK WITHSCORE, HSCAN NOVALUES, ZSCAN NOSCORES, "
              "XREAD +, SCRIPT SHOW and BITOP DIFF/DIFF1/ANDOR/ONE")
        return 0
    except Exception as e:  # noqa: BLE001 - any failure is the check's answer
        print(f"newer_options: {type(e).__name__}: {e}")
        return 1

if __name__ == "__main__":
    sys.exit(main())
