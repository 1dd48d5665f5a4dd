// The set family's keyspace-notification names (Redis 7.0's), shared by set.cc (SADD ...
// SMOVE) and set_ops.cc (SINTERSTORE, SUNIONSTORE, SDIFFSTORE).
//
// An emptied set's "del" is not here: the Mutation that empties a set deletes the key and
// names it (db/database.h); a *STORE with an empty result deletes its destination with
// Database::Remove's default notice, "del" too.
#pragma once

#include "db/keyspace_events.h"

namespace redistp::notice {

inline constexpr KeyNotice kSAdd{kNotifySet, "sadd"};
inline constexpr KeyNotice kSRem{kNotifySet, "srem"};
inline constexpr KeyNotice kSPop{kNotifySet, "spop"};
inline constexpr KeyNotice kSInterStore{kNotifySet, "sinterstore"};
inline constexpr KeyNotice kSUnionStore{kNotifySet, "sunionstore"};
inline constexpr KeyNotice kSDiffStore{kNotifySet, "sdiffstore"};

}  // namespace redistp::notice
