// ClusterBus: a replica taking its master's place (model in cluster_bus.h, rules in
// cluster_election.h), automatically when the master is flagged FAIL, or by hand (CLUSTER
// FAILOVER).
//
// Automatic. Every bus cron tick a replica of a FAIL master serving slots checks that it may
// stand (cluster-replica-no-failover, the age of its data), schedules its election after the
// rank's delay (telling its fellow replicas its offset with a PONG), then bumps the current
// epoch and broadcasts FAILOVER_AUTH_REQUEST. Each FAILOVER_AUTH_ACK from a master serving
// slots counts; a majority wins: myself takes the election's epoch as its config epoch, is
// promoted (Cluster::PromoteMyself: the replication subsystem's promotion path) and PONGs
// everyone, whose slot tables then move the master's slots to it. The old master, when it
// comes back, is sent an UPDATE and becomes a replica of the winner (cluster_bus_recv.cc).
//
// Manual (Redis's mf_* state, 5 s to complete). The replica sends MFSTART to its master; the
// master pauses its writers and PINGs that replica every cron tick with the PAUSED flag and
// its offset; the replica records the offset from the first such PING and, once its own offset
// reaches it, runs the election at once (no delay, rank 0) with the FORCEACK flag, so masters
// vote although the master is up. FORCE skips the handshake; TAKEOVER skips the election too.
// A manual failover not done in time is abandoned; the master resumes its writers.
#include <string>

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "cluster/cluster_election.h"
#include "replication/master_side.h"
#include "replication/replica_side.h"
#include "replication/replication.h"
#include "server/log.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {

namespace {

constexpr int64_t kManualFailoverTimeoutMs = 5000;
constexpr int64_t kCantFailoverRelogMs = 10000;
constexpr int64_t kReplicaMigrationDelayMs = 5000;  // an orphan waits this long for a replica

}  // namespace

uint64_t ClusterBus::MyReplOffset() {
  return static_cast<uint64_t>(Replication::Of(server_).master_repl_offset());
}

void ClusterBus::BroadcastPong(bool shard_replicas_only) {
  ClusterNode& me = myself();
  for (ClusterNode* n : state().nodes()) {
    if (n->link == nullptr || n->IsMyself() || n->Has(kNodeHandshake)) continue;
    if (shard_replicas_only) {
      const bool fellow =
          n->IsReplica() && n->master != nullptr && (n->master == &me || n->master == me.master);
      if (!fellow) continue;
    }
    SendPing(n->link, BusType::kPong);
  }
}

void ClusterBus::LogCantFailover(int reason) {
  const int64_t t = now();
  if (reason == election_.cant_reason && t - election_.cant_log_ms < kCantFailoverRelogMs) return;
  election_.cant_reason = reason;
  // Nothing to say in the first moments after the master's failure: only a replica stuck for
  // a long time is worth a line.
  const ClusterNode* m = myself().master;
  if (m != nullptr && m->Has(kNodeFail) && t - m->fail_time < node_timeout() + 5000) return;
  const char* msg = "";
  switch (reason) {
    case kCantDataAge:
      msg =
          "Disconnected from master for longer than allowed. Please check the "
          "'cluster-replica-validity-factor' configuration option.";
      break;
    case kCantWaitingDelay:
      msg = "Waiting the delay before I can start a new failover.";
      break;
    case kCantExpired:
      msg = "Failover attempt expired.";
      break;
    case kCantWaitingVotes:
      msg = "Waiting for votes, but majority still not reached.";
      break;
    default:
      return;
  }
  election_.cant_log_ms = t;
  server_.log().Log(LogLevel::kWarning, "Currently unable to failover: %s", msg);
}

void ClusterBus::RequestFailoverAuth() {
  BusMessage m = Header(BusType::kFailoverAuthRequest);
  // A manual failover's votes are due although the master is up.
  if (mf_.end != 0) m.hdr.mflags[0] |= kBusMsgForceAck;
  Broadcast(m);
}

void ClusterBus::HandleReplicaFailover() {
  ClusterNode& me = myself();
  const Config& cfg = server_.config();
  const bool manual = mf_.end != 0 && mf_.can_start;
  if (!me.IsReplica() || me.master == nullptr || (!me.master->Has(kNodeFail) && !manual) ||
      (cfg.cluster_replica_no_failover && !manual) || me.master->num_slots == 0) {
    election_.cant_reason = kCantNone;
    return;
  }
  const int64_t t = now();
  const int64_t timeout = node_timeout();
  const int64_t auth_timeout = FailoverAuthTimeoutMs(timeout);
  const int64_t auth_retry = auth_timeout * 2;
  std::string period_text;
  int64_t period_s = 10;
  if (cfg.GetValue("repl-ping-replica-period", &period_text)) ParseInt64(period_text, &period_s);
  const int64_t age = Replication::Of(server_).replica().MasterDataAgeMs();
  if (!manual &&
      ReplicaDataTooOld(age, timeout, period_s * 1000, cfg.cluster_replica_validity_factor)) {
    LogCantFailover(kCantDataAge);
    return;
  }
  Logger& log = server_.log();
  if (t - election_.auth_time > auth_retry) {
    // A new election: scheduled after the rank's delay.
    std::uniform_int_distribution<int64_t> jitter(0, 499);
    election_.auth_count = 0;
    election_.auth_sent = false;
    election_.rank = ReplicaRank(state(), MyReplOffset());
    election_.auth_time = t + ElectionDelayMs(election_.rank, jitter(rng_));
    if (manual) {
      election_.auth_time = t;
      election_.rank = 0;
    }
    log.Log(LogLevel::kWarning,
            "Start of election delayed for %lld milliseconds (rank #%d, offset %llu).",
            static_cast<long long>(election_.auth_time - t), election_.rank,
            static_cast<unsigned long long>(MyReplOffset()));
    // Fellow replicas learn our offset, for their own ranks.
    BroadcastPong(true);
    return;
  }
  if (!election_.auth_sent && !manual) {
    const int rank = ReplicaRank(state(), MyReplOffset());
    if (rank > election_.rank) {
      const int64_t added = static_cast<int64_t>(rank - election_.rank) * 1000;
      election_.auth_time += added;
      election_.rank = rank;
      log.Log(LogLevel::kWarning, "Replica rank updated to #%d, added %lld milliseconds of delay.",
              rank, static_cast<long long>(added));
    }
  }
  if (t < election_.auth_time) {
    LogCantFailover(kCantWaitingDelay);
    return;
  }
  if (t - election_.auth_time > auth_timeout) {
    LogCantFailover(kCantExpired);
    return;
  }
  if (!election_.auth_sent) {
    ++state().current_epoch;
    election_.auth_epoch = state().current_epoch;
    log.Log(LogLevel::kWarning, "Starting a failover election for epoch %llu.",
            static_cast<unsigned long long>(state().current_epoch));
    RequestFailoverAuth();
    election_.auth_sent = true;
    cluster_.Changed();
    return;
  }
  if (election_.auth_count < FailoverQuorum(cluster_.size())) {
    LogCantFailover(kCantWaitingVotes);
    return;
  }
  log.Log(LogLevel::kWarning, "Failover election won: I'm the new master.");
  if (me.config_epoch < election_.auth_epoch) {
    me.config_epoch = election_.auth_epoch;
    log.Log(LogLevel::kWarning, "configEpoch set to %llu after successful failover",
            static_cast<unsigned long long>(me.config_epoch));
  }
  ReplaceMyMaster();
}

void ClusterBus::ReplaceMyMaster() {
  if (!myself().IsReplica() || myself().master == nullptr) return;
  cluster_.PromoteMyself();
  election_ = Election{};
  // Everyone learns at once that the slots are ours, with the new config epoch.
  BroadcastPong(false);
  ResetManualFailover();
}

void ClusterBus::ProcessAuthAck(const BusMessage& msg, ClusterNode* sender) {
  if (sender == nullptr || !election_.auth_sent) return;
  if (!VoteCounts(*sender, msg.hdr.current_epoch, election_.auth_epoch)) return;
  ++election_.auth_count;
  HandleReplicaFailover();
}

// ---- Replica migration ---------------------------------------------------------------------

void ClusterBus::HandleReplicaMigration() {
  const Config& cfg = server_.config();
  if (!state().ok || !cfg.cluster_allow_replica_migration) return;
  ClusterNode* target = ReplicaMigrationTarget(state(), cfg.cluster_migration_barrier, now(),
                                               kReplicaMigrationDelayMs);
  if (target == nullptr) return;
  server_.log().Log(LogLevel::kWarning, "Migrating to orphaned master %.40s", target->id.c_str());
  ResetManualFailover();
  election_ = Election{};
  cluster_.SetMyMaster(target);
}

// ---- Manual failover -----------------------------------------------------------------------

void ClusterBus::ResetManualFailover() {
  if (mf_.end != 0 && !mf_.replica_id.empty()) {
    server_.SetWritePause(Server::kPauseFailover, false);
    Replication::Of(server_).master().HoldPings(false);
  }
  mf_ = Manual{};
}

void ClusterBus::StartManualFailover(ManualFailover mode) {
  ResetManualFailover();
  ClusterNode& me = myself();
  Logger& log = server_.log();
  if (mode == ManualFailover::kTakeover) {
    log.Log(LogLevel::kWarning, "Taking over the master (user request).");
    // No votes: a config epoch of our own, greater than any other (Redis's
    // clusterBumpConfigEpochWithoutConsensus).
    const uint64_t max_epoch = state().MaxConfigEpoch();
    if (me.config_epoch == 0 || me.config_epoch != max_epoch) {
      ++state().current_epoch;
      me.config_epoch = state().current_epoch;
      log.Log(LogLevel::kWarning, "New configEpoch set to %llu",
              static_cast<unsigned long long>(me.config_epoch));
    }
    ReplaceMyMaster();
    return;
  }
  mf_.end = now() + kManualFailoverTimeoutMs;
  election_ = Election{};
  if (mode == ManualFailover::kForce) {
    log.Log(LogLevel::kWarning, "Forced failover user request accepted.");
    mf_.can_start = true;
    return;
  }
  log.Log(LogLevel::kWarning, "Manual failover user request accepted.");
  if (me.master != nullptr && me.master->link != nullptr) {
    net_->Send(me.master->link, Header(BusType::kMfStart));
  }
}

void ClusterBus::ProcessMfStart(ClusterNode* sender) {
  // Only our own replica may ask.
  if (sender == nullptr || sender->master != &myself()) return;
  ResetManualFailover();
  mf_.end = now() + kManualFailoverTimeoutMs;
  mf_.replica_id = sender->id;
  server_.SetWritePause(Server::kPauseFailover, true);
  Replication::Of(server_).master().HoldPings(true);
  server_.log().Log(LogLevel::kWarning, "Manual failover requested by replica %.40s.",
                    sender->id.c_str());
  // The PAUSED flag and our offset go out at once (then every cron tick).
  if (sender->link != nullptr) SendPing(sender->link, BusType::kPing);
}

void ClusterBus::NoteMasterPaused(const BusHeader& hdr, ClusterNode* sender) {
  ClusterNode& me = myself();
  if (mf_.end == 0 || !me.IsReplica() || me.master != sender ||
      (hdr.mflags[0] & kBusMsgPaused) == 0 || mf_.master_offset != -1) {
    return;
  }
  mf_.master_offset = static_cast<int64_t>(hdr.offset);
  server_.log().Log(LogLevel::kWarning,
                    "Received replication offset for paused master manual failover: %lld",
                    static_cast<long long>(mf_.master_offset));
}

void ClusterBus::HandleManualFailover() {
  if (mf_.end == 0 || mf_.can_start || mf_.master_offset == -1) return;
  if (static_cast<int64_t>(MyReplOffset()) != mf_.master_offset) return;
  mf_.can_start = true;
  server_.log().Log(LogLevel::kWarning,
                    "All master replication stream processed, manual failover can start.");
}

void ClusterBus::CheckManualFailoverTimeout() {
  if (mf_.end == 0 || mf_.end >= now()) return;
  server_.log().Log(LogLevel::kWarning, "Manual failover timed out.");
  ResetManualFailover();
}

}  // namespace redistp
