#include "watch/exec_watches.h"

namespace redistp {

void ExecWatches::Watch(uint64_t client, int db, std::string_view key, bool stale) {
  DbKey k{db, std::string(key)};
  auto& watchers = keys_[k];
  // A second WATCH of the same key keeps the first one's view (Redis watches a key once).
  if (watchers.emplace(client, stale).second) by_client_[client].push_back(std::move(k));
}

size_t ExecWatches::MemoryOf(uint64_t client) const {
  auto it = by_client_.find(client);
  if (it == by_client_.end()) return 0;
  // Per key: the client's list element and the index's node and set entry, plus the key bytes
  // held twice (in the list and in the index).
  constexpr size_t kPerKey = sizeof(DbKey) * 2 + 64;
  size_t bytes = it->second.capacity() * sizeof(DbKey);
  for (const DbKey& k : it->second) bytes += kPerKey + 2 * k.second.capacity();
  return bytes;
}

void ExecWatches::UnwatchAll(uint64_t client) {
  dirty_.erase(client);
  auto it = by_client_.find(client);
  if (it == by_client_.end()) return;
  for (const DbKey& k : it->second) {
    auto kit = keys_.find(k);
    if (kit == keys_.end()) continue;
    kit->second.erase(client);
    if (kit->second.empty()) keys_.erase(kit);
  }
  by_client_.erase(it);
}

void ExecWatches::OnKeyEvent(const KeyEvent& ev) {
  if (keys_.empty()) return;
  if (ev.kind == KeyEventKind::kModified && !ev.notice.signals_modified) return;
  auto it = keys_.find(DbKey{ev.db->index(), std::string(ev.entry->key())});
  if (it == keys_.end()) return;
  const bool removed = ev.kind == KeyEventKind::kRemoved;
  for (auto& [client, stale] : it->second) {
    if (stale && removed) {
      // The stale key is gone: no logical change; from now on it is a missing key.
      stale = false;
      continue;
    }
    dirty_.insert(client);
  }
}

void ExecWatches::OnFlush(Database& db) {
  for (auto& [k, watchers] : keys_) {
    if (k.first != db.index() || db.FindRaw(k.second) == nullptr) continue;
    for (auto& [client, stale] : watchers) {
      if (stale) {
        stale = false;  // a stale key flushed: nothing changed for this client
      } else {
        dirty_.insert(client);
      }
    }
  }
}

void ExecWatches::SwapTouch(std::unordered_map<uint64_t, bool>& watchers, const Database& now_db,
                            const Entry* before, const Entry* after) {
  if (before == nullptr && after == nullptr) return;
  const bool after_stale = after != nullptr && now_db.IsExpired(after);
  for (auto& [client, stale] : watchers) {
    if (stale) {
      if (after == nullptr) {
        stale = false;  // the stale key left, nothing came: no change
        continue;
      }
      if (after_stale) continue;  // a stale key replaced by another stale key
    } else if (before == nullptr && after_stale) {
      stale = true;  // a missing key replaced by a stale one: still missing
      continue;
    }
    dirty_.insert(client);
  }
}

void ExecWatches::OnSwap(Database& a, Database& b) {
  // Called after the exchange: a database's keys before the swap are now the other's.
  for (auto& [k, watchers] : keys_) {
    if (k.first == a.index()) {
      SwapTouch(watchers, a, b.FindRaw(k.second), a.FindRaw(k.second));
    } else if (k.first == b.index()) {
      SwapTouch(watchers, b, a.FindRaw(k.second), b.FindRaw(k.second));
    }
  }
}

}  // namespace redistp
