// Unit tests for SkipList and ZSetIndex: bounded randomized runs against a std::set model of
// (score, member) pairs plus a member -> score map, checking order both ways, ranks, range
// lookups by score and lex with exclusive bounds, range deletes and in-place score updates.
#include "types/skiplist.h"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "types/zset_index.h"

namespace redistp {
namespace {

using Pair = std::pair<double, std::string>;

// The model: a set ordered as the skiplist orders (score, then bytes as unsigned chars,
// which std::string's comparison does) and the member -> score map.
struct Model {
  std::set<Pair> order;
  std::map<std::string, double> scores;

  void Add(const std::string& m, double s) {
    auto it = scores.find(m);
    if (it != scores.end()) order.erase({it->second, m});
    scores[m] = s;
    order.insert({s, m});
  }
  bool Remove(const std::string& m) {
    auto it = scores.find(m);
    if (it == scores.end()) return false;
    order.erase({it->second, m});
    scores.erase(it);
    return true;
  }
};

// Checks every node against the model, forwards and backwards, and every rank.
void ExpectSame(ZSetIndex& z, const Model& model) {
  ASSERT_EQ(z.size(), model.order.size());
  const SkipList& l = z.list();
  std::vector<Pair> fwd;
  for (ZNode* n = l.first(); n != nullptr; n = n->next()) {
    fwd.emplace_back(n->score, std::string(n->member()));
  }
  ASSERT_EQ(fwd, std::vector<Pair>(model.order.begin(), model.order.end()));
  std::vector<Pair> back;
  for (ZNode* n = l.last(); n != nullptr; n = n->prev()) {
    back.emplace_back(n->score, std::string(n->member()));
  }
  ASSERT_EQ(back, std::vector<Pair>(model.order.rbegin(), model.order.rend()));
  size_t rank = 0;
  for (const auto& [s, m] : model.order) {
    ASSERT_EQ(l.Rank(s, m), rank + 1) << m;
    ZNode* n = l.ByRank(rank + 1);
    ASSERT_NE(n, nullptr);
    ASSERT_EQ(n->member(), m);
    ASSERT_EQ(z.Rank(m), rank);
    ASSERT_EQ(z.Rank(m, true), model.order.size() - 1 - rank);
    ASSERT_EQ(z.Score(m), s);
    ++rank;
  }
  EXPECT_EQ(l.ByRank(0), nullptr);
  EXPECT_EQ(l.ByRank(model.order.size() + 1), nullptr);
}

bool InScore(double s, const ScoreRange& r) {
  bool lo = r.min_exclusive ? s > r.min : s >= r.min;
  bool hi = r.max_exclusive ? s < r.max : s <= r.max;
  return lo && hi;
}

bool InLex(const std::string& m, const LexRange& r) {
  auto above = [&](const LexBound& b) {
    switch (b.kind) {
      case LexBound::kNegInf:
        return true;
      case LexBound::kPosInf:
        return false;
      case LexBound::kInclusive:
        return m >= b.bytes;
      case LexBound::kExclusive:
        return m > b.bytes;
    }
    return false;
  };
  auto below = [&](const LexBound& b) {
    switch (b.kind) {
      case LexBound::kNegInf:
        return false;
      case LexBound::kPosInf:
        return true;
      case LexBound::kInclusive:
        return m <= b.bytes;
      case LexBound::kExclusive:
        return m < b.bytes;
    }
    return false;
  };
  return above(r.min) && below(r.max);
}

std::string RandomMember(std::mt19937_64& rng, int universe) {
  // Some members share prefixes and some bytes are >= 0x80, to exercise unsigned ordering.
  int i = static_cast<int>(rng() % universe);
  std::string m = "m" + std::to_string(i);
  if (i % 7 == 0) m.push_back(static_cast<char>(0xC3));
  if (i % 11 == 0) m = m.substr(0, 2);
  return m;
}

TEST(SkipListTest, EmptyList) {
  SkipList l;
  EXPECT_EQ(l.size(), 0u);
  EXPECT_EQ(l.first(), nullptr);
  EXPECT_EQ(l.last(), nullptr);
  EXPECT_EQ(l.ByRank(1), nullptr);
  EXPECT_EQ(l.Rank(1, "a"), 0u);
  EXPECT_FALSE(l.Delete(1, "a"));
  EXPECT_EQ(l.FirstInRange(ScoreRange{0, 10}), nullptr);
  EXPECT_EQ(l.DeleteRankRange(1, 5, nullptr), 0u);
}

TEST(SkipListTest, TiesOrderByMemberBytes) {
  SkipList l;
  l.Insert(1, "b");
  l.Insert(1, "a");
  l.Insert(1, std::string("\xff", 1));
  l.Insert(0.5, "z");
  l.Insert(1, "ab");
  std::vector<std::string> got;
  for (ZNode* n = l.first(); n != nullptr; n = n->next()) got.emplace_back(n->member());
  EXPECT_EQ(got, (std::vector<std::string>{"z", "a", "ab", "b", "\xff"}));
}

// A long randomized run of adds, score updates and removals, checked fully every so often.
TEST(SkipListTest, RandomOperationsMatchModel) {
  std::mt19937_64 rng(12345);
  ZSetIndex z;
  Model model;
  for (int step = 0; step < 20000; ++step) {
    std::string m = RandomMember(rng, 600);
    int op = static_cast<int>(rng() % 10);
    if (op < 6) {
      // Scores from a small set so ties are common; sometimes a fractional or negative one.
      double s = static_cast<double>(static_cast<int>(rng() % 40) - 10);
      if (rng() % 5 == 0) s += 0.25;
      bool existed = model.scores.count(m) != 0;
      bool same = existed && model.scores[m] == s;
      auto res = z.Add(m, s);
      EXPECT_EQ(res, !existed ? ZSetIndex::AddResult::kAdded
                     : same   ? ZSetIndex::AddResult::kUnchanged
                              : ZSetIndex::AddResult::kUpdated);
      model.Add(m, s);
    } else {
      ASSERT_EQ(z.Remove(m), model.Remove(m)) << m;
    }
    if (step % 1000 == 999) ExpectSame(z, model);
  }
  ExpectSame(z, model);
}

TEST(SkipListTest, ScoreAndLexRangesMatchModel) {
  std::mt19937_64 rng(777);
  ZSetIndex z;
  Model model;
  for (int i = 0; i < 3000; ++i) {
    std::string m = RandomMember(rng, 5000);
    double s = static_cast<double>(rng() % 100);
    z.Add(m, s);
    model.Add(m, s);
  }
  const SkipList& l = z.list();
  for (int q = 0; q < 2000; ++q) {
    ScoreRange r{static_cast<double>(rng() % 110) - 5, static_cast<double>(rng() % 110) - 5,
                 rng() % 2 == 0, rng() % 2 == 0};
    std::vector<Pair> want;
    for (const auto& p : model.order) {
      if (InScore(p.first, r)) want.push_back(p);
    }
    std::vector<Pair> got;
    for (ZNode* n = l.FirstInRange(r); n != nullptr && SkipList::InRange(n, r); n = n->next()) {
      got.emplace_back(n->score, std::string(n->member()));
    }
    ASSERT_EQ(got, want) << r.min << " " << r.max;
    ZNode* last = l.LastInRange(r);
    if (want.empty()) {
      ASSERT_EQ(last, nullptr);
    } else {
      ASSERT_NE(last, nullptr);
      ASSERT_EQ(last->member(), want.back().second);
    }
  }
  // Lex ranges are meaningful when all scores are equal, as ZRANGEBYLEX requires.
  ZSetIndex lex;
  std::set<std::string> members;
  for (int i = 0; i < 2000; ++i) {
    std::string m = RandomMember(rng, 5000);
    lex.Add(m, 0);
    members.insert(m);
  }
  auto bound = [&](std::string* storage) {
    int k = static_cast<int>(rng() % 10);
    if (k == 0) return LexBound{LexBound::kNegInf, {}};
    if (k == 1) return LexBound{LexBound::kPosInf, {}};
    *storage = RandomMember(rng, 5000);
    return LexBound{k % 2 == 0 ? LexBound::kInclusive : LexBound::kExclusive, *storage};
  };
  for (int q = 0; q < 2000; ++q) {
    std::string a, b;
    LexRange r{bound(&a), bound(&b)};
    std::vector<std::string> want;
    for (const auto& m : members) {
      if (InLex(m, r)) want.push_back(m);
    }
    std::vector<std::string> got;
    for (ZNode* n = lex.list().FirstInRange(r); n != nullptr && SkipList::InRange(n, r);
         n = n->next()) {
      got.emplace_back(n->member());
    }
    ASSERT_EQ(got, want);
    ZNode* last = lex.list().LastInRange(r);
    ASSERT_EQ(last == nullptr, want.empty());
    if (last != nullptr) {
      ASSERT_EQ(last->member(), want.back());
    }
  }
}

TEST(SkipListTest, RangeDeletesMatchModel) {
  std::mt19937_64 rng(4242);
  for (int round = 0; round < 60; ++round) {
    ZSetIndex z;
    Model model;
    int n = 1 + static_cast<int>(rng() % 400);
    for (int i = 0; i < n; ++i) {
      std::string m = RandomMember(rng, 1000);
      double s = round % 3 == 2 ? 0 : static_cast<double>(rng() % 50);
      z.Add(m, s);
      model.Add(m, s);
    }
    std::vector<std::string> gone;
    if (round % 3 == 0) {
      ScoreRange r{static_cast<double>(rng() % 50), static_cast<double>(rng() % 50), rng() % 2 == 0,
                   rng() % 2 == 0};
      for (const auto& p : model.order) {
        if (InScore(p.first, r)) gone.push_back(p.second);
      }
      ASSERT_EQ(z.RemoveRange(r), gone.size());
    } else if (round % 3 == 1) {
      size_t size = model.order.size();
      size_t start = 1 + rng() % size;
      size_t end = start + rng() % (size + 2);
      size_t rank = 1;
      for (const auto& p : model.order) {
        if (rank >= start && rank <= end) gone.push_back(p.second);
        ++rank;
      }
      ASSERT_EQ(z.RemoveRankRange(start, end), gone.size());
    } else {
      std::string a = RandomMember(rng, 1000), b = RandomMember(rng, 1000);
      LexRange r{{LexBound::kInclusive, a}, {LexBound::kExclusive, b}};
      for (const auto& p : model.order) {
        if (InLex(p.second, r)) gone.push_back(p.second);
      }
      ASSERT_EQ(z.RemoveRange(r), gone.size());
    }
    for (const auto& m : gone) model.Remove(m);
    for (const auto& m : gone) ASSERT_EQ(z.Find(m), nullptr) << m;
    ExpectSame(z, model);
  }
}

TEST(SkipListTest, UpdateScoreKeepsTheNode) {
  ZSetIndex z;
  for (int i = 0; i < 100; ++i) z.Add("m" + std::to_string(i), i);
  ZNode* n = z.Find("m50");
  size_t bytes = z.list().bytes();
  z.Add("m50", 50.5);  // order holds: updated in place
  EXPECT_EQ(z.Find("m50"), n);
  z.Add("m50", -1);  // moves to the front, same block
  EXPECT_EQ(z.Find("m50"), n);
  EXPECT_EQ(z.list().first(), n);
  EXPECT_EQ(z.Rank("m50"), 0u);
  z.Add("m50", 1000);
  EXPECT_EQ(z.list().last(), n);
  EXPECT_EQ(z.Rank("m50", true), 0u);
  EXPECT_EQ(z.list().bytes(), bytes);
  EXPECT_EQ(z.Add("m50", 1000), ZSetIndex::AddResult::kUnchanged);
}

TEST(SkipListTest, RemoveEverythingFreesEveryNode) {
  ZSetIndex z;
  size_t empty_bytes = z.list().bytes();
  for (int i = 0; i < 5000; ++i) z.Add("k" + std::to_string(i), i % 17);
  EXPECT_GT(z.list().bytes(), empty_bytes);
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(z.Remove("k" + std::to_string(i)));
  EXPECT_EQ(z.size(), 0u);
  EXPECT_EQ(z.list().bytes(), empty_bytes);
  EXPECT_EQ(z.list().first(), nullptr);
  EXPECT_EQ(z.list().last(), nullptr);
}

}  // namespace
}  // namespace redistp
