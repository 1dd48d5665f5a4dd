// ROLE: who this server is in replication (replication/replication.h writes the reply).
#include "commands/register.h"
#include "replication/replication.h"
#include "server/command.h"

namespace redistp {

namespace {

void RoleCommand(CommandContext& c) { Replication::Of(c.server).WriteRole(c.reply); }

}  // namespace

void RegisterReplicationCommands(CommandTable& t) {
  t.Register({.name = "role",
              .arity = 1,
              .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast,
              .acl = kAclAdmin | kAclFast | kAclDangerous,
              .doc = {.summary = "Return the role of the instance in the context of replication",
                      .since = "2.8.12",
                      .group = "server",
                      .complexity = "O(1)"},
              .handler = RoleCommand});
}

}  // namespace redistp
