// ZRANDMEMBER key [count [WITHSCORES]]: random members of a sorted set.
//
// Model (Redis 7.0's contract; the sampling is ours):
//   no count      one member, uniformly (nil when the key is absent);
//   count < 0     |count| independent uniform picks, so members may repeat;
//   count >= size the whole set, each member once;
//   0 < count < size  `count` distinct members, every subset equally likely.
// A pick is uniform by construction: a random rank in 1..size, found in O(log N) through the
// skiplist's spans, or a random slot of the listpack's member positions (collected once, so a
// pick costs O(1)). Distinct picks on a big set cost O(count log N): random ranks, dropping
// repeats, while count is under a third of the set; above that a single pass of selection
// sampling (each member taken with probability needed / left) costs O(size) = O(count).
//
// Replies: members only, or with WITHSCORES member/score pairs, flat in RESP2 and as
// [member, score] arrays in RESP3. Argument errors come before the key's type, as in Redis.
#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "commands/lookup.h"
#include "commands/zset_ops_internal.h"
#include "commands/zset_util.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "types/zset.h"
#include "util/hash.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// Writes (member, score) items in the reply's shape (zset_util.h's range replies).
class PairWriter {
 public:
  PairWriter(ReplyBuilder& reply, bool withscores) : reply_(reply), withscores_(withscores) {}
  // The array header for n items.
  void Header(uint64_t n) { ReplyRangeHeader(reply_, n, withscores_); }
  void operator()(std::string_view member, double score) {
    ReplyRangeItem(reply_, member, score, withscores_);
  }

 private:
  ReplyBuilder& reply_;
  bool withscores_;
};

// Uniform random index in [0, n), n > 0.
uint64_t RandomBelow(uint64_t n) { return RandomWord() % n; }

// Random access to a sorted set's members by position (0-based, ascending order).
class Picker {
 public:
  explicit Picker(const ZSetObject& z) : z_(z) {
    if (z.encoding() == ZSetObject::Encoding::kListpack) {
      const Listpack& lp = z.listpack();
      positions_.reserve(z.size());
      for (Listpack::Pos p = lp.First(); p != Listpack::kNone; p = lp.Next(lp.Next(p))) {
        positions_.push_back(p);
      }
    }
  }
  // Calls fn(member, score) for the member at `index`.
  template <typename Fn>
  void At(uint64_t index, Fn&& fn) {
    if (z_.encoding() == ZSetObject::Encoding::kSkiplist) {
      const ZNode* n = z_.index().list().ByRank(index + 1);
      fn(n->member(), n->score);
      return;
    }
    const Listpack& lp = z_.listpack();
    Listpack::Pos p = positions_[index];
    ListpackEntry m = lp.Get(p);
    std::string_view member = m.is_int ? std::string_view(buf_, FormatInt64(m.num, buf_)) : m.str;
    ListpackEntry s = lp.Get(lp.Next(p));
    double score = 0;
    if (s.is_int) {
      score = static_cast<double>(s.num);
    } else {
      ParseDouble(s.str, &score);
    }
    fn(member, score);
  }

 private:
  const ZSetObject& z_;
  std::vector<Listpack::Pos> positions_;
  char buf_[kMaxInt64Chars + 1];
};

// `count` distinct members (0 < count < size).
void ReplyDistinct(const ZSetObject& z, uint64_t count, PairWriter& out) {
  const uint64_t size = z.size();
  out.Header(count);
  if (z.encoding() == ZSetObject::Encoding::kSkiplist && count * 3 <= size) {
    std::unordered_set<const ZNode*> seen;
    seen.reserve(count);
    const SkipList& list = z.index().list();
    while (seen.size() < count) {
      const ZNode* n = list.ByRank(RandomBelow(size) + 1);
      if (seen.insert(n).second) out(n->member(), n->score);
    }
    return;
  }
  // Selection sampling: the i-th member (of `left` still unvisited) is taken with probability
  // needed / left, which leaves every count-subset equally likely.
  uint64_t needed = count;
  uint64_t left = size;
  z.ForEach([&](std::string_view member, double score) {
    if (needed > 0 && RandomBelow(left) < needed) {
      out(member, score);
      --needed;
    }
    --left;
  });
}

void ZRandMemberCommand(CommandContext& c) {
  const bool has_count = c.args.size() >= 3;
  int64_t count = 0;
  bool withscores = false;
  if (has_count) {
    if (!ParseInt64(c.args[2], &count)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
    if (count == INT64_MIN) {
      c.reply.Error(err::kZOpsRandCountRange);
      return;
    }
    if (c.args.size() > 4 || (c.args.size() == 4 && !EqualsIgnoreCase(c.args[3], "withscores"))) {
      c.reply.Error(err::kSyntax);
      return;
    }
    withscores = c.args.size() == 4;
    // Redis refuses counts whose reply length (2 * |count|) would overflow.
    if (withscores && (count < -(INT64_MAX / 2) || count > INT64_MAX / 2)) {
      c.reply.Error(err::kValueOutOfRange);
      return;
    }
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  if (e == nullptr) {
    if (has_count) {
      c.reply.EmptyArray();
    } else {
      c.reply.Null();
    }
    return;
  }
  const ZSetObject& z = ZSetOf(e->value);
  const uint64_t size = z.size();
  if (!has_count) {
    Picker(z).At(RandomBelow(size), [&](std::string_view m, double) { c.reply.Bulk(m); });
    return;
  }
  PairWriter out(c.reply, withscores);
  if (count == 0) {
    c.reply.EmptyArray();
  } else if (count < 0) {
    const uint64_t n = static_cast<uint64_t>(-count);
    Picker picker(z);
    out.Header(n);
    // Stops once the reply went over the output limit (dropped, the client closing), as Redis
    // 7.0 does: looked at once per 1024 picks.
    for (uint64_t i = 0; i < n; ++i) {
      if ((i & 1023) == 1023 && c.client.out.refused()) break;
      picker.At(RandomBelow(size), out);
    }
  } else if (static_cast<uint64_t>(count) >= size) {
    // Highest first, the order Redis 7.0 walks a sorted set in here.
    out.Header(size);
    z.WalkRanks(0, size - 1, true, out);
  } else {
    ReplyDistinct(z, static_cast<uint64_t>(count), out);
  }
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::PureToken;

void RegisterZSetRandomCommands(CommandTable& t) {
  t.Register({.name = "zrandmember",
              .arity = -2,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclSortedSet | kAclSlow,
              .doc = {.summary = "Returns one or more random members of a sorted set",
                      .since = "6.2.0",
                      .group = "sorted-set",
                      .complexity = "O(N) where N is the number of elements returned",
                      .tips = {"nondeterministic_output"},
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0), Block("options", {Integer("count"),
                                                                PureToken("WITHSCORES").Optional()})
                                                  .Optional()}},
              .handler = ZRandMemberCommand});
}

}  // namespace redistp
