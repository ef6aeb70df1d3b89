// `pinbench lesson`: the Day 53 program on this machine's GPU, or a recorded run of it where
// there is none, judged prediction by prediction.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "cli/measuring_command.hpp"
#include "cli/progress.hpp"
#include "cli/trace_option.hpp"
#include "experiments/lesson/measure.hpp"
#include "experiments/lesson/plan.hpp"
#include "experiments/lesson/prediction4.hpp"
#include "framework/record.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::lesson {

// trace_check_command.cpp: `pinbench trace-check`, prediction 4 judged from a trace or an export.
cli::Command add_trace_check(CLI::App& app);

namespace {

using namespace pinbench::cli;

// The command line's config, with the one --warmups and --iterations fanned out to every part
// that times something, and Part 2's ratios read at its probe size.
LessonConfig fanned_out(LessonConfig c) {
  c.kernel_warmups = c.warmups;
  c.kernel_iterations = c.iterations;
  c.async_iterations = c.iterations;
  c.ratio_bytes = c.async_bytes;
  c.normalize();
  c.validate();
  return c;
}

RunRecord measure(const LessonConfig& given, const MeasuringFlags& f) {
  const LessonConfig config = fanned_out(given);  // bad input is exit 2, GPU or not
  const std::string& trace_path = f.outputs.trace;
  // The trace starts before the lesson opens its first NVTX range, so the ranges reach it.
  std::optional<TraceSession> trace = start_trace(trace_path);
  RunRecord record = with_progress([&] { return run_lesson(config, terminal_progress); });
  if (trace) {
    if (const std::optional<Trace> t = trace->finish()) {
      attach_trace(record, *t, std::filesystem::path(trace_path).filename().string());
      std::printf("Trace written to %s (open it in ui.perfetto.dev).\n", trace_path.c_str());
    }
  }
  return record;
}

Command add_lesson(CLI::App& app) {
  using C = LessonConfig;
  MeasuringCommand<C> lesson(app, "lesson", C::defaults());
  lesson.options({
      {"--sizes", sizes(&C::sizes, parse_size_list),
       "Part 1 sizes, comma-separated (e.g. 1MiB,64MiB)"},
      {"--async-size", size(&C::async_bytes),
       "Part 2 probe size; the exercise's ratios are read at this size too"},
      {"--kernel-size", size(&C::kernel_bytes), "Part 3 buffer size (a multiple of 4 B)"},
      {"--warmups", value(&C::warmups, 0), "Untimed copies or launches before timing"},
      {"--iterations", value(&C::iterations, 1), "Timed copies or launches per case"},
  });
  MeasuringFlags& f = lesson.flags();
  lesson.keep_in_replay(lesson.sub()
                            .add_option("--reference", f.reference_path,
                                        "Compare ratios with this reference lesson record (e.g. "
                                        "data/reference/day53-tesla-t4.json); also with --replay")
                            ->type_name("FILE"));
  add_trace_option(&lesson.sub(), f.outputs.trace);
  return lesson.measure(kJsonOnly, measure);
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_lesson(app), add_trace_check(app)};
}

}  // namespace pinbench::experiments::lesson
