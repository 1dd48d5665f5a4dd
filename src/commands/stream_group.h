// What the consumer-group commands share (stream_group.cc: XGROUP, XACK, XPENDING;
// stream_claim.cc: XCLAIM, XAUTOCLAIM): their keyspace-notification names, the lookup of a
// key's group with the NOGROUP reply of XPENDING/XCLAIM/XAUTOCLAIM, and the parsing of an
// interval end that may be exclusive ("(<id>").
#pragma once

#include <cstdint>
#include <string_view>

#include "db/database.h"
#include "db/keyspace_events.h"
#include "server/command.h"
#include "types/stream.h"

namespace redistp {

// Redis 7.0's names for consumer-group changes (class t). XACK and XCLAIM changes that create
// no consumer are not announced at all (kStreamGroupState). None of them is a modification for
// WATCH or client-side caching (signals_modified false: Redis calls no signalModifiedKey for
// group state); XGROUP CREATE MKSTREAM's new key is an addition, which WATCH does see.
namespace notice {
inline constexpr KeyNotice kXGroupCreate{kNotifyStream, "xgroup-create", false};
inline constexpr KeyNotice kXGroupSetId{kNotifyStream, "xgroup-setid", false};
inline constexpr KeyNotice kXGroupDestroy{kNotifyStream, "xgroup-destroy", false};
inline constexpr KeyNotice kXGroupCreateConsumer{kNotifyStream, "xgroup-createconsumer", false};
inline constexpr KeyNotice kXGroupDelConsumer{kNotifyStream, "xgroup-delconsumer", false};
inline constexpr KeyNotice kStreamGroupState{kNotifyNone, nullptr, false};
}  // namespace notice

// Looks up the stream at args[1] and its group args[2] for XPENDING, XCLAIM and XAUTOCLAIM.
// Replies WRONGTYPE, or "NOGROUP No such key ... or consumer group ..." when the key or the
// group is missing, and returns nullptr then; otherwise stores the key's entry in *e.
StreamGroup* LookupGroupOrReply(CommandContext& c, Access access, Entry** e);

// Parses one end of an id interval (XPENDING's start and end, XAUTOCLAIM's start): "-", "+",
// "<ms>" (sequence `missing_seq`), "<ms>-<seq>", or the same prefixed with "(" for an exclusive
// end (then "-" and "+" are invalid), which is moved one id inwards: up for a start, down for an
// end. Replies the invalid-id error, or "invalid start/end ID for the interval" when an
// exclusive end cannot move, and returns false.
bool ParseIntervalIdOrReply(CommandContext& c, std::string_view arg, bool is_start, StreamID* out);

}  // namespace redistp
