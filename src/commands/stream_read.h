// What XREAD/XREADGROUP's immediate path (stream_read.cc) and its blocking path
// (stream_blocking.cc) share: the test for "something to read", the delivery of new entries to a
// consumer group, and the waiting client's state.
//
// Delivery to a group (ServeGroupNewEntries) is one operation for both paths, so a blocked
// XREADGROUP served after an XADD leaves exactly what the same XREADGROUP run at that moment
// would have left: the consumer created if missing (announced as "xgroup-createconsumer"), its
// seen time set, the group's last id and entries-read advanced past every entry delivered, a
// pending record per entry unless NOACK, and the propagation Redis 7.0 writes for it:
//   XCLAIM <key> <group> <consumer> 0 <id> TIME <ms> RETRYCOUNT <n> FORCE JUSTID LASTID <last>
// per entry made pending; with NOACK, `XGROUP CREATECONSUMER <key> <group> <consumer>` when the
// read created the consumer, and `XGROUP SETID <key> <group> <last> ENTRIESREAD <n>` once when the
// group moved. (The XREADGROUP itself is never propagated: these records replay its effects.)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.h"
#include "protocol/reply_builder.h"
#include "types/stream.h"
#include "watch/blocking.h"

namespace redistp {

class Propagator;
class Server;

namespace notice {
// A group read changes only group state, which Redis 7.0 does not signal as a modification of
// the key (no WATCH abort, no tracking invalidation); it announces only a consumer it created.
inline constexpr KeyNotice kXReadGroupCreateConsumer{kNotifyStream, "xgroup-createconsumer",
                                                     /*signals_modified=*/false};
inline constexpr KeyNotice kXReadGroupState{kNotifyNone, nullptr, /*signals_modified=*/false};
}  // namespace notice

// True when `s` holds a live entry with an id greater than `id` (Redis's "the last valid id is
// greater"): a read after `id` would return something.
bool StreamHasEntryAfter(const StreamObject& s, StreamID id);

// The names a group read was called with (the propagated records carry them as given).
struct GroupReadNames {
  std::string_view key;
  std::string_view group;
  std::string_view consumer;
};

// XREADGROUP `>` on one key: delivers to consumer `names.consumer` of `group` (a group of the
// stream held by `e`, in `db`) the entries after the group's last id, at most `count` (0 = all),
// and writes them as an array of entries. Precondition: StreamHasEntryAfter(group.last_id).
// Changes the key through one Database::Mutate and appends the records described in the essay
// to `prop`. `now_ms` is the command clock (delivery and seen times).
void ServeGroupNewEntries(ReplyBuilder& reply, Database& db, Entry* e, StreamGroup& group,
                          const GroupReadNames& names, uint64_t count, bool noack, int64_t now_ms,
                          Propagator& prop);

// A client waiting in XREAD/XREADGROUP BLOCK.
struct StreamWaitState : BlockState {
  Server* server = nullptr;
  // XREAD: the id each key waits beyond (the first one given when a key repeats; `$` resolved
  // when the client blocked). XREADGROUP reads after the group's last id at serve time instead.
  struct Target {
    std::string key;
    StreamID after;
    // XREADGROUP: the stream's last id when the waiter last looked. Redis wakes stream waiters
    // on XADD (and on the key's deletion), not on XGROUP SETID moving the group back: a group
    // waiter is served only once the last id moved past this.
    StreamID seen_last;
  };
  std::vector<Target> targets;
  uint64_t count = 0;  // 0 = everything new
  bool group_read = false;
  bool noack = false;
  std::string group;
  std::string consumer;
};

// The blocking kinds (stream_blocking.cc): one for XREAD, one for XREADGROUP, since they answer
// a deleted or retyped key differently (XREAD keeps waiting, XREADGROUP gets an error).
BlockKind* StreamReadKind();
BlockKind* StreamGroupReadKind();

}  // namespace redistp
