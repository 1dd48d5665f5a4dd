// PUBLISH throughput benchmark; see publish.h for the method.
#include "publish.h"

#include <sys/epoll.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clock.h"
#include "connection.h"
#include "epoll_fd.h"
#include "options.h"
#include "resp.h"
#include "stats.h"

namespace coordbench {
namespace {

constexpr int kConnectTimeoutMs = 5000;
constexpr int64_t kSetupTimeoutNs = 60 * kNsPerSec;
constexpr int64_t kMinDrainNs = 2 * kNsPerSec;
constexpr int kMaxEvents = 1024;
constexpr size_t kSeqDigits = 10;

struct PublishConfig {
  int64_t subscribers = 1;
  int64_t messages = 10000;
  int64_t pipeline = 1;
  int64_t payload_bytes = 16;
  int64_t window = 1000;
  int64_t max_seconds = 120;
  std::string channel = "bench:publish";
};

// Reads the RESP line starting at `pos` whose first byte is `type`, as a non-negative integer
// (an array or bulk length). Returns the position after its CRLF, 0 when the line is not
// complete, -1 when it is not such a line.
long ReadLength(std::string_view data, size_t pos, char type, size_t* value) {
  if (pos >= data.size()) return 0;
  if (data[pos] != type) return -1;
  size_t n = 0;
  for (size_t i = pos + 1; i < data.size(); ++i) {
    char c = data[i];
    if (c == '\r') {
      if (i + 1 >= data.size()) return 0;
      if (data[i + 1] != '\n' || i == pos + 1) return -1;
      *value = n;
      return static_cast<long>(i + 2);
    }
    if (c < '0' || c > '9' || i - pos > 12) return -1;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  return 0;
}

// Scans one `message <channel> <payload>` frame (a RESP2 array or a RESP3 push of three bulk
// strings) at the start of `data` without copying it. Returns its length in bytes, 0 when it
// is not complete yet, -1 when the bytes are something else.
long ScanMessage(std::string_view data, std::string_view parts[3]) {
  if (data.empty()) return 0;
  size_t count = 0;
  long at = ReadLength(data, 0, data[0] == '>' ? '>' : '*', &count);
  if (at <= 0) return at;
  if (count != 3) return -1;
  size_t pos = static_cast<size_t>(at);
  for (int i = 0; i < 3; ++i) {
    size_t len = 0;
    at = ReadLength(data, pos, '$', &len);
    if (at <= 0) return at;
    pos = static_cast<size_t>(at);
    if (data.size() < pos + len + 2) return 0;
    if (data[pos + len] != '\r' || data[pos + len + 1] != '\n') return -1;
    parts[i] = data.substr(pos, len);
    pos += len + 2;
  }
  return static_cast<long>(pos);
}

// The sequence number a payload starts with, or -1 when it does not start with kSeqDigits
// digits.
int64_t PayloadSeq(std::string_view payload) {
  if (payload.size() < kSeqDigits) return -1;
  int64_t seq = 0;
  for (size_t i = 0; i < kSeqDigits; ++i) {
    if (payload[i] < '0' || payload[i] > '9') return -1;
    seq = seq * 10 + (payload[i] - '0');
  }
  return seq;
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

std::string Fixed(double value, int decimals) {
  char text[48];
  snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

// One target: its publisher, its subscribers and what they have received.
class PublishRun {
 public:
  PublishRun(Target target, const PublishConfig& config)
      : target_(std::move(target)),
        config_(config),
        channel_(config.channel + ":" + target_.name),
        received_(config.subscribers, 0) {}

  // Opens and subscribes every connection, then publishes and drains. Prints the result line.
  // False (reason on stderr) when setup failed or the publisher's connection broke.
  bool Run();

 private:
  bool Setup(int epoll_fd, std::string* error);
  // Appends one batch of PUBLISH commands (messages [first, first + count)) to `out`.
  void AppendBatch(int64_t first, int64_t count, std::string* out) const;
  // Whether the slowest open subscriber is close enough for a batch ending at `end`.
  bool WindowAllows(int64_t end);
  bool OnPublisher(std::string* error);
  void OnSubscriber(size_t index, int epoll_fd);
  void Report(double tool_cpu);

  Target target_;
  PublishConfig config_;
  std::string channel_;
  std::unique_ptr<Connection> publisher_;
  std::vector<std::unique_ptr<Connection>> subscribers_;
  std::vector<int64_t> received_;  // messages received, per subscriber
  int64_t sent_ = 0;
  int64_t replied_ = 0;
  int64_t slowest_ = 0;           // a lower bound of the fewest messages an open subscriber has
  int64_t subscribers_done_ = 0;  // subscribers that have every message (or were closed)
  int64_t closed_ = 0;
  int64_t disorder_ = 0;
  int64_t reply_mismatch_ = 0;
  int64_t t_start_ = 0;
  int64_t t_published_ = 0;
  int64_t t_delivered_ = 0;
};

bool PublishRun::Setup(int epoll_fd, std::string* error) {
  int64_t deadline = NowNs() + kSetupTimeoutNs;
  publisher_ = Connection::Open(target_.port, kConnectTimeoutMs, error);
  if (!publisher_) return false;
  subscribers_ = OpenMany(target_.port, config_.subscribers, kConnectTimeoutMs, error);
  if (subscribers_.empty()) return false;
  std::string subscribe = EncodeCommand({"SUBSCRIBE", channel_});
  for (auto& conn : subscribers_) {
    if (!conn->Send(subscribe, deadline)) return (*error = conn->error(), false);
  }
  Frame reply;
  for (auto& conn : subscribers_) {
    if (!conn->NextReply(&reply, deadline)) return (*error = conn->error(), false);
    if (reply.type != '*' || reply.items.size() != 3 || !reply.items[0].IsString("subscribe") ||
        !reply.items[2].IsInteger(1)) {
      return (*error = "SUBSCRIBE replied " + reply.Describe(), false);
    }
  }
  // The channel must now count exactly our subscribers (no stranger shares it).
  if (!publisher_->Call({"PUBSUB", "NUMSUB", channel_}, &reply, deadline)) {
    return (*error = publisher_->error(), false);
  }
  if (reply.items.size() != 2 || !reply.items[1].IsInteger(config_.subscribers)) {
    return (*error = "PUBSUB NUMSUB replied " + reply.Describe(), false);
  }
  for (size_t i = 0; i <= subscribers_.size(); ++i) {
    Connection& conn = i < subscribers_.size() ? *subscribers_[i] : *publisher_;
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = i;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, conn.fd(), &event) != 0) {
      return (*error = "epoll_ctl failed", false);
    }
  }
  return true;
}

void PublishRun::AppendBatch(int64_t first, int64_t count, std::string* out) const {
  std::string payload(static_cast<size_t>(config_.payload_bytes), 'x');
  std::string head = "*3\r\n$7\r\nPUBLISH\r\n$" + std::to_string(channel_.size()) + "\r\n" +
                     channel_ + "\r\n$" + std::to_string(payload.size()) + "\r\n";
  char digits[kSeqDigits + 1];
  for (int64_t seq = first; seq < first + count; ++seq) {
    snprintf(digits, sizeof(digits), "%010lld", static_cast<long long>(seq));
    payload.replace(0, kSeqDigits, digits, kSeqDigits);
    *out += head;
    *out += payload;
    *out += "\r\n";
  }
}

bool PublishRun::WindowAllows(int64_t end) {
  int64_t need = end - config_.window;
  if (slowest_ >= need) return true;
  int64_t slowest = config_.messages;
  for (size_t i = 0; i < subscribers_.size(); ++i) {
    if (subscribers_[i]) slowest = std::min(slowest, received_[i]);
  }
  slowest_ = slowest;
  return slowest_ >= need;
}

bool PublishRun::OnPublisher(std::string* error) {
  if (publisher_->ReadSome() < 0) return (*error = "publisher: " + publisher_->error(), false);
  Frame reply;
  int got;
  while ((got = publisher_->PopFrame(&reply)) > 0) {
    if (replied_ >= sent_) return (*error = "publisher: a reply to nothing", false);
    if (!reply.IsInteger(config_.subscribers)) ++reply_mismatch_;
    if (++replied_ == config_.messages) t_published_ = NowNs();
  }
  if (got < 0) return (*error = "publisher: " + publisher_->error(), false);
  return true;
}

void PublishRun::OnSubscriber(size_t index, int epoll_fd) {
  Connection& conn = *subscribers_[index];
  long n = conn.ReadSome();
  if (n >= 0) {
    std::string_view parts[3];
    long used;
    int64_t& count = received_[index];
    while ((used = ScanMessage(conn.Buffered(), parts)) > 0) {
      conn.Consume(static_cast<size_t>(used));
      if (parts[0] != "message" || parts[1] != channel_ || PayloadSeq(parts[2]) != count) {
        ++disorder_;
      }
      if (++count == config_.messages && ++subscribers_done_ == config_.subscribers) {
        t_delivered_ = NowNs();
      }
    }
    if (used == 0) return;
    fprintf(stderr, "coord-bench publish: %s: a subscriber read a frame that is no message\n",
            target_.name.c_str());
  }
  // The server closed this subscriber (or it sent garbage): what it misses is counted as lost.
  epoll_ctl(epoll_fd, EPOLL_CTL_DEL, conn.fd(), nullptr);
  ++closed_;
  if (received_[index] < config_.messages && ++subscribers_done_ == config_.subscribers) {
    t_delivered_ = NowNs();
  }
  subscribers_[index].reset();
}

bool PublishRun::Run() {
  EpollFd epoll_fd;
  std::string error;
  if (epoll_fd.get() < 0) error = "epoll_create1 failed";
  if (!error.empty() || !Setup(epoll_fd.get(), &error)) {
    fprintf(stderr, "coord-bench publish: setup of %s failed: %s\n", target_.name.c_str(),
            error.c_str());
    return false;
  }
  std::vector<epoll_event> events(kMaxEvents);
  std::string batch;
  double cpu0 = CpuSeconds();
  t_start_ = NowNs();
  int64_t end_of_publishing = t_start_ + config_.max_seconds * kNsPerSec;
  int64_t end_of_drain = 0;
  for (;;) {
    int64_t now = NowNs();
    bool all_published = replied_ == config_.messages;
    if (all_published && subscribers_done_ == config_.subscribers) break;
    if (!all_published && now >= end_of_publishing) {
      fprintf(stderr, "coord-bench publish: %s: --max-seconds reached after %lld messages\n",
              target_.name.c_str(), static_cast<long long>(replied_));
      break;
    }
    if (all_published && end_of_drain == 0) {
      end_of_drain = now + std::max<int64_t>(kMinDrainNs, (now - t_start_) / 2);
    }
    if (end_of_drain != 0 && now >= end_of_drain) break;
    if (replied_ == sent_ && sent_ < config_.messages) {
      int64_t count = std::min(config_.pipeline, config_.messages - sent_);
      if (WindowAllows(sent_ + count)) {
        batch.clear();
        AppendBatch(sent_, count, &batch);
        if (!publisher_->Send(batch, now + kSetupTimeoutNs)) {
          fprintf(stderr, "coord-bench publish: %s: publisher: %s\n", target_.name.c_str(),
                  publisher_->error().c_str());
          return false;
        }
        sent_ += count;
      }
    }
    int ready = epoll_wait(epoll_fd.get(), events.data(), kMaxEvents, 100);
    for (int i = 0; i < ready; ++i) {
      size_t index = events[i].data.u64;
      if (index == subscribers_.size()) {
        if (!OnPublisher(&error)) {
          fprintf(stderr, "coord-bench publish: %s: %s\n", target_.name.c_str(), error.c_str());
          return false;
        }
      } else if (subscribers_[index]) {
        OnSubscriber(index, epoll_fd.get());
      }
    }
  }
  Report(CpuSeconds() - cpu0);
  return true;
}

void PublishRun::Report(double tool_cpu) {
  int64_t delivered = 0;
  for (int64_t count : received_) delivered += count;
  // Only messages the server acknowledged can be missed; beyond that the run was cut short.
  int64_t expected = replied_ * config_.subscribers;
  double publish_s = t_published_ > 0 ? static_cast<double>(t_published_ - t_start_) / 1e9 : 0;
  double deliver_s = t_delivered_ > 0 ? static_cast<double>(t_delivered_ - t_start_) / 1e9 : 0;
  PrintResult(
      target_.name, "publish",
      {{"subscribers", std::to_string(config_.subscribers)},
       {"pipeline", std::to_string(config_.pipeline)},
       {"messages", std::to_string(replied_)},
       {"payload_bytes", std::to_string(config_.payload_bytes)},
       {"published_per_s", publish_s > 0 ? Fixed(config_.messages / publish_s, 0) : ""},
       {"delivered_per_s",
        deliver_s > 0 && closed_ == 0 ? Fixed(static_cast<double>(delivered) / deliver_s, 0) : ""},
       {"publish_s", Fixed(publish_s, 3)},
       {"deliver_s", Fixed(deliver_s, 3)},
       {"lost", std::to_string(std::max<int64_t>(0, expected - delivered))},
       {"disorder", std::to_string(disorder_)},
       {"reply_mismatch", std::to_string(reply_mismatch_)},
       {"closed", std::to_string(closed_)},
       {"tool_cpu_s", Fixed(tool_cpu, 3)}});
}

}  // namespace

int RunPublish(Options& options) {
  PublishConfig config;
  std::vector<Target> targets = options.Targets({"resp2"});
  config.subscribers = options.Int("subscribers", config.subscribers, 1, 100000);
  config.messages = options.Int("messages", config.messages, 1, 100000000);
  config.pipeline = options.Int("pipeline", config.pipeline, 1, 10000);
  config.payload_bytes =
      options.Int("payload-bytes", config.payload_bytes, static_cast<int64_t>(kSeqDigits), 65536);
  config.window = options.Int("window", config.window, 1, 100000000);
  config.max_seconds = options.Int("max-seconds", config.max_seconds, 1, 3600);
  config.channel = options.String("channel", config.channel);
  options.CheckAllUsed();
  if (!options.ok()) {
    fprintf(stderr, "coord-bench publish: %s\n", options.error().c_str());
    return 2;
  }
  // A batch must fit in the window, or the publisher would wait for itself.
  config.window = std::max(config.window, config.pipeline);
  for (const Target& target : targets) {
    PublishRun run(target, config);
    if (!run.Run()) return 1;
  }
  return 0;
}

}  // namespace coordbench
