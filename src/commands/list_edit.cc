// List commands, part two: edits inside a list and searching it.
//
//   LSET key index element                    replace the element at an index
//   LINSERT key BEFORE|AFTER pivot element    insert next to the first element equal to pivot
//   LREM key count element                    remove up to |count| equal elements (0: all),
//                                             from the head for count > 0, the tail for < 0
//   LTRIM key start stop                      keep only the range
//   LPOS key element [RANK r] [COUNT n] [MAXLEN m]
//
// Model. Each edit is one Mutation of an existing list (a missing key is never created here):
// an edit that turns out to change nothing Abandons it (no event, WATCH untouched), except LTRIM,
// which Redis announces ("ltrim", the key signalled as modified) even when the range covers the
// whole list. LREM and LTRIM may empty the list; the Mutation then deletes the key.
//
// Element equality is byte equality, an integer entry being equal to its canonical text
// (ListpackEntry::Equals), as in Redis.
//
// Redis 7.0 quirks kept: LSET looks the key up before parsing the index ("no such key" wins
// over a bad index); LPOS answers a bad COUNT or MAXLEN with "... can't be negative" whatever
// was wrong, and takes RANK -9223372036854775808 as -1 (7.0 negates it in place and the
// overflowed value still compares below every match count; 7.2 rejects it).
#include <cstdint>
#include <limits>
#include <string_view>

#include "commands/list.h"
#include "commands/lookup.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "types/list.h"
#include "util/numbers.h"

namespace redistp {
namespace {

void LSetCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Error(err::kNoSuchKey);
    return;
  }
  int64_t index;
  if (!ParseInt64(c.args[2], &index)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  Quicklist& ql = ListOf(e->value);
  Quicklist::Cursor cur = ql.Seek(index);
  if (!cur.Valid()) {
    ql.Recompress();
    c.reply.Error(err::kIndexOutOfRange);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kLSet);
  ql.Replace(cur, c.args[3], c.server.keyspace().limits.list_packed_threshold);
  c.reply.Ok();
}

void LInsertCommand(CommandContext& c) {
  bool after;
  if (EqualsIgnoreCase(c.args[2], "after")) {
    after = true;
  } else if (EqualsIgnoreCase(c.args[2], "before")) {
    after = false;
  } else {
    c.reply.Error(err::kSyntax);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Int(0);
    return;
  }
  Quicklist& ql = ListOf(e->value);
  std::string_view pivot = c.args[3];
  Quicklist::Cursor cur = ql.First();
  while (cur.Valid() && !ql.Get(cur).Equals(pivot)) cur = ql.Next(cur);
  if (!cur.Valid()) {
    ql.Recompress();
    c.reply.Int(-1);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kLInsert);
  const size_t threshold = c.server.keyspace().limits.list_packed_threshold;
  if (after) {
    ql.InsertAfter(cur, c.args[4], threshold);
  } else {
    ql.InsertBefore(cur, c.args[4], threshold);
  }
  c.reply.Int(static_cast<int64_t>(ql.Size()));
}

void LRemCommand(CommandContext& c) {
  int64_t count;
  if (!ParseInt64(c.args[2], &count)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Int(0);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kLRem);
  Quicklist& ql = ListOf(m.value());
  std::string_view element = c.args[3];
  // |count| as unsigned: INT64_MIN has no positive int64.
  uint64_t limit = count == 0  ? std::numeric_limits<uint64_t>::max()
                   : count > 0 ? static_cast<uint64_t>(count)
                               : 0 - static_cast<uint64_t>(count);
  int64_t removed = 0;
  if (count >= 0) {
    Quicklist::Cursor cur = ql.First();
    while (cur.Valid() && static_cast<uint64_t>(removed) < limit) {
      if (ql.Get(cur).Equals(element)) {
        cur = ql.Delete(cur);
        ++removed;
      } else {
        cur = ql.Next(cur);
      }
    }
  } else {
    // Walking back: Delete leaves cursors to earlier elements valid.
    Quicklist::Cursor cur = ql.Last();
    while (cur.Valid() && static_cast<uint64_t>(removed) < limit) {
      Quicklist::Cursor prev = ql.Prev(cur);
      if (ql.Get(cur).Equals(element)) {
        ql.Delete(cur);
        ++removed;
      }
      cur = prev;
    }
  }
  if (removed == 0) {
    ql.Recompress();
    m.Abandon();
  }
  c.reply.Int(removed);
}

void LTrimCommand(CommandContext& c) {
  int64_t start, stop;
  if (!ParseInt64(c.args[2], &start) || !ParseInt64(c.args[3], &stop)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Ok();
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kLTrim);
  Quicklist& ql = ListOf(m.value());
  const int64_t len = static_cast<int64_t>(ql.Size());
  if (start < 0) start += len;
  if (stop < 0) stop += len;
  if (start < 0) start = 0;
  int64_t head_cut, tail_cut;
  if (start > stop || start >= len) {
    head_cut = len;  // an empty range: everything goes and the key with it
    tail_cut = 0;
  } else {
    if (stop >= len) stop = len - 1;
    head_cut = start;
    tail_cut = len - stop - 1;
  }
  if (head_cut > 0) ql.DeleteRange(0, static_cast<size_t>(head_cut));
  if (tail_cut > 0) ql.DeleteRange(-tail_cut, static_cast<size_t>(tail_cut));
  // A range that keeps every element still fires "ltrim" (as Redis), but Redis propagates by
  // the elements removed (dirty += 0): no record, as in its AOF.
  if (head_cut == 0 && tail_cut == 0) c.ReplicateNothing();
  c.reply.Ok();
}

void LPosCommand(CommandContext& c) {
  int64_t rank = 1, count = -1, maxlen = 0;  // count -1: COUNT not given
  for (size_t i = 3; i < c.args.size(); ++i) {
    std::string_view opt = c.args[i];
    bool more = i + 1 < c.args.size();
    if (more && EqualsIgnoreCase(opt, "rank")) {
      if (!ParseInt64(c.args[++i], &rank)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      if (rank == 0) {
        c.reply.Error(err::kLPosRankZero);
        return;
      }
    } else if (more && EqualsIgnoreCase(opt, "count")) {
      if (!ParseInt64(c.args[++i], &count) || count < 0) {
        c.reply.Error(err::kLPosCountNegative);
        return;
      }
    } else if (more && EqualsIgnoreCase(opt, "maxlen")) {
      if (!ParseInt64(c.args[++i], &maxlen) || maxlen < 0) {
        c.reply.Error(err::kLPosMaxlenNegative);
        return;
      }
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kList, Access::kRead, &e)) return;
  if (e == nullptr) {
    if (count >= 0) {
      c.reply.EmptyArray();
    } else {
      c.reply.Null();
    }
    return;
  }
  const Quicklist& ql = ListOf(e->value);
  const bool from_tail = rank < 0;
  // The match to start from; INT64_MIN counts as -1 (see the essay).
  const uint64_t skip_to = rank == std::numeric_limits<int64_t>::min() ? 1
                           : from_tail ? static_cast<uint64_t>(-rank)
                                       : static_cast<uint64_t>(rank);
  const uint64_t len = ql.Size();
  const uint64_t scan = maxlen == 0 ? len : std::min<uint64_t>(len, static_cast<uint64_t>(maxlen));
  size_t handle = 0;
  if (count >= 0) handle = c.reply.DeferLen();
  uint64_t matches = 0, found = 0;
  bool any = false;
  int64_t first_index = 0;
  Quicklist::Cursor cur = from_tail ? ql.Last() : ql.First();
  std::string_view element = c.args[2];
  for (uint64_t i = 0; i < scan && cur.Valid(); ++i) {
    if (ql.Get(cur).Equals(element) && ++matches >= skip_to) {
      int64_t index = static_cast<int64_t>(from_tail ? len - 1 - i : i);
      if (count < 0) {
        any = true;
        first_index = index;
        break;
      }
      c.reply.Int(index);
      if (++found == static_cast<uint64_t>(count)) break;  // count 0: never
    }
    cur = from_tail ? ql.Prev(cur) : ql.Next(cur);
  }
  ql.Recompress();
  if (count >= 0) {
    c.reply.SetDeferredLen(handle, '*', found);
  } else if (any) {
    c.reply.Int(first_index);
  } else {
    c.reply.Null();
  }
}

}  // namespace

using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;

void RegisterListEditCommands(CommandTable& t) {
  t.Register({.name = "lset",
              .arity = 4,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclList | kAclSlow,
              .doc = {.summary = "Replaces the element of a list at an index",
                      .since = "1.0.0",
                      .group = "list",
                      .complexity = "O(N) where N is the length of the list. Setting either the "
                                    "first or the last element of the list is O(1).",
                      .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), Integer("index"), String("element")}},
              .handler = LSetCommand});
  t.Register(
      {.name = "linsert",
       .arity = 5,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclList | kAclSlow,
       .doc = {.summary = "Inserts an element before or after the first occurrence of a pivot",
               .since = "2.2.0",
               .group = "list",
               .complexity = "O(N) where N is the number of elements to traverse before seeing "
                             "the value pivot. This means that inserting somewhere on the left end "
                             "on the list (head) can be considered O(1) and inserting somewhere on "
                             "the right end (tail) is O(N).",
               .key_specs = {{.flags = kKeyRW | kKeyInsert, .index = 1}},
               .args = {Key("key", 0), OneOf("where", {PureToken("BEFORE"), PureToken("AFTER")}),
                        String("pivot"), String("element")}},
       .handler = LInsertCommand});
  t.Register({.name = "lrem",
              .arity = 4,
              .flags = kCmdWrite,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclList | kAclSlow,
              .doc = {.summary = "Removes elements equal to a value from a list",
                      .since = "1.0.0",
                      .group = "list",
                      .complexity = "O(N+M) where N is the length of the list and M is the number "
                                    "of elements removed.",
                      .key_specs = {{.flags = kKeyRW | kKeyDelete, .index = 1}},
                      .args = {Key("key", 0), Integer("count"), String("element")}},
              .handler = LRemCommand});
  t.Register({.name = "ltrim",
              .arity = 4,
              .flags = kCmdWrite,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclList | kAclSlow,
              .doc = {.summary = "Keeps only the elements of a list between two indexes",
                      .since = "1.0.0",
                      .group = "list",
                      .complexity = "O(N) where N is the number of elements to be removed by the "
                                    "operation.",
                      .key_specs = {{.flags = kKeyRW | kKeyDelete, .index = 1}},
                      .args = {Key("key", 0), Integer("start"), Integer("stop")}},
              .handler = LTrimCommand});
  t.Register(
      {.name = "lpos",
       .arity = -3,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclList | kAclSlow,
       .doc = {.summary = "Returns the indexes of the elements of a list equal to a value",
               .since = "6.0.6",
               .group = "list",
               .complexity = "O(N) where N is the number of elements in the list, for the average "
                             "case. When searching for elements near the head or the tail of the "
                             "list, or when the MAXLEN option is provided, the command may run in "
                             "constant time.",
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
               .args = {Key("key", 0), String("element"), Integer("rank").Token("RANK").Optional(),
                        Integer("num-matches").Token("COUNT").Optional(),
                        Integer("len").Token("MAXLEN").Optional()}},
       .handler = LPosCommand});
}

}  // namespace redistp
