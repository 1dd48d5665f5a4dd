// Unit tests for the per-feature parts of Client (server/client.h): the transaction's one
// discard, checked directly and through every way a transaction ends in the in-process harness
// (EXEC, an aborted EXEC, a WATCH-failed EXEC, a rejected EXEC, DISCARD, RESET, the close),
// each of which must leave no queue, no failure mark and no WATCHed key behind; and the kind of
// connection: what each kind is, and that connections and the script engine's client get theirs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"
#include "server/client.h"
#include "watch/exec_watches.h"

namespace redistp {
namespace {

using testing::Harness;

TEST(ClientTransaction, DiscardClearsTheStateAndOnlyThisClientsWatches) {
  Client c(7, -1);
  ExecWatches watches;
  watches.Watch(7, 0, "a", false);
  watches.Watch(8, 0, "b", false);
  c.multi.active = true;
  c.multi.failed = true;
  c.multi.queue.push_back({"SET", "a", "1"});
  c.DiscardTransaction(watches);
  EXPECT_FALSE(c.multi.active);
  EXPECT_FALSE(c.multi.failed);
  EXPECT_TRUE(c.multi.queue.empty());
  EXPECT_FALSE(watches.empty()) << "client 8's WATCH is not this client's to drop";
  watches.UnwatchAll(8);
  EXPECT_TRUE(watches.empty()) << "client 7's WATCH was left behind";
}

// Opens a transaction on "t" that WATCHes k and queues one command, runs `end` (the commands
// that end it), and checks that nothing of it is left; then that a new transaction on the same
// connection runs although k changed meanwhile (its WATCH is gone).
void CheckEndsClean(const std::vector<std::vector<std::string>>& end, bool dirty_first) {
  Harness h;
  ASSERT_EQ(h.Run("t", {"WATCH", "k"}).Text(), "OK");
  if (dirty_first) {
    ASSERT_EQ(h.Run("o", {"SET", "k", "x"}).Text(), "OK");
  }
  ASSERT_EQ(h.Run("t", {"MULTI"}).Text(), "OK");
  ASSERT_EQ(h.Run("t", {"SET", "q", "1"}).Text(), "QUEUED");
  for (const std::vector<std::string>& cmd : end) h.Run("t", cmd);
  Client* c = h.client("t");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->multi.active) << end.back()[0];
  EXPECT_FALSE(c->multi.failed) << end.back()[0];
  EXPECT_TRUE(c->multi.queue.empty()) << end.back()[0];
  EXPECT_TRUE(h.server().exec_watches().empty()) << end.back()[0];
  ASSERT_EQ(h.Run("o", {"SET", "k", "y"}).Text(), "OK");
  ASSERT_EQ(h.Run("t", {"MULTI"}).Text(), "OK");
  ASSERT_EQ(h.Run("t", {"GET", "k"}).Text(), "QUEUED");
  EXPECT_EQ(h.Run("t", {"EXEC"}).Text(), "[\"y\"]") << end.back()[0];
}

TEST(ClientTransaction, EveryEndLeavesNothingBehind) {
  CheckEndsClean({{"EXEC"}}, false);
  CheckEndsClean({{"EXEC"}}, true);                      // WATCH failed: null reply
  CheckEndsClean({{"NOSUCHCOMMAND"}, {"EXEC"}}, false);  // EXECABORT (queueing failed)
  CheckEndsClean({{"EXEC", "extra"}}, false);            // EXEC itself rejected
  CheckEndsClean({{"DISCARD"}}, false);
  CheckEndsClean({{"RESET"}}, false);
}

TEST(ClientTransaction, TheCloseForgetsTheWatches) {
  Harness h;
  ASSERT_EQ(h.Run("t", {"WATCH", "k"}).Text(), "OK");
  ASSERT_EQ(h.Run("t", {"MULTI"}).Text(), "OK");
  ASSERT_FALSE(h.server().exec_watches().empty());
  h.Disconnect("t");
  EXPECT_TRUE(h.Closed("t"));
  EXPECT_TRUE(h.server().exec_watches().empty());
}

TEST(ClientKind, OnlyThePseudoClientsHaveNoSocket) {
  EXPECT_EQ(Client(1, 5).kind(), ClientKind::kNormal);
  EXPECT_FALSE(Client(1, 5).pseudo());
  EXPECT_FALSE(Client(1, 5, ClientKind::kReplica).pseudo());
  EXPECT_FALSE(Client(1, 5, ClientKind::kMasterLink).pseudo());
  EXPECT_TRUE(Client(1, -1, ClientKind::kScript).pseudo());
  EXPECT_TRUE(Client(1, -1, ClientKind::kAofLoading).pseudo());
  EXPECT_EQ(Client(1, -1, ClientKind::kAofLoading).kind(), ClientKind::kAofLoading);
}

// MONITOR names a command's origin by the client's kind: a script's commands show as "lua",
// a connection's as its address.
TEST(ClientKind, ConnectionsAreNormalAndScriptsRunOnTheScriptClient) {
  Harness h;
  ASSERT_EQ(h.Connect("t")->kind(), ClientKind::kNormal);
  ASSERT_EQ(h.Run("m", {"MONITOR"}).Text(), "OK");
  ASSERT_EQ(h.Run("t", {"EVAL", "return redis.call('set', 'k', 'v')", "0"}).Text(), "OK");
  std::vector<std::string> lines;
  for (const testing::Frame& f : h.Pushes("m")) lines.push_back(f.str);
  ASSERT_EQ(lines.size(), 2u);
  const std::string addr = h.client("t")->addr;
  EXPECT_NE(lines[0].find(" " + addr + "] \"EVAL\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find(" lua] \"set\" \"k\" \"v\""), std::string::npos) << lines[1];
}

}  // namespace
}  // namespace redistp
