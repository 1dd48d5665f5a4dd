// Multi-key set commands: SINTER SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE,
// the handlers over the operations of set_ops.h.
//
// Keys. Every source key is looked up before anything is computed, so a key of another type
// anywhere in the list answers WRONGTYPE and changes nothing, even after a missing key (Redis
// 7.0 checks them all). A missing key is an empty set. The STORE forms look their sources up
// as writes (no keyspace hit/miss counted), as Redis does.
//
// STORE. The result is built in full first (a destination may also be a source), then replaces
// the destination whatever it held, its TTL dropped (Database::Upsert, notice "sinterstore" /
// "sunionstore" / "sdiffstore"); an empty result deletes the destination instead ("del") and
// answers 0. Either way the reply is the result's cardinality, and the command is replayed as
// itself (it is deterministic).
//
// Replies. SINTER streams the intersection under a deferred set header; SUNION and SDIFF build
// the result first (duplicates must be dropped) and reply it. All three are sets in RESP3.
#include "commands/set_ops.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/set.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {

Value SetIntersection(const std::vector<SetObject*>& sets, const TypeLimits& limits) {
  Value out = NewIntsetSetValue();
  SetObject& result = SetOf(out);
  ForEachIntersected(sets, [&](std::string_view m) {
    result.Add(m, limits);
    return true;
  });
  return out;
}

Value SetUnion(const std::vector<SetObject*>& sets, const TypeLimits& limits) {
  Value out = NewIntsetSetValue();
  SetObject& result = SetOf(out);
  for (const SetObject* s : sets) {
    if (s != nullptr) s->ForEach([&](std::string_view m) { result.Add(m, limits); });
  }
  return out;
}

Value SetDifference(const std::vector<SetObject*>& sets, const TypeLimits& limits) {
  Value out = NewIntsetSetValue();
  SetObject& result = SetOf(out);
  SetObject* first = sets[0];
  if (first == nullptr) return out;
  // The other sets, largest first (a member is most likely found early), without repeats and
  // missing keys. The first set among them empties the result.
  std::vector<SetObject*> others;
  for (size_t i = 1; i < sets.size(); ++i) {
    if (sets[i] == first) return out;
    if (sets[i] != nullptr && std::find(others.begin(), others.end(), sets[i]) == others.end()) {
      others.push_back(sets[i]);
    }
  }
  std::sort(others.begin(), others.end(),
            [](const SetObject* a, const SetObject* b) { return a->size() > b->size(); });
  // Redis's choice: probing costs |first| per other set, halved for the early exits; removing
  // costs every member of every set.
  uint64_t probe_work = first->size() * (others.size() + 1) / 2;
  uint64_t remove_work = first->size();
  for (const SetObject* o : others) remove_work += o->size();
  if (probe_work <= remove_work) {
    first->ForEach([&](std::string_view m) {
      for (SetObject* o : others) {
        if (o->Contains(m)) return;
      }
      result.Add(m, limits);
    });
    return out;
  }
  first->ForEach([&](std::string_view m) { result.Add(m, limits); });
  for (const SetObject* o : others) {
    if (result.size() == 0) break;
    o->ForEach([&](std::string_view m) { result.Remove(m); });
  }
  return out;
}

namespace {

// Looks up the sets named by keys [begin, end) of the command into *out (nullptr for a missing
// key). On a key of another type replies WRONGTYPE and returns false. Always a read lookup,
// STORE forms included (stats and "keymiss" as Redis's lookupKeyRead).
bool LookupSources(CommandContext& c, size_t begin, size_t end, std::vector<SetObject*>* out) {
  out->clear();
  out->reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    Entry* e;
    if (!LookupTyped(c, c.args[i], ValueType::kSet, Access::kRead, &e)) return false;
    out->push_back(e == nullptr ? nullptr : &SetOf(e->value));
  }
  return true;
}

// Stores `result` at `dst` (or deletes `dst` when the result is empty) and replies its size.
void StoreResult(CommandContext& c, std::string_view dst, Value&& result, KeyNotice notice) {
  const size_t n = SetOf(result).size();
  if (n == 0) {
    if (Entry* e = c.db.LookupWrite(dst)) c.db.Remove(e, RemoveCause::kDeleted);
    c.reply.Int(0);
    return;
  }
  c.db.Upsert(dst, std::move(result), /*keep_ttl=*/false, notice);
  c.reply.Int(static_cast<int64_t>(n));
}

void ReplyMembers(CommandContext& c, const SetObject& set) {
  c.reply.Set(set.size());
  set.ForEach([&c](std::string_view m) { c.reply.Bulk(m); });
}

void SInterCommand(CommandContext& c) {
  std::vector<SetObject*> sets;
  if (!LookupSources(c, 1, c.args.size(), &sets)) return;
  const size_t handle = c.reply.DeferLen();
  size_t n = 0;
  ForEachIntersected(sets, [&](std::string_view m) {
    c.reply.Bulk(m);
    ++n;
    return true;
  });
  c.reply.SetDeferredLen(handle, '~', n);
}

void SInterStoreCommand(CommandContext& c) {
  std::vector<SetObject*> sets;
  if (!LookupSources(c, 2, c.args.size(), &sets)) return;
  StoreResult(c, c.args[1], SetIntersection(sets, c.server.keyspace().limits),
              notice::kSInterStore);
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]: the intersection's size, counting stops at
// `limit` (0 = no limit). Arguments are checked before any key is read.
void SInterCardCommand(CommandContext& c) {
  int64_t numkeys;
  if (!ParseInt64(c.args[1], &numkeys) || numkeys <= 0) {
    c.reply.Error(err::kNumKeysPositive);
    return;
  }
  if (static_cast<uint64_t>(numkeys) > c.args.size() - 2) {
    c.reply.Error(err::kSetNumKeysTooMany);
    return;
  }
  const size_t keys_end = 2 + static_cast<size_t>(numkeys);
  int64_t limit = 0;
  for (size_t i = keys_end; i < c.args.size(); ++i) {
    if (EqualsIgnoreCase(c.args[i], "limit") && i + 1 < c.args.size()) {
      if (!ParseInt64(c.args[++i], &limit) || limit < 0) {
        c.reply.Error(err::kLimitNegative);
        return;
      }
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  std::vector<SetObject*> sets;
  if (!LookupSources(c, 2, keys_end, &sets)) return;
  int64_t n = 0;
  ForEachIntersected</*kText=*/false>(sets, [&](std::string_view) { return ++n != limit; });
  c.reply.Int(n);
}

void SUnionCommand(CommandContext& c) {
  std::vector<SetObject*> sets;
  if (!LookupSources(c, 1, c.args.size(), &sets)) return;
  Value result = SetUnion(sets, c.server.keyspace().limits);
  ReplyMembers(c, SetOf(result));
}

void SUnionStoreCommand(CommandContext& c) {
  std::vector<SetObject*> sets;
  if (!LookupSources(c, 2, c.args.size(), &sets)) return;
  StoreResult(c, c.args[1], SetUnion(sets, c.server.keyspace().limits), notice::kSUnionStore);
}

void SDiffCommand(CommandContext& c) {
  std::vector<SetObject*> sets;
  if (!LookupSources(c, 1, c.args.size(), &sets)) return;
  Value result = SetDifference(sets, c.server.keyspace().limits);
  ReplyMembers(c, SetOf(result));
}

void SDiffStoreCommand(CommandContext& c) {
  std::vector<SetObject*> sets;
  if (!LookupSources(c, 2, c.args.size(), &sets)) return;
  StoreResult(c, c.args[1], SetDifference(sets, c.server.keyspace().limits), notice::kSDiffStore);
}

}  // namespace

using docs::Integer;
using docs::Key;

namespace {

// The row of SINTER, SUNION and SDIFF: read-only over every key.
CommandSpec ReadRow(const char* name, const char* summary, const char* complexity,
                    CommandHandler handler) {
  return {.name = name,
          .arity = -2,
          .flags = kCmdReadOnly,
          .first_key = 1,
          .last_key = -1,
          .key_step = 1,
          .acl = kAclRead | kAclSet | kAclSlow,
          .doc = {.summary = summary,
                  .since = "1.0.0",
                  .group = "set",
                  .complexity = complexity,
                  .tips = {"nondeterministic_output_order"},
                  .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1, .last_key = -1}},
                  .args = {Key("key", 0).Multiple()}},
          .handler = handler};
}

// The row of the STORE forms: the destination (flags differ: SINTERSTORE's is RW, the others'
// OW, as Redis 7.0 declares them), then read-only sources.
CommandSpec StoreRow(const char* name, const char* summary, const char* complexity,
                     uint32_t dst_flags, CommandHandler handler) {
  return {.name = name,
          .arity = -3,
          .flags = kCmdWrite | kCmdDenyOom,
          .first_key = 1,
          .last_key = -1,
          .key_step = 1,
          .acl = kAclWrite | kAclSet | kAclSlow,
          .doc = {.summary = summary,
                  .since = "1.0.0",
                  .group = "set",
                  .complexity = complexity,
                  .key_specs = {{.flags = dst_flags, .index = 1},
                                {.flags = kKeyRO | kKeyAccess, .index = 2, .last_key = -1}},
                  .args = {Key("destination", 0), Key("key", 1).Multiple()}},
          .handler = handler};
}

constexpr const char* kInterComplexity =
    "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of "
    "sets.";
constexpr const char* kTotalComplexity =
    "O(N) where N is the total number of elements in all given sets.";

}  // namespace

void RegisterSetOpCommands(CommandTable& t) {
  t.Register(
      ReadRow("sinter", "Returns the intersection of sets", kInterComplexity, SInterCommand));
  t.Register({.name = "sintercard",
              .arity = -3,
              .flags = kCmdReadOnly,
              .acl = kAclRead | kAclSet | kAclSlow,
              .doc = {.summary = "Returns the number of members in the intersection of sets",
                      .since = "7.0.0",
                      .group = "set",
                      .complexity = kInterComplexity,
                      .key_specs = {{.flags = kKeyRO | kKeyAccess,
                                     .index = 1,
                                     .find = KeyFind::kKeynum,
                                     .keynum_index = 0,
                                     .first_key = 1}},
                      .find_keys = KeysAfterCount<1>,
                      .args = {Integer("numkeys"), Key("key", 0).Multiple(),
                               Integer("limit").Token("LIMIT").Optional()}},
              .handler = SInterCardCommand});
  t.Register(StoreRow("sinterstore", "Stores the intersection of sets in a key", kInterComplexity,
                      kKeyRW | kKeyUpdate, SInterStoreCommand));
  t.Register(ReadRow("sunion", "Returns the union of sets", kTotalComplexity, SUnionCommand));
  t.Register(StoreRow("sunionstore", "Stores the union of sets in a key", kTotalComplexity,
                      kKeyOW | kKeyUpdate, SUnionStoreCommand));
  t.Register(ReadRow("sdiff", "Returns the members of a set that are in none of the other sets",
                     kTotalComplexity, SDiffCommand));
  t.Register(StoreRow("sdiffstore", "Stores the difference of sets in a key", kTotalComplexity,
                      kKeyOW | kKeyUpdate, SDiffStoreCommand));
}

}  // namespace redistp
