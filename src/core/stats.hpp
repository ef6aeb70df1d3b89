// Summary statistics over timed samples. Exact and deterministic so tests can compare them
// with EXPECT_DOUBLE_EQ.
#pragma once

#include <cstddef>
#include <vector>

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

// Throws std::invalid_argument on an empty sample set: a summary of nothing is a bug.
Summary summarize(const std::vector<double>& xs);

}  // namespace pinbench
