// Hash commands: a key holding a map of fields to values (types/hash.h).
//
//   HSET HMSET HSETNX            set fields (HMSET replies OK, HSETNX only adds)
//   HGET HMGET HSTRLEN HEXISTS   read one or several fields
//   HLEN HKEYS HVALS HGETALL     the whole hash
//   HDEL                         remove fields; the key goes when its last field does
//   HINCRBY HINCRBYFLOAT         arithmetic on a field (0 when absent)
//   HRANDFIELD                   random fields (hash_random.cc)
//   HEXPIRE ... HSETEX           fields with expire times (hash_expire.cc)
//
// Model. A handler looks the key up once with LookupTyped (WRONGTYPE is answered there), then
// either builds a new hash completely and Adds it, or edits the existing one through a single
// Mutation, whose end emits the key event (MULTI WATCH, WATCHEX, dirty, notifications) and
// deletes a hash HDEL emptied. An edit that changes nothing (HSETNX on an existing field, HDEL
// of absent fields) is abandoned: no event, as Redis sends no notification then. HSET always
// counts as a change, even when every value was already there, as in Redis.
//
// Encodings follow Redis 7.0: the arguments of HSET/HMSET/HSETNX are checked against
// hash-max-listpack-value before any field is looked at (HashObject::PrepareWrite), and every
// write converts a listpack that passes hash-max-listpack-entries. Thresholds are read per
// write, so CONFIG SET affects the next write.
//
// Errors, in Redis's order: HSET's odd argument count (an arity error naming the command),
// then the increments of HINCRBY/HINCRBYFLOAT (before the key's type), then WRONGTYPE, then the
// stored value ("hash value is not an integer / a float"), then overflow or a NaN/infinite
// result. Nothing is changed when a command fails.
#include "types/hash.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "commands/float_increment.h"
#include "commands/hash_family.h"
#include "commands/lookup.h"
#include "commands/register.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

const TypeLimits& Limits(CommandContext& c) { return c.server.keyspace().limits; }

// Longest and total byte counts of args[from..], for HashObject::PrepareWrite.
void ArgSizes(const CommandContext& c, size_t from, size_t* longest, size_t* total) {
  *longest = 0;
  *total = 0;
  for (size_t i = from; i < c.args.size(); ++i) {
    *longest = std::max(*longest, c.args[i].size());
    *total += c.args[i].size();
  }
}

// Sets the field/value pairs args[2..] in h; returns how many fields were new.
int64_t SetPairs(CommandContext& c, HashObject& h) {
  size_t longest, total;
  ArgSizes(c, 2, &longest, &total);
  h.PrepareWrite(longest, total, Limits(c));
  int64_t added = 0;
  for (size_t i = 2; i + 1 < c.args.size(); i += 2) {
    added += h.Set(c.args[i], c.args[i + 1], Limits(c)) ? 1 : 0;
  }
  return added;
}

// HSET key field value [field value ...] (replies the number of new fields) and HMSET (OK).
void SetFields(CommandContext& c, bool reply_ok) {
  if (c.args.size() % 2 != 0) {
    c.reply.Error(err::WrongArity(c.spec.full_name));
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kWrite, &e)) return;
  int64_t added;
  if (e == nullptr) {
    Value v = NewHashValue();
    added = SetPairs(c, HashOf(v));
    c.db.Add(c.args[1], std::move(v), notice::kHSet);
  } else {
    Mutation m = c.db.Mutate(e, notice::kHSet);
    added = SetPairs(c, HashOf(m.value()));
  }
  if (reply_ok) {
    c.reply.Ok();
  } else {
    c.reply.Int(added);
  }
}

void HSetCommand(CommandContext& c) { SetFields(c, false); }

void HMSetCommand(CommandContext& c) { SetFields(c, true); }

// HSETNX key field value: 1 if the field was added, 0 if it existed (nothing changes then, not
// even the encoding: Redis 7.0 checks the argument lengths only when it adds the field).
void HSetNxCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kWrite, &e)) return;
  if (e == nullptr) {
    Value v = NewHashValue();
    HashOf(v).Set(c.args[2], c.args[3], Limits(c));
    c.db.Add(c.args[1], std::move(v), notice::kHSet);
    c.reply.Int(1);
    return;
  }
  if (HashOf(e->value).Exists(c.args[2])) {
    c.reply.Int(0);
    return;
  }
  {
    Mutation m = c.db.Mutate(e, notice::kHSet);
    HashObject& h = HashOf(m.value());
    size_t longest, total;
    ArgSizes(c, 2, &longest, &total);
    h.PrepareWrite(longest, total, Limits(c));
    h.Set(c.args[2], c.args[3], Limits(c));
  }
  c.reply.Int(1);
}

// The hash at args[1] for a read command: nullptr when the key is missing (the caller replies
// its empty answer) or on WRONGTYPE (replied here; *ok is false).
HashObject* ReadHash(CommandContext& c, bool* ok) {
  Entry* e;
  *ok = LookupTyped(c, c.args[1], ValueType::kHash, Access::kRead, &e);
  return *ok && e != nullptr ? &HashOf(e->value) : nullptr;
}

void HGetCommand(CommandContext& c) {
  bool ok;
  HashObject* h = ReadHash(c, &ok);
  if (!ok) return;
  char scratch[kMaxInt64Chars + 1];
  std::string_view value;
  if (h != nullptr && h->GetView(c.args[2], scratch, &value)) {
    c.reply.Bulk(value);
  } else {
    c.reply.Null();
  }
}

void HMGetCommand(CommandContext& c) {
  bool ok;
  HashObject* h = ReadHash(c, &ok);
  if (!ok) return;
  c.reply.Array(c.args.size() - 2);
  char scratch[kMaxInt64Chars + 1];
  std::string_view value;
  for (size_t i = 2; i < c.args.size(); ++i) {
    if (h != nullptr && h->GetView(c.args[i], scratch, &value)) {
      c.reply.Bulk(value);
    } else {
      c.reply.Null();
    }
  }
}

// HSTRLEN key field: the length of the value's text (an integer-encoded value counts its
// digits), 0 for a missing field or key.
void HStrLenCommand(CommandContext& c) {
  bool ok;
  HashObject* h = ReadHash(c, &ok);
  if (!ok) return;
  char scratch[kMaxInt64Chars + 1];
  std::string_view value;
  const bool found = h != nullptr && h->GetView(c.args[2], scratch, &value);
  c.reply.Int(found ? static_cast<int64_t>(value.size()) : 0);
}

void HExistsCommand(CommandContext& c) {
  bool ok;
  HashObject* h = ReadHash(c, &ok);
  if (!ok) return;
  c.reply.Int(h != nullptr && h->Exists(c.args[2]) ? 1 : 0);
}

void HLenCommand(CommandContext& c) {
  bool ok;
  HashObject* h = ReadHash(c, &ok);
  if (!ok) return;
  c.reply.Int(h != nullptr ? static_cast<int64_t>(h->size()) : 0);
}

// What HKEYS, HVALS and HGETALL reply for each field.
enum class Part : uint8_t { kFields, kValues, kBoth };

// HKEYS/HVALS: an array; HGETALL: a map (a flat array in RESP2). Listpack hashes answer in
// insertion order, hashtable hashes in table order.
void ReplyWhole(CommandContext& c, Part part) {
  bool ok;
  HashObject* h = ReadHash(c, &ok);
  if (!ok) return;
  const size_t n = h != nullptr ? h->size() : 0;
  if (part == Part::kBoth) {
    c.reply.Map(n);
  } else {
    c.reply.Array(n);
  }
  if (h == nullptr) return;
  h->ForEach([&c, part](std::string_view field, std::string_view value) {
    if (part != Part::kValues) c.reply.Bulk(field);
    if (part != Part::kFields) c.reply.Bulk(value);
  });
}

void HKeysCommand(CommandContext& c) { ReplyWhole(c, Part::kFields); }

void HValsCommand(CommandContext& c) { ReplyWhole(c, Part::kValues); }

void HGetAllCommand(CommandContext& c) { ReplyWhole(c, Part::kBoth); }

// HDEL key field [field ...]: the number of fields removed.
void HDelCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.reply.Int(0);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kHDel);
  HashObject& h = HashOf(m.value());
  int64_t deleted = 0;
  for (size_t i = 2; i < c.args.size() && h.size() > 0; ++i) {
    if (h.Delete(c.args[i])) ++deleted;
  }
  if (deleted == 0) {
    m.Abandon();
  } else {
    m.Commit();  // deletes the key if it is now empty
  }
  c.reply.Int(deleted);
}

// Stores `text` at field args[2] of the hash at args[1] (e: its entry, nullptr to create it).
// The field keeps its expire time, as in Redis 7.4: an increment changes a value, it does not
// replace the field.
void StoreField(CommandContext& c, Entry* e, std::string_view text, KeyNotice notice) {
  if (e == nullptr) {
    Value v = NewHashValue();
    HashOf(v).Set(c.args[2], text, Limits(c));
    c.db.Add(c.args[1], std::move(v), notice);
    return;
  }
  Mutation m = c.db.Mutate(e, notice);
  HashOf(m.value()).Set(c.args[2], text, Limits(c), /*keep_ttl=*/true);
}

// HINCRBY key field increment: 64-bit signed arithmetic on the field (0 when absent).
void HIncrByCommand(CommandContext& c) {
  int64_t step;
  if (!ParseInt64(c.args[3], &step)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kWrite, &e)) return;
  int64_t current = 0;
  char scratch[kMaxInt64Chars + 1];
  std::string_view text;
  if (e != nullptr && HashOf(e->value).GetView(c.args[2], scratch, &text) &&
      !ParseInt64(text, &current)) {
    c.reply.Error(err::kHashValueNotInteger);
    return;
  }
  int64_t result;
  if (__builtin_add_overflow(current, step, &result)) {
    c.reply.Error(err::kOverflow);
    return;
  }
  char out[kMaxInt64Chars + 1];
  StoreField(c, e, std::string_view(out, FormatInt64(result, out)), notice::kHIncrBy);
  c.reply.Int(result);
}

// HINCRBYFLOAT key field increment: long double arithmetic, the result stored (and replied)
// in INCRBYFLOAT's human form, and replayed as HSET of that text.
void HIncrByFloatCommand(CommandContext& c) {
  long double step;
  if (!ParseLongDouble(c.args[3], &step)) {
    c.reply.Error(err::kNotFloat);
    return;
  }
  if (std::isnan(step) || std::isinf(step)) {
    c.reply.Error(err::kHashIncrNanInf);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kWrite, &e)) return;
  long double current = 0;
  char scratch[kMaxInt64Chars + 1];
  std::string_view stored;
  if (e != nullptr && HashOf(e->value).GetView(c.args[2], scratch, &stored) &&
      !ParseLongDouble(stored, &current)) {
    c.reply.Error(err::kHashValueNotFloat);
    return;
  }
  std::string text;
  if (!FloatIncrementText(c, current, step, &text)) return;
  StoreField(c, e, text, notice::kHIncrByFloat);
  // Float formatting and precision may differ between servers: replicas and the AOF get the
  // value this one computed, as Redis 7.0 sends it. HSET clears a field's expire time, so a
  // field that has one gets it back in a second record.
  int64_t when = 0;
  if (e != nullptr) HashOf(e->value).FieldExpire(c.args[2], &when);
  if (when != 0) {
    c.propagation.AppendRecord(c.db.index(),
                               {"HSET", std::string(c.args[1]), std::string(c.args[2]), text});
    c.ReplicateAs({"HPEXPIREAT", c.args[1], Int64ToString(when), "FIELDS", "1", c.args[2]});
  } else {
    c.ReplicateAs({"HSET", c.args[1], c.args[2], text});
  }
  c.reply.Bulk(text);
}

}  // namespace

using docs::Block;
using docs::Double;
using docs::Integer;
using docs::Key;
using docs::String;

void RegisterHashCommands(CommandTable& t) {
  constexpr uint64_t kWriteFlags = kCmdWrite | kCmdDenyOom | kCmdFast;
  constexpr uint64_t kReadFast = kCmdReadOnly | kCmdFast;
  constexpr uint64_t kAclWriteFast = kAclWrite | kAclHash | kAclFast;
  constexpr uint64_t kAclReadFast = kAclRead | kAclHash | kAclFast;
  constexpr uint64_t kAclReadSlow = kAclRead | kAclHash | kAclSlow;
  auto field_values = [] {
    return Block("field_value", {String("field"), String("value")}).Multiple();
  };
  t.Register({.name = "hset",
              .arity = -4,
              .flags = kWriteFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWriteFast,
              .doc = {.summary = "Sets one or more fields of a hash",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(1) for each field/value pair added, so O(N) to add N "
                                    "field/value pairs when the command is called with multiple "
                                    "field/value pairs.",
                      .history = {{"4.0.0", "Takes several field and value pairs."}},
                      .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), field_values()}},
              .handler = HSetCommand});
  t.Register({.name = "hsetnx",
              .arity = 4,
              .flags = kWriteFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWriteFast,
              .doc = {.summary = "Sets a field of a hash only if the field is absent",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyInsert, .index = 1}},
                      .args = {Key("key", 0), String("field"), String("value")}},
              .handler = HSetNxCommand});
  t.Register({.name = "hmset",
              .arity = -4,
              .flags = kWriteFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWriteFast,
              .doc = {.summary = "Sets several fields of a hash and replies OK",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(N) where N is the number of fields being set.",
                      .doc_flags = kDocDeprecated,
                      .deprecated_since = "4.0.0",
                      .replaced_by = "`HSET` with multiple field-value pairs",
                      .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), field_values()}},
              .handler = HMSetCommand});
  t.Register({.name = "hget",
              .arity = 3,
              .flags = kReadFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclReadFast,
              .doc = {.summary = "Returns the value of a field of a hash",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0), String("field")}},
              .handler = HGetCommand});
  t.Register({.name = "hmget",
              .arity = -3,
              .flags = kReadFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclReadFast,
              .doc = {.summary = "Returns the values of several fields of a hash",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(N) where N is the number of fields being requested.",
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0), String("field").Multiple()}},
              .handler = HMGetCommand});
  t.Register({.name = "hgetall",
              .arity = 2,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclReadSlow,
              .doc = {.summary = "Returns every field of a hash with its value",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(N) where N is the size of the hash.",
                      .tips = {"nondeterministic_output_order"},
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = HGetAllCommand});
  t.Register({.name = "hdel",
              .arity = -3,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWriteFast,
              .doc = {.summary = "Removes fields from a hash, and the key with its last field",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(N) where N is the number of fields to be removed.",
                      .history = {{"2.4.0", "Takes several fields."}},
                      .key_specs = {{.flags = kKeyRW | kKeyDelete, .index = 1}},
                      .args = {Key("key", 0), String("field").Multiple()}},
              .handler = HDelCommand});
  t.Register({.name = "hexists",
              .arity = 3,
              .flags = kReadFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclReadFast,
              .doc = {.summary = "Tells whether a field exists in a hash",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0), String("field")}},
              .handler = HExistsCommand});
  t.Register({.name = "hlen",
              .arity = 2,
              .flags = kReadFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclReadFast,
              .doc = {.summary = "Returns the number of fields of a hash",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = HLenCommand});
  t.Register({.name = "hstrlen",
              .arity = 3,
              .flags = kReadFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclReadFast,
              .doc = {.summary = "Returns the length in bytes of the value of a field of a hash",
                      .since = "3.2.0",
                      .group = "hash",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0), String("field")}},
              .handler = HStrLenCommand});
  t.Register({.name = "hkeys",
              .arity = 2,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclReadSlow,
              .doc = {.summary = "Returns every field name of a hash",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(N) where N is the size of the hash.",
                      .tips = {"nondeterministic_output_order"},
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = HKeysCommand});
  t.Register({.name = "hvals",
              .arity = 2,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclReadSlow,
              .doc = {.summary = "Returns every value of a hash",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(N) where N is the size of the hash.",
                      .tips = {"nondeterministic_output_order"},
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = HValsCommand});
  t.Register({.name = "hincrby",
              .arity = 4,
              .flags = kWriteFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWriteFast,
              .doc = {.summary = "Adds an integer amount to the integer value of a field of a hash",
                      .since = "2.0.0",
                      .group = "hash",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), String("field"), Integer("increment")}},
              .handler = HIncrByCommand});
  t.Register({.name = "hincrbyfloat",
              .arity = 4,
              .flags = kWriteFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWriteFast,
              .doc = {.summary = "Adds a floating point amount to the number in a field of a hash",
                      .since = "2.6.0",
                      .group = "hash",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), String("field"), Double("increment")}},
              .handler = HIncrByFloatCommand});
  t.Register(HRandFieldSpec());
}

}  // namespace redistp
