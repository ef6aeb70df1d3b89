// doctor as the registry sees it: a record of what a program's copies did, its findings as the
// model's section, and its own timeline (the program's calls) for the HTML report. It prints the
// model itself.
#include "framework/experiment.hpp"
#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/compare.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/program_config.hpp"
#include "framework/render/perfetto.hpp"
#include "framework/trace_model.hpp"

namespace pinbench::experiments::doctor {
namespace {

class Doctor final : public Experiment {
 public:
  std::string name() const override { return "doctor"; }
  std::string command() const override { return "pinbench doctor"; }
  std::string label() const override { return "Doctor"; }
  std::string noun() const override { return "doctor run"; }
  bool copy_rates() const override { return true; }
  // The time lost is priced at the rates: two records priced from other rates are not compared.
  std::vector<Condition> conditions(const RunRecord& r) const override {
    DoctorRecordConfig c;
    get_fields(r.config, c);
    return {{"rates", c.rates_from.value_or("a calibration after the program exited")}};
  }
  const std::vector<ConfigField>& config_fields() const override {
    static const std::vector<ConfigField> fields =
        joined({fields_of<ProgramRecordConfig>(), fields_of<DoctorRecordConfig>()});
    return fields;
  }
  // A calibration case's extra: the copies of a small-copy case (its host NUMA node is the
  // framework's, case_extra_fields).
  const std::vector<ConfigField>& extra_fields() const override {
    static const std::vector<ConfigField> fields = {{"chunks", FieldKind::kCount}};
    return fields;
  }
  // What the program did: its DoctorTrace (trace.hpp), under its own name.
  std::string section_key() const override { return kDoctorSection; }
  void validate(const RunRecord& record) const override {
    // What the program did is the record's substance: a bad field is refused at load, named.
    const nlohmann::json& section = record.section(kDoctorSection);
    if (!section.is_null()) doctor_trace_from_json(section);
  }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_doctor_model(record, model);
  }
  std::optional<nlohmann::json> timeline(const RunRecord& record) const override {
    const nlohmann::json& section = record.section(kDoctorSection);
    if (section.is_null()) return std::nullopt;
    const Trace calls = doctor_timeline(doctor_trace_from_json(section));
    // A program that made no CUDA call, or whose calls doctor could not see, leaves nothing to
    // draw.
    if (calls.api_calls.empty() && calls.copies.empty() && calls.kernels.empty()) {
      return std::nullopt;
    }
    return perfetto_json(calls);
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
