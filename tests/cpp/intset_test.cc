// Unit tests for types/intset: Redis's byte format (blobs from DUMP of Debian's redis-server),
// upgrades, validation of corrupted blobs, a randomized comparison with std::set, and the
// memory figure per element.
#include "types/intset.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace redistp {
namespace {

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

TEST(IntsetTest, MatchesRedisBytes) {
  // SADD s 1 2 3 and SADD s2 1 70000 -5 in Redis 7.0.15.
  Intset a;
  for (int64_t v : {3, 1, 2}) EXPECT_TRUE(a.Add(v));
  EXPECT_EQ(a.Blob(), Unhex("02000000"
                            "03000000"
                            "010002000300"));
  Intset b;
  for (int64_t v : {1, 70000, -5}) EXPECT_TRUE(b.Add(v));
  EXPECT_EQ(b.Blob(), Unhex("04000000"
                            "03000000"
                            "fbffffff"
                            "01000000"
                            "70110100"));
  auto loaded = Intset::FromBlob(b.Blob());
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->At(0), -5);
  EXPECT_EQ(loaded->At(2), 70000);
}

TEST(IntsetTest, UpgradesKeepOrderAtBothEnds) {
  Intset s;
  for (int64_t v : {5, -3, 100}) s.Add(v);
  EXPECT_EQ(s.Encoding(), 2u);
  s.Add(INT64_C(-5000000000));  // wider and negative: goes first
  EXPECT_EQ(s.Encoding(), 8u);
  EXPECT_EQ(s.Min(), INT64_C(-5000000000));
  s.Add(INT64_MAX);
  EXPECT_EQ(s.Max(), INT64_MAX);
  std::vector<int64_t> got;
  for (size_t i = 0; i < s.Size(); i++) got.push_back(s.At(i));
  EXPECT_EQ(got, (std::vector<int64_t>{INT64_C(-5000000000), -3, 5, 100, INT64_MAX}));
  EXPECT_FALSE(s.Add(5));
  EXPECT_TRUE(s.Remove(INT64_MAX));
  EXPECT_EQ(s.Encoding(), 8u);  // never downgrades, as Redis
  EXPECT_FALSE(s.Contains(INT64_MAX));
  Intset narrow;
  narrow.Add(1);
  EXPECT_FALSE(narrow.Remove(INT64_C(1) << 40));
  EXPECT_FALSE(narrow.Contains(INT64_C(1) << 40));
  narrow.Add(INT32_MIN);
  EXPECT_EQ(narrow.Encoding(), 4u);
  EXPECT_EQ(narrow.Min(), INT32_MIN);
}

TEST(IntsetTest, ValidationRejectsBadBlobs) {
  std::string good = Unhex(
      "02000000"
      "03000000"
      "010002000300");
  EXPECT_TRUE(Intset::Validate(good, true));
  auto with = [&](size_t at, uint8_t byte) {
    std::string b = good;
    b[at] = static_cast<char>(byte);
    return b;
  };
  EXPECT_FALSE(Intset::Validate("", false));
  EXPECT_FALSE(Intset::Validate(good.substr(0, 7), false));
  EXPECT_FALSE(Intset::Validate(with(0, 3), false));     // bad encoding
  EXPECT_FALSE(Intset::Validate(with(4, 4), false));     // length beyond blob
  EXPECT_FALSE(Intset::Validate(with(7, 0x80), false));  // huge length
  EXPECT_FALSE(Intset::Validate(with(10, 1), true));     // 1, 1, 3: not strictly ascending
  EXPECT_TRUE(Intset::Validate(with(10, 1), false));     // shallow does not look
  EXPECT_FALSE(Intset::Validate(Unhex("0200000000000000"), true));  // empty
  EXPECT_FALSE(Intset::FromBlob(with(12, 0)).has_value());
}

TEST(IntsetTest, RandomOperationsMatchStdSet) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 20; round++) {
    Intset s;
    std::set<int64_t> model;
    int width = round % 3;  // values mostly of one width, occasionally wider
    for (int step = 0; step < 1500; step++) {
      int64_t v;
      uint64_t r = rng();
      if (r % 50 == 0) width = std::min(width + 1, 2);
      if (width == 0)
        v = static_cast<int16_t>(r) % 300;
      else if (width == 1)
        v = static_cast<int32_t>(r);
      else
        v = static_cast<int64_t>(r);
      if (rng() % 3 == 0) {
        EXPECT_EQ(s.Remove(v), model.erase(v) == 1);
      } else {
        EXPECT_EQ(s.Add(v), model.insert(v).second);
      }
      ASSERT_EQ(s.Size(), model.size());
      EXPECT_EQ(s.Contains(v), model.count(v) == 1);
    }
    size_t i = 0;
    for (int64_t v : model) ASSERT_EQ(s.At(i++), v);
    if (!model.empty()) {
      ASSERT_TRUE(Intset::Validate(s.Blob(), true));
      EXPECT_EQ(model.count(s.Random(rng())), 1u);
      auto copy = Intset::FromBlob(s.Blob());
      ASSERT_TRUE(copy.has_value());
      EXPECT_EQ(copy->Blob(), s.Blob());
    }
  }
}

TEST(IntsetTest, RandomCorruptionNeverBreaksValidation) {
  std::mt19937_64 rng(3);
  Intset s;
  for (int i = 0; i < 40; i++) s.Add(i * 977 - 20000);
  std::string blob(s.Blob());
  for (int round = 0; round < 5000; round++) {
    std::string b = blob;
    b[rng() % b.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) b.resize(rng() % b.size());
    auto loaded = Intset::FromBlob(b);
    if (!loaded) continue;
    for (size_t i = 1; i < loaded->Size(); i++) ASSERT_LT(loaded->At(i - 1), loaded->At(i));
  }
}

TEST(IntsetTest, MemoryPerElementFigure) {
  Intset s16, s64;
  for (int i = 0; i < 512; i++) {
    s16.Add(i * 3);
    s64.Add(INT64_C(1) << 40 | i);
  }
  std::printf("[ figure ] intset: %.2f bytes/element int16, %.2f int64 (512 elements)\n",
              static_cast<double>(s16.AllocatedBytes()) / 512,
              static_cast<double>(s64.AllocatedBytes()) / 512);
  EXPECT_LE(s16.AllocatedBytes(), 8 + 512 * 2 + 1024u);
}

}  // namespace
}  // namespace redistp
