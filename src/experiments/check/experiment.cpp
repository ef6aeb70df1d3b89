// The check as the registry sees it: its config (the floors are its own to validate), its model
// section; it prints the model itself. Its kinds are the check and the fleet (fleet/).
#include "framework/experiment.hpp"
#include "experiments/check/analysis.hpp"
#include "experiments/check/floors.hpp"
#include "experiments/check/pin_check.hpp"
#include "experiments/check/report.hpp"
#include "framework/host_pin_facts.hpp"
#include "framework/sampling.hpp"

namespace pinbench::experiments::check {
namespace {

ExperimentDescriptor check_descriptor() {
  ExperimentDescriptor d{kCheckExperiment, "pinbench check", "Check", "check"};
  d.config_fields = joined({sampling_fields(),
                            fields_of<CheckRecordConfig>(),
                            fields_of<CheckConfig>(),
                            // The limits on pinning as read (framework/host_pin_facts.hpp)
                            // and the warnings they gave (pin_check.hpp).
                            fields_of<HostPinFacts>(),
                            fields_of<PinWarningFields>(),
                            // The devices, written by hand (CheckConfig says why), the list of
                            // warnings, and a key today's check no longer writes.
                            {{"devices", FieldKind::kCounts},
                             {"pin_warnings", FieldKind::kObjects},
                             {"warmups", FieldKind::kCount}}});
  // A case's extra: the GPU it checked.
  d.extra_fields = {{"gpu", FieldKind::kCount}};
  return d;
}

class Check final : public Experiment {
 public:
  Check() : Experiment(check_descriptor()) {}
  std::vector<Condition> conditions(const RunRecord& r) const override {
    return {host_placement(r)};
  }
  void validate(const RunRecord& record) const override {
    // Refuses a bad floor or pin warning with one line naming it, at load, not later in the
    // analysis.
    check_config_from(record.config);
  }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_check_section(record, model);
  }
};

}  // namespace

// The fleet's records (fleet/experiment.cpp): many hosts' checks put together.
const Experiment& fleet_experiment();

std::vector<const Experiment*> kinds() {
  static const Check check;
  return {&check, &fleet_experiment()};
}

}  // namespace pinbench::experiments::check
