// Temporary keys: SETTP, BSETTP, DELTP (docs/temporary-keys-and-watches.md).
//
// SETTP creates a key only if absent and makes the calling connection its owner; the key dies
// with the connection (OwnerIndex::ReleaseAll in the server's one teardown path). BSETTP is the
// fair, herd-free form: if the key exists the connection waits in a FIFO per key and is handed
// the key when it stops existing (a BSetTpKind waiter of the server's blocking core, served by
// Server::ServeReadyKeys). DELTP deletes only keys the caller
// owns. With FENCE the success reply is a fencing token from a counter that only grows.
//
// Propagation (src/server/propagation.h). A created temporary key is recorded as
// `SETTP key value [FENCE]` — also when BSETTP created it, at once or by a hand-off, since a
// replay must never block. The record keeps the key's nature: an AOF replays it as SETTP, so
// the loader owns the key and deletes it when loading ends (the spec: a restart never brings a
// temporary key back), and FENCE advances the token counter on replay so tokens keep growing
// across a restart; replication applies it as an ordinary key (its failover policy comes with
// replication). DELTP is recorded as `DEL` of the keys it deleted: a replay has no owner to
// check. A key deleted because its owner left is a `DEL` record from the propagator itself.
// A key a session owns is followed by `SESSION OWN <id> <db> <key>` (server/session_runtime.cc).
#include <memory>
#include <string>
#include <vector>

#include "commands/block_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// Parses the optional trailing FENCE flag at args[pos]. Returns false on a syntax error.
bool ParseFenceFlag(const std::vector<std::string_view>& args, size_t pos, bool* fence) {
  *fence = false;
  if (args.size() == pos) return true;
  if (args.size() == pos + 1 && EqualsIgnoreCase(args[pos], "FENCE")) {
    *fence = true;
    return true;
  }
  return false;
}

// Creates `key` owned by the calling client; replies 1 or the fencing token. A token that cannot
// be reserved durably (watch/fence.h) is an error and nothing is created: returns false. An AOF
// replay counts the token it draws again, without handing it out (no reservation).
bool CreateOwned(CommandContext& c, std::string_view key, std::string_view value, bool fence) {
  OwnerIndex& owners = c.server.owners();
  uint64_t token = 0;
  if (fence && c.client.kind() == ClientKind::kAofLoading) {
    token = owners.fences().Replayed();
  } else if (fence) {
    Result<uint64_t> drawn = owners.fences().Next();
    if (!drawn.ok()) {
      c.reply.Error(err::FenceUnavailable(drawn.status().message()));
      return false;
    }
    token = drawn.value();
  }
  const uint64_t owner = c.server.OwnerIdOf(c.client);
  owners.CreateOwned(c.db, key, value, owner, token);
  c.reply.Int(fence ? static_cast<int64_t>(token) : 1);
  if (owner != c.client.session().id && c.propagation.has_sinks()) {
    // A session's key: the SETTP record, then who owns it (server/session_runtime.cc), in
    // this order, so this command's own record (which would come last) is replaced.
    std::vector<std::string> settp{"SETTP", std::string(key), std::string(value)};
    if (fence) settp.emplace_back("FENCE");
    c.propagation.AppendRecord(c.db.index(), std::move(settp));
    c.propagation.AppendRecord(c.db.index(), {"SESSION", "OWN", std::to_string(owner),
                                              std::to_string(c.db.index()), std::string(key)});
    c.ReplicateNothing();
  }
  return true;
}

void SetTpCommand(CommandContext& c) {
  bool fence;
  if (!ParseFenceFlag(c.args, 3, &fence)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  if (c.db.LookupWrite(c.args[1]) != nullptr) {
    c.reply.Int(0);
    return;
  }
  CreateOwned(c, c.args[1], c.args[2], fence);
}

// BSETTP that created its key at once is replayed as the SETTP it amounted to.
void ReplicateAsSetTp(CommandContext& c, bool fence) {
  if (fence) {
    c.ReplicateAs({"SETTP", c.args[1], c.args[2], "FENCE"});
  } else {
    c.ReplicateAs({"SETTP", c.args[1], c.args[2]});
  }
}

void BSetTpCommand(CommandContext& c) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(c, c.args[3], &timeout_ms)) return;
  bool fence;
  if (!ParseFenceFlag(c.args, 4, &fence)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  std::string_view key = c.args[1];
  BlockingCore& queues = c.server.blocking();
  bool absent = c.db.LookupWrite(key) == nullptr;
  if (absent && queues.QueueLength(c.db.index(), key) == 0) {
    if (CreateOwned(c, key, c.args[2], fence)) ReplicateAsSetTp(c, fence);
    return;
  }
  if (c.origin != ExecOrigin::kClient) {
    // Inside MULTI (or a script) BSETTP never blocks: it behaves like SETTP.
    if (absent) {
      if (CreateOwned(c, key, c.args[2], fence)) ReplicateAsSetTp(c, fence);
    } else {
      c.reply.Int(0);
    }
    return;
  }
  auto state = std::make_unique<BSetTpState>();
  state->value.assign(c.args[2]);
  state->fence = fence;
  state->owner = c.server.OwnerIdOf(c.client);
  c.server.BlockClient(&c.client, {key}, c.server.bsettp_kind(), std::move(state), timeout_ms);
  // Earlier waiters keep their turn if the key is free right now: serve the queue in order.
  if (absent) queues.MarkReady(c.db.index(), key);
}

void DelTpCommand(CommandContext& c) {
  int64_t deleted = 0;
  // The DEL record copies the keys: built only while a consumer (AOF, replica) takes records.
  const bool propagate = c.propagation.has_sinks();
  std::vector<std::string> record;
  if (propagate) record.emplace_back("DEL");
  for (size_t i = 1; i < c.args.size(); ++i) {
    Entry* e = c.db.LookupWrite(c.args[i]);
    if (e != nullptr && c.server.owners().OwnerOf(e) == c.server.OwnerIdOf(c.client)) {
      c.db.Remove(e, RemoveCause::kDeleted);
      if (propagate) record.emplace_back(c.args[i]);
      ++deleted;
    }
  }
  if (propagate) c.ReplicateAs(std::move(record));
  c.reply.Int(deleted);
}

}  // namespace

using docs::Double;
using docs::Key;
using docs::PureToken;
using docs::String;

void RegisterTempKeyCommands(CommandTable& t) {
  t.Register(
      {.name = "settp",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclString | kAclSlow,
       .doc = {.summary = "redis-tp: creates a key owned by this connection, unless the key exists",
               .since = "7.0.15",
               .group = "generic",
               .complexity = "O(1)",
               .key_specs = {{.flags = kKeyOW | kKeyInsert, .index = 1}},
               .args = {Key("key", 0), String("value"), PureToken("FENCE").Optional()}},
       .handler = SetTpCommand});
  t.Register({.name = "bsettp",
              .arity = -4,
              .flags = kCmdWrite | kCmdDenyOom | kCmdBlocking,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclString | kAclSlow | kAclBlocking,
              .doc = {.summary = "redis-tp: like SETTP, but waits in line for the key to disappear",
                      .since = "7.0.15",
                      .group = "generic",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyOW | kKeyInsert, .index = 1}},
                      .args = {Key("key", 0), String("value"), Double("timeout"),
                               PureToken("FENCE").Optional()}},
              .handler = BSetTpCommand});
  t.Register({.name = "deltp",
              .arity = -2,
              .flags = kCmdWrite,
              .first_key = 1,
              .last_key = -1,
              .key_step = 1,
              .acl = kAclKeyspace | kAclWrite | kAclSlow,
              .doc = {.summary = "redis-tp: deletes the given keys that this connection owns",
                      .since = "7.0.15",
                      .group = "generic",
                      .complexity = "O(N) where N is the number of keys given",
                      .key_specs = {{.flags = kKeyRM | kKeyDelete, .index = 1, .last_key = -1}},
                      .args = {Key("key", 0).Multiple()}},
              .handler = DelTpCommand});
}

}  // namespace redistp
