// Unit tests for BlockingCore, the one blocking core of every blocking command kind.
//
// The core is driven as the server drives it: real Databases whose key events reach the core
// (after the watch index, which flags the entries of queued keys) through a KeyspaceHub, and
// fake kinds. A "present" kind is served by a key whose value starts with "go" and consumes it
// (like BLPOP popping the last element); an "absent" kind is served by a missing key and
// creates it (like BSETTP). Each served or timed-out waiter writes its client id (or -id for a
// timeout) into a per-client reply buffer, so the tests read what a client would have received.
#include "watch/blocking.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/database.h"
#include "server/keyspace_hub.h"
#include "util/byte_buffer.h"
#include "util/reply_buffer.h"
#include "watch/watches.h"

namespace redistp {
namespace {

class NullSink : public WatchSink {
 public:
  void OnWatchedKeyEvent(uint64_t, int, std::string_view, bool) override {}
  void OnWatchDeadlineChanged(int64_t) override {}
  void OnPublishedKeyEvent(int, std::string_view, bool) override {}
};

struct ServeLog {
  std::vector<std::string> events;  // "kind:client:key"
};

class FakeKind : public BlockKind {
 public:
  FakeKind(std::string name, bool wants_present, ServeLog* log)
      : name_(std::move(name)), wants_present_(wants_present), log_(log) {}
  ServeResult TryServe(BlockedClient& w, Database& db, std::string_view key,
                       ReplyBuilder& reply) override {
    ++calls;
    Entry* e = db.Peek(key);
    if (wants_present_) {
      if (e == nullptr) return ServeResult::kKindDone;
      if (e->value.ToString().rfind("go", 0) != 0) return ServeResult::kNotServed;
      db.Remove(e);  // consumed
    } else {
      if (e != nullptr) return ServeResult::kKindDone;
      db.Upsert(key, Value::String("mine"), false, notice::kSet);
    }
    log_->events.push_back(name_ + ":" + std::to_string(w.client) + ":" + std::string(key));
    reply.Int(static_cast<int64_t>(w.client));
    return ServeResult::kServed;
  }
  void TimeoutReply(BlockedClient& w, ReplyBuilder& reply) override {
    reply.Int(-static_cast<int64_t>(w.client));
  }
  int calls = 0;

 private:
  std::string name_;
  bool wants_present_;
  ServeLog* log_;
};

constexpr int64_t kNow = 1'000'000;

class BlockingCoreTest : public ::testing::Test {
 protected:
  BlockingCoreTest() {
    ctx_.listener = &hub_;
    ctx_.command_clock.Update(kNow);
    core_.set_interest(&watches_);
    hub_.Subscribe(&watches_);
    hub_.Subscribe(&core_);
  }

  void Block(uint64_t client, Database& db, std::vector<std::string_view> keys, BlockKind* kind,
             int64_t deadline = 0) {
    core_.Block(client, db, keys, kind, std::make_unique<BlockState>(), deadline);
  }

  // Serves every ready key until nothing is ready, as Server::ServeReadyKeys does; returns
  // the served clients in order.
  std::vector<uint64_t> ServeAll() {
    std::vector<uint64_t> served;
    while (core_.has_ready()) {
      for (auto& [db_index, key] : core_.TakeReady()) {
        Database& db = db_index == 0 ? db0_ : db1_;
        auto serve = [this](BlockedClient& w, Database& d, std::string_view k) {
          return w.kind->TryServe(w, d, k, Reply(w.client));
        };
        for (auto& w : core_.ServeKey(db, key, serve)) served.push_back(w->client);
      }
    }
    return served;
  }

  ReplyBuilder& Reply(uint64_t client) {
    auto& slot = replies_[client];
    if (slot == nullptr) {
      slot = std::make_unique<Out>();
    }
    return slot->rb;
  }
  std::string Output(uint64_t client) {
    auto it = replies_.find(client);
    return it == replies_.end() ? "" : it->second->buf.ToString();
  }

  struct Out {
    ReplyBuffer buf;
    ReplyBuilder rb{&buf};
  };

  NullSink sink_;
  WatchIndex watches_{&sink_};
  BlockingCore core_;
  KeyspaceHub hub_;
  KeyspaceContext ctx_;
  Database db0_{0, &ctx_};
  Database db1_{1, &ctx_};
  ServeLog log_;
  FakeKind list_{"list", true, &log_};
  FakeKind zset_{"zset", true, &log_};
  FakeKind tp_{"tp", false, &log_};
  std::map<uint64_t, std::unique_ptr<Out>> replies_;
};

TEST_F(BlockingCoreTest, AnAddedKeyServesItsWaiter) {
  Block(1, db0_, {"k"}, &list_);
  EXPECT_TRUE(core_.IsBlocked(1));
  EXPECT_EQ(core_.blocked_count(), 1u);
  EXPECT_FALSE(core_.has_ready());
  db0_.Upsert("other", Value::String("go"), false, notice::kSet);
  EXPECT_FALSE(core_.has_ready()) << "a key nobody waits on is not ready";
  db0_.Upsert("k", Value::String("go"), false, notice::kSet);
  EXPECT_TRUE(core_.has_ready());
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{1});
  EXPECT_EQ(Output(1), ":1\r\n");
  EXPECT_FALSE(core_.IsBlocked(1));
  EXPECT_EQ(core_.blocked_count(), 0u);
  EXPECT_EQ(core_.QueueLength(0, "k"), 0u);
  EXPECT_EQ(db0_.Peek("k"), nullptr) << "the kind consumed the key";
}

TEST_F(BlockingCoreTest, AChangedKeyIsReadyAndTheKindDecides) {
  db0_.Upsert("k", Value::String("wait"), false, notice::kSet);
  Block(1, db0_, {"k"}, &list_);
  db0_.Upsert("k", Value::String("still waiting"), false,
              notice::kSet);  // modified: ready, not servable
  EXPECT_TRUE(core_.has_ready());
  EXPECT_TRUE(ServeAll().empty());
  EXPECT_TRUE(core_.IsBlocked(1));
  EXPECT_EQ(Output(1), "");
  db0_.Upsert("k", Value::String("go"), false, notice::kSet);  // modified again: now servable
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{1});
}

TEST_F(BlockingCoreTest, ARemovedKeyServesAnAbsentKindAndOnlyOneWaiter) {
  db0_.Upsert("lock", Value::String("held"), false, notice::kSet);
  Block(1, db0_, {"lock"}, &tp_);
  Block(2, db0_, {"lock"}, &tp_);
  db0_.Upsert("lock", Value::String("changed"), false, notice::kSet);
  EXPECT_TRUE(ServeAll().empty()) << "a value change frees nothing";
  ASSERT_NE(db0_.FindRaw("lock"), nullptr);
  db0_.Remove(db0_.FindRaw("lock"));
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{1}) << "one removal, one hand-off, FIFO";
  EXPECT_TRUE(core_.IsBlocked(2));
  ASSERT_NE(db0_.FindRaw("lock"), nullptr);
  db0_.Remove(db0_.FindRaw("lock"));
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{2});
}

TEST_F(BlockingCoreTest, FifoPerKeyAcrossKinds) {
  // 1 (list), 2 (zset), 3 (list) wait on k; every "go" value serves the earliest waiter
  // still blocked, whatever its kind.
  Block(1, db0_, {"k"}, &list_);
  Block(2, db0_, {"k"}, &zset_);
  Block(3, db0_, {"k"}, &list_);
  EXPECT_EQ(core_.QueueLength(0, "k"), 3u);
  for (int i = 0; i < 3; ++i) {
    db0_.Upsert("k", Value::String("go"), false, notice::kSet);
    ServeAll();
  }
  EXPECT_EQ(log_.events, (std::vector<std::string>{"list:1:k", "zset:2:k", "list:3:k"}));
}

TEST_F(BlockingCoreTest, AKindThatCannotBeServedDoesNotHoldBackAnotherKind) {
  // tp waits for k to vanish, list waits for it to hold "go": the list waiter behind is served
  // while the key exists, and the tp waiter keeps its place.
  db0_.Upsert("k", Value::String("x"), false, notice::kSet);
  Block(1, db0_, {"k"}, &tp_);
  Block(2, db0_, {"k"}, &tp_);
  Block(3, db0_, {"k"}, &list_);
  db0_.Upsert("k", Value::String("go"), false, notice::kSet);
  // One pass over k: tp waiter 1 answers kKindDone, so tp waiter 2 is not asked; the list
  // waiter behind them is served and consumes k.
  auto ready = core_.TakeReady();
  ASSERT_EQ(ready.size(), 1u);
  auto served =
      core_.ServeKey(db0_, "k", [this](BlockedClient& w, Database& d, std::string_view k) {
        return w.kind->TryServe(w, d, k, Reply(w.client));
      });
  ASSERT_EQ(served.size(), 1u);
  EXPECT_EQ(served[0]->client, 3u);
  EXPECT_EQ(tp_.calls, 1);
  // The consumption made k ready again: now the first tp waiter takes it, in its turn.
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{1});
  EXPECT_TRUE(core_.IsBlocked(2));
}

TEST_F(BlockingCoreTest, AMultiKeyWaiterIsServedOnceAndLeavesEveryQueue) {
  Block(1, db0_, {"a", "b", "a"}, &list_);  // a duplicate key counts once
  Block(2, db0_, {"b"}, &list_);
  EXPECT_EQ(core_.QueueLength(0, "a"), 1u);
  EXPECT_EQ(core_.QueueLength(0, "b"), 2u);
  db0_.Upsert("b", Value::String("go"), false, notice::kSet);
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{1});
  EXPECT_EQ(core_.QueueLength(0, "a"), 0u) << "served for b, so it left a's queue";
  EXPECT_EQ(core_.QueueLength(0, "b"), 1u);
  db0_.Upsert("a", Value::String("go"), false, notice::kSet);
  EXPECT_TRUE(ServeAll().empty());
  db0_.Upsert("b", Value::String("go"), false, notice::kSet);
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{2});
  EXPECT_EQ(Output(1), ":1\r\n");
}

TEST_F(BlockingCoreTest, QueuesArePerDatabase) {
  Block(1, db1_, {"k"}, &list_);
  db0_.Upsert("k", Value::String("go"), false, notice::kSet);
  EXPECT_TRUE(ServeAll().empty());
  db1_.Upsert("k", Value::String("go"), false, notice::kSet);
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{1});
}

TEST_F(BlockingCoreTest, FlushAndSwapMakeTheirDatabasesKeysReady) {
  db0_.Upsert("k", Value::String("x"), false, notice::kSet);
  Block(1, db0_, {"k"}, &tp_);
  db0_.Flush(Database::FlushCount::kCountKeys);
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{1});
}

TEST_F(BlockingCoreTest, DeadlinesExpireEarliestFirstAndZeroIsForever) {
  Block(1, db0_, {"k"}, &list_, kNow + 300);
  Block(2, db0_, {"k"}, &list_, 0);
  Block(3, db0_, {"j"}, &list_, kNow + 100);
  Block(4, db0_, {"k"}, &list_, kNow + 100);
  EXPECT_EQ(core_.next_deadline(), kNow + 100);
  EXPECT_TRUE(core_.TakeExpired(kNow + 99).empty());
  auto expired = core_.TakeExpired(kNow + 100);
  ASSERT_EQ(expired.size(), 2u);
  EXPECT_EQ(expired[0]->client, 3u) << "equal deadlines: the earlier arrival first";
  EXPECT_EQ(expired[1]->client, 4u);
  expired[0]->kind->TimeoutReply(*expired[0], Reply(3));
  EXPECT_EQ(Output(3), ":-3\r\n");
  EXPECT_EQ(core_.next_deadline(), kNow + 300);
  EXPECT_EQ(core_.TakeExpired(kNow + 1'000'000).size(), 1u);
  EXPECT_EQ(core_.next_deadline(), 0) << "client 2 waits forever";
  EXPECT_TRUE(core_.IsBlocked(2));
  EXPECT_EQ(core_.QueueLength(0, "k"), 1u);
  EXPECT_EQ(core_.QueueLength(0, "j"), 0u);
}

TEST_F(BlockingCoreTest, RemoveUnblocksWithoutServiceAndForgetsTheDeadline) {
  Block(1, db0_, {"k", "j"}, &list_, kNow + 100);
  Block(2, db0_, {"k"}, &list_);
  std::unique_ptr<BlockedClient> w = core_.Remove(1);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->kind, &list_);
  EXPECT_EQ(core_.Remove(1), nullptr) << "not blocked any more";
  EXPECT_EQ(core_.next_deadline(), 0);
  EXPECT_EQ(core_.QueueLength(0, "j"), 0u);
  db0_.Upsert("k", Value::String("go"), false, notice::kSet);
  EXPECT_EQ(ServeAll(), std::vector<uint64_t>{2}) << "the removed waiter lost its turn";
  EXPECT_EQ(Output(1), "");
}

TEST_F(BlockingCoreTest, AReadyKeyIsListedOncePerPass) {
  Block(1, db0_, {"k"}, &list_);
  db0_.Upsert("k", Value::String("a"), false, notice::kSet);
  db0_.Upsert("k", Value::String("b"), false, notice::kSet);
  db0_.Remove(db0_.FindRaw("k"));
  auto ready = core_.TakeReady();
  EXPECT_EQ(ready.size(), 1u);
  EXPECT_FALSE(core_.has_ready());
}

TEST_F(BlockingCoreTest, TheKindsStateTravelsWithTheWaiter) {
  struct Payload : BlockState {
    int n = 42;
  };
  core_.Block(9, db0_, {"k"}, &list_, std::make_unique<Payload>(), 0);
  std::unique_ptr<BlockedClient> w = core_.Remove(9);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(static_cast<Payload&>(*w->state).n, 42);
}

// The read-only view TPINFO/TPWAITERS and INFO coordination use: a key's waiters in line
// order, filtered by kind, and the per-kind counts of waiters and queues.
TEST_F(BlockingCoreTest, WaitersAreListedInLineOrderPerKind) {
  Block(1, db0_, {"k"}, &tp_);
  Block(2, db0_, {"k"}, &list_);
  Block(3, db0_, {"k", "j"}, &tp_);
  Block(4, db1_, {"k"}, &tp_);
  auto ids = [](const std::vector<const BlockedClient*>& ws) {
    std::vector<uint64_t> out;
    for (const BlockedClient* w : ws) out.push_back(w->client);
    return out;
  };
  EXPECT_EQ(ids(core_.Waiters(0, "k")), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(ids(core_.Waiters(0, "k", &tp_)), (std::vector<uint64_t>{1, 3}));
  EXPECT_EQ(ids(core_.Waiters(0, "j", &tp_)), (std::vector<uint64_t>{3}));
  EXPECT_EQ(ids(core_.Waiters(1, "k", &tp_)), (std::vector<uint64_t>{4}));
  EXPECT_TRUE(core_.Waiters(0, "none").empty());
  EXPECT_EQ(core_.CountWaiters(&tp_), 3u);
  EXPECT_EQ(core_.CountQueues(&tp_), 3u);  // (0,k) (0,j) (1,k)
  EXPECT_EQ(core_.CountWaiters(&list_), 1u);
  EXPECT_EQ(core_.CountQueues(&zset_), 0u);
  ASSERT_NE(core_.Find(3), nullptr);
  EXPECT_EQ(core_.Find(3)->since_ms, 0) << "the server stamps it, not the core";
  core_.Remove(1);
  EXPECT_EQ(ids(core_.Waiters(0, "k", &tp_)), (std::vector<uint64_t>{3}));
  EXPECT_EQ(core_.Find(1), nullptr);
}

// The walk the cluster's redirection check uses: every waiter once, with its keys in the order
// it blocked on them (the check hashes the first), whatever its kind; a removed one is gone.
TEST_F(BlockingCoreTest, ForEachWaiterVisitsEveryWaiterOnceWithItsKeys) {
  Block(1, db0_, {"k", "j"}, &list_);
  Block(2, db0_, {"k"}, &tp_);
  Block(3, db0_, {"j"}, &zset_);
  core_.Remove(3);
  std::map<uint64_t, std::vector<std::string>> seen;
  core_.ForEachWaiter([&](const BlockedClient& w) {
    auto& keys = seen[w.client];
    EXPECT_TRUE(keys.empty()) << "client " << w.client << " visited twice";
    for (const BlockedClient::Slot& s : w.slots) keys.push_back(s.key);
  });
  EXPECT_EQ(seen, (std::map<uint64_t, std::vector<std::string>>{{1, {"k", "j"}}, {2, {"k"}}}));
}

}  // namespace
}  // namespace redistp
