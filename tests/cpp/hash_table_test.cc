// Unit tests for the HashTable template with node-based storage (BoxedTraits over std::string)
// and with the intrusive member/field nodes of the set and hash encodings: lookups at scale,
// growth and shrink, the SCAN guarantee while the table resizes, Random() reaching every
// element, Swap, Clear and the resize pause. The keyspace instance is covered by dict_test.cc.
#include "util/hash_table.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "types/member_nodes.h"
#include "util/hash.h"

namespace redistp {
namespace {

struct StringKey {
  using Key = std::string_view;
  static std::string_view KeyOf(const std::string& s) { return s; }
  static uint64_t Hash(std::string_view k) { return HashBytes(k); }
  static bool Equal(const std::string& s, std::string_view k) { return s == k; }
};
using StringTraits = BoxedTraits<std::string, StringKey>;
using StringTable = HashTable<StringTraits>;

void FinishRehash(StringTable& t) {
  for (int i = 0; i < 1000000 && t.Rehash(100); ++i) {
  }
  ASSERT_FALSE(t.rehashing());
}

TEST(HashTableTest, BoxedInsertFindUnlinkAtScale) {
  StringTable t;
  EXPECT_EQ(t.Find("x"), nullptr);
  EXPECT_EQ(t.Random(), nullptr);
  const int n = 50000;
  for (int i = 0; i < n; ++i) {
    std::string k = "k" + std::to_string(i);
    ASSERT_EQ(t.Find(k), nullptr);
    t.Insert(StringTraits::Make(k));
  }
  EXPECT_EQ(t.size(), static_cast<size_t>(n));
  FinishRehash(t);
  EXPECT_GE(t.buckets(), static_cast<size_t>(n));  // grew at load 1
  EXPECT_EQ(t.BucketBytes(), t.buckets() * sizeof(void*));
  for (int i = 0; i < n; ++i) {
    auto* node = t.Find("k" + std::to_string(i));
    ASSERT_NE(node, nullptr);
    ASSERT_EQ(node->value, "k" + std::to_string(i));
  }
  for (int i = 0; i < n; i += 2) {
    auto* node = t.Unlink("k" + std::to_string(i));
    ASSERT_NE(node, nullptr);
    StringTraits::Destroy(node);
  }
  EXPECT_EQ(t.Unlink("k0"), nullptr);
  EXPECT_EQ(t.size(), static_cast<size_t>(n / 2));
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(t.Find("k" + std::to_string(i)) != nullptr, i % 2 == 1) << i;
  }
}

TEST(HashTableTest, ShrinksWhenSparseAndPauseHoldsTheSize) {
  StringTable t;
  for (int i = 0; i < 10000; ++i) t.Insert(StringTraits::Make("s" + std::to_string(i)));
  FinishRehash(t);
  size_t big = t.buckets();
  for (int i = 0; i < 9950; ++i) StringTraits::Destroy(t.Unlink("s" + std::to_string(i)));
  SetHashTableResizeAllowed(false);
  t.MaybeShrink();
  EXPECT_FALSE(t.rehashing());
  EXPECT_EQ(t.buckets(), big);
  SetHashTableResizeAllowed(true);
  t.MaybeShrink();
  EXPECT_TRUE(t.rehashing());
  FinishRehash(t);
  EXPECT_LT(t.buckets(), big);
  EXPECT_GE(t.buckets(), t.size());
  for (int i = 9950; i < 10000; ++i) ASSERT_NE(t.Find("s" + std::to_string(i)), nullptr);
}

// Every element present for the whole scan is reported, while the table grows (and, in the
// second half, shrinks) between steps.
TEST(HashTableTest, ScanReturnsEveryStableElementAcrossResizes) {
  for (bool shrink : {false, true}) {
    StringTable t;
    const int stable = 3000;
    for (int i = 0; i < stable; ++i) t.Insert(StringTraits::Make("stable" + std::to_string(i)));
    int churn = 0;
    if (shrink) {
      for (int i = 0; i < 30000; ++i) t.Insert(StringTraits::Make("tmp" + std::to_string(i)));
      FinishRehash(t);
    }
    std::unordered_map<std::string, int> seen;
    uint64_t cursor = 0;
    int steps = 0;
    do {
      cursor = t.Scan(cursor, [&](StringTraits::Node* n) { ++seen[n->value]; });
      if (shrink) {
        for (int k = 0; k < 400 && churn < 30000; ++k, ++churn) {
          StringTraits::Destroy(t.Unlink("tmp" + std::to_string(churn)));
        }
        t.MaybeShrink();
      } else {
        for (int k = 0; k < 50 && churn < 20000; ++k)
          t.Insert(StringTraits::Make("new" + std::to_string(churn++)));
      }
      ASSERT_LT(++steps, 10000000);
    } while (cursor != 0);
    for (int i = 0; i < stable; ++i) {
      ASSERT_GE(seen["stable" + std::to_string(i)], 1) << "shrink=" << shrink << " i=" << i;
    }
  }
}

TEST(HashTableTest, ScanCallbackMayUnlinkTheGivenNodeWhileRehashing) {
  StringTable t;
  // 1025 elements: the last insertion starts growing 1024 buckets to 2048, so the scan below
  // begins in the middle of a rehash, and the callback's Unlink calls must not advance it.
  for (int i = 0; i < 1025; ++i) t.Insert(StringTraits::Make("d" + std::to_string(i)));
  ASSERT_TRUE(t.rehashing());
  std::unordered_map<std::string, int> seen;
  uint64_t cursor = 0;
  do {
    cursor = t.Scan(cursor, [&](StringTraits::Node* n) {
      std::string key = n->value;
      ++seen[key];
      if (std::stoi(key.substr(1)) % 2 == 0) StringTraits::Destroy(t.Unlink(key));
    });
  } while (cursor != 0);
  for (int i = 0; i < 1025; ++i) ASSERT_GE(seen["d" + std::to_string(i)], 1) << i;
  EXPECT_EQ(t.size(), 512u);
}

TEST(HashTableTest, RandomReachesEveryElement) {
  StringTable t;
  for (int i = 0; i < 64; ++i) t.Insert(StringTraits::Make("r" + std::to_string(i)));
  std::set<std::string> seen;
  for (int i = 0; i < 20000 && seen.size() < 64; ++i) seen.insert(t.Random()->value);
  EXPECT_EQ(seen.size(), 64u);
}

TEST(HashTableTest, SwapAndClear) {
  StringTable a, b;
  for (int i = 0; i < 100; ++i) a.Insert(StringTraits::Make("a" + std::to_string(i)));
  b.Insert(StringTraits::Make("b"));
  a.Swap(b);
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(b.size(), 100u);
  EXPECT_NE(a.Find("b"), nullptr);
  EXPECT_NE(b.Find("a7"), nullptr);
  int taken = 0;
  b.Clear([&](StringTraits::Node* n) {
    ++taken;
    StringTraits::Destroy(n);
  });
  EXPECT_EQ(taken, 100);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.buckets(), 0u);
  EXPECT_EQ(b.Find("a7"), nullptr);
}

TEST(HashTableTest, MemberAndFieldNodes) {
  HashTable<MemberTableTraits> set;
  HashTable<FieldTableTraits> hash;
  std::string odd("a\0b\xff", 4);
  for (const std::string& m : {std::string(), std::string("x"), odd}) {
    set.Insert(MemberNode::Create(m));
    hash.Insert(FieldNode::Create(m, "v" + m));
  }
  for (const std::string& m : {std::string(), std::string("x"), odd}) {
    ASSERT_NE(set.Find(m), nullptr);
    EXPECT_EQ(set.Find(m)->member(), m);
    EXPECT_EQ(set.Find(m)->AllocSize(), 12 + m.size());
    ASSERT_NE(hash.Find(m), nullptr);
    EXPECT_EQ(hash.Find(m)->value(), "v" + m);
  }
  EXPECT_EQ(set.Find("a"), nullptr);
  hash.Find("x")->SetValue("vy");
  EXPECT_EQ(hash.Find("x")->value(), "vy");
  EXPECT_EQ(hash.Find("x")->field(), "x");
  MemberNode::Destroy(set.Unlink("x"));
  EXPECT_EQ(set.Find("x"), nullptr);
  EXPECT_EQ(set.size(), 2u);
}

}  // namespace
}  // namespace redistp
