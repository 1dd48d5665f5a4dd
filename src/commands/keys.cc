// Generic key commands: the ones that work on keys whatever their type.
//
// DEL, UNLINK, EXISTS, TYPE, TOUCH, RENAME, RENAMENX, MOVE, COPY, RANDOMKEY, DBSIZE, FLUSHDB,
// FLUSHALL and SWAPDB. (KEYS, SCAN, OBJECT and MEMORY USAGE live in keys_inspect.cc; the TTL
// family in keys_expire.cc.)
//
// Every change goes through the Database, which emits the key events: a rename or a move is
// Database::MoveEntry, so whatever is attached to the entry (TTL, LRU data, ownership of a
// temporary key) travels with it, and listeners see "moved out" then "added", never a plain
// delete. COPY is the exception on purpose: the copy is a new key (Add), owned by nobody.
//
// Lookups follow Redis's flavours, which matter for INFO's keyspace_hits/misses and for
// OBJECT IDLETIME: EXISTS and TYPE count but do not touch, TOUCH counts and touches, the
// write commands neither count nor (observably) touch.
#include <string>
#include <string_view>

#include "commands/keys_util.h"
#include "db/database.h"
#include "persistence/persistence.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "types/value.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// DEL and UNLINK: a key named twice counts once because the second lookup misses; an expired
// key counts as absent. UNLINK frees a big value on the lazy free thread, DEL does so only
// under lazyfree-lazy-user-del (the keyspace's policy says which, db/lazy_free.h); either way
// the key is gone when the reply is sent.
void DeleteKeys(CommandContext& c, bool lazy) {
  LazyFreePolicy& policy = c.server.keyspace().lazy;
  policy.user_delete = lazy ? LazyFreePolicy::UserDelete::kLazy : LazyFreePolicy::UserDelete::kSync;
  int64_t removed = 0;
  for (size_t i = 1; i < c.args.size(); ++i) {
    Entry* e = c.db.LookupWrite(c.args[i]);
    if (e == nullptr) continue;
    c.db.Remove(e, RemoveCause::kDeleted);
    ++removed;
  }
  policy.user_delete = LazyFreePolicy::UserDelete::kNone;
  c.reply.Int(removed);
}

void DelCommand(CommandContext& c) { DeleteKeys(c, c.server.config().lazyfree_lazy_user_del); }
void UnlinkCommand(CommandContext& c) { DeleteKeys(c, true); }

// EXISTS counts every argument that names a live key, repeats included.
void ExistsCommand(CommandContext& c) {
  int64_t found = 0;
  for (size_t i = 1; i < c.args.size(); ++i) {
    if (keycmd::LookupNoTouch(c, c.args[i]) != nullptr) ++found;
  }
  c.reply.Int(found);
}

void TypeCommand(CommandContext& c) {
  Entry* e = keycmd::LookupNoTouch(c, c.args[1]);
  c.reply.Simple(e == nullptr ? "none" : ValueTypeName(e->value.type()));
}

// TOUCH is a read access (updates LRU/LFU data) that replies how many keys exist.
void TouchCommand(CommandContext& c) {
  int64_t found = 0;
  for (size_t i = 1; i < c.args.size(); ++i) {
    if (c.db.LookupRead(c.args[i]) != nullptr) ++found;
  }
  c.reply.Int(found);
}

// RENAME / RENAMENX. The source must exist even when both names are equal; renaming a key
// onto itself is then a no-op that RENAME acknowledges with OK and RENAMENX with 0 (the
// destination "exists"). An expired destination is expired first, so it is not reported as
// overwritten.
void RenameGeneric(CommandContext& c, bool nx) {
  std::string_view src = c.args[1];
  std::string_view dst = c.args[2];
  Entry* e = c.db.LookupWrite(src);
  if (e == nullptr) {
    c.reply.Error(err::kNoSuchKey);
    return;
  }
  if (src == dst) {
    if (nx) {
      c.reply.Int(0);
    } else {
      c.reply.Ok();
    }
    return;
  }
  if (c.db.LookupWrite(dst) != nullptr && nx) {
    c.reply.Int(0);
    return;
  }
  c.db.MoveEntry(e, c.db, dst, notice::kRenameFrom, notice::kRenameTo);
  if (nx) {
    c.reply.Int(1);
  } else {
    c.reply.Ok();
  }
}

void RenameCommand(CommandContext& c) { RenameGeneric(c, false); }
void RenameNxCommand(CommandContext& c) { RenameGeneric(c, true); }

// MOVE key db: 1 if moved, 0 if the key is missing here or already present there. The index
// is validated (integer, then range) before the same-database check, as Redis does, so
// "MOVE nokey <current db>" is still an error.
void MoveCommand(CommandContext& c) {
  if (c.server.config().cluster_enabled) {
    c.reply.Error(err::kMoveInCluster);
    return;
  }
  int index;
  if (!keycmd::ParseIntArg(c, c.args[2], &index)) return;
  Database* dst = keycmd::DbByIndexOrReply(c, index);
  if (dst == nullptr) return;
  if (dst == &c.db) {
    c.reply.Error(err::kSameObject);
    return;
  }
  Entry* e = c.db.LookupWrite(c.args[1]);
  if (e == nullptr || dst->LookupWrite(c.args[1]) != nullptr) {
    c.reply.Int(0);
    return;
  }
  c.db.MoveEntry(e, *dst, c.args[1], notice::kMoveFrom, notice::kMoveTo);
  c.reply.Int(1);
}

// COPY source destination [DB index] [REPLACE]. Options are parsed first (so a bad DB index is
// reported even for a missing source); copying a key onto itself in the same database is an
// error. The TTL is copied; the destination, when replaced, is removed as "overwritten".
void CopyCommand(CommandContext& c) {
  Database* dst_db = &c.db;
  bool replace = false;
  for (size_t j = 3; j < c.args.size(); ++j) {
    if (EqualsIgnoreCase(c.args[j], "replace")) {
      replace = true;
    } else if (EqualsIgnoreCase(c.args[j], "db") && j + 1 < c.args.size()) {
      int index;
      if (!keycmd::ParseIntArg(c, c.args[j + 1], &index)) return;
      dst_db = keycmd::DbByIndexOrReply(c, index);
      if (dst_db == nullptr) return;
      ++j;
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  if (c.server.config().cluster_enabled && dst_db != &c.db) {
    c.reply.Error(err::kCopyDbInCluster);
    return;
  }
  std::string_view src_key = c.args[1];
  std::string_view dst_key = c.args[2];
  if (dst_db == &c.db && src_key == dst_key) {
    c.reply.Error(err::kSameObject);
    return;
  }
  Entry* src = c.db.LookupRead(src_key);
  if (src == nullptr) {
    c.reply.Int(0);
    return;
  }
  Entry* old = dst_db->LookupWrite(dst_key);
  if (old != nullptr && !replace) {
    c.reply.Int(0);
    return;
  }
  // A deep copy in the same encoding (TypeOps::clone for aggregates), so OBJECT ENCODING of
  // the copy answers like the original.
  Value copy = src->value.Clone();
  int64_t expire_ms = c.db.ExpireOf(src);
  if (old != nullptr) dst_db->Remove(old, RemoveCause::kOverwritten);
  Entry* added =
      dst_db->Add(dst_key, std::move(copy), notice::kCopyTo, /*replaced=*/old != nullptr);
  // The TTL travels with the copy unannounced: Redis publishes only "copy_to" (after "new").
  if (expire_ms != 0) dst_db->SetExpire(added, expire_ms, notice::kNone);
  c.reply.Int(1);
}

void RandomKeyCommand(CommandContext& c) {
  // The keys it finds expired are replicated one DEL at a time, unwrapped, as Redis 7.0 does.
  c.server.propagator().SendSideEffectsApart();
  Entry* e = c.db.RandomKey();
  if (e == nullptr) {
    c.reply.Null();
  } else {
    c.reply.Bulk(e->key());
  }
}

void DbSizeCommand(CommandContext& c) { c.reply.Int(static_cast<int64_t>(c.db.size())); }

// FLUSHDB/FLUSHALL take at most one argument, ASYNC or SYNC; without one,
// lazyfree-lazy-user-flush chooses. ASYNC hands the keys to the lazy free thread (the
// database is empty at once either way). Returns false after replying a syntax error.
bool ParseFlushMode(CommandContext& c, bool* async) {
  if (c.args.size() > 2 || (c.args.size() == 2 && !EqualsIgnoreCase(c.args[1], "async") &&
                            !EqualsIgnoreCase(c.args[1], "sync"))) {
    c.reply.Error(err::kSyntax);
    return false;
  }
  *async = c.args.size() == 2 ? EqualsIgnoreCase(c.args[1], "async")
                              : c.server.config().lazyfree_lazy_user_flush;
  return true;
}

void FlushDbCommand(CommandContext& c) {
  bool async = false;
  if (!ParseFlushMode(c, &async)) return;
  // Every key removed is a change since the last save, as Redis counts it (the flush emits
  // one event for the whole database, not one per key).
  c.db.Flush(Database::FlushCount::kCountKeys, async);
  c.ForceReplication();  // even when already empty, as Redis 7.0
  c.reply.Ok();
}

void FlushAllCommand(CommandContext& c) {
  bool async = false;
  if (!ParseFlushMode(c, &async)) return;
  for (int i = 0; i < c.server.db_count(); ++i) {
    c.server.db(i).Flush(Database::FlushCount::kCountKeys, async);  // as FLUSHDB
  }
  // With persistence (the real server; the in-process harness has none), a running BGSAVE is
  // killed and, with save points, the empty dataset saved at once, as Redis 7.0 does.
  if (Persistence* p = c.server.subsystem<Persistence>()) p->SaveAfterFlushAll();
  c.ForceReplication();  // even when already empty, as Redis 7.0
  c.reply.Ok();
}

// SWAPDB a b: clients keep pointing at their Database object, whose contents are exchanged,
// so every client selected on a or b sees the other's keys at once. Swapping a database with
// itself is a successful no-op.
void SwapDbCommand(CommandContext& c) {
  if (c.server.config().cluster_enabled) {
    c.reply.Error(err::kSwapdbInCluster);
    return;
  }
  int a, b;
  if (!keycmd::ParseIntArg(c, c.args[1], &a, err::kInvalidFirstDbIndex)) return;
  if (!keycmd::ParseIntArg(c, c.args[2], &b, err::kInvalidSecondDbIndex)) return;
  if (a < 0 || b < 0 || a >= c.server.db_count() || b >= c.server.db_count()) {
    c.reply.Error(err::kDbIndexRange);
    return;
  }
  if (a != b) Database::Swap(c.server.db(a), c.server.db(b));
  c.ForceReplication();  // SWAPDB a a too, as Redis 7.0
  c.reply.Ok();
}

}  // namespace

using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;

void RegisterKeyCommands(CommandTable& t) {
  t.Register(
      {.name = "del",
       .arity = -2,
       .flags = kCmdWrite,
       .first_key = 1,
       .last_key = -1,
       .key_step = 1,
       .acl = kAclKeyspace | kAclWrite | kAclSlow,
       .doc = {.summary = "Deletes keys",
               .since = "1.0.0",
               .group = "generic",
               .complexity =
                   "O(N) where N is the number of keys that will be removed. When a key to "
                   "remove holds a value other than a string, the individual complexity for this "
                   "key is O(M) where M is the number of elements in the list, set, sorted set "
                   "or hash. Removing a single key that holds a string value is O(1).",
               .tips = {"request_policy:multi_shard", "response_policy:agg_sum"},
               .key_specs = {{.flags = kKeyRM | kKeyDelete, .index = 1, .last_key = -1}},
               .args = {Key("key", 0).Multiple()}},
       .handler = DelCommand});
  t.Register(
      {.name = "unlink",
       .arity = -2,
       .flags = kCmdWrite | kCmdFast,
       .first_key = 1,
       .last_key = -1,
       .key_step = 1,
       .acl = kAclKeyspace | kAclWrite | kAclFast,
       .doc = {.summary = "Deletes keys, reclaiming their memory in the background",
               .since = "4.0.0",
               .group = "generic",
               .complexity =
                   "O(1) for each key removed regardless of its size. Then the command does O(N) "
                   "work in a different thread in order to reclaim memory, where N is the number "
                   "of allocations the deleted objects where composed of.",
               .tips = {"request_policy:multi_shard", "response_policy:agg_sum"},
               .key_specs = {{.flags = kKeyRM | kKeyDelete, .index = 1, .last_key = -1}},
               .args = {Key("key", 0).Multiple()}},
       .handler = UnlinkCommand});
  t.Register(
      {.name = "exists",
       .arity = -2,
       .flags = kCmdReadOnly | kCmdFast,
       .first_key = 1,
       .last_key = -1,
       .key_step = 1,
       .acl = kAclKeyspace | kAclRead | kAclFast,
       .doc = {.summary = "Counts how many of the given keys exist",
               .since = "1.0.0",
               .group = "generic",
               .complexity = "O(N) where N is the number of keys to check.",
               .history = {{"3.0.3",
                            "Several keys may be given; the reply counts those that exist."}},
               .tips = {"request_policy:multi_shard", "response_policy:agg_sum"},
               .key_specs = {{.flags = kKeyRO, .index = 1, .last_key = -1}},
               .args = {Key("key", 0).Multiple()}},
       .handler = ExistsCommand});
  t.Register({.name = "type",
              .arity = 2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclKeyspace | kAclRead | kAclFast,
              .doc = {.summary = "Names the data type of the value stored at a key",
                      .since = "1.0.0",
                      .group = "generic",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = TypeCommand});
  t.Register({.name = "touch",
              .arity = -2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = -1,
              .key_step = 1,
              .acl = kAclKeyspace | kAclRead | kAclFast,
              .doc = {.summary = "Marks keys as accessed and counts those that exist",
                      .since = "3.2.1",
                      .group = "generic",
                      .complexity = "O(N) where N is the number of keys that will be touched.",
                      .tips = {"request_policy:multi_shard", "response_policy:agg_sum"},
                      .key_specs = {{.flags = kKeyRO, .index = 1, .last_key = -1}},
                      .args = {Key("key", 0).Multiple()}},
              .handler = TouchCommand});
  t.Register({.name = "rename",
              .arity = 3,
              .flags = kCmdWrite,
              .first_key = 1,
              .last_key = 2,
              .key_step = 1,
              .acl = kAclKeyspace | kAclWrite | kAclSlow,
              .doc = {.summary = "Gives a key a new name, replacing any key that had it",
                      .since = "1.0.0",
                      .group = "generic",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1},
                                    {.flags = kKeyOW | kKeyUpdate, .index = 2}},
                      .args = {Key("key", 0), Key("newkey", 1)}},
              .handler = RenameCommand});
  t.Register(
      {.name = "renamenx",
       .arity = 3,
       .flags = kCmdWrite | kCmdFast,
       .first_key = 1,
       .last_key = 2,
       .key_step = 1,
       .acl = kAclKeyspace | kAclWrite | kAclFast,
       .doc = {.summary = "Gives a key a new name only if no key has that name",
               .since = "1.0.0",
               .group = "generic",
               .complexity = "O(1)",
               .history = {{"3.2.0", "Renaming a key to its own name is no longer an error."}},
               .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1},
                             {.flags = kKeyOW | kKeyInsert, .index = 2}},
               .args = {Key("key", 0), Key("newkey", 1)}},
       .handler = RenameNxCommand});
  t.Register({.name = "move",
              .arity = 3,
              .flags = kCmdWrite | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclKeyspace | kAclWrite | kAclFast,
              .doc = {.summary = "Moves a key to another database",
                      .since = "1.0.0",
                      .group = "generic",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), Integer("db")}},
              .handler = MoveCommand});
  t.Register(
      {.name = "copy",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = 2,
       .key_step = 1,
       .acl = kAclKeyspace | kAclWrite | kAclSlow,
       .doc = {.summary =
                   "Duplicates a key's value under another name, possibly in another database",
               .since = "6.2.0",
               .group = "generic",
               .complexity =
                   "O(N) worst case for collections, where N is the number of nested items. O(1) "
                   "for string values.",
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1},
                             {.flags = kKeyOW | kKeyUpdate, .index = 2}},
               .args = {Key("source", 0), Key("destination", 1),
                        Integer("destination-db").Token("DB").Optional(),
                        PureToken("REPLACE").Optional()}},
       .handler = CopyCommand});
  t.Register({.name = "randomkey",
              .arity = 1,
              .flags = kCmdReadOnly,
              .acl = kAclKeyspace | kAclRead | kAclSlow,
              .doc = {.summary = "Returns a key picked at random",
                      .since = "1.0.0",
                      .group = "generic",
                      .complexity = "O(1)",
                      .tips = {"request_policy:all_shards", "nondeterministic_output"}},
              .handler = RandomKeyCommand});
  t.Register({.name = "dbsize",
              .arity = 1,
              .flags = kCmdReadOnly | kCmdFast,
              .acl = kAclKeyspace | kAclRead | kAclFast,
              .doc = {.summary = "Counts the keys in the selected database",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = "O(1)",
                      .tips = {"request_policy:all_shards", "response_policy:agg_sum"}},
              .handler = DbSizeCommand});
  t.Register({.name = "flushdb",
              .arity = -1,
              .flags = kCmdWrite,
              .acl = kAclKeyspace | kAclWrite | kAclSlow | kAclDangerous,
              .doc = {.summary = "Deletes every key of the selected database",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = "O(N) where N is the number of keys in the selected database",
                      .history = {{"4.0.0", "New `ASYNC` mode frees the memory in the background."},
                                  {"6.2.0", "New `SYNC` mode, naming the default explicitly."}},
                      .tips = {"request_policy:all_shards", "response_policy:all_succeeded"},
                      .args = {OneOf("async", {PureToken("ASYNC").Since("4.0.0"),
                                               PureToken("SYNC").Since("6.2.0")})
                                   .Optional()}},
              .handler = FlushDbCommand});
  t.Register({.name = "flushall",
              .arity = -1,
              .flags = kCmdWrite,
              .acl = kAclKeyspace | kAclWrite | kAclSlow | kAclDangerous,
              .doc = {.summary = "Deletes every key of every database",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = "O(N) where N is the total number of keys in all databases",
                      .history = {{"4.0.0", "New `ASYNC` mode frees the memory in the background."},
                                  {"6.2.0", "New `SYNC` mode, naming the default explicitly."}},
                      .tips = {"request_policy:all_shards", "response_policy:all_succeeded"},
                      .args = {OneOf("async", {PureToken("ASYNC").Since("4.0.0"),
                                               PureToken("SYNC").Since("6.2.0")})
                                   .Optional()}},
              .handler = FlushAllCommand});
  t.Register({.name = "swapdb",
              .arity = 3,
              .flags = kCmdWrite | kCmdFast,
              .acl = kAclKeyspace | kAclWrite | kAclFast | kAclDangerous,
              .doc = {.summary = "Exchanges the contents of two databases",
                      .since = "4.0.0",
                      .group = "server",
                      .complexity = "O(N) where N is the count of clients watching or blocking on "
                                    "keys from both databases.",
                      .args = {Integer("index1"), Integer("index2")}},
              .handler = SwapDbCommand});
}

}  // namespace redistp
