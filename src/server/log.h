// Logger: log lines in Redis's format, "pid:role dd Mon yyyy hh:mm:ss.mmm <level> message",
// with level marks '.' debug, '-' verbose, '*' notice, '#' warning. Writes to the configured
// logfile (appending, reopened per line like Redis so logrotate works) or stdout when empty.
#pragma once

#include <cstdarg>
#include <string>

namespace redistp {

enum class LogLevel { kDebug = 0, kVerbose = 1, kNotice = 2, kWarning = 3, kNothing = 4 };

class Logger {
 public:
  void Configure(const std::string& file, LogLevel level) {
    file_ = file;
    level_ = level;
  }
  void set_level(LogLevel l) { level_ = l; }
  bool Enabled(LogLevel l) const { return l >= level_ && level_ != LogLevel::kNothing; }
  void Log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  // Writes a line without the level check (startup banners, fatal errors).
  void Raw(LogLevel level, const std::string& msg);

 private:
  std::string file_;
  LogLevel level_ = LogLevel::kNotice;
};

}  // namespace redistp
