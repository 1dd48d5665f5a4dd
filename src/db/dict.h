// Dict: the keyspace's table, key bytes -> Entry*, an instance of the server's one hash table
// (util/hash_table.h) with intrusive storage: entries chain through Entry::next, so a key costs
// its Entry block plus its share of the bucket array and nothing else.
//
// Everything the keyspace relies on comes from HashTable: incremental rehash (one bucket per
// lookup/insert/delete, a time-bounded batch from cron via RehashFor), shrink when sparse,
// the resize pause, stable Entry pointers (rehashing relinks, never copies), the reverse-binary
// SCAN guarantee (every key present for the whole scan is returned at least once) and Random().
// This class only fixes the traits (XXH3 seeded hashing of the key bytes, Entry::Destroy) and
// keeps the std::function-taking interface the database calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>

#include "db/entry.h"
#include "util/hash.h"
#include "util/hash_table.h"

namespace redistp {

// Intrusive traits of the keyspace: an Entry is its own node.
struct EntryTableTraits {
  using Node = Entry;
  using Key = std::string_view;
  static Entry*& Next(Entry* e) { return e->next; }
  static std::string_view KeyOf(const Entry* e) { return e->key(); }
  static uint64_t Hash(std::string_view key) { return HashBytes(key); }
  static bool Equal(const Entry* e, std::string_view key) {
    return e->key_len == key.size() && std::memcmp(e->key_data(), key.data(), key.size()) == 0;
  }
  static void Destroy(Entry* e) { Entry::Destroy(e); }
};

class Dict {
 public:
  Dict() = default;
  Dict(const Dict&) = delete;
  Dict& operator=(const Dict&) = delete;

  // The process-wide hash seed (util/hash.h); set once at startup.
  static void SetHashSeed(uint64_t seed) { redistp::SetHashSeed(seed); }
  static uint64_t Hash(std::string_view key) { return HashBytes(key); }

  size_t size() const { return table_.size(); }
  size_t buckets() const { return table_.buckets(); }
  bool rehashing() const { return table_.rehashing(); }

  Entry* Find(std::string_view key) { return table_.Find(key); }
  void Prefetch(std::string_view key) const { table_.Prefetch(key); }
  // Inserts an entry whose key is not present (the caller checked). Takes ownership.
  void Insert(Entry* e, bool may_grow = true) { table_.Insert(e, may_grow); }
  // See HashTable::WouldGrow / GrowBytes (the keyspace asks before growing under maxmemory).
  bool WouldGrow() const { return table_.WouldGrow(); }
  size_t GrowBytes() const { return table_.GrowBytes(); }
  // Unlinks the entry with this key and returns it (ownership to caller), or nullptr.
  Entry* Unlink(std::string_view key) { return table_.Unlink(key); }
  // Unlinks and destroys every entry; calls on_remove(entry) before each destroy if given.
  void Clear(const std::function<void(Entry*)>& on_remove = nullptr);
  // Swaps the whole contents with another dict (SWAPDB).
  void Swap(Dict& other) { table_.Swap(other.table_); }

  // Migrates up to n buckets (and visits at most 10*n empty buckets). True if more remain.
  bool Rehash(int n) { return table_.Rehash(n); }
  // Rehashes for roughly `us` microseconds; returns buckets moved.
  int RehashFor(int64_t us) { return table_.RehashFor(us); }
  // Starts a shrink if the table is mostly empty. Called from cron.
  void MaybeShrink() { table_.MaybeShrink(); }
  // Room for `n` keys at once (RDB loading's size hint).
  void Reserve(size_t n) { table_.Reserve(n); }

  // One SCAN step: calls fn for every entry of the bucket(s) at `cursor`, returns the next
  // cursor (0 when done).
  uint64_t Scan(uint64_t cursor, const std::function<void(Entry*)>& fn) {
    return table_.Scan(cursor, fn);
  }
  // A random entry, or nullptr when empty. Fair enough for RANDOMKEY and eviction sampling.
  Entry* Random() { return table_.Random(); }
  // Visits every entry (no modification allowed during the walk).
  void ForEach(const std::function<void(Entry*)>& fn) const { table_.ForEach(fn); }
  // Approximate bytes used by the bucket arrays.
  size_t BucketBytes() const { return table_.BucketBytes(); }
  // The table itself, read only (DEBUG HTSTATS reads its buckets and chains).
  const HashTable<EntryTableTraits>& table() const { return table_; }

 private:
  HashTable<EntryTableTraits> table_;
};

}  // namespace redistp
