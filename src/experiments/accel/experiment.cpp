// accel as the registry sees it: a record of what an unmodified program's copies did under
// `pinbench accel`, process by process; the model is its printer.
#include "framework/experiment.hpp"

#include "experiments/accel/report.hpp"
#include "experiments/accel/summary.hpp"
#include "framework/program_config.hpp"

namespace pinbench::experiments::accel {
namespace {

ExperimentDescriptor accel_descriptor() {
  ExperimentDescriptor d{"accel", "pinbench accel", "Accel", "accel run"};
  d.config_fields = fields_of<ProgramRecordConfig>();
  // What the program's copies did, process by process: its AccelRun (summary.hpp).
  d.section_key = pinbench::experiments::accel::kAccelSection;
  return d;
}

class Accel final : public Experiment {
 public:
  Accel() : Experiment(accel_descriptor()) {}
  void validate(const RunRecord& record) const override {
    const nlohmann::json& section = record.section(pinbench::experiments::accel::kAccelSection);
    if (!section.is_null()) pinbench::experiments::accel::accel_run_from_json(section);
  }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    pinbench::experiments::accel::build_accel_model(record, model);
  }
  // An accel record has no cases: what it routed, and how fast, is what two of them differ in.
  std::optional<ExperimentComparison> compare(const RunRecord& a,
                                              const RunRecord& b) const override {
    return pinbench::experiments::accel::compare_accel(a, b);
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Accel accel;
  return {&accel};
}

}  // namespace pinbench::experiments::accel
