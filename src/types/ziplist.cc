#include "types/ziplist.h"

#include <cstddef>
#include <cstring>

namespace redistp {
namespace {

constexpr size_t kHeaderSize = 10;
constexpr uint8_t kEnd = 0xFF;
constexpr uint8_t kBigPrevLen = 0xFE;
constexpr uint16_t kCountUnknown = 0xFFFF;

uint64_t ReadLe(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Sign-extends the low `bytes` bytes of v.
int64_t SignExtend(uint64_t v, size_t bytes) {
  const unsigned shift = static_cast<unsigned>(64 - 8 * bytes);
  return static_cast<int64_t>(v << shift) >> shift;
}

// Decodes the entry at offset `at` of `zl` (of `size` bytes, the last one the terminator).
// Returns the entry's total size (prevlen + encoding + data), or 0 if it is malformed or would
// reach the terminator; *prevlen receives the entry's prevlen field.
size_t DecodeEntry(const uint8_t* zl, size_t size, size_t at, uint64_t* prevlen, ZiplistEntry* e) {
  const size_t limit = size - 1;  // entries end before the terminator
  size_t p = at;
  if (zl[p] < kBigPrevLen) {
    *prevlen = zl[p];
    p += 1;
  } else if (zl[p] == kBigPrevLen) {
    if (limit - p < 5) return 0;
    *prevlen = ReadLe(zl + p + 1, 4);
    p += 5;
  } else {
    return 0;
  }
  if (p >= limit) return 0;
  const uint8_t enc = zl[p];
  uint64_t data_len = 0;
  size_t head = 1;
  e->is_int = (enc >> 6) == 3;
  switch (enc >> 6) {
    case 0:
      data_len = enc & 0x3F;
      break;
    case 1:
      if (limit - p < 2) return 0;
      data_len = (static_cast<uint64_t>(enc & 0x3F) << 8) | zl[p + 1];
      head = 2;
      break;
    case 2:  // Redis reads any 10xxxxxx as the 32-bit form
      if (limit - p < 5) return 0;
      data_len = (static_cast<uint64_t>(zl[p + 1]) << 24) |
                 (static_cast<uint64_t>(zl[p + 2]) << 16) |
                 (static_cast<uint64_t>(zl[p + 3]) << 8) | zl[p + 4];
      head = 5;
      break;
    default:
      switch (enc) {
        case 0xC0:
          data_len = 2;
          break;
        case 0xD0:
          data_len = 4;
          break;
        case 0xE0:
          data_len = 8;
          break;
        case 0xF0:
          data_len = 3;
          break;
        case 0xFE:
          data_len = 1;
          break;
        default:
          if (enc < 0xF1 || enc > 0xFD) return 0;
          e->num = (enc & 0x0F) - 1;
      }
  }
  p += head;
  if (p > limit || limit - p < data_len) return 0;
  const uint8_t* data = zl + p;
  if (!e->is_int) {
    e->str = std::string_view(reinterpret_cast<const char*>(data), data_len);
  } else if (data_len > 0) {
    e->num = SignExtend(ReadLe(data, data_len), data_len);
  }
  return p + data_len - at;
}

}  // namespace

bool DecodeZiplist(std::string_view blob, std::vector<ZiplistEntry>* out) {
  out->clear();
  const auto* zl = reinterpret_cast<const uint8_t*>(blob.data());
  const size_t size = blob.size();
  if (size < kHeaderSize + 1 || ReadLe(zl, 4) != size || zl[size - 1] != kEnd) return false;
  const uint64_t tail = ReadLe(zl + 4, 4);
  const uint64_t count = ReadLe(zl + 8, 2);
  size_t at = kHeaderSize;
  size_t last = kHeaderSize;
  size_t prev_size = 0;
  while (zl[at] != kEnd) {
    ZiplistEntry e;
    uint64_t prevlen;
    const size_t n = DecodeEntry(zl, size, at, &prevlen, &e);
    if (n == 0 || prevlen != prev_size) return false;
    out->push_back(e);
    last = at;
    prev_size = n;
    at += n;
  }
  // The first terminator byte met at an entry boundary must be the blob's last byte.
  if (at != size - 1 || tail != last) return false;
  return count == kCountUnknown || count == out->size();
}

}  // namespace redistp
