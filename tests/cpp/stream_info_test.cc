// XINFO GROUPS, XINFO CONSUMERS and XINFO STREAM FULL over consumer groups, through the
// in-process harness. The groups are built with the type's own operations (XGROUP and
// XREADGROUP live in other files), in the state Redis 7.0.15 reaches after
//   XADD s 1-1 a 1; XADD s 2-1 b 2; XADD s 3-1 c 3
//   XGROUP CREATE s g1 0; XGROUP CREATE s g0 $
//   XREADGROUP GROUP g1 alice COUNT 2 STREAMS s >      (delivers 1-1 and 2-1 to alice)
//   XGROUP CREATECONSUMER s g1 bob                     (10 ms later)
// and the expected replies are what Redis answered there (times relative to the clock).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/database.h"
#include "harness.h"
#include "server/server.h"
#include "types/stream.h"

namespace redistp::testing {
namespace {

// Builds the groups of the file comment on stream `s` of db 0; returns the time of the read.
int64_t BuildGroups(Harness& h) {
  h.Run("a", {"xadd", "s", "1-1", "a", "1"});
  h.Run("a", {"xadd", "s", "2-1", "b", "2"});
  h.Run("a", {"xadd", "s", "3-1", "c", "3"});
  Entry* e = h.server().db(0).FindRaw("s");
  auto* s = static_cast<StreamObject*>(e->value.object());
  const int64_t now = h.server().NowMs();
  // XGROUP CREATE without ENTRIESREAD leaves entries-read unknown.
  StreamGroup* g1 = s->CreateGroup("g1", StreamID{0, 0}, StreamGroup::kEntriesReadUnknown);
  s->CreateGroup("g0", s->last_id(), StreamGroup::kEntriesReadUnknown);
  StreamConsumer* alice = g1->CreateConsumer("alice", now);
  for (StreamID id : {StreamID{1, 1}, StreamID{2, 1}}) {
    g1->AddPending(id, alice, now);
    s->AdvanceGroup(*g1, id);
  }
  h.AdvanceTime(10);
  g1->CreateConsumer("bob", h.server().NowMs());
  return now;
}

TEST(StreamInfo, GroupsAndConsumers) {
  Harness h;
  BuildGroups(h);
  EXPECT_EQ(
      h.Run("a", {"xinfo", "groups", "s"}).Text(),
      "[[\"name\", \"g0\", \"consumers\", (integer) 0, \"pending\", (integer) 0, "
      "\"last-delivered-id\", \"3-1\", \"entries-read\", (nil), \"lag\", (integer) 0], "
      "[\"name\", \"g1\", \"consumers\", (integer) 2, \"pending\", (integer) 2, "
      "\"last-delivered-id\", \"2-1\", \"entries-read\", (integer) 2, \"lag\", (integer) 1]]");
  h.AdvanceTime(5);
  EXPECT_EQ(h.Run("a", {"xinfo", "consumers", "s", "g1"}).Text(),
            "[[\"name\", \"alice\", \"pending\", (integer) 2, \"idle\", (integer) 15], "
            "[\"name\", \"bob\", \"pending\", (integer) 0, \"idle\", (integer) 5]]");
  EXPECT_EQ(h.Run("a", {"xinfo", "consumers", "s", "nog"}).Text(),
            "(error) NOGROUP No such consumer group 'nog' for key name 's'");
  EXPECT_EQ(h.Run("a", {"xinfo", "stream", "s"}).elems[15].integer, 2);  // groups
}

TEST(StreamInfo, FullListsGroupsPelsAndConsumersUpToCount) {
  Harness h;
  const std::string t = std::to_string(BuildGroups(h));
  const std::string bob_t = std::to_string(h.server().NowMs());
  Frame full = h.Run("a", {"xinfo", "stream", "s", "full", "count", "1"});
  ASSERT_EQ(full.elems.size(), 18u);
  EXPECT_EQ(full.elems[14].Text(), "\"entries\"");
  EXPECT_EQ(full.elems[15].Text(), "[[\"1-1\", [\"a\", \"1\"]]]");
  EXPECT_EQ(full.elems[16].Text(), "\"groups\"");
  EXPECT_EQ(
      full.elems[17].Text(),
      "[[\"name\", \"g0\", \"last-delivered-id\", \"3-1\", \"entries-read\", (nil), "
      "\"lag\", (integer) 0, \"pel-count\", (integer) 0, \"pending\", [], \"consumers\", []], "
      "[\"name\", \"g1\", \"last-delivered-id\", \"2-1\", \"entries-read\", (integer) 2, "
      "\"lag\", (integer) 1, \"pel-count\", (integer) 2, \"pending\", [[\"1-1\", \"alice\", "
      "(integer) " +
          t + ", (integer) 1]], \"consumers\", [[\"name\", \"alice\", \"seen-time\", (integer) " +
          t + ", \"pel-count\", (integer) 2, \"pending\", [[\"1-1\", (integer) " + t +
          ", (integer) 1]]], [\"name\", \"bob\", \"seen-time\", (integer) " + bob_t +
          ", \"pel-count\", (integer) 0, \"pending\", []]]]]");
  // COUNT 0 shows everything.
  Frame all = h.Run("a", {"xinfo", "stream", "s", "full", "count", "0"});
  EXPECT_EQ(all.elems[15].elems.size(), 3u);
  EXPECT_EQ(all.elems[17].elems[1].elems[11].elems.size(), 2u);  // g1's pending
}

TEST(StreamInfo, Resp3Maps) {
  Harness h;
  BuildGroups(h);
  h.SetResp("a", 3);
  Frame groups = h.Run("a", {"xinfo", "groups", "s"});
  ASSERT_EQ(groups.elems.size(), 2u);
  EXPECT_EQ(groups.elems[0].kind, Frame::Kind::kMap);
  Frame info = h.Run("a", {"xinfo", "stream", "s"});
  EXPECT_EQ(info.kind, Frame::Kind::kMap);
  EXPECT_EQ(info.elems.size(), 20u);
}

}  // namespace
}  // namespace redistp::testing
