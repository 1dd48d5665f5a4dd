// The reproducible stream of random commands.
//
// Model. A Generator is a pure function of (seed, command table): the same seed over the same
// table yields the same steps, whatever the servers answer, so a run can be replayed from its
// seed alone. The random source is our own xoshiro256** (std::uniform_*_distribution are not
// specified bit-for-bit across standard libraries), and the table is sorted by name.
//
// A step is one request on one of a few connections. Each call to Next() appends a block: one
// step, or a few that only make sense together (WATCH ... MULTI ... EXEC on one connection with
// another connection writing in between). Commands come from three sources:
//   - hand-written families (strings and bitmaps, keys, expiry, transactions, connection) that
//     know realistic shapes;
//   - the generic generator, which walks the COMMAND DOCS argument tree of any sendable command;
//   - hostile mutations of either (missing or extra arguments, unknown options, junk numbers).
// Arguments come from small pools so that keys collide and edge values recur: a handful of keys,
// integers at the 64-bit edges and just past them, floats with inf/nan, empty and binary strings.
//
// Determinism of expiry. Every relative TTL is either <= 0 (already past) or >= 100,000 s, and
// every absolute time is before 2021 or after 2096, so no key ever expires during a run. SET
// gets future absolute times only: with a past EXAT/PXAT both servers store a key that is
// already expired, which DBSIZE and MEMORY USAGE still see until the active expiry cycle
// reclaims it, on the clock (EXPIREAT/GETEX with a past time delete at once and are fine).
// Mutations that put a junk number into a timed command use 10^12 instead of a small positive
// one. Sizes and bit offsets are bounded so no command allocates more than a few KB.
//
// Aggregates (gen_aggregates.cc). Hashes, lists, sets and sorted sets get hand-written shapes:
// keys mostly from a per-type pool, sometimes from a pool the four types share and from the
// string keys, so WRONGTYPE happens; members from small pools so they collide, with long ones
// (past the 64-byte listpack limit) and bulk adds (past the entry limits) so encodings convert,
// and CONFIG SET of the encoding thresholds (the runner restores Redis's defaults on every
// reset). Random and blocking commands are "family only": the generic generator never draws
// them, because a random shape could hang or desynchronise the servers. SPOP is followed at
// once by a DEL of its key (the servers popped different members); a blocking command outside
// MULTI gets a timeout of a few milliseconds, never 0, and is never mutated; inside MULTI it
// does not block and any timeout is fine. A family whose commands our server lacks is skipped.
//
// Pub/Sub (gen_pubsub.cc): PUBLISH/SPUBLISH to channels some of which the stream comparison's
// subscriber listens to, PUBSUB's introspection, and now and then CONFIG SET of
// notify-keyspace-events followed by CONFIG GET of it, which the runner compares exactly.
//
// Scripting (gen_scripting.cc, once our server has EVAL, EVALSHA and SCRIPT LOAD): about one
// block in twenty (and one queued command in twenty inside MULTI) is EVAL, EVALSHA, EVAL_RO,
// EVALSHA_RO or SCRIPT LOAD/EXISTS/FLUSH/KILL over a corpus of small scripts on the tester's
// keys, with wrong numkeys and unknown SHAs now and then. Scripts that need a Lua library our
// server lacks are not drawn. EVAL and its kin are family only: a random script body is always a
// compile error, and the family's weight is the one meant.
//
// Issue 11's families, each in its own file and each on only once our server has its commands:
// HyperLogLog (gen_hll.cc: small and bulk adds so sparse and dense both occur, crafted and
// corrupted HLL strings, PFDEBUG), geo (gen_geo.cc: points and centres near the poles and the
// antimeridian, radii and boxes up to 20,000 km, every option of the searches) and streams
// (gen_streams.cc: explicit and `<ms>-*` ids from the generator's own clock, never `*`, consumer
// groups, claims with idle thresholds that no run is long enough to cross). Stream commands are
// family only: the generic walk would send `*` ids, BLOCK and idle times that race the clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "command_table.h"

namespace difftest {

class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t Next();
  // Uniform in [0, n); n > 0.
  uint64_t Below(uint64_t n) { return Next() % n; }
  // Uniform in [lo, hi].
  long long Range(long long lo, long long hi) {
    return lo + static_cast<long long>(Below(static_cast<uint64_t>(hi - lo) + 1));
  }
  // True with probability percent / 100.
  bool Percent(int percent) { return Below(100) < static_cast<uint64_t>(percent); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(v.size())];
  }

 private:
  uint64_t s_[4];
};

struct Step {
  int conn = 0;
  std::vector<std::string> argv;
};

// Renders argv for humans: words separated by spaces, quoted when not plain.
std::string RenderArgv(const std::vector<std::string>& argv);

// One encoding threshold the generator may change with CONFIG SET, and Redis 7.0's default,
// which the runner restores on every reset.
// `reset`, when set, is the value every reset gives it instead of the default (streams run with
// small nodes, so that they split).
struct EncodingThreshold {
  const char* name;
  const char* default_value;
  const char* reset = nullptr;
  const char* ResetValue() const { return reset != nullptr ? reset : default_value; }
};
const std::vector<EncodingThreshold>& EncodingThresholds();

// SHA-1 of `data` in lower-case hex, as EVALSHA names a script (gen_scripting.cc).
std::string Sha1Hex(const std::string& data);

// Commands the generic generator never draws (see the essay): the families send them safely.
bool FamilyOnly(const std::string& name);

class Generator {
 public:
  // `skip` lists command names (as in the table) the generator must never draw. Without
  // `generic`, only the hand-written families are used (the share of the generic generator
  // goes to them): for a run of Redis against itself, whose table has commands the
  // generic walk cannot send safely (REPLICAOF, SUBSCRIBE ...), or to focus a run.
  // `lua_libs` names the Lua libraries (cjson, bit, struct, cmsgpack) our server's scripts see;
  // scripts that need another are not drawn.
  // `round_trips` > 0: about one block in `round_trips` is preceded by a persistence round trip
  // (roundtrip.h), drawn from a random source of its own, so the commands are the same.
  Generator(uint64_t seed, const CommandTable& table, const std::vector<std::string>& skip,
            int connections, bool generic = true, std::vector<std::string> lua_libs = {},
            uint64_t round_trips = 0);
  // Appends the next block of steps to `out`.
  void Next(std::vector<Step>& out);
  // The names the generic generator can draw, for --list.
  std::vector<std::string> SendableNames() const;

 private:
  // Argument pools.
  std::string Key();
  std::string AnyValue();
  std::string Int();
  std::string Float();
  std::string Pattern();
  std::string RelativeTime(bool millis);
  std::string AbsoluteTime(bool millis, bool future_only = false);
  std::string Offset();
  std::string Db();
  std::string Junk();
  std::string Token(const std::string& token);

  // Generic generation from a command's docs.
  std::vector<std::string> FromSpec(const CommandSpec& spec);
  void EmitArgs(const std::vector<ArgSpec>& args, std::vector<std::string>& out, int depth);
  void EmitArg(const ArgSpec& arg, std::vector<std::string>& out, int depth);
  std::string ValueFor(const ArgSpec& arg);
  void Mutate(std::vector<std::string>& argv);
  static void Tame(std::vector<std::string>& argv);
  void NextUntamed(std::vector<Step>& out);

  // Families.
  std::vector<std::string> StringFamily();
  std::vector<std::string> KeyFamily();
  std::vector<std::string> ExpiryFamily();
  std::vector<std::string> ConnectionFamily();
  std::vector<std::string> ServerFamily();
  std::vector<std::string> Bitfield();
  std::vector<std::string> FamilyCommand(const std::vector<const char*>& names);
  std::vector<std::string> AnyFamilyCommand();
  void Transaction(std::vector<Step>& out);

  // Aggregate families (gen_aggregates.cc). Each returns one command, or an empty vector when
  // our server lacks the command it drew.
  std::vector<std::string> HashFamily();
  std::vector<std::string> ListFamily();
  std::vector<std::string> SetFamily();
  std::vector<std::string> ZSetFamily();
  std::vector<std::string> SortCommand();
  std::vector<std::string> ThresholdCommand();
  std::vector<std::string> BlockingCommand();
  std::vector<std::string> AggregateCommand();
  // Pub/Sub (gen_pubsub.cc): one PUBLISH, SPUBLISH or PUBSUB command (some malformed), or an
  // empty vector when our server lacks it; and CONFIG SET notify-keyspace-events followed by
  // CONFIG GET of it, on connection `conn`.
  std::vector<std::string> PubSubCommand();
  void NotifyConfigBlock(int conn, std::vector<Step>& out);
  bool has_pubsub_ = false;
  // Scripting (gen_scripting.cc): one EVAL-like or SCRIPT command; a block of one, or of
  // SCRIPT LOAD followed by EVALSHA of the script, on connection `conn`.
  std::vector<std::string> ScriptCommand();
  std::vector<std::string> ScriptAdminCommand(const std::string& body);
  void ScriptBlock(int conn, std::vector<Step>& out);
  std::string PickScript(std::string& keys, std::string& args, bool& writes);
  void ScriptKeysAndArgs(const std::string& keys, const std::string& args,
                         std::vector<std::string>& argv);
  std::string ScriptKey(char kind);
  std::string ScriptArg(char kind);
  bool HasLuaLibrary(const std::string& name) const;
  bool has_scripting_ = false;
  std::vector<std::string> lua_libs_;
  // Appends one aggregate block (a command; SPOP and its DEL) to `out` on connection `conn`.
  void AggregateBlock(int conn, std::vector<Step>& out);
  // Issue 11's families (gen_hll.cc, gen_geo.cc, gen_streams.cc). Each returns one command, or
  // an empty vector when our server lacks the command it drew; a block appends one or a few
  // steps on connection `conn` (a burst of XADDs, a command and the GET that shows its bytes).
  std::vector<std::string> HllCommand();
  std::vector<std::string> GeoCommand();
  std::vector<std::string> StreamCommand();
  void HllBlock(int conn, std::vector<Step>& out);
  void GeoBlock(int conn, std::vector<Step>& out);
  void StreamBlock(int conn, std::vector<Step>& out);
  // A command of one of issue 11's families our server has (empty when none).
  std::vector<std::string> Issue11Command();
  bool has_hll_ = false;
  // Issue 12: DEBUG RELOAD and SAVE steps (NextUntamed), once our server has BGSAVE.
  bool has_persistence_ = false;
  bool has_geo_ = false;
  bool has_streams_ = false;
  // HyperLogLog pools and crafted values.
  std::string HllKey();
  std::string HllElement();
  std::string CraftedHll();
  // Geo pools.
  std::string GeoKey();
  std::string GeoMember();
  // Appends a longitude and a latitude (mostly in one of a few regions: Sicily, the poles, the
  // antimeridian, anywhere; now and then invalid), a distance and its unit (a radius, or a
  // box's width and height), and the options of a search in a random order.
  void GeoPoint(std::vector<std::string>& argv);
  void GeoDistance(std::vector<std::string>& argv, int values);
  // `radius_form`: GEORADIUS*, which may STORE when `store`; otherwise GEOSEARCH, or with `store`
  // GEOSEARCHSTORE (which refuses the WITH options).
  void GeoSearchOptions(std::vector<std::string>& argv, bool radius_form, bool store);
  int geo_region_ = 0;  // the region of the current command's points
  // Stream pools. Ids come from the generator's own clock `stream_ms_`, which every XADD moves
  // forward a little, so most explicit ids are new and ranges and XDELs hit existing entries.
  std::string StreamKey();
  std::string StreamNewId();
  std::string StreamId();
  std::string StreamRangeBound(bool start);
  std::string StreamGroup();
  std::string StreamConsumer();
  std::string IdleThreshold();
  void StreamTrimOptions(std::vector<std::string>& argv, bool for_xadd);
  void StreamFields(std::vector<std::string>& argv);
  // Keeps a stream command's times away from the clock after a mutation (gen_streams.cc).
  static void TameStream(std::vector<std::string>& argv);
  unsigned long long stream_ms_ = 1;
  bool Has(const char* name) const { return table_.Find(name) != nullptr; }
  bool has_aggregates_ = false;
  bool in_multi_ = false;  // building a transaction: blocking commands do not block

  // Aggregate argument pools.
  std::string AggKey(const char* type);
  std::string Field();
  std::string Member();
  std::string ZMember();
  std::string Score();
  std::string ScoreBound();
  std::string LexBound();
  std::string Index();
  std::string Count();
  std::string Timeout();
  void NumKeysAnd(const char* type, std::vector<std::string>& argv);

  Rng rng_;
  Rng round_trip_rng_;
  uint64_t round_trips_ = 0;
  const CommandTable& table_;
  std::vector<const CommandSpec*> sendable_;
  std::vector<std::string> skip_;
  int connections_;
  bool started_ = false;
  bool generic_ = true;
  std::string current_;  // the command FromSpec is filling
};

}  // namespace difftest
