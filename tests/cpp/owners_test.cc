// OwnerIndex's per-key record beyond the owner (watch/owners.h): the hold count that re-entry
// raises and DELTP lowers, the creation time read from the command clock, what RENAME/MOVE
// carry, what a deletion and a re-creation reset, and the by-owner listing TPKEYS reads. The
// index is driven directly through a KeyspaceContext listener, without a server.
#include "watch/owners.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "db/database.h"

namespace redistp {
namespace {

class OwnerIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_.listener = &owners_;
    ctx_.command_clock.Update(1'000'000);
    owners_.set_time_source(&ctx_);
  }
  Entry* Create(Database& db, const std::string& key, uint64_t owner, uint64_t fence = 0) {
    owners_.CreateOwned(db, key, "v", owner, fence);
    return db.Peek(key);
  }

  KeyspaceContext ctx_;
  OwnerIndex owners_;
  Database db0_{0, &ctx_};
  Database db1_{1, &ctx_};
};

TEST_F(OwnerIndexTest, AFreshKeyHasOneHoldAndTheClockTime) {
  Entry* e = Create(db0_, "k", 7, 42);
  EXPECT_EQ(owners_.OwnerOf(e), 7u);
  EXPECT_EQ(owners_.FenceOf(e), 42u);
  EXPECT_EQ(owners_.HoldsOf(e), 1u);
  EXPECT_EQ(owners_.SinceOf(e), 1'000'000);
}

TEST_F(OwnerIndexTest, AnOrdinaryKeyHasNoHoldsAndNoTime) {
  Entry* e = db0_.Add("plain", Value::String("v"), notice::kSet);
  EXPECT_EQ(owners_.HoldsOf(e), 0u);
  EXPECT_EQ(owners_.SinceOf(e), 0);
  EXPECT_EQ(owners_.AddHold(e), 0u);
  EXPECT_FALSE(owners_.DropHold(e));
}

TEST_F(OwnerIndexTest, HoldsGoUpAndDownAndTheLastOneIsTheCallers) {
  Entry* e = Create(db0_, "k", 7);
  EXPECT_EQ(owners_.AddHold(e), 2u);
  EXPECT_EQ(owners_.AddHold(e), 3u);
  EXPECT_TRUE(owners_.DropHold(e));
  EXPECT_TRUE(owners_.DropHold(e));
  EXPECT_EQ(owners_.HoldsOf(e), 1u);
  // At one hold DropHold leaves the deletion to the caller and changes nothing.
  EXPECT_FALSE(owners_.DropHold(e));
  EXPECT_EQ(owners_.HoldsOf(e), 1u);
  EXPECT_EQ(owners_.OwnerOf(e), 7u);
}

TEST_F(OwnerIndexTest, ARecreatedKeyStartsAgainAtOneHoldAndItsOwnTime) {
  Entry* e = Create(db0_, "k", 7);
  owners_.AddHold(e);
  owners_.AddHold(e);
  db0_.Remove(e, RemoveCause::kDeleted);
  ctx_.command_clock.Update(2'000'000);
  Entry* again = Create(db0_, "k", 7);
  EXPECT_EQ(owners_.HoldsOf(again), 1u);
  EXPECT_EQ(owners_.SinceOf(again), 2'000'000);
}

TEST_F(OwnerIndexTest, RenameAndMoveCarryHoldsAndTime) {
  Entry* e = Create(db0_, "k", 7, 9);
  owners_.AddHold(e);
  ctx_.command_clock.Update(5'000'000);
  db0_.MoveEntry(e, db0_, "k2", notice::kRenameFrom, notice::kRenameTo);
  Entry* renamed = db0_.Peek("k2");
  ASSERT_NE(renamed, nullptr);
  EXPECT_EQ(owners_.HoldsOf(renamed), 2u);
  EXPECT_EQ(owners_.SinceOf(renamed), 1'000'000);
  EXPECT_EQ(owners_.FenceOf(renamed), 9u);
  db0_.MoveEntry(renamed, db1_, "k3", notice::kRenameFrom, notice::kRenameTo);
  Entry* moved = db1_.Peek("k3");
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(owners_.HoldsOf(moved), 2u);
  EXPECT_EQ(owners_.SinceOf(moved), 1'000'000);
  auto listed = owners_.EntriesOf(7);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].first, moved);
  EXPECT_EQ(listed[0].second, &db1_);
}

TEST_F(OwnerIndexTest, EntriesOfListsExactlyTheOwnersKeysWithTheirDatabases) {
  Create(db0_, "a", 7);
  Create(db1_, "b", 7);
  Create(db0_, "c", 8);
  auto listed = owners_.EntriesOf(7);
  ASSERT_EQ(listed.size(), 2u);
  std::vector<std::string> names;
  for (auto& [e, db] : listed) {
    names.emplace_back(std::string(e->key()) + "@" + std::to_string(db->index()));
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a@0", "b@1"}));
  EXPECT_TRUE(owners_.EntriesOf(99).empty());
  EXPECT_EQ(owners_.owner_count(), 2u);
  owners_.ReleaseAll(8);
  EXPECT_EQ(owners_.owner_count(), 1u);
}

}  // namespace
}  // namespace redistp
