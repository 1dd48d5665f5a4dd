// ExecWatches: the keys WATCHed for optimistic transactions (WATCH ... MULTI ... EXEC).
//
// Redis semantics: EXEC fails (null reply) if any watched key was modified, created, deleted or
// expired after WATCH. This index listens to every key event (including value changes) and
// marks the watching connections dirty; EXEC asks IsDirty(). FLUSHDB/SWAPDB mark every watcher
// of the affected databases whose key existed or now exists, as Redis does.
//
// A key that was stale when WATCHed (logically expired, not yet deleted) already did not
// exist for the client, so its deletion (lazy or active expiry, DEL, FLUSHDB, a SWAPDB that
// leaves nothing or another stale key in its place) changes nothing logically and leaves EXEC
// alone, as in Redis 7.0; once deleted it is watched as a missing key, and its re-creation (or a
// live key swapped in) makes EXEC fail.
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
  // `stale`: the key exists but is logically expired at WATCH time.
  void Watch(uint64_t client, int db, std::string_view key, bool stale);
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
  // SWAPDB's rule for the watchers of `key` in the database that held `before` and now holds
  // `after` (either may be null: the key was or is missing there).
  void SwapTouch(std::unordered_map<uint64_t, bool>& watchers, const Database& now_db,
                 const Entry* before, const Entry* after);

  using DbKey = std::pair<int, std::string>;
  struct DbKeyHash {
    size_t operator()(const DbKey& k) const {
      return std::hash<std::string>()(k.second) ^ (static_cast<size_t>(k.first) * 0x9e3779b9u);
    }
  };

  // Watched key → its watchers, each with whether the key was stale for it (see above).
  std::unordered_map<DbKey, std::unordered_map<uint64_t, bool>, DbKeyHash> keys_;
  std::unordered_map<uint64_t, std::vector<DbKey>> by_client_;
  std::unordered_set<uint64_t> dirty_;
};

}  // namespace redistp
