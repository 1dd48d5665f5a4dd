// The replica side (replica_side.h): following and leaving a master, the applied stream and its
// acknowledgements, the cron's reconnects and timeouts, INFO and ROLE. The connection itself,
// until it becomes the master-link client, is master_link.cc's.
#include <strings.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "protocol/errors_replica.h"
#include "replication/backlog.h"
#include "replication/master_side.h"
#include "replication/replica_side.h"
#include "replication/replication.h"
#include "util/numbers.h"

namespace redistp {
namespace {

void Line(std::string* out, const std::string& text) {
  out->append(text);
  out->append("\r\n");
}

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

int64_t ConfigInt(const Config& cfg, std::string_view name, int64_t fallback) {
  std::string text;
  int64_t v = 0;
  if (cfg.GetValue(name, &text) && ParseInt64(text, &v)) return v;
  return fallback;
}

}  // namespace

ReplicaSide::ReplicaSide(Replication& repl) : repl_(repl) {}

ReplicaSide::~ReplicaSide() {
  // The link client, if any, is the server's and goes with it; the rest is ours.
  CancelHandshake();
  ReplicaRole& role = repl_.server().replica_role();
  if (role.observer == this) role.observer = nullptr;
}

int64_t ReplicaSide::now_ms() const { return repl_.server().NowMs(); }

void ReplicaSide::PublishRole() {
  Server& server = repl_.server();
  ReplicaRole& role = server.replica_role();
  const bool was_following = role.following;
  role.following = active();
  role.link_up = state_ == LinkState::kConnected;
  // oom-score-adj-values has a value per role: a new role takes its own (refusals are logged).
  if (was_following != role.following) (void)server.ApplyOomScoreAdj();
  role.observer = this;
  server.keyspace().expiry.SetReplica(active());
  server.log().set_role(active() ? 'S' : 'M');
  const std::string value = active() ? master_host_ + " " + std::to_string(master_port_) : "";
  std::string current;
  server.config().GetValue("replicaof", &current);
  if (current != value) server.config().SetFromServer("replicaof", value);
}

Status ReplicaSide::Start() {
  Server& server = repl_.server();
  server.replica_role().observer = this;
  // A replica's RDB files carry its history, so that it continues with PSYNC after a restart
  // (the master side adds a master's own history when it keeps a backlog).
  Persistence::Of(server).SetReplInfoProvider([this](std::string* id, int64_t* offset, int* db) {
    // Not following anyone: a master's own history, while it keeps a backlog.
    if (!active()) return repl_.master().SaveInfo(id, offset, db);
    if (link_ == nullptr && !have_cached_) return false;
    *id = repl_.replid();
    *offset = repl_.master_repl_offset();
    const int selected = link_ != nullptr ? link_->db_index : cached_db_;
    *db = selected < 0 ? 0 : selected;
    return true;
  });
  const Config& cfg = server.config();
  if (cfg.replicaof_host.empty()) return Status::Ok();
  master_host_ = cfg.replicaof_host;
  master_port_ = cfg.replicaof_port;
  AdoptLoadedIdentity();
  adopted_from_rdb_ = false;  // followed from here, not by a later Follow
  state_ = LinkState::kConnect;
  PublishRole();
  repl_.BecameReplica();
  // The first cron tick connects, as Redis's replication cron does.
  last_connect_try_ms_ = 0;
  return Status::Ok();
}

bool ReplicaSide::AdoptLoadedIdentity() {
  // The RDB this replica saved names the history it held: continue from there (PSYNC).
  Persistence* p = repl_.server().subsystem<Persistence>();
  if (p == nullptr) return false;
  const RdbLoadInfo& info = p->last_load();
  if (info.repl_id.size() != 40 || info.repl_offset < 0) return false;
  repl_.SetIdentity(info.repl_id, info.repl_offset);
  repl_.ClearPreviousIdentity();
  have_cached_ = true;
  cached_db_ = info.repl_stream_db;
  adopted_from_rdb_ = true;
  return true;
}

bool ReplicaSide::Follow(const std::string& host, int port, const std::string& who,
                         IfSameMaster same) {
  Server& server = repl_.server();
  Logger& log = server.log();
  if (same == IfSameMaster::kKeepLink && active() && IEquals(host, master_host_) &&
      port == master_port_) {
    log.Log(LogLevel::kNotice,
            "REPLICAOF would result into synchronization with the master we are already "
            "connected with. No operation performed.");
    return false;
  }
  // A history adopted from the RDB at startup (AdoptLoadedIdentity) is kept as it is.
  const bool was_master = !active();
  const bool resume = was_master && adopted_from_rdb_;
  adopted_from_rdb_ = false;
  failover_result_ = nullptr;  // a REPLICAOF supersedes a failover's attempt
  master_host_ = host;
  master_port_ = port;
  if (link_ != nullptr) {
    // The old master's link goes; its state stays as the history to continue from.
    Client* old = link_;
    server.CloseClient(old, "replicaof");
  }
  // Clients blocked on this server as a master wait for writes that will not come from them.
  server.UnblockAllClients(err::kUnblockedRoleChange);
  CancelHandshake();
  if (was_master && !resume) {
    log.Log(LogLevel::kNotice,
            "Before turning into a replica, using my own master parameters to synthesize a "
            "cached master: I may be able to synchronize with the new master with just a "
            "partial transfer.");
    have_cached_ = true;
    cached_db_ = -1;
  }
  state_ = LinkState::kConnect;
  PublishRole();
  if (was_master) repl_.BecameReplica();
  Connect();
  if (!who.empty()) {
    log.Log(LogLevel::kNotice, "REPLICAOF %s:%d enabled (user request from '%s')", host.c_str(),
            port, who.c_str());
  }
  return true;
}

void ReplicaSide::FollowForFailover(const std::string& host, int port,
                                    std::function<void(bool accepted)> on_result) {
  // Connect() inside Follow only starts the connection: the PSYNC comes later, so the flag set
  // right after is seen by it.
  Follow(host, port, "");
  failover_result_ = std::move(on_result);
}

void ReplicaSide::Unfollow(const std::string& reason) {
  Server& server = repl_.server();
  Logger& log = server.log();
  if (!active()) return;
  master_host_.clear();
  master_port_ = 0;
  log.set_role('M');  // what follows is a master's doing, as Redis logs it
  if (link_ != nullptr) server.CloseClient(link_, "replicaof no one");
  CancelHandshake();
  if (have_cached_) log.Log(LogLevel::kNotice, "Discarding previously cached master state.");
  have_cached_ = false;
  cached_db_ = -1;
  pending_.clear();
  // Our history stays valid for replicas that followed it: it becomes the previous id. They
  // are disconnected to learn the new id, and continue with PSYNC.
  repl_.ShiftReplicationId();
  DisconnectReplicas();
  log.Log(LogLevel::kWarning,
          "Setting secondary replication ID to %s, valid up to offset: %lld. New replication ID "
          "is %s",
          repl_.replid2().c_str(), static_cast<long long>(repl_.second_replid_offset()),
          repl_.replid().c_str());
  state_ = LinkState::kNone;
  // A master has no link to have lost: as a replica again it starts from "never up" (Redis
  // resets repl_down_since too), which a cluster replica's failover validity reads.
  down_since_ms_ = 0;
  PublishRole();
  repl_.BecameMaster();
  failover_result_ = nullptr;
  log.Log(LogLevel::kNotice, "MASTER MODE enabled (%s)", reason.c_str());
}

void ReplicaSide::OnMasterCommandApplied(Client& link, std::string_view raw,
                                         const std::vector<std::string_view>& args) {
  if (&link != link_) return;
  last_io_ms_ = now_ms();
  // REPLCONF GETACK: the offset before this command, as Redis answers it (its bytes are
  // counted only once it has run).
  if (args.size() >= 2 && IEquals(args[0], "replconf") && IEquals(args[1], "getack")) SendAck();
  // A command outside a transaction goes on as it came (no copy: one big value would leave
  // a buffer of its size behind for the life of the link).
  if (pending_.empty() && !link.multi.active) {
    repl_.FeedStream(raw);
    return;
  }
  pending_.append(raw);
  // A MULTI's commands count with its EXEC: a link that drops inside a transaction continues
  // from before it (the queued commands were never applied).
  if (link.multi.active) return;
  repl_.FeedStream(pending_);
  ReleaseBuffer(&pending_);
}

void ReplicaSide::DisconnectReplicas() {
  Server& server = repl_.server();
  std::vector<Client*> replicas;
  for (const auto& [id, c] : server.clients()) {
    if (c->kind() == ClientKind::kReplica) replicas.push_back(c);
  }
  for (Client* c : replicas) server.CloseClient(c, "replication history changed");
}

void ReplicaSide::SendAck() {
  if (link_ == nullptr || link_->closed) return;
  const std::string offset = std::to_string(repl_.master_repl_offset());
  const int64_t fack = FsyncedOffset();
  std::string wire = std::string(fack >= 0 ? "*5" : "*3") + "\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$" +
                     std::to_string(offset.size()) + "\r\n" + offset + "\r\n";
  if (fack >= 0) {
    const std::string f = std::to_string(fack);
    wire += "$4\r\nFACK\r\n$" + std::to_string(f.size()) + "\r\n" + f + "\r\n";
  }
  sent_fack_ = fack;
  link_->out.Append(wire);
  last_ack_ms_ = now_ms();
  repl_.server().FlushClient(link_);
}

int64_t ReplicaSide::FsyncedOffset() {
  const Aof& aof = Persistence::Of(repl_.server()).aof();
  if (aof.state() != AofState::kOn) {
    fack_marks_.clear();
    fack_ = 0;
    return -1;
  }
  const int64_t offset = repl_.master_repl_offset();
  if (fack_marks_.empty() || fack_marks_.back().second != offset) {
    fack_marks_.emplace_back(aof.taken_bytes(), offset);
    // Bounded: dropping the oldest marks only delays the FACK (never overstates it).
    constexpr size_t kMaxMarks = 4096;
    if (fack_marks_.size() > kMaxMarks) fack_marks_.pop_front();
  }
  const uint64_t synced = aof.synced_bytes();
  while (!fack_marks_.empty() && fack_marks_.front().first <= synced) {
    if (fack_marks_.front().second > fack_) fack_ = fack_marks_.front().second;
    fack_marks_.pop_front();
  }
  return fack_;
}

void ReplicaSide::BeforeSleep() {
  if (link_ == nullptr || link_->closed) return;
  if (FsyncedOffset() != sent_fack_) SendAck();
}

void ReplicaSide::Cron() {
  if (!active()) return;
  Server& server = repl_.server();
  Logger& log = server.log();
  const int64_t now = now_ms();
  const int64_t timeout_ms = ConfigInt(server.config(), "repl-timeout", 60) * 1000;
  switch (state_) {
    case LinkState::kConnect:
      // Redis's replication cron: one attempt a second.
      if (now - last_connect_try_ms_ >= 1000) Connect();
      break;
    case LinkState::kConnecting:
    case LinkState::kHandshake:
      if (now - last_io_ms_ > timeout_ms) FailLink("Timeout connecting to the MASTER...");
      break;
    case LinkState::kTransfer:
      if (now - last_io_ms_ > timeout_ms) {
        FailLink(
            "Timeout receiving bulk data from MASTER... If the problem persists try to set "
            "the 'repl-timeout' parameter in redis.conf to a larger value.");
      } else if (now - last_ack_ms_ >= 1000 && fd_ >= 0) {
        // A newline now and then, so the master sees us alive while it sends the RDB.
        (void)WriteLink("\n");
        last_ack_ms_ = now;
      }
      break;
    case LinkState::kConnected:
      if (link_ != nullptr && now - link_->last_read_ms > timeout_ms) {
        log.Log(LogLevel::kWarning, "MASTER timeout: no data nor PING received...");
        server.CloseClient(link_, "master timeout");
      } else if (now - last_ack_ms_ >= 1000) {
        SendAck();
      }
      break;
    case LinkState::kNone:
      break;
  }
}

void ReplicaSide::OnClientClose(Client& c) {
  if (&c != link_) return;
  link_ = nullptr;
  // Our history (id, offset, the selected database) stays to continue from with PSYNC; a
  // transaction the master had not finished is not part of it.
  have_cached_ = true;
  cached_db_ = c.db_index;
  pending_.clear();
  down_since_ms_ = now_ms();
  if (state_ == LinkState::kConnected) {
    Logger& log = repl_.server().log();
    log.Log(LogLevel::kWarning, "Connection with master lost.");
    log.Log(LogLevel::kNotice, "Caching the disconnected master state.");
    state_ = active() ? LinkState::kConnect : LinkState::kNone;
    // Reconnect at the next cron tick.
    last_connect_try_ms_ = 0;
  }
  PublishRole();
}

int64_t ReplicaSide::MasterDataAgeMs() const {
  const int64_t now = now_ms();
  if (state_ == LinkState::kConnected && link_ != nullptr) return now - link_->last_read_ms;
  if (down_since_ms_ == 0) return INT64_MAX;
  return now - down_since_ms_;
}

void ReplicaSide::WriteInfo(std::string* out) {
  Server& server = repl_.server();
  const int64_t now = now_ms();
  const bool up = state_ == LinkState::kConnected;
  Line(out, "master_host:" + master_host_);
  Line(out, "master_port:" + std::to_string(master_port_));
  Line(out, std::string("master_link_status:") + (up ? "up" : "down"));
  Line(out, "master_last_io_seconds_ago:" +
                std::to_string(link_ != nullptr ? (now - link_->last_read_ms) / 1000 : -1));
  Line(out, std::string("master_sync_in_progress:") + (state_ == LinkState::kTransfer ? "1" : "0"));
  // Offsets: the link's (or the history kept to continue from), else Redis's 1.
  int64_t applied = 1, read = 1;
  if (link_ != nullptr || have_cached_) {
    applied = repl_.master_repl_offset();
    read = applied;
    if (link_ != nullptr) {
      read += static_cast<int64_t>(pending_.size() + link_->query.Readable());
    }
  }
  Line(out, "slave_read_repl_offset:" + std::to_string(read));
  Line(out, "slave_repl_offset:" + std::to_string(applied));
  if (state_ == LinkState::kTransfer) {
    // Redis divides by the size even when it is unknown (-1, the EOF form): so do we.
    const double perc = transfer_size_ != 0 ? static_cast<double>(transfer_read_) /
                                                  static_cast<double>(transfer_size_) * 100.0
                                            : 0.0;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", perc);
    Line(out, "master_sync_total_bytes:" + std::to_string(transfer_size_));
    Line(out, "master_sync_read_bytes:" + std::to_string(transfer_read_));
    Line(out, "master_sync_left_bytes:" + std::to_string(transfer_size_ - transfer_read_));
    Line(out, std::string("master_sync_perc:") + buf);
    Line(out, "master_sync_last_io_seconds_ago:" + std::to_string((now - last_io_ms_) / 1000));
  }
  if (!up) {
    Line(out, "master_link_down_since_seconds:" +
                  std::to_string(down_since_ms_ != 0 ? (now - down_since_ms_) / 1000 : -1));
  }
  Line(out,
       "slave_priority:" + std::to_string(ConfigInt(server.config(), "replica-priority", 100)));
  Line(out, std::string("slave_read_only:") + (server.config().replica_read_only ? "1" : "0"));
  std::string announced = "yes";
  server.config().GetValue("replica-announced", &announced);
  Line(out, std::string("replica_announced:") + (announced == "yes" ? "1" : "0"));
}

void ReplicaSide::WriteRole(ReplyBuilder& rb) {
  const char* state = "none";
  switch (state_) {
    case LinkState::kNone:
      state = "none";
      break;
    case LinkState::kConnect:
      state = "connect";
      break;
    case LinkState::kConnecting:
      state = "connecting";
      break;
    case LinkState::kHandshake:
      state = "handshake";
      break;
    case LinkState::kTransfer:
      state = "sync";
      break;
    case LinkState::kConnected:
      state = "connected";
      break;
  }
  rb.Array(5);
  rb.Bulk("slave");
  rb.Bulk(master_host_);
  rb.Int(master_port_);
  rb.Bulk(state);
  rb.Int(link_ != nullptr ? repl_.master_repl_offset() : -1);
}

}  // namespace redistp
