// Unit tests for client-side caching's tables (server/tracking.h) through the in-process
// harness: the key table's counts, the random shrink to tracking-table-max-keys, BCAST's
// last-changer rule under NOLOOP, expiry as nobody's change, the lazy rows of a client that
// turned tracking off, and one null invalidation per flushing command.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "harness.h"

namespace redistp {
namespace {

using testing::Frame;
using testing::Harness;

class TrackingTest : public ::testing::Test {
 protected:
  TrackingTest() {
    h_.SetResp("t", 3);
    h_.SetResp("o", 3);
  }
  Tracking& tracking() { return h_.server().tracking(); }
  void Ok(const std::string& conn, const std::vector<std::string>& args) {
    ASSERT_EQ(h_.Run(conn, args).Text(), "OK") << args[0];
  }
  // The texts of the pushes a connection received since the last call.
  std::vector<std::string> Pushes(const std::string& conn) {
    std::vector<std::string> out;
    for (const Frame& f : h_.Pushes(conn)) out.push_back(f.Text());
    return out;
  }

  Harness h_;
};

TEST_F(TrackingTest, TheTableCountsKeysAndReadersOnce) {
  Ok("t", {"CLIENT", "TRACKING", "ON"});
  Ok("o", {"CLIENT", "TRACKING", "ON"});
  h_.Run("t", {"MGET", "a", "b", "a"});
  h_.Run("t", {"GET", "a"});
  h_.Run("o", {"GET", "a"});
  EXPECT_EQ(tracking().total_keys(), 2u);
  EXPECT_EQ(tracking().total_items(), 3u) << "t reads a twice: one item";
  Ok("x", {"SET", "a", "1"});
  EXPECT_EQ(tracking().total_keys(), 1u);
  EXPECT_EQ(tracking().total_items(), 1u);
  EXPECT_EQ(Pushes("t"), std::vector<std::string>{">[\"invalidate\", [\"a\"]]"});
  EXPECT_EQ(Pushes("o"), std::vector<std::string>{">[\"invalidate\", [\"a\"]]"});
}

TEST_F(TrackingTest, TheLimitInvalidatesRandomKeysUntilTheTableFits) {
  Ok("t", {"CLIENT", "TRACKING", "ON"});
  std::vector<std::string> mget = {"MGET"};
  for (int i = 0; i < 300; ++i) mget.push_back("k" + std::to_string(i));
  h_.Run("t", mget);
  ASSERT_EQ(tracking().total_keys(), 300u);
  tracking().EnforceLimit(0);
  EXPECT_EQ(tracking().total_keys(), 300u) << "0 means no limit";
  // One call removes up to 100 keys; the next, still over the limit, up to 200.
  tracking().EnforceLimit(10);
  EXPECT_EQ(tracking().total_keys(), 200u);
  tracking().EnforceLimit(10);
  EXPECT_EQ(tracking().total_keys(), 10u);
  h_.Run("o", {"PING"});  // a loop turn: the invalidations are written
  std::set<std::string> told;
  for (const Frame& f : h_.Pushes("t")) {
    ASSERT_EQ(f.elems.size(), 2u);
    told.insert(f.elems[1].elems.at(0).str);
  }
  EXPECT_EQ(told.size(), 290u) << "each evicted key told once";
}

TEST_F(TrackingTest, BcastNoloopLeavesOutKeysTheClientChangedLast) {
  Ok("t", {"CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP"});
  // One command, so one turn: t changes a then o changes it; o changes b then t does.
  Ok("t", {"MULTI"});
  h_.Run("t", {"SET", "a", "1"});
  h_.Run("t", {"SET", "b", "1"});
  h_.Run("t", {"EXEC"});
  EXPECT_TRUE(Pushes("t").empty()) << "both keys are its own changes";
  h_.Run("t", {"SET", "c", "1"});
  h_.Run("o", {"SET", "d", "1"});
  EXPECT_EQ(Pushes("t"), std::vector<std::string>{">[\"invalidate\", [\"d\"]]"});
}

TEST_F(TrackingTest, ExpiryIsNobodysChangeForBcastNoloop) {
  Ok("t", {"CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP"});
  Ok("t", {"SET", "e", "1", "PX", "10"});
  EXPECT_TRUE(Pushes("t").empty());
  h_.AdvanceTime(1000);  // active expiry in the cron tick
  h_.Run("o", {"PING"});
  EXPECT_EQ(Pushes("t"), std::vector<std::string>{">[\"invalidate\", [\"e\"]]"});
}

TEST_F(TrackingTest, RowsOfAClientThatTurnedTrackingOffStayUntilTheirKeysChange) {
  Ok("t", {"CLIENT", "TRACKING", "ON"});
  h_.Run("t", {"GET", "old"});
  Ok("t", {"CLIENT", "TRACKING", "OFF"});
  EXPECT_EQ(tracking().total_items(), 1u) << "dropped lazily";
  Ok("t", {"CLIENT", "TRACKING", "ON"});
  Ok("o", {"SET", "old", "1"});
  // As in Redis: the read made before OFF is still remembered.
  EXPECT_EQ(Pushes("t"), std::vector<std::string>{">[\"invalidate\", [\"old\"]]"});
  EXPECT_EQ(tracking().total_items(), 0u);
  EXPECT_EQ(tracking().clients(), 1u);
  h_.Disconnect("t");
  h_.Run("o", {"PING"});
  EXPECT_EQ(tracking().clients(), 0u);
}

TEST_F(TrackingTest, OneNullPerFlushingCommand) {
  Ok("t", {"CLIENT", "TRACKING", "ON"});
  Ok("o", {"FLUSHALL"});
  EXPECT_EQ(Pushes("t"), std::vector<std::string>{">[\"invalidate\", (nil)]"});
  Ok("o", {"MULTI"});
  h_.Run("o", {"FLUSHALL"});
  h_.Run("o", {"FLUSHDB"});
  h_.Run("o", {"EXEC"});
  EXPECT_EQ(Pushes("t"),
            (std::vector<std::string>{">[\"invalidate\", (nil)]", ">[\"invalidate\", (nil)]"}));
}

// The key positions tracking remembers (Redis's getKeysFromCommand), for a command line.
std::vector<int> Tracked(Harness& h, const std::vector<std::string_view>& args) {
  const CommandSpec* spec = h.server().commands().Find(args[0]);
  EXPECT_NE(spec, nullptr);
  std::vector<int> at;
  for (const KeyRef& k : FindKeys(*spec, args, KeySearch::kProcedure)) at.push_back(k.index);
  return at;
}

TEST(TrackedKeysTest, LegacyPositionsAndTheNumkeysProcedures) {
  Harness h;
  EXPECT_EQ(Tracked(h, {"get", "k"}), std::vector<int>{1});
  EXPECT_EQ(Tracked(h, {"mget", "a", "b", "c"}), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(Tracked(h, {"zunion", "2", "a", "b", "WEIGHTS", "1", "2"}), (std::vector<int>{2, 3}));
  EXPECT_EQ(Tracked(h, {"zunion", "1e3", "a", "b"}), std::vector<int>{2}) << "atoi(\"1e3\") = 1";
  EXPECT_EQ(Tracked(h, {"zinter", " +2x", "a", "b"}), (std::vector<int>{2, 3}));
  EXPECT_TRUE(Tracked(h, {"zdiff", "3", "a", "b"}).empty()) << "more keys than arguments";
  EXPECT_TRUE(Tracked(h, {"sintercard", "0", "a"}).empty());
  EXPECT_TRUE(Tracked(h, {"zintercard", "-1", "a"}).empty());
  EXPECT_TRUE(Tracked(h, {"sintercard", "99999999999999999999", "a"}).empty()) << "clamped";
  EXPECT_EQ(Tracked(h, {"sort_ro", "s", "BY", "nosort"}), std::vector<int>{1});
}

}  // namespace
}  // namespace redistp
