// ZUNION, ZINTER, ZDIFF, their *STORE forms, and ZINTERCARD: algebra over sorted sets.
//
// Model. Inputs are sorted sets or plain sets (a set member counts with score 1); an absent key
// is an empty input, any other type is WRONGTYPE (checked for every input before the options,
// as Redis does). Each input's scores are multiplied by its WEIGHT (default 1) and combined per
// member with AGGREGATE SUM (default), MIN or MAX. NaN never enters a result: a weighted score
// that is NaN (inf * 0) counts as 0, and so does a SUM that is NaN (inf + -inf), as in Redis.
//   union  every member of any input; the inputs are merged in argument order;
//   inter  the members of every input: the smallest input is walked and the others probed, in
//          ascending size order (equal sizes keep argument order);
//   diff   the members of the first input in none of the others, with their first-input
//          scores (ZDIFF takes no WEIGHTS or AGGREGATE).
// The members of the input walked are copied out first, so probing an input (which may be the
// same object, and whose hash table may take a rehash step on a lookup) never disturbs a walk.
//
// Results are ordered as a sorted set is, ascending (score, member bytes): ZUNION/ZINTER/ZDIFF
// reply members (WITHSCORES: flat pairs in RESP2, [member, score] arrays in RESP3); the *STORE
// forms build a new sorted set (a listpack when it fits the zset-max-listpack-* limits, as
// Redis converts a fitting result) and replace the destination whatever it held, TTL included,
// with one event named "zunionstore"/"zinterstore"/"zdiffstore"; an empty result deletes the
// destination instead ("del"). Sources are read fully before the destination changes, so the
// destination may be one of them. ZINTERCARD counts the intersection, stopping at LIMIT.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "commands/zset_ops_internal.h"
#include "commands/zset_pop.h"
#include "commands/zset_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/server.h"
#include "types/set.h"
#include "types/zset.h"
#include "util/numbers.h"

namespace redistp {
namespace {

enum class SetOp : uint8_t { kUnion, kInter, kDiff };
enum class Aggregate : uint8_t { kSum, kMin, kMax };

// One input: a sorted set, a set, or nothing (an absent key), with its weight.
struct Source {
  Value* value = nullptr;
  double weight = 1;

  size_t size() const {
    if (value == nullptr) return 0;
    return value->type() == ValueType::kZSet ? ZSetOf(*value).size() : SetOf(*value).size();
  }
  // Calls fn(member, score) for every member (unweighted scores; set members score 1). The
  // member view lives only for the call.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    if (value == nullptr) return;
    if (value->type() == ValueType::kZSet) {
      ZSetOf(*value).ForEach(fn);
    } else {
      SetOf(*value).ForEach([&fn](std::string_view m) { fn(m, 1.0); });
    }
  }
  // The unweighted score of `member`, or false when it is not a member.
  bool Find(std::string_view member, double* score) const {
    if (value == nullptr) return false;
    if (value->type() == ValueType::kZSet) {
      std::optional<double> s = ZSetOf(*value).Score(member);
      if (!s) return false;
      *score = *s;
      return true;
    }
    *score = 1;
    return SetOf(*value).Contains(member);
  }
};

double Weighted(double score, double weight) {
  const double v = score * weight;
  return std::isnan(v) ? 0 : v;  // inf * 0
}

void Combine(double* target, double v, Aggregate agg) {
  switch (agg) {
    case Aggregate::kSum:
      *target += v;
      if (std::isnan(*target)) *target = 0;  // inf + -inf
      break;
    case Aggregate::kMin:
      *target = std::min(*target, v);
      break;
    case Aggregate::kMax:
      *target = std::max(*target, v);
      break;
  }
}

using Pairs = std::vector<std::pair<std::string, double>>;

Pairs Members(const Source& s) {
  Pairs out;
  out.reserve(s.size());
  s.ForEach([&out](std::string_view m, double score) { out.emplace_back(m, score); });
  return out;
}

Pairs Union(const std::vector<Source>& srcs, Aggregate agg) {
  std::unordered_map<std::string, double> acc;
  size_t largest = 0;
  for (const Source& s : srcs) largest = std::max(largest, s.size());
  acc.reserve(largest);
  for (const Source& s : srcs) {
    s.ForEach([&](std::string_view m, double score) {
      const double v = Weighted(score, s.weight);
      auto [it, added] = acc.try_emplace(std::string(m), v);
      if (!added) Combine(&it->second, v, agg);
    });
  }
  Pairs out(std::make_move_iterator(acc.begin()), std::make_move_iterator(acc.end()));
  return out;
}

// The inputs in ascending size order, ties in argument order.
std::vector<const Source*> BySize(const std::vector<Source>& srcs) {
  std::vector<const Source*> order;
  for (const Source& s : srcs) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(),
                   [](const Source* a, const Source* b) { return a->size() < b->size(); });
  return order;
}

// The intersection, or (limit > 0) only its first `limit` members.
Pairs Inter(const std::vector<Source>& srcs, Aggregate agg, size_t limit = 0) {
  std::vector<const Source*> order = BySize(srcs);
  Pairs out;
  if (order.front()->size() == 0) return out;
  for (auto& [member, score] : Members(*order.front())) {
    double acc = Weighted(score, order.front()->weight);
    bool everywhere = true;
    for (size_t j = 1; j < order.size() && everywhere; ++j) {
      double s;
      everywhere = order[j]->Find(member, &s);
      if (everywhere) Combine(&acc, Weighted(s, order[j]->weight), agg);
    }
    if (!everywhere) continue;
    out.emplace_back(std::move(member), acc);
    if (limit != 0 && out.size() == limit) break;
  }
  return out;
}

Pairs Diff(const std::vector<Source>& srcs) {
  Pairs out;
  for (auto& [member, score] : Members(srcs.front())) {
    bool elsewhere = false;
    for (size_t j = 1; j < srcs.size() && !elsewhere; ++j) {
      double s;
      elsewhere = srcs[j].Find(member, &s);
    }
    if (!elsewhere) out.emplace_back(std::move(member), score);
  }
  return out;
}

// Ascending (score, member bytes), the order of a sorted set.
void SortPairs(Pairs& p) {
  std::sort(p.begin(), p.end(), [](const auto& a, const auto& b) {
    return a.second < b.second || (a.second == b.second && a.first < b.first);
  });
}

struct SetOpArgs {
  std::vector<Source> sources;
  Aggregate agg = Aggregate::kSum;
  bool withscores = false;
  int64_t limit = 0;  // ZINTERCARD
};

// Parses `numkeys key [key ...] [options]` from args[numkeys_pos] and looks the keys up, in
// Redis's order: numkeys (not an integer; < 1: "at least 1 input key is needed"; more than the
// arguments: syntax error), then each key's type, then the options (WEIGHTS and AGGREGATE
// unless diff or card; WITHSCORES unless store or card; LIMIT for card only). Replies the error
// and returns false when invalid.
bool ParseSetOp(CommandContext& c, size_t numkeys_pos, SetOp op, bool store, bool card,
                SetOpArgs* a) {
  const auto& args = c.args;
  int64_t numkeys;
  if (!ParseInt64(args[numkeys_pos], &numkeys)) {
    c.reply.Error(err::kNotInteger);
    return false;
  }
  if (numkeys < 1) {
    c.reply.Error(err::ZOpsNoInputKey(c.spec.name));
    return false;
  }
  const size_t first = numkeys_pos + 1;
  if (static_cast<uint64_t>(numkeys) > args.size() - first) {
    c.reply.Error(err::kSyntax);
    return false;
  }
  const size_t n = static_cast<size_t>(numkeys);
  a->sources.resize(n);
  for (size_t i = 0; i < n; ++i) {
    // Two types are welcome, so the type is checked here rather than by LookupTyped. A read
    // lookup with or without a destination (stats and "keymiss" as Redis's lookupKeyRead).
    Entry* e = c.db.LookupRead(args[first + i]);
    if (e == nullptr) continue;
    if (e->value.type() != ValueType::kZSet && e->value.type() != ValueType::kSet) {
      c.reply.Error(err::kWrongType);
      return false;
    }
    a->sources[i].value = &e->value;
  }
  for (size_t j = first + n; j < args.size(); ++j) {
    const size_t remaining = args.size() - j;
    const bool algebra = op != SetOp::kDiff && !card;
    if (algebra && remaining >= n + 1 && EqualsIgnoreCase(args[j], "weights")) {
      for (size_t i = 0; i < n; ++i) {
        ++j;
        if (!ParseScore(args[j], &a->sources[i].weight)) {
          c.reply.Error(err::kZOpsWeightNotFloat);
          return false;
        }
      }
    } else if (algebra && remaining >= 2 && EqualsIgnoreCase(args[j], "aggregate")) {
      ++j;
      if (EqualsIgnoreCase(args[j], "sum")) {
        a->agg = Aggregate::kSum;
      } else if (EqualsIgnoreCase(args[j], "min")) {
        a->agg = Aggregate::kMin;
      } else if (EqualsIgnoreCase(args[j], "max")) {
        a->agg = Aggregate::kMax;
      } else {
        c.reply.Error(err::kSyntax);
        return false;
      }
    } else if (!store && !card && EqualsIgnoreCase(args[j], "withscores")) {
      a->withscores = true;
    } else if (card && remaining >= 2 && EqualsIgnoreCase(args[j], "limit")) {
      ++j;
      if (!ParseInt64(args[j], &a->limit) || a->limit < 0) {
        c.reply.Error(err::kLimitNegative);
        return false;
      }
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
  }
  return true;
}

Pairs Compute(SetOp op, const SetOpArgs& a) {
  switch (op) {
    case SetOp::kUnion:
      return Union(a.sources, a.agg);
    case SetOp::kInter:
      return Inter(a.sources, a.agg);
    case SetOp::kDiff:
    default:
      return Diff(a.sources);
  }
}

// ZUNION|ZINTER|ZDIFF numkeys key [key ...] [options] [WITHSCORES]
void SetOpReply(CommandContext& c, SetOp op) {
  SetOpArgs a;
  if (!ParseSetOp(c, 1, op, false, false, &a)) return;
  Pairs result = Compute(op, a);
  SortPairs(result);
  ReplyRangeHeader(c.reply, result.size(), a.withscores);
  for (const auto& [member, score] : result) {
    ReplyRangeItem(c.reply, member, score, a.withscores);
  }
}

// ZUNIONSTORE|ZINTERSTORE|ZDIFFSTORE destination numkeys key [key ...] [options]
void SetOpStore(CommandContext& c, SetOp op, KeyNotice notice) {
  SetOpArgs a;
  if (!ParseSetOp(c, 2, op, true, false, &a)) return;
  Pairs result = Compute(op, a);
  const std::string_view dst = c.args[1];
  if (result.empty()) {
    if (Entry* d = c.db.LookupWrite(dst)) c.db.Remove(d, RemoveCause::kDeleted);
    c.reply.Int(0);
    return;
  }
  SortPairs(result);
  const TypeLimits& limits = c.server.keyspace().limits;
  size_t longest = 0;
  for (const auto& p : result) longest = std::max(longest, p.first.size());
  Value v = NewZSetValue(result.front().first, limits);
  ZSetObject& z = ZSetOf(v);
  // Straight to the encoding the whole result needs, instead of converting midway.
  if (result.size() > limits.zset_max_listpack_entries ||
      longest > limits.zset_max_listpack_value) {
    z.ConvertToSkiplist();
  }
  for (const auto& [member, score] : result) z.Add(member, score, limits);
  c.db.Upsert(dst, std::move(v), false, notice);
  c.reply.Int(static_cast<int64_t>(result.size()));
}

void ZUnionCommand(CommandContext& c) { SetOpReply(c, SetOp::kUnion); }
void ZInterCommand(CommandContext& c) { SetOpReply(c, SetOp::kInter); }
void ZDiffCommand(CommandContext& c) { SetOpReply(c, SetOp::kDiff); }
void ZUnionStoreCommand(CommandContext& c) { SetOpStore(c, SetOp::kUnion, notice::kZUnionStore); }
void ZInterStoreCommand(CommandContext& c) { SetOpStore(c, SetOp::kInter, notice::kZInterStore); }
void ZDiffStoreCommand(CommandContext& c) { SetOpStore(c, SetOp::kDiff, notice::kZDiffStore); }

// ZINTERCARD numkeys key [key ...] [LIMIT limit]
void ZInterCardCommand(CommandContext& c) {
  SetOpArgs a;
  if (!ParseSetOp(c, 1, SetOp::kInter, false, true, &a)) return;
  c.reply.Int(
      static_cast<int64_t>(Inter(a.sources, Aggregate::kSum, static_cast<size_t>(a.limit)).size()));
}

using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;

std::vector<ArgDoc> AlgebraOptionDocs() {
  return {Integer("weight").Token("WEIGHTS").Optional().Multiple(),
          OneOf("aggregate", {PureToken("SUM"), PureToken("MIN"), PureToken("MAX")})
              .Token("AGGREGATE")
              .Optional()};
}

KeySpec ReadKeysSpec(int index) {
  return {.flags = kKeyRO | kKeyAccess,
          .index = index,
          .find = KeyFind::kKeynum,
          .key_step = 1,
          .keynum_index = 0,
          .first_key = 1};
}

// The row of ZUNION/ZINTER/ZDIFF.
CommandSpec ReplyRow(const char* name, const char* summary, const char* since,
                     const char* complexity, bool algebra, CommandHandler handler) {
  std::vector<ArgDoc> args = {Integer("numkeys"), Key("key", 0).Multiple()};
  if (algebra) {
    for (ArgDoc& d : AlgebraOptionDocs()) args.push_back(std::move(d));
  }
  args.push_back(PureToken("WITHSCORES").Optional());
  return {.name = name,
          .arity = -3,
          .flags = kCmdReadOnly,
          .acl = kAclRead | kAclSortedSet | kAclSlow,
          .doc = {.summary = summary,
                  .since = since,
                  .group = "sorted-set",
                  .complexity = complexity,
                  .key_specs = {ReadKeysSpec(1)},
                  .find_keys = KeysAfterCount<1>,
                  .args = std::move(args)},
          .handler = handler};
}

// The row of ZUNIONSTORE/ZINTERSTORE/ZDIFFSTORE.
CommandSpec StoreRow(const char* name, const char* summary, const char* since,
                     const char* complexity, bool algebra, CommandHandler handler) {
  std::vector<ArgDoc> args = {Key("destination", 0), Integer("numkeys"), Key("key", 1).Multiple()};
  if (algebra) {
    for (ArgDoc& d : AlgebraOptionDocs()) args.push_back(std::move(d));
  }
  return {.name = name,
          .arity = -4,
          .flags = kCmdWrite | kCmdDenyOom,
          .first_key = 1,
          .last_key = 1,
          .key_step = 1,
          .acl = kAclWrite | kAclSortedSet | kAclSlow,
          .doc = {.summary = summary,
                  .since = since,
                  .group = "sorted-set",
                  .complexity = complexity,
                  .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 1}, ReadKeysSpec(2)},
                  .find_keys = StoreAndKeysAfterCount,
                  .args = std::move(args)},
          .handler = handler};
}

constexpr const char* kUnionComplexity =
    "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being "
    "the number of elements in the resulting sorted set.";
constexpr const char* kUnionStoreComplexity =
    "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being "
    "the number of elements in the resulting sorted set.";
constexpr const char* kInterComplexity =
    "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the "
    "number of input sorted sets and M being the number of elements in the resulting sorted "
    "set.";
constexpr const char* kDiffComplexity =
    "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N "
    "is the size of the first set, and K is the size of the result set.";

}  // namespace

void RegisterZSetOpsCommands(CommandTable& t) {
  RegisterZSetPopCommands(t);
  RegisterZSetBlockingCommands(t);
  RegisterZSetRandomCommands(t);
  t.Register(ReplyRow("zunion", "Returns the union of sorted sets", "6.2.0", kUnionComplexity, true,
                      ZUnionCommand));
  t.Register(ReplyRow("zinter", "Returns the intersection of sorted sets", "6.2.0",
                      kInterComplexity, true, ZInterCommand));
  t.Register(ReplyRow("zdiff", "Returns the members of the first sorted set absent from the others",
                      "6.2.0", kDiffComplexity, false, ZDiffCommand));
  t.Register(StoreRow("zunionstore", "Stores the union of sorted sets in a key", "2.0.0",
                      kUnionStoreComplexity, true, ZUnionStoreCommand));
  t.Register(StoreRow("zinterstore", "Stores the intersection of sorted sets in a key", "2.0.0",
                      kInterComplexity, true, ZInterStoreCommand));
  t.Register(StoreRow("zdiffstore",
                      "Stores the members of the first sorted set absent from the others in a key",
                      "6.2.0", kDiffComplexity, false, ZDiffStoreCommand));
  t.Register(
      {.name = "zintercard",
       .arity = -3,
       .flags = kCmdReadOnly,
       .acl = kAclRead | kAclSortedSet | kAclSlow,
       .doc = {.summary = "Returns the number of members in the intersection of sorted sets",
               .since = "7.0.0",
               .group = "sorted-set",
               .complexity = "O(N*K) worst case with N being the smallest input sorted set, K "
                             "being the number of input sorted sets.",
               .key_specs = {ReadKeysSpec(1)},
               .find_keys = KeysAfterCount<1>,
               .args = {Integer("numkeys"), Key("key", 0).Multiple(),
                        Integer("limit").Token("LIMIT").Optional()}},
       .handler = ZInterCardCommand});
}

}  // namespace redistp
