// How many samples a case gets, and why sampling stopped. No CUDA: the rule is tested anywhere.
#pragma once

#include <vector>

namespace pinbench {

// Sampling continues until the samples' relative spread (sample standard deviation over mean) is
// at most `max_spread`, or the time cap or sample cap is reached; never before `min_samples`.
struct StopRule {
  double max_spread = 0.01;
  double time_cap_ms = 500.0;
  int min_samples = 10;
  int max_samples = 2000;
};

enum class StopReason { kContinue, kSpread, kTimeCap, kSampleCap };
const char* to_string(StopReason r);  // "spread", "time cap", "sample cap"

// `elapsed_ms`: wall time spent on this case so far.
StopReason should_stop(const StopRule& rule, const std::vector<double>& samples_ms,
                       double elapsed_ms);

// Relative spread used by the stopping rule: stddev / mean, 0 for fewer than two samples.
double relative_spread(const std::vector<double>& samples_ms);

}  // namespace pinbench
