// Dict: the hash table that maps key bytes to Entry*, with incremental rehashing.
//
// Model. Two bucket arrays, each a power of two in size, chained through Entry::next. Normally
// only table 0 is in use. When the load factor reaches 1 (or drops under 1/10 and the table is
// shrunk) a second array is allocated and buckets migrate from table 0 to table 1 a few at a
// time: one bucket per lookup/insert/delete (RehashStep) and a time-bounded batch from the
// server's cron (RehashFor). When table 0 is empty, table 1 becomes table 0. No single call ever
// pays for moving millions of keys.
//
// Invariants:
//  - a key is in exactly one table; while rehashing, buckets [0, rehash_idx_) of table 0 are
//    empty and new keys go to table 1;
//  - Entry pointers are stable: rehashing relinks entries, never copies them;
//  - Scan() uses the reverse-binary cursor, so every key present for the whole scan is returned
//    at least once however the table grows or shrinks between calls (a key may repeat).
//
// Hashing is XXH3-64 with a seed chosen at startup (hash flooding resistance).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "db/entry.h"

namespace redistp {

class Dict {
 public:
  Dict();
  ~Dict();
  Dict(const Dict&) = delete;
  Dict& operator=(const Dict&) = delete;

  static void SetHashSeed(uint64_t seed);
  static uint64_t Hash(std::string_view key);

  size_t size() const { return used_[0] + used_[1]; }
  size_t buckets() const { return size_[0] + size_[1]; }
  bool rehashing() const { return rehash_idx_ >= 0; }

  Entry* Find(std::string_view key);
  // Inserts an entry whose key is not present (the caller checked). Takes ownership.
  void Insert(Entry* e);
  // Unlinks the entry with this key and returns it (ownership to caller), or nullptr.
  Entry* Unlink(std::string_view key);
  // Unlinks and destroys every entry; calls on_remove(entry) before each destroy if given.
  void Clear(const std::function<void(Entry*)>& on_remove = nullptr);
  // Swaps the whole contents with another dict (SWAPDB).
  void Swap(Dict& other);

  // Migrates up to n buckets (and visits at most 10*n empty buckets). True if more remain.
  bool Rehash(int n);
  // Rehashes for roughly `us` microseconds; returns buckets moved.
  int RehashFor(int64_t us);
  // Starts a shrink if the table is mostly empty. Called from cron.
  void MaybeShrink();
  // Pauses automatic resizing (while a fork-less snapshot or iteration needs stable buckets).
  void set_resize_allowed(bool allowed) { resize_allowed_ = allowed; }

  // One SCAN step: calls fn for every entry of the bucket(s) at `cursor`, returns the next
  // cursor (0 when done).
  uint64_t Scan(uint64_t cursor, const std::function<void(Entry*)>& fn);
  // A random entry, or nullptr when empty. Fair enough for RANDOMKEY and eviction sampling.
  Entry* Random();
  // Visits every entry (no modification allowed during the walk).
  void ForEach(const std::function<void(Entry*)>& fn) const;
  // Approximate bytes used by the bucket arrays.
  size_t BucketBytes() const { return (size_[0] + size_[1]) * sizeof(Entry*); }

 private:
  void ExpandIfNeeded();
  void StartResize(size_t new_size);
  void RehashStep() {
    if (rehash_idx_ >= 0) Rehash(1);
  }

  Entry** table_[2] = {nullptr, nullptr};
  size_t size_[2] = {0, 0};
  size_t used_[2] = {0, 0};
  int64_t rehash_idx_ = -1;
  bool resize_allowed_ = true;
};

}  // namespace redistp
