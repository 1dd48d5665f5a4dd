// Fan-out latency benchmark; see fanout.h for the method.
#include "fanout.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
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
constexpr int64_t kSetupTimeoutNs = 60 * kNsPerSec;
constexpr int kMaxEvents = 1024;
constexpr int64_t kMinDrainNs = 2 * kNsPerSec;

struct FanoutConfig {
  int64_t watchers = 100;
  int64_t changes = 200;
  int64_t pause_us = 1000;
  int64_t change_timeout_ms = 2000;
  int64_t max_seconds = 120;
  std::string key = "coord:fanout";
};

// One target under test: its writer, its watchers and what they have received.
class FanoutRun {
 public:
  FanoutRun(Target target, const FanoutConfig& config)
      : target_(std::move(target)),
        config_(config),
        received_(config.watchers, 0),
        t_send_(config.changes, 0),
        got_(config.changes, 0) {
    // Targets may share a server: each flips its own key.
    config_.key += ":" + target_.name;
  }

  const std::string& name() const { return target_.name; }

  // Opens the writer and the watchers, registers the watches (the key starts absent) and adds
  // every connection to `epoll_fd`, tagged with `tag`. False with `error` on any failure.
  bool Setup(int epoll_fd, uint32_t tag, std::string* error);
  // Sends change `k` (SET when k is even, DEL when odd), stamping the time just before.
  bool StartChange(int64_t k, std::string* error);
  // Whether every watcher has received change `k` and the writer has its reply.
  bool ChangeComplete(int64_t k) const {
    return got_[k] == config_.watchers && writer_replies_ == current_ + 1;
  }
  // Whether every change sent so far has reached every watcher and the writer has every reply.
  bool AllComplete() const {
    for (int64_t k = 0; k <= current_; ++k) {
      if (got_[k] != config_.watchers) return false;
    }
    return writer_replies_ == current_ + 1;
  }
  void NoteTimeout() { ++timeouts_; }
  // Reads from connection `index` (watchers first, the writer last) and accounts for every
  // frame. False with `error` when the connection failed.
  bool OnReadable(size_t index, std::string* error);
  // Prints the result line.
  void Report();

 private:
  bool keyspace() const { return target_.mode == "keyspace"; }
  bool publish() const { return target_.mode == "publish"; }
  // Whether the watchers are Pub/Sub subscribers (every mode but WATCHEX's own pushes).
  bool subscribes() const { return target_.mode != "watchex3" && target_.mode != "watchex2"; }
  bool watchex_channel() const { return target_.mode == "watchex-channel"; }
  // The channel the watchers subscribe to in the Pub/Sub modes.
  std::string Channel() const {
    if (keyspace()) return "__keyspace@0__:" + config_.key;
    if (watchex_channel()) return "__watchex@0__:" + config_.key;
    return config_.key;
  }
  // The notification kind change `k` must produce (in publish mode: the payload it sends).
  std::string_view ExpectedEvent(int64_t k) const {
    if (keyspace()) return k % 2 == 0 ? "set" : "del";
    return k % 2 == 0 ? "ADD" : "DEL";
  }
  bool CheckSetupReplies(Connection& conn, bool is_writer, std::string* error);

  Target target_;
  FanoutConfig config_;
  std::unique_ptr<Connection> writer_;
  std::vector<std::unique_ptr<Connection>> watchers_;
  std::vector<int64_t> received_;  // notifications seen, per watcher
  std::vector<int64_t> t_send_;    // per change
  std::vector<int64_t> got_;       // watchers that received it, per change
  int64_t current_ = -1;           // the change in flight (or last sent)
  int64_t writer_replies_ = 0;     // replies the writer has received (change k's is the k-th)
  LatencySamples samples_;
  LatencySamples last_samples_;  // per change: until its last watcher's read
  LatencySamples write_samples_;
  int64_t disorder_ = 0;
  int64_t unexpected_ = 0;
  int64_t writer_errors_ = 0;
  int64_t timeouts_ = 0;
};

bool FanoutRun::CheckSetupReplies(Connection& conn, bool is_writer, std::string* error) {
  int64_t deadline = NowNs() + kSetupTimeoutNs;
  Frame reply;
  auto fail = [&](const std::string& what) {
    *error = target_.name + ": " + what;
    return false;
  };
  if (is_writer) {
    if (keyspace()) {
      if (!conn.NextReply(&reply, deadline)) return fail(conn.error());
      if (!reply.IsString("OK")) return fail("CONFIG SET replied " + reply.Describe());
    }
    if (!conn.NextReply(&reply, deadline)) return fail(conn.error());
    if (reply.type != ':') return fail("DEL replied " + reply.Describe());
    return true;
  }
  if (target_.mode == "watchex3") {
    if (!conn.NextReply(&reply, deadline)) return fail(conn.error());
    if (reply.type != '%') return fail("HELLO 3 replied " + reply.Describe());
  }
  if (!conn.NextReply(&reply, deadline)) return fail(conn.error());
  if (subscribes()) {
    if (reply.type != '*' || reply.items.size() != 3 || !reply.items[0].IsString("subscribe")) {
      return fail("SUBSCRIBE replied " + reply.Describe());
    }
  } else if (!reply.IsString("NOEXIST")) {
    return fail("WATCHEX replied " + reply.Describe() + " (the key should not exist)");
  }
  if (!conn.pushes().empty()) return fail("a notification arrived before any change");
  return true;
}

bool FanoutRun::Setup(int epoll_fd, uint32_t tag, std::string* error) {
  int64_t deadline = NowNs() + kSetupTimeoutNs;
  writer_ = Connection::Open(target_.port, kConnectTimeoutMs, error);
  if (!writer_) return false;
  std::string writer_setup;
  if (keyspace()) {
    writer_setup += EncodeCommand({"CONFIG", "SET", "notify-keyspace-events", "KEA"});
  }
  writer_setup += EncodeCommand({"DEL", config_.key});
  if (!writer_->Send(writer_setup, deadline)) return (*error = writer_->error(), false);
  if (!CheckSetupReplies(*writer_, true, error)) return false;

  watchers_ = OpenMany(target_.port, config_.watchers, kConnectTimeoutMs, error);
  if (watchers_.empty()) return false;
  std::string setup;
  if (target_.mode == "watchex3") setup += EncodeCommand({"HELLO", "3"});
  if (subscribes()) {
    setup += EncodeCommand({"SUBSCRIBE", Channel()});
  } else {
    setup += EncodeCommand({"WATCHEX", config_.key});
  }
  // All watchers register at once, then the replies are checked one connection at a time.
  for (auto& conn : watchers_) {
    if (!conn->Send(setup, deadline)) return (*error = conn->error(), false);
  }
  for (auto& conn : watchers_) {
    if (!CheckSetupReplies(*conn, false, error)) return false;
  }
  for (size_t i = 0; i <= watchers_.size(); ++i) {
    Connection& conn = i < watchers_.size() ? *watchers_[i] : *writer_;
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = (static_cast<uint64_t>(tag) << 32) | i;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, conn.fd(), &event) != 0) {
      *error = "epoll_ctl failed";
      return false;
    }
  }
  return true;
}

bool FanoutRun::StartChange(int64_t k, std::string* error) {
  std::string command;
  if (publish()) {
    command = EncodeCommand({"PUBLISH", Channel(), std::string(ExpectedEvent(k))});
  } else if (k % 2 == 0) {
    command = EncodeCommand({"SET", config_.key, "v"});
  } else {
    command = EncodeCommand({"DEL", config_.key});
  }
  current_ = k;
  t_send_[k] = NowNs();
  if (!writer_->Send(command, t_send_[k] + kSetupTimeoutNs)) {
    *error = target_.name + ": writer: " + writer_->error();
    return false;
  }
  return true;
}

bool FanoutRun::OnReadable(size_t index, std::string* error) {
  bool is_writer = index == watchers_.size();
  Connection& conn = is_writer ? *writer_ : *watchers_[index];
  long n = conn.ReadSome();
  int64_t now = NowNs();
  if (n < 0) {
    *error = target_.name + (is_writer ? ": writer: " : ": a watcher: ") + conn.error();
    return false;
  }
  Frame frame;
  int got;
  while ((got = conn.PopFrame(&frame)) > 0) {
    if (is_writer) {
      int64_t change = writer_replies_++;
      if (change > current_) {
        ++writer_errors_;
        continue;
      }
      bool ok = publish()         ? frame.IsInteger(config_.watchers)
                : change % 2 == 0 ? frame.IsString("OK")
                                  : frame.IsInteger(1);
      if (!ok) ++writer_errors_;
      write_samples_.Add(now - t_send_[change]);
      continue;
    }
    if (!IsPush(frame)) {
      ++unexpected_;
      continue;
    }
    int64_t nth = received_[index]++;
    if (nth > current_) {  // more notifications than changes made so far
      ++unexpected_;
      continue;
    }
    if (PushEvent(frame) != ExpectedEvent(nth)) ++disorder_;
    samples_.Add(now - t_send_[nth]);
    // The change has reached its last watcher: the whole fan-out's latency.
    if (++got_[nth] == config_.watchers) last_samples_.Add(now - t_send_[nth]);
  }
  if (got < 0) {
    *error = target_.name + ": " + conn.error();
    return false;
  }
  return true;
}

void FanoutRun::Report() {
  int64_t changes_made = current_ + 1;
  int64_t expected = changes_made * config_.watchers;
  int64_t delivered = 0;
  for (int64_t k = 0; k < changes_made; ++k) delivered += got_[k];
  auto fields = LatencyFields(samples_);
  fields.insert(fields.begin(), {{"mode", target_.mode},
                                 {"watchers", std::to_string(config_.watchers)},
                                 {"changes", std::to_string(changes_made)}});
  fields.push_back({"lost", std::to_string(expected - delivered)});
  fields.push_back({"disorder", std::to_string(disorder_)});
  fields.push_back({"unexpected", std::to_string(unexpected_)});
  fields.push_back({"timeouts", std::to_string(timeouts_)});
  fields.push_back({"writer_errors", std::to_string(writer_errors_)});
  char text[32];
  snprintf(text, sizeof(text), "%.1f", write_samples_.PercentileUs(50));
  fields.push_back({"write_p50_us", text});
  snprintf(text, sizeof(text), "%.1f", last_samples_.PercentileUs(50));
  fields.push_back({"last_p50_us", text});
  snprintf(text, sizeof(text), "%.1f", last_samples_.PercentileUs(99));
  fields.push_back({"last_p99_us", text});
  PrintResult(target_.name, "fanout", fields);
}

// Waits on `epoll_fd` until `done()` holds or `deadline_ns` passes, handing every readable
// connection to its run. False (with the reason on stderr) when a connection failed.
template <typename Done>
bool Pump(int epoll_fd, std::vector<std::unique_ptr<FanoutRun>>& runs,
          std::vector<epoll_event>& events, int64_t deadline_ns, Done done) {
  std::string error;
  while (!done() && NowNs() < deadline_ns) {
    int ready =
        epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), MsUntil(deadline_ns));
    for (int i = 0; i < ready; ++i) {
      uint32_t tag = static_cast<uint32_t>(events[i].data.u64 >> 32);
      size_t index = static_cast<uint32_t>(events[i].data.u64);
      if (!runs[tag]->OnReadable(index, &error)) {
        fprintf(stderr, "coord-bench fanout: %s\n", error.c_str());
        return false;
      }
    }
  }
  return true;
}

}  // namespace

int RunFanout(Options& options) {
  FanoutConfig config;
  std::vector<Target> targets =
      options.Targets({"watchex3", "watchex2", "keyspace", "watchex-channel", "publish"});
  config.watchers = options.Int("watchers", config.watchers, 1, 100000);
  config.changes = options.Int("changes", config.changes, 1, 1000000);
  config.pause_us = options.Int("pause-us", config.pause_us, 0, 1000000);
  config.change_timeout_ms = options.Int("change-timeout-ms", config.change_timeout_ms, 1, 60000);
  config.max_seconds = options.Int("max-seconds", config.max_seconds, 1, 3600);
  config.key = options.String("key", config.key);
  options.CheckAllUsed();
  if (!options.ok()) {
    fprintf(stderr, "coord-bench fanout: %s\n", options.error().c_str());
    return 2;
  }
  EpollFd epoll_fd;
  if (epoll_fd.get() < 0) {
    perror("epoll_create1");
    return 1;
  }
  std::vector<std::unique_ptr<FanoutRun>> runs;
  std::string error;
  for (const Target& target : targets) {
    runs.push_back(std::make_unique<FanoutRun>(target, config));
    if (!runs.back()->Setup(epoll_fd.get(), static_cast<uint32_t>(runs.size() - 1), &error)) {
      fprintf(stderr, "coord-bench fanout: setup of %s failed: %s\n", target.name.c_str(),
              error.c_str());
      return 1;
    }
  }
  // Phase marks for a caller that samples the servers' CPU time around the changes alone
  // (utils/bench-fanout.py): setup (connections, registrations) is not counted.
  printf("phase changes\n");
  fflush(stdout);
  int64_t end_of_run = NowNs() + config.max_seconds * kNsPerSec;
  std::vector<epoll_event> events(kMaxEvents);
  bool out_of_time = false;
  for (int64_t k = 0; k < config.changes && !out_of_time; ++k) {
    for (auto& run : runs) {
      if (NowNs() >= end_of_run) {
        out_of_time = true;
        break;
      }
      if (!run->StartChange(k, &error)) {
        fprintf(stderr, "coord-bench fanout: %s\n", error.c_str());
        return 1;
      }
      int64_t deadline = std::min(NowNs() + config.change_timeout_ms * kNsPerMs, end_of_run);
      FanoutRun* current = run.get();
      if (!Pump(epoll_fd.get(), runs, events, deadline,
                [current, k] { return current->ChangeComplete(k); })) {
        return 1;
      }
      if (!run->ChangeComplete(k)) run->NoteTimeout();
      SleepUs(config.pause_us);
    }
  }
  if (out_of_time) {
    fprintf(stderr, "coord-bench fanout: --max-seconds %lld reached; reporting what ran\n",
            static_cast<long long>(config.max_seconds));
  }
  // Late notifications of changes that timed out still count if they come within the drain
  // time (one change timeout, at least 2 s); what is missing after that is lost.
  auto all_complete = [&runs] {
    for (auto& run : runs) {
      if (!run->AllComplete()) return false;
    }
    return true;
  };
  int64_t drain_ns = std::max<int64_t>(config.change_timeout_ms * kNsPerMs, kMinDrainNs);
  if (!Pump(epoll_fd.get(), runs, events, NowNs() + drain_ns, all_complete)) {
    return 1;
  }
  printf("phase done\n");
  fflush(stdout);
  for (auto& run : runs) run->Report();
  return 0;
}

}  // namespace coordbench
