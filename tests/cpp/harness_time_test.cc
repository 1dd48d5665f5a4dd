// Time-driven behaviour through the in-process harness (tests/cpp/harness.h): expiry (lazy and
// active), WATCHEX pushes caused by expiry, BSETTP timeouts, CLIENT LEASE, CLIENT PAUSE's end
// and the idle timeout. Time moves only by AdvanceTime on the manual clock: no test sleeps, and
// every expectation holds exactly at the millisecond the rules say.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Kind = Frame::Kind;

TEST(HarnessTime, LazyExpiryAtTheExactMillisecond) {
  Harness h;
  h.server().keyspace().expiry.SetActive(false);  // only lookups may expire
  EXPECT_EQ(h.Run("a", {"SET", "k", "v", "PX", "100"}).Text(), "OK");
  h.AdvanceTime(100);  // now == expire time: still alive (expired means now > expire)
  EXPECT_EQ(h.Run("a", {"GET", "k"}).Text(), "\"v\"");
  EXPECT_EQ(h.Run("a", {"PTTL", "k"}).Text(), "(integer) 0");
  h.AdvanceTime(1);
  EXPECT_EQ(h.server().db(0).size(), 1u);  // nobody looked: still in the table
  EXPECT_EQ(h.Run("a", {"GET", "k"}).Text(), "(nil)");
  EXPECT_EQ(h.server().db(0).size(), 0u);
}

TEST(HarnessTime, ActiveExpiryRemovesUntouchedKeys) {
  Harness h;
  for (int i = 0; i < 50; ++i) {
    h.Run("a", {"SET", "k" + std::to_string(i), "v", "PX", std::to_string(10 + i)});
  }
  h.Run("a", {"SET", "forever", "v"});
  h.AdvanceTime(30);  // k0..k19 have expire <= now-1
  size_t left = h.server().db(0).size();
  EXPECT_LT(left, 51u);
  EXPECT_GE(left, 31u);
  h.AdvanceTime(100);
  EXPECT_EQ(h.server().db(0).size(), 1u);
  EXPECT_EQ(h.Run("a", {"DBSIZE"}).Text(), "(integer) 1");
}

TEST(HarnessTime, WatchExPushWhenAWatchedKeyExpires) {
  Harness h;
  h.SetResp("w", 3);
  h.Run("a", {"SET", "lock", "x", "PX", "500"});
  EXPECT_EQ(h.Run("w", {"WATCHEX", "lock"}).Text(), "EXIST");
  h.AdvanceTime(500);
  EXPECT_TRUE(h.Pushes("w").empty());
  h.AdvanceTime(1);
  std::vector<Frame> pushes = h.Pushes("w");
  ASSERT_EQ(pushes.size(), 1u);
  EXPECT_EQ(pushes[0].Text(), ">[\"watchex\", \"lock\", \"DEL\"]");
  EXPECT_EQ(h.server().db(0).size(), 0u);
}

TEST(HarnessTime, WatchExPushInResp2IsAnArray) {
  Harness h;
  h.Run("a", {"SET", "k", "x", "PX", "10"});
  EXPECT_EQ(h.Run("w", {"WATCHEX", "k"}).Text(), "EXIST");
  h.AdvanceTime(11);
  std::vector<Frame> pushes = h.Pushes("w");
  ASSERT_EQ(pushes.size(), 1u);
  EXPECT_EQ(pushes[0].kind, Kind::kArray);
  EXPECT_EQ(pushes[0].raw, "*3\r\n$7\r\nwatchex\r\n$1\r\nk\r\n$3\r\nDEL\r\n");
}

TEST(HarnessTime, BSetTpTimesOutWithZero) {
  Harness h;
  EXPECT_EQ(h.Run("owner", {"SETTP", "lock", "a"}).Text(), "(integer) 1");
  EXPECT_TRUE(h.Run("waiter", {"BSETTP", "lock", "b", "1.5"}).is_none());
  h.AdvanceTime(1499);
  EXPECT_TRUE(h.TakeReply("waiter").is_none());
  h.AdvanceTime(1);
  EXPECT_EQ(h.TakeReply("waiter").Text(), "(integer) 0");
  // The waiter left the queue: freeing the key now hands it to nobody.
  h.Disconnect("owner");
  EXPECT_EQ(h.server().db(0).size(), 0u);
  EXPECT_EQ(h.Run("waiter", {"PING"}).Text(), "PONG");
}

TEST(HarnessTime, BSetTpHandOffBeforeTimeout) {
  Harness h;
  h.Run("owner", {"SETTP", "lock", "a"});
  EXPECT_TRUE(h.Run("waiter", {"BSETTP", "lock", "b", "10"}).is_none());
  h.AdvanceTime(5000);
  h.Disconnect("owner");
  EXPECT_EQ(h.TakeReply("waiter").Text(), "(integer) 1");
  EXPECT_EQ(h.Run("x", {"GET", "lock"}).Text(), "\"b\"");
  EXPECT_EQ(h.Run("x", {"OBJECT", "OWNER", "lock"}).integer,
            static_cast<int64_t>(h.client("waiter")->id));
  h.AdvanceTime(10000);  // the old deadline passing changes nothing
  EXPECT_TRUE(h.TakeReply("waiter").is_none());
}

TEST(HarnessTime, ClientLeaseLapsesWithoutTraffic) {
  Harness h;
  EXPECT_EQ(h.Run("a", {"CLIENT", "LEASE", "1000"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"SETTP", "lock", "me"}).Text(), "(integer) 1");
  h.AdvanceTime(600);
  EXPECT_EQ(h.Run("a", {"PING"}).Text(), "PONG");  // renews the lease
  h.AdvanceTime(1000);
  EXPECT_FALSE(h.Closed("a"));
  h.AdvanceTime(1);
  EXPECT_TRUE(h.Closed("a"));
  EXPECT_EQ(h.Run("b", {"EXISTS", "lock"}).Text(), "(integer) 0");
}

TEST(HarnessTime, ClientLeaseAppliesToABlockedWaiter) {
  Harness h;
  h.Run("owner", {"SETTP", "lock", "a"});
  h.Run("waiter", {"CLIENT", "LEASE", "200"});
  EXPECT_TRUE(h.Run("waiter", {"BSETTP", "lock", "b", "0"}).is_none());
  h.AdvanceTime(201);
  EXPECT_TRUE(h.Closed("waiter"));
  h.Disconnect("owner");
  EXPECT_EQ(h.server().db(0).size(), 0u);  // no hand-off to the departed waiter
}

TEST(HarnessTime, ClientPauseEndsAndHeldCommandsRun) {
  Harness h;
  EXPECT_EQ(h.Run("admin", {"CLIENT", "PAUSE", "1000", "WRITE"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"GET", "k"}).Text(), "(nil)");  // reads go through a WRITE pause
  EXPECT_TRUE(h.Run("a", {"SET", "k", "v"}).is_none());
  h.AdvanceTime(999);
  EXPECT_TRUE(h.TakeReply("a").is_none());
  EXPECT_EQ(h.server().db(0).size(), 0u);
  h.AdvanceTime(1);
  EXPECT_EQ(h.TakeReply("a").Text(), "OK");
  EXPECT_EQ(h.Run("b", {"GET", "k"}).Text(), "\"v\"");
}

TEST(HarnessTime, IdleTimeoutClosesQuietClientsOnly) {
  Harness h;
  EXPECT_EQ(h.Run("admin", {"CONFIG", "SET", "timeout", "2"}).Text(), "OK");
  h.Run("quiet", {"PING"});
  h.Run("owner", {"SETTP", "lock", "a"});
  h.Run("blocked", {"BSETTP", "lock", "b", "0"});
  h.AdvanceTime(1500);
  h.Run("admin", {"PING"});
  h.AdvanceTime(501);
  EXPECT_TRUE(h.Closed("quiet"));
  EXPECT_TRUE(h.Closed("owner"));
  EXPECT_FALSE(h.Closed("admin"));
  EXPECT_FALSE(h.Closed("blocked"));  // blocked clients are exempt from `timeout`
  // The owner's departure handed the key to the blocked waiter.
  EXPECT_EQ(h.TakeReply("blocked").Text(), "(integer) 1");
}

TEST(HarnessTime, TtlReadsTheManualClock) {
  Harness h;
  h.Run("a", {"SET", "k", "v", "EX", "100"});
  h.AdvanceTime(40'000);
  EXPECT_EQ(h.Run("a", {"TTL", "k"}).Text(), "(integer) 60");
  EXPECT_EQ(h.Run("a", {"PEXPIRETIME", "k"}).integer, h.clock().WallMs() - 40'000 + 100'000);
  std::vector<Frame> t = h.Run("a", {"TIME"}).elems;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].str, std::to_string(h.clock().WallUs() / 1000000));
}

}  // namespace
}  // namespace redistp::testing
