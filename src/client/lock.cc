// Lock: the fair (BSETTP) and opportunistic (SETTP + WATCHEX) lock state machines (lock.h).
//
// State: kIdle -> kAcquiring -> kHeld -> kIdle. `in_flight` says one SETTP/BSETTP of ours is
// awaiting its reply; its reply is interpreted against the state at arrival, not at sending:
// success while acquiring is a hold (also for a command sent by an earlier, abandoned attempt),
// success while idle is handed back with DELTP. The state lives in a shared Impl that reply
// handlers keep alive, so a Lock may be destroyed with a command still on the wire.
#include "client/lock.h"

#include <event2/event.h>
#include <unistd.h>

#include <cstdio>
#include <random>

namespace redistp::client {

const char* AcquireStatusName(AcquireStatus status) {
  switch (status) {
    case AcquireStatus::kAcquired:
      return "acquired";
    case AcquireStatus::kBusy:
      return "busy";
    case AcquireStatus::kTimedOut:
      return "timed out";
    case AcquireStatus::kCancelled:
      return "cancelled";
    case AcquireStatus::kFailed:
      return "failed";
  }
  return "?";
}

namespace {

std::string DefaultValue() {
  char host[256] = "unknown";
  gethostname(host, sizeof(host) - 1);
  std::random_device rd;
  char tail[32];
  std::snprintf(tail, sizeof(tail), ":%d:%08x", static_cast<int>(getpid()), rd());
  return std::string(host) + tail;
}

}  // namespace

struct Lock::Impl : std::enable_shared_from_this<Impl> {
  enum class State { kIdle, kAcquiring, kHeld };

  Client* client;
  std::string name;
  LockOptions options;
  State state = State::kIdle;
  bool try_only = false;
  bool in_flight = false;
  bool forever = true;
  std::chrono::steady_clock::time_point deadline;
  AcquireCallback acquire_cb;
  LostCallback lost_cb;
  event* timer = nullptr;
  Client::WatchId watch_id = 0;
  Client::ListenerId listener = 0;
  long long fence = 0;
  // Bumped whenever a hold begins or ends, so that an ownership check answered for an earlier
  // hold is ignored.
  uint64_t hold_seq = 0;
  uint64_t acquire_seq = 0;  // bumped when an acquisition begins or ends
  int holds = 0;             // this object's holds of the key (re-entry), 0 when idle
  // An acquisition command of ours was lost with its connection while a session was attached:
  // it may have created the key for the session, so a later "0" may mean "already ours".
  bool maybe_ours = false;
  // The first refusal of each acquisition is checked (CheckWhyRefused): a Lock never waits
  // for a key its own owner holds.
  bool refusal_checked = false;

  ~Impl() {
    if (timer != nullptr) event_free(timer);
  }

  bool fair() const { return options.mode == LockMode::kFair; }

  void Begin(std::chrono::milliseconds timeout, bool only_try, AcquireCallback cb);
  void Attempt();
  void OnAcquireReply(const Reply& r);
  void OnWatch(const WatchEvent& ev);
  void OnConnection(ConnectionEvent ev, const std::string& detail);
  void Finish(AcquireStatus status, const std::string& error);
  void Lost(const std::string& reason);
  void StartWatch();
  void StopWatch();
  void VerifyOwnership();
  void CheckWhyRefused();
  void Reenter(AcquireCallback cb);
  void BecomeHeld(long long token);
  static void TimerCb(int, short, void* arg);
};

void Lock::Send(Client& client, std::vector<std::string> argv, Client::ReplyCallback cb) {
  client.Submit(Client::Request{std::move(argv), std::move(cb), true});
}

Lock::Lock(Client& client, std::string name, LockOptions options)
    : impl_(std::make_shared<Impl>()) {
  impl_->client = &client;
  impl_->name = std::move(name);
  impl_->options = std::move(options);
  if (impl_->options.value.empty()) impl_->options.value = DefaultValue();
  impl_->timer = evtimer_new(client.base(), &Impl::TimerCb, impl_.get());
  std::weak_ptr<Impl> weak = impl_;
  impl_->listener =
      client.AddConnectionListener([weak](ConnectionEvent ev, const std::string& detail) {
        if (auto self = weak.lock()) self->OnConnection(ev, detail);
      });
}

Lock::~Lock() {
  Impl& s = *impl_;
  s.client->RemoveConnectionListener(s.listener);
  s.acquire_cb = nullptr;
  s.lost_cb = nullptr;
  evtimer_del(s.timer);
  if (s.state == Impl::State::kHeld) {
    for (int i = 0; i < s.holds; ++i) Send(*s.client, {"DELTP", s.name}, nullptr);
  }
  s.state = Impl::State::kIdle;
  s.StopWatch();
}

void Lock::Acquire(std::chrono::milliseconds timeout, AcquireCallback cb) {
  impl_->Begin(timeout, false, std::move(cb));
}

void Lock::TryAcquire(AcquireCallback cb) {
  impl_->Begin(std::chrono::milliseconds(0), true, std::move(cb));
}

void Lock::Release(ReleaseCallback cb) {
  Impl& s = *impl_;
  if (s.state == Impl::State::kHeld && s.holds > 1) {  // an inner release of a re-entrant hold
    --s.holds;
    Send(*s.client, {"DELTP", s.name}, [cb = std::move(cb)](const Reply& r) {
      if (cb) cb(r.is_integer() && r.integer == 1);
    });
    return;
  }
  if (s.state == Impl::State::kHeld) {
    s.state = Impl::State::kIdle;
    ++s.hold_seq;
    s.holds = 0;
    s.fence = 0;
    s.StopWatch();
    Send(*s.client, {"DELTP", s.name}, [cb = std::move(cb)](const Reply& r) {
      if (cb) cb(r.is_integer() && r.integer == 1);
    });
    return;
  }
  if (s.state == Impl::State::kAcquiring) s.Finish(AcquireStatus::kCancelled, "");
  if (cb) cb(false);
}

void Lock::Adopt(long long fence) {
  Impl& s = *impl_;
  if (s.state == Impl::State::kAcquiring) s.Finish(AcquireStatus::kCancelled, "");
  s.state = Impl::State::kHeld;
  ++s.hold_seq;
  s.holds = 1;
  s.fence = fence;
  s.StartWatch();
}

void Lock::SetLostCallback(LostCallback cb) { impl_->lost_cb = std::move(cb); }
bool Lock::held() const { return impl_->state == Impl::State::kHeld; }
bool Lock::acquiring() const { return impl_->state == Impl::State::kAcquiring; }
long long Lock::fence_token() const { return impl_->fence; }
int Lock::hold_count() const { return impl_->holds; }
const std::string& Lock::name() const { return impl_->name; }
const std::string& Lock::value() const { return impl_->options.value; }

void Lock::Impl::Begin(std::chrono::milliseconds timeout, bool only_try, AcquireCallback cb) {
  if (state == State::kHeld && options.reentrant && !client->closed()) {
    Reenter(std::move(cb));
    return;
  }
  if (state != State::kIdle) {
    if (cb) {
      cb(AcquireStatus::kFailed,
         state == State::kHeld ? "the lock is already held" : "the lock is already being acquired");
    }
    return;
  }
  if (client->closed()) {
    if (cb) cb(AcquireStatus::kFailed, "the client is closed");
    return;
  }
  state = State::kAcquiring;
  ++acquire_seq;
  maybe_ours = false;
  refusal_checked = false;
  try_only = only_try;
  acquire_cb = std::move(cb);
  forever = only_try || timeout == kForever;
  if (!forever) {
    deadline = std::chrono::steady_clock::now() + timeout;
    timeval tv;
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    evtimer_add(timer, &tv);
  }
  if (!fair() && !try_only) StartWatch();
  Attempt();
}

// Sends one SETTP/BSETTP unless one is already on the wire (its reply will decide).
void Lock::Impl::Attempt() {
  if (in_flight || state != State::kAcquiring) return;
  std::vector<std::string> argv;
  if (fair() && !try_only) {
    std::string seconds = "0";  // BSETTP: 0 waits forever
    if (!forever) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() < 1) {
        Finish(AcquireStatus::kTimedOut, "");
        return;
      }
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.3f", static_cast<double>(left.count()) / 1000.0);
      seconds = buf;
    }
    argv = {"BSETTP", name, options.value, seconds};
  } else {
    argv = {"SETTP", name, options.value};
  }
  if (options.fence) argv.push_back("FENCE");
  // After a lost command that may have run, ask without REENTRANT: a hold it took must not be
  // counted twice (a refusal is then checked by CheckWhyRefused).
  if (options.reentrant && !maybe_ours) argv.push_back("REENTRANT");
  in_flight = true;
  Send(*client, std::move(argv),
       [self = shared_from_this()](const Reply& r) { self->OnAcquireReply(r); });
}

void Lock::Impl::OnAcquireReply(const Reply& r) {
  in_flight = false;
  if (r.local) {  // connection lost or client closed
    if (state != State::kAcquiring) return;
    if (client->closed()) {
      Finish(AcquireStatus::kFailed, r.str);
    } else {
      if (client->session_active()) maybe_ours = true;
      Attempt();  // queued until the next connection is ready
    }
    return;
  }
  if (r.is_error()) {
    if (state == State::kAcquiring) Finish(AcquireStatus::kFailed, r.str);
    return;
  }
  if (r.is_integer() && r.integer > 0) {
    if (state != State::kAcquiring) {  // an abandoned attempt created the key: give it back
      Send(*client, {"DELTP", name}, nullptr);
      return;
    }
    BecomeHeld(options.fence ? r.integer : 0);
    // The opportunistic Acquire() watched before its SETTP, so every later change reaches it.
    // Every other hold starts its watch now; the watch's first state then checks that the key
    // is still ours (OnWatch), which closes the gap between this reply and the registration.
    if (fair() || try_only) StartWatch();
    Finish(AcquireStatus::kAcquired, "");
    return;
  }
  if (state != State::kAcquiring) return;
  if (maybe_ours || (fair() && !try_only) || !refusal_checked) {
    // A BSETTP answers 0 early when the server's wait ended (timeout, CLIENT UNBLOCK) or when
    // this owner already has the key (the server never lets an owner wait for itself); a
    // SETTP's first 0 may also be this owner's own key.
    refusal_checked = true;
    CheckWhyRefused();
  } else if (try_only) {
    Finish(AcquireStatus::kBusy, "");
  }
  // Opportunistic: the key exists; the next DEL (or NOEXIST after a reconnect) retries. A DEL
  // that arrived before this reply happened before SETTP ran, so it is already accounted for.
}

void Lock::Impl::OnWatch(const WatchEvent& ev) {
  const bool gone = ev.type == WatchEventType::kDel || ev.type == WatchEventType::kNoExist;
  if (state == State::kAcquiring) {
    if (ev.type == WatchEventType::kError) {
      Finish(AcquireStatus::kFailed, ev.error);
    } else if (gone) {
      Attempt();
    }
  } else if (state == State::kHeld) {
    if (gone) {
      Lost("the lock key was deleted by someone else");
    } else if (ev.type == WatchEventType::kExist) {
      VerifyOwnership();  // a key exists under our name: is it still the one we took?
    } else if (ev.type == WatchEventType::kError) {
      Lost("the server refused to watch the lock key: " + ev.error);
    }
  }
}

// Called when the watch of a held lock (re)registers and finds the key present. Changes after
// the registration arrive as pushes; what happened before it is settled by asking who owns the
// key now: if it is not this connection, the key we took was deleted and someone else created
// it again (or the server handed it to the next waiter) while we were not yet watching.
void Lock::Impl::VerifyOwnership() {
  const uint64_t seq = hold_seq;
  auto owner = std::make_shared<std::optional<Reply>>();
  Send(*client, {"OBJECT", "OWNER", name}, [owner](const Reply& r) { *owner = r; });
  Send(*client, {"CLIENT", "ID"}, [self = shared_from_this(), seq, owner](const Reply& r) {
    if (self->state != State::kHeld || self->hold_seq != seq) return;
    if (r.local || !owner->has_value() || (*owner)->local) return;  // the next connection decides
    if (!r.is_integer()) return;
    const long long me = self->client->session_active() ? self->client->session_id() : r.integer;
    const Reply& o = **owner;
    if (!o.is_integer() || o.integer != me) {
      self->Lost("the lock key was deleted by someone else and is no longer ours");
    }
  });
}

void Lock::Impl::OnConnection(ConnectionEvent ev, const std::string& detail) {
  if (ev == ConnectionEvent::kConnected) return;
  if (ev == ConnectionEvent::kSessionLost) maybe_ours = false;
  if (state == State::kHeld && ev == ConnectionEvent::kDisconnected && !client->session_active()) {
    Lost("connection lost (" + detail + "): the server deleted the lock key");
  } else if (state == State::kHeld && ev == ConnectionEvent::kClosed) {
    Lost("the client was closed (" + detail + ")");
  } else if (state == State::kHeld && ev == ConnectionEvent::kSessionLost) {
    Lost("session lost (" + detail + "): its keys were released");
  } else if (state == State::kAcquiring && client->closed() && !in_flight) {
    Finish(AcquireStatus::kFailed, "the client is closed");
  }
}

// Ends an acquisition with `status`; the state is already kHeld for kAcquired.
void Lock::Impl::Finish(AcquireStatus status, const std::string& error) {
  evtimer_del(timer);
  ++acquire_seq;
  maybe_ours = false;
  if (status != AcquireStatus::kAcquired) {
    state = State::kIdle;
    StopWatch();
  }
  AcquireCallback cb = std::move(acquire_cb);
  acquire_cb = nullptr;
  if (cb) cb(status, error);
}

// The acquisition just succeeded (or was found already done): one hold, watched.
void Lock::Impl::BecomeHeld(long long token) {
  state = State::kHeld;
  ++hold_seq;
  holds = 1;
  fence = token;
}

// After a refusal ("0") that may not mean "someone else has it": asks who owns the key (and its
// token) and this connection's id in one pipeline. Ours after a lost acquisition command: that
// command did run, the lock is held. Ours otherwise: another Lock object of this owner holds
// it — a failure, as waiting for oneself would never end. Not ours: go on as for a refusal.
void Lock::Impl::CheckWhyRefused() {
  const uint64_t seq = acquire_seq;
  auto owner = std::make_shared<std::optional<Reply>>();
  auto token = std::make_shared<std::optional<Reply>>();
  Send(*client, {"OBJECT", "OWNER", name}, [owner](const Reply& r) { *owner = r; });
  Send(*client, {"OBJECT", "FENCE", name}, [token](const Reply& r) { *token = r; });
  Send(*client, {"CLIENT", "ID"}, [self = shared_from_this(), seq, owner, token](const Reply& r) {
    if (self->state != State::kAcquiring || self->acquire_seq != seq) return;
    if (r.local || !owner->has_value() || (*owner)->local) {  // lost again: start over there
      if (self->client->session_active()) self->maybe_ours = true;
      self->Attempt();
      return;
    }
    const long long me = self->client->session_active() ? self->client->session_id() : r.integer;
    const bool ours = (*owner)->is_integer() && (*owner)->integer == me && r.is_integer();
    if (ours && self->maybe_ours) {
      const long long t = token->has_value() && (*token)->is_integer() ? (*token)->integer : 0;
      self->BecomeHeld(self->options.fence ? t : 0);
      self->StartWatch();
      self->Finish(AcquireStatus::kAcquired, "");
    } else if (ours) {
      self->Finish(AcquireStatus::kFailed,
                   "this connection already holds '" + self->name + "' (another Lock object)");
    } else {
      self->maybe_ours = false;
      if (self->try_only) {
        self->Finish(AcquireStatus::kBusy, "");
      } else if (self->fair()) {
        self->Attempt();  // the server's wait ended early: wait for what is left
      }
      // Opportunistic: the next DEL (or NOEXIST) retries.
    }
  });
}

// Acquire() on a held re-entrant lock: one more hold (SETTP ... REENTRANT never waits for the
// owner's own key), answered with the first acquisition's token.
void Lock::Impl::Reenter(AcquireCallback cb) {
  std::vector<std::string> argv = {"SETTP", name, options.value};
  if (options.fence) argv.push_back("FENCE");
  argv.push_back("REENTRANT");
  const uint64_t seq = hold_seq;
  Send(*client, std::move(argv), [self = shared_from_this(), seq, cb](const Reply& r) {
    const bool same = self->state == State::kHeld && self->hold_seq == seq;
    if (r.is_integer() && r.integer > 0) {
      if (same) {
        ++self->holds;
        if (cb) cb(AcquireStatus::kAcquired, "");
      } else {
        Send(*self->client, {"DELTP", self->name}, nullptr);  // the hold it counted is gone
        if (cb) cb(AcquireStatus::kFailed, "the lock was lost meanwhile");
      }
      return;
    }
    if (cb) {
      cb(AcquireStatus::kFailed, r.is_error() ? r.str : "the lock is no longer held by this owner");
    }
  });
}

void Lock::Impl::Lost(const std::string& reason) {
  state = State::kIdle;
  ++hold_seq;
  holds = 0;
  fence = 0;
  StopWatch();
  if (lost_cb) {
    LostCallback cb = lost_cb;  // the callback may replace itself or acquire again
    cb(reason);
  }
}

void Lock::Impl::StartWatch() {
  if (watch_id != 0) return;
  std::weak_ptr<Impl> weak = weak_from_this();
  watch_id = client->Watch(name, [weak](const WatchEvent& ev) {
    if (auto self = weak.lock()) self->OnWatch(ev);
  });
}

void Lock::Impl::StopWatch() {
  if (watch_id == 0) return;
  client->Unwatch(watch_id);
  watch_id = 0;
}

void Lock::Impl::TimerCb(int, short, void* arg) {
  auto* self = static_cast<Impl*>(arg);
  if (self->state == State::kAcquiring) self->Finish(AcquireStatus::kTimedOut, "");
}

}  // namespace redistp::client
