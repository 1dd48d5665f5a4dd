// A replica's election rules (model in cluster_election.h).
#include "cluster/cluster_election.h"

#include <algorithm>

namespace redistp {

int ReplicaRank(const ClusterState& state, uint64_t my_offset) {
  const ClusterNode* me = state.myself();
  if (me == nullptr || me->master == nullptr) return 0;
  int rank = 0;
  for (const ClusterNode* r : me->master->replicas) {
    if (r == me || r->Has(kNodeNoFailover)) continue;
    if (r->repl_offset > my_offset) ++rank;
  }
  return rank;
}

int64_t ElectionDelayMs(int rank, int64_t jitter) {
  return 500 + jitter + static_cast<int64_t>(rank) * 1000;
}

bool ReplicaDataTooOld(int64_t data_age_ms, int64_t node_timeout_ms, int64_t ping_period_ms,
                       int validity_factor) {
  if (validity_factor == 0) return false;
  // The node timeout is how long the failure took to be seen: not the replica's fault.
  if (data_age_ms > node_timeout_ms) data_age_ms -= node_timeout_ms;
  return data_age_ms > ping_period_ms + node_timeout_ms * validity_factor;
}

int64_t FailoverAuthTimeoutMs(int64_t node_timeout_ms) {
  return std::max<int64_t>(node_timeout_ms * 2, 2000);
}

bool VoteCounts(const ClusterNode& voter, uint64_t voter_epoch, uint64_t election_epoch) {
  return voter.IsMaster() && voter.num_slots > 0 && voter_epoch >= election_epoch;
}

}  // namespace redistp
