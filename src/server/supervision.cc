// Supervision by upstart or systemd (model in supervision.h).
#include "server/supervision.h"

#include <systemd/sd-daemon.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include "server/log.h"

namespace redistp {

Supervision Supervision::Detect(std::string_view configured) {
  Supervision s;
  if (configured == "upstart") {
    s.mode_ = Mode::kUpstart;
  } else if (configured == "systemd") {
    s.mode_ = Mode::kSystemd;
  } else if (configured == "auto") {
    if (std::getenv("UPSTART_JOB") != nullptr) {
      s.mode_ = Mode::kUpstart;
    } else if (std::getenv("NOTIFY_SOCKET") != nullptr) {
      s.mode_ = Mode::kSystemd;
    }
  }
  if (s.mode_ == Mode::kUpstart) {
    if (std::getenv("UPSTART_JOB") == nullptr) {
      s.pending_.emplace_back(false, "upstart supervision requested, but UPSTART_JOB not found!");
      return s;
    }
    s.pending_.emplace_back(false, "supervised by upstart, will stop to signal readiness.");
    // Upstart's `expect stop` waits for this stop, then resumes the process.
    raise(SIGSTOP);
    unsetenv("UPSTART_JOB");
    s.supervised_ = true;
  } else if (s.mode_ == Mode::kSystemd) {
    const std::string error = s.Send("STATUS=Redis is loading...\n");
    if (!error.empty()) {
      s.pending_.emplace_back(true, error);
      return s;
    }
    s.pending_.emplace_back(false,
                            "Supervised by systemd. Please make sure you set appropriate values "
                            "for TimeoutStartSec and TimeoutStopSec in your service unit.");
    s.supervised_ = true;
  }
  return s;
}

void Supervision::LogPending(Logger& log) {
  for (const auto& [warning, line] : pending_) {
    log.Log(warning ? LogLevel::kWarning : LogLevel::kNotice, "%s", line.c_str());
  }
  pending_.clear();
}

std::string_view Supervision::InfoName() const {
  if (!supervised_) return "no";
  return mode_ == Mode::kUpstart ? "upstart" : "systemd";
}

std::string Supervision::Send(std::string_view message) const {
  const std::string text(message);
  const int rc = sd_notify(0, text.c_str());
  if (rc > 0) return "";
  if (rc == 0) return "systemd supervision error: NOTIFY_SOCKET not found!";
  return "systemd supervision error: sd_notify: " + std::to_string(rc);
}

void Supervision::Notify(Logger& log, std::string_view message) const {
  if (mode_ != Mode::kSystemd) return;
  const std::string error = Send(message);
  if (!error.empty()) log.Log(LogLevel::kWarning, "%s", error.c_str());
}

}  // namespace redistp
