// A copy record's cases as rates, one row per case of a part: rates from verified medians only,
// the spread and why sampling stopped. The sweep's tables and bandwidthtest's four copies read
// them.
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

// One row per case of `part` ("sweep", "bandwidthtest"), in record order.
std::vector<RateRow> rate_rows(const RunRecord& record, const std::string& part);

}  // namespace pinbench
