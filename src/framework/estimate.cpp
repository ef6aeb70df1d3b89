#include "framework/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "framework/stats.hpp"

namespace pinbench {
namespace {

// The largest k with P(Binomial(n, 1/2) <= k - 1) <= 0.025, or 0 when even k = 1 is too wide.
std::size_t order_statistic_rank(std::size_t n) {
  double tail = 0.0;                                    // P(B <= j), accumulated term by term
  double term = std::pow(0.5, static_cast<double>(n));  // P(B = 0)
  std::size_t k = 0;
  for (std::size_t j = 0; j < n; ++j) {
    tail += term;
    if (tail > 0.025) break;
    k = j + 1;
    term *= static_cast<double>(n - j) / static_cast<double>(j + 1);
  }
  return k;
}

}  // namespace

Estimate median_estimate(const std::vector<double>& samples) {
  if (samples.empty()) throw std::invalid_argument("estimate of no samples");
  std::vector<double> s = samples;
  std::sort(s.begin(), s.end());
  const std::size_t k = order_statistic_rank(s.size());
  Estimate e;
  e.mid = median(s);
  e.lo = k == 0 ? s.front() : s[k - 1];
  e.hi = k == 0 ? s.back() : s[s.size() - k];
  return e;
}

Estimate ratio_of(const Estimate& num, const Estimate& den) {
  if (!(den.lo > 0.0)) throw std::invalid_argument("ratio over an interval that reaches zero");
  return {num.lo / den.hi, num.mid / den.mid, num.hi / den.lo};
}

Estimate scaled(const Estimate& e, double factor) {
  return {e.lo * factor, e.mid * factor, e.hi * factor};
}

Verdict judge_at_least(const Estimate& e, double bound) {
  if (e.lo >= bound) return Verdict::kHeld;
  if (e.hi < bound) return Verdict::kDied;
  return Verdict::kUndecided;
}

Verdict judge_below(const Estimate& e, double bound) {
  if (e.hi < bound) return Verdict::kHeld;
  if (e.lo >= bound) return Verdict::kDied;
  return Verdict::kUndecided;
}

Verdict judge_within(const Estimate& e, double lo, double hi) {
  if (e.lo >= lo && e.hi <= hi) return Verdict::kHeld;
  if (e.hi < lo || e.lo > hi) return Verdict::kDied;
  return Verdict::kUndecided;
}

std::string describe(const Estimate& e, const char* spec, const char* unit) {
  const std::string mid = fmt::format(fmt::runtime(spec), e.mid);
  const std::string lo = fmt::format(fmt::runtime(spec), e.lo);
  const std::string hi = fmt::format(fmt::runtime(spec), e.hi);
  return fmt::format("{}{} ({}{} to {}{})", mid, unit, lo, unit, hi, unit);
}

}  // namespace pinbench
