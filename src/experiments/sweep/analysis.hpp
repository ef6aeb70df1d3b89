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

// What the sweep's printers read: every case's rates, and what pinning cost.
struct SweepAnalysis {
  std::vector<RateRow> rates;
  std::vector<PinCostRow> pin_cost;
};


}  // namespace pinbench
