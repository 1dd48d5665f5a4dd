#include "commands/stream_util.h"

#include "commands/list.h"
#include "protocol/errors.h"

namespace redistp {

bool ParseStreamIdOrReply(ReplyBuilder& reply, std::string_view arg, StreamID* out,
                          uint64_t missing_seq, bool strict, bool* seq_star) {
  if (ParseStreamID(arg, out, missing_seq, strict, seq_star)) return true;
  reply.Error(err::kStreamInvalidId);
  return false;
}

void ReplyStreamId(ReplyBuilder& reply, StreamID id) {
  char buf[StreamID::kMaxChars];
  reply.Bulk(std::string_view(buf, id.Format(buf)));
}

void ReplyStreamEntry(ReplyBuilder& reply, const StreamEntryView& entry) {
  reply.Array(2);
  ReplyStreamId(reply, entry.id);
  reply.Array(entry.fields->size());
  for (const ListpackEntry& e : *entry.fields) ReplyListEntry(reply, e);
}

size_t ReplyStreamRange(ReplyBuilder& reply, const StreamObject& s, StreamID start, StreamID end,
                        bool reverse, uint64_t count) {
  const size_t handle = reply.DeferLen();
  size_t n = 0;
  StreamObject::Iterator it(s, start, end, reverse);
  StreamEntryView v;
  while ((count == 0 || n < count) && it.Next(&v)) {
    ReplyStreamEntry(reply, v);
    ++n;
  }
  reply.SetDeferredLen(handle, '*', n);
  return n;
}

}  // namespace redistp
