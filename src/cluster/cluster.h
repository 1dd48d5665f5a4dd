// Cluster: a node of a Redis Cluster, as the server sees it (cluster-enabled yes).
//
// Model. One object, the subsystem in SubsystemSlot::kCluster, owns the node's ClusterState
// (cluster_state.h) and its locked cluster-config-file (nodes_conf.h). Everything that reads or
// changes the cluster view goes through it: the CLUSTER commands (commands/cluster_cmd.cc), the
// admission gate's slot check (it is the server's ClusterRouter, cluster_route.cc), INFO, and
// the bus. Myself's role (master, or replica of a master the replication subsystem follows) is
// set here too (cluster_role.cc). A server with cluster-enabled no never creates it, and pays one
// null test per command for the gate.
//
// Startup (Setup, before the data is loaded, as Redis 7.0's clusterInit runs before its
// loadDataFromDisk): lock the config file (another process holding it stops the server with
// Redis's log line and exit code 1), load it, or create a fresh master with a random id and
// save it at once; then the node learns its client and bus ports, listens on the bus port
// (failing to stops the server, as in Redis) and starts the bus (cluster_bus.h), and database 0
// starts its slot index so that the loaded keys are counted per slot.
//
// Changes. A command that changes the view calls Changed(): the file is saved and the state
// re-evaluated once, in this loop turn's BeforeSleep, before the command's reply is written
// (Redis's clusterBeforeSleep with CLUSTER_TODO_SAVE_CONFIG | UPDATE_STATE). A save that fails
// is fatal, as in Redis ("Fatal: can't update cluster config file."). Changed() also fsyncs
// the file (Redis's CLUSTER_TODO_FSYNC_CONFIG: epochs, votes, anything the cluster's safety
// rests on); ChangedNoFsync() is for what can be lost in a crash and learned again: SETSLOT
// (Redis does not fsync it either), which a reshard runs six times per slot, and an owner
// learned from a peer's claim (see ClusterBus::ApplyClaim). An fsync each (~8 ms here) made
// `redis-cli --cluster reshard` ten times slower than on Redis. A turn with both kinds fsyncs.
//
// cluster_state (UpdateState, Redis's clusterUpdateState): fail when require-full-coverage
// is on and a slot has no owner or a failed one, or when fewer than size/2+1 of the masters
// serving slots are reachable (size: masters serving at least one slot). A master does not
// turn ok during its first 2 seconds, nor within the rejoin delay (cluster-node-timeout
// clamped to 500..5000 ms) after it last saw itself in a minority, which a lone node without
// slots always is: after a fresh node's ADDSLOTS it reports ok only once that delay passed.
// While the state is fail it is re-evaluated every cron tick.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_state.h"
#include "cluster/nodes_conf.h"
#include "server/cluster_router.h"
#include "server/subsystem.h"
#include "util/status.h"

namespace redistp {

class ClusterBus;
class ClusterWatches;
class WatchexForward;
class Server;

class Cluster final : public Subsystem, public ClusterRouter {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kCluster;

  // With cluster-enabled yes: loads or creates the node (see the essay), attaches the
  // subsystem and installs it as the server's router. Without: nothing. An error was logged
  // already; the server must exit with status 1.
  static Status Setup(Server& server);
  // The attached subsystem, or null (cluster-enabled no).
  static Cluster* Of(Server& server);

  explicit Cluster(Server& server);
  ~Cluster() override;

  void Cron() override;
  void BeforeSleep() override;
  void Stop() override;
  std::string Route(const AdmissionCall& call) override;
  std::string AskFor(std::string_view key) const override;

  ClusterState& state() { return state_; }
  const ClusterState& state() const { return state_; }
  ClusterNode& myself() { return *state_.myself(); }

  // The view changed: save and re-evaluate before this turn's replies (see the essay).
  void Changed() { pending_ = pending_fsync_ = true; }
  // The same, saved without fsync (see the essay).
  void ChangedNoFsync() { pending_ = true; }
  // Only a node's reachability changed (PFAIL): re-evaluate the state, nothing to save.
  void RecheckState() { recheck_ = true; }
  // The bus: links, gossip, failure detection (cluster_bus.h).
  ClusterBus& bus() { return *bus_; }
  // Slots this node lost to another master: their keys go (Redis's delKeysInSlot).
  void DropKeysInSlots(const std::vector<int>& slots);
  // CLUSTER SAVECONFIG: saves now. Error: Redis's reply text.
  Status SaveNow();
  // CLUSTER RESET: a replica becomes an empty master (stops following, its keys dropped); then
  // forgets every other node, drops all slots and migrations; HARD also takes a new id and sets
  // both epochs to 0. The caller checked that a master holds no keys.
  void Reset(bool hard);

  // Ends, with Redis's redirection, the wait of every client blocked on keys this node does
  // not serve any more (Redis 7.0's clusterRedirectBlockedClientIfNeeded; cluster_route.cc):
  // while the state is fail, CLUSTERDOWN The cluster is down (even when reads are allowed
  // down: only a write could serve the wait); else, by the slot of the first key, CLUSTERDOWN
  // Hash slot not served for a slot without owner, MOVED for a slot another node owns unless
  // this node imports it. A slot this node owns stays served, migrating or not. Run after
  // every change of the view (BeforeSleep; the cron only ever turns the state ok, which
  // redirects nothing). O(waiters); nothing in standalone mode, where there is no Cluster.
  void RedirectBlockedClients();

  // Ends the existence watches this node may no longer keep, with their last push
  // (cluster_watches.h). Run after every change of the view and when cluster_state turns ok.
  ClusterWatches& watches() { return *watches_; }
  // Makes myself a replica of `master` (CLUSTER REPLICATE; or myself's shard lost every slot
  // to `master`): flags, the master's replica list, no slot migration left, and the
  // replication subsystem follows the master's address (FollowMasterAddress). As Redis's
  // clusterSetMaster, the replication link is always made again, also to the master already
  // followed (a PSYNC continues it). Saved and re-evaluated before this turn's replies.
  // cluster_role.cc.
  void SetMyMaster(ClusterNode* master);
  // Myself, a replica, becomes a master (an election won, CLUSTER FAILOVER TAKEOVER): it
  // leaves its master, stops following it through the replication subsystem's promotion path
  // (temporary keys and sessions as docs/replication.md tells), and takes every slot its
  // master served. The caller sets the config epoch and tells the cluster (a PONG to all).
  void PromoteMyself();
  // While myself is a replica of a master with a known address, the replication subsystem
  // follows that address (after a load of nodes.conf, or a master that moved). Bus cron:
  // a link to the address already followed is kept, unless `reconnect` (SetMyMaster).
  void FollowMasterAddress(bool reconnect = false);

  // cluster_size as last computed by UpdateState (Redis starts it at 1).
  int size() const { return size_; }

 private:
  Status Load();
  void UpdateState();
  void SaveOrDie(bool fsync);

  Server& server_;
  ClusterState state_;
  NodesConfFile file_;
  std::unique_ptr<ClusterBus> bus_;
  std::unique_ptr<ClusterWatches> watches_;
  std::unique_ptr<WatchexForward> forward_;  // existence events to other shards (bus)
  bool pending_ = false;
  bool pending_fsync_ = false;
  bool watches_all_ = false;  // check every watch at the next BeforeSleep (state turned ok)
  bool recheck_ = false;
  int size_ = 1;
  int64_t first_update_ms_ = 0;
  int64_t among_minority_ms_ = 0;
  // nodes.conf said myself,slave at startup: the first follow continues the RDB's history.
  bool loaded_as_replica_ = false;
  std::vector<std::string_view> route_keys_;  // Route's scratch: the keys of the call
};

}  // namespace redistp
