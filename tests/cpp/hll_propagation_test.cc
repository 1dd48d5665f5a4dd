// How the HyperLogLog commands are propagated, through the in-process harness. The expectation
// was read from Redis 7.0.15's AOF after the same commands: a PFADD that changes nothing and a
// PFCOUNT answered from the cache record nothing; a PFCOUNT that refreshes the cache, PFMERGE,
// and PFDEBUG TODENSE/GETREG converting a sparse HLL are recorded as sent.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(HllPropagation, CacheRefreshesAndConversionsAreRecorded) {
  Harness h;
  h.Run("a", {"pfadd", "h", "a", "b"});
  h.Run("a", {"pfadd", "h", "a"});
  EXPECT_EQ(h.Run("a", {"pfcount", "h"}).Text(), "(integer) 2");
  h.Run("a", {"pfcount", "h"});
  h.Run("a", {"pfadd", "h2", "c"});
  EXPECT_EQ(h.Run("a", {"pfcount", "h", "h2"}).Text(), "(integer) 3");
  h.Run("a", {"pfmerge", "h3", "h", "h2"});
  h.Run("a", {"pfdebug", "encoding", "h3"});
  h.Run("a", {"pfdebug", "todense", "h3"});
  h.Run("a", {"pfdebug", "getreg", "h2"});
  h.Run("a", {"pfdebug", "todense", "h3"});
  h.Run("a", {"pfadd", "h4"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"pfadd", "h", "a", "b"},
                                     {"pfcount", "h"},
                                     {"pfadd", "h2", "c"},
                                     {"pfmerge", "h3", "h", "h2"},
                                     {"pfdebug", "todense", "h3"},
                                     {"pfdebug", "getreg", "h2"},
                                     {"pfadd", "h4"}}));
}

}  // namespace
}  // namespace redistp::testing
