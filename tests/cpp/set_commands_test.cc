// Unit tests for the set family: the SetObject operations the commands added (random picks,
// distinct picks, removal by reference, Clear, ForEachWhile), the set algebra of
// commands/set_ops.h with the result encodings Redis 7.0 picks, and, through the in-process
// harness, what the set commands announce (keyspace notices, in order) and propagate.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "commands/set_ops.h"
#include "harness.h"
#include "types/set.h"

namespace redistp {
namespace {

using testing::Harness;

Value MakeSet(const std::vector<std::string>& members, const TypeLimits& limits = TypeLimits{}) {
  Value v = NewSetValue(members.at(0));
  for (const std::string& m : members) SetOf(v).Add(m, limits);
  return v;
}

std::set<std::string> Members(const Value& v) {
  std::set<std::string> out;
  SetOf(v).ForEach([&out](std::string_view m) { out.emplace(m); });
  return out;
}

std::vector<std::string> Range(const std::string& prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

// Pearson's chi-square statistic of `counts` against a uniform expectation.
double ChiSquare(const std::map<std::string, int>& counts, int draws, size_t categories) {
  const double expected = static_cast<double>(draws) / static_cast<double>(categories);
  double chi = 0;
  for (const auto& [member, n] : counts) chi += (n - expected) * (n - expected) / expected;
  // Members never drawn count too.
  chi += static_cast<double>(categories - counts.size()) * expected;
  return chi;
}

std::map<std::string, int> Draw(SetObject& s, int draws) {
  std::map<std::string, int> counts;
  char buf[kMaxInt64Chars + 1];
  for (int i = 0; i < draws; ++i) ++counts[std::string(s.View(s.RandomMember(), buf))];
  return counts;
}

// 99 degrees of freedom: the 1e-9 quantile of chi-square(99) is about 215, so a fair sampler
// fails this bound once in a billion runs; HashTable::Random's chain bias is far above it.
constexpr double kChi99Bound = 215;

TEST(SetObjectRandom, HashtableDrawsAreUniform) {
  Value v = MakeSet(Range("m", 100));
  ASSERT_EQ(SetOf(v).encoding(), SetObject::Encoding::kHashtable);
  auto counts = Draw(SetOf(v), 100000);
  EXPECT_EQ(counts.size(), 100u);
  EXPECT_LT(ChiSquare(counts, 100000, 100), kChi99Bound);
}

TEST(SetObjectRandom, DrawsStayUniformWhileTheTableRehashes) {
  // The 129th insertion starts growing 128 buckets to 256; with resizing paused (as while a
  // forked child runs) the draws do not advance the rehash.
  Value v = MakeSet(Range("r", 129));
  SetObject& s = SetOf(v);
  ASSERT_TRUE(s.table().rehashing());
  SetHashTableResizeAllowed(false);
  auto counts = Draw(s, 129000);
  SetHashTableResizeAllowed(true);
  EXPECT_TRUE(s.table().rehashing());
  EXPECT_EQ(counts.size(), 129u);
  // 128 degrees of freedom: the 1e-9 quantile is about 260.
  EXPECT_LT(ChiSquare(counts, 129000, 129), 260);
  // Not paused, each draw moves the rehash on until it is done.
  Draw(s, 1000);
  EXPECT_FALSE(s.table().rehashing());
}

TEST(SetObjectRandom, IntsetDrawsAreUniform) {
  std::vector<std::string> ints;
  for (int i = 0; i < 100; ++i) ints.push_back(std::to_string(i * 7 - 300));
  Value v = MakeSet(ints);
  ASSERT_EQ(SetOf(v).encoding(), SetObject::Encoding::kIntset);
  auto counts = Draw(SetOf(v), 100000);
  EXPECT_EQ(counts.size(), 100u);
  EXPECT_LT(ChiSquare(counts, 100000, 100), kChi99Bound);
}

TEST(SetObjectRandom, PickDistinctGivesDistinctMembersOnBothPaths) {
  for (bool ints : {false, true}) {
    std::vector<std::string> members;
    for (int i = 0; i < 300; ++i)
      members.push_back(ints ? std::to_string(i) : "x" + std::to_string(i));
    Value v = MakeSet(members);
    SetObject& s = SetOf(v);
    const std::set<std::string> all = Members(v);
    // 10 and 50 take the sparse path (count * 3 <= size), 150 and 300 the shuffle.
    for (size_t count : {1u, 10u, 50u, 150u, 299u, 300u}) {
      std::vector<SetObject::MemberRef> picks;
      s.PickDistinct(count, &picks);
      ASSERT_EQ(picks.size(), count);
      std::set<std::string> seen;
      char buf[kMaxInt64Chars + 1];
      for (const auto& r : picks) {
        std::string m(s.View(r, buf));
        EXPECT_TRUE(all.count(m)) << m;
        EXPECT_TRUE(seen.insert(m).second) << "duplicate " << m;
      }
    }
  }
}

TEST(SetObjectRandom, PickDistinctIsFairOnTheSparsePath) {
  Value v = MakeSet(Range("f", 100));
  SetObject& s = SetOf(v);
  std::map<std::string, int> counts;
  std::vector<SetObject::MemberRef> picks;
  for (int i = 0; i < 10000; ++i) {
    s.PickDistinct(10, &picks);
    for (const auto& r : picks) ++counts[std::string(r.node->member())];
  }
  EXPECT_LT(ChiSquare(counts, 100000, 100), kChi99Bound);
}

TEST(SetObjectRandom, RemoveRefRemovesExactlyThePickedMembers) {
  for (bool ints : {false, true}) {
    std::vector<std::string> members;
    for (int i = 0; i < 200; ++i)
      members.push_back(ints ? std::to_string(i) : "y" + std::to_string(i));
    Value v = MakeSet(members);
    SetObject& s = SetOf(v);
    std::set<std::string> left = Members(v);
    std::vector<SetObject::MemberRef> picks;
    s.PickDistinct(30, &picks);
    char buf[kMaxInt64Chars + 1];
    for (const auto& r : picks) {
      left.erase(std::string(s.View(r, buf)));
      s.RemoveRef(r);
    }
    EXPECT_EQ(s.size(), 170u);
    EXPECT_EQ(Members(v), left);
    // Draining by single random pops empties it without a miss.
    while (s.size() > 0) s.RemoveRef(s.RandomMember());
    EXPECT_TRUE(v.IsEmptyAggregate());
  }
}

TEST(SetObjectRandom, RemovalsShrinkASparseTable) {
  Value v = MakeSet(Range("s", 4096));
  SetObject& s = SetOf(v);
  const size_t big = s.table().buckets();
  for (int i = 0; i < 4000; ++i) s.Remove("s" + std::to_string(i));
  // Finish whatever rehash the removals started.
  while (s.table().Rehash(100)) {
  }
  EXPECT_LE(s.table().buckets(), big / 8);
  EXPECT_EQ(s.size(), 96u);
}

TEST(SetObjectTest, ClearAndForEachWhile) {
  Value v = MakeSet(Range("c", 50));
  int seen = 0;
  SetOf(v).ForEachWhile([&seen](std::string_view) { return ++seen < 7; });
  EXPECT_EQ(seen, 7);
  seen = 0;
  SetOf(v).ForEachWhile([&seen](std::string_view) { return ++seen > 0; });
  EXPECT_EQ(seen, 50);
  SetOf(v).Clear();
  EXPECT_TRUE(v.IsEmptyAggregate());
  Value ints = MakeSet({"1", "2", "3"});
  seen = 0;
  SetOf(ints).ForEachWhile([&seen](std::string_view) { return ++seen < 2; });
  EXPECT_EQ(seen, 2);
}

// --- set algebra ---------------------------------------------------------------------------

TEST(SetOps, IntersectionUnionDifference) {
  Value a = MakeSet({"1", "2", "3", "x"});
  Value b = MakeSet({"2", "3", "4"});
  Value c = MakeSet({"3", "x", "9"});
  TypeLimits limits;
  std::vector<SetObject*> ab = {&SetOf(a), &SetOf(b)};
  EXPECT_EQ(Members(SetIntersection(ab, limits)), (std::set<std::string>{"2", "3"}));
  std::vector<SetObject*> abc = {&SetOf(a), &SetOf(b), &SetOf(c)};
  EXPECT_EQ(Members(SetIntersection(abc, limits)), (std::set<std::string>{"3"}));
  EXPECT_EQ(Members(SetUnion(abc, limits)), (std::set<std::string>{"1", "2", "3", "4", "9", "x"}));
  EXPECT_EQ(Members(SetDifference(abc, limits)), (std::set<std::string>{"1"}));
  // A missing key: empty intersection, ignored by union, empty difference when first.
  std::vector<SetObject*> with_missing = {&SetOf(a), nullptr};
  EXPECT_TRUE(SetIntersection(with_missing, limits).IsEmptyAggregate());
  EXPECT_EQ(Members(SetUnion(with_missing, limits)), Members(a));
  EXPECT_EQ(Members(SetDifference(with_missing, limits)), Members(a));
  std::vector<SetObject*> missing_first = {nullptr, &SetOf(a)};
  EXPECT_TRUE(SetDifference(missing_first, limits).IsEmptyAggregate());
  // The same set twice.
  std::vector<SetObject*> aa = {&SetOf(a), &SetOf(a)};
  EXPECT_EQ(Members(SetIntersection(aa, limits)), Members(a));
  EXPECT_TRUE(SetDifference(aa, limits).IsEmptyAggregate());
  std::vector<SetObject*> bab = {&SetOf(b), &SetOf(a), &SetOf(b)};
  EXPECT_TRUE(SetDifference(bab, limits).IsEmptyAggregate());
}

TEST(SetOps, DifferenceAgreesOnBothStrategies) {
  // A small first set against big others probes; a big first set against small ones copies
  // and removes. Both must give the same members.
  Value small = MakeSet({"k1", "k5", "zz"});
  Value big = MakeSet(Range("k", 1000));
  TypeLimits limits;
  std::vector<SetObject*> probe = {&SetOf(small), &SetOf(big)};
  EXPECT_EQ(Members(SetDifference(probe, limits)), (std::set<std::string>{"zz"}));
  std::vector<SetObject*> remove = {&SetOf(big), &SetOf(small), &SetOf(small)};
  std::set<std::string> expected = Members(big);
  expected.erase("k1");
  expected.erase("k5");
  EXPECT_EQ(Members(SetDifference(remove, limits)), expected);
}

TEST(SetOps, ResultsAreIntsetsWhileRedisWouldKeepThemSo) {
  TypeLimits limits;
  limits.set_max_intset_entries = 4;
  // Integer members held in a hashtable (because of "x") give an intset result.
  Value a = MakeSet({"x", "1", "2", "3"}, limits);
  Value b = MakeSet({"1", "2", "3", "x"}, limits);
  ASSERT_STREQ(a.EncodingName(), "hashtable");
  std::vector<SetObject*> ab = {&SetOf(a), &SetOf(b)};
  EXPECT_EQ(Members(SetIntersection(ab, limits)), (std::set<std::string>{"1", "2", "3", "x"}));
  Value one_two = MakeSet({"1", "2"}, limits);
  Value inter = SetIntersection({&SetOf(a), &SetOf(one_two)}, limits);
  EXPECT_STREQ(inter.EncodingName(), "intset");
  // Past set-max-intset-entries the result converts.
  Value many = MakeSet({"1", "2", "3", "4"}, limits);
  Value more = MakeSet({"5"}, limits);
  Value u = SetUnion({&SetOf(many), &SetOf(more)}, limits);
  EXPECT_STREQ(u.EncodingName(), "hashtable");
  EXPECT_EQ(SetOf(u).size(), 5u);
}

// --- through the server: notices and propagation --------------------------------------------

// Records the notice names of every key event, then forwards it to the server's own listener.
class NoticeRecorder : public KeyspaceListener {
 public:
  explicit NoticeRecorder(Harness& h) : ctx_(h.server().keyspace()), next_(ctx_.listener) {
    ctx_.listener = this;
  }
  ~NoticeRecorder() override { ctx_.listener = next_; }
  void OnKeyEvent(const KeyEvent& ev) override {
    if (ev.notice.name != nullptr) {
      names_.push_back(std::string(ev.notice.name) + " " + std::string(ev.entry->key()));
    }
    next_->OnKeyEvent(ev);
  }
  void OnFlush(Database& db) override { next_->OnFlush(db); }
  void OnSwap(Database& a, Database& b) override { next_->OnSwap(a, b); }
  std::vector<std::string> Take() { return std::exchange(names_, {}); }

 private:
  KeyspaceContext& ctx_;
  KeyspaceListener* next_;
  std::vector<std::string> names_;
};

using Names = std::vector<std::string>;
using Records = std::vector<std::vector<std::string>>;

// The notices below are the ones Redis 7.0.15 publishes for the same commands (observed with
// PSUBSCRIBE __keyevent@0__:* and notify-keyspace-events KEA).
TEST(SetCommandNotices, EachCommandNamesItsChangeAsRedisDoes) {
  Harness h;
  NoticeRecorder rec(h);
  h.Run("a", {"SADD", "a", "1", "2", "3"});
  h.Run("a", {"SADD", "a", "1"});  // nothing new: no event
  h.Run("a", {"SADD", "b", "2", "3", "4", "x"});
  EXPECT_EQ(rec.Take(), (Names{"sadd a", "sadd b"}));
  h.Run("a", {"SMOVE", "a", "b", "1"});
  h.Run("a", {"SMOVE", "a", "a", "2"});  // same key: nothing
  h.Run("a", {"SMOVE", "a", "b", "9"});  // not a member: nothing
  h.Run("a", {"SMOVE", "b", "a", "x"});
  EXPECT_EQ(rec.Take(), (Names{"srem a", "sadd b", "srem b", "sadd a"}));
  h.Run("a", {"SINTERSTORE", "d", "a", "b"});
  h.Run("a", {"SUNIONSTORE", "d", "a", "b"});
  h.Run("a", {"SDIFFSTORE", "d", "a", "a"});
  h.Run("a", {"SDIFFSTORE", "d", "a", "a"});  // empty result, no destination: nothing
  EXPECT_EQ(rec.Take(), (Names{"sinterstore d", "sunionstore d", "del d"}));
  h.Run("a", {"SPOP", "a", "1"});
  h.Run("a", {"SPOP", "a", "5"});
  EXPECT_EQ(rec.Take(), (Names{"spop a", "spop a", "del a"}));
  h.Run("a", {"SREM", "b", "2", "nope"});
  h.Run("a", {"SREM", "b", "nope"});
  h.Run("a", {"SADD", "c", "1"});
  h.Run("a", {"SPOP", "c"});
  h.Run("a", {"SMOVE", "b", "z", "3"});
  EXPECT_EQ(rec.Take(), (Names{"srem b", "sadd c", "spop c", "del c", "srem b", "sadd z"}));
  // The last member moved out deletes the source.
  h.Run("a", {"SREM", "b", "4"});
  h.Run("a", {"SMOVE", "b", "z", "1"});
  EXPECT_EQ(rec.Take(), (Names{"srem b", "srem b", "del b", "sadd z"}));
}

TEST(SetCommandPropagation, SPopIsReplayedAsSRemOrDel) {
  Harness h;
  h.Run("a", {"SADD", "s", "a", "b", "c", "d", "e"});
  h.Propagated();
  testing::Frame one = h.Run("a", {"SPOP", "s"});
  EXPECT_EQ(h.Propagated(), (Records{{"SREM", "s", one.str}}));
  // One SREM per member, in MULTI/EXEC, as Redis 7.0's AOF has it (the difftest's persistence
  // round trips saw the replays' keyspace events differ in number).
  testing::Frame two = h.Run("a", {"SPOP", "s", "2"});
  ASSERT_EQ(two.elems.size(), 2u);
  EXPECT_EQ(
      h.Propagated(),
      (Records{
          {"MULTI"}, {"SREM", "s", two.elems[0].str}, {"SREM", "s", two.elems[1].str}, {"EXEC"}}));
  h.Run("a", {"SPOP", "s", "0"});
  h.Run("a", {"SPOP", "nokey", "3"});
  h.Run("a", {"SRANDMEMBER", "s", "2"});
  EXPECT_EQ(h.Propagated(), Records{});
  h.Run("a", {"SPOP", "s", "10"});
  EXPECT_EQ(h.Propagated(), (Records{{"DEL", "s"}}));
  EXPECT_EQ(h.Run("a", {"EXISTS", "s"}).integer, 0);
}

TEST(SetCommandPropagation, DeterministicWritesReplayAsThemselves) {
  Harness h;
  h.Run("a", {"SADD", "a", "1", "2"});
  h.Run("a", {"SADD", "a", "1"});
  h.Run("a", {"SREM", "a", "nope"});
  h.Run("a", {"SADD", "b", "2"});
  h.Run("a", {"SMOVE", "a", "b", "1"});
  h.Run("a", {"SINTERSTORE", "d", "a", "b"});
  h.Run("a", {"SDIFFSTORE", "d", "a", "b"});
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"},
                                     {"SADD", "a", "1", "2"},
                                     {"SADD", "b", "2"},
                                     {"SMOVE", "a", "b", "1"},
                                     {"SINTERSTORE", "d", "a", "b"},
                                     {"SDIFFSTORE", "d", "a", "b"}}));
}

}  // namespace
}  // namespace redistp
