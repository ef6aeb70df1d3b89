// Rows of a record (record_rows.hpp): the report model's case lines and figures, as the CSV
// renders them, so the two never disagree.
#include "framework/record_rows.hpp"

#include <optional>
#include <string>
#include <unordered_map>

#include "framework/case_figures.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

nlohmann::ordered_json or_null(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json record_rows(const RunRecord& record) {
  // The case lines are the model's common part: no experiment's analysis changes them.
  const ReportModel model = common_model(record);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  // Each gate's detail by name, the last gate of a name as before: looked up once per case.
  std::unordered_map<std::string, const std::string*> details;
  for (const Gate& g : record.gates) details[g.name] = &g.detail;
  for (const CaseLine& line : model.cases) {
    const Case& c = *line.source;
    const CaseFigures f = figures_of(c);
    const std::optional<Estimate> e = verified_estimate(c);
    const auto detail = details.find(c.gate);
    const std::string gate_detail = detail == details.end() ? std::string() : *detail->second;
    nlohmann::ordered_json row = {
        {"experiment", record.experiment},
        {"created_utc", record.created_utc},
        {"pinbench_version", record.pinbench_version},
        {"device", record.machine.device_name},
        {"record_incomplete", record.incomplete},
        {"part", c.part},
        {"method", c.method},
        {"direction", c.direction},
        {"memory", c.memory},
        {"timing", c.timing},
        {"bytes", c.bytes},
        {"size", format_size(c.bytes)},
        {"warmups", c.warmups},
        {"samples", c.samples_ms.size()},
        {"samples_ms", c.samples_ms},
        {"median_ms", or_null(f.samples ? std::optional<double>(f.samples->median) : std::nullopt)},
        {"median_lo_ms", or_null(e ? std::optional<double>(e->lo) : std::nullopt)},
        {"median_hi_ms", or_null(e ? std::optional<double>(e->hi) : std::nullopt)},
        {"min_ms", or_null(f.samples ? std::optional<double>(f.samples->min) : std::nullopt)},
        {"max_ms", or_null(f.samples ? std::optional<double>(f.samples->max) : std::nullopt)},
        {"gb_per_s", or_null(f.gb_per_s)},
        {"call_median_ms", or_null(f.call_median_ms)},
        {"verified", c.verified},
        {"gate", c.gate},
        {"gate_detail", gate_detail},
        {"stop", line.stop},
        {"rel_spread", or_null(line.spread)},
        {"stability", f.samples ? nlohmann::ordered_json(to_string(line.stability.stability))
                                : nlohmann::ordered_json(nullptr)},
        {"stability_detail", line.stability.detail},
    };
    for (const auto& [key, value] : c.extra.items()) {
      row["extra." + key] = nlohmann::ordered_json::parse(value.dump());
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace pinbench
