// PackedOrLarge: the body of a small-or-large aggregate in one machine word.
//
// Hashes, sets and sorted sets each have two encodings: a packed one (a listpack or an intset:
// a class whose only member is a pointer to one malloc'd buffer) for the common small case, and
// a large one (a hash table, a skiplist index) allocated on conversion. An aggregate is in one
// encoding at a time, so its two forms share one word: the packed class itself, or a pointer to
// the large form with its low bit set. Both pointers come from the allocator, aligned to at
// least 8 bytes, so the low bit is free in either and tells them apart.
//
// One word is what lets the aggregate live inside its key's 16-byte Value (types/value.h)
// instead of behind an allocation of its own: a small hash costs its listpack alone. The Value
// moves such an object by copying its bytes, which is sound because neither form points back
// at the word (the packed class owns its buffer through a plain pointer, the large form is
// elsewhere on the heap).
//
// Reading the packed form while the large one is held (or the reverse) is a bug: each owner
// asks is_large() first, as it used to test its table pointer.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

namespace redistp {

template <typename Packed, typename Large>
class PackedOrLarge {
  static_assert(sizeof(Packed) == sizeof(uintptr_t), "the packed form must be one pointer");
  static_assert(alignof(Large) >= 2, "the large form's low address bit must be free");

 public:
  PackedOrLarge() { new (bytes_) Packed(); }
  explicit PackedOrLarge(Packed&& p) { new (bytes_) Packed(std::move(p)); }
  // The large form `l`, or (null) an empty packed one: no packed buffer made only to be freed.
  explicit PackedOrLarge(std::unique_ptr<Large> l) {
    if (l == nullptr) {
      new (bytes_) Packed();
    } else {
      HoldLarge(l.release());
    }
  }
  ~PackedOrLarge() { Reset(); }
  PackedOrLarge(const PackedOrLarge&) = delete;
  PackedOrLarge& operator=(const PackedOrLarge&) = delete;

  bool is_large() const { return (word() & 1) != 0; }

  Packed& packed() { return *std::launder(reinterpret_cast<Packed*>(bytes_)); }
  const Packed& packed() const { return *std::launder(reinterpret_cast<const Packed*>(bytes_)); }
  Large* large() const { return reinterpret_cast<Large*>(word() & ~uintptr_t{1}); }

  // Ends the current form (freeing its memory) and holds `l` from now on.
  void SetLarge(std::unique_ptr<Large> l) {
    Reset();
    HoldLarge(l.release());
  }
  // Ends the current form and holds `p` from now on.
  void SetPacked(Packed&& p) {
    Reset();
    new (bytes_) Packed(std::move(p));
  }

 private:
  uintptr_t word() const {
    uintptr_t w;
    std::memcpy(&w, bytes_, sizeof(w));
    return w;
  }
  // Writes the tagged word for `l` over whatever the bytes held (the caller ended that form).
  void HoldLarge(Large* l) {
    const uintptr_t w = reinterpret_cast<uintptr_t>(l) | 1;
    std::memcpy(bytes_, &w, sizeof(w));
  }
  void Reset() {
    if (is_large()) {
      delete large();
    } else {
      packed().~Packed();
    }
  }

  alignas(uintptr_t) unsigned char bytes_[sizeof(uintptr_t)];
};

}  // namespace redistp
