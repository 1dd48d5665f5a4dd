// ClusterState's bookkeeping (see cluster_state.h): each change keeps both sides of a relation
// equal (slot owner array and node bitmaps, master and replica lists, migrations and the nodes
// they name), so readers never have to reconcile them.
#include "cluster/cluster_state.h"

#include <algorithm>
#include <random>

namespace redistp {

ClusterNode* ClusterState::Lookup(std::string_view id) const {
  auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : it->second.get();
}

ClusterNode* ClusterState::CreateNode(std::string_view id, uint16_t flags) {
  auto node = std::make_unique<ClusterNode>();
  node->id = std::string(id);
  node->flags = flags;
  ClusterNode* raw = node.get();
  by_id_.emplace(raw->id, std::move(node));
  order_.push_back(raw);
  if (raw->IsMyself()) myself_ = raw;
  return raw;
}

void ClusterState::MarkMyself(ClusterNode* node) {
  node->flags |= kNodeMyself;
  myself_ = node;
}

void ClusterState::RemoveNode(ClusterNode* node) {
  for (int slot = 0; slot < kClusterSlots && node->num_slots > 0; ++slot) {
    if (owners_[static_cast<size_t>(slot)] == node) UnassignSlot(slot);
  }
  for (auto* map : {&migrating_, &importing_}) {
    std::erase_if(*map, [node](const auto& entry) { return entry.second == node; });
  }
  for (ClusterNode* other : order_) {
    std::erase_if(other->fail_reports,
                  [node](const FailureReport& r) { return r.reporter == node; });
  }
  SetMaster(node, nullptr);
  for (ClusterNode* replica : node->replicas) replica->master = nullptr;
  node->replicas.clear();
  if (myself_ == node) myself_ = nullptr;
  order_.erase(std::find(order_.begin(), order_.end(), node));
  by_id_.erase(node->id);
}

void ClusterState::SetMaster(ClusterNode* replica, ClusterNode* master) {
  if (replica->master == master) return;
  if (replica->master != nullptr) {
    auto& list = replica->master->replicas;
    list.erase(std::remove(list.begin(), list.end(), replica), list.end());
  }
  replica->master = master;
  if (master != nullptr) {
    master->replicas.push_back(replica);
    master->had_replicas = true;
  }
}

void ClusterState::RenameNode(ClusterNode* node, std::string_view id) {
  auto it = by_id_.find(node->id);
  std::unique_ptr<ClusterNode> owned = std::move(it->second);
  by_id_.erase(it);
  owned->id = std::string(id);
  by_id_.emplace(owned->id, std::move(owned));
}

bool ClusterState::AssignSlot(int slot, ClusterNode* node) {
  auto& owner = owners_[static_cast<size_t>(slot)];
  if (owner != nullptr) return false;
  owner = node;
  node->slots.set(static_cast<size_t>(slot));
  ++node->num_slots;
  return true;
}

bool ClusterState::UnassignSlot(int slot) {
  auto& owner = owners_[static_cast<size_t>(slot)];
  if (owner == nullptr) return false;
  owner->slots.reset(static_cast<size_t>(slot));
  --owner->num_slots;
  owner = nullptr;
  return true;
}

ClusterNode* ClusterState::migrating_to(int slot) const {
  auto it = migrating_.find(slot);
  return it == migrating_.end() ? nullptr : it->second;
}

ClusterNode* ClusterState::importing_from(int slot) const {
  auto it = importing_.find(slot);
  return it == importing_.end() ? nullptr : it->second;
}

void ClusterState::SetMigrating(int slot, ClusterNode* to) {
  if (to == nullptr) {
    migrating_.erase(slot);
  } else {
    migrating_[slot] = to;
  }
}

void ClusterState::SetImporting(int slot, ClusterNode* from) {
  if (from == nullptr) {
    importing_.erase(slot);
  } else {
    importing_[slot] = from;
  }
}

int ClusterState::Size() const {
  int size = 0;
  for (const ClusterNode* node : order_) {
    if (node->IsMaster() && node->num_slots > 0) ++size;
  }
  return size;
}

int ClusterState::SlotsAssigned() const {
  int n = 0;
  for (const ClusterNode* owner : owners_) n += owner != nullptr;
  return n;
}

int ClusterState::SlotsWithFlag(uint16_t flag) const {
  int n = 0;
  for (const ClusterNode* owner : owners_) n += owner != nullptr && owner->Has(flag);
  return n;
}

uint64_t ClusterState::MaxConfigEpoch() const {
  uint64_t max = 0;
  for (const ClusterNode* node : order_) max = std::max(max, node->config_epoch);
  return max;
}

std::string RandomClusterNodeId() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device rd;  // the kernel's random source: ids of two nodes must not collide
  std::string id;
  id.reserve(kClusterNodeIdLen);
  while (id.size() < kClusterNodeIdLen) {
    uint32_t word = rd();
    for (int i = 0; i < 8 && id.size() < kClusterNodeIdLen; ++i, word >>= 4) {
      id.push_back(kHex[word & 15]);
    }
  }
  return id;
}

}  // namespace redistp
