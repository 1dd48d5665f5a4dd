// Sorted-set commands, part two: ranges by rank, score and lex, read, stored or removed.
//
//   ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
//   ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]
//   ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX   (the older forms)
//   ZREMRANGEBYRANK / ZREMRANGEBYSCORE / ZREMRANGEBYLEX key min max
//
// One parser serves every read form (Redis 7.0's zrangeGenericCommand): an older form fixes the
// kind (rank, score, lex) and/or the direction, so its own words (BYSCORE, REV) are syntax
// errors there, while ZRANGE and ZRANGESTORE accept them. The checks run in Redis's order:
// options (LIMIT needs two more arguments and two integers), then "LIMIT is only supported
// ..." (a LIMIT other than count -1 on a rank range), then "WITHSCORES not supported ..." (on a
// lex range), then the two range ends (with REV a score or lex range is given max first), and
// only then the key: a missing key is an empty reply, another type WRONGTYPE.
//
// Ranks follow Redis's clamping (NormalizeRanks). A score or lex range skips `offset` members
// (a negative offset yields nothing, as in Redis, which walks it down past the end) and returns
// at most `count` (a negative count means all). On a skiplist every walk starts with an
// O(log N) search and the offset is jumped by rank, so a page costs O(log N + M).
//
// ZRANGESTORE builds the destination fully, as a new set whose encoding follows from its
// members exactly as ZADD's would (except that a rank range longer than the listpack limit
// starts as a skiplist, as Redis sizes it up front), then writes it over dst (any type, TTL
// cleared, notice "zrangestore"); an empty result deletes dst instead. The source may be the
// destination. ZREMRANGEBY* remove through one Mutation ("zremrangebyrank" ...), which deletes an
// emptied key.
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/lookup.h"
#include "commands/zset_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "types/zset.h"
#include "util/numbers.h"

namespace redistp {
namespace {

enum class RangeKind : uint8_t { kAuto, kRank, kScore, kLex };
enum class Direction : uint8_t { kAuto, kForward, kReverse };

// A parsed range request.
struct RangeRequest {
  RangeKind kind = RangeKind::kAuto;
  bool reverse = false;
  bool withscores = false;
  int64_t offset = 0;
  int64_t limit = -1;
  int64_t start = 0, end = 0;  // kRank
  ScoreRange score{};          // kScore
  LexRange lex{};              // kLex
};

// Parses args[key + 1 ...] into *req; replies the error and returns false when invalid.
bool ParseRangeRequest(CommandContext& c, size_t key, bool store, RangeKind kind, Direction dir,
                       RangeRequest* req) {
  const std::vector<std::string_view>& args = c.args;
  for (size_t j = key + 3; j < args.size(); ++j) {
    std::string_view a = args[j];
    const size_t left = args.size() - j - 1;
    if (!store && EqualsIgnoreCase(a, "withscores")) {
      req->withscores = true;
    } else if (EqualsIgnoreCase(a, "limit") && left >= 2) {
      if (!ParseInt64(args[j + 1], &req->offset) || !ParseInt64(args[j + 2], &req->limit)) {
        c.reply.Error(err::kNotInteger);
        return false;
      }
      j += 2;
    } else if (dir == Direction::kAuto && EqualsIgnoreCase(a, "rev")) {
      dir = Direction::kReverse;
    } else if (kind == RangeKind::kAuto && EqualsIgnoreCase(a, "bylex")) {
      kind = RangeKind::kLex;
    } else if (kind == RangeKind::kAuto && EqualsIgnoreCase(a, "byscore")) {
      kind = RangeKind::kScore;
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
  }
  req->kind = kind == RangeKind::kAuto ? RangeKind::kRank : kind;
  req->reverse = dir == Direction::kReverse;
  if (req->limit != -1 && req->kind == RangeKind::kRank) {
    c.reply.Error(err::kZLimitNeedsBy);
    return false;
  }
  if (req->withscores && req->kind == RangeKind::kLex) {
    c.reply.Error(err::kZWithScoresByLex);
    return false;
  }
  std::string_view lo = args[key + 1], hi = args[key + 2];
  if (req->reverse && req->kind != RangeKind::kRank) std::swap(lo, hi);
  switch (req->kind) {
    case RangeKind::kAuto:
    case RangeKind::kRank:
      if (!ParseInt64(lo, &req->start) || !ParseInt64(hi, &req->end)) {
        c.reply.Error(err::kNotInteger);
        return false;
      }
      break;
    case RangeKind::kScore:
      if (!ParseScoreRange(lo, hi, &req->score)) {
        c.reply.Error(err::kZMinMaxNotFloat);
        return false;
      }
      break;
    case RangeKind::kLex:
      if (!ParseLexRange(lo, hi, &req->lex)) {
        c.reply.Error(err::kZMinMaxNotLex);
        return false;
      }
      break;
  }
  return true;
}

// Calls fn(member, score) for every member the request selects from z, in reply order.
template <typename Fn>
void WalkRequest(const ZSetObject& z, const RangeRequest& req, Fn&& fn) {
  if (req.kind == RangeKind::kRank) {
    size_t from, to;
    if (NormalizeRanks(req.start, req.end, z.size(), &from, &to)) {
      z.WalkRanks(from, to, req.reverse, fn);
    }
    return;
  }
  if (req.offset < 0) return;
  const auto offset = static_cast<size_t>(req.offset);
  if (req.kind == RangeKind::kScore) {
    z.WalkRange(req.score, req.reverse, offset, req.limit, fn);
  } else {
    z.WalkRange(req.lex, req.reverse, offset, req.limit, fn);
  }
}

// Replies the selected members of the set at `e` (nullptr: none).
void ReplyRange(CommandContext& c, const Entry* e, const RangeRequest& req) {
  if (e == nullptr) {
    c.reply.EmptyArray();
    return;
  }
  const ZSetObject& z = ZSetOf(e->value);
  const bool ws = req.withscores;
  auto item = [&](std::string_view m, double s) { ReplyRangeItem(c.reply, m, s, ws); };
  if (req.kind == RangeKind::kRank) {
    // The count is known up front.
    size_t from, to;
    if (!NormalizeRanks(req.start, req.end, z.size(), &from, &to)) {
      c.reply.EmptyArray();
      return;
    }
    ReplyRangeHeader(c.reply, to - from + 1, ws);
    z.WalkRanks(from, to, req.reverse, item);
    return;
  }
  size_t handle = DeferRange(c.reply);
  size_t n = 0;
  WalkRequest(z, req, [&](std::string_view m, double s) {
    item(m, s);
    ++n;
  });
  EndRange(c.reply, handle, n, ws);
}

// The read forms: the key is args[1]; kind and direction as the form fixes them.
void ZRangeGeneric(CommandContext& c, RangeKind kind, Direction dir) {
  RangeRequest req;
  if (!ParseRangeRequest(c, 1, false, kind, dir, &req)) return;
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  ReplyRange(c, e, req);
}

void ZRangeCommand(CommandContext& c) { ZRangeGeneric(c, RangeKind::kAuto, Direction::kAuto); }
void ZRevRangeCommand(CommandContext& c) {
  ZRangeGeneric(c, RangeKind::kRank, Direction::kReverse);
}
void ZRangeByScoreCommand(CommandContext& c) {
  ZRangeGeneric(c, RangeKind::kScore, Direction::kForward);
}
void ZRevRangeByScoreCommand(CommandContext& c) {
  ZRangeGeneric(c, RangeKind::kScore, Direction::kReverse);
}
void ZRangeByLexCommand(CommandContext& c) {
  ZRangeGeneric(c, RangeKind::kLex, Direction::kForward);
}
void ZRevRangeByLexCommand(CommandContext& c) {
  ZRangeGeneric(c, RangeKind::kLex, Direction::kReverse);
}

// ZRANGESTORE dst src min max ...: replies the destination's size.
void ZRangeStoreCommand(CommandContext& c) {
  RangeRequest req;
  if (!ParseRangeRequest(c, 2, true, RangeKind::kAuto, Direction::kAuto, &req)) return;
  Entry* src;
  if (!LookupTyped(c, c.args[2], ValueType::kZSet, Access::kRead, &src)) return;
  const TypeLimits& limits = c.server.keyspace().limits;
  // A rank range knows its size before the first member: past the listpack limit Redis makes
  // the destination a skiplist from the start (so a -0 score stays -0), otherwise a listpack
  // that converts as members arrive.
  TypeLimits first_limits = limits;
  size_t from, to;
  if (src != nullptr && req.kind == RangeKind::kRank &&
      NormalizeRanks(req.start, req.end, ZSetOf(src->value).size(), &from, &to) &&
      to - from + 1 > limits.zset_max_listpack_entries) {
    first_limits.zset_max_listpack_entries = 0;
  }
  std::optional<Value> result;
  if (src != nullptr) {
    WalkRequest(ZSetOf(src->value), req, [&](std::string_view m, double s) {
      if (!result) result.emplace(NewZSetValue(m, first_limits));
      ZSetOf(*result).Add(m, s, limits);
    });
  }
  if (result) {
    const size_t n = ZSetOf(*result).size();
    c.db.Upsert(c.args[1], std::move(*result), false, notice::kZRangeStore);
    c.reply.Int(static_cast<int64_t>(n));
    return;
  }
  if (Entry* dst = c.db.LookupWrite(c.args[1])) c.db.Remove(dst, RemoveCause::kDeleted);
  c.reply.Int(0);
}

// ZREMRANGEBYRANK / BYSCORE / BYLEX key min max.
void ZRemRangeGeneric(CommandContext& c, RangeKind kind) {
  RangeRequest req;
  req.kind = kind;
  bool parsed = kind == RangeKind::kRank
                    ? ParseInt64(c.args[2], &req.start) && ParseInt64(c.args[3], &req.end)
                : kind == RangeKind::kScore ? ParseScoreRange(c.args[2], c.args[3], &req.score)
                                            : ParseLexRange(c.args[2], c.args[3], &req.lex);
  if (!parsed) {
    c.reply.Error(kind == RangeKind::kRank    ? err::kNotInteger
                  : kind == RangeKind::kScore ? err::kZMinMaxNotFloat
                                              : err::kZMinMaxNotLex);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Int(0);
    return;
  }
  size_t from = 0, to = 0;
  if (kind == RangeKind::kRank &&
      !NormalizeRanks(req.start, req.end, ZSetOf(e->value).size(), &from, &to)) {
    c.reply.Int(0);
    return;
  }
  Mutation m = c.db.Mutate(e, kind == RangeKind::kRank    ? notice::kZRemRangeByRank
                              : kind == RangeKind::kScore ? notice::kZRemRangeByScore
                                                          : notice::kZRemRangeByLex);
  ZSetObject& z = ZSetOf(m.value());
  size_t removed = kind == RangeKind::kRank    ? z.RemoveRanks(from, to)
                   : kind == RangeKind::kScore ? z.RemoveRange(req.score)
                                               : z.RemoveRange(req.lex);
  if (removed == 0) m.Abandon();
  c.reply.Int(static_cast<int64_t>(removed));
}

void ZRemRangeByRankCommand(CommandContext& c) { ZRemRangeGeneric(c, RangeKind::kRank); }
void ZRemRangeByScoreCommand(CommandContext& c) { ZRemRangeGeneric(c, RangeKind::kScore); }
void ZRemRangeByLexCommand(CommandContext& c) { ZRemRangeGeneric(c, RangeKind::kLex); }

}  // namespace

using docs::Block;
using docs::Double;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;

void RegisterZSetRangeCommands(CommandTable& t) {
  constexpr uint64_t kRead = kAclRead | kAclSortedSet | kAclSlow;
  constexpr uint64_t kWrite = kAclWrite | kAclSortedSet | kAclSlow;
  constexpr std::string_view kPage =
      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
      "elements being returned. If M is constant (e.g. always asking for the first 10 elements "
      "with LIMIT), you can consider it O(log(N)).";
  constexpr std::string_view kRemoved =
      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
      "elements removed by the operation.";
  const KeySpec ro_access{.flags = kKeyRO | kKeyAccess, .index = 1};
  const KeySpec rw_delete{.flags = kKeyRW | kKeyDelete, .index = 1};
  auto limit = [] {
    return Block("offset_count", {Integer("offset"), Integer("count")}).Token("LIMIT").Optional();
  };
  auto read_row = [&](const char* name, CommandDoc doc, CommandHandler h) {
    doc.group = "sorted-set";
    doc.key_specs = {ro_access};
    return CommandSpec{.name = name,
                       .arity = -4,
                       .flags = kCmdReadOnly,
                       .first_key = 1,
                       .last_key = 1,
                       .key_step = 1,
                       .acl = kRead,
                       .doc = std::move(doc),
                       .handler = h};
  };
  auto remove_row = [&](const char* name, CommandDoc doc, CommandHandler h) {
    doc.group = "sorted-set";
    doc.complexity = kRemoved;
    doc.key_specs = {rw_delete};
    return CommandSpec{.name = name,
                       .arity = 4,
                       .flags = kCmdWrite,
                       .first_key = 1,
                       .last_key = 1,
                       .key_step = 1,
                       .acl = kWrite,
                       .doc = std::move(doc),
                       .handler = h};
  };

  t.Register(read_row(
      "zrange",
      {.summary = "Returns members of a sorted set by rank, score or lexicographical range",
       .since = "1.2.0",
       .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M "
                     "the number of elements returned.",
       .history = {{"6.2.0", "The `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options."}},
       .args =
           {Key("key", 0), String("start"), String("stop"),
            OneOf("sortby", {PureToken("BYSCORE"), PureToken("BYLEX")}).Since("6.2.0").Optional(),
            PureToken("REV").Since("6.2.0").Optional(), limit().Since("6.2.0"),
            PureToken("WITHSCORES").Optional()}},
      ZRangeCommand));
  t.Register(
      {.name = "zrangestore",
       .arity = -5,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = 2,
       .key_step = 1,
       .acl = kWrite,
       .doc = {.summary = "Stores a range of a sorted set's members in another key",
               .since = "6.2.0",
               .group = "sorted-set",
               .complexity = "O(log(N)+M) with N being the number of elements in the sorted set "
                             "and M the number of elements stored into the destination key.",
               .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 1},
                             {.flags = kKeyRO | kKeyAccess, .index = 2}},
               .args = {Key("dst", 0), Key("src", 1), String("min"), String("max"),
                        OneOf("sortby", {PureToken("BYSCORE"), PureToken("BYLEX")}).Optional(),
                        PureToken("REV").Optional(), limit()}},
       .handler = ZRangeStoreCommand});
  t.Register(read_row("zrangebyscore",
                      {.summary = "Returns members of a sorted set by score range",
                       .since = "1.0.5",
                       .complexity = kPage,
                       .doc_flags = kDocDeprecated,
                       .deprecated_since = "6.2.0",
                       .replaced_by = "`ZRANGE` with the `BYSCORE` argument",
                       .history = {{"2.0.0", "The `WITHSCORES` option."}},
                       .args = {Key("key", 0), Double("min"), Double("max"),
                                PureToken("WITHSCORES").Since("2.0.0").Optional(), limit()}},
                      ZRangeByScoreCommand));
  t.Register(read_row("zrevrangebyscore",
                      {.summary = "Returns members of a sorted set by score range, highest first",
                       .since = "2.2.0",
                       .complexity = kPage,
                       .doc_flags = kDocDeprecated,
                       .deprecated_since = "6.2.0",
                       .replaced_by = "`ZRANGE` with the `REV` and `BYSCORE` arguments",
                       .history = {{"2.1.6", "Exclusive `min` and `max`."}},
                       .args = {Key("key", 0), Double("max"), Double("min"),
                                PureToken("WITHSCORES").Optional(), limit()}},
                      ZRevRangeByScoreCommand));
  t.Register(read_row("zrangebylex",
                      {.summary = "Returns members of a sorted set by lexicographical range",
                       .since = "2.8.9",
                       .complexity = kPage,
                       .doc_flags = kDocDeprecated,
                       .deprecated_since = "6.2.0",
                       .replaced_by = "`ZRANGE` with the `BYLEX` argument",
                       .args = {Key("key", 0), String("min"), String("max"), limit()}},
                      ZRangeByLexCommand));
  t.Register(read_row(
      "zrevrangebylex",
      {.summary = "Returns members of a sorted set by lexicographical range, highest first",
       .since = "2.8.9",
       .complexity = kPage,
       .doc_flags = kDocDeprecated,
       .deprecated_since = "6.2.0",
       .replaced_by = "`ZRANGE` with the `REV` and `BYLEX` arguments",
       .args = {Key("key", 0), String("max"), String("min"), limit()}},
      ZRevRangeByLexCommand));
  t.Register(read_row(
      "zrevrange",
      {.summary = "Returns members of a sorted set by rank, highest first",
       .since = "1.2.0",
       .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M "
                     "the number of elements returned.",
       .doc_flags = kDocDeprecated,
       .deprecated_since = "6.2.0",
       .replaced_by = "`ZRANGE` with the `REV` argument",
       .args = {Key("key", 0), Integer("start"), Integer("stop"),
                PureToken("WITHSCORES").Optional()}},
      ZRevRangeCommand));
  t.Register(remove_row("zremrangebyrank",
                        {.summary = "Removes the sorted-set members within a range of ranks",
                         .since = "2.0.0",
                         .args = {Key("key", 0), Integer("start"), Integer("stop")}},
                        ZRemRangeByRankCommand));
  t.Register(remove_row("zremrangebyscore",
                        {.summary = "Removes the sorted-set members within a range of scores",
                         .since = "1.2.0",
                         .args = {Key("key", 0), Double("min"), Double("max")}},
                        ZRemRangeByScoreCommand));
  t.Register(remove_row("zremrangebylex",
                        {.summary = "Removes the sorted-set members within a lexicographical range",
                         .since = "2.8.9",
                         .args = {Key("key", 0), String("min"), String("max")}},
                        ZRemRangeByLexCommand));
}

}  // namespace redistp
