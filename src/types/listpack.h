// Listpack: a sequence of strings and integers packed into one allocation, in Redis 7.0's byte
// format, so a blob taken from an RDB file or a DUMP payload is used as-is and ours can be
// written out unchanged.
//
// Memory layout (all multi-byte numbers little-endian):
//
//   offset 0        4          6                                              total-1
//          +--------+----------+---------+---------+-----+---------+------+
//          | total  | count    | entry 0 | entry 1 | ... | entry N | 0xFF |
//          | u32    | u16      |         |         |     |         |      |
//          +--------+----------+---------+---------+-----+---------+------+
//
//   total   bytes of the whole blob, header and terminator included;
//   count   number of entries, or 65535 meaning "unknown, count by scanning" (a listpack may hold
//           more than 65534 entries; Size() rewrites the header once a scan finds fewer again);
//   entry   <encoding [+ length]> <data> <backlen>
//
// Encodings (first byte; `x` bits belong to the value or length):
//   0xxxxxxx                      7-bit unsigned integer 0..127, no data
//   10xxxxxx                      string of 0..63 bytes follows
//   110xxxxx yyyyyyyy             13-bit signed integer (two's complement, high bits first)
//   1110xxxx yyyyyyyy             string of 0..4095 bytes follows (length high bits first)
//   11110000 <u32 length>         string of any length follows
//   11110001 / 0010 / 0011 / 0100 16 / 24 / 32 / 64-bit signed integer follows
//   11111111                      the terminator, never an entry
// A string that is a canonical integer ("12", not "012" nor "-0") is stored as an integer in
// the narrowest encoding, as Redis does, so equal inputs give byte-identical blobs.
//
// backlen is the size of <encoding + data> written so it can be read backwards from the byte
// before the next entry: 1..5 bytes, 7 bits each; the last byte holds the low 7 bits, and a set
// high bit in a byte means "one more byte to the left". This is what makes Prev() O(1).
//
// Positions: an entry is named by its byte offset (a `Pos`) from the start of the blob. A Pos
// stays valid until the next mutation; mutations return the Pos that callers continue from.
// kNone (0) is never an entry (offset 0 is the header).
//
// Trust: every accessor assumes a well-formed blob. Blobs from outside (RESTORE, RDB) must pass
// Validate(blob, /*deep=*/true) first; FromBlob does that and never reads out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace redistp {

// One decoded entry. `str` points into the listpack (or into `buf` for integers formatted by
// ToString) and is valid until the listpack changes.
struct ListpackEntry {
  bool is_int = false;
  int64_t num = 0;
  std::string_view str;

  std::string ToString() const;
  // Byte equality with s, as Redis compares list and hash elements (an integer entry equals the
  // canonical text of its value).
  bool Equals(std::string_view s) const;
};

class Listpack {
 public:
  using Pos = size_t;
  static constexpr Pos kNone = 0;
  static constexpr size_t kHeaderSize = 6;
  static constexpr size_t kEmptySize = kHeaderSize + 1;
  static constexpr uint16_t kCountUnknown = 65535;
  // The largest blob we build: Redis refuses to grow a listpack past 1 GB (lpSafeToAdd) and
  // converts to the big encoding first; we keep the same bound so blobs stay loadable there.
  static constexpr size_t kMaxSafeBytes = size_t{1} << 30;

  Listpack();  // empty
  ~Listpack();
  Listpack(Listpack&& o) noexcept;
  Listpack& operator=(Listpack&& o) noexcept;
  Listpack(const Listpack&) = delete;
  Listpack& operator=(const Listpack&) = delete;
  Listpack Clone() const;

  // Checks an untrusted blob. Shallow: header size, total bytes and terminator. Deep: also every
  // entry's encoding, lengths and backlen, and the count (unless 65535). Never reads outside blob.
  static bool Validate(std::string_view blob, bool deep);
  // A copy of blob if it passes deep validation.
  static std::optional<Listpack> FromBlob(std::string_view blob);
  // Takes ownership of a malloc'd blob this process built itself (e.g. one it compressed and
  // decompressed again); not validated, so never for outside input.
  static Listpack AdoptTrusted(uint8_t* malloced_blob) { return Listpack(malloced_blob); }

  std::string_view Blob() const { return {reinterpret_cast<const char*>(buf_), Bytes()}; }
  size_t Bytes() const;
  // Bytes the allocator really reserved for the blob (its size class).
  size_t AllocatedBytes() const;
  // Number of entries: O(1) from the header, a scan when it says 65535.
  size_t Size() const;
  bool Empty() const { return buf_[kHeaderSize] == 0xFF; }
  // True if adding `add` bytes keeps the blob under kMaxSafeBytes.
  bool SafeToAdd(size_t add) const { return Bytes() + add <= kMaxSafeBytes; }

  // ---- navigation (all O(1) except Seek, which walks from the nearer end) ----
  Pos First() const { return Empty() ? kNone : kHeaderSize; }
  Pos Last() const;
  Pos Next(Pos p) const;  // kNone after the last entry
  Pos Prev(Pos p) const;  // kNone before the first entry
  // Entry at index (negative counts from the tail, -1 is the last); kNone if out of range.
  Pos Seek(int64_t index) const;
  ListpackEntry Get(Pos p) const;
  // Bytes used by the entry at p (encoding, data and backlen).
  size_t EntrySize(Pos p) const;

  // True when two of the entries at indexes 0, stride, 2 * stride ... have the same text (an
  // integer entry and a string entry of its canonical text are the same): a loaded hash field
  // or sorted set member repeated. No allocation for the usual small listpack.
  bool HasRepeatedText(size_t stride) const;

  // First entry at or after `from` equal to value, comparing one entry and then skipping
  // `skip` entries (skip = 1 visits the fields of a field/value listpack). kNone if not found.
  Pos Find(Pos from, std::string_view value, unsigned skip = 0) const;

  // ---- mutation (the blob is reallocated; earlier Pos values are invalid afterwards) ----
  // Precondition: the blob stays under 4 GB (total is a u32); owners check SafeToAdd first and
  // convert to their big encoding, as Redis does with lpSafeToAdd.
  // Text that is a canonical integer is stored as an integer.
  void Append(std::string_view s) { Insert(kNone, s); }
  void AppendInt(int64_t v) { InsertInt(kNone, v); }
  void Prepend(std::string_view s) { Insert(First(), s); }
  // Inserts before the entry at p (p == kNone appends); returns the new entry's Pos.
  Pos Insert(Pos p, std::string_view s);
  Pos InsertInt(Pos p, int64_t v);
  // Replaces the entry at p; returns its Pos.
  Pos Replace(Pos p, std::string_view s);
  Pos ReplaceInt(Pos p, int64_t v);
  // Deletes the entry at p; returns the Pos of the entry that followed it (or kNone).
  Pos Delete(Pos p);
  // Deletes `count` entries (fewer if the list ends) starting at index (negative from the tail).
  // Returns the number deleted.
  size_t DeleteRange(int64_t index, size_t count);
  // Moves every entry of `other` to the end of this listpack; other becomes empty.
  void Merge(Listpack& other);
  // Moves the entries from index `at` to the end into a new listpack and returns it.
  Listpack SplitAt(size_t at);

 private:
  explicit Listpack(uint8_t* buf) : buf_(buf) {}
  // Replaces `remove` bytes at offset `off` with `ins_len` bytes (written by the caller into the
  // returned gap). Keeps total bytes current; the count is the caller's business.
  uint8_t* Splice(size_t off, size_t remove, size_t ins_len);
  void AddToCount(int64_t delta);
  Pos InsertEncoded(Pos p, const uint8_t* head, size_t head_len, const char* data, size_t data_len);
  Pos ReplaceEncoded(Pos p, const uint8_t* head, size_t head_len, const char* data,
                     size_t data_len);

  uint8_t* buf_;
};

}  // namespace redistp
