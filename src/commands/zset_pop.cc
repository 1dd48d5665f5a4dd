// ZPOPMIN, ZPOPMAX and ZMPOP: removing members from a sorted set's ends (the blocking forms are
// in zset_blocking.cc; the shared pop is declared in zset_pop.h).
//
// Reply shapes, Redis 7.0's (they differ by command and protocol, see the tests):
//   ZPOPMIN key          member, score as one flat pair (an empty array when the key is absent)
//   ZPOPMIN key count    RESP2: a flat array of 2n items; RESP3: an array of n [member, score]
//   ZMPOP ...            [key, [[member, score] ...]] in both protocols, nil when every key is
//                        absent
// Argument checks come in Redis's order: the count before the key's type, so
// `ZPOPMIN string-key -1` is a range error, not WRONGTYPE.
//
// Propagation: ZPOPMIN/ZPOPMAX replay as sent; ZMPOP replays as `ZPOPMIN|ZPOPMAX key n` for
// the key it popped from, n the number popped (not the COUNT asked), as Redis 7.0's AOF shows.
#include "commands/zset_pop.h"

#include <algorithm>
#include <string>

#include "commands/lookup.h"
#include "commands/zset_ops_internal.h"
#include "commands/zset_util.h"
#include "protocol/errors.h"
#include "types/zset.h"
#include "util/numbers.h"

namespace redistp {

namespace {

double ListpackScore(const ListpackEntry& e) {
  if (e.is_int) return static_cast<double>(e.num);
  double d = 0;
  ParseDouble(e.str, &d);
  return d;
}

// Writes the member and score at one end of `z` (non-empty) and removes that member.
void PopOne(ZSetObject& z, bool max, ReplyBuilder& reply) {
  if (z.encoding() == ZSetObject::Encoding::kSkiplist) {
    const SkipList& list = z.index().list();
    const ZNode* node = max ? list.last() : list.first();
    reply.Bulk(node->member());
    ReplyScore(reply, node->score);
    // The view points into the node; Remove reads it only before it frees the node.
    z.Remove(node->member());
    return;
  }
  const Listpack& lp = z.listpack();
  Listpack::Pos p = max ? lp.Prev(lp.Last()) : lp.First();
  ListpackEntry m = lp.Get(p);
  char buf[kMaxInt64Chars + 1];
  std::string_view member = m.is_int ? std::string_view(buf, FormatInt64(m.num, buf)) : m.str;
  reply.Bulk(member);
  ReplyScore(reply, ListpackScore(lp.Get(lp.Next(p))));
  // A string member's view points into the listpack: Remove compares with it while it finds
  // the entry, and only then deletes.
  z.Remove(member);
}

}  // namespace

size_t PopZSetPairs(Database& db, Entry* e, bool max, size_t count, PairShape shape,
                    ReplyBuilder& reply) {
  Mutation m = db.Mutate(e, max ? notice::kZPopMax : notice::kZPopMin);
  ZSetObject& z = ZSetOf(m.value());
  const size_t n = std::min(count, z.size());
  if (shape != PairShape::kBare) reply.Array(shape == PairShape::kFlat ? 2 * n : n);
  for (size_t i = 0; i < n; ++i) {
    if (shape == PairShape::kNested) reply.Array(2);
    PopOne(z, max, reply);
  }
  return n;  // m ends here: one event, and the key goes if it became empty
}

bool ParseMPopArgs(CommandContext& c, size_t numkeys_pos, MPopArgs* out) {
  const auto& args = c.args;
  int64_t numkeys;
  if (!ParseInt64(args[numkeys_pos], &numkeys) || numkeys < 1) {
    c.reply.Error(err::kNumKeysPositive);
    return false;
  }
  // The MIN|MAX word must follow the keys.
  const size_t remaining = args.size() - numkeys_pos - 1;
  if (static_cast<uint64_t>(numkeys) >= remaining) {
    c.reply.Error(err::kSyntax);
    return false;
  }
  out->first_key = numkeys_pos + 1;
  out->num_keys = static_cast<size_t>(numkeys);
  size_t pos = out->first_key + out->num_keys;
  if (EqualsIgnoreCase(args[pos], "min")) {
    out->max = false;
  } else if (EqualsIgnoreCase(args[pos], "max")) {
    out->max = true;
  } else {
    c.reply.Error(err::kSyntax);
    return false;
  }
  out->count = 1;
  bool count_seen = false;
  for (++pos; pos < args.size(); ++pos) {
    if (!count_seen && pos + 1 < args.size() && EqualsIgnoreCase(args[pos], "count")) {
      int64_t count;
      if (!ParseInt64(args[pos + 1], &count) || count < 1) {
        c.reply.Error(err::kCountPositive);
        return false;
      }
      out->count = count;
      count_seen = true;
      ++pos;
      continue;
    }
    c.reply.Error(err::kSyntax);
    return false;
  }
  return true;
}

bool FindPoppableZSet(CommandContext& c, const std::vector<std::string_view>& keys, Entry** out,
                      size_t* index) {
  for (size_t i = 0; i < keys.size(); ++i) {
    Entry* e;
    if (!LookupTyped(c, keys[i], ValueType::kZSet, Access::kWrite, &e)) return false;
    if (e != nullptr) {
      *out = e;
      *index = i;
      return true;
    }
  }
  *out = nullptr;
  return true;
}

namespace {

// ZPOPMIN|ZPOPMAX key [count]
void ZPopCommand(CommandContext& c, bool max) {
  int64_t count = 1;
  const bool count_given = c.args.size() == 3;
  if (c.args.size() > 3) {
    c.reply.Error(err::kSyntax);
    return;
  }
  if (count_given && (!ParseInt64(c.args[2], &count) || count < 0)) {
    c.reply.Error(err::kNotPositive);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kWrite, &e)) return;
  if (e == nullptr || count == 0) {
    c.reply.EmptyArray();
    return;
  }
  // With a count RESP3 nests the pairs; without one the single pair is flat in both.
  const PairShape shape =
      count_given && c.reply.resp() >= 3 ? PairShape::kNested : PairShape::kFlat;
  PopZSetPairs(c.db, e, max, static_cast<size_t>(count), shape, c.reply);
}

void ZPopMinCommand(CommandContext& c) { ZPopCommand(c, false); }
void ZPopMaxCommand(CommandContext& c) { ZPopCommand(c, true); }

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
void ZMPopCommand(CommandContext& c) {
  MPopArgs a;
  if (!ParseMPopArgs(c, 1, &a)) return;
  std::vector<std::string_view> keys(
      c.args.begin() + static_cast<ptrdiff_t>(a.first_key),
      c.args.begin() + static_cast<ptrdiff_t>(a.first_key + a.num_keys));
  Entry* e;
  size_t index;
  if (!FindPoppableZSet(c, keys, &e, &index)) return;
  if (e == nullptr) {
    c.reply.NullArray();
    return;
  }
  std::string_view key = keys[index];
  c.reply.Array(2);
  c.reply.Bulk(key);
  const size_t popped =
      PopZSetPairs(c.db, e, a.max, static_cast<size_t>(a.count), PairShape::kNested, c.reply);
  char n[kMaxInt64Chars + 1];
  c.ReplicateAs({a.max ? "ZPOPMAX" : "ZPOPMIN", key, std::string_view(n, FormatInt64(popped, n))});
}

}  // namespace

using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;

void RegisterZSetPopCommands(CommandTable& t) {
  const char* kPopComplexity =
      "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number "
      "of elements popped.";
  t.Register({.name = "zpopmin",
              .arity = -2,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclSortedSet | kAclFast,
              .doc = {.summary = "Removes and returns the members with the lowest scores",
                      .since = "5.0.0",
                      .group = "sorted-set",
                      .complexity = kPopComplexity,
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1}},
                      .args = {Key("key", 0), Integer("count").Optional()}},
              .handler = ZPopMinCommand});
  t.Register({.name = "zpopmax",
              .arity = -2,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclSortedSet | kAclFast,
              .doc = {.summary = "Removes and returns the members with the highest scores",
                      .since = "5.0.0",
                      .group = "sorted-set",
                      .complexity = kPopComplexity,
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1}},
                      .args = {Key("key", 0), Integer("count").Optional()}},
              .handler = ZPopMaxCommand});
  t.Register({.name = "zmpop",
              .arity = -4,
              .flags = kCmdWrite,
              .acl = kAclWrite | kAclSortedSet | kAclSlow,
              .doc = {.summary = "Removes and returns members from the first non-empty sorted set "
                                 "of the keys given",
                      .since = "7.0.0",
                      .group = "sorted-set",
                      .complexity = kMPopComplexity,
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete,
                                     .index = 1,
                                     .find = KeyFind::kKeynum,
                                     .key_step = 1,
                                     .keynum_index = 0,
                                     .first_key = 1}},
                      .find_keys = KeysAfterCount<1>,
                      .args = MPopArgDocs()},
              .handler = ZMPopCommand});
}

std::vector<ArgDoc> MPopArgDocs() {
  return {Integer("numkeys"), Key("key", 0).Multiple(),
          OneOf("where", {PureToken("MIN"), PureToken("MAX")}),
          Integer("count").Token("COUNT").Optional()};
}

}  // namespace redistp
