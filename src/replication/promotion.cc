// Temporary keys, sessions and fences on promotion and demotion (promotion.h).
#include "replication/promotion.h"

#include <algorithm>

namespace redistp {

void Promotion::BecameMaster() {
  OwnerIndex& owners = server_.owners();
  // 1. Above every token of every earlier master, replicated or not (up to 2^32 unreplicated).
  const uint64_t seen = owners.last_fence();
  owners.RaiseFence(seen + kFenceGap);

  // 2. The sessions' graces start now; the server stops following (FollowMaster).
  const size_t sessions = server_.sessions().detached();
  server_.FollowMaster(false);

  // 3. Plain owners of the old master: every inherited owner with keys that is no session.
  for (uint64_t owner : owners.InheritedOwners()) {
    if (server_.sessions().Find(owner) != nullptr) continue;
    if (std::find(pending_.begin(), pending_.end(), owner) == pending_.end()) {
      pending_.push_back(owner);
    }
  }
  if (!pending_.empty()) promoted_ms_ = server_.NowMs();
  server_.log().Log(LogLevel::kNotice,
                    "Temporary keys after promotion: %zu sessions in their grace, %zu "
                    "connection owners released in %lld ms, fencing tokens from %llu",
                    sessions, pending_.size(),
                    static_cast<long long>(server_.config().tp_failover_grace_ms),
                    static_cast<unsigned long long>(owners.last_fence() + 1));
}

void Promotion::BecameReplica() {
  pending_.clear();
  promoted_ms_ = 0;
  server_.FollowMaster(true);
  // A BSETTP waiter would be handed a key the master's stream frees, creating a lock on a
  // replica that nobody else sees: every waiter gets its timeout answer now (not served).
  std::vector<Client*> waiters;
  for (const auto& [id, c] : server_.clients()) {
    const BlockedClient* w = server_.blocking().Find(id);
    if (w != nullptr && w->kind == server_.bsettp_kind()) waiters.push_back(c);
  }
  for (Client* c : waiters) server_.UnblockClient(c, false);
}

void Promotion::Cron() {
  if (pending_.empty() || server_.NowMs() < promoted_ms_ + server_.config().tp_failover_grace_ms) {
    return;
  }
  std::vector<uint64_t> due;
  due.swap(pending_);
  promoted_ms_ = 0;
  for (uint64_t owner : due) server_.ReleaseOwner(owner, ReleaseCause::kFailover);
}

}  // namespace redistp
