// The comparison run: both servers, a few connections to each, steps executed in lock-step
// and compared under the policy table, and the shrinker that turns a divergence into a minimal
// sequence.
//
// Model. The two sides are twins: connection i to our server and connection i to Redis receive
// the same requests at the same moment (both are sent before either reply is read), so anything
// time-dependent drifts by at most one pipelined batch. The runner follows each connection's MULTI
// state from the replies, so the elements of an EXEC reply are compared under the rule of the
// command that queued them (a TTL inside a transaction keeps its tolerance).
//
// A step whose reply order depends on an encoding or whose result on the scores (policy.h,
// kEncodingOrder, kLexRange) ends its pipeline batch, so that when its replies differ the
// encodings or scores can be asked on the same connections before anything else runs there.
//
// Notification streams (streams.h). With StreamOptions::enabled each side also has a subscriber
// connection, and each step is followed by a sentinel PUBLISH on its own connection (pipelined
// with the step, or, after MULTI/EXEC/DISCARD/RESET, which end their batch, sent once the reply
// tells whether the connection is still inside MULTI). After a batch's replies the runner reads
// each subscriber up to each sentinel and compares the two message sequences of every step
// exactly, after its reply: a difference is a divergence of that step (Outcome::stream). With
// tracking, every command connection redirects its invalidations to the subscriber (again after
// a RESET, which turns tracking off); in BCAST mode, whose invalidations Redis sends when its
// loop goes to sleep, every step is a batch of its own with its sentinel after the reply. A probe
// (OBJECT ENCODING, ZRANGE) that the comparison sends is followed by a sentinel whose messages
// are read and dropped, since they are the tester's, not the stream's.
//
// Persistence round trips (roundtrip.h): a round-trip step is a batch of its own, run on both
// servers through a control connection per side (runner_roundtrip.cc); with round trips on,
// every reset also switches the AOF off again once no child runs.
//
// Tracking tables. With tracking, a third connection to each side (`probe`) reads INFO's
// tracking_total_keys, _items and _prefixes after every batch: a key remembered or
// forgotten on one side only (a read that tracks where Redis does not, an invalidation dropped
// silently) shows at the batch that caused it, not commands later when the key changes, and a
// divergence found that way shrinks like any other (the last step of the batch is the step).
//
// SORT and errno. Redis 7.0's numeric SORT tests errno after strtod without clearing it, and an
// ERANGE left by an earlier command survives until something else sets errno, whose timing the
// tester does not control (KNOWN-DIFFERENCES.md). Every SORT and SORT_RO outside MULTI is
// therefore preceded, in the same pipeline, by a request that clears errno and changes nothing
// (kErrnoReset), whose reply is dropped; the SORT's reply and messages are then compared in full.
//
// Shrinking (delta debugging). A candidate is a subset of the steps before the divergent one,
// plus that step. Each candidate is replayed from scratch: crashed servers restarted, every
// connection reopened (so database, protocol, name and MULTI state start clean) and FLUSHALL.
// The candidate "fails" when its first divergence is its last step. The shrinker first looks
// for a failing suffix of doubling length, then removes chunks of it (halves, quarters, ...
// single steps) while it still fails. It is bounded in replays and in time.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "command_table.h"
#include "generator.h"
#include "resp.h"
#include "roundtrip.h"
#include "server_proc.h"
#include "streams.h"

namespace difftest {

struct Outcome {
  bool same = true;
  Value ours;
  Value theirs;
  std::string why;
  // A difference in the messages the subscribers received after the step (the replies were the
  // same: `reply` is Redis's); `ours` and `theirs` are then arrays of those messages.
  bool stream = false;
  std::string reply;
};

class Runner {
 public:
  Runner(ServerProcess& ours, ServerProcess& theirs, const CommandTable& table, int connections,
         const StreamOptions& streams, bool round_trips = false);

  // Restarts dead servers, reopens every connection and flushes both servers.
  bool Reset(std::string& error);
  // Runs steps[begin, end) on both servers and compares the replies in order. Consecutive
  // steps on the same connection are pipelined (up to kMaxPipeline): a connection's commands
  // run in order whatever the batching, and another connection's step waits for every reply
  // before it, so the interleaving is exactly the stream's. Returns the index of the first
  // divergence (its outcome in `bad`) or -1.
  long Run(const std::vector<Step>& steps, size_t begin, size_t end, Outcome& bad);
  // Replays `steps` from a reset; returns the index of the first divergence, or -1.
  // `last` receives the outcome at that index.
  long Replay(const std::vector<Step>& steps, Outcome& last);
  // Shrinks steps[0..failing] (the last one divergent) to a small sequence that still fails
  // at its last step. Bounded by `max_replays` and `budget`.
  std::vector<Step> Shrink(const std::vector<Step>& steps, int max_replays,
                           std::chrono::seconds budget);
  int replays() const { return replays_; }
  // Replies compared so far that were errors, and that used a RESP3-only type.
  long long error_replies() const { return error_replies_; }
  long long resp3_replies() const { return resp3_replies_; }
  // Subscriber messages compared so far (each side's count; sentinels not included).
  long long messages_compared() const { return messages_compared_; }
  const RoundTripStats& round_trip_stats() const { return round_trip_stats_; }
  void set_log_alike(bool on) { round_trip_stats_.log_alike = on; }

  // The policy name of a request: "get", or "client|list" for a container's subcommand.
  std::string PolicyName(const std::vector<std::string>& argv) const;

 private:
  struct Side {
    ServerProcess* server;
    std::vector<std::unique_ptr<Connection>> conns;
    Subscriber subscriber;
    Connection control;  // the round trips' own connection
    bool ours = false;
    Connection probe;  // INFO's tracking counts (with tracking): never tracking, never in MULTI
  };
  struct TxState {
    bool in_multi = false;
    std::vector<std::string> queued;  // policy names of the queued commands
  };
  static constexpr size_t kMaxPipeline = 64;
  bool OpenAll(Side& side, std::string& error);
  // Compares the two replies to `step` and follows its connection's MULTI state. `a` and `b`
  // are the step's connections, for the encoding probe of kEncodingOrder replies.
  Outcome Compare(const Step& step, Value ours, Value theirs, Connection& a, Connection& b);
  bool ProbeEncodings(const Step& step, const std::string& name, size_t reply_size, Connection& a,
                      Connection& b, bool& unordered, std::string& why);
  bool ProbeScores(const Step& step, Connection& a, Connection& b, bool& mixed, std::string& why);
  // True when the SORT's source is a sorted set holding a score that strtod reads with ERANGE
  // (a subnormal such as 5e-324): Redis 7.0's SORT converts such a set to its skiplist form,
  // reading every score again, and its stale-errno refusal then comes from the SORT itself,
  // after the tester's errno reset. Asked on both sides alike.
  bool SortSourceSetsErrno(const Step& step, Connection& a, Connection& b);
  void Track(const Step& step, const Value& reply);
  // Compares the messages both subscribers received after `step` (whose reply was `reply`);
  // `exec_ran_sort`: the step is an EXEC that ran a SORT (its messages in any order).
  Outcome CompareStreams(const Step& step, std::vector<Value> ours, std::vector<Value> theirs,
                         const Value& reply, bool exec_ran_sort = false);
  // Publishes one sentinel on each of `a` and `b` and reads both subscribers up to it into
  // `ours` and `theirs`; false (with the kLost value last) when a side is lost.
  // Turns client tracking on for command connection `c` of `side`, redirected to its
  // subscriber, when the streams include tracking; false when the server refuses.
  bool Retrack(Connection& c, Side& side);
  bool SyncStreams(Connection& a, Connection& b, std::vector<Value>& ours,
                   std::vector<Value>& theirs);
  bool Fails(const std::vector<Step>& candidate);
  // After a batch (whose last step Redis answered `reply`): compares the sizes of the two
  // tracking tables; false, with `bad` the divergence, when they differ.
  bool SameTrackingTables(const Value& reply, Outcome& bad);

  // --- persistence round trips (runner_roundtrip.cc) ---
  // Runs a round-trip step on both sides and checks it (see roundtrip.h).
  Outcome RoundTrip(const Step& step);
  // One side's part: the options, the kind, hashes loaded as hash tables. Empty, or what went
  // wrong.
  std::string RunRoundTrip(Side& side, const std::vector<std::string>& argv);
  // SIGKILL and a start with `extra` arguments plus the configuration the stream gave the side,
  // then every connection opened again; empty, or what went wrong.
  std::string KillAndRestart(Side& side, const std::vector<std::string>& extra);
  // The AOF on (switched on and its first rewrite waited for, if it was off).
  std::string EnsureAof(Side& side);
  // Every connection of the side opened again after a restart, as a reset opens them but
  // without emptying the data.
  bool Reconnect(Side& side, std::string& error);
  // Opens the stream's connections, the subscriber and tracking (OpenAll's and Reconnect's part).
  bool OpenStreamConnections(Side& side, std::string& error);
  // Reads our subscriber up to a sentinel of ours alone and drops what came: the messages of a
  // command the tester sent to our server only. False when the subscriber is lost.
  bool DrainOurs();
  // With round trips: no child left and the AOF off, as every replay starts.
  bool PersistenceBaseline(Side& side, std::string& error);

  Side ours_;
  Side theirs_;
  const CommandTable& table_;
  std::vector<TxState> tx_;
  int replays_ = 0;
  long long error_replies_ = 0;
  long long resp3_replies_ = 0;
  StreamOptions streams_;
  uint64_t sentinel_ = 0;  // the number of the last sentinel published
  bool probed_ = false;    // Compare() sent a probe whose messages must be dropped
  long long messages_compared_ = 0;
  bool round_trips_ = false;
  RoundTripStats round_trip_stats_;
};

}  // namespace difftest
