#include "server/banner.h"

#include <unistd.h>

#include <cstdio>
#include <string_view>

#include "server/version.h"

namespace redistp {

namespace {

// A key with a clock face for a bow: temporary keys. Each row is padded to one width so the
// fact column lines up.
constexpr std::string_view kArt[] = {
    "                                  ",  "        .---.                     ",
    "       / 12  \\                    ", "      | 9 o 3 |=================. ",
    "       \\  6  /       |  |  |_|  | ", "        '---'        '--'       ' ",
    "                                  ",  "         r e d i s - t p          ",
    "                                  ",
};

}  // namespace

std::string StartupBanner(int port, long pid, const char* mode) {
  char facts[6][128];
  std::snprintf(facts[0], sizeof(facts[0]), "Redis %s (00000000/0) 64 bit", kRedisVersion);
  std::snprintf(facts[1], sizeof(facts[1]), "redis-tp %s", kRedisTpVersion);
  std::snprintf(facts[2], sizeof(facts[2]), "Running in %s mode", mode);
  std::snprintf(facts[3], sizeof(facts[3]), "Port: %d", port);
  std::snprintf(facts[4], sizeof(facts[4]), "PID: %ld", pid);
  std::snprintf(facts[5], sizeof(facts[5]), "temporary keys and existence watches");
  // Facts sit beside the art's rows 1..6.
  std::string out;
  for (size_t row = 0; row < std::size(kArt); ++row) {
    std::string line(kArt[row]);
    if (row >= 1 && row <= 6) {
      line += "    ";
      line += facts[row - 1];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out.push_back('\n');
  }
  out.push_back('\n');
  return out;
}

void LogStartupBanner(Logger& log, const Config& config, int port) {
  const bool to_terminal =
      !config.syslog_enabled && config.logfile.empty() && isatty(STDOUT_FILENO) != 0;
  if (config.always_show_logo || to_terminal) {
    log.Verbatim(LogLevel::kNotice,
                 StartupBanner(port, static_cast<long>(getpid()),
                               config.cluster_enabled ? "cluster" : "standalone"));
  } else {
    log.Log(LogLevel::kNotice, "Running mode=%s, port=%d.",
            config.cluster_enabled ? "cluster" : "standalone", port);
  }
}

}  // namespace redistp
