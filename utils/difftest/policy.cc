// The policy table and reply comparison (see policy.h). Keep this table and
// utils/difftest/KNOWN-DIFFERENCES.md in step.
#include "policy.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace difftest {

namespace {

constexpr const char* kOursOnly = "redis-tp's own command; Redis 7.0 does not have it";
constexpr const char* kHashFieldTtl =
    "hash-field expiration (Redis 7.4, HGETDEL/HGETEX/HSETEX 8.0); Redis 7.0 does not have it: "
    "tests/unit/type/hash-field-expire.tcl";
constexpr const char* kNewer =
    "a command of a newer Redis or Valkey (docs/compare-and-set.md, docs/newer-options.md); "
    "Redis 7.0 does not have it";
constexpr const char* kNewerClient =
    "a command of a newer Redis (7.2 to 8.x) that redis-tp answers; Redis 7.0 does not have it "
    "(docs/clients.md; tests/unit/client-newer.tcl, tests/unit/waitaof.tcl)";
constexpr const char* kSubscribe =
    "enters subscribed mode and answers one confirmation per channel, not one reply per "
    "request; unsubscribing from all confirms in each server's hash-table order; the stream "
    "comparison's subscriber connection runs these (streams.h)";

}  // namespace

const std::vector<RoundTripExemption>& RoundTripExemptions() {
  static const std::vector<RoundTripExemption> rows = {
      {"a key's TTL: compared by presence only",
       "the remaining time moves while a server restarts; the absolute time is in DEBUG DIGEST, "
       "which each server must keep"},
      {"DEBUG DIGEST: compared on each server, not between them",
       "a relative TTL became an absolute time on each server's own clock"},
      {"idle times (XPENDING's, XINFO CONSUMERS')", "the clock"},
      {"XINFO STREAM's radix-tree-keys/-nodes, first-entry, last-entry",
       "the node layout follows the thresholds the stream is loaded under; the entries are "
       "compared whole (XRANGE)"},
      {"encodings (OBJECT ENCODING)",
       "a load converts by the thresholds at load time; hashes are loaded as hash tables on "
       "purpose (each server writes a hash table in its own order)"},
      {"the order of the messages a round trip causes",
       "an AOF base lists the keys in the order of each server's keyspace table: compared as a "
       "multiset"},
      {"a change both servers make to their data alike",
       "Redis 7.0's own behaviour, reproduced (XREADGROUP replayed from the AOF as XCLAIM ... "
       "LASTID leaves the group's entries-read unknown): counted in the summary, not a finding"},
      {"the round trip's temporary key and its keyspace events", "redis-tp's own command"},
      {"a sorted-set score of -0: set to 0 on both servers before a round trip",
       "Redis 7.0 keeps it across a base of commands only by the order of its hash table (its "
       "rewrite walks the members' dict, and a member replayed into a listpack loses the sign); "
       "ours writes the members in score order and loses it whenever a listpack comes first"},
      {"a key Redis 7.0 loses to BITFIELD ... OVERFLOW FAIL",
       "Redis does not propagate a BITFIELD whose writes all failed, though it made the key (a "
       "string of zero bytes): deleted on ours too and counted"},
      {"INFO persistence counters, LASTSAVE, rdb_changes_since_last_save", "not data"},
      {"connections after a restart",
       "every connection of the stream is opened again on both servers alike (RESP2, database 0, "
       "no name, no transaction; the script cache empty, the Lua generator seeded as at start)"},
  };
  return rows;
}

const std::vector<PolicyRow>& PolicyTable() {
  static const std::vector<PolicyRow> rows = {
      // ---- never sent -------------------------------------------------------------------------
      {"shutdown", Rule::kNeverSend, 0, "stops the server under test"},
      {"monitor", Rule::kNeverSend, 0,
       "turns the connection into a feed of other clients' commands, not one reply per request"},
      {"debug", Rule::kNeverSend, 0,
       "SEGFAULT/SLEEP crash or block; the rest exposes internals (encodings, addresses, "
       "allocator) that differ by design; only the persistence steps send DEBUG RELOAD"},
      {"quit", Rule::kNeverSend, 0,
       "ends the connection; the lock-step run keeps its connections (RESET is sent instead)"},
      {"client|kill", Rule::kNeverSend, 0,
       "could kill the tester's own connections; ids and addresses differ between the servers"},
      {"client|pause", Rule::kNeverSend, 0,
       "stops serving every client for a wall-clock duration: time-dependent by nature"},
      {"client|tracking", Rule::kNeverSend, 0,
       "the stream comparison turns tracking on for every command connection, redirected to its "
       "subscriber; a random CLIENT TRACKING (a redirect to an id, RESP3 pushes on the command "
       "connection) would break the one-reply-per-request lock-step"},
      {"script|debug", Rule::kNeverSend, 0,
       "YES/SYNC turn the next EVAL into a session of the Lua debugger, which speaks its own "
       "protocol, not one reply per request"},
      {"client|reply", Rule::kNeverSend, 0,
       "OFF/SKIP suppress replies, so a request no longer has exactly one reply to compare"},
      {"config|set", Rule::kNeverSend, 0,
       "server-wide state that FLUSHALL does not undo, so replays on flushed servers would "
       "start from a different configuration; the aggregate families send CONFIG SET of the "
       "encoding thresholds only, which every reset restores"},
      {"bgsave", Rule::kNeverSend, 0,
       "forks a child whose lifetime is the machine's timing: its own reply (started, "
       "scheduled, already in progress) and those of SAVE, BGSAVE and BGREWRITEAOF after it "
       "depend on when each server's child ends"},
      {"bgrewriteaof", Rule::kNeverSend, 0,
       "forks a child whose lifetime is the machine's timing (see BGSAVE)"},
      {"pfselftest", Rule::kNeverSend, 0,
       "tests the HLL code over millions of random elements: seconds of work per call, and on a "
       "busy machine more than the tester's reply timeout (the replies of a pipeline wait for "
       "it); its reply is a constant OK"},
      {"subscribe", Rule::kNeverSend, 0, kSubscribe},
      {"psubscribe", Rule::kNeverSend, 0, kSubscribe},
      {"ssubscribe", Rule::kNeverSend, 0, kSubscribe},
      {"unsubscribe", Rule::kNeverSend, 0, kSubscribe},
      {"punsubscribe", Rule::kNeverSend, 0, kSubscribe},
      {"sunsubscribe", Rule::kNeverSend, 0, kSubscribe},
      {"replicaof", Rule::kNeverSend, 0,
       "makes the server a replica of a random address: its role, its link's state and every "
       "later write (READONLY) depend on a connection to a server that does not exist; "
       "tests/integration/repl-*.tcl compare replication on both servers"},
      {"slaveof", Rule::kNeverSend, 0, "REPLICAOF's old name (see REPLICAOF)"},
      {"sync", Rule::kNeverSend, 0,
       "turns the connection into a replication stream (an RDB payload, then commands), not one "
       "reply per request"},
      {"psync", Rule::kNeverSend, 0, "as SYNC"},
      {"failover", Rule::kNeverSend, 0,
       "needs replicas; without them its errors are tested in tests/integration/failover.tcl"},
      {"wait", Rule::kNeverSend, 0,
       "blocks for a wall-clock timeout when no replica acknowledges: time-dependent by nature"},
      {"settp", Rule::kNeverSend, 0, kOursOnly},
      {"bsettp", Rule::kNeverSend, 0, kOursOnly},
      {"deltp", Rule::kNeverSend, 0, kOursOnly},
      {"watchex", Rule::kNeverSend, 0, kOursOnly},
      {"unwatchex", Rule::kNeverSend, 0, kOursOnly},
      {"client|lease", Rule::kNeverSend, 0, kOursOnly},
      {"client|setinfo", Rule::kNeverSend, 0, kNewerClient},
      {"client|no-touch", Rule::kNeverSend, 0, kNewerClient},
      {"client|capa", Rule::kNeverSend, 0, kNewerClient},
      {"client|maint_notifications", Rule::kNeverSend, 0, kNewerClient},
      {"waitaof", Rule::kNeverSend, 0, kNewerClient},
      {"object|fence", Rule::kNeverSend, 0, kOursOnly},
      {"object|owner", Rule::kNeverSend, 0, kOursOnly},
      {"hexpire", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hpexpire", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hexpireat", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hpexpireat", Rule::kNeverSend, 0, kHashFieldTtl},
      {"httl", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hpttl", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hexpiretime", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hpexpiretime", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hpersist", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hgetdel", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hgetex", Rule::kNeverSend, 0, kHashFieldTtl},
      {"hsetex", Rule::kNeverSend, 0, kHashFieldTtl},
      {"session", Rule::kNeverSend, 0, kOursOnly},
      {"tpinfo", Rule::kNeverSend, 0, kOursOnly},
      {"tpkeys", Rule::kNeverSend, 0, kOursOnly},
      {"tpwaiters", Rule::kNeverSend, 0, kOursOnly},
      {"tpadopt", Rule::kNeverSend, 0, kOursOnly},
      {"script|show", Rule::kNeverSend, 0, kNewer},
      {"digest", Rule::kNeverSend, 0, kNewer},
      {"delex", Rule::kNeverSend, 0, kNewer},
      {"delifeq", Rule::kNeverSend, 0, kNewer},
      // ---- compared by shape: random, time- or machine-dependent replies ------------------------
      {"info", Rule::kShape, 0, "counters, memory, uptime, pids and ports differ"},
      {"time", Rule::kShape, 0, "the current time"},
      {"dump", Rule::kShape, 0,
       "a set or hash kept as a hash table is serialized in the order of each server's table "
       "(Redis's is seeded at random per process); listpack and intset payloads are byte-equal "
       "(tests/unit/dump.tcl compares them)"},
      {"lastsave", Rule::kShape, 0, "the servers' start times"},
      {"randomkey", Rule::kShape, 0, "random by definition"},
      {"acl|genpass", Rule::kShape, 0, "random by definition"},
      {"lolwut", Rule::kShape, 0,
       "each server draws its own art (tests/unit/lolwut.tcl checks the shape and version line)"},
      {"acl|log", Rule::kShape, 0, "entry ids, ages, client ids and addresses differ"},
      {"acl|list", Rule::kShape, 0,
       "single command rules are listed in each server's table order (Redis's changes per run)"},
      {"acl|getuser", Rule::kShape, 0,
       "single command rules are listed in each server's table order (Redis's changes per run)"},
      {"scan", Rule::kShape, 0,
       "the cursor encodes a hash-table position, which differs between implementations; "
       "errors are still compared exactly"},
      {"client|list", Rule::kShape, 0, "ids, addresses, ages and buffer sizes differ"},
      {"client|info", Rule::kShape, 0, "ids, addresses, ages and buffer sizes differ"},
      {"client|id", Rule::kShape, 0, "connection ids depend on how many connections came before"},
      {"client|getredir", Rule::kShape, 0,
       "the id of the stream comparison's subscriber connection, to which tracking redirects"},
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
      {"spop", Rule::kSameSize, 0,
       "random members; the generator deletes the key right after, so the servers agree again"},
      {"srandmember", Rule::kSameSize, 0, "random members"},
      {"hrandfield", Rule::kSameSize, 0, "random fields"},
      {"zrandmember", Rule::kSameSize, 0, "random members"},
      // ---- order of the encoding: exact for intsets and listpacks ------------------------------
      {"smembers", Rule::kEncodingOrder, 0, "hash-table iteration order"},
      {"sinter", Rule::kEncodingOrder, 0, "hash-table iteration order"},
      {"sunion", Rule::kEncodingOrder, 0, "hash-table iteration order"},
      {"sdiff", Rule::kEncodingOrder, 0, "hash-table iteration order"},
      {"hgetall", Rule::kEncodingOrder, 0, "hash-table iteration order"},
      {"hkeys", Rule::kEncodingOrder, 0, "hash-table iteration order"},
      {"hvals", Rule::kEncodingOrder, 0, "hash-table iteration order"},
      {"sort", Rule::kEncodingOrder, 0, "BY nosort returns a set in hash-table iteration order"},
      {"sort_ro", Rule::kEncodingOrder, 0, "BY nosort returns a set in hash-table iteration order"},
      {"sscan", Rule::kEncodingOrder, 0, "the cursor is a hash-table position"},
      {"hscan", Rule::kEncodingOrder, 0, "the cursor is a hash-table position"},
      {"zscan", Rule::kEncodingOrder, 0, "the cursor is a hash-table position"},
      // ---- lex ranges: exact over one score, unspecified over mixed scores ----------------------
      {"zlexcount", Rule::kLexRange, 0, "unspecified when the scores differ"},
      {"zrangebylex", Rule::kLexRange, 0, "unspecified when the scores differ"},
      {"zrevrangebylex", Rule::kLexRange, 0, "unspecified when the scores differ"},
      {"zrange", Rule::kLexRange, 0, "with BYLEX: unspecified when the scores differ"},
      // ---- compared with a tolerance ----------------------------------------------------------
      {"ttl", Rule::kTolerance, 3, "remaining time: the two servers are read moments apart"},
      {"pttl", Rule::kTolerance, 3000, "remaining time: the two servers are read moments apart"},
      {"expiretime", Rule::kTolerance, 3,
       "absolute expiry computed from each server's clock when set relatively"},
      {"pexpiretime", Rule::kTolerance, 3000,
       "absolute expiry computed from each server's clock when set relatively"},
      // ---- compared as sets -------------------------------------------------------------------
      {"keys", Rule::kUnordered, 0, "hash-table iteration order"},
      {"pubsub|channels", Rule::kUnordered, 0,
       "the channels in the order of the registry's hash table"},
      {"pubsub|shardchannels", Rule::kUnordered, 0,
       "the shard channels in the order of the registry's hash table"},
      // ---- compared with the times masked ------------------------------------------------------
      {"xpending", Rule::kTimeMasked, 0,
       "the extended form shows each pending entry's idle time: the clock"},
      {"xinfo|consumers", Rule::kTimeMasked, 0, "each consumer's `idle` time: the clock"},
      {"xinfo|stream", Rule::kTimeMasked, 0,
       "FULL shows consumers' `seen-time` and the pending entries' delivery times: the clock"},
      {"hello", Rule::kHello, 0, "the `id` field is the connection id"},
      {"client|trackinginfo", Rule::kHello, 0,
       "the `redirect` field is the id of the stream comparison's subscriber connection"},
  };
  return rows;
}

const char* const kResetNotifyFlags = "KEA";

bool StreamRelaxed(const std::string& name) { return name == "sort" || name == "sort_ro"; }

bool ExactConfigGet(const std::string& name, const std::vector<std::string>& argv) {
  if (name != "config|get" || argv.size() != 3) return false;
  std::string p = argv[2];
  for (auto& c : p) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return p == "notify-keyspace-events";
}

std::vector<std::string> EncodingSourceKeys(const std::string& name,
                                            const std::vector<std::string>& argv) {
  if (argv.size() < 2) return {};
  if (name == "sinter" || name == "sunion" || name == "sdiff") {
    return {argv.begin() + 1, argv.end()};
  }
  return {argv[1]};
}

namespace {

bool HasWord(const std::vector<std::string>& argv, const char* word) {
  for (size_t i = 1; i < argv.size(); ++i) {
    std::string a = argv[i];
    for (auto& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (a == word) return true;
  }
  return false;
}

}  // namespace

bool IsLexRange(const std::string& name, const std::vector<std::string>& argv) {
  return name != "zrange" || HasWord(argv, "bylex");
}

Relaxed EncodingRelaxation(const std::string& name, const std::vector<std::string>& argv) {
  if (name == "sscan" || name == "hscan" || name == "zscan") return Relaxed::kShape;
  if ((name == "sort" || name == "sort_ro") && HasWord(argv, "limit")) return Relaxed::kSize;
  return Relaxed::kMultiset;
}

bool UnorderedEncoding(const std::string& encoding) {
  return encoding == "hashtable" || encoding == "skiplist";
}

bool SameRelaxed(const Value& ours, const Value& theirs, Relaxed how, bool pairs,
                 std::string& why) {
  if (ours.kind != theirs.kind) {
    why = "reply kinds differ: " + std::string(ours.KindName()) + " vs " +
          std::string(theirs.KindName());
    return false;
  }
  if (ours.IsError() || !ours.IsAggregate() || how == Relaxed::kShape) {
    if (how == Relaxed::kShape || ours.Render() == theirs.Render()) return true;
    why = "replies differ";
    return false;
  }
  if (ours.elements.size() != theirs.elements.size()) {
    why = "different numbers of elements: " + std::to_string(ours.elements.size()) + " vs " +
          std::to_string(theirs.elements.size());
    return false;
  }
  if (how == Relaxed::kSize) return true;
  auto sorted = [pairs](const Value& v) {
    std::vector<std::string> out;
    size_t step = pairs ? 2 : 1;
    for (size_t i = 0; i + step <= v.elements.size(); i += step) {
      out.push_back(v.elements[i].Render() + (pairs ? " " + v.elements[i + 1].Render() : ""));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  if (sorted(ours) == sorted(theirs)) return true;
  why = "different elements (compared in any order, the source being hash-table encoded)";
  return false;
}

namespace {

// A key-value container: a RESP3 map, or a RESP2 array of even length whose keys are strings.
bool KeyValues(const Value& v) {
  if (v.kind == Value::Kind::kMap) return true;
  if (v.kind != Value::Kind::kArray || v.elements.size() % 2 != 0) return false;
  for (size_t i = 0; i < v.elements.size(); i += 2) {
    Value::Kind k = v.elements[i].kind;
    if (k != Value::Kind::kBulk && k != Value::Kind::kStatus) return false;
  }
  return true;
}

// The value under `key` in a key-value container, or null.
Value* FieldOf(Value& v, const char* key) {
  if (!KeyValues(v)) return nullptr;
  for (size_t i = 0; i + 1 < v.elements.size(); i += 2) {
    if (v.elements[i].str == key) return &v.elements[i + 1];
  }
  return nullptr;
}

void MaskNumber(Value* v) {
  if (v == nullptr) return;
  v->integer = 0;
  v->str.clear();
}

// A pending list: each entry an array whose element `at` is a time.
void MaskPending(Value* list, size_t at) {
  if (list == nullptr || !list->IsAggregate()) return;
  for (auto& e : list->elements) {
    if (e.IsAggregate() && e.elements.size() > at) MaskNumber(&e.elements[at]);
  }
}

}  // namespace

void MaskTimes(const std::string& name, Value& reply) {
  if (reply.IsError() || !reply.IsAggregate()) return;
  if (name == "xpending") {
    // The summary starts with a count; the extended form is a list of [id, consumer, idle, n].
    if (!reply.elements.empty() && reply.elements[0].IsAggregate()) MaskPending(&reply, 2);
  } else if (name == "xinfo|consumers") {
    for (auto& c : reply.elements) MaskNumber(FieldOf(c, "idle"));
  } else if (name == "xinfo|stream") {
    Value* groups = FieldOf(reply, "groups");
    if (groups == nullptr || !groups->IsAggregate()) return;  // not FULL: no times
    for (auto& g : groups->elements) {
      MaskPending(FieldOf(g, "pending"), 2);  // [id, consumer, delivery time, count]
      Value* consumers = FieldOf(g, "consumers");
      if (consumers == nullptr || !consumers->IsAggregate()) continue;
      for (auto& c : consumers->elements) {
        MaskNumber(FieldOf(c, "seen-time"));
        MaskPending(FieldOf(c, "pending"), 1);  // [id, delivery time, count]
      }
    }
  }
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
  // Redis 7.0's numeric SORT tests errno after strtod without clearing it first, so an ERANGE
  // left by an earlier command ("1e400", "5e-324") makes it refuse valid numbers. We do not copy
  // that. Outside MULTI the runner clears errno first and takes such a refusal back (runner.h).
  if (rule != nullptr &&
      (std::string(rule->command) == "sort" || std::string(rule->command) == "sort_ro") &&
      theirs.IsError() && !ours.IsError() &&
      theirs.str == "ERR One or more scores can't be converted into double") {
    return true;
  }
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
          if (i % 2 == 1 &&
              (ours.elements[i - 1].str == "id" || ours.elements[i - 1].str == "redirect")) {
            continue;
          }
          same = ours.elements[i].Render() == theirs.elements[i].Render();
        }
        if (same) return true;
      }
      break;
    case Rule::kSameSize:
      if (ours.kind == theirs.kind &&
          (!ours.IsAggregate() || ours.elements.size() == theirs.elements.size())) {
        return true;
      }
      why = "random picks of a different kind or size: " + ours.Render() + " vs " + theirs.Render();
      return false;
    case Rule::kTimeMasked: {
      Value a = ours;
      Value b = theirs;
      MaskTimes(rule->command, a);
      MaskTimes(rule->command, b);
      if (a.Render() == b.Render()) return true;
      why = "replies differ (times masked)";
      return false;
    }
    case Rule::kEncodingOrder:  // the runner relaxes these when it knows the encodings
    case Rule::kLexRange:       // or the scores
    case Rule::kExact:
    case Rule::kNeverSend:
      break;
  }
  if (ours.Render() == theirs.Render()) return true;
  why = "replies differ";
  return false;
}

}  // namespace difftest
