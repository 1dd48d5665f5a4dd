// Sorted-set commands, part one: adding, scoring, removing members one by one, and counting.
//
//   ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
//   ZINCRBY key increment member        ZADD INCR under another name (shares its parser)
//   ZREM key member [member ...]        ZCARD key
//   ZSCORE key member                   ZMSCORE key member [member ...]
//   ZRANK / ZREVRANK key member [WITHSCORE]     (WITHSCORE from Redis 7.2)
//   ZCOUNT key min max                  ZLEXCOUNT key min max
//
// ZADD's model (Redis 7.0's zaddGenericCommand and zsetAdd). Options come first; then the
// pairs, which must be a non-empty even count ("syntax error"); then the option conflicts (NX
// with XX; GT, LT and NX among themselves; INCR with more than one pair); then every score is
// parsed before anything changes, so a bad score leaves the set untouched. A missing key with
// XX is a no-op; otherwise a missing key becomes a new set, built fully before it is added
// (its encoding chosen from its first member, as Redis does). Per member:
//   - absent: added unless XX;
//   - present: NX leaves it; INCR adds the old score (a NaN sum is "resulting score is not a
//     number (NaN)"); GT/LT leave it unless the new score is greater/less; an equal score is
//     no change.
// The reply is the number added (added + updated with CH), or with INCR the new score, nil when
// the options skipped the member. ZINCRBY parses its arguments with the same loop, so an
// increment spelled "nx" is read as an option, as in Redis.
//
// Every write is one Mutation (or one Add) with the "zadd"/"zincr"/"zrem" notice, abandoned when
// nothing changed; a set emptied by ZREM is deleted by the Mutation's end.
#include "types/zset.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/zset_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

enum ZAddFlag : unsigned {
  kZAddNx = 1 << 0,
  kZAddXx = 1 << 1,
  kZAddGt = 1 << 2,
  kZAddLt = 1 << 3,
  kZAddCh = 1 << 4,
  kZAddIncr = 1 << 5,
};

// What one zsetAdd step did.
enum class AddOutcome : uint8_t { kAdded, kUpdated, kUnchanged, kSkipped, kNaN };

// Applies one (score, member) pair under `flags` to `z` with a single lookup; *final_score
// receives the member's score afterwards (meaningful unless kSkipped/kNaN). kUnchanged still
// counts as processed (ZADD INCR replies the score).
AddOutcome AddOne(ZSetObject& z, std::string_view member, double score, unsigned flags,
                  const TypeLimits& limits, double* final_score) {
  AddOutcome out = AddOutcome::kSkipped;
  z.Upsert(member, limits, [&](const double* current) -> std::optional<double> {
    if (current == nullptr) {
      if (flags & kZAddXx) return std::nullopt;
      out = AddOutcome::kAdded;
      *final_score = score;
      return score;
    }
    if (flags & kZAddNx) return std::nullopt;
    double s = score;
    if (flags & kZAddIncr) {
      s += *current;
      if (std::isnan(s)) {
        out = AddOutcome::kNaN;
        return std::nullopt;
      }
    }
    if (((flags & kZAddLt) && s >= *current) || ((flags & kZAddGt) && s <= *current)) {
      return std::nullopt;
    }
    out = s == *current ? AddOutcome::kUnchanged : AddOutcome::kUpdated;
    *final_score = s;
    return s;
  });
  return out;
}

// Parses "nx", "xx" ... from args[2] on; returns the index of the first score.
size_t ParseZAddOptions(const std::vector<std::string_view>& args, unsigned* flags) {
  size_t i = 2;
  for (; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (EqualsIgnoreCase(a, "nx")) {
      *flags |= kZAddNx;
    } else if (EqualsIgnoreCase(a, "xx")) {
      *flags |= kZAddXx;
    } else if (EqualsIgnoreCase(a, "gt")) {
      *flags |= kZAddGt;
    } else if (EqualsIgnoreCase(a, "lt")) {
      *flags |= kZAddLt;
    } else if (EqualsIgnoreCase(a, "ch")) {
      *flags |= kZAddCh;
    } else if (EqualsIgnoreCase(a, "incr")) {
      *flags |= kZAddIncr;
    } else {
      break;
    }
  }
  return i;
}

// ZADD and ZINCRBY (flags = kZAddIncr).
void ZAddGeneric(CommandContext& c, unsigned flags) {
  const std::vector<std::string_view>& args = c.args;
  const size_t first = ParseZAddOptions(args, &flags);
  size_t pairs = args.size() - first;
  if (pairs == 0 || pairs % 2 != 0) {
    c.reply.Error(err::kSyntax);
    return;
  }
  pairs /= 2;
  const bool nx = flags & kZAddNx, xx = flags & kZAddXx, gt = flags & kZAddGt, lt = flags & kZAddLt,
             incr = flags & kZAddIncr;
  if (nx && xx) {
    c.reply.Error(err::kZAddXxNx);
    return;
  }
  if ((gt && nx) || (lt && nx) || (gt && lt)) {
    c.reply.Error(err::kZAddGtLtNx);
    return;
  }
  if (incr && pairs > 1) {
    c.reply.Error(err::kZAddIncrPairs);
    return;
  }
  // All scores first: the command changes everything or nothing. Small batches stay on the
  // stack.
  double small[16];
  std::vector<double> big;
  double* scores = small;
  if (pairs > std::size(small)) {
    big.resize(pairs);
    scores = big.data();
  }
  for (size_t j = 0; j < pairs; ++j) {
    if (!ParseScore(args[first + 2 * j], &scores[j])) {
      c.reply.Error(err::kNotFloat);
      return;
    }
  }

  Entry* e;
  if (!LookupTyped(c, args[1], ValueType::kZSet, Access::kWrite, &e)) return;
  const TypeLimits& limits = c.server.keyspace().limits;
  const KeyNotice notice = incr ? notice::kZIncr : notice::kZAdd;
  size_t added = 0, updated = 0, processed = 0;
  double score = 0;
  // Applies every pair to z; false (after replying) on a NaN increment, which can only be the
  // single INCR pair, so nothing has changed then.
  auto apply = [&](ZSetObject& z) {
    for (size_t j = 0; j < pairs; ++j) {
      switch (AddOne(z, args[first + 2 * j + 1], scores[j], flags, limits, &score)) {
        case AddOutcome::kAdded:
          ++added;
          ++processed;
          break;
        case AddOutcome::kUpdated:
          ++updated;
          ++processed;
          break;
        case AddOutcome::kUnchanged:
          ++processed;
          break;
        case AddOutcome::kSkipped:
          break;
        case AddOutcome::kNaN:
          c.reply.Error(err::kZAddNaN);
          return false;
      }
    }
    return true;
  };
  if (e == nullptr) {
    if (!xx) {
      Value v = NewZSetValue(args[first + 1], limits);
      if (!apply(ZSetOf(v))) return;
      c.db.Add(args[1], std::move(v), notice);
    }
  } else {
    Mutation m = c.db.Mutate(e, notice);
    bool ok = apply(ZSetOf(m.value()));
    if (added + updated == 0) m.Abandon();
    if (!ok) return;
  }
  if (incr) {
    if (processed > 0) {
      ReplyScore(c.reply, score);
    } else {
      c.reply.Null();
    }
    return;
  }
  c.reply.Int(static_cast<int64_t>((flags & kZAddCh) ? added + updated : added));
}

void ZAddCommand(CommandContext& c) { ZAddGeneric(c, 0); }
void ZIncrByCommand(CommandContext& c) { ZAddGeneric(c, kZAddIncr); }

// ZREM key member...: replies how many members went.
void ZRemCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Int(0);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kZRem);
  ZSetObject& z = ZSetOf(m.value());
  int64_t deleted = 0;
  for (size_t i = 2; i < c.args.size() && z.size() > 0; ++i) {
    if (z.Remove(c.args[i])) ++deleted;
  }
  if (deleted == 0) m.Abandon();
  c.reply.Int(deleted);
}

void ZCardCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  c.reply.Int(e == nullptr ? 0 : static_cast<int64_t>(ZSetOf(e->value).size()));
}

void ZScoreCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  std::optional<double> s;
  if (e != nullptr) s = ZSetOf(e->value).Score(c.args[2]);
  if (s) {
    ReplyScore(c.reply, *s);
  } else {
    c.reply.Null();
  }
}

void ZMScoreCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  c.reply.Array(c.args.size() - 2);
  for (size_t i = 2; i < c.args.size(); ++i) {
    std::optional<double> s;
    if (e != nullptr) s = ZSetOf(e->value).Score(c.args[i]);
    if (s) {
      ReplyScore(c.reply, *s);
    } else {
      c.reply.Null();
    }
  }
}

// ZRANK / ZREVRANK key member [WITHSCORE]. WITHSCORE (Redis 7.2) answers [rank, score], and a
// missing key or member as a null array (RESP2 *-1) instead of a null bulk. The rows keep Redis
// 7.0's arity 3 and widen it to this one four-word shape (ZRankWithScore), so any other fourth
// word, or a fifth, gets 7.0's arity error at admission (7.2 says "syntax error" to the former).
bool ZRankWithScore(const std::vector<std::string_view>& args) {
  return args.size() == 4 && EqualsIgnoreCase(args[3], "withscore");
}

void ZRankGeneric(CommandContext& c, bool reverse) {
  const bool with_score = c.args.size() == 4;  // admission let only WITHSCORE through
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  std::optional<size_t> rank;
  if (e != nullptr) rank = ZSetOf(e->value).Rank(c.args[2], reverse);
  if (!rank) {
    if (with_score) {
      c.reply.NullArray();
    } else {
      c.reply.Null();
    }
    return;
  }
  if (!with_score) {
    c.reply.Int(static_cast<int64_t>(*rank));
    return;
  }
  c.reply.Array(2);
  c.reply.Int(static_cast<int64_t>(*rank));
  ReplyScore(c.reply, ZSetOf(e->value).Score(c.args[2]).value_or(0));
}

void ZRankCommand(CommandContext& c) { ZRankGeneric(c, false); }
void ZRevRankCommand(CommandContext& c) { ZRankGeneric(c, true); }

// ZCOUNT / ZLEXCOUNT: the range is parsed before the key is looked at.
void ZCountCommand(CommandContext& c) {
  ScoreRange r;
  if (!ParseScoreRange(c.args[2], c.args[3], &r)) {
    c.reply.Error(err::kZMinMaxNotFloat);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  c.reply.Int(e == nullptr ? 0 : static_cast<int64_t>(ZSetOf(e->value).Count(r)));
}

void ZLexCountCommand(CommandContext& c) {
  LexRange r;
  if (!ParseLexRange(c.args[2], c.args[3], &r)) {
    c.reply.Error(err::kZMinMaxNotLex);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  c.reply.Int(e == nullptr ? 0 : static_cast<int64_t>(ZSetOf(e->value).Count(r)));
}

}  // namespace

using docs::Block;
using docs::Double;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;

void RegisterZSetCommands(CommandTable& t) {
  constexpr uint64_t kReadFlags = kCmdReadOnly | kCmdFast;
  constexpr uint64_t kReadAcl = kAclRead | kAclSortedSet | kAclFast;
  const KeySpec ro_access{.flags = kKeyRO | kKeyAccess, .index = 1};
  t.Register(
      {.name = "zadd",
       .arity = -4,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclSortedSet | kAclFast,
       .doc =
           {.summary = "Adds members with scores to a sorted set, or updates their scores",
            .since = "1.2.0",
            .group = "sorted-set",
            .complexity = "O(log(N)) for each item added, where N is the number of elements in the "
                          "sorted set.",
            .history = {{"2.4.0", "Several score-member pairs per call."},
                        {"3.0.2", "The `XX`, `NX`, `CH` and `INCR` options."},
                        {"6.2.0", "The `GT` and `LT` options."}},
            .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
            .args =
                {Key("key", 0),
                 OneOf("condition", {PureToken("NX"), PureToken("XX")}).Since("3.0.2").Optional(),
                 OneOf("comparison", {PureToken("GT"), PureToken("LT")}).Since("6.2.0").Optional(),
                 PureToken("CH").Named("change").Since("3.0.2").Optional(),
                 PureToken("INCR").Named("increment").Since("3.0.2").Optional(),
                 Block("score_member", {Double("score"), String("member")}).Multiple()}},
       .handler = ZAddCommand});
  t.Register(
      {.name = "zincrby",
       .arity = 4,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclSortedSet | kAclFast,
       .doc = {.summary = "Adds an amount to the score of a sorted-set member",
               .since = "1.2.0",
               .group = "sorted-set",
               .complexity = "O(log(N)) where N is the number of elements in the sorted set.",
               .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
               .args = {Key("key", 0), Integer("increment"), String("member")}},
       .handler = ZIncrByCommand});
  t.Register({.name = "zrem",
              .arity = -3,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclSortedSet | kAclFast,
              .doc = {.summary = "Removes members from a sorted set",
                      .since = "1.2.0",
                      .group = "sorted-set",
                      .complexity =
                          "O(M*log(N)) with N being the number of elements in the sorted set and "
                          "M the number of elements to be removed.",
                      .history = {{"2.4.0", "Several members per call."}},
                      .key_specs = {{.flags = kKeyRW | kKeyDelete, .index = 1}},
                      .args = {Key("key", 0), String("member").Multiple()}},
              .handler = ZRemCommand});
  t.Register({.name = "zcard",
              .arity = 2,
              .flags = kReadFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Counts the members of a sorted set",
                      .since = "1.2.0",
                      .group = "sorted-set",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = ZCardCommand});
  t.Register({.name = "zcount",
              .arity = 4,
              .flags = kReadFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Counts the sorted-set members whose scores lie in a range",
                      .since = "2.0.0",
                      .group = "sorted-set",
                      .complexity = "O(log(N)) with N being the number of elements in the sorted "
                                    "set.",
                      .key_specs = {ro_access},
                      .args = {Key("key", 0), Double("min"), Double("max")}},
              .handler = ZCountCommand});
  t.Register({.name = "zlexcount",
              .arity = 4,
              .flags = kReadFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Counts the sorted-set members that lie in a lexicographical "
                                 "range",
                      .since = "2.8.9",
                      .group = "sorted-set",
                      .complexity = "O(log(N)) with N being the number of elements in the sorted "
                                    "set.",
                      .key_specs = {ro_access},
                      .args = {Key("key", 0), String("min"), String("max")}},
              .handler = ZLexCountCommand});
  t.Register({.name = "zscore",
              .arity = 3,
              .flags = kReadFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Returns the score of a sorted-set member",
                      .since = "1.2.0",
                      .group = "sorted-set",
                      .complexity = "O(1)",
                      .key_specs = {ro_access},
                      .args = {Key("key", 0), String("member")}},
              .handler = ZScoreCommand});
  t.Register({.name = "zmscore",
              .arity = -3,
              .flags = kReadFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Returns the scores of several sorted-set members",
                      .since = "6.2.0",
                      .group = "sorted-set",
                      .complexity = "O(N) where N is the number of members being requested.",
                      .key_specs = {ro_access},
                      .args = {Key("key", 0), String("member").Multiple()}},
              .handler = ZMScoreCommand});
  t.Register({.name = "zrank",
              .arity = 3,
              .widen_arity = ZRankWithScore,
              .flags = kReadFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Returns the position of a member in a sorted set, lowest first",
                      .since = "2.0.0",
                      .group = "sorted-set",
                      .complexity = "O(log(N))",
                      .history = {{"7.2.0", "WITHSCORE was added."}},
                      .key_specs = {ro_access},
                      .args = {Key("key", 0), String("member"),
                               PureToken("WITHSCORE").Since("7.2.0").Optional()}},
              .handler = ZRankCommand});
  t.Register({.name = "zrevrank",
              .arity = 3,
              .widen_arity = ZRankWithScore,
              .flags = kReadFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Returns the position of a member in a sorted set, highest first",
                      .since = "2.0.0",
                      .group = "sorted-set",
                      .complexity = "O(log(N))",
                      .history = {{"7.2.0", "WITHSCORE was added."}},
                      .key_specs = {ro_access},
                      .args = {Key("key", 0), String("member"),
                               PureToken("WITHSCORE").Since("7.2.0").Optional()}},
              .handler = ZRevRankCommand});
  RegisterZSetRangeCommands(t);
}

}  // namespace redistp
