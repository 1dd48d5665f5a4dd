// How the list commands are propagated, blocking ones included, through the in-process harness.
// Every expectation was first read from Redis 7.0.15's AOF (appendonlydir/*.incr.aof) after the
// same commands: LMPOP and a BLMPOP served at once or later become LPOP/RPOP key <popped>, a
// BLPOP becomes LPOP, a BLMOVE served at once keeps the client's words while a served waiter is
// written with lower-case "left"/"right", BRPOPLPUSH becomes RPOPLPUSH, and inside MULTI a
// blocking command that finds nothing records nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(ListPropagation, NonBlockingFormsOfTheBlockingCommands) {
  Harness h;
  h.Run("a", {"rpush", "a", "1", "2", "3", "4", "5", "6", "7", "8", "9"});
  h.Run("a", {"lmpop", "1", "a", "left"});
  h.Run("a", {"lmpop", "1", "a", "right", "count", "2"});
  h.Run("a", {"blmpop", "0", "1", "a", "left", "count", "3"});
  h.Run("a", {"blpop", "a", "0"});
  h.Run("a", {"brpop", "a", "0"});
  h.Run("a", {"blmove", "a", "b", "left", "right", "0"});
  h.Run("a", {"brpoplpush", "b", "a", "0"});
  h.Run("a", {"lmove", "a", "b", "right", "left"});
  h.Run("a", {"rpoplpush", "a", "b"});  // a is empty: nothing
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"rpush", "a", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
                                     {"LPOP", "a", "1"},
                                     {"RPOP", "a", "2"},
                                     {"LPOP", "a", "3"},
                                     {"LPOP", "a"},
                                     {"RPOP", "a"},
                                     {"LMOVE", "a", "b", "left", "right"},
                                     {"RPOPLPUSH", "b", "a"},
                                     {"lmove", "a", "b", "right", "left"}}));
}

// Redis propagates LTRIM by the elements it removed: a range that keeps them all is no record
// (difftest's persistence round trips found ours writing it; its replay fired "ltrim" again).
TEST(ListPropagation, LTrimThatRemovesNothingRecordsNothing) {
  Harness h;
  h.Run("a", {"rpush", "l", "a", "b"});
  h.Run("a", {"ltrim", "l", "-3", "152"});
  h.Run("a", {"ltrim", "l", "0", "-1"});
  h.Run("a", {"ltrim", "nokey", "0", "1"});
  h.Run("a", {"ltrim", "l", "1", "-1"});
  EXPECT_EQ(h.Propagated(),
            (Records{{"SELECT", "0"}, {"rpush", "l", "a", "b"}, {"ltrim", "l", "1", "-1"}}));
}

TEST(ListPropagation, PoppedCountNotAskedCount) {
  Harness h;
  h.Run("a", {"rpush", "q", "1", "2"});
  h.Run("a", {"lmpop", "1", "q", "left", "count", "10"});
  h.Run("a", {"rpush", "q", "1", "2"});
  h.Run("a", {"blmove", "q", "q", "LEFT", "RIGHT", "0"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"rpush", "q", "1", "2"},
                                     {"LPOP", "q", "2"},
                                     {"rpush", "q", "1", "2"},
                                     {"LMOVE", "q", "q", "LEFT", "RIGHT"}}));
}

TEST(ListPropagation, ServedWaitersAreRecordedAsTheirNonBlockingForm) {
  Harness h;
  EXPECT_TRUE(h.Run("w1", {"blpop", "w1", "0"}).is_none());
  EXPECT_TRUE(h.Run("w2", {"blmpop", "0", "1", "w2", "right", "count", "5"}).is_none());
  EXPECT_TRUE(h.Run("w3", {"blmove", "w3", "w1", "LEFT", "RIGHT", "0"}).is_none());
  EXPECT_TRUE(h.Run("w4", {"brpoplpush", "w4", "w3", "0"}).is_none());
  h.Run("a", {"rpush", "w2", "a", "b", "c"});
  EXPECT_EQ(h.TakeReply("w2").elems.size(), 2u);
  // One push starts a chain: w4's element goes to w3, whose BLMOVE takes it to w1's BLPOP.
  h.Run("a", {"rpush", "w4", "x", "y"});
  EXPECT_EQ(h.TakeReply("w4").Text(), "\"y\"");
  EXPECT_EQ(h.TakeReply("w3").Text(), "\"y\"");
  Frame r = h.TakeReply("w1");
  ASSERT_EQ(r.elems.size(), 2u);
  EXPECT_EQ(r.elems[0].Text(), "\"w1\"");
  EXPECT_EQ(r.elems[1].Text(), "\"y\"");
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"rpush", "w2", "a", "b", "c"},
                                     {"RPOP", "w2", "3"},
                                     {"rpush", "w4", "x", "y"},
                                     {"RPOPLPUSH", "w4", "w3"},
                                     {"LMOVE", "w3", "w1", "left", "right"},
                                     {"LPOP", "w1"}}));
}

TEST(ListPropagation, InsideMultiNothingBlocksAndEmptyPopsRecordNothing) {
  Harness h;
  h.Run("a", {"MULTI"});
  h.Run("a", {"blpop", "nothing", "0"});
  h.Run("a", {"blmove", "nothing", "x", "left", "left", "0"});
  h.Run("a", {"rpush", "zz", "1"});
  h.Run("a", {"blpop", "zz", "0"});
  Frame r = h.Run("a", {"EXEC"});
  ASSERT_EQ(r.elems.size(), 4u);
  EXPECT_EQ(r.elems[0].kind, Frame::Kind::kNull);
  EXPECT_EQ(r.elems[1].kind, Frame::Kind::kNull);
  EXPECT_EQ(h.Propagated(),
            (Records{{"SELECT", "0"}, {"MULTI"}, {"rpush", "zz", "1"}, {"LPOP", "zz"}, {"EXEC"}}));
}

}  // namespace
}  // namespace redistp::testing
