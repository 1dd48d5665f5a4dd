// Logger: log lines in Redis's format, "pid:role dd Mon yyyy hh:mm:ss.mmm <level> message",
// with level marks '.' debug, '-' verbose, '*' notice, '#' warning. Writes to the configured
// logfile (appending, reopened per line like Redis so logrotate works) or stdout when empty.
// The role is 'M' (a master); the lines written before the server exists carry 'C', as
// Redis's do (its pid is not yet recorded then), which log scrapers match on.
#pragma once

#include <cstdarg>
#include <string>
#include <string_view>

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
  // Writes `text` as it is, with no prefix and no newline added, if `level` is enabled
  // (Redis's raw log: the start banner).
  void Verbatim(LogLevel level, std::string_view text);
  void set_role(char role) { role_ = role; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  LogLevel level_ = LogLevel::kNotice;
  char role_ = 'M';
};

}  // namespace redistp
