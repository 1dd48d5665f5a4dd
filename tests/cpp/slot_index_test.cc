// Unit tests for the per-slot key index a cluster node keeps (db/slot_index.h): the counts and
// key lists follow every way Database adds and removes keys. Besides the cases by hand, a
// seeded random sequence of all those ways is checked after every step against a count
// recomputed from the table itself, so a new path into the table that forgets the index fails
// here whatever its kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "db/database.h"
#include "util/crc16.h"

namespace redistp {
namespace {

class SlotIndexTest : public ::testing::Test {
 protected:
  SlotIndexTest() { ctx_.command_clock.Update(1'000'000); }

  // Per-slot counts recomputed from db's table, compared with its index.
  static void ExpectConsistent(const Database& db) {
    ASSERT_NE(db.slot_index(), nullptr);
    std::map<int, size_t> counts;
    db.dict().ForEach([&](Entry* e) { ++counts[KeyHashSlot(e->key())]; });
    size_t total = 0;
    for (const auto& [slot, n] : counts) {
      EXPECT_EQ(db.slot_index()->Count(slot), n) << "slot " << slot;
      total += n;
    }
    EXPECT_EQ(total, db.size());
  }
  static std::vector<std::string> KeysIn(const Database& db, int slot, size_t max = 100) {
    std::vector<Entry*> entries;
    db.slot_index()->Keys(slot, max, &entries);
    std::vector<std::string> keys;
    for (const Entry* e : entries) keys.emplace_back(e->key());
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  KeyspaceContext ctx_;
  Database db0_{0, &ctx_};
  Database db1_{1, &ctx_};
};

TEST_F(SlotIndexTest, OffUntilEnabledThenCountsExistingKeys) {
  db0_.Add("a{t}", Value::String("1"), notice::kSet);
  EXPECT_EQ(db0_.slot_index(), nullptr);
  db0_.EnableSlotIndex();
  const int slot = KeyHashSlot("t");
  EXPECT_EQ(db0_.slot_index()->Count(slot), 1u);
  db0_.Add("b{t}", Value::String("2"), notice::kSet);
  db0_.AddLoaded("c{t}", Value::String("3"), 0);
  EXPECT_EQ(KeysIn(db0_, slot), (std::vector<std::string>{"a{t}", "b{t}", "c{t}"}));
  EXPECT_EQ(KeysIn(db0_, slot, 2).size(), 2u);
  EXPECT_TRUE(KeysIn(db0_, slot, 0).empty());
  EXPECT_TRUE(KeysIn(db0_, (slot + 1) % kClusterSlots).empty());
}

TEST_F(SlotIndexTest, RemoveRenameFlushAndSwapKeepCountsExact) {
  db0_.EnableSlotIndex();
  db0_.Add("foo", Value::String("1"), notice::kSet);
  db0_.Add("bar", Value::String("1"), notice::kSet);
  db0_.MoveEntry(db0_.FindRaw("foo"), db0_, "baz", notice::kRenameFrom, notice::kRenameTo);
  EXPECT_EQ(db0_.slot_index()->Count(KeyHashSlot("foo")), 0u);
  EXPECT_EQ(db0_.slot_index()->Count(KeyHashSlot("baz")), 1u);
  db0_.Remove(db0_.FindRaw("bar"));
  EXPECT_EQ(db0_.slot_index()->Count(KeyHashSlot("bar")), 0u);
  // Moved to a database without an index: gone from this one's, and nothing breaks there.
  db0_.MoveEntry(db0_.FindRaw("baz"), db1_, "baz", notice::kMoveFrom, notice::kMoveTo);
  EXPECT_EQ(db0_.slot_index()->Count(KeyHashSlot("baz")), 0u);
  db0_.Add("x", Value::String("1"), notice::kSet);
  Database::Swap(db0_, db1_);
  // The index travels with the keys it describes.
  EXPECT_EQ(db0_.slot_index(), nullptr);
  ASSERT_NE(db1_.slot_index(), nullptr);
  EXPECT_EQ(db1_.slot_index()->Count(KeyHashSlot("x")), 1u);
  Database::Swap(db0_, db1_);
  db0_.Flush(Database::FlushCount::kCountKeys);
  EXPECT_EQ(db0_.slot_index()->Count(KeyHashSlot("x")), 0u);
  ExpectConsistent(db0_);
}

TEST_F(SlotIndexTest, RandomSequencesOfChangesKeepTheIndexExact) {
  db0_.EnableSlotIndex();
  db1_.EnableSlotIndex();
  std::mt19937 rng(20261129);
  // Few distinct names, many in a handful of slots, so that keys meet often.
  auto name = [&rng] {
    static const char* kTags[] = {"{a}", "{b}", "{c}", ""};
    return std::to_string(rng() % 40) + kTags[rng() % 4];
  };
  for (int step = 0; step < 20000; ++step) {
    Database& db = rng() % 4 == 0 ? db1_ : db0_;
    Database& other = &db == &db0_ ? db1_ : db0_;
    const std::string key = name();
    Entry* e = db.FindRaw(key);
    switch (rng() % 9) {
      case 0:
      case 1:
        if (e == nullptr) db.Add(key, Value::String("v"), notice::kSet);
        break;
      case 2:
        db.Upsert(key, Value::String("w"), false, notice::kSet);
        break;
      case 3:
        if (e != nullptr) db.Remove(e);
        break;
      case 4: {
        const std::string to = name();  // RENAME onto itself is answered before Database
        if (e != nullptr && to != key) {
          db.MoveEntry(e, db, to, notice::kRenameFrom, notice::kRenameTo);
        }
        break;
      }
      case 5:
        if (e != nullptr) db.MoveEntry(e, other, key, notice::kMoveFrom, notice::kMoveTo);
        break;
      case 6:
        if (e == nullptr) db.AddLoaded(key, Value::String("l"), 0);
        break;
      case 7:
        if (rng() % 50 == 0) Database::Swap(db0_, db1_);
        break;
      case 8:
        if (rng() % 200 == 0) db.Flush(Database::FlushCount::kUncounted);
        break;
    }
    if (step % 97 == 0 || step == 19999) {
      ExpectConsistent(db0_);
      ExpectConsistent(db1_);
      if (HasFailure()) FAIL() << "after step " << step;
    }
  }
}

}  // namespace
}  // namespace redistp
