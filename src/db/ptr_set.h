// Open-addressing hash tables keyed by Entry pointers (linear probing, backward-shift delete).
//
// PtrSet is a set of entries: a cluster slot's keys (slot_index.h) and a database's hashes
// with field times. ExpireIndex maps each key that carries a TTL to its expire time: it is the
// only place a TTL is kept (an entry only has the kFlagVolatile bit), so active expiry samples
// volatile keys only, as Redis samples its expires dict, and a key without a TTL pays nothing
// for the possibility (entry.h). Both are safe because entries never move.
//
// Why not the shared chained table (util/hash_table.h): a chained index needs a link per
// member. Entry has one link, used by the keyspace, and adding a second would grow every key's
// header; a boxed {next, Entry*} node instead costs a 16-byte allocation plus a bucket slot
// (measured 24.3 B per pointer at 1M, utils/bench/table_memory.cc) and a malloc/free on every
// SET EX / PERSIST. Here a member costs one slot and no allocation, and Sample's slot index is
// the round-robin cursor active expiry needs. A PtrSet slot is 8 bytes at load 1/4-1/2 (16-32
// B per member); an ExpireIndex slot is 16 bytes at load 3/8-3/4 (21-43 B per volatile key,
// against the 8 bytes every key paid when the TTL sat in the entry).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "db/entry.h"

namespace redistp {

// The shared table. `Slot` is the stored record; its member `entry` is the key (nullptr marks
// an empty slot). The table grows past kMaxLoadPercent and halves below 1/8 (above 64 slots).
template <typename Slot, size_t kMaxLoadPercent>
class EntryTable {
 public:
  size_t size() const { return used_; }
  bool Erase(const Entry* e);  // false if absent
  void Clear() {
    slots_.clear();
    used_ = 0;
  }
  void Swap(EntryTable& o) {
    slots_.swap(o.slots_);
    std::swap(used_, o.used_);
  }
  // Collects up to `max` entries scanning forward from slot `start` (wrapping), visiting at most
  // `max_visits` slots. Returns the slot index where the scan stopped (pass it back as start to
  // continue a round-robin sweep, the way active expiry walks its table).
  size_t Sample(size_t start, size_t max, size_t max_visits, std::vector<Entry*>* out) const;
  size_t capacity() const { return slots_.size(); }
  // Whether slot i (< capacity()) holds an entry (DEBUG HTSTATS walks the runs of full slots).
  bool SlotUsed(size_t i) const { return slots_[i].entry != nullptr; }

 protected:
  // The slot of e, or nullptr.
  const Slot* Find(const Entry* e) const;
  // The slot of e, created (its other members value-initialized) if e was absent; `added`
  // says which.
  Slot* Emplace(Entry* e, bool* added);

 private:
  static size_t HashPtr(const Entry* e) {
    uint64_t x = reinterpret_cast<uintptr_t>(e);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<size_t>(x);
  }
  void Resize(size_t n);

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

struct PtrSetSlot {
  Entry* entry;
};

class PtrSet : public EntryTable<PtrSetSlot, 50> {
 public:
  bool Insert(Entry* e) {  // false if already present
    bool added = false;
    Emplace(e, &added);
    return added;
  }
};

struct ExpireSlot {
  Entry* entry;
  int64_t when_ms;
};

class ExpireIndex : public EntryTable<ExpireSlot, 75> {
 public:
  // Sets e's expire time (absolute unix ms, not 0), adding e if it is not a member.
  void Set(Entry* e, int64_t when_ms) {
    bool added = false;
    Emplace(e, &added)->when_ms = when_ms;
  }
  // e's expire time, or 0 if e is not a member.
  int64_t Get(const Entry* e) const {
    const ExpireSlot* s = Find(e);
    return s == nullptr ? 0 : s->when_ms;
  }
};

extern template class EntryTable<PtrSetSlot, 50>;
extern template class EntryTable<ExpireSlot, 75>;

}  // namespace redistp
