// The replica's connection to its master until it becomes the master-link client
// (replica_side.h): the non-blocking connect, the handshake, the PSYNC reply and the transfer
// and load of a full sync's RDB.
//
// Model. The socket is the replica side's own while the link is being set up: one libevent
// event (first EV_WRITE for the connect, then EV_READ) drives a small state machine. The
// handshake sends one command and waits for its reply line before the next, as each reply
// decides what follows (an AUTH failure stops, a REPLCONF error does not); replies are short
// lines, so they are read from `in_` with TakeLine. Empty lines are the master's keepalives and
// are skipped everywhere. The transfer then moves the payload to a temporary file in `dir`
// (repl-diskless-load disabled) or into memory (on-empty-db with empty databases, swapdb), so
// that the old data stays until the whole RDB has arrived; a `$EOF:<mark>` transfer ends where
// the received bytes end with the 40-byte mark, a `$<len>` one after len bytes. Whatever the
// socket delivered beyond the reply or the payload is the stream's first bytes and becomes the
// link client's first input. Every failure logs Redis's line, closes the socket, and leaves the
// state in kConnect, from which the cron retries once a second.
#include <arpa/inet.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "persistence/persistence.h"
#include "replication/replica_side.h"
#include "replication/replication.h"
#include "util/file_io.h"
#include "util/numbers.h"
#include "util/sock_addr.h"

namespace redistp {
namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kEofMarkLen = 40;

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

void ReplicaSide::Connect() {
  Server& server = repl_.server();
  Logger& log = server.log();
  last_connect_try_ms_ = now_ms();
  log.Log(LogLevel::kNotice, "Connecting to MASTER %s:%d", master_host_.c_str(), master_port_);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(master_port_);
  int rc = getaddrinfo(master_host_.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) {
    log.Log(LogLevel::kWarning, "Unable to connect to MASTER: %s", gai_strerror(rc));
    return;
  }
  std::string source;
  server.config().GetValue("bind-source-addr", &source);
  int err = 0;
  // bind-source-addr: the link leaves from that address (the master sees it as ours). As in
  // Redis 7.0 this is best effort: an address that cannot be bound is logged and the link
  // connects from whatever address the kernel picks.
  auto bind_source = [&](int fd, int family) {
    if (source.empty()) return;
    const int bind_err = BindSourceAddr(fd, family, source);
    if (bind_err != 0) {
      log.Log(LogLevel::kVerbose, "Binding the master link to %s: %s", source.c_str(),
              std::strerror(bind_err));
    }
  };
  const int fd = StartConnect(res, bind_source, &err);
  freeaddrinfo(res);
  if (fd < 0) {
    log.Log(LogLevel::kWarning, "Unable to connect to MASTER: %s", std::strerror(err));
    return;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  fd_ = fd;
  state_ = LinkState::kConnecting;
  last_io_ms_ = now_ms();
  ev_.reset(event_new(server.loop_base(), fd, EV_WRITE, &ReplicaSide::OnSocketEvent, this));
  event_add(ev_.get(), nullptr);
  log.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync started");
}

void ReplicaSide::CancelHandshake() {
  ev_.reset();
  tls_.reset();
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (tmp_fd_ >= 0) close(tmp_fd_);
  tmp_fd_ = -1;
  if (!tmp_path_.empty()) unlink(tmp_path_.c_str());
  tmp_path_.clear();
  image_.clear();
  image_.shrink_to_fit();
  in_.clear();
  tail_.clear();
  eof_mark_.clear();
  transfer_size_ = -1;
  transfer_read_ = 0;
  if (repl_.server().loading() && state_ == LinkState::kTransfer) repl_.server().set_loading(false);
}

void ReplicaSide::FailLink(const char* why) {
  if (why != nullptr) repl_.server().log().Log(LogLevel::kWarning, "%s", why);
  CancelHandshake();
  state_ = LinkState::kConnect;
  PublishRole();
}

void ReplicaSide::OnSocketEvent(int /*fd*/, short /*what*/, void* arg) {
  auto* self = static_cast<ReplicaSide*>(arg);
  if (self->tls_ != nullptr && self->tls_->handshaking()) {
    self->ContinueTlsHandshake();
  } else if (self->state_ == LinkState::kConnecting) {
    self->OnConnected();
  } else {
    self->OnReadable();
  }
}

void ReplicaSide::OnConnected() {
  Server& server = repl_.server();
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
  if (err != 0) {
    server.log().Log(LogLevel::kWarning, "Error condition on socket for SYNC: %s",
                     std::strerror(err));
    FailLink(nullptr);
    return;
  }
  server.log().Log(LogLevel::kNotice, "Non blocking connect for SYNC fired the event.");
  if (server.config().tls_replication) {
    const TlsContext& ctx = server.tls_context();
    if (!ctx.ready()) {
      FailLink("Unable to connect to MASTER: TLS is not configured");
      return;
    }
    tls_.reset(TlsConn::Connect(ctx.client_ctx(), fd_).release());
    if (tls_ == nullptr) {
      FailLink("Unable to connect to MASTER: cannot create a TLS session");
      return;
    }
    ContinueTlsHandshake();
    return;
  }
  StartHandshake();
}

void ReplicaSide::ContinueTlsHandshake() {
  Server& server = repl_.server();
  int r = tls_->Handshake();
  if (r < 0) {
    server.log().Log(LogLevel::kWarning, "Unable to connect to MASTER: %s", tls_->error().c_str());
    FailLink(nullptr);
    return;
  }
  last_io_ms_ = now_ms();
  if (r == 0) {
    // One-shot events: each handshake step waits on the direction OpenSSL asked for.
    short what = tls_->want() == TlsConn::Want::kWrite ? EV_WRITE : EV_READ;
    ev_.reset(event_new(server.loop_base(), fd_, what, &ReplicaSide::OnSocketEvent, this));
    event_add(ev_.get(), nullptr);
    return;
  }
  StartHandshake();
}

void ReplicaSide::StartHandshake() {
  Server& server = repl_.server();
  ev_.reset(
      event_new(server.loop_base(), fd_, EV_READ | EV_PERSIST, &ReplicaSide::OnSocketEvent, this));
  event_add(ev_.get(), nullptr);
  state_ = LinkState::kHandshake;
  step_ = Step::kPing;
  last_io_ms_ = now_ms();
  if (!SendCommand({"PING"})) FailLink("Error writing to MASTER for the replication handshake");
}

bool ReplicaSide::SendCommand(const std::vector<std::string>& argv) {
  std::string wire = "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string& a : argv) {
    wire += "$" + std::to_string(a.size()) + "\r\n";
    wire += a;
    wire += "\r\n";
  }
  return WriteLink(wire);
}

bool ReplicaSide::WriteLink(std::string_view data) {
  if (tls_ == nullptr) return WriteAll(fd_, data);
  // Bounded: at most 100 waits of 10 ms for the socket; these are a few bytes each.
  for (int waits = 0; !data.empty();) {
    ssize_t n = tls_->Write(data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (tls_->want() == TlsConn::Want::kNothing || ++waits > 100) return false;
    pollfd p{fd_, static_cast<short>(tls_->want() == TlsConn::Want::kRead ? POLLIN : POLLOUT), 0};
    (void)poll(&p, 1, 10);
  }
  return true;
}

bool ReplicaSide::TakeLine(std::string* line) {
  size_t nl = in_.find('\n');
  if (nl == std::string::npos) return false;
  size_t end = (nl > 0 && in_[nl - 1] == '\r') ? nl - 1 : nl;
  line->assign(in_, 0, end);
  in_.erase(0, nl + 1);
  return true;
}

void ReplicaSide::OnReadable() {
  Server& server = repl_.server();
  char buf[kReadChunk];
  ssize_t n = 0;
  if (tls_ != nullptr) {
    // Everything OpenSSL decrypted is taken now: the socket will not announce it again.
    size_t got = 0;
    for (;;) {
      n = tls_->Read(buf, sizeof buf);
      if (n <= 0) break;
      in_.append(buf, static_cast<size_t>(n));
      got += static_cast<size_t>(n);
      if (tls_->Pending() == 0) break;
    }
    if (got > 0) {
      n = static_cast<ssize_t>(got);
    } else if (n < 0 && tls_->want() != TlsConn::Want::kNothing) {
      return;
    } else if (n < 0) {
      errno = ECONNRESET;
    }
  } else {
    n = read(fd_, buf, sizeof buf);
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) {
    if (state_ == LinkState::kTransfer) {
      FailLink("I/O error trying to sync with MASTER: connection lost");
    } else {
      server.log().Log(LogLevel::kWarning, "Master closed the connection during the handshake: %s",
                       n == 0 ? "connection lost" : std::strerror(errno));
      FailLink(nullptr);
    }
    return;
  }
  last_io_ms_ = now_ms();
  if (tls_ == nullptr) in_.append(buf, static_cast<size_t>(n));
  if (state_ == LinkState::kHandshake) {
    if (!AdvanceHandshake()) return;
  }
  if (state_ == LinkState::kTransfer) ConsumeTransfer();
}

bool ReplicaSide::AdvanceHandshake() {
  Server& server = repl_.server();
  Logger& log = server.log();
  const Config& cfg = server.config();
  std::string line;
  while (state_ == LinkState::kHandshake && TakeLine(&line)) {
    if (line.empty()) continue;  // a keepalive
    switch (step_) {
      case Step::kPing:
        // A master that wants a password answers NOAUTH: the AUTH below takes care of it.
        if (line[0] == '-' && !StartsWith(line, "-NOAUTH") && !StartsWith(line, "-NOPERM") &&
            !StartsWith(line, "-ERR operation not permitted")) {
          log.Log(LogLevel::kWarning, "Error reply to PING from master: '%s'", line.c_str());
          FailLink(nullptr);
          return false;
        }
        log.Log(LogLevel::kNotice, "Master replied to PING, replication can continue...");
        if (!cfg.masterauth.empty()) {
          step_ = Step::kAuth;
          bool ok = cfg.masteruser.empty() ? SendCommand({"AUTH", cfg.masterauth})
                                           : SendCommand({"AUTH", cfg.masteruser, cfg.masterauth});
          if (!ok) break;
          continue;
        }
        [[fallthrough]];
      case Step::kAuth:
        if (step_ == Step::kAuth && line[0] == '-') {
          log.Log(LogLevel::kWarning, "Unable to AUTH to MASTER: %s", line.c_str());
          FailLink(nullptr);
          return false;
        }
        {
          std::string port_text = "0";
          cfg.GetValue("replica-announce-port", &port_text);
          // Over TLS the master is told the port its replicas' peers reach us on: tls-port.
          if (port_text == "0") {
            port_text =
                std::to_string(cfg.tls_replication && server.tls_port() != 0 ? server.tls_port()
                                                                             : server.tcp_port());
          }
          step_ = Step::kPort;
          if (!SendCommand({"REPLCONF", "listening-port", port_text})) break;
        }
        continue;
      case Step::kPort: {
        if (line[0] == '-') {
          log.Log(LogLevel::kNotice,
                  "(Non critical) Master does not understand REPLCONF "
                  "listening-port: %s",
                  line.c_str());
        }
        std::string ip;
        cfg.GetValue("replica-announce-ip", &ip);
        if (!ip.empty()) {
          step_ = Step::kIp;
          if (!SendCommand({"REPLCONF", "ip-address", ip})) break;
          continue;
        }
        step_ = Step::kCapa;
        if (!SendCommand({"REPLCONF", "capa", "eof", "capa", "psync2"})) break;
        continue;
      }
      case Step::kIp:
        if (line[0] == '-') {
          log.Log(LogLevel::kNotice,
                  "(Non critical) Master does not understand REPLCONF "
                  "ip-address: %s",
                  line.c_str());
        }
        step_ = Step::kCapa;
        if (!SendCommand({"REPLCONF", "capa", "eof", "capa", "psync2"})) break;
        continue;
      case Step::kCapa: {
        if (line[0] == '-') {
          log.Log(LogLevel::kNotice, "(Non critical) Master does not understand REPLCONF capa: %s",
                  line.c_str());
        }
        step_ = Step::kPsync;
        std::vector<std::string> psync;
        if (failover_result_ && have_cached_) {
          // FAILOVER: the target continues our history and takes over as master.
          const std::string offset = std::to_string(repl_.master_repl_offset() + 1);
          log.Log(LogLevel::kNotice, "Trying a partial resynchronization (request %s:%s).",
                  repl_.replid().c_str(), offset.c_str());
          psync = {"PSYNC", repl_.replid(), offset, "FAILOVER"};
        } else if (have_cached_) {
          const std::string offset = std::to_string(repl_.master_repl_offset() + 1);
          log.Log(LogLevel::kNotice, "Trying a partial resynchronization (request %s:%s).",
                  repl_.replid().c_str(), offset.c_str());
          psync = {"PSYNC", repl_.replid(), offset};
        } else {
          log.Log(LogLevel::kNotice, "Partial resynchronization not possible (no cached master)");
          psync = {"PSYNC", "?", "-1"};
        }
        if (!SendCommand(psync)) break;
        continue;
      }
      case Step::kPsync:
        return HandlePsyncReply(line);
      case Step::kBulkHeader:
        break;
    }
    // A send failed (only the `break`s above reach here).
    FailLink("Error writing to MASTER for the replication handshake");
    return false;
  }
  return state_ != LinkState::kConnect;
}

bool ReplicaSide::HandlePsyncReply(const std::string& line) {
  Server& server = repl_.server();
  Logger& log = server.log();
  // A FAILOVER's PSYNC: its outcome goes to the failover, once.
  if (failover_result_) {
    std::function<void(bool)> done = std::move(failover_result_);
    failover_result_ = nullptr;
    const bool accepted = StartsWith(line, "+FULLRESYNC") || StartsWith(line, "+CONTINUE");
    done(accepted);
    if (!accepted) {
      log.Log(LogLevel::kWarning, "Unexpected reply to PSYNC from master: %s", line.c_str());
      // The failover makes this server a master again (or retries): nothing more here.
      if (state_ == LinkState::kHandshake) FailLink(nullptr);
      return false;
    }
    // The callback may have changed the role (an abort): then this link is not ours anymore.
    if (state_ != LinkState::kHandshake) return false;
  }
  if (StartsWith(line, "+FULLRESYNC")) {
    // "+FULLRESYNC <replid> <offset>"
    size_t a = line.find(' ');
    size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
    int64_t offset = 0;
    if (b == std::string::npos || b - a - 1 != 40 ||
        !ParseInt64(std::string_view(line).substr(b + 1), &offset)) {
      log.Log(LogLevel::kWarning, "Master replied with wrong +FULLRESYNC syntax.");
      FailLink(nullptr);
      return false;
    }
    psync_replid_ = line.substr(a + 1, 40);
    psync_offset_ = offset;
    log.Log(LogLevel::kNotice, "Full resync from master: %s:%lld", psync_replid_.c_str(),
            static_cast<long long>(offset));
    state_ = LinkState::kTransfer;
    step_ = Step::kBulkHeader;
    transfer_size_ = -1;
    transfer_read_ = 0;
    transfer_start_ms_ = now_ms();
    PublishRole();
    return true;
  }
  if (StartsWith(line, "+CONTINUE")) {
    log.Log(LogLevel::kNotice, "Successful partial resynchronization with master.");
    std::string id = line.size() > 10 ? line.substr(10) : std::string();
    if (id.size() == 40 && id != repl_.replid()) {
      // The master's history continues ours under a new id (it was promoted): ours becomes
      // the previous one, valid up to where we are.
      repl_.SetPreviousIdentity(repl_.replid(), repl_.master_repl_offset() + 1);
      repl_.SetIdentity(id, repl_.master_repl_offset());
      log.Log(LogLevel::kNotice, "Master replication ID changed to %s", id.c_str());
      DisconnectReplicas();  // they must learn the new id (and continue with PSYNC)
    }
    log.Log(LogLevel::kNotice,
            "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
    server.NotifySupervisor(
        "STATUS=MASTER <-> REPLICA sync: Partial Resynchronization accepted. Ready to accept "
        "connections in read-write mode.\n");
    AttachLink(cached_db_);
    return false;
  }
  if (StartsWith(line, "-NOMASTERLINK") || StartsWith(line, "-LOADING")) {
    log.Log(LogLevel::kNotice,
            "Master is currently unable to PSYNC but should be in the future: %s", line.c_str());
  } else {
    log.Log(LogLevel::kWarning, "Unexpected reply to PSYNC from master: %s", line.c_str());
  }
  FailLink(nullptr);
  return false;
}

bool ReplicaSide::ConsumeTransfer() {
  Server& server = repl_.server();
  Logger& log = server.log();
  if (step_ == Step::kBulkHeader) {
    std::string line;
    while (true) {
      if (!TakeLine(&line)) return true;
      if (!line.empty()) break;  // empty lines: keepalives while the master prepares the RDB
    }
    if (line[0] == '-') {
      log.Log(LogLevel::kWarning, "MASTER aborted replication with an error: %s", line.c_str());
      FailLink(nullptr);
      return false;
    }
    if (line[0] != '$') {
      log.Log(LogLevel::kWarning,
              "Bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you "
              "sure the host and port are right?",
              line.c_str());
      FailLink(nullptr);
      return false;
    }
    // Where the payload goes: memory when repl-diskless-load allows it, else a file in `dir`.
    std::string mode = "disabled";
    server.config().GetValue("repl-diskless-load", &mode);
    bool empty = true;
    for (int i = 0; i < server.db_count() && empty; ++i) empty = server.db(i).size() == 0;
    to_memory_ = mode == "swapdb" || (mode == "on-empty-db" && empty);
    const char* where = to_memory_ ? "to parser" : "to disk";
    if (StartsWith(line, "$EOF:") && line.size() == 5 + kEofMarkLen) {
      eof_mark_ = line.substr(5);
      transfer_size_ = -1;
      log.Log(LogLevel::kNotice,
              "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF %s", where);
    } else {
      int64_t size = 0;
      if (!ParseInt64(std::string_view(line).substr(1), &size) || size < 0) {
        log.Log(LogLevel::kWarning, "Bad protocol from MASTER, invalid bulk length: %s",
                line.c_str());
        FailLink(nullptr);
        return false;
      }
      transfer_size_ = size;
      log.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: receiving %lld bytes from master %s",
              static_cast<long long>(size), where);
    }
    // The history we hoped to continue is over: the RDB replaces it.
    if (have_cached_) {
      log.Log(LogLevel::kNotice, "Discarding previously cached master state.");
      have_cached_ = false;
      cached_db_ = -1;
    }
    if (!to_memory_) {
      char name[64];
      std::snprintf(name, sizeof name, "temp-%lld.%d.rdb", static_cast<long long>(now_ms() / 1000),
                    static_cast<int>(getpid()));
      tmp_path_ = name;
      tmp_fd_ = open(name, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
      if (tmp_fd_ < 0) {
        log.Log(LogLevel::kWarning,
                "Opening the temp file needed for MASTER <-> REPLICA synchronization: %s",
                std::strerror(errno));
        tmp_path_.clear();
        FailLink(nullptr);
        return false;
      }
    }
    step_ = Step::kPsync;  // now the payload (the step no longer matters)
    tail_.clear();
  }
  // Payload bytes: all of in_ for the EOF form (the master sends nothing after the mark until
  // we acknowledge), up to the announced size otherwise.
  size_t take = in_.size();
  if (transfer_size_ >= 0) {
    take = static_cast<size_t>(
        std::min<int64_t>(static_cast<int64_t>(take), transfer_size_ - transfer_read_));
  }
  if (take > 0) {
    std::string_view chunk(in_.data(), take);
    if (to_memory_) {
      image_.append(chunk);
    } else if (!WriteAll(tmp_fd_, chunk)) {
      log.Log(LogLevel::kWarning,
              "Write error or short write writing to the DB dump file needed for MASTER <-> "
              "REPLICA synchronization: %s",
              std::strerror(errno));
      FailLink(nullptr);
      return false;
    }
    transfer_read_ += static_cast<int64_t>(take);
    if (transfer_size_ < 0) {
      tail_.append(chunk.substr(chunk.size() > kEofMarkLen ? chunk.size() - kEofMarkLen : 0));
      if (tail_.size() > kEofMarkLen) tail_.erase(0, tail_.size() - kEofMarkLen);
    }
    in_.erase(0, take);
  }
  bool done = transfer_size_ >= 0 ? transfer_read_ == transfer_size_
                                  : (tail_.size() == kEofMarkLen && tail_ == eof_mark_);
  if (!done) return true;
  return FinishTransfer();
}

bool ReplicaSide::FinishTransfer() {
  Server& server = repl_.server();
  Logger& log = server.log();
  Persistence& persistence = Persistence::Of(server);
  if (transfer_size_ < 0) {
    // The mark is not part of the RDB.
    transfer_read_ -= static_cast<int64_t>(kEofMarkLen);
    if (to_memory_) {
      image_.resize(image_.size() - kEofMarkLen);
    } else if (ftruncate(tmp_fd_, transfer_read_) != 0) {
      log.Log(LogLevel::kWarning,
              "Error truncating the RDB file received from the master for "
              "SYNC: %s",
              std::strerror(errno));
      FailLink(nullptr);
      return false;
    }
  }
  if (!to_memory_) {
    if (fsync(tmp_fd_) != 0) {
      log.Log(LogLevel::kWarning,
              "Failed trying to sync the temp DB to disk in MASTER <-> "
              "REPLICA synchronization: %s",
              std::strerror(errno));
      FailLink(nullptr);
      return false;
    }
    close(tmp_fd_);
    tmp_fd_ = -1;
    const std::string rdb = persistence.RdbPath();
    if (rename(tmp_path_.c_str(), rdb.c_str()) != 0) {
      log.Log(LogLevel::kWarning,
              "Failed trying to rename the temp DB into %s in MASTER <-> "
              "REPLICA synchronization: %s",
              rdb.c_str(), std::strerror(errno));
      FailLink(nullptr);
      return false;
    }
    tmp_path_.clear();
  }
  // swapdb: the old data is kept (as an image) until the new one has loaded.
  std::string backup;
  std::string mode;
  server.config().GetValue("repl-diskless-load", &mode);
  if (to_memory_ && mode == "swapdb") {
    // With the temporary keys and sessions held for the master (rdb_save.h), so a failed load
    // restores them too.
    RdbSaveOptions keep;
    keep.replication = true;
    keep.rdb_version = kRdbMaxVersion;  // read back by us only: every encoding we have
    backup = RdbImage(server, keep);
  }
  // Our replicas followed the history this sync replaces: they must sync again.
  DisconnectReplicas();
  log.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Flushing old data");
  // replica-lazy-flush: the old dataset goes to the lazy free thread.
  std::string lazy_flush;
  server.config().GetValue("replica-lazy-flush", &lazy_flush);
  persistence.EmptyData(true, lazy_flush == "yes");
  log.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Loading DB in memory");
  RdbLoadOptions options;
  options.keep_expired = true;
  RdbLoadInfo info;
  Status s;
  server.set_loading(true);
  {
    ExpiryGate::Scope loading = server.keyspace().expiry.Suspend();
    if (to_memory_) {
      s = LoadRdb(server, image_, options, &info);
    } else {
      bool missing = false;
      s = LoadRdbFile(server, persistence.RdbPath(), options, &info, &missing);
      if (s.ok() && missing) s = Status::Error("the received RDB file vanished");
    }
  }
  server.set_loading(false);
  image_.clear();
  image_.shrink_to_fit();
  if (!s.ok()) {
    log.Log(LogLevel::kWarning, "%s", s.message().c_str());
    log.Log(LogLevel::kWarning,
            "Failed trying to load the MASTER synchronization DB from %s, "
            "check server logs.",
            to_memory_ ? "socket" : "disk");
    persistence.EmptyData(true);
    if (!backup.empty()) {
      log.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Discarding the half-loaded data");
      RdbLoadInfo restored;
      ExpiryGate::Scope loading = server.keyspace().expiry.Suspend();
      (void)LoadRdb(server, backup, options, &restored);
    }
    FailLink(nullptr);
    return false;
  }
  LogRdbLoaded(log, info);
  // The received file stays as this server's RDB, as in Redis: a replica restarted (a crash,
  // kill -9) loads it and continues with PSYNC instead of a full sync. Only with
  // rdb-del-sync-files yes, and nothing else persisting here, is it removed.
  std::string del_sync_files;
  server.config().GetValue("rdb-del-sync-files", &del_sync_files);
  if (!to_memory_ && del_sync_files == "yes" && server.config().save_params.empty() &&
      !server.config().appendonly) {
    log.Log(LogLevel::kNotice,
            "Removing the RDB file obtained from the master. This replica has persistence "
            "disabled");
    unlink(persistence.RdbPath().c_str());
  }
  // The AOF described the old data: a rewrite makes the new dataset its base (Redis restarts
  // its AOF after a full sync the same way).
  if (persistence.aof().enabled() && !persistence.aof().StartRewrite().ok()) {
    persistence.aof().ScheduleRewrite();
  }
  repl_.SetIdentity(psync_replid_, psync_offset_);
  repl_.ClearPreviousIdentity();
  log.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Finished with success");
  server.NotifySupervisor(
      "STATUS=MASTER <-> REPLICA sync: Finished with success. Ready to accept connections in "
      "read-write mode.\n");
  AttachLink(-1);
  return false;
}

void ReplicaSide::AttachLink(int db_index) {
  Server& server = repl_.server();
  ev_.reset();
  const int fd = fd_;
  fd_ = -1;
  sockaddr_storage peer{}, local{};
  socklen_t plen = sizeof(peer), llen = sizeof(local);
  getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &plen);
  getsockname(fd, reinterpret_cast<sockaddr*>(&local), &llen);
  Client* c = server.AttachClient(fd, false, FormatSockAddr(peer), FormatSockAddr(local),
                                  ClientKind::kMasterLink);
  c->tls = std::move(tls_);
  if (db_index >= 0 && db_index < server.db_count()) (void)server.SelectDb(*c, db_index);
  link_ = c;
  state_ = LinkState::kConnected;
  pending_.clear();
  down_since_ms_ = 0;
  last_io_ms_ = now_ms();
  transfer_size_ = -1;
  transfer_read_ = 0;
  PublishRole();
  // Our first acknowledgement: a diskless master starts the stream when it arrives.
  SendAck();
  if (!in_.empty() && !c->closed) {
    c->query.Append(in_);
    in_.clear();
    server.ProcessInput(c);
  }
}

}  // namespace redistp
