// FAILOVER (replication/replication.h).
// Not built yet: these commands answer "unknown command" until they are.
#include "commands/register.h"

namespace redistp {

void RegisterFailoverCommands(CommandTable& t) { (void)t; }

}  // namespace redistp
