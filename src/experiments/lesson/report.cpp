// The lesson's section of the report model: its three parts' tables, the predictions as one
// verdict group, the rate charts by size, the pageable/pinned ratio and the share of its time a
// cudaMemcpyAsync holds the thread. Every printer, the terminal's included, reads it.
#include "experiments/lesson/report.hpp"

#include <tuple>

#include <fmt/format.h>

#include "experiments/lesson/analysis.hpp"
#include "framework/experiment.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::lesson {
namespace {

std::string num_cell(const std::optional<double>& v, const char* spec = "{:.3f}") {
  return figure_cell(v, spec);
}

ReportTable copy_table(const std::string& id, const std::string& title,
                       const std::vector<CopyRow>& rows) {
  ReportTable t;
  t.id = id;
  t.title = title;
  t.header = {"size",      "pageable ms", "pageable GB/s",
              "pinned ms", "pinned GB/s", "pageable/pinned"};
  t.numeric = {false, true, true, true, true, true};
  for (const CopyRow& r : rows) {
    t.rows.push_back(
        {format_size(r.bytes), num_cell(r.pageable_ms), num_cell(r.pageable_gb_per_s, "{:.2f}"),
         num_cell(r.pinned_ms), num_cell(r.pinned_gb_per_s, "{:.2f}"),
         r.ratio ? fmt::format("{:.2f}x{}", *r.ratio, r.pinned_slower ? " !" : "") : kDash});
    if (r.pinned_slower) {
      t.notes.push_back(fmt::format(
          "{}: the pinned row is slower than the pageable row (marked !); the \"pinned\" "
          "buffer may not be pinned.",
          format_size(r.bytes)));
    }
  }
  return t;
}

std::vector<ReportTable> lesson_tables(const LessonAnalysis& a, bool published) {
  const LessonConfig& c = a.config;
  std::vector<ReportTable> out;
  ReportTable h2d = copy_table("part1-h2d", "Part 1: blocking cudaMemcpy, host to device", a.h2d);
  // A published record holds one figure per case, copied from a document: it must not claim
  // the warm-ups and timed samples of a method it did not use.
  const std::string published_note =
      "One published figure per case, copied from the document's tables; not measured by "
      "pinbench.";
  h2d.notes.insert(h2d.notes.begin(),
                   published ? published_note
                             : fmt::format("{} warm-ups and {} timed copies per case, timed with "
                                           "CUDA events.",
                                           c.warmups, c.iterations));
  out.push_back(std::move(h2d));
  if (!a.d2h.empty()) {
    out.push_back(
        copy_table("part1-d2h", "Part 1 exercise: the same sweep, device to host", a.d2h));
  }
  out.back().notes.push_back(
      fmt::format("Ratio at {}: {} host to device, {} device to host. {}",
                  format_size(c.ratio_bytes), num_cell(a.h2d_ratio_at, "{:.2f}x"),
                  num_cell(a.d2h_ratio_at, "{:.2f}x"), a.direction_sentence));

  ReportTable async;
  async.id = "part2-async";
  async.title = fmt::format("Part 2: {} cudaMemcpyAsync on a non-blocking stream",
                            format_size(c.async_bytes));
  async.header = {"direction", "host memory", "call ms", "completion ms", "call share"};
  async.numeric = {false, false, true, true, true};
  for (const AsyncRow& r : a.async_rows) {
    async.rows.push_back({direction_words(r.direction), r.memory, num_cell(r.call_ms),
                          num_cell(r.completion_ms),
                          r.call_share ? fmt::format("{:.1f}%", 100.0 * *r.call_share) : kDash});
  }
  async.notes.push_back(
      (published ? published_note + " "
                 : fmt::format("{} warm-up and {} timed calls per case, host clock. ",
                               c.async_warmups, c.async_iterations)) +
      "The call share is the median time the call held the thread over the median time to "
      "completion.");
  out.push_back(std::move(async));

  ReportTable kernels;
  kernels.id = "part3-kernels";
  kernels.title =
      fmt::format("Part 3: scale_copy kernel over {} of floats, output in device memory",
                  format_size(c.kernel_bytes));
  kernels.header = {"variant", "ms per launch", "read GB/s", "read+written GB/s"};
  kernels.numeric = {false, true, true, true};
  for (const KernelRow& r : a.kernel_rows) {
    kernels.rows.push_back({r.variant, num_cell(r.ms), num_cell(r.read_gb_per_s, "{:.1f}"),
                            num_cell(r.read_write_gb_per_s, "{:.1f}")});
  }
  kernels.notes.push_back(
      (published ? published_note + " "
                 : fmt::format("{} warm-ups and {} timed launches per variant, CUDA events. ",
                               c.kernel_warmups, c.kernel_iterations)) +
      "Read GB/s counts the input bytes once; read+written counts input and output.");
  out.push_back(std::move(kernels));

  if (a.model.available) {
    const ZeroCopyModel& m = a.model;
    ReportTable bytes;
    bytes.id = "part3-bytes";
    bytes.title = "Part 3: where each launch's bytes go";
    bytes.header = {"variant", "bytes across PCIe", "bytes in device memory"};
    bytes.numeric = {false, true, true};
    bytes.rows.push_back({"device-resident", format_size(m.resident_pcie_bytes),
                          format_size(m.resident_device_bytes)});
    bytes.rows.push_back({"mapped (zero-copy)", format_size(m.mapped_pcie_bytes),
                          format_size(m.mapped_device_bytes)});
    bytes.notes.push_back(fmt::format(
        "PCIe rate {:.1f} GB/s (part 1 pinned host to device); device rate {:.1f} GB/s (resident "
        "kernel, read + written). Predicted mapped/resident ratio: {:.2f}x as the page reasons, "
        "{:.2f}x from the accounting; measured {:.2f}x.",
        m.pcie_gb_per_s, m.device_gb_per_s, m.page_predicted_ratio, m.accounted_predicted_ratio,
        m.measured_ratio));
    bytes.notes.push_back(m.finding);
    out.push_back(std::move(bytes));
  }
  return out;
}

}  // namespace

void build_lesson_section(const RunRecord& r, ReportModel& m) {
  LessonAnalysis analysis = analyse_lesson(r);
  m.section = analysis;
  const LessonAnalysis& a = section<LessonAnalysis>(m);
  m.tables = lesson_tables(a, r.source == "published");
  m.check_failures = a.check_failures;
  VerdictGroup g;
  g.judged = Judged::kPrediction;
  g.id = "predictions";
  g.title = "Predictions";
  g.note =
      "Each prediction is split into claims. A prediction dies with any of its claims and holds "
      "only when every claim was judged and held; a claim is undecided when the samples' noise "
      "leaves room for either answer. Verdicts are findings, not failures.";
  if (!a.premise_warning.empty()) g.note = a.premise_warning + " " + g.note;
  g.items = a.predictions;
  m.verdicts.push_back(std::move(g));

  m.charts = rate_charts(r, true);
  ChartSpec ratio =
      make_chart(ChartKind::kSize, "lesson-ratio", "Part 1: pageable time / pinned time, by size");
  ratio.axis_title = "pageable ms / pinned ms (x)";
  ratio.value_suffix = "x";
  ratio.caption =
      "How many times longer a blocking copy takes from pageable memory than from pinned "
      "memory, per direction. Prediction 1 asks for a ratio above 1 at every size, at least 1.3 "
      "at 256 MiB, growing with size.";
  for (const auto& [rows, label, key] : {std::make_tuple(&a.h2d, "host to device", "h2d"),
                                         std::make_tuple(&a.d2h, "device to host", "d2h")}) {
    if (rows->empty()) continue;
    ChartSeriesSpec s{label, key, {}};
    for (const CopyRow& row : *rows) {
      s.points.emplace_back(row.bytes, row.ratio);
    }
    ratio.series.push_back(std::move(s));
  }
  ratio.rules = {{1.0, "1x: pinned no faster"}, {1.3, "1.3x: prediction 1's floor"}};
  add_chart(m, std::move(ratio));

  ChartSpec share = make_chart(ChartKind::kShares, "lesson-call-share",
                               fmt::format("Part 2: how long a {} cudaMemcpyAsync holds the thread",
                                           format_size(a.config.async_bytes)));
  share.axis_title = "call time as a share of the time to completion (%)";
  share.caption =
      "Median time the call held the calling thread over the median time until the stream had "
      "synchronised. Prediction 2: at least 80% for pageable memory, under 10% for pinned (host "
      "to device).";
  for (const AsyncRow& row : a.async_rows) {
    ChartBar b{direction_words(row.direction) + ", " + row.memory, row.memory, row.call_share, ""};
    if (row.call_ms && row.completion_ms) {
      b.detail = fmt::format("call {:.3f} ms of {:.3f} ms to completion", *row.call_ms,
                             *row.completion_ms);
    }
    share.bars.push_back(std::move(b));
  }
  share.rules = {{0.10, "10%"}, {0.80, "80%"}};
  add_chart(m, std::move(share));
}

}  // namespace pinbench::experiments::lesson
