#include "experiments/pipeline/text.hpp"

#include <fmt/format.h>

#include "framework/render/engine_text.hpp"
#include "framework/render/text.hpp"
#include "framework/render/text_table.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"
#include "framework/verdict.hpp"

namespace pinbench::experiments::pipeline {

std::string render_pipeline_text(const RunRecord& record, const PipelineAnalysis& a) {
  const std::uint64_t array = a.config.array_bytes;
  const std::uint64_t window = a.config.window_bytes;
  std::string out = engine_header(
      record, fmt::format("pinbench pipeline: {} of floats through a {} device window: copy in, "
                          "y = 3 x + 0.5, copy out",
                          exact_size(array), exact_size(window)));
  out += fmt::format(
      "Units:   GB/s = 10^9 bytes/s, MiB = 2^20 bytes. Median of {} runs, host clock from the "
      "first call to the last completion. The bound is the slower of: the array's bytes copied "
      "both ways at once from page-locked memory in the same chunks, and the kernel alone over "
      "the array; through the staged engine also the engine's host side filling and draining "
      "the array at once beside as many DMA bytes each way (host ms); efficiency = bound / "
      "measured time; vs pinned = the staged source's rate over the page-locked source's. The "
      "staged source is pageable memory through the staged engine.\n",
      a.config.iterations);
  TextTable t({"source", "streams", "chunk", "ms", "GB/s each way", "bound ms", "copies ms",
               "kernel ms", "host ms", "efficiency", "vs pinned"});
  for (const PipelineRow& r : a.rows) {
    t.add_row({r.source, std::to_string(r.streams), exact_size(r.chunk_bytes),
               figure_cell(r.ms, "{:.3f}"), figure_cell(r.gb_per_s_each_way),
               figure_cell(r.bound_ms, "{:.3f}"), figure_cell(r.copy_bound_ms, "{:.3f}"),
               figure_cell(r.kernel_ms, "{:.3f}"), figure_cell(r.host_bound_ms, "{:.3f}"),
               r.efficiency ? fmt::format("{:.1f}%", 100 * *r.efficiency) : kDash,
               ratio_cell(r.over_pinned)});
  }
  out += "\n" + t.render();
  if (!a.goals.empty()) {
    out += "\nGoals (findings, not checks)\n";
    for (const PipelineGoal& g : a.goals) {
      out += fmt::format("  {}: {}\n    {}\n", g.text, verdict_word(g.verdict, Judged::kGoal),
                         g.evidence);
    }
  }
  out += render_gate_checks(
      record,
      "every run returned every float exactly, both bound copies delivered their "
      "bytes, and every buffer is the kind it claims.");
  return out;
}

}  // namespace pinbench::experiments::pipeline
