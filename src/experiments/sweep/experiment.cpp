// The sweep as the registry sees it: its config, its model section (a table and a chart per
// direction and method, page-locked kinds apart from pageable ones, the bidirectional totals
// last, what pinning costs, what was not measured) and its printer.
#include <algorithm>

#include <fmt/format.h>

#include "experiments/sweep/analysis.hpp"
#include "experiments/sweep/plan.hpp"
#include "experiments/sweep/text.hpp"
#include "framework/experiment.hpp"
#include "framework/render/text.hpp"
#include "framework/report_tables.hpp"
#include "framework/sampling.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::sweep {
namespace {

bool page_locked(const std::string& memory) {
  return memory == "pinned" || memory == "registered" || memory == "write-combined" ||
         memory == "mapped";
}

// Each sweep chart split in two, side by side: the page-locked kinds, which all reach the
// link's rate and lie on one line, and the pageable kinds (pageable, transparent huge pages,
// managed), which on a shared scale would be flattened under them.
std::vector<ChartSpec> split_by_locking(const std::vector<ChartSpec>& charts) {
  std::vector<ChartSpec> out;
  for (const ChartSpec& chart : charts) {
    ChartSpec locked = chart, pageable = chart;
    locked.series.clear();
    pageable.series.clear();
    for (const ChartSeriesSpec& s : chart.series) {
      (page_locked(s.key) ? locked : pageable).series.push_back(s);
    }
    if (locked.series.empty() || pageable.series.empty()) {
      out.push_back(chart);
      continue;
    }
    locked.id += "-page-locked";
    locked.title += ": page-locked kinds";
    locked.caption +=
        " Page-locked kinds only: where they coincide, the copy engine reads every kind of "
        "page-locked memory at the link's rate.";
    pageable.id += "-pageable";
    pageable.title += ": pageable kinds";
    pageable.caption += " Pageable kinds only, on their own scale.";
    out.push_back(std::move(locked));
    out.push_back(std::move(pageable));
  }
  return out;
}

void build_sweep(const RunRecord& r, ReportModel& m) {
  m.section =
      SweepAnalysis{rate_rows(r, "sweep"), pin_cost_rows(r), sweep_config_from(r.config).placement};
  m.tables = report_tables(r);
  m.charts = split_by_locking(rate_charts(r, false));
  for (ChartSpec& c : m.charts) {
    if (c.id.find("-bidir-total") != std::string::npos) {
      c.caption +=
          " Both directions at once: the bytes of both over the span from the common start to "
          "the last finish, so about twice a single direction; drawn apart, on its own scale.";
    }
  }
  // The bidir totals last, each on its own chart, so the single directions lead.
  std::stable_partition(m.charts.begin(), m.charts.end(), [](const ChartSpec& c) {
    return c.id.find("-bidir-total") == std::string::npos;
  });
  const std::vector<PinCostRow>& cost = section<SweepAnalysis>(m).pin_cost;
  if (!cost.empty()) {
    ReportTable t;
    t.id = "pin-cost";
    t.title = fmt::format("What pinning costs ({} each, median of the repetitions, host clock)",
                          format_size(cost.front().bytes));
    t.header = {"memory", "step", "ms"};
    t.numeric = {false, false, true};
    for (const PinCostRow& row : cost) {
      t.rows.push_back({row.memory, row.step, fmt::format("{:.1f}", row.median_ms)});
    }
    m.tables.push_back(std::move(t));
  }
  add_skipped(r, m, keys_of<SweepSkip>());
}

ExperimentDescriptor sweep_descriptor() {
  ExperimentDescriptor d{"sweep", "pinbench sweep", "Sweep", "sweep"};
  d.copy_rates = true;
  d.config_fields = joined({sampling_fields(),
                            fields_of<SweepRecordConfig>(),
                            fields_of<SweepConfig>(),
                            fields_of<SweepSkip>(),  // each of "skipped"'s objects
                            // The list itself, built where written (measure.cpp), and two keys
                            // today's sweep no longer writes.
                            {
                                {"skipped", FieldKind::kObjects},
                                {"iterations", FieldKind::kCount},
                                {"timing", FieldKind::kText},
                            }});
  // A case's extra: the two gates a two-buffer case passed, whether its latch timed out, and
  // older records' spread.
  d.extra_fields = {{"gates", FieldKind::kTexts},
                    {"latch_timed_out", FieldKind::kFlag},
                    {"spread", FieldKind::kRatio}};
  // Its NVTX ranges are "sweep <kind>/<method> <dir> <kind>" (measure_cases.cpp), each checked
  // as sweep/<kind>/<method>.
  d.range_gates = {{"sweep {}", "sweep/{}"}};
  d.gates_meaning =
      "every sample of every case delivered exactly the reference bytes, and every buffer is the "
      "kind it claims.";
  return d;
}

class Sweep final : public Experiment {
 public:
  Sweep() : Experiment(sweep_descriptor()) {}
  std::vector<Condition> conditions(const RunRecord& r) const override {
    return {methods_measured(r), host_placement(r)};
  }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_sweep(record, model);
  }
  std::string text(const RunRecord& record, const ReportModel& model,
                   const TextOptions&) const override {
    return with_sampling(record, model, render_sweep_text(record, section<SweepAnalysis>(model)));
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Sweep sweep;
  return {&sweep};
}

}  // namespace pinbench::experiments::sweep
