// Order statistics and result lines; see stats.h.
#include "stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace coordbench {
namespace {

std::string FormatUs(double us) {
  char text[32];
  snprintf(text, sizeof(text), "%.1f", us);
  return text;
}

}  // namespace

double LatencySamples::PercentileUs(double p) {
  if (samples_ns_.empty()) return 0;
  if (!sorted_) {
    std::sort(samples_ns_.begin(), samples_ns_.end());
    sorted_ = true;
  }
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(size())));
  rank = std::clamp<size_t>(rank, 1, size());
  return static_cast<double>(samples_ns_[rank - 1]) / 1000.0;
}

double LatencySamples::MeanUs() const {
  if (samples_ns_.empty()) return 0;
  double sum = 0;
  for (int64_t ns : samples_ns_) sum += static_cast<double>(ns);
  return sum / static_cast<double>(size()) / 1000.0;
}

void PrintResult(const std::string& name, const std::string& kind,
                 const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string line = "result name=" + name + " kind=" + kind;
  for (const auto& [key, value] : fields) line += " " + key + "=" + value;
  printf("%s\n", line.c_str());
  fflush(stdout);
}

std::vector<std::pair<std::string, std::string>> LatencyFields(LatencySamples& samples) {
  return {{"n", std::to_string(samples.size())},
          {"p50_us", FormatUs(samples.PercentileUs(50))},
          {"p90_us", FormatUs(samples.PercentileUs(90))},
          {"p99_us", FormatUs(samples.PercentileUs(99))},
          {"max_us", FormatUs(samples.PercentileUs(100))},
          {"mean_us", FormatUs(samples.MeanUs())}};
}

}  // namespace coordbench
