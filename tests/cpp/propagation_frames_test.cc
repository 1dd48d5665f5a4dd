// Propagation frames: a command's wishes (ReplicateAs, ReplicateNothing, ForceReplication)
// belong to its own frame, never to the command around it or after it, and no record is ever
// empty (an empty record is "*0" in the AOF, which every loader refuses). Issue 20: DEBUG
// LOADAOF replayed "SET foo bar PXAT ..." with no sink attached; the replayed SET's rewrite
// leaked into DEBUG's frame, which then wrote "*0"; without a rewrite it wrote "DEBUG LOADAOF"
// itself, and the next load recursed until the stack ran out.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"
#include "persistence/persistence.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(PropagationFrames, AnEmptyRewriteRecordsTheCommandAsSent) {
  Harness h;
  Propagator& p = h.server().propagator();
  Propagator::Frame f = p.BeginCommand();
  h.server().db(0).CountChanges(1);
  p.ReplicateAs(std::vector<std::string>{});
  p.ReplicateAs({});
  p.EndCommand(f, 0, {"SET", "k", "v"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"}, {"SET", "k", "v"}}));
}

TEST(PropagationFrames, AWishOutsideAnyFrameIsDropped) {
  Harness h;
  Propagator& p = h.server().propagator();
  p.ReplicateAs({"DEL", "x"});
  p.ReplicateNothing();
  Propagator::Frame f = p.BeginCommand();
  h.server().db(0).CountChanges(1);
  p.EndCommand(f, 0, {"SET", "k", "v"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"}, {"SET", "k", "v"}}));
}

TEST(PropagationFrames, AnInnerFrameKeepsTheOuterFramesWishes) {
  Harness h;
  Propagator& p = h.server().propagator();
  // The outer command asks for a rewrite before an inner command runs and resets its own.
  Propagator::Frame outer = p.BeginCommand();
  p.ReplicateAs({"DEL", "k"});
  Propagator::Frame inner = p.BeginCommand();
  p.EndCommand(inner, 0, {"GET", "k"});
  h.server().db(0).CountChanges(1);
  p.EndCommand(outer, 0, {"GETDEL", "k"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"}, {"DEL", "k"}}));
  // An outer ReplicateNothing survives an inner command too, and the inner one still records.
  outer = p.BeginCommand();
  p.ReplicateNothing();
  inner = p.BeginCommand();
  h.server().db(0).CountChanges(1);
  p.EndCommand(inner, 0, {"SET", "x", "1"});
  h.server().db(0).CountChanges(1);
  p.EndCommand(outer, 0, {"SET", "y", "1"});
  EXPECT_EQ(h.Propagated(), (Records{{"SET", "x", "1"}}));
}

TEST(PropagationFrames, DebugSubcommandsAreNeverRecordedNorCountedAsChanges) {
  Config config;
  config.enable_debug_command = "yes";
  Harness h(std::move(config));
  h.Run("a", {"SET", "k", "v"});
  h.Propagated();
  const uint64_t changes = Persistence::Of(h.server()).changes_since_save();
  EXPECT_EQ(h.Run("a", {"DEBUG", "POPULATE", "5"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"DBSIZE"}).Text(), "(integer) 6");
  EXPECT_EQ(h.Propagated(), Records{});
  EXPECT_EQ(Persistence::Of(h.server()).changes_since_save(), changes);
}

// The AOF writer and loader in-process, in a directory of the test's own: the sequence of
// issue 20 loads back, twice, and the incr file holds exactly the records, no "*0".
class AofRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/redistp-aof-frames-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_NE(getcwd(cwd_, sizeof(cwd_)), nullptr);
    ASSERT_EQ(chdir(dir_.c_str()), 0);
  }
  void TearDown() override {
    (void)chdir(cwd_);
    std::string cmd = "rm -rf '" + dir_ + "'";
    (void)system(cmd.c_str());
  }
  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string dir_;
  char cwd_[4096];
};

TEST_F(AofRoundTrip, GetExPersistAfterDebugLoadAofLoadsAgain) {
  Config config;
  config.enable_debug_command = "yes";
  config.appendonly = true;
  Harness h(std::move(config));
  Aof& aof = Persistence::Of(h.server()).aof();
  ASSERT_TRUE(aof.OpenOnStartup().ok());
  // The writer itself refuses an empty record.
  aof.OnPropagate({});
  EXPECT_EQ(h.Run("a", {"SET", "foo", "bar", "EX", "100"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"DEBUG", "LOADAOF"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"GETEX", "foo", "PERSIST"}).Text(), "\"bar\"");
  EXPECT_EQ(h.Run("a", {"DEBUG", "LOADAOF"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"TTL", "foo"}).Text(), "(integer) -1");
  EXPECT_EQ(h.Run("a", {"DEBUG", "LOADAOF"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"GET", "foo"}).Text(), "\"bar\"");
  aof.Flush(true);
  const std::string incr = ReadFile("appendonlydir/appendonly.aof.1.incr.aof");
  EXPECT_EQ(incr.find("*0\r\n"), std::string::npos);
  EXPECT_EQ(incr.find("LOADAOF"), std::string::npos);
  EXPECT_NE(incr.find("PERSIST"), std::string::npos);
}

}  // namespace
}  // namespace redistp::testing
