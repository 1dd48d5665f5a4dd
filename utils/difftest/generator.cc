// Command generation: the generic walk over COMMAND DOCS argument trees, the hand-written
// families and the hostile mutations (see generator.h).
#include "generator.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include "roundtrip.h"

namespace difftest {

namespace {

bool Contains(const std::string& haystack, const char* needle) {
  return haystack.find(needle) != std::string::npos;
}

constexpr int kMaxDepth = 8;

}  // namespace

Generator::Generator(uint64_t seed, const CommandTable& table, const std::vector<std::string>& skip,
                     int connections, bool generic, std::vector<std::string> lua_libs,
                     uint64_t round_trips)
    : lua_libs_(std::move(lua_libs)),
      rng_(seed),
      round_trip_rng_(seed ^ 0x5851f42d4c957f2dULL),
      round_trips_(round_trips),
      table_(table),
      skip_(skip),
      connections_(connections),
      generic_(generic) {
  for (const auto& c : table_.commands()) {
    if (table_.IsContainer(c.name)) continue;
    if (std::find(skip_.begin(), skip_.end(), c.name) != skip_.end()) continue;
    if (FamilyOnly(c.name)) continue;
    sendable_.push_back(&c);
  }
  has_aggregates_ = Has("hset") || Has("rpush") || Has("sadd") || Has("zadd");
  has_pubsub_ = Has("publish") || Has("pubsub|channels");
  has_scripting_ = Has("eval") && Has("evalsha") && Has("script|load");
  has_hll_ = Has("pfadd");
  has_geo_ = Has("geoadd");
  has_streams_ = Has("xadd");
  has_persistence_ = Has("bgsave");
}

std::vector<std::string> Generator::SendableNames() const {
  std::vector<std::string> out;
  for (const auto* c : sendable_) out.push_back(c->name);
  return out;
}

// ---- generic generation ------------------------------------------------------------------------

// The value of one leaf argument. Names decide when the type alone would be unsafe or too
// random: times (never racing the clock), offsets (never huge allocations), database indexes
// (mostly valid, so keys move between a few databases).
std::string Generator::ValueFor(const ArgSpec& arg) {
  const std::string& n = arg.name;
  if (arg.type == "key") return Key();
  if (arg.type == "pattern") return Pattern();
  if (arg.type == "double") return Float();
  if (arg.type == "unix-time" || Contains(n, "unix-time")) {
    return AbsoluteTime(Contains(n, "milli"), current_ == "set");
  }
  if (n == "seconds" || n == "milliseconds") return RelativeTime(n == "milliseconds");
  if (Contains(n, "offset")) return Offset();
  if (n == "index" || n == "index1" || n == "index2" || n == "db" || n == "destination-db") {
    return Db();
  }
  if (n == "bit") return rng_.Percent(90) ? std::to_string(rng_.Below(2)) : Junk();
  if (arg.type == "integer") return Int();
  return AnyValue();
}

void Generator::EmitArg(const ArgSpec& arg, std::vector<std::string>& out, int depth) {
  if (depth > kMaxDepth) return;
  int reps = arg.multiple ? static_cast<int>(rng_.Range(1, 3)) : 1;
  for (int i = 0; i < reps; ++i) {
    if (!arg.token.empty() && (i == 0 || arg.multiple_token)) out.push_back(Token(arg.token));
    if (arg.type == "pure-token") {
      if (arg.token.empty()) out.push_back(Token(arg.name));
    } else if (arg.type == "oneof") {
      // Only the alternatives Redis 7.0 has (BITOP's operations of 8.2 are left out).
      std::vector<const ArgSpec*> known;
      for (const auto& alt : arg.args) {
        if (!NewerThanReference(alt.since)) known.push_back(&alt);
      }
      if (!known.empty()) EmitArg(*rng_.Pick(known), out, depth + 1);
    } else if (arg.type == "block") {
      EmitArgs(arg.args, out, depth + 1);
    } else {
      out.push_back(ValueFor(arg));
    }
  }
}

void Generator::EmitArgs(const std::vector<ArgSpec>& args, std::vector<std::string>& out,
                         int depth) {
  for (const auto& a : args) {
    if (NewerThanReference(a.since)) continue;  // an option Redis 7.0 refuses
    if (a.optional && rng_.Percent(50)) continue;
    EmitArg(a, out, depth);
  }
}

std::vector<std::string> Generator::FromSpec(const CommandSpec& spec) {
  std::vector<std::string> argv;
  current_ = spec.name;
  for (const auto& w : spec.words) argv.push_back(Token(w));
  if (spec.has_docs && (!spec.args.empty() || spec.arity == static_cast<int>(spec.words.size()))) {
    EmitArgs(spec.args, argv, 0);
    return argv;
  }
  // No argument tree: fill by arity, keys where the key positions say.
  int want = spec.arity >= 0 ? spec.arity : -spec.arity + static_cast<int>(rng_.Below(3));
  for (int pos = static_cast<int>(argv.size()); pos < want; ++pos) {
    bool is_key = spec.first_key > 0 && pos >= spec.first_key &&
                  (spec.last_key < 0 || pos <= spec.last_key) && spec.key_step > 0 &&
                  (pos - spec.first_key) % spec.key_step == 0;
    argv.push_back(is_key ? Key() : AnyValue());
  }
  return argv;
}

// One hostile change: a missing or extra argument, a junk value, a repeated option.
void Generator::Mutate(std::vector<std::string>& argv) {
  switch (rng_.Below(5)) {
    case 0:
      if (argv.size() > 1) argv.pop_back();
      break;
    case 1:
      argv.push_back(Junk());
      break;
    case 2:
      if (argv.size() > 1) {
        std::string name = argv[0];
        for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        // Not for SET: a junk number after EXAT/PXAT could be a past time (see generator.h).
        if (name == "set") break;
        std::string junk = Junk();
        // In a command that takes a time, a small positive number would be a TTL racing the
        // clock: 10^12 is far in the future whether read as seconds, milliseconds or a date.
        static const std::vector<std::string> kTimed = {
            "expire", "pexpire", "expireat", "pexpireat", "setex", "psetex", "getex"};
        if (std::find(kTimed.begin(), kTimed.end(), name) != kTimed.end() && !junk.empty() &&
            junk.size() < 9 && junk.find_first_not_of("0123456789") == std::string::npos &&
            std::stoll(junk) > 0) {
          junk = "1000000000000";
        }
        argv[1 + rng_.Below(argv.size() - 1)] = junk;
      }
      break;
    case 3:
      if (argv.size() > 1) argv.push_back(argv[1 + rng_.Below(argv.size() - 1)]);
      break;
    default:
      argv.resize(1 + rng_.Below(argv.size()));
      break;
  }
}

// ---- families ----------------------------------------------------------------------------------

std::vector<std::string> Generator::FamilyCommand(const std::vector<const char*>& names) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    const char* name = rng_.Pick(names);
    const CommandSpec* spec = table_.Find(name);
    if (spec == nullptr || std::find(skip_.begin(), skip_.end(), name) != skip_.end()) continue;
    return FromSpec(*spec);
  }
  return {"PING"};
}

std::vector<std::string> Generator::Bitfield() {
  static const std::vector<std::string> kEncodings = {"u8",  "i8",  "u1",  "i1", "u16", "i64",
                                                      "u63", "u64", "i65", "u0", "x8",  "i32"};
  std::vector<std::string> argv = {rng_.Percent(80) ? "BITFIELD" : "BITFIELD_RO", Key()};
  auto offset = [&]() {
    if (rng_.Percent(25)) return "#" + std::to_string(rng_.Range(0, 8));
    return Offset();
  };
  int ops = static_cast<int>(rng_.Range(0, 3));
  for (int i = 0; i < ops; ++i) {
    switch (rng_.Below(4)) {
      case 0:
        argv.insert(argv.end(), {Token("GET"), rng_.Pick(kEncodings), offset()});
        break;
      case 1:
        argv.insert(argv.end(), {Token("SET"), rng_.Pick(kEncodings), offset(), Int()});
        break;
      case 2:
        argv.insert(argv.end(), {Token("INCRBY"), rng_.Pick(kEncodings), offset(), Int()});
        break;
      default:
        argv.insert(argv.end(), {Token("OVERFLOW"), rng_.Pick(std::vector<std::string>{
                                                        "WRAP", "SAT", "FAIL", "sat", "BAD"})});
        break;
    }
  }
  return argv;
}

std::vector<std::string> Generator::StringFamily() {
  uint64_t r = rng_.Below(100);
  if (r < 8) return Bitfield();
  if (r < 20) {
    // The common shapes, written out: a plain SET, an INCR on a counter-like value.
    switch (rng_.Below(4)) {
      case 0:
        return {"SET", Key(), AnyValue()};
      case 1:
        return {"GET", Key()};
      case 2:
        return {"INCRBY", Key(), Int()};
      default:
        return {"APPEND", Key(), AnyValue()};
    }
  }
  return FamilyCommand({"set",      "get",      "getset",      "getdel", "getex",  "mset",
                        "msetnx",   "mget",     "append",      "strlen", "incr",   "decr",
                        "incrby",   "decrby",   "incrbyfloat", "setnx",  "setex",  "psetex",
                        "setrange", "getrange", "substr",      "lcs",    "setbit", "getbit",
                        "bitcount", "bitpos",   "bitop"});
}

std::vector<std::string> Generator::KeyFamily() {
  return FamilyCommand({"del",
                        "unlink",
                        "exists",
                        "type",
                        "rename",
                        "renamenx",
                        "copy",
                        "move",
                        "keys",
                        "scan",
                        "randomkey",
                        "dbsize",
                        "touch",
                        "object|encoding",
                        "object|refcount",
                        "object|idletime",
                        "object|freq",
                        "swapdb",
                        "flushdb",
                        "flushall",
                        "memory|usage",
                        "select"});
}

std::vector<std::string> Generator::ExpiryFamily() {
  if (rng_.Percent(30)) {
    // Set a value with an expiry, the way applications do.
    switch (rng_.Below(4)) {
      case 0:
        return {"SET", Key(), AnyValue(), Token("EX"), RelativeTime(false)};
      case 1:
        return {"SET", Key(), AnyValue(), Token("PXAT"), AbsoluteTime(true, true)};
      case 2:
        return {"SET", Key(), AnyValue(), Token("KEEPTTL")};
      default:
        return {"GETEX", Key(), Token("PERSIST")};
    }
  }
  return FamilyCommand({"expire", "pexpire", "expireat", "pexpireat", "ttl", "pttl", "expiretime",
                        "pexpiretime", "persist", "getex", "setex", "psetex"});
}

std::vector<std::string> Generator::ConnectionFamily() {
  switch (rng_.Below(12)) {
    case 0:
      return {"PING"};
    case 1:
      return {"PING", AnyValue()};
    case 2:
      return {"ECHO", AnyValue()};
    case 3:
      return {"SELECT", Db()};
    case 4:
      return {"HELLO", rng_.Pick(std::vector<std::string>{"2", "3", "3", "1", "4", "x"})};
    case 5:
      return {"HELLO", rng_.Percent(50) ? "3" : "2", Token("SETNAME"),
              rng_.Pick(std::vector<std::string>{"app", "", "with space", "a\nb", "x"})};
    case 6:
      return {"CLIENT", "SETNAME",
              rng_.Pick(std::vector<std::string>{"app", "", "with space", "ok-name", "\xff"})};
    case 7:
      return {"CLIENT", "GETNAME"};
    case 8:
      return {"RESET"};
    case 9:
      return {"HELLO", "3", Token("AUTH"), "default", AnyValue()};
    default:
      return FamilyCommand({"ping", "echo", "select", "hello", "client|setname", "client|getname",
                            "client|no-evict", "client|getredir", "auth", "client|id",
                            "client|info", "client|unblock", "client|unpause"});
  }
}

std::vector<std::string> Generator::ServerFamily() {
  return FamilyCommand({"time", "lastsave", "info", "command|info", "command|getkeys",
                        "command|getkeysandflags", "command|count", "config|get", "slowlog|len",
                        "memory|stats", "function|list", "latency|latest"});
}

// Issue 11's families in proportion to their weights in the stream (streams 2, HLL 1, geo 1),
// among those our server has.
std::vector<std::string> Generator::Issue11Command() {
  std::vector<int> families;
  if (has_streams_) families.insert(families.end(), {0, 0});
  if (has_hll_) families.push_back(1);
  if (has_geo_) families.push_back(2);
  if (families.empty()) return {};
  switch (rng_.Pick(families)) {
    case 0:
      return StreamCommand();
    case 1:
      return HllCommand();
    default:
      return GeoCommand();
  }
}

std::vector<std::string> Generator::AnyFamilyCommand() {
  if ((has_streams_ || has_hll_ || has_geo_) && rng_.Percent(12)) {
    std::vector<std::string> a = Issue11Command();
    if (!a.empty()) return a;
  }
  switch (rng_.Below(has_aggregates_ ? 7 : 4)) {
    case 0:
      return KeyFamily();
    case 1:
      return ExpiryFamily();
    case 4:
    case 5:
    case 6: {
      std::vector<std::string> a = AggregateCommand();
      return a.empty() ? StringFamily() : a;
    }
    default:
      return StringFamily();
  }
}

// WATCH ... MULTI ... EXEC|DISCARD on one connection, sometimes with another connection (or the
// same one) touching a watched key before MULTI, and hostile commands queued now and then so
// that EXECABORT paths run too.
void Generator::Transaction(std::vector<Step>& out) {
  int c = static_cast<int>(rng_.Below(static_cast<uint64_t>(connections_)));
  int other = (c + 1) % connections_;
  std::vector<std::string> watched;
  if (rng_.Percent(60)) {
    std::vector<std::string> w = {Token("WATCH")};
    for (int i = 0, n = static_cast<int>(rng_.Range(1, 3)); i < n; ++i) w.push_back(Key());
    watched.assign(w.begin() + 1, w.end());
    out.push_back({c, w});
    if (rng_.Percent(40)) {
      std::vector<std::string> touch =
          rng_.Percent(70) ? std::vector<std::string>{"SET", rng_.Pick(watched), AnyValue()}
                           : AnyFamilyCommand();
      out.push_back({rng_.Percent(80) ? other : c, touch});
    }
  }
  out.push_back({c, {Token("MULTI")}});
  for (int i = 0, n = static_cast<int>(rng_.Range(0, 5)); i < n; ++i) {
    in_multi_ = true;  // queued: a blocking command does not block, whatever its timeout
    std::vector<std::string> argv = AnyFamilyCommand();
    in_multi_ = false;
    if (rng_.Percent(8)) Mutate(argv);
    if (has_scripting_ && rng_.Percent(5)) argv = ScriptCommand();
    if (rng_.Percent(3))
      argv = {rng_.Pick(std::vector<std::string>{"WATCH", "MULTI", "SELECT"}),
              rng_.Percent(50) ? Key() : "1"};
    out.push_back({c, argv});
    if (rng_.Percent(10)) out.push_back({other, AnyFamilyCommand()});
    if (has_pubsub_ && rng_.Percent(8)) {
      std::vector<std::string> p = PubSubCommand();
      if (!p.empty()) out.push_back({c, p});
    }
  }
  uint64_t end = rng_.Below(100);
  if (end < 75) {
    out.push_back({c, {Token("EXEC")}});
  } else if (end < 95) {
    out.push_back({c, {Token("DISCARD")}});
  } else {
    out.push_back({c, {Token(rng_.Percent(50) ? "UNWATCH" : "EXEC"), "extra"}});
    out.push_back({c, {"DISCARD"}});
  }
}

// The last line of defence for the size bound (see generator.h): junk and edge numbers reach
// offsets through mutations, and a valid SETBIT offset of 2^32-1 makes both servers allocate
// 512 MB. In the bit and range commands, any number between 100,000 and 2^40 (with an optional
// `#`, as BITFIELD takes) becomes one past every limit, so it is still sent, and refused.
void Generator::Tame(std::vector<std::string>& argv) {
  TameStream(argv);
  std::string name = argv.empty() ? "" : argv[0];
  for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (name != "setbit" && name != "setrange" && name != "bitfield" && name != "bitfield_ro") {
    return;
  }
  for (size_t i = 2; i < argv.size(); ++i) {
    std::string_view a = argv[i];
    if (!a.empty() && (a[0] == '#' || a[0] == '+' || a[0] == '-')) a.remove_prefix(1);
    if (a.empty() || a.size() > 13 || a.find_first_not_of("0123456789") != std::string_view::npos) {
      continue;
    }
    unsigned long long v = std::stoull(std::string(a));
    if (v >= 100000 && v < (1ULL << 40)) argv[i] = "1099511627776";
  }
}

void Generator::Next(std::vector<Step>& out) {
  if (round_trips_ > 0 && started_ && round_trip_rng_.Below(round_trips_) == 0) {
    out.push_back({kRoundTripConn, DrawRoundTrip(round_trip_rng_)});
  }
  size_t first = out.size();
  NextUntamed(out);
  for (size_t i = first; i < out.size(); ++i) Tame(out[i].argv);
}

void Generator::NextUntamed(std::vector<Step>& out) {
  if (!started_) {
    // Some sessions speak RESP3 from their first command.
    started_ = true;
    for (int c = 0; c < connections_; ++c) {
      if (rng_.Percent(50)) out.push_back({c, {"HELLO", "3"}});
    }
    if (!out.empty()) return;
  }
  int conn =
      rng_.Percent(85) ? 0 : static_cast<int>(rng_.Below(static_cast<uint64_t>(connections_)));
  // Persistence: now and then both servers write their RDB file and load it back (DEBUG RELOAD)
  // or just write it (SAVE), so every later reply compares the reloaded datasets: a value the
  // RDB writer or loader gets wrong (contents, encoding, TTL, function libraries) diverges.
  // A hash kept as a hashtable is written in the order of each server's own table, and a small
  // one becomes a listpack again when loaded, in that order: the reload happens with
  // hash-max-listpack-entries 0, so every hash comes back as a hashtable (compared unordered),
  // and the threshold is then put back to its default on both.
  if (has_persistence_ && rng_.Below(500) == 0) {
    if (rng_.Percent(80)) {
      out.push_back({conn, {"CONFIG", "SET", "hash-max-listpack-entries", "0"}});
      out.push_back({conn, {"DEBUG", "RELOAD"}});
      out.push_back({conn, {"CONFIG", "SET", "hash-max-listpack-entries", "512"}});
    } else {
      out.push_back({conn, {"SAVE"}});
    }
    return;
  }
  uint64_t r = rng_.Below(100);
  std::vector<std::string> argv;
  if (r < 6) {
    Transaction(out);
    return;
  }
  if (has_scripting_ && rng_.Percent(5)) {
    ScriptBlock(conn, out);
    return;
  }
  // Issue 11's families, each once our server has it: streams 8%, HyperLogLog and geo 4% each
  // of what is left (about 14% of the stream with all three).
  if (has_streams_ && rng_.Percent(8)) {
    StreamBlock(conn, out);
    return;
  }
  if (has_hll_ && rng_.Percent(4)) {
    HllBlock(conn, out);
    return;
  }
  if (has_geo_ && rng_.Percent(4)) {
    GeoBlock(conn, out);
    return;
  }
  if (has_aggregates_ && rng_.Percent(45)) {
    AggregateBlock(conn, out);
    return;
  }
  if (rng_.Percent(1)) {
    NotifyConfigBlock(conn, out);
    return;
  }
  if (has_pubsub_ && rng_.Percent(5)) {
    argv = PubSubCommand();
    if (!argv.empty()) {
      out.push_back({conn, std::move(argv)});
      return;
    }
  }
  if (r < 30) {
    argv = StringFamily();
  } else if (r < 44) {
    argv = KeyFamily();
  } else if (r < 60) {
    argv = ExpiryFamily();
  } else if (r < 68) {
    argv = ConnectionFamily();
  } else if (r < 71) {
    argv = ServerFamily();
  } else if (r < 73) {
    argv = {
        Token(rng_.Pick(std::vector<std::string>{"MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH"}))};
    if (argv[0] == "WATCH" || rng_.Percent(10)) argv.push_back(Key());
  } else if (!generic_) {
    argv = AnyFamilyCommand();
  } else if (!sendable_.empty()) {
    argv = FromSpec(*rng_.Pick(sendable_));
  } else {
    argv = {"PING"};
  }
  if (rng_.Percent(7)) Mutate(argv);
  out.push_back({conn, std::move(argv)});
}

}  // namespace difftest
