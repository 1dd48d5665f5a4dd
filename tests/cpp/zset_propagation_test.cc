// How the sorted-set pops are propagated, blocking ones included, through the in-process
// harness. Every expectation was first read from Redis 7.0.15's AOF after the same commands:
// ZPOPMIN/ZPOPMAX keep the client's words; ZMPOP and BZMPOP (at once or served later) become
// ZPOPMIN/ZPOPMAX key <number popped>; BZPOPMIN/BZPOPMAX become ZPOPMIN/ZPOPMAX key; inside
// MULTI a blocking pop that finds nothing records nothing; *STORE commands keep their words.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(ZSetPropagation, PopsServedAtOnce) {
  Harness h;
  h.Run("a", {"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f"});
  h.Run("a", {"zpopmin", "z"});
  h.Run("a", {"zpopmax", "z", "2"});
  h.Run("a", {"zmpop", "1", "z", "min"});
  h.Run("a", {"zmpop", "1", "z", "MAX", "count", "9"});
  h.Run("a", {"zpopmin", "z"});  // absent: nothing
  h.Run("a", {"zadd", "z", "1", "a", "2", "b", "3", "c"});
  h.Run("a", {"bzpopmin", "z", "0"});
  h.Run("a", {"bzpopmax", "nokey", "z", "0"});
  h.Run("a", {"bzmpop", "0", "1", "z", "min", "count", "4"});
  EXPECT_EQ(h.Propagated(),
            (Records{{"SELECT", "0"},
                     {"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f"},
                     {"zpopmin", "z"},
                     {"zpopmax", "z", "2"},
                     {"ZPOPMIN", "z", "1"},
                     {"ZPOPMAX", "z", "2"},
                     {"zadd", "z", "1", "a", "2", "b", "3", "c"},
                     {"ZPOPMIN", "z"},
                     {"ZPOPMAX", "z"},
                     {"ZPOPMIN", "z", "1"}}));
}

TEST(ZSetPropagation, ServedWaitersAreRecordedAsPops) {
  Harness h;
  EXPECT_TRUE(h.Run("w1", {"bzpopmin", "k1", "0"}).is_none());
  EXPECT_TRUE(h.Run("w2", {"bzmpop", "0", "1", "k2", "max", "count", "9"}).is_none());
  h.Run("a", {"zadd", "k1", "1", "a", "2", "b"});
  Frame r = h.TakeReply("w1");
  ASSERT_EQ(r.elems.size(), 3u);
  EXPECT_EQ(r.elems[0].Text(), "\"k1\"");
  EXPECT_EQ(r.elems[1].Text(), "\"a\"");
  h.Run("a", {"zadd", "k2", "1", "a", "2", "b", "3", "c"});
  r = h.TakeReply("w2");
  ASSERT_EQ(r.elems.size(), 2u);
  EXPECT_EQ(r.elems[1].elems.size(), 3u);
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"zadd", "k1", "1", "a", "2", "b"},
                                     {"ZPOPMIN", "k1"},
                                     {"zadd", "k2", "1", "a", "2", "b", "3", "c"},
                                     {"ZPOPMAX", "k2", "3"}}));
}

TEST(ZSetPropagation, InsideMultiNothingBlocks) {
  Harness h;
  h.Run("a", {"MULTI"});
  h.Run("a", {"bzpopmin", "nothing", "0"});
  h.Run("a", {"bzmpop", "0", "1", "nothing", "min"});
  h.Run("a", {"zadd", "y", "1", "a"});
  h.Run("a", {"bzpopmin", "y", "0"});
  Frame r = h.Run("a", {"EXEC"});
  ASSERT_EQ(r.elems.size(), 4u);
  EXPECT_EQ(r.elems[0].kind, Frame::Kind::kNull);
  EXPECT_EQ(r.elems[1].kind, Frame::Kind::kNull);
  EXPECT_EQ(
      h.Propagated(),
      (Records{{"SELECT", "0"}, {"MULTI"}, {"zadd", "y", "1", "a"}, {"ZPOPMIN", "y"}, {"EXEC"}}));
}

TEST(ZSetPropagation, StoresKeepTheirWordsAndEmptyResultsDelete) {
  Harness h;
  h.Run("a", {"zadd", "z", "1", "a"});
  h.Run("a", {"zunionstore", "d", "1", "z"});
  h.Run("a", {"zinterstore", "d", "2", "z", "nokey"});  // deletes d
  h.Run("a", {"zdiffstore", "d", "2", "z", "z"});       // d absent: nothing changes
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"zadd", "z", "1", "a"},
                                     {"zunionstore", "d", "1", "z"},
                                     {"zinterstore", "d", "2", "z", "nokey"}}));
}

}  // namespace
}  // namespace redistp::testing
