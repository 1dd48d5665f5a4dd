// Election and ElectionObserver: candidates elected in arrival order with one client woken per
// change of leader, a fencing token per term, proclaim only while leading (and seen by an
// observer), a stale token refused by ProclaimAs/ResignAs, a term ended by someone else's DEL.
#include "client/election.h"

#include <cstdlib>

#include "client_fixture.h"
#include "recipe_util.h"

namespace redistp::client::testing {
namespace {

class ElectionTest : public ServerTest {
 protected:
  // blocked_clients from INFO clients: the candidates queued on the server.
  int BlockedClients() {
    const std::string info = Ctl({"INFO", "clients"}).str;
    const size_t at = info.find("blocked_clients:");
    return at == std::string::npos ? -1 : std::atoi(info.c_str() + at + 16);
  }
};

AcquireStatus CampaignNow(event_base* base, Election& e, const std::string& value,
                          std::chrono::milliseconds timeout) {
  return RunAcquire(base, [&](Lock::AcquireCallback cb) { e.Campaign(value, timeout, cb); });
}

bool Done(event_base* base, const std::function<void(Election::DoneCallback)>& start) {
  std::optional<bool> ok;
  start([&ok](bool done, const std::string&) { ok = done; });
  RunUntil(
      base, [&ok] { return ok.has_value(); }, std::chrono::seconds(10));
  return ok.value_or(false);
}

TEST_F(ElectionTest, CandidatesLeadInArrivalOrderAndEachChangeWakesOnlyTheNext) {
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::unique_ptr<Election>> candidates;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<Client>(base_, Options()));
    Connect(*clients.back());
    candidates.push_back(std::make_unique<Election>(*clients.back(), "svc"));
  }
  ASSERT_EQ(CampaignNow(base_, *candidates[0], "c0", 5s), AcquireStatus::kAcquired);
  std::vector<int> elected;
  for (int i = 1; i < 4; ++i) {
    candidates[i]->Campaign("c" + std::to_string(i), 20s,
                            [&elected, i](AcquireStatus s, const std::string&) {
                              if (s == AcquireStatus::kAcquired) elected.push_back(i);
                            });
    // Arrival order on the server is the order the waits were queued.
    ASSERT_TRUE(Run([&] { return BlockedClients() == i; }));
  }
  long long last_fence = candidates[0]->fence();
  EXPECT_GT(last_fence, 0);
  EXPECT_EQ(Ctl({"GET", "svc"}).str, "c0");
  for (int i = 0; i < 3; ++i) {
    std::vector<Client*> waiting;  // the candidates still queued (not the resigning leader)
    for (int j = i + 1; j < 4; ++j) waiting.push_back(clients[j].get());
    WakeCounter woken(waiting);
    ASSERT_TRUE(Done(base_, [&](Election::DoneCallback cb) { candidates[i]->Resign(cb); }));
    ASSERT_TRUE(Run([&] { return elected.size() == static_cast<size_t>(i + 1); }));
    EXPECT_EQ(elected.back(), i + 1);
    RunFor(base_, 30ms);
    EXPECT_EQ(woken.Woken(), 1) << "a change of leader woke more than the next candidate";
    EXPECT_TRUE(candidates[i + 1]->leader());
    EXPECT_GT(candidates[i + 1]->fence(), last_fence);
    last_fence = candidates[i + 1]->fence();
    EXPECT_EQ(Ctl({"GET", "svc"}).str, "c" + std::to_string(i + 1));
  }
}

TEST_F(ElectionTest, ProclaimOnlyWhileLeadingAndObserversSeeEveryValue) {
  Client leader_client(base_, Options()), observer_client(base_, Options());
  Connect(leader_client);
  Connect(observer_client);
  std::vector<std::optional<Leader>> seen;
  ElectionObserver observer(observer_client, "svc",
                            [&seen](const std::optional<Leader>& l) { seen.push_back(l); });
  ASSERT_TRUE(Run([&] { return seen.size() == 1; }));
  EXPECT_FALSE(seen[0].has_value()) << "no leader yet";
  Election e(leader_client, "svc");
  EXPECT_FALSE(Done(base_, [&](Election::DoneCallback cb) { e.Proclaim("early", cb); }));
  ASSERT_EQ(CampaignNow(base_, e, "one", 5s), AcquireStatus::kAcquired);
  ASSERT_TRUE(Run([&] { return seen.size() == 2; }));
  EXPECT_EQ(seen[1], (Leader{"one", e.fence()}));
  ASSERT_TRUE(Done(base_, [&](Election::DoneCallback cb) { e.Proclaim("two", cb); }));
  ASSERT_TRUE(Run([&] { return seen.size() == 3; }));
  EXPECT_EQ(seen[2], (Leader{"two", e.fence()}));
  EXPECT_EQ(e.value(), "two");
  EXPECT_EQ(Ctl({"OBJECT", "FENCE", "svc"}).integer, e.fence()) << "SET kept the key's fence";
  EXPECT_EQ(Ctl({"EXISTS", std::string("svc") + Election::kSignalSuffix}).integer, 0);
  // A stale token changes nothing, from any connection.
  EXPECT_FALSE(Done(base_, [&](Election::DoneCallback cb) {
    Election::ProclaimAs(observer_client, "svc", e.fence() - 1, "stale", cb);
  }));
  EXPECT_FALSE(Done(base_, [&](Election::DoneCallback cb) {
    Election::ResignAs(observer_client, "svc", e.fence() - 1, cb);
  }));
  EXPECT_EQ(Ctl({"GET", "svc"}).str, "two");
  ASSERT_TRUE(Done(base_, [&](Election::DoneCallback cb) { e.Resign(cb); }));
  ASSERT_TRUE(Run([&] { return seen.size() == 4; }));
  EXPECT_FALSE(seen[3].has_value());
}

TEST_F(ElectionTest, SomeoneElsesDelEndsTheTermOnceAndProclaimFails) {
  Client c(base_, Options());
  Connect(c);
  Election e(c, "svc");
  int lost = 0;
  e.SetLostCallback([&lost](const std::string&) { ++lost; });
  ASSERT_EQ(CampaignNow(base_, e, "me", 5s), AcquireStatus::kAcquired);
  const long long fence = e.fence();
  EXPECT_EQ(Ctl({"DEL", "svc"}).integer, 1);
  ASSERT_TRUE(Run([&] { return lost > 0; }));
  RunFor(base_, 30ms);
  EXPECT_EQ(lost, 1);
  EXPECT_FALSE(e.leader());
  EXPECT_EQ(e.fence(), 0);
  Ctl({"SET", "svc", "someone"});
  EXPECT_FALSE(Done(base_, [&](Election::DoneCallback cb) {
    Election::ProclaimAs(c, "svc", fence, "me again", cb);
  }));
  EXPECT_EQ(Ctl({"GET", "svc"}).str, "someone");
}

}  // namespace
}  // namespace redistp::client::testing
