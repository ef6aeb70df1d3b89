#include "experiments/lesson/text.hpp"

#include <fmt/format.h>

#include "framework/render/text.hpp"
#include "framework/render/text_table.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::lesson {
namespace {

std::string figure_or(const std::optional<double>& v, const char* spec = "{:.3f}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("—");
}

std::string copy_table(const std::vector<CopyRow>& rows) {
  TextTable t({"size", "pageable ms", "pageable GB/s", "pinned ms", "pinned GB/s", "ratio"});
  for (const CopyRow& r : rows) {
    t.add_row({format_size(r.bytes), figure_or(r.pageable_ms),
               figure_or(r.pageable_gb_per_s, "{:.2f}"), figure_or(r.pinned_ms),
               figure_or(r.pinned_gb_per_s, "{:.2f}"),
               r.ratio ? fmt::format("{:.2f}x{}", *r.ratio, r.pinned_slower ? " !" : "")
                       : std::string("—")});
  }
  return t.render();
}

}  // namespace

std::string render_lesson_text(const RunRecord& rec, const LessonAnalysis& a,
                               const std::optional<ReferenceComparison>& reference) {
  const LessonConfig& c = a.config;
  std::string out;
  out += "pinbench lesson: pinned memory and async copies (Day 53)\n\n";
  out += render_machine(rec.machine);
  out += fmt::format("Record:  {} by pinbench {}{}\n", rec.created_utc, rec.pinbench_version,
                     rec.source == "published" ? " (published tables, one figure per case)" : "");
  if (!rec.note.empty()) out += fmt::format("Note:    {}\n", rec.note);
  // A published record has one figure per case: it must not claim a method it did not use.
  const bool published = rec.source == "published";
  out += fmt::format(
      "Units:   GB/s = 10^9 bytes/s, MiB = 2^20 bytes. {}; a dash marks a case that is missing "
      "or failed its byte-exact gate.\n\n",
      published ? "Figures are the published ones, one per case"
                : "Figures are medians of the timed samples");
  const std::string published_method = "published figures, one per case";
  out += fmt::format(
      "Part 1: blocking cudaMemcpy, host to device ({})\n",
      published ? published_method
                : fmt::format("{} warm-ups, {} timed, CUDA events", c.warmups, c.iterations));
  out += copy_table(a.h2d);
  if (!a.d2h.empty()) {
    out += "\nPart 1 exercise: the same sweep, device to host\n";
    out += copy_table(a.d2h);
  }
  out += fmt::format("\n  Ratio at {}: {} host to device, {} device to host.\n  {}\n",
                     format_size(c.ratio_bytes), figure_or(a.h2d_ratio_at, "{:.2f}x"),
                     figure_or(a.d2h_ratio_at, "{:.2f}x"), a.direction_sentence);

  out += fmt::format(
      "\nPart 2: {} cudaMemcpyAsync on a non-blocking stream ({})\n", format_size(c.async_bytes),
      published
          ? published_method
          : fmt::format("{} warm-up, {} timed, host clock", c.async_warmups, c.async_iterations));
  TextTable async({"direction", "host memory", "call ms", "completion ms", "call share"});
  for (const AsyncRow& r : a.async_rows) {
    async.add_row(
        {direction_words(r.direction), r.memory, figure_or(r.call_ms), figure_or(r.completion_ms),
         r.call_share ? fmt::format("{:.1f}%", 100.0 * *r.call_share) : std::string("—")});
  }
  out += async.render();

  out +=
      fmt::format("\nPart 3: scale_copy kernel over {} of floats, output in device memory ({})\n",
                  format_size(c.kernel_bytes),
                  published ? published_method
                            : fmt::format("{} warm-ups, {} timed, CUDA events", c.kernel_warmups,
                                          c.kernel_iterations));
  TextTable kernels({"variant", "ms per launch", "read GB/s", "read+written GB/s"});
  for (const KernelRow& r : a.kernel_rows) {
    kernels.add_row({r.variant, figure_or(r.ms), figure_or(r.read_gb_per_s, "{:.1f}"),
                     figure_or(r.read_write_gb_per_s, "{:.1f}")});
  }
  out += kernels.render();
  out += "  Read GB/s counts the input bytes once; read+written counts input and output.\n";
  if (a.model.available) {
    const ZeroCopyModel& m = a.model;
    out += "\n  Byte accounting, per launch:\n";
    TextTable bytes({"variant", "bytes across PCIe", "bytes in device memory"});
    bytes.add_row({"device-resident", format_size(m.resident_pcie_bytes),
                   format_size(m.resident_device_bytes)});
    bytes.add_row({"mapped (zero-copy)", format_size(m.mapped_pcie_bytes),
                   format_size(m.mapped_device_bytes)});
    out += bytes.render("    ");
    out += fmt::format(
        "    PCIe rate {:.1f} GB/s (part 1 pinned H2D); device rate {:.1f} GB/s (resident kernel, "
        "read + written).\n"
        "    Predicted mapped/resident ratio: {:.2f}x as the page reasons, {:.2f}x from the "
        "accounting; measured {:.2f}x.\n",
        m.pcie_gb_per_s, m.device_gb_per_s, m.page_predicted_ratio, m.accounted_predicted_ratio,
        m.measured_ratio);
    out += fmt::format("    {}\n", m.finding);
  }

  out += "\nPredictions\n";
  if (!a.premise_warning.empty()) out += fmt::format("  {}\n", a.premise_warning);
  for (const Prediction& p : a.predictions) {
    out += fmt::format("  {}. [{}] {}\n", p.number, verdict_word(p.verdict, Judged::kPrediction),
                       p.statement);
    for (const Claim& cl : p.claims) {
      // The verdict in a column of its own, the claim wrapped under its first word.
      const std::string head =
          fmt::format("       {:<13} ", verdict_word(cl.verdict, Judged::kPrediction));
      out += wrap_paragraph(cl.text + ": " + cl.evidence, head, std::string(head.size(), ' '));
    }
  }

  if (!a.trace_summary.empty()) {
    out += fmt::format("\nTrace\n  {}\n", a.trace_summary);
    if (a.trace_evidence) {
      for (const std::string& n : a.trace_evidence->notes) {
        out += fmt::format("  Prediction 4: {}.\n", n);
      }
    }
  }

  if (reference) {
    out += fmt::format("\nReference ({}, {})\n  {}\n", reference->reference_machine,
                       reference->reference_date, reference->summary);
  }

  out += "\nChecks\n";
  if (a.checks_passed() && rec.source == "published") {
    out +=
        "  Figures copied from published tables: pinbench did not verify their bytes or buffers; "
        "no pinned row is slower than its pageable row.\n";
  } else if (a.checks_passed()) {
    out += fmt::format(
        "  All {} gates passed: every buffer is the memory kind it claims, every timed path copied "
        "its bytes exactly, and no pinned row is slower than its pageable row.\n",
        rec.gates.size());
  } else {
    for (const std::string& f : a.check_failures) out += fmt::format("  FAILED: {}\n", f);
  }

  return out;
}

}  // namespace pinbench::experiments::lesson
