// LatencyHistogram: a per-command distribution of execution times, cheap enough to feed on
// every call.
//
// Model. Values are nanoseconds between 1 and 10^9 (smaller values count as 1, larger ones as
// 10^9: one second is the ceiling of what the distribution tells apart). Buckets are
// log-linear with two significant decimal digits of precision: values below 256 each have a
// bucket of their own; above, every power-of-two range [2^k, 2^(k+1)) is cut into 128 equal
// buckets, so a bucket's width is under 1% of the values it holds. That is 3,072 counters
// (24 KB) per histogram, allocated on the first sample and never again, so Record is a
// branch, a count-leading-zeros, two shifts and two increments: no allocation on the command
// path, and nothing is spent on commands nobody calls.
//
// Readers see a bucket through its range: the lowest and the highest value it stands for.
// Percentiles name the highest value of the bucket holding that rank (the lowest for the 0th
// percentile), and the cumulative view walks powers of two from 1024 ns, which is what Redis
// 7.0 reports in INFO latencystats and LATENCY HISTOGRAM.
//
// A histogram held in a copyable row (a command table row) is reset by copying: the copy is
// empty, so copying a row never shares or duplicates its samples.
#pragma once

#include <cstdint>
#include <memory>

#include "util/function_ref.h"

namespace redistp {

class LatencyHistogram {
 public:
  static constexpr uint64_t kMinValue = 1;
  static constexpr uint64_t kMaxValue = 1000000000;  // one second, in nanoseconds

  LatencyHistogram() = default;
  // A copy starts empty (see the essay above).
  LatencyHistogram(const LatencyHistogram&) {}
  LatencyHistogram& operator=(const LatencyHistogram&) {
    Reset();
    return *this;
  }

  // Counts one value (nanoseconds; clamped to [kMinValue, kMaxValue]). Allocates the buckets
  // on the first call only.
  void Record(uint64_t value_ns) {
    if (counts_ == nullptr) Allocate();
    if (value_ns < kMinValue) value_ns = kMinValue;
    if (value_ns > kMaxValue) value_ns = kMaxValue;
    ++counts_[IndexOf(value_ns)];
    ++total_;
  }

  // True once a value was recorded since the last Reset (Redis shows a command's distribution
  // only then).
  bool active() const { return counts_ != nullptr; }
  uint64_t total() const { return total_; }
  // Forgets every sample and frees the buckets.
  void Reset() {
    counts_.reset();
    total_ = 0;
  }

  // The value at `percentile` (0..100) of the samples: the highest value of the bucket that
  // holds the sample of that rank, or the lowest for percentile 0. 0 when empty.
  uint64_t ValueAtPercentile(double percentile) const;

  // The cumulative distribution at the levels 1024 ns * 2^k: calls fn(level_high, count) for
  // each level whose count of samples at or below it (its bucket included) is larger than the
  // previous level's; level_high is the highest value of the level's bucket. Stops at the
  // level that holds every sample.
  void ForEachPowerOfTwoLevel(FunctionRef<void(uint64_t level_high, uint64_t cumulative)> fn) const;

  // Bucket geometry, public for the unit test.
  static uint32_t IndexOf(uint64_t value) {
    if (value < 256) return static_cast<uint32_t>(value);
    // The top bit's position picks the power-of-two range; the next seven bits the bucket in it.
    const uint32_t top = 63 - static_cast<uint32_t>(__builtin_clzll(value));
    const uint32_t shift = top - 7;
    return 256 + (top - 8) * 128 + static_cast<uint32_t>((value >> shift) - 128);
  }
  static uint64_t LowestOf(uint32_t index);
  static uint64_t HighestOf(uint32_t index);
  static constexpr uint32_t kBuckets = 256 + 22 * 128;  // up to 2^30 > kMaxValue

 private:
  void Allocate();

  std::unique_ptr<uint64_t[]> counts_;
  uint64_t total_ = 0;
};

}  // namespace redistp
