#include "experiments/sweep/text.hpp"

#include <fmt/format.h>

#include "experiments/sweep/analysis.hpp"
#include "framework/units.hpp"
#include "experiments/lesson/text.hpp"
#include "framework/render/text_table.hpp"

namespace pinbench {
namespace {

std::string rate(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}", *v) : std::string("—");
}

std::string failed_gates(const RunRecord& record) {
  std::string out;
  for (const Gate& g : record.gates) {
    if (!g.passed) out += fmt::format("  FAILED: gate {}: {}\n", g.name, g.detail);
  }
  return out;
}

std::string checks_line(const RunRecord& record) {
  const std::string failed = failed_gates(record);
  if (!failed.empty()) return "\nChecks\n" + failed;
  return fmt::format(
      "\nChecks\n  Passed ({} gates): every sample of every case delivered "
      "exactly the reference bytes, and every buffer is the kind it claims.\n",
      record.gates.size());
}

}  // namespace

std::string render_sweep_text(const RunRecord& record) {
  std::string out = "pinbench sweep: host-memory kinds, directions and copy methods\n\n";
  out += render_machine(record.machine);
  out += fmt::format("Record:  {} by pinbench {}\n", record.created_utc, record.pinbench_version);
  if (record.config.contains("placement")) {
    out += fmt::format("Placement: {}\n", record.config["placement"].get<std::string>());
  }
  out += fmt::format(
      "Units:   GB/s = 10^9 bytes/s, MiB = 2^20 bytes. Rates from the median time; min and max "
      "rates from the slowest and fastest samples; spread = standard deviation / mean of the "
      "times. Timing 'latch' queues every sample behind a spin kernel; 'blocking' brackets each "
      "call with events because the driver may hold the host inside it. A dash marks a case "
      "whose byte check failed.\n");

  const std::vector<RateRow> rows = rate_rows(record, "sweep");
  for (const char* dir : {"h2d", "d2h", "bidir-h2d", "bidir-d2h", "bidir-total"}) {
    TextTable t(
        {"memory", "method", "size", "GB/s", "min", "max", "spread", "samples", "stop", "timing"});
    bool any = false;
    for (const RateRow& r : rows) {
      if (r.direction != dir) continue;
      any = true;
      t.add_row({r.memory, r.method, format_size(r.bytes), rate(r.median_gb_per_s),
                 rate(r.min_gb_per_s), rate(r.max_gb_per_s),
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

  if (record.config.contains("skipped") && !record.config["skipped"].empty()) {
    out += "\nNot measured\n";
    for (const auto& s : record.config["skipped"]) {
      out += fmt::format("  {} {} {} {}: {}\n", s.value("memory", ""), s.value("direction", ""),
                         s.value("method", ""), format_size(s.value("bytes", std::uint64_t{1})),
                         s.value("reason", ""));
    }
  }

  const std::vector<PinCostRow> cost = pin_cost_rows(record);
  if (!cost.empty()) {
    out += fmt::format("\nWhat pinning costs ({} each, median of the repetitions, host clock)\n",
                       format_size(cost.front().bytes));
    TextTable t({"memory", "step", "ms"});
    for (const PinCostRow& r : cost)
      t.add_row({r.memory, r.step, fmt::format("{:.1f}", r.median_ms)});
    out += t.render();
  }
  out += checks_line(record);
  return out;
}

std::string render_bandwidthtest_text(const RunRecord& record) {
  std::string out = fmt::format("\nDevice: {}\n", record.machine.device_name);
  const std::vector<RateRow> rows = rate_rows(record, "bandwidthtest");
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

std::string render_race_text(const RunRecord& record) {
  std::string out = "pinbench race: overwriting a copy's source while the copy is in flight\n\n";
  out += render_machine(record.machine);
  out +=
      "\nThe host writes new bytes into the source right after cudaMemcpyAsync returns (or "
      "after cudaStreamSynchronize), from the end backwards; the device's copy is then read "
      "back and each 8-byte word counted as old, new or neither.\n\n";
  TextTable t(
      {"source", "what the host did", "call ms", "old words", "new words", "neither", "new share"});
  for (const RaceRow& r : race_rows(record)) {
    t.add_row({r.memory, r.method, fmt::format("{:.3f}", r.call_ms), std::to_string(r.old_words),
               std::to_string(r.new_words), std::to_string(r.other_words),
               fmt::format("{:.2f}%", 100.0 * r.new_fraction)});
  }
  out += t.render();
  const std::vector<RaceRow> rows = race_rows(record);
  if (!rows.empty()) {
    out += fmt::format("  {} per trial, {} trials per row.\n", format_size(rows.front().bytes),
                       rows.front().trials);
  }
  out += checks_line(record);
  return out;
}

}  // namespace pinbench
