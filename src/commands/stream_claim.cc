// Consumer groups, part two: moving pending entries between consumers.
//
//   XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms] [RETRYCOUNT n]
//          [FORCE] [JUSTID] [LASTID id]
//   XAUTOCLAIM key group consumer min-idle-time start [COUNT n] [JUSTID]
//
// Model. A pending record (types/stream.h) says which consumer an entry was delivered to, when,
// and how many times. Claiming an entry that has been idle at least min-idle-time moves its
// record to the claiming consumer, sets its delivery time (now, or XCLAIM's IDLE/TIME) and
// counts one more delivery (JUSTID does not count; RETRYCOUNT sets the count). The consumer is
// created, or its seen time refreshed, only when something is claimed. FORCE lets XCLAIM create
// a record for an entry of the stream nobody had pending (with one delivery before counting).
// An entry that was deleted from the stream while pending is dropped from the PEL by both
// commands (7.0): XCLAIM leaves it out of the reply, XAUTOCLAIM lists it in its third element.
// XCLAIM's LASTID moves the group's last-delivered id forward (never back), before any claim.
//
// XAUTOCLAIM walks the group's PEL from `start` in id order, looking at no more than COUNT x 10
// records and claiming (or dropping as deleted) at most COUNT, and answers
// [next start (0-0 when the PEL was walked to its end), claimed, deleted ids].
//
// Propagation, as Redis 7.0 writes its AOF: the command itself is never replayed. Each record
// claimed, or dropped because its entry is gone, becomes one
//   XCLAIM key group <consumer> 0 <id> TIME <ms> RETRYCOUNT <n> FORCE JUSTID LASTID <group's id>
// naming the new owner and state (for a dropped record its old owner and state, so a replica
// finds the entry gone and drops it too); XCLAIM writes the id as its argument was spelled,
// XAUTOCLAIM in canonical form. A LASTID that moved the group with nothing else to replay is
// replicated as XGROUP SETID key group <id> ENTRIESREAD <n>. Several records of one command
// reach the AOF in MULTI/EXEC (the propagator wraps them).
//
// Notifications: only "xgroup-createconsumer", when the claim created the consumer. The edit is
// made first and the Mutation opened afterwards, only if something changed, because which notice
// it carries depends on whether the consumer had to be created.
//
// Errors, in Redis's order. XCLAIM: WRONGTYPE, NOGROUP (a missing key too), min-idle-time, then
// the options (the ids end at the first argument that is not a strict id). XAUTOCLAIM parses
// everything first (min-idle-time, start, COUNT, syntax), then WRONGTYPE, NOGROUP, and last the
// size of COUNT (Redis allocates COUNT ids up front and fails when the allocator does).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/stream_group.h"
#include "commands/stream_util.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/propagation.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// XAUTOCLAIM's COUNT at most: Redis refuses counts whose attempt budget (COUNT x 10) or id array
// (COUNT x 16 bytes) would not fit a long ...
constexpr int64_t kAutoClaimMaxCount = INT64_MAX / 16;
// ... and fails with "Insufficient memory" when its allocator cannot reserve COUNT x 16 bytes.
// Below the 128 TB of a 64-bit Linux process's address space that depends on the machine's
// memory and overcommit (10^12 ids pass or fail from one call to the next); at or above it,
// 2^43 ids and more, it always fails, and so do we.
constexpr int64_t kAutoClaimMaxAllocatable = int64_t{1} << 43;
// How many PEL records XAUTOCLAIM may look at per entry it is asked for.
constexpr int64_t kAutoClaimAttemptsFactor = 10;

// One claiming command's work on a group: the consumer (created at the first claim), the
// propagation records and whether anything changed.
class Claimer {
 public:
  // `e` holds the stream, `g` is its group args[2].
  Claimer(CommandContext& c, Entry* e, StreamGroup& g)
      : c_(c), e_(e), s_(*StreamOf(e)), g_(g), now_(c.server.keyspace().now_ms()) {}

  int64_t now() const { return now_; }
  StreamObject& stream() { return s_; }
  StreamGroup& group() { return g_; }

  // Gives the pending record of `id` (existing, entry present) to the claiming consumer args[3]
  // with delivery time `delivery_time`; the count becomes `retry_count` when >= 0, else grows
  // by one unless `justid`. Replicates the claim; `id_text` is how the id is written there.
  void Claim(StreamID id, StreamPending* p, int64_t delivery_time, int64_t retry_count, bool justid,
             std::string_view id_text) {
    StreamConsumer* to = Consumer();
    g_.MovePending(id, p, to);
    p->delivery_time = delivery_time;
    if (retry_count >= 0) {
      p->delivery_count = static_cast<uint64_t>(retry_count);
    } else if (!justid) {
      ++p->delivery_count;
    }
    Replicate(to->name, id_text, *p);
  }

  // Creates (FORCE) the record of an entry of the stream nobody had pending, for the claiming
  // consumer, with one delivery; the caller then claims it.
  StreamPending* Force(StreamID id) {
    changed_ = true;
    return g_.AddPending(id, Consumer(), now_);
  }

  // Drops the record of `id`, whose entry is no longer in the stream, replicating it as a claim
  // by its old owner with its old state.
  void DropDeleted(StreamID id, const StreamPending& p, std::string_view id_text) {
    Replicate(p.consumer->name, id_text, p);
    g_.Ack(id);
  }

  // XCLAIM's LASTID: moves the group's last id forward (never back).
  void MoveLastId(StreamID id) {
    if (id <= g_.last_id) return;
    g_.last_id = id;
    changed_ = true;
    last_id_unreplicated_ = true;
  }

  // Ends the edit: one key event if anything changed (announced as the consumer's creation when
  // the claim created it), and the replication of a LASTID move no claim carried.
  void Finish() {
    if (!changed_) return;
    if (last_id_unreplicated_) {
      char id_buf[StreamID::kMaxChars];
      char n_buf[kMaxInt64Chars + 1];
      c_.propagation.Emit(c_.db.index(),
                          {"XGROUP", "SETID", c_.args[1], c_.args[2],
                           std::string_view(id_buf, g_.last_id.Format(id_buf)), "ENTRIESREAD",
                           std::string_view(n_buf, FormatInt64(g_.entries_read, n_buf))});
    }
    c_.ReplicateNothing();
    Mutation m =
        c_.db.Mutate(e_, created_ ? notice::kXGroupCreateConsumer : notice::kStreamGroupState);
    m.Commit();
  }

 private:
  // The claiming consumer args[3]: created, or its seen time refreshed, on first use.
  StreamConsumer* Consumer() {
    if (consumer_ == nullptr) {
      consumer_ = g_.CreateConsumer(c_.args[3], now_, &created_);
      consumer_->seen_time = now_;
    }
    return consumer_;
  }

  void Replicate(std::string_view consumer, std::string_view id_text, const StreamPending& p) {
    changed_ = true;
    last_id_unreplicated_ = false;  // every record carries the group's last id
    char time_buf[kMaxInt64Chars + 1];
    char count_buf[kMaxInt64Chars + 1];
    char last_buf[StreamID::kMaxChars];
    c_.propagation.Emit(
        c_.db.index(),
        {"XCLAIM", c_.args[1], c_.args[2], consumer, "0", id_text, "TIME",
         std::string_view(time_buf, FormatInt64(p.delivery_time, time_buf)), "RETRYCOUNT",
         std::string_view(count_buf,
                          FormatInt64(static_cast<int64_t>(p.delivery_count), count_buf)),
         "FORCE", "JUSTID", "LASTID", std::string_view(last_buf, g_.last_id.Format(last_buf))});
  }

  CommandContext& c_;
  Entry* e_;
  StreamObject& s_;
  StreamGroup& g_;
  const int64_t now_;
  StreamConsumer* consumer_ = nullptr;
  bool created_ = false;
  bool changed_ = false;
  bool last_id_unreplicated_ = false;
};

// Replies the claimed ids, or (without JUSTID) their entries, as an array.
void ReplyClaimed(CommandContext& c, const StreamObject& s, const std::vector<StreamID>& ids,
                  bool justid) {
  c.reply.Array(ids.size());
  for (StreamID id : ids) {
    if (justid) {
      ReplyStreamId(c.reply, id);
      continue;
    }
    StreamObject::Iterator it(s, id, id, false);
    StreamEntryView entry;
    if (it.Next(&entry)) {
      ReplyStreamEntry(c.reply, entry);
    } else {
      c.reply.NullArray();  // cannot happen: a claimed entry is in the stream
    }
  }
}

// The options of XCLAIM after its ids.
struct ClaimOptions {
  bool have_time = false;
  int64_t delivery_time = 0;
  int64_t retry_count = -1;  // < 0: not given
  bool force = false;
  bool justid = false;
  bool have_last_id = false;
  StreamID last_id;
};

// Parses XCLAIM's options from args[from]; replies and returns false on an error.
bool ParseClaimOptions(CommandContext& c, size_t from, int64_t now, ClaimOptions* o) {
  for (size_t j = from; j < c.args.size(); ++j) {
    std::string_view opt = c.args[j];
    const bool has_value = j + 1 < c.args.size();
    int64_t v;
    if (EqualsIgnoreCase(opt, "force")) {
      o->force = true;
    } else if (EqualsIgnoreCase(opt, "justid")) {
      o->justid = true;
    } else if (EqualsIgnoreCase(opt, "idle") && has_value) {
      if (!ParseInt64(c.args[++j], &v)) {
        c.reply.Error(err::kXClaimIdle);
        return false;
      }
      o->have_time = true;
      // An idle time that would put the delivery in the future is "now" (below).
      if (__builtin_sub_overflow(now, v, &o->delivery_time)) o->delivery_time = -1;
    } else if (EqualsIgnoreCase(opt, "time") && has_value) {
      if (!ParseInt64(c.args[++j], &v)) {
        c.reply.Error(err::kXClaimTime);
        return false;
      }
      o->have_time = true;
      o->delivery_time = v;
    } else if (EqualsIgnoreCase(opt, "retrycount") && has_value) {
      if (!ParseInt64(c.args[++j], &o->retry_count)) {
        c.reply.Error(err::kXClaimRetryCount);
        return false;
      }
    } else if (EqualsIgnoreCase(opt, "lastid") && has_value) {
      if (!ParseStreamIdOrReply(c.reply, c.args[++j], &o->last_id, 0, /*strict=*/true)) {
        return false;
      }
      o->have_last_id = true;
    } else {
      c.reply.Error(err::XClaimUnknownOption(opt));
      return false;
    }
  }
  // A delivery time before the epoch or in the future is now.
  if (!o->have_time || o->delivery_time < 0 || o->delivery_time > now) {
    o->delivery_time = now;
  }
  return true;
}

void XClaimCommand(CommandContext& c) {
  Entry* e;
  StreamGroup* g = LookupGroupOrReply(c, Access::kRead, &e);
  if (g == nullptr) return;
  int64_t min_idle;
  if (!ParseInt64(c.args[4], &min_idle)) {
    c.reply.Error(err::kXClaimMinIdle);
    return;
  }
  if (min_idle < 0) min_idle = 0;
  // The ids: every argument from args[5] that parses as a strict id; the options follow.
  std::vector<StreamID> ids;
  size_t j = 5;
  for (StreamID id; j < c.args.size() && ParseStreamID(c.args[j], &id, 0, true); ++j) {
    ids.push_back(id);
  }
  const int64_t now = c.server.keyspace().now_ms();
  ClaimOptions o;
  if (!ParseClaimOptions(c, j, now, &o)) return;

  Claimer claimer(c, e, *g);
  if (o.have_last_id) claimer.MoveLastId(o.last_id);
  std::vector<StreamID> claimed;
  for (size_t i = 0; i < ids.size(); ++i) {
    const StreamID id = ids[i];
    std::string_view id_text = c.args[5 + i];
    auto it = g->pel.find(id);
    StreamPending* p = it != g->pel.end() ? it->second.get() : nullptr;
    if (!claimer.stream().Contains(id)) {
      if (p != nullptr) claimer.DropDeleted(id, *p, id_text);
      continue;
    }
    if (p == nullptr) {
      if (!o.force) continue;
      p = claimer.Force(id);
    } else if (min_idle > 0 && now - p->delivery_time < min_idle) {
      continue;
    }
    claimer.Claim(id, p, o.delivery_time, o.retry_count, o.justid, id_text);
    claimed.push_back(id);
  }
  claimer.Finish();
  ReplyClaimed(c, *StreamOf(e), claimed, o.justid);
}

void XAutoClaimCommand(CommandContext& c) {
  // Redis looks the key up first (a miss is announced as keymiss even when an argument is then
  // refused), but answers argument errors before WRONGTYPE or NOGROUP.
  Database::Typed looked = c.db.Lookup(c.args[1], ValueType::kStream, Access::kRead);
  int64_t min_idle;
  if (!ParseInt64(c.args[4], &min_idle)) {
    c.reply.Error(err::kXAutoClaimMinIdle);
    return;
  }
  if (min_idle < 0) min_idle = 0;
  StreamID start;
  if (!ParseIntervalIdOrReply(c, c.args[5], true, &start)) return;
  int64_t count = 100;
  bool justid = false;
  for (size_t j = 6; j < c.args.size(); ++j) {
    if (EqualsIgnoreCase(c.args[j], "count") && j + 1 < c.args.size()) {
      if (!ParseInt64(c.args[++j], &count) || count < 1 || count > kAutoClaimMaxCount) {
        c.reply.Error(err::kXAutoClaimCount);
        return;
      }
    } else if (EqualsIgnoreCase(c.args[j], "justid")) {
      justid = true;
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  if (looked.wrong_type) {
    c.reply.Error(err::kWrongType);
    return;
  }
  Entry* e = looked.entry;
  StreamGroup* g = e != nullptr ? StreamOf(e)->FindGroup(c.args[2]) : nullptr;
  if (g == nullptr) {
    c.reply.Error(err::XClaimNoGroup(c.args[1], c.args[2]));
    return;
  }
  if (count >= kAutoClaimMaxAllocatable) {
    c.reply.Error(err::kXAutoClaimCountTooHigh);
    return;
  }

  Claimer claimer(c, e, *g);
  const int64_t now = claimer.now();
  int64_t attempts = count * kAutoClaimAttemptsFactor;
  std::vector<StreamID> claimed, deleted;
  auto it = g->pel.lower_bound(start);
  char id_buf[StreamID::kMaxChars];
  while (attempts > 0 && count > 0 && it != g->pel.end()) {
    --attempts;
    const StreamID id = it->first;
    StreamPending* p = it->second.get();
    ++it;  // before the record may be dropped
    std::string_view id_text(id_buf, id.Format(id_buf));
    if (!claimer.stream().Contains(id)) {
      claimer.DropDeleted(id, *p, id_text);
      deleted.push_back(id);
      --count;
      continue;
    }
    if (min_idle > 0 && now - p->delivery_time < min_idle) continue;
    claimer.Claim(id, p, now, -1, justid, id_text);
    claimed.push_back(id);
    --count;
  }
  const StreamID next = it != g->pel.end() ? it->first : StreamID::Min();
  claimer.Finish();

  c.reply.Array(3);
  ReplyStreamId(c.reply, next);
  ReplyClaimed(c, *StreamOf(e), claimed, justid);
  c.reply.Array(deleted.size());
  for (StreamID id : deleted) ReplyStreamId(c.reply, id);
}

using docs::Integer;
using docs::Key;
using docs::PureToken;
using docs::String;
using docs::UnixTime;

}  // namespace

void RegisterStreamClaimCommands(CommandTable& t) {
  constexpr uint64_t kFlags = kCmdWrite | kCmdFast;
  constexpr uint64_t kAcl = kAclWrite | kAclStream | kAclFast;
  t.Register(
      {.name = "xclaim",
       .arity = -6,
       .flags = kFlags,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAcl,
       .doc = {.summary = "Gives pending entries of a consumer group to another consumer",
               .since = "5.0.0",
               .group = "stream",
               .complexity = "O(log N) with N being the number of messages in the PEL of "
                             "the consumer group.",
               .tips = {"nondeterministic_output"},
               .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
               .args = {Key("key", 0), String("group"), String("consumer"), String("min-idle-time"),
                        String("id").Multiple(), Integer("ms").Token("IDLE").Optional(),
                        UnixTime("unix-time-milliseconds").Token("TIME").Optional(),
                        Integer("count").Token("RETRYCOUNT").Optional(),
                        PureToken("FORCE").Optional(), PureToken("JUSTID").Optional(),
                        String("id").Token("LASTID").Optional()}},
       .handler = XClaimCommand});
  t.Register(
      {.name = "xautoclaim",
       .arity = -6,
       .flags = kFlags,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAcl,
       .doc = {.summary = "Gives the idle pending entries of a consumer group to another consumer",
               .since = "6.2.0",
               .group = "stream",
               .complexity = "O(1) if COUNT is small.",
               .history = {{"7.0.0",
                            "The reply's third element: the deleted entries cleared "
                            "from the PEL."}},
               .tips = {"nondeterministic_output"},
               .key_specs = {{.flags = kKeyRW | kKeyDelete, .index = 1}},
               .args = {Key("key", 0), String("group"), String("consumer"), String("min-idle-time"),
                        String("start"), Integer("count").Token("COUNT").Optional(),
                        PureToken("JUSTID").Optional()}},
       .handler = XAutoClaimCommand});
}

}  // namespace redistp
