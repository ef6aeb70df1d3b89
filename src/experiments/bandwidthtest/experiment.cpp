// NVIDIA's bandwidthtest as the registry sees it: four copies (pageable and pinned, both ways),
// printed as the blog's program prints them, and charted as bars.
#include <fmt/format.h>

#include "experiments/bandwidthtest/plan.hpp"
#include "framework/experiment.hpp"
#include "framework/printable.hpp"
#include "framework/rate_rows.hpp"
#include "framework/render/text.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::bandwidthtest {
namespace {

void build_bandwidthtest(const RunRecord& r, ReportModel& m) {
  m.tables = report_tables(r);
  m.section = rate_rows(r, "bandwidthtest");
  const auto& rows = section<std::vector<RateRow>>(m);
  ChartSpec chart;
  chart.kind = ChartKind::kBars;
  chart.id = "bandwidthtest-rates";
  chart.title = rows.empty() ? std::string("bandwidthtest")
                             : fmt::format("bandwidthtest: {} copies, pageable against pinned",
                                           format_size(rows.front().bytes));
  chart.axis_title = "median rate (GB/s = 10^9 bytes/s)";
  chart.value_suffix = " GB/s";
  for (const char* direction : {"h2d", "d2h"}) {
    for (const char* memory : {"pageable", "pinned"}) {
      for (const RateRow& row : rows) {
        if (row.direction != direction || row.memory != memory) continue;
        chart.bars.push_back(
            {fmt::format("{}, {}", direction_words(direction), memory), memory, row.median_gb_per_s,
             fmt::format("{} samples of {}", row.samples, format_size(row.bytes))});
      }
    }
  }
  add_chart(
      m, std::move(chart),
      "The median rate of each of the four copies CUDA's bandwidthTest sample makes: pageable "
      "and pinned host memory, each direction. The gap between each pair is what pinning buys.");
}

std::string render_bandwidthtest_text(const RunRecord& record, const std::vector<RateRow>& rows) {
  std::string out = fmt::format("\nDevice: {}\n", printable(record.machine.device_name));
  if (!rows.empty()) {
    out += fmt::format("Transfer size (MiB): {:g}\n",
                       static_cast<double>(rows.front().bytes) / static_cast<double>(kMiB));
  }
  for (const char* memory : {"pageable", "pinned"}) {
    std::string block;
    for (const RateRow& r : rows) {
      if (r.memory != memory) continue;
      block += fmt::format("  {} bandwidth (GB/s): {}\n",
                           r.direction == "h2d" ? "Host to Device" : "Device to Host",
                           r.median_gb_per_s ? fmt::format("{:.6f}", *r.median_gb_per_s)
                                             : std::string("— (copied-back data differs)"));
    }
    if (block.empty()) continue;
    out += fmt::format("\n{} transfers\n{}", memory[1] == 'a' ? "Pageable" : "Pinned", block);
  }
  for (const Gate& g : record.gates) {
    if (!g.passed) out += fmt::format("*** {} transfers failed: {} ***\n", g.name, g.detail);
  }
  return out;
}

ExperimentDescriptor bandwidthtest_descriptor() {
  ExperimentDescriptor d{"bandwidthtest", "pinbench bandwidthtest", "Bandwidthtest",
                         "bandwidthtest"};
  d.copy_rates = true;
  d.config_fields = fields_of<BandwidthTestConfig>();
  return d;
}

class BandwidthTest final : public Experiment {
 public:
  BandwidthTest() : Experiment(bandwidthtest_descriptor()) {}
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_bandwidthtest(record, model);
  }
  std::string text(const RunRecord& record, const ReportModel& model,
                   const TextOptions&) const override {
    return with_sampling(
        record, model,
        render_bandwidthtest_text(record, section<std::vector<RateRow>>(model)) +
            render_gate_checks(record,
                               "both buffers are the kind they claim, and the copies' bytes "
                               "arrived exactly."));
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const BandwidthTest bandwidthtest;
  return {&bandwidthtest};
}

}  // namespace pinbench::experiments::bandwidthtest
