// Table-driven CRC-16/XMODEM (see crc16.h): one lookup per byte, most significant bit first.
// Keys are short, so the byte-at-a-time loop is the whole cost; the table is built at compile
// time from the polynomial.
#include "util/crc16.h"

#include <array>

namespace redistp {
namespace {

constexpr uint16_t kPoly = 0x1021;

constexpr std::array<uint16_t, 256> BuildTable() {
  std::array<uint16_t, 256> t{};
  for (unsigned b = 0; b < 256; ++b) {
    uint16_t r = static_cast<uint16_t>(b << 8);
    for (int bit = 0; bit < 8; ++bit) {
      r = static_cast<uint16_t>((r & 0x8000) ? (r << 1) ^ kPoly : r << 1);
    }
    t[b] = r;
  }
  return t;
}

constexpr std::array<uint16_t, 256> kTable = BuildTable();

}  // namespace

uint16_t Crc16(std::string_view data) {
  uint16_t crc = 0;
  for (unsigned char c : data) {
    crc = static_cast<uint16_t>((crc << 8) ^ kTable[((crc >> 8) ^ c) & 0xff]);
  }
  return crc;
}

int KeyHashSlot(std::string_view key) {
  size_t open = key.find('{');
  if (open != std::string_view::npos) {
    size_t close = key.find('}', open + 1);
    // A tag needs a non-empty body; otherwise the whole key is hashed.
    if (close != std::string_view::npos && close > open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  return Crc16(key) & (kClusterSlots - 1);
}

}  // namespace redistp
