#include "server/crash_report.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/types.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string_view>
#include <vector>

#include "server/client.h"
#include "server/server.h"
#include "server/version.h"
#include "util/repr.h"

namespace redistp {

namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kMaxFrames = 100;

struct CrashState {
  Server* server = nullptr;
  std::function<std::string()> info_text;
  void* alt_stack = nullptr;  // the signal stack: owned here so it stays reachable
};
CrashState* g_crash = nullptr;  // see the header: the one process-wide variable

void WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}
void WriteText(int fd, std::string_view s) { WriteAll(fd, s.data(), s.size()); }

// One warning-level log line, "pid:M dd Mon yyyy hh:mm:ss.mmm # text".
void WriteLogLine(int fd, const char* text) {
  timeval tv;
  gettimeofday(&tv, nullptr);
  tm t;
  localtime_r(&tv.tv_sec, &t);
  char when[64];
  size_t off = strftime(when, sizeof(when), "%d %b %Y %H:%M:%S.", &t);
  char line[512];
  int n = std::snprintf(line, sizeof(line), "%d:M %.*s%03d # %s\n", static_cast<int>(getpid()),
                        static_cast<int>(off), when, static_cast<int>(tv.tv_usec / 1000), text);
  if (n > 0) WriteAll(fd, line, std::min(static_cast<size_t>(n), sizeof(line) - 1));
}

void* FaultingInstruction(void* uc) {
  auto* ctx = static_cast<ucontext_t*>(uc);
#if defined(__x86_64__)
  return reinterpret_cast<void*>(ctx->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(ctx->uc_mcontext.pc);
#else
  (void)ctx;
  return nullptr;
#endif
}

// The parts that allocate: INFO, the client list, the running client.
void WriteServerState(int fd, Server& server, const std::function<std::string()>& info_text) {
  WriteText(fd, "\n------ INFO OUTPUT ------\n");
  if (info_text) WriteText(fd, info_text());
  WriteText(fd, "\n------ CLIENT LIST OUTPUT ------\n");
  for (const auto& [id, c] : server.clients()) {
    WriteText(fd, server.ClientInfoLine(*c));
    WriteText(fd, "\n");
  }
  const Client* running = server.running_client();
  const std::vector<std::string_view>* args = server.running_args();
  if (running != nullptr && args != nullptr) {
    WriteText(fd, "\n------ CURRENT CLIENT INFO ------\n");
    WriteText(fd, server.ClientInfoLine(*running));
    WriteText(fd, "\n");
    // Secrets (AUTH's password, a session token) are hidden as SLOWLOG and MONITOR hide them:
    // a bug report is pasted into public trackers.
    std::vector<std::string_view> shown = *args;
    const CommandSpec* spec = shown.empty() ? nullptr : server.commands().Find(shown[0]);
    if (spec != nullptr && shown.size() >= 2 && !spec->subcommands.empty()) {
      if (const CommandSpec* sub = spec->FindSubcommand(shown[1])) spec = sub;
    }
    if (spec != nullptr && spec->redact != nullptr) spec->redact(shown);
    for (size_t i = 0; i < shown.size(); ++i) {
      std::string line = "argv[" + std::to_string(i) + "]: '" + Repr(shown[i]) + "'\n";
      WriteText(fd, line);
    }
  }
}

// Where a report from a signal handler goes: the log file when one is set (opened with
// async-signal-safe calls only; *close_fd tells the caller to close it), else standard output.
int OpenReportFd(bool* close_fd) {
  *close_fd = false;
  if (g_crash == nullptr || g_crash->server->log().file().empty()) return STDOUT_FILENO;
  int f = open(g_crash->server->log().file().c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (f < 0) return STDOUT_FILENO;
  *close_fd = true;
  return f;
}

void OnFatalSignal(int sig, siginfo_t* info, void* uc) {
  // One-shot (SA_RESETHAND): a fault from here on takes the default action at once.
  bool close_fd = false;
  const int fd = OpenReportFd(&close_fd);
  char line[256];
  WriteText(fd, "\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n");
  std::snprintf(line, sizeof(line), "Redis %s crashed by signal: %d, si_code: %d", kRedisVersion,
                sig, info->si_code);
  WriteLogLine(fd, line);
  if (sig == SIGSEGV || sig == SIGBUS) {
    std::snprintf(line, sizeof(line), "Accessing address: %p", info->si_addr);
    WriteLogLine(fd, line);
  }
  if (info->si_code <= 0) {  // SI_USER, SI_QUEUE, SI_TKILL: sent, not a fault
    std::snprintf(line, sizeof(line), "Killed by PID: %ld, UID: %d",
                  static_cast<long>(info->si_pid), static_cast<int>(info->si_uid));
    WriteLogLine(fd, line);
  }
  void* eip = FaultingInstruction(uc);
  std::snprintf(line, sizeof(line), "Crashed running the instruction at: %p", eip);
  WriteLogLine(fd, line);

  WriteText(fd, "\n------ STACK TRACE ------\nEIP:\n");
  if (eip != nullptr) backtrace_symbols_fd(&eip, 1, fd);
  WriteText(fd, "\nBacktrace:\n");
  void* frames[kMaxFrames];
  int n = backtrace(frames, kMaxFrames);
  backtrace_symbols_fd(frames, n, fd);

  if (g_crash != nullptr) WriteServerState(fd, *g_crash->server, g_crash->info_text);

  WriteText(fd,
            "\n=== REDIS BUG REPORT END. Make sure to include from START to END. ===\n\n"
            "  This is redis-tp " +
                std::string(kRedisTpVersion) +
                ": please report the crash to the redis-tp maintainers with the whole\n"
                "  report above and the command line or config that started the server.\n\n");
  if (close_fd) close(fd);

  // Die by the same signal: default action, raised again (SA_NODEFER: delivered now).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
}

// Our handler on every fatal signal, or their default actions.
void ApplyCrashLogSetting(bool enabled) {
  struct sigaction act {};
  if (enabled) {
    act.sa_sigaction = OnFatalSignal;
    act.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND | SA_ONSTACK;
  } else {
    act.sa_handler = SIG_DFL;
  }
  sigemptyset(&act.sa_mask);
  for (int sig : kFatalSignals) sigaction(sig, &act, nullptr);
}

// ---- The software watchdog (watchdog-period) ----------------------------------------------
// Redis's debugging aid: with watchdog-period N ms the cron arms a one-shot SIGALRM N ms ahead
// at every tick, so only a main thread stuck longer than that in one piece of work (a command,
// a load) gets it. The handler logs "--- WATCHDOG TIMER EXPIRED ---" and the stack trace of
// where the thread is, and the server goes on. The period is at least two cron intervals, so
// an idle server never trips it.
volatile sig_atomic_t g_watchdog_ms = 0;

void OnWatchdog(int /*sig*/, siginfo_t* /*info*/, void* uc) {
  bool close_fd = false;
  const int fd = OpenReportFd(&close_fd);
  WriteText(fd, "\n");
  WriteLogLine(fd, "--- WATCHDOG TIMER EXPIRED ---");
  WriteText(fd, "\n------ STACK TRACE ------\nEIP:\n");
  void* eip = FaultingInstruction(uc);
  if (eip != nullptr) backtrace_symbols_fd(&eip, 1, fd);
  WriteText(fd, "\nBacktrace:\n");
  void* frames[kMaxFrames];
  int n = backtrace(frames, kMaxFrames);
  backtrace_symbols_fd(frames, n, fd);
  WriteLogLine(fd, "--------");
  if (close_fd) close(fd);
}

// Reads watchdog-period (and hz, which bounds it) and enables or disables the watchdog.
void ApplyWatchdog(Server* server) {
  std::string text;
  long period = 0;
  if (server->config().GetValue("watchdog-period", &text)) period = std::atol(text.c_str());
  struct sigaction act {};
  sigemptyset(&act.sa_mask);
  if (period <= 0) {
    g_watchdog_ms = 0;
    itimerval off{};
    setitimer(ITIMER_REAL, &off, nullptr);
    act.sa_handler = SIG_IGN;
    sigaction(SIGALRM, &act, nullptr);
    return;
  }
  const long min_period = 2 * (1000 / std::max(1, server->config().hz));
  g_watchdog_ms = static_cast<sig_atomic_t>(std::max(period, min_period));
  act.sa_sigaction = OnWatchdog;
  act.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigaction(SIGALRM, &act, nullptr);
  RearmWatchdog();
}

}  // namespace

void RearmWatchdog() {
  const long ms = g_watchdog_ms;
  if (ms <= 0) return;
  itimerval it{};
  it.it_value.tv_sec = ms / 1000;
  it.it_value.tv_usec = (ms % 1000) * 1000;
  setitimer(ITIMER_REAL, &it, nullptr);
}

void InstallCrashHandlers(Server* server, std::function<std::string()> info_text) {
  if (g_crash == nullptr) {
    g_crash = new CrashState();  // lives until the process ends
    // Load what backtrace() needs now, not inside the handler.
    void* warm[4];
    backtrace(warm, 4);
    // An alternate stack, so a stack overflow still gets its report.
    stack_t ss{};
    ss.ss_size = static_cast<size_t>(SIGSTKSZ) * 4;
    ss.ss_sp = std::malloc(ss.ss_size);
    g_crash->alt_stack = ss.ss_sp;
    if (ss.ss_sp != nullptr) sigaltstack(&ss, nullptr);
  }
  g_crash->server = server;
  g_crash->info_text = std::move(info_text);
  ApplyCrashLogSetting(server->config().crash_log_enabled);
  server->config().OnChange("crash-log-enabled", [server] {
    ApplyCrashLogSetting(server->config().crash_log_enabled);
    return Status::Ok();
  });
  ApplyWatchdog(server);
  server->config().OnChange({"watchdog-period", "hz"}, [server] {
    ApplyWatchdog(server);
    return Status::Ok();
  });
}

}  // namespace redistp
