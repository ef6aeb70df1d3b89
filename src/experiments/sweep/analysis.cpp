#include "experiments/sweep/analysis.hpp"

#include "framework/stats.hpp"

namespace pinbench {

std::optional<std::string> placement_from(const nlohmann::json& config) {
  if (!config.contains("placement")) return std::nullopt;
  return config["placement"].get<std::string>();
}

std::vector<PinCostRow> pin_cost_rows(const RunRecord& record) {
  std::vector<PinCostRow> rows;
  for (const Case& c : record.cases) {
    if (c.part != "pin_cost" || c.samples_ms.empty()) continue;
    rows.push_back({c.memory, c.method, c.bytes, median(c.samples_ms)});
  }
  return rows;
}

}  // namespace pinbench
