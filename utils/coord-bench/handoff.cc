// Lock hand-off benchmark; see handoff.h for the method.
#include "handoff.h"

#include <cstdio>
#include <cstdlib>
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

constexpr int kConnectTimeoutMs = 2000;
constexpr int64_t kReplyTimeoutNs = 5 * kNsPerSec;
// How long ours may take to hand the lock over before the run counts as failed.
constexpr int64_t kHandoffTimeoutNs = 2 * kNsPerSec;
// Extra time beyond the TTL a Redis run may take.
constexpr int64_t kTtlGraceNs = 5 * kNsPerSec;
// Bounds of the wait for the BSETTP waiter to be blocked.
constexpr int kBlockedPolls = 20000;
constexpr int64_t kBlockedPollPauseUs = 50;
// A target stops after this many failed runs in a row.
constexpr int kMaxConsecutiveFailures = 5;

struct HandoffConfig {
  int64_t runs = 200;
  int64_t ttl_ms = 1000;
  bool reset = true;  // close the holder with SO_LINGER 0
  int64_t max_seconds = 120;
  std::string key = "coord:lock";
};

// The value of `field` in an INFO reply, or -1.
long long InfoField(const Frame& reply, const std::string& field) {
  std::string needle = field + ":";
  size_t at = reply.text.find(needle);
  if (at == std::string::npos || (at > 0 && reply.text[at - 1] != '\n')) return -1;
  return atoll(reply.text.c_str() + at + needle.size());
}

class HandoffTarget {
 public:
  // A mode may carry its own way of closing the holder (`bsettp@fin`), which overrides
  // `config.reset` for this target.
  HandoffTarget(Target target, const HandoffConfig& config)
      : target_(std::move(target)), config_(config) {
    size_t at = target_.mode.find('@');
    if (at != std::string::npos) {
      config_.reset = target_.mode.substr(at + 1) == "rst";
      target_.mode.resize(at);
    }
  }

  const std::string& name() const { return target_.name; }
  bool stopped() const { return consecutive_failures_ >= kMaxConsecutiveFailures; }

  // Opens the observer connection and, for redis-ttl, turns keyspace notifications on.
  bool Setup(std::string* error);
  // One hand-off; a failure is counted and explained on stderr.
  void RunOnce();
  void Report();

 private:
  // Each returns the measured latency in ns, or -1 with `error` set.
  int64_t SettpWatchex(std::string* error);
  int64_t Bsettp(std::string* error);
  int64_t RedisTtl(std::string* error);
  int64_t Ping(std::string* error);
  // Opens a connection and sends the lock-taking command, expecting `want`.
  std::unique_ptr<Connection> TakeLock(const std::vector<std::string>& command,
                                       const std::string& want, std::string* error);
  // Closes the holder the configured way.
  void Crash(Connection& holder) {
    if (config_.reset) {
      holder.Abort();
    } else {
      holder.Close();
    }
  }
  bool WaitUntilBlocked(std::string* error);

  Target target_;
  HandoffConfig config_;
  std::unique_ptr<Connection> observer_;
  LatencySamples samples_;
  int64_t failures_ = 0;
  int consecutive_failures_ = 0;
  int64_t runs_ = 0;
};

bool HandoffTarget::Setup(std::string* error) {
  observer_ = Connection::Open(target_.port, kConnectTimeoutMs, error);
  if (!observer_) return false;
  Frame reply;
  int64_t deadline = NowNs() + kReplyTimeoutNs;
  if (target_.mode == "redis-ttl") {
    if (!observer_->Call({"CONFIG", "SET", "notify-keyspace-events", "KEA"}, &reply, deadline)) {
      return (*error = observer_->error(), false);
    }
    if (!reply.IsString("OK")) return (*error = "CONFIG SET: " + reply.Describe(), false);
  }
  if (!observer_->Call({"DEL", config_.key}, &reply, deadline)) {
    return (*error = observer_->error(), false);
  }
  return true;
}

std::unique_ptr<Connection> HandoffTarget::TakeLock(const std::vector<std::string>& command,
                                                    const std::string& want, std::string* error) {
  std::unique_ptr<Connection> conn = Connection::Open(target_.port, kConnectTimeoutMs, error);
  if (!conn) return nullptr;
  Frame reply;
  if (!conn->Call(command, &reply, NowNs() + kReplyTimeoutNs)) {
    *error = "holder: " + conn->error();
    return nullptr;
  }
  bool ok = want == "1" ? reply.IsInteger(1) : reply.IsString(want);
  if (!ok) {
    *error = "holder could not take the lock: " + command[0] + " replied " + reply.Describe();
    return nullptr;
  }
  return conn;
}

int64_t HandoffTarget::SettpWatchex(std::string* error) {
  std::unique_ptr<Connection> holder = TakeLock({"SETTP", config_.key, "holder"}, "1", error);
  if (!holder) return -1;
  std::unique_ptr<Connection> waiter = Connection::Open(target_.port, kConnectTimeoutMs, error);
  if (!waiter) return -1;
  int64_t deadline = NowNs() + kReplyTimeoutNs;
  Frame hello, watch, attempt;
  if (!waiter->Send(EncodeCommand({"HELLO", "3"}) + EncodeCommand({"WATCHEX", config_.key}) +
                        EncodeCommand({"SETTP", config_.key, "waiter"}),
                    deadline) ||
      !waiter->NextReply(&hello, deadline) || !waiter->NextReply(&watch, deadline) ||
      !waiter->NextReply(&attempt, deadline)) {
    *error = "waiter: " + waiter->error();
    return -1;
  }
  if (!watch.IsString("EXIST") || !attempt.IsInteger(0)) {
    *error = "waiter setup: WATCHEX replied " + watch.Describe() + ", SETTP replied " +
             attempt.Describe();
    return -1;
  }
  int64_t t0 = NowNs();
  Crash(*holder);
  int64_t handoff_deadline = t0 + kHandoffTimeoutNs;
  Frame push, reply;
  for (;;) {
    if (!waiter->NextPush(&push, handoff_deadline)) {
      *error = "waiter got no DEL push: " + waiter->error();
      return -1;
    }
    if (PushEvent(push) != "DEL") continue;
    if (!waiter->Call({"SETTP", config_.key, "waiter"}, &reply, handoff_deadline)) {
      *error = "waiter retry: " + waiter->error();
      return -1;
    }
    if (reply.IsInteger(1)) break;
    if (!reply.IsInteger(0)) {
      *error = "waiter retry: SETTP replied " + reply.Describe();
      return -1;
    }
  }
  int64_t latency = NowNs() - t0;
  if (!waiter->Call({"DELTP", config_.key}, &reply, NowNs() + kReplyTimeoutNs) ||
      !reply.IsInteger(1)) {
    *error = "waiter release: DELTP replied " + reply.Describe() + " " + waiter->error();
    return -1;
  }
  return latency;
}

bool HandoffTarget::WaitUntilBlocked(std::string* error) {
  Frame reply;
  for (int i = 0; i < kBlockedPolls; ++i) {
    if (!observer_->Call({"INFO", "clients"}, &reply, NowNs() + kReplyTimeoutNs)) {
      return (*error = "observer: " + observer_->error(), false);
    }
    if (InfoField(reply, "blocked_clients") >= 1) return true;
    SleepUs(kBlockedPollPauseUs);
  }
  *error = "the BSETTP waiter never showed up in INFO clients blocked_clients";
  return false;
}

int64_t HandoffTarget::Bsettp(std::string* error) {
  std::unique_ptr<Connection> holder = TakeLock({"SETTP", config_.key, "holder"}, "1", error);
  if (!holder) return -1;
  std::unique_ptr<Connection> waiter = Connection::Open(target_.port, kConnectTimeoutMs, error);
  if (!waiter) return -1;
  if (!waiter->SendCommand({"BSETTP", config_.key, "waiter", "10"}, NowNs() + kReplyTimeoutNs)) {
    *error = "waiter: " + waiter->error();
    return -1;
  }
  if (!WaitUntilBlocked(error)) return -1;
  int64_t t0 = NowNs();
  Crash(*holder);
  Frame reply;
  if (!waiter->NextReply(&reply, t0 + kHandoffTimeoutNs)) {
    *error = "blocked BSETTP got no reply: " + waiter->error();
    return -1;
  }
  int64_t latency = NowNs() - t0;
  if (!reply.IsInteger(1)) {
    *error = "blocked BSETTP replied " + reply.Describe();
    return -1;
  }
  if (!waiter->Call({"DELTP", config_.key}, &reply, NowNs() + kReplyTimeoutNs) ||
      !reply.IsInteger(1)) {
    *error = "waiter release: DELTP replied " + reply.Describe() + " " + waiter->error();
    return -1;
  }
  return latency;
}

int64_t HandoffTarget::RedisTtl(std::string* error) {
  std::string ttl = std::to_string(config_.ttl_ms);
  std::unique_ptr<Connection> holder =
      TakeLock({"SET", config_.key, "holder", "NX", "PX", ttl}, "OK", error);
  if (!holder) return -1;
  std::unique_ptr<Connection> listener = Connection::Open(target_.port, kConnectTimeoutMs, error);
  if (!listener) return -1;
  std::unique_ptr<Connection> waiter = Connection::Open(target_.port, kConnectTimeoutMs, error);
  if (!waiter) return -1;
  int64_t deadline = NowNs() + kReplyTimeoutNs;
  Frame reply;
  if (!listener->Call({"SUBSCRIBE", "__keyspace@0__:" + config_.key}, &reply, deadline) ||
      reply.items.size() != 3 || !reply.items[0].IsString("subscribe")) {
    *error = "listener: SUBSCRIBE: " + reply.Describe() + " " + listener->error();
    return -1;
  }
  std::vector<std::string> take = {"SET", config_.key, "waiter", "NX", "PX", ttl};
  if (!waiter->Call(take, &reply, deadline) || !reply.null) {
    *error = "waiter's first SET NX should fail: " + reply.Describe() + " " + waiter->error();
    return -1;
  }
  int64_t t0 = NowNs();
  Crash(*holder);
  int64_t handoff_deadline = t0 + config_.ttl_ms * kNsPerMs + kTtlGraceNs;
  Frame push;
  for (;;) {
    if (!listener->NextPush(&push, handoff_deadline)) {
      *error = "no keyspace event freed the lock: " + listener->error();
      return -1;
    }
    std::string_view event = PushEvent(push);
    if (event != "expired" && event != "del" && event != "evicted") continue;
    if (!waiter->Call(take, &reply, handoff_deadline)) {
      *error = "waiter retry: " + waiter->error();
      return -1;
    }
    if (reply.IsString("OK")) break;
  }
  int64_t latency = NowNs() - t0;
  if (!waiter->Call({"DEL", config_.key}, &reply, NowNs() + kReplyTimeoutNs)) {
    *error = "waiter release: " + waiter->error();
    return -1;
  }
  return latency;
}

int64_t HandoffTarget::Ping(std::string* error) {
  Frame reply;
  int64_t t0 = NowNs();
  if (!observer_->Call({"PING"}, &reply, t0 + kReplyTimeoutNs)) {
    *error = "PING: " + observer_->error();
    return -1;
  }
  int64_t latency = NowNs() - t0;
  if (!reply.IsString("PONG")) {
    *error = "PING replied " + reply.Describe();
    return -1;
  }
  return latency;
}

void HandoffTarget::RunOnce() {
  ++runs_;
  std::string error;
  Frame reply;
  int64_t latency = -1;
  if (target_.mode == "ping") {
    latency = Ping(&error);
  } else if (!observer_->Call({"EXISTS", config_.key}, &reply, NowNs() + kReplyTimeoutNs)) {
    error = "observer: " + observer_->error();
  } else if (!reply.IsInteger(0)) {
    error = "the lock key exists before the run (EXISTS replied " + reply.Describe() + ")";
  } else if (target_.mode == "settp-watchex") {
    latency = SettpWatchex(&error);
  } else if (target_.mode == "bsettp") {
    latency = Bsettp(&error);
  } else {
    latency = RedisTtl(&error);
  }
  if (latency >= 0) {
    samples_.Add(latency);
    consecutive_failures_ = 0;
    return;
  }
  ++failures_;
  ++consecutive_failures_;
  fprintf(stderr, "coord-bench handoff: %s run %lld failed: %s\n", target_.name.c_str(),
          static_cast<long long>(runs_), error.c_str());
  // Best effort so the next run starts from an absent key; a failure here shows up next run.
  observer_->Call({"DEL", config_.key}, &reply, NowNs() + kReplyTimeoutNs);
}

void HandoffTarget::Report() {
  auto fields = LatencyFields(samples_);
  fields.insert(fields.begin(), {{"mode", target_.mode},
                                 {"close", target_.mode == "ping" ? "-"
                                           : config_.reset        ? "rst"
                                                                  : "fin"},
                                 {"runs", std::to_string(runs_)}});
  fields.push_back({"failures", std::to_string(failures_)});
  if (target_.mode == "redis-ttl") fields.push_back({"ttl_ms", std::to_string(config_.ttl_ms)});
  PrintResult(target_.name, "handoff", fields);
}

}  // namespace

int RunHandoff(Options& options) {
  HandoffConfig config;
  std::vector<Target> targets = options.Targets(
      {"settp-watchex", "settp-watchex@rst", "settp-watchex@fin", "bsettp", "bsettp@rst",
       "bsettp@fin", "redis-ttl", "redis-ttl@rst", "redis-ttl@fin", "ping"});
  config.runs = options.Int("runs", config.runs, 1, 100000);
  config.ttl_ms = options.Int("ttl-ms", config.ttl_ms, 1, 60000);
  config.reset = options.String("close", "rst", {"rst", "fin"}) == "rst";
  config.max_seconds = options.Int("max-seconds", config.max_seconds, 1, 3600);
  config.key = options.String("key", config.key);
  options.CheckAllUsed();
  if (!options.ok()) {
    fprintf(stderr, "coord-bench handoff: %s\n", options.error().c_str());
    return 2;
  }
  std::vector<std::unique_ptr<HandoffTarget>> runs;
  std::string error;
  for (const Target& target : targets) {
    runs.push_back(std::make_unique<HandoffTarget>(target, config));
    if (!runs.back()->Setup(&error)) {
      fprintf(stderr, "coord-bench handoff: setup of %s failed: %s\n", target.name.c_str(),
              error.c_str());
      return 1;
    }
  }
  int64_t end_of_run = NowNs() + config.max_seconds * kNsPerSec;
  bool out_of_time = false;
  for (int64_t r = 0; r < config.runs && !out_of_time; ++r) {
    for (auto& run : runs) {
      if (NowNs() >= end_of_run) {
        out_of_time = true;
        break;
      }
      if (!run->stopped()) run->RunOnce();
    }
  }
  if (out_of_time) {
    fprintf(stderr, "coord-bench handoff: --max-seconds %lld reached; reporting what ran\n",
            static_cast<long long>(config.max_seconds));
  }
  for (auto& run : runs) run->Report();
  return 0;
}

}  // namespace coordbench
