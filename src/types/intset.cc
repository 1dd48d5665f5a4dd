// Intset operations; the byte format is described in intset.h.
#include "types/intset.h"

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "util/memory.h"

namespace redistp {
namespace {

uint32_t Load32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
void Store32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Narrowest encoding holding v.
uint32_t EncodingFor(int64_t v) {
  if (v >= INT16_MIN && v <= INT16_MAX) return 2;
  if (v >= INT32_MIN && v <= INT32_MAX) return 4;
  return 8;
}

// Reads a width-byte little-endian two's complement value.
int64_t LoadValue(const uint8_t* p, uint32_t width) {
  if constexpr (std::endian::native == std::endian::little) {
    // The blob's byte order is the host's: one load of the right width.
    switch (width) {
      case 2: {
        int16_t v;
        std::memcpy(&v, p, sizeof(v));
        return v;
      }
      case 4: {
        int32_t v;
        std::memcpy(&v, p, sizeof(v));
        return v;
      }
      default: {
        int64_t v;
        std::memcpy(&v, p, sizeof(v));
        return v;
      }
    }
  }
  uint64_t u = 0;
  for (uint32_t i = 0; i < width; i++) u |= uint64_t{p[i]} << (8 * i);
  if (width == 8) return static_cast<int64_t>(u);
  uint64_t sign = uint64_t{1} << (8 * width - 1);
  return static_cast<int64_t>((u ^ sign) - sign);
}

void StoreValue(uint8_t* p, uint32_t width, int64_t v) {
  auto u = static_cast<uint64_t>(v);
  for (uint32_t i = 0; i < width; i++) p[i] = static_cast<uint8_t>(u >> (8 * i));
}

uint8_t* Allocate(size_t n) {
  auto* buf = static_cast<uint8_t*>(std::malloc(n));
  if (buf == nullptr) throw std::bad_alloc();  // allocation failure aborts, as in Redis
  return buf;
}

}  // namespace

Intset::Intset() : buf_(Allocate(kHeaderSize)) {
  Store32(buf_, 2);
  Store32(buf_ + 4, 0);
}
Intset::~Intset() { std::free(buf_); }
Intset::Intset(Intset&& o) noexcept : buf_(o.buf_) { o.buf_ = nullptr; }
Intset& Intset::operator=(Intset&& o) noexcept {
  if (this != &o) {
    std::free(buf_);
    buf_ = o.buf_;
    o.buf_ = nullptr;
  }
  return *this;
}

Intset Intset::Clone() const {
  uint8_t* copy = Allocate(Bytes());
  std::memcpy(copy, buf_, Bytes());
  return Intset(copy);
}

bool Intset::Validate(std::string_view blob, bool deep) {
  const auto* p = reinterpret_cast<const uint8_t*>(blob.data());
  if (blob.size() < kHeaderSize) return false;
  uint32_t enc = Load32(p);
  if (enc != 2 && enc != 4 && enc != 8) return false;
  uint64_t len = Load32(p + 4);
  if (kHeaderSize + len * enc != blob.size()) return false;
  if (!deep) return true;
  if (len == 0) return false;
  for (uint64_t i = 1; i < len; i++) {
    if (LoadValue(p + kHeaderSize + (i - 1) * enc, enc) >=
        LoadValue(p + kHeaderSize + i * enc, enc)) {
      return false;
    }
  }
  return true;
}

std::optional<Intset> Intset::FromBlob(std::string_view blob) {
  if (!Validate(blob, true)) return std::nullopt;
  uint8_t* copy = Allocate(blob.size());
  std::memcpy(copy, blob.data(), blob.size());
  return Intset(copy);
}

std::string_view Intset::Blob() const { return {reinterpret_cast<const char*>(buf_), Bytes()}; }
size_t Intset::AllocatedBytes() const { return AllocationSize(buf_); }
size_t Intset::Size() const { return Load32(buf_ + 4); }
uint32_t Intset::Encoding() const { return Load32(buf_); }

int64_t Intset::At(size_t i) const {
  uint32_t enc = Encoding();
  return LoadValue(buf_ + kHeaderSize + i * enc, enc);
}

void Intset::Set(size_t i, int64_t v) {
  uint32_t enc = Encoding();
  StoreValue(buf_ + kHeaderSize + i * enc, enc, v);
}

void Intset::Resize(size_t len) {
  size_t n = kHeaderSize + len * Encoding();
  auto* grown = static_cast<uint8_t*>(std::realloc(buf_, n));
  if (grown == nullptr) throw std::bad_alloc();
  buf_ = grown;
}

bool Intset::Search(int64_t v, size_t* pos) const {
  size_t n = Size();
  // Fast paths for values outside the range: appends and prepends are common.
  if (n == 0 || v > Max()) {
    *pos = n;
    return false;
  }
  if (v < Min()) {
    *pos = 0;
    return false;
  }
  const uint32_t enc = Encoding();
  const uint8_t* values = buf_ + kHeaderSize;
  size_t lo = 0, hi = n;  // answer in [lo, hi)
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t cur = LoadValue(values + mid * enc, enc);
    if (cur == v) {
      *pos = mid;
      return true;
    }
    if (cur < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *pos = lo;
  return false;
}

// Widens every value to the encoding v needs, then adds v, which is necessarily below the
// minimum or above the maximum (it did not fit the old width), so it goes at one end.
void Intset::Upgrade(int64_t v) {
  uint32_t old_enc = Encoding();
  uint32_t new_enc = EncodingFor(v);
  size_t n = Size();
  Store32(buf_, new_enc);
  Resize(n + 1);
  size_t shift = v < 0 ? 1 : 0;
  // Back to front, so no value is overwritten before it is read.
  for (size_t i = n; i-- > 0;) {
    int64_t old = LoadValue(buf_ + kHeaderSize + i * old_enc, old_enc);
    StoreValue(buf_ + kHeaderSize + (i + shift) * new_enc, new_enc, old);
  }
  Store32(buf_ + 4, static_cast<uint32_t>(n + 1));
  Set(v < 0 ? 0 : n, v);
}

bool Intset::Add(int64_t v) {
  if (EncodingFor(v) > Encoding()) {
    Upgrade(v);
    return true;
  }
  size_t pos;
  if (Search(v, &pos)) return false;
  size_t n = Size();
  Resize(n + 1);
  uint32_t enc = Encoding();
  uint8_t* at = buf_ + kHeaderSize + pos * enc;
  std::memmove(at + enc, at, (n - pos) * enc);
  Store32(buf_ + 4, static_cast<uint32_t>(n + 1));
  Set(pos, v);
  return true;
}

bool Intset::Remove(int64_t v) {
  size_t pos;
  if (EncodingFor(v) > Encoding() || !Search(v, &pos)) return false;
  size_t n = Size();
  uint32_t enc = Encoding();
  uint8_t* at = buf_ + kHeaderSize + pos * enc;
  std::memmove(at, at + enc, (n - pos - 1) * enc);
  Store32(buf_ + 4, static_cast<uint32_t>(n - 1));
  Resize(n - 1);
  return true;
}

bool Intset::Contains(int64_t v) const {
  size_t pos;
  return EncodingFor(v) <= Encoding() && Search(v, &pos);
}

}  // namespace redistp
