#include "server/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace redistp {

void Logger::Log(LogLevel level, const char* fmt, ...) {
  if (!Enabled(level)) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  Raw(level, msg);
}

void Logger::Raw(LogLevel level, const std::string& msg) {
  static const char kMarks[] = ".-*#";
  FILE* fp = file_.empty() ? stdout : std::fopen(file_.c_str(), "a");
  if (fp == nullptr) return;
  timeval tv;
  gettimeofday(&tv, nullptr);
  tm tm_buf;
  localtime_r(&tv.tv_sec, &tm_buf);
  char when[64];
  size_t off = strftime(when, sizeof(when), "%d %b %Y %H:%M:%S.", &tm_buf);
  snprintf(when + off, sizeof(when) - off, "%03d", static_cast<int>(tv.tv_usec / 1000));
  int idx = static_cast<int>(level);
  if (idx > 3) idx = 3;
  std::fprintf(fp, "%d:%c %s %c %s\n", static_cast<int>(getpid()), role_, when, kMarks[idx],
               msg.c_str());
  std::fflush(fp);
  if (!file_.empty()) std::fclose(fp);
}

}  // namespace redistp

namespace redistp {

void Logger::Verbatim(LogLevel level, std::string_view text) {
  if (!Enabled(level)) return;
  FILE* fp = file_.empty() ? stdout : std::fopen(file_.c_str(), "a");
  if (fp == nullptr) return;
  std::fwrite(text.data(), 1, text.size(), fp);
  std::fflush(fp);
  if (!file_.empty()) std::fclose(fp);
}

}  // namespace redistp
