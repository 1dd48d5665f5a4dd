// The cluster bus's rules that need no socket: what a PING's gossip section says, how failure
// reports are kept and counted, which slot claims win, and how two masters sharing a config
// epoch part. ClusterBus (cluster_bus.h) applies them to frames; the unit tests call them on a
// ClusterState built by hand.
//
// Gossip (Redis Cluster spec, "Heartbeat packet content"): every PING, PONG and MEET carries
// entries about other nodes, max(3, nodes/10) of them chosen at random (never myself, never a
// node in handshake or without an address, never a node without a link and without slots:
// nothing useful can be said about them), capped by the nodes that remain once myself and the
// receiver are set aside, then every node this node thinks is failing (PFAIL), so failure
// reports spread quickly.
//
// Failure reports. A master that gossips a node with PFAIL or FAIL files a report on that node;
// a report older than 2 x cluster-node-timeout no longer counts. A node this node flags PFAIL
// turns FAIL when the reports plus myself (when myself is a master) reach size/2+1, size being
// the number of masters serving slots.
//
// Slot claims (spec, "Hash slots configuration propagation"): a master's header names its
// slots and its config epoch. A slot it claims becomes its own when the slot has no owner or
// its owner's config epoch is smaller, unless this node is importing the slot. A claim with a
// smaller epoch than the owner's is stale: the claimer is sent an UPDATE about the owner.
//
// Epoch collisions (spec, "configEpoch conflicts resolution algorithm"): two masters with the
// same config epoch: the one with the lexicographically smaller id takes currentEpoch + 1.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "cluster/bus_message.h"
#include "cluster/cluster_state.h"

namespace redistp {

// The wire flags (kBusNode*) for a node's flags, and the node flags a wire value carries.
uint16_t BusFlagsOf(const ClusterNode& node);
uint16_t NodeFlagsFromBus(uint16_t bus_flags);

// The state's slot bitmap in wire layout, and back.
BusSlots ToBusSlots(const SlotBitmap& slots);

// The nodes a gossip section to some node describes (see the essay; a node's outbound link is
// its `link`). Random entries first, then the PFAIL ones.
std::vector<ClusterNode*> PickGossipNodes(const ClusterState& state, std::mt19937_64& rng);

// Failure reports on `node`. Add: true when `reporter` had no report yet (an existing one is
// refreshed). Del: true when one was removed. Count drops the expired ones first.
bool AddFailureReport(ClusterNode* node, ClusterNode* reporter, int64_t now_ms);
bool DelFailureReport(ClusterNode* node, ClusterNode* reporter);
int CountFailureReports(ClusterNode* node, int64_t now_ms, int64_t node_timeout_ms);
// Whether `node`, flagged PFAIL here, has enough votes to be flagged FAIL: the valid reports,
// plus one when myself is a master, against size/2+1.
bool FailQuorumReached(const ClusterState& state, ClusterNode* node, int size, int64_t now_ms,
                       int64_t node_timeout_ms);

// What applying a slot claim changed.
struct SlotClaimResult {
  bool changed = false;          // at least one slot moved
  std::vector<int> lost_slots;   // slots myself served that now belong to the claimer
  bool myself_lost_all = false;  // myself, a master, served slots and has none left
  // Myself's shard (myself as a master, or myself's master) lost slots to the claimer, and
  // how many; `claimed` counts every slot of the claim.
  int moved_from_my_shard = 0;
  int claimed = 0;
  bool my_shard_emptied = false;  // ... and serves none any more
};
// Applies the claim of master `sender` (config epoch `epoch`) on `claimed` (see the essay).
SlotClaimResult ApplySlotClaim(ClusterState& state, ClusterNode* sender, uint64_t epoch,
                               const BusSlots& claimed);
// The first owner of a slot in `claimed` whose config epoch is greater than `epoch` (the
// claimer must be told with an UPDATE), or null.
ClusterNode* StaleClaimOwner(const ClusterState& state, const ClusterNode* sender, uint64_t epoch,
                             const BusSlots& claimed);

// Two masters, myself and `sender`, with the same config epoch: when myself has the smaller
// id it takes a new epoch (currentEpoch + 1). True when it did.
bool ResolveEpochCollision(ClusterState& state, const ClusterNode& sender);

}  // namespace redistp
