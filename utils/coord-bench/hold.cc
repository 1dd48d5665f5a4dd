// Hold many watches or subscriptions; see hold.h for the method.
#include "hold.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "clock.h"
#include "connection.h"
#include "options.h"
#include "resp.h"
#include "stats.h"

namespace coordbench {
namespace {

constexpr int kConnectTimeoutMs = 5000;
constexpr int64_t kBatchTimeoutNs = 60 * kNsPerSec;

struct HoldConfig {
  int port = 0;
  bool subscribe = false;  // SUBSCRIBE or PSUBSCRIBE rather than WATCHEX
  bool patterns = false;   // PSUBSCRIBE
  bool shared = true;
  int64_t conns = 1;
  int64_t keys = 1;
  int64_t batch = 100;
  int64_t max_seconds = 600;
  std::string prefix = "coord:w:";
};

std::string KeyName(const HoldConfig& config, int64_t conn, int64_t index) {
  std::string key = config.prefix;
  if (!config.shared) key += std::to_string(conn) + ":";
  return key + std::to_string(index);
}

// The channel (or pattern) that stands for `key` in the Pub/Sub modes.
std::string ChannelName(const HoldConfig& config, const std::string& key) {
  return "__keyspace@0__:" + key + (config.patterns ? ":*" : "");
}

// Checks the replies to one batch of `count` keys on `conn`; `subscribed` is the connection's
// channel (or pattern) count before the batch (confirmations carry the running count).
bool CheckBatch(const HoldConfig& config, Connection& conn, int64_t count, int64_t subscribed,
                std::string* error) {
  int64_t deadline = NowNs() + kBatchTimeoutNs;
  Frame reply;
  if (config.subscribe) {
    for (int64_t i = 0; i < count; ++i) {
      if (!conn.NextReply(&reply, deadline)) return (*error = conn.error(), false);
      if (reply.items.size() != 3 ||
          !reply.items[0].IsString(config.patterns ? "psubscribe" : "subscribe") ||
          !reply.items[2].IsInteger(subscribed + i + 1)) {
        return (*error = "(P)SUBSCRIBE replied " + reply.Describe(), false);
      }
    }
    return true;
  }
  if (!conn.NextReply(&reply, deadline)) return (*error = conn.error(), false);
  std::vector<Frame> single;
  const std::vector<Frame>* statuses = &reply.items;
  if (count == 1) {
    single.push_back(reply);
    statuses = &single;
  } else if (reply.type != '*' || reply.items.size() != static_cast<size_t>(count)) {
    return (*error = "WATCHEX replied " + reply.Describe(), false);
  }
  for (const Frame& status : *statuses) {
    if (!status.IsString("EXIST") && !status.IsString("NOEXIST")) {
      return (*error = "WATCHEX replied " + reply.Describe(), false);
    }
  }
  return true;
}

enum class Input { kData, kEnd, kTimeout };

// Waits for standard input: kData when a read returned bytes, kEnd at end of file (or a read
// error), kTimeout when `deadline_ns` passed first.
Input WaitForInput(int64_t deadline_ns) {
  char scratch[256];
  while (NowNs() < deadline_ns) {
    pollfd pfd{STDIN_FILENO, POLLIN, 0};
    if (poll(&pfd, 1, MsUntil(deadline_ns)) > 0) {
      return read(STDIN_FILENO, scratch, sizeof(scratch)) > 0 ? Input::kData : Input::kEnd;
    }
  }
  return Input::kTimeout;
}

// Sends PING on every connection, then checks every PONG: afterwards each connection has been
// through one command, so its per-connection buffers exist before the watches are counted.
bool PingAll(std::vector<std::unique_ptr<Connection>>& conns, std::string* error) {
  int64_t deadline = NowNs() + kBatchTimeoutNs;
  for (auto& conn : conns) {
    if (!conn->SendCommand({"PING"}, deadline)) return (*error = conn->error(), false);
  }
  Frame reply;
  for (auto& conn : conns) {
    if (!conn->NextReply(&reply, deadline)) return (*error = conn->error(), false);
    if (!reply.IsString("PONG")) return (*error = "PING replied " + reply.Describe(), false);
  }
  return true;
}

}  // namespace

int RunHold(Options& options) {
  HoldConfig config;
  config.port = static_cast<int>(options.Int("port", 0, 1, 65535));
  std::string mode = options.String("mode", "watchex", {"watchex", "subscribe", "psubscribe"});
  config.subscribe = mode != "watchex";
  config.patterns = mode == "psubscribe";
  config.shared = options.String("layout", "shared", {"shared", "distinct"}) == "shared";
  config.conns = options.Int("conns", config.conns, 1, 100000);
  config.keys = options.Int("keys", config.keys, 1, 10000000);
  config.batch = options.Int("batch", config.batch, 1, 100000);
  config.max_seconds = options.Int("max-seconds", config.max_seconds, 1, 3600);
  config.prefix = options.String("prefix", config.prefix);
  std::string name = options.String("name", "hold");
  options.CheckAllUsed();
  if (!options.ok() || config.port == 0) {
    fprintf(stderr, "coord-bench hold: %s\n",
            options.ok() ? "--port is required" : options.error().c_str());
    return 2;
  }
  int64_t end_of_hold = NowNs() + config.max_seconds * kNsPerSec;
  std::string error;
  std::vector<std::unique_ptr<Connection>> conns =
      OpenMany(config.port, config.conns, kConnectTimeoutMs, &error);
  if (conns.empty()) {
    fprintf(stderr, "coord-bench hold: %s\n", error.c_str());
    return 1;
  }
  if (!PingAll(conns, &error)) {
    fprintf(stderr, "coord-bench hold: %s\n", error.c_str());
    return 1;
  }
  PrintResult(name, "connected", {{"conns", std::to_string(config.conns)}});
  if (WaitForInput(end_of_hold) != Input::kData) {
    fprintf(stderr, "coord-bench hold: no go-ahead on standard input; nothing registered\n");
    return 1;
  }
  int64_t registration = NowNs();
  for (int64_t first = 0; first < config.keys; first += config.batch) {
    int64_t count = std::min(config.batch, config.keys - first);
    for (int64_t c = 0; c < config.conns; ++c) {
      std::vector<std::string> command = {mode == "watchex" ? "WATCHEX" : mode};
      for (int64_t i = first; i < first + count; ++i) {
        std::string key = KeyName(config, c, i);
        command.push_back(config.subscribe ? ChannelName(config, key) : key);
      }
      if (!conns[c]->SendCommand(command, NowNs() + kBatchTimeoutNs)) {
        fprintf(stderr, "coord-bench hold: connection %lld: %s\n", static_cast<long long>(c),
                conns[c]->error().c_str());
        return 1;
      }
    }
    for (int64_t c = 0; c < config.conns; ++c) {
      if (!CheckBatch(config, *conns[c], count, first, &error)) {
        fprintf(stderr, "coord-bench hold: connection %lld: %s\n", static_cast<long long>(c),
                error.c_str());
        return 1;
      }
    }
  }
  char seconds[32];
  snprintf(seconds, sizeof(seconds), "%.2f",
           static_cast<double>(NowNs() - registration) / kNsPerSec);
  PrintResult(name, "hold",
              {{"mode", mode},
               {"layout", config.shared ? "shared" : "distinct"},
               {"conns", std::to_string(config.conns)},
               {"keys", std::to_string(config.keys)},
               {"pairs", std::to_string(config.conns * config.keys)},
               {"seconds", seconds}});
  while (WaitForInput(end_of_hold) == Input::kData) {
  }
  if (NowNs() >= end_of_hold) fprintf(stderr, "coord-bench hold: --max-seconds reached\n");
  for (auto& conn : conns) conn->Close();
  return 0;
}

}  // namespace coordbench
