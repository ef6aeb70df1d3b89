// doctor as the registry sees it: a record of what a program's copies did, its findings as the
// model's section (with its own timeline, the program's calls, for the HTML report: report.cpp).
// It prints the model itself.
#include "framework/experiment.hpp"
#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/compare.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/program_config.hpp"

namespace pinbench::experiments::doctor {
namespace {

ExperimentDescriptor doctor_descriptor() {
  ExperimentDescriptor d{"doctor", "pinbench doctor", "Doctor", "doctor run"};
  d.copy_rates = true;
  d.config_fields = joined({fields_of<ProgramRecordConfig>(), fields_of<DoctorRecordConfig>()});
  // A calibration case's extra: the copies of a small-copy case (its host NUMA node is the
  // framework's, framework_extra_fields).
  d.extra_fields = {{"chunks", FieldKind::kCount}};
  // What the program did: its DoctorTrace (trace.hpp), under its own name.
  d.section_key = kDoctorSection;
  return d;
}

class Doctor final : public Experiment {
 public:
  Doctor() : Experiment(doctor_descriptor()) {}
  // The time lost is priced at the rates: two records priced from other rates are not compared.
  std::vector<Condition> conditions(const RunRecord& r) const override {
    DoctorRecordConfig c;
    get_fields(r.config, c);
    return {{"rates", c.rates_from.value_or("a calibration after the program exited")}};
  }
  void validate(const RunRecord& record) const override {
    // What the program did is the record's substance: a bad field is refused at load, named.
    const nlohmann::json& section = record.section(kDoctorSection);
    if (!section.is_null()) doctor_trace_from_json(section);
  }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_doctor_model(record, model);
  }
  std::optional<ExperimentComparison> compare(const RunRecord& a,
                                              const RunRecord& b) const override {
    const DoctorComparison c = compare_doctor(a, b);
    return ExperimentComparison{render_doctor_comparison(c), c.worse()};
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Doctor doctor;
  return {&doctor};
}

}  // namespace pinbench::experiments::doctor
