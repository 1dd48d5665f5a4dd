// What a script propagates (Redis 7.0's effects replication), observed through the in-process
// harness. Every expectation was first read from Redis 7.0.15's AOF for the same scripts
// (appendonlydir/*.incr.aof): the commands the script ran, wrapped in MULTI/EXEC when there is
// more than one, never the EVAL itself; redis.set_repl(REPL_NONE) leaves commands out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(ScriptPropagation, TwoWritesAreWrappedInMultiExec) {
  Harness h;
  h.Run("a", {"EVAL", "redis.call('set','a','1') redis.call('incr','a') return 1", "0"});
  EXPECT_EQ(h.Propagated(),
            (Records{{"SELECT", "0"}, {"MULTI"}, {"set", "a", "1"}, {"incr", "a"}, {"EXEC"}}));
}

TEST(ScriptPropagation, OneWriteIsSentAloneAndReadsNothing) {
  Harness h;
  h.Run("a", {"EVAL", "redis.call('set','b','1') return 1", "0"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"}, {"set", "b", "1"}}));
  h.Run("a", {"EVAL", "return redis.call('get','b')", "0"});
  h.Run("a", {"EVAL", "return redis.call('set','b','x','NX')", "0"});  // changes nothing
  EXPECT_EQ(h.Propagated(), Records{});
}

TEST(ScriptPropagation, SetReplNoneLeavesCommandsOut) {
  Harness h;
  h.Run("a", {"EVAL",
              "redis.set_repl(redis.REPL_NONE) redis.call('set','c','1') "
              "redis.set_repl(redis.REPL_ALL) redis.call('set','d','1') return 1",
              "0"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"}, {"set", "d", "1"}}));
  EXPECT_EQ(h.Run("a", {"GET", "c"}).str, "1");
}

TEST(ScriptPropagation, SelectInsideTheScriptAndAbsoluteExpiry) {
  Harness h;
  h.Run("a", {"EVAL", "redis.call('select','2') redis.call('set','e','1') return 1", "0"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "2"}, {"set", "e", "1"}}));
  h.Run("a", {"EVAL", "redis.call('set','f','1') redis.call('expire','f','100') return 1", "0"});
  EXPECT_EQ(h.Propagated(),
            (Records{{"SELECT", "0"},
                     {"MULTI"},
                     {"set", "f", "1"},
                     {"PEXPIREAT", "f", std::to_string(h.clock().WallMs() + 100'000)},
                     {"EXEC"}}));
}

TEST(ScriptPropagation, AFailingScriptKeepsWhatItWrote) {
  Harness h;
  h.Run("a", {"EVAL", "redis.call('set','g','1') error('stop')", "0"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"}, {"set", "g", "1"}}));
}

}  // namespace
}  // namespace redistp::testing
