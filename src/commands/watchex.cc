// Existence watches: WATCHEX and UNWATCHEX (docs/temporary-keys-and-watches.md).
//
// WATCHEX registers persistent watches in the connection's current database and answers the
// current state of each key. Registration and state are read in the same command, and the
// server is single-threaded, so no change can fall between them. Notifications come from the
// WatchIndex, which listens to the keyspace choke point; this file only registers.
#include "db/database.h"
#include "server/client.h"
#include "server/server.h"

namespace redistp {
namespace {

void WatchExCommand(CommandContext& c) {
  WatchIndex& watches = c.server.watches();
  bool many = c.args.size() > 2;
  if (many) c.reply.Array(c.args.size() - 1);
  for (size_t i = 1; i < c.args.size(); ++i) {
    Entry* e = c.db.Peek(c.args[i]);  // deletes it first if its TTL has passed
    watches.Add(c.client.id, c.db.index(), c.args[i], e, c.db.ExpireOf(e));
    c.reply.Simple(e != nullptr ? "EXIST" : "NOEXIST");
  }
}

void UnwatchExCommand(CommandContext& c) {
  WatchIndex& watches = c.server.watches();
  if (c.args.size() == 1) {
    c.reply.Int(static_cast<int64_t>(watches.RemoveAll(c.client.id)));
    return;
  }
  int64_t removed = 0;
  for (size_t i = 1; i < c.args.size(); ++i) {
    if (watches.Remove(c.client.id, c.db.index(), c.args[i])) ++removed;
  }
  c.reply.Int(removed);
}

}  // namespace

using docs::Key;

void RegisterWatchExCommands(CommandTable& t) {
  t.Register(
      {.name = "watchex",
       .arity = -2,
       .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast,
       .first_key = 1,
       .last_key = -1,
       .key_step = 1,
       .acl = kAclKeyspace | kAclRead | kAclFast,
       .doc = {.summary =
                   "redis-tp: pushes a notice whenever one of the keys appears or disappears",
               .since = "7.0.15",
               .group = "generic",
               .complexity = "O(N) where N is the number of keys given",
               // Access: the pushes tell whether the key exists, so ACL asks for read rights.
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1, .last_key = -1}},
               .args = {Key("key", 0).Multiple()}},
       .handler = WatchExCommand});
  t.Register(
      {.name = "unwatchex",
       .arity = -1,
       .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast,
       .first_key = 1,
       .last_key = -1,
       .key_step = 1,
       .acl = kAclKeyspace | kAclRead | kAclFast,
       .doc = {.summary = "redis-tp: removes existence watches of this connection, or all of them",
               .since = "7.0.15",
               .group = "generic",
               .complexity = "O(N) where N is the number of watches removed",
               .key_specs = {{.flags = kKeyRO, .index = 1, .last_key = -1}},
               .args = {Key("key", 0).Optional().Multiple()}},
       .handler = UnwatchExCommand});
}

}  // namespace redistp
