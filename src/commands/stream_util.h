// What every stream command shares: parsing id arguments with Redis's error replies, and the
// reply shape of entries.
//
// Entries reply as Redis 7.0 answers them in RESP2 and RESP3 alike: an entry is a two-element
// array [id, [field, value, ...]], a range an array of entries. XREAD/XREADGROUP wrap ranges per
// key (an array of [key, entries] in RESP2, a map key -> entries in RESP3): those wrappers live
// with those commands.
#pragma once

#include <cstdint>
#include <string_view>

#include "db/entry.h"
#include "protocol/reply_builder.h"
#include "types/stream.h"

namespace redistp {

// Parses an id argument (see ParseStreamID). On failure replies Redis's
// "ERR Invalid stream ID specified as stream command argument" and returns false.
bool ParseStreamIdOrReply(ReplyBuilder& reply, std::string_view arg, StreamID* out,
                          uint64_t missing_seq, bool strict, bool* seq_star = nullptr);

// Writes one id as a bulk string ("<ms>-<seq>").
void ReplyStreamId(ReplyBuilder& reply, StreamID id);

// Writes one entry: [id, [field, value, ...]].
void ReplyStreamEntry(ReplyBuilder& reply, const StreamEntryView& entry);

// Writes the live entries of `s` with ids in [start, end], ascending or (reverse) descending, at
// most `count` of them (0 = all), as an array. Returns how many were written.
size_t ReplyStreamRange(ReplyBuilder& reply, const StreamObject& s, StreamID start, StreamID end,
                        bool reverse, uint64_t count);

// The stream object of an entry known to hold a stream (LookupTyped with ValueType::kStream).
inline StreamObject* StreamOf(const Entry* e) {
  return static_cast<StreamObject*>(e->value.object());
}

}  // namespace redistp
