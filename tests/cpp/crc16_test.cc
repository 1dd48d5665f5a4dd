// Unit tests for util/crc16: the check value of CRC-16/XMODEM, the bitwise definition, and
// hash slots (with and without hash tags) as Redis 7.0.15's CLUSTER KEYSLOT answered them.
#include "util/crc16.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace redistp {
namespace {

TEST(Crc16Test, CheckValue) { EXPECT_EQ(Crc16("123456789"), 0x31c3); }

TEST(Crc16Test, EmptyIsZero) { EXPECT_EQ(Crc16(""), 0); }

// The table against the definition, one bit at a time, over every single byte and a run of
// pseudo-random strings.
TEST(Crc16Test, TableEqualsBitByBit) {
  auto bitwise = [](std::string_view data) {
    uint16_t crc = 0;
    for (unsigned char c : data) {
      crc ^= static_cast<uint16_t>(c << 8);
      for (int bit = 0; bit < 8; ++bit) {
        crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
      }
    }
    return crc;
  };
  for (int b = 0; b < 256; ++b) {
    std::string one(1, static_cast<char>(b));
    EXPECT_EQ(Crc16(one), bitwise(one)) << b;
  }
  std::string data;
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < 64; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    data.push_back(static_cast<char>(x >> 56));
    EXPECT_EQ(Crc16(data), bitwise(data)) << i;
  }
}

// Each pair is a key and the slot Redis 7.0.15's CLUSTER KEYSLOT gave it.
TEST(Crc16Test, KeyHashSlotMatchesRedis) {
  const std::vector<std::pair<std::string, int>> cases = {
      {"", 0},
      {"foo", 12182},
      {"bar", 5061},
      {"123456789", 12739},
      {"{user1000}.following", 3443},
      {"{user1000}.followers", 3443},
      {"foo{}{bar}", 8363},     // the first '{' has an empty body: whole key
      {"foo{{bar}}zap", 4015},  // body "{bar"
      {"foo{bar}{zap}", 5061},  // "bar"
      {"{}", 15257},
      {"{", 4092},
      {"}", 12090},
      {"a{b", 13340},
      {"a}b{c}", 7365},
      {"{a", 10276},
      {"user:{}", 6865},
      {"{}{user}", 6164},
      {"x{y}", 12222},
  };
  for (const auto& [key, slot] : cases) EXPECT_EQ(KeyHashSlot(key), slot) << key;
}

TEST(Crc16Test, SlotIsAlwaysInRange) {
  std::string key;
  for (int i = 0; i < 1000; ++i) {
    key.push_back(static_cast<char>(i * 37));
    int slot = KeyHashSlot(key);
    EXPECT_GE(slot, 0);
    EXPECT_LT(slot, kClusterSlots);
  }
}

}  // namespace
}  // namespace redistp
