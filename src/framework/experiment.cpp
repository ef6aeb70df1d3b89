// The interface's defaults, the generic experiment, and the conditions several experiments state.
// Nothing here asks an experiment: framework/by_experiment.cpp does.
#include "framework/experiment.hpp"

#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "framework/render/text.hpp"
#include "framework/report_tables.hpp"

namespace pinbench {

std::string Experiment::wall_time(const RunRecord& record, bool replayed) const {
  const ExperimentDescriptor& d = descriptor_;
  return fmt::format("{} wall time{}: {:.{}f} s{}.", d.label,
                     replayed ? " (the recorded run's)" : "", record.wall_ms / 1000.0,
                     d.wall_time_decimals,
                     d.wall_time_covers.empty() ? "" : " (" + d.wall_time_covers + ")");
}

nlohmann::json Experiment::read_section(const nlohmann::json& section) const {
  return section;
}

void Experiment::validate(const RunRecord&) const {}

void Experiment::analyse(const RunRecord& record, ReportModel& model) const {
  model.tables = report_tables(record);
  model.charts = rate_charts(record, true);
}

std::string Experiment::text(const RunRecord&, const ReportModel& model, const TextOptions&) const {
  return render_model_text(model);  // its notes say INCOMPLETE where the run was cut
}

CaseShape Experiment::case_shape(const Case&) const {
  return {};
}

std::optional<ExperimentComparison> Experiment::compare(const RunRecord&, const RunRecord&) const {
  return std::nullopt;
}

std::vector<Condition> Experiment::conditions(const RunRecord&) const {
  return {};
}

const Experiment& generic_experiment() {
  // A record of an experiment no one registered (a test's made-up one, a record from a newer
  // pinbench).
  static const Experiment generic(ExperimentDescriptor{"", "", "Run", "run"});
  return generic;
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

}  // namespace pinbench
