// ExecWatches: the keys WATCHed for optimistic transactions (WATCH ... MULTI ... EXEC).
//
// Redis semantics: EXEC fails (null reply) if any watched key was modified, created, deleted or
// expired after WATCH. This index listens to every key event (including value changes) and
// marks the watching connections dirty; EXEC asks IsDirty(). FLUSHDB/SWAPDB mark every watcher
// of the affected databases whose key existed or now exists, as Redis does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "db/database.h"
#include "db/keyspace_events.h"

namespace redistp {

class ExecWatches : public KeyspaceListener {
 public:
  void Watch(uint64_t client, int db, std::string_view key);
  void UnwatchAll(uint64_t client);
  bool IsDirty(uint64_t client) const { return dirty_.count(client) != 0; }
  bool empty() const { return keys_.empty(); }
  // Bytes the client's WATCHed keys cost (its list entries and the index's), for client
  // eviction's accounting; 0 when it watches nothing. O(keys watched).
  size_t MemoryOf(uint64_t client) const;

  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database& db) override;
  void OnSwap(Database& a, Database& b) override;

 private:
  using DbKey = std::pair<int, std::string>;
  struct DbKeyHash {
    size_t operator()(const DbKey& k) const {
      return std::hash<std::string>()(k.second) ^ (static_cast<size_t>(k.first) * 0x9e3779b9u);
    }
  };
  void Touch(const DbKey& k);

  std::unordered_map<DbKey, std::unordered_set<uint64_t>, DbKeyHash> keys_;
  std::unordered_map<uint64_t, std::vector<DbKey>> by_client_;
  std::unordered_set<uint64_t> dirty_;
};

}  // namespace redistp
