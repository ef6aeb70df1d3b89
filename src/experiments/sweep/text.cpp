#include "experiments/sweep/text.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiments/sweep/analysis.hpp"
#include "framework/render/text.hpp"
#include "framework/render/text_table.hpp"
#include "framework/report_model.hpp"
#include "framework/skipped.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::sweep {
namespace {}  // namespace

std::string render_sweep_text(const RunRecord& record, const SweepAnalysis& a) {
  std::string out = "pinbench sweep: host-memory kinds, directions and copy methods\n\n";
  out += render_machine(record.machine);
  out += fmt::format("Record:  {} by pinbench {}\n", record.created_utc, record.pinbench_version);
  if (a.placement) out += fmt::format("Placement: {}\n", *a.placement);
  out += fmt::format(
      "Units:   GB/s = 10^9 bytes/s, MiB = 2^20 bytes. Rates from the median time; min and max "
      "rates from the slowest and fastest samples; spread = standard deviation / mean of the "
      "times. Timing 'latch' queues every sample behind a spin kernel; 'blocking' brackets each "
      "call with events because the driver may hold the host inside it. A dash marks a case "
      "whose byte check failed.\n");

  const std::vector<RateRow>& rows = a.rates;
  for (const char* dir : {"h2d", "d2h", "bidir-h2d", "bidir-d2h", "bidir-total"}) {
    TextTable t(
        {"memory", "method", "size", "GB/s", "min", "max", "spread", "samples", "stop", "timing"});
    bool any = false;
    for (const RateRow& r : rows) {
      if (r.direction != dir) continue;
      any = true;
      t.add_row({r.memory, r.method, format_size(r.bytes), figure_cell(r.median_gb_per_s),
                 figure_cell(r.min_gb_per_s), figure_cell(r.max_gb_per_s),
                 r.median_gb_per_s ? fmt::format("{:.2f}%", 100.0 * r.spread) : "—",
                 std::to_string(r.samples), r.stop, r.timing});
    }
    if (!any) continue;
    const std::string d = dir;
    const char* title = d == "h2d"         ? "Host to device"
                        : d == "d2h"       ? "Device to host"
                        : d == "bidir-h2d" ? "Both at once: the host-to-device half"
                        : d == "bidir-d2h" ? "Both at once: the device-to-host half"
                                           : "Both at once: total (bytes of both directions over "
                                             "the span from common start to last finish)";
    out += fmt::format("\n{}\n{}", title, t.render());
  }

  const std::vector<SkippedCase> skipped = skipped_from(record.config);
  if (!skipped.empty()) {
    // One line per memory kind, method and reason, not one per case: 54 cases skipped for one
    // reason read as one sentence with the directions and sizes it covers.
    struct Skipped {
      std::string memory, method, reason;
      std::vector<std::string> directions;
      std::uint64_t smallest = 0, largest = 0;
      std::size_t cases = 0;
    };
    std::vector<Skipped> groups;
    for (const SkippedCase& s : skipped) {
      const std::string& memory = s.memory;
      const std::string& method = s.method;
      const std::string& reason = s.reason;
      const std::string& direction = s.direction;
      const std::uint64_t bytes = s.bytes;
      auto g = std::find_if(groups.begin(), groups.end(), [&](const Skipped& k) {
        return k.memory == memory && k.method == method && k.reason == reason;
      });
      if (g == groups.end()) {
        groups.push_back({memory, method, reason, {}, bytes, bytes, 0});
        g = groups.end() - 1;
      }
      if (std::find(g->directions.begin(), g->directions.end(), direction) == g->directions.end())
        g->directions.push_back(direction);
      g->smallest = std::min(g->smallest, bytes);
      g->largest = std::max(g->largest, bytes);
      ++g->cases;
    }
    out += "\nNot measured\n";
    for (const Skipped& g : groups) {
      const std::string sizes = g.smallest == g.largest
                                    ? format_size(g.smallest)
                                    : format_size(g.smallest) + " to " + format_size(g.largest);
      out += fmt::format("  {} {}, {}, {} ({} {}): {}\n", g.memory, g.method,
                         fmt::join(g.directions, " "), sizes, g.cases,
                         g.cases == 1 ? "case" : "cases", g.reason);
    }
  }

  const std::vector<PinCostRow>& cost = a.pin_cost;
  if (!cost.empty()) {
    out += fmt::format("\nWhat pinning costs ({} each, median of the repetitions, host clock)\n",
                       format_size(cost.front().bytes));
    TextTable t({"memory", "step", "ms"});
    for (const PinCostRow& r : cost)
      t.add_row({r.memory, r.step, fmt::format("{:.1f}", r.median_ms)});
    out += t.render();
  }
  out += render_copy_gate_checks(record);
  return out;
}

}  // namespace pinbench::experiments::sweep
