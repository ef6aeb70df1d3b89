// The figures every report shows for one case, in one place so the HTML, markdown, CSV and
// comparison can never disagree: a case whose gate failed, or that has no samples, has no
// figures at all, so a rate whose bytes were wrong cannot reach a table, a chart or a ratio.
#pragma once

#include <cstdint>
#include <optional>

#include "framework/estimate.hpp"
#include "framework/record.hpp"
#include "framework/stats.hpp"

namespace pinbench {

struct CaseFigures {
  std::optional<Summary> samples;        // over samples_ms
  std::optional<double> gb_per_s;        // bytes / median sample
  std::optional<double> call_median_ms;  // median of call_ms, for host-clock async cases
};

CaseFigures figures_of(const Case& c);

// The median time with the interval its samples allow, under the same rule: nothing for a case
// whose gate failed or that has no samples. Every verdict on a case is judged on this.
std::optional<Estimate> verified_estimate(const Case& c);

// The median of the case's samples, under the same rule.
std::optional<double> verified_median(const Case& c);

// A whole number from the case's extra, or `fallback` where the key is absent or holds another
// kind of value.
std::uint64_t extra_u64(const Case& c, const char* key, std::uint64_t fallback = 0);
int extra_int(const Case& c, const char* key, int fallback = 0);

}  // namespace pinbench
