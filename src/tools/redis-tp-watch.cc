// redis-tp-watch: prints one line per existence change of the keys given, as they happen.
//
//   2024-05-01T12:00:00.123 lock ADD
//   2024-05-01T12:00:04.871 lock DEL
//
// Each key's state at registration comes first (EXIST / NOEXIST), and again after every
// reconnect, so the output always tells the current state even if changes were missed while
// the connection was down. --json prints {"time":...,"key":...,"event":...} objects instead.
// Keys with spaces, quotes or unprintable bytes are printed quoted with C-style escapes.
// Prefix mode (--prefix P): every key under P, through the existence events published on
// `__watchex@<db>__:<key>` (PSUBSCRIBE `__watchex@<db>__:P*`, P's glob characters escaped).
// Keys are not enumerated, so there are no EXIST/NOEXIST lines, only ADD/DEL as they happen;
// changes while the connection is down are missed (said on stderr). See pattern_feed.h.
//
// Runs until SIGINT/SIGTERM, or until -c changes (ADD/DEL) were printed; exits 0, or 69 if
// the server cannot be reached at start or refuses (NOAUTH, a refused watch) at any time
// (lost connections are retried, reported on stderr).
#include <event2/event.h>
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "client/blocking_client.h"
#include "tools/pattern_feed.h"
#include "tools/tool_common.h"

namespace redistp::tools {
namespace {

using client::BlockingClient;
using client::ConnectionEvent;
using client::WatchEvent;
using client::WatchEventType;

constexpr char kProgram[] = "redis-tp-watch";

constexpr char kUsage[] =
    "Usage:\n"
    " redis-tp-watch [options] <key> [<key>...]\n"
    " redis-tp-watch [options] --prefix <prefix> [--prefix <prefix>...]\n"
    "\n"
    "Print a line for each existence change (ADD, DEL) of the keys, as it happens:\n"
    "<time> <key> <event>. Each key's state at registration (EXIST, NOEXIST) comes first, and\n"
    "again after every reconnect. With --prefix, every key starting with <prefix> (through\n"
    "PSUBSCRIBE __watchex@<db>__:<prefix>*): ADD and DEL only, no first states, and changes\n"
    "made while the connection is down are missed.\n"
    "\n"
    "Options:\n"
    "%s"
    "     --json                one JSON object per line: {\"time\":..,\"key\":..,\"event\":..}\n"
    "     --changes-only        leave out the EXIST / NOEXIST lines\n"
    "     --prefix <prefix>     watch every key that starts with <prefix> (repeatable)\n"
    " -c, --count <n>           exit after <n> changes (ADD / DEL)\n"
    "     --help                display this help\n"
    " -V, --version             display version\n"
    "\n"
    "Exit status: 0 after SIGINT/SIGTERM or -c changes; 64 for bad usage; 69 when the server\n"
    "cannot be reached at start or refuses (NOAUTH, a refused watch).\n";

struct Settings {
  client::ClientOptions connection = DefaultConnectionOptions();
  std::vector<std::string> keys;
  std::vector<std::string> prefixes;
  bool json = false;
  bool changes_only = false;
  long long count = -1;
};

int ParseArguments(int argc, char** argv, Settings* s) {
  std::string error;
  auto usage_error = [](const std::string& message) { return UsageError(kProgram, message); };
  int i = 1;
  bool only_keys = false;
  while (i < argc) {
    const std::string arg = argv[i];
    if (only_keys || arg.empty() || arg[0] != '-') {
      s->keys.push_back(arg);
      ++i;
      continue;
    }
    switch (ParseConnectionFlag(argc, argv, &i, &s->connection, &error)) {
      case FlagResult::kTaken:
        continue;
      case FlagResult::kError:
        return usage_error(error);
      case FlagResult::kNotMine:
        break;
    }
    if (arg == "--help") {
      std::printf(kUsage, kConnectionHelp);
      return 0;
    } else if (arg == "-V" || arg == "--version") {
      std::printf("redis-tp-watch (redis-tp client library %s)\n", client::kClientVersion);
      return 0;
    } else if (arg == "--json") {
      s->json = true;
      ++i;
    } else if (arg == "--changes-only") {
      s->changes_only = true;
      ++i;
    } else if (arg == "-c" || arg == "--count") {
      if (i + 1 >= argc || !ParseInteger(argv[i + 1], 1, 1LL << 62, &s->count)) {
        return usage_error("option " + arg + " needs a positive number");
      }
      i += 2;
    } else if (arg == "--prefix" || arg.rfind("--prefix=", 0) == 0) {
      if (arg != "--prefix") {
        s->prefixes.push_back(arg.substr(std::strlen("--prefix=")));
        ++i;
      } else if (i + 1 < argc) {
        s->prefixes.push_back(argv[i + 1]);
        i += 2;
      } else {
        return usage_error("option --prefix needs a prefix");
      }
    } else if (arg == "--") {
      only_keys = true;
      ++i;
    } else {
      return usage_error("unknown option " + arg);
    }
  }
  if (!s->keys.empty() && !s->prefixes.empty()) {
    return usage_error("give keys or --prefix, not both");
  }
  if (s->keys.empty() && s->prefixes.empty()) return usage_error("no key given");
  return -1;
}

struct State {
  bool stop = false;
  long long changes = 0;
};

void OnStopSignal(evutil_socket_t, short, void* arg) { static_cast<State*>(arg)->stop = true; }

// Prints one change or first state, in the chosen format.
void PrintEvent(const Settings& s, const std::string& key, const char* event) {
  if (s.json) {
    std::printf("{\"time\":\"%s\",\"key\":%s,\"event\":\"%s\"}\n", LocalTimestamp().c_str(),
                QuoteText(key, true).c_str(), event);
  } else {
    std::printf("%s %s %s\n", LocalTimestamp().c_str(), QuoteText(key, false).c_str(), event);
  }
  std::fflush(stdout);
}

std::vector<event*> HandleStopSignals(event_base* base, State* state) {
  std::vector<event*> events;
  for (int sig : {SIGINT, SIGTERM}) {
    event* ev = evsignal_new(base, sig, &OnStopSignal, state);
    event_add(ev, nullptr);
    events.push_back(ev);
  }
  return events;
}

// --prefix: a Pub/Sub feed of the __watchex channels under each prefix.
int RunPrefixMode(const Settings& s) {
  event_base* base = event_base_new();
  State state;
  int exit_status = 0;
  const std::string channel_head = "__watchex@" + std::to_string(s.connection.db) + "__:";
  std::vector<std::string> patterns;
  for (const std::string& p : s.prefixes) patterns.push_back(channel_head + EscapeGlob(p) + "*");
  PatternFeed feed(
      base, s.connection, patterns,
      [&](const std::string& channel, const std::string& message) {
        if (state.stop || channel.compare(0, channel_head.size(), channel_head) != 0) return;
        if (message != "ADD" && message != "DEL") return;
        PrintEvent(s, channel.substr(channel_head.size()), message.c_str());
        if (s.count > 0 && ++state.changes >= s.count) state.stop = true;
        if (state.stop) event_base_loopbreak(base);
      },
      [&](bool refused, const std::string& message) {
        Complain(kProgram, message);
        if (refused) {
          exit_status = kExitUnavailable;
          state.stop = true;
          event_base_loopbreak(base);
        }
      });
  std::string error;
  bool refused = false;
  if (!feed.Start(&error, &refused)) {
    Complain(kProgram, error);
    event_base_free(base);
    return kExitUnavailable;
  }
  std::vector<event*> signal_events = HandleStopSignals(base, &state);
  while (!state.stop) {
    event_base_loop(base, EVLOOP_ONCE);
  }
  for (event* ev : signal_events) event_free(ev);
  event_base_free(base);
  return exit_status;
}

int Main(int argc, char** argv) {
  Settings s;
  if (const int rc = ParseArguments(argc, argv, &s); rc >= 0) return rc;
  signal(SIGPIPE, SIG_IGN);
  if (!s.prefixes.empty()) return RunPrefixMode(s);
  BlockingClient client(s.connection);
  if (!client.Connect()) {
    Complain(kProgram, client.error());
    return kExitUnavailable;
  }
  State state;
  int exit_status = 0;
  client.async().AddConnectionListener([](ConnectionEvent ev, const std::string& detail) {
    if (ev == ConnectionEvent::kDisconnected) {
      Complain(kProgram, "connection lost (" + detail + "), reconnecting");
    } else if (ev == ConnectionEvent::kConnected) {
      Complain(kProgram, "reconnected to " + detail);
    }
  });
  auto print = [&s, &state, &exit_status](const WatchEvent& e) {
    const bool change = e.type == WatchEventType::kAdd || e.type == WatchEventType::kDel;
    if (e.type == WatchEventType::kError) {
      // The server refused the watch (NOAUTH, NOPERM...): nothing will ever be printed.
      Complain(kProgram, "cannot watch " + QuoteText(e.key, false) + ": " + e.error);
      exit_status = kExitUnavailable;
      state.stop = true;
      return;
    }
    if (!change && s.changes_only) return;
    PrintEvent(s, e.key, client::WatchEventName(e.type));
    if (change && s.count > 0 && ++state.changes >= s.count) state.stop = true;
  };
  for (const std::string& key : s.keys) client.async().Watch(key, print);
  std::vector<event*> signal_events = HandleStopSignals(client.base(), &state);
  client.RunUntil([&state] { return state.stop; }, BlockingClient::kForever);
  for (event* ev : signal_events) event_free(ev);
  return exit_status;
}

}  // namespace
}  // namespace redistp::tools

int main(int argc, char** argv) { return redistp::tools::Main(argc, argv); }
