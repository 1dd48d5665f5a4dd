// ClusterBus: fence floors across slot moves (the rule in cluster_bus.h's essay, the wire in
// fence_floor.h, the proof in docs/cluster.md "Fencing tokens in a cluster").
#include <algorithm>
#include <iterator>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "cluster/fence_floor.h"
#include "server/log.h"
#include "server/server.h"
#include "watch/fence.h"
#include "watch/owners.h"

namespace redistp {

BusMessage ClusterBus::FenceFloorFrame() {
  const FenceCounter& fences = server_.owners().fences();
  BusMessage m = Header(BusType::kModule);
  // Every token handed out is <= the counter, and every token drawn before the next
  // reservation is <= the durable mark.
  SetFenceFloor(&m, std::max(fences.last(), fences.reserved()));
  return m;
}

void ClusterBus::SendFenceFloor(ClusterNode* to) {
  if (to == nullptr || to->IsMyself() || to->Has(kNodeHandshake) || to->link == nullptr) return;
  net_->Send(to->link, FenceFloorFrame());
}

void ClusterBus::BroadcastFenceFloor() { Broadcast(FenceFloorFrame()); }

void ClusterBus::RequestFenceFloor(ClusterNode* from) {
  if (from == nullptr || from->IsMyself() || from->Has(kNodeHandshake) || from->link == nullptr) {
    return;
  }
  BusMessage m = Header(BusType::kModule);
  SetFenceFloorRequest(&m);
  net_->Send(from->link, m);
}

void ClusterBus::BroadcastFenceFloorRequest() {
  BusMessage m = Header(BusType::kModule);
  SetFenceFloorRequest(&m);
  Broadcast(m);
}

void ClusterBus::OnReserved(uint64_t) {
  // Rare (a new block of 2^24 tokens, a start, a floor received): a pass over the slots is fine.
  std::vector<ClusterNode*> targets;
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    ClusterNode* to = state().migrating_to(slot);
    if (to != nullptr && std::find(targets.begin(), targets.end(), to) == targets.end()) {
      targets.push_back(to);
    }
  }
  for (ClusterNode* to : targets) SendFenceFloor(to);
}

void ClusterBus::AwaitFenceFloor(int slot, ClusterNode* from) {
  if (from == nullptr || from->IsMyself() || !from->redistp) return;
  floor_waits_[slot] = from->id;
}

void ClusterBus::EndFenceFloorWait(int slot) { floor_waits_.erase(slot); }

void ClusterBus::EndFenceFloorWaits(const ClusterNode& from, const char* why) {
  size_t ended = 0;
  for (auto it = floor_waits_.begin(); it != floor_waits_.end();) {
    if (it->second == from.id) {
      it = floor_waits_.erase(it);
      ++ended;
    } else {
      ++it;
    }
  }
  if (ended == 0) return;
  server_.log().Log(LogLevel::kWarning,
                    "Fencing floor of node %.40s never arrived (%s): tokens for the keys of %zu "
                    "slot(s) taken from it are drawn without it",
                    from.id.c_str(), why, ended);
}

void ClusterBus::ProcessTpModule(const BusMessage& msg, ClusterNode* sender) {
  // As Redis 7.0 delivers module messages: only from a known node.
  if (sender == nullptr) return;
  Result<FenceFloorMessage> parsed = ParseFenceFloor(msg);
  if (!parsed.ok()) {
    server_.log().Log(LogLevel::kVerbose, "Ignoring redis-tp bus message from %.40s: %s",
                      sender->id.c_str(), parsed.status().message().c_str());
    return;
  }
  sender->redistp = true;
  if (parsed.value().request) {
    SendFenceFloor(sender);
    return;
  }
  FenceCounter& fences = server_.owners().fences();
  const uint64_t before = fences.last();
  Status s = fences.RaiseDurable(parsed.value().floor);
  // The waits for this node end either way: raised in memory, no token is handed out before a
  // reservation above the floor succeeds (only a crash before it forgets the floor).
  for (auto it = floor_waits_.begin(); it != floor_waits_.end();) {
    it = it->second == sender->id ? floor_waits_.erase(it) : std::next(it);
  }
  if (!s.ok()) {
    server_.log().Log(LogLevel::kWarning,
                      "Fencing floor %llu from node %.40s is not durable yet: %s",
                      static_cast<unsigned long long>(parsed.value().floor), sender->id.c_str(),
                      s.message().c_str());
    return;
  }
  if (fences.last() > before) {
    server_.log().Log(LogLevel::kVerbose, "Fencing counter raised to %llu by node %.40s",
                      static_cast<unsigned long long>(fences.last()), sender->id.c_str());
  }
}

}  // namespace redistp
