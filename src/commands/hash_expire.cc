// Hash-field expiration: an expire time per field of a hash (Redis 7.4), and the 8.0 commands
// that read, write and delete fields together with their times.
//
//   HEXPIRE HPEXPIRE HEXPIREAT HPEXPIREAT   set field times   (7.4)
//   HTTL HPTTL HEXPIRETIME HPEXPIRETIME     read them         (7.4)
//   HPERSIST                                remove them       (7.4)
//   HGETDEL                                 read and delete fields             (8.0)
//   HGETEX                                  read fields, set or remove times   (8.0)
//   HSETEX                                  set fields with a time             (8.0)
//
// Model. A field's time is an absolute unix ms kept by the hash (types/hash_field_expire.h);
// the Database deletes fields past it, lazily when a hash command looks the key up (commands/
// lookup.h) and actively from the cron (Database::ActiveExpireFields), with the event
// "hexpired", replicated as HDEL, and deletes the key with its last field ("del"). Every
// command here therefore sees only live fields.
//
// Replies per field (HEXPIRE family): -2 no such field (or no such key), 0 the NX/XX/GT/LT
// condition refused, 1 time set, 2 field deleted because the time is already due (0 seconds, a
// past unix time). A field with no time counts as infinite for GT and LT. HTTL family: -2, -1
// (no time), else the time. HPERSIST: -2, -1, 1.
//
// Times are capped at 2^48 - 1 ms, as Redis caps them; past that, or on overflow, the reply is
// "invalid expire time in '<cmd>' command".
//
// Propagation: relative times go to replicas and the AOF as the absolute HPEXPIREAT (or HSETEX
// ... PXAT), fields deleted for a due time as HDEL, HGETEX's PERSIST as HPERSIST, so a replay
// never depends on the replaying server's clock. While loading (expiry off) a due time is
// stored rather than applied, like a key's.
//
// Events: "hexpire" (times set), "hpersist", "hdel" (fields deleted by a due time or HGETDEL),
// "hset" (HSETEX), then "del" when the hash is left empty.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "commands/hash_family.h"
#include "commands/lookup.h"
#include "commands/register.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "protocol/errors_hash_ttl.h"
#include "protocol/reply_builder.h"
#include "server/server.h"
#include "types/hash.h"
#include "util/numbers.h"

namespace redistp {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
// The largest field time Redis accepts (its hash-field expiry keeps 48 bits of milliseconds).
constexpr int64_t kMaxFieldTimeMs = (int64_t{1} << 48) - 1;

constexpr int64_t kNoField = -2;
constexpr int64_t kNoTime = -1;
constexpr int64_t kRefused = 0;
constexpr int64_t kApplied = 1;
constexpr int64_t kDeletedNow = 2;

enum class Cond : uint8_t { kNone, kNx, kXx, kGt, kLt };

// Whether condition `cond` lets a field whose time is `current` (0 = none) take `when`.
bool CondAllows(Cond cond, int64_t current, int64_t when) {
  switch (cond) {
    case Cond::kNx:
      return current == 0;
    case Cond::kXx:
      return current != 0;
    case Cond::kGt:
      return current != 0 && when > current;
    case Cond::kLt:
      return current == 0 || when < current;
    default:
      return true;
  }
}

// The "FIELDS numfields field ..." tail at args[at], up to the end of the command: on success
// *first is the index of the first field and *n their count. Replies the error and returns
// false otherwise.
bool ParseFieldsTail(CommandContext& c, size_t at, size_t* first, size_t* n) {
  if (at >= c.args.size() || !EqualsIgnoreCase(c.args[at], "FIELDS")) {
    c.reply.Error(err::kHashFieldsMissing);
    return false;
  }
  int64_t num;
  if (at + 1 >= c.args.size() || !ParseInt64(c.args[at + 1], &num) || num < 1) {
    c.reply.Error(err::kHashNumFieldsNotPositive);
    return false;
  }
  if (static_cast<uint64_t>(num) != c.args.size() - at - 2) {
    c.reply.Error(err::kHashNumFieldsMismatch);
    return false;
  }
  *first = at + 2;
  *n = static_cast<size_t>(num);
  return true;
}

// Turns a time argument into an absolute unix ms: seconds scaled, a relative time added to the
// command's clock; false (the caller replies "invalid expire time") on overflow or past the
// cap. `t` must be >= 0.
bool AbsoluteTime(CommandContext& c, int64_t t, bool relative, bool seconds, int64_t* when) {
  if (seconds) {
    if (t > kInt64Max / 1000) return false;
    t *= 1000;
  }
  if (relative) {
    const int64_t now = c.server.keyspace().now_ms();
    if (t > kInt64Max - now) return false;
    t += now;
  }
  if (t > kMaxFieldTimeMs) return false;
  *when = t;
  return true;
}

// Whether a time is due now, so setting it deletes the field (not while loading: a replayed
// HPEXPIREAT stores its time, and the field expires afterwards).
bool DueNow(CommandContext& c, int64_t when) {
  return when <= c.server.keyspace().now_ms() && c.server.keyspace().expiry.enabled();
}

// argv = {cmd, key, ...head, "FIELDS", n, fields...}.
std::vector<std::string> FieldsRecord(std::string_view cmd, std::string_view key,
                                      std::vector<std::string> head,
                                      const std::vector<std::string_view>& fields) {
  std::vector<std::string> argv{std::string(cmd), std::string(key)};
  for (std::string& h : head) argv.push_back(std::move(h));
  argv.emplace_back("FIELDS");
  argv.push_back(Int64ToString(static_cast<int64_t>(fields.size())));
  argv.insert(argv.end(), fields.begin(), fields.end());
  return argv;
}

std::vector<std::string> HDelRecord(std::string_view key,
                                    const std::vector<std::string_view>& fields) {
  std::vector<std::string> argv{"HDEL", std::string(key)};
  argv.insert(argv.end(), fields.begin(), fields.end());
  return argv;
}

// Replicates the command as `records`, in this order: the last becomes the command's own
// record, the others go before it.
void Replicate(CommandContext& c, std::vector<std::vector<std::string>> records) {
  if (records.empty()) return;
  for (size_t i = 0; i + 1 < records.size(); ++i) {
    c.propagation.AppendRecord(c.db.index(), std::move(records[i]));
  }
  c.ReplicateAs(std::move(records.back()));
}

// Announces the edits already made to e's hash: times set, times removed, fields deleted (the
// last may delete the key, so it comes last), and tracks the hash for active expiry.
void AnnounceEdits(CommandContext& c, Entry* e, bool timed, bool persisted, bool deleted) {
  if (timed) {
    c.db.NoteFieldTtl(e);
    c.db.Mutate(e, notice::kHExpire).Commit();
  }
  if (persisted) c.db.Mutate(e, notice::kHPersist).Commit();
  if (deleted) c.db.Mutate(e, notice::kHDel).Commit();
}

// HEXPIRE/HPEXPIRE/HEXPIREAT/HPEXPIREAT key time [NX|XX|GT|LT] FIELDS numfields field ...
// Checks in Redis's order: the key's type, the time, the condition and FIELDS block; then a
// missing key answers -2 for every field.
void HExpireGeneric(CommandContext& c, bool relative, bool seconds) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kWrite, &e)) return;
  int64_t t;
  if (!ParseInt64(c.args[2], &t)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  if (t < 0) {
    c.reply.Error(err::kHashExpireNegative);
    return;
  }
  int64_t when;
  if (!AbsoluteTime(c, t, relative, seconds, &when)) {
    c.reply.Error(err::InvalidExpire(c.spec.full_name));
    return;
  }
  size_t at = 3;
  Cond cond = Cond::kNone;
  if (at < c.args.size()) {
    std::string_view a = c.args[at];
    cond = EqualsIgnoreCase(a, "NX")   ? Cond::kNx
           : EqualsIgnoreCase(a, "XX") ? Cond::kXx
           : EqualsIgnoreCase(a, "GT") ? Cond::kGt
           : EqualsIgnoreCase(a, "LT") ? Cond::kLt
                                       : Cond::kNone;
    if (cond != Cond::kNone) ++at;
  }
  size_t first, n;
  if (!ParseFieldsTail(c, at, &first, &n)) return;
  c.reply.Array(n);
  if (e == nullptr) {
    for (size_t i = 0; i < n; ++i) c.reply.Int(kNoField);
    return;
  }
  HashObject& h = HashOf(e->value);
  const bool due = DueNow(c, when);
  std::vector<std::string_view> timed, deleted;
  for (size_t i = first; i < c.args.size(); ++i) {
    std::string_view f = c.args[i];
    int64_t current;
    if (!h.FieldExpire(f, &current)) {
      c.reply.Int(kNoField);
    } else if (!CondAllows(cond, current, when)) {
      c.reply.Int(kRefused);
    } else if (due) {
      h.Delete(f);
      deleted.push_back(f);
      c.reply.Int(kDeletedNow);
    } else {
      h.SetFieldExpire(f, when);
      timed.push_back(f);
      c.reply.Int(kApplied);
    }
  }
  AnnounceEdits(c, e, !timed.empty(), false, !deleted.empty());
  if (!c.propagation.has_sinks()) return;  // nobody records: build no strings
  std::vector<std::vector<std::string>> records;
  if (!timed.empty()) {
    records.push_back(FieldsRecord("HPEXPIREAT", c.args[1], {Int64ToString(when)}, timed));
  }
  if (!deleted.empty()) records.push_back(HDelRecord(c.args[1], deleted));
  Replicate(c, std::move(records));
}

void HExpireCommand(CommandContext& c) { HExpireGeneric(c, true, true); }
void HPExpireCommand(CommandContext& c) { HExpireGeneric(c, true, false); }
void HExpireAtCommand(CommandContext& c) { HExpireGeneric(c, false, true); }
void HPExpireAtCommand(CommandContext& c) { HExpireGeneric(c, false, false); }

// HTTL/HPTTL/HEXPIRETIME/HPEXPIRETIME key FIELDS numfields field ...: per field -2, -1, or the
// remaining (`absolute`: the unix) time, in seconds rounded as TTL rounds, or in ms.
void HTtlGeneric(CommandContext& c, bool absolute, bool millis) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kRead, &e)) return;
  size_t first, n;
  if (!ParseFieldsTail(c, 2, &first, &n)) return;
  c.reply.Array(n);
  HashObject* h = e != nullptr ? &HashOf(e->value) : nullptr;
  const int64_t now = c.server.keyspace().now_ms();
  for (size_t i = first; i < c.args.size(); ++i) {
    int64_t when;
    if (h == nullptr || !h->FieldExpire(c.args[i], &when)) {
      c.reply.Int(kNoField);
      continue;
    }
    if (when == 0) {
      c.reply.Int(kNoTime);
      continue;
    }
    int64_t v = absolute ? when : std::max<int64_t>(when - now, 0);
    if (!millis) v = (v + 500) / 1000;
    c.reply.Int(v);
  }
}

void HTtlCommand(CommandContext& c) { HTtlGeneric(c, false, false); }
void HPTtlCommand(CommandContext& c) { HTtlGeneric(c, false, true); }
void HExpireTimeCommand(CommandContext& c) { HTtlGeneric(c, true, false); }
void HPExpireTimeCommand(CommandContext& c) { HTtlGeneric(c, true, true); }

// HPERSIST key FIELDS numfields field ...: per field -2, -1 (no time), 1 (removed).
void HPersistCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kWrite, &e)) return;
  size_t first, n;
  if (!ParseFieldsTail(c, 2, &first, &n)) return;
  c.reply.Array(n);
  if (e == nullptr) {
    for (size_t i = 0; i < n; ++i) c.reply.Int(kNoField);
    return;
  }
  HashObject& h = HashOf(e->value);
  bool any = false;
  for (size_t i = first; i < c.args.size(); ++i) {
    int64_t when;
    if (!h.FieldExpire(c.args[i], &when)) {
      c.reply.Int(kNoField);
    } else if (when == 0) {
      c.reply.Int(kNoTime);
    } else {
      h.PersistField(c.args[i]);
      any = true;
      c.reply.Int(kApplied);
    }
  }
  AnnounceEdits(c, e, false, any, false);  // replayed as it came: it depends on no clock
}

// HGETDEL key FIELDS numfields field ...: the values (nil for a missing field), and the fields
// are deleted; the key goes with its last field.
void HGetDelCommand(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kWrite, &e)) return;
  size_t first, n;
  if (!ParseFieldsTail(c, 2, &first, &n)) return;
  c.reply.Array(n);
  if (e == nullptr) {
    for (size_t i = 0; i < n; ++i) c.reply.Null();
    return;
  }
  HashObject& h = HashOf(e->value);
  std::vector<std::string_view> deleted;
  char scratch[kMaxInt64Chars + 1];
  for (size_t i = first; i < c.args.size(); ++i) {
    std::string_view value;
    if (h.GetView(c.args[i], scratch, &value)) {
      c.reply.Bulk(value);  // copied into the reply before the field goes
      h.Delete(c.args[i]);
      deleted.push_back(c.args[i]);
    } else {
      c.reply.Null();
    }
  }
  if (deleted.empty()) return;
  AnnounceEdits(c, e, false, false, true);
  c.ReplicateAs(HDelRecord(c.args[1], deleted));
}

// The time options of HGETEX and HSETEX.
struct TimeOption {
  enum Kind : uint8_t { kNone, kAt, kPersist, kKeepTtl } kind = kNone;
  int64_t when = 0;  // kAt: absolute unix ms
};

// Parses EX/PX/EXAT/PXAT <time> (and PERSIST or KEEPTTL when `extra` names it) at args[*i];
// false if args[*i] is none of them. On a bad value replies and sets *failed.
bool ParseTimeOption(CommandContext& c, size_t* i, std::string_view extra, TimeOption* opt,
                     bool* failed) {
  std::string_view a = c.args[*i];
  if (!extra.empty() && EqualsIgnoreCase(a, extra)) {
    if (opt->kind != TimeOption::kNone) {
      c.reply.Error(err::kSyntax);
      *failed = true;
      return true;
    }
    opt->kind = extra == "PERSIST" ? TimeOption::kPersist : TimeOption::kKeepTtl;
    return true;
  }
  const bool ex = EqualsIgnoreCase(a, "EX"), px = EqualsIgnoreCase(a, "PX");
  const bool exat = EqualsIgnoreCase(a, "EXAT"), pxat = EqualsIgnoreCase(a, "PXAT");
  if (!ex && !px && !exat && !pxat) return false;
  if (opt->kind != TimeOption::kNone || *i + 1 >= c.args.size()) {
    c.reply.Error(err::kSyntax);
    *failed = true;
    return true;
  }
  int64_t t;
  if (!ParseInt64(c.args[++*i], &t)) {
    c.reply.Error(err::kNotInteger);
    *failed = true;
    return true;
  }
  if (t <= 0 || !AbsoluteTime(c, t, ex || px, ex || exat, &opt->when)) {
    c.reply.Error(err::InvalidExpire(c.spec.full_name));
    *failed = true;
    return true;
  }
  opt->kind = TimeOption::kAt;
  return true;
}

// The FIELDS block of HGETEX/HSETEX at args[at]: `per` arguments per field, running to the
// end. Their wording differs from the 7.4 commands'.
bool ParseExFields(CommandContext& c, size_t at, size_t per, size_t* first, size_t* n) {
  int64_t num;
  if (at + 1 >= c.args.size() || !ParseInt64(c.args[at + 1], &num) || num < 1) {
    c.reply.Error(err::kHashInvalidNumFields);
    return false;
  }
  if (static_cast<uint64_t>(num) > (c.args.size() - at - 2) / per ||
      static_cast<uint64_t>(num) * per != c.args.size() - at - 2) {
    c.reply.Error(err::WrongArity(c.spec.full_name));
    return false;
  }
  *first = at + 2;
  *n = static_cast<size_t>(num);
  return true;
}

// HGETEX key [EX s | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST] FIELDS numfields field ...:
// the values, and the existing fields take the new time (deleted if it is due) or lose theirs.
void HGetExCommand(CommandContext& c) {
  TimeOption opt;
  size_t i = 2;
  for (; i < c.args.size() && !EqualsIgnoreCase(c.args[i], "FIELDS"); ++i) {
    bool failed = false;
    if (!ParseTimeOption(c, &i, "PERSIST", &opt, &failed)) {
      c.reply.Error(err::kSyntax);
      return;
    }
    if (failed) return;
  }
  size_t first, n;
  if (i >= c.args.size()) {
    c.reply.Error(err::kHashFieldsMissing);
    return;
  }
  if (!ParseExFields(c, i, 1, &first, &n)) return;
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kRead, &e)) return;
  c.reply.Array(n);
  if (e == nullptr) {
    for (size_t k = 0; k < n; ++k) c.reply.Null();
    return;
  }
  HashObject& h = HashOf(e->value);
  const bool due = opt.kind == TimeOption::kAt && DueNow(c, opt.when);
  std::vector<std::string_view> timed, persisted, deleted;
  char scratch[kMaxInt64Chars + 1];
  for (size_t k = first; k < c.args.size(); ++k) {
    std::string_view f = c.args[k], value;
    if (!h.GetView(f, scratch, &value)) {
      c.reply.Null();
      continue;
    }
    c.reply.Bulk(value);
    if (opt.kind == TimeOption::kPersist) {
      if (h.PersistField(f)) persisted.push_back(f);
    } else if (opt.kind == TimeOption::kAt && due) {
      h.Delete(f);
      deleted.push_back(f);
    } else if (opt.kind == TimeOption::kAt) {
      h.SetFieldExpire(f, opt.when);
      timed.push_back(f);
    }
  }
  if (timed.empty() && persisted.empty() && deleted.empty()) return;  // a plain read
  AnnounceEdits(c, e, !timed.empty(), !persisted.empty(), !deleted.empty());
  if (!c.propagation.has_sinks()) return;
  std::vector<std::vector<std::string>> records;
  if (!timed.empty()) {
    records.push_back(FieldsRecord("HPEXPIREAT", c.args[1], {Int64ToString(opt.when)}, timed));
  }
  if (!persisted.empty()) records.push_back(FieldsRecord("HPERSIST", c.args[1], {}, persisted));
  if (!deleted.empty()) records.push_back(HDelRecord(c.args[1], deleted));
  Replicate(c, std::move(records));
}

// HSETEX key [FNX|FXX] [EX s | PX ms | EXAT unix-s | PXAT unix-ms | KEEPTTL]
//        FIELDS numfields field value ...
// 1 when the fields were set, 0 when FNX (none may exist) or FXX (all must exist) refused.
// Without a time option the fields lose their times, as with HSET; KEEPTTL keeps them.
void HSetExCommand(CommandContext& c) {
  TimeOption opt;
  enum class Only : uint8_t { kAny, kNew, kExisting } only = Only::kAny;
  size_t i = 2;
  for (; i < c.args.size() && !EqualsIgnoreCase(c.args[i], "FIELDS"); ++i) {
    std::string_view a = c.args[i];
    const bool fnx = EqualsIgnoreCase(a, "FNX"), fxx = EqualsIgnoreCase(a, "FXX");
    if (fnx || fxx) {
      if (only != Only::kAny) {
        c.reply.Error(err::kSyntax);
        return;
      }
      only = fnx ? Only::kNew : Only::kExisting;
      continue;
    }
    bool failed = false;
    if (!ParseTimeOption(c, &i, "KEEPTTL", &opt, &failed)) {
      c.reply.Error(err::kSyntax);
      return;
    }
    if (failed) return;
  }
  if (i >= c.args.size()) {
    c.reply.Error(err::kHashFieldsMissing);
    return;
  }
  size_t first, n;
  if (!ParseExFields(c, i, 2, &first, &n)) return;
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kWrite, &e)) return;
  if (only != Only::kAny) {
    bool allowed = true;
    for (size_t k = first; k < c.args.size() && allowed; k += 2) {
      const bool exists = e != nullptr && HashOf(e->value).Exists(c.args[k]);
      allowed = only == Only::kNew ? !exists : exists;
    }
    if (!allowed) {
      c.reply.Int(0);
      return;
    }
  }
  const TypeLimits& limits = c.server.keyspace().limits;
  size_t longest = 0, total = 0;
  for (size_t k = first; k < c.args.size(); ++k) {
    longest = std::max(longest, c.args[k].size());
    total += c.args[k].size();
  }
  const bool keep = opt.kind == TimeOption::kKeepTtl;
  auto set_pairs = [&](HashObject& h) {
    h.PrepareWrite(longest, total, limits);
    for (size_t k = first; k < c.args.size(); k += 2) h.Set(c.args[k], c.args[k + 1], limits, keep);
  };
  if (e == nullptr) {
    Value v = NewHashValue();
    set_pairs(HashOf(v));
    e = c.db.Add(c.args[1], std::move(v), notice::kHSet);
  } else {
    Mutation m = c.db.Mutate(e, notice::kHSet);
    set_pairs(HashOf(m.value()));
  }
  c.reply.Int(1);
  if (opt.kind != TimeOption::kAt) return;  // replayed as it came
  HashObject& h = HashOf(e->value);
  std::vector<std::string_view> fields;
  for (size_t k = first; k < c.args.size(); k += 2) fields.push_back(c.args[k]);
  std::vector<std::string> hset{"HSET", std::string(c.args[1])};
  hset.insert(hset.end(), c.args.begin() + static_cast<std::ptrdiff_t>(first), c.args.end());
  if (DueNow(c, opt.when)) {
    for (std::string_view f : fields) h.Delete(f);
    AnnounceEdits(c, e, false, false, true);
    Replicate(c, {std::move(hset), HDelRecord(c.args[1], fields)});
    return;
  }
  for (std::string_view f : fields) h.SetFieldExpire(f, opt.when);
  AnnounceEdits(c, e, true, false, false);
  std::vector<std::string> argv{"HSETEX", std::string(c.args[1]), "PXAT", Int64ToString(opt.when),
                                "FIELDS", Int64ToString(n)};
  argv.insert(argv.end(), c.args.begin() + static_cast<std::ptrdiff_t>(first), c.args.end());
  c.ReplicateAs(std::move(argv));
}

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;
using docs::UnixTime;

ArgDoc FieldsBlock() {
  return Block("fields", {Integer("numfields"), String("field").Multiple()}).Token("FIELDS");
}

ArgDoc Condition() {
  return OneOf("condition", {PureToken("NX"), PureToken("XX"), PureToken("GT"), PureToken("LT")})
      .Optional();
}

CommandSpec Row(const char* name, int arity, uint64_t flags, uint64_t acl, uint32_t key_flags,
                CommandHandler handler, CommandDoc doc) {
  doc.group = "hash";
  doc.key_specs = {{.flags = key_flags, .index = 1}};
  return {.name = name,
          .arity = arity,
          .flags = flags,
          .first_key = 1,
          .last_key = 1,
          .key_step = 1,
          .acl = acl,
          .doc = std::move(doc),
          .handler = handler};
}

}  // namespace

void RegisterHashExpireCommands(CommandTable& t) {
  constexpr uint64_t kSetFlags = kCmdWrite | kCmdDenyOom | kCmdFast;
  constexpr uint64_t kAclWriteFast = kAclWrite | kAclHash | kAclFast;
  constexpr uint64_t kAclReadFast = kAclRead | kAclHash | kAclFast;
  const char* kFieldsComplexity = "O(N) where N is the number of specified fields";
  struct Setter {
    const char* name;
    CommandHandler handler;
    const char* summary;
    ArgDoc time;
  };
  Setter setters[] = {
      {"hexpire", HExpireCommand, "Sets the time to live of hash fields in seconds",
       Integer("seconds")},
      {"hpexpire", HPExpireCommand, "Sets the time to live of hash fields in milliseconds",
       Integer("milliseconds")},
      {"hexpireat", HExpireAtCommand, "Makes hash fields expire at a Unix time in seconds",
       UnixTime("unix-time-seconds")},
      {"hpexpireat", HPExpireAtCommand, "Makes hash fields expire at a Unix time in milliseconds",
       UnixTime("unix-time-milliseconds")},
  };
  for (Setter& s : setters) {
    t.Register(Row(s.name, -6, kSetFlags, kAclWriteFast, kKeyRW | kKeyUpdate, s.handler,
                   {.summary = s.summary,
                    .since = "7.4.0",
                    .complexity = kFieldsComplexity,
                    .args = {Key("key", 0), std::move(s.time), Condition(), FieldsBlock()}}));
  }
  struct Getter {
    const char* name;
    CommandHandler handler;
    const char* summary;
  };
  const Getter getters[] = {
      {"httl", HTtlCommand, "Returns the time to live in seconds of hash fields"},
      {"hpttl", HPTtlCommand, "Returns the time to live in milliseconds of hash fields"},
      {"hexpiretime", HExpireTimeCommand,
       "Returns the Unix time in seconds at which hash fields expire"},
      {"hpexpiretime", HPExpireTimeCommand,
       "Returns the Unix time in milliseconds at which hash fields expire"},
  };
  for (const Getter& g : getters) {
    t.Register(Row(g.name, -5, kCmdReadOnly | kCmdFast, kAclReadFast, kKeyRO | kKeyAccess,
                   g.handler,
                   {.summary = g.summary,
                    .since = "7.4.0",
                    .complexity = kFieldsComplexity,
                    .args = {Key("key", 0), FieldsBlock()}}));
  }
  t.Register(Row("hpersist", -5, kCmdWrite | kCmdFast, kAclWriteFast, kKeyRW | kKeyUpdate,
                 HPersistCommand,
                 {.summary = "Removes the expiration time of hash fields",
                  .since = "7.4.0",
                  .complexity = kFieldsComplexity,
                  .args = {Key("key", 0), FieldsBlock()}}));
  t.Register(Row("hgetdel", -5, kCmdWrite | kCmdFast, kAclWriteFast,
                 kKeyRW | kKeyAccess | kKeyDelete, HGetDelCommand,
                 {.summary = "Returns the values of hash fields and deletes them",
                  .since = "8.0.0",
                  .complexity = kFieldsComplexity,
                  .args = {Key("key", 0), FieldsBlock()}}));
  auto times = [](std::string_view last) {
    return OneOf("expiration", {Integer("seconds").Token("EX"), Integer("milliseconds").Token("PX"),
                                UnixTime("unix-time-seconds").Token("EXAT"),
                                UnixTime("unix-time-milliseconds").Token("PXAT"), PureToken(last)})
        .Optional();
  };
  t.Register(Row("hgetex", -5, kCmdWrite | kCmdFast, kAclWriteFast,
                 kKeyRW | kKeyAccess | kKeyUpdate, HGetExCommand,
                 {.summary = "Returns the values of hash fields and sets or removes their "
                             "expiration time",
                  .since = "8.0.0",
                  .complexity = kFieldsComplexity,
                  .args = {Key("key", 0), times("PERSIST"), FieldsBlock()}}));
  t.Register(Row(
      "hsetex", -6, kSetFlags, kAclWriteFast, kKeyRW | kKeyUpdate, HSetExCommand,
      {.summary = "Sets hash fields, optionally with an expiration time",
       .since = "8.0.0",
       .complexity = kFieldsComplexity,
       .args = {Key("key", 0), OneOf("condition", {PureToken("FNX"), PureToken("FXX")}).Optional(),
                times("KEEPTTL"),
                Block("fields", {Integer("numfields"),
                                 Block("data", {String("field"), String("value")}).Multiple()})
                    .Token("FIELDS")}}));
}

}  // namespace redistp
