// Fan-out latency: how long one key change takes to reach every connection that watches it.
//
// Each target (a server and the way it notifies) gets W watcher connections on one key (named
// after the target, so targets may share a server) and a
// writer connection that alternately creates and deletes the key (SET, DEL, SET, ...), one
// change at a time. For every change the time just before the writer's command is sent is
// compared with the time each watcher's read returned the notification; the result is one
// latency per (change, watcher) pair, summarised as p50/p90/p99/max, and one per change up to
// its last watcher's read (last_p50_us / last_p99_us: the whole fan-out). Modes:
//   watchex3  our WATCHEX on RESP3 connections (HELLO 3): `>3 watchex <key> ADD|DEL` pushes;
//   watchex2  our WATCHEX on RESP2 connections: the same array in-band;
//   keyspace  Redis keyspace notifications (CONFIG SET notify-keyspace-events KEA is sent by
//             the writer): watchers SUBSCRIBE __keyspace@0__:<key> and get `set` / `del`;
//   watchex-channel  our existence events over Pub/Sub: watchers SUBSCRIBE
//             __watchex@0__:<key> and get `ADD` / `DEL` messages (no configuration);
//   publish   plain Pub/Sub: watchers SUBSCRIBE <key> and the writer, instead of SET/DEL,
//             sends PUBLISH <key> ADD|DEL, whose reply must count every watcher.
// All connections of all targets live in one epoll loop in one thread, with CLOCK_MONOTONIC
// stamps taken right after each read. Targets take turns change by change (change 1 on the
// first, change 1 on the second, ..., then change 2 ...), so whatever else the machine does
// falls on both alike. The loop reads ready sockets one after another, so a figure includes the
// time the tool needs to sweep the watchers; that cost is the same for every target.
//
// Correctness is checked as it goes: the n-th notification a watcher receives must be for the
// n-th change (ADD/set after a SET, DEL/del after a DEL). A notification later than the
// per-change timeout (a `timeouts` count) still counts when it comes, up to a final drain of at
// least 2 s; `lost` counts those that never came, `disorder` those of the wrong kind (a lost
// or reordered notification), `unexpected` frames that fit no change. None of them stops the
// run; all are reported.
#pragma once

namespace coordbench {

class Options;

// Runs the benchmark described by `options` (see the usage text in main.cc) and prints one
// result line per target. Returns 0 when it ran to the end, 1 when a server failed (a
// connection closed or an unexpected reply during setup), 2 on bad options.
int RunFanout(Options& options);

}  // namespace coordbench
