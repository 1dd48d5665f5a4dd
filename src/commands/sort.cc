// SORT and SORT_RO: the elements of a list, set or sorted set, ordered, optionally weighted by
// and replaced with other keys' values, returned or stored as a list.
//
//   SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA]
//        [STORE destination]
//   SORT_RO  the same without STORE (a read-only command; STORE is a syntax error there)
//
// Model, Redis 7.0's:
//   1. Options are parsed first, left to right; the last ASC/DESC, BY, LIMIT and STORE win and
//      every GET adds one output column. A bad LIMIT number is "not an integer", anything else
//      unknown (or missing its argument) a syntax error. Only then is the key looked up (a read:
//      hits/misses, LRU), a missing key sorting as an empty list and a string or hash answering
//      WRONGTYPE.
//   2. Patterns. "#" is the element itself. Otherwise the first '*' is replaced by the element
//      to make a key name, and a "->field" after the star (with a non-empty field) reads that
//      field of a hash there instead of a string. A missing key or field, or a key of another
//      type, gives no value. A BY pattern with no '*' at all (conventionally "nosort", but "#"
//      too) means "do not sort", for good: a later BY with a star does not turn sorting back on.
//   3. "Do not sort" keeps the native order: a list's, a sorted set's by score (DESC reverses
//      both, and LIMIT then reads just the asked ranks), a set's iteration order -- except that
//      a set sorted into a STORE or from a script is ordered ALPHA anyway, so that what a
//      replica or the AOF replays stores the same list.
//   4. Otherwise each element gets a weight: the element itself, or its BY value. Numeric
//      weights are read like C's strtod (leading spaces, hex and "" -> 0 accepted; trailing
//      bytes, out of range or NaN refused: "One or more scores can't be converted into
//      double", and nothing is stored); an element without a BY value weighs 0. Equal numeric
//      weights are ordered by the elements' bytes, so the result is deterministic. ALPHA
//      compares with the locale's strcoll up to the first NUL byte, or bytes into a STORE;
//      with BY, elements without a BY value come first and equal values keep the load order.
//   5. LIMIT offset count selects the output range after sorting (a negative offset is 0, a
//      negative count means "to the end"). Without GET each element is output; with GETs each
//      output element is the GET values in order, a missing one as null (as "" in a STORE).
//   6. STORE replaces the destination with a new list (TTL dropped, notice "sortstore") and
//      answers its length; an empty result deletes the destination instead (notice "del").
//
// A sorted set in the listpack encoding is converted to a skiplist first, as Redis 7.0 does
// (OBJECT ENCODING answers "skiplist" after a SORT); the contents do not change, so no key
// event is emitted for it.
//
// COMMAND GETKEYS: the sorted key, and the last STORE destination found by Redis's argument
// walk (LIMIT skips two arguments, BY and GET one; STORE's destination is not skipped).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl.h"
#include "commands/register.h"
#include "db/database.h"
#include "db/keyspace_events.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/server.h"
#include "types/hash.h"
#include "types/list.h"
#include "types/set.h"
#include "types/zset.h"
#include "util/numbers.h"

namespace redistp {

namespace notice {
inline constexpr KeyNotice kSortStore{kNotifyList, "sortstore"};
}  // namespace notice

namespace {

struct SortOptions {
  bool desc = false;
  bool alpha = false;
  bool dont_sort = false;  // BY a pattern without '*'
  std::string_view by;     // empty: weigh the elements themselves
  bool has_by = false;
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  std::vector<std::string_view> gets;
  std::string_view store;
  bool has_store = false;
};

// Parses args[2...]. On error replies it and returns false.
bool ParseSortOptions(CommandContext& c, bool read_only, SortOptions* o) {
  const std::vector<std::string_view>& a = c.args;
  for (size_t j = 2; j < a.size(); ++j) {
    const size_t left = a.size() - j - 1;
    std::string_view opt = a[j];
    if (EqualsIgnoreCase(opt, "asc")) {
      o->desc = false;
    } else if (EqualsIgnoreCase(opt, "desc")) {
      o->desc = true;
    } else if (EqualsIgnoreCase(opt, "alpha")) {
      o->alpha = true;
    } else if (EqualsIgnoreCase(opt, "limit") && left >= 2) {
      if (!ParseInt64(a[j + 1], &o->limit_start) || !ParseInt64(a[j + 2], &o->limit_count)) {
        c.reply.Error(err::kNotInteger);
        return false;
      }
      j += 2;
    } else if (!read_only && EqualsIgnoreCase(opt, "store") && left >= 1) {
      o->store = a[++j];
      o->has_store = true;
    } else if (EqualsIgnoreCase(opt, "by") && left >= 1) {
      o->by = a[++j];
      o->has_by = true;
      // Once a BY without '*' was seen the sort stays off, even if a later BY has one.
      if (o->by.find('*') == std::string_view::npos) {
        o->dont_sort = true;
      } else if (!Acl::Of(c.server).MayReadAnyKey(c.client, c.spec, a)) {
        // The pattern names keys no key spec can show: only a user who may read every key.
        c.reply.Error(err::kSortByNoPerm);
        return false;
      }
    } else if (EqualsIgnoreCase(opt, "get") && left >= 1) {
      if (!Acl::Of(c.server).MayReadAnyKey(c.client, c.spec, a)) {
        c.reply.Error(err::kSortGetNoPerm);
        return false;
      }
      o->gets.push_back(a[++j]);
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
  }
  return true;
}

// Resolves `pattern` for `element` (see the file comment, point 2) into *out. `key` is scratch
// space for the key name. The lookup is a read (stats, LRU, "keymiss") with or without STORE,
// as Redis's lookupKeyByPattern. False when there is no value.
bool ResolvePattern(CommandContext& c, std::string_view pattern, std::string_view element,
                    std::string* key, std::string* out) {
  if (pattern == "#") {
    out->assign(element);
    return true;
  }
  const size_t star = pattern.find('*');
  if (star == std::string_view::npos) return false;
  std::string_view field;
  size_t key_end = pattern.size();
  const size_t arrow = pattern.find("->", star + 1);
  if (arrow != std::string_view::npos && arrow + 2 < pattern.size()) {
    field = pattern.substr(arrow + 2);
    key_end = arrow;
  }
  key->assign(pattern.substr(0, star));
  key->append(element);
  key->append(pattern.substr(star + 1, key_end - star - 1));
  Entry* e = c.db.LookupRead(*key);
  if (e == nullptr) return false;
  if (!field.empty()) {
    if (e->value.type() != ValueType::kHash) return false;
    // Fields past their expire time are gone for SORT too (lazy field expiry).
    if (e->has_flag(Entry::kFlagFieldTtl) && !c.db.ExpireFields(e)) return false;
    return HashOf(e->value).Get(field, out);
  }
  if (e->value.type() != ValueType::kString) return false;
  char scratch[kMaxInt64Chars + 1];
  out->assign(e->value.View(scratch));
  return true;
}

// A numeric weight read as C's strtod reads the text; false when it is not a number (trailing
// bytes, out of range, NaN). `s` is NUL-terminated, so like Redis's C string the parse ends at
// an embedded NUL.
bool ParseWeight(const std::string& s, double* out) {
  errno = 0;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(*out);
}

struct SortItem {
  std::string element;
  double weight = 0;
  bool has_by_value = false;  // ALPHA with BY: by_value holds the BY value
  std::string by_value;
};

// Three-way byte comparison.
int CompareBytes(std::string_view a, std::string_view b) { return a.compare(b); }

// ALPHA's comparison of two texts: bytes when the result is stored (so that what the AOF or a
// replica replays stores the same list), else the locale's collation of the texts up to their
// first NUL byte, as Redis compares them (strcoll on C strings: "a\0x" and "a" are equal, and
// ties keep their load order).
int CompareAlpha(const SortOptions& o, const std::string& a, const std::string& b) {
  return o.has_store ? CompareBytes(a, b) : std::strcoll(a.c_str(), b.c_str());
}

// The output range [start, end] of a LIMIT over `len` elements, as Redis computes it (end <
// start when empty).
void LimitRange(const SortOptions& o, int64_t len, int64_t* start, int64_t* end) {
  *start = o.limit_start < 0 ? 0 : o.limit_start;
  if (*start >= len) {
    *start = len - 1;
    *end = len - 2;
    return;
  }
  // start < len here, so start + min(count, len) cannot overflow.
  *end = o.limit_count < 0 ? len - 1 : *start + std::min(o.limit_count, len) - 1;
  if (*end >= len) *end = len - 1;
}

// Loads the elements to sort from `v` (nullptr: a missing key). When the native order is kept
// for a list or sorted set, loads only the LIMIT range (in output order) and narrows
// [*start, *end] to the loaded items.
void LoadItems(Value* v, const SortOptions& o, int64_t* start, int64_t* end,
               std::vector<SortItem>* items) {
  if (v == nullptr) {
    LimitRange(o, 0, start, end);
    return;
  }
  switch (v->type()) {
    case ValueType::kList: {
      Quicklist& ql = ListOf(*v);
      const int64_t len = static_cast<int64_t>(ql.Size());
      LimitRange(o, len, start, end);
      if (o.dont_sort) {
        const int64_t n = std::max<int64_t>(0, *end - *start + 1);
        items->reserve(static_cast<size_t>(n));
        Quicklist::Cursor cur = ql.Seek(o.desc ? -*start - 1 : *start);
        for (int64_t i = 0; i < n && cur.Valid(); ++i) {
          items->push_back({ql.Get(cur).ToString()});
          cur = o.desc ? ql.Prev(cur) : ql.Next(cur);
        }
        *start = 0;
        *end = n - 1;
      } else {
        items->reserve(static_cast<size_t>(len));
        for (Quicklist::Cursor cur = ql.First(); cur.Valid(); cur = ql.Next(cur)) {
          items->push_back({ql.Get(cur).ToString()});
        }
      }
      ql.Recompress();
      return;
    }
    case ValueType::kSet: {
      const SetObject& s = SetOf(*v);
      LimitRange(o, static_cast<int64_t>(s.size()), start, end);
      items->reserve(s.size());
      s.ForEach([items](std::string_view m) { items->push_back({std::string(m)}); });
      return;
    }
    case ValueType::kZSet: {
      ZSetObject& z = ZSetOf(*v);
      if (z.encoding() == ZSetObject::Encoding::kListpack) z.ConvertToSkiplist();
      const SkipList& list = z.index().list();
      const int64_t len = static_cast<int64_t>(z.size());
      LimitRange(o, len, start, end);
      if (o.dont_sort) {
        const int64_t n = std::max<int64_t>(0, *end - *start + 1);
        items->reserve(static_cast<size_t>(n));
        if (n > 0) {
          // 1-based ranks: the start-th from the top when DESC, from the bottom otherwise.
          const ZNode* node = list.ByRank(static_cast<size_t>(o.desc ? len - *start : *start + 1));
          for (int64_t i = 0; i < n && node != nullptr; ++i) {
            items->push_back({std::string(node->member())});
            node = o.desc ? node->prev() : node->next();
          }
        }
        *start = 0;
        *end = n - 1;
      } else {
        items->reserve(static_cast<size_t>(len));
        for (const ZNode* n = list.first(); n != nullptr; n = n->next()) {
          items->push_back({std::string(n->member())});
        }
      }
      return;
    }
    default:
      return;
  }
}

// Gives every item its weight (point 4). False when a numeric weight is not a number.
bool WeighItems(CommandContext& c, const SortOptions& o, std::vector<SortItem>* items) {
  bool ok = true;
  std::string key, value;
  for (SortItem& it : *items) {
    const std::string* weight_text = &it.element;
    if (o.has_by) {
      if (!ResolvePattern(c, o.by, it.element, &key, &value)) continue;
      weight_text = &value;
    }
    if (o.alpha) {
      if (o.has_by) {
        it.by_value = value;
        it.has_by_value = true;
      }
    } else if (!ParseWeight(*weight_text, &it.weight)) {
      ok = false;
    }
  }
  return ok;
}

void SortItems(const SortOptions& o, std::vector<SortItem>* items) {
  // A stable sort: items that compare equal keep their load order (what glibc's merge-sorting
  // qsort gives Redis).
  std::stable_sort(items->begin(), items->end(), [&o](const SortItem& a, const SortItem& b) {
    int cmp;
    if (!o.alpha) {
      if (a.weight != b.weight) {
        cmp = a.weight < b.weight ? -1 : 1;
      } else {
        cmp = CompareBytes(a.element, b.element);
      }
    } else if (o.has_by) {
      if (!a.has_by_value || !b.has_by_value) {
        cmp = a.has_by_value == b.has_by_value ? 0 : (a.has_by_value ? 1 : -1);
      } else {
        cmp = CompareAlpha(o, a.by_value, b.by_value);
      }
    } else {
      cmp = CompareAlpha(o, a.element, b.element);
    }
    return o.desc ? cmp > 0 : cmp < 0;
  });
}

// Replies the sorted range, or stores it into the STORE destination and replies its length.
void OutputItems(CommandContext& c, const SortOptions& o, const std::vector<SortItem>& items,
                 int64_t start, int64_t end) {
  const size_t rows = static_cast<size_t>(std::max<int64_t>(0, end - start + 1));
  const size_t columns = o.gets.empty() ? 1 : o.gets.size();
  const size_t out_len = rows * columns;
  std::string key, value;
  if (!o.has_store) {
    c.reply.Array(out_len);
    for (size_t i = 0; i < rows; ++i) {
      const SortItem& it = items[static_cast<size_t>(start) + i];
      if (o.gets.empty()) {
        c.reply.Bulk(it.element);
        continue;
      }
      for (std::string_view pattern : o.gets) {
        if (ResolvePattern(c, pattern, it.element, &key, &value)) {
          c.reply.Bulk(value);
        } else {
          c.reply.Null();
        }
      }
    }
    return;
  }
  if (out_len == 0) {
    Entry* dst = c.db.LookupWrite(o.store);
    if (dst != nullptr) c.db.Remove(dst, RemoveCause::kDeleted);
    c.reply.Int(0);
    return;
  }
  KeyspaceContext& ks = c.server.keyspace();
  Value list = NewListValue(ks.limits);
  Quicklist& ql = ListOf(list);
  for (size_t i = 0; i < rows; ++i) {
    const SortItem& it = items[static_cast<size_t>(start) + i];
    if (o.gets.empty()) {
      ql.PushBack(it.element, ks.limits.list_packed_threshold);
      continue;
    }
    for (std::string_view pattern : o.gets) {
      if (ResolvePattern(c, pattern, it.element, &key, &value)) {
        ql.PushBack(value, ks.limits.list_packed_threshold);
      } else {
        ql.PushBack("", ks.limits.list_packed_threshold);
      }
    }
  }
  c.db.Upsert(o.store, std::move(list), /*keep_ttl=*/false, notice::kSortStore);
  // Redis counts one change per stored element; the Upsert above counted one.
  c.db.CountChanges(out_len - 1);
  c.reply.Int(static_cast<int64_t>(out_len));
}

void SortGeneric(CommandContext& c, bool read_only) {
  SortOptions o;
  if (!ParseSortOptions(c, read_only, &o)) return;
  Entry* e = c.db.LookupRead(c.args[1]);
  if (e != nullptr) {
    ValueType t = e->value.type();
    if (t != ValueType::kList && t != ValueType::kSet && t != ValueType::kZSet) {
      c.reply.Error(err::kWrongType);
      return;
    }
    // Point 3: a set's iteration order is not reproducible, so what is stored or computed
    // inside a script is ordered.
    if (o.dont_sort && t == ValueType::kSet && (o.has_store || c.origin == ExecOrigin::kScript)) {
      o.dont_sort = false;
      o.alpha = true;
      o.has_by = false;
    }
  }
  std::vector<SortItem> items;
  int64_t start, end;
  LoadItems(e != nullptr ? &e->value : nullptr, o, &start, &end, &items);
  if (!o.dont_sort) {
    if (!WeighItems(c, o, &items)) {
      c.reply.Error(err::kSortNotDouble);
      return;
    }
    SortItems(o, &items);
  }
  OutputItems(c, o, items, start, end);
}

void SortCommand(CommandContext& c) { SortGeneric(c, false); }
void SortRoCommand(CommandContext& c) { SortGeneric(c, true); }

// SORT's keys (see the file comment): the sorted key, then the last STORE destination.
std::vector<KeyRef> SortKeys(const std::vector<std::string_view>& args) {
  std::vector<KeyRef> keys;
  if (args.size() < 2) return keys;
  keys.push_back({1, kKeyRO | kKeyAccess});
  int store = -1;
  const int argc = static_cast<int>(args.size());
  for (int i = 2; i < argc; ++i) {
    std::string_view a = args[static_cast<size_t>(i)];
    if (EqualsIgnoreCase(a, "limit")) {
      i += 2;
    } else if (EqualsIgnoreCase(a, "get") || EqualsIgnoreCase(a, "by")) {
      i += 1;
    } else if (EqualsIgnoreCase(a, "store") && i + 1 < argc) {
      store = i + 1;
    }
  }
  if (store > 0) keys.push_back({store, kKeyOW | kKeyUpdate});
  return keys;
}

// SORT_RO's key procedure: its first argument only (BY and GET patterns name keys that only
// the sorted values can tell).
std::vector<KeyRef> SortRoKeys(const std::vector<std::string_view>& args) {
  if (args.size() < 2) return {};
  return {{1, kKeyRO | kKeyAccess}};
}

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::Pattern;
using docs::PureToken;

// A pattern argument whose values name keys found by key spec `spec` (BY, GET).
ArgDoc KeyPattern(int spec) {
  ArgDoc a = Pattern("pattern");
  a.key_spec_index = spec;
  return a;
}

constexpr std::string_view kSortComplexity =
    "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the "
    "number of returned elements. When the elements are not sorted, complexity is O(N).";
constexpr std::string_view kByGetNotes =
    "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from "
    "the content of the key we sort";
constexpr std::string_view kStoreNotes =
    "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear "
    "anywhere in the argument array";

// The arguments both commands share, before STORE.
std::vector<ArgDoc> SortArgs() {
  return {Key("key", 0),
          KeyPattern(1).Token("BY").Optional(),
          Block("offset_count", {Integer("offset"), Integer("count")}).Token("LIMIT").Optional(),
          KeyPattern(1).Token("GET").Optional().Multiple().MultipleToken(),
          OneOf("order", {PureToken("ASC"), PureToken("DESC")}).Optional(),
          PureToken("ALPHA").Named("sorting").Optional()};
}

}  // namespace

void RegisterSortCommands(CommandTable& t) {
  constexpr uint64_t kAclTypes = kAclSet | kAclSortedSet | kAclList | kAclSlow | kAclDangerous;
  const KeySpec by_get{.flags = kKeyRO | kKeyAccess,
                       .notes = kByGetNotes,
                       .begin = KeyBegin::kUnknown,
                       .find = KeyFind::kUnknown};
  std::vector<ArgDoc> sort_args = SortArgs();
  sort_args.push_back(Key("destination", 2).Token("STORE").Optional());
  t.Register({.name = "sort",
              .arity = -2,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclTypes,
              .doc = {.summary = "Sorts the elements of a list, set or sorted set, optionally "
                                 "storing the result",
                      .since = "1.0.0",
                      .group = "generic",
                      .complexity = kSortComplexity,
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1},
                                    by_get,
                                    {.flags = kKeyOW | kKeyUpdate,
                                     .notes = kStoreNotes,
                                     .begin = KeyBegin::kUnknown,
                                     .find = KeyFind::kUnknown}},
                      .find_keys = SortKeys,
                      .args = std::move(sort_args)},
              .handler = SortCommand});
  t.Register({.name = "sort_ro",
              .arity = -2,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclTypes,
              .doc = {.summary = "Sorts the elements of a list, set or sorted set (read-only "
                                 "SORT, without STORE)",
                      .since = "7.0.0",
                      .group = "generic",
                      .complexity = kSortComplexity,
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}, by_get},
                      .find_keys = SortRoKeys,
                      .args = SortArgs()},
              .handler = SortRoCommand});
}

}  // namespace redistp
