// Set commands on one key (and SMOVE on two): SADD SREM SMEMBERS SISMEMBER SMISMEMBER SCARD
// SPOP SRANDMEMBER SMOVE. The multi-key algebra (SINTER, SUNION, SDIFF and their STORE and
// CARD forms) is in set_ops.cc.
//
// Model. A set key exists only while it has a member: SADD creates it with Database::Add once
// the value is built (so a WATCHEX watcher sees ADD), every later edit goes through one
// Mutation (one event, one `dirty`), and a Mutation that leaves the set empty deletes the key
// itself (SREM, SPOP, SMOVE's source). An edit that changed nothing is abandoned: no event,
// nothing propagated, MULTI/WATCH untouched, as Redis signals nothing then.
//
// Randomness (SPOP, SRANDMEMBER). One member is an O(1) pick (SetObject::RandomMember); `count`
// distinct members use SetObject::PickDistinct, O(count) while count is a small share of the
// set, O(size) otherwise, as Redis's strategies are. A negative SRANDMEMBER count asks for
// that many independent picks, repeats allowed.
//
// Reply types (RESP3, checked against Redis 7.0.15): SMEMBERS and SPOP with a count are sets;
// SRANDMEMBER with a count is an array (repeats are possible); SISMEMBER an integer, SMISMEMBER
// an array of integers; SPOP/SRANDMEMBER without a count on a missing key a null.
//
// Propagation. SPOP is random, so a replica must not rerun it: it is replayed as SREM of the
// members it popped, or as DEL when it took the whole set, as Redis 7.0 does.
#include "commands/set.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/set_ops.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/propagation.h"
#include "server/server.h"
#include "types/set.h"
#include "util/numbers.h"

namespace redistp {
namespace {

const TypeLimits& Limits(CommandContext& c) { return c.server.keyspace().limits; }

// SADD key member [member ...]: replies how many members were new.
void SAddCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kWrite, &e)) return;
  const TypeLimits& limits = Limits(c);
  int64_t added = 0;
  if (e == nullptr) {
    Value v = NewSetValue(c.args[2]);
    SetObject& set = SetOf(v);
    for (size_t i = 2; i < c.args.size(); ++i) added += set.Add(c.args[i], limits);
    c.db.Add(c.args[1], std::move(v), notice::kSAdd);
  } else {
    Mutation m = c.db.Mutate(e, notice::kSAdd);
    SetObject& set = SetOf(m.value());
    for (size_t i = 2; i < c.args.size(); ++i) added += set.Add(c.args[i], limits);
    if (added == 0) m.Abandon();
  }
  c.reply.Int(added);
}

// SREM key member [member ...]: replies how many members were removed.
void SRemCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kWrite, &e)) return;
  int64_t removed = 0;
  if (e != nullptr) {
    Mutation m = c.db.Mutate(e, notice::kSRem);
    SetObject& set = SetOf(m.value());
    for (size_t i = 2; i < c.args.size() && set.size() > 0; ++i) removed += set.Remove(c.args[i]);
    if (removed == 0) m.Abandon();
  }
  c.reply.Int(removed);
}

// Replies every member of `set` as a set (an array in RESP2).
void ReplyMembers(CommandContext& c, const SetObject& set) {
  c.reply.Set(set.size());
  set.ForEach([&c](std::string_view m) { c.reply.Bulk(m); });
}

void SMembersCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kRead, &e)) return;
  if (e == nullptr) {
    c.reply.Set(0);
    return;
  }
  ReplyMembers(c, SetOf(e->value));
}

void SIsMemberCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kRead, &e)) return;
  c.reply.Int(e != nullptr && SetOf(e->value).Contains(c.args[2]) ? 1 : 0);
}

void SMIsMemberCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kRead, &e)) return;
  c.reply.Array(c.args.size() - 2);
  for (size_t i = 2; i < c.args.size(); ++i) {
    c.reply.Int(e != nullptr && SetOf(e->value).Contains(c.args[i]) ? 1 : 0);
  }
}

void SCardCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kRead, &e)) return;
  c.reply.Int(e == nullptr ? 0 : static_cast<int64_t>(SetOf(e->value).size()));
}

// SPOP key count: `count` distinct random members, removed. The count is checked before the
// key (Redis's order), and must be a non-negative integer.
void SPopWithCount(CommandContext& c) {
  int64_t count;
  if (!ParseInt64(c.args[2], &count) || count < 0) {
    c.reply.Error(err::kNotPositive);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kWrite, &e)) return;
  if (e == nullptr || count == 0) {
    c.reply.Set(0);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kSPop);
  SetObject& set = SetOf(m.value());
  if (static_cast<uint64_t>(count) >= set.size()) {
    // The whole set: reply it, empty it (the Mutation deletes the key), replay as DEL.
    ReplyMembers(c, set);
    set.Clear();
    c.ReplicateAs({"DEL", c.args[1]});
    return;
  }
  std::vector<SetObject::MemberRef> picks;
  set.PickDistinct(static_cast<size_t>(count), &picks);
  // Replayed as one SREM per member popped (wrapped in MULTI/EXEC), as Redis 7.0 writes it.
  const bool propagate = c.propagation.has_sinks();
  char buf[kMaxInt64Chars + 1];
  c.reply.Set(picks.size());
  for (const SetObject::MemberRef& r : picks) {
    std::string_view member = set.View(r, buf);
    c.reply.Bulk(member);
    if (propagate) {
      c.propagation.AppendRecord(c.db.index(),
                                 {"SREM", std::string(c.args[1]), std::string(member)});
    }
    set.RemoveRef(r);
  }
  c.ReplicateNothing();
}

// SPOP key [count]: without a count, one random member (null when the key is missing).
void SPopCommand(CommandContext& c) {
  if (c.args.size() == 3) {
    SPopWithCount(c);
    return;
  }
  if (c.args.size() > 3) {
    c.reply.Error(err::kSyntax);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Null();
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kSPop);
  SetObject& set = SetOf(m.value());
  SetObject::MemberRef r = set.RandomMember();
  char buf[kMaxInt64Chars + 1];
  std::string_view member = set.View(r, buf);
  c.reply.Bulk(member);
  c.ReplicateAs({"SREM", c.args[1], member});
  set.RemoveRef(r);
}

// SRANDMEMBER key count: distinct members for a positive count (at most the whole set),
// |count| independent picks for a negative one. The count is parsed before the key is read.
void SRandMemberWithCount(CommandContext& c) {
  int64_t count;
  if (!ParseInt64(c.args[2], &count)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  // Redis accepts -LONG_MAX..LONG_MAX, so that |count| never overflows.
  if (count == INT64_MIN) {
    c.reply.Error(err::kSRandMemberCountRange);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kRead, &e)) return;
  if (e == nullptr || count == 0) {
    c.reply.EmptyArray();
    return;
  }
  SetObject& set = SetOf(e->value);
  char buf[kMaxInt64Chars + 1];
  if (count < 0) {
    const uint64_t picks = static_cast<uint64_t>(-count);
    c.reply.Array(picks);
    // A count of billions stops once the reply went over the output limit (it is dropped and
    // the client closed), as Redis 7.0 stops: looked at once per 1024 picks.
    for (uint64_t i = 0; i < picks; ++i) {
      if ((i & 1023) == 1023 && c.client.out.refused()) break;
      c.reply.Bulk(set.View(set.RandomMember(), buf));
    }
    return;
  }
  if (static_cast<uint64_t>(count) >= set.size()) {
    c.reply.Array(set.size());
    set.ForEach([&c](std::string_view m) { c.reply.Bulk(m); });
    return;
  }
  std::vector<SetObject::MemberRef> picks;
  set.PickDistinct(static_cast<size_t>(count), &picks);
  c.reply.Array(picks.size());
  for (const SetObject::MemberRef& r : picks) c.reply.Bulk(set.View(r, buf));
}

// SRANDMEMBER key [count]: without a count, one random member (null when the key is missing).
void SRandMemberCommand(CommandContext& c) {
  if (c.args.size() == 3) {
    SRandMemberWithCount(c);
    return;
  }
  if (c.args.size() > 3) {
    c.reply.Error(err::kSyntax);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kSet, Access::kRead, &e)) return;
  if (e == nullptr) {
    c.reply.Null();
    return;
  }
  SetObject& set = SetOf(e->value);
  char buf[kMaxInt64Chars + 1];
  c.reply.Bulk(set.View(set.RandomMember(), buf));
}

// SMOVE source destination member. Redis's order: a missing source answers 0 before either
// key's type is checked; then WRONGTYPE for either key; moving within one key changes nothing
// and answers whether the member is there. Otherwise two edits, one per key: "srem" on the
// source (deleted if it empties), then "sadd" on the destination (created if missing).
void SMoveCommand(CommandContext& c) {
  const std::string_view src_key = c.args[1], dst_key = c.args[2], member = c.args[3];
  Database::Typed src = c.db.Lookup(src_key, ValueType::kSet, Access::kWrite);
  Database::Typed dst = c.db.Lookup(dst_key, ValueType::kSet, Access::kWrite);
  if (src.entry == nullptr && !src.wrong_type) {
    c.reply.Int(0);
    return;
  }
  if (src.wrong_type || dst.wrong_type) {
    c.reply.Error(err::kWrongType);
    return;
  }
  if (src.entry == dst.entry) {
    c.reply.Int(SetOf(src.entry->value).Contains(member) ? 1 : 0);
    return;
  }
  {
    Mutation m = c.db.Mutate(src.entry, notice::kSRem);
    if (!SetOf(m.value()).Remove(member)) {
      m.Abandon();
      c.reply.Int(0);
      return;
    }
  }
  if (dst.entry == nullptr) {
    Value v = NewSetValue(member);
    SetOf(v).Add(member, Limits(c));
    c.db.Add(dst_key, std::move(v), notice::kSAdd);
  } else {
    Mutation m = c.db.Mutate(dst.entry, notice::kSAdd);
    if (!SetOf(m.value()).Add(member, Limits(c))) m.Abandon();
  }
  c.reply.Int(1);
}

}  // namespace

using docs::Integer;
using docs::Key;
using docs::String;

void RegisterSetCommands(CommandTable& t) {
  t.Register(
      {.name = "sadd",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclSet | kAclFast,
       .doc = {.summary = "Adds members to a set, creating it if needed",
               .since = "1.0.0",
               .group = "set",
               .complexity = "O(1) for each element added, so O(N) to add N elements when the "
                             "command is called with multiple arguments.",
               .history = {{"2.4.0", "Takes several `member` arguments."}},
               .key_specs = {{.flags = kKeyRW | kKeyInsert, .index = 1}},
               .args = {Key("key", 0), String("member").Multiple()}},
       .handler = SAddCommand});
  t.Register({.name = "srem",
              .arity = -3,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclSet | kAclFast,
              .doc = {.summary = "Removes members from a set, deleting it when it empties",
                      .since = "1.0.0",
                      .group = "set",
                      .complexity = "O(N) where N is the number of members to be removed.",
                      .history = {{"2.4.0", "Takes several `member` arguments."}},
                      .key_specs = {{.flags = kKeyRW | kKeyDelete, .index = 1}},
                      .args = {Key("key", 0), String("member").Multiple()}},
              .handler = SRemCommand});
  t.Register({.name = "smembers",
              .arity = 2,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclSet | kAclSlow,
              .doc = {.summary = "Returns every member of a set",
                      .since = "1.0.0",
                      .group = "set",
                      .complexity = "O(N) where N is the set cardinality.",
                      .tips = {"nondeterministic_output_order"},
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = SMembersCommand});
  t.Register({.name = "sismember",
              .arity = 3,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclSet | kAclFast,
              .doc = {.summary = "Tells whether a value is a member of a set",
                      .since = "1.0.0",
                      .group = "set",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0), String("member")}},
              .handler = SIsMemberCommand});
  t.Register(
      {.name = "smismember",
       .arity = -3,
       .flags = kCmdReadOnly | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclSet | kAclFast,
       .doc = {.summary = "Tells, for each of several values, whether it is a member of a set",
               .since = "6.2.0",
               .group = "set",
               .complexity = "O(N) where N is the number of elements being checked for membership",
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
               .args = {Key("key", 0), String("member").Multiple()}},
       .handler = SMIsMemberCommand});
  t.Register({.name = "scard",
              .arity = 2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclSet | kAclFast,
              .doc = {.summary = "Returns the number of members of a set",
                      .since = "1.0.0",
                      .group = "set",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = SCardCommand});
  t.Register(
      {.name = "spop",
       .arity = -2,
       .flags = kCmdWrite | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclSet | kAclFast,
       .doc = {.summary = "Removes and returns random members of a set",
               .since = "1.0.0",
               .group = "set",
               .complexity = "Without the count argument O(1), otherwise O(N) where N is the value "
                             "of the passed count.",
               .history = {{"3.2.0", "The `count` argument."}},
               .tips = {"nondeterministic_output"},
               .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1}},
               .args = {Key("key", 0), Integer("count").Since("3.2.0").Optional()}},
       .handler = SPopCommand});
  t.Register(
      {.name = "srandmember",
       .arity = -2,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclSet | kAclSlow,
       .doc = {.summary = "Returns random members of a set without removing them",
               .since = "1.0.0",
               .group = "set",
               .complexity = "Without the count argument O(1), otherwise O(N) where N is the "
                             "absolute value of the passed count.",
               .history = {{"2.6.0", "The optional `count` argument."}},
               .tips = {"nondeterministic_output"},
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
               .args = {Key("key", 0), Integer("count").Since("2.6.0").Optional()}},
       .handler = SRandMemberCommand});
  t.Register({.name = "smove",
              .arity = 4,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 2,
              .key_step = 1,
              .acl = kAclWrite | kAclSet | kAclFast,
              .doc = {.summary = "Moves a member from one set to another",
                      .since = "1.0.0",
                      .group = "set",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1},
                                    {.flags = kKeyRW | kKeyInsert, .index = 2}},
                      .args = {Key("source", 0), Key("destination", 1), String("member")}},
              .handler = SMoveCommand});
  RegisterSetOpCommands(t);
}

}  // namespace redistp
