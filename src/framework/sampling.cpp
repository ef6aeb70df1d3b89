#include "framework/sampling.hpp"

#include "framework/errors.hpp"
#include "framework/stats.hpp"

namespace pinbench {

const std::vector<ConfigField>& sampling_fields() {
  static const std::vector<ConfigField> fields = fields_of<StopRule>();
  return fields;
}

StopRule StopRule::fixed(int n) {
  StopRule r;
  r.max_spread = 0.0;
  r.time_cap_ms = 0.0;
  r.min_samples = n;
  r.max_samples = n;
  return r;
}

void StopRule::validate() const {
  if (!(max_spread > 0.0)) throw InputError("the spread target must be above 0%");
  if (!(time_cap_ms > 0.0)) throw InputError("the time cap must be above 0 ms");
  if (min_samples < 2) throw InputError("at least 2 samples per case are needed");
  if (max_samples < min_samples) {
    throw InputError("the sample cap is below the minimum sample count");
  }
}

StopReason parse_stop_reason(std::string_view name) {
  return value_named(kStopReasonNames, name).value_or(StopReason::kContinue);
}

double relative_spread(const std::vector<double>& samples_ms) {
  if (samples_ms.size() < 2) return 0.0;
  const Summary s = summarize(samples_ms);
  return s.mean > 0.0 ? s.stddev / s.mean : 0.0;
}

StopReason should_stop(const StopRule& rule, const std::vector<double>& samples_ms,
                       double elapsed_ms) {
  const int n = static_cast<int>(samples_ms.size());
  if (rule.is_fixed()) return n >= rule.max_samples ? StopReason::kCount : StopReason::kContinue;
  if (n >= rule.max_samples) return StopReason::kSampleCap;
  if (n < rule.min_samples) {
    // Even the minimum yields to the time cap once there are two samples to summarise.
    return n >= 2 && elapsed_ms >= rule.time_cap_ms ? StopReason::kTimeCap : StopReason::kContinue;
  }
  if (relative_spread(samples_ms) <= rule.max_spread) return StopReason::kSpread;
  if (elapsed_ms >= rule.time_cap_ms) return StopReason::kTimeCap;
  return StopReason::kContinue;
}

}  // namespace pinbench
