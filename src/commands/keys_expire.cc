// Key expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL, EXPIRETIME,
// PEXPIRETIME and PERSIST.
//
// Model. A TTL is an absolute unix time in milliseconds kept in the Database's expires index
// (Database::ExpireOf, 0 = none; the entry carries only a flag), which active expiry samples. The
// four setters share one implementation that turns its argument into that absolute time: seconds
// are scaled by 1000, relative times are added to the command's cached clock
// (server.keyspace().now_ms(), the same "now" the lookups use), and every step is overflow-checked
// the way Redis 7.0 checks it, so an out-of-range time answers "invalid expire time in '<command>'
// command" instead of wrapping around.
//
// A time that is already due (<= now) does not set a TTL: the key is deleted at once and the
// reply is 1, as in Redis (which propagates such an EXPIRE as a DEL). The deletion goes through
// Database::Remove with cause kDeleted, not kExpired: nothing expired by itself, the client
// asked for the key to go. While loading (expiry disabled) the time is stored instead.
//
// NX/XX/GT/LT compare against the current TTL, a key without one counting as infinite: GT never
// succeeds on it, LT always does.
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

#include "commands/keys_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

enum ExpireFlag : unsigned {
  kExpireNx = 1u << 0,
  kExpireXx = 1u << 1,
  kExpireGt = 1u << 2,
  kExpireLt = 1u << 3,
};

// Parses the NX|XX|GT|LT options after the time. Every option is checked before the
// compatibility rules, so an unknown word wins over a conflict. Replies and returns false on
// error.
bool ParseExpireFlags(CommandContext& c, unsigned* flags) {
  *flags = 0;
  for (size_t i = 3; i < c.args.size(); ++i) {
    std::string_view a = c.args[i];
    if (EqualsIgnoreCase(a, "nx")) {
      *flags |= kExpireNx;
    } else if (EqualsIgnoreCase(a, "xx")) {
      *flags |= kExpireXx;
    } else if (EqualsIgnoreCase(a, "gt")) {
      *flags |= kExpireGt;
    } else if (EqualsIgnoreCase(a, "lt")) {
      *flags |= kExpireLt;
    } else {
      c.reply.Error(err::UnsupportedOption(a));
      return false;
    }
  }
  if ((*flags & kExpireNx) && (*flags & (kExpireXx | kExpireGt | kExpireLt))) {
    c.reply.Error(err::kExpireNxConflict);
    return false;
  }
  if ((*flags & kExpireGt) && (*flags & kExpireLt)) {
    c.reply.Error(err::kExpireGtLtConflict);
    return false;
  }
  return true;
}

// Whether the options allow replacing `current` (absolute ms, 0 = no TTL) with `when`.
bool ExpireFlagsAllow(unsigned flags, int64_t current, int64_t when) {
  if ((flags & kExpireNx) && current != 0) return false;
  if ((flags & kExpireXx) && current == 0) return false;
  if ((flags & kExpireGt) && (current == 0 || when <= current)) return false;
  if ((flags & kExpireLt) && current != 0 && when >= current) return false;
  return true;
}

// The shared EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT body. `relative`: the time is an offset from
// now; `seconds`: the time is in seconds. Order of checks as in Redis: options, integer, range,
// then the key.
void ExpireGeneric(CommandContext& c, bool relative, bool seconds) {
  unsigned flags;
  if (!ParseExpireFlags(c, &flags)) return;
  int64_t when;
  if (!ParseInt64(c.args[2], &when)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  const int64_t now = c.server.keyspace().now_ms();
  if (seconds) {
    if (when > kInt64Max / 1000 || when < kInt64Min / 1000) {
      c.reply.Error(err::InvalidExpire(c.spec.full_name));
      return;
    }
    when *= 1000;
  }
  const int64_t base = relative ? now : 0;
  if (when > kInt64Max - base) {
    c.reply.Error(err::InvalidExpire(c.spec.full_name));
    return;
  }
  when += base;

  Entry* e = c.db.LookupWrite(c.args[1]);
  if (e == nullptr || !ExpireFlagsAllow(flags, c.db.ExpireOf(e), when)) {
    c.reply.Int(0);
    return;
  }
  if (when <= now && c.server.keyspace().expiry.enabled()) {
    c.db.Remove(e, RemoveCause::kDeleted);
    // Replayed as a deletion: a replica must not depend on its own clock to agree.
    c.ReplicateAs({c.server.config().lazyfree_lazy_expire ? "UNLINK" : "DEL", c.args[1]});
  } else {
    c.db.SetExpire(e, when);
    // Replayed as PEXPIREAT with the absolute time, keeping the NX/XX/GT/LT options as
    // Redis 7.0 does, so the replay does not depend on when it happens.
    std::vector<std::string> argv{"PEXPIREAT", std::string(c.args[1]), Int64ToString(when)};
    argv.insert(argv.end(), c.args.begin() + 3, c.args.end());
    c.ReplicateAs(std::move(argv));
  }
  c.reply.Int(1);
}

void ExpireCommand(CommandContext& c) { ExpireGeneric(c, true, true); }
void PExpireCommand(CommandContext& c) { ExpireGeneric(c, true, false); }
void ExpireAtCommand(CommandContext& c) { ExpireGeneric(c, false, true); }
void PExpireAtCommand(CommandContext& c) { ExpireGeneric(c, false, false); }

// TTL/PTTL/EXPIRETIME/PEXPIRETIME: -2 for a missing key, -1 for a key without TTL, else the
// remaining (or absolute) time. Second forms round to the nearest second, computed without the
// signed overflow a huge PEXPIREAT would otherwise cause.
void TtlGeneric(CommandContext& c, bool absolute, bool millis) {
  Entry* e = keycmd::LookupNoTouch(c, c.args[1]);
  if (e == nullptr) {
    c.reply.Int(-2);
    return;
  }
  if (!e->has_expire()) {
    c.reply.Int(-1);
    return;
  }
  const int64_t expire_ms = c.db.ExpireOf(e);
  int64_t t = absolute ? expire_ms : expire_ms - c.server.keyspace().now_ms();
  if (t < 0) t = 0;
  if (millis) {
    c.reply.Int(t);
  } else {
    c.reply.Int(static_cast<int64_t>((static_cast<uint64_t>(t) + 500) / 1000));
  }
}

void TtlCommand(CommandContext& c) { TtlGeneric(c, false, false); }
void PTtlCommand(CommandContext& c) { TtlGeneric(c, false, true); }
void ExpireTimeCommand(CommandContext& c) { TtlGeneric(c, true, false); }
void PExpireTimeCommand(CommandContext& c) { TtlGeneric(c, true, true); }

void PersistCommand(CommandContext& c) {
  Entry* e = c.db.LookupWrite(c.args[1]);
  c.reply.Int(e != nullptr && c.db.Persist(e) ? 1 : 0);
}

using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::UnixTime;

CommandSpec SetterSpec(const char* name, CommandHandler handler, CommandDoc doc) {
  return {.name = name,
          .arity = -3,
          .flags = kCmdWrite | kCmdFast,
          .first_key = 1,
          .last_key = 1,
          .key_step = 1,
          .acl = kAclKeyspace | kAclWrite | kAclFast,
          .doc = std::move(doc),
          .handler = handler};
}

CommandSpec GetterSpec(const char* name, CommandHandler handler, CommandDoc doc) {
  return {.name = name,
          .arity = 2,
          .flags = kCmdReadOnly | kCmdFast,
          .first_key = 1,
          .last_key = 1,
          .key_step = 1,
          .acl = kAclKeyspace | kAclRead | kAclFast,
          .doc = std::move(doc),
          .handler = handler};
}

}  // namespace

void RegisterExpireCommands(CommandTable& t) {
  t.Register(SetterSpec("expire", ExpireCommand,
                        {.summary = "Sets a key's time to live in seconds",
                         .since = "1.0.0",
                         .group = "generic",
                         .complexity = "O(1)",
                         .history = {{"7.0.0", "New `NX`, `XX`, `GT` and `LT` conditions."}},
                         .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
                         .args = {Key("key", 0), Integer("seconds"),
                                  OneOf("condition", {PureToken("NX"), PureToken("XX"),
                                                      PureToken("GT"), PureToken("LT")})
                                      .Since("7.0.0")
                                      .Optional()}}));
  t.Register(SetterSpec("pexpire", PExpireCommand,
                        {.summary = "Sets a key's time to live in milliseconds",
                         .since = "2.6.0",
                         .group = "generic",
                         .complexity = "O(1)",
                         .history = {{"7.0.0", "New `NX`, `XX`, `GT` and `LT` conditions."}},
                         .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
                         .args = {Key("key", 0), Integer("milliseconds"),
                                  OneOf("condition", {PureToken("NX"), PureToken("XX"),
                                                      PureToken("GT"), PureToken("LT")})
                                      .Since("7.0.0")
                                      .Optional()}}));
  t.Register(SetterSpec("expireat", ExpireAtCommand,
                        {.summary = "Makes a key expire at a Unix time given in seconds",
                         .since = "1.2.0",
                         .group = "generic",
                         .complexity = "O(1)",
                         .history = {{"7.0.0", "New `NX`, `XX`, `GT` and `LT` conditions."}},
                         .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
                         .args = {Key("key", 0), UnixTime("unix-time-seconds"),
                                  OneOf("condition", {PureToken("NX"), PureToken("XX"),
                                                      PureToken("GT"), PureToken("LT")})
                                      .Since("7.0.0")
                                      .Optional()}}));
  t.Register(SetterSpec("pexpireat", PExpireAtCommand,
                        {.summary = "Makes a key expire at a Unix time given in milliseconds",
                         .since = "2.6.0",
                         .group = "generic",
                         .complexity = "O(1)",
                         .history = {{"7.0.0", "New `NX`, `XX`, `GT` and `LT` conditions."}},
                         .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
                         .args = {Key("key", 0), UnixTime("unix-time-milliseconds"),
                                  OneOf("condition", {PureToken("NX"), PureToken("XX"),
                                                      PureToken("GT"), PureToken("LT")})
                                      .Since("7.0.0")
                                      .Optional()}}));
  t.Register(GetterSpec(
      "ttl", TtlCommand,
      {.summary = "Returns a key's remaining time to live in seconds",
       .since = "1.0.0",
       .group = "generic",
       .complexity = "O(1)",
       .history = {{"2.8.0",
                    "A missing key answers -2, telling it apart from a key without expiry (-1)."}},
       .tips = {"nondeterministic_output"},
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
       .args = {Key("key", 0)}}));
  t.Register(GetterSpec(
      "pttl", PTtlCommand,
      {.summary = "Returns a key's remaining time to live in milliseconds",
       .since = "2.6.0",
       .group = "generic",
       .complexity = "O(1)",
       .history = {{"2.8.0",
                    "A missing key answers -2, telling it apart from a key without expiry (-1)."}},
       .tips = {"nondeterministic_output"},
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
       .args = {Key("key", 0)}}));
  t.Register(GetterSpec("expiretime", ExpireTimeCommand,
                        {.summary = "Returns the Unix time, in seconds, at which a key expires",
                         .since = "7.0.0",
                         .group = "generic",
                         .complexity = "O(1)",
                         .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                         .args = {Key("key", 0)}}));
  t.Register(
      GetterSpec("pexpiretime", PExpireTimeCommand,
                 {.summary = "Returns the Unix time, in milliseconds, at which a key expires",
                  .since = "7.0.0",
                  .group = "generic",
                  .complexity = "O(1)",
                  .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                  .args = {Key("key", 0)}}));
  t.Register({.name = "persist",
              .arity = 2,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclKeyspace | kAclWrite | kAclFast,
              .doc = {.summary = "Removes a key's expiry so that it lives until deleted",
                      .since = "2.2.0",
                      .group = "generic",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = PersistCommand});
}

}  // namespace redistp
