// Lock, both flavours: mutual exclusion under contention (20 clients, 2,000 acquisitions, a
// counter read and written under the lock across two round trips), busy/timeout/cancel, FIFO
// hand-off of the fair flavour, loss on deletion, DELTP safety, abandoned acquisitions, fencing
// tokens, and the blocking wrapper from several threads.
#include "client/lock.h"

#include <atomic>
#include <random>
#include <thread>

#include "client_fixture.h"

namespace redistp::client::testing {
namespace {

class LockTest : public ServerTest, public ::testing::WithParamInterface<LockMode> {
 protected:
  LockOptions Opts(std::string value = "") const { return LockOptions{GetParam(), value, false}; }
};

std::string ModeName(const ::testing::TestParamInfo<LockMode>& info) {
  return info.param == LockMode::kFair ? "Fair" : "Opportunistic";
}

// Acquires through the async API and runs the loop until the callback.
AcquireStatus AcquireNow(event_base* base, Lock& lock, std::chrono::milliseconds timeout,
                         bool try_only = false) {
  std::optional<AcquireStatus> status;
  auto cb = [&status](AcquireStatus s, const std::string&) { status = s; };
  if (try_only) {
    lock.TryAcquire(cb);
  } else {
    lock.Acquire(timeout, cb);
  }
  RunUntil(
      base, [&status] { return status.has_value(); }, 20s);
  return status.value_or(AcquireStatus::kFailed);
}

void Delay(event_base* base, std::chrono::microseconds d, std::function<void()> fn) {
  auto* heap = new std::function<void()>(std::move(fn));
  timeval tv{0, static_cast<suseconds_t>(d.count())};
  event_base_once(
      base, -1, EV_TIMEOUT,
      [](evutil_socket_t, short, void* arg) {
        std::unique_ptr<std::function<void()>> f(static_cast<std::function<void()>*>(arg));
        (*f)();
      },
      heap, &tv);
}

TEST_P(LockTest, TwentyClientsTwoThousandAcquisitionsNeverTwoHolders) {
  constexpr int kClients = 20;
  constexpr int kEach = 100;
  struct Worker {
    std::unique_ptr<Client> client;
    std::unique_ptr<Lock> lock;
    int done = 0;
  };
  std::vector<Worker> workers(kClients);
  for (Worker& w : workers) {
    w.client = std::make_unique<Client>(base_, Options());
    Connect(*w.client);
    w.lock = std::make_unique<Lock>(*w.client, "contended", Opts());
  }
  int holders = 0, overlaps = 0, failures = 0, finished = 0;
  int min_done_when_first_finished = -1;
  std::mt19937 rng(7);
  std::function<void(int)> acquire = [&](int i) {
    workers[i].lock->Acquire(20s, [&, i](AcquireStatus s, const std::string& error) {
      if (s != AcquireStatus::kAcquired) {
        ++failures;
        ADD_FAILURE() << "client " << i << ": " << AcquireStatusName(s) << " " << error;
        return;
      }
      if (holders != 0) ++overlaps;
      ++holders;
      // The critical section spans two round trips: read, then write the incremented value.
      workers[i].client->Command({"GET", "counter"}, [&, i](const Reply& r) {
        const long long v = r.is_nil() ? 0 : std::stoll(r.str);
        workers[i].client->Command({"SET", "counter", std::to_string(v + 1)}, [&, i](const Reply&) {
          --holders;
          workers[i].lock->Release();
          if (++workers[i].done < kEach) {
            if (GetParam() == LockMode::kFair) {
              acquire(i);  // BSETTP right behind the DELTP: to the back of the queue
            } else {
              // Without a pause the releaser's own SETTP, sent with its DELTP, would always
              // beat the waiters' (which first need the DEL push): let them compete.
              Delay(base_, std::chrono::microseconds(rng() % 300), [&acquire, i] { acquire(i); });
            }
            return;
          }
          if (++finished == 1) {
            min_done_when_first_finished = kEach;
            for (const Worker& w : workers) {
              min_done_when_first_finished = std::min(min_done_when_first_finished, w.done);
            }
          }
        });
      });
    });
  };
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kClients; ++i) acquire(i);
  ASSERT_TRUE(Run([&] { return finished == kClients || failures > 0; }, 50s));
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "  %d acquisitions in %.2f s; when the first client finished its %d, the least "
      "served had %d\n",
      kClients * kEach, secs, kEach, min_done_when_first_finished);
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(Ctl({"GET", "counter"}).str, std::to_string(kClients * kEach));
  if (GetParam() == LockMode::kFair) {
    // FIFO hand-off and immediate re-queueing: strict rotation, nobody laps the others.
    EXPECT_GE(min_done_when_first_finished, kEach - 1);
  }
  RunFor(base_, 20ms);
  EXPECT_EQ(Ctl({"EXISTS", "contended"}).integer, 0);
}

TEST_P(LockTest, TryAcquireIsBusyAcquireTimesOutAndReleaseOnlyOnce) {
  ASSERT_EQ(Ctl({"SETTP", "lk", "control"}).integer, 1);
  Client a(base_, Options());
  Connect(a);
  Lock lock(a, "lk", Opts("mine"));
  EXPECT_EQ(AcquireNow(base_, lock, 0ms, true), AcquireStatus::kBusy);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(AcquireNow(base_, lock, 150ms), AcquireStatus::kTimedOut);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 140ms);
  EXPECT_LT(waited, 2s);
  EXPECT_FALSE(lock.held());

  ASSERT_EQ(Ctl({"DELTP", "lk"}).integer, 1);
  RunFor(base_, 20ms);  // an abandoned fair BSETTP may take the key and hand it back
  EXPECT_EQ(AcquireNow(base_, lock, 0ms, true), AcquireStatus::kAcquired);
  EXPECT_TRUE(lock.held());
  EXPECT_EQ(Ctl({"GET", "lk"}).str, "mine");
  EXPECT_EQ(Ctl({"OBJECT", "OWNER", "lk"}).integer, Call(a, {"CLIENT", "ID"}).integer);
  std::optional<AcquireStatus> again;
  lock.Acquire(1s, [&again](AcquireStatus s, const std::string&) { again = s; });
  EXPECT_EQ(again, AcquireStatus::kFailed) << "already held";

  std::vector<bool> released;
  lock.Release([&released](bool d) { released.push_back(d); });
  lock.Release([&released](bool d) { released.push_back(d); });
  ASSERT_TRUE(Run([&] { return released.size() == 2; }));
  EXPECT_EQ(released, (std::vector<bool>{false, true})) << "the idle release answers at once";
  EXPECT_EQ(Ctl({"EXISTS", "lk"}).integer, 0);
}

TEST_P(LockTest, ReleaseWhileAcquiringCancelsAndAnAbandonedWinHandsTheKeyBack) {
  ASSERT_EQ(Ctl({"SETTP", "lk", "control"}).integer, 1);
  Client a(base_, Options());
  Connect(a);
  Lock lock(a, "lk", Opts());
  std::optional<AcquireStatus> status;
  lock.Acquire(Lock::kForever, [&status](AcquireStatus s, const std::string&) { status = s; });
  RunFor(base_, 30ms);
  lock.Release();
  ASSERT_EQ(status, AcquireStatus::kCancelled);
  ASSERT_EQ(Ctl({"DELTP", "lk"}).integer, 1);  // a fair BSETTP still queued now wins the key...
  RunFor(base_, 50ms);
  EXPECT_EQ(Ctl({"EXISTS", "lk"}).integer, 0) << "...and gives it straight back";
  EXPECT_FALSE(lock.held());

  // An acquisition started while the abandoned command is still out adopts its win.
  ASSERT_EQ(Ctl({"SETTP", "lk", "control"}).integer, 1);
  status.reset();
  lock.Acquire(Lock::kForever, [&status](AcquireStatus s, const std::string&) { status = s; });
  RunFor(base_, 30ms);
  lock.Release();
  ASSERT_EQ(status, AcquireStatus::kCancelled);
  status.reset();
  lock.Acquire(5s, [&status](AcquireStatus s, const std::string&) { status = s; });
  ASSERT_EQ(Ctl({"DELTP", "lk"}).integer, 1);
  ASSERT_TRUE(Run([&] { return status.has_value(); }));
  EXPECT_EQ(*status, AcquireStatus::kAcquired);
  RunFor(base_, 30ms);
  EXPECT_TRUE(lock.held());
  EXPECT_EQ(Ctl({"OBJECT", "OWNER", "lk"}).integer, Call(a, {"CLIENT", "ID"}).integer);
}

TEST_P(LockTest, DeltpReleaseNeverDeletesSomeoneElsesLock) {
  Client a(base_, Options());
  Client b(base_, Options());
  Connect(a);
  Connect(b);
  Lock la(a, "lk", Opts("a"));
  Lock lb(b, "lk", Opts("b"));
  ASSERT_EQ(AcquireNow(base_, la, 1s), AcquireStatus::kAcquired);
  ASSERT_EQ(Ctl({"DEL", "lk"}).integer, 1);  // an operator deletes A's lock
  ASSERT_EQ(AcquireNow(base_, lb, 1s), AcquireStatus::kAcquired);
  std::optional<bool> deleted;
  la.Release([&deleted](bool d) { deleted = d; });
  ASSERT_TRUE(Run([&] { return deleted.has_value(); }));
  EXPECT_FALSE(*deleted);
  EXPECT_EQ(Ctl({"GET", "lk"}).str, "b");
  EXPECT_TRUE(lb.held());
}

TEST_P(LockTest, FencingTokensOnlyGrow) {
  Client a(base_, Options());
  Connect(a);
  LockOptions o = Opts();
  o.fence = true;
  Lock lock(a, "lk", o);
  long long last = 0;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(AcquireNow(base_, lock, 1s, i == 1), AcquireStatus::kAcquired);
    EXPECT_GT(lock.fence_token(), last);
    EXPECT_EQ(Ctl({"OBJECT", "FENCE", "lk"}).integer, lock.fence_token());
    last = lock.fence_token();
    lock.Release();
    EXPECT_EQ(lock.fence_token(), 0);
  }
}

TEST_P(LockTest, DestroyingAHeldLockReleasesIt) {
  Client a(base_, Options());
  Connect(a);
  {
    Lock lock(a, "lk", Opts());
    ASSERT_EQ(AcquireNow(base_, lock, 1s), AcquireStatus::kAcquired);
  }
  RunFor(base_, 30ms);
  EXPECT_EQ(Ctl({"EXISTS", "lk"}).integer, 0);
}

TEST_P(LockTest, BlockingLocksFromFiveThreads) {
  constexpr int kThreads = 5;
  constexpr int kEach = 40;
  std::atomic<int> holders{0}, overlaps{0}, failures{0};
  std::vector<std::thread> threads;
  const ClientOptions options = Options();
  const LockOptions lock_options = Opts();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      BlockingClient c(options);
      if (!c.Connect()) {
        ++failures;
        return;
      }
      BlockingLock lock(c, "threaded", lock_options);
      for (int i = 0; i < kEach; ++i) {
        if (lock.Acquire(20s) != AcquireStatus::kAcquired) {
          ++failures;
          return;
        }
        if (holders.fetch_add(1) != 0) ++overlaps;
        const Reply v = c.Command({"GET", "counter"});
        const long long n = v.is_nil() ? 0 : std::stoll(v.str);
        c.Command({"SET", "counter", std::to_string(n + 1)});
        holders.fetch_sub(1);
        if (!lock.Release()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(Ctl({"GET", "counter"}).str, std::to_string(kThreads * kEach));
}

TEST_P(LockTest, ReportsLossWhenTheKeyIsDeletedBySomeoneElse) {
  Client a(base_, Options());
  Connect(a);
  Lock lock(a, "lk", Opts());
  std::string lost;
  lock.SetLostCallback([&lost](const std::string& why) { lost = why; });
  ASSERT_EQ(AcquireNow(base_, lock, 1s), AcquireStatus::kAcquired);
  RunFor(base_, 20ms);  // the watch of the hold is registered
  EXPECT_TRUE(lost.empty()) << lost;
  ASSERT_EQ(Ctl({"DEL", "lk"}).integer, 1);
  ASSERT_TRUE(Run([&] { return !lost.empty(); }));
  EXPECT_NE(lost.find("deleted"), std::string::npos) << lost;
  EXPECT_FALSE(lock.held());
  // TryAcquire also watches while holding.
  ASSERT_EQ(AcquireNow(base_, lock, 0ms, true), AcquireStatus::kAcquired);
  RunFor(base_, 20ms);
  lost.clear();
  ASSERT_EQ(Ctl({"FLUSHDB"}).Is("OK"), true);
  ASSERT_TRUE(Run([&] { return !lost.empty(); }));
  EXPECT_FALSE(lock.held());
  // A hold that ends normally reports nothing, and the next one is watched again.
  ASSERT_EQ(AcquireNow(base_, lock, 1s), AcquireStatus::kAcquired);
  lost.clear();
  std::optional<bool> deleted;
  lock.Release([&deleted](bool d) { deleted = d; });
  ASSERT_TRUE(Run([&] { return deleted.has_value(); }));
  EXPECT_TRUE(*deleted);
  RunFor(base_, 20ms);
  EXPECT_TRUE(lost.empty()) << lost;
  EXPECT_EQ(Call(a, {"UNWATCHEX"}).integer, 0) << "no watch left behind";
}

// The key is deleted and taken by someone else after our acquisition but before our watch is
// registered (the program's own MULTI holds the watch back): the first state says EXIST, yet
// the key is not ours, and the lock must say so.
TEST_P(LockTest, ReportsLossWhenTheKeyIsReplacedBeforeTheWatchRegisters) {
  Client a(base_, Options());
  Connect(a);
  Lock lock(a, "lk", Opts());
  std::string lost;
  lock.SetLostCallback([&lost](const std::string& why) { lost = why; });
  std::optional<AcquireStatus> status;
  lock.Acquire(1s, [&](AcquireStatus s, const std::string&) {
    status = s;
    // Deleted and re-created by others before anything more of ours reaches the server.
    EXPECT_EQ(Ctl({"DEL", "lk"}).integer, 1);
    EXPECT_EQ(Ctl({"SETTP", "lk", "thief"}).integer, 1);
  });
  std::optional<Reply> multi;
  a.Command({"MULTI"}, [&multi](const Reply& r) { multi = r; });
  ASSERT_TRUE(Run([&] { return status.has_value() && multi.has_value(); }));
  ASSERT_EQ(*status, AcquireStatus::kAcquired);
  RunFor(base_, 20ms);
  EXPECT_TRUE(lost.empty() || GetParam() == LockMode::kOpportunistic) << lost;
  EXPECT_TRUE(Call(a, {"EXEC"}).is_array());
  ASSERT_TRUE(Run([&] { return !lost.empty(); }));
  EXPECT_FALSE(lock.held());
  EXPECT_EQ(Ctl({"GET", "lk"}).str, "thief");
}

INSTANTIATE_TEST_SUITE_P(Flavours, LockTest,
                         ::testing::Values(LockMode::kFair, LockMode::kOpportunistic), ModeName);

// Fair flavour only: waiters are served in arrival order, one per release.
using FairLockTest = ServerTest;

TEST_F(FairLockTest, WaitersAreServedInArrivalOrder) {
  ASSERT_EQ(Ctl({"SETTP", "lk", "control"}).integer, 1);
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::unique_ptr<Lock>> locks;
  std::vector<int> order;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(std::make_unique<Client>(base_, Options()));
    Connect(*clients.back());
    locks.push_back(std::make_unique<Lock>(*clients.back(), "lk"));
  }
  for (int i = 0; i < 3; ++i) {
    locks[i]->Acquire(5s, [&order, i](AcquireStatus s, const std::string&) {
      if (s == AcquireStatus::kAcquired) order.push_back(i);
    });
    RunFor(base_, 30ms);  // arrival order 0, 1, 2
  }
  EXPECT_TRUE(order.empty());
  ASSERT_EQ(Ctl({"DELTP", "lk"}).integer, 1);
  for (int turn = 0; turn < 3; ++turn) {
    ASSERT_TRUE(Run([&] { return order.size() == static_cast<size_t>(turn + 1); }));
    RunFor(base_, 20ms);
    EXPECT_EQ(order.size(), static_cast<size_t>(turn + 1)) << "exactly one waiter per release";
    locks[order.back()]->Release();
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace redistp::client::testing
