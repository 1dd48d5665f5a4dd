// Unit tests for LatencyHistogram: bucket geometry (every value lands in a bucket whose range
// holds it, ranges tile the value space without gaps, widths stay under 1% of the values), the
// percentile and cumulative readers, and reset by copy.
#include "util/latency_histogram.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace redistp {
namespace {

TEST(LatencyHistogramTest, BucketsTileTheValueSpace) {
  uint64_t expected_low = 0;
  for (uint32_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    ASSERT_EQ(LatencyHistogram::LowestOf(i), expected_low) << i;
    ASSERT_GE(LatencyHistogram::HighestOf(i), LatencyHistogram::LowestOf(i));
    expected_low = LatencyHistogram::HighestOf(i) + 1;
  }
  EXPECT_GT(expected_low, LatencyHistogram::kMaxValue);
}

TEST(LatencyHistogramTest, EveryValueLandsInItsBucket) {
  for (uint64_t v : {1ULL, 2ULL, 255ULL, 256ULL, 257ULL, 1000ULL, 1023ULL, 1024ULL, 3000ULL,
                     65535ULL, 65536ULL, 999999ULL, 123456789ULL, 1000000000ULL}) {
    const uint32_t i = LatencyHistogram::IndexOf(v);
    ASSERT_LT(i, LatencyHistogram::kBuckets) << v;
    EXPECT_LE(LatencyHistogram::LowestOf(i), v);
    EXPECT_GE(LatencyHistogram::HighestOf(i), v);
    // Two significant digits: a bucket is narrower than 1% of its values.
    EXPECT_LT(LatencyHistogram::HighestOf(i) - LatencyHistogram::LowestOf(i),
              LatencyHistogram::LowestOf(i) / 100 + 1);
  }
  // One microsecond, as INFO latencystats prints it: 1.003.
  EXPECT_EQ(LatencyHistogram::HighestOf(LatencyHistogram::IndexOf(1000)), 1003u);
}

TEST(LatencyHistogramTest, PercentilesNameBucketEdges) {
  LatencyHistogram h;
  EXPECT_FALSE(h.active());
  EXPECT_EQ(h.ValueAtPercentile(50), 0u);
  for (int i = 0; i < 99; ++i) h.Record(3000);
  h.Record(61000);
  EXPECT_TRUE(h.active());
  EXPECT_EQ(h.total(), 100u);
  EXPECT_EQ(h.ValueAtPercentile(0), 2992u);  // the lowest value of the first bucket
  EXPECT_EQ(h.ValueAtPercentile(50), 3007u);
  EXPECT_EQ(h.ValueAtPercentile(99), 3007u);
  EXPECT_EQ(h.ValueAtPercentile(99.9), 61183u);
  EXPECT_EQ(h.ValueAtPercentile(100), 61183u);
}

TEST(LatencyHistogramTest, OutOfRangeValuesAreClamped) {
  LatencyHistogram h;
  h.Record(0);
  h.Record(5000000000ULL);
  EXPECT_EQ(h.ValueAtPercentile(0), 1u);
  EXPECT_GE(h.ValueAtPercentile(100), LatencyHistogram::kMaxValue);
}

TEST(LatencyHistogramTest, CumulativeLevelsArePowersOfTwo) {
  LatencyHistogram h;
  for (int i = 0; i < 6; ++i) h.Record(5000);  // 5 us: at or below the 8 us level
  h.Record(1000);                              // 1 us: the first level
  h.Record(20000);                             // 20 us: the 33 us level
  std::vector<std::pair<uint64_t, uint64_t>> levels;
  h.ForEachPowerOfTwoLevel([&](uint64_t high, uint64_t n) { levels.emplace_back(high / 1000, n); });
  const std::vector<std::pair<uint64_t, uint64_t>> want = {{1, 1}, {8, 7}, {33, 8}};
  EXPECT_EQ(levels, want);
}

TEST(LatencyHistogramTest, CopiesAndResetsAreEmpty) {
  LatencyHistogram h;
  h.Record(1000);
  LatencyHistogram copy(h);
  EXPECT_FALSE(copy.active());
  LatencyHistogram assigned;
  assigned.Record(2000);
  assigned = h;
  EXPECT_FALSE(assigned.active());
  EXPECT_EQ(assigned.total(), 0u);
  h.Reset();
  EXPECT_FALSE(h.active());
}

}  // namespace
}  // namespace redistp
