// Semaphore: never more holders than permits under contention, arrival order, one client woken
// per release (the head of the queue) however many wait, timeout and cancel leave nothing
// behind, loss of a permit key, a dead holder's permit freed, fencing tokens.
#include "client/semaphore.h"

#include "client_fixture.h"
#include "recipe_util.h"

namespace redistp::client::testing {
namespace {

using SemaphoreTest = ServerTest;

AcquireStatus AcquireNow(event_base* base, Semaphore& s, std::chrono::milliseconds timeout) {
  return RunAcquire(base, [&](Lock::AcquireCallback cb) { s.Acquire(timeout, std::move(cb)); });
}
AcquireStatus TryNow(event_base* base, Semaphore& s) {
  return RunAcquire(base, [&](Lock::AcquireCallback cb) { s.TryAcquire(std::move(cb)); });
}

TEST_F(SemaphoreTest, TwelveClientsThreePermitsNeverMoreThanThreeHolders) {
  constexpr int kClients = 12;
  constexpr int kEach = 25;
  struct Worker {
    std::unique_ptr<Client> client;
    std::unique_ptr<Semaphore> sem;
    int done = 0;
  };
  std::vector<Worker> workers(kClients);
  for (Worker& w : workers) {
    w.client = std::make_unique<Client>(base_, Options());
    Connect(*w.client);
    w.sem = std::make_unique<Semaphore>(*w.client, "pool", 3);
  }
  int holders = 0, max_holders = 0, failures = 0, finished = 0;
  std::vector<int> permit_users(3, 0);
  std::function<void(int)> acquire = [&](int i) {
    workers[i].sem->Acquire(20s, [&, i](AcquireStatus s, const std::string& error) {
      if (s != AcquireStatus::kAcquired) {
        ++failures;
        ADD_FAILURE() << "client " << i << ": " << AcquireStatusName(s) << " " << error;
        return;
      }
      const int p = workers[i].sem->permit();
      if (p < 0 || p > 2 || permit_users[p]++ != 0) ++failures;
      max_holders = std::max(max_holders, ++holders);
      workers[i].client->Command({"INCR", "uses"}, [&, i, p](const Reply&) {
        --holders;
        --permit_users[p];
        workers[i].sem->Release();
        if (++workers[i].done < kEach) {
          acquire(i);
        } else {
          ++finished;
        }
      });
    });
  };
  for (int i = 0; i < kClients; ++i) acquire(i);
  ASSERT_TRUE(Run([&] { return finished == kClients || failures > 0; }, 50s));
  EXPECT_EQ(failures, 0);
  EXPECT_LE(max_holders, 3);
  EXPECT_GE(max_holders, 1);
  EXPECT_EQ(Ctl({"GET", "uses"}).str, std::to_string(kClients * kEach));
  RunFor(base_, 30ms);
  EXPECT_EQ(
      Ctl({"EXISTS", "pool:queue", "pool:permit:0", "pool:permit:1", "pool:permit:2"}).integer, 0);
}

TEST_F(SemaphoreTest, WaitersAreServedInArrivalOrderAndEachReleaseWakesOnlyTheHead) {
  constexpr int kWaiters = 6;
  Client h0(base_, Options()), h1(base_, Options());
  Connect(h0);
  Connect(h1);
  Semaphore s0(h0, "sem", 2), s1(h1, "sem", 2);
  ASSERT_EQ(AcquireNow(base_, s0, 1s), AcquireStatus::kAcquired);
  ASSERT_EQ(TryNow(base_, s1), AcquireStatus::kAcquired);
  EXPECT_NE(s0.permit(), s1.permit());

  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::unique_ptr<Semaphore>> sems;
  std::vector<Client*> raw;
  std::vector<int> order;
  for (int i = 0; i < kWaiters; ++i) {
    clients.push_back(std::make_unique<Client>(base_, Options()));
    Connect(*clients.back());
    raw.push_back(clients.back().get());
    sems.push_back(std::make_unique<Semaphore>(*clients.back(), "sem", 2));
  }
  for (int i = 0; i < kWaiters; ++i) {
    sems[i]->Acquire(20s, [&order, i](AcquireStatus s, const std::string&) {
      if (s == AcquireStatus::kAcquired) order.push_back(i);
    });
    // Arrival order 0, 1, 2, ...: the first waiter holds the queue, the others block in it.
    ASSERT_TRUE(RunSlicesUntil(base_, [&] {
      return i == 0 ? Ctl({"EXISTS", "sem:queue"}).integer == 1
                    : BlockedInBsettp(Ctl({"CLIENT", "LIST"})) == i;
    }));
  }
  EXPECT_TRUE(order.empty());
  // Free permits but a queue: a newcomer does not overtake.
  Client late(base_, Options());
  Connect(late);
  Semaphore slate(late, "sem", 2);
  ASSERT_EQ(TryNow(base_, slate), AcquireStatus::kBusy);

  // Each release wakes the head (which takes the permit and passes the queue on) and the next
  // head (which now watches the permits): two waiters, whatever their number, plus the
  // releaser itself when it is one of them.
  WakeCounter wakes(raw);
  std::vector<Semaphore*> releasers = {&s0, &s1};
  for (int turn = 0; turn < kWaiters; ++turn) {
    RunFor(base_, 30ms);  // the previous hand-off settles
    wakes.Reset();
    Semaphore* releaser = turn < 2 ? releasers[turn] : sems[order[turn - 2]].get();
    releaser->Release();
    ASSERT_TRUE(Run([&] { return order.size() == static_cast<size_t>(turn + 1); }));
    RunFor(base_, 30ms);
    EXPECT_EQ(order.size(), static_cast<size_t>(turn + 1)) << "one permit, one new holder";
    const int expected = (turn >= 2 ? 1 : 0) + 1 + (turn + 1 < kWaiters ? 1 : 0);
    EXPECT_EQ(wakes.Woken(), expected) << "turn " << turn;
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST_F(SemaphoreTest, TimeoutAndReleaseWhileWaitingLeaveNothingBehind) {
  ASSERT_EQ(Ctl({"SETTP", "sem:permit:0", "control"}).integer, 1);
  Client a(base_, Options());
  Connect(a);
  Semaphore s(a, "sem", 1);
  EXPECT_EQ(TryNow(base_, s), AcquireStatus::kBusy);
  EXPECT_EQ(AcquireNow(base_, s, 150ms), AcquireStatus::kTimedOut);
  RunFor(base_, 20ms);
  EXPECT_EQ(Ctl({"EXISTS", "sem:queue"}).integer, 0);
  EXPECT_EQ(Call(a, {"UNWATCHEX"}).integer, 0) << "no watch left behind";
  std::optional<AcquireStatus> status;
  s.Acquire(Lock::kForever, [&status](AcquireStatus st, const std::string&) { status = st; });
  RunFor(base_, 30ms);
  s.Release();
  EXPECT_EQ(status, AcquireStatus::kCancelled);
  ASSERT_EQ(Ctl({"DELTP", "sem:permit:0"}).integer, 1);
  RunFor(base_, 30ms);
  EXPECT_EQ(Ctl({"EXISTS", "sem:queue", "sem:permit:0"}).integer, 0);
  Semaphore none(a, "none", 0);
  EXPECT_EQ(TryNow(base_, none), AcquireStatus::kFailed);
}

TEST_F(SemaphoreTest, LossOfThePermitKeyAndADeadHoldersPermitGoingToTheWaiter) {
  Client a(base_, Options()), b(base_, Options());
  Connect(a);
  Connect(b);
  Semaphore sa(a, "sem", 1, {"", true}), sb(b, "sem", 1, {"", true});
  std::string lost;
  sa.SetLostCallback([&lost](const std::string& why) { lost = why; });
  ASSERT_EQ(AcquireNow(base_, sa, 1s), AcquireStatus::kAcquired);
  EXPECT_GT(sa.fence_token(), 0);
  EXPECT_EQ(Ctl({"OBJECT", "FENCE", "sem:permit:0"}).integer, sa.fence_token());
  RunFor(base_, 20ms);
  ASSERT_EQ(Ctl({"DEL", "sem:permit:0"}).integer, 1);
  ASSERT_TRUE(Run([&] { return !lost.empty(); }));
  EXPECT_FALSE(sa.held());
  EXPECT_EQ(sa.permit(), -1);

  ASSERT_EQ(AcquireNow(base_, sa, 1s), AcquireStatus::kAcquired);
  std::optional<AcquireStatus> status;
  sb.Acquire(10s, [&status](AcquireStatus s, const std::string&) { status = s; });
  RunFor(base_, 30ms);
  EXPECT_FALSE(status.has_value());
  a.Close();  // the holder dies: its permit key goes with its connection
  ASSERT_TRUE(Run([&] { return status.has_value(); }));
  EXPECT_EQ(*status, AcquireStatus::kAcquired);
  EXPECT_GT(sb.fence_token(), 0);
  EXPECT_EQ(Ctl({"OBJECT", "OWNER", "sem:permit:0"}).integer, Call(b, {"CLIENT", "ID"}).integer);
}

}  // namespace
}  // namespace redistp::client::testing
