// `pinbench lesson`: the Day 53 program on this machine's GPU, or a recorded run of it where
// there is none, judged prediction by prediction.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/outputs.hpp"
#include "cli/progress.hpp"
#include "cli/replay.hpp"
#include "cli/trace_option.hpp"
#include "experiments/lesson/prediction4.hpp"
#include "experiments/lesson/plan.hpp"
#include "framework/record.hpp"
#include "framework/units.hpp"
#include "experiments/lesson/measure.hpp"

namespace pinbench::cli {
// trace_check_command.cpp: `pinbench trace-check`, prediction 4 judged from a trace or an export.
Command add_trace_check(CLI::App& app);
}  // namespace pinbench::cli

namespace pinbench::experiments::lesson {
namespace {

using namespace pinbench::cli;

struct LessonOptions {
  LessonOptions() {
    const LessonConfig c = LessonConfig::defaults();
    sizes = size_list_default(c.sizes);
    async_size = size_default(c.async_bytes);
    kernel_size = size_default(c.kernel_bytes);
    warmups = c.warmups;
    iterations = c.iterations;
  }
  std::string sizes;
  std::string async_size;
  std::string kernel_size;
  int warmups = 0;
  int iterations = 0;
  OutputPaths outputs;  // --json and --trace
  std::string reference_path;
  ReplayFlags replay;
};

LessonConfig config_from(const LessonOptions& o) {
  LessonConfig c = LessonConfig::defaults();
  c.sizes = parse_size_list(o.sizes);
  c.async_bytes = parse_size(o.async_size);
  c.kernel_bytes = parse_size(o.kernel_size);
  c.warmups = o.warmups;
  c.iterations = o.iterations;
  c.kernel_warmups = o.warmups;
  c.kernel_iterations = o.iterations;
  c.async_iterations = o.iterations;
  c.ratio_bytes = c.async_bytes;
  c.normalize();
  c.validate();
  return c;
}

RunRecord measure(const LessonOptions& o) {
  const LessonConfig config = config_from(o);  // bad input is exit 2, GPU or not
  // The trace starts before the lesson opens its first NVTX range, so the ranges reach it.
  std::optional<TraceSession> trace = start_trace(o.outputs.trace);
  RunRecord record = with_progress([&] { return run_lesson(config, terminal_progress); });
  if (trace) {
    if (const std::optional<Trace> t = trace->finish()) {
      attach_trace(record, *t, std::filesystem::path(o.outputs.trace).filename().string());
      std::printf("Trace written to %s (open it in ui.perfetto.dev).\n", o.outputs.trace.c_str());
    }
  }
  return record;
}

Command add_lesson(CLI::App& app) {
  auto opts = std::make_shared<LessonOptions>();
  CLI::App* sub = app.add_subcommand(
      "lesson",
      "Run the Day 53 lesson: pageable vs pinned copies (both directions), how long "
      "cudaMemcpyAsync holds the thread, zero-copy vs device-resident kernels; judge the "
      "page's predictions. Without a GPU, replays the newest recorded lesson.");
  sub->add_option("--sizes", opts->sizes, "Part 1 sizes, comma-separated (e.g. 1MiB,64MiB)")
      ->capture_default_str();
  sub->add_option("--async-size", opts->async_size,
                  "Part 2 probe size; the exercise's ratios are read at this size too")
      ->capture_default_str();
  sub->add_option("--kernel-size", opts->kernel_size, "Part 3 buffer size (a multiple of 4 B)")
      ->capture_default_str();
  sub->add_option("--warmups", opts->warmups, "Untimed copies or launches before timing")
      ->capture_default_str();
  sub->add_option("--iterations", opts->iterations, "Timed copies or launches per case")
      ->capture_default_str();
  add_output_flags(sub, opts->outputs, false);
  const CLI::Option* reference =
      sub->add_option("--reference", opts->reference_path,
                      "Compare ratios with this reference lesson record (e.g. data/reference/"
                      "day53-tesla-t4.json); also with --replay");
  add_trace_option(sub, opts->outputs.trace);
  opts->replay.kept = {reference};
  add_replay_flags(sub, opts->replay, "lesson");
  return {
      sub, [opts, sub] {
        return measure_or_replay(
            *sub, opts->replay,
            {{"lesson"}, opts->reference_path, [opts] { return measure(*opts); }, opts->outputs});
      }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_lesson(app), cli::add_trace_check(app)};
}

}  // namespace pinbench::experiments::lesson
