// Contended-lock benchmark; see locks.h for the method.
#include "locks.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "clock.h"
#include "connection.h"
#include "epoll_fd.h"
#include "options.h"
#include "resp.h"
#include "stats.h"

namespace coordbench {
namespace {

constexpr int kConnectTimeoutMs = 2000;
constexpr int64_t kReplyTimeoutNs = 5 * kNsPerSec;
constexpr int kMaxEvents = 512;
constexpr const char* kRedisTtlMs = "30000";
// Deletes the lock and wakes the waiters only when the caller's token still holds it.
constexpr const char* kReleaseScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "redis.call('del', KEYS[1]); redis.call('publish', ARGV[2], ARGV[1]); return 1 end "
    "return 0";

struct LocksConfig {
  int64_t clients = 20;
  int64_t seconds = 3;
  int64_t retry_ms = 100;
  int64_t max_seconds = 60;
  std::string key = "coord:lock";
};

enum class Phase { kAcquire, kWait, kGet, kSet, kRelease, kDone };

struct LockClient {
  std::unique_ptr<Connection> conn;
  // Redis only: the connection SUBSCRIBEd to the lock's channel.
  std::unique_ptr<Connection> sub;
  Phase phase = Phase::kAcquire;
  int64_t acquisitions = 0;
  int64_t round = 0;
  int64_t wait_start_ns = 0;
  int64_t wait_due_ns = 0;
  // Channel messages read so far, and that count when the last SET NX was sent.
  int64_t messages = 0;
  int64_t messages_at_send = 0;
};

class LockRun {
 public:
  LockRun(Target target, const LocksConfig& config)
      : target_(std::move(target)),
        config_(config),
        lock_key_(config.key + ":" + target_.name),
        counter_key_(lock_key_ + ":counter"),
        channel_(lock_key_ + ":channel"),
        redis_(target_.mode == "redis-redisson"),
        clients_(config.clients) {}

  // Opens every connection, registers the watch or subscription, clears the keys.
  bool Setup(std::string* error);
  // The measured loop, until every client has stopped. False on a connection failure or when
  // the run does not drain within --max-seconds.
  bool Run(std::string* error);
  // Reads the counter back and prints the result line.
  bool Report(std::string* error);

 private:
  bool Fail(std::string* error, const std::string& message) {
    *error = message;
    return false;
  }
  bool Send(LockClient& client, const std::vector<std::string>& args, std::string* error);
  // Sends the acquiring command; `fresh` starts a new acquisition (its wait clock).
  bool Attempt(LockClient& client, bool fresh, std::string* error);
  // A failed attempt: count it, then stop, retry at once, or wait for a wake-up.
  bool AfterRefusal(LockClient& client, std::string* error);
  bool Granted(LockClient& client, std::string* error);
  bool OnReply(LockClient& client, const Frame& reply, std::string* error);
  bool OnWakeUp(LockClient& client, std::string* error);
  // Reads what `conn` has and handles every complete frame.
  bool Drain(size_t index, bool sub, std::string* error);
  // The value this client writes into the lock in its current round, unique in the run.
  std::string Token(const LockClient& client) const {
    return target_.name + ":" + std::to_string(&client - clients_.data()) + ":" +
           std::to_string(client.round);
  }
  void Stop(LockClient& client) {
    client.phase = Phase::kDone;
    --active_;
  }

  Target target_;
  LocksConfig config_;
  std::string lock_key_;
  std::string counter_key_;
  std::string channel_;
  bool redis_;
  std::vector<LockClient> clients_;
  std::unique_ptr<Connection> admin_;
  LatencySamples waits_;
  // Fixed seed: runs are repeatable up to the timing of the replies.
  std::minstd_rand shuffle_{12345};
  bool stopping_ = false;
  size_t active_ = 0;
  int64_t holders_ = 0;
  int64_t violations_ = 0;
  int64_t wasted_ = 0;
  int64_t timeouts_ = 0;
  int64_t bad_releases_ = 0;
  int64_t elapsed_ns_ = 0;
};

bool LockRun::Setup(std::string* error) {
  admin_ = Connection::Open(target_.port, kConnectTimeoutMs, error);
  if (!admin_) return false;
  Frame reply;
  int64_t deadline = NowNs() + kReplyTimeoutNs;
  if (!admin_->Call({"DEL", lock_key_, counter_key_}, &reply, deadline) || reply.IsError()) {
    return Fail(error, "DEL of the keys: " + reply.Describe() + " " + admin_->error());
  }
  for (size_t i = 0; i < clients_.size(); ++i) {
    LockClient& client = clients_[i];
    std::string who = "client " + std::to_string(i) + ": ";
    client.conn = Connection::Open(target_.port, kConnectTimeoutMs, error);
    if (!client.conn) return Fail(error, who + *error);
    deadline = NowNs() + kReplyTimeoutNs;
    if (target_.mode == "settp-watchex") {
      Frame hello;
      if (!client.conn->Call({"HELLO", "3"}, &hello, deadline) || hello.IsError() ||
          !client.conn->Call({"WATCHEX", lock_key_}, &reply, deadline)) {
        return Fail(error, who + "HELLO 3 / WATCHEX: " + client.conn->error());
      }
      if (!reply.IsString("NOEXIST") && !reply.IsString("EXIST")) {
        return Fail(error, who + "WATCHEX replied " + reply.Describe());
      }
    } else if (redis_) {
      client.sub = Connection::Open(target_.port, kConnectTimeoutMs, error);
      if (!client.sub) return Fail(error, who + "subscriber: " + *error);
      if (!client.sub->Call({"SUBSCRIBE", channel_}, &reply, deadline) || reply.items.size() != 3 ||
          !reply.items[0].IsString("subscribe")) {
        return Fail(error,
                    who + "SUBSCRIBE replied " + reply.Describe() + " " + client.sub->error());
      }
    }
  }
  return true;
}

bool LockRun::Send(LockClient& client, const std::vector<std::string>& args, std::string* error) {
  if (client.conn->SendCommand(args, NowNs() + kReplyTimeoutNs)) return true;
  return Fail(error, args[0] + ": " + client.conn->error());
}

bool LockRun::Attempt(LockClient& client, bool fresh, std::string* error) {
  if (fresh) {
    client.wait_start_ns = NowNs();
    ++client.round;
  }
  client.phase = Phase::kAcquire;
  std::string token = Token(client);
  if (target_.mode == "bsettp") return Send(client, {"BSETTP", lock_key_, token, "0"}, error);
  if (!redis_) return Send(client, {"SETTP", lock_key_, token}, error);
  client.messages_at_send = client.messages;
  return Send(client, {"SET", lock_key_, token, "NX", "PX", kRedisTtlMs}, error);
}

bool LockRun::AfterRefusal(LockClient& client, std::string* error) {
  ++wasted_;
  if (stopping_) {
    Stop(client);
    return true;
  }
  // Redis: a release announced on the other connection while this SET was in flight.
  if (redis_ && client.messages > client.messages_at_send) return Attempt(client, false, error);
  client.phase = Phase::kWait;
  client.wait_due_ns = NowNs() + config_.retry_ms * kNsPerMs;
  return true;
}

bool LockRun::Granted(LockClient& client, std::string* error) {
  if (holders_ > 0) ++violations_;
  ++holders_;
  waits_.Add(NowNs() - client.wait_start_ns);
  client.phase = Phase::kGet;
  return Send(client, {"GET", counter_key_}, error);
}

bool LockRun::OnReply(LockClient& client, const Frame& reply, std::string* error) {
  switch (client.phase) {
    case Phase::kAcquire:
      if (reply.IsInteger(1) || (redis_ && reply.IsString("OK"))) return Granted(client, error);
      if (target_.mode != "bsettp" && (redis_ ? reply.null : reply.IsInteger(0))) {
        return AfterRefusal(client, error);
      }
      return Fail(error, "acquire replied " + reply.Describe());
    case Phase::kGet: {
      if (reply.IsError()) return Fail(error, "GET replied " + reply.Describe());
      long long value = reply.null ? 0 : atoll(reply.text.c_str());
      client.phase = Phase::kSet;
      return Send(client, {"SET", counter_key_, std::to_string(value + 1)}, error);
    }
    case Phase::kSet:
      if (!reply.IsString("OK")) return Fail(error, "SET counter replied " + reply.Describe());
      ++client.acquisitions;
      --holders_;
      client.phase = Phase::kRelease;
      if (redis_) {
        return Send(client, {"EVAL", kReleaseScript, "1", lock_key_, Token(client), channel_},
                    error);
      }
      return Send(client, {"DELTP", lock_key_}, error);
    case Phase::kRelease:
      if (reply.IsError()) return Fail(error, "release replied " + reply.Describe());
      if (!reply.IsInteger(1)) ++bad_releases_;
      if (stopping_) {
        Stop(client);
        return true;
      }
      return Attempt(client, true, error);
    case Phase::kWait:
    case Phase::kDone:
      break;
  }
  return Fail(error, "unexpected reply " + reply.Describe());
}

bool LockRun::OnWakeUp(LockClient& client, std::string* error) {
  if (client.phase != Phase::kWait) return true;
  if (stopping_) {
    Stop(client);
    return true;
  }
  return Attempt(client, false, error);
}

bool LockRun::Drain(size_t index, bool sub, std::string* error) {
  LockClient& client = clients_[index];
  Connection& conn = sub ? *client.sub : *client.conn;
  if (conn.ReadSome() < 0)
    return Fail(error, "client " + std::to_string(index) + ": " + conn.error());
  Frame frame;
  for (;;) {
    int got = conn.PopFrame(&frame);
    if (got < 0) return Fail(error, conn.error());
    if (got == 0) return true;
    bool ok = true;
    if (sub) {
      if (!IsPush(frame)) return Fail(error, "subscriber got " + frame.Describe());
      ++client.messages;
      ok = OnWakeUp(client, error);
    } else if (IsPush(frame)) {
      if (PushEvent(frame) == "DEL") ok = OnWakeUp(client, error);
    } else {
      ok = OnReply(client, frame, error);
    }
    if (!ok) return false;
  }
}

bool LockRun::Run(std::string* error) {
  EpollFd epoll;
  if (epoll.get() < 0) return Fail(error, "epoll_create1 failed");
  for (size_t i = 0; i < clients_.size(); ++i) {
    for (int sub = 0; sub < (redis_ ? 2 : 1); ++sub) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = i * 2 + sub;
      int fd = sub ? clients_[i].sub->fd() : clients_[i].conn->fd();
      if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
        return Fail(error, "epoll_ctl failed");
      }
    }
  }
  int64_t start = NowNs();
  int64_t stop_at = start + config_.seconds * kNsPerSec;
  int64_t hard_end = start + config_.max_seconds * kNsPerSec;
  active_ = clients_.size();
  for (LockClient& client : clients_) {
    if (!Attempt(client, true, error)) return false;
  }
  epoll_event events[kMaxEvents];
  while (active_ > 0) {
    int64_t now = NowNs();
    if (now >= hard_end) {
      return Fail(error, std::to_string(active_) + " clients still active after --max-seconds " +
                             std::to_string(config_.max_seconds));
    }
    if (!stopping_ && now >= stop_at) stopping_ = true;
    int64_t next = stopping_ ? hard_end : stop_at;
    for (LockClient& client : clients_) {
      if (client.phase != Phase::kWait) continue;
      if (stopping_) {
        Stop(client);
      } else if (client.wait_due_ns <= now) {
        ++timeouts_;
        if (!Attempt(client, false, error)) return false;
      } else {
        next = std::min(next, client.wait_due_ns);
      }
    }
    if (active_ == 0) break;
    int n = epoll_wait(epoll.get(), events, kMaxEvents, MsUntil(next));
    if (n < 0 && errno != EINTR) return Fail(error, "epoll_wait failed");
    // Clients that hear of the same release in one batch race like separate processes would:
    // in a random order, not in the order the kernel happened to list their sockets.
    if (n > 1) std::shuffle(events, events + n, shuffle_);
    for (int e = 0; e < n; ++e) {
      if (!Drain(events[e].data.u64 / 2, events[e].data.u64 % 2 == 1, error)) return false;
    }
  }
  elapsed_ns_ = NowNs() - start;
  return true;
}

bool LockRun::Report(std::string* error) {
  Frame reply;
  if (!admin_->Call({"GET", counter_key_}, &reply, NowNs() + kReplyTimeoutNs) || reply.IsError()) {
    return Fail(error, "GET counter: " + reply.Describe() + " " + admin_->error());
  }
  long long counter = reply.null ? 0 : atoll(reply.text.c_str());
  std::vector<int64_t> per_client;
  int64_t total = 0;
  for (const LockClient& client : clients_) {
    per_client.push_back(client.acquisitions);
    total += client.acquisitions;
  }
  std::sort(per_client.begin(), per_client.end());
  size_t n = per_client.size();
  double mean = static_cast<double>(total) / static_cast<double>(n);
  double variance = 0;
  for (int64_t a : per_client) variance += (a - mean) * (a - mean);
  double cv = mean > 0 ? std::sqrt(variance / static_cast<double>(n)) / mean : 0;
  double median = n % 2 ? static_cast<double>(per_client[n / 2])
                        : (per_client[n / 2 - 1] + per_client[n / 2]) / 2.0;
  double seconds = static_cast<double>(elapsed_ns_) / kNsPerSec;
  auto fixed = [](double v, int digits) {
    char text[48];
    snprintf(text, sizeof(text), "%.*f", digits, v);
    return std::string(text);
  };
  PrintResult(target_.name, "locks",
              {{"mode", target_.mode},
               {"clients", std::to_string(n)},
               {"seconds", fixed(seconds, 3)},
               {"acquisitions", std::to_string(total)},
               {"rate", fixed(total / seconds, 1)},
               {"per_client_min", std::to_string(per_client.front())},
               {"per_client_median", fixed(median, 1)},
               {"per_client_max", std::to_string(per_client.back())},
               {"cv", fixed(cv, 3)},
               {"wasted", std::to_string(wasted_)},
               {"wasted_per_acq", fixed(total > 0 ? static_cast<double>(wasted_) / total : 0, 3)},
               {"timeouts", std::to_string(timeouts_)},
               {"violations", std::to_string(violations_)},
               {"counter", std::to_string(counter)},
               {"lost_increments", std::to_string(total - counter)},
               {"bad_releases", std::to_string(bad_releases_)},
               {"wait_p50_us", fixed(waits_.PercentileUs(50), 1)},
               {"wait_p99_us", fixed(waits_.PercentileUs(99), 1)},
               {"wait_max_us", fixed(waits_.PercentileUs(100), 1)}});
  return true;
}

}  // namespace

int RunLocks(Options& options) {
  LocksConfig config;
  std::vector<Target> targets = options.Targets({"bsettp", "settp-watchex", "redis-redisson"});
  config.clients = options.Int("clients", config.clients, 1, 2000);
  config.seconds = options.Int("seconds", config.seconds, 1, 600);
  config.retry_ms = options.Int("retry-ms", config.retry_ms, 1, 60000);
  config.max_seconds = options.Int("max-seconds", config.max_seconds, 1, 3600);
  config.key = options.String("key", config.key);
  options.CheckAllUsed();
  if (options.ok() && config.max_seconds <= config.seconds) {
    fprintf(stderr, "coord-bench locks: --max-seconds must exceed --seconds\n");
    return 2;
  }
  if (!options.ok()) {
    fprintf(stderr, "coord-bench locks: %s\n", options.error().c_str());
    return 2;
  }
  // Targets run one after another so that they never compete for the machine.
  for (const Target& target : targets) {
    LockRun run(target, config);
    std::string error;
    if (!run.Setup(&error) || !run.Run(&error) || !run.Report(&error)) {
      fprintf(stderr, "coord-bench locks: %s: %s\n", target.name.c_str(), error.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace coordbench
