#include "framework/experiment.hpp"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "framework/render/text.hpp"
#include "framework/report_tables.hpp"

namespace pinbench {
namespace {

// A record of an experiment no one registered (a test's made-up one, a record from a newer
// pinbench): the generic tables and rate charts, printed from the model.
class Generic final : public Experiment {
 public:
  std::string name() const override { return ""; }
  std::string label() const override { return "Run"; }
  std::string noun() const override { return "run"; }
};

}  // namespace

const std::vector<ConfigField>& Experiment::config_fields() const {
  static const std::vector<ConfigField> none;
  return none;
}

const std::vector<ConfigField>& Experiment::extra_fields() const {
  static const std::vector<ConfigField> none;
  return none;
}

CaseShape Experiment::case_shape(const Case&) const {
  return {};
}

const std::vector<ConfigField>& case_extra_fields() {
  static const std::vector<ConfigField> fields = [] {
    // What the framework itself reads of a case's extra: rate rows' host NUMA node, and the
    // stop reason that sweep records kept there before cases carried "stop" (record.cpp).
    std::vector<ConfigField> out = {{"host_numa_node", FieldKind::kCount},
                                    {"stop", FieldKind::kText}};
    for (const Experiment* e : all_experiments()) {
      for (const ConfigField& f : e->extra_fields()) {
        const bool known = std::any_of(out.begin(), out.end(), [&](const ConfigField& g) {
          return std::string_view(g.key) == f.key;
        });
        if (!known) out.push_back(f);
      }
    }
    return out;
  }();
  return fields;
}

void Experiment::validate(const RunRecord&) const {}

std::string Experiment::section_key() const {
  return "";
}

nlohmann::json Experiment::read_section(const nlohmann::json& section) const {
  return section;
}

std::optional<std::string> Experiment::range_gate(const std::vector<std::string>&) const {
  return std::nullopt;
}

void Experiment::analyse(const RunRecord& record, ReportModel& model) const {
  model.tables = report_tables(record);
  model.charts = rate_charts(record, true);
}

std::string Experiment::gates_meaning() const {
  return "every gated buffer is the memory kind it claims and every gated path moved its bytes "
         "exactly.";
}

std::string Experiment::text(const RunRecord&, const ReportModel& model, const TextOptions&) const {
  return render_model_text(model);  // its notes say INCOMPLETE where the run was cut
}

std::string Experiment::wall_time(const RunRecord& record, bool replayed) const {
  return fmt::format("{} wall time{}: {:.1f} s.", label(), replayed ? " (the recorded run's)" : "",
                     record.wall_ms / 1000.0);
}

std::optional<nlohmann::json> Experiment::timeline(const RunRecord&) const {
  return std::nullopt;
}

std::optional<ExperimentComparison> Experiment::compare(const RunRecord&, const RunRecord&) const {
  return std::nullopt;
}

const Experiment& generic_experiment() {
  static const Generic generic;
  return generic;
}

}  // namespace pinbench
