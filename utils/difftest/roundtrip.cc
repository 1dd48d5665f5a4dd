// Persistence round trips: what is drawn, how a side's data is read, and the file checks (see
// roundtrip.h; the runner's part is in runner_roundtrip.cc).
#include "roundtrip.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace difftest {

namespace {

struct Kind {
  const char* name;
  int weight;
};

// Restarts cost a process each, so they come a little less often.
constexpr Kind kKinds[] = {{"reload", 20},         {"loadaof", 20},    {"rewrite", 20},
                           {"bgsave-restart", 15}, {"appendonly", 10}, {"crash-restart", 15}};

std::string Clip(const std::string& s, size_t max = 300) {
  return s.size() <= max ? s : s.substr(0, max) + "...";
}

// Where two renderings part: a little of what they share, then each one's rest (clipped).
std::string Parting(const std::string& a, const std::string& b) {
  size_t p = 0;
  while (p < a.size() && p < b.size() && a[p] == b[p]) ++p;
  const size_t from = p > 80 ? p - 80 : 0;
  const std::string lead = from > 0 ? "..." : "";
  return lead + Clip(a.substr(from), 240) + " became " + lead + Clip(b.substr(from), 240);
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// Runs `command` (output and errors captured); returns its exit status, or -1.
int RunTool(const std::string& command, std::string& output) {
  output.clear();
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The last `lines` lines of `text`, on one line.
std::string Tail(const std::string& text, int lines) {
  std::vector<std::string> all;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string out;
  for (size_t i = all.size() > static_cast<size_t>(lines) ? all.size() - lines : 0; i < all.size();
       ++i) {
    out += (out.empty() ? "" : " | ") + all[i];
  }
  return out;
}

// A flat RESP2 key-value array as a map from key to rendered value.
std::map<std::string, std::string> Fields(const Value& v) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i + 1 < v.elements.size(); i += 2) {
    out[v.elements[i].str] = v.elements[i + 1].Render();
  }
  return out;
}

// Keeps `names` of a flat key-value array, in that order.
std::string Select(const Value& v, const std::vector<const char*>& names) {
  if (v.kind != Value::Kind::kArray) return v.Render();
  std::map<std::string, std::string> f = Fields(v);
  std::string out;
  for (const char* n : names) out += std::string(n) + "=" + f[n] + " ";
  return out;
}

std::string SortedMembers(const Value& v) {
  if (v.kind != Value::Kind::kArray) return v.Render();
  std::vector<std::string> items;
  for (const auto& e : v.elements) items.push_back(e.Render());
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& i : items) out += i + ",";
  return "{" + out + "}";
}

std::string SortedPairs(const Value& v) {
  if (v.kind != Value::Kind::kArray) return v.Render();
  std::vector<std::string> items;
  for (size_t i = 0; i + 1 < v.elements.size(); i += 2) {
    items.push_back(v.elements[i].Render() + "=" + v.elements[i + 1].Render());
  }
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& i : items) out += i + ",";
  return "{" + out + "}";
}

// A stream: its entries, the metadata that persists, and per group its state, pending entries
// (without their idle times) and consumers (name and pending count).
std::string StreamValue(Connection& c, const std::string& key) {
  std::string out = c.Call({"XRANGE", key, "-", "+"}).Render();
  out += " " + Select(c.Call({"XINFO", "STREAM", key}),
                      {"length", "last-generated-id", "max-deleted-entry-id", "entries-added",
                       "recorded-first-entry-id", "groups"});
  Value groups = c.Call({"XINFO", "GROUPS", key});
  out += " groups:" + groups.Render();
  for (const auto& g : groups.elements) {
    std::string name;
    for (size_t i = 0; i + 1 < g.elements.size(); i += 2) {
      if (g.elements[i].str == "name") name = g.elements[i + 1].str;
    }
    Value pending = c.Call({"XPENDING", key, name, "-", "+", "1000000"});
    for (auto& p : pending.elements) {
      if (p.elements.size() == 4) p.elements[2] = Value{};  // idle time: the clock
    }
    out += " pending[" + name + "]:" + pending.Render();
    Value consumers = c.Call({"XINFO", "CONSUMERS", key, name});
    out += " consumers[" + name + "]:";
    for (const auto& cons : consumers.elements) out += Select(cons, {"name", "pending"}) + ";";
  }
  return out;
}

std::string KeyValue(Connection& c, const std::string& type, const std::string& key,
                     const std::string& db, Snapshot& s) {
  if (type == "string") return c.Call({"GET", key}).Render();
  if (type == "list") return c.Call({"LRANGE", key, "0", "-1"}).Render();
  if (type == "set") return SortedMembers(c.Call({"SMEMBERS", key}));
  if (type == "zset") {
    Value v = c.Call({"ZRANGE", key, "0", "-1", "WITHSCORES"});
    for (size_t i = 0; i + 1 < v.elements.size(); i += 2) {
      if (v.elements[i + 1].str == "-0") s.negative_zeros.push_back({db, key, v.elements[i].str});
    }
    return v.Render();
  }
  if (type == "hash") return SortedPairs(c.Call({"HGETALL", key}));
  if (type == "stream") return StreamValue(c, key);
  return "?";
}

}  // namespace

std::vector<std::string> DrawRoundTrip(Rng& rng) {
  int total = 0;
  for (const Kind& k : kKinds) total += k.weight;
  long long pick = static_cast<long long>(rng.Below(static_cast<uint64_t>(total)));
  const char* kind = kKinds[0].name;
  for (const Kind& k : kKinds) {
    if (pick < k.weight) {
      kind = k.name;
      break;
    }
    pick -= k.weight;
  }
  auto yes = [&](int percent) -> std::string { return rng.Percent(percent) ? "yes" : "no"; };
  return {
      "ROUNDTRIP",      kind,   "aof-use-rdb-preamble", yes(60), "aof-timestamp-enabled", yes(20),
      "rdbcompression", yes(80)};
}

std::string RoundTripStats::Summary() const {
  long long n = 0;
  std::string kinds;
  for (const auto& [kind, count] : by_kind) {
    n += count;
    kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
  }
  return std::to_string(n) + " round trips (" + (kinds.empty() ? "none" : kinds) + "), " +
         std::to_string(files_checked) + " files checked, " + std::to_string(keys_compared) +
         " keys compared, " + std::to_string(temp_keys) + " temporary keys" +
         (negative_zeros == 0 ? ""
                              : ", " + std::to_string(negative_zeros) + " -0 scores set to 0") +
         (redis_bitfield_losses == 0 ? ""
                                     : ", " + std::to_string(redis_bitfield_losses) +
                                           " keys Redis lost to its BITFIELD OVERFLOW FAIL") +
         (alike_changes == 0
              ? ""
              : ", " + std::to_string(alike_changes) +
                    " changes made alike by both servers (first: " + alike_example + ")");
}

Snapshot TakeSnapshot(Connection& c) {
  Snapshot s;
  Value d = c.Call({"DEBUG", "DIGEST"});
  if (d.kind == Value::Kind::kLost || d.IsError()) {
    s.error = "DEBUG DIGEST answered " + d.Render();
    return s;
  }
  s.digest = d.str;
  Value info = c.Call({"INFO", "keyspace"});
  std::vector<std::string> dbs;
  std::istringstream lines(info.str);
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("db", 0) == 0 && l.find(':') != std::string::npos) {
      dbs.push_back(l.substr(2, l.find(':') - 2));
    }
  }
  for (const auto& db : dbs) {
    Value sel = c.Call({"SELECT", db});
    Value keys = c.Call({"KEYS", "*"});
    if (sel.IsError() || keys.kind != Value::Kind::kArray) {
      s.error = "reading db " + db + ": " + sel.Render() + " " + keys.Render();
      break;
    }
    for (const auto& k : keys.elements) {
      std::string type = c.Call({"TYPE", k.str}).str;
      Value pttl = c.Call({"PTTL", k.str});
      std::string value = KeyValue(c, type, k.str, db, s);
      const std::string name = db + " " + Quote(k.str);
      s.keys[name] = type + (pttl.integer >= 0 ? " ttl " : " no-ttl ") + value;
      s.names[name] = {db, k.str};
    }
  }
  c.Call({"SELECT", "0"});
  Value libs = c.Call({"FUNCTION", "LIST", "WITHCODE"});
  s.functions = libs.IsError() ? libs.Render() : SortedMembers(libs);
  if (!c.alive()) s.error = "the connection was lost: " + c.error();
  return s;
}

std::string DiffSnapshots(const Snapshot& before, const Snapshot& after, bool digest) {
  if (!before.error.empty()) return "before: " + before.error;
  if (!after.error.empty()) return "after: " + after.error;
  std::string out;
  int shown = 0;
  auto add = [&](const std::string& line) {
    if (shown++ < 4) out += (out.empty() ? "" : "; ") + line;
  };
  if (digest && before.digest != after.digest) {
    add("DEBUG DIGEST " + before.digest + " became " + after.digest);
  }
  for (const auto& [key, value] : before.keys) {
    auto it = after.keys.find(key);
    if (it == after.keys.end()) {
      add("key " + key + " is missing (was " + Clip(value) + ")");
    } else if (it->second != value) {
      add("key " + key + ": " + Parting(value, it->second));
    }
  }
  for (const auto& [key, value] : after.keys) {
    if (before.keys.count(key) == 0) add("key " + key + " appeared: " + Clip(value));
  }
  if (before.functions != after.functions) {
    add("function libraries " + Parting(before.functions, after.functions));
  }
  if (shown > 4) out += "; ... (" + std::to_string(shown) + " differences)";
  return out;
}

std::vector<std::string> LostZeroStrings(const Snapshot& before, const Snapshot& after) {
  std::vector<std::string> lost;
  for (const auto& [key, value] : before.keys) {
    if (after.keys.count(key) != 0) continue;
    for (const char* form : {"string no-ttl $\"", "string ttl $\""}) {
      const std::string prefix = form;
      if (value.rfind(prefix, 0) != 0 || value.back() != '"') continue;
      std::string bytes = value.substr(prefix.size(), value.size() - prefix.size() - 1);
      bool zeros = !bytes.empty() && bytes.size() % 4 == 0;
      for (size_t i = 0; zeros && i < bytes.size(); i += 4) {
        zeros = bytes.compare(i, 4, "\\x00") == 0;
      }
      if (zeros) lost.push_back(key);
    }
  }
  return lost;
}

std::string CheckFiles(const std::string& dir, RoundTripStats& stats) {
  std::string refusals;
  std::string output;
  const std::string rdb = dir + "/dump.rdb";
  if (Exists(rdb)) {
    ++stats.files_checked;
    if (RunTool("/usr/bin/redis-check-rdb '" + rdb + "'", output) != 0) {
      refusals += "redis-check-rdb refused dump.rdb: " + Tail(output, 3) + "; ";
    }
  }
  const std::string manifest = dir + "/appendonlydir/appendonly.aof.manifest";
  if (Exists(manifest)) {
    std::ifstream in(manifest);
    for (std::string l; std::getline(in, l);) {
      if (l.find(" type h") == std::string::npos && !l.empty()) ++stats.files_checked;
    }
    if (RunTool("/usr/bin/redis-check-aof '" + manifest + "'", output) != 0) {
      refusals += "redis-check-aof refused the AOF: " + Tail(output, 4) + "; ";
    }
  }
  return refusals;
}

std::map<std::string, std::string> PersistenceInfo(Connection& c) {
  std::map<std::string, std::string> out;
  Value v = c.Call({"INFO", "persistence"});
  std::istringstream lines(v.str);
  for (std::string l; std::getline(lines, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    size_t colon = l.find(':');
    if (colon != std::string::npos) out[l.substr(0, colon)] = l.substr(colon + 1);
  }
  return out;
}

bool WaitPersistenceIdle(Connection& c, std::string& why) {
  // 3,000 polls 20 ms apart: a minute, far more than the small datasets of a run need.
  for (int i = 0; i < 3000; ++i) {
    auto info = PersistenceInfo(c);
    if (!c.alive()) {
      why = "the connection was lost while waiting for a child: " + c.error();
      return false;
    }
    if (info["aof_rewrite_in_progress"] == "0" && info["aof_rewrite_scheduled"] == "0" &&
        info["rdb_bgsave_in_progress"] == "0") {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  why = "a BGSAVE or AOF rewrite did not end within a minute";
  return false;
}

}  // namespace difftest
