// PatternFeed: a reconnecting PSUBSCRIBE connection (pattern_feed.h).
#include "tools/pattern_feed.h"

#include <event2/event.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace redistp::tools {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kBackoffMax{2000};

// Waits for `events` on `fd` until `deadline`; false on timeout or error.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

// A non-blocking TCP connection to host:port within the deadline, or -1 with `*error` set.
int Dial(const client::ClientOptions& o, Clock::time_point deadline, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(o.port);
  const int rc = getaddrinfo(o.host.c_str(), port.c_str(), &hints, &res);
  const std::string where = o.host + ":" + port;
  if (rc != 0) {
    *error = "cannot connect to " + where + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  std::string why = "no address";
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 ||
        (errno == EINPROGRESS && WaitFor(fd, POLLOUT, deadline))) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err == 0) break;
      why = std::strerror(err);
    } else {
      why = errno == EINPROGRESS ? "connection timed out" : std::strerror(errno);
    }
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) {
    *error = "cannot connect to " + where + ": " + why;
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

bool WriteAll(int fd, const std::string& data, Clock::time_point deadline) {
  size_t pos = 0;
  while (pos < data.size()) {
    const ssize_t n = write(fd, data.data() + pos, data.size() - pos);
    if (n > 0) {
      pos += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!WaitFor(fd, POLLOUT, deadline)) return false;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string EscapeGlob(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

PatternFeed::PatternFeed(event_base* base, client::ClientOptions options,
                         std::vector<std::string> patterns, MessageCallback on_message,
                         StatusCallback on_status)
    : base_(base),
      options_(std::move(options)),
      patterns_(std::move(patterns)),
      on_message_(std::move(on_message)),
      on_status_(std::move(on_status)) {
  retry_ev_ = evtimer_new(base_, &PatternFeed::RetryCb, this);
}

PatternFeed::~PatternFeed() {
  if (read_ev_ != nullptr) event_free(read_ev_);
  event_free(retry_ev_);
  if (fd_ >= 0) close(fd_);
}

bool PatternFeed::Start(std::string* error, bool* refused) { return Connect(error, refused); }

// Dials, authenticates and subscribes; on success the socket is read on the loop.
bool PatternFeed::Connect(std::string* error, bool* refused) {
  *refused = false;
  const Clock::time_point deadline = Clock::now() + options_.connect_timeout;
  const int fd = Dial(options_, deadline, error);
  if (fd < 0) return false;
  std::string out;
  size_t expected = 0;
  if (!options_.password.empty()) {
    if (options_.user.empty()) {
      client::AppendCommand(out, {"AUTH", options_.password});
    } else {
      client::AppendCommand(out, {"AUTH", options_.user, options_.password});
    }
    ++expected;
  }
  std::vector<std::string> argv = {"PSUBSCRIBE"};
  argv.insert(argv.end(), patterns_.begin(), patterns_.end());
  client::AppendCommand(out, argv);
  expected += patterns_.size();  // one confirmation per pattern
  auto reader = std::make_unique<client::ReplyReader>();
  const std::string where = options_.host + ":" + std::to_string(options_.port);
  if (!WriteAll(fd, out, deadline)) {
    close(fd);
    *error = "cannot talk to " + where + ": " + std::strerror(errno);
    return false;
  }
  // Read the replies of the handshake: AUTH's +OK, then the psubscribe confirmations.
  while (expected > 0) {
    if (std::optional<client::Reply> r = reader->Next()) {
      if (r->is_error()) {
        close(fd);
        *error = "the server refused: " + r->str;
        *refused = true;
        return false;
      }
      --expected;
      continue;
    }
    char buf[4096];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      reader->Feed(buf, static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!WaitFor(fd, POLLIN, deadline)) {
        close(fd);
        *error = "no answer from " + where + " within the connect timeout";
        return false;
      }
    } else {
      close(fd);
      *error = "connection to " + where + " closed during the handshake";
      return false;
    }
  }
  fd_ = fd;
  reader_ = std::move(reader);
  read_ev_ = event_new(base_, fd_, EV_READ | EV_PERSIST, &PatternFeed::ReadCb, this);
  event_add(read_ev_, nullptr);
  backoff_ = std::chrono::milliseconds(50);
  OnReadable();  // messages may have come with the last confirmation
  return true;
}

void PatternFeed::OnReadable() {
  // At most a few reads per wake-up, so a busy feed cannot starve the signal events.
  for (int reads = 0; reads < 16; ++reads) {
    while (std::optional<client::Reply> r = reader_->Next()) {
      // ["pmessage", pattern, channel, message]; confirmations and anything else are skipped.
      if (r->is_array() && r->elements.size() == 4 && r->elements[0].Is("pmessage")) {
        on_message_(r->elements[2].str, r->elements[3].str);
      }
    }
    if (reader_->failed()) {
      Lost("protocol error: " + reader_->error());
      return;
    }
    char buf[16384];
    const ssize_t n = read(fd_, buf, sizeof(buf));
    if (n > 0) {
      reader_->Feed(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      Lost("connection closed by the server");
      return;
    } else {
      if (errno != EAGAIN && errno != EINTR) Lost(std::strerror(errno));
      return;
    }
  }
}

void PatternFeed::Lost(const std::string& why) {
  event_free(read_ev_);
  read_ev_ = nullptr;
  close(fd_);
  fd_ = -1;
  reader_.reset();
  on_status_(false, "connection lost (" + why + "), reconnecting; changes until then are missed");
  Retry();
}

void PatternFeed::Retry() {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(backoff_.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((backoff_.count() % 1000) * 1000);
  evtimer_add(retry_ev_, &tv);
  backoff_ = std::min(backoff_ * 2, kBackoffMax);
}

void PatternFeed::ReadCb(int, short, void* arg) { static_cast<PatternFeed*>(arg)->OnReadable(); }

void PatternFeed::RetryCb(int, short, void* arg) {
  auto* self = static_cast<PatternFeed*>(arg);
  std::string error;
  bool refused = false;
  if (self->Connect(&error, &refused)) {
    self->on_status_(
        false, "reconnected to " + self->options_.host + ":" + std::to_string(self->options_.port));
  } else if (refused) {
    self->stopped_ = true;
    self->on_status_(true, error);
  } else {
    self->Retry();
  }
}

}  // namespace redistp::tools
