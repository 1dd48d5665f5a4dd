// The cluster subsystem's startup, saves and state evaluation (model in cluster.h).
#include "cluster/cluster.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cluster/cluster_bus.h"
#include "cluster/cluster_watches.h"
#include "cluster/watchex_forward.h"
#include "db/database.h"
#include "replication/replica_side.h"
#include "replication/replication.h"
#include "server/log.h"
#include "server/server.h"
#include "server/watchex_pubsub.h"

namespace redistp {

namespace {

constexpr int64_t kWritableDelayMs = 2000;  // a master's first moments: state stays fail
constexpr int64_t kMinRejoinDelayMs = 500;
constexpr int64_t kMaxRejoinDelayMs = 5000;

}  // namespace

Cluster* Cluster::Of(Server& server) { return server.subsystem<Cluster>(); }

Status Cluster::Setup(Server& server) {
  const Config& cfg = server.config();
  if (!cfg.cluster_enabled) return Status::Ok();
  Logger& log = server.log();
  // The bus port is the client port + 10000 unless cluster-port names one (Redis's check).
  if (cfg.port > 55535 && cfg.cluster_port == 0) {
    log.Log(LogLevel::kWarning,
            "Redis port number too high. Cluster communication port is 10,000 port numbers "
            "higher than your Redis port. Your Redis port number must be 55535 or less.");
    return Status::Error("cluster port");
  }
  auto cluster = std::make_unique<Cluster>(server);
  Status s = cluster->Load();
  if (!s.ok()) return s;
  cluster->bus_ = std::make_unique<ClusterBus>(server, *cluster);
  s = cluster->bus_->Start();
  if (!s.ok()) return s;
  // The keys about to be loaded are counted per slot from the first one on.
  server.db(0).EnableSlotIndex();
  Cluster& c = server.AttachSubsystem(std::move(cluster));
  server.set_cluster_router(&c);
  c.watches_ = std::make_unique<ClusterWatches>(server, c);
  server.SubscribeKeyEvents(kSlot, c.watches_.get());
  c.forward_ = std::make_unique<WatchexForward>(c);
  server.watchex_pubsub().SetRoute(c.forward_.get());
  return Status::Ok();
}

Cluster::Cluster(Server& server) : server_(server) {}
Cluster::~Cluster() = default;

void Cluster::Stop() {
  server_.set_cluster_router(nullptr);
  server_.watchex_pubsub().SetForwardAll(false);
  server_.watchex_pubsub().SetRoute(nullptr);
}

Status Cluster::Load() {
  Logger& log = server_.log();
  const Config& cfg = server_.config();
  // The server runs in `dir`, so a relative cluster-config-file is relative to it.
  Status s = file_.Lock(cfg.cluster_config_file);
  if (!s.ok()) {
    log.Raw(LogLevel::kWarning, s.message());
    return s;
  }
  std::string content;
  s = file_.Read(&content);
  if (!s.ok()) {
    log.Raw(LogLevel::kWarning, s.message());
    return s;
  }
  if (content.empty()) {
    ClusterNode* me = state_.CreateNode(RandomClusterNodeId(), kNodeMyself | kNodeMaster);
    log.Log(LogLevel::kNotice, "No cluster configuration found, I'm %s", me->id.c_str());
    // Saved before the node knows its ports, so a fresh file says ":0@0" as Redis's does.
    s = file_.Save(FormatNodesConf(state_), /*fsync=*/true);
    if (!s.ok()) {
      log.Log(LogLevel::kWarning, "Fatal: can't update cluster config file.");
      return s;
    }
  } else {
    std::vector<std::string> warnings;
    s = ParseNodesConf(content, &state_, &warnings);
    for (const std::string& w : warnings) log.Raw(LogLevel::kWarning, w);
    if (!s.ok()) {
      log.Log(LogLevel::kWarning, "Unrecoverable error: corrupted cluster config file \"%s\".",
              s.message().c_str());
      return s;
    }
    ResetAfterLoad(&state_, server_.clock().WallMs());
    loaded_as_replica_ = myself().IsReplica();
    // A node restarting as a replica is one from now on, before its RDB loads: the file's
    // temporary keys and sessions are its master's (as for `replicaof` in a standalone
    // configuration), and its PSYNC continues from the file's offset, so they are not resent.
    if (loaded_as_replica_) server_.FollowMaster(true);
    log.Log(LogLevel::kNotice, "Node configuration loaded, I'm %.40s", myself().id.c_str());
  }
  myself().port = cfg.port;
  myself().cport = cfg.cluster_port != 0 ? cfg.cluster_port : cfg.port + 10000;
  return Status::Ok();
}

void Cluster::SaveOrDie(bool fsync) {
  Status s = file_.Save(FormatNodesConf(state_), fsync);
  if (s.ok()) return;
  // Redis exits here: a node must never run with a view its file does not hold.
  server_.log().Log(LogLevel::kWarning, "Fatal: can't update cluster config file.");
  std::exit(1);
}

Status Cluster::SaveNow() {
  Status s = file_.Save(FormatNodesConf(state_), /*fsync=*/true);
  if (!s.ok()) return Status::Error("ERR error saving the cluster node config: " + s.message());
  return Status::Ok();
}

void Cluster::BeforeSleep() {
  // tp-watchex-shard-forward, as CONFIG SET left it (watchex_forward.h).
  if (server_.config().tp_watchex_shard_forward != forward_->forwarding()) {
    forward_->set_forwarding(server_.config().tp_watchex_shard_forward);
    server_.watchex_pubsub().SetForwardAll(forward_->forwarding());
  }
  if (!pending_ && !recheck_) {
    // Keys removed from a migrating slot, or the state just turned ok (cluster_watches.h).
    if (watches_all_ || watches_->pending()) watches_->EndForeign(watches_all_);
    watches_all_ = false;
    return;
  }
  const bool save = pending_;
  const bool fsync = pending_fsync_;
  pending_ = pending_fsync_ = recheck_ = false;
  UpdateState();
  if (save) SaveOrDie(fsync);
  RedirectBlockedClients();
  watches_->EndForeign(true);
  watches_all_ = false;
}

void Cluster::DropKeysInSlots(const std::vector<int>& slots) {
  // Waiters first: a BSETTP waiter still queued on a dropped key would be handed it, and the
  // key created again in a slot this node no longer serves.
  RedirectBlockedClients();
  Database& db = server_.db(0);
  std::vector<Entry*> entries;
  for (int slot : slots) {
    entries.clear();
    db.slot_index()->Keys(slot, db.slot_index()->Count(slot), &entries);
    for (Entry* e : entries) db.Remove(e, RemoveCause::kSlotLost);
  }
}

void Cluster::Cron() {
  if (state_.ok) return;
  UpdateState();
}

void Cluster::UpdateState() {
  const int64_t now = server_.clock().WallMs();
  if (first_update_ms_ == 0) first_update_ms_ = now;
  ClusterNode& me = myself();
  if (me.IsMaster() && !state_.ok && now - first_update_ms_ < kWritableDelayMs) return;

  bool ok = true;
  if (server_.config().cluster_require_full_coverage) {
    for (int slot = 0; slot < kClusterSlots && ok; ++slot) {
      const ClusterNode* n = state_.owner(slot);
      if (n == nullptr || n->Has(kNodeFail)) ok = false;
    }
  }
  int size = 0, reachable = 0;
  for (const ClusterNode* n : state_.nodes()) {
    if (!n->IsMaster() || n->num_slots == 0) continue;
    ++size;
    if (!n->Has(kNodePfail) && !n->Has(kNodeFail)) ++reachable;
  }
  size_ = size;
  if (reachable < size / 2 + 1) {
    ok = false;
    among_minority_ms_ = now;
  }
  if (ok == state_.ok) return;
  const int64_t rejoin_delay = std::clamp<int64_t>(server_.config().cluster_node_timeout,
                                                   kMinRejoinDelayMs, kMaxRejoinDelayMs);
  // A master that was in a minority waits before it serves again (its slots may have moved).
  if (ok && me.IsMaster() && now - among_minority_ms_ < rejoin_delay) return;
  server_.log().Log(LogLevel::kWarning, "Cluster state changed: %s", ok ? "ok" : "fail");
  state_.ok = ok;
  // Watches stay while the state is fail; the view may have changed meanwhile.
  if (ok) watches_all_ = true;
}

void Cluster::Reset(bool hard) {
  // A replica turns into an empty master first (Redis's emptyData): its data was its master's.
  ClusterNode& me = myself();
  if (me.IsReplica()) {
    state_.SetMaster(&me, nullptr);
    me.flags = static_cast<uint16_t>((me.flags & ~kNodeSlave) | kNodeMaster);
    Replication::Of(server_).replica().Unfollow("cluster reset");
    server_.db(0).Flush(Database::FlushCount::kUncounted);
  }
  state_.CloseAllSlots();
  for (int slot = 0; slot < kClusterSlots; ++slot) state_.UnassignSlot(slot);
  std::vector<ClusterNode*> others;
  for (ClusterNode* n : state_.nodes()) {
    if (!n->IsMyself()) others.push_back(n);
  }
  bus_->CloseAllLinks();
  for (ClusterNode* n : others) bus_->DeleteNode(n);
  if (hard) {
    state_.current_epoch = 0;
    state_.last_vote_epoch = 0;
    myself().config_epoch = 0;
    server_.log().Log(LogLevel::kWarning, "configEpoch set to 0 via CLUSTER RESET HARD");
    state_.RenameNode(&myself(), RandomClusterNodeId());
    server_.log().Log(LogLevel::kNotice, "Node hard reset, now I'm %.40s", myself().id.c_str());
  }
  Changed();
}

}  // namespace redistp
