// Listpack encoding and decoding; the byte format is described in listpack.h.
//
// Entries are encoded into a small head (encoding byte(s), integer bytes or string length) plus
// the string data, then the backlen; every mutation is one Splice of the blob, so an insert or
// delete costs one realloc and one memmove of the bytes after the edit point.
#include "types/listpack.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "util/memory.h"
#include "util/numbers.h"

namespace redistp {
namespace {

constexpr uint8_t kEnd = 0xFF;
constexpr uint8_t kStr32 = 0xF0;
constexpr uint8_t kInt16 = 0xF1;
constexpr uint8_t kInt24 = 0xF2;
constexpr uint8_t kInt32 = 0xF3;
constexpr uint8_t kInt64 = 0xF4;
constexpr size_t kMaxHead = 9;  // 0xF4 + 8 bytes
constexpr size_t kMaxBacklen = 5;

uint32_t Load32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
void Store32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint16_t Load16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
void Store16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}

// Bytes the backlen of an entry of `len` bytes takes. The thresholds are Redis's (16383 takes
// three bytes although it would fit in two), so our blobs are byte-identical to its.
size_t BacklenSize(size_t len) {
  if (len <= 127) return 1;
  if (len < 16383) return 2;
  if (len < 2097151) return 3;
  if (len < 268435455) return 4;
  return 5;
}

// Writes the backlen of `len` at p; returns its size.
size_t WriteBacklen(uint8_t* p, size_t len) {
  size_t n = BacklenSize(len);
  // Most significant group first (leftmost, no continuation bit); every later byte is flagged.
  for (size_t i = 0; i < n; i++) {
    uint8_t group = static_cast<uint8_t>((len >> (7 * (n - 1 - i))) & 127);
    p[i] = i == 0 ? group : static_cast<uint8_t>(group | 128);
  }
  return n;
}

// Reads a backlen whose last byte is at p, not reading before `floor`. Returns false if it runs
// past floor or is longer than five bytes; on success *len and *size are set.
bool ReadBacklen(const uint8_t* p, const uint8_t* floor, size_t* len, size_t* size) {
  size_t value = 0;
  for (size_t i = 0; i < kMaxBacklen; i++) {
    if (p - i < floor) return false;
    uint8_t b = p[-static_cast<ptrdiff_t>(i)];
    value |= static_cast<size_t>(b & 127) << (7 * i);
    if (!(b & 128)) {
      *len = value;
      *size = i + 1;
      return true;
    }
  }
  return false;
}

// Size of <encoding + data> of the entry starting at p, reading at most `avail` bytes.
// Returns 0 if the encoding is invalid or its header does not fit in avail.
size_t EncodedSize(const uint8_t* p, size_t avail) {
  if (avail < 1) return 0;
  uint8_t b = p[0];
  if (!(b & 0x80)) return 1;
  if ((b & 0xC0) == 0x80) return 1 + (b & 0x3F);
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) {
    if (avail < 2) return 0;
    return 2 + ((size_t{b & 0x0Fu} << 8) | p[1]);
  }
  switch (b) {
    case kStr32:
      if (avail < 5) return 0;
      return 5 + size_t{Load32(p + 1)};
    case kInt16:
      return 3;
    case kInt24:
      return 4;
    case kInt32:
      return 5;
    case kInt64:
      return 9;
    default:
      return 0;  // 0xF5..0xFE are unused, 0xFF is the terminator
  }
}

// Encodes an integer into head; returns the head length.
size_t EncodeInt(int64_t v, uint8_t* head) {
  if (v >= 0 && v <= 127) {
    head[0] = static_cast<uint8_t>(v);
    return 1;
  }
  if (v >= -4096 && v <= 4095) {
    uint32_t u = static_cast<uint32_t>(v < 0 ? (1 << 13) + v : v);
    head[0] = static_cast<uint8_t>(0xC0 | (u >> 8));
    head[1] = static_cast<uint8_t>(u & 0xFF);
    return 2;
  }
  uint64_t u = static_cast<uint64_t>(v);
  size_t n;
  if (v >= -32768 && v <= 32767) {
    head[0] = kInt16;
    n = 2;
  } else if (v >= -8388608 && v <= 8388607) {
    head[0] = kInt24;
    n = 3;
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    head[0] = kInt32;
    n = 4;
  } else {
    head[0] = kInt64;
    n = 8;
  }
  for (size_t i = 0; i < n; i++) head[1 + i] = static_cast<uint8_t>(u >> (8 * i));
  return 1 + n;
}

// Encodes the length header of a string of len bytes; returns the head length.
size_t EncodeStringHead(size_t len, uint8_t* head) {
  if (len < 64) {
    head[0] = static_cast<uint8_t>(0x80 | len);
    return 1;
  }
  if (len < 4096) {
    head[0] = static_cast<uint8_t>(0xE0 | (len >> 8));
    head[1] = static_cast<uint8_t>(len & 0xFF);
    return 2;
  }
  head[0] = kStr32;
  Store32(head + 1, static_cast<uint32_t>(len));
  return 5;
}

// Sign-extends the low `bits` bits of u.
int64_t SignExtend(uint64_t u, int bits) {
  uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((u ^ sign) - sign);
}

// Decodes the entry at p (trusted).
ListpackEntry Decode(const uint8_t* p) {
  ListpackEntry e;
  uint8_t b = p[0];
  auto as_int = [&e](int64_t v) {
    e.is_int = true;
    e.num = v;
  };
  auto as_str = [&e](const uint8_t* data, size_t len) {
    e.str = std::string_view(reinterpret_cast<const char*>(data), len);
  };
  if (!(b & 0x80)) {
    as_int(b);
  } else if ((b & 0xC0) == 0x80) {
    as_str(p + 1, b & 0x3F);
  } else if ((b & 0xE0) == 0xC0) {
    as_int(SignExtend((uint64_t{b & 0x1Fu} << 8) | p[1], 13));
  } else if ((b & 0xF0) == 0xE0) {
    as_str(p + 2, (size_t{b & 0x0Fu} << 8) | p[1]);
  } else if (b == kStr32) {
    as_str(p + 5, Load32(p + 1));
  } else {
    int n = b == kInt16 ? 2 : b == kInt24 ? 3 : b == kInt32 ? 4 : 8;
    uint64_t u = 0;
    for (int i = 0; i < n; i++) u |= uint64_t{p[1 + i]} << (8 * i);
    as_int(n == 8 ? static_cast<int64_t>(u) : SignExtend(u, 8 * n));
  }
  return e;
}

// The canonical integer a string stands for, if any (Redis stores such strings as integers).
bool AsCanonicalInt(std::string_view s, int64_t* v) {
  return !s.empty() && s.size() <= kMaxInt64Chars && ParseInt64(s, v);
}

uint8_t* AllocEmpty() {
  auto* buf = static_cast<uint8_t*>(std::malloc(Listpack::kEmptySize));
  if (buf == nullptr) throw std::bad_alloc();  // allocation failure aborts, as in Redis
  Store32(buf, Listpack::kEmptySize);
  Store16(buf + 4, 0);
  buf[Listpack::kHeaderSize] = kEnd;
  return buf;
}

}  // namespace

std::string ListpackEntry::ToString() const {
  return is_int ? Int64ToString(num) : std::string(str);
}

bool ListpackEntry::Equals(std::string_view s) const {
  if (!is_int) return str == s;
  int64_t v;
  return AsCanonicalInt(s, &v) && v == num;
}

Listpack::Listpack() : buf_(AllocEmpty()) {}
Listpack::~Listpack() { std::free(buf_); }
Listpack::Listpack(Listpack&& o) noexcept : buf_(o.buf_) { o.buf_ = nullptr; }
Listpack& Listpack::operator=(Listpack&& o) noexcept {
  if (this != &o) {
    std::free(buf_);
    buf_ = o.buf_;
    o.buf_ = nullptr;
  }
  return *this;
}

Listpack Listpack::Clone() const {
  size_t n = Bytes();
  auto* copy = static_cast<uint8_t*>(std::malloc(n));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, buf_, n);
  return Listpack(copy);
}

bool Listpack::Validate(std::string_view blob, bool deep) {
  const auto* p = reinterpret_cast<const uint8_t*>(blob.data());
  size_t n = blob.size();
  if (n < kEmptySize || Load32(p) != n || p[n - 1] != kEnd) return false;
  if (!deep) return true;
  size_t off = kHeaderSize;
  size_t count = 0;
  const size_t end = n - 1;  // offset of the terminator
  while (off < end) {
    size_t avail = end - off;
    size_t len = EncodedSize(p + off, avail);
    if (len == 0 || len > avail) return false;
    size_t bl = BacklenSize(len);
    if (bl > avail - len) return false;
    size_t stored = 0, stored_size = 0;
    if (!ReadBacklen(p + off + len + bl - 1, p + off + len, &stored, &stored_size) ||
        stored != len || stored_size != bl) {
      return false;
    }
    off += len + bl;
    count++;
  }
  uint16_t header_count = Load16(p + 4);
  return header_count == kCountUnknown || header_count == count;
}

bool Listpack::HasRepeatedText(size_t stride) const {
  // Each entry as an integer when its text is a canonical one, so that equal texts are equal
  // keys whatever their encoding. A string's tag packs its length and first 7 bytes, so most
  // unequal keys differ by tag alone and a string of up to 7 bytes is its tag. Few entries are
  // compared pairwise, more are sorted.
  struct Key {
    bool is_int;
    uint64_t tag;  // the integer, or the string's length and first bytes
    std::string_view str;
    bool operator==(const Key& o) const {
      return tag == o.tag && is_int == o.is_int && (is_int || str.size() < 8 || str == o.str);
    }
    bool operator<(const Key& o) const {
      if (is_int != o.is_int) return is_int;
      if (tag != o.tag) return tag < o.tag;
      return !is_int && str < o.str;
    }
  };
  auto set_key = [](const ListpackEntry& e, Key* k) {
    k->is_int = true;
    k->tag = static_cast<uint64_t>(e.num);
    k->str = e.str;
    if (e.is_int) return;
    int64_t v;
    const char c = e.str.empty() ? 'x' : e.str[0];
    if ((c == '-' || (c >= '0' && c <= '9')) && AsCanonicalInt(e.str, &v)) {
      k->tag = static_cast<uint64_t>(v);
      return;
    }
    uint64_t tag = std::min<size_t>(e.str.size(), 255);
    const size_t head = std::min<size_t>(e.str.size(), 7);
    for (size_t i = 0; i < head; ++i) {
      tag |= uint64_t{static_cast<uint8_t>(e.str[i])} << (8 * (i + 1));
    }
    k->is_int = false;
    k->tag = tag;
  };
  constexpr size_t kPairwise = 16;
  Key small[kPairwise];
  std::vector<Key> many;
  size_t n = 0;
  // One walk over the raw entries (a loaded blob was validated: every size is in bounds). Keys
  // are built in place: copying a freshly written Key stalls on store forwarding.
  size_t until_key = 0;
  for (const uint8_t* p = buf_ + kHeaderSize; *p != kEnd;) {
    const size_t len = EncodedSize(p, Bytes());
    if (until_key-- == 0) {
      until_key = stride - 1;
      if (n == kPairwise) many.assign(small, small + kPairwise);
      Key& k = n < kPairwise ? small[n] : many.emplace_back();
      set_key(Decode(p), &k);
      for (size_t j = 0; j < n && n < kPairwise; ++j) {
        if (small[j] == k) return true;
      }
      ++n;
    }
    p += len + BacklenSize(len);
  }
  if (n <= kPairwise) return false;
  std::sort(many.begin(), many.end());
  return std::adjacent_find(many.begin(), many.end()) != many.end();
}

std::optional<Listpack> Listpack::FromBlob(std::string_view blob) {
  if (!Validate(blob, true)) return std::nullopt;
  auto* copy = static_cast<uint8_t*>(std::malloc(blob.size()));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, blob.data(), blob.size());
  return Listpack(copy);
}

size_t Listpack::Bytes() const { return Load32(buf_); }
size_t Listpack::AllocatedBytes() const { return AllocationSize(buf_); }

size_t Listpack::Size() const {
  uint16_t c = Load16(buf_ + 4);
  if (c != kCountUnknown) return c;
  size_t n = 0;
  for (Pos p = First(); p != kNone; p = Next(p)) n++;
  // Cache the count again once it fits: the header is ours even in a const listpack.
  if (n < kCountUnknown) Store16(buf_ + 4, static_cast<uint16_t>(n));
  return n;
}

size_t Listpack::EntrySize(Pos p) const {
  size_t len = EncodedSize(buf_ + p, Bytes() - p);
  return len + BacklenSize(len);
}

Listpack::Pos Listpack::Next(Pos p) const {
  Pos q = p + EntrySize(p);
  return buf_[q] == kEnd ? kNone : q;
}

Listpack::Pos Listpack::Prev(Pos p) const {
  if (p <= kHeaderSize) return kNone;
  size_t len = 0, size = 0;
  ReadBacklen(buf_ + p - 1, buf_ + kHeaderSize, &len, &size);
  return p - size - len;
}

Listpack::Pos Listpack::Last() const {
  if (Empty()) return kNone;
  return Prev(Bytes() - 1);
}

Listpack::Pos Listpack::Seek(int64_t index) const {
  size_t n = Size();
  if (index < 0) index += static_cast<int64_t>(n);
  if (index < 0 || static_cast<size_t>(index) >= n) return kNone;
  size_t i = static_cast<size_t>(index);
  if (i <= n / 2) {
    Pos p = First();
    while (i-- > 0) p = Next(p);
    return p;
  }
  Pos p = Last();
  for (size_t back = n - 1 - i; back > 0; back--) p = Prev(p);
  return p;
}

ListpackEntry Listpack::Get(Pos p) const { return Decode(buf_ + p); }

// One pass over raw bytes: each entry's size is read once from its first bytes, a short string
// (the usual hash field or list element) is compared by length before its bytes, and skipped
// entries are never decoded. HGET/HSET on a listpack hash spend their time here.
Listpack::Pos Listpack::Find(Pos from, std::string_view value, unsigned skip) const {
  if (from == kNone) return kNone;
  int64_t v = 0;
  const bool value_is_int = AsCanonicalInt(value, &v);
  unsigned to_skip = 0;  // entries left to pass over before the next comparison
  for (const uint8_t* p = buf_ + from; *p != kEnd;) {
    const uint8_t b = *p;
    size_t len;  // encoding + data
    if ((b & 0xC0) == 0x80) {
      len = 1 + (b & 0x3F);
      if (to_skip == 0 && len - 1 == value.size() &&
          std::memcmp(p + 1, value.data(), value.size()) == 0) {
        return static_cast<Pos>(p - buf_);
      }
    } else {
      len = EncodedSize(p, SIZE_MAX);
      if (to_skip == 0) {
        ListpackEntry e = Decode(p);
        if (e.is_int ? (value_is_int && e.num == v) : e.str == value) {
          return static_cast<Pos>(p - buf_);
        }
      }
    }
    p += len + BacklenSize(len);
    to_skip = to_skip == 0 ? skip : to_skip - 1;
  }
  return kNone;
}

uint8_t* Listpack::Splice(size_t off, size_t remove, size_t ins_len) {
  size_t old_total = Bytes();
  size_t new_total = old_total - remove + ins_len;
  size_t tail = old_total - off - remove;
  if (new_total > old_total) {
    auto* grown = static_cast<uint8_t*>(std::realloc(buf_, new_total));
    if (grown == nullptr) throw std::bad_alloc();
    buf_ = grown;
  }
  std::memmove(buf_ + off + ins_len, buf_ + off + remove, tail);
  if (new_total < old_total) {
    auto* shrunk = static_cast<uint8_t*>(std::realloc(buf_, new_total));
    if (shrunk != nullptr) buf_ = shrunk;
  }
  Store32(buf_, static_cast<uint32_t>(new_total));
  return buf_ + off;
}

void Listpack::AddToCount(int64_t delta) {
  uint16_t c = Load16(buf_ + 4);
  if (c == kCountUnknown) return;  // Size() recounts
  int64_t n = int64_t{c} + delta;
  Store16(buf_ + 4, n >= kCountUnknown ? kCountUnknown : static_cast<uint16_t>(n));
}

Listpack::Pos Listpack::InsertEncoded(Pos p, const uint8_t* head, size_t head_len, const char* data,
                                      size_t data_len) {
  size_t len = head_len + data_len;
  size_t total = len + BacklenSize(len);
  Pos at = p == kNone ? Bytes() - 1 : p;
  uint8_t* w = Splice(at, 0, total);
  std::memcpy(w, head, head_len);
  if (data_len > 0) std::memcpy(w + head_len, data, data_len);
  WriteBacklen(w + len, len);
  AddToCount(1);
  return at;
}

Listpack::Pos Listpack::ReplaceEncoded(Pos p, const uint8_t* head, size_t head_len,
                                       const char* data, size_t data_len) {
  size_t len = head_len + data_len;
  size_t total = len + BacklenSize(len);
  // data may point into this listpack (replacing with a neighbour's value): copy it first.
  std::string saved;
  const auto* base = reinterpret_cast<const char*>(buf_);
  if (data_len > 0 && data >= base && data < base + Bytes()) {
    saved.assign(data, data_len);
    data = saved.data();
  }
  uint8_t* w = Splice(p, EntrySize(p), total);
  std::memcpy(w, head, head_len);
  if (data_len > 0) std::memcpy(w + head_len, data, data_len);
  WriteBacklen(w + len, len);
  return p;
}

Listpack::Pos Listpack::Insert(Pos p, std::string_view s) {
  int64_t v;
  if (AsCanonicalInt(s, &v)) return InsertInt(p, v);
  uint8_t head[kMaxHead];
  size_t head_len = EncodeStringHead(s.size(), head);
  // s may point into this listpack: copy before the blob moves.
  std::string saved;
  const auto* base = reinterpret_cast<const char*>(buf_);
  if (!s.empty() && s.data() >= base && s.data() < base + Bytes()) {
    saved.assign(s);
    s = saved;
  }
  return InsertEncoded(p, head, head_len, s.data(), s.size());
}

Listpack::Pos Listpack::InsertInt(Pos p, int64_t v) {
  uint8_t head[kMaxHead];
  size_t head_len = EncodeInt(v, head);
  return InsertEncoded(p, head, head_len, nullptr, 0);
}

Listpack::Pos Listpack::Replace(Pos p, std::string_view s) {
  int64_t v;
  if (AsCanonicalInt(s, &v)) return ReplaceInt(p, v);
  uint8_t head[kMaxHead];
  size_t head_len = EncodeStringHead(s.size(), head);
  return ReplaceEncoded(p, head, head_len, s.data(), s.size());
}

Listpack::Pos Listpack::ReplaceInt(Pos p, int64_t v) {
  uint8_t head[kMaxHead];
  size_t head_len = EncodeInt(v, head);
  return ReplaceEncoded(p, head, head_len, nullptr, 0);
}

Listpack::Pos Listpack::Delete(Pos p) {
  Splice(p, EntrySize(p), 0);
  AddToCount(-1);
  return buf_[p] == kEnd ? kNone : p;
}

size_t Listpack::DeleteRange(int64_t index, size_t count) {
  Pos start = Seek(index);
  if (start == kNone || count == 0) return 0;
  Pos end = start;
  size_t deleted = 0;
  while (deleted < count && buf_[end] != kEnd) {
    end += EntrySize(end);
    deleted++;
  }
  Splice(start, end - start, 0);
  AddToCount(-static_cast<int64_t>(deleted));
  return deleted;
}

void Listpack::Merge(Listpack& other) {
  size_t add = other.Bytes() - kEmptySize;
  if (add == 0) return;
  size_t mine = Size();
  size_t theirs = other.Size();
  uint8_t* w = Splice(Bytes() - 1, 0, add);
  std::memcpy(w, other.buf_ + kHeaderSize, add);
  size_t n = mine + theirs;
  Store16(buf_ + 4, n >= kCountUnknown ? kCountUnknown : static_cast<uint16_t>(n));
  other = Listpack();
}

Listpack Listpack::SplitAt(size_t at) {
  Listpack tail;
  size_t n = Size();
  if (at >= n) return tail;
  Pos start = Seek(static_cast<int64_t>(at));
  size_t moved = Bytes() - 1 - start;
  uint8_t* w = tail.Splice(kHeaderSize, 0, moved);
  std::memcpy(w, buf_ + start, moved);
  size_t tail_count = n - at;
  Store16(tail.buf_ + 4,
          tail_count >= kCountUnknown ? kCountUnknown : static_cast<uint16_t>(tail_count));
  Splice(start, moved, 0);
  Store16(buf_ + 4, at >= kCountUnknown ? kCountUnknown : static_cast<uint16_t>(at));
  return tail;
}

}  // namespace redistp
