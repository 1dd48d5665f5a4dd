// WatchIndex: persistent existence watches (WATCHEX / UNWATCHEX).
//
// Contract (../shared/spec/temporary-keys-and-watches.md): a watch fires when its key goes
// from absent to present (ADD) or present to absent (DEL), whatever caused it; a value change of
// a key that exists before and after sends nothing; every change is delivered in the order it
// happened. Watches are per database and persist until UNWATCHEX, RESET or disconnect.
//
// Model. One KeyRecord per watched (db, key), found by a hash map, holding the vector of its
// watches; one Watch per (connection, key) pair, which knows its slot in that vector; and per
// connection a map from KeyRecord to its Watch. Registration and removal are O(1); delivering
// a change costs O(watchers of that key). The index listens to the keyspace: kAdded/kRemoved
// of a watched key become ADD/DEL for each watcher through the WatchSink (the server turns
// them into push frames with the ordering promise). FLUSHDB and SWAPDB are handled per watched
// key of the affected databases, so their cost is bounded by the watches, not the keyspace.
//
// Prompt expiry: a watched key with a TTL is also kept in a deadline-ordered set; the server
// arms one timer for the earliest deadline and calls DueExpiries(), then deletes the due keys
// through a normal lookup (which emits the DEL). Cost is independent of keyspace size.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "db/database.h"
#include "db/keyspace_events.h"

namespace redistp {

class WatchSink {
 public:
  virtual ~WatchSink() = default;
  // `key` of database `db` was added (added=true) or deleted; notify connection `client`.
  virtual void OnWatchedKeyEvent(uint64_t client, int db, std::string_view key, bool added) = 0;
  // The earliest deadline of a watched volatile key changed (0: none left).
  virtual void OnWatchDeadlineChanged(int64_t deadline_ms) = 0;
};

class WatchIndex : public KeyspaceListener {
 public:
  explicit WatchIndex(WatchSink* sink) : sink_(sink) {}
  ~WatchIndex() override;
  WatchIndex(const WatchIndex&) = delete;
  WatchIndex& operator=(const WatchIndex&) = delete;

  // Adds a watch; returns false if this client already watched the key (one watch). `entry`
  // is the key's current entry or nullptr (used to schedule prompt expiry).
  bool Add(uint64_t client, int db, std::string_view key, Entry* entry);
  // Removes one watch; returns true if it existed.
  bool Remove(uint64_t client, int db, std::string_view key);
  // Removes every watch of the client; returns how many.
  size_t RemoveAll(uint64_t client);
  size_t CountFor(uint64_t client) const;
  // Interest without a watcher: keeps a key's prompt-expiry deadline tracked (BSETTP waiters
  // need the key's expiry promptly for their hand-off) without sending any push.
  void AddInterest(int db, std::string_view key, Entry* entry);
  void RemoveInterest(int db, std::string_view key);
  size_t watch_count() const { return watch_count_; }
  size_t key_count() const { return keys_.size(); }
  bool empty() const { return keys_.empty(); }

  // Watched volatile keys whose deadline has passed at `now_ms`: (db, key) pairs.
  std::vector<std::pair<int, std::string>> DueExpiries(int64_t now_ms);
  int64_t next_deadline() const { return deadlines_.empty() ? 0 : deadlines_.begin()->first; }

  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database& db) override;
  void OnSwap(Database& a, Database& b) override;

 private:
  struct KeyRecord;
  struct Watch {
    KeyRecord* key;
    uint64_t client;
    size_t slot;  // index in key->watches
  };
  struct KeyRecord {
    int db;
    std::string key;
    std::vector<Watch*> watches;
    int64_t deadline = 0;  // scheduled prompt-expiry deadline, 0 = none
    int interest = 0;      // AddInterest count; the record lives while watched or interested
  };
  KeyRecord* FindOrCreate(int db, std::string_view key);
  void DropIfUnused(KeyRecord* rec);
  struct DbKey {
    int db;
    std::string_view key;
    bool operator==(const DbKey& o) const { return db == o.db && key == o.key; }
  };
  struct DbKeyHash {
    size_t operator()(const DbKey& k) const;
  };

  KeyRecord* Find(int db, std::string_view key) const;
  void Notify(KeyRecord* rec, bool added);
  void Schedule(KeyRecord* rec, int64_t expire_ms);
  void DropWatch(Watch* w);

  WatchSink* sink_;
  // Keys of this map point into the KeyRecord's own string (stable: records are heap nodes).
  std::unordered_map<DbKey, KeyRecord*, DbKeyHash> keys_;
  std::unordered_map<uint64_t, std::unordered_map<KeyRecord*, Watch*>> by_client_;
  std::set<std::pair<int64_t, KeyRecord*>> deadlines_;
  size_t watch_count_ = 0;
};

}  // namespace redistp
