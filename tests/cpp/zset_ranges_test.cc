// Unit tests for ZSetObject's rank and range operations (Rank, WalkRanks, WalkRange, Count,
// RemoveRanks, RemoveRange) in both encodings: bounded randomized runs against a sorted vector
// of (score, member) pairs, plus the edge cases of ranges (empty, inverted, open ends, offsets
// past the end) and the Redis quirk that a lex range over mixed scores is cut short.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "types/zset.h"

namespace redistp {
namespace {

using Pair = std::pair<double, std::string>;
using Enc = ZSetObject::Encoding;

TypeLimits LimitsFor(Enc enc) {
  TypeLimits l;
  l.zset_max_listpack_entries = enc == Enc::kSkiplist ? 0 : 1000;
  return l;
}

// Every pair in order, read through WalkRanks.
std::vector<Pair> AllByRank(const ZSetObject& z, bool reverse) {
  std::vector<Pair> out;
  if (z.size() == 0) return out;
  z.WalkRanks(0, z.size() - 1, reverse,
              [&](std::string_view m, double s) { out.emplace_back(s, std::string(m)); });
  return out;
}

template <typename Range>
std::vector<Pair> Walk(const ZSetObject& z, const Range& r, bool reverse, size_t offset,
                       int64_t limit) {
  std::vector<Pair> out;
  size_t calls = z.WalkRange(r, reverse, offset, limit, [&](std::string_view m, double s) {
    out.emplace_back(s, std::string(m));
  });
  EXPECT_EQ(calls, out.size());
  return out;
}

// The model's answer for a range walk: filter, reverse, offset, limit.
template <typename Pred>
std::vector<Pair> Expect(std::vector<Pair> model, Pred inside, bool reverse, size_t offset,
                         int64_t limit) {
  std::vector<Pair> in;
  for (const Pair& p : model) {
    if (inside(p)) in.push_back(p);
  }
  if (reverse) std::reverse(in.begin(), in.end());
  std::vector<Pair> out;
  for (size_t i = offset; i < in.size(); ++i) {
    if (limit >= 0 && out.size() == static_cast<size_t>(limit)) break;
    out.push_back(in[i]);
  }
  return out;
}

class ZSetRanges : public ::testing::TestWithParam<Enc> {};

TEST_P(ZSetRanges, RandomizedAgainstModel) {
  const TypeLimits limits = LimitsFor(GetParam());
  std::mt19937 rng(1234);
  for (int round = 0; round < 20; ++round) {
    ZSetObject z("m", limits);
    std::vector<Pair> model;
    const int n = 1 + static_cast<int>(rng() % 120);
    for (int i = 0; i < n; ++i) {
      std::string m = "m" + std::to_string(rng() % 200);
      double s = static_cast<double>(static_cast<int>(rng() % 21) - 10);
      if (z.Score(m)) continue;
      z.Add(m, s, limits);
      model.emplace_back(s, m);
    }
    std::sort(model.begin(), model.end());
    ASSERT_EQ(z.encoding(), GetParam());
    ASSERT_EQ(z.size(), model.size());
    EXPECT_EQ(AllByRank(z, false), model);
    std::vector<Pair> rev(model.rbegin(), model.rend());
    EXPECT_EQ(AllByRank(z, true), rev);
    for (size_t i = 0; i < model.size(); ++i) {
      EXPECT_EQ(z.Rank(model[i].second, false), i);
      EXPECT_EQ(z.Rank(model[i].second, true), model.size() - 1 - i);
    }
    EXPECT_FALSE(z.Rank("absent", false).has_value());

    for (int q = 0; q < 40; ++q) {
      // Rank sub-ranges.
      size_t a = rng() % model.size(), b = rng() % model.size();
      if (a > b) std::swap(a, b);
      std::vector<Pair> got;
      bool reverse = rng() % 2;
      z.WalkRanks(a, b, reverse,
                  [&](std::string_view m, double s) { got.emplace_back(s, std::string(m)); });
      std::vector<Pair>& src = reverse ? rev : model;
      EXPECT_EQ(got, std::vector<Pair>(src.begin() + a, src.begin() + b + 1));

      // Score ranges with random open ends, offsets and limits.
      ScoreRange r{static_cast<double>(static_cast<int>(rng() % 25) - 12),
                   static_cast<double>(static_cast<int>(rng() % 25) - 12), rng() % 2 == 0,
                   rng() % 2 == 0};
      size_t offset = rng() % 4;
      int64_t limit = static_cast<int64_t>(rng() % 6) - 1;
      auto in_score = [&](const Pair& p) { return r.Contains(p.first); };
      EXPECT_EQ(Walk(z, r, reverse, offset, limit), Expect(model, in_score, reverse, offset, limit))
          << r.min << " " << r.max << " off " << offset << " lim " << limit;
      EXPECT_EQ(z.Count(r), Expect(model, in_score, false, 0, -1).size());
    }
  }
}

TEST_P(ZSetRanges, LexRangesOverEqualScores) {
  const TypeLimits limits = LimitsFor(GetParam());
  ZSetObject z("a", limits);
  std::vector<std::string> ms = {"a", "b", "bb", "c", "d", "e"};
  for (const auto& m : ms) z.Add(m, 0, limits);
  auto members = [&](const LexRange& r, bool rev, size_t off, int64_t lim) {
    std::vector<std::string> out;
    for (const Pair& p : Walk(z, r, rev, off, lim)) out.push_back(p.second);
    return out;
  };
  using V = std::vector<std::string>;
  LexRange all{{LexBound::kNegInf, {}}, {LexBound::kPosInf, {}}};
  EXPECT_EQ(members(all, false, 0, -1), ms);
  EXPECT_EQ(members(all, true, 1, 2), (V{"d", "c"}));
  LexRange b_c{{LexBound::kInclusive, "b"}, {LexBound::kExclusive, "c"}};
  EXPECT_EQ(members(b_c, false, 0, -1), (V{"b", "bb"}));
  EXPECT_EQ(z.Count(b_c), 2u);
  LexRange open_b{{LexBound::kExclusive, "b"}, {LexBound::kInclusive, "d"}};
  EXPECT_EQ(members(open_b, true, 0, -1), (V{"d", "c", "bb"}));
  // Empty ranges: inverted, equal with an open end, "+" as the minimum.
  LexRange inverted{{LexBound::kInclusive, "d"}, {LexBound::kInclusive, "b"}};
  LexRange same_open{{LexBound::kExclusive, "c"}, {LexBound::kInclusive, "c"}};
  LexRange plus_min{{LexBound::kPosInf, {}}, {LexBound::kPosInf, {}}};
  for (const LexRange& r : {inverted, same_open, plus_min}) {
    EXPECT_TRUE(r.Empty());
    EXPECT_TRUE(members(r, false, 0, -1).empty());
    EXPECT_EQ(z.Count(r), 0u);
  }
  EXPECT_EQ(z.RemoveRange(b_c), 2u);
  EXPECT_EQ(z.size(), 4u);
  EXPECT_EQ(z.RemoveRange(all), 4u);
  EXPECT_EQ(z.size(), 0u);
}

TEST_P(ZSetRanges, RemoveRanksAndScores) {
  const TypeLimits limits = LimitsFor(GetParam());
  ZSetObject z("m0", limits);
  for (int i = 0; i < 50; ++i) z.Add("m" + std::to_string(i), i, limits);
  EXPECT_EQ(z.RemoveRanks(10, 19), 10u);
  EXPECT_EQ(z.size(), 40u);
  EXPECT_FALSE(z.Score("m10").has_value());
  EXPECT_FALSE(z.Score("m19").has_value());
  EXPECT_TRUE(z.Score("m20").has_value());
  EXPECT_EQ(z.Rank("m20", false), 10u);
  EXPECT_EQ(z.RemoveRange(ScoreRange{20, 30, true, false}), 10u);  // (20, 30]
  EXPECT_TRUE(z.Score("m20").has_value());
  EXPECT_FALSE(z.Score("m30").has_value());
  EXPECT_EQ(z.RemoveRange(ScoreRange{100, 200}), 0u);
  EXPECT_EQ(z.RemoveRange(ScoreRange{5, 5, true, false}), 0u);  // empty: open equal ends
  EXPECT_EQ(z.RemoveRanks(0, z.size() - 1), 30u);
  EXPECT_EQ(z.size(), 0u);
}

TEST_P(ZSetRanges, OffsetsPastTheEndAndInfinities) {
  const TypeLimits limits = LimitsFor(GetParam());
  ZSetObject z("a", limits);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  z.Add("a", -kInf, limits);
  z.Add("b", 1, limits);
  z.Add("c", kInf, limits);
  ScoreRange all{-kInf, kInf};
  EXPECT_EQ(Walk(z, all, false, 3, -1).size(), 0u);
  EXPECT_EQ(Walk(z, all, true, 2, -1), (std::vector<Pair>{{-kInf, "a"}}));
  EXPECT_EQ(Walk(z, all, false, 0, 0).size(), 0u);
  EXPECT_EQ(z.Count(all), 3u);
  EXPECT_EQ(z.Count(ScoreRange{-kInf, kInf, true, true}), 1u);
}

// Redis checks a lex range against the set's two ends before walking; over mixed scores
// (outside the lex contract) that cuts the walk short the same way in both encodings.
TEST_P(ZSetRanges, LexRangeOverMixedScoresChecksTheEnds) {
  const TypeLimits limits = LimitsFor(GetParam());
  ZSetObject z("x", limits);
  z.Add("x", 0, limits);
  z.Add("y", 0, limits);
  z.Add("a", 1, limits);  // last in (score, member) order, yet below "(x"
  LexRange above_x{{LexBound::kExclusive, "x"}, {LexBound::kPosInf, {}}};
  EXPECT_TRUE(Walk(z, above_x, false, 0, -1).empty());
}

TEST_P(ZSetRanges, UpsertLooksUpOnceAndFollowsTheDecision) {
  const TypeLimits limits = LimitsFor(GetParam());
  ZSetObject z("a", limits);
  using R = ZSetObject::AddResult;
  const double* seen = nullptr;
  double seen_value = 0;
  auto keep = [&](const double* cur) -> std::optional<double> {
    seen = cur;
    if (cur != nullptr) seen_value = *cur;
    return std::nullopt;
  };
  EXPECT_EQ(z.Upsert("a", limits, keep), R::kUnchanged);
  EXPECT_EQ(seen, nullptr);
  EXPECT_EQ(z.size(), 0u);
  EXPECT_EQ(z.Upsert("a", limits, [](const double*) { return std::optional<double>(2); }),
            R::kAdded);
  EXPECT_EQ(z.Upsert("a", limits, keep), R::kUnchanged);
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen_value, 2);
  EXPECT_EQ(z.Upsert("a", limits, [](const double* c) { return std::optional<double>(*c); }),
            R::kUnchanged);
  EXPECT_EQ(z.Upsert("a", limits, [](const double* c) { return std::optional<double>(*c - 5); }),
            R::kUpdated);
  EXPECT_EQ(z.Score("a"), -3);
  z.Add("b", 0, limits);
  EXPECT_EQ(z.Rank("a", false), 0u);
  EXPECT_EQ(z.encoding(), GetParam());
}

TEST(ZSetUpsert, ConvertsWhenANewMemberPassesTheLimits) {
  TypeLimits limits;
  limits.zset_max_listpack_entries = 2;
  limits.zset_max_listpack_value = 4;
  ZSetObject z("a", limits);
  auto one = [](const double*) { return std::optional<double>(1); };
  z.Upsert("a", limits, one);
  z.Upsert("b", limits, one);
  EXPECT_EQ(z.encoding(), Enc::kListpack);
  z.Upsert("c", limits, one);
  EXPECT_EQ(z.encoding(), Enc::kSkiplist);
  EXPECT_EQ(AllByRank(z, false), (std::vector<Pair>{{1, "a"}, {1, "b"}, {1, "c"}}));
  ZSetObject w("a", limits);
  w.Upsert("a", limits, one);
  w.Upsert("toolong", limits, one);
  EXPECT_EQ(w.encoding(), Enc::kSkiplist);
  EXPECT_EQ(w.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(BothEncodings, ZSetRanges,
                         ::testing::Values(Enc::kListpack, Enc::kSkiplist),
                         [](const ::testing::TestParamInfo<Enc>& info) {
                           return info.param == Enc::kListpack ? "listpack" : "skiplist";
                         });

TEST(ScoreText, StoresIntegralScoresAsIntegersAsRedis70) {
  char buf[32];
  EXPECT_EQ(std::string(buf, ScoreText(-0.0, buf)), "0");
  EXPECT_EQ(std::string(buf, ScoreText(1e17, buf)), "100000000000000000");
  EXPECT_EQ(std::string(buf, ScoreText(1e19, buf)), "1e+19");
  EXPECT_EQ(std::string(buf, ScoreText(2.5, buf)), "2.5");
}

}  // namespace
}  // namespace redistp
