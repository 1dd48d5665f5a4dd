// TaggedTable: a large open-addressing hash table of object pointers, with one tag byte per
// slot and incremental resizing.
//
// Model. An array is two parallel blocks of a power-of-two capacity: tags (one byte per slot)
// and slots (one pointer per slot). A tag is kEmpty, kTombstone (a member was removed here), or
// 0x80 | the top 7 bits of the member's hash. The home slot is given by the low bits of the
// hash, and collisions probe linearly. A lookup reads tags and dereferences only slots whose
// tag matches (1 in 128 for a stranger), so a miss — the common case when the server asks
// "is this new key watched?" — touches a few bytes of one cache line and no member.
//
// Removal leaves a tombstone, so nothing is rehashed on the removal path; an insertion reuses
// the first tombstone of its probe run. Members plus tombstones stay at most 3/4 of the
// capacity, so every probe run ends at an empty slot.
//
// Resizing. When an insertion would pass 3/4, or when removals leave the members under 1/8 of
// the capacity, a new array sized for the members alone (load at most 1/2) becomes current and
// the old one is drained into it a batch of slots at a time: every Find, Insert and Erase moves
// the members of the next batch, marking the drained slots as tombstones so probe runs through
// them still reach later members. Lookups consult both arrays while draining. The batch is
// sized so the old array is empty before the new one can fill (at most 1/8 of the new capacity
// in operations), which keeps the rare synchronous fallback (RebuildNow) out of normal use. No
// single call moves millions of members, and memory goes back as members go: the arrays shrink
// (by at most 32x per step) and are freed with the last member.
//
// Traits::Hash(const T*) recomputes a member's hash (it may read the member); the caller passes
// the hash it already has to Find/Insert/Erase. Members are never owned.
//
// Why not the shared chained table (util/hash_table.h): every key addition asks this index
// whether the new key is watched, and the answer is almost always no. Here a miss reads tag
// bytes only; a chained table would dereference the KeyRecord at the end of each non-empty
// bucket (a cache miss per added key while any watch exists) and need an 8-byte link in every
// KeyRecord, moving records with keys of 17-24 bytes from the 48-byte class to the 64-byte one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace redistp {

template <typename T, typename Traits>
class TaggedTable {
 public:
  TaggedTable() = default;
  ~TaggedTable() {
    FreeArray(&cur_);
    FreeArray(&old_);
  }
  TaggedTable(const TaggedTable&) = delete;
  TaggedTable& operator=(const TaggedTable&) = delete;

  size_t size() const { return cur_.members + old_.members; }
  bool empty() const { return size() == 0; }
  bool migrating() const { return old_.cap != 0; }
  size_t capacity() const { return cur_.cap; }
  size_t bytes() const { return (cur_.cap + old_.cap) * (1 + sizeof(T*)); }

  // The member with this hash for which eq(member) holds, or nullptr. Advances a resize.
  template <typename Eq>
  T* Find(uint64_t hash, Eq eq) {
    Step();
    size_t i = Probe(cur_, hash, eq);
    if (i != kNone) return cur_.slots[i];
    i = Probe(old_, hash, eq);
    return i != kNone ? old_.slots[i] : nullptr;
  }

  // Adds `item` (non-null, not a member: the caller looked it up) whose hash is `hash`.
  void Insert(T* item, uint64_t hash) {
    Step();
    if (cur_.cap == 0) {
      AllocArray(&cur_, kMinCapacity);
    } else if (cur_.filled + 1 > Limit(cur_.cap)) {
      size_t target = TargetCapacity(size() + 1, cur_.cap);
      if (migrating()) {
        RebuildNow(target);
      } else {
        StartResize(target);
      }
    }
    Place(&cur_, item, hash);
  }

  // Removes `item` (found by identity); false if it is not a member.
  bool Erase(const T* item, uint64_t hash) {
    Step();
    auto same = [item](const T* m) { return m == item; };
    size_t i = Probe(cur_, hash, same);
    if (i != kNone) {
      cur_.tags[i] = kTombstone;
      --cur_.members;
    } else {
      i = Probe(old_, hash, same);
      if (i == kNone) return false;
      old_.tags[i] = kTombstone;
      if (--old_.members == 0) FreeArray(&old_);
    }
    if (empty()) {
      FreeArray(&cur_);
      FreeArray(&old_);
    } else if (!migrating() && cur_.cap > kMinCapacity && cur_.members < cur_.cap / 8) {
      StartResize(TargetCapacity(size(), cur_.cap));
    }
    return true;
  }

  // Calls fn(member) for every member. fn must not change the table.
  template <typename Fn>
  void ForEach(Fn fn) const {
    for (const Array* a : {&cur_, &old_}) {
      for (size_t i = 0; i < a->cap; ++i) {
        if (a->tags[i] & kMemberBit) fn(a->slots[i]);
      }
    }
  }

 private:
  struct Array {
    uint8_t* tags = nullptr;
    T** slots = nullptr;
    size_t cap = 0;  // 0 or a power of two
    size_t members = 0;
    size_t filled = 0;  // members + tombstones
  };
  static constexpr uint8_t kEmpty = 0;
  static constexpr uint8_t kTombstone = 1;
  static constexpr uint8_t kMemberBit = 0x80;
  static constexpr size_t kMinCapacity = 8;
  static constexpr size_t kMinBatch = 64;
  static constexpr size_t kNone = ~size_t{0};

  static uint8_t TagOf(uint64_t hash) { return static_cast<uint8_t>(kMemberBit | (hash >> 57)); }
  static size_t Limit(size_t cap) { return cap / 4 * 3; }
  // Room for `members` at load at most 1/2, shrinking at most 32x from `current`.
  static size_t TargetCapacity(size_t members, size_t current) {
    size_t cap = std::max(kMinCapacity, current / 32);
    while (cap / 2 < members) cap *= 2;
    return cap;
  }

  static void AllocArray(Array* a, size_t cap) {
    a->tags = new uint8_t[cap]();
    a->slots = new T*[cap];
    a->cap = cap;
    a->members = a->filled = 0;
  }
  static void FreeArray(Array* a) {
    delete[] a->tags;
    delete[] a->slots;
    *a = Array{};
  }

  // Slot index of the member with this hash for which eq holds, or kNone.
  template <typename Eq>
  static size_t Probe(const Array& a, uint64_t hash, Eq eq) {
    if (a.cap == 0) return kNone;
    uint8_t tag = TagOf(hash);
    size_t mask = a.cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      uint8_t t = a.tags[i];
      if (t == kEmpty) return kNone;
      if (t == tag && eq(a.slots[i])) return i;
    }
  }

  // Puts a non-member into the first empty or tombstone slot of its probe run.
  static void Place(Array* a, T* item, uint64_t hash) {
    size_t mask = a->cap - 1;
    size_t i = hash & mask;
    while (a->tags[i] & kMemberBit) i = (i + 1) & mask;
    if (a->tags[i] == kEmpty) ++a->filled;
    a->tags[i] = TagOf(hash);
    a->slots[i] = item;
    ++a->members;
  }

  void StartResize(size_t cap) {
    old_ = cur_;
    cur_ = Array{};
    AllocArray(&cur_, cap);
    drain_pos_ = 0;
    if (old_.members == 0) FreeArray(&old_);
  }

  // Moves the members of the next batch of old slots into the current array.
  void Step() {
    if (old_.cap == 0) return;
    size_t batch = std::max(kMinBatch, 8 * old_.cap / cur_.cap);
    size_t end = std::min(old_.cap, drain_pos_ + batch);
    for (; drain_pos_ < end && old_.members > 0; ++drain_pos_) {
      if (old_.tags[drain_pos_] & kMemberBit) {
        T* m = old_.slots[drain_pos_];
        old_.tags[drain_pos_] = kTombstone;
        --old_.members;
        Place(&cur_, m, Traits::Hash(m));
      }
    }
    if (drain_pos_ == old_.cap || old_.members == 0) FreeArray(&old_);
  }

  // The fallback when the current array fills while an old one still drains: moves every member
  // of both into a new array of `cap` slots at once.
  void RebuildNow(size_t cap) {
    Array next;
    AllocArray(&next, cap);
    for (Array* a : {&cur_, &old_}) {
      for (size_t i = 0; i < a->cap; ++i) {
        if (a->tags[i] & kMemberBit) Place(&next, a->slots[i], Traits::Hash(a->slots[i]));
      }
      FreeArray(a);
    }
    cur_ = next;
  }

  Array cur_;
  Array old_;
  size_t drain_pos_ = 0;
};

}  // namespace redistp
