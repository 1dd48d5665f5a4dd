// Pops from a sorted set's ends, shared by ZPOPMIN/ZPOPMAX/ZMPOP (zset_pop.cc) and their
// blocking forms BZPOPMIN/BZPOPMAX/BZMPOP (zset_blocking.cc), and the sorted-set operations'
// keyspace notices (those of the core are in zset_util.h).
//
// Model. A pop is one in-place edit of an existing sorted set: one Mutation whose end emits one
// kModified event with the "zpopmin"/"zpopmax" notice (and deletes the key, with its "del",
// when the last member went), exactly as Redis 7.0 announces ZPOPMIN, ZMPOP and a served
// BZPOPMIN. Members leave from the low end (MIN: ascending (score, member) order) or the high
// end (MAX: descending), each written to the reply as it goes, so no member is copied.
#pragma once

#include <cstddef>
#include <cstdint>

#include "db/database.h"
#include "db/keyspace_events.h"
#include "protocol/reply_builder.h"

namespace redistp {

// Keyspace-notification names of the sorted-set pops and set operations (Redis 7.0's).
namespace notice {
inline constexpr KeyNotice kZPopMin{kNotifyZset, "zpopmin"};
inline constexpr KeyNotice kZPopMax{kNotifyZset, "zpopmax"};
inline constexpr KeyNotice kZUnionStore{kNotifyZset, "zunionstore"};
inline constexpr KeyNotice kZInterStore{kNotifyZset, "zinterstore"};
inline constexpr KeyNotice kZDiffStore{kNotifyZset, "zdiffstore"};
}  // namespace notice

// How popped pairs are written: kFlat as member, score, member, score ... in one array of 2n
// items; kNested as an array of n [member, score] arrays; kBare as member, score ... with no
// array around them (BZPOPMIN's [key, member, score], where the caller writes the array).
enum class PairShape : uint8_t { kFlat, kNested, kBare };

// Pops min(count, size) members of the sorted set at `e` (an existing, non-empty zset key of
// `db`) from the low end (max = false) or the high end, writing the popped pairs in `shape` to
// `reply`. Ends the edit (one event; an emptied key is deleted). Returns how many
// members were popped.
size_t PopZSetPairs(Database& db, Entry* e, bool max, size_t count, PairShape shape,
                    ReplyBuilder& reply);

}  // namespace redistp
