// Text rules of redis.conf and the generic value grammar of each ConfigType. The special
// grammars (save, bind, client-output-buffer-limit, ...) are in config_special.cc.
#include "server/config_parse.h"

#include <cinttypes>
#include <cstdio>

#include "server/version.h"
#include "util/numbers.h"
#include "util/repr.h"

namespace redistp {

namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads one double-quoted word starting after the opening quote. Returns false if the quote
// is never closed or the closing quote is glued to more text.
bool ReadDoubleQuoted(std::string_view line, size_t* pos, std::string* word) {
  size_t i = *pos;
  const size_t n = line.size();
  while (true) {
    if (i >= n) return false;
    char c = line[i];
    if (c == '\\' && i + 3 < n && line[i + 1] == 'x' && HexValue(line[i + 2]) >= 0 &&
        HexValue(line[i + 3]) >= 0) {
      word->push_back(static_cast<char>(HexValue(line[i + 2]) * 16 + HexValue(line[i + 3])));
      i += 4;
    } else if (c == '\\' && i + 1 < n) {
      char e = line[i + 1];
      switch (e) {
        case 'n':
          word->push_back('\n');
          break;
        case 'r':
          word->push_back('\r');
          break;
        case 't':
          word->push_back('\t');
          break;
        case 'b':
          word->push_back('\b');
          break;
        case 'a':
          word->push_back('\a');
          break;
        default:
          word->push_back(e);
          break;
      }
      i += 2;
    } else if (c == '"') {
      if (i + 1 < n && !IsBlank(line[i + 1])) return false;
      *pos = i + 1;
      return true;
    } else {
      word->push_back(c);
      ++i;
    }
  }
}

// Same for single quotes, where only \' is an escape.
bool ReadSingleQuoted(std::string_view line, size_t* pos, std::string* word) {
  size_t i = *pos;
  const size_t n = line.size();
  while (true) {
    if (i >= n) return false;
    char c = line[i];
    if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
      word->push_back('\'');
      i += 2;
    } else if (c == '\'') {
      if (i + 1 < n && !IsBlank(line[i + 1])) return false;
      *pos = i + 1;
      return true;
    } else {
      word->push_back(c);
      ++i;
    }
  }
}

}  // namespace

bool SplitConfigLine(std::string_view line, std::vector<std::string>* words) {
  words->clear();
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    while (i < n && IsBlank(line[i])) ++i;
    if (i >= n) return true;
    std::string word;
    // A word is a run of plain bytes and quoted parts; a quoted part must end the word.
    bool done = false;
    while (!done && i < n) {
      char c = line[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0') {
        done = true;
      } else if (c == '"' || c == '\'') {
        ++i;
        bool ok = c == '"' ? ReadDoubleQuoted(line, &i, &word) : ReadSingleQuoted(line, &i, &word);
        if (!ok) {
          words->clear();
          return false;
        }
        done = true;
      } else {
        word.push_back(c);
        ++i;
      }
    }
    words->push_back(std::move(word));
  }
}

std::vector<std::string> SplitOnSpaces(std::string_view s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t sp = s.find(' ', start);
    if (sp == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, sp - start));
    start = sp + 1;
  }
}

std::string JoinWords(std::span<const std::string> words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out.push_back(' ');
    out += words[i];
  }
  return out;
}

std::string_view TrimConfigLine(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

bool ParseConfigMemory(std::string_view s, uint64_t* out) {
  uint64_t mul = 1;
  auto ends_with = [&](std::string_view unit) {
    return s.size() >= unit.size() && EqualsIgnoreCase(s.substr(s.size() - unit.size()), unit);
  };
  static constexpr struct {
    std::string_view unit;
    uint64_t mul;
  } kUnits[] = {{"gb", 1ULL << 30}, {"mb", 1ULL << 20}, {"kb", 1ULL << 10}, {"g", 1000000000ULL},
                {"m", 1000000ULL},  {"k", 1000ULL},     {"b", 1ULL}};
  for (const auto& u : kUnits) {
    if (ends_with(u.unit)) {
      s.remove_suffix(u.unit.size());
      mul = u.mul;
      break;
    }
  }
  uint64_t v = 0;
  bool saturated = false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (saturated || v > (UINT64_MAX - d) / 10) {
      saturated = true;  // Redis's strtoull saturates and the error goes unchecked
      continue;
    }
    v = v * 10 + d;
  }
  if (saturated) v = UINT64_MAX;
  *out = v * mul;  // wraps on overflow, as Redis's multiplication does
  return true;
}

std::string FormatMemoryForRewrite(uint64_t v) {
  constexpr uint64_t kKb = 1024, kMb = kKb * 1024, kGb = kMb * 1024;
  if (v == 0) return "0";
  if (v % kGb == 0) return std::to_string(v / kGb) + "gb";
  if (v % kMb == 0) return std::to_string(v / kMb) + "mb";
  if (v % kKb == 0) return std::to_string(v / kKb) + "kb";
  return std::to_string(v);
}

bool ParseLenientInt(std::string_view s, int64_t* out, bool* overflow) {
  *overflow = false;
  if (s.empty()) {
    *out = 0;
    return true;
  }
  size_t i = 0;
  while (i < s.size() && IsBlank(s[i])) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  size_t digits_start = i;
  uint64_t magnitude = 0;
  const uint64_t limit = negative ? static_cast<uint64_t>(INT64_MAX) + 1 : INT64_MAX;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (*overflow) continue;
    uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (magnitude > (limit - d) / 10) {
      *overflow = true;  // strtoll saturates
      magnitude = limit;
    } else {
      magnitude = magnitude * 10 + d;
    }
  }
  if (i == digits_start || i != s.size()) return false;
  *out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

namespace {

Status RangeError(int64_t min, int64_t max) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), "argument must be between %" PRId64 " and %" PRId64 " inclusive",
                min, max);
  return Status::Error(buf);
}

Status ParseEnumWord(const ConfigDef& def, std::string_view word, std::string* canonical) {
  for (const EnumOption& opt : def.options) {
    if (!EqualsIgnoreCase(opt.name, word)) continue;
    // The first name carrying this value is the one shown ("relative" is shown as "yes").
    for (const EnumOption& first : def.options) {
      if (first.value == opt.value) {
        *canonical = std::string(first.name);
        return Status::Ok();
      }
    }
  }
  std::string msg = "argument(s) must be one of the following: ";
  for (size_t i = 0; i < def.options.size(); ++i) {
    if (i > 0) msg += ", ";
    msg += def.options[i].name;
  }
  return Status::Error(msg);
}

Status ParseSingleWord(const ConfigDef& def, const std::string& word, std::string* canonical) {
  switch (def.type) {
    case ConfigType::kBool:
      if (EqualsIgnoreCase(word, "yes")) {
        *canonical = "yes";
      } else if (EqualsIgnoreCase(word, "no")) {
        *canonical = "no";
      } else {
        return Status::Error("argument must be 'yes' or 'no'");
      }
      return Status::Ok();
    case ConfigType::kInt: {
      int64_t v;
      if (!ParseInt64(word, &v))
        return Status::Error("argument couldn't be parsed into an integer");
      if (v < def.min || v > def.max) return RangeError(def.min, def.max);
      *canonical = Int64ToString(v);
      return Status::Ok();
    }
    case ConfigType::kMemory: {
      uint64_t u;
      if (!ParseConfigMemory(word, &u)) return Status::Error("argument must be a memory value");
      if ((def.flags & kConfigUnsigned) != 0) {
        *canonical = std::to_string(u);
        return Status::Ok();
      }
      if (u > static_cast<uint64_t>(INT64_MAX) || static_cast<int64_t>(u) < def.min ||
          static_cast<int64_t>(u) > def.max) {
        return RangeError(def.min, def.max);
      }
      *canonical = std::to_string(u);
      return Status::Ok();
    }
    case ConfigType::kString:
      *canonical = word;
      return Status::Ok();
    case ConfigType::kEnum:
      return ParseEnumWord(def, word, canonical);
    case ConfigType::kSpecial:
      break;
  }
  return Status::Error("unsupported config type");
}

}  // namespace

Status ParseConfigValue(const ConfigDef& def, std::span<const std::string> args,
                        std::string_view current, bool loading, std::string* canonical) {
  Status s;
  if (def.type == ConfigType::kSpecial) {
    s = def.parse(args, current, loading, canonical);
  } else if (args.size() != 1) {
    s = Status::Error("wrong number of arguments");
  } else {
    s = ParseSingleWord(def, args[0], canonical);
  }
  if (s.ok() && def.check != nullptr) s = def.check(loading, canonical);
  return s;
}

std::string FatalConfigError(int line_number, std::string_view line, std::string_view message) {
  std::string out = "\n*** FATAL CONFIG FILE ERROR (Redis ";
  out += kRedisVersion;
  out += ") ***\nReading the configuration file, at line ";
  out += std::to_string(line_number);
  out += "\n>>> '";
  out += line;
  out += "'\n";
  out += message;
  return out;
}

void RewriteRowLines(const ConfigDef& def, std::string_view canonical,
                     std::vector<RewriteLine>* out) {
  if (def.rewrite != nullptr) {
    def.rewrite(def, canonical, out);
    return;
  }
  // An unset string (a path or secret Redis keeps as NULL) has no line at all.
  if ((def.flags & kConfigEmptyIsUnset) != 0 && canonical.empty()) return;
  bool force = canonical != def.default_value || (def.flags & kConfigAlwaysRewrite) != 0;
  std::string line(def.name);
  line.push_back(' ');
  switch (def.type) {
    case ConfigType::kMemory: {
      uint64_t v = 0;
      ParseUint64(canonical, &v);
      line += FormatMemoryForRewrite(v);
      break;
    }
    case ConfigType::kString:
      line += Repr(canonical);
      break;
    default:
      line += def.display != nullptr ? def.display(canonical) : std::string(canonical);
      break;
  }
  out->push_back({std::move(line), force});
}

}  // namespace redistp
