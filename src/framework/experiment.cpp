#include "framework/experiment.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::vector<Condition> Experiment::conditions(const RunRecord&) const {
  return {};
}

std::vector<Condition> conditions_of(const RunRecord& record) {
  std::vector<Condition> out = {
      {"experiment", record.experiment},
      {"GPU model", record.machine.device_name.empty() ? "none" : record.machine.device_name}};
  for (Condition& c : experiment_for(record.experiment).conditions(record)) {
    out.push_back(std::move(c));
  }
  return out;
}

Condition methods_measured(const RunRecord& record) {
  std::set<std::string> methods;
  for (const Case& c : record.cases) methods.insert(c.method);
  return {"methods", methods.empty() ? "none" : fmt::format("{}", fmt::join(methods, ", "))};
}

namespace {

// The config's key a run that places host buffers writes (true where a record predates it).
struct PlacementConfig {
  bool place_on_gpu_node = true;
  static constexpr auto fields() {
    return std::make_tuple(
        field("place_on_gpu_node", &PlacementConfig::place_on_gpu_node, FieldKind::kFlag));
  }
};

}  // namespace

Condition host_placement(const RunRecord& record) {
  PlacementConfig c;
  get_fields(record.config, c);
  return {"host buffers on the GPU's NUMA node", c.place_on_gpu_node ? "asked" : "not asked"};
}

const Experiment& generic_experiment() {
  static const Generic generic;
  return generic;
}

}  // namespace pinbench
