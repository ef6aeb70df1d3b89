// `pinbench lesson`: the Day 53 program on this machine's GPU, or a recorded run of it where
// there is none, judged prediction by prediction.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/paths.hpp"
#include "cli/progress.hpp"
#include "cli/trace_option.hpp"
#include "core/analysis/lesson.hpp"
#include "core/analysis/prediction4.hpp"
#include "core/errors.hpp"
#include "core/record/record.hpp"
#include "core/record/run_library.hpp"
#include "core/units.hpp"
#include "cuda/device.hpp"
#include "experiments/lesson.hpp"
#include "report/lesson_text.hpp"

namespace pinbench::cli {
namespace {

struct LessonOptions {
  std::string sizes = "1MiB,4MiB,16MiB,64MiB,256MiB";
  std::string async_size = "64MiB";
  std::string kernel_size = "64MiB";
  int warmups = 3;
  int iterations = 10;
  std::string json_path;
  std::string replay_path;
  std::string reference_path;
  std::string trace_path;
  bool require_gpu = false;
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

int report(const RunRecord& record, const LessonOptions& o) {
  const LessonAnalysis analysis = analyse_lesson(record);
  std::optional<ReferenceComparison> reference;
  if (!o.reference_path.empty()) {
    reference = compare_with_reference(analysis, load_record(o.reference_path));
  }
  std::fputs(render_lesson_text(record, analysis, reference).c_str(), stdout);
  return analysis.checks_passed() ? 0 : 1;
}

int report_replay(const RunRecord& record, const LessonOptions& o) {
  const int code = report(record, o);
  if (record.wall_ms > 0.0) {
    std::printf("\nRecorded wall time: %.2f s.\n", record.wall_ms / 1000.0);
  }
  return code;
}

int run(const LessonOptions& o) {
  if (!o.replay_path.empty()) {
    const RunRecord record = load_record(o.replay_path);
    std::printf("Replaying %s: %s, recorded %s.\n\n", o.replay_path.c_str(),
                record.machine.device_name.c_str(), record.created_utc.c_str());
    return report_replay(record, o);
  }

  const LessonConfig config = config_from(o);  // bad input is exit 2, GPU or not
  const std::string no_gpu = cuda::no_device_reason();
  if (!no_gpu.empty()) {
    if (o.require_gpu) throw NoGpuError("no usable GPU: " + no_gpu);
    const std::string dir = data_dir() + "/runs";
    const std::optional<std::string> path = newest_record(dir, "lesson");
    if (!path) {
      throw NoGpuError(
          fmt::format("no usable GPU ({}) and no recorded lesson under {}", no_gpu, dir));
    }
    const RunRecord record = load_record(*path);
    for (const std::string* written : {&o.json_path, &o.trace_path}) {
      if (written->empty()) continue;
      std::fprintf(stderr, "pinbench: note: nothing was measured, so %s was not written\n",
                   written->c_str());
    }
    std::printf(
        "No usable GPU here (%s): replaying the lesson recorded on %s on %s\n(%s). Use "
        "--require-gpu to fail instead.\n\n",
        no_gpu.c_str(), record.created_utc.substr(0, 10).c_str(),
        record.machine.device_name.c_str(), path->c_str());
    return report_replay(record, o);
  }

  // The trace starts before the lesson opens its first NVTX range, so the ranges reach it.
  std::optional<TraceSession> trace;
  if (!o.trace_path.empty()) trace.emplace(o.trace_path);
  RunRecord record = with_progress([&] { return run_lesson(config, terminal_progress); });
  bool traced = false;
  if (trace) {
    if (const std::optional<Trace> t = trace->finish()) {
      attach_trace(record, *t, std::filesystem::path(o.trace_path).filename().string());
      traced = true;
    }
  }
  if (!o.json_path.empty()) save_record(record, o.json_path);
  const int code = report(record, o);
  std::printf(
      "\nLesson wall time: %.2f s (device set-up, allocations, gates and all three "
      "parts).\n",
      record.wall_ms / 1000.0);
  if (!o.json_path.empty()) std::printf("Run record written to %s.\n", o.json_path.c_str());
  if (traced) {
    std::printf("Trace written to %s (open it in ui.perfetto.dev).\n", o.trace_path.c_str());
  }
  return code;
}

}  // namespace

Command add_lesson(CLI::App& app) {
  auto opts = std::make_shared<LessonOptions>();
  CLI::App* sub = app.add_subcommand(
      "lesson",
      "Run the Day 53 lesson: pageable vs pinned copies (both directions), how long "
      "cudaMemcpyAsync holds the thread, zero-copy vs device-resident kernels; judge the "
      "page's predictions. Without a GPU, replays the newest recorded run.");
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
  CLI::Option* json = sub->add_option("--json", opts->json_path, "Write the run record here");
  CLI::Option* replay = sub->add_option("--replay", opts->replay_path,
                                        "Analyse and print a recorded run instead of measuring");
  sub->add_option("--reference", opts->reference_path,
                  "Compare ratios with this reference record (e.g. data/reference/"
                  "day53-tesla-t4.json)");
  CLI::Option* require = sub->add_flag("--require-gpu", opts->require_gpu,
                                       "Exit 3 instead of replaying without a GPU");
  CLI::Option* trace = add_trace_option(sub, opts->trace_path);
  replay->excludes(json);
  replay->excludes(require);
  replay->excludes(trace);
  return {sub, [opts] { return run(*opts); }};
}

}  // namespace pinbench::cli
