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
// Expire times. EX/PX are relative and become absolute against the command's cached clock
// (server.keyspace().now_ms), EXAT/PXAT are absolute already. A time that is not positive, or
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

#include "commands/register.h"
#include "commands/lookup.h"
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
};
constexpr uint32_t kSetAnyExpire = kSetEx | kSetPx | kSetExAt | kSetPxAt;

enum class OptionsOf { kSet, kGetEx };

struct StringOptions {
  uint32_t flags = 0;
  std::string_view expire;  // the argument after EX/PX/EXAT/PXAT
};

// Parses the options in args[first..]. SET accepts NX, XX, GET, KEEPTTL and the four expire
// forms; GETEX accepts the expire forms and PERSIST. Conflicts (NX with XX, two different
// expire forms, KEEPTTL or PERSIST with an expire form) are syntax errors; repeating the same
// option is not, and a repeated expire form keeps its last value. Returns false (nothing
// replied) on a syntax error.
bool ParseStringOptions(const std::vector<std::string_view>& args, size_t first, OptionsOf of,
                        StringOptions* out) {
  const bool is_set = of == OptionsOf::kSet;
  uint32_t& flags = out->flags;
  for (size_t i = first; i < args.size(); ++i) {
    std::string_view opt = args[i];
    const bool has_next = i + 1 < args.size();
    uint32_t expire_kind = 0;
    if (EqualsIgnoreCase(opt, "nx") && is_set && !(flags & kSetXx)) {
      flags |= kSetNx;
    } else if (EqualsIgnoreCase(opt, "xx") && is_set && !(flags & kSetNx)) {
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
    if (relative) bad = __builtin_add_overflow(v, c.server.keyspace().now_ms, &v);
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
// nothing); with GET the old value (or nil) is replied next, and a non-string old value stops
// the command with WRONGTYPE; then NX/XX decide whether to write. Without GET an aborted write
// answers nil (0 for SETNX) and a done one OK (1 for SETNX); with GET the old value is the only
// reply. The TTL is cleared unless KEEPTTL, or replaced when an expire form is given.
void SetString(CommandContext& c, std::string_view key, std::string_view value, uint32_t flags,
               std::string_view expire_arg) {
  int64_t when_ms = 0;
  if ((flags & kSetAnyExpire) && !ResolveExpire(c, flags, expire_arg, &when_ms)) return;
  Entry* e;
  if (flags & kSetGet) {
    if (!LookupTyped(c, key, ValueType::kString, Access::kRead, &e)) return;
    ReplyGet(c, e);
  } else {
    e = c.db.LookupWrite(key);
  }
  const bool found = e != nullptr;
  if (((flags & kSetNx) && found) || ((flags & kSetXx) && !found)) {
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
  if (flags & kSetAnyExpire) c.db.SetExpire(e, when_ms);
  if (flags & kSetGet) return;
  if (flags & kSetReplyInt) {
    c.reply.Int(1);
  } else {
    c.reply.Ok();
  }
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT unix-s|PXAT unix-ms|KEEPTTL]
void SetCommand(CommandContext& c) {
  StringOptions opts;
  if (c.args.size() > 3 && !ParseStringOptions(c.args, 3, OptionsOf::kSet, &opts)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  SetString(c, c.args[1], c.args[2], opts.flags, opts.expire);
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
  if ((opts.flags & (kSetExAt | kSetPxAt)) && when_ms <= c.server.keyspace().now_ms) {
    c.db.Remove(e, RemoveCause::kDeleted);
  } else if (opts.flags & kSetAnyExpire) {
    c.db.SetExpire(e, when_ms);
  } else if (opts.flags & kSetPersist) {
    c.db.Persist(e);
  }
}

void GetDelCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kRead, &e)) return;
  ReplyGet(c, e);
  if (e != nullptr) c.db.Remove(e, RemoveCause::kDeleted);
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

}  // namespace

void RegisterStringCommands(CommandTable& t) {
  // clang-format off
  constexpr uint64_t kWriteFast = kAclWrite | kAclString | kAclFast;
  constexpr uint64_t kWriteSlow = kAclWrite | kAclString | kAclSlow;
  constexpr uint64_t kReadFast = kAclRead | kAclString | kAclFast;
  t.Register({.name = "get", .arity = 2, .flags = kCmdReadOnly | kCmdFast, .first_key = 1,
              .last_key = 1, .key_step = 1, .acl = kReadFast, .handler = GetCommand});
  t.Register({.name = "set", .arity = -3, .flags = kCmdWrite | kCmdDenyOom, .first_key = 1,
              .last_key = 1, .key_step = 1, .acl = kWriteSlow, .handler = SetCommand});
  t.Register({.name = "setnx", .arity = 3, .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
              .first_key = 1, .last_key = 1, .key_step = 1, .acl = kWriteFast,
              .handler = SetNxCommand});
  t.Register({.name = "setex", .arity = 4, .flags = kCmdWrite | kCmdDenyOom, .first_key = 1,
              .last_key = 1, .key_step = 1, .acl = kWriteSlow, .handler = SetExCommand});
  t.Register({.name = "psetex", .arity = 4, .flags = kCmdWrite | kCmdDenyOom, .first_key = 1,
              .last_key = 1, .key_step = 1, .acl = kWriteSlow, .handler = PSetExCommand});
  t.Register({.name = "getset", .arity = 3, .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
              .first_key = 1, .last_key = 1, .key_step = 1, .acl = kWriteFast,
              .handler = GetSetCommand});
  t.Register({.name = "getex", .arity = -2, .flags = kCmdWrite | kCmdFast, .first_key = 1,
              .last_key = 1, .key_step = 1, .acl = kWriteFast, .handler = GetExCommand});
  t.Register({.name = "getdel", .arity = 2, .flags = kCmdWrite | kCmdFast, .first_key = 1,
              .last_key = 1, .key_step = 1, .acl = kWriteFast, .handler = GetDelCommand});
  t.Register({.name = "mget", .arity = -2, .flags = kCmdReadOnly | kCmdFast, .first_key = 1,
              .last_key = -1, .key_step = 1, .acl = kReadFast, .handler = MGetCommand});
  t.Register({.name = "mset", .arity = -3, .flags = kCmdWrite | kCmdDenyOom, .first_key = 1,
              .last_key = -1, .key_step = 2, .acl = kWriteSlow, .handler = MSetCommand});
  t.Register({.name = "msetnx", .arity = -3, .flags = kCmdWrite | kCmdDenyOom, .first_key = 1,
              .last_key = -1, .key_step = 2, .acl = kWriteSlow, .handler = MSetNxCommand});
  t.Register({.name = "strlen", .arity = 2, .flags = kCmdReadOnly | kCmdFast, .first_key = 1,
              .last_key = 1, .key_step = 1, .acl = kReadFast, .handler = StrLenCommand});
  // clang-format on
}

}  // namespace redistp
