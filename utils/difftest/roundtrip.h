// Persistence round trips: whatever a server writes, it loads again, and so do Debian's checkers.
//
// Model. With --round-trips N the stream holds, about once every N blocks, a round-trip step
// (conn kRoundTripConn, argv {"ROUNDTRIP", kind, options...}), drawn from a random source of its
// own so the commands around it are those of the same seed without round trips. The runner runs
// it on both servers, each through a control connection of its own (never one of the stream's,
// which may be inside MULTI):
//   reload           DEBUG RELOAD (SAVE, empty, load the RDB file);
//   loadaof          the AOF switched on if it is off (waiting for its first rewrite), then
//                    DEBUG LOADAOF;
//   rewrite          BGREWRITEAOF, waiting for it to end, then DEBUG LOADAOF (what the rewrite
//                    wrote is what is loaded, with the AOF on or off);
//   bgsave-restart   BGSAVE, waiting for it to end, SIGKILL, a start with appendonly no (so the
//                    RDB file is loaded);
//   appendonly       CONFIG SET appendonly no then yes (or just yes), waiting for the rewrite,
//                    then DEBUG LOADAOF;
//   crash-restart    the AOF on with appendfsync always, SIGKILL, a start with appendonly yes
//                    (so the AOF is loaded).
// Options vary what is written: aof-use-rdb-preamble (an RDB base or a base of commands),
// aof-timestamp-enabled and rdbcompression, set on both servers before (rdbchecksum cannot be
// changed at run time in Redis 7.0).
//
// Checks. Before and after, each side's data is read whole (Snapshot): DEBUG DIGEST, and per
// database and key the type, whether it has a TTL, and its value in a canonical form (a set's or
// hash's members sorted, a stream's entries, metadata, groups, pending entries and consumers with
// their idle times left out), and the function libraries. A side whose data changed is a finding;
// so are two sides whose data differ, before or after (their DEBUG DIGESTs are not compared with
// each other: a relative TTL becomes an absolute time on each server's clock). Every file a round
// trip leaves (dump.rdb, the AOF directory through its manifest) must be accepted by Debian's
// redis-check-rdb / redis-check-aof, on both sides (a refusal of Redis's own file is reported
// too). On our server only, a temporary key (SETTP) owned by the control connection is made after
// the first snapshot: each kind ends with a load (or a new process), after which it must be gone
// and its owner must own nothing. A server that stops answering, a child that fails or does not
// end, a start that fails: findings.
//
// Restarts. A killed server comes back on its port and directory with the configuration the
// stream gave it (the encoding thresholds on its command line, so that it loads under them;
// notify-keyspace-events and the persistence options by CONFIG SET after), and every connection
// of the stream, the subscriber and tracking are opened again, alike on both sides. Hashes are
// loaded with hash-max-listpack-entries 0 and the threshold put back after: a hash-table hash is
// written in each server's own table order, and a small one would come back as a listpack in
// that order, after which HGETALL would differ for no fault of either (the DEBUG RELOAD steps of
// the generator do the same).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "generator.h"
#include "resp.h"

namespace difftest {

constexpr int kRoundTripConn = -1;

inline bool IsRoundTrip(const Step& s) { return s.conn == kRoundTripConn; }

// The argv of a round-trip step, drawn from `rng`.
std::vector<std::string> DrawRoundTrip(Rng& rng);

// What was run and checked, for the summary line.
struct RoundTripStats {
  std::map<std::string, long long> by_kind;
  long long files_checked = 0;
  long long keys_compared = 0;
  long long temp_keys = 0;
  // Changes both servers made to their own data alike (Redis 7.0's behaviour, which ours
  // reproduces): counted, and the first one kept as an example, not a finding.
  long long alike_changes = 0;
  std::string alike_example;
  bool log_alike = false;  // each one on stderr too (not with --quiet)
  // Keys Redis's AOF lost to its BITFIELD ... OVERFLOW FAIL (see LostZeroStrings), deleted on
  // ours too so the two go on alike.
  long long redis_bitfield_losses = 0;
  // Sorted-set members whose -0 score both servers had set to 0 before a round trip.
  long long negative_zeros = 0;
  std::string Summary() const;
};

// A side's data, read whole through one connection (left in database 0).
struct Snapshot {
  std::string digest;
  // "<db> <key>" (the key quoted) -> "<type> <ttl|no-ttl> <canonical value>".
  std::map<std::string, std::string> keys;
  // The same names -> {database, key as stored}.
  std::map<std::string, std::pair<std::string, std::string>> names;
  // Sorted-set members whose score is -0: {database, key, member}.
  std::vector<std::vector<std::string>> negative_zeros;
  std::string functions;
  std::string error;  // set when the server could not be read
};
Snapshot TakeSnapshot(Connection& c);
// The differences between two snapshots, at most a few lines; empty when they agree.
// `digest`: compare the DEBUG DIGESTs too (one server before and after).
std::string DiffSnapshots(const Snapshot& before, const Snapshot& after, bool digest);

// The keys of `before` missing from `after` whose value was a string of zero bytes: what a
// BITFIELD whose writes all failed (OVERFLOW FAIL) made without Redis 7.0 propagating it
// (KNOWN-DIFFERENCES.md): Redis's AOF does not have them.
std::vector<std::string> LostZeroStrings(const Snapshot& before, const Snapshot& after);

// Runs redis-check-rdb on `dir`/dump.rdb and redis-check-aof on the manifest in
// `dir`/appendonlydir when they exist; returns the refusals (empty when all is well) and counts
// the files checked in `stats`.
std::string CheckFiles(const std::string& dir, RoundTripStats& stats);

// INFO persistence as field -> value.
std::map<std::string, std::string> PersistenceInfo(Connection& c);
// Waits (bounded) until no child runs and no rewrite is scheduled; false with `why` otherwise.
bool WaitPersistenceIdle(Connection& c, std::string& why);

}  // namespace difftest
