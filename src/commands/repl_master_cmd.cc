// SYNC, PSYNC, REPLCONF, WAIT: the master side's commands (replication/master_side.h).
// Not built yet: these commands answer "unknown command" until they are.
#include "commands/register.h"

namespace redistp {

void RegisterReplMasterCommands(CommandTable& t) { (void)t; }

}  // namespace redistp
