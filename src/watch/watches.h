// WatchIndex: persistent existence watches (WATCHEX / UNWATCHEX).
//
// Contract (docs/temporary-keys-and-watches.md): a watch fires when its key goes
// from absent to present (ADD) or present to absent (DEL), whatever caused it; a value change of
// a key that exists before and after sends nothing; every change is delivered in the order it
// happened. Watches are per database and persist until UNWATCHEX, RESET or disconnect.
//
// Model. Three kinds of objects, sized for jemalloc's classes (16, 32, 48, 64 ... bytes):
//   - a KeyRecord per watched (db, key): one allocation holding a 24-byte header and the key
//     bytes inline (48 bytes for keys up to 24 bytes). The header is the set of its watchers,
//     its slot in the deadline heap, its BSETTP interest count, the db and the key length;
//   - a ClientWatches per connection that watches anything (16 bytes): its id and the set of
//     KeyRecords it watches;
//   - the sets themselves are CompactSets (compact_set.h): one word while they hold at most one
//     member (so a key with one watcher, or a client with one watch, costs no extra block), else
//     an open-addressing block of 2^k bytes.
// A (connection, key) pair is therefore two set slots, one in the key's watcher set and one in
// the client's key set — no per-pair node. The (db, key) -> KeyRecord index is a TaggedTable
// (tagged_table.h) that resizes incrementally, and clients are found by id in a CompactSet.
// Registration, removal and the duplicate check are O(1) (amortized); RemoveAll is O(watches of
// that client); delivering a change costs O(watchers of that key). Every structure shrinks when
// watches go away and is freed with its last member.
//
// The index listens to the keyspace: kAdded/kRemoved of a watched key become ADD/DEL for each
// watcher through the WatchSink (the server turns them into push frames with the ordering
// promise). The watchers of one key are told in the order of their set's slots: deterministic,
// but not the order they registered in. FLUSHDB and SWAPDB are handled per watched key of the
// affected databases, so their cost is bounded by the watches, not the keyspace. Entries of
// watched keys carry Entry::kFlagWatched, so events of other keys skip the index (except an
// addition, which is looked up: a new entry carries no flag yet).
//
// Published keys. Besides client watchers, a record can carry one `published` mark: the
// Pub/Sub side's pseudo-watcher for a key whose `__watchex@<db>__:<key>` channel has
// subscribers (server/watchex_pubsub.h). A published change is reported to the sink once,
// after the key's watchers, so on one connection the WATCHEX push precedes the Pub/Sub message
// of the same change; and the channel inherits every cause a watch sees, prompt expiry too.
//
// Prompt expiry: a watched key with a TTL is also kept in a binary min-heap of deadlines (16
// bytes per volatile watched key, its position kept in the record for O(log n) updates); the
// server arms one timer for the earliest deadline and calls DueExpiries(), then deletes the due
// keys through a normal lookup (which emits the DEL). Cost is independent of keyspace size.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/database.h"
#include "db/keyspace_events.h"
#include "watch/compact_set.h"
#include "watch/tagged_table.h"

namespace redistp {

class WatchSink {
 public:
  virtual ~WatchSink() = default;
  // `key` of database `db` was added (added=true) or deleted; notify connection `client`.
  virtual void OnWatchedKeyEvent(uint64_t client, int db, std::string_view key, bool added) = 0;
  // The same change for every watcher of the key at once, in the order given (the index calls
  // this one): a sink that encodes the notification once for all overrides it.
  virtual void OnWatchedKeyEvents(std::span<const uint64_t> clients, int db, std::string_view key,
                                  bool added) {
    for (uint64_t c : clients) OnWatchedKeyEvent(c, db, key, added);
  }
  // The earliest deadline of a watched volatile key changed (0: none left).
  virtual void OnWatchDeadlineChanged(int64_t deadline_ms) = 0;
  // `key` of database `db`, marked published (WatchIndex::AddPublished), was added or deleted:
  // called once per change, after every watcher of the key was told.
  virtual void OnPublishedKeyEvent(int db, std::string_view key, bool added) = 0;
};

class WatchIndex : public KeyspaceListener {
 public:
  explicit WatchIndex(WatchSink* sink) : sink_(sink) {}
  ~WatchIndex() override;
  WatchIndex(const WatchIndex&) = delete;
  WatchIndex& operator=(const WatchIndex&) = delete;

  // Adds a watch; returns false if this client already watched the key (one watch). `entry`
  // is the key's current entry or nullptr, and `expire_ms` its TTL (Database::ExpireOf, 0:
  // none), used to schedule prompt expiry.
  bool Add(uint64_t client, int db, std::string_view key, Entry* entry, int64_t expire_ms);
  // Removes one watch; returns true if it existed.
  bool Remove(uint64_t client, int db, std::string_view key);
  // Removes every watch of the client; returns how many.
  size_t RemoveAll(uint64_t client);
  size_t CountFor(uint64_t client) const;
  // The (db, key) pairs `client` watches, in no particular order (the ACL re-judges them when
  // the client's user loses read access).
  std::vector<std::pair<int, std::string>> KeysOf(uint64_t client) const;
  // Every watch of database `db` as (key, watching clients), in no particular order; keys that
  // only have interest or a published mark are not listed (the cluster ends the watches of keys
  // whose changes no longer happen on this node: cluster/cluster_watches.cc). O(watched keys).
  std::vector<std::pair<std::string, std::vector<uint64_t>>> WatchesIn(int db) const;
  // The connections watching (db, key), in no particular order (empty when none).
  std::vector<uint64_t> WatchersOf(int db, std::string_view key);
  // Interest without a watcher: keeps a key's prompt-expiry deadline tracked (BSETTP waiters
  // need the key's expiry promptly for their hand-off) without sending any push.
  void AddInterest(int db, std::string_view key, Entry* entry, int64_t expire_ms);
  void RemoveInterest(int db, std::string_view key);
  // A published key: its existence changes go to the sink's OnPublishedKeyEvent, after the
  // key's watchers, for every cause a watch sees (prompt expiry, FLUSHDB, SWAPDB and moves
  // included). One mark per key, whoever asks (the Pub/Sub side marks a key while its
  // `__watchex@` channel has subscribers); it keeps the record alive like a watch does.
  // `entry` and `expire_ms` as for Add. AddPublished on a marked key and RemovePublished on an
  // unmarked one do nothing.
  void AddPublished(int db, std::string_view key, Entry* entry, int64_t expire_ms);
  void RemovePublished(int db, std::string_view key);
  bool IsPublished(int db, std::string_view key);
  size_t watch_count() const { return watch_count_; }
  size_t key_count() const { return keys_.size(); }
  // Connections with at least one watch (INFO coordination watching_clients).
  size_t client_count() const { return clients_.size(); }
  bool empty() const { return keys_.empty(); }

  // Watched volatile keys whose deadline has passed at `now_ms`, as (db, key) pairs in deadline
  // order (ties by db, then key).
  std::vector<std::pair<int, std::string>> DueExpiries(int64_t now_ms);
  int64_t next_deadline() const { return deadlines_.empty() ? 0 : deadlines_.front().deadline; }

  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database& db) override;
  void OnSwap(Database& a, Database& b) override;

 private:
  struct KeyRecord;
  struct ClientWatches;
  // Hashes for the sets and the table (defined in watches.cc).
  struct ClientHash {
    static uint64_t Hash(const ClientWatches* c);
  };
  struct RecordPtrHash {
    static uint64_t Hash(const KeyRecord* r);
  };
  struct RecordKeyHash {
    static uint64_t Hash(const KeyRecord* r);
  };
  using WatcherSet = CompactSet<ClientWatches, ClientHash>;
  using RecordSet = CompactSet<KeyRecord, RecordPtrHash>;
  struct HeapItem {
    int64_t deadline;
    KeyRecord* rec;
  };

  static uint64_t HashDbKey(int db, std::string_view key);
  KeyRecord* Find(int db, std::string_view key);
  KeyRecord* FindOrCreate(int db, std::string_view key);
  ClientWatches* FindClient(uint64_t client) const;
  void DropIfUnused(KeyRecord* rec);
  void Notify(KeyRecord* rec, bool added);
  // While a loop notifies several records (FLUSHDB, SWAPDB), a sink may drop watches; records
  // dropped meanwhile leave the index at once but are freed when the outermost loop ends, so the
  // loop never touches freed memory (it skips them: IsRetired).
  class RetireGuard;
  static bool IsRetired(const KeyRecord* rec);
  void Retire(KeyRecord* rec);

  // The deadline heap.
  int64_t DeadlineOf(const KeyRecord* rec) const;
  void Schedule(KeyRecord* rec, int64_t expire_ms);
  void HeapSet(size_t pos, HeapItem item);
  void HeapRemove(size_t pos);
  void SiftUp(size_t pos);
  void SiftDown(size_t pos);

  WatchSink* sink_;
  TaggedTable<KeyRecord, RecordKeyHash> keys_;
  CompactSet<ClientWatches, ClientHash> clients_;
  std::vector<HeapItem> deadlines_;  // binary min-heap on deadline
  size_t watch_count_ = 0;
  int notify_loops_ = 0;             // RetireGuards alive
  std::vector<KeyRecord*> retired_;  // dropped during a loop, freed after it
};

}  // namespace redistp
