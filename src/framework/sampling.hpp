// How many samples a case gets, and why sampling stopped. No CUDA: the rule is tested anywhere.
//
// Two rules share one type. A fixed count (the lesson's 3 warm-ups + 10 timed, the page's method)
// stops at exactly `max_samples`. The sweep's rule keeps sampling until the samples' relative
// spread is small enough, or a time or sample cap is reached, never before `min_samples`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/enum_names.hpp"
#include "framework/config_schema.hpp"

namespace pinbench {

struct StopRule {
  double max_spread = 0.01;  // 0: a fixed count of max_samples, whatever the spread
  double time_cap_ms = 500.0;
  int min_samples = 10;
  int max_samples = 2000;

  // Exactly `n` samples: no spread target and no time cap.
  static StopRule fixed(int n);

  // The rule as a config holds it (put_fields), each key once, for every experiment that samples
  // with it (sampling_fields).
  static constexpr auto fields() {
    return std::make_tuple(field("min_samples", &StopRule::min_samples, FieldKind::kCount),
                           field("max_samples", &StopRule::max_samples, FieldKind::kCount),
                           field("max_spread", &StopRule::max_spread, FieldKind::kRatio),
                           field("time_cap_ms", &StopRule::time_cap_ms, FieldKind::kRatio));
  }
  bool is_fixed() const { return max_spread <= 0.0; }
  // A rule asked for on the command line, as the sweep's and blocks' are: a spread target and a
  // time cap above 0, at least 2 samples, the cap not below the minimum. Throws InputError.
  void validate() const;
};

// The sampler's rules (StopRule's fields), in the config of every experiment that samples with
// it.
const std::vector<ConfigField>& sampling_fields();

// Why a case's sampling stopped. kCount: a fixed count was reached; kGateFailed: a sample's bytes
// were wrong, so there was nothing more worth timing.
enum class StopReason { kContinue, kCount, kSpread, kTimeCap, kSampleCap, kGateFailed };
// The names records carry.
inline constexpr EnumName<StopReason> kStopReasonNames[] = {
    {StopReason::kContinue, "continue"},    {StopReason::kCount, "count"},
    {StopReason::kSpread, "spread"},        {StopReason::kTimeCap, "time cap"},
    {StopReason::kSampleCap, "sample cap"}, {StopReason::kGateFailed, "gate failed"}};
inline const char* to_string(StopReason r) {
  return name_in(kStopReasonNames, r);
}
// The reverse of to_string; kContinue for a name it does not know (a record from before stop
// reasons were written says nothing, and nothing is what the reader gets).
StopReason parse_stop_reason(std::string_view name);

// `elapsed_ms`: wall time spent on this case so far.
StopReason should_stop(const StopRule& rule, const std::vector<double>& samples_ms,
                       double elapsed_ms);

// Relative spread used by the stopping rule: stddev / mean, 0 for fewer than two samples.
double relative_spread(const std::vector<double>& samples_ms);

}  // namespace pinbench
