// SIGTERM and SIGINT as Redis 7.0 takes them: the handler only records the signal (Redis's
// shutdown_asap), and the server acts on it from its cron tick, or from a loading pass
// (server/loading.cc). So DEBUG PAUSE-CRON holds a signalled shutdown and SHUTDOWN ABORT can
// cancel it; and a second SIGINT while the final save runs (the loop is not turning then)
// ends the process at once from the handler: "You insist... exiting now.", the temporary RDB
// file of the save removed, exit status 1.
#pragma once

#include <string>

namespace redistp {

// Installs the handler for SIGTERM and SIGINT; `logfile` (empty: standard output) receives
// the handler's own last words.
void InstallShutdownSignalHandlers(const std::string& logfile);
// The signal recorded and not yet acted on (0: none). Take clears it.
int PendingShutdownSignal();
int TakeShutdownSignal();
// While true (a signalled shutdown is being carried out), a second SIGINT exits at once.
void SetSignalShutdownRunning(bool running);

}  // namespace redistp
