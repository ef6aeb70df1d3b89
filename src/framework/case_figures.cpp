#include "framework/case_figures.hpp"

#include "framework/units.hpp"

namespace pinbench {

CaseFigures figures_of(const Case& c) {
  CaseFigures f;
  if (!c.verified || c.samples_ms.empty()) return f;
  f.samples = summarize(c.samples_ms);
  if (f.samples->median > 0.0) f.gb_per_s = gb_per_s(c.bytes, f.samples->median);
  if (!c.call_ms.empty()) f.call_median_ms = median(c.call_ms);
  return f;
}

std::optional<Estimate> verified_estimate(const Case& c) {
  if (!c.verified || c.samples_ms.empty()) return std::nullopt;
  return median_estimate(c.samples_ms);
}

std::optional<double> verified_median(const Case& c) {
  if (!c.verified || c.samples_ms.empty()) return std::nullopt;
  return median(c.samples_ms);
}

std::uint64_t extra_u64(const Case& c, const char* key, std::uint64_t fallback) {
  const auto it = c.extra.find(key);
  return it != c.extra.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : fallback;
}

int extra_int(const Case& c, const char* key, int fallback) {
  const auto it = c.extra.find(key);
  return it != c.extra.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

}  // namespace pinbench
