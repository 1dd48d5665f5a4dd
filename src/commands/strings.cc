// String commands, part one: writing and reading whole values.
//
//   SET family   SET, SETNX, SETEX, PSETEX, GETSET
//   GET family   GET, GETEX, GETDEL, MGET, STRLEN
//   multi-key    MSET, MSETNX
//
// Model. Every SET variant is the same operation, SetString(), steered by a set of option
// flags: SETNX is SET with NX (answering 1/0 instead of OK/nil), SETEX and PSETEX are SET with
// EX or PX, GETSET is SET with GET. SET and GETEX share one option parser, which knows which
// options each of them accepts and which combinations conflict; anything it does not accept is
// "ERR syntax error", as in Redis.
//
// Compare-and-set. SET also takes one compare condition in NX/XX's place: IFEQ (Valkey 8.1,
// Redis 8.4), IFNE, IFDEQ and IFDNE (Redis 8.4), evaluated by string_cas.h. These are answered
// whatever the reported version, but SET's COMMAND DOCS stay Redis 7.0's (everything 7.0
// answers keeps its answer); docs/compare-and-set.md lists the options.
//
// Expire times. EX/PX are relative and become absolute against the command's cached clock
// (server.keyspace().now_ms()), EXAT/PXAT are absolute already. A time that is not positive, or
// that overflows 64 bits when scaled to milliseconds or added to the clock, is "invalid expire
// time in '<cmd>' command" and nothing changes. Redis 7.0 stores a SET whose absolute time is
// already past as a key that is expired on its next access, and we do the same; GETEX instead
// deletes the key on the spot when given a past EXAT/PXAT.
//
// Values are stored with Value::String, which chooses Redis's int/embstr/raw encoding, and every
// key change goes through the Database (Add, Overwrite, SetExpire, Persist, Remove), which
// announces it to whoever listens. Replies that carry a stored value are written before the
// value is replaced or removed, since the view may point into it.
//
// Hot path: GET and SET without options parse nothing beyond their arguments, look the key up
// once and allocate only when the value does not fit Value's inline storage.
#include <cstdint>
#include <string_view>
#include <vector>

#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/string_cas.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// Options of the SET family and GETEX. kSetReplyInt is not a user option: SETNX answers 1/0.
enum SetFlag : uint32_t {
  kSetNx = 1u << 0,
  kSetXx = 1u << 1,
  kSetGet = 1u << 2,
  kSetKeepTtl = 1u << 3,
  kSetPersist = 1u << 4,
  kSetEx = 1u << 5,
  kSetPx = 1u << 6,
  kSetExAt = 1u << 7,
  kSetPxAt = 1u << 8,
  kSetReplyInt = 1u << 9,
  kSetCas = 1u << 10,      // one of IFEQ, IFNE, IFDEQ, IFDNE (StringOptions::cas says which)
  kSetRefused = 1u << 11,  // not an option: SetString found the compare condition false
};
constexpr uint32_t kSetAnyExpire = kSetEx | kSetPx | kSetExAt | kSetPxAt;
constexpr uint32_t kSetAnyCondition = kSetNx | kSetXx | kSetCas;

enum class OptionsOf { kSet, kGetEx };

struct StringOptions {
  uint32_t flags = 0;
  std::string_view expire;  // the argument after EX/PX/EXAT/PXAT
  CasCondition cas = CasCondition::kNone;
  std::string_view compare;  // the argument after IFEQ/IFNE/IFDEQ/IFDNE
};

// Parses the options in args[first..]. SET accepts NX, XX, GET, KEEPTTL, the four expire
// forms and one compare condition (IFEQ/IFNE/IFDEQ/IFDNE <arg>); GETEX accepts the expire forms
// and PERSIST. Conflicts (NX with XX, a compare condition with NX, XX or another condition
// (even the same one again), two different expire forms, KEEPTTL or PERSIST with an expire
// form) are syntax errors; repeating NX, XX, GET or KEEPTTL is not, and a repeated expire form
// keeps its last value. Returns false (nothing replied) on a syntax error.
bool ParseStringOptions(const std::vector<std::string_view>& args, size_t first, OptionsOf of,
                        StringOptions* out) {
  const bool is_set = of == OptionsOf::kSet;
  uint32_t& flags = out->flags;
  for (size_t i = first; i < args.size(); ++i) {
    std::string_view opt = args[i];
    const bool has_next = i + 1 < args.size();
    uint32_t expire_kind = 0;
    if (EqualsIgnoreCase(opt, "nx") && is_set && !(flags & (kSetXx | kSetCas))) {
      flags |= kSetNx;
    } else if (EqualsIgnoreCase(opt, "xx") && is_set && !(flags & (kSetNx | kSetCas))) {
      flags |= kSetXx;
    } else if (EqualsIgnoreCase(opt, "get") && is_set) {
      flags |= kSetGet;
    } else if (EqualsIgnoreCase(opt, "keepttl") && is_set && !(flags & kSetAnyExpire)) {
      flags |= kSetKeepTtl;
    } else if (EqualsIgnoreCase(opt, "persist") && !is_set && !(flags & kSetAnyExpire)) {
      flags |= kSetPersist;
    } else if (EqualsIgnoreCase(opt, "ex")) {
      expire_kind = kSetEx;
    } else if (EqualsIgnoreCase(opt, "px")) {
      expire_kind = kSetPx;
    } else if (EqualsIgnoreCase(opt, "exat")) {
      expire_kind = kSetExAt;
    } else if (EqualsIgnoreCase(opt, "pxat")) {
      expire_kind = kSetPxAt;
    } else if (CasCondition cas = ParseCasCondition(opt);
               cas != CasCondition::kNone && is_set && has_next && !(flags & kSetAnyCondition)) {
      flags |= kSetCas;
      out->cas = cas;
      out->compare = args[++i];
      continue;
    } else {
      return false;
    }
    if (expire_kind == 0) continue;
    const uint32_t other_expire = kSetAnyExpire & ~expire_kind;
    if (!has_next || (flags & (kSetKeepTtl | kSetPersist | other_expire))) return false;
    flags |= expire_kind;
    out->expire = args[++i];
  }
  return true;
}

// Turns the expire argument of `flags`' expire form into an absolute unix time in ms. Replies
// the error and returns false when it is not an integer, not positive, or overflows.
bool ResolveExpire(CommandContext& c, uint32_t flags, std::string_view arg, int64_t* when_ms) {
  int64_t v;
  if (!ParseInt64(arg, &v)) {
    c.reply.Error(err::kNotInteger);
    return false;
  }
  const bool seconds = (flags & (kSetEx | kSetExAt)) != 0;
  const bool relative = (flags & (kSetEx | kSetPx)) != 0;
  bool bad = v <= 0 || (seconds && v > INT64_MAX / 1000);
  if (!bad) {
    if (seconds) v *= 1000;
    if (relative) bad = __builtin_add_overflow(v, c.server.keyspace().now_ms(), &v);
  }
  if (bad || v <= 0) {
    c.reply.Error(err::InvalidExpire(c.spec.full_name));
    return false;
  }
  *when_ms = v;
  return true;
}

// Replies what GET does for a string entry found by a typed lookup: nil when absent, else the
// value's bytes.
void ReplyGet(CommandContext& c, const Entry* e) {
  if (e == nullptr) {
    c.reply.Null();
    return;
  }
  char scratch[kMaxInt64Chars + 1];
  c.reply.Bulk(e->value.View(scratch));
}

// The one implementation behind SET, SETNX, SETEX, PSETEX and GETSET.
// Order of effects, as in Redis: the expire time is validated first (an invalid one changes
// nothing); with GET or a compare condition the key is looked up typed, so a non-string old
// value stops the command with WRONGTYPE; a digest argument of the wrong length is refused
// next (only when there is a value to compare it with); with GET the old value (or nil) is
// replied; then NX/XX or the compare condition decide whether to write (IFEQ/IFDEQ need the
// key, IFNE/IFDNE create a missing one). Without GET an aborted write answers nil (0 for
// SETNX) and a done one OK (1 for SETNX); with GET the old value is the only reply. The TTL is
// cleared unless KEEPTTL, or replaced when an expire form is given.
//
// `cas` (read only with kSetCas) carries the condition and its argument; passed by pointer so
// that the plain SET path pays no extra argument words.
void SetString(CommandContext& c, std::string_view key, std::string_view value, uint32_t flags,
               std::string_view expire_arg, const StringOptions* cas = nullptr) {
  int64_t when_ms = 0;
  if ((flags & kSetAnyExpire) && !ResolveExpire(c, flags, expire_arg, &when_ms)) return;
  Entry* e;
  if (flags & (kSetGet | kSetCas)) {
    // A compare condition alone reads the value for the command, not for the client: looked up
    // as a write (no hit/miss counted), as SET itself.
    const Access access = (flags & kSetGet) ? Access::kRead : Access::kWrite;
    if (!LookupTyped(c, key, ValueType::kString, access, &e)) return;
    if (flags & kSetCas) {
      bool holds;
      if (e != nullptr) {
        char scratch[kMaxInt64Chars + 1];
        bool replied;
        holds = EvaluateCas(c, cas->cas, e->value.View(scratch), cas->compare, &replied);
        if (replied) return;
      } else {
        holds = CasHoldsForMissingKey(cas->cas);
      }
      if (!holds) flags |= kSetRefused;
    }
    if (flags & kSetGet) ReplyGet(c, e);
  } else {
    e = c.db.LookupWrite(key);
  }
  const bool found = e != nullptr;
  // One test for a SET without a condition (the common case), the rest only with one.
  if ((flags & (kSetNx | kSetXx | kSetRefused)) &&
      ((flags & kSetRefused) || ((flags & kSetNx) && found) || ((flags & kSetXx) && !found))) {
    if (flags & kSetGet) return;
    if (flags & kSetReplyInt) {
      c.reply.Int(0);
    } else {
      c.reply.Null();
    }
    return;
  }
  if (found) {
    // With an expire form the TTL is replaced below, so keeping it avoids churning the index.
    c.db.Overwrite(e, Value::String(value), (flags & (kSetKeepTtl | kSetAnyExpire)) != 0,
                   notice::kSet);
  } else {
    e = c.db.Add(key, Value::String(value), notice::kSet);
  }
  if (flags & kSetAnyExpire) {
    c.db.SetExpire(e, when_ms);
    // Any expire form (SETEX and PSETEX included) is replayed as SET key value PXAT <ms>, the
    // absolute time, as Redis 7.0 does; NX/XX/GET and a compare condition already had their
    // effect.
    c.ReplicateAs({"SET", key, value, "PXAT", Int64ToString(when_ms)});
  } else if ((flags & kSetCas) && c.propagation.has_sinks()) {
    // The condition held here; replayed without it, so a replica or an AOF load writes what
    // this server wrote, and a server without these options can load it.
    if (flags & kSetKeepTtl) {
      c.ReplicateAs({"SET", key, value, "KEEPTTL"});
    } else {
      c.ReplicateAs({"SET", key, value});
    }
  } else if ((flags & kSetGet) && c.propagation.has_sinks()) {
    // GET is a read: Redis 7.0 replays GETSET as SET key value, and SET ... GET without GET
    // (a replay that reads would fire its keymiss again).
    std::vector<std::string> argv;
    if (c.spec.name == "getset") {
      argv = {"SET", std::string(key), std::string(value)};
    } else {
      for (size_t i = 0; i < c.args.size(); ++i) {
        if (i < 3 || !EqualsIgnoreCase(c.args[i], "get")) argv.emplace_back(c.args[i]);
      }
    }
    c.ReplicateAs(std::move(argv));
  }
  if (flags & kSetGet) return;
  if (flags & kSetReplyInt) {
    c.reply.Int(1);
  } else {
    c.reply.Ok();
  }
}

// SET key value [NX|XX|IFEQ v|IFNE v|IFDEQ d|IFDNE d] [GET]
//     [EX s|PX ms|EXAT unix-s|PXAT unix-ms|KEEPTTL]
void SetCommand(CommandContext& c) {
  if (c.args.size() == 3) {
    SetString(c, c.args[1], c.args[2], 0, {});
    return;
  }
  StringOptions opts;
  if (!ParseStringOptions(c.args, 3, OptionsOf::kSet, &opts)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  SetString(c, c.args[1], c.args[2], opts.flags, opts.expire, &opts);
}

void SetNxCommand(CommandContext& c) {
  SetString(c, c.args[1], c.args[2], kSetNx | kSetReplyInt, {});
}

void SetExCommand(CommandContext& c) { SetString(c, c.args[1], c.args[3], kSetEx, c.args[2]); }

void PSetExCommand(CommandContext& c) { SetString(c, c.args[1], c.args[3], kSetPx, c.args[2]); }

void GetSetCommand(CommandContext& c) { SetString(c, c.args[1], c.args[2], kSetGet, {}); }

void GetCommand(CommandContext& c) {
  Entry* e;
  if (LookupTyped(c, c.args[1], ValueType::kString, Access::kRead, &e)) ReplyGet(c, e);
}

// GETEX key [EX s|PX ms|EXAT unix-s|PXAT unix-ms|PERSIST]
// Options are checked for syntax before the key is looked up; the expire value only after the
// key turned out to exist and hold a string (a missing key answers nil whatever the value).
// A past EXAT/PXAT deletes the key after its value was replied.
void GetExCommand(CommandContext& c) {
  StringOptions opts;
  if (!ParseStringOptions(c.args, 2, OptionsOf::kGetEx, &opts)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kRead, &e)) return;
  if (e == nullptr) {
    c.reply.Null();
    return;
  }
  int64_t when_ms = 0;
  if ((opts.flags & kSetAnyExpire) && !ResolveExpire(c, opts.flags, opts.expire, &when_ms)) {
    return;
  }
  ReplyGet(c, e);
  // Replayed as what it did: DEL/UNLINK, PEXPIREAT with the absolute time, or PERSIST.
  if ((opts.flags & (kSetExAt | kSetPxAt)) && when_ms <= c.server.keyspace().now_ms()) {
    c.db.Remove(e, RemoveCause::kDeleted);
    c.ReplicateAs({c.server.config().lazyfree_lazy_expire ? "UNLINK" : "DEL", c.args[1]});
  } else if (opts.flags & kSetAnyExpire) {
    c.db.SetExpire(e, when_ms);
    c.ReplicateAs({"PEXPIREAT", c.args[1], Int64ToString(when_ms)});
  } else if (opts.flags & kSetPersist) {
    c.db.Persist(e);
    c.ReplicateAs({"PERSIST", c.args[1]});
  }
}

void GetDelCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kRead, &e)) return;
  ReplyGet(c, e);
  if (e == nullptr) return;
  c.db.Remove(e, RemoveCause::kDeleted);
  c.ReplicateAs({"DEL", c.args[1]});
}

// MGET answers nil for missing keys and for keys of another type (never WRONGTYPE).
void MGetCommand(CommandContext& c) {
  const size_t n = c.args.size() - 1;
  c.reply.Array(n);
  char scratch[kMaxInt64Chars + 1];
  for (size_t i = 1; i <= n; ++i) {
    const Entry* e = c.db.LookupRead(c.args[i]);
    if (e == nullptr || !e->value.is_string()) {
      c.reply.Null();
    } else {
      c.reply.Bulk(e->value.View(scratch));
    }
  }
}

// MSET and MSETNX: pairs of key and value; an odd pair count is an arity error. MSETNX writes
// nothing (and answers 0) if any of the keys exists. Like SET, each write clears the TTL; a key
// named twice ends with its last value.
void MSetGeneric(CommandContext& c, bool nx) {
  if (c.args.size() % 2 == 0) {
    c.reply.Error(err::WrongArity(c.spec.full_name));
    return;
  }
  if (nx) {
    for (size_t i = 1; i < c.args.size(); i += 2) {
      if (c.db.LookupWrite(c.args[i]) != nullptr) {
        c.reply.Int(0);
        return;
      }
    }
  }
  for (size_t i = 1; i < c.args.size(); i += 2) {
    c.db.Upsert(c.args[i], Value::String(c.args[i + 1]), false, notice::kSet);
  }
  if (nx) {
    c.reply.Int(1);
  } else {
    c.reply.Ok();
  }
}

void MSetCommand(CommandContext& c) { MSetGeneric(c, false); }

void MSetNxCommand(CommandContext& c) { MSetGeneric(c, true); }

void StrLenCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kRead, &e)) return;
  c.reply.Int(e == nullptr ? 0 : static_cast<int64_t>(e->value.StringLength()));
}

// SET reads the old value only when a GET option or a compare condition follows the value
// (argv[3] onwards); the row's key spec says "variable_flags" and this decides them for
// GETKEYSANDFLAGS and the ACL's key checks (a user allowed only to write a key must not learn
// its value through IFEQ).
uint32_t SetKeyFlags(const std::vector<std::string_view>& args, size_t /*spec_index*/,
                     uint32_t /*declared_flags*/) {
  for (size_t i = 3; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "get") || ParseCasCondition(args[i]) != CasCondition::kNone) {
      return kKeyRW | kKeyAccess | kKeyUpdate;
    }
  }
  return kKeyOW | kKeyUpdate;
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;
using docs::UnixTime;

void RegisterStringCommands(CommandTable& t) {
  constexpr uint64_t kWriteFast = kAclWrite | kAclString | kAclFast;
  constexpr uint64_t kWriteSlow = kAclWrite | kAclString | kAclSlow;
  constexpr uint64_t kReadFast = kAclRead | kAclString | kAclFast;
  t.Register({.name = "get",
              .arity = 2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadFast,
              .doc = {.summary = "Returns the string stored at a key",
                      .since = "1.0.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = GetCommand});
  t.Register(
      {.name = "set",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kWriteSlow,
       .doc = {.summary = "Stores a string at a key, with optional conditions and expiry",
               .since = "1.0.0",
               .group = "string",
               .complexity = "O(1)",
               .history = {{"2.6.12", "New `EX`, `PX`, `NX` and `XX` options."},
                           {"6.0.0", "New `KEEPTTL` option."},
                           {"6.2.0", "New `GET`, `EXAT` and `PXAT` options."},
                           {"7.0.0", "`NX` and `GET` may be combined."}},
               .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate | kKeyVariableFlags,
                              .notes = "Read and written (RW, access) only with GET or a compare "
                                       "condition; otherwise just overwritten",
                              .index = 1}},
               .refine_key_flags = SetKeyFlags,
               .args = {Key("key", 0), String("value"),
                        OneOf("condition", {PureToken("NX"), PureToken("XX")})
                            .Since("2.6.12")
                            .Optional(),
                        PureToken("GET").Since("6.2.0").Optional(),
                        OneOf("expiration",
                              {Integer("seconds").Token("EX").Since("2.6.12"),
                               Integer("milliseconds").Token("PX").Since("2.6.12"),
                               UnixTime("unix-time-seconds").Token("EXAT").Since("6.2.0"),
                               UnixTime("unix-time-milliseconds").Token("PXAT").Since("6.2.0"),
                               PureToken("KEEPTTL").Since("6.0.0")})
                            .Optional()}},
       .handler = SetCommand});
  t.Register({.name = "setnx",
              .arity = 3,
              .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kWriteFast,
              .doc = {.summary = "Stores a string at a key only if the key does not exist",
                      .since = "1.0.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyOW | kKeyInsert, .index = 1}},
                      .args = {Key("key", 0), String("value")}},
              .handler = SetNxCommand});
  t.Register({.name = "setex",
              .arity = 4,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kWriteSlow,
              .doc = {.summary = "Stores a string at a key with a time to live in seconds",
                      .since = "2.0.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), Integer("seconds"), String("value")}},
              .handler = SetExCommand});
  t.Register({.name = "psetex",
              .arity = 4,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kWriteSlow,
              .doc = {.summary = "Stores a string at a key with a time to live in milliseconds",
                      .since = "2.6.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), Integer("milliseconds"), String("value")}},
              .handler = PSetExCommand});
  t.Register({.name = "getset",
              .arity = 3,
              .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kWriteFast,
              .doc = {.summary = "Stores a string at a key and returns the string it replaced",
                      .since = "1.0.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .doc_flags = kDocDeprecated,
                      .deprecated_since = "6.2.0",
                      .replaced_by = "`SET` with the `!GET` argument",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), String("value")}},
              .handler = GetSetCommand});
  t.Register(
      {.name = "getex",
       .arity = -2,
       .flags = kCmdWrite | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kWriteFast,
       .doc = {.summary = "Returns the string stored at a key and changes or removes its expiry",
               .since = "6.2.0",
               .group = "string",
               .complexity = "O(1)",
               .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate,
                              .notes = "Read, and updated because its expiry may change",
                              .index = 1}},
               .args = {Key("key", 0),
                        OneOf("expiration",
                              {Integer("seconds").Token("EX"), Integer("milliseconds").Token("PX"),
                               UnixTime("unix-time-seconds").Token("EXAT"),
                               UnixTime("unix-time-milliseconds").Token("PXAT"),
                               PureToken("PERSIST")})
                            .Optional()}},
       .handler = GetExCommand});
  t.Register({.name = "getdel",
              .arity = 2,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kWriteFast,
              .doc = {.summary = "Returns the string stored at a key, then deletes the key",
                      .since = "6.2.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = GetDelCommand});
  t.Register({.name = "mget",
              .arity = -2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = -1,
              .key_step = 1,
              .acl = kReadFast,
              .doc = {.summary = "Returns the strings stored at several keys",
                      .since = "1.0.0",
                      .group = "string",
                      .complexity = "O(N) where N is the number of keys to retrieve.",
                      .tips = {"request_policy:multi_shard"},
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1, .last_key = -1}},
                      .args = {Key("key", 0).Multiple()}},
              .handler = MGetCommand});
  t.Register(
      {.name = "mset",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = -1,
       .key_step = 2,
       .acl = kWriteSlow,
       .doc = {.summary = "Stores several key-value pairs at once",
               .since = "1.0.1",
               .group = "string",
               .complexity = "O(N) where N is the number of keys to set.",
               .tips = {"request_policy:multi_shard", "response_policy:all_succeeded"},
               .key_specs =
                   {{.flags = kKeyOW | kKeyUpdate, .index = 1, .last_key = -1, .key_step = 2}},
               .args = {Block("key_value", {Key("key", 0), String("value")}).Multiple()}},
       .handler = MSetCommand});
  t.Register(
      {.name = "msetnx",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = -1,
       .key_step = 2,
       .acl = kWriteSlow,
       .doc = {.summary = "Stores several key-value pairs at once, only if none of the keys exists",
               .since = "1.0.1",
               .group = "string",
               .complexity = "O(N) where N is the number of keys to set.",
               .tips = {"request_policy:multi_shard", "response_policy:agg_min"},
               .key_specs =
                   {{.flags = kKeyOW | kKeyInsert, .index = 1, .last_key = -1, .key_step = 2}},
               .args = {Block("key_value", {Key("key", 0), String("value")}).Multiple()}},
       .handler = MSetNxCommand});
  t.Register({.name = "strlen",
              .arity = 2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadFast,
              .doc = {.summary = "Returns the length in bytes of the string at a key",
                      .since = "2.2.0",
                      .group = "string",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = StrLenCommand});
  RegisterStringCasCommands(t);
}

}  // namespace redistp
