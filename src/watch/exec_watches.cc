#include "watch/exec_watches.h"

namespace redistp {

void ExecWatches::Watch(uint64_t client, int db, std::string_view key) {
  DbKey k{db, std::string(key)};
  auto& set = keys_[k];
  if (set.insert(client).second) by_client_[client].push_back(std::move(k));
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

void ExecWatches::Touch(const DbKey& k) {
  auto it = keys_.find(k);
  if (it == keys_.end()) return;
  for (uint64_t c : it->second) dirty_.insert(c);
}

void ExecWatches::OnKeyEvent(const KeyEvent& ev) {
  if (keys_.empty()) return;
  if (ev.kind == KeyEventKind::kModified && !ev.notice.signals_modified) return;
  Touch(DbKey{ev.db->index(), std::string(ev.entry->key())});
}

void ExecWatches::OnFlush(Database& db) {
  for (auto& [k, clients] : keys_) {
    if (k.first == db.index() && db.FindRaw(k.second) != nullptr) {
      for (uint64_t c : clients) dirty_.insert(c);
    }
  }
}

void ExecWatches::OnSwap(Database& a, Database& b) {
  for (auto& [k, clients] : keys_) {
    if ((k.first == a.index() || k.first == b.index()) &&
        (a.FindRaw(k.second) != nullptr || b.FindRaw(k.second) != nullptr)) {
      for (uint64_t c : clients) dirty_.insert(c);
    }
  }
}

}  // namespace redistp
