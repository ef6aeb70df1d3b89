// `pinbench pipeline`: the Day 54 pipeline, from page-locked memory and from pageable memory
// through the staged engine, against its bound.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/outputs.hpp"
#include "cli/progress.hpp"
#include "cli/replay.hpp"
#include "cli/trace_option.hpp"
#include "experiments/pipeline/measure.hpp"
#include "experiments/staged/engine_flags.hpp"
#include "experiments/staged/plan.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::pipeline {
namespace {

using namespace pinbench::cli;

struct PipelineFlags {
  PipelineFlags() {
    const PipelineConfig c;
    array_size = size_default(c.array_bytes);
    window = size_default(c.window_bytes);
    streams = count_list_default(c.streams);
    kernel_rounds = c.kernel_rounds;
    warmups = c.warmups;
    iterations = c.iterations;
  }
  std::string array_size;
  std::string window;
  std::string streams;
  std::string sources = "pinned,staged";
  int kernel_rounds = 0;
  int warmups = 0;
  int iterations = 0;
  bool force = false;
  OutputPaths outputs;
  EngineFlags engine;
  ReplayFlags replay;
};

RunRecord measure_pipeline(const PipelineFlags& f) {
  PipelineConfig c;
  c.array_bytes = parse_size(f.array_size);
  c.window_bytes = parse_size(f.window);
  c.streams = parse_counts(f.streams, "stream count", 1, kMaxStreams);
  c.sources = parse_pipeline_sources(f.sources);
  c.kernel_rounds = f.kernel_rounds;
  c.warmups = f.warmups;
  c.iterations = f.iterations;
  c.engine = engine_options(f.engine);
  c.force = f.force;
  c.normalize();
  c.validate();
  return run_traced(f.outputs.trace, [&] {
    return with_progress([&] { return run_pipeline(c, terminal_progress); });
  });
}

Command add_pipeline(CLI::App& app) {
  auto f = std::make_shared<PipelineFlags>();
  CLI::App* sub = app.add_subcommand(
      "pipeline",
      "The Day 54 program: a host array through a device window, chunk by chunk (copy in, a "
      "kernel, copy out) over 1, 2 or N streams, from page-locked memory and from pageable "
      "memory through the staged engine; GB/s each way and the overlap efficiency against the "
      "bound measured in the same run. Without a GPU, replays the newest recorded run.");
  sub->add_option("--array-size", f->array_size, "Host array (floats)")->capture_default_str();
  sub->add_option("--window", f->window, "Device window, split into one slot per stream")
      ->capture_default_str();
  sub->add_option("--streams", f->streams,
                  fmt::format("Stream counts, comma-separated, each 1 to {}", kMaxStreams))
      ->capture_default_str();
  sub->add_option("--sources", f->sources, "pinned, staged")->capture_default_str();
  sub->add_option("--kernel-rounds", f->kernel_rounds,
                  "Extra add-subtract pairs per element, for a heavier kernel")
      ->capture_default_str();
  sub->add_option("--warmups", f->warmups, "Untimed runs before each case")->capture_default_str();
  sub->add_option("--iterations", f->iterations, "Timed runs per case")->capture_default_str();
  sub->add_flag("--force", f->force, "Allow pinning more than half of host memory");
  add_engine_flags(sub, f->engine);
  add_output_flags(sub, f->outputs);
  add_trace_option(sub, f->outputs.trace);
  add_replay_flags(sub, f->replay, "pipeline");
  return {sub, [f, sub] {
            return measure_or_replay(
                *sub, f->replay,
                {{"pipeline"}, "", [f] { return measure_pipeline(*f); }, f->outputs});
          }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_pipeline(app)};
}

}  // namespace pinbench::experiments::pipeline
