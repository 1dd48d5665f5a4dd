// List commands, part one: pushes, pops and reads at the ends and by index.
//
//   LPUSH RPUSH LPUSHX RPUSHX   push one or more elements (the X forms only onto an existing list)
//   LPOP RPOP                   pop one element, or up to `count` (6.2's form)
//   LLEN LINDEX LRANGE          read
//
// Model. A list key always holds a non-empty Quicklist (types/list.h): a push onto a missing key
// builds the list fully and Adds it; a push or pop on an existing one is one Mutation, whose end
// deletes the key when the last element went. Reads leave the interior nodes they decompressed
// raw until Recompress(), which each read command calls before returning.
//
// Replies, Redis 7.0's: a missing key is an empty array for LRANGE, a null for LINDEX and for
// LPOP without count, a null *array* for LPOP with a count (RESP2 "*-1"); LPOP k 0 on an existing
// list is an empty array. A count that is not a non-negative integer answers "value is out of
// range, must be positive" whatever was wrong with it.
//
// The shared edits of list.h (ListPushOne, ListPopReply, ListMoveReply ...) live here too.
#include "commands/list.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "commands/lookup.h"
#include "commands/register.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "types/list.h"
#include "util/numbers.h"

namespace redistp {

// ---- shared edits (list.h) ----

bool ParseListEnd(std::string_view arg, ListEnd* end) {
  if (EqualsIgnoreCase(arg, "left")) {
    *end = ListEnd::kHead;
    return true;
  }
  if (EqualsIgnoreCase(arg, "right")) {
    *end = ListEnd::kTail;
    return true;
  }
  return false;
}

void ReplyListEntry(ReplyBuilder& reply, const ListpackEntry& entry) {
  if (!entry.is_int) {
    reply.Bulk(entry.str);
    return;
  }
  char buf[kMaxInt64Chars + 1];
  reply.Bulk(std::string_view(buf, FormatInt64(entry.num, buf)));
}

namespace {

// Pushes s at `end`; elements of `threshold` bytes or more get a plain node.
inline void Push(Quicklist& ql, std::string_view s, ListEnd end, size_t threshold) {
  if (end == ListEnd::kHead) {
    ql.PushFront(s, threshold);
  } else {
    ql.PushBack(s, threshold);
  }
}

// Replies and deletes `n` elements (n <= size) from `end`, each replied before it is deleted.
void PopElements(Quicklist& ql, ListEnd end, size_t n, ReplyBuilder& reply) {
  for (size_t i = 0; i < n; ++i) {
    Quicklist::Cursor c = end == ListEnd::kHead ? ql.First() : ql.Last();
    ReplyListEntry(reply, ql.Get(c));
    ql.Delete(c);
  }
}

}  // namespace

void ListPushOne(Database& db, Entry* e, std::string_view key, std::string_view value, ListEnd end,
                 const TypeLimits& limits) {
  if (e == nullptr) {
    Value v = NewListValue(limits);
    Push(ListOf(v), value, end, limits.list_packed_threshold);
    db.Add(key, std::move(v), PushNotice(end));
    return;
  }
  Mutation m = db.Mutate(e, PushNotice(end));
  Push(ListOf(m.value()), value, end, limits.list_packed_threshold);
}

void ListPopReply(Database& db, Entry* e, ListEnd end, int64_t count, ReplyBuilder& reply) {
  Mutation m = db.Mutate(e, PopNotice(end));
  Quicklist& ql = ListOf(m.value());
  size_t n = std::min(static_cast<uint64_t>(count), static_cast<uint64_t>(ql.Size()));
  reply.Array(n);
  PopElements(ql, end, n, reply);
}

void ListPopReplyWithKey(Database& db, Entry* e, std::string_view key, ListEnd end, int64_t count,
                         ReplyBuilder& reply) {
  reply.Array(2);
  reply.Bulk(key);
  ListPopReply(db, e, end, count, reply);
}

void ListMoveReply(Database& db, Entry* src, std::string_view dst_key, Entry* dst, ListEnd from,
                   ListEnd to, const TypeLimits& limits, ReplyBuilder& reply) {
  if (src == dst) {
    // One list: take the element out and put it back at the other end, then announce the pop
    // after the push, as Redis does.
    {
      Mutation m = db.Mutate(src, PushNotice(to));
      Quicklist& ql = ListOf(m.value());
      Quicklist::Cursor c = from == ListEnd::kHead ? ql.First() : ql.Last();
      ListpackEntry entry = ql.Get(c);
      ReplyListEntry(reply, entry);
      char buf[kMaxInt64Chars + 1];
      std::string moved =
          entry.is_int ? std::string(buf, FormatInt64(entry.num, buf)) : std::string(entry.str);
      ql.Delete(c);
      Push(ql, moved, to, limits.list_packed_threshold);
    }
    db.Mutate(src, PopNotice(from)).Commit();
    return;
  }
  Quicklist& source = ListOf(src->value);
  Quicklist::Cursor c = from == ListEnd::kHead ? source.First() : source.Last();
  ListpackEntry entry = source.Get(c);
  char buf[kMaxInt64Chars + 1];
  std::string_view element =
      entry.is_int ? std::string_view(buf, FormatInt64(entry.num, buf)) : entry.str;
  reply.Bulk(element);
  // The destination is another list: the view into the source stays valid while it is pushed.
  ListPushOne(db, dst, dst_key, element, to, limits);
  Mutation m = db.Mutate(src, PopNotice(from));
  ListOf(m.value()).Delete(from == ListEnd::kHead ? source.First() : source.Last());
}

namespace {

// ---- pushes ----

// LPUSH/RPUSH (create = true) and LPUSHX/RPUSHX: pushes args[2..] one by one at `end`.
void PushCommand(CommandContext& c, ListEnd end, bool create) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kWrite, &e)) return;
  const size_t threshold = c.server.keyspace().limits.list_packed_threshold;
  if (e == nullptr) {
    if (!create) {
      c.reply.Int(0);
      return;
    }
    Value v = NewListValue(c.server.keyspace().limits);
    Quicklist& ql = ListOf(v);
    for (size_t i = 2; i < c.args.size(); ++i) Push(ql, c.args[i], end, threshold);
    size_t len = ql.Size();
    c.db.Add(c.args[1], std::move(v), PushNotice(end));
    c.reply.Int(static_cast<int64_t>(len));
    return;
  }
  Mutation m = c.db.Mutate(e, PushNotice(end));
  Quicklist& ql = ListOf(m.value());
  for (size_t i = 2; i < c.args.size(); ++i) Push(ql, c.args[i], end, threshold);
  c.reply.Int(static_cast<int64_t>(ql.Size()));
}

void LPushCommand(CommandContext& c) { PushCommand(c, ListEnd::kHead, true); }
void RPushCommand(CommandContext& c) { PushCommand(c, ListEnd::kTail, true); }
void LPushXCommand(CommandContext& c) { PushCommand(c, ListEnd::kHead, false); }
void RPushXCommand(CommandContext& c) { PushCommand(c, ListEnd::kTail, false); }

// ---- pops ----

// LPOP/RPOP key [count].
void PopCommand(CommandContext& c, ListEnd end) {
  if (c.args.size() > 3) {
    c.reply.Error(err::WrongArity(c.spec.full_name));
    return;
  }
  bool has_count = c.args.size() == 3;
  int64_t count = 1;
  if (has_count && (!ParseInt64(c.args[2], &count) || count < 0)) {
    c.reply.Error(err::kNotPositive);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kWrite, &e)) return;
  if (e == nullptr) {
    if (has_count) {
      c.reply.NullArray();
    } else {
      c.reply.Null();
    }
    return;
  }
  if (has_count) {
    if (count == 0) {
      c.reply.EmptyArray();  // nothing popped, nothing changed
      return;
    }
    ListPopReply(c.db, e, end, count, c.reply);
    return;
  }
  Mutation m = c.db.Mutate(e, PopNotice(end));
  PopElements(ListOf(m.value()), end, 1, c.reply);
}

void LPopCommand(CommandContext& c) { PopCommand(c, ListEnd::kHead); }
void RPopCommand(CommandContext& c) { PopCommand(c, ListEnd::kTail); }

// ---- reads ----

void LLenCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kRead, &e)) return;
  c.reply.Int(e == nullptr ? 0 : static_cast<int64_t>(ListOf(e->value).Size()));
}

// The key is looked up before the index is parsed (Redis 7.0's order: a missing key answers
// null, a string WRONGTYPE, whatever the index).
void LIndexCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kRead, &e)) return;
  if (e == nullptr) {
    c.reply.Null();
    return;
  }
  int64_t index;
  if (!ParseInt64(c.args[2], &index)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  const Quicklist& ql = ListOf(e->value);
  Quicklist::Cursor cur = ql.Seek(index);
  if (!cur.Valid()) {
    c.reply.Null();
  } else {
    ReplyListEntry(c.reply, ql.Get(cur));
  }
  ql.Recompress();
}

void LRangeCommand(CommandContext& c) {
  int64_t start, stop;
  if (!ParseInt64(c.args[2], &start) || !ParseInt64(c.args[3], &stop)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kRead, &e)) return;
  if (e == nullptr) {
    c.reply.EmptyArray();
    return;
  }
  const Quicklist& ql = ListOf(e->value);
  const int64_t len = static_cast<int64_t>(ql.Size());
  if (start < 0) start = std::max<int64_t>(len + start, 0);
  if (stop < 0) stop = len + stop;
  if (start > stop || start >= len) {
    c.reply.EmptyArray();
    return;
  }
  if (stop >= len) stop = len - 1;
  const size_t n = static_cast<size_t>(stop - start + 1);
  c.reply.Array(n);
  // One seek (from the nearer end), then a walk: each element is read once.
  Quicklist::Cursor cur = ql.Seek(start);
  for (size_t i = 0; i < n; ++i) {
    ReplyListEntry(c.reply, ql.Get(cur));
    cur = ql.Next(cur);
  }
  ql.Recompress();
}

}  // namespace

using docs::Integer;
using docs::Key;
using docs::String;

void RegisterListCommands(CommandTable& t) {
  constexpr uint64_t kPushFlags = kCmdWrite | kCmdDenyOom | kCmdFast;
  constexpr uint64_t kPushAcl = kAclWrite | kAclList | kAclFast;
  constexpr std::string_view kPushComplexity =
      "O(1) for each element added, so O(N) to add N elements when the command is called with "
      "multiple arguments.";
  struct PushRow {
    const char* name;
    const char* summary;
    const char* since;
    HistoryEntry history;
    CommandHandler handler;
  };
  const PushRow pushes[] = {
      {"lpush",
       "Inserts elements at the head of a list, creating it if needed",
       "1.0.0",
       {"2.4.0", "Accepts multiple `element` arguments."},
       LPushCommand},
      {"rpush",
       "Appends elements at the tail of a list, creating it if needed",
       "1.0.0",
       {"2.4.0", "Accepts multiple `element` arguments."},
       RPushCommand},
      {"lpushx",
       "Inserts elements at the head of a list, only when the list exists",
       "2.2.0",
       {"4.0.0", "Accepts multiple `element` arguments."},
       LPushXCommand},
      {"rpushx",
       "Appends elements at the tail of a list, only when the list exists",
       "2.2.0",
       {"4.0.0", "Accepts multiple `element` arguments."},
       RPushXCommand},
  };
  for (const PushRow& p : pushes) {
    t.Register({.name = p.name,
                .arity = -3,
                .flags = kPushFlags,
                .first_key = 1,
                .last_key = 1,
                .key_step = 1,
                .acl = kPushAcl,
                .doc = {.summary = p.summary,
                        .since = p.since,
                        .group = "list",
                        .complexity = kPushComplexity,
                        .history = {p.history},
                        .key_specs = {{.flags = kKeyRW | kKeyInsert, .index = 1}},
                        .args = {Key("key", 0), String("element").Multiple()}},
                .handler = p.handler});
  }
  for (bool left : {true, false}) {
    t.Register({.name = left ? "lpop" : "rpop",
                .arity = -2,
                .flags = kCmdWrite | kCmdFast,
                .first_key = 1,
                .last_key = 1,
                .key_step = 1,
                .acl = kAclWrite | kAclList | kAclFast,
                .doc = {.summary = left ? "Removes and returns the first elements of a list"
                                        : "Removes and returns the last elements of a list",
                        .since = "1.0.0",
                        .group = "list",
                        .complexity = "O(N) where N is the number of elements returned",
                        .history = {{"6.2.0", "Added the `count` argument."}},
                        .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1}},
                        .args = {Key("key", 0), Integer("count").Since("6.2.0").Optional()}},
                .handler = left ? LPopCommand : RPopCommand});
  }
  t.Register({.name = "llen",
              .arity = 2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclList | kAclFast,
              .doc = {.summary = "Returns the number of elements of a list",
                      .since = "1.0.0",
                      .group = "list",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = LLenCommand});
  t.Register({.name = "lindex",
              .arity = 3,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclList | kAclSlow,
              .doc = {.summary = "Returns the element of a list at an index",
                      .since = "1.0.0",
                      .group = "list",
                      .complexity = "O(N) where N is the number of elements to traverse to get to "
                                    "the element at index. This makes asking for the first or the "
                                    "last element of the list O(1).",
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0), Integer("index")}},
              .handler = LIndexCommand});
  t.Register({.name = "lrange",
              .arity = 4,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclList | kAclSlow,
              .doc = {.summary = "Returns the elements of a list between two indexes",
                      .since = "1.0.0",
                      .group = "list",
                      .complexity = "O(S+N) where S is the distance of start offset from HEAD for "
                                    "small lists, from nearest end (HEAD or TAIL) for large lists; "
                                    "and N is the number of elements in the specified range.",
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0), Integer("start"), Integer("stop")}},
              .handler = LRangeCommand});
  RegisterListEditCommands(t);
  RegisterListBlockingCommands(t);
}

}  // namespace redistp
