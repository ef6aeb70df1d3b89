#include "framework/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace pinbench {

double mean(const std::vector<double>& xs) {
  if (xs.empty()) throw std::invalid_argument("mean of no samples");
  return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
}

double percentile(std::vector<double> xs, double p) {
  if (xs.empty()) return 0.0;
  const double rank = std::ceil(p * static_cast<double>(xs.size()));
  const std::size_t i =
      std::min(rank < 1.0 ? 0 : static_cast<std::size_t>(rank) - 1, xs.size() - 1);
  // The i-th smallest, without sorting the rest: a fleet takes two of these per GPU.
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(i), xs.end());
  return xs[i];
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

namespace {

// Median of the sorted run [first, last).
double sorted_median(const double* first, const double* last) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  return n % 2 == 1 ? first[n / 2] : (first[n / 2 - 1] + first[n / 2]) / 2.0;
}

// Median absolute deviation of the sorted run [first, last).
double sorted_mad(const double* first, const double* last) {
  const double m = sorted_median(first, last);
  std::vector<double> dev;
  dev.reserve(static_cast<std::size_t>(last - first));
  for (const double* x = first; x != last; ++x) dev.push_back(std::fabs(*x - m));
  return median(std::move(dev));
}

// Ranks 1..n, ties given their average rank.
std::vector<double> ranks(const std::vector<double>& xs) {
  std::vector<std::size_t> order(xs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return xs[a] < xs[b]; });
  std::vector<double> r(xs.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && xs[order[j + 1]] == xs[order[i]]) ++j;
    const double rank = (static_cast<double>(i + j) / 2.0) + 1.0;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = rank;
    i = j + 1;
  }
  return r;
}

// Spearman's rank correlation of the samples with the order they were taken in.
double order_correlation(const std::vector<double>& xs) {
  const std::vector<double> rx = ranks(xs);
  const double n = static_cast<double>(xs.size());
  const double mean_rank = (n + 1.0) / 2.0;
  double num = 0, den_x = 0, den_i = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double di = static_cast<double>(i + 1) - mean_rank;
    const double dx = rx[i] - mean_rank;
    num += di * dx;
    den_i += di * di;
    den_x += dx * dx;
  }
  return den_x > 0 && den_i > 0 ? num / std::sqrt(den_x * den_i) : 0.0;
}

}  // namespace

StabilityCheck check_stability(const std::vector<double>& samples_in_order) {
  StabilityCheck out;
  const std::size_t n = samples_in_order.size();
  if (n < kMinStabilitySamples) return out;
  const double overall = median(samples_in_order);

  std::vector<double> sorted = samples_in_order;
  std::sort(sorted.begin(), sorted.end());
  const double* v = sorted.data();
  const std::size_t least = std::max<std::size_t>(2, (n + 4) / 5);
  double best_gap = 0;
  std::size_t best_split = 0;
  for (std::size_t k = least; k + least <= n; ++k) {
    // The O(1) tests first: in a steady case almost no gap passes them, so the deviations (the
    // costly part) are computed for a handful of splits, not for every one.
    const double gap = v[k] - v[k - 1];
    if (gap <= best_gap || gap <= 0.1 * overall) continue;
    const double lo_med = sorted_median(v, v + k);
    const double hi_med = sorted_median(v + k, v + n);
    if (!(lo_med > 0) || hi_med < 1.25 * lo_med) continue;
    if (gap <= 3.0 * std::max(sorted_mad(v, v + k), sorted_mad(v + k, v + n))) continue;
    best_gap = gap;
    best_split = k;
  }
  if (best_split > 0) {
    out.stability = Stability::kBimodal;
    out.detail = fmt::format("{} samples near {:.4g} ms and {} near {:.4g} ms", best_split,
                             sorted_median(v, v + best_split), n - best_split,
                             sorted_median(v + best_split, v + n));
    return out;
  }

  const std::size_t half = n / 2;
  const double first =
      median({samples_in_order.begin(), samples_in_order.begin() + static_cast<long>(half)});
  const double second =
      median({samples_in_order.end() - static_cast<long>(half), samples_in_order.end()});
  const double rho = order_correlation(samples_in_order);
  if (overall > 0 && std::fabs(second - first) > 0.1 * overall && std::fabs(rho) >= 0.6) {
    out.stability = Stability::kDrifting;
    out.detail = fmt::format(
        "the first {} samples' median is {:.4g} ms, the last {}'s {:.4g} ms ({:+.0f}%), rank "
        "correlation with order {:.2f}",
        half, first, half, second, 100.0 * (second - first) / first, rho);
    return out;
  }
  out.stability = Stability::kSteady;
  return out;
}

}  // namespace pinbench
