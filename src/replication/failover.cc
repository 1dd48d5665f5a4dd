// FAILOVER's state machine and the target's side of it (failover.h has the model).
#include "replication/failover.h"

#include <cinttypes>

#include "protocol/errors.h"
#include "replication/replication.h"
#include "server/client.h"
#include "server/maint_notify.h"
#include "server/server.h"

namespace redistp {

Failover::Failover(Replication& repl)
    : repl_(repl), own_peers_(MakeReplicationPeers(repl)), peers_(own_peers_.get()) {}

Failover::~Failover() {
  Server& s = repl_.server();
  if (s.replica_acks() == this) s.set_replica_acks(nullptr);
}

const char* Failover::StateName() const {
  switch (state_) {
    case State::kNone:
      return "no-failover";
    case State::kWaitingForSync:
      return "waiting-for-sync";
    case State::kInProgress:
      return "failover-in-progress";
  }
  return "no-failover";
}

std::string Failover::TargetName() const {
  if (req_.host.empty()) return "any replica";
  return req_.host + ":" + std::to_string(req_.port);
}

std::string_view Failover::Start(const Request& req) {
  if (repl_.is_replica()) return err::kFailoverOnReplica;
  if (state_ != State::kNone) return err::kFailoverInProgress;
  std::vector<FailoverReplica> replicas;
  if (peers_ != nullptr) replicas = peers_->Replicas();
  if (replicas.empty()) return err::kFailoverNoReplicas;
  if (req.force && (req.timeout_ms == 0 || req.host.empty())) {
    return err::kFailoverForceNeedsTimeoutAndTarget;
  }
  if (!req.host.empty()) {
    const FailoverReplica* target = nullptr;
    for (const FailoverReplica& r : replicas) {
      if (r.ip == req.host && r.port == req.port) target = &r;
    }
    if (target == nullptr) return err::kFailoverTargetNotReplica;
    if (!target->online) return err::kFailoverTargetNotOnline;
  }
  Server& s = repl_.server();
  req_ = req;
  state_ = State::kWaitingForSync;
  became_replica_ = false;
  deadline_ms_ = req.timeout_ms > 0 ? s.NowMs() + req.timeout_ms : 0;
  s.log().Log(LogLevel::kNotice, "FAILOVER requested to %s.", TargetName().c_str());
  // Writes stop here, so the offset the target must reach stops moving.
  s.SetWritePause(Server::kPauseFailover, true);
  // Planned: the connections that asked for maintenance notices learn where the master goes
  // (null when any replica may become it) while this server still answers them.
  const int64_t bound_s = (req.timeout_ms + 999) / 1000;
  PushMaintenanceMoving(
      s, bound_s, req.host.empty() ? std::string() : req.host + ":" + std::to_string(req.port));
  peers_->RequestAcks();
  return {};
}

bool Failover::Abort() {
  if (state_ == State::kNone) return false;
  End("Failover manually aborted");
  return true;
}

const FailoverReplica* Failover::SyncedTarget(const std::vector<FailoverReplica>& replicas) const {
  const int64_t offset = repl_.master_repl_offset();
  for (const FailoverReplica& r : replicas) {
    if (!r.online || r.ack_offset != offset) continue;
    if (req_.host.empty() || (r.ip == req_.host && r.port == req_.port)) return &r;
  }
  return nullptr;
}

void Failover::Tick() {
  if (state_ != State::kWaitingForSync) return;
  Server& s = repl_.server();
  std::vector<FailoverReplica> replicas = peers_->Replicas();
  if (const FailoverReplica* target = SyncedTarget(replicas); target != nullptr) {
    s.log().Log(LogLevel::kNotice, "Failover target %s:%d is synced, failing over.",
                target->ip.c_str(), target->port);
    GoTo(target->ip, target->port);
    return;
  }
  if (deadline_ms_ == 0 || s.NowMs() < deadline_ms_) return;
  if (req_.force) {
    s.log().Log(LogLevel::kNotice, "FAILOVER to %s time out exceeded, failing over.",
                TargetName().c_str());
    GoTo(req_.host, req_.port);
    return;
  }
  End("Replica never caught up before timeout");
}

void Failover::GoTo(const std::string& host, int port) {
  state_ = State::kInProgress;
  became_replica_ = true;
  // The pause stays until the target answers: the old master is a replica from now on, and
  // the writes that waited find READONLY when it lifts.
  const std::string target_host = host;
  peers_->FollowForFailover(target_host, port);
}

void Failover::OnFailoverPsyncResult(bool accepted) {
  if (state_ != State::kInProgress) return;
  if (accepted) {
    End({});
  } else {
    End("Failover target rejected psync request");
  }
}

void Failover::OnRoleChangedExternally() {
  if (state_ == State::kNone) return;
  became_replica_ = false;  // whoever changed the role decided it: nothing to undo
  End("Replication role changed during the failover");
}

void Failover::End(std::string_view reason) {
  Server& s = repl_.server();
  const bool undo = !reason.empty() && became_replica_;
  if (!reason.empty()) {
    s.log().Log(LogLevel::kNotice, "FAILOVER to %s aborted: %.*s", TargetName().c_str(),
                static_cast<int>(reason.size()), reason.data());
  }
  state_ = State::kNone;
  req_ = Request{};
  deadline_ms_ = 0;
  became_replica_ = false;
  // An aborted failover that already made this server a replica makes it a master again
  // (a replica of nobody, with its own history), as Redis's abort does.
  if (undo) peers_->BecomeMaster("failover aborted", "");
  s.SetWritePause(Server::kPauseFailover, false);
}

std::string_view Failover::AcceptFailoverPsync(Client& c, std::string_view replid) {
  if (!repl_.is_replica() || peers_ == nullptr) return err::kPsyncFailoverToMaster;
  if (replid != repl_.replid()) return err::kPsyncFailoverReplidMismatch;
  Server& s = repl_.server();
  s.log().Log(LogLevel::kWarning, "Failover request received for replid %.*s.",
              static_cast<int>(replid.size()), replid.data());
  std::string who = s.ClientInfoLine(c);
  while (!who.empty() && (who.back() == '\n' || who.back() == '\r')) who.pop_back();
  peers_->BecomeMaster("failover request", who);
  return {};
}

// --- ReplicaAcks: the shutdown sequence's questions -----------------------------------------

bool Failover::HasReplicas() { return peers_ != nullptr && !peers_->Replicas().empty(); }

bool Failover::AllAcked() {
  if (peers_ == nullptr) return true;
  const int64_t offset = repl_.master_repl_offset();
  for (const FailoverReplica& r : peers_->Replicas()) {
    if (r.ack_offset != offset) return false;
  }
  return true;
}

void Failover::RequestAcks() {
  if (peers_ != nullptr) peers_->RequestAcks();
}

void Failover::LogLagging() {
  if (peers_ == nullptr) return;
  const int64_t offset = repl_.master_repl_offset();
  int replicas = 0, lagging = 0;
  for (const FailoverReplica& r : peers_->Replicas()) {
    ++replicas;
    if (r.ack_offset == offset) continue;
    ++lagging;
    repl_.server().log().Log(LogLevel::kWarning,
                             "Lagging replica %s reported offset %" PRId64
                             " behind master, lag=%" PRId64 ", state=%s.",
                             r.name.c_str(), offset - r.ack_offset, r.lag_s, r.state.c_str());
  }
  if (replicas > 0) {
    repl_.server().log().Log(LogLevel::kNotice, "%d of %d replicas are in sync when shutting down.",
                             replicas - lagging, replicas);
  }
}

}  // namespace redistp
