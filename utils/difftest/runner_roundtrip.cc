// The runner's side of the persistence round trips (see roundtrip.h): running one on both
// servers, restarting a server in the middle of the stream, and the checks.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "runner.h"

namespace difftest {

namespace {

constexpr const char* kTempKey = "difftest:roundtrip:tk";

bool IsOk(const Value& v) { return v.kind == Value::Kind::kStatus && v.str == "OK"; }

Value Status(const std::string& text) {
  Value v;
  v.kind = Value::Kind::kStatus;
  v.str = text;
  return v;
}

// CONFIG GET of one parameter: its value, or "" when the server lacks it.
std::string ConfigGet(Connection& c, const std::string& name) {
  Value v = c.Call({"CONFIG", "GET", name});
  return v.elements.size() == 2 ? v.elements[1].str : "";
}

// After a start: PING until the server answers PONG (Redis answers LOADING while it loads).
bool WaitLoaded(Connection& c, std::string& why) {
  for (int i = 0; i < 500; ++i) {
    Value v = c.Call({"PING"});
    if (v.kind == Value::Kind::kStatus && v.str == "PONG") return true;
    if (v.kind == Value::Kind::kLost) {
      why = "lost after the restart: " + v.str;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  why = "still loading 10 s after the restart";
  return false;
}

// The end of a rewrite or a save: the child is gone, and it succeeded.
std::string WaitChild(Connection& c, const char* status_field) {
  std::string why;
  if (!WaitPersistenceIdle(c, why)) return why;
  std::string status = PersistenceInfo(c)[status_field];
  if (status != "ok") return std::string(status_field) + " is " + status;
  return "";
}

// The messages as a sorted list of renderings; an invalidation's RESP3 null (Redis writes FLUSH's
// in the tracking client's protocol, see runner.cc) counts as RESP2's. The events of our
// temporary key (an AOF replays its SETTP, and the end of the load deletes it) are ours alone.
std::string SortedMessages(const std::vector<Value>& messages) {
  std::vector<std::string> items;
  for (Value m : messages) {
    if (std::any_of(m.elements.begin(), m.elements.end(),
                    [](const Value& e) { return e.str.find(kTempKey) != std::string::npos; })) {
      continue;
    }
    if (m.elements.size() == 3 && m.elements[1].str == "__redis__:invalidate" &&
        m.elements[2].kind == Value::Kind::kNull) {
      m.elements[2].kind = Value::Kind::kNilBulk;
    }
    items.push_back(m.Render());
  }
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& i : items) out += i + "\n";
  return out;
}

}  // namespace

bool Runner::PersistenceBaseline(Side& side, std::string& error) {
  if (!side.control.Open(side.server->port())) {
    error = side.server->label() + ": control connection: " + side.control.error();
    return false;
  }
  std::string why;
  if (!WaitPersistenceIdle(side.control, why)) {
    error = side.server->label() + ": " + why;
    return false;
  }
  for (const auto& [name, value] : std::vector<std::pair<const char*, const char*>>{
           {"appendonly", "no"}, {"appendfsync", "everysec"}}) {
    Value v = side.control.Call({"CONFIG", "SET", name, value});
    if (!IsOk(v)) {
      error = side.server->label() + ": CONFIG SET " + name + " answered " + v.Render();
      return false;
    }
  }
  return true;
}

bool Runner::Reconnect(Side& side, std::string& error) {
  for (auto& c : side.conns) {
    if (!c->Open(side.server->port())) {
      error = side.server->label() + ": " + c->error();
      return false;
    }
  }
  // The Lua generator starts again as in a new process: seeded as every reset seeds it.
  if (table_.Find("eval") != nullptr) {
    Value v = side.conns[0]->Call({"EVAL", "math.randomseed(305441741)", "0"});
    if (v.kind != Value::Kind::kNilBulk && v.kind != Value::Kind::kNull) {
      error = side.server->label() + ": EVAL math.randomseed answered " + v.Render();
      return false;
    }
  }
  return OpenStreamConnections(side, error);
}

std::string Runner::EnsureAof(Side& side) {
  Connection& c = side.control;
  if (PersistenceInfo(c)["aof_enabled"] != "1") {
    Value v = c.Call({"CONFIG", "SET", "appendonly", "yes"});
    if (!IsOk(v)) return "CONFIG SET appendonly yes answered " + v.Render();
  }
  return WaitChild(c, "aof_last_bgrewrite_status");
}

std::string Runner::KillAndRestart(Side& side, const std::vector<std::string>& extra) {
  Connection& c = side.control;
  // The configuration the stream gave the server, which a new process would not have: the
  // encoding thresholds on its command line (it loads under them, hashes as hash tables, see
  // roundtrip.h), notify-keyspace-events and the persistence options by CONFIG SET after.
  std::vector<std::string> args = extra;
  std::vector<std::pair<std::string, std::string>> after;
  for (const auto& t : EncodingThresholds()) {
    std::string value = ConfigGet(c, t.name);
    if (value.empty()) continue;
    args.push_back(std::string("--") + t.name);
    args.push_back(std::string(t.name) == "hash-max-listpack-entries" ? "0" : value);
  }
  for (const char* name : {"notify-keyspace-events", "aof-use-rdb-preamble",
                           "aof-timestamp-enabled", "rdbcompression"}) {
    after.emplace_back(name, ConfigGet(c, name));
  }
  if (!side.server->Restart(args)) return "restart failed: " + side.server->error();
  std::string why;
  if (!c.Open(side.server->port()) || !WaitLoaded(c, why)) {
    return "after the restart: " + (why.empty() ? c.error() : why) +
           "; log: " + side.server->LogTail(5);
  }
  for (const auto& [name, value] : after) {
    Value v = c.Call({"CONFIG", "SET", name, value});
    if (!IsOk(v)) return "CONFIG SET " + name + " after the restart answered " + v.Render();
  }
  std::string error;
  if (!Reconnect(side, error)) return error;
  return "";
}

std::string Runner::RunRoundTrip(Side& side, const std::vector<std::string>& argv) {
  Connection& c = side.control;
  const std::string& kind = argv[1];
  for (size_t i = 2; i + 1 < argv.size(); i += 2) {
    Value v = c.Call({"CONFIG", "SET", argv[i], argv[i + 1]});
    if (!IsOk(v)) return "CONFIG SET " + argv[i] + " answered " + v.Render();
  }
  const std::string hash_entries = ConfigGet(c, "hash-max-listpack-entries");
  if (!IsOk(c.Call({"CONFIG", "SET", "hash-max-listpack-entries", "0"}))) {
    return "CONFIG SET hash-max-listpack-entries 0 failed";
  }
  std::string why;
  auto expect_ok = [&](const std::vector<std::string>& request) {
    Value v = c.Call(request);
    if (!IsOk(v)) why = RenderArgv(request) + " answered " + v.Render();
    return why.empty();
  };
  auto expect_started = [&](const std::vector<std::string>& request, const char* prefix) {
    Value v = c.Call(request);
    if (v.kind != Value::Kind::kStatus || v.str.rfind(prefix, 0) != 0) {
      why = RenderArgv(request) + " answered " + v.Render();
    }
    return why.empty();
  };
  if (kind == "reload") {
    expect_ok({"DEBUG", "RELOAD"});
  } else if (kind == "loadaof") {
    why = EnsureAof(side);
    if (why.empty()) expect_ok({"DEBUG", "LOADAOF"});
  } else if (kind == "rewrite") {
    if (expect_started({"BGREWRITEAOF"}, "Background append only file rewriting")) {
      why = WaitChild(c, "aof_last_bgrewrite_status");
      if (why.empty()) expect_ok({"DEBUG", "LOADAOF"});
    }
  } else if (kind == "appendonly") {
    if (PersistenceInfo(c)["aof_enabled"] == "1") {
      expect_ok({"CONFIG", "SET", "appendonly", "no"});
    }
    if (why.empty()) why = EnsureAof(side);
    if (why.empty()) expect_ok({"DEBUG", "LOADAOF"});
  } else if (kind == "bgsave-restart") {
    if (expect_started({"BGSAVE"}, "Background saving started")) {
      why = WaitChild(c, "rdb_last_bgsave_status");
      if (why.empty()) why = KillAndRestart(side, {"--appendonly", "no"});
    }
  } else if (kind == "crash-restart") {
    why = EnsureAof(side);
    if (why.empty() && expect_ok({"CONFIG", "SET", "appendfsync", "always"})) {
      why = KillAndRestart(side, {"--appendonly", "yes", "--appendfsync", "always"});
    }
  } else {
    why = "unknown round trip " + kind;
  }
  if (why.empty()) {
    Value v = c.Call({"CONFIG", "SET", "hash-max-listpack-entries", hash_entries});
    if (!IsOk(v)) why = "CONFIG SET hash-max-listpack-entries answered " + v.Render();
  }
  return why;
}

bool Runner::DrainOurs() {
  if (!streams_.enabled) return true;
  std::vector<Value> dropped;
  ours_.control.Call(SentinelRequest(++sentinel_));
  return ours_.subscriber.DrainUntil(sentinel_, dropped);
}

Outcome Runner::RoundTrip(const Step& step) {
  Outcome out;
  out.ours = Status("round trip done");
  out.theirs = out.ours;
  auto fail = [&](const std::string& why) {
    out.same = false;
    out.why = why;
    return out;
  };
  if (step.argv.size() < 2) return fail("a round-trip step without a kind");
  ++round_trip_stats_.by_kind[step.argv[1]];
  Side* sides[2] = {&ours_, &theirs_};
  Snapshot before[2];
  for (int i = 0; i < 2; ++i) {
    Side& s = *sides[i];
    if (!s.control.alive() && !s.control.Open(s.server->port())) {
      return fail(s.server->label() + ": control connection: " + s.control.error());
    }
    before[i] = TakeSnapshot(s.control);
  }
  std::string diff = DiffSnapshots(before[0], before[1], false);
  if (!diff.empty()) {
    return fail("the two servers' data differ before the round trip (redis-tp, then Redis): " +
                diff);
  }
  // A sorted-set score of -0 survives a base of commands in Redis only by the order of its
  // hash table (its rewrite walks the members' dict; replayed into a listpack first, -0 becomes
  // 0), in ours never: both servers set such scores to 0 first (KNOWN-DIFFERENCES.md).
  if (!before[0].negative_zeros.empty()) {
    for (Side* s : sides) {
      for (const auto& z : before[0].negative_zeros) {
        s->control.Call({"SELECT", z[0]});
        s->control.Call({"ZADD", z[1], "XX", "1", z[2]});
        s->control.Call({"ZADD", z[1], "XX", "0", z[2]});
      }
      s->control.Call({"SELECT", "0"});
    }
    round_trip_stats_.negative_zeros += static_cast<long long>(before[0].negative_zeros.size());
    if (streams_.enabled) {
      std::vector<Value> z_ours;
      std::vector<Value> z_theirs;
      if (!SyncStreams(ours_.control, theirs_.control, z_ours, z_theirs) ||
          SortedMessages(z_ours) != SortedMessages(z_theirs)) {
        return fail("the messages of the -0 scores' ZADDs differ");
      }
    }
    for (int i = 0; i < 2; ++i) before[i] = TakeSnapshot(sides[i]->control);
    diff = DiffSnapshots(before[0], before[1], false);
    if (!diff.empty()) return fail("the two servers' data differ after setting -0 scores: " + diff);
  }
  round_trip_stats_.keys_compared += static_cast<long long>(before[0].keys.size());
  // Ours only: a temporary key of the control connection, which no load may bring back.
  const bool temp_keys = table_.Find("settp") != nullptr;
  if (temp_keys) {
    Value v = ours_.control.Call({"SETTP", kTempKey, "v"});
    if (v.kind != Value::Kind::kInteger || v.integer != 1) {
      return fail("redis-tp: SETTP of the round trip's temporary key answered " + v.Render());
    }
    ++round_trip_stats_.temp_keys;
    // Its keyspace events are ours alone.
    if (!DrainOurs()) {
      return fail("redis-tp: the subscriber was lost after the temporary key's SETTP");
    }
  }
  for (int i = 0; i < 2; ++i) {
    std::string why = RunRoundTrip(*sides[i], step.argv);
    if (!why.empty()) {
      (i == 0 ? out.ours : out.theirs) = Status(why);
      return fail(sides[i]->server->label() + ": " + why +
                  "; log: " + sides[i]->server->LogTail(3));
    }
  }
  // A restart closed every connection of the stream: no transaction is open any more.
  if (step.argv[1].find("restart") != std::string::npos) {
    for (auto& t : tx_) t = TxState{};
  }
  // The messages the round trip caused (invalidations of the emptied data, the keyspace events
  // of the commands an AOF replays), read now, before the checks send anything, and compared
  // last, alike but in any order: a base lists the keys in the order of each server's own
  // keyspace table. The sentinel goes through the control connections (a stream connection may
  // be in MULTI).
  std::vector<Value> m_ours;
  std::vector<Value> m_theirs;
  const bool lost_subscriber =
      streams_.enabled && !SyncStreams(ours_.control, theirs_.control, m_ours, m_theirs);
  if (temp_keys) {
    Value exists = ours_.control.Call({"EXISTS", kTempKey});
    Value info = ours_.control.Call({"CLIENT", "INFO"});
    if (exists.integer != 0 || info.str.find(" tk=0 ") == std::string::npos) {
      out.ours = Status("EXISTS " + exists.Render() + ", CLIENT INFO " + info.str);
      return fail(
          "redis-tp: the round trip's temporary key survived the load, or its owner "
          "still counts it");
    }
  }
  // Each side against itself: a change is a finding unless both made it alike (then it is
  // Redis 7.0's own, reproduced: XREADGROUP replayed from an AOF as XCLAIM ... LASTID leaves a
  // group's entries-read unknown, say). The digests cannot be compared across servers (TTLs are
  // absolute times on each one's clock), but both change or neither.
  Snapshot after[2];
  std::string changed[2];
  for (int i = 0; i < 2; ++i) {
    after[i] = TakeSnapshot(sides[i]->control);
    changed[i] = DiffSnapshots(before[i], after[i], false);
    (i == 0 ? out.ours : out.theirs) = Status(changed[i].empty() ? "unchanged" : changed[i]);
  }
  bool digest_changed[2] = {before[0].digest != after[0].digest,
                            before[1].digest != after[1].digest};
  // Redis 7.0 does not propagate a BITFIELD whose writes all failed, though it made the key:
  // its AOF lacks the key (KNOWN-DIFFERENCES.md). When that is all that sets the two apart,
  // the keys are deleted on ours too, and the run goes on with both alike.
  if (changed[0] != changed[1]) {
    std::vector<std::string> lost = LostZeroStrings(before[1], after[1]);
    Snapshot restored = after[1];
    for (const auto& key : lost) restored.keys[key] = before[1].keys[key];
    if (!lost.empty() && changed[0].empty() && !digest_changed[0] &&
        DiffSnapshots(before[1], restored, false).empty()) {
      for (const auto& key : lost) {
        const auto& [db, raw] = before[0].names.at(key);
        ours_.control.Call({"SELECT", db});
        ours_.control.Call({"DEL", raw});
        after[0].keys.erase(key);
      }
      ours_.control.Call({"SELECT", "0"});
      if (!DrainOurs()) return fail("redis-tp: the subscriber was lost after a DEL");
      round_trip_stats_.redis_bitfield_losses += static_cast<long long>(lost.size());
      changed[1].clear();
      digest_changed[1] = false;
    }
  }
  if (changed[0] != changed[1]) {
    return fail("the data changed in the round trip, not alike on both servers");
  }
  if (digest_changed[0] != digest_changed[1]) {
    out.ours = Status("DEBUG DIGEST " + before[0].digest + " -> " + after[0].digest);
    out.theirs = Status("DEBUG DIGEST " + before[1].digest + " -> " + after[1].digest);
    return fail("DEBUG DIGEST changed on one server only");
  }
  if (!changed[0].empty()) {
    if (round_trip_stats_.alike_changes++ == 0) round_trip_stats_.alike_example = changed[0];
    if (round_trip_stats_.log_alike) {
      std::fprintf(stderr, "difftest: %s changed the data alike on both servers: %s\n",
                   RenderArgv(step.argv).c_str(), changed[0].c_str());
    }
  }
  out.ours = out.theirs = Status("round trip done");
  diff = DiffSnapshots(after[0], after[1], false);
  if (!diff.empty()) {
    return fail("the two servers' data differ after the round trip (redis-tp, then Redis): " +
                diff);
  }
  for (int i = 0; i < 2; ++i) {
    std::string refused = CheckFiles(sides[i]->server->dir(), round_trip_stats_);
    if (!refused.empty()) {
      (i == 0 ? out.ours : out.theirs) = Status(refused);
      return fail(sides[i]->server->label() + ": " + refused);
    }
  }
  if (streams_.enabled) {
    // What the checks caused (the temporary key's EXISTS fires keymiss on ours, which the
    // filter drops; the rest must be alike), so that the next step's messages are its own.
    std::vector<Value> c_ours;
    std::vector<Value> c_theirs;
    const bool lost = !SyncStreams(ours_.control, theirs_.control, c_ours, c_theirs);
    m_ours.insert(m_ours.end(), c_ours.begin(), c_ours.end());
    m_theirs.insert(m_theirs.end(), c_theirs.begin(), c_theirs.end());
    std::string a = SortedMessages(m_ours);
    std::string b = SortedMessages(m_theirs);
    messages_compared_ += static_cast<long long>(m_ours.size());
    if (lost_subscriber || lost || a != b) {
      out.stream = true;
      out.reply = out.theirs.Render();
      out.ours.kind = out.theirs.kind = Value::Kind::kArray;
      out.ours.elements = std::move(m_ours);
      out.theirs.elements = std::move(m_theirs);
      return fail(lost_subscriber || lost
                      ? "a subscriber was lost"
                      : "the subscribers received different messages in the round trip");
    }
  }
  return out;
}

}  // namespace difftest
