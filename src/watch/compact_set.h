// CompactSet: a hash set of object pointers that costs one machine word while it holds at most
// one member.
//
// Model. The whole set is one word:
//   - 0: empty;
//   - low bit clear: the one member itself (members are at least 2-byte aligned objects);
//   - low bit set: a pointer to a Block, a header {size, capacity} followed by `capacity` slots.
// The capacity is 2^k - 1, so header plus slots fill exactly 2^(k+3) bytes: a jemalloc size
// class, nothing wasted to rounding. Because the capacity is not a power of two, a member's home
// slot is the multiply-high of its hash and the capacity ("fastrange"), which uses the high
// bits of the hash; Traits::Hash must mix them well. Collisions probe linearly; a removal
// shifts the rest of its probe run back (no tombstones), so lookups stay short under churn.
//
// Load: the block grows (capacity 2c+1) before an insertion would fill more than 3/4 of it, is
// rebuilt smaller when removals leave it under 3/16 of its limit, and turns back into the inline
// word at one member. At least one slot is always empty, so every probe loop ends. Growing and
// shrinking cost O(size) and are amortized O(1) per operation.
//
// Members are compared by identity (Contains/Erase); Find() looks up by the caller's hash and
// predicate (to find a member by a field, such as a client id). Traits::Hash(const T*) may read
// the member, so a member must stay alive while it is in a set. The set never owns its members.
//
// Why not the shared chained table (util/hash_table.h): most of these sets (a key's watchers, a
// client's keys) hold one member, which costs one word here; a HashTable object alone is 64
// bytes, and chaining would need a link inside each member per set it is in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "util/hash.h"

namespace redistp {

template <typename T, typename Traits>
class CompactSet {
 public:
  CompactSet() = default;
  ~CompactSet() { Clear(); }
  CompactSet(const CompactSet&) = delete;
  CompactSet& operator=(const CompactSet&) = delete;

  bool empty() const { return word_ == 0; }
  size_t size() const {
    if (word_ == 0) return 0;
    return IsBlock() ? block()->size : 1;
  }
  // Slots of the heap block (0 while the set is inline), and the block's bytes.
  size_t capacity() const { return IsBlock() ? block()->cap : 0; }
  size_t block_bytes() const { return IsBlock() ? BlockBytes(block()->cap) : 0; }

  bool Contains(const T* item) const {
    if (!IsBlock()) return word_ != 0 && word_ == Word(item);
    const Block* b = block();
    T* const* slots = b->slots();
    for (uint32_t i = Home(Traits::Hash(item), b->cap);; i = Next(i, b->cap)) {
      if (slots[i] == item) return true;
      if (slots[i] == nullptr) return false;
    }
  }

  // The member with this hash for which eq(member) holds, or nullptr.
  template <typename Eq>
  T* Find(uint64_t hash, Eq eq) const {
    if (!IsBlock()) {
      T* only = reinterpret_cast<T*>(word_);
      return only != nullptr && eq(only) ? only : nullptr;
    }
    const Block* b = block();
    T* const* slots = b->slots();
    for (uint32_t i = Home(hash, b->cap); slots[i] != nullptr; i = Next(i, b->cap)) {
      if (eq(slots[i])) return slots[i];
    }
    return nullptr;
  }

  // Adds `item`, which must be non-null, 2-byte aligned and not already a member.
  void Insert(T* item) {
    if (word_ == 0) {
      word_ = Word(item);
      return;
    }
    if (!IsBlock()) {
      T* only = reinterpret_cast<T*>(word_);
      Block* b = NewBlock(kMinCapacity);
      Place(b, only);
      Place(b, item);
      word_ = reinterpret_cast<uintptr_t>(b) | 1;
      return;
    }
    Block* b = block();
    if (b->size + 1 > Limit(b->cap)) b = Rebuild(b, b->cap * 2 + 1);
    Place(b, item);
  }

  // Removes `item`; false if it was not a member.
  bool Erase(const T* item) {
    if (!IsBlock()) {
      if (word_ == 0 || word_ != Word(item)) return false;
      word_ = 0;
      return true;
    }
    Block* b = block();
    T** slots = b->slots();
    uint32_t cap = b->cap;
    uint32_t i = Home(Traits::Hash(item), cap);
    while (slots[i] != item) {
      if (slots[i] == nullptr) return false;
      i = Next(i, cap);
    }
    // Backward shift: a later member of the run moves into the hole unless its home lies in
    // the cyclic range (hole, j], where it would become unreachable.
    uint32_t hole = i;
    for (uint32_t j = Next(i, cap); slots[j] != nullptr; j = Next(j, cap)) {
      uint32_t home = Home(Traits::Hash(slots[j]), cap);
      uint32_t from_home = j >= home ? j - home : j + cap - home;
      uint32_t from_hole = j >= hole ? j - hole : j + cap - hole;
      if (from_home >= from_hole) {
        slots[hole] = slots[j];
        hole = j;
      }
    }
    slots[hole] = nullptr;
    --b->size;
    if (b->size == 1) {
      T* last = nullptr;
      for (uint32_t k = 0; last == nullptr; ++k) last = slots[k];
      ::operator delete(b, BlockBytes(cap));
      word_ = Word(last);
    } else if (cap > kMinCapacity && b->size < Limit(cap) / 4) {
      uint32_t smaller = kMinCapacity;
      while (Limit(smaller) < b->size * 2) smaller = smaller * 2 + 1;
      Rebuild(b, smaller);
    }
    return true;
  }

  // Calls fn(member) for every member. fn must not change this set.
  template <typename Fn>
  void ForEach(Fn fn) const {
    if (!IsBlock()) {
      if (word_ != 0) fn(reinterpret_cast<T*>(word_));
      return;
    }
    const Block* b = block();
    T* const* slots = b->slots();
    for (uint32_t i = 0; i < b->cap; ++i) {
      if (slots[i] != nullptr) fn(slots[i]);
    }
  }

  // Forgets every member (they are not touched) and frees the block.
  void Clear() {
    if (IsBlock()) ::operator delete(block(), BlockBytes(block()->cap));
    word_ = 0;
  }

 private:
  struct Block {
    uint32_t size;
    uint32_t cap;
    T** slots() { return reinterpret_cast<T**>(this + 1); }
    T* const* slots() const { return reinterpret_cast<T* const*>(this + 1); }
  };
  static_assert(sizeof(Block) == sizeof(T*), "the header takes exactly one slot's room");
  static constexpr uint32_t kMinCapacity = 3;

  static uintptr_t Word(const T* item) { return reinterpret_cast<uintptr_t>(item); }
  static size_t BlockBytes(uint32_t cap) { return sizeof(Block) + size_t{cap} * sizeof(T*); }
  // Most members a block of `cap` slots may hold: 3/4 of it, always leaving a slot empty.
  static uint32_t Limit(uint32_t cap) { return static_cast<uint32_t>(uint64_t{cap} * 3 / 4); }
  static uint32_t Home(uint64_t hash, uint32_t cap) {
    return static_cast<uint32_t>((static_cast<unsigned __int128>(hash) * cap) >> 64);
  }
  static uint32_t Next(uint32_t i, uint32_t cap) { return i + 1 == cap ? 0 : i + 1; }

  bool IsBlock() const { return (word_ & 1) != 0; }
  Block* block() const { return reinterpret_cast<Block*>(word_ & ~uintptr_t{1}); }

  static Block* NewBlock(uint32_t cap) {
    auto* b = static_cast<Block*>(::operator new(BlockBytes(cap)));
    b->size = 0;
    b->cap = cap;
    std::memset(static_cast<void*>(b->slots()), 0, size_t{cap} * sizeof(T*));
    return b;
  }
  static void Place(Block* b, T* item) {
    T** slots = b->slots();
    uint32_t i = Home(Traits::Hash(item), b->cap);
    while (slots[i] != nullptr) i = Next(i, b->cap);
    slots[i] = item;
    ++b->size;
  }
  // Moves every member of `old` into a new block of `cap` slots, frees `old`, installs the new.
  Block* Rebuild(Block* old, uint32_t cap) {
    Block* b = NewBlock(cap);
    T** slots = old->slots();
    for (uint32_t i = 0; i < old->cap; ++i) {
      if (slots[i] != nullptr) Place(b, slots[i]);
    }
    ::operator delete(old, BlockBytes(old->cap));
    word_ = reinterpret_cast<uintptr_t>(b) | 1;
    return b;
  }

  uintptr_t word_ = 0;
};

}  // namespace redistp
