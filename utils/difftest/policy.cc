// The policy table and reply comparison (see policy.h). Keep this table and
// utils/difftest/KNOWN-DIFFERENCES.md in step.
#include "policy.h"

#include <algorithm>
#include <cstdlib>

namespace difftest {

namespace {

constexpr const char* kOursOnly = "redis-tp's own command; Redis 7.0 does not have it";

}  // namespace

const std::vector<PolicyRow>& PolicyTable() {
  static const std::vector<PolicyRow> rows = {
      // ---- never sent -------------------------------------------------------------------------
      {"shutdown", Rule::kNeverSend, 0, "stops the server under test"},
      {"monitor", Rule::kNeverSend, 0,
       "turns the connection into a feed of other clients' commands, not one reply per request"},
      {"debug", Rule::kNeverSend, 0,
       "SEGFAULT/RELOAD/SLEEP crash, block or restart; the rest exposes internals (encodings, "
       "addresses, allocator) that differ by design"},
      {"quit", Rule::kNeverSend, 0,
       "ends the connection; the lock-step run keeps its connections (RESET is sent instead)"},
      {"client|kill", Rule::kNeverSend, 0,
       "could kill the tester's own connections; ids and addresses differ between the servers"},
      {"client|pause", Rule::kNeverSend, 0,
       "stops serving every client for a wall-clock duration: time-dependent by nature"},
      {"client|reply", Rule::kNeverSend, 0,
       "OFF/SKIP suppress replies, so a request no longer has exactly one reply to compare"},
      {"config|set", Rule::kNeverSend, 0,
       "server-wide state that FLUSHALL does not undo, so replays on flushed servers would "
       "start from a different configuration"},
      {"settp", Rule::kNeverSend, 0, kOursOnly},
      {"bsettp", Rule::kNeverSend, 0, kOursOnly},
      {"deltp", Rule::kNeverSend, 0, kOursOnly},
      {"watchex", Rule::kNeverSend, 0, kOursOnly},
      {"unwatchex", Rule::kNeverSend, 0, kOursOnly},
      {"client|lease", Rule::kNeverSend, 0, kOursOnly},
      {"object|fence", Rule::kNeverSend, 0, kOursOnly},
      {"object|owner", Rule::kNeverSend, 0, kOursOnly},
      {"spop", Rule::kNeverSend, 0,
       "removes random members: the two servers' sets would differ from then on"},
      // ---- compared by shape: random, time- or machine-dependent replies ------------------------
      {"info", Rule::kShape, 0, "counters, memory, uptime, pids and ports differ"},
      {"time", Rule::kShape, 0, "the current time"},
      {"lastsave", Rule::kShape, 0, "the servers' start times"},
      {"randomkey", Rule::kShape, 0, "random by definition"},
      {"srandmember", Rule::kShape, 0, "random by definition"},
      {"scan", Rule::kShape, 0,
       "the cursor encodes a hash-table position, which differs between implementations; "
       "errors are still compared exactly"},
      {"client|list", Rule::kShape, 0, "ids, addresses, ages and buffer sizes differ"},
      {"client|info", Rule::kShape, 0, "ids, addresses, ages and buffer sizes differ"},
      {"client|id", Rule::kShape, 0, "connection ids depend on how many connections came before"},
      {"object|idletime", Rule::kShape, 0, "seconds since the last access: the clock"},
      {"memory|usage", Rule::kShape, 0, "allocator- and encoding-dependent byte counts"},
      {"memory|stats", Rule::kShape, 0, "allocator statistics"},
      {"memory|doctor", Rule::kShape, 0, "a report on allocator statistics"},
      {"memory|malloc-stats", Rule::kShape, 0, "allocator statistics"},
      {"slowlog|get", Rule::kShape, 0,
       "durations and timestamps; on a busy machine, which "
       "commands were slow at all"},
      {"slowlog|len", Rule::kShape, 0, "which commands exceeded the threshold depends on load"},
      {"latency", Rule::kShape, 0, "latency samples depend on machine load"},
      {"config|get", Rule::kShape, 0,
       "ports and directories differ, and redis-tp lacks some of Redis's parameters"},
      {"command", Rule::kShape, 0, "redis-tp implements a subset of Redis's commands"},
      {"command|count", Rule::kShape, 0, "redis-tp implements a subset of Redis's commands"},
      {"command|list", Rule::kShape, 0, "redis-tp implements a subset of Redis's commands"},
      {"command|docs", Rule::kShape, 0,
       "summaries are written in our own words; the command sets differ"},
      {"function|stats", Rule::kShape, 0, "redis-tp has no Lua engine yet: `engines` is empty"},
      {"object|refcount", Rule::kShape, 0,
       "Redis reports its object-sharing internals: INT_MAX for shared small integers, but 1 "
       "for a COPY of one and 2 inside the EXEC that stored it; redis-tp models the first only"},
      {"*|help", Rule::kShape, 0, "help text is written in our own words"},
      // ---- compared with a tolerance ----------------------------------------------------------
      {"ttl", Rule::kTolerance, 3, "remaining time: the two servers are read moments apart"},
      {"pttl", Rule::kTolerance, 3000, "remaining time: the two servers are read moments apart"},
      {"expiretime", Rule::kTolerance, 3,
       "absolute expiry computed from each server's clock when set relatively"},
      {"pexpiretime", Rule::kTolerance, 3000,
       "absolute expiry computed from each server's clock when set relatively"},
      // ---- compared as sets -------------------------------------------------------------------
      {"keys", Rule::kUnordered, 0, "hash-table iteration order"},
      {"smembers", Rule::kUnordered, 0, "hash-table iteration order"},
      {"sinter", Rule::kUnordered, 0, "hash-table iteration order"},
      {"sunion", Rule::kUnordered, 0, "hash-table iteration order"},
      {"sdiff", Rule::kUnordered, 0, "hash-table iteration order"},
      {"hello", Rule::kHello, 0, "the `id` field is the connection id"},
  };
  return rows;
}

const PolicyRow* FindPolicy(const std::string& name) {
  const auto& rows = PolicyTable();
  auto find = [&](const std::string& n) -> const PolicyRow* {
    for (const auto& r : rows) {
      if (n == r.command) return &r;
    }
    return nullptr;
  };
  if (const PolicyRow* r = find(name)) return r;
  size_t bar = name.find('|');
  if (bar != std::string::npos) {
    if (name.substr(bar) == "|help") return find("*|help");
    return find(name.substr(0, bar));
  }
  return nullptr;
}

bool SameReply(const Value& ours, const Value& theirs, const PolicyRow* rule, std::string& why) {
  if (ours.kind == Value::Kind::kLost || theirs.kind == Value::Kind::kLost) {
    why = "a connection was lost";  // even on both sides: the run cannot go on comparing
    return false;
  }
  Rule r = rule == nullptr ? Rule::kExact : rule->rule;
  if (ours.IsError() || theirs.IsError()) r = Rule::kExact;
  switch (r) {
    case Rule::kShape:
      if (ours.kind == theirs.kind) return true;
      why = "reply kinds differ: " + std::string(ours.KindName()) + " vs " +
            std::string(theirs.KindName());
      return false;
    case Rule::kTolerance:
      if (ours.kind == Value::Kind::kInteger && theirs.kind == Value::Kind::kInteger &&
          ours.integer >= 0 && theirs.integer >= 0 &&
          std::llabs(ours.integer - theirs.integer) <= rule->tolerance) {
        return true;
      }
      break;
    case Rule::kUnordered:
      if (ours.kind == theirs.kind && ours.IsAggregate()) {
        auto sorted = [](const Value& v) {
          std::vector<std::string> out;
          for (const auto& e : v.elements) out.push_back(e.Render());
          std::sort(out.begin(), out.end());
          return out;
        };
        if (sorted(ours) == sorted(theirs)) return true;
        why = "different elements (compared in any order)";
        return false;
      }
      break;
    case Rule::kHello:
      if (ours.kind == theirs.kind && ours.IsAggregate() &&
          ours.elements.size() == theirs.elements.size()) {
        bool same = true;
        for (size_t i = 0; i < ours.elements.size() && same; ++i) {
          if (i % 2 == 1 && ours.elements[i - 1].str == "id") continue;
          same = ours.elements[i].Render() == theirs.elements[i].Render();
        }
        if (same) return true;
      }
      break;
    case Rule::kExact:
    case Rule::kNeverSend:
      break;
  }
  if (ours.Render() == theirs.Render()) return true;
  why = "replies differ";
  return false;
}

}  // namespace difftest
