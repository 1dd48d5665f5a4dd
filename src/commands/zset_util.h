// Shared pieces of the sorted-set commands (zset.cc, zset_range.cc, and the ZPOP/ZUNION family):
// score parsing, range parsing, rank normalisation, score replies and the keyspace notices.
//
// Two score grammars, as in Redis 7.0:
//   - a score argument (ZADD, ZINCRBY, weights): the whole text is a double, no leading space,
//     no NaN, no overflow to infinity ("inf", "+inf", "-inf" are fine); else "value is not a
//     valid float";
//   - a range end (ZRANGEBYSCORE, ZCOUNT ...): "(" marks it exclusive, then plain strtod up to
//     the end of the text (so "" and "(" read as 0 and "1e999" as inf); NaN refused; else "min
//     or max is not a float".
// A lex range end is "-", "+", "[bytes" or "(bytes"; anything else is "min or max not valid
// string range item". Parsed ranges hold views into the arguments, which outlive the command.
//
// Score replies follow Redis 7.0's addReplyDouble: RESP2 bulk strings in "%.17g" form, RESP3
// doubles with the same digits, "inf"/"-inf" for infinities; no heap allocation per score.
// A WITHSCORES range is a flat array [m1, s1, m2, s2 ...] in RESP2 and an array of [member,
// score] pairs in RESP3 (ZRANGE, ZRANDMEMBER, ZUNION ... WITHSCORES).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "db/keyspace_events.h"
#include "protocol/reply_builder.h"
#include "types/skiplist.h"

namespace redistp {

// Keyspace-notification names of the sorted-set core (Redis 7.0's).
namespace notice {
inline constexpr KeyNotice kZAdd{kNotifyZset, "zadd"};
inline constexpr KeyNotice kZIncr{kNotifyZset, "zincr"};
inline constexpr KeyNotice kZRem{kNotifyZset, "zrem"};
inline constexpr KeyNotice kZRemRangeByRank{kNotifyZset, "zremrangebyrank"};
inline constexpr KeyNotice kZRemRangeByScore{kNotifyZset, "zremrangebyscore"};
inline constexpr KeyNotice kZRemRangeByLex{kNotifyZset, "zremrangebylex"};
inline constexpr KeyNotice kZRangeStore{kNotifyZset, "zrangestore"};
}  // namespace notice

// A score argument (ZADD's grammar above). False when it is not one.
bool ParseScore(std::string_view text, double* out);
// A score range from its two ends; false when either is not valid.
bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange* out);
// A lex range from its two ends; false when either is not valid.
bool ParseLexRange(std::string_view min, std::string_view max, LexRange* out);

// Redis's rank clamping for ZRANGE/ZREMRANGEBYRANK: negative indexes count from the end; the
// result is the inclusive span [start, end] inside [0, len), or false when it is empty.
bool NormalizeRanks(int64_t start, int64_t end, size_t len, size_t* from, size_t* to);

// One score as Redis 7.0 replies it (see above).
void ReplyScore(ReplyBuilder& reply, double score);
// The header of a range reply of `count` members, with or without scores.
void ReplyRangeHeader(ReplyBuilder& reply, size_t count, bool withscores);
// One member of such a reply (a [member, score] pair in RESP3 when withscores).
void ReplyRangeItem(ReplyBuilder& reply, std::string_view member, double score, bool withscores);
// For a range whose length is known only at the end: DeferRange() before the members,
// EndRange(handle, count, withscores) after them.
size_t DeferRange(ReplyBuilder& reply);
void EndRange(ReplyBuilder& reply, size_t handle, size_t count, bool withscores);

// The range half of the family (zset_range.cc); RegisterZSetCommands calls it.
class CommandTable;
void RegisterZSetRangeCommands(CommandTable& table);

}  // namespace redistp
