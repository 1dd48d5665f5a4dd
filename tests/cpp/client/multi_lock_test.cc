// MultiLock: sorted acquisition order, all or nothing (a busy name leaves nothing held), no
// deadlock between two multi-locks over the same names given in opposite orders, one lost lock
// ends the whole hold, fencing tokens.
#include "client/multi_lock.h"

#include "client_fixture.h"
#include "recipe_util.h"

namespace redistp::client::testing {
namespace {

using MultiLockTest = ServerTest;

TEST_F(MultiLockTest, SortedOrderAllOrNothingAndFencingTokens) {
  Client a(base_, Options());
  Connect(a);
  MultiLock m(a, {"c", "a", "b", "a"}, LockOptions{LockMode::kFair, "", true});
  EXPECT_EQ(m.names(), (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(Ctl({"SETTP", "b", "control"}).integer, 1);
  EXPECT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { m.TryAcquire(cb); }),
            AcquireStatus::kBusy);
  EXPECT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { m.Acquire(100ms, cb); }),
            AcquireStatus::kTimedOut);
  RunFor(base_, 30ms);
  EXPECT_EQ(Ctl({"EXISTS", "a", "c"}).integer, 0) << "what was taken is given back";
  ASSERT_EQ(Ctl({"DELTP", "b"}).integer, 1);
  ASSERT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { m.Acquire(1s, cb); }),
            AcquireStatus::kAcquired);
  const std::vector<long long> tokens = m.fence_tokens();
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_LT(tokens[0], tokens[1]);
  EXPECT_LT(tokens[1], tokens[2]);
  EXPECT_EQ(Ctl({"OBJECT", "FENCE", "c"}).integer, tokens[2]);
  std::optional<bool> all;
  m.Release([&all](bool d) { all = d; });
  ASSERT_TRUE(Run([&] { return all.has_value(); }));
  EXPECT_TRUE(*all);
  EXPECT_EQ(Ctl({"EXISTS", "a", "b", "c"}).integer, 0);
}

TEST_F(MultiLockTest, OppositeOrdersOverTheSameNamesNeverDeadlock) {
  constexpr int kRounds = 60;
  Client x(base_, Options()), y(base_, Options());
  Connect(x);
  Connect(y);
  MultiLock mx(x, {"k1", "k2", "k3"});
  MultiLock my(y, {"k3", "k2", "k1"});
  int holders = 0, overlaps = 0, failures = 0, done_x = 0, done_y = 0;
  std::function<void(MultiLock&, Client&, int&)> go = [&](MultiLock& m, Client& c, int& done) {
    m.Acquire(20s, [&](AcquireStatus s, const std::string& error) {
      if (s != AcquireStatus::kAcquired) {
        ++failures;
        ADD_FAILURE() << AcquireStatusName(s) << " " << error;
        return;
      }
      if (holders++ != 0) ++overlaps;
      c.Command({"PING"}, [&](const Reply&) {
        --holders;
        m.Release();
        if (++done < kRounds) go(m, c, done);
      });
    });
  };
  go(mx, x, done_x);
  go(my, y, done_y);
  ASSERT_TRUE(Run([&] { return (done_x == kRounds && done_y == kRounds) || failures > 0; }, 40s));
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(failures, 0);
}

TEST_F(MultiLockTest, OneLostLockEndsTheWholeHold) {
  Client a(base_, Options());
  Connect(a);
  MultiLock m(a, {"a", "b"});
  int lost = 0;
  m.SetLostCallback([&lost](const std::string&) { ++lost; });
  ASSERT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { m.Acquire(1s, cb); }),
            AcquireStatus::kAcquired);
  RunFor(base_, 20ms);
  ASSERT_EQ(Ctl({"DEL", "b"}).integer, 1);
  ASSERT_TRUE(Run([&] { return lost == 1; }));
  RunFor(base_, 30ms);
  EXPECT_EQ(lost, 1);
  EXPECT_FALSE(m.held());
  EXPECT_EQ(Ctl({"EXISTS", "a"}).integer, 0) << "the other lock was released";
  ASSERT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { m.Acquire(1s, cb); }),
            AcquireStatus::kAcquired);
  a.Close();
  ASSERT_TRUE(Run([&] { return lost == 2; }));
  EXPECT_FALSE(m.held());
}

}  // namespace
}  // namespace redistp::client::testing
