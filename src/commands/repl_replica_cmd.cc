// REPLICAOF, SLAVEOF: the replica side's commands (replication/replica_side.h).
// Not built yet: these commands answer "unknown command" until they are.
#include "commands/register.h"

namespace redistp {

void RegisterReplReplicaCommands(CommandTable& t) { (void)t; }

}  // namespace redistp
