// ioredis (5.4 and later) pipelines CLIENT SETINFO LIB-NAME and LIB-VER on every connection and
// ignores a refusal; this checks that our server takes them, shows them in CLIENT LIST, and that
// the client is ready and works afterwards (its ready check reads INFO).
//
// Model. One server of the binary under test on a free loopback port (asked of the kernel by
// binding port 0), no persistence; stopped whatever happened. Prints "ok: <what>" and exits 0,
// or prints why and exits 1. Needs the ioredis package: run.sh runs it only when node resolves
// it (NODE_PATH, or a node_modules beside this file).
// Usage: node ioredis_handshake.js SERVER_BINARY
"use strict";
const { spawn } = require("child_process");
const net = require("net");
const path = require("path");
const Redis = require("ioredis");

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

function field(line, name) {
  for (const pair of line.trim().split(" ")) {
    const eq = pair.indexOf("=");
    if (pair.slice(0, eq) === name) return pair.slice(eq + 1);
  }
  return undefined;
}

// Resolves once something accepts connections on `port` (bounded: 20 s).
async function waitListening(port) {
  const deadline = Date.now() + 20000;
  for (;;) {
    const up = await new Promise((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => { s.destroy(); resolve(true); });
      s.on("error", () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error("the server never listened on " + port);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main() {
  const server = path.resolve(process.argv[2]);
  const port = await freePort();
  const proc = spawn(server, ["--port", String(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no"], { stdio: "ignore" });
  let client = null;
  try {
    await waitListening(port);
    client = new Redis({ host: "127.0.0.1", port, lazyConnect: true, retryStrategy: () => null });
    await client.connect();
    // The handshake's SETINFO calls are sent before "ready"; wait until they show.
    const deadline = Date.now() + 10000;
    let line = "";
    for (;;) {
      line = await client.client("INFO");
      if (field(line, "lib-name") === "ioredis" && field(line, "lib-ver")) break;
      if (Date.now() > deadline) throw new Error("no lib-name/lib-ver after connect: " + line);
      await new Promise((r) => setTimeout(r, 20));
    }
    const version = require("ioredis/package.json").version;
    if (field(line, "lib-ver") !== version) throw new Error("lib-ver " + field(line, "lib-ver"));
    await client.set("k", "v");
    if ((await client.get("k")) !== "v") throw new Error("GET after the handshake");
    console.log("ok: ioredis " + version + " handshake: CLIENT SETINFO LIB-NAME/LIB-VER taken");
    return 0;
  } finally {
    if (client) client.disconnect();
    proc.kill("SIGTERM");
  }
}

main().then((rc) => process.exit(rc), (e) => {
  console.log("error: " + (e && e.stack ? e.stack : e));
  process.exit(1);
});
