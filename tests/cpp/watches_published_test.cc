// Unit tests for the WatchIndex's published keys (AddPublished / RemovePublished), the mark the
// Pub/Sub side puts on a key whose `__watchex@<db>__:<key>` channel has subscribers. A sink
// records every call in order, so the tests can check that a published change is reported
// once, after every watcher of the key, for each cause a watch sees (add, delete, rename, move,
// FLUSHDB, SWAPDB, the TTL deadline), and that the mark keeps a record alive like a watch.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "db/database.h"
#include "watch/watches.h"

namespace redistp {
namespace {

class OrderSink : public WatchSink {
 public:
  void OnWatchedKeyEvent(uint64_t client, int db, std::string_view key, bool added) override {
    log.push_back("c" + std::to_string(client) + " " + Name(db, key, added));
  }
  void OnWatchDeadlineChanged(int64_t deadline_ms) override { deadline = deadline_ms; }
  void OnPublishedKeyEvent(int db, std::string_view key, bool added) override {
    log.push_back("pub " + Name(db, key, added));
  }
  std::vector<std::string> Take() {
    std::vector<std::string> out;
    out.swap(log);
    return out;
  }
  static std::string Name(int db, std::string_view key, bool added) {
    return std::to_string(db) + ":" + std::string(key) + (added ? " ADD" : " DEL");
  }

  std::vector<std::string> log;
  int64_t deadline = 0;
};

constexpr int64_t kNow = 5'000'000;

class PublishedTest : public ::testing::Test {
 protected:
  PublishedTest() {
    ctx_.listener = &index_;
    ctx_.command_clock.Update(kNow);
  }
  Entry* Set(Database& db, std::string_view key) {
    return db.Upsert(key, Value::String("v"), false, notice::kSet);
  }
  using Log = std::vector<std::string>;

  OrderSink sink_;
  WatchIndex index_{&sink_};
  KeyspaceContext ctx_;
  Database db0_{0, &ctx_};
  Database db1_{1, &ctx_};
};

TEST_F(PublishedTest, AChangeIsPublishedOnceAfterTheWatchers) {
  index_.AddPublished(0, "k", nullptr, 0);
  index_.AddPublished(0, "k", nullptr, 0);  // one mark: still one message per change
  Set(db0_, "k");
  EXPECT_EQ(sink_.Take(), (Log{"pub 0:k ADD"}));
  index_.Add(7, 0, "k", db0_.Peek("k"), 0);
  index_.Add(8, 0, "k", db0_.Peek("k"), 0);
  Set(db0_, "k");  // a value change: nothing
  EXPECT_TRUE(sink_.Take().empty());
  db0_.Remove(db0_.Peek("k"));
  Log got = sink_.Take();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got.back(), "pub 0:k DEL");  // after both watchers, whatever their order
  EXPECT_EQ(index_.watch_count(), 2u);   // the mark is not a watch
  Set(db1_, "k");                        // another database: another channel
  EXPECT_TRUE(sink_.Take().empty());
}

TEST_F(PublishedTest, TheMarkKeepsTheRecordAndGoesWithRemovePublished) {
  EXPECT_FALSE(index_.IsPublished(0, "k"));
  index_.AddPublished(0, "k", nullptr, 0);
  EXPECT_TRUE(index_.IsPublished(0, "k"));
  EXPECT_FALSE(index_.IsPublished(1, "k"));
  EXPECT_EQ(index_.key_count(), 1u);
  index_.Add(3, 0, "k", nullptr, 0);
  index_.Remove(3, 0, "k");  // the last watcher leaves: the mark keeps the record
  EXPECT_EQ(index_.key_count(), 1u);
  index_.RemovePublished(0, "k");
  EXPECT_FALSE(index_.IsPublished(0, "k"));
  EXPECT_TRUE(index_.empty());
  index_.RemovePublished(0, "k");  // unmarked: a no-op
  index_.RemovePublished(0, "never");
  EXPECT_TRUE(index_.empty());
  // A watch outlives the mark.
  index_.AddPublished(0, "w", nullptr, 0);
  index_.Add(4, 0, "w", nullptr, 0);
  index_.RemovePublished(0, "w");
  EXPECT_EQ(index_.key_count(), 1u);
  Set(db0_, "w");
  EXPECT_EQ(sink_.Take(), (Log{"c4 0:w ADD"}));
}

TEST_F(PublishedTest, RenameMoveFlushAndSwapArePublished) {
  index_.AddPublished(0, "src", nullptr, 0);
  index_.AddPublished(0, "dst", nullptr, 0);
  index_.AddPublished(1, "far", nullptr, 0);
  Entry* src = Set(db0_, "src");
  sink_.Take();
  db0_.MoveEntry(src, db0_, "dst", notice::kRenameFrom, notice::kRenameTo);
  EXPECT_EQ(sink_.Take(), (Log{"pub 0:src DEL", "pub 0:dst ADD"}));
  db0_.MoveEntry(db0_.Peek("dst"), db1_, "far", notice::kMoveFrom, notice::kMoveTo);
  EXPECT_EQ(sink_.Take(), (Log{"pub 0:dst DEL", "pub 1:far ADD"}));
  Set(db0_, "src");
  sink_.Take();
  db0_.Flush(Database::FlushCount::kCountKeys);
  EXPECT_EQ(sink_.Take(), (Log{"pub 0:src DEL"}));
  // db 1 holds far; db 0 is empty: swapping deletes far in 1 and creates it in 0 (unmarked
  // there: no message), and nothing for the marked keys of db 0.
  Database::Swap(db0_, db1_);
  EXPECT_EQ(sink_.Take(), (Log{"pub 1:far DEL"}));
  index_.AddPublished(0, "far", db0_.FindRaw("far"), 0);
  Database::Swap(db0_, db1_);
  Log got = sink_.Take();
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (Log{"pub 0:far DEL", "pub 1:far ADD"}));
}

TEST_F(PublishedTest, AVolatileMarkedKeyHasADeadline) {
  Entry* e = Set(db0_, "lease");
  db0_.SetExpire(e, kNow + 300);
  index_.AddPublished(0, "lease", e, db0_.ExpireOf(e));
  EXPECT_EQ(index_.next_deadline(), kNow + 300);
  EXPECT_EQ(sink_.deadline, kNow + 300);
  EXPECT_TRUE(index_.DueExpiries(kNow + 300).empty());  // expired means now > deadline
  auto due = index_.DueExpiries(kNow + 301);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].second, "lease");
  // The server deletes a due key through a lookup, which publishes its DEL.
  ctx_.command_clock.Update(kNow + 301);
  EXPECT_EQ(db0_.Peek("lease"), nullptr);
  EXPECT_EQ(sink_.Take(), (Log{"pub 0:lease DEL"}));
  EXPECT_EQ(index_.next_deadline(), 0);
  // A mark set before the key exists schedules the TTL the key gets later.
  index_.AddPublished(0, "later", nullptr, 0);
  Entry* l = Set(db0_, "later");
  db0_.SetExpire(l, kNow + 900);
  EXPECT_EQ(index_.next_deadline(), kNow + 900);
  index_.RemovePublished(0, "later");
  EXPECT_EQ(index_.next_deadline(), 0);
}

}  // namespace
}  // namespace redistp
