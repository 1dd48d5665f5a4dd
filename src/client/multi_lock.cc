// MultiLock: one Lock per name, taken in sorted order, released together (multi_lock.h).
//
// State: kIdle -> kAcquiring (`next` is the index of the lock being taken) -> kHeld -> kIdle.
// Each step's callback checks `seq`, bumped whenever an acquisition or hold ends, so that a
// late callback from an abandoned step changes nothing.
#include "client/multi_lock.h"

#include <event2/event.h>

#include <algorithm>
#include <utility>

namespace redistp::client {

struct MultiLock::Impl : std::enable_shared_from_this<Impl> {
  enum class State { kIdle, kAcquiring, kHeld };

  Client* client;
  std::vector<std::string> names;
  std::vector<std::unique_ptr<Lock>> locks;
  State state = State::kIdle;
  bool try_only = false;
  bool forever = true;
  std::chrono::steady_clock::time_point deadline;
  size_t next = 0;
  uint64_t seq = 0;
  AcquireCallback acquire_cb;
  LostCallback lost_cb;

  void Begin(std::chrono::milliseconds timeout, bool only_try, AcquireCallback cb);
  void Step();
  void OnStep(uint64_t step_seq, AcquireStatus status, const std::string& error);
  void ReleaseAll();
  void OnLost(const std::string& why);
  void Finish(AcquireStatus status, const std::string& error);
};

MultiLock::MultiLock(Client& client, std::vector<std::string> names, LockOptions options)
    : impl_(std::make_shared<Impl>()) {
  Impl& s = *impl_;
  s.client = &client;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  s.names = std::move(names);
  std::weak_ptr<Impl> weak = impl_;
  for (const std::string& name : s.names) {
    s.locks.push_back(std::make_unique<Lock>(client, name, options));
    s.locks.back()->SetLostCallback([weak](const std::string& why) {
      if (auto self = weak.lock()) self->OnLost(why);
    });
  }
}

MultiLock::~MultiLock() {
  impl_->acquire_cb = nullptr;
  impl_->lost_cb = nullptr;
  impl_->state = Impl::State::kIdle;
  ++impl_->seq;
  impl_->locks.clear();  // each releases what it holds or abandons its acquisition
}

void MultiLock::Acquire(std::chrono::milliseconds timeout, AcquireCallback cb) {
  impl_->Begin(timeout, false, std::move(cb));
}

void MultiLock::TryAcquire(AcquireCallback cb) {
  impl_->Begin(std::chrono::milliseconds(0), true, std::move(cb));
}

void MultiLock::Release(ReleaseCallback cb) {
  Impl& s = *impl_;
  if (s.state == Impl::State::kHeld) {
    s.state = Impl::State::kIdle;
    ++s.seq;
    auto left = std::make_shared<size_t>(s.locks.size());
    auto all = std::make_shared<bool>(true);
    for (auto& lock : s.locks) {
      lock->Release([left, all, cb](bool deleted) {
        *all = *all && deleted;
        if (--*left == 0 && cb) cb(*all);
      });
    }
    return;
  }
  if (s.state == Impl::State::kAcquiring) s.Finish(AcquireStatus::kCancelled, "");
  if (cb) cb(false);
}

void MultiLock::SetLostCallback(LostCallback cb) { impl_->lost_cb = std::move(cb); }
bool MultiLock::held() const { return impl_->state == Impl::State::kHeld; }
bool MultiLock::acquiring() const { return impl_->state == Impl::State::kAcquiring; }
const std::vector<std::string>& MultiLock::names() const { return impl_->names; }
std::vector<long long> MultiLock::fence_tokens() const {
  std::vector<long long> tokens;
  for (const auto& lock : impl_->locks) tokens.push_back(lock->fence_token());
  return tokens;
}

void MultiLock::Impl::Begin(std::chrono::milliseconds timeout, bool only_try, AcquireCallback cb) {
  const char* refusal = nullptr;
  if (state == State::kHeld) refusal = "the lock is already held";
  if (state == State::kAcquiring) refusal = "the lock is already being acquired";
  if (locks.empty()) refusal = "no lock names given";
  if (client->closed()) refusal = "the client is closed";
  if (refusal != nullptr) {
    if (cb) cb(AcquireStatus::kFailed, refusal);
    return;
  }
  state = State::kAcquiring;
  try_only = only_try;
  forever = only_try || timeout == Lock::kForever;
  if (!forever) deadline = std::chrono::steady_clock::now() + timeout;
  acquire_cb = std::move(cb);
  next = 0;
  ++seq;
  Step();
}

// Takes locks[next], or finishes when all are held.
void MultiLock::Impl::Step() {
  if (next == locks.size()) {
    state = State::kHeld;
    Finish(AcquireStatus::kAcquired, "");
    return;
  }
  std::weak_ptr<Impl> weak = weak_from_this();
  auto cb = [weak, step_seq = seq](AcquireStatus status, const std::string& error) {
    if (auto self = weak.lock()) self->OnStep(step_seq, status, error);
  };
  if (try_only) {
    locks[next]->TryAcquire(cb);
    return;
  }
  std::chrono::milliseconds left = Lock::kForever;
  if (!forever) {
    left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                 std::chrono::steady_clock::now());
    if (left.count() < 1) {
      Finish(AcquireStatus::kTimedOut, "");
      return;
    }
  }
  locks[next]->Acquire(left, cb);
}

void MultiLock::Impl::OnStep(uint64_t step_seq, AcquireStatus status, const std::string& error) {
  if (step_seq != seq || state != State::kAcquiring) return;
  if (status == AcquireStatus::kAcquired) {
    ++next;
    Step();
    return;
  }
  Finish(status, error);
}

void MultiLock::Impl::ReleaseAll() {
  for (auto& lock : locks) {
    if (lock->held() || lock->acquiring()) lock->Release();
  }
}

// One lock lost: a MultiLock is held whole or not at all. While acquiring, a lock taken earlier
// was lost (its connection ended): start again from the first, within the same timeout.
void MultiLock::Impl::OnLost(const std::string& why) {
  if (state == State::kAcquiring) {
    ++seq;
    ReleaseAll();
    next = 0;
    Step();
    return;
  }
  if (state != State::kHeld) return;
  state = State::kIdle;
  ++seq;
  ReleaseAll();
  if (lost_cb) {
    LostCallback cb = lost_cb;
    cb(why);
  }
}

void MultiLock::Impl::Finish(AcquireStatus status, const std::string& error) {
  if (status != AcquireStatus::kAcquired) {
    state = State::kIdle;
    ++seq;
    ReleaseAll();
  }
  AcquireCallback cb = std::move(acquire_cb);
  acquire_cb = nullptr;
  if (cb) cb(status, error);
}

}  // namespace redistp::client
