// Myself's role in the cluster (model in cluster.h): becoming a replica of a master, following
// it through the replication subsystem, and being promoted in its place.
//
// The cluster view decides the role; the replication subsystem (one layer below) carries it
// out. A cluster node never takes REPLICAOF from a client: its replica side is driven from
// here only, with the master's address as the bus knows it.
#include <string>

#include "cluster/cluster.h"
#include "replication/replica_side.h"
#include "replication/replication.h"
#include "server/log.h"
#include "server/server.h"

namespace redistp {

void Cluster::SetMyMaster(ClusterNode* master) {
  ClusterNode& me = myself();
  if (me.IsMaster()) {
    me.flags &= static_cast<uint16_t>(~kNodeMaster);
    me.flags |= kNodeSlave;
    // A replica migrates nothing: every open slot is closed (Redis's clusterCloseAllSlots).
    state_.CloseAllSlots();
  }
  state_.SetMaster(&me, master);
  FollowMasterAddress(/*reconnect=*/true);
  Changed();
}

void Cluster::FollowMasterAddress(bool reconnect) {
  ClusterNode& me = myself();
  if (!me.IsReplica() || me.master == nullptr) return;
  const ClusterNode& m = *me.master;
  if (m.ip.empty() || m.port <= 0) return;
  ReplicaSide& rs = Replication::Of(server_).replica();
  if (!reconnect && rs.active() && rs.master_host() == m.ip && rs.master_port() == m.port) {
    return;
  }
  // A restart as a replica continues from the history its RDB holds (PSYNC), as Redis does.
  if (loaded_as_replica_ && !rs.active()) rs.AdoptLoadedIdentity();
  loaded_as_replica_ = false;
  server_.log().Log(LogLevel::kNotice, "Following master %.40s at %s:%d", m.id.c_str(),
                    m.ip.c_str(), m.port);
  rs.Follow(
      m.ip, m.port, "",
      reconnect ? ReplicaSide::IfSameMaster::kReconnect : ReplicaSide::IfSameMaster::kKeepLink);
}

void Cluster::PromoteMyself() {
  ClusterNode& me = myself();
  ClusterNode* old = me.master;
  state_.SetMaster(&me, nullptr);
  me.flags &= static_cast<uint16_t>(~kNodeSlave);
  me.flags |= kNodeMaster;
  Replication::Of(server_).replica().Unfollow("cluster failover");
  if (old != nullptr) {
    for (int slot = 0; slot < kClusterSlots && old->num_slots > 0; ++slot) {
      if (state_.owner(slot) != old) continue;
      state_.UnassignSlot(slot);
      state_.AssignSlot(slot, &me);
    }
  }
  Changed();
}

}  // namespace redistp
