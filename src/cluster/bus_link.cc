// The cluster bus's sockets (see bus_link.h for the model the owner relies on).
//
// Events. libevent reports readiness only; the bytes live in our own buffers. A link has a
// persistent read event (armed from accept, or from the completion of its connect) and a
// persistent write event that is pending only while something must be written: the connect in
// progress (its completion makes the socket writable) or bytes the socket did not take.
//
// Re-entrancy. The owner's callbacks may close links, this one included, and open new ones.
// `in_callback_` names the link a callback is about; Close() on it only marks it `closing_`,
// and the code that made the call frees it once the callback returns and touches nothing of it
// after. Close() on any other link frees it at once, which is safe because no callback of that
// link is running (callbacks never nest: nothing the owner may call runs one). Send() never
// frees a link: a write error there closes the socket and leaves the link with fd_ == -1, and
// the next Cron() reports it, as it does a connect that could not start. The send buffer limit
// is checked by Cron() too, as a 7.0 node checks it in its cluster cron, so a link the owner
// holds stays valid across any Send().
#include "cluster/bus_link.h"

#include <arpa/inet.h>
#include <event2/event.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "server/log.h"
#include "util/sock_addr.h"

namespace redistp {
namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr int kMaxReadsPerEvent = 16;  // 1 MB, then the loop serves others (level-triggered)
constexpr int kMaxAcceptsPerCall = 1000;
constexpr int kListenBacklog = 511;
// The written prefix of the send buffer is dropped when it is this large and more than half.
constexpr size_t kCompactAt = 64 * 1024;
// A drained send buffer keeps its memory unless it grew beyond this.

// The text form of an address (inet_ntop: an IPv4-mapped IPv6 peer reads "::ffff:a.b.c.d", as
// Redis prints it), or "?" for another family.
std::string IpText(const sockaddr_storage& ss) {
  char ip[INET6_ADDRSTRLEN] = "?";
  if (ss.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, ip, sizeof(ip));
  } else if (ss.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr, ip, sizeof(ip));
  }
  return ip;
}

int PortOf(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_port);
  }
  return 0;
}

std::string LocalIp(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) < 0) return "?";
  return IpText(ss);
}

void SetNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// The type word of a whole frame (bytes 12-13, big-endian), for counting a frame that does not
// decode.
uint16_t FrameType(const std::string& frame) {
  return static_cast<uint16_t>((static_cast<uint8_t>(frame[12]) << 8) |
                               static_cast<uint8_t>(frame[13]));
}

// Opens one listening socket on `addr` ("*" and "::*" are the IPv4 and IPv6 wildcards; an
// address with ':' is IPv6, as Redis decides) at `port`: non-blocking, close-on-exec,
// SO_REUSEADDR, IPv6-only for IPv6. Returns the fd, or -1 with *err set to the errno (0 for a
// name that does not resolve) and *why to the text Redis's log line ends with.
int OpenListener(const std::string& addr, int port, int* err, std::string* why) {
  const bool v6 = addr.find(':') != std::string::npos;
  const bool wildcard = addr == "*" || addr == "::*";
  addrinfo hints{};
  hints.ai_family = v6 ? AF_INET6 : AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string port_text = std::to_string(port);
  const int rc = getaddrinfo(wildcard ? nullptr : addr.c_str(), port_text.c_str(), &hints, &res);
  if (rc != 0) {
    *err = rc == EAI_SYSTEM ? errno : 0;
    *why = gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      *err = errno;
      *why = std::string("creating socket: ") + std::strerror(errno);
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ai->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
      *err = errno;
      *why = std::string("bind: ") + std::strerror(errno);
    } else if (listen(fd, kListenBacklog) < 0) {
      *err = errno;
      *why = std::string("listen: ") + std::strerror(errno);
    } else {
      break;
    }
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  return fd;
}

// The errors with which an optional ("-" prefixed) bind address is skipped: this host has no
// such address or family.
bool SkippableForOptional(int err) {
  return err == EADDRNOTAVAIL || err == EAFNOSUPPORT || err == EPROTONOSUPPORT ||
         err == ESOCKTNOSUPPORT || err == EPFNOSUPPORT || err == ENOPROTOOPT || err == EINVAL;
}

}  // namespace

struct BusNet::Listener {
  int fd = -1;
  EventPtr ev;
};

BusNet::BusNet(event_base* base, BusLinkOwner& owner, Logger& log, int64_t (*now_ms)(void*),
               void* clock_arg)
    : base_(base), owner_(owner), log_(log), now_ms_(now_ms), clock_arg_(clock_arg) {}

BusNet::~BusNet() {
  for (auto& link : links_) {
    link->read_ev_.reset();
    link->write_ev_.reset();
    if (link->fd_ >= 0) close(link->fd_);
  }
  links_.clear();
  for (auto& l : listeners_) {
    l->ev.reset();
    if (l->fd >= 0) close(l->fd);
  }
  listeners_.clear();
}

uint64_t BusNet::sent_total() const {
  uint64_t n = 0;
  for (uint64_t v : sent_) n += v;
  return n;
}

uint64_t BusNet::received_total() const {
  uint64_t n = 0;
  for (uint64_t v : received_) n += v;
  return n;
}

// Every address of the list is opened, or none: on a failure the listeners this call opened
// are closed again, and the line a 7.0 node logs ("Warning: Could not create server TCP listening
// socket <addr>:<port>: bind: Address already in use") is logged at warning level and is the
// error's text. The caller adds its own "Failed listening on port <port> (cluster), aborting."
Status BusNet::Listen(const std::vector<std::string>& bind, int port) {
  static const std::vector<std::string> kAll = {"*", "-::*"};
  const std::vector<std::string>& addrs = bind.empty() ? kAll : bind;
  const size_t had = listeners_.size();
  for (const std::string& a : addrs) {
    const bool optional = !a.empty() && a[0] == '-';
    const std::string addr = optional ? a.substr(1) : a;
    int err = 0;
    std::string why;
    const int fd = OpenListener(addr, port, &err, &why);
    if (fd < 0) {
      // Logged for a skipped optional address too (measured on 7.0.15).
      std::string line = "Warning: Could not create server TCP listening socket " + addr + ":" +
                         std::to_string(port) + ": " + why;
      log_.Log(LogLevel::kWarning, "%s", line.c_str());
      if (optional && SkippableForOptional(err)) continue;
      while (listeners_.size() > had) {
        listeners_.back()->ev.reset();
        close(listeners_.back()->fd);
        listeners_.pop_back();
      }
      return Status::Error(std::move(line));
    }
    auto l = std::make_unique<Listener>();
    l->fd = fd;
    l->ev.reset(event_new(base_, fd, EV_READ | EV_PERSIST, &BusNet::OnAccept, this));
    event_add(l->ev.get(), nullptr);
    listeners_.push_back(std::move(l));
  }
  return Status::Ok();
}

// In the child the listening sockets are only closed: removing their events would change the
// epoll set the parent shares with it.
void BusNet::CloseListenersInChild() {
  for (auto& l : listeners_) {
    if (l->fd >= 0) close(l->fd);
    l->fd = -1;
  }
}

void BusNet::OnAccept(int fd, short /*what*/, void* arg) {
  auto* net = static_cast<BusNet*>(arg);
  for (int i = 0; i < kMaxAcceptsPerCall; ++i) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    const int cfd =
        accept4(fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (cfd < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        net->log_.Log(LogLevel::kVerbose, "Error accepting cluster node: %s", std::strerror(errno));
      }
      return;
    }
    SetNoDelay(cfd);
    auto owned = std::make_unique<BusLink>();
    BusLink* link = owned.get();
    link->net_ = net;
    link->dir_ = BusLink::Dir::kFrom;
    link->fd_ = cfd;
    link->create_ms_ = net->now();
    link->connected_ = true;
    link->peer_ip_ = IpText(ss);
    link->local_ip_ = LocalIp(cfd);
    link->read_ev_.reset(
        event_new(net->base_, cfd, EV_READ | EV_PERSIST, &BusNet::OnReadable, link));
    event_add(link->read_ev_.get(), nullptr);
    net->links_.push_back(std::move(owned));
    net->log_.Log(LogLevel::kVerbose, "Accepting cluster node connection from %s:%d",
                  link->peer_ip_.c_str(), PortOf(ss));
    net->in_callback_ = link;
    net->owner_.OnLinkAccepted(link);
    net->in_callback_ = nullptr;
    if (link->closing_) net->Free(link);
  }
}

// The link exists whatever happens here; a connect that cannot start leaves fd_ at -1, and
// Cron() ends it (the caller's one failure path).
BusLink* BusNet::Connect(std::string_view ip, int port, ClusterNode* node, int64_t timeout_ms) {
  auto owned = std::make_unique<BusLink>();
  BusLink* link = owned.get();
  links_.push_back(std::move(owned));
  link->net_ = this;
  link->dir_ = BusLink::Dir::kTo;
  link->node = node;
  link->create_ms_ = now();
  link->connect_deadline_ms_ = link->create_ms_ + timeout_ms;
  link->peer_ip_ = std::string(ip);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port_text = std::to_string(port);
  const int rc = getaddrinfo(link->peer_ip_.c_str(), port_text.c_str(), &hints, &res);
  if (rc != 0) {
    log_.Log(LogLevel::kVerbose, "Unable to connect to Cluster Node [%s]:%d -> %s",
             link->peer_ip_.c_str(), port, gai_strerror(rc));
    return link;
  }
  int err = 0;
  const int fd = StartConnect(
      res, [](int, int) {}, &err);
  freeaddrinfo(res);
  if (fd < 0) {
    log_.Log(LogLevel::kVerbose, "Unable to connect to Cluster Node [%s]:%d -> %s",
             link->peer_ip_.c_str(), port, std::strerror(err));
    return link;
  }
  SetNoDelay(fd);
  link->fd_ = fd;
  // An immediate success is handled like a later one: the socket is writable at once.
  link->write_ev_.reset(event_new(base_, fd, EV_WRITE | EV_PERSIST, &BusNet::OnWritable, link));
  event_add(link->write_ev_.get(), nullptr);
  return link;
}

// Counts and queues; writes at once what the socket takes when nothing is pending already (a
// pending write means the socket was full: the writable event continues it).
void BusNet::Send(BusLink* link, const BusMessage& msg) {
  if (link->closing_) return;
  if (msg.hdr.type < kBusTypeCount) ++sent_[msg.hdr.type];
  if (link->fd_ < 0) return;  // broken or never started: Cron() ends it, the bytes go nowhere
  EncodeBusMessage(msg, &link->out_);
  if (link->connected_ && !link->write_armed_) Flush(link);
}

void BusNet::Close(BusLink* link) {
  if (link == in_callback_) {
    link->closing_ = true;
    link->read_ev_.reset();
    link->write_ev_.reset();
    return;
  }
  Free(link);
}

// Marks the links to end first, then ends them one by one: a callback may close links (a
// marked one is then simply gone) and open new ones (unmarked, so a new link is not judged in
// the Cron() that saw it born, and an owner that reconnects on every failure cannot loop).
void BusNet::Cron() {
  const int64_t now_ms = now();
  for (auto& l : links_) {
    BusLink* link = l.get();
    const bool broken = link->fd_ < 0;
    const bool late = !link->connected_ && now_ms >= link->connect_deadline_ms_;
    const bool full = sendbuf_limit_ != 0 && link->send_buffer_used() > sendbuf_limit_;
    link->cron_doomed_ = !link->closing_ && (broken || late || full);
  }
  for (;;) {
    auto it = std::find_if(links_.begin(), links_.end(),
                           [](const std::unique_ptr<BusLink>& l) { return l->cron_doomed_; });
    if (it == links_.end()) break;
    BusLink* link = it->get();
    link->cron_doomed_ = false;
    if (link->fd_ >= 0 && link->connected_) ++limit_exceeded_;  // neither broken nor late
    Fail(link);
  }
}

void BusNet::OnReadable(int /*fd*/, short /*what*/, void* arg) {
  auto* link = static_cast<BusLink*>(arg);
  link->net_->HandleRead(link);
}

void BusNet::OnWritable(int /*fd*/, short /*what*/, void* arg) {
  auto* link = static_cast<BusLink*>(arg);
  link->net_->HandleWrite(link);
}

// Reads up to kMaxReadsPerEvent chunks, then delivers every whole frame in order, stopping if
// the owner closes the link; EOF, a read error or a stream that is not a bus stream end the
// link after the frames before them are delivered.
void BusNet::HandleRead(BusLink* link) {
  char buf[kReadChunk];
  std::vector<std::string> frames;
  bool end = false;
  for (int i = 0; i < kMaxReadsPerEvent && !end; ++i) {
    const ssize_t n = read(link->fd_, buf, sizeof(buf));
    if (n > 0) {
      Status s = link->reader_.Feed(std::string_view(buf, static_cast<size_t>(n)), &frames);
      if (!s.ok()) {
        log_.Log(LogLevel::kVerbose, "Closing cluster bus link from %s: %s", link->peer_ip_.c_str(),
                 s.message().c_str());
        end = true;
      }
      if (static_cast<size_t>(n) < sizeof(buf)) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    end = true;  // EOF or a read error
  }
  for (const std::string& frame : frames) {
    const uint16_t type = FrameType(frame);
    if (type < kBusTypeCount) ++received_[type];
    Result<BusMessage> msg = DecodeBusMessage(frame);
    if (!msg.ok()) {
      log_.Log(LogLevel::kVerbose, "Received invalid %s packet of length %zu: %s",
               std::string(BusTypeName(type)).c_str(), frame.size(),
               msg.status().message().c_str());
      continue;
    }
    if (msg.value().hdr.ver != kBusProtocolVersion) {
      log_.Log(LogLevel::kVerbose, "Ignoring a cluster bus message of protocol version %u",
               static_cast<unsigned>(msg.value().hdr.ver));
      continue;
    }
    in_callback_ = link;
    owner_.OnLinkFrame(link, msg.value());
    in_callback_ = nullptr;
    if (link->closing_) {
      Free(link);
      return;
    }
  }
  if (end) Fail(link);
}

// A connect in progress completes (SO_ERROR tells how), or pending bytes go out.
void BusNet::HandleWrite(BusLink* link) {
  if (!link->connected_) {
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(link->fd_, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
    if (err != 0) {
      log_.Log(LogLevel::kVerbose, "Cluster bus connect to %s failed: %s", link->peer_ip_.c_str(),
               std::strerror(err));
      Fail(link);
      return;
    }
    link->connected_ = true;
    link->local_ip_ = LocalIp(link->fd_);
    event_del(link->write_ev_.get());
    link->read_ev_.reset(
        event_new(base_, link->fd_, EV_READ | EV_PERSIST, &BusNet::OnReadable, link));
    event_add(link->read_ev_.get(), nullptr);
    in_callback_ = link;
    owner_.OnLinkConnected(link);
    in_callback_ = nullptr;
    if (link->closing_) {
      Free(link);
      return;
    }
  }
  Flush(link);
  if (link->fd_ < 0) Fail(link);
}

// Writes pending bytes until the socket is full or they are all out; arms the writable event
// exactly while bytes remain. A write error closes the socket (fd_ = -1): HandleWrite reports
// it at once, Send leaves it to Cron.
void BusNet::Flush(BusLink* link) {
  while (link->out_pos_ < link->out_.size()) {
    const ssize_t n = send(link->fd_, link->out_.data() + link->out_pos_,
                           link->out_.size() - link->out_pos_, MSG_NOSIGNAL);
    if (n > 0) {
      link->out_pos_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    log_.Log(LogLevel::kVerbose, "Cluster bus write to %s failed: %s", link->peer_ip_.c_str(),
             n < 0 ? std::strerror(errno) : "nothing written");
    link->read_ev_.reset();
    link->write_ev_.reset();
    close(link->fd_);
    link->fd_ = -1;
    link->write_armed_ = false;
    link->out_.clear();
    link->out_pos_ = 0;
    return;
  }
  if (link->out_pos_ == link->out_.size()) {
    link->out_.clear();
    link->out_pos_ = 0;
    // A drained buffer is freed, as Redis 7.0 frees it (CLUSTER LINKS shows 0 allocated on an
    // idle link); the next frame allocates what it needs.
    std::string().swap(link->out_);
    if (link->write_armed_) {
      event_del(link->write_ev_.get());
      link->write_armed_ = false;
    }
    return;
  }
  if (link->out_pos_ >= kCompactAt && link->out_pos_ > link->out_.size() / 2) {
    link->out_.erase(0, link->out_pos_);
    link->out_pos_ = 0;
  }
  if (!link->write_armed_) {
    if (link->write_ev_ == nullptr) {
      link->write_ev_.reset(
          event_new(base_, link->fd_, EV_WRITE | EV_PERSIST, &BusNet::OnWritable, link));
    }
    event_add(link->write_ev_.get(), nullptr);
    link->write_armed_ = true;
  }
}

void BusNet::Fail(BusLink* link) {
  BusLink* const outer = in_callback_;
  in_callback_ = link;
  owner_.OnLinkClosed(link);
  in_callback_ = outer;
  Free(link);
}

void BusNet::Free(BusLink* link) {
  link->read_ev_.reset();
  link->write_ev_.reset();
  if (link->fd_ >= 0) close(link->fd_);
  link->fd_ = -1;
  links_.remove_if([link](const std::unique_ptr<BusLink>& l) { return l.get() == link; });
}

}  // namespace redistp
