#include "experiments/sweep/analysis.hpp"

#include "framework/stats.hpp"

namespace pinbench::experiments::sweep {

SweepRecordConfig sweep_config_from(const nlohmann::json& config) {
  SweepRecordConfig c;
  get_fields(config, c);
  return c;
}

std::vector<PinCostRow> pin_cost_rows(const RunRecord& record) {
  std::vector<PinCostRow> rows;
  for (const Case& c : record.cases) {
    if (c.part != "pin_cost" || c.samples_ms.empty()) continue;
    rows.push_back({c.memory, c.method, c.bytes, median(c.samples_ms)});
  }
  return rows;
}

}  // namespace pinbench::experiments::sweep
