// Compare-and-delete and value digests: DIGEST (Redis 8.4), DELEX (Redis 8.4) and DELIFEQ
// (Valkey 9.0), with the conditions SET's IFEQ/IFNE/IFDEQ/IFDNE share (string_cas.h).
//
// Model. These are the lock-release primitives: "delete the key only if it still holds my
// token" as one command instead of a Lua script. A deletion here is DEL's: the same
// Database::Remove (so a temporary key's owner, watchers, BSETTP waiters, MULTI WATCH,
// client-side caching and keyspace notifications see a `del`, whoever sent it, exactly as for
// DEL of that key), replayed to replicas and the AOF as `DEL key` — a form every server can
// load, whatever the condition was. A comparison that fails changes nothing and records
// nothing.
//
// Where the two origins differ on the same situation, each command keeps its own documented
// answer: DELIFEQ (Valkey) answers WRONGTYPE for a key of another type, DELEX with a condition
// (Redis) answers "Key should be of string type if conditions are specified". DELEX looks the
// key up before it reads its condition word, as Redis 8.4 does, so a missing key answers 0
// and a key of another type its type error even when the word is not a condition.
#include <string_view>

#include "commands/lookup.h"
#include "commands/string_cas.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "protocol/errors_cas.h"
#include "server/client.h"
#include "server/server.h"
#include "util/hash.h"
#include "util/numbers.h"

namespace redistp {

void FormatValueDigest(std::string_view bytes, char out[kDigestHexLength]) {
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t h = XXH3_64bits(bytes.data(), bytes.size());
  for (size_t i = kDigestHexLength; i-- > 0;) {
    out[i] = kHex[h & 0xf];
    h >>= 4;
  }
}

CasCondition ParseCasCondition(std::string_view word) {
  if (EqualsIgnoreCase(word, "ifeq")) return CasCondition::kIfEq;
  if (EqualsIgnoreCase(word, "ifne")) return CasCondition::kIfNe;
  if (EqualsIgnoreCase(word, "ifdeq")) return CasCondition::kIfDeq;
  if (EqualsIgnoreCase(word, "ifdne")) return CasCondition::kIfDne;
  return CasCondition::kNone;
}

bool EvaluateCas(CommandContext& c, CasCondition cond, std::string_view current,
                 std::string_view arg, bool* replied) {
  *replied = false;
  switch (cond) {
    case CasCondition::kIfEq:
      return current == arg;
    case CasCondition::kIfNe:
      return current != arg;
    case CasCondition::kIfDeq:
    case CasCondition::kIfDne: {
      if (arg.size() != kDigestHexLength) {
        c.reply.Error(err::kDigestLength);
        *replied = true;
        return false;
      }
      char digest[kDigestHexLength];
      FormatValueDigest(current, digest);
      const bool equal = EqualsIgnoreCase(std::string_view(digest, kDigestHexLength), arg);
      return cond == CasCondition::kIfDeq ? equal : !equal;
    }
    case CasCondition::kNone:
      break;
  }
  return false;
}

namespace {

// Deletes `e` as DEL deletes a key (freed lazily under lazyfree-lazy-user-del), recorded as
// `DEL key`.
void DeleteAsDel(CommandContext& c, Entry* e, std::string_view key) {
  LazyFreePolicy& policy = c.server.keyspace().lazy;
  policy.user_delete = c.server.config().lazyfree_lazy_user_del ? LazyFreePolicy::UserDelete::kLazy
                                                                : LazyFreePolicy::UserDelete::kSync;
  c.db.Remove(e, RemoveCause::kDeleted);
  policy.user_delete = LazyFreePolicy::UserDelete::kNone;
  c.ReplicateAs({"DEL", key});
}

// DIGEST key: the value's digest as 16 hex digits; nil for a missing key, WRONGTYPE for a key
// of another type. A read (counts a hit or a miss, as GET does).
void DigestCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kRead, &e)) return;
  if (e == nullptr) {
    c.reply.Null();
    return;
  }
  char scratch[kMaxInt64Chars + 1];
  char digest[kDigestHexLength];
  FormatValueDigest(e->value.View(scratch), digest);
  c.reply.Bulk(std::string_view(digest, kDigestHexLength));
}

// DELEX key [IFEQ v | IFNE v | IFDEQ d | IFDNE d]
// Without a condition it is DEL of one key, of any type. With one, in this order: a missing key
// answers 0; a key of another type the string-type error; then the condition word is checked
// (unknown: the condition error) and evaluated (a digest of the wrong length: its error). A
// condition word without its value, or anything after it, is an arity error, checked before
// the key is looked up.
void DelExCommand(CommandContext& c) {
  const std::string_view key = c.args[1];
  if (c.args.size() == 2) {
    Entry* e = c.db.LookupWrite(key);
    if (e != nullptr) DeleteAsDel(c, e, key);
    c.reply.Int(e != nullptr ? 1 : 0);
    return;
  }
  if (c.args.size() != 4) {
    c.reply.Error(err::WrongArity(c.spec.full_name));
    return;
  }
  Entry* e = c.db.LookupRead(key);
  if (e == nullptr) {
    c.reply.Int(0);
    return;
  }
  if (!e->value.is_string()) {
    c.reply.Error(err::kDelexNotString);
    return;
  }
  const CasCondition cond = ParseCasCondition(c.args[2]);
  if (cond == CasCondition::kNone) {
    c.reply.Error(err::kDelexCondition);
    return;
  }
  char scratch[kMaxInt64Chars + 1];
  bool replied;
  const bool holds = EvaluateCas(c, cond, e->value.View(scratch), c.args[3], &replied);
  if (replied) return;
  if (holds) DeleteAsDel(c, e, key);
  c.reply.Int(holds ? 1 : 0);
}

// DELIFEQ key value: deletes the key if it holds exactly `value`; 1 if deleted, else 0 (missing
// key or another value); WRONGTYPE for a key of another type.
void DelIfEqCommand(CommandContext& c) {
  const std::string_view key = c.args[1];
  Entry* e;
  if (!LookupTyped(c, key, ValueType::kString, Access::kWrite, &e)) return;
  char scratch[kMaxInt64Chars + 1];
  const bool holds = e != nullptr && e->value.View(scratch) == c.args[2];
  if (holds) DeleteAsDel(c, e, key);
  c.reply.Int(holds ? 1 : 0);
}

// DELEX reads the value only when it carries a condition; otherwise it removes blindly, as DEL.
// GETKEYSANDFLAGS reports which (the row declares RW with variable flags).
uint32_t DelExKeyFlags(const std::vector<std::string_view>& args, size_t /*spec_index*/,
                       uint32_t /*declared_flags*/) {
  if (args.size() > 2) return kKeyRW | kKeyAccess | kKeyDelete;
  return kKeyRM | kKeyDelete;
}

}  // namespace

using docs::Key;
using docs::OneOf;
using docs::String;

void RegisterStringCasCommands(CommandTable& t) {
  t.Register({.name = "digest",
              .arity = 2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclString | kAclFast,
              .doc = {.summary = "Returns the XXH3-64 digest of a string value as 16 hex digits",
                      .since = "8.4.0",
                      .group = "string",
                      .complexity = "O(N) where N is the length of the string value.",
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = DigestCommand});
  t.Register(
      {.name = "delex",
       .arity = -2,
       .flags = kCmdWrite | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclString | kAclFast,
       .doc = {.summary = "Deletes a key, or only if its value or digest meets a condition",
               .since = "8.4.0",
               .group = "string",
               .complexity =
                   "O(1) for IFEQ/IFNE, O(N) for IFDEQ/IFDNE where N is the length of the "
                   "string value.",
               .key_specs = {{.flags = kKeyRW | kKeyDelete | kKeyVariableFlags,
                              .notes = "Read (RW, access) only with a condition; otherwise just "
                                       "removed",
                              .index = 1}},
               .refine_key_flags = DelExKeyFlags,
               .args = {Key("key", 0), OneOf("condition", {String("ifeq-value").Token("IFEQ"),
                                                           String("ifne-value").Token("IFNE"),
                                                           String("ifdeq-digest").Token("IFDEQ"),
                                                           String("ifdne-digest").Token("IFDNE")})
                                           .Optional()}},
       .handler = DelExCommand});
  t.Register({.name = "delifeq",
              .arity = 3,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclString | kAclFast,
              .doc = {.summary = "Deletes a key only if it holds the given string",
                      .since = "9.0.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRM | kKeyAccess | kKeyDelete, .index = 1}},
                      .args = {Key("key", 0), String("value")}},
              .handler = DelIfEqCommand});
}

}  // namespace redistp
