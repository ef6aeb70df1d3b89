// `host` as the registry sees it: every GPU alone and together, as tables and a chart of bars; it
// prints the model.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiments/host/analysis.hpp"
#include "framework/experiment.hpp"

namespace pinbench::experiments::host {
namespace {

void build_host(const RunRecord& r, ReportModel& m) {
  m.section = analyse_host(r);
  const HostAnalysis& a = section<HostAnalysis>(m);
  m.title = fmt::format("pinbench host: {} GPU{} of host {}", a.gpus, a.gpus == 1 ? "" : "s",
                        r.machine.hostname.empty() ? "?" : r.machine.hostname);
  m.tables = host_tables(a);
  ChartSpec chart = host_chart(a);
  add_chart(m, std::move(chart));
}

ExperimentDescriptor host_descriptor() {
  ExperimentDescriptor d{"host", "pinbench host", "Host", "host run"};
  d.config_fields = fields_of<HostConfig>();
  // A case's extra: its GPU, how many copied at once, and a peer case's peer and its access.
  d.extra_fields = {{"gpu", FieldKind::kCount},
                    {"gpus", FieldKind::kCount},
                    {"peer", FieldKind::kCount},
                    {"peer_access", FieldKind::kFlag}};
  return d;
}

class Host final : public Experiment {
 public:
  Host() : Experiment(host_descriptor()) {}
  // The GPUs copied to together share the host's memory and links: another set is another load.
  std::vector<Condition> conditions(const RunRecord& r) const override {
    HostConfig c;
    get_fields(r.config, c);
    return {
        {"GPUs", c.devices.empty() ? "every one" : fmt::format("{}", fmt::join(c.devices, ", "))},
        host_placement(r)};
  }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_host(record, model);
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Host host;
  return {&host};
}

}  // namespace pinbench::experiments::host
