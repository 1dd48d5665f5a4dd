// Client: replies of every type in issue order, watches (first state, every change, ordering
// promise, several subscribers), a 1,000-command pipeline interleaved with pushes from this and
// another connection, push-shaped replies (MGET, the program's own MULTI/EXEC), refused
// commands, Close().
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "client/errors.h"
#include "client_fixture.h"

namespace redistp::client::testing {
namespace {

using ClientTest = ServerTest;

std::string Name(const WatchEvent& e) { return e.key + " " + WatchEventName(e.type); }

TEST_F(ClientTest, RepliesOfEveryTypeArriveInIssueOrderAlsoWhenQueuedBeforeStart) {
  Client c(base_, Options());
  std::vector<std::string> got;
  auto rec = [&got](const Reply& r) { got.push_back(r.ToString()); };
  for (auto argv : std::vector<std::vector<std::string>>{{"SET", "s", "hello"},
                                                         {"GET", "s"},
                                                         {"GET", "missing"},
                                                         {"INCR", "n"},
                                                         {"INCR", "s"},
                                                         {"MGET", "s", "missing", "n"},
                                                         {"PING"},
                                                         {"MULTI"},
                                                         {"INCR", "n"},
                                                         {"GET", "n"},
                                                         {"EXEC"}}) {
    c.Command(argv, rec);
  }
  EXPECT_TRUE(got.empty()) << "callbacks must not run inside Command()";
  c.Start();
  ASSERT_TRUE(Run([&] { return got.size() == 11; }));
  const std::vector<std::string> want = {"+OK",
                                         "\"hello\"",
                                         "(nil)",
                                         ":1",
                                         "-ERR value is not an integer or out of range",
                                         "[\"hello\", (nil), \"1\"]",
                                         "+PONG",
                                         "+OK",
                                         "+QUEUED",
                                         "+QUEUED",
                                         "[:2, \"2\"]"};
  EXPECT_EQ(got, want);
  EXPECT_EQ(c.connections(), 1u);
}

TEST_F(ClientTest, PushShapedReplyIsDeliveredAsAReplyWhenNothingIsWatched) {
  ASSERT_TRUE(Ctl({"MSET", "m1", "watchex", "m2", "w0", "m3", "ADD"}).Is("OK"));
  Client c(base_, Options());
  Connect(c);
  EXPECT_EQ(Call(c, {"MGET", "m1", "m2", "m3"}).ToString(), R"(["watchex", "w0", "ADD"])");
  EXPECT_EQ(Call(c, {"GET", "m2"}).ToString(), "\"w0\"");
}

TEST_F(ClientTest, WatchGivesFirstStateThenEveryChangeInOrderAndBeforeLaterReplies) {
  ASSERT_TRUE(Ctl({"SET", "b", "1"}).Is("OK"));
  Client c(base_, Options());
  Connect(c);
  std::vector<std::string> log;
  auto w = [&log](const WatchEvent& e) { log.push_back(Name(e)); };
  c.Watch("a", w);
  c.Watch("b", w);
  ASSERT_TRUE(Run([&] { return log.size() == 2; }));
  EXPECT_EQ(log, (std::vector<std::string>{"a NOEXIST", "b EXIST"}));

  ASSERT_TRUE(Ctl({"SET", "a", "1"}).Is("OK"));
  ASSERT_TRUE(Ctl({"SET", "a", "2"}).Is("OK"));  // value change: no event
  ASSERT_EQ(Ctl({"DEL", "a"}).integer, 1);
  ASSERT_TRUE(Ctl({"SET", "a", "3"}).Is("OK"));
  ASSERT_EQ(Ctl({"DEL", "b"}).integer, 1);
  ASSERT_EQ(Ctl({"PEXPIRE", "a", "30"}).integer, 1);
  // The changes above happened before this PING was sent, so their notifications come first.
  c.Command({"PING"}, [&log](const Reply& r) { log.push_back("reply " + r.ToString()); });
  ASSERT_TRUE(Run([&] { return log.size() == 7; }));
  EXPECT_EQ(log, (std::vector<std::string>{"a NOEXIST", "b EXIST", "a ADD", "a DEL", "a ADD",
                                           "b DEL", "reply +PONG"}));
  ASSERT_TRUE(Run([&] { return log.size() == 8; }, 3s)) << "expiry of a watched key";
  EXPECT_EQ(log.back(), "a DEL");
}

TEST_F(ClientTest, SeveralSubscribersShareOneServerWatchAndUnwatchStopsEvents) {
  Client c(base_, Options());
  Connect(c);
  std::vector<std::string> one, two;
  Client::WatchId id1 = c.Watch("k", [&one](const WatchEvent& e) { one.push_back(Name(e)); });
  c.Watch("k", [&two](const WatchEvent& e) { two.push_back(Name(e)); });
  ASSERT_TRUE(Run([&] { return one.size() == 1 && two.size() == 1; }));
  EXPECT_NE(Call(c, {"CLIENT", "INFO"}).str.find(" wx=1"), std::string::npos);

  ASSERT_TRUE(Ctl({"SET", "k", "v"}).Is("OK"));
  ASSERT_TRUE(Run([&] { return one.size() == 2 && two.size() == 2; }));
  c.Unwatch(id1);
  c.Unwatch(id1);  // already gone: harmless
  ASSERT_EQ(Ctl({"DEL", "k"}).integer, 1);
  ASSERT_TRUE(Run([&] { return two.size() == 3; }));
  EXPECT_EQ(one, (std::vector<std::string>{"k NOEXIST", "k ADD"}));
  EXPECT_EQ(two, (std::vector<std::string>{"k NOEXIST", "k ADD", "k DEL"}));

  EXPECT_EQ(c.UnwatchKey("k"), 1);
  EXPECT_EQ(c.watched_keys(), 0u);
  EXPECT_NE(Call(c, {"CLIENT", "INFO"}).str.find(" wx=0"), std::string::npos);
  ASSERT_TRUE(Ctl({"SET", "k", "v"}).Is("OK"));
  Call(c, {"PING"});
  EXPECT_EQ(two.size(), 3u) << "no event after UnwatchKey";
}

// 1,000 pipelined commands on A, which watches w0..w4 (changed by A itself) and x0..x4
// (toggled meanwhile by B, one chain of sequential SET/DEL commands per key). Every fifth command
// is an MGET whose reply has exactly the shape of a push for the watched key w0. A's replies and
// A's own notifications must come exactly as the model says (a change's notification right
// after the reply of the command that made it); B's notifications must all arrive, in order per
// key.
TEST_F(ClientTest, PipelineOfThousandCommandsInterleavedWithPushesLosesAndMisroutesNothing) {
  ASSERT_TRUE(Ctl({"MSET", "m1", "watchex", "m2", "w0", "m3", "ADD"}).Is("OK"));
  Client a(base_, Options());
  Client b(base_, Options());
  Connect(a);
  Connect(b);
  constexpr int kKeys = 5;
  constexpr int kCommands = 1000;
  constexpr int kToggles = 200;
  std::vector<std::string> log;
  auto rec = [&log](const WatchEvent& e) { log.push_back("P " + Name(e)); };
  for (int i = 0; i < kKeys; ++i) {
    a.Watch("w" + std::to_string(i), rec);
    a.Watch("x" + std::to_string(i), rec);
  }
  ASSERT_TRUE(Run([&] { return log.size() == 2 * kKeys; }));
  log.clear();

  // B runs one chain per x key, each a sequence of SET/DEL commands sent one after the other.
  int toggles_done = 0;
  std::function<void(int, int)> toggle = [&](int k, int n) {
    if (n == kToggles / kKeys) return;
    const std::string key = "x" + std::to_string(k);
    std::vector<std::string> argv = n % 2 == 0 ? std::vector<std::string>{"SET", key, "v"}
                                               : std::vector<std::string>{"DEL", key};
    b.Command(argv, [&, k, n](const Reply&) {
      ++toggles_done;
      toggle(k, n + 1);
    });
  };

  std::vector<std::string> expected;
  std::vector<std::vector<std::string>> commands;
  bool present[kKeys] = {};
  long long counter = 0;
  for (int i = 0; i < kCommands; ++i) {
    const int k = (i / 5) % kKeys;
    const std::string w = "w" + std::to_string(k);
    std::string want, push;
    switch (i % 5) {
      case 0:
        commands.push_back({"SET", w, "v"});
        want = "+OK";
        if (!present[k]) push = "P " + w + " ADD";
        present[k] = true;
        break;
      case 1:
        commands.push_back({"INCR", "ctr"});
        want = ":" + std::to_string(++counter);
        break;
      case 2:
        commands.push_back({"MGET", "m1", "m2", "m3"});
        want = R"(["watchex", "w0", "ADD"])";
        break;
      case 3:
        commands.push_back({"DEL", w});
        want = present[k] ? ":1" : ":0";
        if (present[k]) push = "P " + w + " DEL";
        present[k] = false;
        break;
      default:
        commands.push_back({"GET", "ctr"});
        want = "\"" + std::to_string(counter) + "\"";
        break;
    }
    expected.push_back("R " + std::to_string(i) + " " + want);
    if (!push.empty()) expected.push_back(push);
  }
  // Sent in groups of five that each begin with an MGET, the next group issued when the first
  // reply of an earlier one arrives (four groups in flight), so B's notifications land between
  // A's batches — right where the reply at the head is a push-shaped MGET.
  std::vector<std::pair<int, int>> groups = {{0, 2}};
  for (int i = 2; i < kCommands; i += 5) groups.emplace_back(i, std::min(i + 5, kCommands));
  int replies = 0;
  size_t next_group = 0;
  std::function<void()> send_group = [&] {
    if (next_group == groups.size()) return;
    // Plain variables, not a structured binding: clang 14 cannot capture one in a lambda.
    const int first = groups[next_group].first;
    const int last = groups[next_group].second;
    ++next_group;
    for (int i = first; i < last; ++i) {
      a.Command(commands[static_cast<size_t>(i)], [&, i, first](const Reply& r) {
        log.push_back("R " + std::to_string(i) + " " + r.ToString());
        ++replies;
        if (i == first) send_group();
      });
    }
  };
  for (int k = 0; k < kKeys; ++k) toggle(k, 0);
  for (int g = 0; g < 4; ++g) send_group();
  ASSERT_TRUE(Run([&] { return replies == kCommands && toggles_done == kToggles; }, 30s));
  Call(a, {"PING"});  // every change of B happened before: its notifications are in

  std::vector<std::string> a_part;
  std::map<std::string, std::vector<std::string>> b_part;
  for (const std::string& e : log) {
    if (e.rfind("P x", 0) == 0) {
      b_part[e.substr(2, 2)].push_back(e.substr(5));
    } else {
      a_part.push_back(e);
    }
  }
  // How many of B's notifications arrived while A still had replies to come.
  size_t interleaved = 0;
  size_t last_reply = 0;
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i][0] == 'R') last_reply = i;
  }
  for (size_t i = 0; i < last_reply; ++i) interleaved += log[i].rfind("P x", 0) == 0;
  std::printf("  %zu of %d notifications from B arrived between A's replies\n", interleaved,
              kToggles);
  EXPECT_GT(interleaved, 0u);
  ASSERT_EQ(a_part.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(a_part[i], expected[i]) << "entry " << i;
  ASSERT_EQ(b_part.size(), static_cast<size_t>(kKeys));
  for (auto& [key, events] : b_part) {
    ASSERT_EQ(events.size(), static_cast<size_t>(kToggles / kKeys)) << key;
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(events[i], i % 2 == 0 ? "ADD" : "DEL") << key << " event " << i;
    }
  }
}

TEST_F(ClientTest, ProgramsOwnTransactionWorksWhileWatchingAndHoldsBackWatchRegistration) {
  ASSERT_TRUE(Ctl({"MSET", "m1", "watchex", "m2", "w0", "m3", "ADD"}).Is("OK"));
  Client c(base_, Options());
  Connect(c);
  std::vector<std::string> log;
  auto rec = [&log](const Reply& r) { log.push_back(r.ToString()); };
  auto w = [&log](const WatchEvent& e) { log.push_back(Name(e)); };
  c.Watch("w0", w);
  ASSERT_TRUE(Run([&] { return log.size() == 1; }));
  c.Command({"MULTI"}, rec);
  c.Command({"GET", "m1"}, rec);
  c.Command({"GET", "m2"}, rec);
  c.Watch("w1", w);  // must not be queued inside the transaction
  c.Command({"GET", "m3"}, rec);
  c.Command({"EXEC"}, rec);  // its reply looks exactly like a push for w0
  c.Command({"MULTI"}, rec);
  c.Command({"SET", "w0", "1"}, rec);
  c.Command({"EXEC"}, rec);
  c.Command({"MULTI"}, rec);
  c.Command({"GET", "m1"}, rec);
  c.Command({"DISCARD"}, rec);
  c.Command({"KEYS", "m*"},
            [&log](const Reply& r) { log.push_back("keys " + std::to_string(r.elements.size())); });
  ASSERT_TRUE(Run([&] { return log.size() == 15; }));
  const std::vector<std::string> want = {
      "w0 NOEXIST", "+OK", "+QUEUED", "+QUEUED", "+QUEUED", R"(["watchex", "w0", "ADD"])",
      "w1 NOEXIST", "+OK", "+QUEUED", "[+OK]",   "w0 ADD",  "+OK",
      "+QUEUED",    "+OK", "keys 3"};
  EXPECT_EQ(log, want);
}

TEST_F(ClientTest, RefusedAndNestedCommandsAreAnsweredLocallyInIssueOrder) {
  Client c(base_, Options());
  Connect(c);
  std::vector<Reply> got;
  auto rec = [&got](const Reply& r) { got.push_back(r); };
  c.Command({"GET", "a"}, rec);
  c.Command({"select", "1"}, rec);
  c.Command({"WATCHEX", "a"}, rec);
  c.Command({"CLIENT", "REPLY", "OFF"}, rec);
  c.Command({"GET", "a"}, rec);
  c.Command({"MULTI"}, rec);
  c.Command({"MULTI"}, rec);
  c.Command({"DISCARD"}, rec);
  c.Command({}, rec);
  ASSERT_TRUE(Run([&] { return got.size() == 9; }));
  EXPECT_TRUE(got[0].is_nil());
  EXPECT_TRUE(got[1].is_error() && got[1].local);
  EXPECT_NE(got[1].str.find("ClientOptions::db"), std::string::npos) << got[1].str;
  EXPECT_TRUE(got[2].is_error() && got[2].local);
  EXPECT_NE(got[2].str.find("Watch()"), std::string::npos) << got[2].str;
  EXPECT_TRUE(got[3].is_error() && got[3].local);
  EXPECT_TRUE(got[4].is_nil());
  EXPECT_TRUE(got[5].Is("OK"));
  EXPECT_EQ(got[6].str, kErrNestedMulti);
  EXPECT_TRUE(got[6].local);
  EXPECT_TRUE(got[7].Is("OK"));
  EXPECT_EQ(got[8].str, kErrEmptyCommand);
  EXPECT_TRUE(Call(c, {"PING"}).Is("PONG"));
}

TEST_F(ClientTest, CloseFailsWaitingCommandsAndLaterOnesThenStartReopens) {
  ASSERT_EQ(Ctl({"SETTP", "held", "control"}).integer, 1);
  Client c(base_, Options());
  std::vector<std::string> events;
  c.AddConnectionListener([&events](ConnectionEvent ev, const std::string&) {
    events.push_back(ev == ConnectionEvent::kConnected      ? "connected"
                     : ev == ConnectionEvent::kDisconnected ? "disconnected"
                     : ev == ConnectionEvent::kClosed       ? "closed"
                                                            : "failed");
  });
  Connect(c);
  std::optional<Reply> blocked;
  c.Command({"BSETTP", "held", "c", "5"}, [&blocked](const Reply& r) { blocked = r; });
  RunFor(base_, 50ms);
  ASSERT_FALSE(blocked.has_value());
  c.Close();
  ASSERT_TRUE(blocked.has_value());
  EXPECT_EQ(blocked->str, kErrClosed);
  EXPECT_TRUE(blocked->local);
  std::optional<Reply> later;
  c.Command({"PING"}, [&later](const Reply& r) { later = r; });
  EXPECT_FALSE(later.has_value()) << "not inside Command()";
  ASSERT_TRUE(Run([&] { return later.has_value(); }));
  EXPECT_EQ(later->str, kErrClosed);
  EXPECT_EQ(events, (std::vector<std::string>{"connected", "disconnected", "closed"}));
  Connect(c);
  EXPECT_TRUE(Call(c, {"PING"}).Is("PONG"));
  EXPECT_EQ(c.connections(), 2u);
}

}  // namespace
}  // namespace redistp::client::testing
