// redis-tp-lock: a distributed flock(1). Takes a redis-tp lock, runs a command, releases the
// lock when the command exits and exits with the command's status.
//
// The lock is a temporary key owned by this process's connection, so the server frees it the
// moment this process goes away, however it goes (exit, crash, kill -9) — a second
// redis-tp-lock waiting on the same name gets it at once. The socket is close-on-exec: the
// command does not inherit it, so the lock's life is this process's, not the command's.
//
// While the command runs, this process keeps its event loop going: it reaps the command on
// SIGCHLD, passes SIGTERM and SIGHUP on to it (SIGINT from a terminal reaches the command's
// process group directly and is only waited out here), and watches the lock. If the lock is
// lost (connection lost, a lease ran out, someone deleted the key), the command no longer runs
// under the lock: it gets SIGTERM (or, with --keep-running, only a warning). For the same
// reason the command gets SIGTERM if this process dies (PR_SET_PDEATHSIG).
//
// Exit status: the command's (128+N if it died of signal N); the conflict code (1, or -E) when
// the lock was not obtained (-n, -w); 64 for bad usage; 69 when the server cannot be reached or
// refuses; 71 when the command cannot be started; 126/127 when it cannot be executed / found.
#include <event2/event.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "client/blocking_client.h"
#include "client/lock.h"
#include "tools/tool_common.h"

namespace redistp::tools {
namespace {

using client::AcquireStatus;
using client::BlockingClient;
using client::BlockingLock;
using client::Lock;
using client::LockMode;
using client::LockOptions;

constexpr char kProgram[] = "redis-tp-lock";
constexpr int kExitUsage = 64;
constexpr int kExitUnavailable = 69;
constexpr int kExitOsError = 71;

constexpr char kUsage[] =
    "Usage:\n"
    " redis-tp-lock [options] <lockname> <command> [<argument>...]\n"
    " redis-tp-lock [options] <lockname> -c <command>\n"
    "\n"
    "Run a command while holding a redis-tp lock: a temporary key that the server deletes the\n"
    "moment this process's connection ends (exit, crash, kill -9).\n"
    "\n"
    "Options:\n"
    "%s"
    " -n, --nonblock            fail rather than wait\n"
    " -w, --timeout <secs>      wait for a limited amount of time\n"
    " -E, --conflict-exit-code <number>  exit code after conflict or timeout (default 1)\n"
    "     --opportunistic       take the lock with SETTP + WATCHEX instead of waiting in the\n"
    "                           server's fair BSETTP queue\n"
    "     --lease <ms>          the server frees the lock if it hears nothing from this process\n"
    "                           for <ms> (CLIENT LEASE; kept alive by PINGs)\n"
    " -k, --keep-running        if the lock is lost, only warn (default: SIGTERM the command)\n"
    " -c, --command <command>   run a single command string through the shell\n"
    " -v, --verbose             report how long getting the lock took, and what runs\n"
    "     --help                display this help\n"
    " -V, --version             display version\n";

struct Settings {
  client::ClientOptions connection = DefaultConnectionOptions();
  std::string lock_name;
  std::vector<std::string> command;  // argv, or {"/bin/sh", "-c", string} for -c
  bool nonblock = false;
  bool has_timeout = false;
  double timeout_s = 0;
  int conflict_code = 1;
  LockMode mode = LockMode::kFair;
  bool keep_running = false;
  bool verbose = false;
};

// Parses argv into `s`. Returns -1 to go on, else the exit status to leave with.
int ParseArguments(int argc, char** argv, Settings* s) {
  int i = 1;
  std::string error;
  std::string shell_command;
  bool has_shell_command = false;
  auto value_of = [&](const char* name, std::string* out) {
    const std::string arg = argv[i];
    const std::string eq = std::string(name) + "=";
    if (arg.rfind(eq, 0) == 0) {
      *out = arg.substr(eq.size());
      ++i;
      return true;
    }
    if (i + 1 >= argc) return false;
    *out = argv[i + 1];
    i += 2;
    return true;
  };
  auto usage_error = [](const std::string& message) {
    Complain(kProgram, message);
    std::fprintf(stderr, "Try 'redis-tp-lock --help' for more information.\n");
    return kExitUsage;
  };
  while (i < argc) {
    const std::string arg = argv[i];
    switch (ParseConnectionFlag(argc, argv, &i, &s->connection, &error)) {
      case FlagResult::kTaken:
        continue;
      case FlagResult::kError:
        return usage_error(error);
      case FlagResult::kNotMine:
        break;
    }
    std::string value;
    if (arg == "--help") {
      std::printf(kUsage, kConnectionHelp);
      return 0;
    } else if (arg == "-V" || arg == "--version") {
      std::printf("redis-tp-lock (redis-tp client library %s)\n", client::kClientVersion);
      return 0;
    } else if (arg == "-n" || arg == "--nonblock") {
      s->nonblock = true;
      ++i;
    } else if (arg == "-k" || arg == "--keep-running") {
      s->keep_running = true;
      ++i;
    } else if (arg == "-v" || arg == "--verbose") {
      s->verbose = true;
      ++i;
    } else if (arg == "--opportunistic") {
      s->mode = LockMode::kOpportunistic;
      ++i;
    } else if (arg == "-w" || arg == "--timeout" || arg.rfind("--timeout=", 0) == 0) {
      if (!value_of("--timeout", &value) || !ParseSeconds(value, &s->timeout_s)) {
        return usage_error("option " + arg + " needs a number of seconds");
      }
      s->has_timeout = true;
    } else if (arg == "-E" || arg == "--conflict-exit-code" ||
               arg.rfind("--conflict-exit-code=", 0) == 0) {
      long long n = 0;
      if (!value_of("--conflict-exit-code", &value) || !ParseInteger(value, 0, 255, &n)) {
        return usage_error("option " + arg + " needs an exit code (0-255)");
      }
      s->conflict_code = static_cast<int>(n);
    } else if (arg == "--lease" || arg.rfind("--lease=", 0) == 0) {
      long long n = 0;
      if (!value_of("--lease", &value) || !ParseInteger(value, 1, 86400000, &n)) {
        return usage_error("option " + arg + " needs milliseconds");
      }
      s->connection.lease = std::chrono::milliseconds(n);
    } else if (arg == "--") {
      ++i;
      break;
    } else if (!arg.empty() && arg[0] == '-' && s->lock_name.empty()) {
      return usage_error("unknown option " + arg);
    } else if (s->lock_name.empty()) {
      s->lock_name = arg;
      ++i;
      // After the name: "-c <command>" or the command itself (an optional "--" first).
      if (i < argc && (std::strcmp(argv[i], "-c") == 0 || std::strcmp(argv[i], "--command") == 0)) {
        if (i + 1 >= argc) return usage_error("option -c needs a command string");
        shell_command = argv[i + 1];
        has_shell_command = true;
        i += 2;
      } else if (i < argc && std::strcmp(argv[i], "--") == 0) {
        ++i;
      }
      break;
    }
  }
  if (s->lock_name.empty() && i < argc) {
    s->lock_name = argv[i++];
  }
  if (s->lock_name.empty()) return usage_error("no lock name given");
  if (has_shell_command) {
    if (i < argc) return usage_error("-c takes one command string, and nothing after it");
    s->command = {"/bin/sh", "-c", shell_command};
  } else {
    for (; i < argc; ++i) s->command.emplace_back(argv[i]);
  }
  if (s->command.empty()) return usage_error("no command given");
  return -1;
}

std::string DefaultLockValue() {
  char host[256] = "unknown";
  gethostname(host, sizeof(host) - 1);
  return std::string(kProgram) + ":" + host + ":" + std::to_string(getpid());
}

// The state the event callbacks share while the command runs.
struct Run {
  pid_t child = -1;
  bool done = false;
  int status = 0;
};

void OnSignal(evutil_socket_t sig, short, void* arg) {
  auto* run = static_cast<Run*>(arg);
  if (sig == SIGCHLD) {
    int status = 0;
    if (!run->done && waitpid(run->child, &status, WNOHANG) == run->child) {
      run->done = true;
      run->status = status;
    }
    return;
  }
  if ((sig == SIGTERM || sig == SIGHUP) && !run->done) kill(run->child, static_cast<int>(sig));
}

// Starts the command. The child restores default signal handling, asks to be sent SIGTERM if
// this process dies, and execs; it exits 126/127 (as shells do) if it cannot.
pid_t StartCommand(const Settings& s, pid_t parent) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  for (int sig : {SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGPIPE}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (!s.keep_running) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(kExitOsError);  // the parent is already gone
  }
  std::vector<char*> argv;
  for (const std::string& a : s.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const int err = errno;
  std::fprintf(stderr, "%s: cannot run %s: %s\n", kProgram, argv[0], std::strerror(err));
  _exit(err == ENOENT ? 127 : 126);
}

int Main(int argc, char** argv) {
  Settings s;
  if (const int rc = ParseArguments(argc, argv, &s); rc >= 0) return rc;
  signal(SIGPIPE, SIG_IGN);

  s.connection.reconnect = true;  // a connection lost while waiting is retried within -w
  BlockingClient client(s.connection);
  if (!client.Connect()) {
    Complain(kProgram, client.error());
    return kExitUnavailable;
  }
  BlockingLock lock(client, s.lock_name, LockOptions{s.mode, DefaultLockValue(), false});
  const auto start = std::chrono::steady_clock::now();
  AcquireStatus status;
  if (s.nonblock || (s.has_timeout && s.timeout_s == 0)) {
    status = lock.TryAcquire();
  } else if (s.has_timeout) {
    status = lock.Acquire(std::chrono::milliseconds(static_cast<long long>(s.timeout_s * 1000)));
  } else {
    status = lock.Acquire(Lock::kForever);
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  switch (status) {
    case AcquireStatus::kAcquired:
      break;
    case AcquireStatus::kBusy:
      Complain(kProgram, "lock '" + s.lock_name + "' is held by someone else");
      return s.conflict_code;
    case AcquireStatus::kTimedOut: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%g", s.timeout_s);
      Complain(kProgram,
               "timed out after " + std::string(buf) + " s waiting for lock '" + s.lock_name + "'");
      return s.conflict_code;
    }
    default:
      Complain(kProgram, "cannot take lock '" + s.lock_name + "': " + lock.error());
      return kExitUnavailable;
  }
  if (s.verbose) {
    std::fprintf(stderr, "%s: getting lock '%s' took %.6f seconds\n", kProgram, s.lock_name.c_str(),
                 waited);
    std::fprintf(stderr, "%s: executing %s\n", kProgram, s.command[0].c_str());
  }

  Run run;
  std::vector<event*> signal_events;
  for (int sig : {SIGCHLD, SIGTERM, SIGHUP, SIGINT}) {
    event* ev = evsignal_new(client.base(), sig, &OnSignal, &run);
    event_add(ev, nullptr);
    signal_events.push_back(ev);
  }
  lock.SetLostCallback([&run, &s](const std::string& why) {
    Complain(kProgram, "lost lock '" + s.lock_name + "' while the command was running: " + why +
                           (s.keep_running ? "" : "; stopping the command"));
    if (!s.keep_running && !run.done) kill(run.child, SIGTERM);
  });
  run.child = StartCommand(s, getpid());
  if (run.child < 0) {
    Complain(kProgram, std::string("cannot start the command: ") + std::strerror(errno));
    return kExitOsError;
  }
  client.RunUntil([&run] { return run.done; }, BlockingClient::kForever);
  for (event* ev : signal_events) event_free(ev);
  if (lock.held()) lock.Release();
  if (WIFEXITED(run.status)) return WEXITSTATUS(run.status);
  if (WIFSIGNALED(run.status)) return 128 + WTERMSIG(run.status);
  return kExitOsError;
}

}  // namespace
}  // namespace redistp::tools

int main(int argc, char** argv) { return redistp::tools::Main(argc, argv); }
