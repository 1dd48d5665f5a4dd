// Table-driven CRC-64/Jones (see crc64.h): one 256-entry table, one byte per step. Payloads
// checked here are function libraries and DUMP values, so byte-at-a-time speed is plenty.
#include "util/crc64.h"

#include <array>

namespace redistp {
namespace {

constexpr uint64_t kReflectedPoly = 0x95ac9329ac4bc9b5ULL;

// table[b] is the CRC register after shifting byte b through eight reflected steps.
constexpr std::array<uint64_t, 256> BuildTable() {
  std::array<uint64_t, 256> table{};
  for (uint64_t b = 0; b < 256; ++b) {
    uint64_t r = b;
    for (int bit = 0; bit < 8; ++bit) r = (r & 1) ? (r >> 1) ^ kReflectedPoly : r >> 1;
    table[b] = r;
  }
  return table;
}

constexpr std::array<uint64_t, 256> kTable = BuildTable();

}  // namespace

uint64_t Crc64(uint64_t crc, std::string_view data) {
  for (unsigned char c : data) crc = kTable[(crc ^ c) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace redistp
