// Table-driven CRC-64/Jones (see crc64.h), eight bytes per step ("slicing by 8"): table[k][b]
// is the register after byte b went through the reflected polynomial followed by k zero bytes,
// so the eight bytes of one little-endian word are folded in with eight independent lookups.
// RDB files are checked and written whole, so this runs over every byte a save or load moves.
#include "util/crc64.h"

#include <array>

namespace redistp {
namespace {

constexpr uint64_t kReflectedPoly = 0x95ac9329ac4bc9b5ULL;

using Tables = std::array<std::array<uint64_t, 256>, 8>;

constexpr Tables BuildTables() {
  Tables t{};
  for (uint64_t b = 0; b < 256; ++b) {
    uint64_t r = b;
    for (int bit = 0; bit < 8; ++bit) r = (r & 1) ? (r >> 1) ^ kReflectedPoly : r >> 1;
    t[0][b] = r;
  }
  for (size_t k = 1; k < 8; ++k) {
    for (size_t b = 0; b < 256; ++b) t[k][b] = t[0][t[k - 1][b] & 0xff] ^ (t[k - 1][b] >> 8);
  }
  return t;
}

constexpr Tables kTables = BuildTables();

uint64_t Byte(uint64_t crc, unsigned char c) { return kTables[0][(crc ^ c) & 0xff] ^ (crc >> 8); }

}  // namespace

uint64_t Crc64(uint64_t crc, std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t n = data.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word = 0;
    for (int i = 0; i < 8; ++i) word |= uint64_t{p[i]} << (8 * i);  // little-endian load
    crc ^= word;
    crc = kTables[7][crc & 0xff] ^ kTables[6][(crc >> 8) & 0xff] ^ kTables[5][(crc >> 16) & 0xff] ^
          kTables[4][(crc >> 24) & 0xff] ^ kTables[3][(crc >> 32) & 0xff] ^
          kTables[2][(crc >> 40) & 0xff] ^ kTables[1][(crc >> 48) & 0xff] ^ kTables[0][crc >> 56];
  }
  for (; n > 0; ++p, --n) crc = Byte(crc, *p);
  return crc;
}

}  // namespace redistp
