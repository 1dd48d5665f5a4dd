// Unit tests for Dict: lookups at scale, incremental growth and shrink, Random(), and the SCAN
// guarantee (every key present for the whole scan is reported at least once) while the table
// resizes between Scan calls.
#include "db/dict.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace redistp {
namespace {

std::string Key(const std::string& prefix, int i) { return prefix + std::to_string(i); }

Entry* NewEntry(const std::string& key) { return Entry::Create(key, Value::String(key)); }

void InsertKey(Dict& d, const std::string& key) {
  ASSERT_EQ(d.Find(key), nullptr) << key;
  d.Insert(NewEntry(key));
}

// Unlinks and frees a key; true if it was present.
bool RemoveKey(Dict& d, const std::string& key) {
  Entry* e = d.Unlink(key);
  if (e == nullptr) return false;
  EXPECT_EQ(e->key(), key);
  Entry::Destroy(e);
  return true;
}

void FinishRehash(Dict& d) {
  for (int i = 0; i < 10000000 && d.Rehash(100); ++i) {
  }
  ASSERT_FALSE(d.rehashing());
}

// Runs a full SCAN, calling `between` before each step after the first. Returns how many
// times each key was reported. Fails if the scan does not end within max_steps calls.
std::unordered_map<std::string, int> FullScan(Dict& d, const std::function<void()>& between,
                                              size_t max_steps = 10000000) {
  std::unordered_map<std::string, int> seen;
  uint64_t cursor = 0;
  size_t steps = 0;
  do {
    if (steps > 0 && between) between();
    cursor = d.Scan(cursor, [&](Entry* e) { ++seen[std::string(e->key())]; });
    ++steps;
    EXPECT_LE(steps, max_steps) << "scan did not terminate";
    if (steps > max_steps) break;
  } while (cursor != 0);
  return seen;
}

TEST(DictTest, EmptyDict) {
  Dict d;
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d.Find("x"), nullptr);
  EXPECT_EQ(d.Unlink("x"), nullptr);
  EXPECT_EQ(d.Random(), nullptr);
  EXPECT_EQ(d.Scan(0, [](Entry*) { FAIL() << "nothing to visit"; }), 0u);
  EXPECT_FALSE(d.rehashing());
}

TEST(DictTest, InsertFindUnlinkAtScale) {
  constexpr int kKeys = 100000;
  Dict d;
  for (int i = 0; i < kKeys; ++i) d.Insert(NewEntry(Key("k:", i)));
  EXPECT_EQ(d.size(), static_cast<size_t>(kKeys));
  for (int i = 0; i < kKeys; ++i) {
    Entry* e = d.Find(Key("k:", i));
    ASSERT_NE(e, nullptr) << i;
    ASSERT_EQ(e->key(), Key("k:", i));
    ASSERT_EQ(e->value.ToString(), Key("k:", i));
  }
  EXPECT_EQ(d.Find("k:-1"), nullptr);
  EXPECT_EQ(d.Find(Key("k:", kKeys)), nullptr);
  for (int i = 0; i < kKeys; i += 2) ASSERT_TRUE(RemoveKey(d, Key("k:", i)));
  EXPECT_EQ(d.size(), static_cast<size_t>(kKeys / 2));
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(d.Find(Key("k:", i)) != nullptr, i % 2 == 1) << i;
  }
  EXPECT_FALSE(RemoveKey(d, "k:0"));
}

TEST(DictTest, KeysDifferingOnlyInLengthOrBinaryBytes) {
  Dict d;
  std::vector<std::string> keys = {"", std::string("\0", 1), std::string("\0\0", 2), "a", "a\xff",
                                   "A"};
  for (const std::string& k : keys) InsertKey(d, k);
  for (const std::string& k : keys) {
    Entry* e = d.Find(k);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->key(), k);
  }
}

TEST(DictTest, EntryPointersAreStableAcrossRehashing) {
  Dict d;
  std::vector<Entry*> entries;
  for (int i = 0; i < 20000; ++i) {
    entries.push_back(NewEntry(Key("p", i)));
    d.Insert(entries.back());
  }
  FinishRehash(d);
  for (size_t i = 0; i < entries.size(); ++i) {
    ASSERT_EQ(d.Find(Key("p", static_cast<int>(i))), entries[i]);
  }
}

TEST(DictTest, GrowsIncrementallyAndStaysCorrectMidRehash) {
  Dict d;
  bool saw_rehashing = false;
  for (int i = 0; i < 50000; ++i) {
    d.Insert(NewEntry(Key("g", i)));
    if (d.rehashing()) {
      saw_rehashing = true;
      // Every key so far is findable while buckets are split across two tables.
      if (i % 997 == 0) {
        for (int j = 0; j <= i; j += 7) ASSERT_NE(d.Find(Key("g", j)), nullptr) << j;
      }
    }
  }
  EXPECT_TRUE(saw_rehashing);
  FinishRehash(d);
  // Load factor at most 1 once settled.
  EXPECT_GE(d.buckets(), d.size());
  EXPECT_LE(d.buckets(), d.size() * 4);
  size_t b = d.buckets();
  EXPECT_EQ(b & (b - 1), 0u) << "power of two";
}

TEST(DictTest, ShrinksIncrementallyWithMaybeShrinkAndRehash) {
  Dict d;
  for (int i = 0; i < 100000; ++i) d.Insert(NewEntry(Key("s", i)));
  FinishRehash(d);
  size_t big = d.buckets();
  EXPECT_GE(big, 100000u);
  for (int i = 1000; i < 100000; ++i) ASSERT_TRUE(RemoveKey(d, Key("s", i)));
  FinishRehash(d);
  d.MaybeShrink();
  ASSERT_TRUE(d.rehashing());
  // The shrink proceeds in bounded steps, and lookups work between them.
  int steps = 0;
  while (d.Rehash(1)) {
    ++steps;
    if (steps % 50 == 0) {
      for (int i = 0; i < 1000; i += 13) ASSERT_NE(d.Find(Key("s", i)), nullptr) << i;
      ASSERT_EQ(d.Find(Key("s", 5000)), nullptr);
    }
  }
  EXPECT_GT(steps, 10);
  EXPECT_FALSE(d.rehashing());
  EXPECT_EQ(d.size(), 1000u);
  EXPECT_EQ(d.buckets(), 1024u);
  for (int i = 0; i < 1000; ++i) ASSERT_NE(d.Find(Key("s", i)), nullptr);
}

TEST(DictTest, ShrinkOfAnEmptiedTableAndNoShrinkWhenDense) {
  Dict d;
  for (int i = 0; i < 1000; ++i) d.Insert(NewEntry(Key("e", i)));
  FinishRehash(d);
  size_t dense = d.buckets();
  d.MaybeShrink();
  EXPECT_FALSE(d.rehashing()) << "a table at load ~1 is not shrunk";
  EXPECT_EQ(d.buckets(), dense);
  for (int i = 0; i < 1000; ++i) RemoveKey(d, Key("e", i));
  FinishRehash(d);
  d.MaybeShrink();
  FinishRehash(d);
  EXPECT_EQ(d.size(), 0u);
  EXPECT_LE(d.buckets(), 4u);
  InsertKey(d, "again");
  EXPECT_NE(d.Find("again"), nullptr);
}

TEST(DictTest, ResizeCanBePaused) {
  Dict d;
  SetHashTableResizeAllowed(false);
  for (int i = 0; i < 64; ++i) d.Insert(NewEntry(Key("r", i)));
  FinishRehash(d);
  // Paused: the table stays small until it is badly overloaded (more than 5 per bucket).
  EXPECT_LT(d.buckets(), 64u);
  SetHashTableResizeAllowed(true);
  for (int i = 64; i < 200; ++i) d.Insert(NewEntry(Key("r", i)));
  FinishRehash(d);
  EXPECT_GE(d.buckets(), 200u);
  for (int i = 0; i < 200; ++i) ASSERT_NE(d.Find(Key("r", i)), nullptr);
}

TEST(DictTest, RehashForMovesBuckets) {
  Dict d;
  for (int i = 0; i < 65537; ++i) d.Insert(NewEntry(Key("f", i)));
  ASSERT_TRUE(d.rehashing());
  for (int i = 0; i < 1000 && d.rehashing(); ++i) d.RehashFor(1000);
  EXPECT_FALSE(d.rehashing());
  EXPECT_EQ(d.size(), 65537u);
}

TEST(DictTest, RandomReturnsEveryKeyEventually) {
  Dict d;
  for (int i = 0; i < 100; ++i) d.Insert(NewEntry(Key("x", i)));
  FinishRehash(d);
  std::unordered_set<std::string> seen;
  for (int i = 0; i < 20000; ++i) {
    Entry* e = d.Random();
    ASSERT_NE(e, nullptr);
    seen.insert(std::string(e->key()));
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(DictTest, RandomWhileRehashingReturnsLiveEntries) {
  Dict d;
  std::unordered_set<std::string> live;
  for (int i = 0; i < 5000; ++i) {
    d.Insert(NewEntry(Key("w", i)));
    live.insert(Key("w", i));
  }
  ASSERT_TRUE(d.rehashing());
  for (int i = 0; i < 2000; ++i) {
    Entry* e = d.Random();
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(live.count(std::string(e->key()))) << e->key();
  }
  Dict one;
  one.Insert(NewEntry("only"));
  EXPECT_EQ(one.Random()->key(), "only");
}

TEST(DictTest, ScanReturnsEveryKeyOnAStableTable) {
  Dict d;
  for (int i = 0; i < 3000; ++i) d.Insert(NewEntry(Key("c", i)));
  FinishRehash(d);
  auto seen = FullScan(d, nullptr);
  ASSERT_EQ(seen.size(), 3000u);
  for (const auto& [k, n] : seen) EXPECT_EQ(n, 1) << "no repeats without resizing: " << k;
}

TEST(DictTest, ScanWhileRehashingIsInProgress) {
  Dict d;
  for (int i = 0; i < 4097; ++i) d.Insert(NewEntry(Key("m", i)));
  ASSERT_TRUE(d.rehashing());
  auto seen = FullScan(d, nullptr);
  EXPECT_EQ(seen.size(), 4097u);
}

// The SCAN guarantee under resizing: a fixed population of keys stays in the table while other
// keys are added (growing it several times) or removed (shrinking it) between Scan calls.
class DictScanUnderResize : public ::testing::TestWithParam<int> {};

TEST_P(DictScanUnderResize, EveryStableKeyIsReturned) {
  const int scenario = GetParam();
  std::mt19937 rng(static_cast<unsigned>(scenario) * 7919u + 1);
  Dict d;
  constexpr int kStable = 2000;
  // Extra keys are capped so the table stays bounded and the scan ends: a table that kept
  // doubling would add cursor space faster than the scan covers it.
  constexpr size_t kMaxExtra = 30000;
  for (int i = 0; i < kStable; ++i) d.Insert(NewEntry(Key("stable:", i)));
  std::vector<std::string> extra;
  int next_extra = 0;
  if (scenario == 1 || scenario == 2) {
    // Start big so the scan can watch it shrink.
    for (size_t i = 0; i < kMaxExtra; ++i) {
      extra.push_back(Key("extra:", next_extra++));
      d.Insert(NewEntry(extra.back()));
    }
  }
  FinishRehash(d);

  auto grow = [&](int n) {
    for (int i = 0; i < n && extra.size() < kMaxExtra; ++i) {
      extra.push_back(Key("extra:", next_extra++));
      d.Insert(NewEntry(extra.back()));
    }
  };
  auto shrink = [&](int n) {
    for (int i = 0; i < n && !extra.empty(); ++i) {
      size_t at = rng() % extra.size();
      std::swap(extra[at], extra.back());
      ASSERT_TRUE(RemoveKey(d, extra.back()));
      extra.pop_back();
    }
    d.MaybeShrink();
  };
  size_t step = 0;
  auto between = [&]() {
    ++step;
    switch (scenario) {
      case 0:  // grow only, from small to large, several doublings during the scan
        grow(40);
        break;
      case 1:  // shrink only
        shrink(200);
        break;
      case 2:  // shrink, then grow again
        if (step < 200) {
          shrink(200);
        } else {
          grow(100);
        }
        break;
      default:  // random mix, sometimes finishing the rehash, sometimes a few steps
        if (rng() % 2) {
          grow(static_cast<int>(rng() % 120));
        } else {
          shrink(static_cast<int>(rng() % 120));
        }
        if (rng() % 3 == 0) d.Rehash(static_cast<int>(rng() % 50));
        if (rng() % 7 == 0) FinishRehash(d);
        break;
    }
  };
  auto seen = FullScan(d, between);
  for (int i = 0; i < kStable; ++i) {
    ASSERT_TRUE(seen.count(Key("stable:", i))) << "scenario " << scenario << " missed " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, DictScanUnderResize, ::testing::Range(0, 8));

TEST(DictTest, ScanCursorStaysValidAcrossAFullResizeCycle) {
  // One bucket visited at size 8, then the table grows to 64K and shrinks back to 8 before the
  // next call: the remaining keys are still all returned.
  Dict d;
  for (int i = 0; i < 6; ++i) d.Insert(NewEntry(Key("t", i)));
  FinishRehash(d);
  std::unordered_set<std::string> seen;
  auto collect = [&](Entry* e) { seen.insert(std::string(e->key())); };
  uint64_t cursor = d.Scan(0, collect);
  ASSERT_NE(cursor, 0u);
  for (int i = 0; i < 50000; ++i) d.Insert(NewEntry(Key("tmp", i)));
  FinishRehash(d);
  for (int i = 0; i < 50000; ++i) ASSERT_TRUE(RemoveKey(d, Key("tmp", i)));
  for (int round = 0; round < 20; ++round) {
    d.MaybeShrink();
    FinishRehash(d);
  }
  while (cursor != 0) cursor = d.Scan(cursor, collect);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(seen.count(Key("t", i))) << i;
}

TEST(DictTest, ClearCallsTheHookForEveryEntry) {
  Dict d;
  for (int i = 0; i < 1000; ++i) d.Insert(NewEntry(Key("z", i)));
  int removed = 0;
  d.Clear([&](Entry* e) {
    ++removed;
    EXPECT_EQ(e->key().substr(0, 1), "z");
  });
  EXPECT_EQ(removed, 1000);
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d.Find("z1"), nullptr);
  d.Insert(NewEntry("after"));
  EXPECT_NE(d.Find("after"), nullptr);
}

TEST(DictTest, SwapExchangesContentsEvenMidRehash) {
  Dict a, b;
  for (int i = 0; i < 5000; ++i) a.Insert(NewEntry(Key("a", i)));
  b.Insert(NewEntry("b"));
  a.Swap(b);
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(b.size(), 5000u);
  EXPECT_NE(a.Find("b"), nullptr);
  for (int i = 0; i < 5000; ++i) ASSERT_NE(b.Find(Key("a", i)), nullptr);
  EXPECT_EQ(a.Find("a1"), nullptr);
}

TEST(DictTest, ForEachVisitsEveryEntryOnce) {
  Dict d;
  for (int i = 0; i < 3000; ++i) d.Insert(NewEntry(Key("v", i)));
  std::unordered_map<std::string, int> count;
  d.ForEach([&](Entry* e) { ++count[std::string(e->key())]; });
  EXPECT_EQ(count.size(), 3000u);
  for (const auto& [k, n] : count) EXPECT_EQ(n, 1) << k;
}

TEST(DictTest, HashDependsOnTheSeed) {
  Dict::SetHashSeed(1);
  uint64_t h1 = Dict::Hash("key");
  EXPECT_EQ(Dict::Hash("key"), h1);
  Dict::SetHashSeed(2);
  EXPECT_NE(Dict::Hash("key"), h1);
  // Tables built after a seed change work as before.
  Dict d;
  for (int i = 0; i < 100; ++i) d.Insert(NewEntry(Key("h", i)));
  for (int i = 0; i < 100; ++i) EXPECT_NE(d.Find(Key("h", i)), nullptr);
}

}  // namespace
}  // namespace redistp
