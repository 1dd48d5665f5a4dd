// Semaphore: the permit script, the queue (a fair Lock) and the head's watch on the permits
// (semaphore.h).
//
// State: kIdle -> kAcquiring -> kHeld -> kIdle. While acquiring, the semaphore is in one of
// three places: running the fast script (not queued), queued (the gate Lock acquiring), or at
// the head (the gate held: the script runs again whenever a permit key is seen gone, and the
// permit keys are watched meanwhile). At most one script is on the wire; an event that asks for
// another while one is out marks `rerun`. A script that takes a permit after the acquisition
// ended (timeout, Release(), destruction) gives it back with DELTP.
#include "client/semaphore.h"

#include <event2/event.h>

#include <string>
#include <utility>
#include <vector>

namespace redistp::client {
namespace {

// KEYS[1] the queue, KEYS[2..] the permits; ARGV value, fence ("1"/"0"), fast ("1"/"0"),
// retry ("1": an earlier run may have taken a permit for this session before its connection
// was lost; the permit whose value is ours is that one). Reply {index, token-or-1} for a permit
// taken, {-1, 0} when others queue (fast mode only), {-2, 0} when every permit is taken.
constexpr char kTakeScript[] = R"lua(
if ARGV[4] == '1' then
  for i = 2, #KEYS do
    if redis.call('GET', KEYS[i]) == ARGV[1] then
      return {i - 2, redis.call('OBJECT', 'FENCE', KEYS[i]) or 1}
    end
  end
end
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then return {-1, 0} end
for i = 2, #KEYS do
  local r
  if ARGV[2] == '1' then
    r = redis.call('SETTP', KEYS[i], ARGV[1], 'FENCE')
  else
    r = redis.call('SETTP', KEYS[i], ARGV[1])
  end
  if r ~= 0 then return {i - 2, r} end
end
return {-2, 0}
)lua";

}  // namespace

struct Semaphore::Impl : std::enable_shared_from_this<Impl> {
  enum class State { kIdle, kAcquiring, kHeld };

  Client* client;
  std::string name;
  int permits;
  SemaphoreOptions options;
  State state = State::kIdle;
  bool try_only = false;
  bool forever = true;
  std::chrono::steady_clock::time_point deadline;
  AcquireCallback acquire_cb;
  LostCallback lost_cb;
  event* timer = nullptr;
  std::unique_ptr<Lock> gate;         // `<name>:queue`
  std::unique_ptr<Lock> permit_lock;  // the held permit's key (adopted after the script)
  int permit_index = -1;
  std::vector<Client::WatchId> watches;  // the head's watches on the permit keys
  bool script_in_flight = false;
  bool rerun = false;
  bool maybe_took = false;  // a script was lost with a session's connection: it may have run

  ~Impl() {
    if (timer != nullptr) event_free(timer);
  }

  std::string PermitKey(int i) const { return name + ":permit:" + std::to_string(i); }
  bool AtHead() const { return gate && gate->held(); }

  void Begin(std::chrono::milliseconds timeout, bool only_try, AcquireCallback cb);
  void RunScript(bool fast);
  void OnScript(const Reply& r, bool fast);
  void TakePermit(int index, long long token);
  void JoinQueue();
  void OnGate(AcquireStatus status, const std::string& error);
  void OnGateLost();
  void WatchPermits();
  void StopWatches();
  void Finish(AcquireStatus status, const std::string& error);
  static void TimerCb(int, short, void* arg);
};

Semaphore::Semaphore(Client& client, std::string name, int permits, SemaphoreOptions options)
    : impl_(std::make_shared<Impl>()) {
  Impl& s = *impl_;
  s.client = &client;
  s.name = std::move(name);
  s.permits = permits;
  s.options = std::move(options);
  s.gate =
      std::make_unique<Lock>(client, s.name + ":queue", LockOptions{LockMode::kFair, "", false});
  if (s.options.value.empty()) s.options.value = s.gate->value();
  s.timer = evtimer_new(client.base(), &Impl::TimerCb, impl_.get());
  std::weak_ptr<Impl> weak = impl_;
  s.gate->SetLostCallback([weak](const std::string&) {
    if (auto self = weak.lock()) self->OnGateLost();
  });
}

Semaphore::~Semaphore() {
  Impl& s = *impl_;
  s.acquire_cb = nullptr;
  s.lost_cb = nullptr;
  evtimer_del(s.timer);
  s.state = Impl::State::kIdle;
  s.StopWatches();
  // The Locks go now, while the Client surely exists; their destructors release what they hold.
  s.gate.reset();
  s.permit_lock.reset();
}

void Semaphore::Acquire(std::chrono::milliseconds timeout, AcquireCallback cb) {
  impl_->Begin(timeout, false, std::move(cb));
}

void Semaphore::TryAcquire(AcquireCallback cb) {
  impl_->Begin(std::chrono::milliseconds(0), true, std::move(cb));
}

void Semaphore::Release(ReleaseCallback cb) {
  Impl& s = *impl_;
  if (s.state == Impl::State::kHeld) {
    s.state = Impl::State::kIdle;
    s.permit_index = -1;
    s.permit_lock->Release(std::move(cb));
    return;
  }
  if (s.state == Impl::State::kAcquiring) s.Finish(AcquireStatus::kCancelled, "");
  if (cb) cb(false);
}

void Semaphore::SetLostCallback(LostCallback cb) { impl_->lost_cb = std::move(cb); }
bool Semaphore::held() const { return impl_->state == Impl::State::kHeld; }
bool Semaphore::acquiring() const { return impl_->state == Impl::State::kAcquiring; }
int Semaphore::permits() const { return impl_->permits; }
int Semaphore::permit() const { return impl_->permit_index; }
long long Semaphore::fence_token() const {
  return impl_->state == Impl::State::kHeld ? impl_->permit_lock->fence_token() : 0;
}
const std::string& Semaphore::name() const { return impl_->name; }

void Semaphore::Impl::Begin(std::chrono::milliseconds timeout, bool only_try, AcquireCallback cb) {
  const char* refusal = nullptr;
  if (state == State::kHeld) refusal = "the semaphore already holds a permit";
  if (state == State::kAcquiring) refusal = "the semaphore is already being acquired";
  if (client->closed()) refusal = "the client is closed";
  if (permits < 1) refusal = "the semaphore has no permits";
  if (refusal != nullptr) {
    if (cb) cb(AcquireStatus::kFailed, refusal);
    return;
  }
  state = State::kAcquiring;
  maybe_took = false;
  try_only = only_try;
  acquire_cb = std::move(cb);
  forever = only_try || timeout == Lock::kForever;
  if (!forever) {
    deadline = std::chrono::steady_clock::now() + timeout;
    timeval tv;
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    evtimer_add(timer, &tv);
  }
  RunScript(true);
}

// One run of the permit script; `fast`: take a permit only if nobody queues.
void Semaphore::Impl::RunScript(bool fast) {
  if (script_in_flight) {
    rerun = true;
    return;
  }
  std::vector<std::string> argv = {"EVAL", kTakeScript, std::to_string(permits + 1),
                                   name + ":queue"};
  for (int i = 0; i < permits; ++i) argv.push_back(PermitKey(i));
  argv.push_back(options.value);
  argv.push_back(options.fence ? "1" : "0");
  argv.push_back(fast ? "1" : "0");
  argv.push_back(maybe_took ? "1" : "0");
  script_in_flight = true;
  Lock::Send(*client, std::move(argv),
             [self = shared_from_this(), fast](const Reply& r) { self->OnScript(r, fast); });
}

void Semaphore::Impl::OnScript(const Reply& r, bool fast) {
  script_in_flight = false;
  const bool shaped = r.is_array() && r.elements.size() == 2 && r.elements[0].is_integer() &&
                      r.elements[1].is_integer();
  if (shaped) maybe_took = false;
  if (shaped && r.elements[0].integer >= 0) {
    const int index = static_cast<int>(r.elements[0].integer);
    if (state != State::kAcquiring || !gate) {  // the acquisition ended meanwhile: give it back
      Lock::Send(*client, {"DELTP", PermitKey(index)}, nullptr);
      return;
    }
    TakePermit(index, options.fence ? r.elements[1].integer : 0);
    return;
  }
  if (state != State::kAcquiring) return;
  if (r.local) {
    if (client->closed()) {
      Finish(AcquireStatus::kFailed, r.str);
      return;
    }
    if (client->session_active()) maybe_took = true;
    if (!gate->held() && !gate->acquiring()) {
      RunScript(true);  // queued until the next connection; a held gate was lost with this one
    }
    return;
  }
  if (!shaped) {
    Finish(AcquireStatus::kFailed, r.is_error() ? r.str : "unexpected reply: " + r.ToString());
    return;
  }
  if (try_only) {
    Finish(AcquireStatus::kBusy, "");
    return;
  }
  if (rerun) {  // a permit was seen gone while this script ran: its answer may be stale
    rerun = false;
    RunScript(!AtHead());
    return;
  }
  if (fast || !AtHead()) {
    JoinQueue();
  } else {
    WatchPermits();
  }
}

void Semaphore::Impl::TakePermit(int index, long long token) {
  StopWatches();
  permit_lock = std::make_unique<Lock>(*client, PermitKey(index),
                                       LockOptions{LockMode::kFair, options.value, options.fence});
  std::weak_ptr<Impl> weak = weak_from_this();
  permit_lock->SetLostCallback([weak](const std::string& why) {
    auto self = weak.lock();
    if (!self || self->state != State::kHeld) return;
    self->state = State::kIdle;
    self->permit_index = -1;
    if (self->lost_cb) {
      LostCallback cb = self->lost_cb;
      cb(why);
    }
  });
  permit_lock->Adopt(token);
  permit_index = index;
  if (gate->held() || gate->acquiring()) gate->Release();  // the next waiter's turn
  state = State::kHeld;
  Finish(AcquireStatus::kAcquired, "");
}

void Semaphore::Impl::JoinQueue() {
  if (gate->held() || gate->acquiring()) return;
  std::chrono::milliseconds left = Lock::kForever;
  if (!forever) {
    left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                 std::chrono::steady_clock::now());
    if (left.count() < 1) {
      Finish(AcquireStatus::kTimedOut, "");
      return;
    }
  }
  std::weak_ptr<Impl> weak = weak_from_this();
  gate->Acquire(left, [weak](AcquireStatus status, const std::string& error) {
    if (auto self = weak.lock()) self->OnGate(status, error);
  });
}

void Semaphore::Impl::OnGate(AcquireStatus status, const std::string& error) {
  if (state != State::kAcquiring) return;
  switch (status) {
    case AcquireStatus::kAcquired:
      RunScript(false);  // at the head: a permit may be free already
      return;
    case AcquireStatus::kTimedOut:
      Finish(AcquireStatus::kTimedOut, "");
      return;
    case AcquireStatus::kCancelled:
      return;
    default:
      Finish(AcquireStatus::kFailed, error);
      return;
  }
}

// The queue key was lost while at the head (deleted by someone, or the connection ended):
// queue again for what is left of the timeout.
void Semaphore::Impl::OnGateLost() {
  if (state != State::kAcquiring) return;
  StopWatches();
  if (!script_in_flight) JoinQueue();
}

void Semaphore::Impl::WatchPermits() {
  if (!watches.empty()) return;
  std::weak_ptr<Impl> weak = weak_from_this();
  for (int i = 0; i < permits; ++i) {
    watches.push_back(client->Watch(PermitKey(i), [weak](const WatchEvent& ev) {
      auto self = weak.lock();
      if (!self || self->state != State::kAcquiring || !self->AtHead()) return;
      if (ev.type == WatchEventType::kDel || ev.type == WatchEventType::kNoExist) {
        self->RunScript(false);
      } else if (ev.type == WatchEventType::kError) {
        self->Finish(AcquireStatus::kFailed, ev.error);
      }
    }));
  }
}

void Semaphore::Impl::StopWatches() {
  std::vector<Client::WatchId> ids = std::move(watches);
  watches.clear();
  for (Client::WatchId id : ids) client->Unwatch(id);
}

void Semaphore::Impl::Finish(AcquireStatus status, const std::string& error) {
  evtimer_del(timer);
  if (status != AcquireStatus::kAcquired) {
    state = State::kIdle;
    rerun = false;
    StopWatches();
    if (gate && (gate->held() || gate->acquiring())) gate->Release();
  }
  AcquireCallback cb = std::move(acquire_cb);
  acquire_cb = nullptr;
  if (cb) cb(status, error);
}

void Semaphore::Impl::TimerCb(int, short, void* arg) {
  auto* self = static_cast<Impl*>(arg);
  if (self->state == State::kAcquiring) self->Finish(AcquireStatus::kTimedOut, "");
}

}  // namespace redistp::client
