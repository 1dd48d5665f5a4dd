// The bus's socket-free rules (see cluster_gossip.h).
#include "cluster/cluster_gossip.h"

#include <algorithm>

namespace redistp {

namespace {

constexpr int64_t kFailReportValidityMult = 2;  // reports count for 2 x node timeout

struct FlagPair {
  uint16_t node;
  uint16_t bus;
};
constexpr FlagPair kFlagPairs[] = {
    {kNodeMyself, kBusNodeMyself}, {kNodeMaster, kBusNodeMaster},
    {kNodeSlave, kBusNodeSlave},   {kNodePfail, kBusNodePfail},
    {kNodeFail, kBusNodeFail},     {kNodeHandshake, kBusNodeHandshake},
    {kNodeNoAddr, kBusNodeNoAddr}, {kNodeNoFailover, kBusNodeNoFailover},
};

}  // namespace

uint16_t BusFlagsOf(const ClusterNode& node) {
  uint16_t out = 0;
  for (const FlagPair& p : kFlagPairs) {
    if (node.Has(p.node)) out |= p.bus;
  }
  if (node.meet) out |= kBusNodeMeet;
  return out;
}

uint16_t NodeFlagsFromBus(uint16_t bus_flags) {
  uint16_t out = 0;
  for (const FlagPair& p : kFlagPairs) {
    if ((bus_flags & p.bus) != 0) out |= p.node;
  }
  return out;
}

BusSlots ToBusSlots(const SlotBitmap& slots) {
  BusSlots out{};
  for (int s = 0; s < kClusterSlots; ++s) {
    if (slots.test(static_cast<size_t>(s))) BusSetSlot(out, s);
  }
  return out;
}

std::vector<ClusterNode*> PickGossipNodes(const ClusterState& state, std::mt19937_64& rng) {
  const std::vector<ClusterNode*>& nodes = state.nodes();
  std::vector<ClusterNode*> out;
  // Myself and the receiver are never worth describing to the receiver.
  int fresh = static_cast<int>(nodes.size()) - 2;
  int wanted = std::max<int>(3, static_cast<int>(nodes.size()) / 10);
  wanted = std::min(wanted, fresh);
  int iterations = wanted * 3;
  std::uniform_int_distribution<size_t> pick(0, nodes.empty() ? 0 : nodes.size() - 1);
  while (fresh > 0 && static_cast<int>(out.size()) < wanted && iterations-- > 0) {
    ClusterNode* n = nodes[pick(rng)];
    if (n->IsMyself() || n->Has(kNodePfail)) continue;  // PFAIL ones come at the end
    if (n->Has(kNodeHandshake) || n->Has(kNodeNoAddr) ||
        (n->link == nullptr && n->num_slots == 0)) {
      --fresh;  // as Redis: not exact, but it ends the search sooner
      continue;
    }
    if (std::find(out.begin(), out.end(), n) != out.end()) continue;
    out.push_back(n);
  }
  for (ClusterNode* n : nodes) {
    if (!n->Has(kNodePfail) || n->Has(kNodeHandshake) || n->Has(kNodeNoAddr)) continue;
    out.push_back(n);
  }
  return out;
}

bool AddFailureReport(ClusterNode* node, ClusterNode* reporter, int64_t now_ms) {
  for (FailureReport& r : node->fail_reports) {
    if (r.reporter == reporter) {
      r.time_ms = now_ms;
      return false;
    }
  }
  node->fail_reports.push_back({reporter, now_ms});
  return true;
}

bool DelFailureReport(ClusterNode* node, ClusterNode* reporter) {
  return std::erase_if(node->fail_reports,
                       [reporter](const FailureReport& r) { return r.reporter == reporter; }) > 0;
}

int CountFailureReports(ClusterNode* node, int64_t now_ms, int64_t node_timeout_ms) {
  const int64_t max_age = node_timeout_ms * kFailReportValidityMult;
  std::erase_if(node->fail_reports,
                [&](const FailureReport& r) { return now_ms - r.time_ms > max_age; });
  return static_cast<int>(node->fail_reports.size());
}

bool FailQuorumReached(const ClusterState& state, ClusterNode* node, int size, int64_t now_ms,
                       int64_t node_timeout_ms) {
  const int needed = size / 2 + 1;
  int votes = CountFailureReports(node, now_ms, node_timeout_ms);
  if (state.myself()->IsMaster()) ++votes;
  return votes >= needed;
}

SlotClaimResult ApplySlotClaim(ClusterState& state, ClusterNode* sender, uint64_t epoch,
                               const BusSlots& claimed) {
  SlotClaimResult res;
  ClusterNode* me = state.myself();
  if (sender == me) return res;
  const bool me_served = me->IsMaster() && me->num_slots > 0;
  ClusterNode* shard = me->IsMaster() ? me : me->master;
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    if (!BusSlotIsSet(claimed, slot)) continue;
    ++res.claimed;
    ClusterNode* owner = state.owner(slot);
    if (owner == sender) continue;
    // A slot being imported here is this node's to settle (SETSLOT NODE), not the bus's.
    if (state.importing_from(slot) != nullptr) continue;
    if (owner != nullptr && owner->config_epoch >= epoch) continue;
    if (owner == me) res.lost_slots.push_back(slot);
    if (owner != nullptr && owner == shard) ++res.moved_from_my_shard;
    state.UnassignSlot(slot);
    state.AssignSlot(slot, sender);
    res.changed = true;
  }
  res.myself_lost_all = me_served && !res.lost_slots.empty() && me->num_slots == 0;
  res.my_shard_emptied = res.moved_from_my_shard > 0 && shard->num_slots == 0;
  return res;
}

ClusterNode* StaleClaimOwner(const ClusterState& state, const ClusterNode* sender, uint64_t epoch,
                             const BusSlots& claimed) {
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    if (!BusSlotIsSet(claimed, slot)) continue;
    ClusterNode* owner = state.owner(slot);
    if (owner == nullptr || owner == sender) continue;
    if (owner->config_epoch > epoch) return owner;
  }
  return nullptr;
}

bool ResolveEpochCollision(ClusterState& state, const ClusterNode& sender) {
  ClusterNode* me = state.myself();
  if (sender.config_epoch != me->config_epoch || !sender.IsMaster() || !me->IsMaster()) {
    return false;
  }
  // Only the node with the smaller id moves, so exactly one of the two does.
  if (sender.id <= me->id) return false;
  ++state.current_epoch;
  me->config_epoch = state.current_epoch;
  return true;
}

}  // namespace redistp
