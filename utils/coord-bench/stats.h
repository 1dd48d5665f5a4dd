// Latency samples and the one-line result format the benchmark script reads.
//
// A run collects durations in nanoseconds and reports order statistics by nearest rank (the
// p-th percentile is the smallest sample with at least p% of the samples at or below it), so
// every reported figure is a latency that really occurred. Results go to stdout as one line per
// measured target: `result name=<target> kind=<benchmark> key=value ...`; microseconds carry
// a `_us` suffix. Diagnostics go to stderr.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace coordbench {

class LatencySamples {
 public:
  void Add(int64_t ns) { samples_ns_.push_back(ns); }
  size_t size() const { return samples_ns_.size(); }
  // Sorts the samples (once) and returns the nearest-rank percentile in microseconds; 0 when
  // there are no samples. `p` is in (0, 100].
  double PercentileUs(double p);
  double MeanUs() const;

 private:
  std::vector<int64_t> samples_ns_;
  bool sorted_ = false;
};

// Prints `result name=<name> kind=<kind>` followed by the fields, in order, and a newline, then
// flushes stdout.
void PrintResult(const std::string& name, const std::string& kind,
                 const std::vector<std::pair<std::string, std::string>>& fields);

// The standard latency fields of a sample set: n, p50_us, p90_us, p99_us, max_us, mean_us.
std::vector<std::pair<std::string, std::string>> LatencyFields(LatencySamples& samples);

}  // namespace coordbench
