// The hash family through the in-process harness: what HINCRBYFLOAT and the no-op writes
// propagate (checked against Redis 7.0.15's AOF for the same commands), and the HashObject
// operations the commands added (types/hash.h, types/fair_random.h): allocation-free reads,
// the pre-write conversion, and the fairness of the random draws.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness.h"
#include "types/fair_random.h"
#include "types/hash.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(HashPropagation, IncrByFloatIsReplayedAsHsetOfItsResult) {
  Harness h;
  h.Run("a", {"HINCRBYFLOAT", "h", "f", "10.5"});
  h.Run("a", {"HINCRBYFLOAT", "h", "f", "0.1"});
  h.Run("a", {"HINCRBY", "h", "n", "3"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"HSET", "h", "f", "10.5"},
                                     {"HSET", "h", "f", "10.6"},
                                     {"HINCRBY", "h", "n", "3"}}));
}

TEST(HashPropagation, WritesThatChangeNothingAreNotPropagated) {
  Harness h;
  h.Run("a", {"HSET", "h", "a", "1"});
  h.Propagated();
  h.Run("a", {"HSETNX", "h", "a", "2"});
  h.Run("a", {"HDEL", "h", "zz"});
  h.Run("a", {"HDEL", "nokey", "a"});
  h.Run("a", {"HINCRBY", "h", "a", "x"});
  h.Run("a", {"HINCRBYFLOAT", "h", "a", "inf"});
  EXPECT_EQ(h.Propagated(), Records{});
  EXPECT_EQ(h.Run("a", {"HGET", "h", "a"}).Text(), "\"1\"");
}

TEST(HashPropagation, HdelThatEmptiesTheHashIsOneRecord) {
  Harness h;
  h.Run("a", {"HSET", "h", "a", "1", "b", "2"});
  h.Propagated();
  EXPECT_EQ(h.Run("a", {"HDEL", "h", "a", "b", "c"}).Text(), "(integer) 2");
  EXPECT_EQ(h.Propagated(), (Records{{"HDEL", "h", "a", "b", "c"}}));
  EXPECT_EQ(h.Run("a", {"EXISTS", "h"}).Text(), "(integer) 0");
}

Value MakeHash(int fields, const TypeLimits& limits = TypeLimits{}) {
  Value v = NewHashValue();
  for (int i = 0; i < fields; ++i) {
    HashOf(v).Set("f" + std::to_string(i), std::to_string(i * 7), limits);
  }
  return v;
}

TEST(HashObjectOps, GetViewFormatsIntegersIntoScratch) {
  for (bool big : {false, true}) {
    Value v = MakeHash(3);
    HashObject& h = HashOf(v);
    h.Set("neg", "-9223372036854775808", TypeLimits{});
    h.Set("text", "hello", TypeLimits{});
    if (big) h.ConvertToHashtable();
    char scratch[kMaxInt64Chars + 1];
    std::string_view out;
    ASSERT_TRUE(h.GetView("f2", scratch, &out));
    EXPECT_EQ(out, "14");
    ASSERT_TRUE(h.GetView("neg", scratch, &out));
    EXPECT_EQ(out, "-9223372036854775808");
    ASSERT_TRUE(h.GetView("text", scratch, &out));
    EXPECT_EQ(out, "hello");
    EXPECT_FALSE(h.GetView("nope", scratch, &out));
  }
}

TEST(HashObjectOps, PrepareWriteConvertsOnlyForLongArguments) {
  TypeLimits limits;
  limits.hash_max_listpack_value = 8;
  Value v = MakeHash(3, limits);
  HashObject& h = HashOf(v);
  h.PrepareWrite(8, 100, limits);
  EXPECT_EQ(h.encoding(), HashObject::Encoding::kListpack);
  h.PrepareWrite(9, 9, limits);
  EXPECT_EQ(h.encoding(), HashObject::Encoding::kHashtable);
  EXPECT_EQ(h.size(), 3u);
  Value w = MakeHash(3, limits);
  HashOf(w).PrepareWrite(1, Listpack::kMaxSafeBytes, limits);  // the blob would pass 1 GB
  EXPECT_EQ(HashOf(w).encoding(), HashObject::Encoding::kHashtable);
}

TEST(HashObjectOps, UpdateOverALoweredEntryLimitConverts) {
  Value v = MakeHash(5);
  TypeLimits lowered;
  lowered.hash_max_listpack_entries = 4;
  EXPECT_FALSE(HashOf(v).Set("f1", "x", lowered));
  EXPECT_EQ(HashOf(v).encoding(), HashObject::Encoding::kHashtable);
}

// Pearson's statistic of `counts` against `total` draws spread evenly over counts.size().
double ChiSquare(const std::map<std::string, int>& counts, size_t universe, double total) {
  const double expected = total / static_cast<double>(universe);
  double chi = 0;
  for (const auto& [name, seen] : counts) chi += (seen - expected) * (seen - expected) / expected;
  chi += static_cast<double>(universe - counts.size()) * expected;  // fields never drawn
  return chi;
}

// The value a fair draw's statistic exceeds with probability about 1e-9 (z = 6) for `df`
// degrees of freedom, by the Wilson-Hilferty approximation: 208.6 for 99.
double ChiBound(size_t df) {
  const double d = static_cast<double>(df);
  const double t = 1 - 2 / (9 * d) + 6 * std::sqrt(2 / (9 * d));
  return d * t * t * t;
}

// 100 fields: 99 degrees of freedom.
const double kChiBound = ChiBound(99);

TEST(HashObjectOps, RandomPairsAreUniformInBothEncodings) {
  for (bool big : {false, true}) {
    Value v = MakeHash(100);
    if (big) HashOf(v).ConvertToHashtable();
    std::map<std::string, int> counts;
    HashOf(v).RandomPairs(100000, [&](std::string_view f, std::string_view value) {
      ++counts[std::string(f)];
      EXPECT_EQ(value, std::to_string(std::stoi(std::string(f.substr(1))) * 7));
    });
    EXPECT_LT(ChiSquare(counts, 100, 100000), kChiBound) << (big ? "hashtable" : "listpack");
  }
}

TEST(HashObjectOps, DistinctRandomPairsNeverRepeatAndAreUniform) {
  for (bool big : {false, true}) {
    for (size_t k : {1, 10, 33, 34, 99}) {
      Value v = MakeHash(100);
      if (big) HashOf(v).ConvertToHashtable();
      std::map<std::string, int> counts;
      const size_t rounds = 100000 / k;
      for (size_t r = 0; r < rounds; ++r) {
        std::set<std::string> sample;
        HashOf(v).DistinctRandomPairs(
            k, [&](std::string_view f, std::string_view) { sample.emplace(f); });
        ASSERT_EQ(sample.size(), k);
        for (const std::string& f : sample) ++counts[f];
      }
      EXPECT_LT(ChiSquare(counts, 100, static_cast<double>(rounds * k)), kChiBound)
          << (big ? "hashtable" : "listpack") << " k=" << k;
    }
  }
}

// A table whose nodes share buckets unevenly: HashTable::Random favours nodes alone in their
// bucket, FairRandomNode does not. Also while the table is rehashing.
TEST(FairRandomNode, UniformWhateverTheChainLengths) {
  for (int extra : {0, 37}) {
    Value v = MakeHash(100);
    HashObject& h = HashOf(v);
    h.ConvertToHashtable();
    // Growing past a power of two starts an incremental rehash that the draws run across.
    for (int i = 0; i < extra; ++i) h.Set("x" + std::to_string(i), "1", TypeLimits{});
    for (int i = 0; i < extra; ++i) h.Delete("x" + std::to_string(i));
    std::map<std::string, int> counts;
    h.RandomPairs(100000, [&](std::string_view f, std::string_view) { ++counts[std::string(f)]; });
    EXPECT_EQ(counts.size(), 100u);
    EXPECT_LT(ChiSquare(counts, 100, 100000), kChiBound) << "extra " << extra;
  }
}

TEST(FairRandomNode, UniformWhileTheTableRehashes) {
  HashTable<FieldTableTraits> table;
  std::vector<std::string> names;
  for (int i = 0; !table.rehashing() || table.size() < 100; ++i) {
    names.push_back("n" + std::to_string(i));
    table.Insert(FieldNode::Create(names.back(), "v"));
    ASSERT_LT(i, 100000);
  }
  std::map<std::string, int> counts;
  // Paused (as while a forked child runs), draws take no rehash steps: the table stays split.
  SetHashTableResizeAllowed(false);
  for (int i = 0; i < 100000; ++i) ++counts[std::string(FairRandomNode(table)->field())];
  SetHashTableResizeAllowed(true);
  ASSERT_TRUE(table.rehashing());
  EXPECT_EQ(counts.size(), names.size());
  EXPECT_LT(ChiSquare(counts, names.size(), 100000), ChiBound(names.size() - 1));
  // Otherwise each draw moves the rehash on, as a lookup does, until it is done.
  for (int i = 0; i < 100000 && table.rehashing(); ++i) FairRandomNode(table);
  EXPECT_FALSE(table.rehashing());
}

// A draw moves a rehash under way 16 buckets on, not one as a lookup does, so a set drained by
// SPOP spends little of its time split across two arrays (fair_random.h).
TEST(FairRandomNode, EachDrawMovesARehashSixteenBucketsOn) {
  HashTable<FieldTableTraits> table;
  for (int i = 0; table.buckets() < 2048 || table.rehashing(); ++i) {
    table.Insert(FieldNode::Create("g" + std::to_string(i), "v"));
    while (table.rehashing()) table.Rehash(100);
    ASSERT_LT(i, 100000);
  }
  // Fill table 0 to its load of 1, then one more insert starts the grow to 4096.
  for (int i = static_cast<int>(table.size()); !table.rehashing(); ++i) {
    table.Insert(FieldNode::Create("g" + std::to_string(i), "v"));
  }
  ASSERT_EQ(table.buckets(), 2048u + 4096u);
  int draws = 0;
  while (table.rehashing()) {
    ASSERT_NE(FairRandomNode(table), nullptr);
    ASSERT_LE(++draws, 2048 / 16) << "a draw moved fewer than 16 buckets";
  }
  EXPECT_GT(draws, 2048 / 16 / 2) << "each draw moved no more than 16 non-empty buckets";
}

// Blocks are as wide as keeps about one node per block: one bucket at a full table, eight
// (one cache line of bucket pointers) once the table is sparse.
TEST(FairRandomNode, BlockWidthFollowsTheLoad) {
  HashTable<FieldTableTraits> table;
  for (int i = 0; i < 1024; ++i) table.Insert(FieldNode::Create("w" + std::to_string(i), "v"));
  while (table.rehashing()) table.Rehash(100);
  ASSERT_EQ(table.buckets(), 1024u);
  EXPECT_EQ(table.RandomBlockWidth(), 1u);
  EXPECT_EQ(table.BlockCount(1), 1024u);
  int next = 0;
  SetHashTableResizeAllowed(false);  // hold the size while the load falls
  auto drain_to = [&](size_t n) {
    while (table.size() > n) FieldTableTraits::Destroy(table.Unlink("w" + std::to_string(next++)));
  };
  drain_to(512);
  EXPECT_EQ(table.RandomBlockWidth(), 2u);
  drain_to(300);
  EXPECT_EQ(table.RandomBlockWidth(), 2u);
  drain_to(256);
  EXPECT_EQ(table.RandomBlockWidth(), 4u);
  drain_to(100);
  EXPECT_EQ(table.RandomBlockWidth(), 8u);
  EXPECT_EQ(table.BlockCount(8), 128u);
  drain_to(3);
  EXPECT_EQ(table.RandomBlockWidth(), 8u) << "never wider than a cache line";
  SetHashTableResizeAllowed(true);
  std::set<std::string> drawn;
  for (int i = 0; i < 1000; ++i) drawn.insert(std::string(FairRandomNode(table)->field()));
  EXPECT_EQ(drawn.size(), 3u);
}

// While a forked child runs a table grows only past a load of 5, so blocks of one bucket can
// hold more than 8 nodes: such a block's nodes are drawn with a smaller chance, but drawn.
TEST(FairRandomNode, OversizedBlocksStillYieldTheirNodes) {
  HashTable<FieldTableTraits> table;
  for (int i = 0; i < 64; ++i) table.Insert(FieldNode::Create("o" + std::to_string(i), "v"));
  while (table.rehashing()) table.Rehash(100);
  SetHashTableResizeAllowed(false);
  for (int i = 64; i < 64 * 5; ++i) table.Insert(FieldNode::Create("o" + std::to_string(i), "v"));
  ASSERT_EQ(table.buckets(), 64u);
  size_t longest = 0;
  for (size_t b = 0; b < 64; ++b) longest = std::max(longest, table.ChainLength(0, b));
  ASSERT_GT(longest, 8u) << "no oversized chain at a load of 5";
  std::map<std::string, int> counts;
  for (int i = 0; i < 200000; ++i) ++counts[std::string(FairRandomNode(table)->field())];
  SetHashTableResizeAllowed(true);
  EXPECT_EQ(counts.size(), 320u);
}

// Mass deletion leaves a sparse table until the owner's cron shrinks it: a draw then takes
// dozens of rounds, tried in prefetched batches (fair_random.h), and stays uniform.
TEST(FairRandomNode, UniformInASparseTable) {
  HashTable<FieldTableTraits> table;
  for (int i = 0; i < 8192; ++i) table.Insert(FieldNode::Create("n" + std::to_string(i), "v"));
  while (table.rehashing()) table.Rehash(100);
  for (int i = 500; i < 8192; ++i) FieldTableTraits::Destroy(table.Unlink("n" + std::to_string(i)));
  ASSERT_EQ(table.size(), 500u);
  ASSERT_GE(table.buckets(), 8192u);  // load 1/16 or less: about 128 rounds per draw
  std::map<std::string, int> counts;
  for (int i = 0; i < 200000; ++i) ++counts[std::string(FairRandomNode(table)->field())];
  EXPECT_EQ(counts.size(), 500u);
  EXPECT_LT(ChiSquare(counts, 500, 200000), ChiBound(499));
}

TEST(FairRandomNode, EmptyTableAndSingleNode) {
  HashTable<FieldTableTraits> table;
  EXPECT_EQ(FairRandomNode(table), nullptr);
  table.Insert(FieldNode::Create("only", "v"));
  EXPECT_EQ(FairRandomNode(table)->field(), "only");
}

}  // namespace
}  // namespace redistp::testing
