// `pin` as the registry sees it: how fast each way of getting page-locked memory pins, what it
// costs a neighbouring process, the copies from each kind and the host's limits, as tables, a
// chart of rates and one of the neighbour's worst calls, the arena's goals and what to use; it
// prints the model.
#include <fmt/format.h>

#include "experiments/pin/analysis.hpp"
#include "framework/experiment.hpp"

namespace pinbench::experiments::pin {
namespace {

void build_pin(const RunRecord& r, ReportModel& m) {
  m.section = analyse_pin(r);
  const PinAnalysis& a = section<PinAnalysis>(m);
  m.title = fmt::format(
      "pinbench pin on {}: how fast this host pins, and what it costs a "
      "neighbour",
      r.machine.device_name.empty() ? "?" : r.machine.device_name);
  m.notes.push_back(a.advice);
  for (ReportTable& t : pin_tables(a)) m.tables.push_back(std::move(t));
  for (ChartSpec& c : pin_charts(a)) add_chart(m, std::move(c));
  m.verdicts.push_back(pin_goals(a));
}

ExperimentDescriptor pin_descriptor() {
  ExperimentDescriptor d{"pin", "pinbench pin", "Pinning", "pin run"};
  d.config_fields = fields_of<PinConfig>();
  // A case's extra: a pin's first GiB, its freeing, the arena's chunk, threads and longest call,
  // and the neighbour's calls meanwhile (measure.cpp).
  d.extra_fields = {{"first_gib_ms", FieldKind::kRatio},     {"free_ms", FieldKind::kRatio},
                    {"chunk_bytes", FieldKind::kSize},       {"threads", FieldKind::kCount},
                    {"longest_chunk_ms", FieldKind::kRatio}, {"nb_calls", FieldKind::kCount},
                    {"nb_p50_ms", FieldKind::kRatio},        {"nb_p99_ms", FieldKind::kRatio},
                    {"nb_max_ms", FieldKind::kRatio},        {"nb_free_max_ms", FieldKind::kRatio}};
  // The host's limits, facts, refusals and skips, and the neighbour idle (analysis.hpp).
  d.section_key = kPinSection;
  d.gates_meaning =
      "every pinning call succeeded and CUDA calls the first and last byte page-locked, and every "
      "copy delivered every byte.";
  return d;
}

class Pin final : public Experiment {
 public:
  Pin() : Experiment(pin_descriptor()) {}
  // A neighbour timing its calls every 2 ms shares the host with every pin: another period, or
  // none, is another load.
  std::vector<Condition> conditions(const RunRecord& r) const override {
    PinConfig c;
    get_fields(r.config, c);
    return {{"the neighbour's interval", c.neighbour_interval_us == 0
                                             ? std::string("no neighbour")
                                             : fmt::format("{} µs", c.neighbour_interval_us)}};
  }
  // The arena's chunk and threads tell two of its cases of one size apart.
  CaseShape case_shape(const Case& c) const override { return pin_case_shape(c); }
  nlohmann::json read_section(const nlohmann::json& section) const override {
    pin_section_from(section);
    return section;
  }
  // Its cases and section read as the analysis reads them: a bad field is refused at load.
  void validate(const RunRecord& record) const override { analyse_pin(record); }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_pin(record, model);
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Pin pin;
  return {&pin};
}

}  // namespace pinbench::experiments::pin
