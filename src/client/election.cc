// Election and ElectionObserver: a campaign is a fair, fenced Lock plus a watch on its key;
// proclaim and resign-by-token are scripts that act only on the key of the given fence
// (election.h).
#include "client/election.h"

#include <utility>
#include <vector>

namespace redistp::client {
namespace {

// KEYS: name, signal key. ARGV: fence, value. Sets the value only on the key of that fence, and
// raises ADD+DEL on the signal key so observers learn of the change. Replies 1 or 0.
constexpr char kProclaimScript[] =
    "local f = redis.call('OBJECT', 'FENCE', KEYS[1]) "
    "if not f or f ~= tonumber(ARGV[1]) then return 0 end "
    "redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') "
    "redis.call('SET', KEYS[2], ARGV[1]) "
    "redis.call('DEL', KEYS[2]) "
    "return 1";

// KEYS: name. ARGV: fence. Deletes the key only if it is the one of that fence.
constexpr char kResignScript[] =
    "local f = redis.call('OBJECT', 'FENCE', KEYS[1]) "
    "if not f or f ~= tonumber(ARGV[1]) then return 0 end "
    "return redis.call('DEL', KEYS[1])";

// KEYS: name. Replies [] when there is no leader, else [value, fence or 0], read atomically.
constexpr char kReadScript[] =
    "local v = redis.call('GET', KEYS[1]) "
    "if not v then return {} end "
    "return {v, redis.call('OBJECT', 'FENCE', KEYS[1]) or 0}";

constexpr char kNotLeader[] = "not the leader";

void RunScript(Client& client, const char* script, std::vector<std::string> keys,
               std::vector<std::string> args, Election::DoneCallback cb) {
  std::vector<std::string> argv = {"EVAL", script, std::to_string(keys.size())};
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  client.Command(std::move(argv), [cb = std::move(cb)](const Reply& r) {
    if (!cb) return;
    if (r.is_error()) {
      cb(false, r.str);
    } else if (r.is_integer() && r.integer == 1) {
      cb(true, "");
    } else {
      cb(false, kNotLeader);
    }
  });
}

}  // namespace

// ---- Election ---------------------------------------------------------------------------------

struct Election::Impl : std::enable_shared_from_this<Election::Impl> {
  Client* client = nullptr;
  std::string name;
  std::string value;
  // The current or last campaign's lock. Replaced only by the next campaign, never inside one
  // of its own callbacks.
  std::unique_ptr<Lock> lock;
  bool leading = false;
  long long fence = 0;
  Client::WatchId watch = 0;
  LostCallback lost_cb;

  void Begin(std::string proposal, std::chrono::milliseconds timeout, bool only_try,
             CampaignCallback cb);
  void OnElected();
  void EndTerm(const std::string& reason);
  void StopWatch() {
    if (watch != 0) client->Unwatch(watch);
    watch = 0;
  }
};

Election::Election(Client& client, std::string name) : impl_(std::make_shared<Impl>()) {
  impl_->client = &client;
  impl_->name = std::move(name);
}

Election::~Election() {
  impl_->lost_cb = nullptr;
  impl_->StopWatch();
  impl_->leading = false;
  impl_->lock.reset();  // ~Lock sends DELTP if held and drops a pending campaign silently
}

void Election::Impl::Begin(std::string proposal, std::chrono::milliseconds timeout, bool only_try,
                           CampaignCallback cb) {
  if (leading || (lock && lock->acquiring())) {
    if (cb) cb(AcquireStatus::kFailed, leading ? "already the leader" : "already campaigning");
    return;
  }
  StopWatch();
  value = std::move(proposal);
  lock = std::make_unique<Lock>(*client, name, LockOptions{LockMode::kFair, value, true});
  std::weak_ptr<Impl> weak = weak_from_this();
  lock->SetLostCallback([weak](const std::string& reason) {
    if (auto self = weak.lock()) self->EndTerm(reason);
  });
  auto done = [weak, cb = std::move(cb)](AcquireStatus status, const std::string& error) {
    auto self = weak.lock();
    if (!self) return;
    if (status == AcquireStatus::kAcquired) self->OnElected();
    if (cb) cb(status, error);
  };
  if (only_try) {
    lock->TryAcquire(std::move(done));
  } else {
    lock->Acquire(timeout, std::move(done));
  }
}

// The campaign won: the term starts, and the key is watched so that a deletion by anyone
// else ends it (the lock alone may learn only of connection or session loss).
void Election::Impl::OnElected() {
  leading = true;
  fence = lock->fence_token();
  std::weak_ptr<Impl> weak = weak_from_this();
  const long long term = fence;
  watch = client->Watch(name, [weak, term](const WatchEvent& ev) {
    auto self = weak.lock();
    if (!self || !self->leading || self->fence != term) return;
    if (ev.type == WatchEventType::kDel || ev.type == WatchEventType::kNoExist) {
      self->EndTerm("the election key was deleted by someone else");
    }
  });
}

void Election::Impl::EndTerm(const std::string& reason) {
  if (!leading) return;
  leading = false;
  fence = 0;
  StopWatch();
  if (lost_cb) {
    LostCallback cb = lost_cb;  // the callback may campaign again
    cb(reason);
  }
}

void Election::Campaign(std::string value, std::chrono::milliseconds timeout, CampaignCallback cb) {
  impl_->Begin(std::move(value), timeout, false, std::move(cb));
}

void Election::TryCampaign(std::string value, CampaignCallback cb) {
  impl_->Begin(std::move(value), std::chrono::milliseconds(0), true, std::move(cb));
}

void Election::Proclaim(std::string value, DoneCallback cb) {
  Impl& s = *impl_;
  if (!s.leading) {
    if (cb) cb(false, kNotLeader);
    return;
  }
  std::weak_ptr<Impl> weak = impl_;
  ProclaimAs(*s.client, s.name, s.fence, value,
             [weak, value, cb = std::move(cb)](bool ok, const std::string& error) {
               if (auto self = weak.lock(); self && ok) self->value = value;
               if (cb) cb(ok, error);
             });
}

void Election::Resign(DoneCallback cb) {
  Impl& s = *impl_;
  if (s.leading) {
    s.leading = false;
    s.fence = 0;
    s.StopWatch();
    s.lock->Release([cb = std::move(cb)](bool deleted) {
      if (cb) cb(deleted, deleted ? "" : kNotLeader);
    });
    return;
  }
  if (s.lock && s.lock->acquiring()) s.lock->Release();  // the campaign gets kCancelled
  if (cb) cb(false, kNotLeader);
}

void Election::SetLostCallback(LostCallback cb) { impl_->lost_cb = std::move(cb); }
bool Election::leader() const { return impl_->leading; }
bool Election::campaigning() const { return impl_->lock && impl_->lock->acquiring(); }
long long Election::fence() const { return impl_->fence; }
const std::string& Election::value() const { return impl_->value; }
const std::string& Election::name() const { return impl_->name; }

void Election::ProclaimAs(Client& client, const std::string& name, long long fence,
                          const std::string& value, DoneCallback cb) {
  RunScript(client, kProclaimScript, {name, name + kSignalSuffix}, {std::to_string(fence), value},
            std::move(cb));
}

void Election::ResignAs(Client& client, const std::string& name, long long fence, DoneCallback cb) {
  RunScript(client, kResignScript, {name}, {std::to_string(fence)}, std::move(cb));
}

// ---- ElectionObserver -------------------------------------------------------------------------

struct ElectionObserver::Impl : std::enable_shared_from_this<ElectionObserver::Impl> {
  Client* client = nullptr;
  std::string name;
  LeaderCallback cb;
  ErrorCallback on_error;
  Client::WatchId watch_key = 0;
  Client::WatchId watch_signal = 0;
  bool reading = false;  // a read is on the wire
  bool stale = false;    // an event came while it was: read once more
  bool reported = false;
  std::optional<Leader> last;
  bool failed = false;

  void OnEvent(const WatchEvent& ev);
  void Read();
  void OnRead(const Reply& r);
  void Fail(const std::string& error);
};

ElectionObserver::ElectionObserver(Client& client, std::string name, LeaderCallback cb,
                                   ErrorCallback on_error)
    : impl_(std::make_shared<Impl>()) {
  Impl& s = *impl_;
  s.client = &client;
  s.name = std::move(name);
  s.cb = std::move(cb);
  s.on_error = std::move(on_error);
  std::weak_ptr<Impl> weak = impl_;
  auto on_event = [weak](const WatchEvent& ev) {
    if (auto self = weak.lock()) self->OnEvent(ev);
  };
  s.watch_key = client.Watch(s.name, on_event);
  s.watch_signal = client.Watch(s.name + Election::kSignalSuffix, on_event);
}

ElectionObserver::~ElectionObserver() {
  impl_->cb = nullptr;
  impl_->on_error = nullptr;
  impl_->client->Unwatch(impl_->watch_key);
  impl_->client->Unwatch(impl_->watch_signal);
}

// Any event on either key, first states included, means "read again".
void ElectionObserver::Impl::OnEvent(const WatchEvent& ev) {
  if (failed) return;
  if (ev.type == WatchEventType::kError) {
    Fail(ev.error);
    return;
  }
  Read();
}

void ElectionObserver::Impl::Read() {
  if (reading) {
    stale = true;
    return;
  }
  reading = true;
  stale = false;
  std::weak_ptr<Impl> weak = weak_from_this();
  client->Command({"EVAL", kReadScript, "1", name}, [weak](const Reply& r) {
    if (auto self = weak.lock()) self->OnRead(r);
  });
}

void ElectionObserver::Impl::OnRead(const Reply& r) {
  reading = false;
  if (failed) return;
  if (r.is_error()) {
    // A lost connection: the watches come back with first states, which read again.
    if (!r.local) Fail(r.str);
    return;
  }
  std::optional<Leader> now;
  if (r.is_array() && r.elements.size() == 2) {
    now = Leader{r.elements[0].str, r.elements[1].integer};
  }
  if (!reported || now != last) {
    reported = true;
    last = now;
    if (cb) {
      LeaderCallback call = cb;  // the callback may destroy the observer
      call(now);
    }
  }
  if (stale && cb) Read();
}

void ElectionObserver::Impl::Fail(const std::string& error) {
  failed = true;
  if (on_error) {
    ErrorCallback call = on_error;
    call(error);
  }
}

}  // namespace redistp::client
