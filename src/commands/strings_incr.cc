// String commands, part two: arithmetic on string values.
//
//   INCR, DECR, INCRBY, DECRBY   64-bit signed integer arithmetic
//   INCRBYFLOAT                  long double arithmetic, stored in human-readable form
//
// Model. A string is a number when its bytes are exactly what ParseInt64 (or ParseLongDouble)
// accepts; a missing key counts as 0. The result replaces the value through
// Database::Overwrite with the TTL kept, as Redis does: arithmetic is an update, not a new SET.
// Integer results are stored with the int encoding (no allocation: the 16-byte Value holds the
// int64), so INCR on a hot counter costs one lookup and no malloc.
//
// Errors, in Redis's order. INCRBY/DECRBY parse their step before looking at the key (and
// DECRBY refuses INT64_MIN, which cannot be negated: "decrement would overflow"); then come
// WRONGTYPE for a non-string key, the stored value's syntax ("value is not an integer or out of
// range"), and overflow. INCRBYFLOAT checks the key (WRONGTYPE, "value is not a valid float")
// before its increment, then refuses a NaN or infinite result.
//
// INCRBYFLOAT formats its result with 17 fractional digits and trailing zeros dropped
// (FormatLongDoubleHuman), so 10.5 + 0.1 reads back as "10.6".
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "commands/float_increment.h"
#include "commands/lookup.h"
#include "commands/register.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// Adds `delta` to the integer stored at args[1] (0 when absent) and replies the new value.
void IncrementBy(CommandContext& c, int64_t delta, KeyNotice notice) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kWrite, &e)) return;
  int64_t current = 0;
  if (e != nullptr) {
    if (!e->value.GetInt(&current)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
  }
  int64_t result;
  if (__builtin_add_overflow(current, delta, &result)) {
    c.reply.Error(err::kOverflow);
    return;
  }
  if (e != nullptr) {
    c.db.Overwrite(e, Value::Integer(result), true, notice);
  } else {
    c.db.Add(c.args[1], Value::Integer(result), notice);
  }
  c.reply.Int(result);
}

// Parses args[2] as the step of INCRBY/DECRBY; replies the error and returns false if invalid.
bool ParseStep(CommandContext& c, int64_t* step) {
  if (!ParseInt64(c.args[2], step)) {
    c.reply.Error(err::kNotInteger);
    return false;
  }
  return true;
}

void IncrCommand(CommandContext& c) { IncrementBy(c, 1, notice::kIncrBy); }

void DecrCommand(CommandContext& c) { IncrementBy(c, -1, notice::kIncrBy); }

void IncrByCommand(CommandContext& c) {
  int64_t step;
  if (ParseStep(c, &step)) IncrementBy(c, step, notice::kIncrBy);
}

void DecrByCommand(CommandContext& c) {
  int64_t step;
  if (!ParseStep(c, &step)) return;
  if (step == INT64_MIN) {
    c.reply.Error(err::kDecrOverflow);
    return;
  }
  IncrementBy(c, -step, notice::kIncrBy);
}

// INCRBYFLOAT key increment: replies the new value as a bulk string (its stored form).
void IncrByFloatCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kWrite, &e)) return;
  long double current = 0;
  if (e != nullptr) {
    char scratch[kMaxInt64Chars + 1];
    if (!ParseLongDouble(e->value.View(scratch), &current)) {
      c.reply.Error(err::kNotFloat);
      return;
    }
  }
  long double step;
  if (!ParseLongDouble(c.args[2], &step)) {
    c.reply.Error(err::kNotFloat);
    return;
  }
  std::string text;
  if (!FloatIncrementText(c, current, step, &text)) return;
  if (e != nullptr) {
    c.db.Overwrite(e, Value::TextString(text), true, notice::kIncrByFloat);
  } else {
    c.db.Add(c.args[1], Value::TextString(text), notice::kIncrByFloat);
  }
  // Replayed as the value it produced (float formatting and precision may differ between
  // servers), keeping the TTL, as Redis 7.0 does.
  c.ReplicateAs({"SET", c.args[1], text, "KEEPTTL"});
  c.reply.Bulk(text);
}

}  // namespace

using docs::Double;
using docs::Integer;
using docs::Key;

void RegisterStringIncrCommands(CommandTable& t) {
  constexpr uint64_t kFlags = kCmdWrite | kCmdDenyOom | kCmdFast;
  constexpr uint64_t kAcl = kAclWrite | kAclString | kAclFast;
  t.Register({.name = "incr",
              .arity = 2,
              .flags = kFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAcl,
              .doc = {.summary = "Adds one to the integer stored at a key",
                      .since = "1.0.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = IncrCommand});
  t.Register({.name = "decr",
              .arity = 2,
              .flags = kFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAcl,
              .doc = {.summary = "Subtracts one from the integer stored at a key",
                      .since = "1.0.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = DecrCommand});
  t.Register({.name = "incrby",
              .arity = 3,
              .flags = kFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAcl,
              .doc = {.summary = "Adds an integer amount to the integer stored at a key",
                      .since = "1.0.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), Integer("increment")}},
              .handler = IncrByCommand});
  t.Register({.name = "decrby",
              .arity = 3,
              .flags = kFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAcl,
              .doc = {.summary = "Subtracts an integer amount from the integer stored at a key",
                      .since = "1.0.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), Integer("decrement")}},
              .handler = DecrByCommand});
  t.Register({.name = "incrbyfloat",
              .arity = 3,
              .flags = kFlags,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAcl,
              .doc = {.summary = "Adds a floating point amount to the number stored at a key",
                      .since = "2.6.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), Double("increment")}},
              .handler = IncrByFloatCommand});
}

}  // namespace redistp
