// WatchexForward (rule in watchex_forward.h).
#include "cluster/watchex_forward.h"

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "util/crc16.h"

namespace redistp {

bool WatchexForward::ForwardElsewhere(std::string_view channel, std::string_view message) {
  ClusterState& state = cluster_.state();
  ClusterNode* owner = state.owner(KeyHashSlot(channel));
  ClusterNode* me = state.myself();
  if (owner == me) return false;
  // A replica delivers its master's shard channels to its own subscribers (it sees the change
  // in its master's stream); only the master where the change happened forwards.
  if (me->IsReplica()) return owner != nullptr && owner == me->master ? false : true;
  if (owner != nullptr && forwarding_) cluster_.bus().PublishToShard(owner, channel, message);
  return true;
}

}  // namespace redistp
