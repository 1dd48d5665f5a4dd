// difftest: differential tester of redis-tp against Debian's Redis 7.0.
//
// Starts both servers on free loopback ports, reads the command table from ours, sends both the
// same reproducible stream of random commands (see generator.h) and stops at the first reply
// that differs (under the policy table, policy.h). It then prints the seed, the index, both
// replies, and a minimal sequence found by replaying subsets on flushed servers (runner.h).
//
// Exit status: 0 when every reply matched, 1 on a divergence, 2 on bad usage or when a server
// could not be started. With --test-line the outcome is one line in the test suite's format:
//   [ok]: differential test vs Redis 7.0 (N commands, seed S)
//   [err]: differential test vs Redis 7.0 (N commands, seed S)   (details follow, indented)
// With --compare-commands it compares the two command tables instead (compare_commands.h).
// With Pub/Sub in our server, a subscriber on each side receives keyspace notifications and
// published messages, compared after every command (streams.h); --no-streams turns that off.
// With --round-trips N, about one block in N is preceded by a persistence round trip run on both
// servers (roundtrip.h): DEBUG RELOAD, DEBUG LOADAOF, BGREWRITEAOF, BGSAVE and a restart,
// CONFIG SET appendonly, a kill -9 and a restart on the AOF; the data must come back whole, alike
// on both, and Debian's redis-check-rdb/-aof must accept every file.
// With --keep-going N it goes on after a divergence (on flushed servers, from the next command)
// up to N times, shrinking only the first divergence of each kind (command and both replies),
// so one long run maps every difference instead of stopping at the first.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "command_table.h"
#include "compare_commands.h"
#include "generator.h"
#include "policy.h"
#include "resp.h"
#include "runner.h"
#include "server_proc.h"

namespace difftest {
namespace {

struct Options {
  long long count = 10000;
  uint64_t seed = 0;
  bool seed_given = false;
  std::string ours = "src/redis-server";
  std::string redis = "/usr/bin/redis-server";
  int connections = 2;
  bool test_line = false;
  bool list = false;
  bool compare_commands = false;
  bool generic = true;          // --no-generic: hand-written families only
  bool streams = true;          // --no-streams: no subscribers, replies only
  std::string tracking = "on";  // --tracking off|on|bcast (when our server has CLIENT TRACKING)
  int keep_going = 0;           // --keep-going N: go on after up to N divergences
  long long round_trips = 0;    // --round-trips N: a persistence round trip every ~N blocks
  long long print_from = -1;    // --print FROM TO: print steps [FROM, TO) of the stream and exit
  long long print_to = -1;
  bool quiet = false;
  int shrink_seconds = 120;
  int shrink_replays = 400;
  // Not an option: the Lua libraries our server's scripts see, probed at start (LuaLibraries).
  std::vector<std::string> lua_libs;
};

void Usage() {
  std::cerr << "usage: difftest [--count N] [--seed S] [--ours PATH] [--redis PATH]\n"
               "                [--connections N] [--shrink-seconds N] [--shrink-replays N]\n"
               "                [--test-line] [--quiet] [--list] [--print FROM TO]\n"
               "                [--compare-commands] [--no-generic] [--no-streams]\n"
               "                [--tracking off|on|bcast] [--keep-going N] [--round-trips N]\n";
}

bool ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--test-line") {
      o.test_line = true;
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--compare-commands") {
      o.compare_commands = true;
    } else if (a == "--no-generic") {
      o.generic = false;
    } else if (a == "--no-streams") {
      o.streams = false;
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a == "--print" && i + 2 < argc) {
      o.print_from = std::atoll(argv[++i]);
      o.print_to = std::atoll(argv[++i]);
    } else if ((a == "--count" || a == "--seed" || a == "--connections" ||
                a == "--shrink-seconds" || a == "--shrink-replays" || a == "--keep-going" ||
                a == "--round-trips" || a == "--ours" || a == "--redis" || a == "--tracking") &&
               (v = value()) != nullptr) {
      if (a == "--ours") {
        o.ours = v;
      } else if (a == "--redis") {
        o.redis = v;
      } else if (a == "--tracking") {
        o.tracking = v;
        if (o.tracking != "off" && o.tracking != "on" && o.tracking != "bcast") return false;
      } else {
        char* end = nullptr;
        unsigned long long n = std::strtoull(v, &end, 10);
        if (*v == '\0' || *end != '\0') return false;
        if (a == "--count") o.count = static_cast<long long>(n);
        if (a == "--seed") o.seed = n, o.seed_given = true;
        if (a == "--connections") o.connections = std::max(1, static_cast<int>(n));
        if (a == "--shrink-seconds") o.shrink_seconds = static_cast<int>(n);
        if (a == "--shrink-replays") o.shrink_replays = static_cast<int>(n);
        if (a == "--keep-going") o.keep_going = static_cast<int>(std::min(n, 1000000ULL));
        if (a == "--round-trips") o.round_trips = static_cast<long long>(n);
      }
    } else {
      return false;
    }
  }
  if (!o.seed_given) {
    o.seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) %
             1000000007ULL;
  }
  return true;
}

// Regenerates steps [0, n) of the stream for `seed` (the generator is deterministic, so the
// run keeps no history) and returns the last `keep` of them: the shrinker replays suffixes, and
// a divergence that needs more than `keep` commands of history is not worth a minimal form.
std::vector<Step> Regenerate(const Options& o, const CommandTable& table,
                             const std::vector<std::string>& skip, long long n, size_t keep) {
  Generator gen(o.seed, table, skip, o.connections, o.generic, o.lua_libs,
                static_cast<uint64_t>(o.round_trips));
  std::vector<Step> steps;
  long long dropped = 0;
  while (dropped + static_cast<long long>(steps.size()) < n) {
    gen.Next(steps);
    if (steps.size() > 2 * keep) {
      dropped += static_cast<long long>(steps.size() - keep);
      steps.erase(steps.begin(), steps.end() - static_cast<long>(keep));
    }
  }
  steps.resize(static_cast<size_t>(n - dropped));
  if (steps.size() > keep) steps.erase(steps.begin(), steps.end() - static_cast<long>(keep));
  return steps;
}

std::string Line(const Step& s) {
  if (IsRoundTrip(s)) return "[round trip] " + RenderArgv(s.argv);
  return "[conn " + std::to_string(s.conn) + "] " + RenderArgv(s.argv);
}

std::string Clip(const std::string& s, size_t max = 2000) {
  return s.size() <= max ? s : s.substr(0, max) + "... (" + std::to_string(s.size()) + " bytes)";
}

// The messages one side's subscriber received after a step, one per line.
std::string Messages(const char* side, const Value& messages) {
  std::string out = "  " + std::string(side) + "'s subscriber received " +
                    std::to_string(messages.elements.size()) + " message(s):\n";
  for (const auto& m : messages.elements) out += "      " + Clip(m.Render(), 400) + "\n";
  return out;
}

// The report of one divergence: the step, both replies, and (when `shrink`) a minimal sequence
// found by replaying subsets on flushed servers; without `shrink` (a divergence of a kind
// already reported) just the step and the replies.
std::string Divergence(const Options& o, const CommandTable& table,
                       const std::vector<std::string>& skip, Runner& runner, ServerProcess& ours,
                       const Step& bad_step, const Outcome& bad, long long index, bool shrink) {
  std::ostringstream report;
  report << "DIVERGENCE at command #" << index << " (seed " << o.seed << ")\n"
         << "  " << Line(bad_step) << "\n";
  if (bad.stream) {
    report << "  reply (the same on both): " << Clip(bad.reply) << "\n"
           << Messages("redis-tp", bad.ours) << Messages("redis 7.0", bad.theirs);
  } else {
    report << "  redis-tp:  " << Clip(bad.ours.Render()) << "\n"
           << "  redis 7.0: " << Clip(bad.theirs.Render()) << "\n";
  }
  report << "  (" << bad.why << ")\n";
  if (bad.ours.kind == Value::Kind::kLost) report << "  redis-tp log:\n" << ours.LogTail(20);
  if (!shrink) {
    report << "  (the same kind of divergence as one above: not shrunk)\n";
    return report.str();
  }
  std::vector<Step> prefix = Regenerate(o, table, skip, index + 1, 100000);
  int replays_before = runner.replays();
  std::vector<Step> minimal =
      runner.Shrink(prefix, o.shrink_replays, std::chrono::seconds(o.shrink_seconds));
  Outcome last;
  long at = runner.Replay(minimal, last);
  if (at == static_cast<long>(minimal.size()) - 1) {
    report << "minimal sequence (" << minimal.size() << " of " << prefix.size() << " commands, "
           << runner.replays() - replays_before << " replays), on flushed servers:\n";
    for (const auto& s : minimal) report << "  " << Line(s) << "\n";
    if (last.stream) {
      report << Messages("redis-tp", last.ours) << Messages("redis 7.0", last.theirs);
    } else {
      report << "  redis-tp:  " << Clip(last.ours.Render()) << "\n"
             << "  redis 7.0: " << Clip(last.theirs.Render()) << "\n";
    }
  } else {
    report << "the divergence did not reproduce on a fresh replay ("
           << runner.replays() - replays_before << " replays); rerun with --seed " << o.seed
           << " --count " << index + 1 << "\n";
  }
  return report.str();
}

// The Lua libraries (of those the scripting generator uses) that a script on our server sees, or
// none when it has no EVAL; a warning names each one missing.
std::vector<std::string> LuaLibraries(Connection& conn, const CommandTable& table) {
  std::vector<std::string> libs;
  if (table.Find("eval") == nullptr) return libs;
  for (const char* name : {"cjson", "bit", "struct", "cmsgpack"}) {
    Value v = conn.Call({"EVAL", std::string("return type(") + name + ")", "0"});
    if (v.str == "table") {
      libs.push_back(name);
    } else {
      std::cerr << "difftest: warning: redis-tp's scripts have no `" << name
                << "` library; the scripts that use it are not sent\n";
    }
  }
  return libs;
}

int Run(Options o) {
  auto started = std::chrono::steady_clock::now();
  ServerProcess ours("redis-tp", o.ours);
  ServerProcess redis("redis 7.0", o.redis);
  if (!ours.Start() || !redis.Start()) {
    std::cerr << "difftest: " << ours.error() << redis.error() << "\n";
    return 2;
  }
  if (o.compare_commands) return CompareCommands(ours.port(), redis.port(), o.test_line);

  CommandTable table;
  std::string error;
  Connection probe;
  if (!probe.Open(ours.port()) || !table.Load(probe, error)) {
    std::cerr << "difftest: reading our command table: " << error << probe.error() << "\n";
    return 2;
  }
  o.lua_libs = LuaLibraries(probe, table);
  Connection redis_probe;
  Value redis_list =
      redis_probe.Open(redis.port()) ? redis_probe.Call({"COMMAND", "LIST"}) : Value{};
  std::set<std::string> redis_names;
  for (const auto& e : redis_list.elements) redis_names.insert(e.str);
  probe.Close();
  redis_probe.Close();

  // Never sent: the policy table's rows, and anything of ours that Redis lacks.
  std::vector<std::string> skip;
  for (const auto& row : PolicyTable()) {
    if (row.rule == Rule::kNeverSend) skip.push_back(row.command);
  }
  for (const auto& c : table.commands()) {
    if (redis_names.count(c.name) != 0 || table.IsContainer(c.name)) continue;
    // Redis lacks it: never sent, whatever the table says (a row may name its container, as
    // SESSION's does for SESSION OPEN ...); unlisted ones are named.
    const PolicyRow* row = FindPolicy(c.name);
    if (row == nullptr || row->rule != Rule::kNeverSend) {
      const size_t bar = c.name.find('|');
      if (bar != std::string::npos) row = FindPolicy(c.name.substr(0, bar));
    }
    if (row == nullptr || row->rule != Rule::kNeverSend) {
      std::cerr << "difftest: warning: " << c.name
                << " is not in Redis 7.0 and not in the policy table; not sent\n";
    }
    skip.push_back(c.name);
  }
  size_t redis_only = 0;
  for (const auto& n : redis_names) redis_only += table.Find(n) == nullptr ? 1 : 0;

  Generator gen(o.seed, table, skip, o.connections, o.generic, o.lua_libs,
                static_cast<uint64_t>(o.round_trips));
  if (o.list) {
    std::cout << "policy table:\n";
    for (const auto& r : PolicyTable()) {
      std::cout << "  " << r.command << "  "
                << (r.rule == Rule::kNeverSend       ? "never sent"
                    : r.rule == Rule::kShape         ? "shape"
                    : r.rule == Rule::kTolerance     ? "tolerance " + std::to_string(r.tolerance)
                    : r.rule == Rule::kUnordered     ? "unordered"
                    : r.rule == Rule::kSameSize      ? "same size"
                    : r.rule == Rule::kEncodingOrder ? "order of the encoding"
                    : r.rule == Rule::kLexRange      ? "exact over one score"
                    : r.rule == Rule::kTimeMasked    ? "times masked"
                                                     : "map, ids ignored")
                << ": " << r.reason << "\n";
    }
    std::cout << "persistence round trips (--round-trips) do not compare:\n";
    for (const auto& e : RoundTripExemptions()) {
      std::cout << "  " << e.what << ": " << e.reason << "\n";
    }
    std::cout << "generic generator draws " << gen.SendableNames().size() << " commands:";
    for (const auto& n : gen.SendableNames()) std::cout << " " << n;
    std::cout << "\nRedis commands redis-tp lacks (never sent): " << redis_only << "\n";
    return 0;
  }

  if (o.print_from >= 0) {
    std::vector<Step> steps =
        Regenerate(o, table, skip, o.print_to, static_cast<size_t>(o.print_to - o.print_from));
    for (size_t i = 0; i < steps.size(); ++i) {
      std::cout << "#" << o.print_from + static_cast<long long>(i) << " " << Line(steps[i]) << "\n";
    }
    return 0;
  }

  // The notification streams, when our server has Pub/Sub: keyspace events too when it emits
  // them (a server without them would differ at every write).
  StreamOptions streams;
  streams.enabled = o.streams && table.Find("subscribe") != nullptr &&
                    table.Find("psubscribe") != nullptr && table.Find("publish") != nullptr;
  streams.shard = streams.enabled && table.Find("ssubscribe") != nullptr;
  if (streams.enabled) {
    bool emits = false;
    if (!EmitsKeyspaceEvents(ours.port(), emits, error)) {
      std::cerr << "difftest: " << error << "\n";
      return 2;
    }
    streams.keyspace = emits;
    if (!emits) {
      std::cerr << "difftest: warning: redis-tp emits no keyspace events; the subscribers "
                   "compare published messages only\n";
    }
    if (table.Find("client|tracking") != nullptr && o.tracking != "off") {
      streams.tracking = o.tracking == "bcast" ? StreamOptions::Tracking::kBcast
                                               : StreamOptions::Tracking::kDefault;
    }
  } else if (o.streams && !o.quiet) {
    std::cerr << "difftest: note: redis-tp has no SUBSCRIBE/PSUBSCRIBE/PUBLISH; replies only\n";
  }

  Runner runner(ours, redis, table, o.connections, streams, o.round_trips > 0);
  runner.set_log_alike(!o.quiet);
  if (!runner.Reset(error)) {
    std::cerr << "difftest: " << error << "\n";
    return 2;
  }
  // The stream is generated in chunks; Run() pipelines within a chunk.
  constexpr size_t kChunk = 2048;
  std::vector<Step> chunk;
  std::set<std::string> names;
  long long index = 0;
  Outcome bad;
  long long next_progress = 100000;
  int divergences = 0;
  std::set<std::string> signatures;  // of the divergences reported, shrunk once each
  std::ostringstream report;
  while (index < o.count) {
    while (chunk.size() < kChunk) gen.Next(chunk);
    size_t n = static_cast<size_t>(std::min<long long>(kChunk, o.count - index));
    long at = runner.Run(chunk, 0, n, bad);
    for (size_t i = 0; i < (at < 0 ? n : static_cast<size_t>(at)); ++i) {
      if (!IsRoundTrip(chunk[i])) names.insert(runner.PolicyName(chunk[i].argv));
    }
    if (at >= 0) {
      index += at;
      ++divergences;
      std::string signature = runner.PolicyName(chunk[static_cast<size_t>(at)].argv) + " " +
                              bad.ours.Render().substr(0, 40) + " " +
                              bad.theirs.Render().substr(0, 40);
      bool shrink = signatures.insert(signature).second;
      report << Divergence(o, table, skip, runner, ours, chunk[static_cast<size_t>(at)], bad, index,
                           shrink);
      if (divergences > o.keep_going) break;
      // --keep-going: start again on flushed servers after the divergent command.
      std::string error;
      if (!runner.Reset(error)) {
        report << "difftest: could not reset after the divergence: " << error << "\n";
        break;
      }
      index += 1;
      chunk.erase(chunk.begin(), chunk.begin() + at + 1);
      continue;
    }
    index += static_cast<long long>(n);
    chunk.erase(chunk.begin(), chunk.begin() + static_cast<long>(n));
    if (!o.quiet && index >= next_progress) {
      next_progress += 100000;
      auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started);
      std::fprintf(stderr, "difftest: seed %llu: %lld commands, %.1f s, %d divergences%s%s\n",
                   static_cast<unsigned long long>(o.seed), index, secs.count(), divergences,
                   o.round_trips > 0 ? ", " : "",
                   o.round_trips > 0 ? runner.round_trip_stats().Summary().c_str() : "");
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::ostringstream title;
  if (o.round_trips > 0) {
    title << "persistence round trips vs Redis 7.0 (" << index << " commands, "
          << runner.round_trip_stats().Summary() << ", seed " << o.seed << ")";
  } else {
    title << "differential test vs Redis 7.0 (" << index << " commands, seed " << o.seed << ")";
  }

  if (divergences == 0) {
    if (o.test_line) {
      std::cout << "[ok]: " << title.str() << "\n";
    } else {
      std::printf(
          "difftest: seed %llu: %lld commands matched in %.1f s (%zu distinct commands, %lld "
          "error replies, %lld RESP3-typed replies, %lld subscriber messages%s)\n",
          static_cast<unsigned long long>(o.seed), index, secs, names.size(),
          runner.error_replies(), runner.resp3_replies(), runner.messages_compared(),
          !streams.enabled                                      ? ": no streams"
          : !streams.keyspace                                   ? ", no keyspace events"
          : streams.tracking == StreamOptions::Tracking::kOff   ? ", no tracking"
          : streams.tracking == StreamOptions::Tracking::kBcast ? ", tracking in BCAST mode"
                                                                : ", with tracking");
      if (o.round_trips > 0) {
        std::printf("difftest: seed %llu: %s\n", static_cast<unsigned long long>(o.seed),
                    runner.round_trip_stats().Summary().c_str());
      }
    }
    return 0;
  }
  if (o.test_line) {
    std::cout << "[err]: " << title.str() << "\n";
    std::istringstream lines(report.str());
    for (std::string l; std::getline(lines, l);) std::cout << "    " << l << "\n";
  } else {
    std::cout << report.str();
    if (o.keep_going > 0) {
      std::printf(
          "difftest: seed %llu: %lld commands in %.1f s, %d divergences (%zu distinct), %zu "
          "distinct commands\n",
          static_cast<unsigned long long>(o.seed), index, secs, divergences, signatures.size(),
          names.size());
    }
  }
  return 1;
}

}  // namespace
}  // namespace difftest

int main(int argc, char** argv) {
  difftest::Options o;
  if (!difftest::ParseOptions(argc, argv, o)) {
    difftest::Usage();
    return 2;
  }
  return difftest::Run(o);
}
