// Consumer groups, part one: managing groups and their pending lists.
//
//   XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]   a new group (BUSYGROUP if taken)
//   XGROUP SETID key group id|$ [ENTRIESREAD n]               move its last-delivered id
//   XGROUP DESTROY key group                                   0/1
//   XGROUP CREATECONSUMER key group consumer                   0/1
//   XGROUP DELCONSUMER key group consumer                      how many entries it had pending
//   XACK key group id [id ...]                                 how many pending entries ended
//   XPENDING key group [[IDLE ms] start end count [consumer]]  the summary or the entries
//
// Model. A group (types/stream.h) has a last-delivered id, an entries-read counter, a pending
// entries list (PEL) and consumers. These commands edit the group through one Mutation of the
// stream key, so the change reaches the blocking core (a destroyed group wakes XREADGROUP
// waiters, which then answer NOGROUP), notifications and propagation like every write. An edit
// that changes nothing (DESTROY of a missing group, CREATECONSUMER of an existing consumer, an
// XACK of ids not pending) is abandoned: Redis neither announces nor propagates it. Every change
// replicates as the command itself.
//
// XGROUP's order of checks is Redis 7.0's: the subcommand's options in order (a stray word is
// "unknown subcommand or wrong number of arguments"; ENTRIESREAD must be an integer >= -1),
// then the key (WRONGTYPE; missing is an error unless CREATE has MKSTREAM), then the group for
// SETID/CREATECONSUMER/DELCONSUMER (NOGROUP; DESTROY just answers 0), then the argument count
// (a repeated option passes the option loop but not this), then the id.
// Without ENTRIESREAD a group's entries-read counter is unknown (-1), `$` included, as in 7.0.
//
// XACK answers 0 for a missing key or group before it looks at the ids; otherwise every id must
// parse before anything is acknowledged. XPENDING parses everything before it looks the key
// up; a missing key or group is NOGROUP. Its idle times are "now" (the command's clock) minus
// each entry's delivery time.
#include "commands/stream_group.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "commands/help_reply.h"
#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/stream_util.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {

StreamGroup* LookupGroupOrReply(CommandContext& c, Access access, Entry** e) {
  if (!LookupTyped(c, c.args[1], ValueType::kStream, access, e)) return nullptr;
  StreamGroup* g = *e != nullptr ? StreamOf(*e)->FindGroup(c.args[2]) : nullptr;
  if (g == nullptr) c.reply.Error(err::XClaimNoGroup(c.args[1], c.args[2]));
  return g;
}

bool ParseIntervalIdOrReply(CommandContext& c, std::string_view arg, bool is_start, StreamID* out) {
  const bool exclusive = !arg.empty() && arg[0] == '(';
  if (exclusive) arg.remove_prefix(1);
  const uint64_t missing_seq = is_start ? 0 : UINT64_MAX;
  if (!ParseStreamIdOrReply(c.reply, arg, out, missing_seq, /*strict=*/exclusive)) return false;
  if (!exclusive) return true;
  if (is_start ? out->Increment() : out->Decrement()) return true;
  c.reply.Error(is_start ? err::kStreamInvalidStartId : err::kStreamInvalidEndId);
  return false;
}

namespace {

int64_t Now(CommandContext& c) { return c.server.keyspace().now_ms(); }

// Parses ENTRIESREAD's value: an integer >= 0, or -1 (unknown). Replies and returns false.
bool ParseEntriesRead(CommandContext& c, std::string_view arg, int64_t* out) {
  if (!ParseInt64(arg, out)) {
    c.reply.Error(err::kNotInteger);
    return false;
  }
  if (*out < 0 && *out != StreamGroup::kEntriesReadUnknown) {
    c.reply.Error(err::kXGroupEntriesRead);
    return false;
  }
  return true;
}

// Parses CREATE's or SETID's id argument: `$` is the stream's last id (0-0 for a stream about
// to be created), anything else an id with sequence 0 when omitted. CREATE refuses "-" and "+"
// (strict); SETID takes them as 0-0 and the greatest id, as Redis 7.0 does.
bool ParseGroupId(CommandContext& c, const StreamObject* s, bool strict, StreamID* out) {
  if (c.args[4] == "$") {
    *out = s != nullptr ? s->last_id() : StreamID::Min();
    return true;
  }
  return ParseStreamIdOrReply(c.reply, c.args[4], out, 0, strict);
}

// The stream at args[2] for an XGROUP subcommand: replies WRONGTYPE, or the missing-key error
// unless `may_create`; *e is nullptr when the key is missing (and may_create).
bool LookupXGroupKey(CommandContext& c, bool may_create, Entry** e) {
  if (!LookupTyped(c, c.args[2], ValueType::kStream, Access::kWrite, e)) return false;
  if (*e == nullptr && !may_create) {
    c.reply.Error(err::kXGroupKeyMissing);
    return false;
  }
  return true;
}

// The group args[3] of the stream in e, or nullptr after replying NOGROUP.
StreamGroup* FindXGroup(CommandContext& c, Entry* e) {
  StreamGroup* g = StreamOf(e)->FindGroup(c.args[3]);
  if (g == nullptr) c.reply.Error(err::StreamNoGroup(c.args[2], c.args[3]));
  return g;
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]
// Redis's order: the options in order (a bad ENTRIESREAD value or a stray word fails at once),
// then the key, and only then the argument count (more than 8 arguments, e.g. a repeated
// option, is the subcommand syntax error).
void XGroupCreateCommand(CommandContext& c) {
  bool mkstream = false;
  int64_t entries_read = StreamGroup::kEntriesReadUnknown;
  for (size_t i = 5; i < c.args.size(); ++i) {
    if (EqualsIgnoreCase(c.args[i], "mkstream")) {
      mkstream = true;
    } else if (EqualsIgnoreCase(c.args[i], "entriesread") && i + 1 < c.args.size()) {
      if (!ParseEntriesRead(c, c.args[++i], &entries_read)) return;
    } else {
      c.reply.Error(err::SubcommandSyntax(c.args[1], "XGROUP"));
      return;
    }
  }
  Entry* e;
  if (!LookupXGroupKey(c, mkstream, &e)) return;
  if (c.args.size() > 8) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "XGROUP"));
    return;
  }
  StreamID id;
  if (!ParseGroupId(c, e != nullptr ? StreamOf(e) : nullptr, /*strict=*/true, &id)) return;
  if (e == nullptr) {
    auto* s = new StreamObject();
    s->CreateGroup(c.args[3], id, entries_read);
    // One event: the new key, announced as the group's creation (Redis sends no xadd here).
    c.db.Add(c.args[2], Value::Object(ValueType::kStream, s), notice::kXGroupCreate);
    c.reply.Ok();
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kXGroupCreate);
  if (StreamOf(m.entry())->CreateGroup(c.args[3], id, entries_read) == nullptr) {
    m.Abandon();
    c.reply.Error(err::kXGroupBusyGroup);
    return;
  }
  c.reply.Ok();
}

// XGROUP SETID key group id|$ [ENTRIESREAD n]
// The same order as CREATE: options in order, the key, the group, then the argument count (5
// or 7).
void XGroupSetIdCommand(CommandContext& c) {
  int64_t entries_read = StreamGroup::kEntriesReadUnknown;
  for (size_t i = 5; i < c.args.size(); ++i) {
    if (EqualsIgnoreCase(c.args[i], "entriesread") && i + 1 < c.args.size()) {
      if (!ParseEntriesRead(c, c.args[++i], &entries_read)) return;
    } else {
      c.reply.Error(err::SubcommandSyntax(c.args[1], "XGROUP"));
      return;
    }
  }
  Entry* e;
  if (!LookupXGroupKey(c, false, &e)) return;
  StreamGroup* g = FindXGroup(c, e);
  if (g == nullptr) return;
  if (c.args.size() != 5 && c.args.size() != 7) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "XGROUP"));
    return;
  }
  StreamID id;
  if (!ParseGroupId(c, StreamOf(e), /*strict=*/false, &id)) return;
  Mutation m = c.db.Mutate(e, notice::kXGroupSetId);
  g->last_id = id;
  g->entries_read = entries_read;
  c.reply.Ok();
}

// XGROUP DESTROY key group: 1 if the group existed. A missing group is no error here.
void XGroupDestroyCommand(CommandContext& c) {
  Entry* e;
  if (!LookupXGroupKey(c, false, &e)) return;
  Mutation m = c.db.Mutate(e, notice::kXGroupDestroy);
  if (!StreamOf(m.entry())->DestroyGroup(c.args[3])) {
    m.Abandon();
    c.reply.Int(0);
    return;
  }
  c.reply.Int(1);
}

// XGROUP CREATECONSUMER key group consumer: 1 if the consumer was created.
void XGroupCreateConsumerCommand(CommandContext& c) {
  Entry* e;
  if (!LookupXGroupKey(c, false, &e)) return;
  StreamGroup* g = FindXGroup(c, e);
  if (g == nullptr) return;
  if (g->FindConsumer(c.args[4]) != nullptr) {
    c.reply.Int(0);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kXGroupCreateConsumer);
  g->CreateConsumer(c.args[4], Now(c));
  c.reply.Int(1);
}

// XGROUP DELCONSUMER key group consumer: how many entries were pending for it (they leave the
// group's PEL with it); 0, and no change, for a consumer that does not exist.
void XGroupDelConsumerCommand(CommandContext& c) {
  Entry* e;
  if (!LookupXGroupKey(c, false, &e)) return;
  StreamGroup* g = FindXGroup(c, e);
  if (g == nullptr) return;
  if (g->FindConsumer(c.args[4]) == nullptr) {
    c.reply.Int(0);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kXGroupDelConsumer);
  c.reply.Int(static_cast<int64_t>(g->DeleteConsumer(c.args[4])));
}

void XGroupHelpCommand(CommandContext& c) {
  ReplyHelp(
      c.reply, "XGROUP",
      {"CREATE <key> <groupname> <id|$> [option]",
       "    Create a new consumer group. Options are:", "    * MKSTREAM",
       "      Create the empty stream if it does not exist.", "    * ENTRIESREAD entries_read",
       "      Set the group's entries_read counter (internal use).",
       "CREATECONSUMER <key> <groupname> <consumer>",
       "    Create a new consumer in the specified group.",
       "DELCONSUMER <key> <groupname> <consumer>", "    Remove the specified consumer.",
       "DESTROY <key> <groupname>", "    Remove the specified group.",
       "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
       "    Set the current group ID and entries_read counter."});
}

// XACK key group id [id ...]: the number of ids that were pending (each counted once).
void XAckCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kStream, Access::kRead, &e)) return;
  StreamGroup* g = e != nullptr ? StreamOf(e)->FindGroup(c.args[2]) : nullptr;
  if (g == nullptr) {
    c.reply.Int(0);
    return;
  }
  std::vector<StreamID> ids(c.args.size() - 3);
  for (size_t i = 3; i < c.args.size(); ++i) {
    if (!ParseStreamIdOrReply(c.reply, c.args[i], &ids[i - 3], 0, /*strict=*/true)) return;
  }
  Mutation m = c.db.Mutate(e, notice::kStreamGroupState);
  int64_t acked = 0;
  for (StreamID id : ids) acked += g->Ack(id) ? 1 : 0;
  if (acked == 0) m.Abandon();
  c.reply.Int(acked);
}

// XPENDING's summary: [count, smallest id, greatest id, [[consumer, count as a bulk] ...]] over
// the consumers with something pending, in name order; [0, nil, nil, nil] when nothing pends.
void ReplyPendingSummary(CommandContext& c, const StreamGroup& g) {
  c.reply.Array(4);
  c.reply.Int(static_cast<int64_t>(g.pel.size()));
  if (g.pel.empty()) {
    c.reply.Null();
    c.reply.Null();
    c.reply.NullArray();
    return;
  }
  ReplyStreamId(c.reply, g.pel.begin()->first);
  ReplyStreamId(c.reply, g.pel.rbegin()->first);
  size_t with_pending = 0;
  for (const auto& [name, consumer] : g.consumers) with_pending += consumer->pel.empty() ? 0 : 1;
  c.reply.Array(with_pending);
  char buf[kMaxInt64Chars + 1];
  for (const auto& [name, consumer] : g.consumers) {
    if (consumer->pel.empty()) continue;
    c.reply.Array(2);
    c.reply.Bulk(name);
    c.reply.Bulk(
        std::string_view(buf, FormatInt64(static_cast<int64_t>(consumer->pel.size()), buf)));
  }
}

// XPENDING's extended form: [id, consumer, idle ms, delivery count] for each entry of `pel`
// (the group's or one consumer's) in [start, end] idle at least min_idle, at most count.
template <typename Pel>
void ReplyPendingRange(CommandContext& c, const Pel& pel, StreamID start, StreamID end,
                       int64_t min_idle, int64_t count) {
  const size_t handle = c.reply.DeferLen();
  size_t n = 0;
  const int64_t now = Now(c);
  if (start <= end) {
    for (auto it = pel.lower_bound(start);
         it != pel.end() && it->first <= end && static_cast<int64_t>(n) < count; ++it) {
      const StreamPending& p = *it->second;
      const int64_t idle = now - p.delivery_time;
      if (idle < min_idle) continue;
      c.reply.Array(4);
      ReplyStreamId(c.reply, it->first);
      c.reply.Bulk(p.consumer->name);
      c.reply.Int(idle);
      c.reply.Int(static_cast<int64_t>(p.delivery_count));
      ++n;
    }
  }
  c.reply.SetDeferredLen(handle, '*', n);
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
void XPendingCommand(CommandContext& c) {
  const size_t argc = c.args.size();
  const bool summary = argc == 3;
  if (!summary && (argc < 6 || argc > 9)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  int64_t min_idle = 0;
  int64_t count = 0;
  StreamID start, end;
  std::string_view consumer_name;
  bool by_consumer = false;
  if (!summary) {
    size_t at = 3;  // where start/end/count begin
    if (EqualsIgnoreCase(c.args[3], "idle")) {
      if (!ParseInt64(c.args[4], &min_idle)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      if (argc < 8) {  // IDLE needs start, end and count after it
        c.reply.Error(err::kSyntax);
        return;
      }
      at = 5;
    }
    if (!ParseInt64(c.args[at + 2], &count)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
    if (count < 0) count = 0;
    if (!ParseIntervalIdOrReply(c, c.args[at], true, &start)) return;
    if (!ParseIntervalIdOrReply(c, c.args[at + 1], false, &end)) return;
    // Arguments after the consumer are ignored, as in Redis 7.0.
    if (at + 3 < argc) {
      by_consumer = true;
      consumer_name = c.args[at + 3];
    }
  }
  Entry* e;
  const StreamGroup* g = LookupGroupOrReply(c, Access::kRead, &e);
  if (g == nullptr) return;
  if (summary) {
    ReplyPendingSummary(c, *g);
  } else if (!by_consumer) {
    ReplyPendingRange(c, g->pel, start, end, min_idle, count);
  } else if (const StreamConsumer* consumer = g->FindConsumer(consumer_name)) {
    ReplyPendingRange(c, consumer->pel, start, end, min_idle, count);
  } else {
    c.reply.EmptyArray();
  }
}

using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;

// An XGROUP subcommand that names its key at argv[2].
CommandSpec XGroupKeySubcommand(const char* name, int arity, uint64_t flags, uint32_t key_flags,
                                CommandHandler handler, CommandDoc doc) {
  doc.since = doc.since.empty() ? "5.0.0" : doc.since;
  doc.group = "stream";
  doc.key_specs = {{.flags = key_flags, .index = 2}};
  return {.name = name,
          .arity = arity,
          .flags = flags,
          .first_key = 2,
          .last_key = 2,
          .key_step = 1,
          .acl = kAclWrite | kAclStream | kAclSlow,
          .doc = std::move(doc),
          .handler = handler};
}

ArgDoc GroupIdArg() { return OneOf("id", {String("id"), PureToken("$").Named("new_id")}); }

}  // namespace

void RegisterStreamGroupCommands(CommandTable& t) {
  t.Register(
      {.name = "xgroup",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the consumer-group commands of streams",
               .since = "5.0.0",
               .group = "stream",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           XGroupKeySubcommand("create", -5, kCmdWrite | kCmdDenyOom, kKeyRW | kKeyInsert,
                               XGroupCreateCommand,
                               {.summary = "Creates a consumer group",
                                .complexity = "O(1)",
                                .history = {{"7.0.0", "The ENTRIESREAD option."}},
                                .args = {Key("key", 0), String("groupname"), GroupIdArg(),
                                         PureToken("MKSTREAM").Optional(),
                                         Integer("entries_read").Token("ENTRIESREAD").Optional()}}),
           XGroupKeySubcommand("setid", -5, kCmdWrite, kKeyRW | kKeyUpdate, XGroupSetIdCommand,
                               {.summary = "Sets a consumer group's last-delivered id",
                                .complexity = "O(1)",
                                .history = {{"7.0.0", "The ENTRIESREAD option."}},
                                .args = {Key("key", 0), String("groupname"), GroupIdArg(),
                                         Integer("entries_read").Token("ENTRIESREAD").Optional()}}),
           XGroupKeySubcommand(
               "destroy", 4, kCmdWrite, kKeyRW | kKeyDelete, XGroupDestroyCommand,
               {.summary = "Destroys a consumer group",
                .complexity = "O(N) where N is the number of entries in the group's pending "
                              "entries list (PEL).",
                .args = {Key("key", 0), String("groupname")}}),
           XGroupKeySubcommand(
               "createconsumer", 5, kCmdWrite | kCmdDenyOom, kKeyRW | kKeyInsert,
               XGroupCreateConsumerCommand,
               {.summary = "Creates a consumer in a consumer group",
                .since = "6.2.0",
                .complexity = "O(1)",
                .args = {Key("key", 0), String("groupname"), String("consumername")}}),
           XGroupKeySubcommand(
               "delconsumer", 5, kCmdWrite, kKeyRW | kKeyDelete, XGroupDelConsumerCommand,
               {.summary = "Deletes a consumer and its pending entries from a consumer group",
                .complexity = "O(1)",
                .args = {Key("key", 0), String("groupname"), String("consumername")}}),
           CommandSpec{.name = "help",
                       .arity = 2,
                       .flags = kCmdLoading | kCmdStale,
                       .acl = kAclStream | kAclSlow,
                       .doc = {.summary = "Lists the XGROUP subcommands",
                               .since = "5.0.0",
                               .group = "stream",
                               .complexity = "O(1)"},
                       .handler = XGroupHelpCommand},
       }});
  t.Register({.name = "xack",
              .arity = -4,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclStream | kAclFast,
              .doc = {.summary = "Acknowledges entries pending in a consumer group",
                      .since = "5.0.0",
                      .group = "stream",
                      .complexity = "O(1) for each message ID processed.",
                      .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), String("group"), String("id").Multiple()}},
              .handler = XAckCommand});
  t.Register(
      {.name = "xpending",
       .arity = -3,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclStream | kAclSlow,
       .doc = {.summary = "Describes the entries pending in a consumer group",
               .since = "5.0.0",
               .group = "stream",
               .complexity =
                   "O(N) with N being the number of elements returned, so asking for a small "
                   "fixed number of entries per call is O(1). O(M), where M is the total number "
                   "of entries scanned when used with the IDLE filter. When the command returns "
                   "just the summary and the list of consumers is small, it runs in O(1) time; "
                   "otherwise, an additional O(N) time for iterating every consumer.",
               .history = {{"6.2.0", "The IDLE option and exclusive intervals."}},
               .tips = {"nondeterministic_output"},
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
               .args = {Key("key", 0), String("group"),
                        docs::Block(
                            "filters",
                            {Integer("min-idle-time").Token("IDLE").Since("6.2.0").Optional(),
                             String("start"), String("end"), Integer("count"),
                             String("consumer").Optional()})
                            .Optional()}},
       .handler = XPendingCommand});
}

}  // namespace redistp
