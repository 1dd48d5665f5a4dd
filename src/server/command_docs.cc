// The argument builders and key extraction from key specs. The documents themselves are in the
// rows each family registers; see command_docs.h for the model.
#include "server/command_docs.h"

#include <utility>

#include "server/command.h"
#include "util/numbers.h"

namespace redistp {

std::string_view ArgTypeName(ArgType type) {
  switch (type) {
    case ArgType::kString:
      return "string";
    case ArgType::kInteger:
      return "integer";
    case ArgType::kDouble:
      return "double";
    case ArgType::kKey:
      return "key";
    case ArgType::kPattern:
      return "pattern";
    case ArgType::kUnixTime:
      return "unix-time";
    case ArgType::kPureToken:
      return "pure-token";
    case ArgType::kOneOf:
      return "oneof";
    case ArgType::kBlock:
      return "block";
  }
  return "string";
}

ArgDoc ArgDoc::Token(std::string_view t) && {
  token = t;
  return std::move(*this);
}

ArgDoc ArgDoc::Since(std::string_view version) && {
  since = version;
  return std::move(*this);
}

ArgDoc ArgDoc::DeprecatedSince(std::string_view version) && {
  deprecated_since = version;
  return std::move(*this);
}

ArgDoc ArgDoc::Named(std::string_view n) && {
  name.assign(n);
  return std::move(*this);
}

ArgDoc ArgDoc::Optional() && {
  flags |= kArgOptional;
  return std::move(*this);
}

ArgDoc ArgDoc::Multiple() && {
  flags |= kArgMultiple;
  return std::move(*this);
}

ArgDoc ArgDoc::MultipleToken() && {
  flags |= kArgMultipleToken;
  return std::move(*this);
}

namespace docs {
namespace {

ArgDoc Leaf(std::string_view name, ArgType type) {
  ArgDoc a;
  a.name.assign(name);
  a.type = type;
  return a;
}

}  // namespace

ArgDoc Key(std::string_view name, int key_spec_index) {
  ArgDoc a = Leaf(name, ArgType::kKey);
  a.key_spec_index = key_spec_index;
  return a;
}
ArgDoc String(std::string_view name) { return Leaf(name, ArgType::kString); }
ArgDoc Integer(std::string_view name) { return Leaf(name, ArgType::kInteger); }
ArgDoc Double(std::string_view name) { return Leaf(name, ArgType::kDouble); }
ArgDoc Pattern(std::string_view name) { return Leaf(name, ArgType::kPattern); }
ArgDoc UnixTime(std::string_view name) { return Leaf(name, ArgType::kUnixTime); }

ArgDoc PureToken(std::string_view token) {
  ArgDoc a = Leaf(ToLower(token), ArgType::kPureToken);
  a.token = token;
  return a;
}

ArgDoc OneOf(std::string_view name, std::vector<ArgDoc> alternatives) {
  ArgDoc a = Leaf(name, ArgType::kOneOf);
  a.args = std::move(alternatives);
  return a;
}

ArgDoc Block(std::string_view name, std::vector<ArgDoc> parts) {
  ArgDoc a = Leaf(name, ArgType::kBlock);
  a.args = std::move(parts);
  return a;
}

}  // namespace docs

std::vector<std::string_view> KeyFlagNames(uint32_t flags) {
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {kKeyRO, "RO"},
      {kKeyRW, "RW"},
      {kKeyOW, "OW"},
      {kKeyRM, "RM"},
      {kKeyAccess, "access"},
      {kKeyUpdate, "update"},
      {kKeyInsert, "insert"},
      {kKeyDelete, "delete"},
      {kKeyNotKey, "not_key"},
      {kKeyIncomplete, "incomplete"},
      {kKeyVariableFlags, "variable_flags"},
  };
  std::vector<std::string_view> names;
  for (const auto& [bit, name] : kNames) {
    if ((flags & bit) != 0) names.push_back(name);
  }
  return names;
}

bool CommandHasKeys(const CommandSpec& spec) {
  if (spec.doc.key_specs.empty()) return spec.doc.find_keys != nullptr || spec.first_key > 0;
  // As Redis: specs flagged not_key (the shard channels of SSUBSCRIBE/SPUBLISH) name no key.
  for (const KeySpec& ks : spec.doc.key_specs) {
    if ((ks.flags & kKeyNotKey) == 0) return true;
  }
  return false;
}

bool CommandHasMovableKeys(const CommandSpec& spec) {
  for (const KeySpec& ks : spec.doc.key_specs) {
    if (ks.begin != KeyBegin::kIndex || ks.find != KeyFind::kRange) return true;
  }
  return false;
}

namespace {

// The position where a spec's keys start, or -1 when the invocation has none for it.
int BeginPosition(const KeySpec& ks, const std::vector<std::string_view>& args) {
  const int argc = static_cast<int>(args.size());
  switch (ks.begin) {
    case KeyBegin::kIndex:
      return ks.index;
    case KeyBegin::kKeyword: {
      // A positive start searches forward from there; a negative one searches backward from
      // that many arguments before the end.
      bool forward = ks.start_from >= 0;
      int i = forward ? ks.start_from : argc + ks.start_from;
      for (; i > 0 && i < argc; i += forward ? 1 : -1) {
        if (EqualsIgnoreCase(args[static_cast<size_t>(i)], ks.keyword)) return i + 1;
      }
      return -1;
    }
    case KeyBegin::kUnknown:
      return -1;
  }
  return -1;
}

// Appends the keys one spec finds, starting at `first`. False when the spec cannot say (a key
// count that is not a strict positive integer or lies past the end, a key past the end, an
// unknown way to find the keys): the caller then asks the row's procedure.
bool FindSpecKeys(const KeySpec& ks, int first, uint32_t flags,
                  const std::vector<std::string_view>& args, std::vector<KeyRef>* out) {
  const int argc = static_cast<int>(args.size());
  int last = first, step = ks.key_step > 0 ? ks.key_step : 1;
  switch (ks.find) {
    case KeyFind::kRange:
      if (ks.last_key >= 0) {
        last = first + ks.last_key;
      } else if (ks.limit <= 1) {
        last = argc + ks.last_key;
      } else {
        last = first + (argc - first) / ks.limit + ks.last_key;
      }
      break;
    case KeyFind::kKeynum: {
      int count_at = first + ks.keynum_index;
      int64_t numkeys;
      // Redis 7.0 finds no keys by the specs for a count of 0 either ("ZUNIONSTORE dst 0 a"
      // has none, not dst): the procedure then says, and says none.
      if (count_at >= argc || !ParseInt64(args[static_cast<size_t>(count_at)], &numkeys) ||
          numkeys <= 0 || numkeys > argc) {
        return false;
      }
      first += ks.first_key;
      last = first + static_cast<int>(numkeys - 1) * step;
      break;
    }
    case KeyFind::kUnknown:
      return false;
  }
  for (int i = first; i <= last; i += step) {
    if (i >= argc) return false;
    out->push_back({i, flags});
  }
  return true;
}

// The legacy first/last/step positions, none at all when one falls past the end (a variadic
// command given too few arguments finds no keys, as Redis's legacy search).
std::vector<KeyRef> LegacyKeys(const CommandSpec& spec, const std::vector<std::string_view>& args) {
  std::vector<KeyRef> keys;
  if (spec.first_key <= 0) return keys;
  const int argc = static_cast<int>(args.size());
  const int last = spec.last_key < 0 ? argc + spec.last_key : spec.last_key;
  const int step = spec.key_step > 0 ? spec.key_step : 1;
  for (int i = spec.first_key; i <= last; i += step) {
    if (i >= argc) return {};
    keys.push_back({i, 0});
  }
  return keys;
}

std::vector<KeyRef> ProcedureKeys(const CommandSpec& spec,
                                  const std::vector<std::string_view>& args) {
  if (spec.doc.find_keys != nullptr) return spec.doc.find_keys(args);
  return LegacyKeys(spec, args);
}

}  // namespace

std::vector<KeyRef> FindKeys(const CommandSpec& spec, const std::vector<std::string_view>& args,
                             KeySearch mode) {
  const CommandDoc& doc = spec.doc;
  if (mode == KeySearch::kProcedure || doc.key_specs.empty()) return ProcedureKeys(spec, args);
  std::vector<KeyRef> keys;
  bool said = true;
  for (size_t s = 0; s < doc.key_specs.size() && said; ++s) {
    const KeySpec& ks = doc.key_specs[s];
    if ((ks.flags & kKeyNotKey) != 0) continue;  // not a key (a shard channel)
    if (ks.begin == KeyBegin::kUnknown) {
      said = false;
      break;
    }
    int first = BeginPosition(ks, args);
    if (first <= 0) continue;  // the keyword is absent: this spec has no keys here
    uint32_t flags = ks.flags;
    if (doc.refine_key_flags != nullptr) flags = doc.refine_key_flags(args, s, flags);
    said = FindSpecKeys(ks, first, flags, args, &keys) && (ks.flags & kKeyIncomplete) == 0;
  }
  if (said) return keys;
  // The specs cannot say: the procedure does, or nothing does (Redis skips the legacy triple).
  if (doc.find_keys != nullptr) return doc.find_keys(args);
  return {};
}

bool FindSingleFixedKey(const CommandSpec& spec, const std::vector<std::string_view>& args,
                        KeyRef* key) {
  const CommandDoc& doc = spec.doc;
  if (doc.key_specs.size() != 1) return false;
  const KeySpec& ks = doc.key_specs[0];
  if (ks.begin != KeyBegin::kIndex || ks.find != KeyFind::kRange || ks.last_key != 0 ||
      ks.index <= 0 || static_cast<size_t>(ks.index) >= args.size() ||
      (ks.flags & (kKeyNotKey | kKeyIncomplete)) != 0) {
    return false;
  }
  // The same refinement FindKeys applies, so SET (whose GET option adds read access) takes
  // this path too instead of building a list.
  uint32_t flags = ks.flags;
  if (doc.refine_key_flags != nullptr) flags = doc.refine_key_flags(args, 0, flags);
  *key = {ks.index, flags};
  return true;
}

int AtoiLike(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  constexpr int64_t kMax = INT64_MAX;
  int64_t v = 0;
  bool clamped = false;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    int d = s[i] - '0';
    if (!clamped && v > (kMax - d) / 10) clamped = true;
    if (!clamped) v = v * 10 + d;
  }
  int64_t r = clamped ? (negative ? INT64_MIN : kMax) : (negative ? -v : v);
  return static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(r)));
}

std::vector<KeyRef> KeysAfterCountAt(const std::vector<std::string_view>& args, int at) {
  std::vector<KeyRef> keys;
  const int argc = static_cast<int>(args.size());
  const int num = argc > at ? AtoiLike(args[static_cast<size_t>(at)]) : 0;
  if (num < 1 || num > argc - at - 1) return keys;
  for (int i = 0; i < num; ++i) keys.push_back({at + 1 + i, 0});
  return keys;
}

std::vector<KeyRef> StoreAndKeysAfterCount(const std::vector<std::string_view>& args) {
  std::vector<KeyRef> keys = KeysAfterCountAt(args, 2);
  if (!keys.empty()) keys.push_back({1, 0});
  return keys;
}

}  // namespace redistp
