// Summary statistics over timed samples. Exact and deterministic so tests can compare them
// with EXPECT_DOUBLE_EQ.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/enum_names.hpp"

namespace pinbench {

struct Summary {
  std::size_t count = 0;
  double mean = 0.0;
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  double stddev = 0.0;      // sample standard deviation (n - 1); 0 for fewer than two samples
  double rel_spread = 0.0;  // (max - min) / median; 0 when median is 0
};

double mean(const std::vector<double>& xs);
double median(std::vector<double> xs);  // middle value, or the mean of the middle two
// p in [0, 1], nearest rank: the smallest sample with at least p of the samples at or below it;
// 0 for no samples.
double percentile(std::vector<double> xs, double p);

// Throws std::invalid_argument on an empty sample set: a summary of nothing is a bug.
Summary summarize(const std::vector<double>& xs);

// Whether a case's samples, in the order they were taken, tell one story. A bimodal case (two
// clusters, as when the driver switches paths between samples) or a drifting one (a trend from
// the first samples to the last, as when clocks or caches warm up) has a median that describes
// neither state, so a verdict must not rest on it alone. Rules, in order:
//  - fewer than kMinStabilitySamples samples: too few to tell;
//  - bimodal: sorted, some split leaves at least max(2, 20%) of the samples on each side, the
//    two sides' medians lie at least 25% apart, and the gap between the sides is over 3 times
//    the larger side's median absolute deviation and over 10% of the overall median;
//  - drifting: the medians of the first and second half differ by over 10% of the overall
//    median, and the samples' rank correlation with their order is at least 0.6 in size;
//  - otherwise steady.
enum class Stability { kSteady, kBimodal, kDrifting, kTooFew };
inline constexpr EnumName<Stability> kStabilityNames[] = {{Stability::kSteady, "steady"},
                                                          {Stability::kBimodal, "bimodal"},
                                                          {Stability::kDrifting, "drifting"},
                                                          {Stability::kTooFew, "too few samples"}};
inline const char* to_string(Stability s) {
  return name_in(kStabilityNames, s);
}
constexpr std::size_t kMinStabilitySamples = 5;

struct StabilityCheck {
  Stability stability = Stability::kTooFew;
  std::string detail;  // the numbers behind a bimodal or drifting call; empty otherwise
  bool unstable() const {
    return stability == Stability::kBimodal || stability == Stability::kDrifting;
  }
};
StabilityCheck check_stability(const std::vector<double>& samples_in_order);

}  // namespace pinbench
