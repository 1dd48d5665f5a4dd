// XREAD and XREADGROUP: reading several streams from given ids, alone or as a consumer group.
//
//   XREAD [COUNT n] [BLOCK ms] STREAMS key ... id ...
//   XREADGROUP GROUP group consumer [COUNT n] [BLOCK ms] [NOACK] STREAMS key ... id ...
//
// Model, as Redis 7.0 runs them. Options are read left to right (a repeated option's last value
// wins; COUNT below zero means no limit, as 0 does); STREAMS takes the rest of the line, half keys
// and half ids. Then every key is checked in order before anything is read: a key of another
// type is WRONGTYPE; for XREADGROUP the key must exist and hold the group (NOGROUP); an id is
// `$` (XREAD only: the stream's last id now, 0-0 for a missing key), `+` (XREAD only, from Redis
// 7.4: the last live entry; XREADGROUP keeps 7.0's answer, an invalid id), `>` (XREADGROUP only:
// "what the group has not delivered yet") or an id read strictly (a missing sequence is 0).
//
// Reading, key by key: XREAD answers a key when it holds a live entry after its id. XREADGROUP
// with `>` answers a key when it holds a live entry after the group's last id, delivering them
// (stream_read.h, ServeGroupNewEntries); with any other id it always answers the key, with the
// consumer's own pending entries after that id ("history"; entries deleted meanwhile come as
// [id, nil] and keep their delivery count, the others count one more delivery now). The reply
// lists only the keys answered (RESP2 [[key, entries] ...], RESP3 {key: entries}); nil when none.
//
// Nothing answered and BLOCK given: the client waits (stream_blocking.cc) unless it runs in MULTI
// (nil at once) or in a script, where Redis 7.0 refuses the BLOCK option itself, when it meets it
// among the options.
//
// Quirk kept: Redis marks `>` internally with the greatest id, so XREADGROUP given the id
// 18446744073709551615-18446744073709551615 reads new entries as `>` does.
#include "commands/stream_read.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/stream_util.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/propagation.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {

bool StreamHasEntryAfter(const StreamObject& s, StreamID id) {
  // last_id bounds every live id, so most "nothing new" answers cost no iteration.
  if (s.length() == 0 || s.last_id() <= id) return false;
  StreamID start = id;
  if (!start.Increment()) return false;
  StreamObject::Iterator it(s, start, StreamID::Max(), /*reverse=*/true);
  StreamEntryView v;
  return it.Next(&v);
}

void ServeGroupNewEntries(ReplyBuilder& reply, Database& db, Entry* e, StreamGroup& group,
                          const GroupReadNames& names, uint64_t count, bool noack, int64_t now_ms,
                          Propagator& prop) {
  const bool created = group.FindConsumer(names.consumer) == nullptr;
  Mutation m = db.Mutate(e, created ? notice::kXReadGroupCreateConsumer : notice::kXReadGroupState);
  StreamObject& s = *StreamOf(e);
  StreamConsumer* consumer = group.CreateConsumer(names.consumer, now_ms);
  consumer->seen_time = now_ms;
  const int dbi = db.index();
  // Without NOACK the XCLAIMs create the consumer on the replica; with NOACK nothing would.
  if (noack && created)
    prop.Emit(dbi, {"XGROUP", "CREATECONSUMER", names.key, names.group, names.consumer});

  StreamID start = group.last_id;
  start.Increment();  // the caller saw an entry after last_id, so last_id is not the maximum
  const size_t len_handle = reply.DeferLen();
  size_t n = 0;
  bool advanced = false;
  StreamObject::Iterator it(s, start, StreamID::Max(), /*reverse=*/false);
  StreamEntryView v;
  while ((count == 0 || n < count) && it.Next(&v)) {
    ReplyStreamEntry(reply, v);
    ++n;
    if (v.id > group.last_id) {
      s.AdvanceGroup(group, v.id);
      advanced = true;
    }
    if (noack) continue;
    StreamPending* p = group.AddPending(v.id, consumer, now_ms);
    char id[StreamID::kMaxChars], last[StreamID::kMaxChars];
    char time[kMaxInt64Chars + 1], retries[kMaxInt64Chars + 1];
    const size_t id_len = v.id.Format(id), last_len = group.last_id.Format(last);
    const size_t time_len = FormatInt64(p->delivery_time, time);
    const size_t retries_len = FormatInt64(static_cast<int64_t>(p->delivery_count), retries);
    prop.Emit(dbi, {"XCLAIM", names.key, names.group, names.consumer, "0",
                    std::string_view(id, id_len), "TIME", std::string_view(time, time_len),
                    "RETRYCOUNT", std::string_view(retries, retries_len), "FORCE", "JUSTID",
                    "LASTID", std::string_view(last, last_len)});
  }
  reply.SetDeferredLen(len_handle, '*', n);
  if (noack && advanced) {
    char last[StreamID::kMaxChars], read[kMaxInt64Chars + 1];
    const size_t last_len = group.last_id.Format(last);
    const size_t read_len = FormatInt64(group.entries_read, read);
    prop.Emit(dbi, {"XGROUP", "SETID", names.key, names.group, std::string_view(last, last_len),
                    "ENTRIESREAD", std::string_view(read, read_len)});
  }
}

namespace {

constexpr StreamID kNewEntriesMarker = StreamID::Max();  // `>`, as Redis marks it

struct ReadArgs {
  bool group_read = false;
  int64_t timeout_ms = -1;  // -1: no BLOCK
  uint64_t count = 0;       // 0: no limit
  bool noack = false;
  bool has_group = false;
  std::string_view group;
  std::string_view consumer;
  size_t first_key = 0;  // argv index of the first key
  size_t num_keys = 0;
};

// Reads the options up to STREAMS, in Redis's order of checks. Replies the error and returns
// false on a bad line.
bool ParseReadArgs(CommandContext& c, bool group_read, ReadArgs* a) {
  const auto& args = c.args;
  const size_t argc = args.size();
  a->group_read = group_read;
  for (size_t i = 1; i < argc; ++i) {
    const size_t more = argc - i - 1;
    const std::string_view o = args[i];
    if (EqualsIgnoreCase(o, "BLOCK") && more > 0) {
      if (c.origin == ExecOrigin::kScript) {
        c.reply.Error(err::XReadBlockInScript(group_read ? "xreadgroup" : "xread"));
        return false;
      }
      int64_t ms;
      if (!ParseInt64(args[++i], &ms)) {
        c.reply.Error(err::kTimeoutNotInteger);
        return false;
      }
      if (ms < 0) {
        c.reply.Error(err::kTimeoutNegative);
        return false;
      }
      a->timeout_ms = ms;
    } else if (EqualsIgnoreCase(o, "COUNT") && more > 0) {
      int64_t n;
      if (!ParseInt64(args[++i], &n)) {
        c.reply.Error(err::kNotInteger);
        return false;
      }
      a->count = n < 0 ? 0 : static_cast<uint64_t>(n);
    } else if (EqualsIgnoreCase(o, "STREAMS") && more > 0) {
      if (more % 2 != 0) {
        c.reply.Error(err::kXReadUnbalanced);
        return false;
      }
      a->first_key = i + 1;
      a->num_keys = more / 2;
      break;
    } else if (EqualsIgnoreCase(o, "GROUP") && more >= 2) {
      if (!group_read) {
        c.reply.Error(err::kXReadGroupOption);
        return false;
      }
      a->has_group = true;
      a->group = args[i + 1];
      a->consumer = args[i + 2];
      i += 2;
    } else if (EqualsIgnoreCase(o, "NOACK")) {
      if (!group_read) {
        c.reply.Error(err::kXReadNoAckOption);
        return false;
      }
      a->noack = true;
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
  }
  if (a->first_key == 0) {
    c.reply.Error(err::kSyntax);
    return false;
  }
  if (group_read && !a->has_group) {
    c.reply.Error(err::kXReadGroupMissingGroup);
    return false;
  }
  return true;
}

// XREAD's `+` (Redis 7.4): the id just below the stream's last live entry, so that reading
// "after" it answers that entry alone whatever COUNT says. The stream's last id is not used: the
// entry that carried it may have been deleted. An empty or missing stream reads from 0-0, so a
// BLOCK waits for the first entry added and gets what was added.
StreamID BeforeLastLiveEntry(const Entry* e) {
  if (e == nullptr || StreamOf(e)->length() == 0) return StreamID::Min();
  const StreamObject& s = *StreamOf(e);
  StreamObject::Iterator last(s, StreamID::Min(), StreamID::Max(), /*reverse=*/true);
  StreamEntryView v;
  if (!last.Next(&v)) return StreamID::Min();
  StreamID id = v.id;
  id.Decrement();  // a live entry's id is above 0-0, so this cannot wrap
  return id;
}

// Checks every key and id in order and resolves the ids (`$`, `+`, `>`). Replies the first error
// and returns false.
bool ResolveIds(CommandContext& c, const ReadArgs& a, std::vector<StreamID>* ids) {
  ids->resize(a.num_keys);
  for (size_t i = 0; i < a.num_keys; ++i) {
    const std::string_view key = c.args[a.first_key + i];
    const std::string_view id = c.args[a.first_key + a.num_keys + i];
    Entry* e;
    if (!LookupTyped(c, key, ValueType::kStream, Access::kRead, &e)) return false;
    if (a.group_read && (e == nullptr || StreamOf(e)->FindGroup(a.group) == nullptr)) {
      c.reply.Error(err::XReadGroupNoGroup(key, a.group));
      return false;
    }
    if (id == "$") {
      if (a.group_read) {
        c.reply.Error(err::kXReadGroupDollar);
        return false;
      }
      (*ids)[i] = e != nullptr ? StreamOf(e)->last_id() : StreamID::Min();
    } else if (id == "+" && !a.group_read) {
      (*ids)[i] = BeforeLastLiveEntry(e);
    } else if (id == ">") {
      if (!a.group_read) {
        c.reply.Error(err::kXReadGreaterId);
        return false;
      }
      (*ids)[i] = kNewEntriesMarker;
    } else if (!ParseStreamIdOrReply(c.reply, id, &(*ids)[i], 0, /*strict=*/true)) {
      return false;
    }
  }
  return true;
}

// XREADGROUP with a history id on one key: the consumer's pending entries after `after`, at most
// `count`. Always answers (an empty array when there are none).
void ServeGroupHistory(CommandContext& c, Entry* e, StreamGroup& group, const ReadArgs& a,
                       StreamID after, int64_t now_ms) {
  const bool created = group.FindConsumer(a.consumer) == nullptr;
  Mutation m =
      c.db.Mutate(e, created ? notice::kXReadGroupCreateConsumer : notice::kXReadGroupState);
  const StreamObject& s = *StreamOf(e);
  StreamConsumer* consumer = group.CreateConsumer(a.consumer, now_ms);
  consumer->seen_time = now_ms;
  if (a.noack && created) {
    c.propagation.Emit(c.db.index(),
                       {"XGROUP", "CREATECONSUMER", c.args[a.first_key], a.group, a.consumer});
  }
  const size_t len_handle = c.reply.DeferLen();
  size_t n = 0;
  StreamID start = after;
  if (start.Increment()) {
    for (auto it = consumer->pel.lower_bound(start);
         it != consumer->pel.end() && (a.count == 0 || n < a.count); ++it, ++n) {
      StreamObject::Iterator one(s, it->first, it->first, /*reverse=*/false);
      StreamEntryView v;
      if (one.Next(&v)) {
        ReplyStreamEntry(c.reply, v);
        it->second->delivery_time = now_ms;
        ++it->second->delivery_count;
      } else {
        // Deleted while pending: its id with no fields, and the record left as it was.
        c.reply.Array(2);
        ReplyStreamId(c.reply, it->first);
        c.reply.NullArray();
      }
    }
  }
  c.reply.SetDeferredLen(len_handle, '*', n);
}

void ReadCommand(CommandContext& c, bool group_read) {
  ReadArgs a;
  if (!ParseReadArgs(c, group_read, &a)) return;
  std::vector<StreamID> ids;
  if (!ResolveIds(c, a, &ids)) return;
  if (group_read) c.ReplicateNothing();  // its effects are replayed as the records Emit()ted

  const int64_t now_ms = c.server.keyspace().now_ms();
  const bool resp3 = c.reply.resp() >= 3;
  size_t answered = 0;
  size_t len_handle = 0;
  for (size_t i = 0; i < a.num_keys; ++i) {
    const std::string_view key = c.args[a.first_key + i];
    // Looked up again: an earlier key of the line may be this one, read meanwhile.
    Entry* e = c.db.Lookup(key, ValueType::kStream, Access::kRead).entry;
    if (e == nullptr) continue;
    StreamObject& s = *StreamOf(e);
    StreamGroup* group = group_read ? s.FindGroup(a.group) : nullptr;
    const bool history = group != nullptr && ids[i] != kNewEntriesMarker;
    if (!history) {
      const StreamID after = group != nullptr ? group->last_id : ids[i];
      if (!StreamHasEntryAfter(s, after)) continue;
    }
    if (answered++ == 0) len_handle = c.reply.DeferLen();
    if (!resp3) c.reply.Array(2);
    c.reply.Bulk(key);
    if (history) {
      ServeGroupHistory(c, e, *group, a, ids[i], now_ms);
    } else if (group != nullptr) {
      ServeGroupNewEntries(c.reply, c.db, e, *group, {key, a.group, a.consumer}, a.count, a.noack,
                           now_ms, c.propagation);
    } else {
      StreamID start = ids[i];
      start.Increment();  // StreamHasEntryAfter said ids[i] is not the maximum
      ReplyStreamRange(c.reply, s, start, StreamID::Max(), /*reverse=*/false, a.count);
    }
  }
  if (answered > 0) {
    c.reply.SetDeferredLen(len_handle, resp3 ? '%' : '*', answered);
    return;
  }
  if (a.timeout_ms < 0 || c.origin != ExecOrigin::kClient) {
    c.reply.NullArray();  // no BLOCK, or inside MULTI: nothing to wait for
    return;
  }
  auto st = std::make_unique<StreamWaitState>();
  st->server = &c.server;
  st->count = a.count;
  st->group_read = group_read;
  st->noack = a.noack;
  st->group = a.group;
  st->consumer = a.consumer;
  std::vector<std::string_view> keys;
  keys.reserve(a.num_keys);
  for (size_t i = 0; i < a.num_keys; ++i) {
    const std::string_view key = c.args[a.first_key + i];
    bool seen = false;
    for (const auto& t : st->targets) seen = seen || t.key == key;
    if (seen) continue;  // a repeated key waits beyond the id given first
    Entry* e = c.db.Lookup(key, ValueType::kStream, Access::kPeek).entry;
    st->targets.push_back(
        {std::string(key), ids[i], e != nullptr ? StreamOf(e)->last_id() : StreamID::Min()});
    keys.push_back(key);
  }
  // Past this a deadline (now + ms) would overflow; ~146 million years is forever anyway.
  constexpr int64_t kForever = INT64_MAX / 2;
  const int64_t timeout = a.timeout_ms > kForever ? kForever : a.timeout_ms;
  c.server.BlockClient(&c.client, keys, group_read ? StreamGroupReadKind() : StreamReadKind(),
                       std::move(st), timeout);
}

void XReadCommand(CommandContext& c) { ReadCommand(c, false); }
void XReadGroupCommand(CommandContext& c) { ReadCommand(c, true); }

}  // namespace

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::PureToken;
using docs::String;

// XREAD's and XREADGROUP's key procedure, as Redis's: options are skipped up to STREAMS (any
// other word ends the search), and the keys are the first half of what follows, none when that
// is empty or odd.
std::vector<KeyRef> XReadKeys(const std::vector<std::string_view>& args) {
  std::vector<KeyRef> keys;
  const int argc = static_cast<int>(args.size());
  int streams = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = args[static_cast<size_t>(i)];
    if (EqualsIgnoreCase(a, "block") || EqualsIgnoreCase(a, "count")) {
      ++i;
    } else if (EqualsIgnoreCase(a, "group")) {
      i += 2;
    } else if (EqualsIgnoreCase(a, "noack")) {
      continue;
    } else {
      if (EqualsIgnoreCase(a, "streams")) streams = i;
      break;
    }
  }
  const int rest = streams < 0 ? 0 : argc - streams - 1;
  if (rest == 0 || rest % 2 != 0) return keys;
  for (int i = 0; i < rest / 2; ++i) keys.push_back({streams + 1 + i, 0});
  return keys;
}

void RegisterStreamReadCommands(CommandTable& t) {
  t.Register(
      {.name = "xread",
       .arity = -4,
       .flags = kCmdReadOnly | kCmdBlocking,
       .acl = kAclRead | kAclStream | kAclSlow | kAclBlocking,
       .doc = {.summary = "Return never seen elements in multiple streams, with IDs greater "
                          "than the ones reported by the caller for each stream. Can block.",
               .since = "5.0.0",
               .group = "stream",
               .complexity = "For each stream mentioned: O(N) with N being the number of elements "
                             "being returned, it means that XREAD-ing with a fixed COUNT is O(1). "
                             "Note that when the BLOCK option is used, XADD will pay O(M) time in "
                             "order to serve the M clients blocked on the stream getting new data.",
               .history = {{"7.4.0", "The `+` id reads the last entry of a stream."}},
               .key_specs = {{.flags = kKeyRO | kKeyAccess,
                              .begin = KeyBegin::kKeyword,
                              .keyword = "STREAMS",
                              .start_from = 1,
                              .find = KeyFind::kRange,
                              .last_key = -1,
                              .key_step = 1,
                              .limit = 2}},
               .find_keys = XReadKeys,
               .args = {Integer("count").Token("COUNT").Optional(),
                        Integer("milliseconds").Token("BLOCK").Optional(),
                        Block("streams", {Key("key", 0).Multiple(), String("id").Multiple()})
                            .Token("STREAMS")}},
       .handler = XReadCommand});
  t.Register(
      {.name = "xreadgroup",
       .arity = -7,
       .flags = kCmdWrite | kCmdBlocking,
       .acl = kAclWrite | kAclStream | kAclSlow | kAclBlocking,
       .doc =
           {.summary = "Return new entries from a stream using a consumer group, or "
                       "access the history of the pending entries for a given "
                       "consumer. Can block.",
            .since = "5.0.0",
            .group = "stream",
            .complexity = "For each stream mentioned: O(M) with M being the number of elements "
                          "returned. If M is constant (e.g. always asking for the first 10 "
                          "elements with COUNT), you can consider it O(1). On the other side when "
                          "XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N "
                          "clients blocked on the stream getting new data.",
            .key_specs = {{.flags = kKeyRO | kKeyAccess,
                           .begin = KeyBegin::kKeyword,
                           .keyword = "STREAMS",
                           .start_from = 4,
                           .find = KeyFind::kRange,
                           .last_key = -1,
                           .key_step = 1,
                           .limit = 2}},
            .find_keys = XReadKeys,
            .args = {Block("group_consumer", {String("group"), String("consumer")}).Token("GROUP"),
                     Integer("count").Token("COUNT").Optional(),
                     Integer("milliseconds").Token("BLOCK").Optional(),
                     PureToken("NOACK").Optional(),
                     Block("streams", {Key("key", 0).Multiple(), String("id").Multiple()})
                         .Token("STREAMS")}},
       .handler = XReadGroupCommand});
}

}  // namespace redistp
