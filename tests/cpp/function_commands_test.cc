// FUNCTION and FCALL through the in-process harness: what a function's run propagates (its
// effects, not FCALL; several wrapped in MULTI/EXEC), that the FUNCTION writes propagate as
// themselves (checked against Redis 7.0.15's AOF for the same commands), and that two servers
// keep libraries of their own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

const std::string kLibrary =
    "#!lua name=p\n"
    "redis.register_function('two', function(keys) redis.call('set', keys[1], 'a') "
    "redis.call('set', keys[2], 'b') return 1 end)\n"
    "redis.register_function('one', function(keys) redis.call('set', keys[1], 'a') return 1 "
    "end)\n"
    "redis.register_function{function_name='ro', callback=function(keys) return "
    "redis.call('get', keys[1]) end, flags={'no-writes'}}";

TEST(FunctionCommands, PropagationIsTheFunctionsEffects) {
  Harness h;
  EXPECT_EQ(h.Run("a", {"FUNCTION", "LOAD", kLibrary}).Text(), "\"p\"");
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"}, {"FUNCTION", "LOAD", kLibrary}}));
  EXPECT_EQ(h.Run("a", {"FCALL", "two", "2", "x", "y"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("a", {"FCALL", "one", "1", "z"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("a", {"FCALL_RO", "ro", "1", "x"}).Text(), "\"a\"");
  EXPECT_EQ(
      h.Propagated(),
      (Records{{"MULTI"}, {"set", "x", "a"}, {"set", "y", "b"}, {"EXEC"}, {"set", "z", "a"}}));
  EXPECT_EQ(h.Run("a", {"FUNCTION", "DELETE", "p"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"FUNCTION", "DELETE", "p"}).Text(), "(error) ERR Library not found");
  EXPECT_EQ(h.Run("a", {"FUNCTION", "FLUSH"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"FUNCTION", "RESTORE", "bad"}).Text(),
            "(error) ERR DUMP payload version or checksum are wrong");
  EXPECT_EQ(h.Propagated(), (Records{{"FUNCTION", "DELETE", "p"}, {"FUNCTION", "FLUSH"}}));
}

TEST(FunctionCommands, ServersKeepTheirOwnLibraries) {
  Harness one;
  Harness two;
  EXPECT_EQ(one.Run("a", {"FUNCTION", "LOAD", kLibrary}).Text(), "\"p\"");
  EXPECT_EQ(two.Run("a", {"FCALL", "one", "1", "k"}).Text(), "(error) ERR Function not found");
  EXPECT_EQ(two.Run("a", {"FUNCTION", "LOAD", kLibrary}).Text(), "\"p\"");
  EXPECT_EQ(one.Run("a", {"FUNCTION", "FLUSH"}).Text(), "OK");
  EXPECT_EQ(two.Run("a", {"FCALL", "one", "1", "k"}).Text(), "(integer) 1");
}

TEST(FunctionCommands, FunctionsRunInTheCallersDatabase) {
  Harness h;
  h.Run("a", {"FUNCTION", "LOAD", kLibrary});
  h.Run("a", {"SELECT", "5"});
  h.Run("a", {"FCALL", "one", "1", "k"});
  EXPECT_EQ(h.Run("a", {"EXISTS", "k"}).Text(), "(integer) 1");
  h.Run("a", {"SELECT", "0"});
  EXPECT_EQ(h.Run("a", {"EXISTS", "k"}).Text(), "(integer) 0");
}

}  // namespace
}  // namespace redistp::testing
