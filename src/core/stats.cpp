#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace pinbench {

double mean(const std::vector<double>& xs) {
  if (xs.empty()) throw std::invalid_argument("mean of no samples");
  return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
}

double median(std::vector<double> xs) {
  if (xs.empty()) throw std::invalid_argument("median of no samples");
  std::sort(xs.begin(), xs.end());
  const std::size_t n = xs.size();
  return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2.0;
}

Summary summarize(const std::vector<double>& xs) {
  if (xs.empty()) throw std::invalid_argument("summary of no samples");
  Summary s;
  s.count = xs.size();
  s.mean = mean(xs);
  s.median = median(xs);
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  s.min = *lo;
  s.max = *hi;
  if (xs.size() > 1) {
    double sq = 0.0;
    for (double x : xs) sq += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(sq / static_cast<double>(xs.size() - 1));
  }
  s.rel_spread = s.median != 0.0 ? (s.max - s.min) / s.median : 0.0;
  return s;
}

}  // namespace pinbench
