// Intset: a sorted set of integers in one allocation, in Redis's byte format (the "intset"
// encoding of small all-integer sets, stored as-is in RDB files and DUMP payloads).
//
// Memory layout (all numbers little-endian):
//
//   offset 0          4          8
//          +----------+----------+---------+---------+-----+-------------+
//          | encoding | length   | value 0 | value 1 | ... | value len-1 |
//          | u32      | u32      |         |         |     |             |
//          +----------+----------+---------+---------+-----+-------------+
//
//   encoding  width of every value in bytes: 2 (int16), 4 (int32) or 8 (int64);
//   length    number of values;
//   values    strictly ascending, each `encoding` bytes wide, two's complement.
//
// Invariants: the blob is exactly 8 + length * encoding bytes; values are strictly increasing;
// the encoding is the narrowest that held every value ever added (adding a wider value upgrades
// the whole set; removing never downgrades, as in Redis). Lookups are binary searches.
//
// Trust: accessors assume a well-formed blob. Untrusted blobs go through FromBlob, which runs
// Validate(blob, /*deep=*/true) and never reads outside the blob.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace redistp {

class Intset {
 public:
  static constexpr size_t kHeaderSize = 8;

  Intset();  // empty, int16 encoding
  ~Intset();
  Intset(Intset&& o) noexcept;
  Intset& operator=(Intset&& o) noexcept;
  Intset(const Intset&) = delete;
  Intset& operator=(const Intset&) = delete;
  Intset Clone() const;

  // Checks an untrusted blob: encoding 2/4/8 and exact size; deep also checks that the values
  // are strictly ascending and that the set is not empty (Redis never writes an empty intset).
  static bool Validate(std::string_view blob, bool deep);
  static std::optional<Intset> FromBlob(std::string_view blob);

  std::string_view Blob() const;
  size_t Bytes() const { return kHeaderSize + Size() * Encoding(); }
  size_t AllocatedBytes() const;
  size_t Size() const;
  uint32_t Encoding() const;  // 2, 4 or 8

  // Adds v; false if it was already present. May upgrade the encoding.
  bool Add(int64_t v);
  // Removes v; false if it was absent.
  bool Remove(int64_t v);
  bool Contains(int64_t v) const;
  // The value at sorted position i (0 <= i < Size()).
  int64_t At(size_t i) const;
  // A uniformly chosen value, given a random number from the caller (so tests control it);
  // the set must not be empty.
  int64_t Random(uint64_t random) const { return At(random % Size()); }
  int64_t Min() const { return At(0); }
  int64_t Max() const { return At(Size() - 1); }

 private:
  explicit Intset(uint8_t* buf) : buf_(buf) {}
  // Binary search: true and *pos = index if found, else *pos = where v would be inserted.
  bool Search(int64_t v, size_t* pos) const;
  void Set(size_t i, int64_t v);
  void Resize(size_t len);
  void Upgrade(int64_t v);

  uint8_t* buf_;
};

}  // namespace redistp
