// How XADD, XTRIM, XDEL and XSETID are propagated, through the in-process harness. Every
// expectation was first read from Redis 7.0.15's AOF after the same commands (with
// stream-node-max-entries 2, so that `~` trimming stops at node boundaries): generated ids are
// written out, `~` becomes `=` with the length (MAXLEN) or first id (MINID) the trim reached,
// LIMIT stays, and commands that change nothing (errors, XTRIM/XDEL evicting nothing) record
// nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

// The harness's manual clock reads 1700000000000 ms, so `*` gives 1700000000000-<n>.
const std::string kT = "1700000000000";

TEST(StreamPropagation, GeneratedIdsAndApproximateTrimsAreWrittenOut) {
  Harness h;
  h.Run("a", {"config", "set", "stream-node-max-entries", "2"});
  h.Run("a", {"xadd", "s", "*", "a", "1"});
  EXPECT_EQ(h.Run("a", {"xadd", "s", "5-*", "a", "1"}).Text(),
            "(error) ERR The ID specified in XADD is equal or smaller than the target stream top "
            "item");
  h.Run("a", {"xadd", "s", "maxlen", "~", "1", "*", "a", "1"});
  h.Run("a", {"xadd", "s", "maxlen", "~", "1", "limit", "1", "*", "a", "1"});
  h.Run("a", {"xadd", "s", "minid", "~", "7", "*", "a", "1"});
  h.Run("a", {"xadd", "s", "maxlen", "=", "100", "*", "a", "1"});
  EXPECT_EQ(h.Run("a", {"xtrim", "s", "maxlen", "~", "1"}).integer, 4);
  EXPECT_EQ(h.Run("a", {"xtrim", "s", "maxlen", "~", "0", "limit", "2"}).integer, 1);
  EXPECT_EQ(h.Run("a", {"xtrim", "s", "minid", "10"}).integer, 0);
  EXPECT_EQ(h.Run("a", {"xtrim", "s", "maxlen", "100"}).integer, 0);
  EXPECT_EQ(h.Run("a", {"xdel", "s", "1-1", "2-2"}).integer, 0);
  h.Run("a", {"xsetid", "s", "9999999999999", "entriesadded", "100"});
  h.Run("a", {"xadd", "s", "nomkstream", "*", "a", "1"});
  h.Run("a", {"xadd", "s", "5000-*", "a", "1"});  // an error: smaller
  h.Run("a", {"xadd", "s", "9999999999999-*", "a", "1"});
  h.Run("a", {"xadd", "s", "10000000000000-1", "a", "1"});
  EXPECT_EQ(h.Run("a", {"xdel", "s", "1-1", "10000000000000-1", "3"}).integer, 1);
  EXPECT_EQ(h.Propagated(),
            (Records{{"SELECT", "0"},
                     {"xadd", "s", kT + "-0", "a", "1"},
                     {"xadd", "s", "maxlen", "=", "2", kT + "-1", "a", "1"},
                     {"xadd", "s", "maxlen", "=", "3", "limit", "1", kT + "-2", "a", "1"},
                     {"xadd", "s", "minid", "=", kT + "-0", kT + "-3", "a", "1"},
                     {"xadd", "s", "maxlen", "=", "100", kT + "-4", "a", "1"},
                     {"xtrim", "s", "maxlen", "=", "1"},
                     {"xtrim", "s", "maxlen", "=", "0", "limit", "2"},
                     {"xsetid", "s", "9999999999999", "entriesadded", "100"},
                     {"xadd", "s", "nomkstream", "9999999999999-1", "a", "1"},
                     {"xadd", "s", "9999999999999-2", "a", "1"},
                     {"xadd", "s", "10000000000000-1", "a", "1"},
                     {"xdel", "s", "1-1", "10000000000000-1", "3"}}));
}

// Redis 7.0.15's AOF: MINID ~ names the first entry left even when XDEL deleted it.
TEST(StreamPropagation, ApproximateMinidNamesTheFirstEntryDeletedOrNot) {
  Harness h;
  h.Run("a", {"config", "set", "stream-node-max-entries", "10"});
  for (int i = 1; i <= 10; ++i) {
    h.Run("a", {"xadd", "s", std::to_string(i) + "-1", "f", std::to_string(i)});
  }
  h.Run("a", {"xdel", "s", "1-1"});
  EXPECT_EQ(h.Run("a", {"xtrim", "s", "minid", "~", "1"}).integer, 0);
  h.Run("a", {"xadd", "s", "minid", "~", "1", "11-1", "f", "v"});
  Records got = h.Propagated();
  ASSERT_EQ(got.size(), 13u);
  EXPECT_EQ(got[11], (std::vector<std::string>{"xdel", "s", "1-1"}));
  EXPECT_EQ(got[12],
            (std::vector<std::string>{"xadd", "s", "minid", "=", "1-1", "11-1", "f", "v"}));
}

TEST(StreamPropagation, NomkstreamOnAMissingKeyRecordsNothing) {
  Harness h;
  EXPECT_EQ(h.Run("a", {"xadd", "s", "nomkstream", "*", "a", "1"}).kind, Frame::Kind::kNull);
  EXPECT_EQ(h.Run("a", {"xtrim", "s", "maxlen", "0"}).integer, 0);
  EXPECT_EQ(h.Run("a", {"xsetid", "s", "1-1"}).Text(), "(error) ERR no such key");
  EXPECT_TRUE(h.Propagated().empty());
}

}  // namespace
}  // namespace redistp::testing
