// Looking at temporary keys: TPINFO, TPWAITERS, TPKEYS (docs/temporary-keys-and-watches.md,
// "Observability").
//
// The three answer the questions a lock's user asks, one command each: who holds this key and
// since when (TPINFO), who is next in line (TPWAITERS), and what does this connection or
// session hold (TPKEYS). They only read: nothing is created, touched or counted as an access
// (the key is looked up like OBJECT does), so asking never changes a lock's fate.
//
// Sources. The holder, its fencing token, hold count and creation time come from the key's
// OwnerIndex record; who stands behind an owner id now (the connection holding its keys, the
// session) from Server::DescribeOwner; the line of waiters from the blocking core's queue of
// the key, in its order, keeping only BSETTP waiters (a BLPOP waiting on the same name is not
// waiting for the lock).
//
// Replies follow XINFO's shape: a map per record in RESP3, the same fields as a flat
// field/value array in RESP2, fields in a fixed order. Times are Unix ms (`since-ms`) and
// elapsed ms from the server's clock (`age-ms`, `waited-ms`).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/keys_util.h"
#include "commands/register.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"
#include "watch/bsettp_kind.h"

namespace redistp {
namespace {

int64_t ElapsedMs(int64_t now_ms, int64_t since_ms) {
  return since_ms == 0 ? 0 : std::max<int64_t>(0, now_ms - since_ms);
}

// The BSETTP waiters of (db, key), first in line first.
std::vector<const BlockedClient*> BSetTpWaiters(CommandContext& c, std::string_view key) {
  return c.server.blocking().Waiters(c.db.index(), key, c.server.bsettp_kind());
}

// TPINFO key: null when the key is neither temporary nor waited for; else the record.
void TpInfoCommand(CommandContext& c) {
  std::string_view key = c.args[1];
  Entry* e = keycmd::LookupNoTouch(c, key, false);
  OwnerIndex& owners = c.server.owners();
  const uint64_t owner = e != nullptr ? owners.OwnerOf(e) : 0;
  std::vector<const BlockedClient*> waiters = BSetTpWaiters(c, key);
  if (owner == 0 && waiters.empty()) {
    c.reply.Null();
    return;
  }
  Server::OwnerView who = owner != 0 ? c.server.DescribeOwner(owner) : Server::OwnerView{};
  const int64_t since = owner != 0 ? owners.SinceOf(e) : 0;
  c.reply.Map(8);
  c.reply.Bulk("owner");
  c.reply.Int(static_cast<int64_t>(owner));
  c.reply.Bulk("client");
  c.reply.Int(static_cast<int64_t>(who.client));
  c.reply.Bulk("session");
  c.reply.Int(static_cast<int64_t>(who.session));
  c.reply.Bulk("since-ms");
  c.reply.Int(since);
  c.reply.Bulk("age-ms");
  c.reply.Int(ElapsedMs(c.server.NowMs(), since));
  c.reply.Bulk("fence");
  c.reply.Int(owner != 0 ? static_cast<int64_t>(owners.FenceOf(e)) : 0);
  c.reply.Bulk("holds");
  c.reply.Int(owner != 0 ? static_cast<int64_t>(owners.HoldsOf(e)) : 0);
  c.reply.Bulk("waiters");
  c.reply.Array(waiters.size());
  for (const BlockedClient* w : waiters) c.reply.Int(static_cast<int64_t>(w->client));
}

// TPWAITERS key: the BSETTP waiters of the key, first in line first.
void TpWaitersCommand(CommandContext& c) {
  std::vector<const BlockedClient*> waiters = BSetTpWaiters(c, c.args[1]);
  const int64_t now = c.server.NowMs();
  c.reply.Array(waiters.size());
  for (const BlockedClient* w : waiters) {
    const Client* waiter = c.server.FindClient(w->client);
    const auto& st = static_cast<const BSetTpState&>(*w->state);
    c.reply.Map(5);
    c.reply.Bulk("client");
    c.reply.Int(static_cast<int64_t>(w->client));
    c.reply.Bulk("addr");
    c.reply.Bulk(waiter != nullptr ? std::string_view(waiter->addr) : std::string_view());
    c.reply.Bulk("name");
    c.reply.Bulk(waiter != nullptr ? std::string_view(waiter->name) : std::string_view());
    c.reply.Bulk("waited-ms");
    c.reply.Int(ElapsedMs(now, w->since_ms));
    c.reply.Bulk("fence");
    c.reply.Int(st.fence ? 1 : 0);
  }
}

// TPKEYS [CLIENT id | SESSION id]: the temporary keys of an owner, ordered by database and key
// so that the reply does not depend on hash order. CLIENT resolves a connection to its owner
// id (its session's when one is attached); SESSION takes the id as an owner id directly, so it
// also lists a plain connection's keys. An id nobody owns anything under lists nothing.
void TpKeysCommand(CommandContext& c) {
  uint64_t owner = 0;
  if (c.args.size() == 1) {
    owner = c.server.OwnerIdOf(c.client);
  } else if (c.args.size() == 3) {
    const bool by_client = EqualsIgnoreCase(c.args[1], "CLIENT");
    if (!by_client && !EqualsIgnoreCase(c.args[1], "SESSION")) {
      c.reply.Error(err::kSyntax);
      return;
    }
    uint64_t id;
    if (!ParseUint64(c.args[2], &id)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
    if (by_client) {
      const Client* target = c.server.FindClient(id);
      owner = target != nullptr ? c.server.OwnerIdOf(*target) : 0;
    } else {
      owner = id;
    }
  } else {
    c.reply.Error(err::kSyntax);
    return;
  }
  OwnerIndex& owners = c.server.owners();
  std::vector<std::pair<Entry*, Database*>> held =
      owner != 0 ? owners.EntriesOf(owner) : std::vector<std::pair<Entry*, Database*>>{};
  std::sort(held.begin(), held.end(), [](const auto& a, const auto& b) {
    if (a.second->index() != b.second->index()) return a.second->index() < b.second->index();
    return a.first->key() < b.first->key();
  });
  const int64_t now = c.server.NowMs();
  c.reply.Array(held.size());
  for (const auto& [e, db] : held) {
    c.reply.Map(5);
    c.reply.Bulk("db");
    c.reply.Int(db->index());
    c.reply.Bulk("key");
    c.reply.Bulk(e->key());
    c.reply.Bulk("fence");
    c.reply.Int(static_cast<int64_t>(owners.FenceOf(e)));
    c.reply.Bulk("holds");
    c.reply.Int(static_cast<int64_t>(owners.HoldsOf(e)));
    c.reply.Bulk("age-ms");
    c.reply.Int(ElapsedMs(now, owners.SinceOf(e)));
  }
}

}  // namespace

using docs::Integer;
using docs::Key;
using docs::OneOf;

void RegisterTempKeyInfoCommands(CommandTable& t) {
  t.Register(
      {.name = "tpinfo",
       .arity = 2,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclKeyspace | kAclRead | kAclSlow,
       .doc = {.summary = "redis-tp: shows who holds a temporary key, since when, its fencing "
                          "token and hold count, and who waits for it",
               .since = "7.0.15",
               .group = "generic",
               .complexity = "O(N) where N is the number of BSETTP waiters of the key",
               .key_specs = {{.flags = kKeyRO, .index = 1}},
               .args = {Key("key", 0)}},
       .handler = TpInfoCommand});
  t.Register({.name = "tpwaiters",
              .arity = 2,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclKeyspace | kAclRead | kAclSlow,
              .doc = {.summary = "redis-tp: lists the BSETTP waiters of a key, first in line first",
                      .since = "7.0.15",
                      .group = "generic",
                      .complexity = "O(N) where N is the number of waiters of the key",
                      .key_specs = {{.flags = kKeyRO, .index = 1}},
                      .args = {Key("key", 0)}},
              .handler = TpWaitersCommand});
  t.Register(
      {.name = "tpkeys",
       .arity = -1,
       .flags = kCmdReadOnly,
       .acl = kAclKeyspace | kAclRead | kAclSlow,
       .doc = {.summary = "redis-tp: lists the temporary keys of this connection, of another "
                          "connection or of a session",
               .since = "7.0.15",
               .group = "generic",
               .complexity = "O(N*log(N)) where N is the number of keys the owner holds",
               .args = {OneOf("owner", {Integer("client-id").Token("CLIENT"),
                                        Integer("session-id").Token("SESSION")})
                            .Optional()}},
       .handler = TpKeysCommand});
}

}  // namespace redistp
