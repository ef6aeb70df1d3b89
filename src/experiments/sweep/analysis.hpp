// Turning sweep records into rows: every case's rates (framework/rate_rows.hpp) and what pinning
// cost.
#pragma once

#include <cstdint>
#include <optional>
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
// Where the sweep put its host buffers (config.placement), where the record says.
std::optional<std::string> placement_from(const nlohmann::json& config);

struct SweepAnalysis {
  std::vector<RateRow> rates;
  std::vector<PinCostRow> pin_cost;
  std::optional<std::string> placement;
};

}  // namespace pinbench
