// The start banner: what redis-server says about itself once its listeners are open.
//
// Redis prints an ASCII-art logo with the facts a supervisor or a test harness scrapes
// ("Redis <version> (<sha>/<dirty>) 64 bit", "Running in standalone mode", "Port: N",
// "PID: N") when `always-show-logo yes` is set, or when it logs to a terminal; otherwise it
// logs the one line "Running mode=standalone, port=N.". redis-tp does the same with its own
// drawing: the fact lines keep Redis's wording so the same scrapers work.
#pragma once

#include <string>

#include "server/config.h"
#include "server/log.h"

namespace redistp {

// The banner text (several lines, ending in an empty line) for `port` and `pid`.
std::string StartupBanner(int port, long pid, const char* mode = "standalone");

// Logs the banner or the one-line form, as Redis chooses between them: the banner when
// `always-show-logo` is yes, or when logging to stdout (no logfile, no syslog) and stdout is a
// terminal. Both are notice-level.
void LogStartupBanner(Logger& log, const Config& config, int port);

}  // namespace redistp
