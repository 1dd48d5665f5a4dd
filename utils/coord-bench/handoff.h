// Lock hand-off after a crash: from the holder's abrupt close to the waiter holding the lock.
//
// One run: a fresh holder connection takes the lock, a fresh waiter connection starts waiting,
// then the holder's socket is closed without releasing anything (by default with SO_LINGER 0,
// so the server sees a reset, as when the holder's host cuts it off; `--close fin` sends an
// orderly FIN, as when the holder's process dies). The clock starts just before close() and
// stops when the waiter has the reply that makes it the holder. Modes:
//   settp-watchex  ours: the holder did SETTP; the waiter (RESP3) did WATCHEX on the lock and a
//                  SETTP that answered 0; on the `DEL` push it retries SETTP until it gets 1;
//   bsettp         ours: the waiter's BSETTP is blocked (the tool checks INFO clients
//                  blocked_clients before closing the holder); its reply 1 ends the run;
//   redis-ttl      the Redis recipe: the holder did SET lock token NX PX <ttl>; the waiter
//                  listens on __keyspace@0__:lock (CONFIG SET notify-keyspace-events KEA) and
//                  retries SET NX PX on `expired`/`del`. Nothing frees the lock but the TTL,
//                  so this measures how long a crashed holder blocks everyone.
//   ping           calibration, not a hand-off: one PING round trip on an open connection, the
//                  floor that the machine's scheduling puts under every figure above.
// A mode may name its own close, `bsettp@fin` or `bsettp@rst`, overriding `--close`, so that
// both ways can be measured in one interleaved run.
// Each run ends with the waiter releasing the lock (DELTP / DEL), and the next starts from an
// absent key, which a persistent observer connection checks. Targets take turns run by run.
// A run that fails (no hand-off within its deadline, a wrong reply) is counted and reported;
// the remaining runs continue.
#pragma once

namespace coordbench {

class Options;

// Runs the benchmark described by `options` (usage text in main.cc) and prints one result line
// per target. Returns 0 when it ran to the end, 1 on a setup failure, 2 on bad options.
int RunHandoff(Options& options);

}  // namespace coordbench
