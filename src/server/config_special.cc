// Grammars, decoders and rewrite forms of the parameters that are not a plain bool, integer,
// memory size, string or enum word, plus the value checks some string/number rows need.
//
// Each grammar produces canonical text that the same grammar reads back unchanged, and that
// CONFIG GET shows (notify-keyspace-events excepted: its canonical text keeps every letter,
// while GET shows Redis's shorter rendering, see DisplayNotifyEvents).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "protocol/errors.h"
#include "server/config_parse.h"
#include "server/proc_title.h"
#include "server/version.h"
#include "util/numbers.h"
#include "util/repr.h"

namespace redistp {

namespace {

constexpr int kMaxBindAddrs = 16;

Status InvalidSave() { return Status::Error("Invalid save parameters"); }

struct ClassName {
  std::string_view name;
  int cls;
};
constexpr ClassName kClassNames[] = {
    {"normal", kClientClassNormal},
    {"slave", kClientClassReplica},
    {"replica", kClientClassReplica},
    {"pubsub", kClientClassPubsub},
};
// GET shows "slave", REWRITE writes "replica", as Redis 7.0 does.
constexpr std::string_view kGetClassNames[3] = {"normal", "slave", "pubsub"};
constexpr std::string_view kRewriteClassNames[3] = {"normal", "replica", "pubsub"};

struct NotifyLetter {
  char letter;
  uint32_t bit;
};
// Canonical order: the class letters, n, then K, E and m.
constexpr NotifyLetter kNotifyLetters[] = {
    {'g', kNotifyGeneric},  {'$', kNotifyString},  {'l', kNotifyList},    {'s', kNotifySet},
    {'h', kNotifyHash},     {'z', kNotifyZset},    {'x', kNotifyExpired}, {'e', kNotifyEvicted},
    {'t', kNotifyStream},   {'d', kNotifyModule},  {'n', kNotifyNew},     {'K', kNotifyKeyspace},
    {'E', kNotifyKeyevent}, {'m', kNotifyKeyMiss},
};

struct ShutdownWord {
  std::string_view name;
  int bit;
};
constexpr ShutdownWord kShutdownWords[] = {
    {"default", 0},        {"save", kShutdownSave},   {"nosave", kShutdownNoSave},
    {"now", kShutdownNow}, {"force", kShutdownForce},
};

std::string FormatLimits(const OutputBufferLimit limits[3]) {
  std::string out;
  for (int c = 0; c < 3; ++c) {
    if (c > 0) out.push_back(' ');
    out += kGetClassNames[c];
    out += ' ' + std::to_string(limits[c].hard) + ' ' + std::to_string(limits[c].soft) + ' ' +
           std::to_string(limits[c].soft_seconds);
  }
  return out;
}

std::string FormatPercentile(double v) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%f", v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

// ---- save -----------------------------------------------------------------------------------

Status ParseSaveParams(std::span<const std::string> args, std::string_view, bool,
                       std::string* canonical) {
  if (args.size() % 2 != 0) return InvalidSave();
  std::string out;
  for (size_t i = 0; i < args.size(); i += 2) {
    int64_t seconds, changes;
    bool overflow;
    if (!ParseLenientInt(args[i], &seconds, &overflow) ||
        !ParseLenientInt(args[i + 1], &changes, &overflow) || seconds < 1 || changes < 0) {
      return InvalidSave();
    }
    if (!out.empty()) out.push_back(' ');
    // Redis keeps the change count in an int: larger counts wrap, and GET shows the wrap.
    out += std::to_string(seconds) + ' ' + std::to_string(static_cast<int32_t>(changes));
  }
  *canonical = std::move(out);
  return Status::Ok();
}

std::vector<SaveParam> DecodeSaveParams(std::string_view canonical) {
  std::vector<std::string> words = SplitOnSpaces(canonical);
  std::vector<SaveParam> out;
  for (size_t i = 0; i + 1 < words.size(); i += 2) {
    int64_t seconds = 0, changes = 0;
    ParseInt64(words[i], &seconds);
    ParseInt64(words[i + 1], &changes);
    out.push_back({seconds, static_cast<int>(changes)});
  }
  return out;
}

void RewriteSaveParams(const ConfigDef&, std::string_view canonical,
                       std::vector<RewriteLine>* out) {
  // Redis writes the save points whatever their value, and `save ""` when there are none.
  std::vector<std::string> words = SplitOnSpaces(canonical);
  if (words.empty()) {
    out->push_back({"save \"\"", true});
    return;
  }
  for (size_t i = 0; i + 1 < words.size(); i += 2) {
    out->push_back({"save " + words[i] + ' ' + words[i + 1], true});
  }
}

// ---- bind -----------------------------------------------------------------------------------

Status ParseBindAddrs(std::span<const std::string> args, std::string_view, bool,
                      std::string* canonical) {
  if (args.size() > kMaxBindAddrs) return Status::Error("Too many bind addresses specified.");
  *canonical = JoinWords(args);
  return Status::Ok();
}

void RewriteBindAddrs(const ConfigDef& def, std::string_view canonical,
                      std::vector<RewriteLine>* out) {
  std::string line = "bind ";
  line += canonical.empty() ? std::string("\"\"") : std::string(canonical);
  out->push_back({std::move(line), canonical != def.default_value});
}

// ---- client-output-buffer-limit --------------------------------------------------------------

Status ParseOutputBufferLimits(std::span<const std::string> args, std::string_view current, bool,
                               std::string* canonical) {
  if (args.size() % 4 != 0) {
    return Status::Error("Wrong number of arguments in buffer limit configuration.");
  }
  OutputBufferLimit limits[3];
  DecodeOutputBufferLimits(current, limits);
  for (size_t i = 0; i < args.size(); i += 4) {
    int cls = -1;
    for (const ClassName& c : kClassNames) {
      if (EqualsIgnoreCase(c.name, args[i])) cls = c.cls;
    }
    if (cls < 0) {
      return Status::Error("Invalid client class specified in buffer limit configuration.");
    }
    uint64_t hard, soft;
    int64_t seconds;
    bool overflow = false;
    if (!ParseConfigMemory(args[i + 1], &hard) || !ParseConfigMemory(args[i + 2], &soft) ||
        !ParseLenientInt(args[i + 3], &seconds, &overflow) || overflow || seconds < 0) {
      return Status::Error(
          "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
    }
    limits[cls] = {static_cast<int64_t>(hard), static_cast<int64_t>(soft), seconds};
  }
  *canonical = FormatLimits(limits);
  return Status::Ok();
}

void DecodeOutputBufferLimits(std::string_view canonical, OutputBufferLimit limits[3]) {
  std::vector<std::string> words = SplitOnSpaces(canonical);
  for (size_t i = 0; i + 3 < words.size(); i += 4) {
    int cls = -1;
    for (const ClassName& c : kClassNames) {
      if (EqualsIgnoreCase(c.name, words[i])) cls = c.cls;
    }
    if (cls < 0) continue;
    ParseInt64(words[i + 1], &limits[cls].hard);
    ParseInt64(words[i + 2], &limits[cls].soft);
    ParseInt64(words[i + 3], &limits[cls].soft_seconds);
  }
}

void RewriteOutputBufferLimits(const ConfigDef& def, std::string_view canonical,
                               std::vector<RewriteLine>* out) {
  OutputBufferLimit now[3], dflt[3];
  DecodeOutputBufferLimits(canonical, now);
  DecodeOutputBufferLimits(def.default_value, dflt);
  for (int c = 0; c < 3; ++c) {
    bool changed = now[c].hard != dflt[c].hard || now[c].soft != dflt[c].soft ||
                   now[c].soft_seconds != dflt[c].soft_seconds;
    std::string line = "client-output-buffer-limit ";
    line += kRewriteClassNames[c];
    line += ' ' + FormatMemoryForRewrite(static_cast<uint64_t>(now[c].hard)) + ' ' +
            FormatMemoryForRewrite(static_cast<uint64_t>(now[c].soft)) + ' ' +
            std::to_string(now[c].soft_seconds);
    out->push_back({std::move(line), changed});
  }
}

// ---- notify-keyspace-events -----------------------------------------------------------------

Status ParseNotifyEvents(std::span<const std::string> args, std::string_view, bool,
                         std::string* canonical) {
  if (args.size() != 1) return Status::Error("wrong number of arguments");
  uint32_t bits = 0;
  for (char ch : args[0]) {
    if (ch == 'A') {
      bits |= kNotifyAll;
      continue;
    }
    bool known = false;
    for (const NotifyLetter& l : kNotifyLetters) {
      if (l.letter == ch) {
        bits |= l.bit;
        known = true;
      }
    }
    if (!known) return Status::Error("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
  }
  canonical->clear();
  for (const NotifyLetter& l : kNotifyLetters) {
    if ((bits & l.bit) != 0) canonical->push_back(l.letter);
  }
  return Status::Ok();
}

uint32_t DecodeNotifyEvents(std::string_view canonical) {
  uint32_t bits = 0;
  for (char ch : canonical) {
    for (const NotifyLetter& l : kNotifyLetters) {
      if (l.letter == ch) bits |= l.bit;
    }
  }
  return bits;
}

std::string DisplayNotifyEvents(std::string_view canonical) {
  // Redis shows "A" when every class letter is set, and then leaves 'n' out too.
  uint32_t bits = DecodeNotifyEvents(canonical);
  std::string out;
  if ((bits & kNotifyAll) == kNotifyAll) {
    out = "A";
  } else {
    for (const NotifyLetter& l : kNotifyLetters) {
      if ((l.bit & (kNotifyAll | kNotifyNew)) != 0 && (bits & l.bit) != 0) out.push_back(l.letter);
    }
  }
  if ((bits & kNotifyKeyspace) != 0) out.push_back('K');
  if ((bits & kNotifyKeyevent) != 0) out.push_back('E');
  if ((bits & kNotifyKeyMiss) != 0) out.push_back('m');
  return out;
}

void RewriteNotifyEvents(const ConfigDef& def, std::string_view canonical,
                         std::vector<RewriteLine>* out) {
  out->push_back({"notify-keyspace-events " + Repr(DisplayNotifyEvents(canonical)),
                  canonical != def.default_value});
}

// ---- oom-score-adj-values -------------------------------------------------------------------

Status ParseOomScoreAdjValues(std::span<const std::string> args, std::string_view, bool,
                              std::string* canonical) {
  if (args.size() != 3) return Status::Error("wrong number of arguments");
  std::string out;
  for (const std::string& a : args) {
    int64_t v;
    bool overflow;
    if (!ParseLenientInt(a, &v, &overflow) || v < -2000 || v > 2000) {
      return Status::Error(
          "Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
    }
    if (!out.empty()) out.push_back(' ');
    out += std::to_string(v);
  }
  *canonical = std::move(out);
  return Status::Ok();
}

// ---- latency-tracking-info-percentiles ------------------------------------------------------

Status ParseLatencyPercentiles(std::span<const std::string> args, std::string_view, bool,
                               std::string* canonical) {
  std::string out;
  for (const std::string& a : args) {
    double v;
    if (!ParseDouble(a, &v)) {
      return Status::Error("Invalid latency-tracking-info-percentiles parameters");
    }
    if (v < 0.0 || v > 100.0) {
      return Status::Error(
          "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
    }
    if (!out.empty()) out.push_back(' ');
    out += FormatPercentile(v);
  }
  *canonical = std::move(out);
  return Status::Ok();
}

// ---- shutdown-on-sigint / shutdown-on-sigterm -----------------------------------------------

Status ParseShutdownFlags(std::span<const std::string> args, std::string_view, bool,
                          std::string* canonical) {
  Status bad =
      Status::Error("argument(s) must be one of the following: default, save, nosave, now, force");
  if (args.empty()) return bad;
  int bits = 0;
  for (const std::string& a : args) {
    bool known = false;
    for (const ShutdownWord& w : kShutdownWords) {
      if (EqualsIgnoreCase(w.name, a)) {
        bits |= w.bit;
        known = true;
      }
    }
    if (!known) return bad;
  }
  if ((bits & kShutdownSave) != 0 && (bits & kShutdownNoSave) != 0) {
    return Status::Error("shutdown options SAVE and NOSAVE can't be used simultaneously");
  }
  canonical->clear();
  for (const ShutdownWord& w : kShutdownWords) {
    if (w.bit == 0 || (bits & w.bit) == 0) continue;
    if (!canonical->empty()) canonical->push_back(' ');
    *canonical += w.name;
  }
  if (canonical->empty()) *canonical = "default";
  return Status::Ok();
}

int DecodeShutdownFlags(std::string_view canonical) {
  int bits = 0;
  for (const std::string& word : SplitOnSpaces(canonical)) {
    for (const ShutdownWord& w : kShutdownWords) {
      if (w.name == word) bits |= w.bit;
    }
  }
  return bits;
}

// ---- unixsocketperm -------------------------------------------------------------------------

Status ParseUnixSocketPerm(std::span<const std::string> args, std::string_view, bool,
                           std::string* canonical) {
  if (args.size() != 1) return Status::Error("wrong number of arguments");
  // strtol(..., 8): blanks, a sign, octal digits, nothing after.
  std::string_view s = args[0];
  int64_t v = 0;
  if (!s.empty()) {
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    size_t start = i;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '7'; ++i) {
      if (v < (int64_t{1} << 40)) v = v * 8 + (s[i] - '0');
    }
    if (i == start || i != s.size()) {
      return Status::Error("argument couldn't be parsed as an octal number");
    }
    if (negative) v = -v;
  }
  if (v < 0 || v > 0777) return Status::Error("argument must be between 0 and 777 inclusive");
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%o", static_cast<unsigned>(v));
  *canonical = buf;
  return Status::Ok();
}

// ---- maxmemory-clients ----------------------------------------------------------------------

Status ParseMaxmemoryClients(std::span<const std::string> args, std::string_view, bool,
                             std::string* canonical) {
  if (args.size() != 1) return Status::Error("wrong number of arguments");
  const std::string& s = args[0];
  Status bad = Status::Error("argument must be a memory or percent value");
  Status too_big = Status::Error("percentage argument must be less or equal to 100");
  int64_t v;
  if (!s.empty() && s.back() == '%') {
    int64_t pct;
    if (!ParseInt64(std::string_view(s).substr(0, s.size() - 1), &pct) || pct < 0) return bad;
    if (pct > 100) return too_big;
    v = -pct;
  } else {
    uint64_t u;
    if (!ParseConfigMemory(s, &u)) return bad;
    // Redis stores the byte count signed, negative meaning percent: huge sizes turn into one.
    v = static_cast<int64_t>(u);
    if (v < -100) return too_big;
  }
  *canonical = v < 0 ? std::to_string(-v) + "%" : std::to_string(v);
  return Status::Ok();
}

void RewriteMaxmemoryClients(const ConfigDef& def, std::string_view canonical,
                             std::vector<RewriteLine>* out) {
  std::string value(canonical);
  uint64_t bytes;
  if (!value.empty() && value.back() != '%' && ParseUint64(value, &bytes)) {
    value = FormatMemoryForRewrite(bytes);
  }
  out->push_back({"maxmemory-clients " + value, canonical != def.default_value});
}

// ---- replicaof ------------------------------------------------------------------------------

Status ParseReplicaOf(std::span<const std::string> args, std::string_view, bool,
                      std::string* canonical) {
  if (args.size() != 2) return Status::Error("wrong number of arguments");
  if (EqualsIgnoreCase(args[0], "no") && EqualsIgnoreCase(args[1], "one")) {
    canonical->clear();
    return Status::Ok();
  }
  int64_t port;
  bool overflow;
  if (!ParseLenientInt(args[1], &port, &overflow) || port < 0 || port > 65535) {
    return Status::Error("Invalid master port");
  }
  *canonical = args[0] + ' ' + std::to_string(port);
  return Status::Ok();
}

void RewriteReplicaOf(const ConfigDef&, std::string_view canonical, std::vector<RewriteLine>* out) {
  // Not a replica: no line, so old replicaof lines are removed.
  if (canonical.empty()) return;
  out->push_back({"replicaof " + std::string(canonical), true});
}

// ---- Checks on rows of the plain types --------------------------------------------------------

namespace {

bool IsPathLike(std::string_view s) {
  return s.find('/') != std::string_view::npos || s.find('\\') != std::string_view::npos;
}

}  // namespace

Status CheckHz(bool, std::string* canonical) {
  // Redis accepts any non-negative hz and clamps it to what the timer can do.
  int64_t v = 0;
  ParseInt64(*canonical, &v);
  if (v < 1) *canonical = "1";
  if (v > 500) *canonical = "500";
  return Status::Ok();
}

Status CheckActiveDefrag(bool, std::string* canonical) {
  // Defragmenting needs jemalloc's hint of whether an allocation sits in a sparse run, which
  // only Redis's patched copy of jemalloc has; Debian's jemalloc (which we link, as Debian's
  // Redis does) lacks it, so "yes" is refused, at startup as on CONFIG SET, as there.
  if (*canonical == "yes") return Status::Error(std::string(err::kActiveDefragUnavailable));
  return Status::Ok();
}

Status CheckReplBacklogSize(bool loading, std::string* canonical) {
  // A runtime resize never goes below 16kb; a config file may ask for less.
  int64_t v = 0;
  ParseInt64(*canonical, &v);
  if (!loading && v < 16 * 1024) *canonical = "16384";
  return Status::Ok();
}

Status CheckDbFilename(bool, std::string* canonical) {
  if (IsPathLike(*canonical)) return Status::Error("dbfilename can't be a path, just a filename");
  return Status::Ok();
}

Status CheckTpFenceFile(bool, std::string* canonical) {
  if (canonical->empty()) return Status::Error("tp-fence-file can't be empty");
  if (IsPathLike(*canonical))
    return Status::Error("tp-fence-file can't be a path, just a filename");
  return Status::Ok();
}

Status CheckAppendFilename(bool, std::string* canonical) {
  if (canonical->empty()) return Status::Error("appendfilename can't be empty");
  if (IsPathLike(*canonical)) {
    return Status::Error("appendfilename can't be a path, just a filename");
  }
  return Status::Ok();
}

Status CheckAppendDirname(bool, std::string* canonical) {
  if (canonical->empty()) return Status::Error("appenddirname can't be empty");
  if (IsPathLike(*canonical)) return Status::Error("appenddirname can't be a path, just a dirname");
  return Status::Ok();
}

Status CheckAnnounceHostname(bool, std::string* canonical) {
  if (canonical->size() >= 256) return Status::Error("Hostnames must be less than 256 characters");
  for (char c : *canonical) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '.';
    if (!ok) {
      return Status::Error("Hostnames may only contain alphanumeric characters, hyphens or dots");
    }
  }
  return Status::Ok();
}

Status CheckCompatVersion(bool, std::string* canonical) {
  CompatVersion v;
  std::string_view why;
  if (!ParseCompatVersion(*canonical, &v, &why)) return Status::Error(std::string(why));
  return Status::Ok();
}

Status CheckProcTitleTemplate(bool, std::string* canonical) {
  // Valid when it expands and something is left after trimming, with {title} and {server-mode}
  // empty (they may be) and every other variable standing for something.
  ProcTitleVars vars;
  vars.listen_addr = vars.port = vars.tls_port = vars.unixsocket = vars.config_file = "x";
  std::string expanded;
  bool ok = ExpandProcTitle(*canonical, vars, &expanded);
  if (ok) ok = !TrimConfigLine(expanded).empty();
  if (!ok) return Status::Error("template format is invalid or contains unknown variables");
  return Status::Ok();
}

Status CheckDir(bool, std::string* canonical) {
  // Redis changes directory as soon as `dir` is read or set; relative paths read later
  // (dbfilename, logfile, include) resolve against it.
  if (chdir(canonical->c_str()) != 0) return Status::Error(std::strerror(errno));
  char buf[4096];
  if (getcwd(buf, sizeof(buf)) != nullptr) *canonical = buf;
  return Status::Ok();
}

}  // namespace redistp
