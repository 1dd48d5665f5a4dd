// XREAD BLOCK and XREADGROUP BLOCK: the waiting half (the command's own half, which decides to
// wait, is stream_read.cc).
//
// Model. A waiter sits in the blocking core (watch/blocking.h) on every key it named, with a
// StreamWaitState (stream_read.h). Whenever one of its keys changed and the command (or EXEC,
// or script) that changed it has completed, the core offers the key to its waiters in FIFO order
// and the kind below decides, on the key as it is then:
//   - XREAD serves the waiter when the key holds a stream with a live entry after the id it
//     waits beyond (`$` was resolved to the stream's last id when it blocked). A key deleted or
//     turned into another type serves nobody: XREAD waiters keep waiting, as in Redis.
//   - XREADGROUP serves the waiter when entries were added since it last looked (the stream's
//     last id moved: Redis wakes these waiters on XADD, so XGROUP SETID moving the group back
//     serves nobody until the next XADD) and the group holds undelivered live entries, delivering
//     them as the command would (ServeGroupNewEntries: pending records, the consumer created,
//     propagation), so the next waiter of the same group sees only what is left. A key that no
//     longer holds a stream ends the wait with "UNBLOCKED the stream key no longer exists", a
//     group destroyed with "NOGROUP the consumer group this client was blocked on no longer
//     exists" (Redis 7.0's replies).
// The reply names the one key served: RESP2 [[key, entries]], RESP3 {key: entries}. A timeout
// (or CLIENT UNBLOCK ... TIMEOUT) answers nil.
//
// Deliberate difference: Redis 7.0 serves a woken waiter when the stream's last id passed its id
// even if those entries were deleted again in the same transaction (an empty entries array);
// here the test is for a live entry after the id: a waiter is never woken with nothing to read.
#include <string_view>

#include "commands/stream_read.h"
#include "commands/stream_util.h"
#include "protocol/errors.h"
#include "server/propagation.h"
#include "server/server.h"

namespace redistp {
namespace {

StreamWaitState::Target* FindTarget(StreamWaitState& st, std::string_view key) {
  for (auto& t : st.targets) {
    if (t.key == key) return &t;
  }
  return nullptr;
}

// Writes the header of a one-key answer; the caller writes the entries array.
void ReplyKeyHeader(ReplyBuilder& reply, std::string_view key) {
  if (reply.resp() >= 3) {
    reply.Map(1);
  } else {
    reply.Array(1);
    reply.Array(2);
  }
  reply.Bulk(key);
}

class StreamReadWaitKind : public BlockKind {
 public:
  explicit StreamReadWaitKind(bool group_read) : group_read_(group_read) {}

  ServeResult TryServe(BlockedClient& w, Database& db, std::string_view key,
                       ReplyBuilder& reply) override {
    auto& st = static_cast<StreamWaitState&>(*w.state);
    Database::Typed t = db.Lookup(key, ValueType::kStream, Access::kPeek);
    return group_read_ ? ServeGroup(st, db, t.entry, key, reply)
                       : ServePlain(st, t.entry, key, reply);
  }

  void TimeoutReply(BlockedClient& /*w*/, ReplyBuilder& reply) override { reply.NullArray(); }

 private:
  static ServeResult ServePlain(StreamWaitState& st, Entry* e, std::string_view key,
                                ReplyBuilder& reply) {
    if (e == nullptr) return ServeResult::kKindDone;  // missing or not a stream: all keep waiting
    const StreamWaitState::Target* target = FindTarget(st, key);
    if (target == nullptr) return ServeResult::kNotServed;
    const StreamObject& s = *StreamOf(e);
    if (!StreamHasEntryAfter(s, target->after)) return ServeResult::kNotServed;
    ReplyKeyHeader(reply, key);
    StreamID start = target->after;
    start.Increment();  // not the maximum: an entry lies after it
    ReplyStreamRange(reply, s, start, StreamID::Max(), /*reverse=*/false, st.count);
    return ServeResult::kServed;
  }

  static ServeResult ServeGroup(StreamWaitState& st, Database& db, Entry* e, std::string_view key,
                                ReplyBuilder& reply) {
    if (e == nullptr) {
      reply.Error(err::kXReadGroupKeyGone);
      return ServeResult::kServed;
    }
    StreamGroup* group = StreamOf(e)->FindGroup(st.group);
    if (group == nullptr) {
      reply.Error(err::kXReadGroupGroupGone);
      return ServeResult::kServed;
    }
    StreamWaitState::Target* target = FindTarget(st, key);
    const StreamID last = StreamOf(e)->last_id();
    if (target == nullptr || last == target->seen_last) return ServeResult::kNotServed;
    target->seen_last = last;
    if (!StreamHasEntryAfter(*StreamOf(e), group->last_id)) return ServeResult::kNotServed;
    // The served read is a command of its own for propagation: its records go out together
    // (MULTI ... EXEC when there are several), as Redis 7.0 writes them.
    Propagator& prop = st.server->propagator();
    const Propagator::Frame frame = prop.BeginCommand();
    ReplyKeyHeader(reply, key);
    ServeGroupNewEntries(reply, db, e, *group, {key, st.group, st.consumer}, st.count, st.noack,
                         st.server->keyspace().now_ms(), prop);
    prop.ReplicateNothing();
    prop.EndCommand(frame, db.index(), {});
    return ServeResult::kServed;
  }

  bool group_read_;
};

}  // namespace

// Stateless apart from their flavour: one instance of each serves every server.
BlockKind* StreamReadKind() {
  static StreamReadWaitKind kind(false);
  return &kind;
}

BlockKind* StreamGroupReadKind() {
  static StreamReadWaitKind kind(true);
  return &kind;
}

}  // namespace redistp
