// The fleet as the registry sees it: many hosts' check records put together, every GPU against
// the others of its model and link; it prints the model. A fleet record is put together, not
// measured, so no command measures it and a replay has nothing to fall back on.
#include <map>

#include <fmt/format.h>

#include "experiments/check/fleet/analysis.hpp"
#include "experiments/check/report.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"

namespace pinbench::experiments::check {
namespace {

// A chart of every GPU's rates reads up to this many GPUs; a larger fleet charts its flagged ones.
constexpr std::size_t kChartAllUpTo = 64;

// A host's limits on pinning that bite, by name ("memlock, per_call"); "none"; or "not read".
std::string pin_limits_cell(const FleetHost& h) {
  if (!h.pin_limits_read) return "not read";
  if (h.pin_warnings.empty()) return "none";
  std::string out;
  for (const PinWarning& w : h.pin_warnings) {
    if (out.find(w.limit) == std::string::npos) out += (out.empty() ? "" : ", ") + w.limit;
  }
  return out;
}

// One note per limit that bites somewhere: how many host records warn of it, and the first one's
// words, so a fleet of thousands says it in a few lines.
std::vector<std::string> pin_limit_notes(const FleetAnalysis& a) {
  std::vector<std::string> notes;
  for (const char* limit : kPinLimitIds) {
    std::size_t hosts = 0;
    const FleetHost* first = nullptr;
    const PinWarning* said = nullptr;
    for (const FleetHost& h : a.hosts) {
      for (const PinWarning& w : h.pin_warnings) {
        if (w.limit != limit) continue;
        ++hosts;
        if (first == nullptr) {
          first = &h;
          said = &w;
        }
        break;
      }
    }
    if (hosts == 0) continue;
    notes.push_back(
        fmt::format("Limit on pinning '{}' bites on {} host record{} (a warning, not a "
                    "flag); host {}: {}.",
                    limit, hosts, hosts == 1 ? "" : "s", first->host, said->warning));
  }
  return notes;
}

void build_fleet(const RunRecord& r, ReportModel& m) {
  m.section = analyse_fleet(fleet_members_from(r));
  const FleetAnalysis& a = section<FleetAnalysis>(m);
  m.title =
      fmt::format("pinbench fleet: {} GPU{} on {} host record{}", a.gpus.size(),
                  a.gpus.size() == 1 ? "" : "s", a.hosts.size(), a.hosts.size() == 1 ? "" : "s");
  m.figures_are = "Figures are each check's medians";
  // The fleet's own machine is only where it was put together; each GPU's is in its row.
  m.machine_line = fmt::format("{} host record{}, put together on host {}", a.hosts.size(),
                               a.hosts.size() == 1 ? "" : "s",
                               r.machine.hostname.empty() ? "?" : r.machine.hostname);
  m.machine = {{"Put together on", r.machine.hostname.empty() ? "?" : r.machine.hostname},
               {"Host records", std::to_string(a.hosts.size())}};
  ReportTable t;
  t.id = "fleet-gpus";
  t.title =
      "Every GPU (median GB/s; pin: GB/s of one cudaHostAlloc; round trip 4 KiB, µs); * marks a "
      "flagged GPU";
  t.header = {"host",       "GPU",        "UUID",         "group",        "link (loaded / max)",
              "pinned h2d", "pinned d2h", "pageable h2d", "pageable d2h", "pin",
              "rt p50",     "flags"};
  t.numeric = {false, true, false, false, false, true, true, true, true, true, true, true};
  t.key_columns = 2;  // a GPU is its host and index
  for (const FleetGpu& g : a.gpus) {
    const GpuCheck& c = g.check;
    t.rows.push_back({g.host, std::to_string(c.gpu.index) + (g.flags.empty() ? "" : " *"),
                      c.gpu.uuid, g.group, link_cell(c.gpu), figure_cell(c.pinned_h2d),
                      figure_cell(c.pinned_d2h), figure_cell(c.pageable_h2d),
                      figure_cell(c.pageable_d2h), figure_cell(c.pin_gb_per_s),
                      figure_cell(c.round_trip_p50_us, "{:.1f}"), std::to_string(g.flags.size())});
  }
  t.notes.push_back(
      "Outliers: below the median of the same GPU model and link by more than max(3 scaled MADs, "
      "10%) on a rate (the pin rate too), above it by more than max(3 scaled MADs, 25%) on the "
      "round trip; groups of fewer than 3 are not judged (docs/fleet.md).");
  for (const std::string& n : a.notes) t.notes.push_back(n);
  m.tables.push_back(std::move(t));
  if (!a.duplicates.empty()) {
    // One column per fact, so the table is as wide as its longest names and no wider.
    ReportTable d{"fleet-duplicates",
                  "Duplicates (same host and GPU UUID)",
                  {"host", "GPU", "UUID", "in", "counted once, from"},
                  {false, true, false, false, false},
                  a.duplicate_rows,
                  {},
                  {}};
    d.key_columns = 2;
    m.tables.push_back(std::move(d));
  }
  ReportTable h;
  h.id = "fleet-hosts";
  h.title = "Host records";
  h.header = {"host", "record", "GPUs", "limits on pinning that bite"};
  h.numeric = {false, false, false, false};
  std::map<std::string, std::size_t> gpus_of;
  for (const FleetGpu& g : a.gpus) ++gpus_of[g.host];
  for (const FleetHost& fh : a.hosts) {
    const std::size_t n = gpus_of[fh.host];
    h.rows.push_back({fh.host, fh.source,
                      fh.no_gpu.empty() ? std::to_string(n) : "none: " + fh.no_gpu,
                      pin_limits_cell(fh)});
  }
  for (const std::string& n : pin_limit_notes(a)) h.notes.push_back(n);
  m.tables.push_back(std::move(h));
  std::vector<std::pair<std::string, const GpuCheck*>> labelled;
  const bool all = a.gpus.size() <= kChartAllUpTo;
  for (const FleetGpu& g : a.gpus) {
    if (!all && g.flags.empty()) continue;
    labelled.emplace_back(fmt::format("{} GPU {}", g.host, g.check.gpu.index), &g.check);
  }
  if (!labelled.empty()) {
    m.charts.push_back(gpu_rate_chart(
        "fleet-rates",
        all ? std::string("Rates by GPU")
            : fmt::format("Rates of the {} flagged GPUs (of {})", labelled.size(), a.gpus.size()),
        labelled));
  }
  m.check_failures = a.flagged();
  m.checks_passed = fmt::format("Nothing flagged: {} GPU{}, every check passed, no outlier.",
                                a.gpus.size(), a.gpus.size() == 1 ? "" : "s");
}

ExperimentDescriptor fleet_descriptor() {
  ExperimentDescriptor d{kFleetExperiment, "pinbench fleet", "Fleet", "fleet"};
  d.config_fields = joined({fields_of<FleetRecordConfig>(),
                            // Each host's pin and the limits' warnings (pin_check.hpp).
                            fields_of<FleetHostPin>(),
                            fields_of<PinWarningFields>(),
                            // Each host's check, written as a whole (fleet_members_to_json), and
                            // when it ran.
                            {{"hosts", FieldKind::kObjects},
                             {"created_utc", FieldKind::kTimestamp},
                             {"pin_warnings", FieldKind::kObjects}}});
  // A fleet record of pinbench 0.1 holds its check records whole, under "members".
  d.section_key = kMembersSection;
  return d;
}

class Fleet final : public Experiment {
 public:
  Fleet() : Experiment(fleet_descriptor()) {}
  nlohmann::json read_section(const nlohmann::json& members) const override {
    return read_members(members);
  }
  // Each host's rows read as the analysis reads them: a bad row is refused at load, naming it.
  // A fleet of no host would read "nothing flagged" of nothing checked.
  void validate(const RunRecord& record) const override {
    if (fleet_members_from(record).empty()) {
      refuse_field("config.hosts", "holds no host: a fleet record of no check says nothing");
    }
  }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_fleet(record, model);
  }
};

}  // namespace

const Experiment& fleet_experiment() {
  static const Fleet fleet;
  return fleet;
}

}  // namespace pinbench::experiments::check
