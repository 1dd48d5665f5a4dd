// Reconnects: CLIENT KILL, a server restart, a server that appears late (back-off), a lease
// that lapses. After a reconnect every watch is registered again with a fresh first state and
// every lock held on the old connection is reported lost; an acquisition in progress goes on.
#include <thread>

#include "client/errors.h"
#include "client/lock.h"
#include "client_fixture.h"

namespace redistp::client::testing {
namespace {

using ReconnectTest = ServerTest;

std::string Name(const WatchEvent& e) { return e.key + " " + WatchEventName(e.type); }

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST_F(ReconnectTest, ClientKillReRegistersWatchesWithFreshStateAndReportsEveryLockLost) {
  ASSERT_TRUE(Ctl({"SET", "k1", "v"}).Is("OK"));
  Client a(base_, Options());
  std::vector<std::string> log;
  a.AddConnectionListener([&](ConnectionEvent ev, const std::string&) {
    if (ev == ConnectionEvent::kDisconnected) {
      log.push_back("disconnected");
      // A change while A is away: A must learn of it from the fresh first state.
      EXPECT_TRUE(Ctl({"SET", "k2", "v"}).Is("OK"));
    } else if (ev == ConnectionEvent::kConnected) {
      log.push_back("connected");
    }
  });
  Connect(a);
  auto rec = [&log](const WatchEvent& e) { log.push_back(Name(e)); };
  a.Watch("k1", rec);
  a.Watch("k2", rec);
  Lock fair(a, "lock:fair", {LockMode::kFair, "", false});
  Lock opp(a, "lock:opp", {LockMode::kOpportunistic, "", false});
  std::vector<AcquireStatus> got;
  auto on_acquire = [&got](AcquireStatus s, const std::string&) { got.push_back(s); };
  fair.Acquire(1s, on_acquire);
  opp.Acquire(1s, on_acquire);
  ASSERT_TRUE(Run([&] { return got.size() == 2; }));
  ASSERT_EQ(got, (std::vector<AcquireStatus>{AcquireStatus::kAcquired, AcquireStatus::kAcquired}));
  fair.SetLostCallback([&log](const std::string& why) { log.push_back("lost fair: " + why); });
  opp.SetLostCallback([&log](const std::string& why) { log.push_back("lost opp: " + why); });

  Client observer(base_, Options());
  Connect(observer);
  std::vector<std::string> seen;
  observer.Watch("lock:fair", [&seen](const WatchEvent& e) { seen.push_back(Name(e)); });
  observer.Watch("lock:opp", [&seen](const WatchEvent& e) { seen.push_back(Name(e)); });
  ASSERT_TRUE(Run([&] { return seen.size() == 2; }));

  const long long old_id = Call(a, {"CLIENT", "ID"}).integer;
  log.clear();
  ASSERT_EQ(Ctl({"CLIENT", "KILL", "ID", std::to_string(old_id)}).integer, 1);
  ASSERT_TRUE(Run([&] { return log.size() >= 6; }));
  ASSERT_EQ(log.size(), 6u);
  EXPECT_EQ(log[0], "disconnected");
  EXPECT_EQ(log[1].rfind("lost fair: connection lost", 0), 0u) << log[1];
  EXPECT_EQ(log[2].rfind("lost opp: connection lost", 0), 0u) << log[2];
  EXPECT_EQ(log[3], "connected");
  EXPECT_EQ(log[4], "k1 EXIST");
  EXPECT_EQ(log[5], "k2 EXIST");
  EXPECT_FALSE(fair.held());
  EXPECT_FALSE(opp.held());
  EXPECT_EQ(a.connections(), 2u);
  ASSERT_TRUE(Run([&] { return seen.size() == 4; }));
  EXPECT_TRUE(Contains(seen, "lock:fair DEL"));
  EXPECT_TRUE(Contains(seen, "lock:opp DEL"));

  const std::string info = Call(a, {"CLIENT", "INFO"}).str;
  EXPECT_NE(info.find(" tk=0 wx=2"), std::string::npos) << info;
  ASSERT_EQ(Ctl({"DEL", "k1"}).integer, 1);
  ASSERT_TRUE(Run([&] { return log.size() == 7; }));
  EXPECT_EQ(log[6], "k1 DEL");

  got.clear();
  fair.Acquire(1s, on_acquire);
  opp.Acquire(1s, on_acquire);
  ASSERT_TRUE(Run([&] { return got.size() == 2; }));
  EXPECT_EQ(got, (std::vector<AcquireStatus>{AcquireStatus::kAcquired, AcquireStatus::kAcquired}));
  const long long new_id = Call(a, {"CLIENT", "ID"}).integer;
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(Ctl({"OBJECT", "OWNER", "lock:fair"}).integer, new_id);
  EXPECT_EQ(Ctl({"OBJECT", "OWNER", "lock:opp"}).integer, new_id);
}

TEST_F(ReconnectTest, CommandInFlightGetsConnectionLostButAnAcquisitionGoesOn) {
  ASSERT_EQ(Ctl({"SETTP", "lk", "control"}).integer, 1);
  Client raw(base_, Options());
  Client a(base_, Options());
  Connect(raw);
  Connect(a);
  const long long raw_id = Call(raw, {"CLIENT", "ID"}).integer;
  const long long a_id = Call(a, {"CLIENT", "ID"}).integer;
  std::optional<Reply> blocked;
  raw.Command({"BSETTP", "lk", "raw", "0"}, [&blocked](const Reply& r) { blocked = r; });
  Lock lock(a, "lk", {LockMode::kFair, "a", false});
  std::optional<AcquireStatus> status;
  lock.Acquire(10s, [&status](AcquireStatus s, const std::string&) { status = s; });
  RunFor(base_, 50ms);
  ASSERT_FALSE(blocked.has_value());
  ASSERT_FALSE(status.has_value());

  ASSERT_EQ(Ctl({"CLIENT", "KILL", "ID", std::to_string(raw_id)}).integer, 1);
  ASSERT_EQ(Ctl({"CLIENT", "KILL", "ID", std::to_string(a_id)}).integer, 1);
  ASSERT_TRUE(Run([&] { return blocked.has_value(); }));
  EXPECT_EQ(blocked->str, kErrConnectionLost);
  EXPECT_TRUE(blocked->local);
  ASSERT_TRUE(Run([&] { return a.connections() == 2; }));
  RunFor(base_, 50ms);
  EXPECT_FALSE(status.has_value()) << "still waiting, on the new connection";
  EXPECT_TRUE(lock.acquiring());

  ASSERT_EQ(Ctl({"DELTP", "lk"}).integer, 1);
  ASSERT_TRUE(Run([&] { return status.has_value(); }));
  EXPECT_EQ(*status, AcquireStatus::kAcquired);
  EXPECT_EQ(Ctl({"GET", "lk"}).str, "a");
  EXPECT_EQ(Ctl({"OBJECT", "OWNER", "lk"}).integer, Call(a, {"CLIENT", "ID"}).integer);
}

TEST_F(ReconnectTest, ServerRestartGivesFreshFirstStates) {
  Client a(base_, Options());
  Connect(a);
  std::vector<std::string> log;
  a.Watch("k", [&log](const WatchEvent& e) { log.push_back(Name(e)); });
  ASSERT_TRUE(Run([&] { return log.size() == 1; }));
  const int port = server_.port();
  server_.Stop();
  ASSERT_TRUE(server_.Start(port)) << server_.error();
  ASSERT_TRUE(Run([&] { return a.connections() == 2 && log.size() == 2; }));
  ASSERT_TRUE(Ctl({"SET", "k", "v"}).Is("OK"));
  ASSERT_TRUE(Run([&] { return log.size() == 3; }));
  EXPECT_EQ(log, (std::vector<std::string>{"k NOEXIST", "k NOEXIST", "k ADD"}));
}

TEST_F(ReconnectTest, RetriesWithGrowingBackoffAndSendsQueuedCommandsOnceTheServerIsUp) {
  ClientOptions o = Options();
  o.port = FreePort();
  o.backoff_initial = 20ms;
  o.backoff_max = 400ms;
  Client c(base_, o);
  int failures = 0;
  std::vector<std::chrono::milliseconds> delays;  // what each failure scheduled
  std::string detail;
  c.AddConnectionListener([&](ConnectionEvent ev, const std::string& d) {
    if (ev == ConnectionEvent::kConnectFailed) {
      ++failures;
      delays.push_back(c.retry_delay());
      detail = d;
    }
  });
  std::optional<Reply> reply;
  c.Command({"SET", "k", "queued"}, [&reply](const Reply& r) { reply = r; });
  c.Start();
  ASSERT_TRUE(Run([&] { return failures >= 4; }, 5s));
  EXPECT_NE(detail.find("cannot connect to 127.0.0.1:" + std::to_string(o.port)), std::string::npos)
      << detail;
  // The schedule doubles from backoff_initial with up to 25% jitter: [20,25], [40,50],
  // [80,100] ms, so each delay is longer than the one before. The test reads the delays the
  // client chose, not the wall clock: libevent measures a timer from the time its loop woke
  // (cached), and a loaded machine stretches any gap, so measured gaps bound nothing.
  for (size_t i = 0; i < 3; ++i) {
    const auto base = 20ms * (1 << i);
    EXPECT_GE(delays[i], base) << i;
    EXPECT_LE(delays[i], base + base / 4) << i;
  }
  EXPECT_FALSE(reply.has_value());

  TestServer late;
  ASSERT_TRUE(late.Start(o.port)) << late.error();
  ASSERT_TRUE(Run([&] { return reply.has_value(); }, 5s));
  EXPECT_TRUE(reply->Is("OK"));
  EXPECT_EQ(Call(c, {"GET", "k"}).str, "queued");
  EXPECT_EQ(c.connections(), 1u);
}

TEST_F(ReconnectTest, LeaseKeepsAnIdleHolderAliveAndFreesTheLockOfOneThatStopsRunning) {
  ClientOptions o = Options();
  o.lease = 300ms;
  Client a(base_, o);
  Connect(a);
  Lock lock(a, "lk");
  std::optional<AcquireStatus> status;
  lock.Acquire(1s, [&status](AcquireStatus s, const std::string&) { status = s; });
  ASSERT_TRUE(Run([&] { return status.has_value(); }));
  ASSERT_EQ(*status, AcquireStatus::kAcquired);
  std::string lost;
  lock.SetLostCallback([&lost](const std::string& why) { lost = why; });

  RunFor(base_, 1000ms);  // idle, but the loop runs: PINGs keep the lease
  EXPECT_TRUE(lock.held());
  EXPECT_TRUE(lost.empty());
  EXPECT_EQ(Ctl({"EXISTS", "lk"}).integer, 1);

  std::this_thread::sleep_for(700ms);  // the program stops running its loop: no PINGs
  EXPECT_EQ(Ctl({"EXISTS", "lk"}).integer, 0) << "the server ended the lease";
  ASSERT_TRUE(Run([&] { return !lost.empty(); }));
  EXPECT_FALSE(lock.held());
}

}  // namespace
}  // namespace redistp::client::testing
