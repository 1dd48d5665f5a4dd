// XREADGROUP's propagation and its blocked form, through the in-process harness with its manual
// clock (delivery times are exact). Every record expected here was first read from Redis
// 7.0.15's AOF after the same commands: a `>` read becomes one "XCLAIM key group consumer 0 id
// TIME <ms> RETRYCOUNT <n> FORCE JUSTID LASTID <id>" per entry made pending (MULTI ... EXEC when
// there are several); with NOACK a created consumer becomes XGROUP CREATECONSUMER and the moved
// group XGROUP SETID ... ENTRIESREAD; history reads and XREAD propagate nothing; a blocked
// XREADGROUP served later is recorded the same way, as a command of its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

constexpr int64_t kStart = 1'700'000'000'000;  // the manual clock's first wall time, in ms
const std::string kNow = std::to_string(kStart);

std::vector<std::string> XClaim(const std::string& consumer, const std::string& id) {
  return {"XCLAIM", "s",          "g", consumer, "0",      id,       "TIME",
          kNow,     "RETRYCOUNT", "1", "FORCE",  "JUSTID", "LASTID", id};
}

TEST(StreamRead, GroupReadsPropagateTheirEffects) {
  Harness h;
  h.Run("a", {"XADD", "s", "1-0", "f", "1"});
  h.Run("a", {"XADD", "s", "2-0", "f", "2"});
  h.Run("a", {"XADD", "s", "3-0", "f", "3"});
  h.Run("a", {"XGROUP", "CREATE", "s", "g", "0"});
  h.Propagated();
  h.Run("a", {"XREAD", "STREAMS", "s", "0"});                          // a read: nothing
  h.Run("a", {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0"});  // history: nothing
  h.Run("a", {"XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", "s", ">"});
  h.Run("a", {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0"});
  h.Run("a", {"XREADGROUP", "GROUP", "g", "c2", "NOACK", "STREAMS", "s", ">"});
  h.Run("a", {"XREADGROUP", "GROUP", "g", "c2", "NOACK", "STREAMS", "s", ">"});  // nothing new
  EXPECT_EQ(h.Propagated(), (Records{{"MULTI"},
                                     XClaim("c", "1-0"),
                                     XClaim("c", "2-0"),
                                     {"EXEC"},
                                     {"MULTI"},
                                     {"XGROUP", "CREATECONSUMER", "s", "g", "c2"},
                                     {"XGROUP", "SETID", "s", "g", "3-0", "ENTRIESREAD", "3"},
                                     {"EXEC"}}));
}

TEST(StreamRead, HistoryReadsCountDeliveriesOfLiveEntriesOnly) {
  Harness h;
  h.Run("a", {"XADD", "s", "1-0", "f", "1"});
  h.Run("a", {"XADD", "s", "2-0", "f", "2"});
  h.Run("a", {"XGROUP", "CREATE", "s", "g", "0"});
  h.Run("a", {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"});
  h.Run("a", {"XDEL", "s", "1-0"});
  h.AdvanceTime(50);
  Frame r = h.Run("a", {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0"});
  ASSERT_EQ(r.elems.size(), 1u);
  const Frame& entries = r.elems[0].elems[1];
  ASSERT_EQ(entries.elems.size(), 2u);
  EXPECT_EQ(entries.elems[0].elems[1].kind, Frame::Kind::kNull);  // deleted: no fields
  r = h.Run("a", {"XPENDING", "s", "g", "-", "+", "10"});
  ASSERT_EQ(r.elems.size(), 2u);
  // The deleted entry keeps its delivery (idle 50, count 1); the live one was delivered again.
  EXPECT_EQ(r.elems[0].elems[2].integer, 50);
  EXPECT_EQ(r.elems[0].elems[3].integer, 1);
  EXPECT_EQ(r.elems[1].elems[2].integer, 0);
  EXPECT_EQ(r.elems[1].elems[3].integer, 2);
}

TEST(StreamRead, ServedWaitersAreRecordedAsTheirOwnCommand) {
  Harness h;
  h.Run("a", {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  EXPECT_TRUE(
      h.Run("w1", {"XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">"}).is_none());
  EXPECT_TRUE(
      h.Run("w2", {"XREADGROUP", "GROUP", "g", "c2", "BLOCK", "0", "STREAMS", "s", ">"}).is_none());
  EXPECT_TRUE(
      h.Run("w3", {"XREADGROUP", "GROUP", "g", "c3", "NOACK", "BLOCK", "0", "STREAMS", "s", ">"})
          .is_none());
  h.Propagated();
  h.Run("a", {"XADD", "s", "1-0", "f", "1"});
  EXPECT_EQ(h.TakeReply("w1").Text().find("1-0") != std::string::npos, true);
  h.Run("a", {"MULTI"});
  h.Run("a", {"XADD", "s", "2-0", "f", "2"});
  h.Run("a", {"XADD", "s", "3-0", "f", "3"});
  h.Run("a", {"EXEC"});
  Frame r = h.TakeReply("w2");
  ASSERT_EQ(r.elems.size(), 1u);
  EXPECT_EQ(r.elems[0].elems[1].elems.size(), 2u);  // both entries, to the first waiter left
  h.Run("a", {"XADD", "s", "4-0", "f", "4"});
  r = h.TakeReply("w3");
  ASSERT_EQ(r.elems.size(), 1u);
  EXPECT_EQ(h.Propagated(), (Records{{"XADD", "s", "1-0", "f", "1"},
                                     XClaim("c1", "1-0"),
                                     {"MULTI"},
                                     {"XADD", "s", "2-0", "f", "2"},
                                     {"XADD", "s", "3-0", "f", "3"},
                                     {"EXEC"},
                                     {"MULTI"},
                                     XClaim("c2", "2-0"),
                                     XClaim("c2", "3-0"),
                                     {"EXEC"},
                                     {"XADD", "s", "4-0", "f", "4"},
                                     {"MULTI"},
                                     {"XGROUP", "CREATECONSUMER", "s", "g", "c3"},
                                     {"XGROUP", "SETID", "s", "g", "4-0", "ENTRIESREAD", "4"},
                                     {"EXEC"}}));
}

TEST(StreamRead, WaitersOfADeletedStreamOrDestroyedGroup) {
  Harness h;
  h.Run("a", {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  h.Run("w1", {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"});
  h.Run("w2", {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  h.Run("a", {"DEL", "s"});
  EXPECT_EQ(h.TakeReply("w1").Text(), "(error) UNBLOCKED the stream key no longer exists");
  EXPECT_TRUE(h.TakeReply("w2").is_none());  // XREAD keeps waiting
  h.Run("a", {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  h.Run("w1", {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"});
  h.Run("a", {"XGROUP", "DESTROY", "s", "g"});
  EXPECT_EQ(h.TakeReply("w1").Text(),
            "(error) NOGROUP the consumer group this client was blocked on no longer exists");
  h.Run("a", {"XADD", "s", "1-0", "f", "1"});
  EXPECT_NE(h.TakeReply("w2").Text().find("1-0"), std::string::npos);
}

}  // namespace
}  // namespace redistp::testing
