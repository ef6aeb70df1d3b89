// The Day 54 pipeline as the registry sees it: its config, its model section (a row per source
// and stream count against its bound, rate and efficiency charts, the goals) and its printer.
// Its analysis and printer share the staged engine's judge and layout (staged/analysis.hpp,
// staged/text.hpp).
#include <fmt/format.h>

#include "experiments/pipeline/analysis.hpp"
#include "experiments/pipeline/plan.hpp"
#include "experiments/pipeline/text.hpp"
#include "framework/experiment.hpp"
#include "framework/render/text.hpp"
#include "framework/sampling.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::pipeline {
namespace {

void build_pipeline(const RunRecord& r, ReportModel& m) {
  m.section = analyse_pipeline(r);
  const PipelineAnalysis& a = section<PipelineAnalysis>(m);
  ReportTable t;
  t.id = "pipeline";
  t.title = "Copy in, compute, copy out, by source and stream count";
  t.header = {"source",    "streams",   "chunk",   "ms",         "GB/s each way", "bound ms",
              "copies ms", "kernel ms", "host ms", "efficiency", "vs pinned"};
  t.numeric = {false, true, true, true, true, true, true, true, true, true, true};
  ChartSpec rate, efficiency;
  rate.kind = ChartKind::kBars;
  rate.id = "pipeline-rate";
  rate.title = "GB/s each way, by source and stream count";
  rate.axis_title = "array bytes / time, each direction (GB/s = 10^9 bytes/s)";
  rate.value_suffix = " GB/s";
  efficiency.kind = ChartKind::kShares;
  efficiency.id = "pipeline-efficiency";
  efficiency.title = "Efficiency: the bound over the measured time";
  efficiency.axis_title = "bound ms / measured ms (%)";
  // The source through the staged engine in the engine's colour, as in every chart of its copies.
  rate.colours = efficiency.colours = {{to_string(PipelineSource::kStaged), kEngineColour}};
  for (const PipelineRow& row : a.rows) {
    t.rows.push_back({row.source, std::to_string(row.streams), exact_size(row.chunk_bytes),
                      figure_cell(row.ms, "{:.3f}"), figure_cell(row.gb_per_s_each_way),
                      figure_cell(row.bound_ms, "{:.3f}"), figure_cell(row.copy_bound_ms, "{:.3f}"),
                      figure_cell(row.kernel_ms, "{:.3f}"),
                      figure_cell(row.host_bound_ms, "{:.3f}"),
                      row.efficiency ? fmt::format("{:.1f}%", 100 * *row.efficiency) : kDash,
                      ratio_cell(row.over_pinned)});
    const std::string label =
        fmt::format("{}, {} stream{}", row.source, row.streams, row.streams == 1 ? "" : "s");
    const std::string& key = row.source;
    rate.bars.push_back(
        {label, key, row.gb_per_s_each_way, fmt::format("{} chunks", exact_size(row.chunk_bytes))});
    efficiency.bars.push_back(
        {label, key, row.efficiency,
         row.bound_ms && row.ms
             ? fmt::format("bound {:.3f} ms of {:.3f} ms measured", *row.bound_ms, *row.ms)
             : std::string()});
  }
  t.notes.push_back(
      "The bound is the slower of: the array's bytes copied both ways at once from page-locked "
      "memory in the same chunks, and the kernel alone over the array; through the staged "
      "engine also its host side filling and draining the array at once beside as many DMA "
      "bytes each way (host ms); efficiency = bound / measured time; vs pinned = the staged "
      "source's rate over the page-locked source's. The staged source is pageable memory "
      "through the staged engine.");
  m.tables.push_back(std::move(t));
  rate.caption =
      "The whole array in and out through the device window: how fast each source streams, "
      "with one stream and with more.";
  efficiency.caption =
      "How close each run came to its bound; the goal with two streams is 95% or better from "
      "page-locked memory, 90% of its own bound through the staged engine.";
  efficiency.rules = {{0.95, "95% goal (pinned)"}, {0.90, "90% goal (staged)"}};
  add_chart(m, std::move(rate));
  add_chart(m, std::move(efficiency));
  if (!a.goals.empty()) {
    VerdictGroup g = goal_group("goals", "Goals (findings, not checks)");
    int n = 0;
    for (const PipelineGoal& goal : a.goals) {
      g.items.push_back(goal_item(++n, goal.text, goal.verdict, goal.evidence));
    }
    m.verdicts.push_back(std::move(g));
  }
}

// The kernel the pipeline's copies overlap, as its record says it: another kernel, or another
// weight of it, is another pipeline.
struct PipelineKernel {
  std::string kernel;
  int kernel_rounds = 0;
  static constexpr auto fields() {
    return std::make_tuple(
        field("kernel", &PipelineKernel::kernel, FieldKind::kText),
        field("kernel_rounds", &PipelineKernel::kernel_rounds, FieldKind::kCount));
  }
};

ExperimentDescriptor pipeline_descriptor() {
  ExperimentDescriptor d{"pipeline", "pinbench pipeline", "Pipeline", "pipeline"};
  d.config_fields = joined({sampling_fields(),
                            fields_of<PipelineConfig>(),
                            // Computed or constant where written (plan.cpp's to_json,
                            // measure.cpp).
                            {{"engine", FieldKind::kEngine},
                             {"timing", FieldKind::kText},
                             {"chunk_bytes_by_streams", FieldKind::kSizes},
                             {"kernel", FieldKind::kText}}});
  // A case's extra: where its array sat, its streams and chunk, the kernel's rounds, and the
  // copies a bound made.
  d.extra_fields = {{"source", FieldKind::kText},
                    {"streams", FieldKind::kCount},
                    {"chunk_bytes", FieldKind::kSize},
                    {"rounds", FieldKind::kCount},
                    {"chunks", FieldKind::kCount}};
  d.gates_meaning =
      "every run returned every float exactly, both bound copies delivered their bytes, and every "
      "buffer is the kind it claims.";
  return d;
}

class Pipeline final : public Experiment {
 public:
  Pipeline() : Experiment(pipeline_descriptor()) {}
  std::vector<Condition> conditions(const RunRecord& r) const override {
    PipelineKernel k;
    get_fields(r.config, k);
    return {{"kernel", k.kernel.empty() ? "not stated" : k.kernel},
            {"kernel rounds per element", std::to_string(k.kernel_rounds)}};
  }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_pipeline(record, model);
  }
  std::string text(const RunRecord& record, const ReportModel& model,
                   const TextOptions&) const override {
    return with_sampling(record, model,
                         render_pipeline_text(record, section<PipelineAnalysis>(model)));
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Pipeline pipeline;
  return {&pipeline};
}

}  // namespace pinbench::experiments::pipeline
