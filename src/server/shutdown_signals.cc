// The shutdown signals' handler: async-signal-safe (a flag, and in the insisting case only
// open/write/unlink/_exit), so it may run at any point of the server's work.
#include "server/shutdown_signals.h"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>

namespace redistp {
namespace {

volatile sig_atomic_t g_pending = 0;
volatile sig_atomic_t g_running = 0;
char g_log_path[1024];

// Appends `n` in decimal to buf at *len (signal-safe: no stdio).
void AppendNumber(char* buf, size_t* len, size_t cap, long long n) {
  char digits[24];
  int d = 0;
  if (n == 0) digits[d++] = '0';
  while (n > 0 && d < 24) {
    digits[d++] = static_cast<char>('0' + n % 10);
    n /= 10;
  }
  while (d > 0 && *len < cap) buf[(*len)++] = digits[--d];
}

void AppendText(char* buf, size_t* len, size_t cap, const char* text) {
  while (*text != '\0' && *len < cap) buf[(*len)++] = *text++;
}

// Redis's handler-time log line: "<pid>:signal-handler (<unix time>) <message>".
void LogFromHandler(const char* message) {
  char line[256];
  size_t len = 0;
  AppendNumber(line, &len, sizeof(line), static_cast<long long>(getpid()));
  AppendText(line, &len, sizeof(line), ":signal-handler (");
  AppendNumber(line, &len, sizeof(line), static_cast<long long>(time(nullptr)));
  AppendText(line, &len, sizeof(line), ") ");
  AppendText(line, &len, sizeof(line), message);
  AppendText(line, &len, sizeof(line), "\n");
  const bool to_file = g_log_path[0] != '\0';
  const int fd = to_file ? open(g_log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : 1;
  if (fd < 0) return;
  [[maybe_unused]] ssize_t w = write(fd, line, len);
  if (to_file) close(fd);
}

void OnShutdownSignal(int sig) {
  if (g_running != 0 && sig == SIGINT) {
    LogFromHandler("You insist... exiting now.");
    // The final save's temporary file (in the working directory, as every save writes it).
    char tmp[64];
    size_t len = 0;
    AppendText(tmp, &len, sizeof(tmp) - 1, "temp-");
    AppendNumber(tmp, &len, sizeof(tmp) - 1, static_cast<long long>(getpid()));
    AppendText(tmp, &len, sizeof(tmp) - 1, ".rdb");
    tmp[len] = '\0';
    unlink(tmp);
    _exit(1);
  }
  g_pending = sig;
}

}  // namespace

void InstallShutdownSignalHandlers(const std::string& logfile) {
  std::snprintf(g_log_path, sizeof(g_log_path), "%s", logfile.c_str());
  struct sigaction sa {};
  sa.sa_handler = OnShutdownSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

int PendingShutdownSignal() { return g_pending; }

int TakeShutdownSignal() {
  const int sig = g_pending;
  g_pending = 0;
  return sig;
}

void SetSignalShutdownRunning(bool running) { g_running = running ? 1 : 0; }

}  // namespace redistp
