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

namespace {

int WorkingReplicas(const ClusterNode& master) {
  int n = 0;
  for (const ClusterNode* r : master.replicas) n += !r->Has(kNodeFail);
  return n;
}

}  // namespace

ClusterNode* ReplicaMigrationTarget(ClusterState& state, int barrier, int64_t now_ms,
                                    int64_t delay_ms) {
  ClusterNode* me = state.myself();
  if (me == nullptr || !me->IsReplica() || me->master == nullptr) return nullptr;
  // Is there an orphan at all, and is myself's master among those with the most replicas?
  int orphans = 0, max_replicas = 0, mine = 0;
  for (const ClusterNode* n : state.nodes()) {
    if (!n->IsMaster() || n->Has(kNodeFail)) continue;
    const int ok = WorkingReplicas(*n);
    if (ok == 0 && n->num_slots > 0 && n->had_replicas) ++orphans;
    max_replicas = std::max(max_replicas, ok);
    if (n == me->master) mine = ok;
  }
  if (orphans == 0 || max_replicas < 2 || mine != max_replicas) return nullptr;
  if (mine <= barrier) return nullptr;
  ClusterNode* candidate = me;
  ClusterNode* target = nullptr;
  for (ClusterNode* n : state.nodes()) {
    const int ok = n->IsMaster() ? WorkingReplicas(*n) : 0;
    const bool orphaned = n->IsMaster() && !n->Has(kNodeFail) && n->had_replicas && ok == 0;
    if (orphaned) {
      if (target == nullptr && n->num_slots > 0) target = n;
      if (n->orphaned_time == 0) n->orphaned_time = now_ms;
    } else {
      n->orphaned_time = 0;
    }
    if (n->IsMaster() && ok == max_replicas) {
      for (ClusterNode* r : n->replicas) {
        if (r->id < candidate->id) candidate = r;
      }
    }
  }
  if (target == nullptr || candidate != me || now_ms - target->orphaned_time <= delay_ms) {
    return nullptr;
  }
  return target;
}

}  // namespace redistp
