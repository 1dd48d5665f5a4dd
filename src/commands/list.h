// The list family's shared pieces: its keyspace-notification names, and the few list edits that
// both the plain commands (list.cc, list_edit.cc) and the blocking ones (list_blocking.cc) make.
//
// Every function here works on a Database and a ReplyBuilder, never on a connection, so a
// blocked client's waiter can be served with exactly the code its non-blocking twin runs: a
// served BLPOP is the LPOP it became, a served BLMOVE the LMOVE.
//
// Elements are replied straight from the quicklist (an integer entry formatted on the stack),
// before the element is deleted, so popping allocates nothing per element.
#pragma once

#include <cstdint>
#include <string_view>

#include "db/database.h"
#include "db/keyspace_events.h"
#include "protocol/reply_builder.h"
#include "server/command.h"
#include "types/listpack.h"
#include "types/quicklist.h"
#include "types/type_limits.h"

namespace redistp {

// Keyspace-notification names of the list commands (Redis 7.0's). LMOVE/RPOPLPUSH and the
// served BLMOVE announce a pop on the source and a push on the destination; an emptied list is
// announced as "del" by the Mutation itself.
namespace notice {
inline constexpr KeyNotice kLPush{kNotifyList, "lpush"};
inline constexpr KeyNotice kRPush{kNotifyList, "rpush"};
inline constexpr KeyNotice kLPop{kNotifyList, "lpop"};
inline constexpr KeyNotice kRPop{kNotifyList, "rpop"};
inline constexpr KeyNotice kLInsert{kNotifyList, "linsert"};
inline constexpr KeyNotice kLSet{kNotifyList, "lset"};
inline constexpr KeyNotice kLTrim{kNotifyList, "ltrim"};
inline constexpr KeyNotice kLRem{kNotifyList, "lrem"};
}  // namespace notice

// Which end of a list an operation works on.
enum class ListEnd : uint8_t { kHead, kTail };

inline KeyNotice PushNotice(ListEnd end) {
  return end == ListEnd::kHead ? notice::kLPush : notice::kRPush;
}
inline KeyNotice PopNotice(ListEnd end) {
  return end == ListEnd::kHead ? notice::kLPop : notice::kRPop;
}
// "LEFT" / "RIGHT" (LMOVE's and LMPOP's words, used when a command is propagated).
inline std::string_view EndWord(ListEnd end) { return end == ListEnd::kHead ? "LEFT" : "RIGHT"; }

// Parses LEFT / RIGHT (any case); false for anything else.
bool ParseListEnd(std::string_view arg, ListEnd* end);

// Replies one element as a bulk string (integers formatted without allocating).
void ReplyListEntry(ReplyBuilder& reply, const ListpackEntry& entry);

// Pushes `value` at `end` of the list at `key`, creating the list (with the configured fill and
// compression) when `e` is null. One key event with the end's notice.
void ListPushOne(Database& db, Entry* e, std::string_view key, std::string_view value, ListEnd end,
                 const TypeLimits& limits);

// Pops min(count, length) elements from `end` of the existing list `e`, replying them as an
// array in pop order (one kModified event with the pop notice; the key is deleted if emptied).
// Precondition: e holds a non-empty list and count > 0.
void ListPopReply(Database& db, Entry* e, ListEnd end, int64_t count, ReplyBuilder& reply);

// LMPOP's reply for one key: [key, [elements...]] (two-element array), popping as above.
void ListPopReplyWithKey(Database& db, Entry* e, std::string_view key, ListEnd end, int64_t count,
                         ReplyBuilder& reply);

// LMOVE's edit: pops from `from` of the existing non-empty list `src` and pushes the element at
// `to` of the list at `dst_key` (`dst` is its entry, null when absent; it may be src itself).
// Replies the moved element. Events in Redis's order: the destination's push, then the
// source's pop (and its "del" if emptied). When both are one key, the element is moved inside
// one list and the two notices follow each other.
void ListMoveReply(Database& db, Entry* src, std::string_view dst_key, Entry* dst, ListEnd from,
                   ListEnd to, const TypeLimits& limits, ReplyBuilder& reply);

// The list-family registrations that list.cc's RegisterListCommands calls.
void RegisterListEditCommands(CommandTable& t);
void RegisterListBlockingCommands(CommandTable& t);

}  // namespace redistp
