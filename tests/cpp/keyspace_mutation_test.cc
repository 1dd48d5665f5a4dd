// Unit tests for the keyspace's typed lookup and mutation handle: WRONGTYPE comes from one
// place, every change carries its notification name and counts `dirty`, an abandoned edit is
// invisible, and in-place edits reach listeners exactly once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/database.h"
#include "protocol/errors.h"

namespace redistp {
namespace {

struct Recorded {
  KeyEventKind kind;
  RemoveCause cause;
  std::string key;
  std::string notice;
};

class Recorder : public KeyspaceListener {
 public:
  void OnKeyEvent(const KeyEvent& ev) override {
    events.push_back({ev.kind, ev.cause, std::string(ev.entry->key()),
                      ev.notice.name != nullptr ? ev.notice.name : ""});
  }
  void OnFlush(Database&) override {}
  void OnSwap(Database&, Database&) override {}
  std::vector<Recorded> events;
};

class KeyspaceMutationTest : public ::testing::Test {
 protected:
  KeyspaceMutationTest() {
    ctx_.listener = &rec_;
    ctx_.command_clock.Update(1'000'000);
  }
  Recorder rec_;
  KeyspaceContext ctx_;
  Database db_{0, &ctx_};
};

TEST_F(KeyspaceMutationTest, TypedLookupAnswersEntryAbsentOrWrongType) {
  db_.Add("s", Value::String("v"), notice::kSet);
  Database::Typed hit = db_.Lookup("s", ValueType::kString);
  ASSERT_FALSE(hit.wrong_type);
  ASSERT_NE(hit.entry, nullptr);
  EXPECT_EQ(hit.entry->key(), "s");

  Database::Typed miss = db_.Lookup("nope", ValueType::kString);
  EXPECT_FALSE(miss.wrong_type);
  EXPECT_EQ(miss.entry, nullptr);

  Database::Typed wrong = db_.Lookup("s", ValueType::kList, Access::kWrite);
  EXPECT_TRUE(wrong.wrong_type);
  EXPECT_EQ(wrong.entry, nullptr);
}

TEST_F(KeyspaceMutationTest, LookupCountsHitsOnlyForReads) {
  db_.Add("s", Value::String("v"), notice::kSet);
  (void)db_.Lookup("s", ValueType::kString, Access::kRead);
  (void)db_.Lookup("x", ValueType::kString, Access::kRead);
  (void)db_.Lookup("s", ValueType::kString, Access::kWrite);
  (void)db_.Lookup("x", ValueType::kString, Access::kPeek);
  EXPECT_EQ(ctx_.keyspace_hits, 1u);
  EXPECT_EQ(ctx_.keyspace_misses, 1u);
}

TEST_F(KeyspaceMutationTest, LookupDeletesAnExpiredKeyAsExpired) {
  Entry* e = db_.Add("t", Value::String("v"), notice::kSet);
  db_.SetExpire(e, ctx_.now_ms() - 1);
  rec_.events.clear();
  Database::Typed r = db_.Lookup("t", ValueType::kList);
  EXPECT_FALSE(r.wrong_type);  // gone, so no WRONGTYPE
  EXPECT_EQ(r.entry, nullptr);
  ASSERT_EQ(rec_.events.size(), 1u);
  EXPECT_EQ(rec_.events[0].cause, RemoveCause::kExpired);
  EXPECT_EQ(rec_.events[0].notice, "expired");
}

TEST_F(KeyspaceMutationTest, MutationEmitsOneModifiedEventWithItsNoticeAtTheEnd) {
  Entry* e = db_.Add("s", Value::String("ab"), notice::kSet);
  rec_.events.clear();
  const uint64_t dirty = ctx_.dirty();
  {
    Mutation m = db_.Mutate(e, KeyNotice{kNotifyString, "append"});
    m.value().Append("cd");
    EXPECT_TRUE(rec_.events.empty()) << "nothing is announced while the edit is open";
  }
  ASSERT_EQ(rec_.events.size(), 1u);
  EXPECT_EQ(rec_.events[0].kind, KeyEventKind::kModified);
  EXPECT_EQ(rec_.events[0].notice, "append");
  EXPECT_EQ(ctx_.dirty(), dirty + 1);
  EXPECT_EQ(db_.Peek("s")->value.ToString(), "abcd");
}

TEST_F(KeyspaceMutationTest, AbandonedMutationIsInvisible) {
  Entry* e = db_.Add("s", Value::String("ab"), notice::kSet);
  rec_.events.clear();
  const uint64_t dirty = ctx_.dirty();
  {
    Mutation m = db_.Mutate(e, KeyNotice{kNotifyString, "setbit"});
    m.Abandon();
  }
  EXPECT_TRUE(rec_.events.empty());
  EXPECT_EQ(ctx_.dirty(), dirty);
}

TEST_F(KeyspaceMutationTest, CommitIsIdempotentAndAStringIsNeverDeletedAsEmpty) {
  Entry* e = db_.Add("s", Value::String("x"), notice::kSet);
  rec_.events.clear();
  Mutation m = db_.Mutate(e, KeyNotice{kNotifyString, "setrange"});
  m.value() = Value::RawString("");
  EXPECT_TRUE(m.Commit());
  EXPECT_TRUE(m.Commit());
  EXPECT_EQ(rec_.events.size(), 1u);
  EXPECT_NE(db_.Peek("s"), nullptr) << "an empty string is a value, not an emptied aggregate";
}

TEST_F(KeyspaceMutationTest, EveryChangeCarriesItsNoticeAndCountsDirty) {
  const uint64_t dirty = ctx_.dirty();
  Entry* a = db_.Add("a", Value::String("1"), notice::kSet);
  db_.Overwrite(a, Value::String("2"), false, KeyNotice{kNotifyString, "incrby"});
  db_.SetExpire(a, ctx_.now_ms() + 1000);
  db_.Persist(a);
  Entry* b = db_.MoveEntry(a, db_, "b", notice::kRenameFrom, notice::kRenameTo);
  db_.Remove(b);
  std::vector<std::string> names;
  for (const Recorded& r : rec_.events) names.push_back(r.notice);
  EXPECT_EQ(names, (std::vector<std::string>{"set", "incrby", "expire", "persist", "rename_from",
                                             "rename_to", "del"}));
  EXPECT_EQ(ctx_.dirty(), dirty + names.size());
}

TEST_F(KeyspaceMutationTest, RemovalNoticeFollowsTheCause) {
  Entry* a = db_.Add("a", Value::String("1"), notice::kSet);
  Entry* b = db_.Add("b", Value::String("1"), notice::kSet);
  Entry* c = db_.Add("c", Value::String("1"), notice::kSet);
  rec_.events.clear();
  db_.Remove(a, RemoveCause::kExpired);
  db_.Remove(b, RemoveCause::kEvicted);
  db_.Remove(c, RemoveCause::kOverwritten);
  ASSERT_EQ(rec_.events.size(), 3u);
  EXPECT_EQ(rec_.events[0].notice, "expired");
  EXPECT_EQ(rec_.events[1].notice, "evicted");
  EXPECT_EQ(rec_.events[2].notice, "");
}

// CLIENT NO-TOUCH: while the context says no_touch, reads, write lookups and in-place edits
// leave the entry's access data; a replaced value gets fresh data as always.
TEST_F(KeyspaceMutationTest, NoTouchLeavesAccessDataOfLookupsAndEdits) {
  ctx_.command_clock.UpdateWithLru(1'000'000);  // LRU clock: 1000 s
  Entry* e = db_.Add("k", Value::String("v"), notice::kSet);
  const uint32_t stamped = e->lru();
  ctx_.command_clock.UpdateWithLru(5'000'000);  // four seconds later
  ctx_.no_touch = true;
  ASSERT_EQ(db_.LookupRead("k"), e);
  ASSERT_EQ(db_.LookupWrite("k"), e);
  { Mutation m = db_.Mutate(e, notice::kSet); }
  EXPECT_EQ(e->lru(), stamped);
  ctx_.no_touch = false;
  ASSERT_EQ(db_.LookupRead("k"), e);
  EXPECT_NE(e->lru(), stamped);
}

}  // namespace
}  // namespace redistp
