// redis-tp-elect: leader election from the shell, in the manner of `etcdctl elect`.
//
//   redis-tp-elect NAME PROPOSAL              campaign; once leader print PROPOSAL and lead
//                                             until SIGINT/SIGTERM/SIGHUP, then resign
//   redis-tp-elect NAME PROPOSAL CMD [ARG...] lead while CMD runs (or -c 'shell command')
//   redis-tp-elect --listen NAME              print the value of every new leader
//   redis-tp-elect --proclaim NAME VALUE      change the leader's value (as the leader)
//   redis-tp-elect --resign NAME              end the term (as the leader)
//
// The election is client::Election (client/election.h): a campaign is BSETTP NAME PROPOSAL 0
// FENCE, so candidates queue on the server in arrival order, exactly one is woken per change of
// leader (no herd), and each term has a fencing token. A leader that dies, however it dies,
// frees the key at once for the next candidate.
//
// Command mode runs the command as redis-tp-lock does (CommandRunner: its own process group,
// stopped as a whole when the term ends, when this process gets a signal or is killed) with
// REDIS_TP_ELECT_KEY, REDIS_TP_ELECT_FENCE and REDIS_TP_ELECT_VALUE in its environment;
// --session holds the term through a session that a reconnect resumes, and --lease or
// --session arm the same client-side deadline (hold_deadline.h). --proclaim and --resign act for
// the holder of a fencing token (--fence, default $REDIS_TP_ELECT_FENCE), so the command can
// proclaim a new value or resign from its own connection; they do nothing once that term is
// over.
//
// Listen mode prints the leader's value when the leader or its value changes (through WATCHEX
// on the key and on the signal key a proclaim touches, no polling); changes faster than a round
// trip may be coalesced, the last state is always printed.
//
// Exit status: command mode, the command's (128+N for signal N); print mode, 0 after a signal,
// 75 when the term ended by itself (key deleted, connection or session lost, deadline);
// --proclaim/--resign 0 done, 1 (or -E) not the leader; -n/-w the conflict code (1, or -E) when
// not elected; 64 bad usage; 69 server unreachable or refusing; 71 the command cannot start.
#include <event2/event.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/blocking_client.h"
#include "client/election.h"
#include "tools/command_runner.h"
#include "tools/hold_deadline.h"
#include "tools/tool_common.h"

namespace redistp::tools {
namespace {

using client::AcquireStatus;
using client::BlockingClient;
using client::Election;
using client::ElectionObserver;
using client::Leader;
using client::Lock;

constexpr char kProgram[] = "redis-tp-elect";
constexpr int kExitTermEnded = 75;
constexpr std::chrono::milliseconds kResignWait{2000};

constexpr char kUsage[] =
    "Usage:\n"
    " redis-tp-elect [options] <election> <proposal>\n"
    " redis-tp-elect [options] <election> <proposal> <command> [<argument>...]\n"
    " redis-tp-elect [options] <election> <proposal> -c <command>\n"
    " redis-tp-elect [options] -l|--listen <election>\n"
    " redis-tp-elect [options] --proclaim <election> <value>\n"
    " redis-tp-elect [options] --resign <election>\n"
    "\n"
    "Leader election on a redis-tp temporary key. A campaign queues fairly on the server\n"
    "(BSETTP ... FENCE): when the leader goes, however it goes, the first candidate in line\n"
    "becomes leader at once and nobody else wakes. Once elected, print the proposal and lead\n"
    "until SIGINT/SIGTERM/SIGHUP (then resign), or run the command and lead while it runs.\n"
    "\n"
    "Options:\n"
    "%s"
    " -n, --nonblock            do not wait if someone else leads\n"
    " -w, --timeout <secs>      wait at most this long to be elected\n"
    " -E, --conflict-exit-code <number>  exit code when not elected / not the leader (default 1)\n"
    "     --lease <ms>          the server ends the term if it hears nothing from this process\n"
    "                           for <ms> (CLIENT LEASE); also arms the deadline below\n"
    "     --session <ms>        lead through a session with this grace: a lost connection is\n"
    "                           reconnected and the session resumed; the term ends only if that\n"
    "                           fails within <ms> (the deadline below uses <ms>)\n"
    "     --kill-after <secs>   when stopping the command, SIGKILL its process group this long\n"
    "                           after SIGTERM (default 5)\n"
    " -c, --command <command>   run a single command string through the shell\n"
    " -l, --listen              print the value of each new leader (and each proclaimed value)\n"
    "     --json                with --listen: {\"time\":..,\"value\":..,\"fence\":..} lines\n"
    "     --count <n>           with --listen: exit after <n> lines\n"
    "     --proclaim            set the leader's value, as the holder of the fencing token\n"
    "     --resign              end the term, as the holder of the fencing token\n"
    "     --fence <token>       the token for --proclaim/--resign (default:\n"
    "                           $REDIS_TP_ELECT_FENCE, set for a leader's command)\n"
    " -v, --verbose             say when elected, with the fencing token\n"
    "     --help                display this help\n"
    " -V, --version             display version\n"
    "\n"
    "A leader's command runs in its own process group with REDIS_TP_ELECT_KEY,\n"
    "REDIS_TP_ELECT_FENCE and REDIS_TP_ELECT_VALUE in its environment; it is stopped (SIGTERM\n"
    "to the group, SIGKILL after --kill-after) when the term ends (the key deleted by someone\n"
    "else, resigned with --resign, the connection lost), when this process gets a signal or is\n"
    "killed (even with SIGKILL). Deadline: with --lease L (or --session G: L = G), if no request\n"
    "sent in the last 0.6*L was answered, the command gets SIGTERM, at 0.8*L SIGKILL: gone\n"
    "before the server can elect anyone else. Exit status: the command's; print mode 0 after a "
    "signal, 75 when the term\n"
    "ended by itself; --proclaim/--resign 0, or 1 (-E) when not the leader; 64 usage; 69 server\n"
    "unreachable or refusing.\n";

enum class Mode { kCampaign, kListen, kProclaim, kResign };

struct Settings {
  client::ClientOptions connection = DefaultConnectionOptions();
  Mode mode = Mode::kCampaign;
  std::string name;
  std::string value;                 // the proposal, or the value to proclaim
  std::vector<std::string> command;  // empty: print mode
  bool nonblock = false;
  bool has_timeout = false;
  double timeout_s = 0;
  int conflict_code = 1;
  double kill_after_s = 5;
  bool json = false;
  long long count = -1;
  long long fence = 0;
  bool verbose = false;
};

// Parses argv into `s`. Returns -1 to go on, else the exit status to leave with.
int ParseArguments(int argc, char** argv, Settings* s) {
  int i = 1;
  std::string error;
  std::string fence_text;
  if (const char* env = std::getenv("REDIS_TP_ELECT_FENCE"); env != nullptr) fence_text = env;
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
    long long n = 0;
    if (arg == "--help") {
      std::printf(kUsage, kConnectionHelp);
      return 0;
    } else if (arg == "-V" || arg == "--version") {
      std::printf("redis-tp-elect (redis-tp client library %s)\n", client::kClientVersion);
      return 0;
    } else if (arg == "-n" || arg == "--nonblock") {
      s->nonblock = true;
      ++i;
    } else if (arg == "-v" || arg == "--verbose") {
      s->verbose = true;
      ++i;
    } else if (arg == "-l" || arg == "--listen") {
      s->mode = Mode::kListen;
      ++i;
    } else if (arg == "--proclaim") {
      s->mode = Mode::kProclaim;
      ++i;
    } else if (arg == "--resign") {
      s->mode = Mode::kResign;
      ++i;
    } else if (arg == "--json") {
      s->json = true;
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
      if (!value_of("--conflict-exit-code", &value) || !ParseInteger(value, 0, 255, &n)) {
        return usage_error("option " + arg + " needs an exit code (0-255)");
      }
      s->conflict_code = static_cast<int>(n);
    } else if (arg == "--lease" || arg.rfind("--lease=", 0) == 0) {
      if (!value_of("--lease", &value) || !ParseInteger(value, 1, 86400000, &n)) {
        return usage_error("option " + arg + " needs milliseconds");
      }
      s->connection.lease = std::chrono::milliseconds(n);
    } else if (arg == "--session" || arg.rfind("--session=", 0) == 0) {
      if (!value_of("--session", &value) || !ParseInteger(value, 1, 86400000, &n)) {
        return usage_error("option " + arg + " needs milliseconds (1-86400000)");
      }
      s->connection.session_grace = std::chrono::milliseconds(n);
    } else if (arg == "--count" || arg.rfind("--count=", 0) == 0) {
      if (!value_of("--count", &value) || !ParseInteger(value, 1, 1LL << 62, &s->count)) {
        return usage_error("option " + arg + " needs a positive number");
      }
    } else if (arg == "--fence" || arg.rfind("--fence=", 0) == 0) {
      if (!value_of("--fence", &fence_text)) return usage_error("option --fence needs a token");
    } else if (arg == "--") {
      ++i;
      break;
    } else if (!arg.empty() && arg[0] == '-') {
      return usage_error("unknown option " + arg);
    } else {
      break;
    }
  }
  if (i >= argc) return usage_error("no election name given");
  s->name = argv[i++];
  if (s->mode == Mode::kListen || s->mode == Mode::kResign) {
    if (i < argc) return usage_error(std::string("unexpected argument '") + argv[i] + "'");
  } else {
    if (i >= argc) {
      return usage_error(s->mode == Mode::kProclaim ? "no value given" : "no proposal given");
    }
    s->value = argv[i++];
  }
  if (s->mode == Mode::kProclaim || s->mode == Mode::kResign) {
    if (i < argc) return usage_error(std::string("unexpected argument '") + argv[i] + "'");
    if (fence_text.empty()) {
      return usage_error("no fencing token: give --fence or set REDIS_TP_ELECT_FENCE");
    }
    if (!ParseInteger(fence_text, 1, 1LL << 62, &s->fence)) {
      return usage_error("the fencing token must be a positive integer");
    }
    return -1;
  }
  if (s->mode == Mode::kCampaign && i < argc) {
    if (std::strcmp(argv[i], "-c") == 0 || std::strcmp(argv[i], "--command") == 0) {
      if (i + 2 != argc) return usage_error("-c takes one command string, and nothing after it");
      s->command = {"/bin/sh", "-c", argv[i + 1]};
    } else {
      if (std::strcmp(argv[i], "--") == 0) ++i;
      for (; i < argc; ++i) s->command.emplace_back(argv[i]);
      if (s->command.empty()) return usage_error("no command given after --");
    }
    if (s->command[0].empty()) {
      Complain(kProgram, "cannot run '': empty command name");
      return 127;
    }
  }
  return -1;
}

// --proclaim / --resign: one script, for the holder of s.fence.
int RunAsHolder(const Settings& s) {
  BlockingClient client(s.connection);
  if (!client.Connect()) {
    Complain(kProgram, client.error());
    return kExitUnavailable;
  }
  std::optional<std::pair<bool, std::string>> result;
  auto done = [&result](bool ok, const std::string& error) { result.emplace(ok, error); };
  if (s.mode == Mode::kProclaim) {
    Election::ProclaimAs(client.async(), s.name, s.fence, s.value, done);
  } else {
    Election::ResignAs(client.async(), s.name, s.fence, done);
  }
  client.RunUntil([&result] { return result.has_value(); }, BlockingClient::kForever);
  if (!result) {
    Complain(kProgram, "no reply from the server");
    return kExitUnavailable;
  }
  if (result->first) return 0;
  if (result->second == "not the leader") {
    Complain(kProgram,
             "not the leader of '" + s.name + "' (fencing token " + std::to_string(s.fence) + ")");
    return s.conflict_code;
  }
  Complain(kProgram, result->second);
  return kExitUnavailable;
}

void OnStopSignal(evutil_socket_t, short, void* arg) { *static_cast<bool*>(arg) = true; }

// --listen: one line per observed leader (vacancies are not printed).
int RunListen(const Settings& s) {
  BlockingClient client(s.connection);
  if (!client.Connect()) {
    Complain(kProgram, client.error());
    return kExitUnavailable;
  }
  bool stop = false;
  int exit_status = 0;
  long long printed = 0;
  ElectionObserver observer(
      client.async(), s.name,
      [&](const std::optional<Leader>& leader) {
        if (!leader || stop) return;
        if (s.json) {
          std::printf("{\"time\":\"%s\",\"value\":%s,\"fence\":%lld}\n", LocalTimestamp().c_str(),
                      QuoteText(leader->value, true).c_str(), leader->fence);
        } else {
          std::printf("%s\n", leader->value.c_str());
        }
        std::fflush(stdout);
        if (s.count > 0 && ++printed >= s.count) stop = true;
      },
      [&](const std::string& error) {
        Complain(kProgram, "cannot observe '" + s.name + "': " + error);
        exit_status = kExitUnavailable;
        stop = true;
      });
  std::vector<event*> signal_events;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    event* ev = evsignal_new(client.base(), sig, &OnStopSignal, &stop);
    event_add(ev, nullptr);
    signal_events.push_back(ev);
  }
  client.RunUntil([&stop] { return stop; }, BlockingClient::kForever);
  for (event* ev : signal_events) event_free(ev);
  return exit_status;
}

// What the signal handlers of the campaign need.
struct Leading {
  CommandRunner* runner = nullptr;  // command mode
  bool signalled = false;           // print mode: a stop signal came
};

void OnCampaignSignal(evutil_socket_t sig, short, void* arg) {
  auto* leading = static_cast<Leading*>(arg);
  leading->signalled = true;
  if (leading->runner != nullptr) leading->runner->Stop(static_cast<int>(sig));
}

int RunCampaign(const Settings& s) {
  const bool command_mode = !s.command.empty();
  BlockingClient client(s.connection);
  CommandRunner runner(client.base(), kProgram,
                       std::chrono::milliseconds(static_cast<long long>(s.kill_after_s * 1000)));
  // The watchdog is forked before the connection exists, so it never holds the term's socket.
  if (command_mode && !runner.StartWatchdog()) {
    Complain(kProgram, std::string("cannot start the watchdog: ") + std::strerror(errno));
    return kExitOsError;
  }
  if (!client.Connect()) {
    Complain(kProgram, client.error());
    return kExitUnavailable;
  }
  Election election(client.async(), s.name);
  std::optional<std::pair<AcquireStatus, std::string>> outcome;
  auto done = [&outcome](AcquireStatus status, const std::string& error) {
    outcome.emplace(status, error);
  };
  if (s.nonblock || (s.has_timeout && s.timeout_s == 0)) {
    election.TryCampaign(s.value, done);
  } else {
    election.Campaign(s.value,
                      s.has_timeout
                          ? std::chrono::milliseconds(static_cast<long long>(s.timeout_s * 1000))
                          : Lock::kForever,
                      done);
  }
  client.RunUntil([&outcome] { return outcome.has_value(); }, BlockingClient::kForever);
  if (!outcome) outcome.emplace(AcquireStatus::kFailed, "the connection ended");
  switch (outcome->first) {
    case AcquireStatus::kAcquired:
      break;
    case AcquireStatus::kBusy:
      Complain(kProgram, "'" + s.name + "' has another leader");
      return s.conflict_code;
    case AcquireStatus::kTimedOut:
      Complain(kProgram, "not elected in '" + s.name + "' within the timeout");
      return s.conflict_code;
    default:
      Complain(kProgram, "cannot campaign in '" + s.name + "': " + outcome->second);
      return kExitUnavailable;
  }
  if (s.verbose) {
    std::fprintf(stderr, "%s: elected in '%s' (fencing token %lld)\n", kProgram, s.name.c_str(),
                 election.fence());
  }

  Leading leading;
  if (command_mode) leading.runner = &runner;
  std::vector<event*> signal_events;
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) {
    event* ev = evsignal_new(client.base(), sig, &OnCampaignSignal, &leading);
    event_add(ev, nullptr);
    signal_events.push_back(ev);
  }
  bool ended = false;
  auto end_term = [&](const std::string& why) {
    if (ended) return;
    ended = true;
    Complain(kProgram, "no longer the leader of '" + s.name + "': " + why +
                           (command_mode ? "; stopping the command" : ""));
    if (command_mode) runner.Stop(SIGTERM);
  };
  election.SetLostCallback(end_term);
  std::unique_ptr<HoldDeadline> deadline;
  const std::chrono::milliseconds bound =
      s.connection.session_grace.count() > 0 ? s.connection.session_grace : s.connection.lease;
  if (bound.count() > 0) {
    deadline = std::make_unique<HoldDeadline>(client.async(), bound, [&](bool kill) {
      if (!kill) end_term("no reply from the server for too long: the term may end soon");
      ended = true;
      if (command_mode) runner.Stop(SIGTERM, kill);
    });
  }
  int exit_status = 0;
  if (command_mode) {
    const std::vector<std::pair<std::string, std::string>> env = {
        {"REDIS_TP_ELECT_KEY", s.name},
        {"REDIS_TP_ELECT_FENCE", std::to_string(election.fence())},
        {"REDIS_TP_ELECT_VALUE", s.value}};
    if (!runner.Start(s.command, env)) {
      Complain(kProgram, std::string("cannot start the command: ") + std::strerror(errno));
      return kExitOsError;
    }
    client.RunUntil([&runner] { return runner.Finished(); }, BlockingClient::kForever);
    exit_status = runner.ExitStatus();
  } else {
    std::printf("%s\n", s.value.c_str());
    std::fflush(stdout);
    client.RunUntil([&] { return leading.signalled || ended; }, BlockingClient::kForever);
    exit_status = leading.signalled ? 0 : kExitTermEnded;
  }
  deadline.reset();
  for (event* ev : signal_events) event_free(ev);
  // Resign (DELTP) so the next candidate takes over at once, but never wait long for it:
  // closing the connection ends the term anyway.
  if (election.leader() && !ended) {
    bool resigned = false;
    election.Resign([&resigned](bool, const std::string&) { resigned = true; });
    client.RunUntil([&resigned] { return resigned; }, kResignWait);
  }
  client.async().Close();
  return exit_status;
}

int Main(int argc, char** argv) {
  Settings s;
  if (const int rc = ParseArguments(argc, argv, &s); rc >= 0) return rc;
  signal(SIGPIPE, SIG_IGN);
  switch (s.mode) {
    case Mode::kListen:
      return RunListen(s);
    case Mode::kProclaim:
    case Mode::kResign:
      return RunAsHolder(s);
    case Mode::kCampaign:
      break;
  }
  return RunCampaign(s);
}

}  // namespace
}  // namespace redistp::tools

int main(int argc, char** argv) { return redistp::tools::Main(argc, argv); }
