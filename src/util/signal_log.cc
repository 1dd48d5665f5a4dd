// Signal-safe log lines: digits are produced by hand and the line is written with one write(2),
// so a handler interrupting anything (malloc included) cannot deadlock or corrupt it.
#include "util/signal_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <ctime>

namespace redistp {

void SignalSafeAppendNumber(char* buf, size_t* len, size_t cap, long long v) {
  char digits[24];
  int n = 0;
  unsigned long long u = v < 0 ? 0ULL - static_cast<unsigned long long>(v) : v;
  do {
    digits[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0 && n < 23);
  if (v < 0 && *len < cap) buf[(*len)++] = '-';
  while (n > 0 && *len < cap) buf[(*len)++] = digits[--n];
}

void SignalSafeAppendText(char* buf, size_t* len, size_t cap, const char* text) {
  while (*text != '\0' && *len < cap) buf[(*len)++] = *text++;
}

void SignalSafeLog(const char* path, const char* message) {
  char line[256];
  size_t len = 0;
  SignalSafeAppendNumber(line, &len, sizeof(line), static_cast<long long>(getpid()));
  SignalSafeAppendText(line, &len, sizeof(line), ":signal-handler (");
  SignalSafeAppendNumber(line, &len, sizeof(line), static_cast<long long>(time(nullptr)));
  SignalSafeAppendText(line, &len, sizeof(line), ") ");
  SignalSafeAppendText(line, &len, sizeof(line), message);
  SignalSafeAppendText(line, &len, sizeof(line), "\n");
  const bool to_file = path[0] != '\0';
  const int fd =
      to_file ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : STDOUT_FILENO;
  if (fd < 0) return;
  [[maybe_unused]] ssize_t written = write(fd, line, len);
  if (to_file) close(fd);
}

}  // namespace redistp
