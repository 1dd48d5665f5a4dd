// The stream family of the generator (see generator.h), on once our server has XADD; each
// command is sent only when our server has it, so the family grows as the commands land.
//
// Determinism. A stream reply must be a function of the commands alone, so:
//   - ids never come from a server's clock: XADD gets explicit ids and `<ms>-*` (the sequence is
//     the server's choice, the same on both), never `*`. The milliseconds come from the
//     generator's own clock (`stream_ms_`), which every XADD moves forward by 0 to 2, so most ids
//     are new, some collide with the top (an error), and ranges, XDEL, XACK and XCLAIM name ids
//     that exist. XSETID past that clock moves it along.
//   - idle times: an entry's idle time is below the length of a run (minutes), or at least 10^10
//     ms (XCLAIM IDLE 10^10), or decades (TIME in 1970). Thresholds (XCLAIM and XAUTOCLAIM
//     min-idle-time, XPENDING IDLE) are 0 (everything) or 10^9 (only the old ones), so no run
//     is long enough for an entry to cross one; TIME in the future is clamped to now by both.
//     TameStream keeps mutated numbers in those places on the same grid.
//   - replies that show times (XPENDING's idle column, XINFO CONSUMERS's idle, XINFO STREAM
//     FULL's seen-time and delivery times) are compared with those values masked (policy.cc).
//   - no BLOCK: XREAD and XREADGROUP never wait (a blocked read would race the next command).
// The shapes: XADD with NOMKSTREAM and MAXLEN/MINID `=`/`~` [LIMIT], fields that repeat the first
// entry's (Redis packs those entries without their field names) or not, and now and then a burst
// of 5 to 30 XADDs so that nodes fill (every reset sets stream-node-max-entries to 5) and `~`
// trims whole nodes; XRANGE/XREVRANGE with exclusive bounds and COUNT, XDEL, XTRIM, XLEN,
// XSETID [ENTRIESADDED] [MAXDELETEDID]; XGROUP CREATE (MKSTREAM, ENTRIESREAD)/SETID/DESTROY/
// CREATECONSUMER/DELCONSUMER; XREADGROUP (`>`, history, NOACK, COUNT, several streams), XREAD,
// XACK, XPENDING (summary, extended, per consumer), XCLAIM (IDLE, TIME, RETRYCOUNT, FORCE,
// JUSTID, LASTID), XAUTOCLAIM (COUNT, JUSTID), XINFO STREAM [FULL [COUNT]]/GROUPS/CONSUMERS;
// wrong types, missing groups and keys, and malformed ids throughout.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "generator.h"

namespace difftest {

namespace {

using Argv = std::vector<std::string>;

const std::vector<std::string> kStreamKeys = {"x:a", "x:a", "x:a", "x:b", "x:c"};
const std::vector<std::string> kGroups = {"g1", "g1", "g1", "g2", "g3", "G1"};
const std::vector<std::string> kConsumers = {"c1", "c1", "c2", "c3", "Alice", ""};
const std::vector<std::string> kStreamFields = {"f1", "f2", "f3", "name", "", "a", "f1"};
const std::vector<std::string> kBadIds = {"0-0",
                                          "0",
                                          "abc",
                                          "-1",
                                          "1-2-3",
                                          "1-",
                                          "-",
                                          "+",
                                          "$",
                                          ">",
                                          "",
                                          "18446744073709551615-18446744073709551615",
                                          "18446744073709551615-0",
                                          "18446744073709551616",
                                          "1-18446744073709551616",
                                          "*",
                                          "1.5",
                                          "(1"};

// A canonical decimal (what Redis's strict integer parser accepts): an optional minus, no
// leading zeros, no sign or space otherwise. Sets `v` and returns true when `s` is one.
bool Canonical(const std::string& s, long long& v) {
  if (s.empty() || s.size() > 20) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size() || (s[i] == '0' && s.size() > i + 1)) return false;
  if (s.find_first_not_of("0123456789", i) != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  v = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

// Idle thresholds and idle times on the grid of the essay: anything a mutation put in their
// place that a run's length could cross is moved to the nearest value that cannot be crossed.
void Generator::TameStream(Argv& argv) {
  if (argv.empty()) return;
  std::string name = Lower(argv[0]);
  auto threshold = [](std::string& s) {
    long long v = 0;
    if (!Canonical(s, v) || v <= 0) return;
    if (v < 5000000000LL) {
      s = "1000000000";
    } else if (v < 500000000000LL) {
      s = "50000000000";
    }
  };
  auto idle = [](std::string& s) {
    long long v = 0;
    if (!Canonical(s, v) || v <= 0) return;
    if (v < 5000000000LL) {
      s = "0";
    } else if (v < 500000000000LL) {
      s = "10000000000";
    }
  };
  auto time = [](std::string& s) {
    long long v = 0;
    if (Canonical(s, v) && v >= 1000000000000LL && v < 4100000000000LL) s = "1000";
  };
  if (name == "xadd") {
    // `*` would make the server's clock the id: keep it an invalid id (or field) instead.
    for (size_t i = 2; i < argv.size(); ++i) {
      if (argv[i] == "*") argv[i] = "*x";
    }
  } else if (name == "xclaim" || name == "xautoclaim") {
    if (argv.size() > 4) threshold(argv[4]);
    for (size_t i = 5; name == "xclaim" && i + 1 < argv.size(); ++i) {
      std::string w = Lower(argv[i]);
      if (w == "idle") idle(argv[i + 1]);
      if (w == "time") time(argv[i + 1]);
    }
  } else if (name == "xpending") {
    for (size_t i = 3; i + 1 < argv.size(); ++i) {
      if (Lower(argv[i]) == "idle") threshold(argv[i + 1]);
    }
  } else if (name == "xread" || name == "xreadgroup") {
    // Never BLOCK (a mutation may repeat or invent one).
    for (size_t i = 1; i < argv.size(); ++i) {
      if (Lower(argv[i]) == "block") argv[i] = "BLOCKX";
    }
  }
}

std::string Generator::StreamKey() {
  uint64_t r = rng_.Below(100);
  if (r < 5) return Key();
  if (r < 9) return rng_.Pick(std::vector<std::string>{"h:a", "z:a", "hll:a", "agg:x", "l:a"});
  return rng_.Pick(kStreamKeys);
}

std::string Generator::StreamGroup() { return rng_.Percent(97) ? rng_.Pick(kGroups) : AnyValue(); }

std::string Generator::StreamConsumer() {
  return rng_.Percent(97) ? rng_.Pick(kConsumers) : AnyValue();
}

// An id for XADD: mostly new on the generator's clock.
std::string Generator::StreamNewId() {
  stream_ms_ += static_cast<unsigned long long>(rng_.Range(0, 2));
  uint64_t r = rng_.Below(100);
  std::string ms = std::to_string(stream_ms_);
  if (r < 50) return ms + "-*";
  if (r < 85) return ms + "-" + std::to_string(rng_.Range(0, 3));
  if (r < 90) return ms;
  if (r < 94)
    return std::to_string(stream_ms_ > 5 ? stream_ms_ - 5 : 0) + "-" +
           (rng_.Percent(50) ? "*" : "1");
  std::string bad = rng_.Pick(kBadIds);
  return bad == "*" ? "0-*" : bad;
}

// An id that likely names an entry: the last 40 ms of the generator's clock.
std::string Generator::StreamId() {
  uint64_t r = rng_.Below(100);
  if (r < 6) {
    std::string id = rng_.Pick(kBadIds);
    return id == "*" ? "0-1" : id;
  }
  unsigned long long lo = stream_ms_ > 40 ? stream_ms_ - 40 : 0;
  std::string ms = std::to_string(lo + rng_.Below(stream_ms_ - lo + 1));
  if (r < 12) return ms;
  return ms + "-" + std::to_string(rng_.Percent(75) ? 0 : rng_.Range(1, 3));
}

std::string Generator::StreamRangeBound(bool start) {
  uint64_t r = rng_.Below(100);
  if (r < 30) return start ? "-" : "+";
  if (r < 35) return start ? "+" : "-";
  if (r < 50) return "(" + StreamId();
  return StreamId();
}

// 0 (everything) or 10^9 (only entries claimed with IDLE 10^10 or TIME in 1970); see the essay.
std::string Generator::IdleThreshold() {
  uint64_t r = rng_.Below(100);
  if (r < 70) return "0";
  if (r < 92) return "1000000000";
  return rng_.Pick(std::vector<std::string>{"-1", "abc", "", "9223372036854775807", "1.5"});
}

void Generator::StreamTrimOptions(Argv& argv, bool for_xadd) {
  bool minid = rng_.Percent(30);
  argv.push_back(Token(minid ? "MINID" : "MAXLEN"));
  uint64_t op = rng_.Below(100);
  bool approx = op < 45;
  if (approx) {
    argv.push_back("~");
  } else if (op < 65) {
    argv.push_back("=");
  }
  if (minid) {
    argv.push_back(StreamId());
  } else {
    uint64_t r = rng_.Below(100);
    argv.push_back(r < 85 ? std::to_string(rng_.Range(0, 30))
                          : rng_.Pick(std::vector<std::string>{"-1", "abc", "", "100000",
                                                               "9223372036854775807", "1.5"}));
  }
  if ((approx && rng_.Percent(30)) || rng_.Percent(3)) {
    argv.insert(argv.end(),
                {Token("LIMIT"), rng_.Percent(90) ? std::to_string(rng_.Range(0, 40)) : "-1"});
  }
  (void)for_xadd;
}

// Field-value pairs: half the time the same two fields as most entries (packed without names
// in Redis's nodes), otherwise one to three from the pool; rarely none or an odd count.
void Generator::StreamFields(Argv& argv) {
  uint64_t r = rng_.Below(100);
  if (r < 50) {
    argv.insert(argv.end(), {"f1", AnyValue(), "f2", AnyValue()});
    return;
  }
  int n = static_cast<int>(rng_.Range(1, 3));
  for (int i = 0; i < n; ++i) {
    argv.push_back(rng_.Pick(kStreamFields));
    argv.push_back(rng_.Percent(8) ? std::string(static_cast<size_t>(rng_.Range(65, 300)), 'v')
                                   : AnyValue());
  }
  if (rng_.Percent(3)) argv.pop_back();
}

std::vector<std::string> Generator::StreamCommand() {
  Argv a;
  std::string k = StreamKey();
  auto count = [&](Argv& v, int percent) {
    if (rng_.Percent(percent)) {
      v.insert(v.end(), {Token("COUNT"), rng_.Percent(90) ? std::to_string(rng_.Range(0, 12))
                                                          : rng_.Pick(std::vector<std::string>{
                                                                "-1", "abc", "100000"})});
    }
  };
  switch (rng_.Below(50)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
      a = {"XADD", k};
      if (rng_.Percent(10)) a.push_back(Token("NOMKSTREAM"));
      if (rng_.Percent(20)) StreamTrimOptions(a, true);
      a.push_back(StreamNewId());
      StreamFields(a);
      break;
    case 10:
    case 11:
    case 12:
      a = {"XRANGE", k, StreamRangeBound(true), StreamRangeBound(false)};
      count(a, 40);
      break;
    case 13:
      a = {"XREVRANGE", k, StreamRangeBound(false), StreamRangeBound(true)};
      count(a, 40);
      break;
    case 14:
    case 15:
      a = {"XDEL", k};
      for (int i = 0, n = static_cast<int>(rng_.Range(1, 3)); i < n; ++i) a.push_back(StreamId());
      break;
    case 16:
    case 17:
      a = {"XTRIM", k};
      StreamTrimOptions(a, false);
      break;
    case 18:
      a = {"XLEN", k};
      break;
    case 19: {
      uint64_t r = rng_.Below(100);
      std::string id;
      if (r < 50) {
        stream_ms_ += static_cast<unsigned long long>(rng_.Range(0, 3));
        id = std::to_string(stream_ms_) + "-" + std::to_string(rng_.Range(0, 5));
      } else if (r < 85) {
        id = StreamId();
      } else {
        id = rng_.Pick(kBadIds);
      }
      a = {"XSETID", k, id};
      if (rng_.Percent(30)) {
        a.insert(a.end(), {Token("ENTRIESADDED"),
                           rng_.Percent(90) ? std::to_string(rng_.Range(0, 60)) : "-1"});
      }
      if (rng_.Percent(30)) a.insert(a.end(), {Token("MAXDELETEDID"), StreamId()});
      break;
    }
    case 20:
    case 21:
    case 22: {
      uint64_t r = rng_.Below(100);
      std::string start = r < 40 ? "0" : r < 70 ? "$" : StreamId();
      a = {"XGROUP", "CREATE", k, StreamGroup(), start};
      if (rng_.Percent(60)) a.push_back(Token("MKSTREAM"));
      if (rng_.Percent(20)) {
        a.insert(a.end(), {Token("ENTRIESREAD"),
                           rng_.Percent(85) ? std::to_string(rng_.Range(-1, 30)) : "abc"});
      }
      break;
    }
    case 23: {
      a = {"XGROUP", "SETID", k, StreamGroup(), rng_.Percent(30) ? "$" : StreamId()};
      if (rng_.Percent(25)) {
        a.insert(a.end(), {Token("ENTRIESREAD"), std::to_string(rng_.Range(-2, 30))});
      }
      break;
    }
    case 24:
      if (rng_.Percent(40)) {
        a = {"XGROUP", "DESTROY", k, StreamGroup()};
      } else {
        a = {"XGROUP", "CREATE", k, StreamGroup(), rng_.Percent(50) ? "0" : "$", Token("MKSTREAM")};
      }
      break;
    case 25:
      a = {"XGROUP", rng_.Percent(60) ? "CREATECONSUMER" : "DELCONSUMER", k, StreamGroup(),
           StreamConsumer()};
      break;
    case 26:
    case 27:
    case 28:
    case 29:
    case 30:
    case 31: {
      a = {"XREADGROUP", Token("GROUP"), StreamGroup(), StreamConsumer()};
      count(a, 50);
      if (rng_.Percent(15)) a.push_back(Token("NOACK"));
      a.push_back(Token("STREAMS"));
      int n = rng_.Percent(85) ? 1 : 2;
      for (int i = 0; i < n; ++i) a.push_back(i == 0 ? k : StreamKey());
      int ids = rng_.Percent(97) ? n : n + 1;
      for (int i = 0; i < ids; ++i) {
        uint64_t r = rng_.Below(100);
        // `+` is an invalid id to XREADGROUP on both servers (Redis 7.4 words its own error).
        a.push_back(r < 70 ? ">" : r < 85 ? "0" : r < 88 ? "$" : r < 90 ? "+" : StreamId());
      }
      break;
    }
    case 32:
    case 33: {
      a = {"XREAD"};
      count(a, 50);
      a.push_back(Token("STREAMS"));
      int n = rng_.Percent(80) ? 1 : 2;
      for (int i = 0; i < n; ++i) a.push_back(i == 0 ? k : StreamKey());
      for (int i = 0; i < n; ++i) {
        uint64_t r = rng_.Below(100);
        // Never `+`: Redis 7.4's "last entry", which Redis 7.0 refuses as an invalid id
        // (StreamId draws it among its bad ids).
        a.push_back(r < 40 ? "0" : r < 50 ? "$" : r < 53 ? ">" : StreamId());
        if (a.back() == "+") a.back() = "0";
      }
      break;
    }
    case 34:
    case 35:
      a = {"XACK", k, StreamGroup()};
      for (int i = 0, n = static_cast<int>(rng_.Range(1, 3)); i < n; ++i) a.push_back(StreamId());
      break;
    case 36:
    case 37:
    case 38: {
      a = {"XPENDING", k, StreamGroup()};
      if (rng_.Percent(65)) {
        if (rng_.Percent(20)) a.insert(a.end(), {Token("IDLE"), IdleThreshold()});
        a.insert(a.end(), {StreamRangeBound(true), StreamRangeBound(false),
                           rng_.Percent(90) ? std::to_string(rng_.Range(0, 12)) : "-1"});
        if (rng_.Percent(35)) a.push_back(StreamConsumer());
      }
      break;
    }
    case 39:
    case 40:
    case 41: {
      a = {"XCLAIM", k, StreamGroup(), StreamConsumer(), IdleThreshold()};
      for (int i = 0, n = static_cast<int>(rng_.Range(1, 3)); i < n; ++i) a.push_back(StreamId());
      if (rng_.Percent(20))
        a.insert(a.end(), {Token("IDLE"), rng_.Percent(50) ? "0" : "10000000000"});
      if (rng_.Percent(10)) {
        a.insert(a.end(), {Token("TIME"), rng_.Pick(std::vector<std::string>{
                                              "1000", "0", "4102444800000", "-5", "abc"})});
      }
      if (rng_.Percent(15))
        a.insert(a.end(), {Token("RETRYCOUNT"), std::to_string(rng_.Range(-1, 9))});
      if (rng_.Percent(20)) a.push_back(Token("FORCE"));
      if (rng_.Percent(30)) a.push_back(Token("JUSTID"));
      if (rng_.Percent(10)) a.insert(a.end(), {Token("LASTID"), StreamId()});
      break;
    }
    case 42:
    case 43: {
      a = {"XAUTOCLAIM",          k, StreamGroup(), StreamConsumer(), IdleThreshold(),
           StreamRangeBound(true)};
      if (a.back() == "+") a.back() = "0";
      count(a, 50);
      if (rng_.Percent(30)) a.push_back(Token("JUSTID"));
      break;
    }
    case 44:
    case 45: {
      a = {"XINFO", "STREAM", k};
      if (rng_.Percent(40)) {
        a.push_back(Token("FULL"));
        if (rng_.Percent(50)) {
          a.insert(a.end(), {Token("COUNT"), std::to_string(rng_.Range(-1, 12))});
        }
      }
      break;
    }
    case 46:
      a = {"XINFO", "GROUPS", k};
      break;
    case 47:
      a = {"XINFO", "CONSUMERS", k, StreamGroup()};
      break;
    case 48:
      // COPY (groups, PELs and consumers go with it), RENAME among the stream keys, DEL, TYPE.
      a = {rng_.Pick(std::vector<std::string>{"COPY", "COPY", "TYPE", "RENAME", "DEL"}), k};
      if (a[0] == "COPY" || a[0] == "RENAME") a.push_back(rng_.Pick(kStreamKeys));
      if (a[0] == "COPY" && rng_.Percent(40)) a.push_back(Token("REPLACE"));
      break;
    default:
      a = {rng_.Percent(50) ? "XGROUP" : "XINFO",
           rng_.Pick(std::vector<std::string>{"HELP", "FOO", "stream", "create"})};
      if (rng_.Percent(50)) a.push_back(k);
      break;
  }
  // Our server has the command (or, for a container, the subcommand) drawn.
  std::string name = Lower(a[0]);
  if (name == "xgroup" || name == "xinfo") {
    if (!Has(name.c_str())) return {};
    std::string sub = name + "|" + Lower(a[1]);
    bool known = sub == "xgroup|create" || sub == "xgroup|setid" || sub == "xgroup|destroy" ||
                 sub == "xgroup|createconsumer" || sub == "xgroup|delconsumer" ||
                 sub == "xgroup|help" || sub == "xinfo|stream" || sub == "xinfo|groups" ||
                 sub == "xinfo|consumers" || sub == "xinfo|help";
    if (known && !Has(sub.c_str())) return {};
    return a;
  }
  if (!Has(name.c_str())) return {};
  return a;
}

// A stream command (mutated now and then, its times kept on the grid), or a burst of XADDs on
// one key that fills nodes.
void Generator::StreamBlock(int conn, std::vector<Step>& out) {
  if (rng_.Percent(6) && Has("xadd")) {
    std::string k = rng_.Pick(kStreamKeys);
    bool same_fields = rng_.Percent(70);
    for (int i = 0, n = static_cast<int>(rng_.Range(5, 30)); i < n; ++i) {
      stream_ms_ += static_cast<unsigned long long>(rng_.Range(0, 1));
      Argv a = {"XADD", k};
      if (rng_.Percent(8)) StreamTrimOptions(a, true);
      a.push_back(std::to_string(stream_ms_) + "-*");
      if (same_fields) {
        a.insert(a.end(), {"f1", std::to_string(i), "f2", AnyValue()});
      } else {
        StreamFields(a);
      }
      TameStream(a);
      out.push_back({conn, std::move(a)});
    }
    return;
  }
  if (rng_.Percent(12) && Has("xgroup|create") && Has("xreadgroup")) {
    // A consumer group's life in a few steps (the other families flush the keyspace often):
    // created (or already there: BUSYGROUP), read, and then its PEL looked at or worked on.
    std::string k = rng_.Pick(kStreamKeys);
    std::string g = rng_.Pick(kGroups);
    out.push_back({conn, {"XGROUP", "CREATE", k, g, rng_.Percent(70) ? "0" : "$", "MKSTREAM"}});
    Argv read = {"XREADGROUP", "GROUP", g, rng_.Pick(kConsumers)};
    if (rng_.Percent(50)) read.insert(read.end(), {"COUNT", std::to_string(rng_.Range(1, 5))});
    read.insert(read.end(), {"STREAMS", k, ">"});
    out.push_back({conn, std::move(read)});
    if (rng_.Percent(40)) return;
    Argv next;
    switch (rng_.Below(6)) {
      case 0:
        next = {"XPENDING", k, g, "-", "+", std::to_string(rng_.Range(1, 10))};
        break;
      case 1:
        next = {"XCLAIM", k, g, rng_.Pick(kConsumers), IdleThreshold(), StreamId(), StreamId()};
        if (rng_.Percent(30)) next.push_back("JUSTID");
        break;
      case 2:
        next = {"XAUTOCLAIM", k, g, rng_.Pick(kConsumers), IdleThreshold(), "0"};
        break;
      case 3:
        next = {"XACK", k, g, StreamId(), StreamId()};
        break;
      case 4:
        next = {"XINFO", "STREAM", k, "FULL"};
        break;
      default:
        next = {"XINFO", "CONSUMERS", k, g};
        break;
    }
    std::string name = Lower(next[0]) + (next[0] == "XINFO" ? "|" + Lower(next[1]) : "");
    if (Has(name.c_str())) out.push_back({conn, std::move(next)});
    return;
  }
  Argv a = StreamCommand();
  if (a.empty()) a = StringFamily();
  if (rng_.Percent(5)) Mutate(a);
  TameStream(a);
  out.push_back({conn, std::move(a)});
}

}  // namespace difftest
