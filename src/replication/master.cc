// The master side (master_side.h): replicas' links, full and partial syncs, the stream. WAIT and
// the acknowledgements are in master_wait.cc, the handshake in master_handshake.cc.
#include <event2/event.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "persistence/persistence.h"
#include "protocol/errors.h"
#include "replication/failover.h"
#include "replication/master_side.h"
#include "replication/replica_side.h"
#include "replication/replication.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {

namespace {

constexpr size_t kBulkHighWater = 1 << 20;  // queue at most this much RDB ahead of the socket
constexpr size_t kBulkTurnCap = 64 << 20;   // send at most this much of a file per loop turn
constexpr size_t kChunk = 64 * 1024;
constexpr std::string_view kPing = "*1\r\n$4\r\nPING\r\n";
constexpr std::string_view kGetAck = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";

void AppendBulk(std::string* out, std::string_view s) {
  out->push_back('$');
  out->append(std::to_string(s.size()));
  out->append("\r\n");
  out->append(s);
  out->append("\r\n");
}

}  // namespace

int64_t MasterSide::ConfigInt(const char* name, int64_t dflt) const {
  std::string v;
  int64_t n = dflt;
  if (repl_.server().config().GetValue(name, &v)) (void)ParseInt64(v, &n);
  return n;
}

bool MasterSide::ConfigBool(const char* name) const {
  std::string v;
  return repl_.server().config().GetValue(name, &v) && v == "yes";
}

ReplicaLink* MasterSide::Find(const Client& c) {
  for (auto& l : links_) {
    if (l->client == &c) return l.get();
  }
  return nullptr;
}

std::string MasterSide::Name(const ReplicaLink& l) const {
  std::string ip = l.announced_ip;
  if (ip.empty()) ip = l.client->addr.substr(0, l.client->addr.rfind(':'));
  if (l.listening_port != 0) return ip + ":" + std::to_string(l.listening_port);
  return ip + ":<unknown-replica-port>";
}

// ---- the stream --------------------------------------------------------------------------------

void MasterSide::Propagate(const std::vector<std::string>& argv) {
  encode_buf_.clear();
  const bool is_select = argv.size() == 2 && EqualsIgnoreCase(argv[0], "SELECT");
  if (is_select) {
    int64_t db = 0;
    if (ParseInt64(argv[1], &db)) stream_db_ = static_cast<int>(db);
  } else if (stream_db_ < 0) {
    // A fresh stream (a new backlog, a full sync) says which database it is in first.
    stream_db_ = std::max(0, repl_.server().propagator().selected_db());
    std::string db = std::to_string(stream_db_);
    encode_buf_.append("*2\r\n$6\r\nSELECT\r\n");
    AppendBulk(&encode_buf_, db);
  }
  encode_buf_.push_back('*');
  encode_buf_.append(std::to_string(argv.size()));
  encode_buf_.append("\r\n");
  for (const std::string& a : argv) AppendBulk(&encode_buf_, a);
  repl_.FeedStream(encode_buf_);
  // Kept for the next record, unless one big value made it big: then it would hold that much
  // memory (twice the value, by the string's growth) for the life of the server.
  ReleaseBuffer(&encode_buf_);
}

void MasterSide::Feed(std::string_view bytes) {
  if (backlog_ != nullptr) backlog_->Append(bytes);
  Server& server = repl_.server();
  for (auto& lp : links_) {
    ReplicaLink& l = *lp;
    if (l.client->closed) continue;
    if (l.state == ReplicaState::kOnline && !l.stream_on_first_ack) {
      l.client->out.Append(bytes);
      server.QueueOutput(l.client);
    } else if (l.state != ReplicaState::kWaitBgsaveStart) {
      l.pending.append(bytes);
    }
  }
}

void MasterSide::AlignBacklog() {
  const int64_t next = repl_.master_repl_offset() + 1;
  if (backlog_ == nullptr) {
    CreateBacklog(false);
  } else if (backlog_->next_offset() != next) {
    // A full sync moved us to another point of (another) history: what we held is not it.
    backlog_ = std::make_unique<ReplBacklog>(backlog_->capacity(), next);
  }
}

void MasterSide::OnRoleChanged(bool master) {
  // The backlog's time to live counts from the promotion, not from an earlier moment without
  // replicas: a replica never had any, and its backlog holds the history the old master's
  // replicas continue with PSYNC (Redis restarts the count there too).
  if (master) no_replicas_since_ms_ = repl_.server().NowMs();
  // Only a master encodes its own records; a replica's stream is its master's bytes.
  if (master && backlog_ != nullptr) {
    stream_db_ = -1;  // the first record of our own stream says its database
    repl_.server().propagator().AddSink(&repl_);
  } else if (!master) {
    repl_.server().propagator().RemoveSink(&repl_);
  }
}

void MasterSide::CreateBacklog(bool new_history) {
  // A master's first backlog starts a new history: no replica of an earlier one may continue it
  // (Redis changes the id here). A replica's backlog holds its master's history, id and all.
  if (new_history) repl_.ChangeReplicationId();
  backlog_ = std::make_unique<ReplBacklog>(
      static_cast<size_t>(ConfigInt("repl-backlog-size", 1 << 20)), repl_.master_repl_offset() + 1);
  stream_db_ = -1;
  if (!repl_.is_replica()) repl_.server().propagator().AddSink(&repl_);
  if (!new_history) return;
  repl_.server().log().Log(LogLevel::kNotice,
                           "Replication backlog created, my new replication IDs are '%s' and '%s'",
                           repl_.replid().c_str(), repl_.replid2().c_str());
}

void MasterSide::FreeBacklog() {
  repl_.server().propagator().RemoveSink(&repl_);
  backlog_.reset();
  // Without a backlog nobody can continue this history: a new id, as Redis does.
  repl_.ChangeReplicationId();
}

bool MasterSide::SaveInfo(std::string* id, int64_t* offset, int* stream_db) const {
  if (backlog_ == nullptr) return false;
  *id = repl_.replid();
  *offset = repl_.master_repl_offset();
  *stream_db = std::max(0, stream_db_);
  return true;
}

// ---- SYNC / PSYNC ------------------------------------------------------------------------------

void MasterSide::SyncCommand(Client& c, bool psync, std::string_view replid, int64_t offset) {
  if (c.kind() == ClientKind::kReplica) return;  // already one: ignored, as in Redis
  Server& server = repl_.server();
  // Nobody may start following us while we hand over to another server.
  if (repl_.failover().state() != Failover::State::kNone) {
    c.reply.Error(err::kSyncWhileFailingOver);
    return;
  }
  // A replica serves its own replicas only what its master sent: while its link is down its
  // data may be stale, and a sub-replica must wait (Redis answers the same, and the sub-replica
  // retries).
  if (repl_.is_replica() && repl_.replica().state() != ReplicaSide::LinkState::kConnected) {
    c.reply.Error(err::kSyncNoMasterLink);
    return;
  }
  if (c.out.Readable() > 0) {
    c.reply.Error(err::kSyncPendingOutput);
    return;
  }
  HandshakeInfo hs;
  for (auto it = handshakes_.begin(); it != handshakes_.end(); ++it) {
    if (it->first == c.id) {
      // A filtered snapshot only goes through a socket: the connection keeps what it said and
      // may add `capa eof` and ask again.
      if (it->second.rdb_exclude != 0 && !it->second.capa_eof) {
        c.reply.Error(err::kFilteredReplicaNeedsEof);
        return;
      }
      hs = it->second;
      handshakes_.erase(it);
      break;
    }
  }
  std::string peer = c.addr.substr(0, c.addr.rfind(':'));
  std::string name = (hs.ip.empty() ? peer : hs.ip) + ":" +
                     (hs.listening_port != 0 ? std::to_string(hs.listening_port)
                                             : std::string("<unknown-replica-port>"));
  server.log().Log(LogLevel::kNotice, "Replica %s asks for synchronization", name.c_str());
  if (psync) {
    if (TryPartial(c, replid, offset, hs)) {
      ++sync_partial_ok_;
      return;
    }
    if (replid != "?") ++sync_partial_err_;
  }
  ++sync_full_;
  c.set_kind(ClientKind::kReplica);
  auto link = std::make_unique<ReplicaLink>();
  link->client = &c;
  link->listening_port = hs.listening_port;
  link->announced_ip = hs.ip;
  link->capa_eof = hs.capa_eof;
  link->capa_psync2 = hs.capa_psync2;
  link->pre_psync = !psync;
  link->rdb_only = hs.rdb_only;
  link->rdb_exclude = hs.rdb_exclude;
  link->ack_time_ms = link->wait_since_ms = server.NowMs();
  ReplicaLink& l = *link;
  links_.push_back(std::move(link));
  if (backlog_ == nullptr) CreateBacklog(!repl_.is_replica());

  Persistence& p = Persistence::Of(server);
  const bool diskless_on = ConfigBool("repl-diskless-sync");
  // A filtered snapshot always goes through the socket, whatever repl-diskless-sync says.
  const bool diskless = (diskless_on || l.rdb_exclude != 0) && l.capa_eof;
  if (sync_child_running_ && !sync_child_diskless_) {
    // A disk snapshot for replication is being written: share it, with the stream kept since
    // its offset by a replica that waits for it (not with a filtered one: the file has all).
    for (auto& o : links_) {
      if (l.rdb_exclude == 0 && o.get() != &l && o->state == ReplicaState::kWaitBgsaveEnd &&
          !o->diskless) {
        l.pending = o->pending;
        SetupFullResync(l, o->initial_offset);
        server.log().Log(LogLevel::kNotice, "Waiting for end of BGSAVE for SYNC");
        return;
      }
    }
    server.log().Log(LogLevel::kNotice,
                     "Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE "
                     "for SYNC");
  } else if (sync_child_running_) {
    server.log().Log(LogLevel::kNotice,
                     "Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC");
  } else if (diskless && diskless_on) {
    // repl-diskless-sync-delay: BeforeSleep starts it once the delay passed (or enough came).
    if (ConfigInt("repl-diskless-sync-delay", 5) != 0) {
      server.log().Log(LogLevel::kNotice, "Delay next BGSAVE for diskless SYNC");
    } else if (!p.HasActiveChild()) {
      StartSyncChild(true, l.rdb_exclude);
    }
  } else if (!p.HasActiveChild()) {
    StartSyncChild(diskless, l.rdb_exclude);
  } else {
    server.log().Log(LogLevel::kNotice,
                     "No BGSAVE in progress, but another BG operation is active. BGSAVE for "
                     "replication delayed");
  }
}

bool MasterSide::TryPartial(Client& c, std::string_view replid, int64_t offset,
                            const HandshakeInfo& hs) {
  Server& server = repl_.server();
  Logger& log = server.log();
  std::string name = (hs.ip.empty() ? c.addr.substr(0, c.addr.rfind(':')) : hs.ip) + ":" +
                     std::to_string(hs.listening_port);
  if (replid != repl_.replid() &&
      (replid != repl_.replid2() || offset > repl_.second_replid_offset())) {
    if (replid == "?") {
      log.Log(LogLevel::kNotice, "Full resync requested by replica %s", name.c_str());
    } else if (replid != repl_.replid2()) {
      log.Log(LogLevel::kNotice,
              "Partial resynchronization not accepted: Replication ID mismatch (Replica asked "
              "for '%.*s', my replication IDs are '%s' and '%s')",
              static_cast<int>(replid.size()), replid.data(), repl_.replid().c_str(),
              repl_.replid2().c_str());
    } else {
      log.Log(LogLevel::kNotice,
              "Partial resynchronization not accepted: Requested offset for second ID was "
              "%lld, but I can reply up to %lld",
              static_cast<long long>(offset), static_cast<long long>(repl_.second_replid_offset()));
    }
    return false;
  }
  if (backlog_ == nullptr || !backlog_->Covers(offset)) {
    log.Log(LogLevel::kNotice,
            "Unable to partial resync with replica %s for lack of backlog (Replica request "
            "was: %lld).",
            name.c_str(), static_cast<long long>(offset));
    if (offset > repl_.master_repl_offset()) {
      log.Log(LogLevel::kWarning,
              "Warning: replica %s tried to PSYNC with an offset that is greater than the "
              "master replication offset.",
              name.c_str());
    }
    return false;
  }
  c.set_kind(ClientKind::kReplica);
  auto link = std::make_unique<ReplicaLink>();
  link->client = &c;
  link->listening_port = hs.listening_port;
  link->announced_ip = hs.ip;
  link->capa_eof = hs.capa_eof;
  link->capa_psync2 = hs.capa_psync2;
  link->state = ReplicaState::kOnline;
  link->ack_time_ms = server.NowMs();
  link->ack_offset = offset - 1;
  std::string head = hs.capa_psync2 ? "+CONTINUE " + repl_.replid() + "\r\n" : "+CONTINUE\r\n";
  std::string data;
  backlog_->CopyFrom(offset, &data);
  c.out.Append(head);
  c.out.Append(data);
  server.QueueOutput(&c);
  links_.push_back(std::move(link));
  log.Log(LogLevel::kNotice,
          "Partial resynchronization request from %s accepted. Sending %lld bytes of backlog "
          "starting from offset %lld.",
          name.c_str(), static_cast<long long>(data.size()), static_cast<long long>(offset));
  RefreshGoodReplicas();
  return true;
}

void MasterSide::SetupFullResync(ReplicaLink& l, int64_t offset) {
  l.state = ReplicaState::kWaitBgsaveEnd;
  l.initial_offset = offset;
  // The stream after the snapshot must say its database again (Redis resets slaveseldb).
  stream_db_ = -1;
  if (!l.pre_psync) {
    l.client->out.Append("+FULLRESYNC " + repl_.replid() + " " + std::to_string(offset) + "\r\n");
    repl_.server().QueueOutput(l.client);
  }
}

void MasterSide::StartSyncChild(bool diskless, uint8_t exclude) {
  Server& server = repl_.server();
  Persistence& p = Persistence::Of(server);
  Logger& log = server.log();
  log.Log(LogLevel::kNotice, "Starting BGSAVE for SYNC with target: %s",
          diskless ? "replicas sockets" : "disk");
  const int64_t offset = repl_.master_repl_offset();
  Status s = Status::Ok();
  int fds[2] = {-1, -1};
  if (!diskless) {
    s = p.StartBackgroundSave([this](bool ok) { OnDiskSnapshotDone(ok); });
  } else if (pipe2(fds, O_CLOEXEC) != 0) {
    s = Status::Error(std::strerror(errno));
  } else {
    // 40 characters no RDB is likely to end with: the replica finds the end by them.
    eof_mark_.clear();
    std::string id = repl_.replid();
    for (int i = 0; i < 40; ++i) eof_mark_.push_back("0123456789abcdef"[(id[i] ^ (i * 7)) & 15]);
    RdbSaveOptions options = p.FileSaveOptions();
    options.exclude_data = (exclude & kExcludeData) != 0;
    options.exclude_functions = (exclude & kExcludeFunctions) != 0;
    const std::string mark = eof_mark_;
    const int wfd = fds[1];
    const int rfd = fds[0];
    s = p.StartChild(
        ChildKind::kRdb,
        [&server, options, mark, wfd, rfd]() {
          close(rfd);
          std::string head = "$EOF:" + mark + "\r\n";
          if (write(wfd, head.data(), head.size()) != static_cast<ssize_t>(head.size())) return 1;
          Result<uint64_t> r = WriteRdb(server, wfd, options);
          if (!r.ok()) return 1;
          if (write(wfd, mark.data(), mark.size()) != static_cast<ssize_t>(mark.size())) return 1;
          close(wfd);
          return 0;
        },
        [this](bool ok, int by_signal) {
          (void)by_signal;
          sync_child_running_ = false;
          repl_.server().log().Log(
              ok ? LogLevel::kNotice : LogLevel::kWarning,
              ok ? "Background RDB transfer terminated with success" : "Background transfer error");
          if (!ok) {
            EndPipe();
            for (size_t i = 0; i < links_.size();) {
              ReplicaLink& l = *links_[i];
              if (l.diskless && l.state != ReplicaState::kOnline) {
                Drop(l, "Diskless sync failed");
              } else {
                ++i;
              }
            }
          }
        });
    close(fds[1]);
    if (!s.ok()) {
      close(fds[0]);
    } else {
      pipe_fd_ = fds[0];
      fcntl(pipe_fd_, F_SETFL, fcntl(pipe_fd_, F_GETFL) | O_NONBLOCK);
      pipe_ev_.reset(event_new(server.event_loop(), pipe_fd_, EV_READ | EV_PERSIST,
                               &MasterSide::PipeCallback, this));
      event_add(pipe_ev_.get(), nullptr);
      pipe_paused_ = false;
      log.Log(LogLevel::kNotice, "Background RDB transfer started by pid %ld",
              static_cast<long>(p.child_pid()));
    }
  }
  if (!s.ok()) {
    log.Log(LogLevel::kWarning, "BGSAVE for replication failed");
    for (size_t i = 0; i < links_.size();) {
      ReplicaLink& l = *links_[i];
      if (l.state == ReplicaState::kWaitBgsaveStart) {
        l.client->out.Append("-" + std::string(err::kBgsaveForReplicationFailed) + "\r\n");
        l.client->set_flag(kClientCloseAfterReply, true);
        server.QueueOutput(l.client);
      }
      ++i;
    }
    return;
  }
  sync_child_running_ = true;
  sync_child_diskless_ = diskless;
  for (auto& l : links_) {
    if (l->state != ReplicaState::kWaitBgsaveStart) continue;
    if (diskless && !l->capa_eof) continue;  // waits for a disk one after this
    // Each snapshot serves the replicas that asked for its filter (a disk one: no filter).
    if (l->rdb_exclude != (diskless ? exclude : 0)) continue;
    l->diskless = diskless;
    SetupFullResync(*l, offset);
    if (diskless) {
      l->state = ReplicaState::kSendBulk;  // the pipe feeds it from now on
    }
  }
}

// ---- disk snapshots ----------------------------------------------------------------------------

void MasterSide::OnDiskSnapshotDone(bool ok) {
  sync_child_running_ = false;
  Server& server = repl_.server();
  const std::string path = Persistence::Of(server).RdbPath();
  for (size_t i = 0; i < links_.size();) {
    ReplicaLink& l = *links_[i];
    if (l.state != ReplicaState::kWaitBgsaveEnd || l.diskless) {
      ++i;
      continue;
    }
    if (!ok) {
      server.log().Log(LogLevel::kWarning, "SYNC failed. BGSAVE child returned an error");
      Drop(l, "SYNC failed. BGSAVE child returned an error");
      continue;
    }
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0) {
      server.log().Log(LogLevel::kWarning, "SYNC failed. Can't open/stat DB after BGSAVE: %s",
                       std::strerror(errno));
      if (fd >= 0) close(fd);
      Drop(l, "SYNC failed");
      continue;
    }
    l.rdb_fd = fd;
    l.rdb_left = st.st_size;
    l.state = ReplicaState::kSendBulk;
    l.client->out.Append("$" + std::to_string(st.st_size) + "\r\n");
    PumpRdbFile(l);
    ++i;
  }
}

void MasterSide::PumpRdbFile(ReplicaLink& l) {
  char buf[kChunk];
  while (l.rdb_left > 0 && l.client->out.Readable() < kBulkHighWater) {
    ssize_t n = read(l.rdb_fd, buf, std::min<int64_t>(sizeof buf, l.rdb_left));
    if (n <= 0) {
      repl_.server().log().Log(LogLevel::kWarning, "Read error sending DB to replica: %s",
                               n < 0 ? std::strerror(errno) : "premature EOF");
      Drop(l, "Read error sending DB");
      return;
    }
    l.client->out.Append(buf, static_cast<size_t>(n));
    l.rdb_left -= n;
  }
  repl_.server().QueueOutput(l.client);
  if (l.rdb_left == 0) {
    close(l.rdb_fd);
    l.rdb_fd = -1;
    if (l.rdb_only) {
      FinishRdbOnly(l);
      return;
    }
    PutOnline(l);
    StartStream(l);
  }
}

void MasterSide::PutOnline(ReplicaLink& l) {
  l.state = ReplicaState::kOnline;
  l.ack_time_ms = repl_.server().NowMs();
  repl_.server().log().Log(LogLevel::kNotice, "Synchronization with replica %s succeeded",
                           Name(l).c_str());
  RefreshGoodReplicas();
}

void MasterSide::StartStream(ReplicaLink& l) {
  l.stream_on_first_ack = false;
  if (!l.pending.empty()) {
    l.client->out.Append(l.pending);
    std::string().swap(l.pending);
  }
  repl_.server().QueueOutput(l.client);
}

// ---- diskless: relaying the child's pipe -------------------------------------------------------

void MasterSide::PipeCallback(int /*fd*/, short /*what*/, void* arg) {
  static_cast<MasterSide*>(arg)->ReadPipe();
}

void MasterSide::ReadPipe() {
  Server& server = repl_.server();
  char buf[kChunk];
  for (int rounds = 0; rounds < 16; ++rounds) {
    // A slow replica holds the transfer back (the pipe fills, the child waits) rather than
    // the RDB piling up in its output buffer.
    for (auto& l : links_) {
      if (l->diskless && l->state == ReplicaState::kSendBulk &&
          l->client->out.Readable() >= kBulkHighWater) {
        event_del(pipe_ev_.get());
        pipe_paused_ = true;
        return;
      }
    }
    ssize_t n = read(pipe_fd_, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
      server.log().Log(LogLevel::kNotice,
                       "Diskless rdb transfer, done reading from pipe, %d "
                       "replicas still up.",
                       static_cast<int>(std::count_if(links_.begin(), links_.end(), [](auto& l) {
                         return l->diskless && l->state == ReplicaState::kSendBulk;
                       })));
      for (auto& l : links_) {
        if (!l->diskless || l->state != ReplicaState::kSendBulk) continue;
        if (l->rdb_only) {
          FinishRdbOnly(*l);
          continue;
        }
        // It loads the RDB before it reads further: the stream starts at its first ACK.
        l->stream_on_first_ack = true;
        PutOnline(*l);
      }
      EndPipe();
      return;
    }
    for (auto& l : links_) {
      if (!l->diskless || l->state != ReplicaState::kSendBulk) continue;
      l->client->out.Append(buf, static_cast<size_t>(n));
      server.QueueOutput(l->client);
    }
  }
}

void MasterSide::EndPipe() {
  pipe_ev_.reset();
  if (pipe_fd_ >= 0) close(pipe_fd_);
  pipe_fd_ = -1;
  pipe_paused_ = false;
}

// ---- hooks -------------------------------------------------------------------------------------

size_t MasterSide::replicas_output_bytes() const {
  size_t bytes = 0;
  for (const auto& l : links_) {
    if (l->client != nullptr) bytes += l->client->pending_output();
  }
  return bytes;
}

ReplicaLink* MasterSide::LinkOf(const Client* c) {
  for (auto& l : links_) {
    if (l->client == c) return l.get();
  }
  return nullptr;
}

void MasterSide::Drop(ReplicaLink& l, const char* why) {
  repl_.server().CloseClient(l.client, why);  // OnClientClose removes the link
}

void MasterSide::Cron() {
  Server& server = repl_.server();
  const int64_t now = server.NowMs();
  // Once a second, as Redis's replication cron.
  if (now - last_keepalive_ms_ >= 1000) {
    last_keepalive_ms_ = now;
    for (auto& l : links_) {
      // A replica waiting for its snapshot hears "\n" so it knows the master is alive.
      if (l->state == ReplicaState::kWaitBgsaveStart ||
          (l->state == ReplicaState::kWaitBgsaveEnd && !l->diskless)) {
        l->client->out.Append("\n");
        server.QueueOutput(l->client);
      }
    }
    const int64_t timeout_ms = ConfigInt("repl-timeout", 60) * 1000;
    std::vector<ReplicaLink*> late;
    for (auto& l : links_) {
      if (l->state == ReplicaState::kOnline && !l->pre_psync && now - l->ack_time_ms > timeout_ms) {
        late.push_back(l.get());
      }
    }
    for (ReplicaLink* l : late) {
      server.log().Log(LogLevel::kWarning, "Disconnecting timedout replica (streaming sync): %s",
                       Name(*l).c_str());
      Drop(*l, "replica timed out");
    }
    // Replica-class output limits also count the stream kept for a replica mid-sync.
    const auto& lim = server.config().client_output_buffer_limits[kClientClassReplica];
    std::vector<ReplicaLink*> over;
    for (auto& l : links_) {
      if (lim.hard > 0 && l->pending.size() >= static_cast<size_t>(lim.hard))
        over.push_back(l.get());
    }
    for (ReplicaLink* l : over) {
      server.log().Log(LogLevel::kWarning,
                       "Client %s scheduled to be closed ASAP for overcoming of output buffer "
                       "limits.",
                       server.ClientInfoLine(*l->client).c_str());
      ++server.stats().client_outbuf_limit_disconnections;
      Drop(*l, "output buffer limit");
    }
    // The backlog goes after repl-backlog-ttl seconds without replicas (not on a replica: its
    // backlog is its master's history, kept for a promotion).
    const int64_t ttl = ConfigInt("repl-backlog-ttl", 3600);
    if (links_.empty() && backlog_ != nullptr && !repl_.is_replica() && ttl > 0 &&
        now - no_replicas_since_ms_ > ttl * 1000) {
      server.log().Log(LogLevel::kNotice,
                       "Replication backlog freed after %lld seconds without connected replicas.",
                       static_cast<long long>(ttl));
      FreeBacklog();
    }
  }
  // CONFIG SET repl-backlog-size takes effect here (keeping the newest history that fits).
  if (backlog_ != nullptr) {
    const size_t size = static_cast<size_t>(ConfigInt("repl-backlog-size", 1 << 20));
    if (size != backlog_->capacity()) backlog_->Resize(size);
  }
  // repl-ping-replica-period: a PING in the stream, so replicas can tell a quiet master from
  // a dead link. The schedule runs from startup whether or not replicas are attached, as
  // Redis's does (its PING goes out on cron loops that are multiples of the period), so a
  // replica that just attached does not get a PING at once (its first offset stays 0). Not
  // while FAILOVER (or a cluster's manual failover) holds writes: the offset its target must
  // reach stays put.
  if (now - last_ping_ms_ >= ConfigInt("repl-ping-replica-period", 10) * 1000) {
    last_ping_ms_ = now;
    if (!links_.empty() && !repl_.is_replica() &&
        repl_.failover().state() == Failover::State::kNone && !hold_pings_) {
      repl_.FeedStream(kPing);
    }
  }
  RefreshGoodReplicas();
}

void MasterSide::RequestAcks() {
  if (!links_.empty()) repl_.FeedStream(kGetAck);
}

void MasterSide::BeforeSleep() {
  if (links_.empty() && waiters_.empty()) return;
  Server& server = repl_.server();
  // Queue more of the RDB files being sent, and let a paused pipe flow again. A file is sent
  // until the socket is full: then its write event is armed and wakes the loop for the next
  // part. Queuing one part per turn and leaving the write to the write pass let a fast replica
  // drain the socket and the loop sleep until the next cron tick, about 100 ms per megabyte
  // (a 1M-key sync took 2.7 s to send 29 MB). A turn sends at most kBulkTurnCap, so a huge
  // file does not hold the other clients for long.
  // A read or write error closes the replica, which removes its link: the loop holds the
  // clients (freed only when the turn is over) and looks the link up again each time.
  std::vector<Client*> sending;
  for (auto& l : links_) {
    if (l->state == ReplicaState::kSendBulk && l->rdb_fd >= 0) sending.push_back(l->client);
  }
  for (Client* c : sending) {
    size_t sent = 0;
    while (!c->closed && sent < kBulkTurnCap && c->out.Readable() < kBulkHighWater / 2) {
      ReplicaLink* l = LinkOf(c);
      if (l == nullptr || l->state != ReplicaState::kSendBulk || l->rdb_fd < 0) break;
      const size_t before = c->out.Readable();
      PumpRdbFile(*l);
      if (c->closed) break;
      sent += c->out.Readable() > before ? c->out.Readable() - before : 1;
      server.FlushClient(c);
    }
  }
  if (pipe_paused_ && pipe_ev_ != nullptr) {
    bool drained = true;
    for (auto& l : links_) {
      if (l->diskless && l->state == ReplicaState::kSendBulk &&
          l->client->out.Readable() >= kBulkHighWater / 2) {
        drained = false;
      }
    }
    if (drained) {
      pipe_paused_ = false;
      event_add(pipe_ev_.get(), nullptr);
    }
  }
  // Syncs waiting for a child: start one when none runs (diskless after its delay). One
  // snapshot serves one filter: the first waiting replica's, the others wait for the next.
  if (!sync_child_running_ && !Persistence::Of(server).HasActiveChild()) {
    int64_t oldest = -1;
    int waiting = 0;
    bool any_disk = false;
    uint8_t group = 0;
    const bool diskless_on = ConfigBool("repl-diskless-sync");
    for (auto& l : links_) {
      if (l->state != ReplicaState::kWaitBgsaveStart) continue;
      if (waiting == 0) {
        group = l->rdb_exclude;
      } else if (l->rdb_exclude != group) {
        continue;
      }
      ++waiting;
      if (group == 0 && !(diskless_on && l->capa_eof)) any_disk = true;
      if (oldest < 0 || l->wait_since_ms < oldest) oldest = l->wait_since_ms;
    }
    if (waiting > 0) {
      const int64_t delay = ConfigInt("repl-diskless-sync-delay", 5) * 1000;
      const int64_t max = ConfigInt("repl-diskless-sync-max-replicas", 0);
      if (any_disk) {
        StartSyncChild(false);
      } else if (!diskless_on || server.NowMs() - oldest >= delay || (max > 0 && waiting >= max)) {
        // (Without repl-diskless-sync only a filtered group gets here: it goes at once.)
        StartSyncChild(true, group);
      }
    }
  }
  if (ask_acks_ && !waiters_.empty()) {
    repl_.FeedStream(kGetAck);
    ask_acks_ = false;
  }
  // WAITAOF's local count moves when a background fsync ends, which wakes nobody: while any
  // waiter is a WAITAOF, look every turn (the cron's turn at the latest).
  bool aof_waiter = false;
  for (const Waiter& w : waiters_) aof_waiter = aof_waiter || w.aof;
  if ((acks_arrived_ || aof_waiter) && !waiters_.empty()) ServeWaiters();
  acks_arrived_ = false;
  RefreshGoodReplicas();
}

void MasterSide::OnClientClose(Client& c) {
  handshakes_.erase(std::remove_if(handshakes_.begin(), handshakes_.end(),
                                   [&](auto& h) { return h.first == c.id; }),
                    handshakes_.end());
  for (auto it = links_.begin(); it != links_.end(); ++it) {
    if ((*it)->client != &c) continue;
    ReplicaLink& l = **it;
    if (l.rdb_fd >= 0) close(l.rdb_fd);
    if (l.state == ReplicaState::kOnline) {
      repl_.server().log().Log(LogLevel::kNotice, "Connection with replica %s lost.",
                               Name(l).c_str());
    }
    links_.erase(it);
    if (links_.empty()) no_replicas_since_ms_ = repl_.server().NowMs();
    RefreshGoodReplicas();
    return;
  }
}

bool MasterSide::PrepareShutdown(int flags) {
  (void)flags;
  return true;
}

}  // namespace redistp
