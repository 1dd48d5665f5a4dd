// Stream commands, part one: appending, reading ranges, deleting and trimming entries.
//
//   XADD      appends an entry (id `*`, `<ms>-*` or explicit), optionally trimming after it
//   XLEN      the number of live entries
//   XRANGE    entries with ids in [start, end] ascending; XREVRANGE descending
//   XDEL      marks entries deleted
//   XTRIM     evicts entries from the head by count (MAXLEN) or by id (MINID)
//   XSETID    sets a stream's metadata (last id, entries added, greatest deleted id)
//
// Model. The stream (types/stream.h) owns entries and metadata; a handler parses every argument
// first, then looks the key up once with LookupTyped, then edits it through Database::Mutate, so
// notifications, WATCH, tracking, blocked XREAD wakeups and propagation all come from the
// mutation's end. XADD that also trims uses two mutations, one per notification, in Redis's
// order: "xadd" then "xtrim" (only when something was evicted). A stream stays a key when its
// last entry goes (XDEL, XTRIM): unlike lists or sets, Redis keeps empty streams, whose metadata
// (last id, groups) still matters.
//
// Replication. What Redis 7.0 propagates is made deterministic: XADD with a generated id
// (`*`, `<ms>-*`) is replayed with the id it produced; approximate trimming (`~`), whose effect
// depends on the node layout, is replayed exact (`=`) with the threshold it reached: the
// length left for MAXLEN, the first id left (a deleted entry's included) for MINID. LIMIT stays as
// given. XTRIM and XDEL that evict nothing are not propagated (the mutation is abandoned).
//
// Errors, in Redis's order: XADD/XTRIM read the options left to right (integer syntax, negative
// MAXLEN/LIMIT, MAXLEN with MINID, ids), then LIMIT without a strategy or without `~`, then
// XADD's field/value count (an arity error) and the 0-0 id, then WRONGTYPE, then the stream's
// exhausted ids and the id ordering. XRANGE parses its ids and COUNT before the key; XDEL looks
// the key up before parsing its ids (a missing key answers 0 whatever the ids).
#include "types/stream.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/stream_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

namespace notice {
inline constexpr KeyNotice kXAdd{kNotifyStream, "xadd"};
inline constexpr KeyNotice kXTrim{kNotifyStream, "xtrim"};
inline constexpr KeyNotice kXDel{kNotifyStream, "xdel"};
// Redis 7.0 signals no modified key for XSETID: a WATCH on the stream stays.
inline constexpr KeyNotice kXSetId{kNotifyStream, "xsetid", false};
}  // namespace notice

// Redis's default LIMIT for `~` trimming is 100 nodes' worth of entries, capped at 10000.
constexpr int64_t kDefaultApproxLimitNodes = 100;
constexpr int64_t kMaxDefaultApproxLimit = 10000;

// The options of XADD and XTRIM, as parsed by ParseAddOrTrimArgs.
struct AddTrimArgs {
  bool trim = false;  // a strategy (MAXLEN or MINID) was given
  StreamObject::TrimSpec spec;
  size_t threshold_index = 0;  // argv index of the MAXLEN/MINID value
  size_t operator_index = 0;   // argv index of "~" or "=", 0 when absent
  // XADD only.
  bool nomkstream = false;
  bool auto_id = true;    // `*`
  bool seq_star = false;  // `<ms>-*`
  StreamID id;
  size_t id_index = 0;  // argv index of the id (argc when none was found)
};

// Parses XADD's (xadd = true) or XTRIM's options from argv[2] on, the way Redis 7.0 reads
// them: a word is an option only when a value follows it; for XADD the first non-option word
// is the id. Replies the error and returns false on failure.
bool ParseAddOrTrimArgs(CommandContext& c, bool xadd, AddTrimArgs* a) {
  const auto& args = c.args;
  const size_t argc = args.size();
  bool limit_given = false;
  size_t i = 2;
  for (; i < argc; ++i) {
    const size_t more = argc - 1 - i;
    std::string_view opt = args[i];
    if (xadd && opt == "*") {
      break;
    }
    const bool maxlen = EqualsIgnoreCase(opt, "maxlen");
    if ((maxlen || EqualsIgnoreCase(opt, "minid")) && more > 0) {
      if (a->trim) {
        c.reply.Error(err::kStreamMaxlenAndMinid);
        return false;
      }
      a->spec.approx = false;
      a->operator_index = 0;
      std::string_view next = args[i + 1];
      if (more >= 2 && (next == "~" || next == "=")) {
        a->spec.approx = next == "~";
        a->operator_index = ++i;
      }
      if (maxlen) {
        int64_t n;
        if (!ParseInt64(args[i + 1], &n)) {
          c.reply.Error(err::kNotInteger);
          return false;
        }
        if (n < 0) {
          c.reply.Error(err::kStreamNegativeMaxlen);
          return false;
        }
        a->spec.by = StreamObject::TrimBy::kMaxLen;
        a->spec.maxlen = static_cast<uint64_t>(n);
      } else {
        if (!ParseStreamIdOrReply(c.reply, args[i + 1], &a->spec.minid, 0, true)) return false;
        a->spec.by = StreamObject::TrimBy::kMinId;
      }
      a->trim = true;
      a->threshold_index = ++i;
    } else if (EqualsIgnoreCase(opt, "limit") && more > 0) {
      int64_t n;
      if (!ParseInt64(args[i + 1], &n)) {
        c.reply.Error(err::kNotInteger);
        return false;
      }
      if (n < 0) {
        c.reply.Error(err::kStreamNegativeLimit);
        return false;
      }
      a->spec.limit = n;
      limit_given = true;
      ++i;
    } else if (xadd && EqualsIgnoreCase(opt, "nomkstream")) {
      a->nomkstream = true;
    } else if (xadd) {
      if (!ParseStreamIdOrReply(c.reply, opt, &a->id, 0, true, &a->seq_star)) return false;
      a->auto_id = false;
      break;
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
  }
  a->id_index = i;
  // A nonzero LIMIT without a strategy is reported as such; LIMIT 0 falls to the `~` check.
  if (a->spec.limit != 0 && !a->trim) {
    c.reply.Error(err::kStreamLimitWithoutStrategy);
    return false;
  }
  if (!xadd && !a->trim) {
    c.reply.Error(err::kStreamXTrimWithoutStrategy);
    return false;
  }
  if (c.client.kind() == ClientKind::kAofLoading) {
    a->spec.limit = 0;  // replaying the AOF: the recorded trim is obeyed whole, as in Redis
  } else if (limit_given) {
    if (!a->spec.approx) {
      c.reply.Error(err::kStreamLimitWithoutApprox);
      return false;
    }
  } else if (a->spec.approx) {
    const int64_t per_node =
        static_cast<int64_t>(c.server.keyspace().limits.stream_node_max_entries);
    int64_t limit = kDefaultApproxLimitNodes * per_node;
    if (limit <= 0 || limit > kMaxDefaultApproxLimit) limit = kMaxDefaultApproxLimit;
    a->spec.limit = limit;
  } else {
    a->spec.limit = 0;  // exact trimming has no limit
  }
  return true;
}

// The argv to propagate for a command that trimmed approximately: "~" becomes "=" and the
// threshold becomes what the trim reached (see the file comment). `out` starts as a copy of
// argv and may carry other rewrites.
void RewriteApproxTrim(const AddTrimArgs& a, const StreamObject& s, std::vector<std::string>* out) {
  (*out)[a.operator_index] = "=";
  if (a.spec.by == StreamObject::TrimBy::kMaxLen) {
    (*out)[a.threshold_index] = std::to_string(s.length());
  } else {
    // Redis names the first entry left, deleted ones included: the first node's master id (a
    // node keeps its first entry, flagged, until the whole node goes). An empty stream has no
    // node: Redis then names the greatest id.
    const auto& nodes = s.nodes();
    (*out)[a.threshold_index] = (nodes.empty() ? StreamID::Max() : nodes.begin()->first).ToString();
  }
}

std::vector<std::string> CopyArgs(const CommandContext& c) {
  return std::vector<std::string>(c.args.begin(), c.args.end());
}

// The id XADD gives its entry on a stream whose last id is `last`, from the parsed id form.
// Returns the error to reply when there is none: an id that would not grow, or (Redis 7.0's
// answer when `<ms>-*` names the last id's ms and its sequence is exhausted) "too large".
std::string_view ResolveAddId(const AddTrimArgs& a, const StreamObject& s, int64_t now_ms,
                              StreamID* out) {
  const StreamID last = s.last_id();
  if (a.auto_id) {
    return s.NextAutoId(static_cast<uint64_t>(now_ms), out) ? std::string_view()
                                                            : err::kStreamExhausted;
  }
  if (a.seq_star) {
    if (a.id.ms > last.ms) {
      *out = {a.id.ms, 0};
      return {};
    }
    if (a.id.ms < last.ms) return err::kStreamXAddIdTooSmall;
    if (last.seq == UINT64_MAX) return err::kStreamElementsTooLarge;
    *out = {a.id.ms, last.seq + 1};
    return {};
  }
  *out = a.id;
  return a.id > last ? std::string_view() : err::kStreamXAddIdTooSmall;
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value ...
void XAddCommand(CommandContext& c) {
  AddTrimArgs a;
  if (!ParseAddOrTrimArgs(c, true, &a)) return;
  const size_t argc = c.args.size();
  const size_t field_pos = a.id_index + 1;
  if (field_pos > argc || argc - field_pos < 2 || (argc - field_pos) % 2 == 1) {
    c.reply.Error(err::WrongArity(c.spec.full_name));
    return;
  }
  // Refused before the key is looked at, so a failing XADD never creates an empty stream.
  if (!a.auto_id && !a.seq_star && a.id.IsZero()) {
    c.reply.Error(err::kStreamXAddIdZero);
    return;
  }
  size_t total = 0;
  for (size_t i = field_pos; i < argc; ++i) total += c.args[i].size();
  if (!StreamObject::FitsNode(total)) {
    c.reply.Error(err::kStreamElementsTooLarge);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kStream, Access::kWrite, &e)) return;
  if (e == nullptr && a.nomkstream) {
    c.reply.Null();
    return;
  }
  static const StreamObject kEmpty;
  const StreamObject& current = e != nullptr ? *StreamOf(e) : kEmpty;
  if (current.last_id() == StreamID::Max()) {
    c.reply.Error(err::kStreamExhausted);
    return;
  }
  StreamID id;
  if (std::string_view error = ResolveAddId(a, current, c.server.keyspace().now_ms(), &id);
      !error.empty()) {
    c.reply.Error(error);
    return;
  }
  const std::vector<std::string_view> fields(c.args.begin() + field_pos, c.args.end());
  const TypeLimits& limits = c.server.keyspace().limits;
  if (e == nullptr) {
    auto* s = new StreamObject();
    s->Append(id, fields, limits);
    e = c.db.Add(c.args[1], Value::Object(ValueType::kStream, s), notice::kXAdd);
  } else {
    Mutation m = c.db.Mutate(e, notice::kXAdd);
    StreamOf(e)->Append(id, fields, limits);
  }
  ReplyStreamId(c.reply, id);

  const bool rewrite_id = a.auto_id || a.seq_star;
  if (!a.trim && !rewrite_id) return;
  std::vector<std::string> argv = CopyArgs(c);
  if (rewrite_id) argv[a.id_index] = id.ToString();
  if (a.trim) {
    Mutation m = c.db.Mutate(e, notice::kXTrim);
    StreamObject& s = *StreamOf(e);
    if (s.Trim(a.spec) == 0) m.Abandon();
    if (a.spec.approx) RewriteApproxTrim(a, s, &argv);
  }
  c.ReplicateAs(std::move(argv));
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]: the number of entries evicted.
void XTrimCommand(CommandContext& c) {
  AddTrimArgs a;
  if (!ParseAddOrTrimArgs(c, false, &a)) return;
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kStream, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Int(0);
    return;
  }
  int64_t trimmed;
  {
    Mutation m = c.db.Mutate(e, notice::kXTrim);
    StreamObject& s = *StreamOf(e);
    trimmed = s.Trim(a.spec);
    if (trimmed == 0) {
      m.Abandon();
    } else if (a.spec.approx) {
      std::vector<std::string> argv = CopyArgs(c);
      RewriteApproxTrim(a, s, &argv);
      c.ReplicateAs(std::move(argv));
    }
  }
  c.reply.Int(trimmed);
}

void XLenCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kStream, Access::kRead, &e)) return;
  c.reply.Int(e != nullptr ? static_cast<int64_t>(StreamOf(e)->length()) : 0);
}

// Parses one end of an XRANGE interval: "-", "+", an id (its missing sequence is
// `missing_seq`), or "(" + id for an exclusive end, which moves the id one step inwards
// (`start`: up, else down). Replies the error and returns false on failure.
bool ParseIntervalEnd(CommandContext& c, std::string_view arg, uint64_t missing_seq, bool start,
                      StreamID* out) {
  if (arg.size() > 1 && arg[0] == '(') {
    if (!ParseStreamIdOrReply(c.reply, arg.substr(1), out, missing_seq, true)) return false;
    if (start ? !out->Increment() : !out->Decrement()) {
      c.reply.Error(start ? err::kStreamInvalidStartId : err::kStreamInvalidEndId);
      return false;
    }
    return true;
  }
  return ParseStreamIdOrReply(c.reply, arg, out, missing_seq, false);
}

// XRANGE key start end [COUNT n] and XREVRANGE key end start [COUNT n]. A COUNT of 0 or less
// answers a null array (an empty array when the key is missing), as Redis 7.0 does.
void RangeCommand(CommandContext& c, bool reverse) {
  StreamID start, end;
  if (!ParseIntervalEnd(c, c.args[reverse ? 3 : 2], 0, true, &start)) return;
  if (!ParseIntervalEnd(c, c.args[reverse ? 2 : 3], UINT64_MAX, false, &end)) return;
  bool count_given = false;
  int64_t count = 0;
  for (size_t j = 4; j < c.args.size(); ++j) {
    if (EqualsIgnoreCase(c.args[j], "count") && j + 1 < c.args.size()) {
      if (!ParseInt64(c.args[j + 1], &count)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      count_given = true;
      ++j;
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kStream, Access::kRead, &e)) return;
  if (e == nullptr) {
    c.reply.EmptyArray();
    return;
  }
  if (count_given && count <= 0) {
    c.reply.NullArray();
    return;
  }
  if (start > end) {
    c.reply.EmptyArray();
    return;
  }
  ReplyStreamRange(c.reply, *StreamOf(e), start, end, reverse,
                   count_given ? static_cast<uint64_t>(count) : 0);
}

void XRangeCommand(CommandContext& c) { RangeCommand(c, false); }

void XRevRangeCommand(CommandContext& c) { RangeCommand(c, true); }

// XDEL key id [id ...]: the number of live entries deleted. Every id is checked before any is
// deleted.
void XDelCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kStream, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Int(0);
    return;
  }
  std::vector<StreamID> ids(c.args.size() - 2);
  for (size_t i = 2; i < c.args.size(); ++i) {
    if (!ParseStreamIdOrReply(c.reply, c.args[i], &ids[i - 2], 0, true)) return;
  }
  int64_t deleted = 0;
  {
    Mutation m = c.db.Mutate(e, notice::kXDel);
    StreamObject& s = *StreamOf(e);
    for (StreamID id : ids) deleted += s.Delete(id) ? 1 : 0;
    if (deleted == 0) m.Abandon();
  }
  c.reply.Int(deleted);
}

// The id of the stream's last live entry; precondition: the stream is not empty.
StreamID LastLiveId(const StreamObject& s) {
  StreamObject::Iterator it(s, StreamID::Min(), StreamID::Max(), true);
  StreamEntryView v;
  return it.Next(&v) ? v.id : s.last_id();
}

// XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id]. A MAXDELETEDID of 0-0 leaves the
// stream's value unchanged, as in Redis.
void XSetIdCommand(CommandContext& c) {
  StreamID id;
  if (!ParseStreamIdOrReply(c.reply, c.args[2], &id, 0, true)) return;
  int64_t entries_added = -1;
  StreamID max_deleted;
  for (size_t i = 3; i < c.args.size(); i += 2) {
    const bool more = i + 1 < c.args.size();
    if (EqualsIgnoreCase(c.args[i], "entriesadded") && more) {
      if (!ParseInt64(c.args[i + 1], &entries_added)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      if (entries_added < 0) {
        c.reply.Error(err::kStreamEntriesAddedNegative);
        return;
      }
    } else if (EqualsIgnoreCase(c.args[i], "maxdeletedid") && more) {
      if (!ParseStreamIdOrReply(c.reply, c.args[i + 1], &max_deleted, 0, true)) return;
      if (id < max_deleted) {
        c.reply.Error(err::kStreamSetIdBelowMaxDeleted);
        return;
      }
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kStream, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Error(err::kNoSuchKey);
    return;
  }
  StreamObject& s = *StreamOf(e);
  if (s.length() > 0) {
    if (id < LastLiveId(s)) {
      c.reply.Error(err::kStreamSetIdBelowTop);
      return;
    }
    if (entries_added != -1 && s.length() > static_cast<uint64_t>(entries_added)) {
      c.reply.Error(err::kStreamEntriesAddedBelowLength);
      return;
    }
  }
  {
    Mutation m = c.db.Mutate(e, notice::kXSetId);
    s.set_last_id(id);
    if (entries_added != -1) s.set_entries_added(static_cast<uint64_t>(entries_added));
    if (!max_deleted.IsZero()) s.set_max_deleted_id(max_deleted);
  }
  c.reply.Ok();
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;

namespace {

// The [MAXLEN|MINID [=|~] threshold [LIMIT count]] block of XADD and XTRIM.
ArgDoc TrimArgDoc() {
  return Block(
      "trim",
      {OneOf("strategy", {PureToken("MAXLEN"), PureToken("MINID").Since("6.2.0")}),
       OneOf("operator", {PureToken("=").Named("equal"), PureToken("~").Named("approximately")})
           .Optional(),
       String("threshold"), Integer("count").Token("LIMIT").Since("6.2.0").Optional()});
}

}  // namespace

void RegisterStreamCommands(CommandTable& t) {
  t.Register(
      {.name = "xadd",
       .arity = -5,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclStream | kAclFast,
       .doc = {.summary = "Adds an entry to the end of a stream, creating the stream if needed",
               .since = "5.0.0",
               .group = "stream",
               .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the "
                             "number of entries evicted.",
               .history = {{"6.2.0", "NOMKSTREAM, trimming by MINID and LIMIT."},
                           {"7.0.0", "Ids of the form `<ms>-*` (generated sequence)."}},
               .tips = {"nondeterministic_output"},
               .key_specs = {{.flags = kKeyRW | kKeyUpdate,
                              .notes =
                                  "update rather than insert: the command may also trim the stream",
                              .index = 1}},
               .args = {Key("key", 0), PureToken("NOMKSTREAM").Since("6.2.0").Optional(),
                        TrimArgDoc().Optional(),
                        OneOf("id_or_auto", {PureToken("*").Named("auto_id"), String("id")}),
                        Block("field_value", {String("field"), String("value")}).Multiple()}},
       .handler = XAddCommand});
  t.Register({.name = "xlen",
              .arity = 2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclStream | kAclFast,
              .doc = {.summary = "Counts the entries of a stream",
                      .since = "5.0.0",
                      .group = "stream",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = XLenCommand});
  t.Register(
      {.name = "xrange",
       .arity = -4,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclStream | kAclSlow,
       .doc = {.summary =
                   "Lists the entries of a stream whose ids lie in an interval, oldest first",
               .since = "5.0.0",
               .group = "stream",
               .complexity = "O(N) with N being the number of elements being returned. If N is "
                             "constant (e.g. always asking for the first 10 elements with COUNT), "
                             "you can consider it O(1).",
               .history = {{"6.2.0", "Exclusive interval ends written with `(`."}},
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
               .args = {Key("key", 0), String("start"), String("end"),
                        Integer("count").Token("COUNT").Optional()}},
       .handler = XRangeCommand});
  t.Register(
      {.name = "xrevrange",
       .arity = -4,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclStream | kAclSlow,
       .doc = {.summary =
                   "Lists the entries of a stream whose ids lie in an interval, newest first",
               .since = "5.0.0",
               .group = "stream",
               .complexity = "O(N) with N being the number of elements returned. If N is "
                             "constant (e.g. always asking for the first 10 elements with COUNT), "
                             "you can consider it O(1).",
               .history = {{"6.2.0", "Exclusive interval ends written with `(`."}},
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
               .args = {Key("key", 0), String("end"), String("start"),
                        Integer("count").Token("COUNT").Optional()}},
       .handler = XRevRangeCommand});
  t.Register(
      {.name = "xdel",
       .arity = -3,
       .flags = kCmdWrite | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclStream | kAclFast,
       .doc = {.summary = "Deletes entries of a stream by id and counts those that existed",
               .since = "5.0.0",
               .group = "stream",
               .complexity = "O(1) for each single item to delete in the stream, regardless of "
                             "the stream size.",
               .key_specs = {{.flags = kKeyRW | kKeyDelete, .index = 1}},
               .args = {Key("key", 0), String("id").Multiple()}},
       .handler = XDelCommand});
  t.Register(
      {.name = "xtrim",
       .arity = -4,
       .flags = kCmdWrite,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclStream | kAclSlow,
       .doc = {.summary =
                   "Evicts the oldest entries of a stream, by count or by id, exactly or about",
               .since = "5.0.0",
               .group = "stream",
               .complexity = "O(N), with N being the number of evicted entries. Constant times "
                             "are very small however, since entries are organized in macro nodes "
                             "containing multiple entries that can be released with a single "
                             "deallocation.",
               .history = {{"6.2.0", "Trimming by MINID, and LIMIT."}},
               .tips = {"nondeterministic_output"},
               .key_specs = {{.flags = kKeyRW | kKeyDelete, .index = 1}},
               .args = {Key("key", 0), TrimArgDoc()}},
       .handler = XTrimCommand});
  t.Register(
      {.name = "xsetid",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclStream | kAclFast,
       .doc =
           {.summary = "Sets the metadata of a stream (used to replicate it)",
            .since = "5.0.0",
            .group = "stream",
            .complexity = "O(1)",
            .history = {{"7.0.0", "ENTRIESADDED and MAXDELETEDID."}},
            .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
            .args =
                {Key("key", 0), String("last-id"),
                 Integer("entries_added").Token("ENTRIESADDED").Since("7.0.0").Optional(),
                 String("max_deleted_entry_id").Token("MAXDELETEDID").Since("7.0.0").Optional()}},
       .handler = XSetIdCommand});
}

}  // namespace redistp
