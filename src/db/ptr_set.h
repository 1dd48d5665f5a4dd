// PtrSet: an open-addressing hash set of Entry pointers (linear probing, backward-shift delete).
//
// Used as a database's index of keys that carry a TTL, so active expiry samples only volatile
// keys, as Redis samples its expires dict. Costs 8-16 bytes per volatile key and nothing for
// keys without a TTL. Safe because entries never move (see entry.h).
//
// Why not the shared chained table (util/hash_table.h): a chained TTL index needs a link per
// volatile key. Entry has one link, used by the keyspace, and adding a second would grow every
// key's header past 40 bytes; a boxed {next, Entry*} node instead costs a 16-byte allocation
// plus a bucket slot (measured 24.3 B per pointer at 1M, utils/bench/table_memory.cc) and a
// malloc/free on every SET EX / PERSIST. Here a volatile key costs one slot (16-32 B at load
// 1/4-1/2) and no allocation, and Sample's slot index is the round-robin cursor active expiry
// needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "db/entry.h"

namespace redistp {

class PtrSet {
 public:
  size_t size() const { return used_; }
  bool Insert(Entry* e);  // false if already present
  bool Erase(Entry* e);   // false if absent
  void Clear() {
    slots_.clear();
    used_ = 0;
  }
  void Swap(PtrSet& o) {
    slots_.swap(o.slots_);
    std::swap(used_, o.used_);
  }
  // Collects up to `max` entries scanning forward from slot `start` (wrapping), visiting at most
  // `max_visits` slots. Returns the slot index where the scan stopped (pass it back as start to
  // continue a round-robin sweep, the way active expiry walks its table).
  size_t Sample(size_t start, size_t max, size_t max_visits, std::vector<Entry*>* out) const;
  size_t capacity() const { return slots_.size(); }
  // Whether slot i (< capacity()) holds an entry (DEBUG HTSTATS walks the runs of full slots).
  bool SlotUsed(size_t i) const { return slots_[i] != nullptr; }

 private:
  static size_t HashPtr(const Entry* e) {
    uint64_t x = reinterpret_cast<uintptr_t>(e);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<size_t>(x);
  }
  void Resize(size_t n);

  std::vector<Entry*> slots_;
  size_t used_ = 0;
};

}  // namespace redistp
