// Propagation records (src/server/propagation.h) observed through the in-process harness.
// Every expectation was first checked against Redis 7.0.15's AOF for the same commands
// (appendonlydir/*.incr.aof), except the SETTP/BSETTP/DELTP forms, which are our own choice
// (documented in src/commands/tempkeys.cc).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

// The manual clock's wall time in ms plus `delta`, as the decimal text a record carries.
std::string At(Harness& h, int64_t delta) { return std::to_string(h.clock().WallMs() + delta); }

TEST(Propagation, PlainWriteWithSelectOnlyWhenTheDbChanges) {
  Harness h;
  h.Run("a", {"set", "k", "v"});
  h.Run("a", {"SET", "k2", "v"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"}, {"set", "k", "v"}, {"SET", "k2", "v"}}));
  h.Run("a", {"SELECT", "3"});
  EXPECT_EQ(h.Propagated(), Records{});
  h.Run("a", {"SET", "k", "v"});
  h.Run("b", {"SET", "k", "v"});
  EXPECT_EQ(h.Propagated(),
            (Records{{"SELECT", "3"}, {"SET", "k", "v"}, {"SELECT", "0"}, {"SET", "k", "v"}}));
}

TEST(Propagation, ReadsAndWritesThatChangeNothingProduceNothing) {
  Harness h;
  h.Run("a", {"SET", "k", "v"});
  h.Propagated();
  h.Run("a", {"GET", "k"});
  h.Run("a", {"SETNX", "k", "w"});
  h.Run("a", {"SET", "k", "w", "NX"});
  h.Run("a", {"DEL", "nokey"});
  h.Run("a", {"PERSIST", "k"});
  h.Run("a", {"EXPIRE", "nokey", "10"});
  h.Run("a", {"INCR", "k"});  // error: not an integer
  h.Run("a", {"GETEX", "k"});
  EXPECT_EQ(h.Propagated(), Records{});
}

TEST(Propagation, ExpireFamilyBecomesPexpireatWithAbsoluteTime) {
  Harness h;
  h.Run("a", {"SET", "k", "v"});
  h.Propagated();
  h.Run("a", {"EXPIRE", "k", "100"});
  h.Run("a", {"PEXPIRE", "k", "200000", "GT"});
  h.Run("a", {"EXPIRE", "k", "100", "NX"});  // refused: has a TTL
  h.Run("a", {"EXPIREAT", "k", "9999999999"});
  h.Run("a", {"PEXPIREAT", "k", "9999999999001"});
  EXPECT_EQ(h.Propagated(), (Records{{"PEXPIREAT", "k", At(h, 100'000)},
                                     {"PEXPIREAT", "k", At(h, 200'000), "GT"},
                                     {"PEXPIREAT", "k", "9999999999000"},
                                     {"PEXPIREAT", "k", "9999999999001"}}));
}

TEST(Propagation, ExpireInThePastIsADeletion) {
  Harness h;
  h.Run("a", {"SET", "k", "v"});
  h.Run("a", {"SET", "k2", "v"});
  h.Propagated();
  h.Run("a", {"EXPIRE", "k", "-1"});
  h.Run("a", {"CONFIG", "SET", "lazyfree-lazy-expire", "yes"});
  h.Run("a", {"PEXPIREAT", "k2", "1"});
  EXPECT_EQ(h.Propagated(), (Records{{"DEL", "k"}, {"UNLINK", "k2"}}));
}

TEST(Propagation, SetExpireFormsBecomeSetPxat) {
  Harness h;
  h.Run("a", {"SET", "a", "1", "EX", "100"});
  h.Run("a", {"SET", "b", "1", "PX", "100", "GET"});
  h.Run("a", {"SET", "c", "1", "EXAT", "9999999999"});
  h.Run("a", {"SET", "d", "1", "PXAT", "9999999999999", "XX"});  // d absent: no write
  h.Run("a", {"SETEX", "e", "10", "v"});
  h.Run("a", {"PSETEX", "f", "10", "v"});
  h.Run("a", {"SET", "a", "2", "KEEPTTL"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"SET", "a", "1", "PXAT", At(h, 100'000)},
                                     {"SET", "b", "1", "PXAT", At(h, 100)},
                                     {"SET", "c", "1", "PXAT", "9999999999000"},
                                     {"SET", "e", "v", "PXAT", At(h, 10'000)},
                                     {"SET", "f", "v", "PXAT", At(h, 10)},
                                     {"SET", "a", "2", "KEEPTTL"}}));
}

// GET is a read: GETSET is replayed as SET, SET ... GET without its GET (Redis 7.0's AOF); a
// replayed read fired its keymiss again (the difftest's persistence round trips, seed 102).
TEST(Propagation, GetSetAndSetGetAreReplayedWithoutTheRead) {
  Harness h;
  h.Run("a", {"getset", "a", "0"});
  h.Run("a", {"set", "b", "1", "get"});
  h.Run("a", {"set", "c", "1", "NX", "GET"});
  h.Run("a", {"set", "d", "1", "xx", "get"});  // d absent: no write
  h.Run("a", {"set", "a", "get", "GeT", "keepttl"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"SET", "a", "0"},
                                     {"set", "b", "1"},
                                     {"set", "c", "1", "NX"},
                                     {"set", "a", "get", "keepttl"}}));
}

TEST(Propagation, GetExGetDelIncrByFloat) {
  Harness h;
  h.Run("a", {"SET", "k", "v"});
  h.Propagated();
  h.Run("a", {"GETEX", "k", "EX", "50"});
  h.Run("a", {"GETEX", "k", "PERSIST"});
  h.Run("a", {"GETEX", "k", "PERSIST"});  // no TTL left: nothing
  h.Run("a", {"GETEX", "k", "PXAT", "1"});
  h.Run("a", {"INCRBYFLOAT", "f", "1.5"});
  h.Run("a", {"INCRBYFLOAT", "f", "1e2"});
  h.Run("a", {"GETDEL", "f"});
  h.Run("a", {"GETDEL", "f"});
  EXPECT_EQ(h.Propagated(), (Records{{"PEXPIREAT", "k", At(h, 50'000)},
                                     {"PERSIST", "k"},
                                     {"DEL", "k"},
                                     {"SET", "f", "1.5", "KEEPTTL"},
                                     {"SET", "f", "101.5", "KEEPTTL"},
                                     {"DEL", "f"}}));
}

TEST(Propagation, LazyExpiryIsADelBeforeTheCommandAndWrappedWithAWrite) {
  Harness h;
  h.server().keyspace().expiry.SetActive(false);
  h.Run("a", {"SET", "e", "v", "PX", "1"});
  h.Run("a", {"SET", "g", "v", "PX", "1"});
  h.Propagated();
  h.AdvanceTime(2);
  EXPECT_EQ(h.Propagated(), Records{});  // nobody looked yet
  h.Run("a", {"GET", "e"});
  EXPECT_EQ(h.Propagated(), (Records{{"DEL", "e"}}));
  h.Run("a", {"SET", "g", "w"});
  EXPECT_EQ(h.Propagated(), (Records{{"MULTI"}, {"DEL", "g"}, {"SET", "g", "w"}, {"EXEC"}}));
}

TEST(Propagation, ActiveExpiryIsADelInTheKeysDatabase) {
  Harness h;
  h.Run("a", {"SELECT", "5"});
  h.Run("a", {"SET", "k", "v", "PX", "10"});
  h.Run("b", {"SET", "x", "1"});
  h.Propagated();
  h.AdvanceTime(11);
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "5"}, {"DEL", "k"}}));
}

TEST(Propagation, TransactionsStayAtomic) {
  Harness h;
  h.Run("a", {"SET", "a", "1"});
  h.Propagated();
  // Read-only: nothing at all.
  h.Run("a", {"MULTI"});
  h.Run("a", {"GET", "a"});
  h.Run("a", {"EXEC"});
  EXPECT_EQ(h.Propagated(), Records{});
  // One write: just that write.
  h.Run("a", {"MULTI"});
  h.Run("a", {"SET", "x", "1"});
  h.Run("a", {"GET", "a"});
  h.Run("a", {"EXEC"});
  EXPECT_EQ(h.Propagated(), (Records{{"SET", "x", "1"}}));
  // Several writes across databases: MULTI .. EXEC with SELECT inside.
  h.Run("a", {"MULTI"});
  h.Run("a", {"SET", "m", "1"});
  h.Run("a", {"SELECT", "3"});
  h.Run("a", {"INCR", "m"});
  h.Run("a", {"EXPIRE", "m", "10"});
  h.Run("a", {"EXEC"});
  EXPECT_EQ(h.Propagated(), (Records{{"MULTI"},
                                     {"SET", "m", "1"},
                                     {"SELECT", "3"},
                                     {"INCR", "m"},
                                     {"PEXPIREAT", "m", At(h, 10'000)},
                                     {"EXEC"}}));
  // A transaction discarded by a WATCHed change emits nothing.
  h.Run("a", {"WATCH", "w"});
  h.Run("b", {"SELECT", "3"});
  h.Run("b", {"SET", "w", "1"});
  h.Propagated();
  h.Run("a", {"MULTI"});
  h.Run("a", {"SET", "y", "1"});
  EXPECT_EQ(h.Run("a", {"EXEC"}).Text(), "(nil)");
  EXPECT_EQ(h.Propagated(), Records{});
}

TEST(Propagation, FlushAndSwapAlwaysPropagate) {
  Harness h;
  h.Run("a", {"FLUSHDB"});
  h.Run("a", {"FLUSHALL"});
  h.Run("a", {"SWAPDB", "0", "0"});
  EXPECT_EQ(h.Propagated(),
            (Records{{"SELECT", "0"}, {"FLUSHDB"}, {"FLUSHALL"}, {"SWAPDB", "0", "0"}}));
}

TEST(Propagation, TemporaryKeys) {
  Harness h;
  h.Run("owner", {"SETTP", "lock", "a"});
  h.Run("owner", {"SETTP", "lock", "again"});  // exists: nothing
  h.Run("other", {"DELTP", "lock"});           // not the owner: nothing
  h.Run("owner", {"SETTP", "t1", "x", "FENCE"});
  h.Run("owner", {"DELTP", "t1", "missing", "lock2"});
  EXPECT_EQ(
      h.Propagated(),
      (Records{
          {"SELECT", "0"}, {"SETTP", "lock", "a"}, {"SETTP", "t1", "x", "FENCE"}, {"DEL", "t1"}}));
  // BSETTP that gets the key at once is a SETTP; a waiter records nothing until served.
  h.Run("second", {"BSETTP", "free", "b", "0", "FENCE"});
  EXPECT_TRUE(h.Run("waiter", {"BSETTP", "lock", "w", "0"}).is_none());
  EXPECT_EQ(h.Propagated(), (Records{{"SETTP", "free", "b", "FENCE"}}));
  // The owner leaves: a DEL for its key, then the waiter's hand-off as its SETTP.
  h.Disconnect("owner");
  EXPECT_EQ(h.TakeReply("waiter").Text(), "(integer) 1");
  EXPECT_EQ(h.Propagated(), (Records{{"DEL", "lock"}, {"SETTP", "lock", "w"}}));
  // Killed by another connection's CLIENT KILL: DEL records, nothing for CLIENT KILL itself.
  h.Run("admin", {"CLIENT", "KILL", "ID", std::to_string(h.client("second")->id)});
  EXPECT_EQ(h.Propagated(), (Records{{"DEL", "free"}}));
}

TEST(Propagation, BSetTpInsideExecNeverBlocksAndIsRecordedAsSetTp) {
  Harness h;
  h.Run("owner", {"SETTP", "busy", "a"});
  h.Propagated();
  h.Run("a", {"MULTI"});
  h.Run("a", {"BSETTP", "busy", "x", "0"});
  h.Run("a", {"BSETTP", "free", "y", "0", "FENCE"});
  Frame r = h.Run("a", {"EXEC"});
  ASSERT_EQ(r.elems.size(), 2u);
  EXPECT_EQ(r.elems[0].Text(), "(integer) 0");
  EXPECT_EQ(r.elems[1].kind, Frame::Kind::kInt);
  EXPECT_EQ(h.Propagated(), (Records{{"SETTP", "free", "y", "FENCE"}}));
}

TEST(Propagation, RenameAndMoveAreRecordedAsSent) {
  Harness h;
  h.Run("a", {"SET", "k", "v"});
  h.Run("a", {"RENAME", "k", "k2"});
  h.Run("a", {"MOVE", "k2", "1"});
  h.Run("a", {"MOVE", "k2", "1"});  // gone: nothing
  EXPECT_EQ(
      h.Propagated(),
      (Records{{"SELECT", "0"}, {"SET", "k", "v"}, {"RENAME", "k", "k2"}, {"MOVE", "k2", "1"}}));
}

TEST(Propagation, OwnerLeavingDeletesInTheKeysCurrentDatabase) {
  Harness h;
  h.Run("owner", {"SETTP", "lock", "a"});
  h.Run("owner", {"MOVE", "lock", "7"});
  h.Propagated();
  h.AdvanceTime(100);  // a cron tick with nothing to do records nothing
  EXPECT_EQ(h.Propagated(), Records{});
  h.Disconnect("owner");
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "7"}, {"DEL", "lock"}}));
}

TEST(Propagation, NoSinkMeansNoRecordsButTheSameReplies) {
  Harness h;
  h.server().propagator().RemoveSink(nullptr);  // harmless
  EXPECT_TRUE(h.server().propagator().has_sinks());
  EXPECT_EQ(h.Run("a", {"SET", "k", "v", "EX", "10"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"PTTL", "k"}).Text(), "(integer) 10000");
}

}  // namespace
}  // namespace redistp::testing
