// The check's section: every GPU's rates, link and round trip with its verdict, every check with
// its limit, a chart of the rates, and the floors it was judged against.
#include "experiments/check/report.hpp"

#include <fmt/format.h>

#include "experiments/check/floors.hpp"
#include "framework/experiment.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::check {
namespace {

ReportTable check_items_table(const std::string& id, const std::string& title,
                              const std::vector<std::pair<std::string, const GpuCheck*>>& gpus) {
  ReportTable t;
  t.id = id;
  t.title = title;
  t.header = {"GPU", "check", "value", "limit", "result"};
  t.numeric = {false, false, true, false, false};
  t.key_columns = 2;  // a row is one GPU's one check
  for (const auto& [label, g] : gpus) {
    for (const CheckItem& i : g->items) {
      t.rows.push_back({label, i.check, i.value_text, i.limit_text,
                        !i.judged ? "not judged" : (i.passed ? "pass" : "FAIL")});
    }
  }
  return t;
}

// What the pin was, in a note: its size and method, and each GPU's free; or why there was none.
std::string pin_note(const CheckAnalysis& a) {
  if (!a.pin_asked) return "";
  if (*a.pin_asked == 0) return "Pin rate: not measured (--pin-bytes 0).";
  if (!a.pin_refused.empty()) {
    return fmt::format("Pin rate: {} was not attempted: {}.", format_size(*a.pin_asked),
                       a.pin_refused);
  }
  std::string frees;
  std::string sizes;
  for (const GpuCheck& g : a.gpus) {
    if (g.unpin_ms) {
      frees +=
          fmt::format("{}GPU {} {:.0f} ms", frees.empty() ? "" : ", ", g.gpu.index, *g.unpin_ms);
    }
    if (g.pin_bytes != 0 && g.pin_bytes != *a.pin_asked && sizes.empty()) {
      sizes = fmt::format(" ({} in one call: a per-call limit is below the {} asked)",
                          format_size(g.pin_bytes), format_size(*a.pin_asked));
    }
  }
  return fmt::format(
      "Pin rate: one cudaHostAlloc of {}{} per GPU with the GPU current, timed on the host clock "
      "from the call to its return, gated by cudaPointerGetAttributes on its first and last "
      "byte{}.",
      format_size(*a.pin_asked), sizes, frees.empty() ? "" : "; cudaFreeHost then took " + frees);
}

// The limits on pinning that bite on this host, one row each; none: a note says so.
void add_pin_limits(const CheckAnalysis& a, ReportModel& m) {
  if (!a.pin_limits_read) return;
  if (a.pin_warnings.empty()) {
    m.notes.push_back(
        "Limits on pinning (read before anything was pinned): none bites here (docs/fleet.md).");
    return;
  }
  ReportTable t;
  t.id = "check-pin-limits";
  t.title = "Limits on pinning that bite here (warnings, read before anything was pinned)";
  t.header = {"limit", "warning"};
  t.numeric = {false, false};
  for (const PinWarning& w : a.pin_warnings) t.rows.push_back({w.limit, w.warning});
  t.notes.push_back(
      "A warning fails no check: it names what would stop a program pinning more here "
      "(docs/fleet.md).");
  m.tables.push_back(std::move(t));
}

}  // namespace

std::string link_cell(const GpuInfo& g) {
  const PcieLink& l = g.loaded_read ? g.pcie_loaded : g.pcie;
  if (l.current_gen <= 0) return "unknown";
  return fmt::format("gen {} x{} / gen {} x{}{}", l.current_gen, l.current_width, g.pcie.max_gen,
                     g.pcie.max_width, g.loaded_read ? "" : " (idle)");
}

ChartSpec gpu_rate_chart(const std::string& id, const std::string& title,
                         const std::vector<std::pair<std::string, const GpuCheck*>>& gpus) {
  ChartSpec chart = rate_bar_chart(id, title);
  for (const auto& [label, g] : gpus) {
    chart.bars.push_back({label + " pinned h2d", "pinned", g->pinned_h2d, g->gpu.uuid});
    chart.bars.push_back({label + " pinned d2h", "pinned", g->pinned_d2h, g->gpu.uuid});
    chart.bars.push_back({label + " pageable h2d", "pageable", g->pageable_h2d, g->gpu.uuid});
    chart.bars.push_back({label + " pageable d2h", "pageable", g->pageable_d2h, g->gpu.uuid});
  }
  chart.caption = "Each GPU's median rates from its check; a missing bar is a failed gate.";
  return chart;
}

void build_check_section(const RunRecord& r, ReportModel& m) {
  m.section = analyse_check(r);
  const CheckAnalysis& a = section<CheckAnalysis>(m);
  m.title = fmt::format("pinbench check: {} GPU{} of host {}", a.gpus.size(),
                        a.gpus.size() == 1 ? "" : "s", a.hostname.empty() ? "unknown" : a.hostname);
  ReportTable t;
  t.id = "check-gpus";
  t.title =
      "Every GPU (pinned and pageable: median GB/s of 64 MiB copies; pin: GB/s of one "
      "cudaHostAlloc; round trip: 4 KiB pinned there and back, µs)";
  t.header = {
      "GPU",        "name",       "UUID",         "bus",          "NUMA", "link (loaded / max)",
      "pinned h2d", "pinned d2h", "pageable h2d", "pageable d2h", "pin",  "rt p50",
      "rt p99",     "verdict"};
  t.numeric = {true, false, false, false, true, false, true,
               true, true,  true,  true,  true, true,  false};
  std::vector<std::pair<std::string, const GpuCheck*>> labelled;
  for (const GpuCheck& g : a.gpus) {
    t.rows.push_back({std::to_string(g.gpu.index), g.gpu.name, g.gpu.uuid, g.gpu.pci_bus_id,
                      g.gpu.numa_node >= 0 ? std::to_string(g.gpu.numa_node) : "unknown",
                      link_cell(g.gpu), figure_cell(g.pinned_h2d), figure_cell(g.pinned_d2h),
                      figure_cell(g.pageable_h2d), figure_cell(g.pageable_d2h),
                      figure_cell(g.pin_gb_per_s), figure_cell(g.round_trip_p50_us, "{:.1f}"),
                      figure_cell(g.round_trip_p99_us, "{:.1f}"), g.passed() ? "pass" : "FAIL"});
    labelled.emplace_back(fmt::format("GPU {}", g.gpu.index), &g);
  }
  m.tables.push_back(std::move(t));
  m.tables.push_back(check_items_table("check-items", "Every check", labelled));
  if (!labelled.empty())
    m.charts.push_back(gpu_rate_chart("check-rates", "Rates by GPU", labelled));
  m.notes.push_back("Floors (docs/fleet.md): " + floors_words(a.floors) + ".");
  if (const std::string pin = pin_note(a); !pin.empty()) m.notes.push_back(pin);
  add_pin_limits(a, m);
  for (const std::string& f : a.failures()) m.check_failures.push_back(f);
  m.checks_passed = fmt::format(
      "All {} gates passed (every sample's bytes arrived exactly) and every judged check of every "
      "GPU passed.",
      r.gates.size());
}

}  // namespace pinbench::experiments::check
