// SlotIndex: the keys of a database grouped by cluster hash slot (cluster mode only).
//
// A cluster node must answer CLUSTER COUNTKEYSINSLOT and GETKEYSINSLOT, refuse CLUSTER RESET
// while it holds keys, and, later, move a slot's keys away (MIGRATE of GETKEYSINSLOT's
// answer). Redis 7.0 keeps a doubly linked list per slot through its dict entries' metadata;
// here each slot has a PtrSet (db/ptr_set.h) of the entries whose key hashes to it, which
// costs one pointer slot per key (16-32 bytes at the set's load of 1/4-1/2) and no change to
// Entry's 40-byte header, so a server that is not a cluster node pays nothing at all.
//
// Invariant: an entry is in the set of KeyHashSlot(entry->key()) exactly while it is in the
// database's table. Only Database writes the index (on every insert into and unlink from its
// table: add, load, rename, move, remove, flush, swap), so the counts are exact by construction.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "db/entry.h"
#include "db/ptr_set.h"
#include "util/crc16.h"

namespace redistp {

class SlotIndex {
 public:
  void Insert(Entry* e) { slots_[Slot(e)].Insert(e); }
  void Erase(Entry* e) { slots_[Slot(e)].Erase(e); }
  void Clear() {
    for (PtrSet& s : slots_) s.Clear();
  }
  // Keys stored in `slot` (0..16383), logically expired ones not yet reclaimed included, as
  // Redis counts them.
  size_t Count(int slot) const { return slots_[static_cast<size_t>(slot)].size(); }
  // Appends up to `max` entries of `slot`, in no particular order.
  void Keys(int slot, size_t max, std::vector<Entry*>* out) const;
  // Bytes the index holds: the 16384 sets and their tables (MEMORY STATS'
  // overhead.hashtable.slot-to-keys). O(slots).
  size_t MemoryBytes() const {
    size_t bytes = sizeof(slots_);
    for (const PtrSet& s : slots_) bytes += s.capacity() * sizeof(Entry*);
    return bytes;
  }

 private:
  static size_t Slot(const Entry* e) { return static_cast<size_t>(KeyHashSlot(e->key())); }
  std::array<PtrSet, kClusterSlots> slots_;
};

}  // namespace redistp
