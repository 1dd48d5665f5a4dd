// Unit tests for util/crc64: the check value of CRC-64/Jones, values Redis 7.0.15 put in real
// FUNCTION DUMP payloads, incremental use, and the zero-prefix property.
#include "util/crc64.h"

#include <gtest/gtest.h>

#include <string>

namespace redistp {
namespace {

TEST(Crc64Test, CheckValue) { EXPECT_EQ(Crc64(0, "123456789"), 0xe9c6d914c4b8d9caULL); }

TEST(Crc64Test, EmptyInputKeepsTheRegister) {
  EXPECT_EQ(Crc64(0, ""), 0u);
  EXPECT_EQ(Crc64(0x1234, ""), 0x1234u);
}

// Redis 7.0.15 answers FUNCTION DUMP with no library loaded: the RDB version 10 as two bytes
// little-endian, then the CRC of those two bytes, 8 bytes little-endian.
TEST(Crc64Test, EmptyFunctionDumpTrailer) {
  EXPECT_EQ(Crc64(0, std::string("\x0a\x00", 2)), 0xdaa27f0f405c9b5dULL);
}

TEST(Crc64Test, IncrementalEqualsWhole) {
  std::string data = "#!lua name=lib\nredis.register_function('f', function() return 1 end)";
  for (size_t cut = 0; cut <= data.size(); ++cut) {
    uint64_t crc =
        Crc64(Crc64(0, std::string_view(data).substr(0, cut)), std::string_view(data).substr(cut));
    EXPECT_EQ(crc, Crc64(0, data)) << cut;
  }
}

// The word-at-a-time loop against the definition, one bit at a time, over every length up to
// a few words, any alignment and any starting register.
TEST(Crc64Test, EightBytesAtATimeEqualsBitByBit) {
  auto bitwise = [](uint64_t crc, std::string_view data) {
    for (unsigned char c : data) {
      crc ^= c;
      for (int bit = 0; bit < 8; ++bit)
        crc = (crc & 1) ? (crc >> 1) ^ 0x95ac9329ac4bc9b5ULL : crc >> 1;
    }
    return crc;
  };
  std::string data;
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < 80; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    data.push_back(static_cast<char>(x >> 56));
  }
  for (size_t from = 0; from < 8; ++from) {
    for (size_t len = 0; from + len <= data.size(); ++len) {
      std::string_view piece = std::string_view(data).substr(from, len);
      EXPECT_EQ(Crc64(0, piece), bitwise(0, piece)) << from << "+" << len;
      EXPECT_EQ(Crc64(x, piece), bitwise(x, piece)) << from << "+" << len;
    }
  }
}

TEST(Crc64Test, LeadingZeroBytesDoNotChangeIt) {
  EXPECT_EQ(Crc64(0, std::string("\0\0\0abc", 6)), Crc64(0, "abc"));
  EXPECT_NE(Crc64(0, std::string("abc\0", 4)), Crc64(0, "abc"));
}

TEST(Crc64Test, EveryBitMatters) {
  std::string data = "payload";
  uint64_t base = Crc64(0, data);
  for (size_t i = 0; i < data.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = data;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      EXPECT_NE(Crc64(0, flipped), base) << i << ":" << bit;
    }
  }
}

}  // namespace
}  // namespace redistp
