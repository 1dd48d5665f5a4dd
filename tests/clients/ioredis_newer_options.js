#!/usr/bin/env node
// ioredis sends the newer servers' options redis-tp answers, through its own API: zrevrank and
// zrank with "WITHSCORE" (Redis 7.2) and hscanStream with { noValues: true } (HSCAN NOVALUES,
// Redis 7.4): the two calls ioredis's own suite makes in its tests "zrevrank WITHSCORE" and
// "hscanStream NOVALUES", which fail against Redis 7.0. Then zscan with NOSCORES (8.0) and xread
// with the + id (7.4) through call().
//
// Model. One server of the binary under test on a free loopback port in a temporary directory;
// ioredis comes from wherever node resolves it (NODE_PATH, or a node_modules above this file).
// Prints "ok: <what>" and exits 0, "skip: <why>" when ioredis cannot be loaded or the binary is
// not redis-tp's, or prints why and exits 1. Bounded: the whole check gives up after 60 s.
// Usage: ioredis_newer_options.js SERVER_BINARY
"use strict";
const { spawn, execFileSync } = require("child_process");
const fs = require("fs");
const net = require("net");
const os = require("os");
const path = require("path");

let Redis;
try {
  Redis = require("ioredis");
} catch (e) {
  console.log("skip: ioredis check (ioredis is not installed)");
  process.exit(0);
}

const binary = path.resolve(process.argv[2]);
if (!execFileSync(binary, ["--version"]).toString().includes("redis-tp")) {
  console.log("skip: ioredis check (not a redis-tp binary; Redis 7.0 refuses these options)");
  process.exit(0);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

function expectEqual(what, got, want) {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g !== w) throw new Error(`${what}: got ${g}, want ${w}`);
}

async function waitForPing(port) {
  const deadline = Date.now() + 30000;
  for (;;) {
    const c = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0,
                          retryStrategy: () => null });
    c.on("error", () => {});  // a refused connection while the server starts is expected
    try {
      await c.connect();
      await c.ping();
      c.disconnect();
      return;
    } catch (e) {
      c.disconnect();
      if (Date.now() > deadline) throw new Error("the server did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function collect(stream) {
  return new Promise((resolve, reject) => {
    let items = [];
    stream.on("data", (page) => { items = items.concat(page); });
    stream.on("end", () => resolve(items));
    stream.on("error", reject);
  });
}

async function checks(redis) {
  await redis.flushall();
  // zrevrank / zrank WITHSCORE: [rank, score as a string].
  await redis.zadd("zset", 1, "one", 2, "two", 3, "three");
  expectEqual("zrevrank WITHSCORE", await redis.zrevrank("zset", "one", "WITHSCORE"), [2, "1"]);
  expectEqual("zrank WITHSCORE", await redis.zrank("zset", "three", "WITHSCORE"), [2, "3"]);
  expectEqual("zrank WITHSCORE of a missing member",
              await redis.zrank("zset", "none", "WITHSCORE"), null);
  // hscanStream NOVALUES: the fields alone, for a listpack and a hashtable hash.
  await redis.hset("object", { a: "1", b: "2", c: "3" });
  expectEqual("hscanStream noValues (listpack)",
              (await collect(redis.hscanStream("object", { noValues: true }))).sort(),
              ["a", "b", "c"]);
  const many = {};
  for (let i = 0; i < 700; i++) many[`field${i}`] = `value${i}`;
  await redis.hset("big", many);
  const fields = await collect(redis.hscanStream("big", { noValues: true, count: 50 }));
  expectEqual("hscanStream noValues (hashtable)", [...new Set(fields)].sort(),
              Object.keys(many).sort());
  // ZSCAN NOSCORES and XREAD + through call().
  expectEqual("zscan NOSCORES", await redis.call("zscan", "zset", "0", "NOSCORES"),
              ["0", ["one", "two", "three"]]);
  await redis.xadd("stream", "1-1", "f", "a");
  await redis.xadd("stream", "2-1", "f", "b");
  expectEqual("xread +", await redis.xread("STREAMS", "stream", "+"),
              [["stream", [["2-1", ["f", "b"]]]]]);
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "redistp-ioredis-"));
  const port = await freePort();
  const server = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", dir],
                       { stdio: "ignore" });
  const timer = setTimeout(() => {
    console.log("ioredis check: gave up after 60 s");
    server.kill("SIGKILL");
    process.exit(1);
  }, 60000);
  let rc = 0;
  try {
    await waitForPing(port);
    const redis = new Redis({ port, host: "127.0.0.1" });
    try {
      await checks(redis);
    } finally {
      redis.disconnect();
    }
    console.log("ok: ioredis " + require("ioredis/package.json").version +
                " zrevrank WITHSCORE, hscanStream NOVALUES, ZSCAN NOSCORES, XREAD +");
  } catch (e) {
    console.log("ioredis check: " + e.message);
    rc = 1;
  } finally {
    clearTimeout(timer);
    server.kill("SIGTERM");
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exit(rc);
}

main();
