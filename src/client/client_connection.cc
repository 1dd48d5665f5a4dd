// Client, connection half: resolving, non-blocking connect with a timeout, the handshake,
// back-off between attempts, socket reads and writes, and the one path that ends a connection.
//
// States: kIdle (never started) -> kBackoff (a timer will start an attempt) -> kConnecting
// (TCP connect in progress) -> kHandshake (AUTH/SELECT/SETNAME/LEASE replies awaited) ->
// kReady. Any failure goes through ConnectionLost(), which bumps generation_ so that code still
// running for the old connection can tell, fails every waiting reply, and either schedules the
// next attempt (kBackoff) or closes the client (kClosed). The reply reader is replaced only when
// an attempt begins, which always happens from the timer, never inside a reply callback, so the
// read loop may keep using it while callbacks run.
#include <event2/event.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "client/errors.h"
#include "client/redistp_client.h"

namespace redistp::client {
namespace {

constexpr size_t kReadChunk = 16 * 1024;
constexpr int kMaxReadsPerWakeup = 16;

timeval ToTimeval(std::chrono::milliseconds ms) {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

}  // namespace

Client::Client(event_base* base, ClientOptions options)
    : base_(base), options_(std::move(options)) {
  timer_ev_ = evtimer_new(base_, &Client::TimerCb, this);
  flush_ev_ = event_new(base_, -1, 0, &Client::FlushCb, this);
  lease_ev_ = event_new(base_, -1, EV_PERSIST, &Client::LeaseCb, this);
  session_ev_ = evtimer_new(base_, &Client::SessionCb, this);
  rng_state_ = reinterpret_cast<uintptr_t>(this) ^
               static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  if (rng_state_ == 0) rng_state_ = 1;
}

Client::~Client() {
  CloseSocket();
  event_free(timer_ev_);
  event_free(flush_ev_);
  event_free(lease_ev_);
  event_free(session_ev_);
}

void Client::Start() {
  if (state_ != State::kIdle && state_ != State::kClosed) return;
  state_ = State::kBackoff;
  backoff_attempt_ = 0;
  ScheduleConnect(std::chrono::milliseconds(0));
}

void Client::Close() {
  if (state_ == State::kClosed) return;
  const bool was_ready = state_ == State::kReady;
  CloseSocket();
  evtimer_del(timer_ev_);
  ++generation_;
  state_ = State::kClosed;
  in_user_multi_ = false;
  unwatch_in_flight_.clear();
  evtimer_del(session_ev_);
  if (!session_token_.empty()) session_given_up_ = true;  // Locks report loss on kClosed
  for (auto& [key, subs] : watches_) {
    for (Subscriber& s : subs) s.active = false;
  }
  if (was_ready) Notify(ConnectionEvent::kDisconnected, "closed by the program");
  Notify(ConnectionEvent::kClosed, "closed by the program");
  FailAll(kErrClosed);
}

void Client::ScheduleConnect(std::chrono::milliseconds delay) {
  timeval tv = ToTimeval(delay);
  evtimer_add(timer_ev_, &tv);
}

void Client::TimerCb(int, short, void* arg) {
  auto* self = static_cast<Client*>(arg);
  switch (self->state_) {
    case State::kBackoff:
      self->BeginConnect();
      break;
    case State::kConnecting:
    case State::kHandshake:
      self->ConnectionLost("no connection within " +
                           std::to_string(self->options_.connect_timeout.count()) + " ms");
      break;
    default:
      break;
  }
}

// Resolves the host (getaddrinfo blocks; hosts are names from a configuration, resolved once
// per attempt) and tries each address in turn. The connect timeout covers connect + handshake.
void Client::BeginConnect() {
  state_ = State::kConnecting;
  reader_ = std::make_unique<ReplyReader>();
  out_.clear();
  out_pos_ = 0;
  addrs_.clear();
  addr_index_ = 0;
  last_connect_error_.clear();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  target_host_ = options_.host;
  target_port_ = options_.port;
  if (!options_.sentinels.empty()) {
    std::string why;
    if (!AskSentinels(&target_host_, &target_port_, &why)) {
      target_host_ = "master '" + options_.master_name + "'";
      target_port_ = 0;
      ConnectionLost("no address from the sentinels: " + why);
      return;
    }
  }
  const std::string port = std::to_string(target_port_);
  const int rc = getaddrinfo(target_host_.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) {
    ConnectionLost(std::string("cannot resolve host: ") + gai_strerror(rc));
    return;
  }
  for (addrinfo* p = res; p != nullptr; p = p->ai_next) {
    const char* raw = reinterpret_cast<const char*>(p->ai_addr);
    addrs_.emplace_back(raw, raw + p->ai_addrlen);
  }
  freeaddrinfo(res);
  ScheduleConnect(options_.connect_timeout);
  TryNextAddress();
}

void Client::TryNextAddress() {
  while (addr_index_ < addrs_.size()) {
    const std::vector<char>& a = addrs_[addr_index_++];
    const auto* sa = reinterpret_cast<const sockaddr*>(a.data());
    const int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last_connect_error_ = std::strerror(errno);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, sa, static_cast<socklen_t>(a.size())) == 0) {
      fd_ = fd;
      OnSocketConnected();
      return;
    }
    if (errno == EINPROGRESS) {
      fd_ = fd;
      connect_ev_ = event_new(base_, fd, EV_WRITE, &Client::ConnectCb, this);
      event_add(connect_ev_, nullptr);
      return;
    }
    last_connect_error_ = std::strerror(errno);
    close(fd);
  }
  ConnectionLost(last_connect_error_.empty() ? "no usable address" : last_connect_error_);
}

void Client::ConnectCb(int fd, short, void* arg) {
  auto* self = static_cast<Client*>(arg);
  event_free(self->connect_ev_);
  self->connect_ev_ = nullptr;
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err != 0) {
    self->last_connect_error_ = std::strerror(err);
    close(fd);
    self->fd_ = -1;
    self->TryNextAddress();
    return;
  }
  self->OnSocketConnected();
}

void Client::OnSocketConnected() {
  read_ev_ = event_new(base_, fd_, EV_READ | EV_PERSIST, &Client::ReadCb, this);
  write_ev_ = event_new(base_, fd_, EV_WRITE | EV_PERSIST, &Client::WriteCb, this);
  event_add(read_ev_, nullptr);
  BeginHandshake();
}

// Sends the session's settings, pipelined; the connection is ready when the last one is
// acknowledged. Any error ends the attempt (and is reported through kConnectFailed).
void Client::BeginHandshake() {
  state_ = State::kHandshake;
  std::vector<std::vector<std::string>> steps;
  if (!options_.password.empty()) {
    if (options_.user.empty()) {
      steps.push_back({"AUTH", options_.password});
    } else {
      steps.push_back({"AUTH", options_.user, options_.password});
    }
  }
  if (options_.db != 0) steps.push_back({"SELECT", std::to_string(options_.db)});
  if (!options_.name.empty()) steps.push_back({"CLIENT", "SETNAME", options_.name});
  if (options_.lease.count() > 0) {
    steps.push_back({"CLIENT", "LEASE", std::to_string(options_.lease.count())});
  }
  const bool session = options_.session_grace.count() > 0;
  if (steps.empty() && !session && options_.sentinels.empty()) {
    OnReady();
    return;
  }
  if (!options_.sentinels.empty()) {
    // A sentinel's answer can be stale (a failover in progress): only a master will do.
    const bool last = steps.empty() && !session;
    Write(
        {"ROLE"},
        [this, last](const Reply& r) {
          if (r.local) return;
          if (!r.is_array() || r.elements.empty() || !r.elements[0].Is("master")) {
            ConnectionLost("ROLE: " + target_host_ + ":" + std::to_string(target_port_) +
                           " is not a master");
            return;
          }
          if (last) OnReady();
        },
        false);
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const bool last = i + 1 == steps.size() && !session;  // else the session step ends it
    std::string what = steps[i][0] == "CLIENT" ? "CLIENT " + steps[i][1] : steps[i][0];
    Write(
        steps[i],
        [this, last, what](const Reply& r) {
          if (r.local) return;
          if (r.is_error()) {
            ConnectionLost(what + " failed: " + r.str);
            return;
          }
          if (last) OnReady();
        },
        false);
  }
  if (session) SendSessionHandshake();
}

// The connection is usable: re-register every watch (each subscriber will get a fresh first
// state), send what was queued meanwhile, then tell the listeners.
void Client::OnReady() {
  state_ = State::kReady;
  backoff_attempt_ = 0;
  ++connections_;
  evtimer_del(timer_ev_);
  // PINGs keep the lease and, with a session, keep its proof of life recent.
  std::chrono::milliseconds keepalive{0};
  if (options_.lease.count() > 0) keepalive = options_.lease / 3;
  if (options_.session_grace.count() > 0 &&
      (keepalive.count() == 0 || options_.session_grace / 3 < keepalive)) {
    keepalive = options_.session_grace / 3;
  }
  if (options_.lease.count() > 0 || options_.session_grace.count() > 0) {
    timeval tv =
        ToTimeval(std::max<std::chrono::milliseconds>(keepalive, std::chrono::milliseconds(1)));
    event_add(lease_ev_, &tv);
  }
  // Keys in the order they were first subscribed, so fresh states arrive in that order too.
  std::vector<std::pair<WatchId, const std::string*>> keys;
  for (auto& [key, subs] : watches_) {
    for (Subscriber& s : subs) s.active = false;
    keys.emplace_back(subs.front().id, &key);
  }
  std::sort(keys.begin(), keys.end());
  for (const auto& [first_id, key] : keys) {
    std::vector<WatchId> ids;
    for (const Subscriber& s : watches_[*key]) ids.push_back(s.id);
    SendWatchex(*key, std::move(ids));
  }
  std::deque<Request> queued = std::move(queued_);
  queued_.clear();
  for (Request& r : queued) SendNow(std::move(r));
  Notify(ConnectionEvent::kConnected, target_host_ + ":" + std::to_string(target_port_));
}

// The one way a connection ends by failure. Safe to call from any callback of this client.
void Client::ConnectionLost(const std::string& reason) {
  if (state_ != State::kConnecting && state_ != State::kHandshake && state_ != State::kReady) {
    return;
  }
  const bool was_ready = state_ == State::kReady;
  CloseSocket();
  evtimer_del(timer_ev_);
  ++generation_;
  if (was_ready && session_active()) ArmSessionDeadline();
  in_user_multi_ = false;
  unwatch_in_flight_.clear();
  for (auto& [key, subs] : watches_) {
    for (Subscriber& s : subs) s.active = false;
  }
  if (options_.reconnect) {
    state_ = State::kBackoff;
    const int shift = std::min(backoff_attempt_, 20);
    long long delay = options_.backoff_initial.count() << shift;
    delay = std::min<long long>(delay, options_.backoff_max.count());
    rng_state_ ^= rng_state_ << 13;
    rng_state_ ^= rng_state_ >> 7;
    rng_state_ ^= rng_state_ << 17;
    delay += static_cast<long long>(rng_state_ % static_cast<uint64_t>(delay / 4 + 1));
    ++backoff_attempt_;
    retry_delay_ = std::chrono::milliseconds(delay);
    ScheduleConnect(retry_delay_);
  } else {
    state_ = State::kClosed;
  }
  if (was_ready) {
    Notify(ConnectionEvent::kDisconnected, reason);
  } else {
    Notify(ConnectionEvent::kConnectFailed,
           "cannot connect to " + target_host_ +
               (target_port_ != 0 ? ":" + std::to_string(target_port_) : std::string()) + ": " +
               reason);
  }
  if (state_ == State::kClosed) Notify(ConnectionEvent::kClosed, "no reconnect: " + reason);
  FailAll(kErrConnectionLost);
}

void Client::CloseSocket() {
  if (read_ev_ != nullptr) event_free(read_ev_);
  if (write_ev_ != nullptr) event_free(write_ev_);
  if (connect_ev_ != nullptr) event_free(connect_ev_);
  read_ev_ = write_ev_ = connect_ev_ = nullptr;
  write_armed_ = false;
  event_del(lease_ev_);
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  out_.clear();
  out_pos_ = 0;
}

// Answers every reply still expected with `error` (local answers keep their own), and, once the
// client is closed, every queued command with kErrClosed.
void Client::FailAll(const char* error) {
  std::deque<Slot> slots = std::move(pending_);
  pending_.clear();
  std::deque<Request> held = std::move(held_internal_);
  held_internal_.clear();
  for (Slot& s : slots) {
    if (s.handler) s.handler(s.local ? *s.local : Reply::LocalError(error));
  }
  for (Request& r : held) {
    if (r.handler) r.handler(Reply::LocalError(error));
  }
  if (state_ == State::kClosed) {
    std::deque<Request> queued = std::move(queued_);
    queued_.clear();
    for (Request& r : queued) {
      if (r.handler) r.handler(Reply::LocalError(kErrClosed));
    }
  }
}

void Client::ReadCb(int, short, void* arg) { static_cast<Client*>(arg)->OnReadable(); }
void Client::WriteCb(int, short, void* arg) { static_cast<Client*>(arg)->OnWritable(); }
void Client::FlushCb(int, short, void* arg) { static_cast<Client*>(arg)->OnFlush(); }
void Client::LeaseCb(int, short, void* arg) { static_cast<Client*>(arg)->OnLeaseTick(); }

// Reads what the socket has, then hands every complete frame to OnFrame. Frames that arrived
// before an end of stream are delivered before the connection is declared lost.
void Client::OnReadable() {
  char buf[kReadChunk];
  bool eof = false;
  std::string error;
  for (int i = 0; i < kMaxReadsPerWakeup; ++i) {
    const ssize_t n = read(fd_, buf, sizeof(buf));
    if (n > 0) {
      reader_->Feed(buf, static_cast<size_t>(n));
      if (static_cast<size_t>(n) < sizeof(buf)) break;
      continue;
    }
    if (n == 0) {
      eof = true;
      break;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) error = std::strerror(errno);
    break;
  }
  const uint64_t gen = generation_;
  ReplyReader* reader = reader_.get();
  while (gen == generation_) {
    std::optional<Reply> frame = reader->Next();
    if (!frame) {
      if (reader->failed()) ConnectionLost("protocol error: " + reader->error());
      break;
    }
    // With sentinels, a server that answers READONLY is no longer the master: after the
    // command gets its answer, the connection ends and the next attempt asks them again.
    const bool demoted =
        !options_.sentinels.empty() && frame->is_error() && frame->str.rfind("READONLY", 0) == 0;
    OnFrame(std::move(*frame));
    if (demoted && gen == generation_) {
      ConnectionLost("the server is no longer the master (READONLY)");
      return;
    }
  }
  if (gen != generation_) return;
  if (eof) {
    ConnectionLost("server closed the connection");
  } else if (!error.empty()) {
    ConnectionLost(error);
  }
}

void Client::OnWritable() { TryWrite(); }

void Client::ScheduleFlush() {
  if (flush_scheduled_) return;
  flush_scheduled_ = true;
  event_active(flush_ev_, EV_TIMEOUT, 0);
}

// Runs once per loop turn in which something was queued: local answers that reached the head,
// answers for commands issued after Close(), then one write of everything buffered.
void Client::OnFlush() {
  flush_scheduled_ = false;
  DrainLocalHead();
  std::deque<std::pair<Handler, Reply>> closed = std::move(closed_replies_);
  closed_replies_.clear();
  for (auto& [handler, reply] : closed) {
    if (handler) handler(reply);
  }
  if (fd_ >= 0 && (state_ == State::kHandshake || state_ == State::kReady)) TryWrite();
}

void Client::TryWrite() {
  while (out_pos_ < out_.size()) {
    const ssize_t n = send(fd_, out_.data() + out_pos_, out_.size() - out_pos_, MSG_NOSIGNAL);
    if (n > 0) {
      out_pos_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!write_armed_) {
        event_add(write_ev_, nullptr);
        write_armed_ = true;
      }
      if (out_pos_ > 64 * 1024) {
        out_.erase(0, out_pos_);
        out_pos_ = 0;
      }
      return;
    }
    ConnectionLost(n < 0 ? std::strerror(errno) : "write failed");
    return;
  }
  out_.clear();
  out_pos_ = 0;
  if (write_armed_) {
    event_del(write_ev_);
    write_armed_ = false;
  }
}

void Client::OnLeaseTick() {
  // A PING inside the program's open MULTI would become part of its transaction; the
  // program's own commands renew the lease meanwhile.
  if (state_ == State::kReady && !in_user_multi_) Write({"PING"}, nullptr, false);
}

}  // namespace redistp::client
