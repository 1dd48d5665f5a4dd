// Sessions (ClientOptions::session_grace): a lock survives the loss of its connection (CLIENT
// KILL) and nobody else gets it; a resume the server refuses, a grace that passes without a
// resume (client-side deadline) and CloseSession() each report the loss once and open a new
// session; a key replaced while the session was detached is reported lost after the resume.
#include "client/lock.h"
#include "client/rw_lock.h"
#include "client/semaphore.h"
#include "client_fixture.h"
#include "recipe_util.h"

namespace redistp::client::testing {
namespace {

class SessionTest : public ServerTest {
 protected:
  ClientOptions SessionOptions(std::chrono::milliseconds grace = 5s) const {
    ClientOptions o = Options();
    o.session_grace = grace;
    return o;
  }
  AcquireStatus AcquireNow(Lock& lock, std::chrono::milliseconds timeout = 2s) {
    return RunAcquire(base_, [&](Lock::AcquireCallback cb) { lock.Acquire(timeout, cb); });
  }
  void Kill(Client& c) {
    const long long id = Call(c, {"CLIENT", "ID"}).integer;
    ASSERT_EQ(Ctl({"CLIENT", "KILL", "ID", std::to_string(id)}).integer, 1);
  }
};

TEST_F(SessionTest, ALockHeldThroughAKilledConnectionIsStillHeldAndNobodyElseGetsIt) {
  Client a(base_, SessionOptions());
  Connect(a);
  ASSERT_FALSE(a.session_token().empty());
  ASSERT_GT(a.session_id(), 0);
  EXPECT_EQ(a.session_token().rfind(std::to_string(a.session_id()) + ":", 0), 0u);
  Lock lock(a, "lk", LockOptions{LockMode::kFair, "a", true});
  std::vector<std::string> lost;
  lock.SetLostCallback([&lost](const std::string& why) { lost.push_back(why); });
  ASSERT_EQ(AcquireNow(lock), AcquireStatus::kAcquired);
  const long long token = lock.fence_token();
  EXPECT_EQ(Ctl({"OBJECT", "OWNER", "lk"}).integer, a.session_id());

  Client b(base_, Options());
  Connect(b);
  Lock waiter(b, "lk");
  std::optional<AcquireStatus> got;
  waiter.Acquire(20s, [&got](AcquireStatus s, const std::string&) { got = s; });
  RunFor(base_, 30ms);

  const long long session = a.session_id();
  for (int round = 1; round <= 3; ++round) {
    const auto killed = std::chrono::steady_clock::now();
    Kill(a);
    ASSERT_TRUE(
        Run([&] { return a.session_resumes() == static_cast<uint64_t>(round) && a.ready(); }));
    std::printf("  resumed %.2f ms after CLIENT KILL (back-off %lld ms + jitter included)\n",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - killed)
                    .count(),
                static_cast<long long>(Options().backoff_initial.count()));
    RunFor(base_, 30ms);
    EXPECT_TRUE(lost.empty()) << lost.front();
    EXPECT_TRUE(lock.held());
    EXPECT_EQ(lock.fence_token(), token);
    EXPECT_FALSE(got.has_value()) << "the waiter must not get a lock that is still held";
    EXPECT_EQ(a.session_id(), session);
    EXPECT_EQ(Ctl({"OBJECT", "OWNER", "lk"}).integer, session);
    EXPECT_EQ(Ctl({"GET", "lk"}).str, "a");
  }
  EXPECT_EQ(a.connections(), 4u);
  std::optional<bool> deleted;
  lock.Release([&deleted](bool d) { deleted = d; });
  ASSERT_TRUE(Run([&] { return deleted.has_value() && got.has_value(); }));
  EXPECT_TRUE(*deleted);
  EXPECT_EQ(*got, AcquireStatus::kAcquired);
  EXPECT_TRUE(lost.empty());
}

TEST_F(SessionTest, ARefusedResumeReportsTheLossOnceAndOpensANewSession) {
  Client a(base_, SessionOptions());
  Connect(a);
  Lock lock(a, "lk");
  std::vector<std::string> lost;
  lock.SetLostCallback([&lost](const std::string& why) { lost.push_back(why); });
  std::vector<std::string> events;
  a.AddConnectionListener([&events](ConnectionEvent ev, const std::string&) {
    if (ev == ConnectionEvent::kSessionLost) events.push_back("session lost");
  });
  ASSERT_EQ(AcquireNow(lock), AcquireStatus::kAcquired);
  const long long old_session = a.session_id();
  // Someone with the token takes the session over (closing A's connection) and ends it, in one
  // transaction so that A cannot resume in between.
  BlockingClient& ctl = Control();
  ASSERT_TRUE(ctl.Command({"MULTI"}).Is("OK"));
  ctl.Command({"SESSION", "RESUME", a.session_token()});
  ctl.Command({"SESSION", "CLOSE"});
  const Reply exec = ctl.Command({"EXEC"});
  ASSERT_TRUE(exec.is_array()) << exec.ToString();
  ASSERT_EQ(exec.elements.size(), 2u);
  EXPECT_EQ(exec.elements[1].integer, 1) << "the lock key was released";
  ASSERT_TRUE(Run([&] { return !lost.empty() && a.ready() && a.session_id() != 0; }));
  RunFor(base_, 30ms);
  EXPECT_EQ(lost.size(), 1u);
  EXPECT_NE(lost[0].find("session"), std::string::npos) << lost[0];
  EXPECT_EQ(events, (std::vector<std::string>{"session lost"}));
  EXPECT_NE(a.session_id(), old_session);
  EXPECT_FALSE(lock.held());
  ASSERT_EQ(AcquireNow(lock), AcquireStatus::kAcquired);
  EXPECT_EQ(Ctl({"OBJECT", "OWNER", "lk"}).integer, a.session_id());
}

TEST_F(SessionTest, NoResumeWithinTheGraceIsReportedByTheClientItself) {
  Client a(base_, SessionOptions(300ms));
  Connect(a);
  Lock lock(a, "lk");
  std::vector<std::string> lost;
  lock.SetLostCallback([&lost](const std::string& why) { lost.push_back(why); });
  ASSERT_EQ(AcquireNow(lock), AcquireStatus::kAcquired);
  const std::string old_token = a.session_token();
  const int port = server_.port();
  server_.Stop();  // no server: no resume, no refusal either
  ASSERT_TRUE(Run([&] { return !lost.empty(); }));
  EXPECT_FALSE(a.ready());
  EXPECT_NE(lost[0].find("no resume within the session grace"), std::string::npos) << lost[0];
  ASSERT_TRUE(server_.Start(port)) << server_.error();
  control_.reset();
  ASSERT_TRUE(Run([&] { return a.ready() && a.session_id() != 0; }));
  EXPECT_NE(a.session_token(), old_token) << "a new session (a restarted server counts ids anew)";
  RunFor(base_, 30ms);
  EXPECT_EQ(lost.size(), 1u) << "reported once";
}

TEST_F(SessionTest, CloseSessionReleasesTheKeysAndOpensANewSession) {
  Client a(base_, SessionOptions());
  Connect(a);
  Lock lock(a, "lk");
  std::string lost;
  lock.SetLostCallback([&lost](const std::string& why) { lost = why; });
  ASSERT_EQ(AcquireNow(lock), AcquireStatus::kAcquired);
  const long long old_session = a.session_id();
  std::optional<Reply> closed;
  a.CloseSession([&closed](const Reply& r) { closed = r; });
  EXPECT_NE(lost.find("closed by the program"), std::string::npos) << lost;
  ASSERT_TRUE(Run([&] { return closed.has_value() && a.session_id() != old_session; }));
  EXPECT_EQ(closed->integer, 1);
  EXPECT_EQ(Ctl({"EXISTS", "lk"}).integer, 0);
  EXPECT_GT(a.session_id(), 0);
  ASSERT_EQ(AcquireNow(lock), AcquireStatus::kAcquired);
  EXPECT_EQ(Ctl({"OBJECT", "OWNER", "lk"}).integer, a.session_id());

  Client plain(base_, Options());
  Connect(plain);
  std::optional<Reply> refused;
  plain.CloseSession([&refused](const Reply& r) { refused = r; });
  ASSERT_TRUE(Run([&] { return refused.has_value(); }));
  EXPECT_TRUE(refused->is_error() && refused->local);
}

TEST_F(SessionTest, AKeyReplacedWhileDetachedIsReportedLostAfterTheResume) {
  Client a(base_, SessionOptions());
  Lock lock(a, "lk");
  std::string lost;
  lock.SetLostCallback([&lost](const std::string& why) { lost = why; });
  a.AddConnectionListener([&](ConnectionEvent ev, const std::string&) {
    if (ev != ConnectionEvent::kDisconnected) return;
    // While A is away (its session detached), an operator deletes the lock and someone
    // else takes the name.
    EXPECT_EQ(Ctl({"DEL", "lk"}).integer, 1);
    EXPECT_EQ(Ctl({"SETTP", "lk", "thief"}).integer, 1);
  });
  Connect(a);
  ASSERT_EQ(AcquireNow(lock), AcquireStatus::kAcquired);
  Kill(a);
  ASSERT_TRUE(Run([&] { return !lost.empty(); }));
  EXPECT_EQ(a.session_resumes(), 1u);
  EXPECT_FALSE(lock.held());
  EXPECT_EQ(Ctl({"GET", "lk"}).str, "thief");
}

TEST_F(SessionTest, APermitAndAReadHoldSurviveAKilledConnection) {
  Client a(base_, SessionOptions());
  Connect(a);
  Semaphore sem(a, "sem", 1);
  ReadWriteLock rw(a, "rw");
  std::vector<std::string> lost;
  sem.SetLostCallback([&lost](const std::string& why) { lost.push_back("sem: " + why); });
  rw.SetLostCallback([&lost](const std::string& why) { lost.push_back("rw: " + why); });
  ASSERT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { sem.Acquire(2s, cb); }),
            AcquireStatus::kAcquired);
  ASSERT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { rw.AcquireRead(2s, cb); }),
            AcquireStatus::kAcquired);
  Kill(a);
  ASSERT_TRUE(Run([&] { return a.session_resumes() == 1 && a.ready(); }));
  RunFor(base_, 30ms);
  EXPECT_TRUE(lost.empty()) << lost.front();
  EXPECT_TRUE(sem.held());
  EXPECT_EQ(rw.held_mode(), ReadWriteLock::Mode::kRead);
  Client b(base_, Options());
  Connect(b);
  Semaphore other(b, "sem", 1);
  ReadWriteLock writer(b, "rw");
  EXPECT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { other.TryAcquire(cb); }),
            AcquireStatus::kBusy);
  EXPECT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { writer.TryAcquireWrite(cb); }),
            AcquireStatus::kBusy);
  sem.Release();
  rw.Release();
  EXPECT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { other.Acquire(2s, cb); }),
            AcquireStatus::kAcquired);
  EXPECT_EQ(RunAcquire(base_, [&](Lock::AcquireCallback cb) { writer.AcquireWrite(2s, cb); }),
            AcquireStatus::kAcquired);
}

}  // namespace
}  // namespace redistp::client::testing
