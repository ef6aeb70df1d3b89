// Turning sweep records into rows: every case's rates (framework/rate_rows.hpp) and what pinning
// cost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/rate_rows.hpp"
#include "framework/record.hpp"

namespace pinbench {

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
