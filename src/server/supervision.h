// Supervision by an init system: `supervised no|upstart|systemd|auto`, as Redis 7.0 speaks it.
//
// Model. The mode is settled once at startup, before the server would daemonize (a supervised
// server never forks itself away from its supervisor), by Detect:
//   auto     upstart when UPSTART_JOB is set, else systemd when NOTIFY_SOCKET is set, else none.
//   upstart  the process stops itself (SIGSTOP) at once and drops UPSTART_JOB from its
//            environment: upstart's `expect stop` resumes it.
//   systemd  the first message, "STATUS=Redis is loading...", must reach NOTIFY_SOCKET; if it
//            does not, the server is not supervised (INFO's process_supervised:no, and it may
//            daemonize), but later messages are still tried and their failures logged, as
//            Debian's Redis 7.0.15 does (measured).
// With systemd the server then tells its supervisor what it is doing (sd_notify, from Debian's
// libsystemd): READY=1 with a STATUS line once it accepts connections (a replica says it waits
// for its master's sync, and STATUS again when a sync finished), STOPPING=1 when a shutdown
// begins, and STATUS while the final RDB is saved. Nothing here is ever sent in other modes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redistp {

class Logger;

class Supervision {
 public:
  enum class Mode { kNone, kUpstart, kSystemd };

  // Settles the mode for the `supervised` parameter's value ("no", "upstart", "systemd",
  // "auto"); may stop the process (upstart). The lines it would log are kept for LogPending,
  // since the logger does not exist yet.
  static Supervision Detect(std::string_view configured);

  // Logs what Detect had to say (Redis logs it before its start banner).
  void LogPending(Logger& log);
  // INFO's process_supervised: "upstart", "systemd" or "no".
  std::string_view InfoName() const;
  bool supervised() const { return supervised_; }
  Mode mode() const { return mode_; }

  // Sends `message` (newline-terminated "KEY=value" lines) when the mode is systemd; a failure
  // is logged at warning level with Redis's text. A no-op in other modes.
  void Notify(Logger& log, std::string_view message) const;

 private:
  // Sends without logging; the error line on failure, empty on success.
  std::string Send(std::string_view message) const;

  Mode mode_ = Mode::kNone;
  bool supervised_ = false;
  std::vector<std::pair<bool, std::string>> pending_;  // (warning?, line)
};

}  // namespace redistp
