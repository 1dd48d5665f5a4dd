// Unit tests for the Database's side of hash-field expiration: ExpireFields deletes only fields
// past their time, as one "hexpired" change naming them (what the propagator turns into HDEL),
// then the key with its last field ("del", cause kExpired); nothing while expiry is suspended;
// the active cycle finds hashes nobody looks up, bounded per hash, and forgets hashes whose last
// field time went.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "db/database.h"
#include "types/hash.h"

namespace redistp {
namespace {

struct Seen {
  KeyEventKind kind;
  RemoveCause cause;
  std::string notice;
  std::vector<std::string> fields;
};

class Recorder : public KeyspaceListener {
 public:
  void OnKeyEvent(const KeyEvent& ev) override {
    Seen s{ev.kind, ev.cause, ev.notice.name != nullptr ? ev.notice.name : "", {}};
    if (ev.expired_fields != nullptr) s.fields = *ev.expired_fields;
    events.push_back(s);
  }
  void OnFlush(Database&) override {}
  void OnSwap(Database&, Database&) override {}
  std::vector<Seen> events;
};

class HashFieldExpiryDbTest : public ::testing::Test {
 protected:
  HashFieldExpiryDbTest() {
    ctx_.listener = &rec_;
    ctx_.command_clock.Update(1'000'000);
  }
  // A hash key with fields f0..f(n-1), the first `timed` of them expiring at `when`.
  Entry* AddHash(const std::string& key, int n, int timed, int64_t when) {
    Value v = NewHashValue();
    for (int i = 0; i < n; ++i) HashOf(v).Set("f" + std::to_string(i), "v", limits_);
    for (int i = 0; i < timed; ++i) HashOf(v).SetFieldExpire("f" + std::to_string(i), when);
    Entry* e = db_.Add(key, std::move(v), KeyNotice{kNotifyHash, "hset"});
    db_.NoteFieldTtl(e);
    rec_.events.clear();
    return e;
  }
  TypeLimits limits_;
  Recorder rec_;
  KeyspaceContext ctx_;
  Database db_{0, &ctx_};
};

TEST_F(HashFieldExpiryDbTest, OnlyFieldsStrictlyPastTheirTimeGo) {
  const int64_t now = ctx_.now_ms();
  Entry* e = AddHash("h", 3, 1, now);  // f0 at exactly now: not past yet
  EXPECT_TRUE(db_.ExpireFields(e));
  EXPECT_TRUE(rec_.events.empty());
  HashOf(e->value).SetFieldExpire("f1", now - 1);
  const uint64_t dirty = ctx_.dirty();
  EXPECT_TRUE(db_.ExpireFields(e));
  ASSERT_EQ(rec_.events.size(), 1u);
  EXPECT_EQ(rec_.events[0].kind, KeyEventKind::kModified);
  EXPECT_EQ(rec_.events[0].notice, "hexpired");
  EXPECT_EQ(rec_.events[0].fields, std::vector<std::string>{"f1"});
  EXPECT_EQ(ctx_.dirty(), dirty + 1);
  EXPECT_EQ(HashOf(e->value).size(), 2u);
}

TEST_F(HashFieldExpiryDbTest, TheLastFieldTakesTheKeyWithIt) {
  Entry* e = AddHash("h", 2, 2, ctx_.now_ms() - 5);
  EXPECT_FALSE(db_.ExpireFields(e));
  ASSERT_EQ(rec_.events.size(), 2u);
  std::vector<std::string> gone = rec_.events[0].fields;  // equal times: any order
  std::sort(gone.begin(), gone.end());
  EXPECT_EQ(gone, (std::vector<std::string>{"f0", "f1"}));
  EXPECT_EQ(rec_.events[1].kind, KeyEventKind::kRemoved);
  EXPECT_EQ(rec_.events[1].cause, RemoveCause::kExpired);
  EXPECT_EQ(rec_.events[1].notice, "del");
  EXPECT_EQ(db_.FindRaw("h"), nullptr);
  EXPECT_EQ(db_.field_ttl_hashes(), 0u);
}

TEST_F(HashFieldExpiryDbTest, NothingGoesWhileExpiryIsSuspended) {
  Entry* e = AddHash("h", 2, 2, ctx_.now_ms() - 5);
  {
    auto scope = ctx_.expiry.Suspend();
    EXPECT_TRUE(db_.ExpireFields(e));
  }
  EXPECT_TRUE(rec_.events.empty());
  EXPECT_EQ(HashOf(e->value).size(), 2u);
}

TEST_F(HashFieldExpiryDbTest, ActiveCycleReclaimsBoundedPerHashAndForgetsStaleHashes) {
  // effort 1: at most 100 fields per hash per visit.
  AddHash("big", 250, 250, ctx_.now_ms() - 1);
  Entry* quiet = AddHash("quiet", 3, 1, ctx_.now_ms() + 100000);
  HashOf(quiet->value).PersistField("f0");  // the index entry is stale now
  EXPECT_EQ(db_.field_ttl_hashes(), 2u);
  size_t total = 0;
  for (int i = 0; i < 10 && db_.FindRaw("big") != nullptr; ++i) {
    total += db_.ActiveExpireFields(/*deadline_us=*/INT64_MAX, /*effort=*/1);
    for (const Seen& s : rec_.events) {
      if (s.notice == "hexpired") {
        EXPECT_LE(s.fields.size(), 100u);
      }
    }
  }
  EXPECT_EQ(total, 250u);
  EXPECT_EQ(db_.FindRaw("big"), nullptr);
  EXPECT_EQ(db_.field_ttl_hashes(), 0u);
  EXPECT_FALSE(quiet->has_flag(Entry::kFlagFieldTtl));
}

}  // namespace
}  // namespace redistp
