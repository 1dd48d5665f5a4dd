// The consumer-group commands (XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM) through the
// in-process harness, with its manual clock so idle times and delivery times are exact. Every
// propagation expectation was first read from Redis 7.0.15's AOF after the same commands: the
// XGROUP subcommands and XACK replicate as themselves when they changed something; XCLAIM and
// XAUTOCLAIM become one "XCLAIM ... TIME ... RETRYCOUNT ... FORCE JUSTID LASTID ..." per record
// claimed or dropped (a dropped record under its old owner), and a LASTID that moved nothing
// else becomes XGROUP SETID ... ENTRIESREAD.
//
// The streams are filled through the type (StreamObject::Append) rather than XADD, which these
// tests do not exercise.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "harness.h"
#include "server/server.h"
#include "types/stream.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

constexpr int64_t kStart = 1'700'000'000'000;  // the manual clock's first wall time, in ms

// Creates stream `key` in db 0 with entries <ms>-0 "f" "v<ms>" for each ms in `ids`.
void MakeStream(Harness& h, const std::string& key, std::initializer_list<uint64_t> ids) {
  auto* s = new StreamObject();
  for (uint64_t ms : ids) {
    std::string value = "v" + std::to_string(ms);
    s->Append(StreamID{ms, 0}, {"f", value}, h.server().keyspace().limits);
  }
  h.server().db(0).Add(key, Value::Object(ValueType::kStream, s), KeyNotice{});
}

StreamObject& StreamAt(Harness& h, const std::string& key) {
  Entry* e = h.server().db(0).FindRaw(key);
  return *static_cast<StreamObject*>(e->value.object());
}

TEST(StreamGroupCommands, XGroupReplicatesOnlyWhatChanged) {
  Harness h;
  EXPECT_EQ(h.Run("a", {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"XGROUP", "CREATE", "s", "g", "0"}).Text(),
            "(error) BUSYGROUP Consumer Group name already exists");
  EXPECT_EQ(h.Run("a", {"XGROUP", "CREATECONSUMER", "s", "g", "c"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("a", {"XGROUP", "CREATECONSUMER", "s", "g", "c"}).Text(), "(integer) 0");
  EXPECT_EQ(h.Run("a", {"XGROUP", "DELCONSUMER", "s", "g", "c"}).Text(), "(integer) 0");
  EXPECT_EQ(h.Run("a", {"XGROUP", "DELCONSUMER", "s", "g", "c"}).Text(), "(integer) 0");
  EXPECT_EQ(h.Run("a", {"XGROUP", "DESTROY", "s", "nog"}).Text(), "(integer) 0");
  EXPECT_EQ(h.Run("a", {"XGROUP", "SETID", "s", "g", "0", "ENTRIESREAD", "3"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"XACK", "s", "g", "1-0"}).Text(), "(integer) 0");
  EXPECT_EQ(h.Run("a", {"XGROUP", "DESTROY", "s", "g"}).Text(), "(integer) 1");
  // The emptied stream stays: a stream key outlives its last group and entry.
  EXPECT_EQ(h.Run("a", {"EXISTS", "s"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"},
                                     {"XGROUP", "CREATECONSUMER", "s", "g", "c"},
                                     {"XGROUP", "DELCONSUMER", "s", "g", "c"},
                                     {"XGROUP", "SETID", "s", "g", "0", "ENTRIESREAD", "3"},
                                     {"XGROUP", "DESTROY", "s", "g"}}));
}

TEST(StreamGroupCommands, XGroupSetIdAndEntriesRead) {
  Harness h;
  MakeStream(h, "s", {1, 2, 3});
  EXPECT_EQ(h.Run("a", {"XGROUP", "CREATE", "s", "g", "$"}).Text(), "OK");
  StreamGroup* g = StreamAt(h, "s").FindGroup("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->last_id, (StreamID{3, 0}));
  EXPECT_EQ(g->entries_read, StreamGroup::kEntriesReadUnknown);  // 7.0: `$` sets no counter
  EXPECT_EQ(h.Run("a", {"XGROUP", "SETID", "s", "g", "2", "ENTRIESREAD", "2"}).Text(), "OK");
  EXPECT_EQ(g->last_id, (StreamID{2, 0}));
  EXPECT_EQ(g->entries_read, 2);
  EXPECT_EQ(h.Run("a", {"XGROUP", "SETID", "s", "g", "0", "ENTRIESREAD", "-2"}).Text(),
            "(error) ERR value for ENTRIESREAD must be positive or -1");
  EXPECT_EQ(h.Run("a", {"XGROUP", "SETID", "s", "nog", "abc"}).Text(),
            "(error) NOGROUP No such consumer group 'nog' for key name 's'");
  EXPECT_EQ(g->last_id, (StreamID{2, 0}));
}

TEST(StreamGroupCommands, XClaimMovesRecordsAndReplicatesEachOne) {
  Harness h;
  MakeStream(h, "s", {1, 2, 3});
  h.Run("a", {"XGROUP", "CREATE", "s", "g", "0"});
  h.Propagated();
  const std::string t0 = std::to_string(kStart);
  // FORCE creates the records: one delivery, plus this one.
  EXPECT_EQ(h.Run("a", {"XCLAIM", "s", "g", "alice", "0", "1-0", "2-0", "FORCE"}).Text(),
            "[[\"1-0\", [\"f\", \"v1\"]], [\"2-0\", [\"f\", \"v2\"]]]");
  EXPECT_EQ(h.Propagated(), (Records{{"MULTI"},
                                     {"XCLAIM", "s", "g", "alice", "0", "1-0", "TIME", t0,
                                      "RETRYCOUNT", "2", "FORCE", "JUSTID", "LASTID", "0-0"},
                                     {"XCLAIM", "s", "g", "alice", "0", "2-0", "TIME", t0,
                                      "RETRYCOUNT", "2", "FORCE", "JUSTID", "LASTID", "0-0"},
                                     {"EXEC"}}));
  h.AdvanceTime(100);
  const std::string t1 = std::to_string(kStart + 100);
  // Idle 100 >= 50: claimed; JUSTID keeps the count; the id is replicated as it was written.
  EXPECT_EQ(h.Run("a", {"XCLAIM", "s", "g", "bob", "50", "1", "JUSTID"}).Text(), "[\"1-0\"]");
  EXPECT_EQ(h.Propagated(), (Records{{"XCLAIM", "s", "g", "bob", "0", "1", "TIME", t1, "RETRYCOUNT",
                                      "2", "FORCE", "JUSTID", "LASTID", "0-0"}}));
  // Not idle enough, not pending without FORCE, not in the stream: nothing.
  EXPECT_EQ(h.Run("a", {"XCLAIM", "s", "g", "bob", "500", "2-0", "3-0", "9-0"}).Text(), "[]");
  EXPECT_EQ(h.Run("a", {"XCLAIM", "s", "g", "carol", "0", "9-0", "FORCE"}).Text(), "[]");
  EXPECT_EQ(h.Propagated(), Records{});
  StreamGroup* g = StreamAt(h, "s").FindGroup("g");
  EXPECT_EQ(g->FindConsumer("carol"), nullptr);  // created only by a claim
  // LASTID alone: replicated as XGROUP SETID.
  EXPECT_EQ(h.Run("a", {"XCLAIM", "s", "g", "carol", "500", "2-0", "LASTID", "9-0"}).Text(), "[]");
  EXPECT_EQ(h.Propagated(), (Records{{"XGROUP", "SETID", "s", "g", "9-0", "ENTRIESREAD", "-1"}}));
  // IDLE/TIME set the delivery time, RETRYCOUNT the count; the last of IDLE and TIME wins.
  EXPECT_EQ(h.Run("a", {"XCLAIM", "s", "g", "bob", "0", "2-0", "TIME", "5", "IDLE", "30",
                        "RETRYCOUNT", "7", "JUSTID"})
                .Text(),
            "[\"2-0\"]");
  EXPECT_EQ(h.Propagated(),
            (Records{{"XCLAIM", "s", "g", "bob", "0", "2-0", "TIME", std::to_string(kStart + 70),
                      "RETRYCOUNT", "7", "FORCE", "JUSTID", "LASTID", "9-0"}}));
  EXPECT_EQ(h.Run("a", {"XPENDING", "s", "g", "-", "+", "10"}).Text(),
            "[[\"1-0\", \"bob\", (integer) 0, (integer) 2], "
            "[\"2-0\", \"bob\", (integer) 30, (integer) 7]]");
  // An entry deleted while pending leaves the PEL, replicated under its old owner.
  ASSERT_TRUE(StreamAt(h, "s").Delete(StreamID{2, 0}));
  EXPECT_EQ(h.Run("a", {"XCLAIM", "s", "g", "dave", "0", "2-0"}).Text(), "[]");
  EXPECT_EQ(h.Propagated(),
            (Records{{"XCLAIM", "s", "g", "bob", "0", "2-0", "TIME", std::to_string(kStart + 70),
                      "RETRYCOUNT", "7", "FORCE", "JUSTID", "LASTID", "9-0"}}));
  EXPECT_EQ(h.Run("a", {"XPENDING", "s", "g"}).Text(),
            "[(integer) 1, \"1-0\", \"1-0\", [[\"bob\", \"1\"]]]");
  EXPECT_EQ(g->FindConsumer("dave"), nullptr);
}

TEST(StreamGroupCommands, XAutoClaimWalksThePelAndReportsDeletedEntries) {
  Harness h;
  MakeStream(h, "s", {1, 2, 3, 4, 5});
  h.Run("a", {"XGROUP", "CREATE", "s", "g", "0"});
  h.Run("a",
        {"XCLAIM", "s", "g", "alice", "0", "1-0", "2-0", "3-0", "4-0", "5-0", "FORCE", "JUSTID"});
  ASSERT_TRUE(StreamAt(h, "s").Delete(StreamID{2, 0}));
  ASSERT_TRUE(StreamAt(h, "s").Delete(StreamID{4, 0}));
  h.Propagated();
  h.AdvanceTime(10);
  const std::string t0 = std::to_string(kStart);
  const std::string t1 = std::to_string(kStart + 10);
  // A deleted entry counts towards COUNT.
  EXPECT_EQ(h.Run("a", {"XAUTOCLAIM", "s", "g", "bob", "5", "-", "COUNT", "2"}).Text(),
            "[\"3-0\", [[\"1-0\", [\"f\", \"v1\"]]], [\"2-0\"]]");
  EXPECT_EQ(h.Propagated(), (Records{{"MULTI"},
                                     {"XCLAIM", "s", "g", "bob", "0", "1-0", "TIME", t1,
                                      "RETRYCOUNT", "2", "FORCE", "JUSTID", "LASTID", "0-0"},
                                     {"XCLAIM", "s", "g", "alice", "0", "2-0", "TIME", t0,
                                      "RETRYCOUNT", "1", "FORCE", "JUSTID", "LASTID", "0-0"},
                                     {"EXEC"}}));
  EXPECT_EQ(h.Run("a", {"XAUTOCLAIM", "s", "g", "bob", "0", "(1-0", "JUSTID"}).Text(),
            "[\"0-0\", [\"3-0\", \"5-0\"], [\"4-0\"]]");
  EXPECT_EQ(h.Run("a", {"XPENDING", "s", "g"}).Text(),
            "[(integer) 3, \"1-0\", \"5-0\", [[\"bob\", \"3\"]]]");
  // Only COUNT x 10 records are looked at: none of bob's is idle for 1 s yet.
  EXPECT_EQ(h.Run("a", {"XAUTOCLAIM", "s", "g", "carol", "1000", "-", "COUNT", "1"}).Text(),
            "[\"0-0\", [], []]");
  EXPECT_EQ(h.Propagated().size(), 5u);  // MULTI, two claims and a drop, EXEC; carol: nothing
}

TEST(StreamGroupCommands, XAutoClaimAttemptBound) {
  Harness h;
  MakeStream(h, "s", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  h.Run("a", {"XGROUP", "CREATE", "s", "g", "0"});
  h.Run("a", {"XCLAIM", "s", "g", "alice", "0", "1-0", "2-0", "3-0", "4-0", "5-0", "6-0", "7-0",
              "8-0", "9-0", "10-0", "FORCE", "JUSTID"});
  h.Run("a",
        {"XCLAIM", "s", "g", "alice", "0", "11-0", "12-0", "FORCE", "JUSTID", "IDLE", "100000"});
  // COUNT 1 looks at ten records (1-0 .. 10-0, all fresh) and stops before 11-0.
  EXPECT_EQ(
      h.Run("a", {"XAUTOCLAIM", "s", "g", "bob", "50000", "-", "COUNT", "1", "JUSTID"}).Text(),
      "[\"11-0\", [], []]");
  EXPECT_EQ(
      h.Run("a", {"XAUTOCLAIM", "s", "g", "bob", "50000", "11-0", "COUNT", "1", "JUSTID"}).Text(),
      "[\"12-0\", [\"11-0\"], []]");
}

TEST(StreamGroupCommands, XAckCountsPendingIdsOnce) {
  Harness h;
  MakeStream(h, "s", {1, 2});
  h.Run("a", {"XGROUP", "CREATE", "s", "g", "0"});
  h.Run("a", {"XCLAIM", "s", "g", "alice", "0", "1-0", "2-0", "FORCE", "JUSTID"});
  h.Propagated();
  EXPECT_EQ(h.Run("a", {"XACK", "s", "g", "1-0", "abc"}).Text(),
            "(error) ERR Invalid stream ID specified as stream command argument");
  EXPECT_EQ(h.Run("a", {"XACK", "s", "g", "1-0", "1", "9-0"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("a", {"XACK", "s", "g", "1-0"}).Text(), "(integer) 0");
  EXPECT_EQ(h.Run("a", {"XACK", "nokey", "g", "abc"}).Text(), "(integer) 0");
  EXPECT_EQ(h.Propagated(), (Records{{"XACK", "s", "g", "1-0", "1", "9-0"}}));
  EXPECT_EQ(h.Run("a", {"XGROUP", "DELCONSUMER", "s", "g", "alice"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("a", {"XPENDING", "s", "g"}).Text(), "[(integer) 0, (nil), (nil), (nil)]");
}

}  // namespace
}  // namespace redistp::testing
