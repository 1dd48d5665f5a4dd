// Unit tests for the Pub/Sub registry (server/pubsub.h), driven through the in-process harness
// (tests/cpp/harness.h) so that subscriptions belong to real clients and messages are read as
// the bytes a client receives.
//
// What is checked: the registry's invariants (a topic exists iff it has subscribers, both
// directions agree, duplicates are refused, the three kinds are separate namespaces), the
// counters producers rely on (idle, has_patterns, watchex_channels), the exact frame bytes of
// message / pmessage / smessage in RESP2 and RESP3 (the header is encoded once and shared, only
// the type byte differs), the hold rule for the publisher's own copy, and teardown (disconnect
// and RESET leave every subscription). A randomized model test replays subscribe/unsubscribe/
// disconnect sequences against a std::map model and compares every count after each step.
#include "server/pubsub.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "harness.h"
#include "server/config.h"
#include "server/server.h"

namespace redistp {
namespace {

using testing::Frame;
using testing::Harness;

TEST(PubSubRegistry, SubscribeIsIdempotentAndTopicsLiveWhileSubscribed) {
  Harness h;
  Client* a = h.Connect("a");
  Client* b = h.Connect("b");
  PubSub& ps = h.server().pubsub();
  EXPECT_TRUE(ps.idle());
  EXPECT_TRUE(ps.Subscribe(*a, PubSub::kChannel, "news"));
  EXPECT_FALSE(ps.Subscribe(*a, PubSub::kChannel, "news"));
  EXPECT_TRUE(ps.Subscribe(*b, PubSub::kChannel, "news"));
  EXPECT_FALSE(ps.idle());
  EXPECT_EQ(ps.ChannelSubscribers("news"), 2u);
  EXPECT_EQ(ps.topic_count(PubSub::kChannel), 1u);
  EXPECT_EQ(a->pubsub.subscriptions[PubSub::kChannel].size(), 1u);

  EXPECT_TRUE(ps.Unsubscribe(*a, PubSub::kChannel, "news"));
  EXPECT_FALSE(ps.Unsubscribe(*a, PubSub::kChannel, "news"));
  EXPECT_EQ(ps.ChannelSubscribers("news"), 1u);
  EXPECT_TRUE(ps.Unsubscribe(*b, PubSub::kChannel, "news"));
  EXPECT_EQ(ps.topic_count(PubSub::kChannel), 0u) << "the last unsubscribe frees the topic";
  EXPECT_TRUE(ps.idle());
  EXPECT_FALSE(PubSub::Subscribed(*a));
}

TEST(PubSubRegistry, KindsAreSeparateNamespaces) {
  Harness h;
  Client* a = h.Connect("a");
  PubSub& ps = h.server().pubsub();
  EXPECT_TRUE(ps.Subscribe(*a, PubSub::kChannel, "x"));
  EXPECT_TRUE(ps.Subscribe(*a, PubSub::kPattern, "x"));
  EXPECT_TRUE(ps.Subscribe(*a, PubSub::kShard, "x"));
  EXPECT_TRUE(ps.has_patterns());
  EXPECT_EQ(ps.Subscribers(PubSub::kChannel, "x"), 1u);
  EXPECT_EQ(ps.Subscribers(PubSub::kPattern, "x"), 1u);
  EXPECT_EQ(ps.Subscribers(PubSub::kShard, "x"), 1u);
  EXPECT_EQ(PubSub::SubscriptionCount(*a, PubSub::kChannel), 2u) << "channels + patterns";
  EXPECT_EQ(PubSub::SubscriptionCount(*a, PubSub::kPattern), 2u);
  EXPECT_EQ(PubSub::SubscriptionCount(*a, PubSub::kShard), 1u) << "shard channels alone";
  EXPECT_TRUE(ps.Unsubscribe(*a, PubSub::kPattern, "x"));
  EXPECT_FALSE(ps.has_patterns());
  EXPECT_EQ(ps.Subscribers(PubSub::kChannel, "x"), 1u);
  EXPECT_EQ(ps.Subscribers(PubSub::kShard, "x"), 1u);
}

TEST(PubSubRegistry, WatchExChannelsCountsExactSubscriptionsWithThePrefix) {
  Harness h;
  Client* a = h.Connect("a");
  Client* b = h.Connect("b");
  PubSub& ps = h.server().pubsub();
  ps.Subscribe(*a, PubSub::kChannel, "__watchex@0__:k");
  ps.Subscribe(*b, PubSub::kChannel, "__watchex@0__:k");
  ps.Subscribe(*a, PubSub::kChannel, "__watchex@");
  ps.Subscribe(*a, PubSub::kChannel, "__watchex");      // no '@': not counted
  ps.Subscribe(*a, PubSub::kPattern, "__watchex@*");    // a pattern: not counted
  ps.Subscribe(*a, PubSub::kShard, "__watchex@0__:k");  // a shard channel: not counted
  EXPECT_EQ(ps.watchex_channels(), 3u);
  ps.Unsubscribe(*b, PubSub::kChannel, "__watchex@0__:k");
  EXPECT_EQ(ps.watchex_channels(), 2u);
  h.Disconnect("a");
  h.AdvanceTime(0);
  EXPECT_EQ(ps.watchex_channels(), 0u);
  EXPECT_TRUE(ps.idle());
}

TEST(PubSubRegistry, UnsubscribeAllReportsCountsDownToZero) {
  Harness h;
  Client* a = h.Connect("a");
  PubSub& ps = h.server().pubsub();
  for (const char* name : {"c1", "c2", "c3"}) ps.Subscribe(*a, PubSub::kChannel, name);
  ps.Subscribe(*a, PubSub::kPattern, "p");
  std::set<std::string> names;
  std::vector<size_t> counts;
  ps.UnsubscribeAll(*a, PubSub::kChannel, [&](std::string_view name, size_t left) {
    names.insert(std::string(name));
    counts.push_back(left);
  });
  EXPECT_EQ(names, (std::set<std::string>{"c1", "c2", "c3"}));
  EXPECT_EQ(counts, (std::vector<size_t>{3, 2, 1})) << "the pattern still counts";
  EXPECT_EQ(ps.topic_count(PubSub::kChannel), 0u);
  EXPECT_EQ(ps.topic_count(PubSub::kPattern), 1u);
}

TEST(PubSubPublish, FramesAreExactInBothProtocols) {
  Harness h;
  h.SetResp("r3", 3);
  EXPECT_EQ(h.Run("r2", {"SUBSCRIBE", "ch"}).raw, "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  // A RESP3 confirmation is a push frame, which the harness files under Pushes().
  h.Run("r3", {"SUBSCRIBE", "ch"});
  std::vector<Frame> confirm = h.Pushes("r3");
  ASSERT_EQ(confirm.size(), 1u);
  EXPECT_EQ(confirm[0].raw, ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  EXPECT_EQ(h.Run("p", {"PUBLISH", "ch", "hello"}).Text(), "(integer) 2");
  const std::string body = "$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n";
  std::vector<Frame> p2 = h.Pushes("r2");
  std::vector<Frame> p3 = h.Pushes("r3");
  ASSERT_EQ(p2.size(), 1u);
  ASSERT_EQ(p3.size(), 1u);
  EXPECT_EQ(p2[0].raw, "*3\r\n" + body);
  EXPECT_EQ(p3[0].raw, ">3\r\n" + body);
}

TEST(PubSubPublish, PatternAndShardFrames) {
  Harness h;
  h.SetResp("s", 3);
  h.Run("s", {"PSUBSCRIBE", "n*"});
  h.Run("s", {"SSUBSCRIBE", "news"});
  h.Pushes("s");
  EXPECT_EQ(h.Run("p", {"PUBLISH", "news", ""}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("p", {"SPUBLISH", "news", "x"}).Text(), "(integer) 1");
  std::vector<Frame> got = h.Pushes("s");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].raw, ">4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$0\r\n\r\n");
  EXPECT_EQ(got[1].raw, ">3\r\n$8\r\nsmessage\r\n$4\r\nnews\r\n$1\r\nx\r\n");
}

TEST(PubSubPublish, BinaryAndLargeMessagesArriveIntact) {
  Harness h;
  std::string chan("c\0h\r\n", 5);
  std::string msg(100000, 'z');
  msg[7] = '\0';
  msg[50000] = '\n';
  h.Run("s", {"SUBSCRIBE", chan});
  EXPECT_EQ(h.Run("p", {"PUBLISH", chan, msg}).Text(), "(integer) 1");
  std::vector<Frame> got = h.Pushes("s");
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].elems.size(), 3u);
  EXPECT_EQ(got[0].elems[1].str, chan);
  EXPECT_EQ(got[0].elems[2].str, msg);
}

TEST(PubSubPublish, ThePublishersOwnCopyFollowsItsReply) {
  // As push_test.cc does: a Server that is not started and a client without a socket, so the
  // output buffer shows the order of reply and message.
  Server server{Config()};
  Client c{1, -1};
  c.server = &server;
  c.reply.SetResp(3);
  server.pubsub().Subscribe(c, PubSub::kChannel, "self");
  c.set_flag(kClientExecuting, true);  // its own PUBLISH is running
  EXPECT_EQ(server.pubsub().Publish("self", "hi"), 1u);
  c.reply.Int(1);
  EXPECT_EQ(c.out.ToString(), ":1\r\n") << "the message is held";
  c.set_flag(kClientExecuting, false);
  server.ReleaseHeldPushes(c);
  EXPECT_EQ(c.out.ToString(), ":1\r\n>3\r\n$7\r\nmessage\r\n$4\r\nself\r\n$2\r\nhi\r\n");
  server.pubsub().RemoveClient(c);
}

TEST(PubSubTeardown, DisconnectAndResetLeaveEverything) {
  Harness h;
  h.Run("a", {"SUBSCRIBE", "c"});
  h.Run("a", {"PSUBSCRIBE", "p*"});
  h.Run("a", {"SSUBSCRIBE", "s"});
  h.Run("b", {"SUBSCRIBE", "c"});
  PubSub& ps = h.server().pubsub();
  EXPECT_EQ(ps.ChannelSubscribers("c"), 2u);
  h.Disconnect("a");
  h.AdvanceTime(0);
  EXPECT_EQ(ps.ChannelSubscribers("c"), 1u);
  EXPECT_FALSE(ps.has_patterns());
  EXPECT_EQ(ps.topic_count(PubSub::kShard), 0u);
  EXPECT_EQ(h.Run("b", {"RESET"}).Text(), "RESET");
  EXPECT_TRUE(ps.idle());
  EXPECT_TRUE(h.Pushes("b").empty()) << "RESET sends no unsubscribe confirmations";
}

// Random subscribe / unsubscribe / unsubscribe-all / disconnect steps, checked after each step
// against a model: per topic its set of clients, per client its topics.
TEST(PubSubModel, RandomOperationsKeepBothDirectionsInStep) {
  Harness h;
  PubSub& ps = h.server().pubsub();
  std::mt19937 rng(20261124);
  constexpr int kClients = 12, kNames = 40, kSteps = 4000;
  std::map<std::pair<int, std::string>, std::set<int>> model;  // (kind, name) -> client slots
  std::vector<int> generation(kClients, 0);
  auto conn = [&](int i) { return "c" + std::to_string(i) + "." + std::to_string(generation[i]); };
  for (int step = 0; step < kSteps; ++step) {
    int ci = static_cast<int>(rng() % kClients);
    Client* c = h.Connect(conn(ci));
    auto kind = static_cast<PubSub::Kind>(rng() % PubSub::kKinds);
    std::string name = "t" + std::to_string(rng() % kNames);
    int op = static_cast<int>(rng() % 10);
    if (op < 5) {
      bool added = ps.Subscribe(*c, kind, name);
      bool fresh = model[std::make_pair(static_cast<int>(kind), name)].insert(ci).second;
      EXPECT_EQ(added, fresh);
    } else if (op < 8) {
      bool removed = ps.Unsubscribe(*c, kind, name);
      auto it = model.find(std::make_pair(static_cast<int>(kind), name));
      EXPECT_EQ(removed, it != model.end() && it->second.erase(ci) == 1);
    } else if (op == 8) {
      size_t calls = 0;
      ps.UnsubscribeAll(*c, kind, [&](std::string_view, size_t) { ++calls; });
      size_t expected = 0;
      for (auto& [key, clients] : model) {
        if (key.first == kind) expected += clients.erase(ci);
      }
      EXPECT_EQ(calls, expected);
    } else {
      h.Disconnect(conn(ci));
      h.AdvanceTime(0);
      ++generation[ci];
      for (auto& [key, clients] : model) clients.erase(ci);
    }
    // Counts per kind and per topic agree with the model.
    size_t topics[PubSub::kKinds] = {};
    for (auto& [key, clients] : model) {
      if (!clients.empty()) ++topics[key.first];
      ASSERT_EQ(ps.Subscribers(static_cast<PubSub::Kind>(key.first), key.second), clients.size())
          << "step " << step;
    }
    for (int k = 0; k < PubSub::kKinds; ++k) {
      ASSERT_EQ(ps.topic_count(static_cast<PubSub::Kind>(k)), topics[k]) << "step " << step;
    }
  }
  // Each live client's own sets agree with the model too.
  for (int i = 0; i < kClients; ++i) {
    Client* c = h.Connect(conn(i));
    for (int k = 0; k < PubSub::kKinds; ++k) {
      size_t expected = 0;
      for (auto& [key, clients] : model) {
        if (key.first == k) expected += clients.count(i);
      }
      EXPECT_EQ(c->pubsub.subscriptions[k].size(), expected);
    }
  }
}

}  // namespace
}  // namespace redistp
