// Temporary keys: SETTP, BSETTP, DELTP (docs/temporary-keys-and-watches.md).
//
// SETTP creates a key only if absent and makes the calling connection its owner; the key dies
// with the connection (OwnerIndex::ReleaseAll in the server's one teardown path). BSETTP is the
// fair, herd-free form: if the key exists the connection waits in a FIFO per key and is handed
// the key when it stops existing (a BSetTpKind waiter of the server's blocking core, served by
// Server::ServeReadyKeys). DELTP deletes only keys the caller
// owns. With FENCE the success reply is a fencing token from a counter that only grows.
//
// Re-entry. A caller never waits on itself: BSETTP on a key it owns answers at once, as SETTP
// would. With REENTRANT, SETTP/BSETTP on a key the caller owns adds a hold (OwnerIndex) and
// replies what the first acquisition replied; DELTP takes one hold off and deletes the key only
// at its last. Without REENTRANT an existing key answers 0, as before.
//
// Propagation (src/server/propagation.h). A created temporary key is recorded as
// `SETTP key value [FENCE]` — also when BSETTP created it, at once or by a hand-off, since a
// replay must never block. The record keeps the key's nature: an AOF replays it as SETTP, so
// the loader owns the key and deletes it when loading ends (the spec: a restart never brings a
// temporary key back), and FENCE advances the token counter on replay so tokens keep growing
// across a restart. REENTRANT is never recorded (a creation is the plain SETTP; a re-entry or a
// DELTP that only dropped a hold changes no key, so it records nothing). DELTP is recorded as
// `DEL` of the keys it deleted: a replay has no owner to check. A key deleted because its owner
// left is a `DEL` record from the propagator itself. A key a session owns is followed by
// `SESSION OWN <id> <db> <key>` (server/session_runtime.cc). While a replica listens, every
// creation, re-entry and hold dropped is also followed by the replicas-only `SESSION KEY <db>
// <key> <owner> <fence> <holds>`, so the replica holds the exact owner, token and hold count;
// the master link's SETTP draws no token and owns nothing itself (docs/replication.md).
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

struct TpFlags {
  bool fence = false;
  bool reentrant = false;
};

// Parses the optional trailing flags FENCE and REENTRANT from args[pos] on: each at most once,
// in any order. Returns false on a syntax error (anything else, or a flag given twice).
bool ParseTpFlags(const std::vector<std::string_view>& args, size_t pos, TpFlags* flags) {
  *flags = TpFlags{};
  for (size_t i = pos; i < args.size(); ++i) {
    bool* flag = nullptr;
    if (EqualsIgnoreCase(args[i], "FENCE")) {
      flag = &flags->fence;
    } else if (EqualsIgnoreCase(args[i], "REENTRANT")) {
      flag = &flags->reentrant;
    }
    if (flag == nullptr || *flag) return false;
    *flag = true;
  }
  return true;
}

// The caller already has `e` (which exists): the answer of SETTP/BSETTP that does not create.
// With REENTRANT and the caller owning the key, one more hold and the first acquisition's reply
// (its fencing token, else 1); otherwise 0. Nothing is propagated: the value is untouched and
// hold counts are not part of a replay (watch/owners.h).
void AnswerExisting(CommandContext& c, Entry* e, const TpFlags& flags) {
  OwnerIndex& owners = c.server.owners();
  if (!flags.reentrant || owners.OwnerOf(e) != c.server.OwnerIdOf(c.client)) {
    c.reply.Int(0);
    return;
  }
  owners.AddHold(e);
  c.server.RecordKeyOwnership(c.db.index(), e);  // replicas keep the hold count
  uint64_t fence = owners.FenceOf(e);
  c.reply.Int(fence != 0 ? static_cast<int64_t>(fence) : 1);
}

// Creates `key` owned by the calling client; replies 1 or the fencing token. A token that cannot
// be reserved durably (watch/fence.h) is an error and nothing is created: returns false. An AOF
// replay counts the token it draws again, without handing it out (no reservation).
bool CreateOwned(CommandContext& c, std::string_view key, std::string_view value, bool fence) {
  OwnerIndex& owners = c.server.owners();
  if (c.client.kind() == ClientKind::kMasterLink) {
    // A replica applying its master's SETTP: no token of its own is drawn and the master link
    // owns nothing (its end must release nothing). The key belongs to the inherited owner 0
    // until the SESSION KEY record that follows gives it the master's owner, token and holds.
    owners.CreateOwned(c.db, key, value, OwnerIndex::Inherited(0), 0);
    c.reply.Int(1);
    return true;
  }
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
  const bool session = owner != c.client.session().id;
  const bool replicas = c.propagation.has_sinks_for(kPropagateReplicas);
  if ((session || replicas) && c.propagation.has_sinks()) {
    // The SETTP record, then who owns it — SESSION OWN for a session's key, SESSION KEY for
    // replicas (server/session_runtime.cc) — in this order, so this command's own record
    // (which would come last) is replaced.
    std::vector<std::string> settp{"SETTP", std::string(key), std::string(value)};
    if (fence) settp.emplace_back("FENCE");
    c.propagation.AppendRecord(c.db.index(), std::move(settp));
    if (session) {
      c.propagation.AppendRecord(c.db.index(), {"SESSION", "OWN", std::to_string(owner),
                                                std::to_string(c.db.index()), std::string(key)});
    }
    c.server.RecordKeyOwnership(c.db.index(), c.db.FindRaw(key));
    c.ReplicateNothing();
  }
  return true;
}

// A creation by BSETTP (or with REENTRANT) is recorded as the plain SETTP it amounted to.
void ReplicateAsSetTp(CommandContext& c, bool fence) {
  if (fence) {
    c.ReplicateAs({"SETTP", c.args[1], c.args[2], "FENCE"});
  } else {
    c.ReplicateAs({"SETTP", c.args[1], c.args[2]});
  }
}

void SetTpCommand(CommandContext& c) {
  TpFlags flags;
  if (!ParseTpFlags(c.args, 3, &flags)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  if (Entry* e = c.db.LookupWrite(c.args[1]); e != nullptr) {
    AnswerExisting(c, e, flags);
    return;
  }
  // REENTRANT has no part in a creation: the record is the plain SETTP it amounted to.
  if (CreateOwned(c, c.args[1], c.args[2], flags.fence) && flags.reentrant) {
    ReplicateAsSetTp(c, flags.fence);
  }
}

void BSetTpCommand(CommandContext& c) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(c, c.args[3], &timeout_ms)) return;
  TpFlags flags;
  if (!ParseTpFlags(c.args, 4, &flags)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  const bool fence = flags.fence;
  std::string_view key = c.args[1];
  BlockingCore& queues = c.server.blocking();
  Entry* existing = c.db.LookupWrite(key);
  // No self-wait: a key the caller owns would never be released while it waits for it.
  if (existing != nullptr && c.server.owners().OwnerOf(existing) == c.server.OwnerIdOf(c.client)) {
    AnswerExisting(c, existing, flags);
    return;
  }
  bool absent = existing == nullptr;
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
      // A re-entered key loses one hold and stays: not counted, nothing to propagate.
      if (c.server.owners().DropHold(e)) {
        c.server.RecordKeyOwnership(c.db.index(), e);  // replicas keep the hold count
        continue;
      }
      c.db.Remove(e, RemoveCause::kDeleted);
      if (propagate) record.emplace_back(c.args[i]);
      ++deleted;
    }
  }
  if (propagate) c.ReplicateAs(std::move(record));
  c.server.coordination_stats().released_by_deltp += static_cast<uint64_t>(deleted);
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
               .args = {Key("key", 0), String("value"), PureToken("FENCE").Optional(),
                        PureToken("REENTRANT").Optional()}},
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
                               PureToken("FENCE").Optional(), PureToken("REENTRANT").Optional()}},
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
