// LatencyHistogram's readers: bucket ranges, percentiles and the power-of-two cumulative view
// (the model is in latency_histogram.h).
#include "util/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace redistp {

void LatencyHistogram::Allocate() { counts_ = std::make_unique<uint64_t[]>(kBuckets); }

uint64_t LatencyHistogram::LowestOf(uint32_t index) {
  if (index < 256) return index;
  const uint32_t top = 8 + (index - 256) / 128;
  const uint64_t sub = 128 + (index - 256) % 128;
  return sub << (top - 7);
}

uint64_t LatencyHistogram::HighestOf(uint32_t index) {
  if (index < 256) return index;
  const uint32_t top = 8 + (index - 256) / 128;
  return LowestOf(index) + (uint64_t{1} << (top - 7)) - 1;
}

uint64_t LatencyHistogram::ValueAtPercentile(double percentile) const {
  if (total_ == 0) return 0;
  percentile = std::clamp(percentile, 0.0, 100.0);
  // The rank of the sample asked for, rounded to the nearest, and at least the first one.
  uint64_t rank = static_cast<uint64_t>(percentile / 100.0 * static_cast<double>(total_) + 0.5);
  rank = std::max<uint64_t>(rank, 1);
  uint64_t seen = 0;
  for (uint32_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) return percentile == 0.0 ? LowestOf(i) : HighestOf(i);
  }
  return HighestOf(kBuckets - 1);
}

void LatencyHistogram::ForEachPowerOfTwoLevel(
    FunctionRef<void(uint64_t level_high, uint64_t cumulative)> fn) const {
  if (total_ == 0) return;
  uint64_t seen = 0;      // samples in buckets up to `next` (exclusive)
  uint32_t next = 0;      // first bucket not yet counted
  uint64_t reported = 0;  // the cumulative count last reported
  for (uint64_t level = 1024;; level *= 2) {
    const uint32_t last = std::min(IndexOf(std::min(level, kMaxValue)), kBuckets - 1);
    for (; next <= last; ++next) seen += counts_[next];
    if (seen > reported) {
      fn(HighestOf(last), seen);
      reported = seen;
    }
    if (seen >= total_ || last == kBuckets - 1 || level >= kMaxValue) break;
  }
}

}  // namespace redistp
