// TPADOPT key fence floor holds [SESSION id grace-ms digest]: the target's half of a temporary
// key's MIGRATE (docs/cluster.md, "Slot migration of temporary keys").
//
// MIGRATE sends it once the RESTORE(-ASKING) of each temporary key it moves has succeeded (a
// second round trip on the same connection: a refused RESTORE, BUSYKEY, must not let it turn
// this node's own key temporary), so the key exists here as the ordinary key RESTORE made.
// TPADOPT makes it temporary again: its fencing token `fence` and hold count `holds` kept, the
// fencing counter raised above max(fence, floor) (`floor`: the source's counter, so the tokens of
// the slot keep their order across the move), and owned by the source's session `id` (with the
// digest of its secret, so SESSION RESUME with the same token works here, and `grace-ms`, running
// from now), or, for a plain connection's key or a session id taken here, by nobody who can come
// back: it is released after tp-failover-grace-ms, as a promoted replica releases a plain
// connection's keys. What is decided where is Server::AdoptMigratedKey's
// (server/session_runtime.cc).
//
// Propagation. TPADOPT is never recorded as itself: the RESTORE before it was recorded, and
// AdoptMigratedKey appends SESSION CREATE / SESSION OWN (and SESSION KEY for replicas), which a
// replay applies to the restored key. A Redis target answers "unknown command" and MIGRATE
// ignores that reply (the key stays a plain key there).
#include <string>

#include "commands/register.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "util/numbers.h"
#include "watch/sessions.h"

namespace redistp {
namespace {

void TpAdoptCommand(CommandContext& c) {
  uint64_t fence, floor, holds;
  if (!ParseUint64(c.args[2], &fence) || !ParseUint64(c.args[3], &floor) ||
      !ParseUint64(c.args[4], &holds) || holds == 0) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  Server::MigratedSession session;
  const bool has_session = c.args.size() > 5;
  if (has_session) {
    if (c.args.size() != 9 || !EqualsIgnoreCase(c.args[5], "SESSION")) {
      c.reply.Error(err::kSyntax);
      return;
    }
    if (!ParseUint64(c.args[6], &session.id) || session.id == 0 ||
        !ParseInt64(c.args[7], &session.grace_ms) || session.grace_ms < 0 ||
        session.grace_ms > SessionRegistry::kMaxGraceMs ||
        !SessionRegistry::DigestFromHex(c.args[8], &session.digest)) {
      c.reply.Error(err::kSessionBadRecord);
      return;
    }
  }
  Status st = c.server.AdoptMigratedKey(c.db, c.args[1], fence, floor, holds,
                                        has_session ? &session : nullptr);
  c.ReplicateNothing();
  if (!st.ok()) {
    c.reply.Error(st.message());
    return;
  }
  c.reply.Ok();
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::String;

void RegisterTpAdoptCommands(CommandTable& t) {
  t.Register(
      {.name = "tpadopt",
       .arity = -5,
       .flags = kCmdWrite | kCmdAsking,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclKeyspace | kAclWrite | kAclSlow | kAclDangerous,
       .doc = {.summary = "redis-tp: makes a key MIGRATE just restored temporary again, "
                          "with its owner and fencing token (sent by MIGRATE)",
               .since = "7.0.15",
               .group = "server",
               .complexity = "O(1)",
               .doc_flags = kDocSysCmd,
               .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
               .args = {Key("key", 0), Integer("fence"), Integer("floor"), Integer("holds"),
                        Block("session", {Integer("id"), Integer("grace-ms"), String("digest")})
                            .Token("SESSION")
                            .Optional()}},
       .handler = TpAdoptCommand});
}

}  // namespace redistp
