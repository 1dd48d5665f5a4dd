// Networking: listeners, accepting clients, reading requests, writing replies, closing.
//
// libevent is used for readiness only (event_new + EV_PERSIST); buffers are our own. A read
// callback reads once (what the query buffer has room for, 16 to 64 KB, or up to the
// end of a big bulk argument known to be arriving), runs every complete command in the query
// buffer; the replies are written in one write(2) (writev(2) when they are held in several
// blocks) once every ready client has been read (with io-threads, possibly on the I/O
// threads: server/threaded_io.cc). Only if the socket cannot take everything is the write
// event armed; it is disarmed once drained.
// Closing goes through CloseClient, the one teardown path; the Client object is freed when the
// loop turn is over (ReapClients) so no caller is left with a dangling pointer. Events are owned
// by EventPtr handles (event_handle.h): resetting a handle deletes and frees the event.
#include <arpa/inet.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "protocol/errors.h"
#include "server/server.h"
#include "util/memory.h"
#include "util/sock_addr.h"

namespace redistp {
namespace {

constexpr size_t kReadChunk = 16 * 1024;
constexpr size_t kReadMax = 64 * 1024;
constexpr size_t kBigArgThreshold = 32 * 1024;
constexpr int kMaxAcceptsPerCall = 1000;
// The output a connection that never authenticated may hold beyond its reply buffer.
constexpr size_t kUnauthOutputLimit = 1024;

bool IsLoopback(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) {
    const auto* s = reinterpret_cast<const sockaddr_in*>(&ss);
    return (ntohl(s->sin_addr.s_addr) >> 24) == 127;
  }
  if (ss.ss_family == AF_INET6) {
    const auto* s = reinterpret_cast<const sockaddr_in6*>(&ss);
    return IN6_IS_ADDR_LOOPBACK(&s->sin6_addr);
  }
  return true;
}

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

constexpr std::string_view kProtectedModeError =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Set up an authentication password for the default user. NOTE: You only need to "
    "do one of the above things in order for the server to start accepting connections from the "
    "outside.\r\n";

}  // namespace

Status Server::ListenAllTcp() {
  // The plain port and the TLS port share the bind list; either may be 0 (not opened). Only
  // the kinds whose port or addresses differ from what is bound are opened (at startup
  // nothing is bound), so CONFIG SET tls-port leaves the plain listeners alone.
  const bool rebind = config_.bind != bound_bind_;
  const bool open_kind[2] = {rebind || config_.port != bound_port_,
                             rebind || config_.tls_port != bound_tls_port_};
  bound_bind_ = config_.bind;
  bound_port_ = config_.port;
  bound_tls_port_ = config_.tls_port;
  // An empty list listens nowhere over TCP (CONFIG SET bind ""): the default is "* -::*".
  const std::vector<std::string>& addrs = config_.bind;
  for (bool tls : {false, true}) {
    const int port = tls ? config_.tls_port : config_.port;
    if (port == 0 || !open_kind[tls ? 1 : 0]) continue;
    for (const std::string& a : addrs) {
      bool optional = !a.empty() && a[0] == '-';
      std::string addr = optional ? a.substr(1) : a;
      Status s = ListenTcp(addr, optional, port, tls);
      if (!s.ok()) {
        // At startup Redis logs why, then that it gives up (CONFIG SET answers the first).
        if (bound_listeners_once_) return s;
        log_.Log(LogLevel::kWarning, "%s", s.message().c_str());
        return Status::Error("Failed listening on port " + std::to_string(port) + " (" +
                             (tls ? "TLS" : "TCP") + "), aborting.");
      }
    }
  }
  return Status::Ok();
}

Status Server::RelistenTcp() {
  // CONFIG SET port/tls-port/bind is all-or-nothing: a failure leaves the server listening
  // where it was. Only the listeners ListenAllTcp replaces move (their kind's port or the
  // addresses changed); the others, and the unix socket, stay in service. On a new port the new
  // sockets open before the old ones close. On the same port with new addresses they cannot
  // (127.0.0.1:6379 cannot be bound while *:6379 is), so those close first and are opened
  // again if the new addresses fail, as Redis does.
  if (config_.port == bound_port_ && config_.tls_port == bound_tls_port_ &&
      config_.bind == bound_bind_) {
    return Status::Ok();
  }
  const bool rebind = config_.bind != bound_bind_;
  const bool plain_moves = rebind || config_.port != bound_port_;
  const bool tls_moves = rebind || config_.tls_port != bound_tls_port_;
  // The kinds whose port stays while their addresses change: freed before the new bind.
  const bool plain_first = rebind && config_.port == bound_port_;
  const bool tls_first = rebind && config_.tls_port == bound_tls_port_;
  std::vector<std::unique_ptr<Listener>> old, kept;
  for (auto& l : listeners_) {
    const bool moves = !l->unix_socket && (l->tls ? tls_moves : plain_moves);
    (moves ? old : kept).push_back(std::move(l));
  }
  listeners_.clear();
  const int old_port = bound_port_;
  const int old_tls_port = bound_tls_port_;
  const std::vector<std::string> old_bind = bound_bind_;
  // Closes the TCP listeners of `v` of the kinds selected (plain, TLS).
  auto close_tcp = [](std::vector<std::unique_ptr<Listener>>& v, bool plain, bool tls) {
    for (auto& l : v) {
      if (l == nullptr || l->unix_socket || !(l->tls ? tls : plain)) continue;
      l->ev.reset();
      close(l->fd);
      l.reset();
    }
  };
  const bool closed_first = plain_first || tls_first;
  if (closed_first) close_tcp(old, plain_first, tls_first);
  Status s = ListenAllTcp();
  auto keep = [this](std::vector<std::unique_ptr<Listener>>& v) {
    for (auto& l : v) {
      if (l != nullptr) listeners_.push_back(std::move(l));
    }
    v.clear();
  };
  if (s.ok()) {
    close_tcp(old, true, true);
    keep(kept);
    return Status::Ok();
  }
  log_.Log(LogLevel::kWarning, "%s", s.message().c_str());
  close_tcp(listeners_, true, true);
  listeners_.clear();
  bound_port_ = old_port;
  bound_tls_port_ = old_tls_port;
  bound_bind_ = old_bind;
  if (closed_first) {
    // Bind the freed kinds' previous addresses again (the configuration is restored by the
    // caller): ListenAllTcp opens what differs from what is bound, so mark those as unbound.
    std::vector<std::string> wanted = config_.bind;
    const int wanted_port = config_.port, wanted_tls_port = config_.tls_port;
    config_.bind = old_bind;
    config_.port = old_port;
    config_.tls_port = old_tls_port;
    if (plain_first) bound_port_ = 0;
    if (tls_first) bound_tls_port_ = 0;
    // Only the freed kinds reopen: the others are still in `old`, open.
    if (!plain_first) config_.port = 0;
    if (!tls_first) config_.tls_port = 0;
    Status back = ListenAllTcp();
    if (!back.ok()) log_.Log(LogLevel::kWarning, "%s", back.message().c_str());
    config_.bind = std::move(wanted);
    config_.port = wanted_port;
    config_.tls_port = wanted_tls_port;
    bound_port_ = old_port;
    bound_tls_port_ = old_tls_port;
    bound_bind_ = old_bind;
  }
  keep(kept);
  keep(old);
  return s;
}

Status Server::Listen() {
  // A config whose bind list is empty (a bare `bind` line, or `bind ""`) opens no TCP socket
  // at startup, as in Redis: the server then needs a unix socket or it exits.
  if (config_.bind.empty()) {
    bound_bind_ = config_.bind;
    bound_port_ = static_cast<int>(config_.port);
    bound_tls_port_ = config_.tls_port;
  } else {
    Status tcp = ListenAllTcp();
    if (!tcp.ok()) return tcp;
  }
  if (!config_.unixsocket.empty()) {
    Status s = ListenUnix();
    if (!s.ok()) return s;
  }
  if (listeners_.empty()) {
    return Status::Error("Configured to not listen anywhere, exiting.");
  }
  bound_listeners_once_ = true;
  return Status::Ok();
}

Status Server::ListenTcp(const std::string& addr_in, bool optional, int port, bool tls) {
  std::string addr = addr_in;
  bool v6 = addr.find(':') != std::string::npos;
  if (addr == "*") addr = "0.0.0.0";
  if (addr == "::*") addr = "::";
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (optional) return Status::Ok();
    return Status::Error(std::string("Could not create server TCP listening socket ") + addr_in +
                         ": " + std::strerror(errno));
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_storage ss{};
  socklen_t len;
  if (v6) {
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET6, addr.c_str(), &s6->sin6_addr) != 1) {
      close(fd);
      if (optional) return Status::Ok();
      return Status::Error("Invalid bind address '" + addr_in + "'");
    }
    len = sizeof(sockaddr_in6);
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, addr.c_str(), &s4->sin_addr) != 1) {
      close(fd);
      if (optional) return Status::Ok();
      return Status::Error("Invalid bind address '" + addr_in + "'");
    }
    len = sizeof(sockaddr_in);
  }
  // Redis names the call that failed ("bind: Address already in use").
  const char* failed_call = nullptr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) < 0) {
    failed_call = "bind";
  } else if (listen(fd, static_cast<int>(config_.tcp_backlog)) < 0) {
    failed_call = "listen";
  }
  if (failed_call != nullptr) {
    int e = errno;
    close(fd);
    if (optional && (e == EADDRNOTAVAIL || e == EAFNOSUPPORT || e == EPROTONOSUPPORT ||
                     e == ESOCKTNOSUPPORT || e == EPFNOSUPPORT || e == EINVAL)) {
      return Status::Ok();
    }
    return Status::Error("Warning: Could not create server TCP listening socket " + addr_in + ":" +
                         std::to_string(port) + ": " + failed_call + ": " + std::strerror(e));
  }
  SetNonBlocking(fd);
  auto l = std::make_unique<Listener>(Listener{fd, false, nullptr, this, tls});
  l->ev.reset(event_new(base_.get(), fd, EV_READ | EV_PERSIST, &Server::AcceptCallback, l.get()));
  event_add(l->ev.get(), nullptr);
  listeners_.push_back(std::move(l));
  return Status::Ok();
}

Status Server::ListenUnix() {
  const std::string& path = config_.unixsocket;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof(sa.sun_path)) {
    close(fd);
    return Status::Error("Unix socket path too long: " + path);
  }
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  unlink(path.c_str());
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) < 0 ||
      listen(fd, static_cast<int>(config_.tcp_backlog)) < 0) {
    int e = errno;
    close(fd);
    return Status::Error("Failed opening Unix socket: " + std::string(std::strerror(e)));
  }
  if (config_.unixsocketperm != 0) chmod(path.c_str(), static_cast<mode_t>(config_.unixsocketperm));
  SetNonBlocking(fd);
  auto l = std::make_unique<Listener>(Listener{fd, true, nullptr, this});
  l->ev.reset(event_new(base_.get(), fd, EV_READ | EV_PERSIST, &Server::AcceptCallback, l.get()));
  event_add(l->ev.get(), nullptr);
  listeners_.push_back(std::move(l));
  return Status::Ok();
}

void Server::AcceptCallback(int fd, short /*what*/, void* arg) {
  auto* l = static_cast<Listener*>(arg);
  l->server->OnAccept(fd, l->unix_socket, l->tls);
  l->server->AfterCallback();
}

void Server::OnAccept(int listen_fd, bool unix_socket, bool tls) {
  for (int i = 0; i < kMaxAcceptsPerCall; ++i) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    int fd =
        accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      if (err != EAGAIN && err != EWOULDBLOCK && err != EINTR) {
        log_.Log(LogLevel::kVerbose, "Accepting client connection: %s", std::strerror(err));
      }
      // An error of that one connection (it was reset or aborted before we took it; accept(2)
      // lists these): the next pending connection is taken now, not a loop turn later, so a
      // flood of aborted connections cannot hold the others back (Redis's fix of
      // CVE-2025-48367 retries the same way).
      if (err == ECONNABORTED || err == EPROTO || err == ENETDOWN || err == ENOPROTOOPT ||
          err == EHOSTDOWN || err == ENONET || err == EHOSTUNREACH || err == EOPNOTSUPP ||
          err == ENETUNREACH || err == EINTR) {
        continue;
      }
      return;
    }
    ++stats_.total_connections_received;
    // A TLS connection cannot be told anything before its handshake: a refusal only closes.
    if (tls && clients_.size() >= static_cast<size_t>(config_.maxclients)) {
      ++stats_.rejected_connections;
      close(fd);
      continue;
    }
    if (clients_.size() >= static_cast<size_t>(config_.maxclients)) {
      const std::string msg = "-" + std::string(err::kMaxClients) + "\r\n";
      [[maybe_unused]] ssize_t w = write(fd, msg.data(), msg.size());
      ++stats_.rejected_connections;
      close(fd);
      continue;
    }
    if (!unix_socket && config_.protected_mode && config_.requirepass.empty() && !IsLoopback(ss)) {
      [[maybe_unused]] ssize_t w =
          write(fd, kProtectedModeError.data(), kProtectedModeError.size());
      ++stats_.rejected_connections;
      close(fd);
      continue;
    }
    if (!unix_socket) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      if (config_.tcp_keepalive > 0) {
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
        int idle = static_cast<int>(config_.tcp_keepalive);
        int intvl = std::max(1, idle / 3);
        int cnt = 3;
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
      }
    }
    std::string addr, laddr;
    if (unix_socket) {
      addr = laddr = config_.unixsocket + ":0";
    } else {
      addr = FormatSockAddr(ss);
      sockaddr_storage local{};
      socklen_t llen = sizeof(local);
      getsockname(fd, reinterpret_cast<sockaddr*>(&local), &llen);
      laddr = FormatSockAddr(local);
    }
    TlsConnPtr session;
    if (tls) {
      const TlsPeerAuth auth = config_.tls_auth_clients == 0   ? TlsPeerAuth::kNone
                               : config_.tls_auth_clients == 2 ? TlsPeerAuth::kOptional
                                                               : TlsPeerAuth::kRequire;
      session.reset(TlsConn::Accept(tls_ctx_.server_ctx(), fd, auth).release());
      if (session == nullptr) {
        log_.Log(LogLevel::kWarning, "Error accepting a client connection: out of memory");
        close(fd);
        continue;
      }
    }
    Client* c = AttachClient(fd, unix_socket, std::move(addr), std::move(laddr));
    c->tls = std::move(session);
  }
}

Client* Server::AttachClient(int fd, bool unix_socket, std::string addr, std::string laddr,
                             ClientKind kind) {
  auto* c = new Client(next_client_id_++, fd, kind);
  c->server = this;
  c->set_flag(kClientUnixSocket, unix_socket);
  c->addr = std::move(addr);
  c->laddr = std::move(laddr);
  c->db = dbs_[0].get();
  // The master link is this server's own connection: it never authenticates to itself.
  c->authenticated = !AuthRequired() || kind == ClientKind::kMasterLink;
  c->ever_authenticated = c->authenticated;
  c->ctime_ms = c->last_interaction_ms = c->last_read_ms = NowMs();
  // A connection's reply buffer starts at 16 KB; the clients cron sizes it from its use.
  c->out.Preallocate(ReplyBuffer::kStaticMax);
  c->out.SetLimitCheck(&Server::ReplyLimitCheck, c);
  c->out_peak_reset_ms = c->ctime_ms;
  c->read_ev.reset(event_new(base_.get(), fd, EV_READ | EV_PERSIST, &Server::ReadCallback, c));
  c->write_ev.reset(event_new(base_.get(), fd, EV_WRITE | EV_PERSIST, &Server::WriteCallback, c));
  event_add(c->read_ev.get(), nullptr);
  clients_.emplace(c->id, c);
  log_.Log(LogLevel::kVerbose, "Accepted %s", c->addr.c_str());
  return c;
}

void Server::ReadCallback(int /*fd*/, short /*what*/, void* arg) {
  auto* c = static_cast<Client*>(arg);
  Server* s = c->server;
  // io-threads-do-reads: read with the others after the loop's callbacks (threaded_io.cc).
  if (s->io_threads_ != nullptr && s->DeferRead(c)) return;
  s->OnReadable(c);
  s->AfterCallback();
}

void Server::WriteCallback(int /*fd*/, short /*what*/, void* arg) {
  auto* c = static_cast<Client*>(arg);
  Server* s = c->server;
  s->OnWritable(c);
  s->AfterCallback();
}

void Server::OnReadable(Client* c) {
  if (c->closed) return;
  if (c->tls != nullptr) {
    OnReadableTls(c);
    return;
  }
  const size_t want = PrepareRead(c);
  ssize_t n = read(c->fd, c->query.WritePtr(), want);
  FinishRead(c, n, n < 0 ? errno : 0);
}

bool Server::ReadsBigArgument(const Client* c) const {
  return c->parser.bulk_bytes_missing(c->query.Readable()) >= kBigArgThreshold;
}

size_t Server::PrepareRead(Client* c) {
  // Size the read: room for at least a 16 KB chunk, and as much as the buffer already has
  // room for up to 64 KB (as Redis reads what its buffer has room for), so a pipeline a little
  // over 16 KB, once the buffer has grown for it, comes in one read(2) and not two. The cap:
  // a buffer that grew for big arguments keeps its size here (Redis hands such an argument
  // over and starts a new buffer), and one read must not bring in a megabyte of unparsed bytes
  // past client-query-buffer-limit. When a big bulk argument is being received, read straight
  // up to its end so a 512 MB value is not copied chunk by chunk.
  size_t want = kReadChunk;
  size_t missing = c->parser.bulk_bytes_missing(c->query.Readable());
  if (missing >= kBigArgThreshold) {
    want = missing;
    c->query.ReserveExact(want);  // the argument's size, as Redis sizes it
  } else {
    c->query.Reserve(want);
    want = std::min(c->query.Writable(), kReadMax);
  }
  return want;
}

void Server::FinishRead(Client* c, ssize_t n, int err) {
  ++stats_.total_reads_processed;
  if (n == 0) {
    CloseClient(c, "Client closed connection");
    return;
  }
  if (n < 0) {
    if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR) return;
    CloseClient(c, "Reading from client");
    return;
  }
  c->query.Produced(static_cast<size_t>(n));
  AfterRead(c, static_cast<size_t>(n));
}

void Server::AfterRead(Client* c, size_t n) {
  c->net_input_bytes += static_cast<uint64_t>(n);
  stats_.net_input_bytes += static_cast<uint64_t>(n);
  c->last_interaction_ms = c->last_read_ms = NowMs();
  keyspace_.command_clock.Update(c->last_read_ms);
  if (c->query.Readable() > c->query_peak) c->query_peak = c->query.Readable();
  // The limit applies to the bytes not yet parsed into arguments, as in Redis (which moves
  // each parsed argument out of its query buffer): a command bigger than the limit in total,
  // made of arguments each within proto-max-bulk-len, is accepted.
  // Our master's stream is never cut (Redis exempts its master link too).
  if (c->query.Readable() - c->parser.parsed_bytes() >
          static_cast<size_t>(config_.client_query_buffer_limit) &&
      c->kind() != ClientKind::kMasterLink) {
    log_.Log(LogLevel::kWarning, "Closing client that reached max query buffer length: addr=%s",
             c->addr.c_str());
    ++stats_.client_qbuf_limit_disconnections;
    CloseClient(c, "query buffer limit");
    return;
  }
  ProcessInput(c);
  // Its buffers changed: client eviction re-counts it (and may close it, or others).
  if (config_.maxmemory_clients != 0 && !UpdateClientMemoryAndEvict(c)) return;
  // Replies are written in BeforeSleep, once every ready client has been read (as Redis does):
  // one write per client per loop turn, however many of its commands this turn ran.
  if (!c->closed) ScheduleFlush(c);
}

void Server::OnWritable(Client* c) {
  if (c->closed) return;
  // A TLS handshake, or a read that had to write first, resumes on writability.
  if (c->tls != nullptr && (c->tls->handshaking() || c->tls_read_wants_write)) {
    OnReadableTls(c);
    if (c->closed || c->tls->handshaking()) return;
  }
  FlushClient(c);
}

void Server::FlushClient(Client* c) {
  // Its reply went over the output limit while a push or a served block was written to it:
  // nothing more is sent, it is closed.
  if (c->out.refused()) {
    CheckOutputLimits(c);
    return;
  }
  if (c->tls != nullptr) {
    FlushClientTls(c);
    return;
  }
  // All pending bytes, until the socket is full (ReplyBuffer::WriteTo).
  if (c->out.Readable() > 0) ++stats_.total_writes_processed;
  size_t written = 0;
  const int err = c->out.WriteTo(c->fd, &written);
  FinishWrite(c, written, err);
}

void Server::FinishWrite(Client* c, size_t written, int err) {
  c->out.Consume(written);
  c->net_output_bytes += static_cast<uint64_t>(written);
  stats_.net_output_bytes += static_cast<uint64_t>(written);
  if (err != 0) {
    CloseClient(c, "Error writing to client");
    return;
  }
  AfterFlush(c);
}

void Server::AfterFlush(Client* c) {
  if (c->out.Readable() == 0) {
    if (c->write_armed) {
      event_del(c->write_ev.get());
      c->write_armed = false;
    }
    if (c->has_flag(kClientCloseAfterReply)) CloseClient(c, "close after reply");
    return;
  }
  if (!c->write_armed) {
    event_add(c->write_ev.get(), nullptr);
    c->write_armed = true;
  }
  CheckOutputLimits(c);
  // Replies the client did not read grow it without a command of its own (pushes to a
  // subscriber or a redirect target, replies piling up): client eviction counts it again
  // here, after each write, as Redis 7.0 does, not only when the cron comes round.
  if (config_.maxmemory_clients != 0 && !c->closed) UpdateClientMemoryAndEvict(c);
}

void Server::CheckOutputLimits(Client* c) {
  if (c->closed) return;
  // Refused bytes while a command ran: marked then (logged and counted), closed now.
  if (c->out.refused() ||
      (!c->has_flag(kClientCloseAfterReply) && OutputOverLimit(c, c->pending_output()))) {
    CloseClient(c, "output buffer limit");
  }
}

bool Server::ReplyLimitCheck(void* ctx, size_t would_hold) {
  auto* c = static_cast<Client*>(ctx);
  Server* s = c->server;
  // Replies grow memory here, a block at a time: the peak sees them as Redis's (which samples
  // after each command) does, at the cost of a counter read per new block.
  if (ThreadCountersAvailable()) {
    const size_t used = s->UsedMemory() + would_hold - c->out.block_bytes();
    if (used > s->used_memory_peak_) s->used_memory_peak_ = used;
  }
  if (c->closed || c->has_flag(kClientCloseAfterReply)) return false;
  return s->OutputOverLimit(c, would_hold);
}

bool Server::OutputOverLimit(Client* c, size_t used) {
  // A reply held in the static buffer counts nothing (as in Redis, whose limits count only the
  // reply list): no limit is reached and a soft limit's clock stops. That is every command's
  // case after a small reply, so the class is not worked out for it.
  if (used == 0) {
    c->obuf_soft_limit_since_ms = 0;
    return false;
  }
  // A connection that never authenticated, where authentication is required, may hold 1 KB
  // beyond its reply buffer: one that sends commands without reading its NOAUTH errors is closed
  // there, whatever the class limits say, as Redis 7.0.15 (with the fix of CVE-2025-21605)
  // closes it. Without the check, such a client grew our memory without bound.
  // The cheap tests first: AuthRequired() asks the ACL layer.
  bool hard =
      !c->authenticated && !c->ever_authenticated && used > kUnauthOutputLimit && AuthRequired();
  // Monitors and replicas' streams use the replica class, as in Redis; a client with any
  // subscription (RESP2 or 3) the pubsub class.
  int cls = c->has_flag(kClientMonitor) || c->kind() == ClientKind::kReplica ? kClientClassReplica
            : PubSub::Subscribed(*c)                                         ? kClientClassPubsub
                                                                             : kClientClassNormal;
  const auto& lim = config_.client_output_buffer_limits[cls];
  hard = hard || (lim.hard > 0 && used >= static_cast<size_t>(lim.hard));
  bool soft = false;
  if (lim.soft > 0 && used >= static_cast<size_t>(lim.soft)) {
    int64_t now = NowMs();
    if (c->obuf_soft_limit_since_ms == 0) {
      c->obuf_soft_limit_since_ms = now;
    } else if (now - c->obuf_soft_limit_since_ms >= lim.soft_seconds * 1000) {
      soft = true;
    }
  } else {
    c->obuf_soft_limit_since_ms = 0;
  }
  if (!hard && !soft) return false;
  log_.Log(LogLevel::kWarning,
           "Client %s scheduled to be closed ASAP for overcoming of output buffer limits.",
           ClientInfoLine(*c).c_str());
  ++stats_.client_outbuf_limit_disconnections;
  return true;
}

void Server::EndSession(Client& c, ReleaseCause cause) {
  // 1. The transaction: a queued MULTI is dropped, MULTI WATCH keys are forgotten.
  c.DiscardTransaction(exec_watches_);
  // 2. Existence watches, before anything below changes keys: the session that ends is not
  //    told about its own keys' deletion.
  watches_.RemoveAll(c.id);
  // 3. The blocked state: a departed waiter must not be served the keys released below (or
  //    anything else); it leaves every queue without a reply.
  if (c.blocking.active) {
    blocking_.Remove(c.id);
    c.blocking.active = false;
  }
  blocked_calls_.erase(c.id);
  // 4. Temporary keys, each deleted like DEL (watchers get DEL pushes; waiters of the key are
  //    served after the current command), and the liveness lease that guarded them.
  //    While a script is busy the keys stay until it ends (server/busy.cc). A session's keys
  //    are not the connection's: the session detaches silently and its grace starts
  //    (server/session_runtime.cc).
  DetachSession(c);
  keyspace_.command_clock.Update(NowMs());
  ReleaseOwner(c.id, cause);
  SetLease(&c, 0);
  // 5. Pub/Sub subscriptions: every channel, pattern and shard channel, without
  //    confirmations (a disconnect has nobody to tell; RESET replies only +RESET, as Redis).
  pubsub_.RemoveClient(c);

  // 6. Client-side tracking: off, BCAST prefixes left at once; the client's ids in
  //    the key table are dropped lazily, when their keys change (ids are never reused). A
  //    client redirecting here finds out at its next invalidation (then "broken", as Redis).
  tracking_.Disable(c);
  // 7. What the steps above pushed to this session itself is dropped: its subscriptions and
  //    tracking were still in place when step 4 deleted its keys, and those messages concern
  //    the session that ended (a RESET connection starts clean, as after step 2 for WATCHEX).
  //    A session ends inside its own command (RESET) or is closed, so all of them are held.
  c.pending_pushes.Clear();
}

void Server::ReleaseOwner(uint64_t owner, ReleaseCause cause) {
  if (busy_caller_ == nullptr) {
    coordination_stats_.CountRelease(cause, owners_.ReleaseAll(owner));
  } else {
    busy_ended_owners_.emplace_back(owner, cause);
  }
}

void Server::CloseClient(Client* c, const char* reason, ReleaseCause cause) {
  if (c->closed) return;
  c->closed = true;
  log_.Log(LogLevel::kVerbose, "Client closed (%s): %s", reason, c->addr.c_str());
  // The session first (see EndSession), then the subsystems' close hooks (the client is
  // still listed), then the connection: monitor, pause list, events, socket. Pushes held for
  // this client are dropped with it.
  EndSession(*c, cause);
  clients_evictable_mem_ -= c->counted_mem;
  c->counted_mem = 0;
  const SubsystemHookList close_hooks = close_hooks_;
  for (size_t i = 0; i < close_hooks.n; ++i) close_hooks.items[i]->OnClientClose(*c);
  c->pending_pushes.Clear();
  RemoveMonitor(c);
  paused_.erase(std::remove(paused_.begin(), paused_.end(), c), paused_.end());
  if (c->has_flag(kClientPendingRead)) {
    c->set_flag(kClientPendingRead, false);
    pending_reads_.erase(std::remove(pending_reads_.begin(), pending_reads_.end(), c),
                         pending_reads_.end());
  }
  std::vector<Client*>& sd = shutdown_wait_.waiters;
  sd.erase(std::remove(sd.begin(), sd.end(), c), sd.end());
  // Its buffers go now, not when the object is freed at the end of the loop turn: memory
  // checks later in this turn (key eviction after a client eviction, an output limit) must
  // see it given back. Its replies go even while it executes (a client that client eviction
  // closes before its own command runs may hold megabytes of them, and the next command's key
  // eviction must not count them); its query buffer stays until then, as its arguments point
  // into it.
  c->out.Clear();
  if (!c->has_flag(kClientExecuting)) c->query.ShrinkTo(0);
  c->read_ev.reset();
  c->write_ev.reset();
  if (c->tls != nullptr) c->tls->Shutdown();
  close(c->fd);
  c->fd = -1;
  clients_.erase(c->id);
  pending_free_.push_back(c);
}

void Server::ReapClients() {
  if (pending_free_.empty()) return;
  std::vector<Client*> doomed;
  doomed.swap(pending_free_);
  for (Client* c : doomed) delete c;
}

Client* Server::FindClient(uint64_t id) const {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second;
}

void Server::AddMonitor(Client* c) {
  if (c->has_flag(kClientMonitor)) return;
  c->set_flag(kClientMonitor, true);
  monitors_.push_back(c);
}

void Server::RemoveMonitor(Client* c) {
  if (!c->has_flag(kClientMonitor)) return;
  c->set_flag(kClientMonitor, false);
  monitors_.erase(std::remove(monitors_.begin(), monitors_.end(), c), monitors_.end());
}

}  // namespace redistp
