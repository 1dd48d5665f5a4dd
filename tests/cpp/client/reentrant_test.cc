// Re-entrant locks (LockOptions::reentrant): hold counts released by the matching number of
// releases, the same token for every hold, two objects of one owner sharing the key, and a
// non-re-entrant second object of the same owner failing at once instead of waiting for itself.
#include "client/lock.h"
#include "client_fixture.h"
#include "recipe_util.h"

namespace redistp::client::testing {
namespace {

using ReentrantTest = ServerTest;

AcquireStatus AcquireNow(event_base* base, Lock& lock, bool try_only = false) {
  return RunAcquire(base, [&](Lock::AcquireCallback cb) {
    if (try_only) {
      lock.TryAcquire(cb);
    } else {
      lock.Acquire(2s, cb);
    }
  });
}

TEST_F(ReentrantTest, HoldCountsNeedTheMatchingNumberOfReleases) {
  for (LockMode mode : {LockMode::kFair, LockMode::kOpportunistic}) {
    SCOPED_TRACE(mode == LockMode::kFair ? "fair" : "opportunistic");
    Client a(base_, Options()), b(base_, Options());
    Connect(a);
    Connect(b);
    Lock lock(a, "lk", LockOptions{mode, "", true, true});
    Lock other(b, "lk");
    ASSERT_EQ(AcquireNow(base_, lock), AcquireStatus::kAcquired);
    const long long token = lock.fence_token();
    EXPECT_EQ(lock.hold_count(), 1);
    ASSERT_EQ(AcquireNow(base_, lock), AcquireStatus::kAcquired);
    ASSERT_EQ(AcquireNow(base_, lock, true), AcquireStatus::kAcquired);
    EXPECT_EQ(lock.hold_count(), 3);
    EXPECT_EQ(lock.fence_token(), token);
    std::optional<AcquireStatus> got;
    other.Acquire(10s, [&got](AcquireStatus s, const std::string&) { got = s; });
    for (int left = 2; left >= 0; --left) {
      std::optional<bool> deleted;
      lock.Release([&deleted](bool d) { deleted = d; });
      ASSERT_TRUE(Run([&] { return deleted.has_value(); }));
      EXPECT_EQ(*deleted, left == 0);
      EXPECT_EQ(lock.hold_count(), left);
      EXPECT_EQ(lock.held(), left > 0);
      if (left > 0) {
        RunFor(base_, 20ms);
        EXPECT_FALSE(got.has_value()) << "still held " << left << " times";
      }
    }
    ASSERT_TRUE(Run([&] { return got.has_value(); }));
    EXPECT_EQ(*got, AcquireStatus::kAcquired);
    other.Release();
    RunFor(base_, 20ms);
  }
}

TEST_F(ReentrantTest, TwoReentrantObjectsOfOneClientShareTheKey) {
  Client a(base_, Options());
  Connect(a);
  LockOptions o{LockMode::kFair, "", false, true};
  Lock first(a, "lk", o), second(a, "lk", o);
  ASSERT_EQ(AcquireNow(base_, first), AcquireStatus::kAcquired);
  ASSERT_EQ(AcquireNow(base_, second), AcquireStatus::kAcquired) << "never waits for itself";
  first.Release();
  RunFor(base_, 20ms);
  EXPECT_EQ(Ctl({"EXISTS", "lk"}).integer, 1) << "the second hold keeps the key";
  EXPECT_TRUE(second.held());
  second.Release();
  RunFor(base_, 20ms);
  EXPECT_EQ(Ctl({"EXISTS", "lk"}).integer, 0);
}

TEST_F(ReentrantTest, ANonReentrantSecondObjectOfTheSameOwnerFailsAtOnce) {
  for (LockMode mode : {LockMode::kFair, LockMode::kOpportunistic}) {
    SCOPED_TRACE(mode == LockMode::kFair ? "fair" : "opportunistic");
    Client a(base_, Options());
    Connect(a);
    Lock first(a, "lk", LockOptions{mode, "", false});
    Lock second(a, "lk", LockOptions{mode, "", false});
    ASSERT_EQ(AcquireNow(base_, first), AcquireStatus::kAcquired);
    std::string error;
    EXPECT_EQ(RunAcquire(
                  base_, [&](Lock::AcquireCallback cb) { second.Acquire(5s, cb); }, &error),
              AcquireStatus::kFailed)
        << error;
    EXPECT_NE(error.find("already holds"), std::string::npos) << error;
    EXPECT_EQ(RunAcquire(
                  base_, [&](Lock::AcquireCallback cb) { second.TryAcquire(cb); }, &error),
              AcquireStatus::kFailed)
        << error;
    EXPECT_TRUE(first.held());
    first.Release();
    RunFor(base_, 20ms);
  }
}

}  // namespace
}  // namespace redistp::client::testing
