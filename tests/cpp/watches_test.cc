// Unit tests for WatchIndex, the index of existence watches (WATCHEX) and BSETTP interests.
//
// The index is driven the way the server drives it: real Databases whose key events reach the
// index through the KeyspaceContext listener, and a fake WatchSink that records every push and
// every change of the earliest deadline. The order in which the watchers of one key are told is
// not part of the contract, so the pushes of one change are compared as a sorted list. A model
// test replays random registrations, removals, interests and key changes (including FLUSHDB,
// SWAPDB and TTLs) against a plain std::map model, at two scales: a small key space (many
// duplicates, many watchers per key) and a large one (the index grows and shrinks). The two
// containers under the index (CompactSet, TaggedTable) are also checked on their own against
// std::set, with good and deliberately bad hashes.
#include "watch/watches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "db/database.h"
#include "util/memory.h"
#include "watch/compact_set.h"
#include "watch/tagged_table.h"

namespace redistp {
namespace {

struct Push {
  uint64_t client;
  int db;
  std::string key;
  bool added;
  bool operator<(const Push& o) const {
    return std::tie(client, db, key, added) < std::tie(o.client, o.db, o.key, o.added);
  }
  bool operator==(const Push& o) const {
    return std::tie(client, db, key, added) == std::tie(o.client, o.db, o.key, o.added);
  }
};

std::ostream& operator<<(std::ostream& os, const Push& p) {
  return os << "{c" << p.client << " db" << p.db << " " << p.key << (p.added ? " ADD}" : " DEL}");
}

class FakeSink : public WatchSink {
 public:
  void OnWatchedKeyEvent(uint64_t client, int db, std::string_view key, bool added) override {
    pushes.push_back({client, db, std::string(key), added});
    if (on_push) on_push(client);
  }
  void OnWatchDeadlineChanged(int64_t deadline_ms) override { deadlines.push_back(deadline_ms); }
  // Published keys are tested in watches_published_test.cc.
  void OnPublishedKeyEvent(int, std::string_view, bool) override {}

  // The pushes recorded since the last call, sorted (watcher order is unspecified).
  std::vector<Push> Take() {
    std::vector<Push> out;
    out.swap(pushes);
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<Push> pushes;
  std::vector<int64_t> deadlines;
  std::function<void(uint64_t)> on_push;
};

constexpr int64_t kNow = 1'000'000;

class WatchIndexTest : public ::testing::Test {
 protected:
  WatchIndexTest() {
    ctx_.listener = &index_;
    ctx_.command_clock.Update(kNow);
  }
  Entry* Set(Database& db, std::string_view key) {
    return db.Upsert(key, Value::String("v"), false, notice::kSet);
  }

  FakeSink sink_;
  WatchIndex index_{&sink_};
  KeyspaceContext ctx_;
  Database db0_{0, &ctx_};
  Database db1_{1, &ctx_};
};

TEST_F(WatchIndexTest, AddCountsOneWatchPerClientAndKey) {
  EXPECT_TRUE(index_.empty());
  EXPECT_TRUE(index_.Add(1, 0, "a", nullptr, 0));
  EXPECT_FALSE(index_.Add(1, 0, "a", nullptr, 0));  // watching twice is one watch
  EXPECT_TRUE(index_.Add(1, 1, "a", nullptr, 0));   // another database is another key
  EXPECT_TRUE(index_.Add(2, 0, "a", nullptr, 0));
  EXPECT_TRUE(index_.Add(1, 0, "b", nullptr, 0));
  EXPECT_EQ(index_.watch_count(), 4u);
  EXPECT_EQ(index_.key_count(), 3u);
  EXPECT_FALSE(index_.empty());
  EXPECT_EQ(index_.CountFor(1), 3u);
  EXPECT_EQ(index_.CountFor(2), 1u);
  EXPECT_EQ(index_.CountFor(3), 0u);
  EXPECT_TRUE(sink_.pushes.empty());
}

TEST_F(WatchIndexTest, RemoveDropsOneWatchAndTheKeyWithItsLastWatcher) {
  index_.Add(1, 0, "a", nullptr, 0);
  index_.Add(2, 0, "a", nullptr, 0);
  EXPECT_FALSE(index_.Remove(3, 0, "a"));   // not a watcher
  EXPECT_FALSE(index_.Remove(1, 1, "a"));   // other database
  EXPECT_FALSE(index_.Remove(1, 0, "zz"));  // unknown key
  EXPECT_TRUE(index_.Remove(1, 0, "a"));
  EXPECT_FALSE(index_.Remove(1, 0, "a"));
  EXPECT_EQ(index_.key_count(), 1u);
  EXPECT_EQ(index_.CountFor(1), 0u);
  EXPECT_TRUE(index_.Remove(2, 0, "a"));
  EXPECT_EQ(index_.key_count(), 0u);
  EXPECT_EQ(index_.watch_count(), 0u);
  EXPECT_TRUE(index_.empty());
  // A removed watch can be added again.
  EXPECT_TRUE(index_.Add(1, 0, "a", nullptr, 0));
}

TEST_F(WatchIndexTest, RemoveAllDropsEveryWatchOfOneClient) {
  for (int i = 0; i < 100; ++i) index_.Add(7, i % 3, "k" + std::to_string(i), nullptr, 0);
  index_.Add(8, 0, "k0", nullptr, 0);
  EXPECT_EQ(index_.RemoveAll(7), 100u);
  EXPECT_EQ(index_.RemoveAll(7), 0u);
  EXPECT_EQ(index_.CountFor(7), 0u);
  EXPECT_EQ(index_.CountFor(8), 1u);
  EXPECT_EQ(index_.key_count(), 1u);
  EXPECT_EQ(index_.watch_count(), 1u);
  Set(db0_, "k0");
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{8, 0, "k0", true}}));
}

TEST_F(WatchIndexTest, WatchesInAndWatchersOfListTheWatchesOfOneDatabase) {
  index_.Add(1, 0, "a", nullptr, 0);
  index_.Add(2, 0, "a", nullptr, 0);
  index_.Add(1, 0, "b", nullptr, 0);
  index_.Add(3, 1, "a", nullptr, 0);       // another database
  index_.AddInterest(0, "c", nullptr, 0);  // interest without a watcher: not a watch
  auto all = index_.WatchesIn(0);
  for (auto& [key, ids] : all) std::sort(ids.begin(), ids.end());
  std::sort(all.begin(), all.end());
  using Row = std::pair<std::string, std::vector<uint64_t>>;
  EXPECT_EQ(all, (std::vector<Row>{{"a", {1, 2}}, {"b", {1}}}));
  auto ids = index_.WatchersOf(0, "a");
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(index_.WatchersOf(1, "a"), (std::vector<uint64_t>{3}));
  EXPECT_TRUE(index_.WatchersOf(0, "c").empty());
  EXPECT_TRUE(index_.WatchersOf(0, "zz").empty());
  EXPECT_TRUE(index_.WatchesIn(5).empty());
  index_.RemoveInterest(0, "c");
}

TEST_F(WatchIndexTest, AdditionAndDeletionPushToEveryWatcherOfThatDatabase) {
  index_.Add(1, 0, "k", nullptr, 0);
  index_.Add(2, 0, "k", nullptr, 0);
  index_.Add(3, 1, "k", nullptr, 0);
  index_.Add(4, 0, "other", nullptr, 0);
  Set(db0_, "k");
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{1, 0, "k", true}, {2, 0, "k", true}}));
  Set(db0_, "k");  // exists before and after: nothing
  db0_.Mutate(db0_.Peek("k"), notice::kSet).Commit();
  EXPECT_TRUE(sink_.Take().empty());
  db0_.Remove(db0_.Peek("k"));
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{1, 0, "k", false}, {2, 0, "k", false}}));
  Set(db1_, "k");
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{3, 1, "k", true}}));
  Set(db0_, "unwatched");
  db0_.Remove(db0_.Peek("unwatched"));
  EXPECT_TRUE(sink_.Take().empty());
}

TEST_F(WatchIndexTest, EntriesOfWatchedKeysCarryTheWatchedFlag) {
  Entry* before = Set(db0_, "a");
  Entry* other = Set(db0_, "b");
  EXPECT_FALSE(before->has_flag(Entry::kFlagWatched));
  index_.Add(1, 0, "a", before, db0_.ExpireOf(before));
  EXPECT_TRUE(before->has_flag(Entry::kFlagWatched));
  index_.Add(1, 0, "c", nullptr, 0);
  Entry* later = Set(db0_, "c");
  EXPECT_TRUE(later->has_flag(Entry::kFlagWatched));
  EXPECT_FALSE(other->has_flag(Entry::kFlagWatched));
  index_.AddInterest(0, "b", other, db0_.ExpireOf(other));
  EXPECT_TRUE(other->has_flag(Entry::kFlagWatched));
}

TEST_F(WatchIndexTest, RenameAndMovePushDelForTheSourceAndAddForAnAbsentDestination) {
  index_.Add(1, 0, "src", nullptr, 0);
  index_.Add(1, 0, "dst", nullptr, 0);
  index_.Add(2, 1, "far", nullptr, 0);
  Entry* src = Set(db0_, "src");
  sink_.Take();
  db0_.MoveEntry(src, db0_, "dst", notice::kRenameFrom, notice::kRenameTo);
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{1, 0, "dst", true}, {1, 0, "src", false}}));
  // Onto an existing destination: the destination never stops existing.
  Set(db0_, "src");
  sink_.Take();
  db0_.MoveEntry(db0_.Peek("src"), db0_, "dst", notice::kRenameFrom, notice::kRenameTo);
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{1, 0, "src", false}}));
  db0_.MoveEntry(db0_.Peek("dst"), db1_, "far", notice::kRenameFrom, notice::kRenameTo);
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{1, 0, "dst", false}, {2, 1, "far", true}}));
}

TEST_F(WatchIndexTest, FlushPushesDelForExistingWatchedKeysOfThatDatabaseOnly) {
  index_.Add(1, 0, "here", nullptr, 0);
  index_.Add(1, 0, "absent", nullptr, 0);
  index_.Add(2, 1, "here", nullptr, 0);
  Set(db0_, "here");
  Set(db1_, "here");
  Set(db0_, "unwatched");
  sink_.Take();
  db0_.Flush(Database::FlushCount::kCountKeys);
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{1, 0, "here", false}}));
  Set(db0_, "here");
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{1, 0, "here", true}}));
}

TEST_F(WatchIndexTest, SwapPushesAddDelOrNothingDependingOnBothDatabases) {
  for (const char* k : {"both", "only0", "only1", "none"}) {
    index_.Add(1, 0, k, nullptr, 0);
    index_.Add(2, 1, k, nullptr, 0);
  }
  Set(db0_, "both");
  Set(db1_, "both");
  Set(db0_, "only0");
  Set(db1_, "only1");
  sink_.Take();
  Database::Swap(db0_, db1_);
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{1, 0, "only0", false},
                                             {1, 0, "only1", true},
                                             {2, 1, "only0", true},
                                             {2, 1, "only1", false}}));
  // The entry brought into db 0 is flagged: its deletion pushes.
  db0_.Remove(db0_.Peek("only1"));
  EXPECT_EQ(sink_.Take(), (std::vector<Push>{{1, 0, "only1", false}}));
}

TEST_F(WatchIndexTest, DeadlineFollowsTheTtlOfAWatchedKey) {
  Entry* e = Set(db0_, "v");
  db0_.SetExpire(e, kNow + 500);
  EXPECT_EQ(index_.next_deadline(), 0);
  index_.Add(1, 0, "v", e, db0_.ExpireOf(e));
  EXPECT_EQ(index_.next_deadline(), kNow + 500);
  ASSERT_FALSE(sink_.deadlines.empty());
  EXPECT_EQ(sink_.deadlines.back(), kNow + 500);
  db0_.SetExpire(e, kNow + 200);
  EXPECT_EQ(index_.next_deadline(), kNow + 200);
  EXPECT_EQ(sink_.deadlines.back(), kNow + 200);
  db0_.Persist(e);
  EXPECT_EQ(index_.next_deadline(), 0);
  EXPECT_EQ(sink_.deadlines.back(), 0);
  // A TTL given by a SET of an absent key, then the last watcher leaving.
  index_.Add(1, 0, "w", nullptr, 0);
  Entry* w = Set(db0_, "w");
  db0_.SetExpire(w, kNow + 50);
  EXPECT_EQ(index_.next_deadline(), kNow + 50);
  index_.Remove(1, 0, "w");
  EXPECT_EQ(index_.next_deadline(), 0);
  EXPECT_EQ(sink_.deadlines.back(), 0);
}

TEST_F(WatchIndexTest, DueExpiriesListsPassedDeadlinesInDeadlineOrder) {
  const std::vector<std::pair<std::string, int64_t>> keys = {
      {"d", 40}, {"a", 10}, {"c", 30}, {"b", 20}, {"e", 50}};
  for (const auto& [k, ttl] : keys) {
    Entry* e = Set(db0_, k);
    db0_.SetExpire(e, kNow + ttl);
    index_.Add(1, 0, k, e, db0_.ExpireOf(e));
  }
  EXPECT_EQ(index_.next_deadline(), kNow + 10);
  EXPECT_TRUE(index_.DueExpiries(kNow + 10).empty());  // expired means now > deadline
  using Due = std::vector<std::pair<int, std::string>>;
  EXPECT_EQ(index_.DueExpiries(kNow + 31), (Due{{0, "a"}, {0, "b"}, {0, "c"}}));
  // The server deletes the due keys through a lookup; the DEL pushes follow.
  ctx_.command_clock.Update(kNow + 31);
  sink_.Take();
  for (const auto& [db, key] : index_.DueExpiries(ctx_.now_ms())) db0_.Peek(key);
  EXPECT_EQ(sink_.Take(),
            (std::vector<Push>{{1, 0, "a", false}, {1, 0, "b", false}, {1, 0, "c", false}}));
  EXPECT_EQ(index_.next_deadline(), kNow + 40);
  EXPECT_TRUE(index_.DueExpiries(ctx_.now_ms()).empty());
}

TEST_F(WatchIndexTest, InterestKeepsTheDeadlineWithoutPushes) {
  Entry* e = Set(db0_, "lock");
  db0_.SetExpire(e, kNow + 100);
  index_.AddInterest(0, "lock", e, db0_.ExpireOf(e));
  index_.AddInterest(0, "lock", e, db0_.ExpireOf(e));
  EXPECT_EQ(index_.key_count(), 1u);
  EXPECT_EQ(index_.watch_count(), 0u);
  EXPECT_EQ(index_.next_deadline(), kNow + 100);
  db0_.Remove(db0_.Peek("lock"));
  EXPECT_TRUE(sink_.Take().empty());
  EXPECT_EQ(index_.next_deadline(), 0);
  index_.RemoveInterest(0, "lock");
  EXPECT_EQ(index_.key_count(), 1u);  // one interest left
  index_.Add(5, 0, "lock", nullptr, 0);
  index_.RemoveInterest(0, "lock");
  index_.RemoveInterest(0, "lock");  // no interest left: a no-op
  index_.RemoveInterest(3, "nothing");
  EXPECT_EQ(index_.key_count(), 1u);  // the watch keeps it
  index_.Remove(5, 0, "lock");
  EXPECT_TRUE(index_.empty());
}

TEST_F(WatchIndexTest, ASinkThatDropsWatchesWhilePushingIsSafe) {
  for (uint64_t c = 1; c <= 50; ++c) {
    for (int k = 0; k < 20; ++k) index_.Add(c, 0, "k" + std::to_string(k), nullptr, 0);
  }
  for (int k = 0; k < 20; ++k) Set(db0_, "k" + std::to_string(k));
  sink_.Take();
  // Each push closes its client (as an output-buffer-limit kill would).
  sink_.on_push = [this](uint64_t c) { index_.RemoveAll(c); };
  db0_.Flush(Database::FlushCount::kCountKeys);
  EXPECT_TRUE(index_.empty());
  std::set<uint64_t> told;
  for (const Push& p : sink_.Take()) told.insert(p.client);
  EXPECT_EQ(told.size(), 50u);
}

// Bytes per (connection, key) pair, from the allocator's own count. Only meaningful with
// jemalloc (the production allocator); sanitizer builds skip it.
TEST_F(WatchIndexTest, MemoryPerPairStaysSmallAndIsGivenBack) {
  if (std::string(AllocatorName()).rfind("jemalloc", 0) != 0) GTEST_SKIP() << "needs jemalloc";
  constexpr int kClients = 20;
  constexpr int kKeysEach = 10'000;
  std::vector<std::string> names;
  for (int c = 0; c < kClients; ++c) {
    for (int k = 0; k < kKeysEach; ++k) {
      names.push_back("m:" + std::to_string(c) + ":" + std::to_string(k));
    }
  }
  size_t before = ReadAllocatorStats().allocated;
  for (int c = 0; c < kClients; ++c) {
    for (int k = 0; k < kKeysEach; ++k) index_.Add(c + 1, 0, names[c * kKeysEach + k], nullptr, 0);
  }
  size_t during = ReadAllocatorStats().allocated;
  double per_pair = static_cast<double>(during - before) / (kClients * kKeysEach);
  EXPECT_LE(per_pair, 100.0);
  // The same keys watched by every client (1,000 keys x 200 clients).
  for (int c = 0; c < kClients; ++c) index_.RemoveAll(c + 1);
  EXPECT_TRUE(index_.empty());
  size_t after = ReadAllocatorStats().allocated;
  EXPECT_LE(after, before + (64 << 10));
  for (uint64_t c = 1; c <= 200; ++c) {
    for (int k = 0; k < 1000; ++k) index_.Add(c, 0, names[k], nullptr, 0);
  }
  size_t shared = ReadAllocatorStats().allocated;
  EXPECT_LE(static_cast<double>(shared - after) / (200 * 1000), 60.0);
  for (uint64_t c = 1; c <= 200; ++c) index_.RemoveAll(c);
  EXPECT_LE(ReadAllocatorStats().allocated, before + (64 << 10));
}

// ---------------------------------------------------------------------------------------------
// The containers under the index, each against a std:: model.

struct Obj {
  uint64_t id;
};
struct MixedHash {
  static uint64_t Hash(const Obj* o) { return MixBits(o->id); }
};
// Every member in one probe run: stresses collisions and backward-shift deletion.
struct ConstantHash {
  static uint64_t Hash(const Obj*) { return 0x8000000000000000ULL; }
};

template <typename Traits>
void CompactSetAgainstModel(uint32_t seed, size_t objects, int steps) {
  std::vector<Obj> pool(objects);
  for (size_t i = 0; i < objects; ++i) pool[i].id = i * 7 + 1;
  CompactSet<Obj, Traits> set;
  std::set<Obj*> model;
  std::mt19937 rng(seed);
  size_t max_seen = 0;
  for (int step = 0; step < steps; ++step) {
    // Phases of mostly inserts, then mostly erases, so the set grows and shrinks through
    // every capacity.
    bool growing = (step / (steps / 6)) % 2 == 0;
    Obj* o = &pool[rng() % objects];
    if ((rng() % 4 != 0) == growing) {
      if (model.insert(o).second) set.Insert(o);
    } else {
      ASSERT_EQ(set.Erase(o), model.erase(o) == 1);
    }
    ASSERT_EQ(set.size(), model.size());
    ASSERT_EQ(set.empty(), model.empty());
    Obj* probe = &pool[rng() % objects];
    ASSERT_EQ(set.Contains(probe), model.count(probe) == 1);
    uint64_t want = probe->id;
    ASSERT_EQ(set.Find(Traits::Hash(probe), [want](const Obj* x) { return x->id == want; }),
              model.count(probe) == 1 ? probe : nullptr);
    if (set.capacity() != 0) {
      ASSERT_LE(set.size() * 4, set.capacity() * 3);  // load at most 3/4
      size_t bytes = set.block_bytes();
      ASSERT_EQ(bytes & (bytes - 1), 0u) << "a block is a power of two bytes";
    } else {
      ASSERT_LE(set.size(), 1u);  // inline
    }
    max_seen = std::max(max_seen, set.size());
    if (step % 97 == 0) {
      std::set<Obj*> members;
      set.ForEach([&members](Obj* x) { members.insert(x); });
      ASSERT_EQ(members, model);
    }
  }
  EXPECT_GT(max_seen, objects / 2);
  for (Obj* o : std::vector<Obj*>(model.begin(), model.end())) ASSERT_TRUE(set.Erase(o));
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(set.capacity(), 0u);
}

TEST(CompactSetTest, InlineUpToOneMemberThenABlock) {
  Obj a{1}, b{2}, c{3};
  CompactSet<Obj, MixedHash> set;
  EXPECT_FALSE(set.Erase(&a));
  set.Insert(&a);
  EXPECT_EQ(set.capacity(), 0u);
  EXPECT_TRUE(set.Contains(&a));
  EXPECT_FALSE(set.Contains(&b));
  set.Insert(&b);
  EXPECT_EQ(set.capacity(), 3u);
  EXPECT_EQ(set.block_bytes(), 32u);
  set.Insert(&c);
  EXPECT_EQ(set.capacity(), 7u);
  EXPECT_TRUE(set.Erase(&b));
  EXPECT_FALSE(set.Erase(&b));
  EXPECT_TRUE(set.Erase(&a));
  EXPECT_EQ(set.capacity(), 0u);  // back inline at one member
  EXPECT_TRUE(set.Contains(&c));
  EXPECT_TRUE(set.Erase(&c));
  EXPECT_TRUE(set.empty());
}

TEST(CompactSetTest, RandomOperationsMatchAStdSet) {
  CompactSetAgainstModel<MixedHash>(1, 3000, 60000);
  CompactSetAgainstModel<MixedHash>(2, 40, 20000);
}

TEST(CompactSetTest, AllMembersCollidingStillWork) {
  CompactSetAgainstModel<ConstantHash>(3, 300, 12000);
}

struct TableObj {
  uint64_t key;
};
struct TableMixedHash {
  static uint64_t Hash(const TableObj* o) { return MixBits(o->key); }
};
// Long probe runs and a single tag value.
struct TableClusteredHash {
  static uint64_t Hash(const TableObj* o) { return o->key / 16; }
};

template <typename Traits>
void TaggedTableAgainstModel(uint32_t seed, size_t objects, int steps) {
  std::vector<TableObj> pool(objects);
  for (size_t i = 0; i < objects; ++i) pool[i].key = i;
  TaggedTable<TableObj, Traits> table;
  std::set<TableObj*> model;
  std::mt19937 rng(seed);
  int migrating_steps = 0;
  for (int step = 0; step < steps; ++step) {
    bool growing = (step / (steps / 6)) % 2 == 0;
    TableObj* o = &pool[rng() % objects];
    uint64_t h = Traits::Hash(o);
    if ((rng() % 4 != 0) == growing) {
      if (model.insert(o).second) {
        // A member is found only by its own predicate, never by a stranger's.
        uint64_t key = o->key;
        ASSERT_EQ(table.Find(h, [key](const TableObj* x) { return x->key == key; }), nullptr);
        table.Insert(o, h);
      }
    } else {
      ASSERT_EQ(table.Erase(o, h), model.erase(o) == 1);
    }
    if (table.migrating()) ++migrating_steps;
    ASSERT_EQ(table.size(), model.size());
    TableObj* probe = &pool[rng() % objects];
    uint64_t key = probe->key;
    ASSERT_EQ(table.Find(Traits::Hash(probe), [key](const TableObj* x) { return x->key == key; }),
              model.count(probe) == 1 ? probe : nullptr);
    if (step % (steps / 50) == 0) {
      std::set<TableObj*> members;
      table.ForEach([&members](TableObj* x) { members.insert(x); });
      ASSERT_EQ(members, model);
    }
  }
  EXPECT_GT(migrating_steps, 0) << "the incremental resize was exercised";
  for (TableObj* o : std::vector<TableObj*>(model.begin(), model.end())) {
    ASSERT_TRUE(table.Erase(o, Traits::Hash(o)));
  }
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(table.bytes(), 0u);
}

TEST(TaggedTableTest, RandomOperationsMatchAStdSet) {
  TaggedTableAgainstModel<TableMixedHash>(5, 50000, 400000);
  TaggedTableAgainstModel<TableMixedHash>(6, 100, 20000);
}

TEST(TaggedTableTest, ClusteredHashesStillWork) {
  TaggedTableAgainstModel<TableClusteredHash>(7, 4000, 60000);
}

TEST(TaggedTableTest, GrowsIncrementallyAndShrinksBack) {
  std::vector<TableObj> pool(200000);
  TaggedTable<TableObj, TableMixedHash> table;
  size_t max_bytes = 0;
  for (size_t i = 0; i < pool.size(); ++i) {
    pool[i].key = i;
    table.Insert(&pool[i], TableMixedHash::Hash(&pool[i]));
    max_bytes = std::max(max_bytes, table.bytes());
    // Load of the current array never passes 3/4, and a drain never outlives 1/8 of the
    // new capacity in operations (so at most two arrays exist at once).
    ASSERT_LE(table.size(), table.capacity() * 3 / 4 + table.capacity() / 8);
  }
  EXPECT_LE(table.capacity(), 524288u);
  for (size_t i = 0; i < pool.size(); ++i) {
    ASSERT_TRUE(table.Erase(&pool[i], TableMixedHash::Hash(&pool[i])));
    if (i + 1000 < pool.size()) {
      ASSERT_LE(table.bytes(), max_bytes);
    }
  }
  EXPECT_EQ(table.bytes(), 0u);
  EXPECT_EQ(table.capacity(), 0u);
}

// ---------------------------------------------------------------------------------------------
// Model test.

struct ModelKey {
  int db;
  std::string key;
  bool operator<(const ModelKey& o) const { return std::tie(db, key) < std::tie(o.db, o.key); }
};

class WatchModel {
 public:
  // The full invariant check (a walk of the whole model) runs every `check_every` steps.
  WatchModel(int dbs, int clients, int keys, uint32_t seed, int check_every = 1)
      : clients_(clients), keys_(keys), check_every_(check_every), rng_(seed) {
    ctx_.listener = &index_;
    ctx_.command_clock.Update(kNow);
    for (int i = 0; i < dbs; ++i) dbs_.push_back(std::make_unique<Database>(i, &ctx_));
  }
  ~WatchModel() {
    dbs_.clear();  // before the index (declaration order would free the index last anyway)
  }

  void Step() {
    int db = Pick(static_cast<int>(dbs_.size()));
    std::string key = "key:" + std::to_string(Pick(keys_));
    uint64_t client = 1 + Pick(clients_);
    Database& d = *dbs_[db];
    ModelKey mk{db, key};
    int op = Pick(100);
    if (op < 30) {
      bool fresh = watchers_[mk].insert(client).second;
      Entry* e = d.Peek(key);
      ASSERT_EQ(index_.Add(client, db, key, e, e != nullptr ? d.ExpireOf(e) : 0), fresh);
    } else if (op < 42) {
      bool had = watchers_[mk].erase(client) != 0;
      ASSERT_EQ(index_.Remove(client, db, key), had);
    } else if (op < 44) {
      size_t n = 0;
      for (auto& [k, set] : watchers_) n += set.erase(client);
      ASSERT_EQ(index_.RemoveAll(client), n);
    } else if (op < 50) {
      ++interest_[mk];
      Entry* e = d.Peek(key);
      index_.AddInterest(db, key, e, e != nullptr ? d.ExpireOf(e) : 0);
    } else if (op < 55) {
      if (interest_[mk] > 0) --interest_[mk];
      index_.RemoveInterest(db, key);
    } else if (op < 70) {
      bool existed = d.Peek(key) != nullptr;
      Entry* e = d.Upsert(key, Value::String("v"), false, notice::kSet);
      if (Pick(3) == 0) d.SetExpire(e, kNow + 1 + Pick(100000));
      ExpectPushes(existed ? std::vector<Push>{} : PushesFor(mk, true));
    } else if (op < 85) {
      Entry* gone = d.FindRaw(key);
      bool existed = gone != nullptr;
      if (existed) d.Remove(gone);
      ExpectPushes(existed ? PushesFor(mk, false) : std::vector<Push>{});
    } else if (op < 90) {
      if (Entry* e = d.Peek(key)) {
        if (Pick(2) == 0) {
          d.SetExpire(e, kNow + 1 + Pick(100000));
        } else {
          d.Persist(e);
        }
      }
      ExpectPushes({});
    } else if (op < 93) {
      int to = Pick(static_cast<int>(dbs_.size()));
      std::string dst = "key:" + std::to_string(Pick(keys_));
      Entry* e = d.Peek(key);
      if (e != nullptr && !(to == db && dst == key)) {
        bool dst_existed = dbs_[to]->Peek(dst) != nullptr;
        std::vector<Push> want = PushesFor(mk, false);
        if (!dst_existed) {
          for (const Push& p : PushesFor({to, dst}, true)) want.push_back(p);
        }
        d.MoveEntry(e, *dbs_[to], dst, notice::kRenameFrom, notice::kRenameTo);
        std::sort(want.begin(), want.end());
        ExpectPushes(want);
      }
    } else if (op < 94) {
      std::vector<Push> want;
      for (auto& [k, set] : watchers_) {
        if (k.db == db && d.Peek(k.key) != nullptr) {
          for (const Push& p : PushesFor(k, false)) want.push_back(p);
        }
      }
      d.Flush(Database::FlushCount::kCountKeys);
      std::sort(want.begin(), want.end());
      ExpectPushes(want);
    } else if (op < 95 && dbs_.size() > 1) {
      int other = (db + 1) % static_cast<int>(dbs_.size());
      std::vector<Push> want;
      for (auto& [k, set] : watchers_) {
        if (k.db != db && k.db != other) continue;
        int mirror = k.db == db ? other : db;
        bool now = dbs_[mirror]->Peek(k.key) != nullptr;
        bool before = dbs_[k.db]->Peek(k.key) != nullptr;
        if (now != before) {
          for (const Push& p : PushesFor(k, now)) want.push_back(p);
        }
      }
      Database::Swap(d, *dbs_[other]);
      std::sort(want.begin(), want.end());
      ExpectPushes(want);
    } else {
      CheckDueExpiries(kNow + Pick(100002));
    }
    if (++steps_ % check_every_ == 0) CheckInvariants(client);
  }

  void DropEverything() {
    for (uint64_t c = 1; c <= static_cast<uint64_t>(clients_); ++c) {
      size_t n = 0;
      for (auto& [k, set] : watchers_) n += set.erase(c);
      ASSERT_EQ(index_.RemoveAll(c), n);
    }
    for (auto& [k, n] : interest_) {
      for (; n > 0; --n) index_.RemoveInterest(k.db, k.key);
    }
    ASSERT_TRUE(index_.empty());
    ASSERT_EQ(index_.key_count(), 0u);
    ASSERT_EQ(index_.watch_count(), 0u);
    ASSERT_EQ(index_.next_deadline(), 0);
  }

  const WatchIndex& index() const { return index_; }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

  std::vector<Push> PushesFor(const ModelKey& k, bool added) {
    std::vector<Push> out;
    auto it = watchers_.find(k);
    if (it == watchers_.end()) return out;
    for (uint64_t c : it->second) out.push_back({c, k.db, k.key, added});
    return out;
  }

  void ExpectPushes(const std::vector<Push>& want) { ASSERT_EQ(sink_.Take(), want); }

  bool Tracked(const ModelKey& k) const {
    auto w = watchers_.find(k);
    auto i = interest_.find(k);
    return (w != watchers_.end() && !w->second.empty()) || (i != interest_.end() && i->second > 0);
  }

  // Every tracked key that exists with a TTL, as (deadline, db, key).
  std::vector<std::tuple<int64_t, int, std::string>> Deadlines() {
    std::set<ModelKey> tracked;
    for (auto& [k, set] : watchers_) {
      if (Tracked(k)) tracked.insert(k);
    }
    for (auto& [k, n] : interest_) {
      if (Tracked(k)) tracked.insert(k);
    }
    std::vector<std::tuple<int64_t, int, std::string>> out;
    for (const ModelKey& k : tracked) {
      Entry* e = dbs_[k.db]->FindRaw(k.key);
      if (e == nullptr) continue;
      EXPECT_TRUE(e->has_flag(Entry::kFlagWatched)) << k.db << " " << k.key;
      if (e->has_expire()) out.emplace_back(dbs_[k.db]->ExpireOf(e), k.db, k.key);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void CheckDueExpiries(int64_t now) {
    std::vector<std::pair<int, std::string>> want;
    for (const auto& [deadline, db, key] : Deadlines()) {
      if (deadline < now) want.emplace_back(db, key);
    }
    std::vector<std::pair<int, std::string>> got = index_.DueExpiries(now);
    // Deadline order; keys sharing a deadline may come in any order.
    std::vector<int64_t> got_deadlines;
    for (const auto& [db, key] : got) {
      got_deadlines.push_back(dbs_[db]->ExpireOf(dbs_[db]->FindRaw(key)));
    }
    ASSERT_TRUE(std::is_sorted(got_deadlines.begin(), got_deadlines.end()));
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    ASSERT_EQ(got, want);
  }

  void CheckInvariants(uint64_t client) {
    size_t watches = 0, keys = 0, mine = 0;
    std::set<ModelKey> tracked;
    for (auto& [k, set] : watchers_) {
      watches += set.size();
      mine += set.count(client);
      if (Tracked(k)) tracked.insert(k);
    }
    for (auto& [k, n] : interest_) {
      if (Tracked(k)) tracked.insert(k);
    }
    keys = tracked.size();
    ASSERT_EQ(index_.watch_count(), watches);
    ASSERT_EQ(index_.key_count(), keys);
    ASSERT_EQ(index_.empty(), keys == 0);
    ASSERT_EQ(index_.CountFor(client), mine);
    auto deadlines = Deadlines();
    ASSERT_EQ(index_.next_deadline(), deadlines.empty() ? 0 : std::get<0>(deadlines.front()));
  }

  int clients_;
  int keys_;
  int check_every_;
  int steps_ = 0;
  std::mt19937 rng_;
  FakeSink sink_;
  WatchIndex index_{&sink_};
  KeyspaceContext ctx_;
  std::vector<std::unique_ptr<Database>> dbs_;
  std::map<ModelKey, std::set<uint64_t>> watchers_;
  std::map<ModelKey, int> interest_;
};

TEST(WatchIndexModelTest, SmallKeySpaceManyWatchersPerKey) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    WatchModel m(3, 40, 30, seed);
    for (int i = 0; i < 6000; ++i) {
      ASSERT_NO_FATAL_FAILURE(m.Step()) << "seed " << seed << " step " << i;
    }
    ASSERT_NO_FATAL_FAILURE(m.DropEverything()) << "seed " << seed;
  }
}

TEST(WatchIndexModelTest, LargeKeySpaceGrowsAndShrinks) {
  WatchModel m(2, 8, 4000, 99, 50);
  for (int i = 0; i < 25000; ++i) ASSERT_NO_FATAL_FAILURE(m.Step()) << "step " << i;
  ASSERT_NO_FATAL_FAILURE(m.DropEverything());
}

// Bulk registration and removal far past every resize threshold, with key events in between.
TEST_F(WatchIndexTest, HundredThousandWatchesComeAndGo) {
  constexpr int kKeys = 100'000;
  for (int k = 0; k < kKeys; ++k) {
    std::string key = "bulk:" + std::to_string(k);
    ASSERT_TRUE(index_.Add(1 + k % 7, k % 2, key, nullptr, 0));
    if (k % 1000 == 0) {
      Set(k % 2 == 0 ? db0_ : db1_, key);
      ASSERT_EQ(sink_.Take(), (std::vector<Push>{{1 + k % 7u, k % 2, key, true}}));
    }
  }
  EXPECT_EQ(index_.key_count(), static_cast<size_t>(kKeys));
  for (int k = 0; k < kKeys; k += 2) {
    ASSERT_TRUE(index_.Remove(1 + k % 7, 0, "bulk:" + std::to_string(k)));
  }
  EXPECT_EQ(index_.key_count(), static_cast<size_t>(kKeys / 2));
  for (int k = 1; k < kKeys; k += 2000) {
    std::string key = "bulk:" + std::to_string(k);
    Set(db1_, key);
    ASSERT_EQ(sink_.Take(), (std::vector<Push>{{1 + k % 7u, 1, key, true}}));
  }
  size_t total = 0;
  for (uint64_t c = 1; c <= 7; ++c) total += index_.RemoveAll(c);
  EXPECT_EQ(total, static_cast<size_t>(kKeys / 2));
  EXPECT_TRUE(index_.empty());
  db1_.Flush(Database::FlushCount::kCountKeys);
  EXPECT_TRUE(sink_.Take().empty());
}

}  // namespace
}  // namespace redistp
