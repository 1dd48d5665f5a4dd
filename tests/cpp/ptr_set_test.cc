// Unit tests for the open-addressing entry tables: PtrSet (membership, sampling, growth and
// shrink, and backward-shift deletion checked against std::set under random ops) and
// ExpireIndex, the map from volatile entries to their expire times (checked against std::map).
#include "db/ptr_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace redistp {
namespace {

// Owns real entries so the set holds genuine heap addresses.
class EntryPool {
 public:
  explicit EntryPool(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      entries_.push_back(Entry::Create("k" + std::to_string(i), Value::String("v")));
    }
  }
  ~EntryPool() {
    for (Entry* e : entries_) Entry::Destroy(e);
  }
  EntryPool(const EntryPool&) = delete;
  EntryPool& operator=(const EntryPool&) = delete;
  Entry* operator[](size_t i) const { return entries_[i]; }
  size_t size() const { return entries_.size(); }

 private:
  std::vector<Entry*> entries_;
};

// Every member, collected by one sweep over all slots.
std::set<Entry*> Members(const PtrSet& s) {
  std::vector<Entry*> out;
  s.Sample(0, s.size() + 1, s.capacity(), &out);
  return {out.begin(), out.end()};
}

TEST(PtrSetTest, InsertEraseAndDuplicates) {
  EntryPool pool(3);
  PtrSet s;
  EXPECT_EQ(s.size(), 0u);
  EXPECT_FALSE(s.Erase(pool[0]));
  EXPECT_TRUE(s.Insert(pool[0]));
  EXPECT_FALSE(s.Insert(pool[0]));
  EXPECT_TRUE(s.Insert(pool[1]));
  EXPECT_EQ(s.size(), 2u);
  EXPECT_FALSE(s.Erase(pool[2]));
  EXPECT_TRUE(s.Erase(pool[0]));
  EXPECT_FALSE(s.Erase(pool[0]));
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(Members(s), (std::set<Entry*>{pool[1]}));
}

TEST(PtrSetTest, SampleOnEmptySet) {
  PtrSet s;
  std::vector<Entry*> out;
  EXPECT_EQ(s.Sample(5, 10, 100, &out), 0u);
  EXPECT_TRUE(out.empty());
}

TEST(PtrSetTest, LoadStaysAtMostHalfAndCapacityIsAPowerOfTwo) {
  EntryPool pool(10000);
  PtrSet s;
  for (size_t i = 0; i < pool.size(); ++i) {
    ASSERT_TRUE(s.Insert(pool[i]));
    ASSERT_LE(s.size() * 2, s.capacity());
  }
  size_t cap = s.capacity();
  EXPECT_EQ(cap & (cap - 1), 0u);
  EXPECT_EQ(Members(s).size(), 10000u);
}

TEST(PtrSetTest, ShrinksWhenMostlyEmpty) {
  EntryPool pool(10000);
  PtrSet s;
  for (size_t i = 0; i < pool.size(); ++i) s.Insert(pool[i]);
  size_t big = s.capacity();
  for (size_t i = 10; i < pool.size(); ++i) ASSERT_TRUE(s.Erase(pool[i]));
  EXPECT_EQ(s.size(), 10u);
  EXPECT_LT(s.capacity(), big / 16);
  std::set<Entry*> want;
  for (size_t i = 0; i < 10; ++i) want.insert(pool[i]);
  EXPECT_EQ(Members(s), want);
  for (size_t i = 0; i < 10; ++i) EXPECT_FALSE(s.Insert(pool[i])) << "still a member";
}

TEST(PtrSetTest, SampleIsARoundRobinSweep) {
  EntryPool pool(500);
  PtrSet s;
  for (size_t i = 0; i < pool.size(); ++i) s.Insert(pool[i]);
  std::set<Entry*> seen;
  size_t cursor = 0;
  size_t calls = 0;
  while (seen.size() < 500 && calls < 10000) {
    std::vector<Entry*> out;
    cursor = s.Sample(cursor, 20, 64, &out);
    EXPECT_LE(out.size(), 20u);
    for (Entry* e : out) seen.insert(e);
    ++calls;
  }
  EXPECT_EQ(seen.size(), 500u);
  // With no cap on the count, each call visits exactly max_visits slots, so capacity /
  // max_visits calls cover the whole table once.
  seen.clear();
  cursor = 0;
  for (size_t i = 0; i < s.capacity() / 64; ++i) {
    std::vector<Entry*> out;
    cursor = s.Sample(cursor, 1000, 64, &out);
    for (Entry* e : out) seen.insert(e);
  }
  EXPECT_EQ(cursor, 0u);
  EXPECT_EQ(seen.size(), 500u);
}

TEST(PtrSetTest, SampleRespectsMaxAndVisits) {
  EntryPool pool(100);
  PtrSet s;
  for (size_t i = 0; i < pool.size(); ++i) s.Insert(pool[i]);
  std::vector<Entry*> out;
  s.Sample(0, 5, s.capacity(), &out);
  EXPECT_EQ(out.size(), 5u);
  out.clear();
  size_t next = s.Sample(3, 1000, 7, &out);
  EXPECT_LE(out.size(), 7u);
  EXPECT_EQ(next, (3 + 7) & (s.capacity() - 1));
}

TEST(PtrSetTest, ClearAndSwap) {
  EntryPool pool(100);
  PtrSet a, b;
  for (size_t i = 0; i < 60; ++i) a.Insert(pool[i]);
  for (size_t i = 60; i < 100; ++i) b.Insert(pool[i]);
  a.Swap(b);
  EXPECT_EQ(a.size(), 40u);
  EXPECT_EQ(b.size(), 60u);
  EXPECT_FALSE(a.Insert(pool[70]));
  EXPECT_FALSE(b.Insert(pool[10]));
  b.Clear();
  EXPECT_EQ(b.size(), 0u);
  EXPECT_FALSE(b.Erase(pool[10]));
  EXPECT_TRUE(b.Insert(pool[10]));
}

// Random inserts and erases against std::set. A small pool keeps the table tiny, so probe
// runs wrap around the end of the slot array and backward shifts cross it often; a large pool
// exercises growth and shrink.
void RandomOpsAgainstModel(size_t pool_size, int ops, unsigned seed) {
  EntryPool pool(pool_size);
  PtrSet s;
  std::set<Entry*> model;
  std::mt19937 rng(seed);
  for (int op = 0; op < ops; ++op) {
    Entry* e = pool[rng() % pool_size];
    if (rng() % 2) {
      bool added = model.insert(e).second;
      ASSERT_EQ(s.Insert(e), added) << "op " << op;
    } else {
      bool removed = model.erase(e) == 1;
      ASSERT_EQ(s.Erase(e), removed) << "op " << op;
    }
    ASSERT_EQ(s.size(), model.size());
    if (op % 97 == 0) {
      ASSERT_EQ(Members(s), model) << "op " << op;
    }
  }
  ASSERT_EQ(Members(s), model);
  // Every member is still reachable by its probe sequence: inserting it again is refused and
  // erasing it succeeds.
  for (Entry* e : model) {
    ASSERT_FALSE(s.Insert(e));
  }
  for (Entry* e : model) {
    ASSERT_TRUE(s.Erase(e));
  }
  EXPECT_EQ(s.size(), 0u);
}

TEST(PtrSetTest, RandomOpsSmallTable) { RandomOpsAgainstModel(12, 200000, 1); }
TEST(PtrSetTest, RandomOpsMediumTable) { RandomOpsAgainstModel(300, 200000, 2); }
TEST(PtrSetTest, RandomOpsLargeTable) { RandomOpsAgainstModel(20000, 200000, 3); }

TEST(PtrSetTest, BulkInsertThenEraseInRandomOrder) {
  EntryPool pool(50000);
  PtrSet s;
  std::vector<Entry*> order;
  for (size_t i = 0; i < pool.size(); ++i) {
    s.Insert(pool[i]);
    order.push_back(pool[i]);
  }
  std::mt19937 rng(99);
  std::shuffle(order.begin(), order.end(), rng);
  std::set<Entry*> model(order.begin(), order.end());
  for (size_t i = 0; i < order.size(); ++i) {
    ASSERT_TRUE(s.Erase(order[i])) << i;
    model.erase(order[i]);
    if (i % 4999 == 0) {
      ASSERT_EQ(Members(s), model) << i;
    }
  }
  EXPECT_EQ(s.size(), 0u);
}

TEST(ExpireIndexTest, SetGetUpdateAndErase) {
  EntryPool pool(3);
  ExpireIndex x;
  EXPECT_EQ(x.Get(pool[0]), 0);
  x.Set(pool[0], 1000);
  x.Set(pool[1], 2000);
  EXPECT_EQ(x.size(), 2u);
  EXPECT_EQ(x.Get(pool[0]), 1000);
  EXPECT_EQ(x.Get(pool[1]), 2000);
  EXPECT_EQ(x.Get(pool[2]), 0);
  x.Set(pool[0], 500);  // a new time for a member: no second slot
  EXPECT_EQ(x.size(), 2u);
  EXPECT_EQ(x.Get(pool[0]), 500);
  EXPECT_TRUE(x.Erase(pool[0]));
  EXPECT_FALSE(x.Erase(pool[0]));
  EXPECT_EQ(x.Get(pool[0]), 0);
  EXPECT_EQ(x.Get(pool[1]), 2000);
}

// Random sets, updates and erases against std::map, over a small pool (runs wrap the slot
// array, shifts cross its end) and a large one (growth past 3/4 and shrink below 1/8): every
// member's time is the model's after each step that touches it, and on a full sweep.
void ExpireOpsAgainstModel(size_t pool_size, int ops, unsigned seed) {
  EntryPool pool(pool_size);
  ExpireIndex x;
  std::map<Entry*, int64_t> model;
  std::mt19937 rng(seed);
  for (int op = 0; op < ops; ++op) {
    Entry* e = pool[rng() % pool_size];
    if (rng() % 3 != 0) {
      const int64_t when = 1 + static_cast<int64_t>(rng() % 1000000);
      model[e] = when;
      x.Set(e, when);
    } else {
      ASSERT_EQ(x.Erase(e), model.erase(e) == 1) << "op " << op;
    }
    ASSERT_EQ(x.size(), model.size());
    ASSERT_LE(x.size() * 4, x.capacity() * 3);
    auto it = model.find(e);
    ASSERT_EQ(x.Get(e), it == model.end() ? 0 : it->second) << "op " << op;
    if (op % 101 == 0) {
      for (const auto& [m, when] : model) ASSERT_EQ(x.Get(m), when) << "op " << op;
    }
  }
  std::vector<Entry*> all;
  x.Sample(0, x.size() + 1, x.capacity(), &all);
  ASSERT_EQ(all.size(), model.size());
  for (Entry* e : all) ASSERT_EQ(x.Get(e), model.at(e));
}

TEST(ExpireIndexTest, RandomOpsSmallTable) { ExpireOpsAgainstModel(12, 100000, 4); }
TEST(ExpireIndexTest, RandomOpsLargeTable) { ExpireOpsAgainstModel(20000, 200000, 5); }

}  // namespace
}  // namespace redistp
