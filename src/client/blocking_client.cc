// BlockingClient / BlockingLock: run a private event loop per call (see blocking_client.h).
// Answers are collected through shared slots, so a reply arriving after its call gave up (a
// timeout) lands in a slot nobody reads instead of on a dead stack frame.
#include "client/blocking_client.h"

#include <event2/event.h>

#include <optional>
#include <utility>

#include "client/errors.h"

namespace redistp::client {
namespace {

void SetFlag(evutil_socket_t, short, void* arg) { *static_cast<bool*>(arg) = true; }

}  // namespace

BlockingClient::BlockingClient(ClientOptions options)
    : base_(event_base_new()), client_(std::make_unique<Client>(base_, std::move(options))) {
  listener_ = client_->AddConnectionListener([this](ConnectionEvent ev, const std::string& d) {
    if (ev == ConnectionEvent::kConnectFailed) {
      connect_failed_ = true;
      error_ = d;
    } else if (ev == ConnectionEvent::kDisconnected) {
      error_ = d;
    }
  });
}

BlockingClient::~BlockingClient() {
  client_.reset();
  event_base_free(base_);
}

bool BlockingClient::Connect() {
  if (client_->ready()) return true;
  connect_failed_ = false;
  error_.clear();
  client_->Start();
  const auto limit = client_->options().connect_timeout + std::chrono::milliseconds(100);
  RunUntil([this] { return client_->ready() || connect_failed_; }, limit);
  if (client_->ready()) return true;
  if (error_.empty()) error_ = "no connection within the connect timeout";
  return false;
}

Reply BlockingClient::Command(std::vector<std::string> argv, std::chrono::milliseconds timeout) {
  auto slot = std::make_shared<std::optional<Reply>>();
  client_->Command(std::move(argv), [slot](const Reply& r) { *slot = r; });
  if (!RunUntil([&slot] { return slot->has_value(); }, timeout)) {
    return Reply::LocalError(kErrTimeout);
  }
  return std::move(**slot);
}

Client::WatchId BlockingClient::Watch(const std::string& key, Client::WatchCallback cb) {
  auto first = std::make_shared<bool>(false);
  const Client::WatchId id = client_->Watch(key, [first, cb = std::move(cb)](const WatchEvent& e) {
    *first = true;
    if (cb) cb(e);
  });
  RunUntil([&first] { return *first; }, std::chrono::seconds(5));
  return id;
}

void BlockingClient::Unwatch(Client::WatchId id) { client_->Unwatch(id); }

void BlockingClient::Poll(std::chrono::milliseconds timeout) {
  RunUntil([] { return false; }, timeout);
}

bool BlockingClient::RunUntil(const std::function<bool()>& done,
                              std::chrono::milliseconds timeout) {
  if (done()) return true;
  bool expired = false;
  event* timer = nullptr;
  if (timeout != kForever) {
    timer = evtimer_new(base_, &SetFlag, &expired);
    timeval tv;
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    evtimer_add(timer, &tv);
  }
  while (!done() && !expired) {
    if (event_base_loop(base_, EVLOOP_ONCE) != 0) break;  // nothing left that could fire
  }
  if (timer != nullptr) event_free(timer);
  return done();
}

BlockingLock::BlockingLock(BlockingClient& client, std::string name, LockOptions options)
    : client_(client), lock_(client.async(), std::move(name), std::move(options)) {}

BlockingLock::~BlockingLock() {
  if (lock_.held()) Release();
}

AcquireStatus BlockingLock::Wait(const std::function<void(Lock::AcquireCallback)>& start) {
  using Outcome = std::optional<std::pair<AcquireStatus, std::string>>;
  auto result = std::make_shared<Outcome>();
  start([result](AcquireStatus s, const std::string& e) { *result = std::make_pair(s, e); });
  client_.RunUntil([&result] { return result->has_value(); }, Lock::kForever);
  if (!result->has_value()) lock_.Release();  // cancels; the callback records kCancelled
  if (!result->has_value()) {
    error_ = "the event loop stopped";
    return AcquireStatus::kFailed;
  }
  error_ = (*result)->second;
  return (*result)->first;
}

AcquireStatus BlockingLock::Acquire(std::chrono::milliseconds timeout) {
  return Wait([this, timeout](Lock::AcquireCallback cb) { lock_.Acquire(timeout, std::move(cb)); });
}

AcquireStatus BlockingLock::TryAcquire() {
  return Wait([this](Lock::AcquireCallback cb) { lock_.TryAcquire(std::move(cb)); });
}

bool BlockingLock::Release() {
  auto done = std::make_shared<std::optional<bool>>();
  lock_.Release([done](bool deleted) { *done = deleted; });
  client_.RunUntil([&done] { return done->has_value(); }, Lock::kForever);
  return done->value_or(false);
}

}  // namespace redistp::client
