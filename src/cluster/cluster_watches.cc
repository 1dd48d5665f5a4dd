// ClusterWatches (model and rule in cluster_watches.h).
#include "cluster/cluster_watches.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/pubsub.h"
#include "server/server.h"
#include "util/crc16.h"
#include "watch/watches.h"

namespace redistp {

std::string ClusterWatches::Where(std::string_view key) {
  const ClusterState& state = cluster_.state();
  const int slot = KeyHashSlot(key);
  const ClusterNode* owner = state.owner(slot);
  const ClusterNode* me = state.myself();
  if (owner == me) {
    const ClusterNode* to = state.migrating_to(slot);
    if (to == nullptr || server_.db(0).Peek(key) != nullptr) return {};
    return "ASK " + std::to_string(slot) + " " + to->ip + ":" + std::to_string(to->port);
  }
  if (state.importing_from(slot) != nullptr) return {};
  if (owner == nullptr) return std::string(err::kClusterDownUnbound);
  return "MOVED " + std::to_string(slot) + " " + owner->ip + ":" + std::to_string(owner->port);
}

void ClusterWatches::End(std::string_view key, const std::vector<uint64_t>& watchers,
                         const std::string& where) {
  WatchIndex& watches = server_.watches();
  for (uint64_t id : watchers) {
    watches.Remove(id, 0, key);
    Client* c = server_.FindClient(id);
    if (c == nullptr) continue;
    server_.Push(*c, [&](ReplyBuilder& rb) {
      rb.Push(3);
      rb.Bulk("watchex");
      rb.Bulk(key);
      rb.Bulk(where);
    });
  }
}

void ClusterWatches::EndForeignShardChannels() {
  PubSub& pubsub = server_.pubsub();
  if (pubsub.topic_count(PubSub::kShard) == 0) return;
  const ClusterState& state = cluster_.state();
  const ClusterNode* me = state.myself();
  std::vector<std::string> foreign;
  pubsub.ForEachTopic(PubSub::kShard, [&](std::string_view name) {
    const int slot = KeyHashSlot(name);
    const ClusterNode* owner = state.owner(slot);
    if (owner == me || state.importing_from(slot) != nullptr) return;
    if (owner != nullptr && me->IsReplica() && owner == me->master) return;
    foreign.emplace_back(name);
  });
  for (const std::string& name : foreign) {
    for (uint64_t id : pubsub.SubscriberIds(PubSub::kShard, name)) {
      Client* c = server_.FindClient(id);
      if (c == nullptr || !pubsub.Unsubscribe(*c, PubSub::kShard, name)) continue;
      const size_t left = PubSub::SubscriptionCount(*c, PubSub::kShard);
      server_.Push(*c, [&](ReplyBuilder& rb) {
        rb.Push(3);
        rb.Bulk("sunsubscribe");
        rb.Bulk(name);
        rb.Int(static_cast<int64_t>(left));
      });
    }
  }
}

void ClusterWatches::EndForeign(bool all) {
  std::vector<std::string> removed = std::move(removed_);
  removed_.clear();
  all = all || flush_;
  flush_ = false;
  if (all) EndForeignShardChannels();
  if (!cluster_.state().ok) return;
  WatchIndex& watches = server_.watches();
  if (watches.empty()) return;
  if (all) {
    for (const auto& [key, watchers] : watches.WatchesIn(0)) {
      const std::string where = Where(key);
      if (!where.empty()) End(key, watchers, where);
    }
    return;
  }
  for (const std::string& key : removed) {
    std::vector<uint64_t> watchers = watches.WatchersOf(0, key);
    if (watchers.empty()) continue;
    const std::string where = Where(key);
    if (!where.empty()) End(key, watchers, where);
  }
}

void ClusterWatches::OnKeyEvent(const KeyEvent& ev) {
  if (ev.kind != KeyEventKind::kRemoved || ev.db->index() != 0) return;
  const ClusterState& state = cluster_.state();
  if (state.migrating().empty()) return;
  const std::string_view key = ev.entry->key();
  if (state.migrating_to(KeyHashSlot(key)) == nullptr) return;
  removed_.emplace_back(key);
}

void ClusterWatches::OnFlush(Database& db) {
  if (db.index() == 0 && !cluster_.state().migrating().empty()) flush_ = true;
}

void ClusterWatches::OnSwap(Database& /*a*/, Database& /*b*/) {}  // SWAPDB: refused in cluster

}  // namespace redistp
