// What the hash command files share: the keyspace-notification names of the hash commands
// (Redis 7.0's) and HRANDFIELD's table row, which hash_random.cc defines and hash.cc registers
// with the rest of the family.
//
// HSET, HSETNX and HMSET all announce "hset"; an HDEL that empties the hash is followed by the
// generic "del", which the database's mutation handle emits.
#pragma once

#include "db/keyspace_events.h"
#include "server/command.h"

namespace redistp {

namespace notice {
inline constexpr KeyNotice kHSet{kNotifyHash, "hset"};
inline constexpr KeyNotice kHDel{kNotifyHash, "hdel"};
inline constexpr KeyNotice kHIncrBy{kNotifyHash, "hincrby"};
inline constexpr KeyNotice kHIncrByFloat{kNotifyHash, "hincrbyfloat"};
// Field expire times set or removed (Redis 7.4; hash_expire.cc).
inline constexpr KeyNotice kHExpire{kNotifyHash, "hexpire"};
inline constexpr KeyNotice kHPersist{kNotifyHash, "hpersist"};
}  // namespace notice

// HRANDFIELD's row (hash_random.cc).
CommandSpec HRandFieldSpec();

}  // namespace redistp
