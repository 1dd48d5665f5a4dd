// (being written) — registers nothing yet, so its commands answer "unknown command".
#include "server/command.h"

namespace redistp {

void RegisterServerCommands(CommandTable& /*table*/) {}

}  // namespace redistp
