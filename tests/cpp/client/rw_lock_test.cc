// ReadWriteLock: readers share and writers exclude under contention, arrival order between
// readers and writers, a writer woken only by reader releases (nobody else wakes), a dead
// reader does not block writers, loss of either hold, fencing tokens.
#include "client/rw_lock.h"

#include <random>

#include "client_fixture.h"
#include "recipe_util.h"

namespace redistp::client::testing {
namespace {

using RwLockTest = ServerTest;
using Mode = ReadWriteLock::Mode;

AcquireStatus ReadNow(event_base* base, ReadWriteLock& l, std::chrono::milliseconds t = 5s) {
  return RunAcquire(base, [&](Lock::AcquireCallback cb) { l.AcquireRead(t, std::move(cb)); });
}
AcquireStatus WriteNow(event_base* base, ReadWriteLock& l, std::chrono::milliseconds t = 5s) {
  return RunAcquire(base, [&](Lock::AcquireCallback cb) { l.AcquireWrite(t, std::move(cb)); });
}

struct Party {
  std::unique_ptr<Client> client;
  std::unique_ptr<ReadWriteLock> lock;
};

TEST_F(RwLockTest, TenClientsMixedReadsAndWritesNeverAWriterWithAnyoneElse) {
  constexpr int kClients = 10;
  constexpr int kEach = 30;
  std::vector<Party> parties(kClients);
  for (Party& p : parties) {
    p.client = std::make_unique<Client>(base_, Options());
    Connect(*p.client);
    p.lock = std::make_unique<ReadWriteLock>(*p.client, "rw");
  }
  int readers = 0, writers = 0, max_readers = 0, violations = 0, failures = 0, finished = 0;
  std::vector<int> done(kClients, 0);
  std::mt19937 rng(11);
  std::function<void(int)> go = [&](int i) {
    const bool write = rng() % 8 == 0;
    auto on = [&, i, write](AcquireStatus s, const std::string& error) {
      if (s != AcquireStatus::kAcquired) {
        ++failures;
        ADD_FAILURE() << i << ": " << AcquireStatusName(s) << " " << error;
        return;
      }
      if (write) {
        if (writers != 0 || readers != 0) ++violations;
        ++writers;
      } else {
        if (writers != 0) ++violations;
        max_readers = std::max(max_readers, ++readers);
      }
      parties[i].client->Command({"INCR", "n"}, [&, i, write](const Reply&) {
        --(write ? writers : readers);
        parties[i].lock->Release();
        if (++done[i] < kEach) {
          go(i);
        } else {
          ++finished;
        }
      });
    };
    if (write) {
      parties[i].lock->AcquireWrite(20s, on);
    } else {
      parties[i].lock->AcquireRead(20s, on);
    }
  };
  for (int i = 0; i < kClients; ++i) go(i);
  ASSERT_TRUE(Run([&] { return finished == kClients || failures > 0; }, 50s));
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(violations, 0);
  EXPECT_EQ(Ctl({"GET", "n"}).str, std::to_string(kClients * kEach));
  std::printf("  most readers at once: %d\n", max_readers);
  RunFor(base_, 30ms);
  EXPECT_EQ(Ctl({"EXISTS", "rw:gate"}).integer, 0);
}

TEST_F(RwLockTest, ArrivalOrderBetweenReadersAndWritersAndOnlyTheWriterWakesForReaders) {
  // Parties: 0 writer W1 (holds first), then queued in this order: 1 reader, 2 writer, 3 reader.
  std::vector<Party> p(4);
  std::vector<Client*> raw;
  for (Party& x : p) {
    x.client = std::make_unique<Client>(base_, Options());
    Connect(*x.client);
    raw.push_back(x.client.get());
    x.lock = std::make_unique<ReadWriteLock>(*x.client, "rw");
  }
  ASSERT_EQ(WriteNow(base_, *p[0].lock), AcquireStatus::kAcquired);
  EXPECT_EQ(p[0].lock->held_mode(), Mode::kWrite);
  std::vector<std::string> log;
  auto rec = [&log](std::string who) {
    return [&log, who](AcquireStatus s, const std::string&) {
      log.push_back(who + (s == AcquireStatus::kAcquired ? "" : " failed"));
    };
  };
  p[1].lock->AcquireRead(10s, rec("R1"));
  RunFor(base_, 30ms);
  p[2].lock->AcquireWrite(10s, rec("W2"));
  RunFor(base_, 30ms);
  p[3].lock->AcquireRead(10s, rec("R3"));
  RunFor(base_, 30ms);
  EXPECT_TRUE(log.empty());

  p[0].lock->Release();
  ASSERT_TRUE(Run([&] { return log.size() == 1; }));
  RunFor(base_, 30ms);
  EXPECT_EQ(log, (std::vector<std::string>{"R1"})) << "W2 waits for R1, R3 waits behind W2";
  WakeCounter wakes(raw);
  p[1].lock->Release();
  ASSERT_TRUE(Run([&] { return log.size() == 2; }));
  RunFor(base_, 30ms);
  EXPECT_EQ(log.back(), "W2");
  EXPECT_EQ(wakes.Woken(), 2) << "the releasing reader and the writer; R3 sleeps";
  p[2].lock->Release();
  ASSERT_TRUE(Run([&] { return log.size() == 3; }));
  EXPECT_EQ(log.back(), "R3");
  EXPECT_EQ(p[3].lock->held_mode(), Mode::kRead);
}

TEST_F(RwLockTest, ReadersShareTryFailsAgainstTheOtherModeAndADeadReaderDoesNotBlock) {
  std::vector<Party> p(3);
  for (Party& x : p) {
    x.client = std::make_unique<Client>(base_, Options());
    Connect(*x.client);
    x.lock =
        std::make_unique<ReadWriteLock>(*x.client, "rw", LockOptions{LockMode::kFair, "", true});
  }
  ASSERT_EQ(ReadNow(base_, *p[0].lock), AcquireStatus::kAcquired);
  ASSERT_EQ(ReadNow(base_, *p[1].lock), AcquireStatus::kAcquired);
  EXPECT_GT(p[1].lock->fence_token(), p[0].lock->fence_token());
  EXPECT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { p[2].lock->TryAcquireWrite(cb); }),
            AcquireStatus::kBusy);
  EXPECT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { p[0].lock->AcquireWrite(1s, cb); }),
            AcquireStatus::kFailed)
      << "no upgrade";
  std::optional<AcquireStatus> w;
  p[2].lock->AcquireWrite(10s, [&w](AcquireStatus s, const std::string&) { w = s; });
  RunFor(base_, 30ms);
  p[0].lock->Release();
  p[1].client->Close();  // a reader dies holding: its key goes, its set entry stays
  ASSERT_TRUE(Run([&] { return w.has_value(); }));
  EXPECT_EQ(*w, AcquireStatus::kAcquired);
  EXPECT_GT(p[2].lock->fence_token(), p[1].lock->fence_token());
  RunFor(base_, 30ms);
  EXPECT_EQ(Ctl({"SCARD", "rw:readers"}).integer, 0) << "the writer removed the stale entry";
  EXPECT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { p[0].lock->TryAcquireRead(cb); }),
            AcquireStatus::kBusy);
  EXPECT_EQ(ReadNow(base_, *p[0].lock, 100ms), AcquireStatus::kTimedOut);
  p[2].lock->Release();
  EXPECT_EQ(ReadNow(base_, *p[0].lock), AcquireStatus::kAcquired);
}

TEST_F(RwLockTest, LossOfAWriteAndOfAReadHold) {
  Client a(base_, Options());
  Connect(a);
  ReadWriteLock l(a, "rw");
  std::string lost;
  l.SetLostCallback([&lost](const std::string& why) { lost = why; });
  ASSERT_EQ(WriteNow(base_, l), AcquireStatus::kAcquired);
  RunFor(base_, 20ms);
  ASSERT_EQ(Ctl({"DEL", "rw:gate"}).integer, 1);
  ASSERT_TRUE(Run([&] { return !lost.empty(); }));
  EXPECT_EQ(l.held_mode(), Mode::kNone);
  lost.clear();
  ASSERT_EQ(ReadNow(base_, l), AcquireStatus::kAcquired);
  RunFor(base_, 20ms);
  const Reply members = Ctl({"SMEMBERS", "rw:readers"});
  ASSERT_EQ(members.elements.size(), 1u);
  ASSERT_EQ(Ctl({"DEL", members.elements[0].str}).integer, 1);
  ASSERT_TRUE(Run([&] { return !lost.empty(); }));
  EXPECT_EQ(l.held_mode(), Mode::kNone);
  RunFor(base_, 20ms);
  EXPECT_EQ(Ctl({"SCARD", "rw:readers"}).integer, 0);
}

}  // namespace
}  // namespace redistp::client::testing
