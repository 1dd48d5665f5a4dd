// ReadWriteLock: the reader's enter script, the writer's drain of the readers, both around one
// fair gate Lock (rw_lock.h).
//
// State: kIdle -> kAcquiringRead -> kHeldRead -> kIdle, and kIdle -> kAcquiringWrite ->
// kHeldWrite -> kIdle. A reading acquisition runs the enter script (fast: only if the gate is
// free), queues for the gate when it is not, and runs it again at the head. A writing one takes
// the gate, then waits until the drain script's list of live reader keys has been seen gone
// through watches. At most one script is on the wire; a script answered after its acquisition
// ended gives back what it took (DELTP and SREM of the reader key).
#include "client/rw_lock.h"

#include <event2/event.h>

#include <cstdio>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace redistp::client {
namespace {

// KEYS gate, readers set, reader key; ARGV value, fence ("1"/"0"), fast ("1"/"0"), retry
// ("1": an earlier run may have entered for this session before its connection was lost).
// {1, token-or-1} entered; {0, 0} the gate is taken (fast only); {-1, 0} the reader key exists.
constexpr char kEnterScript[] = R"lua(
if ARGV[4] == '1' and redis.call('GET', KEYS[3]) == ARGV[1] then
  redis.call('SADD', KEYS[2], KEYS[3])
  return {1, redis.call('OBJECT', 'FENCE', KEYS[3]) or 1}
end
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then return {0, 0} end
local r
if ARGV[2] == '1' then
  r = redis.call('SETTP', KEYS[3], ARGV[1], 'FENCE')
else
  r = redis.call('SETTP', KEYS[3], ARGV[1])
end
if r == 0 then return {-1, 0} end
redis.call('SADD', KEYS[2], KEYS[3])
return {1, r}
)lua";

// KEYS readers set. Drops entries whose key is gone; replies {n, key1, ..., keyn} (live keys).
constexpr char kDrainScript[] = R"lua(
local live = {0}
for _, k in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', k) == 1 then
    live[#live + 1] = k
  else
    redis.call('SREM', KEYS[1], k)
  end
end
live[1] = #live - 1
return live
)lua";

std::string RandomId() {
  std::random_device rd;
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%08x%08x", rd(), rd());
  return buf;
}

}  // namespace

struct ReadWriteLock::Impl : std::enable_shared_from_this<Impl> {
  enum class State { kIdle, kAcquiringRead, kHeldRead, kAcquiringWrite, kHeldWrite };

  Client* client;
  std::string name;
  LockOptions options;
  std::string readers_key;
  std::string reader_key;
  State state = State::kIdle;
  bool try_only = false;
  bool forever = true;
  std::chrono::steady_clock::time_point deadline;
  AcquireCallback acquire_cb;
  LostCallback lost_cb;
  event* timer = nullptr;
  std::unique_ptr<Lock> gate;
  std::unique_ptr<Lock> reader;  // the reader key, adopted after the enter script
  bool script_in_flight = false;
  bool maybe_entered = false;            // an enter script was lost with a session's connection
  std::vector<Client::WatchId> watches;  // a draining writer's watches on reader keys
  std::set<std::string> draining;        // reader keys not yet seen gone

  ~Impl() {
    if (timer != nullptr) event_free(timer);
  }

  bool acquiring() const {
    return state == State::kAcquiringRead || state == State::kAcquiringWrite;
  }

  void Begin(bool write, std::chrono::milliseconds timeout, bool only_try, AcquireCallback cb);
  std::chrono::milliseconds Left();
  void JoinQueue();
  void OnGate(AcquireStatus status, const std::string& error);
  void OnGateLost(const std::string& why);
  void RunEnter(bool fast);
  void OnEnter(const Reply& r, bool fast);
  void RunDrain();
  void OnDrain(const Reply& r);
  void OnReaderGone(const std::string& key);
  void StopWatches();
  void Lost(const std::string& why);
  void Finish(AcquireStatus status, const std::string& error);
  static void TimerCb(int, short, void* arg);
};

ReadWriteLock::ReadWriteLock(Client& client, std::string name, LockOptions options)
    : impl_(std::make_shared<Impl>()) {
  Impl& s = *impl_;
  s.client = &client;
  s.name = std::move(name);
  s.options = std::move(options);
  s.options.mode = LockMode::kFair;
  s.gate = std::make_unique<Lock>(client, s.name + ":gate", s.options);
  if (s.options.value.empty()) s.options.value = s.gate->value();
  s.readers_key = s.name + ":readers";
  s.reader_key = s.name + ":reader:" + RandomId();
  s.reader = std::make_unique<Lock>(client, s.reader_key, s.options);
  s.timer = evtimer_new(client.base(), &Impl::TimerCb, impl_.get());
  std::weak_ptr<Impl> weak = impl_;
  s.gate->SetLostCallback([weak](const std::string& why) {
    if (auto self = weak.lock()) self->OnGateLost(why);
  });
  s.reader->SetLostCallback([weak](const std::string& why) {
    auto self = weak.lock();
    if (!self || self->state != Impl::State::kHeldRead) return;
    Lock::Send(*self->client, {"SREM", self->readers_key, self->reader_key}, nullptr);
    self->Lost(why);
  });
}

ReadWriteLock::~ReadWriteLock() {
  Impl& s = *impl_;
  s.acquire_cb = nullptr;
  s.lost_cb = nullptr;
  evtimer_del(s.timer);
  if (s.state == Impl::State::kHeldRead) {
    Lock::Send(*s.client, {"SREM", s.readers_key, s.reader_key}, nullptr);
  }
  s.state = Impl::State::kIdle;
  s.StopWatches();
  s.gate.reset();  // while the Client surely exists; each releases what it holds
  s.reader.reset();
}

void ReadWriteLock::AcquireRead(std::chrono::milliseconds timeout, AcquireCallback cb) {
  impl_->Begin(false, timeout, false, std::move(cb));
}
void ReadWriteLock::TryAcquireRead(AcquireCallback cb) {
  impl_->Begin(false, std::chrono::milliseconds(0), true, std::move(cb));
}
void ReadWriteLock::AcquireWrite(std::chrono::milliseconds timeout, AcquireCallback cb) {
  impl_->Begin(true, timeout, false, std::move(cb));
}
void ReadWriteLock::TryAcquireWrite(AcquireCallback cb) {
  impl_->Begin(true, std::chrono::milliseconds(0), true, std::move(cb));
}

void ReadWriteLock::Release(ReleaseCallback cb) {
  Impl& s = *impl_;
  if (s.state == Impl::State::kHeldRead) {
    s.state = Impl::State::kIdle;
    s.reader->Release(std::move(cb));
    Lock::Send(*s.client, {"SREM", s.readers_key, s.reader_key}, nullptr);
    return;
  }
  if (s.state == Impl::State::kHeldWrite) {
    s.state = Impl::State::kIdle;
    s.gate->Release(std::move(cb));
    return;
  }
  if (s.acquiring()) s.Finish(AcquireStatus::kCancelled, "");
  if (cb) cb(false);
}

void ReadWriteLock::SetLostCallback(LostCallback cb) { impl_->lost_cb = std::move(cb); }

ReadWriteLock::Mode ReadWriteLock::held_mode() const {
  if (impl_->state == Impl::State::kHeldRead) return Mode::kRead;
  if (impl_->state == Impl::State::kHeldWrite) return Mode::kWrite;
  return Mode::kNone;
}
bool ReadWriteLock::acquiring() const { return impl_->acquiring(); }
long long ReadWriteLock::fence_token() const {
  if (impl_->state == Impl::State::kHeldRead) return impl_->reader->fence_token();
  if (impl_->state == Impl::State::kHeldWrite) return impl_->gate->fence_token();
  return 0;
}
const std::string& ReadWriteLock::name() const { return impl_->name; }

void ReadWriteLock::Impl::Begin(bool write, std::chrono::milliseconds timeout, bool only_try,
                                AcquireCallback cb) {
  const char* refusal = nullptr;
  if (state == State::kHeldRead || state == State::kHeldWrite) {
    refusal = "the lock is already held (no upgrade or downgrade)";
  }
  if (acquiring()) refusal = "the lock is already being acquired";
  if (client->closed()) refusal = "the client is closed";
  if (refusal != nullptr) {
    if (cb) cb(AcquireStatus::kFailed, refusal);
    return;
  }
  state = write ? State::kAcquiringWrite : State::kAcquiringRead;
  maybe_entered = false;
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
  if (write) {
    JoinQueue();
  } else {
    RunEnter(true);
  }
}

// What is left of the acquisition's timeout (Lock::kForever without one; 0 when spent).
std::chrono::milliseconds ReadWriteLock::Impl::Left() {
  if (forever) return Lock::kForever;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

void ReadWriteLock::Impl::JoinQueue() {
  if (gate->held() || gate->acquiring()) return;
  std::weak_ptr<Impl> weak = weak_from_this();
  auto on_gate = [weak](AcquireStatus status, const std::string& error) {
    if (auto self = weak.lock()) self->OnGate(status, error);
  };
  if (try_only) {
    gate->TryAcquire(on_gate);
    return;
  }
  const std::chrono::milliseconds left = Left();
  if (left.count() < 1) {
    Finish(AcquireStatus::kTimedOut, "");
    return;
  }
  gate->Acquire(left, on_gate);
}

void ReadWriteLock::Impl::OnGate(AcquireStatus status, const std::string& error) {
  if (!acquiring()) return;
  switch (status) {
    case AcquireStatus::kAcquired:
      if (state == State::kAcquiringRead) {
        RunEnter(false);
      } else {
        RunDrain();
      }
      return;
    case AcquireStatus::kCancelled:
      return;
    case AcquireStatus::kBusy:
    case AcquireStatus::kTimedOut:
      Finish(status, "");
      return;
    case AcquireStatus::kFailed:
      Finish(AcquireStatus::kFailed, error);
      return;
  }
}

void ReadWriteLock::Impl::OnGateLost(const std::string& why) {
  if (state == State::kHeldWrite) {
    Lost(why);
  } else if (acquiring()) {
    StopWatches();  // a writer draining must queue again; so must a reader at the head
    if (!script_in_flight) JoinQueue();
  }
}

void ReadWriteLock::Impl::RunEnter(bool fast) {
  if (script_in_flight) return;  // its answer decides
  script_in_flight = true;
  Lock::Send(*client,
             {"EVAL", kEnterScript, "3", gate->name(), readers_key, reader_key, options.value,
              options.fence ? "1" : "0", fast ? "1" : "0", maybe_entered ? "1" : "0"},
             [self = shared_from_this(), fast](const Reply& r) { self->OnEnter(r, fast); });
}

void ReadWriteLock::Impl::OnEnter(const Reply& r, bool fast) {
  script_in_flight = false;
  const bool shaped = r.is_array() && r.elements.size() == 2 && r.elements[0].is_integer() &&
                      r.elements[1].is_integer();
  if (shaped) maybe_entered = false;
  if (shaped && r.elements[0].integer == 1) {
    if (state != State::kAcquiringRead || !gate) {  // ended meanwhile: leave again
      Lock::Send(*client, {"DELTP", reader_key}, nullptr);
      Lock::Send(*client, {"SREM", readers_key, reader_key}, nullptr);
      if (gate && gate->held() && state == State::kIdle) gate->Release();
      return;
    }
    reader->Adopt(options.fence ? r.elements[1].integer : 0);
    if (gate->held() || gate->acquiring()) gate->Release();  // the next in line may enter too
    state = State::kHeldRead;
    Finish(AcquireStatus::kAcquired, "");
    return;
  }
  if (state != State::kAcquiringRead) return;
  if (r.local) {
    if (client->session_active()) maybe_entered = true;
    if (client->closed()) {
      Finish(AcquireStatus::kFailed, r.str);
    } else if (!gate->held() && !gate->acquiring()) {
      RunEnter(true);
    }
    return;
  }
  if (!shaped || r.elements[0].integer == -1) {
    Finish(AcquireStatus::kFailed,
           !shaped ? (r.is_error() ? r.str : "unexpected reply: " + r.ToString())
                   : "the reader key " + reader_key + " exists already");
    return;
  }
  if (try_only) {
    Finish(AcquireStatus::kBusy, "");
  } else if (fast || !gate->held()) {
    JoinQueue();
  } else {
    RunEnter(false);
  }
}

void ReadWriteLock::Impl::RunDrain() {
  if (script_in_flight) return;
  script_in_flight = true;
  Lock::Send(*client, {"EVAL", kDrainScript, "1", readers_key},
             [self = shared_from_this()](const Reply& r) { self->OnDrain(r); });
}

void ReadWriteLock::Impl::OnDrain(const Reply& r) {
  script_in_flight = false;
  if (state != State::kAcquiringWrite) return;
  if (r.local) {
    if (client->closed()) {
      Finish(AcquireStatus::kFailed, r.str);
    } else {
      JoinQueue();  // the gate was lost with the connection: queue again
    }
    return;
  }
  if (!r.is_array() || r.elements.empty() || !r.elements[0].is_integer()) {
    Finish(AcquireStatus::kFailed, r.is_error() ? r.str : "unexpected reply: " + r.ToString());
    return;
  }
  if (!gate->held()) {  // lost while the script ran
    JoinQueue();
    return;
  }
  draining.clear();
  for (size_t i = 1; i < r.elements.size(); ++i) draining.insert(r.elements[i].str);
  if (draining.empty()) {
    state = State::kHeldWrite;
    Finish(AcquireStatus::kAcquired, "");
    return;
  }
  if (try_only) {
    Finish(AcquireStatus::kBusy, "");
    return;
  }
  std::weak_ptr<Impl> weak = weak_from_this();
  const std::set<std::string> keys = draining;
  for (const std::string& key : keys) {
    watches.push_back(client->Watch(key, [weak](const WatchEvent& ev) {
      auto self = weak.lock();
      if (!self || self->state != State::kAcquiringWrite) return;
      if (ev.type == WatchEventType::kDel || ev.type == WatchEventType::kNoExist) {
        self->OnReaderGone(ev.key);
      } else if (ev.type == WatchEventType::kError) {
        self->Finish(AcquireStatus::kFailed, ev.error);
      }
    }));
  }
}

// Holding the gate, no reader can enter; so once every listed reader key was seen gone, the
// writer is alone.
void ReadWriteLock::Impl::OnReaderGone(const std::string& key) {
  if (draining.erase(key) == 0 || !draining.empty()) return;
  StopWatches();
  Lock::Send(*client, {"EVAL", kDrainScript, "1", readers_key}, nullptr);  // drop the entries
  state = State::kHeldWrite;
  Finish(AcquireStatus::kAcquired, "");
}

void ReadWriteLock::Impl::StopWatches() {
  std::vector<Client::WatchId> ids = std::move(watches);
  watches.clear();
  draining.clear();
  for (Client::WatchId id : ids) client->Unwatch(id);
}

void ReadWriteLock::Impl::Lost(const std::string& why) {
  state = State::kIdle;
  if (lost_cb) {
    LostCallback cb = lost_cb;
    cb(why);
  }
}

void ReadWriteLock::Impl::Finish(AcquireStatus status, const std::string& error) {
  evtimer_del(timer);
  if (status != AcquireStatus::kAcquired) {
    state = State::kIdle;
    StopWatches();
    if (gate && (gate->held() || gate->acquiring())) gate->Release();
  }
  AcquireCallback cb = std::move(acquire_cb);
  acquire_cb = nullptr;
  if (cb) cb(status, error);
}

void ReadWriteLock::Impl::TimerCb(int, short, void* arg) {
  auto* self = static_cast<Impl*>(arg);
  if (self->acquiring()) self->Finish(AcquireStatus::kTimedOut, "");
}

}  // namespace redistp::client
