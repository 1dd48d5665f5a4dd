// The typed lookup every command handler uses, and the notices of the string family.
//
// Database::Lookup answers the entry of a key holding the asked type, nullptr when the key does
// not exist, or that it holds another type; LookupTyped replies WRONGTYPE then, so a handler
// writes
//
//   Entry* e;
//   if (!LookupTyped(c, key, ValueType::kString, Access::kWrite, &e)) return;
//
// and never checks a value's type by hand. A hash lookup also reclaims the hash's expired fields
// (Database::ExpireFields), so no hash command sees a field past its time.
#pragma once

#include <string_view>

#include "db/database.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/command.h"

namespace redistp {

// On success stores the entry (nullptr when absent) and returns true; on WRONGTYPE replies the
// error and returns false.
inline bool LookupTyped(CommandContext& c, std::string_view key, ValueType type, Access access,
                        Entry** out) {
  Database::Typed r = c.db.Lookup(key, type, access);
  if (r.wrong_type) {
    c.reply.Error(err::kWrongType);
    return false;
  }
  // A hash with field expire times first loses the fields past due (lazy field expiry), and
  // reads as absent if that was all of them.
  if (type == ValueType::kHash && r.entry != nullptr && r.entry->has_flag(Entry::kFlagFieldTtl) &&
      !c.db.ExpireFields(r.entry)) {
    r.entry = nullptr;
  }
  *out = r.entry;
  return true;
}

// Keyspace-notification names of the string and bitmap commands (Redis 7.0's).
namespace notice {
inline constexpr KeyNotice kAppend{kNotifyString, "append"};
inline constexpr KeyNotice kSetRange{kNotifyString, "setrange"};
// INCR, INCRBY, DECR and DECRBY are all announced as "incrby" (Redis 7.0 has one handler).
inline constexpr KeyNotice kIncrBy{kNotifyString, "incrby"};
inline constexpr KeyNotice kIncrByFloat{kNotifyString, "incrbyfloat"};
inline constexpr KeyNotice kSetBit{kNotifyString, "setbit"};
}  // namespace notice

}  // namespace redistp
