// Unit tests for types/hyperloglog: the HYLL bytes (checked against what Debian's redis-server
// 7.0.15 stores for the same additions), dense register packing, the sparse update and its
// promotions, sparse/dense agreement, the estimator, and corrupt bodies.
#include "types/hyperloglog.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
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

// A sparse HLL with a stale cache and the given body.
std::string Sparse(std::string_view body_hex) {
  return Unhex(
             "48594c4c0100000000000000000000"
             "80") +
         Unhex(body_hex);
}

std::vector<uint8_t> Registers(std::string hll) {
  EXPECT_TRUE(hll::SparseToDense(&hll));
  std::vector<uint8_t> regs(hll::kRegisters);
  const auto* p = reinterpret_cast<const uint8_t*>(hll.data()) + hll::kHeaderSize;
  for (int i = 0; i < hll::kRegisters; i++) regs[i] = hll::DenseGet(p, i);
  return regs;
}

TEST(HyperLogLogTest, NewHllIsOneXZero) {
  EXPECT_EQ(hll::NewSparse(), Unhex("48594c4c010000000000000000000000"
                                    "7fff"));
}

TEST(HyperLogLogTest, HashPlacesElementsAsRedis) {
  // PFADD h a b c in Redis 7.0: PFDEBUG DECODE says Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1.
  std::set<std::pair<uint32_t, int>> got;
  for (const char* e : {"a", "b", "c"}) {
    uint32_t index;
    const int count = hll::HashElement(e, &index);
    got.insert({index, count});
  }
  EXPECT_EQ(got, (std::set<std::pair<uint32_t, int>>{{8436, 1}, {12711, 2}, {15780, 1}}));
}

TEST(HyperLogLogTest, SparseBytesMatchRedis) {
  std::string h = hll::NewSparse();
  for (const char* e : {"a", "b", "c"}) {
    EXPECT_EQ(hll::Add(&h, e, 3000), hll::Update::kChanged);
  }
  EXPECT_EQ(hll::Add(&h, "a", 3000), hll::Update::kUnchanged);
  hll::InvalidateCache(reinterpret_cast<uint8_t*>(h.data()));
  // GET h after PFADD h a b c in Redis 7.0.15.
  EXPECT_EQ(h, Unhex("48594c4c01000000000000000000008060f38050b1844bfb80425a"));
  EXPECT_EQ(hll::DecodeSparse(h), "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603");
  uint64_t card;
  ASSERT_TRUE(hll::Count(h, &card));
  EXPECT_EQ(card, 3u);
}

TEST(HyperLogLogTest, ManyAdditionsMatchRedisLengthAndCount) {
  // PFADD h2 e0 .. e300 one at a time in Redis 7.0.15: STRLEN 715, PFCOUNT 303.
  std::string h = hll::NewSparse();
  for (int i = 0; i <= 300; i++) hll::Add(&h, "e" + std::to_string(i), 3000);
  EXPECT_EQ(h.size(), 715u);
  uint64_t card;
  ASSERT_TRUE(hll::Count(h, &card));
  EXPECT_EQ(card, 303u);
}

TEST(HyperLogLogTest, AdjacentEqualValuesMerge) {
  std::string h = hll::NewSparse();
  EXPECT_EQ(hll::Raise(&h, 0, 1, 3000), hll::Update::kChanged);
  EXPECT_EQ(hll::Raise(&h, 1, 1, 3000), hll::Update::kChanged);
  EXPECT_EQ(hll::DecodeSparse(h), "v:1,2 Z:16382");
  EXPECT_EQ(hll::Raise(&h, 3, 1, 3000), hll::Update::kChanged);
  EXPECT_EQ(hll::Raise(&h, 2, 1, 3000), hll::Update::kChanged);
  EXPECT_EQ(hll::DecodeSparse(h), "v:1,4 Z:16380");
  EXPECT_EQ(hll::Raise(&h, 4, 1, 3000), hll::Update::kChanged);
  EXPECT_EQ(hll::DecodeSparse(h), "v:1,4 v:1,1 Z:16379");
  EXPECT_EQ(hll::Raise(&h, 2, 3, 3000), hll::Update::kChanged);
  EXPECT_EQ(hll::DecodeSparse(h), "v:1,2 v:3,1 v:1,2 Z:16379");
  EXPECT_EQ(hll::Raise(&h, 2, 2, 3000), hll::Update::kUnchanged);
}

TEST(HyperLogLogTest, DenseRegistersKeepTheirNeighbours) {
  std::vector<uint8_t> regs(hll::kDenseBytes, 0);
  std::mt19937_64 rng(11);
  std::vector<uint8_t> expect(hll::kRegisters);
  for (int i = 0; i < hll::kRegisters; i++) {
    expect[i] = static_cast<uint8_t>(rng() & 63);
    hll::DensePut(regs.data(), i, expect[i]);
  }
  for (int i = 0; i < hll::kRegisters; i++) ASSERT_EQ(hll::DenseGet(regs.data(), i), expect[i]);
  hll::DensePut(regs.data(), hll::kRegisters - 1, 63);
  EXPECT_EQ(hll::DenseGet(regs.data(), hll::kRegisters - 1), 63);
  EXPECT_EQ(hll::DenseGet(regs.data(), hll::kRegisters - 2), expect[hll::kRegisters - 2]);
  EXPECT_EQ(hll::DenseRaise(regs.data(), 5, 0), hll::Update::kUnchanged);
}

TEST(HyperLogLogTest, SparseAndDenseAgree) {
  std::string sparse = hll::NewSparse();
  std::string dense = hll::NewSparse();
  ASSERT_TRUE(hll::SparseToDense(&dense));
  EXPECT_EQ(dense.size(), hll::kDenseSize);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 5000; i++) {
    const std::string e = std::to_string(rng());
    const hll::Update a = hll::Add(&sparse, e, static_cast<size_t>(-1));
    const hll::Update b = hll::Add(&dense, e, 0);
    ASSERT_EQ(a, b) << i;
    if (i % 500 == 0) {
      uint64_t c1, c2;
      ASSERT_TRUE(hll::Count(sparse, &c1));
      ASSERT_TRUE(hll::Count(dense, &c2));
      ASSERT_EQ(c1, c2) << i;
    }
  }
  EXPECT_EQ(hll::EncodingOf(sparse), hll::kSparse);
  EXPECT_EQ(Registers(sparse), Registers(dense));
  std::vector<uint8_t> max(hll::kRegisters, 0);
  ASSERT_TRUE(hll::MergeInto(max.data(), sparse));
  EXPECT_EQ(max, Registers(dense));
}

TEST(HyperLogLogTest, PromotesAtSizeLimitAndForLargeValues) {
  std::string h = hll::NewSparse();
  // A split of the XZERO needs 3 more bytes: 21 > 20 promotes.
  EXPECT_EQ(hll::Raise(&h, 100, 1, 20), hll::Update::kChanged);
  EXPECT_EQ(hll::EncodingOf(h), hll::kDense);
  EXPECT_EQ(Registers(h)[100], 1);

  h = hll::NewSparse();
  EXPECT_EQ(hll::Raise(&h, 100, 1, 21), hll::Update::kChanged);
  EXPECT_EQ(hll::EncodingOf(h), hll::kSparse);
  EXPECT_EQ(h.size(), 21u);

  // VAL holds 1..32: 33 goes dense whatever the size.
  EXPECT_EQ(hll::Raise(&h, 7, 32, 3000), hll::Update::kChanged);
  EXPECT_EQ(hll::EncodingOf(h), hll::kSparse);
  EXPECT_EQ(hll::Raise(&h, 7, 33, 3000), hll::Update::kChanged);
  EXPECT_EQ(hll::EncodingOf(h), hll::kDense);
  const std::vector<uint8_t> regs = Registers(h);
  EXPECT_EQ(regs[7], 33);
  EXPECT_EQ(regs[100], 1);
}

TEST(HyperLogLogTest, HeaderChecks) {
  const std::string ok = hll::NewSparse();
  EXPECT_TRUE(hll::IsHll(ok));
  EXPECT_FALSE(hll::IsHll(ok.substr(0, 15)));
  std::string bad = ok;
  bad[0] = 'X';
  EXPECT_FALSE(hll::IsHll(bad));
  bad = ok;
  bad[4] = 2;
  EXPECT_FALSE(hll::IsHll(bad));
  std::string dense = ok;
  ASSERT_TRUE(hll::SparseToDense(&dense));
  EXPECT_TRUE(hll::IsHll(dense));
  EXPECT_FALSE(hll::IsHll(dense + "x"));
  EXPECT_TRUE(hll::IsHll(ok.substr(0, 16)));  // an empty sparse body passes the header check
}

TEST(HyperLogLogTest, CacheBits) {
  std::string h = hll::NewSparse();
  auto* p = reinterpret_cast<uint8_t*>(h.data());
  EXPECT_TRUE(hll::CacheValid(p));
  hll::InvalidateCache(p);
  EXPECT_FALSE(hll::CacheValid(p));
  hll::StoreCardinality(p, 0x0102030405060708ULL);
  EXPECT_TRUE(hll::CacheValid(p));
  EXPECT_EQ(hll::CachedCardinality(p), 0x0102030405060708ULL);
  EXPECT_EQ(static_cast<uint8_t>(h[8]), 0x08);
}

TEST(HyperLogLogTest, CorruptSparseBodies) {
  const std::vector<std::string> corrupt = {
      Sparse(""),
      Sparse("7ffe"),    // 16383 registers
      Sparse("7fff00"),  // 16385
      Sparse("7f"),      // an XZERO cut short: 0x3f00 + 1 registers
      Sparse("7fff40"),  // a cut XZERO after a full one
      Sparse("7ffd83"),  // 16382 + a VAL of 4
      Sparse("7fff80"),  // a VAL after all 16384 registers
  };
  for (const std::string& h : corrupt) {
    uint64_t card;
    EXPECT_FALSE(hll::Count(h, &card));
    std::vector<uint8_t> max(hll::kRegisters, 0);
    EXPECT_FALSE(hll::MergeInto(max.data(), h));
    std::string copy = h;
    EXPECT_FALSE(hll::SparseToDense(&copy));
    EXPECT_EQ(copy, h);
  }
  std::string empty = Sparse("");
  EXPECT_EQ(hll::Add(&empty, "a", 3000), hll::Update::kCorrupt);
  EXPECT_EQ(empty, Sparse(""));
  EXPECT_EQ(hll::DecodeSparse(Sparse("7f")), "Z:16129");
}

TEST(HyperLogLogTest, EstimatorEdges) {
  int histo[hll::kHistogramSize] = {};
  histo[0] = hll::kRegisters;
  EXPECT_EQ(hll::Estimate(histo), 0u);
  uint8_t max[hll::kRegisters] = {};
  max[1] = 1;
  max[2] = 2;
  int h2[hll::kHistogramSize] = {};
  hll::RawHistogram(max, h2);
  EXPECT_EQ(hll::Estimate(h2), 2u);
}

// Random bodies behind valid headers: every reader stays inside the string (the views point
// at exactly sized heap copies, so AddressSanitizer sees any overread), and the writers either
// succeed or report corruption.
TEST(HyperLogLogTest, RandomBodiesAreReadSafely) {
  std::mt19937_64 rng(1234);
  for (int round = 0; round < 3000; round++) {
    const bool dense = round % 10 == 0;
    std::string h = hll::NewSparse().substr(0, hll::kHeaderSize);
    if (dense) h[4] = static_cast<char>(hll::kDense);
    const size_t body = dense ? hll::kDenseBytes : rng() % 64;
    for (size_t i = 0; i < body; i++) {
      // Mostly long zero runs, so that some bodies come close to 16384 registers.
      const uint64_t r = rng();
      h.push_back(static_cast<char>(r % 4 == 0 ? 0x7f : r >> 8));
    }
    auto copy = std::make_unique<char[]>(h.size());
    std::memcpy(copy.get(), h.data(), h.size());
    const std::string_view view(copy.get(), h.size());
    ASSERT_TRUE(hll::IsHll(view));
    uint64_t card;
    const bool counted = hll::Count(view, &card);
    std::vector<uint8_t> max(hll::kRegisters, 0);
    EXPECT_EQ(hll::MergeInto(max.data(), view), counted) << round;
    if (!dense) hll::DecodeSparse(view);
    std::string converted = h;
    EXPECT_EQ(hll::SparseToDense(&converted), counted) << round;
    std::string added = h;
    for (int i = 0; i < 20; i++) {
      const hll::Update u = hll::Add(&added, std::to_string(rng()), 3000);
      if (u == hll::Update::kCorrupt) break;
      ASSERT_TRUE(hll::IsHll(added));
    }
  }
}

TEST(HyperLogLogTest, SelfTestPasses) { EXPECT_EQ(hll::SelfTest(), ""); }

}  // namespace
}  // namespace redistp
