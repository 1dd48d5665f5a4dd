// redis-tp-lock: a distributed flock(1). Takes a redis-tp lock, runs a command, releases the
// lock when the command exits and exits with the command's status.
//
// The lock is a temporary key owned by this process's connection (or, with --session, by a
// session that outlives a lost connection for a grace period), so the server frees it the
// moment this process goes away, however it goes (exit, crash, kill -9) — a second
// redis-tp-lock waiting on the same name gets it at once. The socket is close-on-exec: the
// command does not inherit it, so the lock's life is this process's, not the command's.
//
// The command runs in a process group of its own (CommandRunner, command_runner.h), so that
// everything it starts can be stopped together: on a lost lock, on SIGTERM/SIGHUP/SIGINT to
// this process (passed on to the group), and — through a watchdog process — when this process
// is killed with SIGKILL. Stopping is SIGTERM to the group, then SIGKILL after --kill-after.
// The lock is released only once the group is gone.
//
// The lock is lost when its key is deleted by someone else (the tool watches the key in every
// mode: an operator's DEL, FLUSHDB, RENAME...), when the connection ends without a session to
// resume, or when a session cannot be resumed. With --lease or --session a client-side deadline
// (hold_deadline.h) also stops the command when the server has been silent for long enough
// that it might free the key: before anyone else can get the lock.
//
// The command's environment gets REDIS_TP_LOCK_KEY (the lock's name) and REDIS_TP_LOCK_FENCE
// (the fencing token of this hold: a number that grows with every acquisition server-wide, for
// a resource that wants to reject a stale holder).
//
// Exit status: the command's (128+N if it died of signal N, also when it was stopped because
// the lock was lost); the conflict code (1, or -E) when the lock was not obtained (-n, -w); 64
// for bad usage; 69 when the server cannot be reached or refuses; 71 when the command cannot be
// started; 126/127 when it cannot be executed / found (127 also for an empty command name).
#include <event2/event.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "client/blocking_client.h"
#include "client/lock.h"
#include "tools/command_runner.h"
#include "tools/hold_deadline.h"
#include "tools/tool_common.h"

namespace redistp::tools {
namespace {

using client::AcquireStatus;
using client::BlockingClient;
using client::BlockingLock;
using client::Lock;
using client::LockMode;
using client::LockOptions;
using client::WatchEvent;
using client::WatchEventType;

constexpr char kProgram[] = "redis-tp-lock";
// How long the DELTP at the end may take before the connection is simply closed.
constexpr std::chrono::milliseconds kReleaseWait{2000};

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
    "     --session <ms>        hold the lock through a session with this grace: a lost\n"
    "                           connection is reconnected and the session resumed; the lock is\n"
    "                           lost (and the command stopped) only if that fails within <ms>\n"
    "     --kill-after <secs>   when stopping the command, SIGKILL its process group this long\n"
    "                           after SIGTERM (default 5)\n"
    " -k, --keep-running        if the lock is lost, only warn (default: stop the command)\n"
    " -c, --command <command>   run a single command string through the shell\n"
    " -v, --verbose             report how long getting the lock took, and what runs\n"
    "     --help                display this help\n"
    " -V, --version             display version\n"
    "\n"
    "The command runs in its own process group with REDIS_TP_LOCK_KEY (the lock name) and\n"
    "REDIS_TP_LOCK_FENCE (the fencing token of this hold) in its environment. It is stopped\n"
    "(SIGTERM to the whole group, SIGKILL after --kill-after) when the lock is lost (its key\n"
    "deleted by someone else, the connection or session gone), when this process gets SIGTERM,\n"
    "SIGHUP or SIGINT, and when this process is killed, even with SIGKILL (a watchdog process\n"
    "does it). The lock is released once the whole group is gone.\n"
    "\n"
    "Deadline: with --lease L or --session G, the server can free the lock no sooner than B\n"
    "(B = G with --session, else L) after it received the last request this process sent. So\n"
    "the tool PINGs every B/8 and, if no request sent in the last 0.6*B has been answered,\n"
    "sends SIGTERM to the command's group; at 0.8*B, SIGKILL. The command is gone at least\n"
    "0.2*B before anyone else can get the lock.\n";

struct Settings {
  client::ClientOptions connection = DefaultConnectionOptions();
  std::string lock_name;
  bool has_lock_name = false;        // "" is a valid key name
  std::vector<std::string> command;  // argv, or {"/bin/sh", "-c", string} for -c
  bool nonblock = false;
  bool has_timeout = false;
  double timeout_s = 0;
  int conflict_code = 1;
  LockMode mode = LockMode::kFair;
  bool keep_running = false;
  bool verbose = false;
  long long session_grace_ms = -1;  // -1: no session
  double kill_after_s = 5;
};

// Parses argv into `s`. Returns -1 to go on, else the exit status to leave with.
int ParseArguments(int argc, char** argv, Settings* s) {
  int i = 1;
  std::string error;
  std::string shell_command;
  bool has_shell_command = false;
  auto value_of = [&](const char* name, std::string* out) {
    return TakeOptionValue(argc, argv, &i, name, out);
  };
  auto usage_error = [](const std::string& message) { return UsageError(kProgram, message); };
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
    } else if (arg == "--kill-after" || arg.rfind("--kill-after=", 0) == 0) {
      if (!value_of("--kill-after", &value) || !ParseSeconds(value, &s->kill_after_s) ||
          s->kill_after_s > 86400) {
        return usage_error("option " + arg + " needs a number of seconds");
      }
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
    } else if (arg == "--session" || arg.rfind("--session=", 0) == 0) {
      if (!value_of("--session", &value) ||
          !ParseInteger(value, 1, 86400000, &s->session_grace_ms)) {
        return usage_error("option " + arg + " needs milliseconds (1-86400000)");
      }
    } else if (arg == "--") {
      ++i;
      break;
    } else if (!arg.empty() && arg[0] == '-' && !s->has_lock_name) {
      return usage_error("unknown option " + arg);
    } else if (!s->has_lock_name) {
      s->lock_name = arg;
      s->has_lock_name = true;
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
  if (!s->has_lock_name && i < argc) {
    s->lock_name = argv[i++];
    s->has_lock_name = true;
  }
  if (!s->has_lock_name) return usage_error("no lock name given");
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

// What the signal handlers need.
struct Run {
  CommandRunner* runner = nullptr;
  bool keep_running = false;
};

// SIGTERM, SIGHUP, SIGINT to this process: passed on to the command's whole group, which is
// then stopped as on a lost lock (unless --keep-running, which only passes the signal on).
void OnSignal(evutil_socket_t sig, short, void* arg) {
  auto* run = static_cast<Run*>(arg);
  if (run->keep_running) {
    run->runner->Signal(static_cast<int>(sig));
  } else {
    run->runner->Stop(static_cast<int>(sig));
  }
}

int Main(int argc, char** argv) {
  Settings s;
  if (const int rc = ParseArguments(argc, argv, &s); rc >= 0) return rc;
  signal(SIGPIPE, SIG_IGN);
  if (s.command[0].empty()) {
    // exec would fail the same way after taking the lock; say it plainly before.
    Complain(kProgram, "cannot run '': empty command name");
    return 127;
  }
  // With a session the lock survives a lost connection: the client resumes the session on the
  // next one and the Lock reports a loss only if that fails (client/redistp_client.h).
  if (s.session_grace_ms > 0)
    s.connection.session_grace = std::chrono::milliseconds(s.session_grace_ms);

  s.connection.reconnect = true;  // a connection lost while waiting is retried within -w
  BlockingClient client(s.connection);
  CommandRunner runner(client.base(), kProgram,
                       std::chrono::milliseconds(static_cast<long long>(s.kill_after_s * 1000)));
  // The watchdog is forked before the connection exists, so it never holds the lock's socket.
  if (!s.keep_running && !runner.StartWatchdog()) {
    Complain(kProgram, std::string("cannot start the watchdog: ") + std::strerror(errno));
    return kExitOsError;
  }
  if (!client.Connect()) {
    Complain(kProgram, client.error());
    return kExitUnavailable;
  }
  BlockingLock lock(client, s.lock_name, LockOptions{s.mode, DefaultLockValue(), true});
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
    std::fprintf(stderr, "%s: getting lock '%s' took %.6f seconds (fencing token %lld)\n", kProgram,
                 s.lock_name.c_str(), waited, lock.fence_token());
    std::fprintf(stderr, "%s: executing %s\n", kProgram, s.command[0].c_str());
  }

  Run run{&runner, s.keep_running};
  std::vector<event*> signal_events;
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) {
    event* ev = evsignal_new(client.base(), sig, &OnSignal, &run);
    event_add(ev, nullptr);
    signal_events.push_back(ev);
  }
  bool lost = false;
  auto on_lost = [&](const std::string& why) {
    if (lost) return;
    lost = true;
    Complain(kProgram, "lost lock '" + s.lock_name + "' while the command was running: " + why +
                           (s.keep_running ? "" : "; stopping the command"));
    if (!s.keep_running) runner.Stop(SIGTERM);
  };
  lock.SetLostCallback(on_lost);
  // The tool's own watch notices a deletion by someone else in every lock mode: the key is
  // gone, whoever deleted it, and with it the mutual exclusion the command relies on.
  const client::Client::WatchId watch = client.async().Watch(s.lock_name, [&](const WatchEvent& e) {
    if (e.type == WatchEventType::kDel || e.type == WatchEventType::kNoExist) {
      on_lost("the lock key was deleted by someone else");
    }
  });
  std::unique_ptr<HoldDeadline> deadline;
  const std::chrono::milliseconds bound =
      s.session_grace_ms > 0 ? std::chrono::milliseconds(s.session_grace_ms) : s.connection.lease;
  if (bound.count() > 0 && !s.keep_running) {
    deadline = std::make_unique<HoldDeadline>(client.async(), bound, [&](bool kill) {
      if (!kill) {
        Complain(kProgram,
                 "no reply from the server for too long: the lock may be freed soon; "
                 "stopping the command");
      }
      lost = true;
      runner.Stop(SIGTERM, kill);
    });
  }
  const std::vector<std::pair<std::string, std::string>> env = {
      {"REDIS_TP_LOCK_KEY", s.lock_name},
      {"REDIS_TP_LOCK_FENCE", std::to_string(lock.fence_token())}};
  if (!runner.Start(s.command, env)) {
    Complain(kProgram, std::string("cannot start the command: ") + std::strerror(errno));
    return kExitOsError;
  }
  client.RunUntil([&runner] { return runner.Finished(); }, BlockingClient::kForever);
  deadline.reset();
  client.async().Unwatch(watch);
  for (event* ev : signal_events) event_free(ev);
  // Release with DELTP, but never wait long for it: a server that stopped answering must not
  // keep this process (closing the connection below frees the key anyway).
  if (lock.held() && !lost) {
    bool released = false;
    lock.async().Release([&released](bool) { released = true; });
    client.RunUntil([&released] { return released; }, kReleaseWait);
  }
  client.async().Close();
  return runner.ExitStatus();
}

}  // namespace
}  // namespace redistp::tools

int main(int argc, char** argv) { return redistp::tools::Main(argc, argv); }
