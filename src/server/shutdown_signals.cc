// The shutdown signals' handler: async-signal-safe (a flag, and in the insisting case only
// open/write/unlink/_exit), so it may run at any point of the server's work.
#include "server/shutdown_signals.h"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>

#include "util/signal_log.h"

namespace redistp {
namespace {

volatile sig_atomic_t g_pending = 0;
volatile sig_atomic_t g_running = 0;
char g_log_path[1024];

// Redis's handler-time log line: "<pid>:signal-handler (<unix time>) <message>".
void LogFromHandler(const char* message) { SignalSafeLog(g_log_path, message); }

void OnShutdownSignal(int sig) {
  if (g_running != 0 && sig == SIGINT) {
    LogFromHandler("You insist... exiting now.");
    // The final save's temporary file (in the working directory, as every save writes it).
    char tmp[64];
    size_t len = 0;
    SignalSafeAppendText(tmp, &len, sizeof(tmp) - 1, "temp-");
    SignalSafeAppendNumber(tmp, &len, sizeof(tmp) - 1, static_cast<long long>(getpid()));
    SignalSafeAppendText(tmp, &len, sizeof(tmp) - 1, ".rdb");
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
