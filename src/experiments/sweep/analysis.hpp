// Turning sweep, bandwidthtest and race records into rows: rates from verified medians only,
// the spread and why sampling stopped, and the race's old/new byte counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/record.hpp"

namespace pinbench {

struct RateRow {
  std::string direction, memory, method, timing;
  std::uint64_t bytes = 0;
  std::size_t samples = 0;
  std::optional<double> median_gb_per_s, min_gb_per_s, max_gb_per_s;  // absent: gate failed
  double spread = 0.0;  // relative standard deviation of the times
  std::string stop;     // "spread", "time cap", "sample cap", "gate failed"
  std::optional<int> host_numa_node;
};

// One row per sweep or bandwidthtest case, in record order.
std::vector<RateRow> rate_rows(const RunRecord& record, const std::string& part);

struct PinCostRow {
  std::string memory, step;
  std::uint64_t bytes = 0;
  double median_ms = 0.0;
};
std::vector<PinCostRow> pin_cost_rows(const RunRecord& record);

struct RaceRow {
  std::string memory, method;
  std::uint64_t bytes = 0;
  double call_ms = 0.0;  // median time the call held the thread
  std::uint64_t old_words = 0, new_words = 0, other_words = 0;  // summed over trials
  int trials = 0;
  double new_fraction = 0.0;  // of all words, over all trials
};
std::vector<RaceRow> race_rows(const RunRecord& record);

}  // namespace pinbench
