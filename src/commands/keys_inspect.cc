// Commands that look at the keyspace without changing values: KEYS, SCAN, OBJECT and
// MEMORY USAGE.
//
// KEYS walks the whole table in one go (it is O(N) by definition, and flagged dangerous); it
// skips keys whose TTL is due without deleting them, as Redis does. SCAN is incremental: it
// drives Database::Scan, whose reverse-binary cursor survives table growth and shrinking
// between calls, and which deletes the expired keys it meets. As in Redis, COUNT bounds the
// number of keys *gathered* (before MATCH and TYPE filtering), and at most COUNT*10 buckets
// are visited per call, so a sparse or heavily filtered table cannot make one call long.
//
// OBJECT reports per-key internals: the string encoding class, a reference count (Redis shares
// the objects of small integers, which we mimic in the answer), the idle time from the entry's
// LRU clock, or the LFU access frequency. The entry's 24 LRU bits hold either an LRU clock in
// seconds or, under an LFU maxmemory policy, Redis's LFU layout: 16 bits of "last decrement
// time" in minutes and an 8-bit logarithmic counter.
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/help_reply.h"
#include "commands/keys_util.h"
#include "commands/register.h"
#include "commands/scan_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "types/value.h"
#include "util/glob.h"
#include "util/numbers.h"

namespace redistp {
namespace {

void KeysCommand(CommandContext& c) {
  std::string_view pattern = c.args[1];
  const bool all = pattern == "*";
  size_t handle = c.reply.DeferLen();
  size_t n = 0;
  c.db.dict().ForEach([&](Entry* e) {
    if (!all && !GlobMatch(pattern, e->key())) return;
    if (c.db.IsExpired(e)) return;
    c.reply.Bulk(e->key());
    ++n;
  });
  c.reply.SetDeferredLen(handle, '*', n);
}

// SCAN cursor [MATCH pattern] [COUNT n] [TYPE type].
void ScanCommand(CommandContext& c) {
  uint64_t cursor;
  if (!ParseScanCursor(c.args[1], &cursor)) {
    c.reply.Error(err::kInvalidCursor);
    return;
  }
  ScanOptions opt;
  if (!ParseScanOptions(c.args, 2, /*allow_type=*/true, c.reply, &opt)) return;
  const std::string_view pattern = opt.pattern, type = opt.type;
  const bool has_pattern = opt.has_pattern, has_type = opt.has_type;
  const int64_t count = opt.count;

  // The keys it finds expired are replicated one DEL at a time, unwrapped, as Redis 7.0 does.
  c.server.propagator().SendSideEffectsApart();
  KeyspaceContext& ks = c.server.keyspace();
  std::vector<Entry*> keys;
  uint64_t gathered = 0;
  auto visit = [&](Entry* e) {
    ++gathered;
    if (has_pattern && !GlobMatch(pattern, e->key())) return;
    if (has_type) {
      // Redis looks the key up to learn its type, which counts as a keyspace hit.
      ++ks.keyspace_hits;
      if (!EqualsIgnoreCase(type, ValueTypeName(e->value.type()))) return;
    }
    keys.push_back(e);
  };
  const uint64_t target = static_cast<uint64_t>(count);
  uint64_t max_steps = target > std::numeric_limits<uint64_t>::max() / 10
                           ? std::numeric_limits<uint64_t>::max()
                           : target * 10;
  do {
    cursor = c.db.Scan(cursor, visit);
  } while (cursor != 0 && max_steps-- > 0 && gathered < target);

  c.reply.Array(2);
  ReplyScanCursor(c.reply, cursor);
  c.reply.Array(keys.size());
  for (Entry* e : keys) c.reply.Bulk(e->key());
}

// --- OBJECT -----------------------------------------------------------------------------------

// Redis keeps one shared object per integer 0..9999 and hands it to every key holding that
// number, unless maxmemory is set with an LRU/LFU policy (shared objects cannot carry per-key
// access data). Such an object reports INT_MAX as its reference count.
constexpr int64_t kSharedIntegers = 10000;
constexpr int64_t kSharedRefcount = 2147483647;

bool PolicyIsLfu(Server& s) {
  MaxmemoryPolicy p = s.config().maxmemory_policy_kind;
  return p == MaxmemoryPolicy::kVolatileLfu || p == MaxmemoryPolicy::kAllkeysLfu;
}
bool PolicyIsLru(Server& s) {
  MaxmemoryPolicy p = s.config().maxmemory_policy_kind;
  return p == MaxmemoryPolicy::kVolatileLru || p == MaxmemoryPolicy::kAllkeysLru;
}

// Looks up the OBJECT subcommand's key (argv[2]) without touching it; replies null if absent.
Entry* ObjectLookupOrReply(CommandContext& c) {
  Entry* e = keycmd::LookupNoTouch(c, c.args[2], false);
  if (e == nullptr) c.reply.Null();
  return e;
}

void ObjectEncodingCommand(CommandContext& c) {
  Entry* e = ObjectLookupOrReply(c);
  if (e != nullptr) c.reply.Bulk(e->value.EncodingName());
}

// OBJECT OWNER key: the client id owning a temporary key, nil for an ordinary key (or none).
void ObjectOwnerCommand(CommandContext& c) {
  Entry* e = keycmd::LookupNoTouch(c, c.args[2], false);
  uint64_t owner = e != nullptr ? c.server.owners().OwnerOf(e) : 0;
  if (owner == 0) {
    c.reply.Null();
  } else {
    c.reply.Int(static_cast<int64_t>(owner));
  }
}

// OBJECT FENCE key: the fencing token of a temporary key created with FENCE, else nil.
void ObjectFenceCommand(CommandContext& c) {
  Entry* e = keycmd::LookupNoTouch(c, c.args[2], false);
  uint64_t fence = e != nullptr ? c.server.owners().FenceOf(e) : 0;
  if (fence == 0) {
    c.reply.Null();
  } else {
    c.reply.Int(static_cast<int64_t>(fence));
  }
}

void ObjectRefcountCommand(CommandContext& c) {
  Entry* e = ObjectLookupOrReply(c);
  if (e == nullptr) return;
  int64_t n;
  bool shared_allowed =
      c.server.config().maxmemory == 0 || !(PolicyIsLfu(c.server) || PolicyIsLru(c.server));
  bool shared =
      shared_allowed && e->value.is_int() && e->value.GetInt(&n) && n >= 0 && n < kSharedIntegers;
  c.reply.Int(shared ? kSharedRefcount : 1);
}

// Seconds since the key's last access, on the 24-bit seconds clock (which wraps every ~194
// days; an entry older than the wrap is reported modulo it, as in Redis).
void ObjectIdletimeCommand(CommandContext& c) {
  Entry* e = ObjectLookupOrReply(c);
  if (e == nullptr) return;
  if (PolicyIsLfu(c.server)) {
    c.reply.Error(err::kLfuSelected);
    return;
  }
  uint32_t clock = c.server.keyspace().lru_clock();
  uint32_t lru = e->lru();
  int64_t idle = clock >= lru ? clock - lru : clock + (Entry::kLruMask - lru);
  c.reply.Int(idle);
}

// LFU data: the high 16 of the 24 bits are the minute (mod 2^16) of the last decrement, the low
// 8 the counter. The reported frequency is the counter after the decay owed since then: one
// step per lfu-decay-time minutes (0 = no decay).
void ObjectFreqCommand(CommandContext& c) {
  Entry* e = ObjectLookupOrReply(c);
  if (e == nullptr) return;
  if (!PolicyIsLfu(c.server)) {
    c.reply.Error(err::kLfuNotSelected);
    return;
  }
  uint32_t ldt = e->lru() >> 8;
  int64_t counter = e->lru() & 0xFF;
  uint32_t now_min = static_cast<uint32_t>(c.server.keyspace().now_ms() / 60000) & 0xFFFF;
  int64_t elapsed = now_min >= ldt ? now_min - ldt : 0xFFFF - ldt + now_min;
  int64_t decay = c.server.config().lfu_decay_time;
  int64_t periods = decay > 0 ? elapsed / decay : 0;
  c.reply.Int(periods > counter ? 0 : counter - periods);
}

void ObjectHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "OBJECT",
            {
                "ENCODING <key>",
                "    How the value of <key> is stored (int, embstr, raw, ...).",
                "FREQ <key>",
                "    The logarithmic access counter of <key> (needs an LFU maxmemory-policy).",
                "IDLETIME <key>",
                "    Seconds since <key> was last read or written (needs a non-LFU policy).",
                "REFCOUNT <key>",
                "    How many references share the value of <key>.",
                "OWNER <key>",
                "    Return the id of the connection owning the temporary <key> (SETTP), or nil.",
                "FENCE <key>",
                "    Return the fencing token of a temporary <key> created with FENCE, or nil.",
            });
}

// --- MEMORY USAGE -----------------------------------------------------------------------------

// MEMORY USAGE key [SAMPLES n]: the bytes the key costs — its entry block (header and key
// bytes, as allocated), what the value holds outside the entry, and its slot in the bucket
// array. SAMPLES (an integer >= 0, default 5, 0 = every element) only matters for aggregates,
// whose TypeOps::memory estimates from that many elements as Redis does.
void MemoryUsageCommand(CommandContext& c) {
  int64_t samples = 5;  // Redis's default sample count
  for (size_t j = 3; j < c.args.size(); ++j) {
    if (EqualsIgnoreCase(c.args[j], "samples") && j + 1 < c.args.size()) {
      if (!ParseInt64(c.args[j + 1], &samples)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      if (samples < 0) {
        c.reply.Error(err::kSyntax);
        return;
      }
      ++j;
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  Entry* e = c.db.Peek(c.args[2]);
  if (e == nullptr) {
    c.reply.Null();
    return;
  }
  // Aggregates estimate from `samples` elements (0 = all), as Redis does.
  size_t bytes = e->AllocSize() + e->value.HeapBytes(static_cast<size_t>(samples)) + sizeof(Entry*);
  c.reply.Int(static_cast<int64_t>(bytes));
}

using docs::Integer;
using docs::Key;
using docs::Pattern;
using docs::String;

CommandSpec ObjectKeySubcommand(const char* name, CommandHandler handler, CommandDoc doc) {
  return {.name = name,
          .arity = 3,
          .flags = kCmdReadOnly,
          .first_key = 2,
          .last_key = 2,
          .key_step = 1,
          .acl = kAclKeyspace | kAclRead | kAclSlow,
          .doc = std::move(doc),
          .handler = handler};
}

}  // namespace

CommandSpec MemoryUsageSubcommand() {
  return {.name = "usage",
          .arity = -3,
          .flags = kCmdReadOnly,
          .first_key = 2,
          .last_key = 2,
          .key_step = 1,
          .acl = kAclRead | kAclSlow,
          .doc = {.summary = "Estimates how many bytes a key and its value occupy",
                  .since = "4.0.0",
                  .group = "server",
                  .complexity = "O(N) where N is the number of samples.",
                  .key_specs = {{.flags = kKeyRO, .index = 2}},
                  .args = {Key("key", 0), Integer("count").Token("SAMPLES").Optional()}},
          .handler = MemoryUsageCommand};
}

void RegisterKeyInspectCommands(CommandTable& t) {
  t.Register(
      {.name = "keys",
       .arity = 2,
       .flags = kCmdReadOnly,
       .acl = kAclKeyspace | kAclRead | kAclSlow | kAclDangerous,
       .doc = {.summary = "Lists the keys that match a glob-style pattern",
               .since = "1.0.0",
               .group = "generic",
               .complexity = "O(N) with N being the number of keys in the database, under the "
                             "assumption that the "
                             "key names in the database and the given pattern have limited length.",
               .tips = {"request_policy:all_shards", "nondeterministic_output_order"},
               .args = {Pattern("pattern")}},
       .handler = KeysCommand});
  t.Register(
      {.name = "scan",
       .arity = -2,
       .flags = kCmdReadOnly,
       .acl = kAclKeyspace | kAclRead | kAclSlow,
       .doc = {.summary = "Walks the keyspace a little at a time with a cursor",
               .since = "2.8.0",
               .group = "generic",
               .complexity = "O(1) for every call. O(N) for a complete iteration, including enough "
                             "command calls for "
                             "the cursor to return back to 0. N is the number of elements inside "
                             "the collection.",
               .history = {{"6.0.0", "New `TYPE` option to return only keys holding one type."}},
               .tips = {"nondeterministic_output", "request_policy:special"},
               .args = {Integer("cursor"), Pattern("pattern").Token("MATCH").Optional(),
                        Integer("count").Token("COUNT").Optional(),
                        String("type").Token("TYPE").Since("6.0.0").Optional()}},
       .handler = ScanCommand});
  t.Register(
      {.name = "object",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the commands that inspect the object stored at a key",
               .since = "2.2.3",
               .group = "generic",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           ObjectKeySubcommand("encoding", ObjectEncodingCommand,
                               {.summary = "Names the internal representation of a key's value",
                                .since = "2.2.3",
                                .group = "generic",
                                .complexity = "O(1)",
                                .tips = {"nondeterministic_output"},
                                .key_specs = {{.flags = kKeyRO, .index = 2}},
                                .args = {Key("key", 0)}}),
           ObjectKeySubcommand("refcount", ObjectRefcountCommand,
                               {.summary = "Returns how many references share a key's value",
                                .since = "2.2.3",
                                .group = "generic",
                                .complexity = "O(1)",
                                .tips = {"nondeterministic_output"},
                                .key_specs = {{.flags = kKeyRO, .index = 2}},
                                .args = {Key("key", 0)}}),
           ObjectKeySubcommand(
               "idletime", ObjectIdletimeCommand,
               {.summary = "Returns how many seconds have passed since a key was last accessed",
                .since = "2.2.3",
                .group = "generic",
                .complexity = "O(1)",
                .tips = {"nondeterministic_output"},
                .key_specs = {{.flags = kKeyRO, .index = 2}},
                .args = {Key("key", 0)}}),
           ObjectKeySubcommand(
               "freq", ObjectFreqCommand,
               {.summary = "Returns the logarithmic access-frequency counter of a key",
                .since = "4.0.0",
                .group = "generic",
                .complexity = "O(1)",
                .tips = {"nondeterministic_output"},
                .key_specs = {{.flags = kKeyRO, .index = 2}},
                .args = {Key("key", 0)}}),
           ObjectKeySubcommand(
               "owner", ObjectOwnerCommand,
               {.summary = "redis-tp: returns the ID of the connection that owns a temporary key",
                .since = "7.0.15",
                .group = "generic",
                .complexity = "O(1)",
                .key_specs = {{.flags = kKeyRO, .index = 2}},
                .args = {Key("key", 0)}}),
           ObjectKeySubcommand(
               "fence", ObjectFenceCommand,
               {.summary = "redis-tp: returns the fencing token a temporary key was created with",
                .since = "7.0.15",
                .group = "generic",
                .complexity = "O(1)",
                .key_specs = {{.flags = kKeyRO, .index = 2}},
                .args = {Key("key", 0)}}),
           CommandSpec{
               .name = "help",
               .arity = 2,
               .flags = kCmdLoading | kCmdStale,
               .acl = kAclKeyspace | kAclSlow,
               .doc = {.summary = "Lists the OBJECT subcommands with a short description of each",
                       .since = "6.2.0",
                       .group = "generic",
                       .complexity = "O(1)"},
               .handler = ObjectHelpCommand},
       }});
}

}  // namespace redistp
