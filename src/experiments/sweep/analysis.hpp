// Turning sweep records into rows: every case's rates (framework/rate_rows.hpp) and what pinning
// cost.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/config_schema.hpp"
#include "framework/rate_rows.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::sweep {

struct PinCostRow {
  std::string memory, step;
  std::uint64_t bytes = 0;
  double median_ms = 0.0;
};
std::vector<PinCostRow> pin_cost_rows(const RunRecord& record);

// What the printers read back of a sweep's config: where the sweep put its host buffers
// (measure.cpp), where the record says. Each field under its record key and kind, one list for
// writing, reading back and validating.
struct SweepRecordConfig {
  std::optional<std::string> placement;

  static constexpr auto fields() {
    return std::make_tuple(field("placement", &SweepRecordConfig::placement, FieldKind::kText));
  }
};
SweepRecordConfig sweep_config_from(const nlohmann::json& config);

// What the sweep's printers read: every case's rates, what pinning cost, and the placement.

struct SweepAnalysis {
  std::vector<RateRow> rates;
  std::vector<PinCostRow> pin_cost;
  std::optional<std::string> placement;
};

}  // namespace pinbench::experiments::sweep
