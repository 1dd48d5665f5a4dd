// A replica's election, the rules that need no socket (Redis Cluster spec, "Replica election
// and promotion"); ClusterBus runs them from its cron (cluster_bus_failover.cc), the unit tests
// call them directly.
//
// Model. A replica whose master is flagged FAIL (or that was told to fail over by hand) and
// still serves slots stands for election, unless cluster-replica-no-failover is set or its
// data is too old: the time without its master's data, less one node timeout, must not exceed
// repl-ping-replica-period + node timeout x cluster-replica-validity-factor (0: any age).
//
// Timing. The election starts DELAY after the replica sees the failure:
//     DELAY = 500 ms + random(0..499) ms + rank x 1000 ms,
// where rank is how many fellow replicas (able to fail over) announced a greater replication
// offset, so the replica with the freshest data usually asks first. While waiting, a replica
// whose rank grows adds a second per place lost. When the delay is over it bumps the current
// epoch, asks every master for its vote (FAILOVER_AUTH_REQUEST) and wins on votes from a
// majority of the masters serving slots (size/2 + 1). An election not won within the auth
// timeout (2 x node timeout, at least 2 s) is abandoned; the next may start after twice that.
//
// A vote counts when it comes from a master serving slots whose current epoch is at least the
// election's epoch (an older ACK belongs to an older election).
#pragma once

#include <cstdint>

#include "cluster/cluster_state.h"

namespace redistp {

// The election's state on a replica (Redis's failover_auth_* fields).
struct Election {
  int64_t auth_time = 0;    // ms: when the election starts (or started)
  int auth_count = 0;       // votes received for auth_epoch
  bool auth_sent = false;   // the request went out
  int rank = 0;             // the rank the delay was computed for
  uint64_t auth_epoch = 0;  // the epoch asked for
  int cant_reason = 0;      // the last reason logged for not standing (CantFailoverReason)
  int64_t cant_log_ms = 0;  // when it was logged
};

// Why a replica does not stand, as Redis logs it (at most every 10 s, or on a change).
enum CantFailoverReason {
  kCantNone = 0,
  kCantDataAge,
  kCantWaitingDelay,
  kCantExpired,
  kCantWaitingVotes,
};

// Myself's rank among the replicas of its master: the fellow replicas that may fail over
// (no nofailover flag) and announced a greater offset than `my_offset`. 0 when myself has no
// master.
int ReplicaRank(const ClusterState& state, uint64_t my_offset);

// The delay before an election: 500 + jitter + rank x 1000 ms; `jitter` is 0..499.
int64_t ElectionDelayMs(int rank, int64_t jitter);

// Whether a replica without its master's data for `data_age_ms` is too stale to stand.
bool ReplicaDataTooOld(int64_t data_age_ms, int64_t node_timeout_ms, int64_t ping_period_ms,
                       int validity_factor);

// Votes needed to win among `size` masters serving slots.
inline int FailoverQuorum(int size) { return size / 2 + 1; }

// The auth timeout (an election not won in it is abandoned); a new one may start after twice.
int64_t FailoverAuthTimeoutMs(int64_t node_timeout_ms);

// Whether an ACK from `voter` (current epoch `voter_epoch` in its header) counts for an
// election asking for `election_epoch`.
bool VoteCounts(const ClusterNode& voter, uint64_t voter_epoch, uint64_t election_epoch);

// Replica migration (spec, "Replica migration algorithm"). A master is orphaned when it serves
// slots, is not FAIL, once had replicas and has no replica left that is not FAIL. When some
// master is orphaned and myself, a replica, belongs to a master with the most working replicas
// (at least 2, and more than cluster-migration-barrier), the replica with the smallest id among
// the replicas of the masters with that many moves to the first orphaned master found, once it
// has been orphaned (as this node tracks it) for `delay_ms`. Returns that master for myself, or
// null; keeps each master's orphaned_time. The caller checks cluster_state ok and
// cluster-allow-replica-migration.
ClusterNode* ReplicaMigrationTarget(ClusterState& state, int barrier, int64_t now_ms,
                                    int64_t delay_ms);

}  // namespace redistp
