// `pinbench pipeline`: the Day 54 pipeline, from page-locked memory and from pageable memory
// through the staged engine, against its bound.
#include <memory>

#include <fmt/format.h>

#include "cli/engine_flags.hpp"
#include "cli/measuring_command.hpp"
#include "cli/progress.hpp"
#include "cli/trace_option.hpp"
#include "experiments/pipeline/measure.hpp"
#include "experiments/pipeline/plan.hpp"

namespace pinbench::experiments::pipeline {

using namespace pinbench::cli;

std::vector<Command> commands(CLI::App& app) {
  using C = PipelineConfig;
  MeasuringCommand<C> pipeline(app, "pipeline", {});
  pipeline.options({
      {"--array-size", size(&C::array_bytes), "Host array (floats)"},
      {"--window", size(&C::window_bytes), "Device window, split into one slot per stream"},
      {"--streams",
       text(
           &C::streams,
           [](const std::string& v) { return parse_counts(v, "stream count", 1, kMaxStreams); },
           count_list_default(C{}.streams)),
       fmt::format("Stream counts, comma-separated, each 1 to {}", kMaxStreams), "COUNTS"},
      {"--sources", text(&C::sources, parse_pipeline_sources, "pinned,staged"), "pinned, staged"},
      {"--kernel-rounds", value(&C::kernel_rounds, 0, 10000),
       "Extra add-subtract pairs per element, for a heavier kernel"},
      {"--warmups", value(&C::warmups, 0), "Untimed runs before each case"},
      {"--iterations", value(&C::iterations, 1), "Timed runs per case"},
      {"--force", flag(&C::force), "Allow pinning more than half of host memory"},
  });
  auto engine = std::make_shared<EngineFlags>();
  add_engine_flags(&pipeline.sub(), *engine);
  return {pipeline.measure(kTables | kTrace, [engine](C c, const MeasuringFlags& f) {
    c.engine = engine_options(*engine);
    c.normalize();
    c.validate();
    return run_with_progress(f.outputs.trace, [&] { return run_pipeline(c, terminal_progress); });
  })};
}

}  // namespace pinbench::experiments::pipeline
