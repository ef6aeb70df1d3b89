#include "cli/replay.hpp"

#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "cli/numbers.hpp"
#include "cli/outputs.hpp"
#include "cli/paths.hpp"
#include "cli/signals.hpp"
#include "cuda/device.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"
#include "framework/interrupt.hpp"
#include "framework/printable.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/run_library.hpp"
#include "framework/text.hpp"

namespace pinbench::cli {
namespace {

// Refused before anything is printed: a staged record read as a lesson would print a lesson
// with no cases and then fail its checks, which says nothing about the record.
RunRecord load_replay(const std::string& path, const std::vector<std::string>& experiments) {
  RunRecord record = load_record(path);
  for (const std::string& e : experiments) {
    if (record.experiment == e) return record;
  }
  const std::string command = experiment_for(record.experiment).descriptor().command;
  throw InputError(
      fmt::format("run record '{}' is of experiment '{}', not {}: {}", path, record.experiment,
                  or_list(experiments, "'"),
                  command.empty() ? fmt::format("render it with 'pinbench report {}'", path)
                                  : fmt::format("replay it with '{} --replay {}'", command, path)));
}

TextOptions print_options(const MeasuringRun& run) {
  TextOptions o;
  if (!run.reference_path.empty()) {
    o.reference = load_reference(run.reference_path, run.experiments.front());
  }
  return o;
}

std::string comma_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The options given on the command line that a replay does not use.
std::vector<std::string> ignored_options(const CLI::App& sub, const ReplayFlags& flags) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->count() == 0 || opt == sub.get_help_ptr() || opt == flags.replay) continue;
    bool kept = false;
    for (const CLI::Option* k : flags.kept) kept = kept || k == opt;
    if (!kept) names.push_back(opt->get_name());
  }
  return names;
}

// `why` is the NoGpuError's message; the reason in it is the one the notice gives.
int replay_newest(const CLI::App& sub, const ReplayFlags& flags, const MeasuringRun& run,
                  const std::string& why, const TextOptions& options) {
  const std::string& experiment = run.experiments.front();
  const std::string prefix = "no usable GPU: ";
  const std::string no_gpu = why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why;
  const std::string dir = data_dir() + "/runs";
  const std::optional<std::string> path = newest_record(dir, experiment);
  if (!path) {
    throw NoGpuError(
        fmt::format("no usable GPU ({}) and no recorded {} under {}", no_gpu, experiment, dir));
  }
  check_outputs({{*path, "replayed record"}}, run.more_outputs, kCommandReport);
  const RunRecord record = load_record(*path);
  const std::vector<std::string> ignored = ignored_options(sub, flags);
  if (!ignored.empty()) {
    std::fprintf(stderr,
                 "pinbench: note: ignored without a GPU: %s (nothing was measured or written)\n",
                 printable(comma_list(ignored)).c_str());
  }
  const std::string notice = fmt::format(
      "No usable GPU here ({}): replaying the {} recorded on {} on {} ({}). Use --require-gpu to "
      "fail instead.",
      no_gpu, experiment_for(experiment).descriptor().noun, record.created_utc.substr(0, 10),
      record.machine.device_name, *path);
  std::printf("%s\n", wrap_paragraph(printable(notice), "", "  ").c_str());
  const int code = print_run(record, options, true);
  if (run.write_from_record) run.write_from_record(record);
  return code;
}

}  // namespace

void print_replaying(const std::string& path, const RunRecord& record) {
  const std::string line = fmt::format("Replaying {}: {}, recorded {}.", path,
                                       record.machine.device_name, record.created_utc);
  std::printf("%s\n", wrap_paragraph(printable(line), "", "  ").c_str());
}

int print_run(const RunRecord& record, const TextOptions& options, bool replayed) {
  const ReportModel model = analyse(record, options);
  std::fputs(render_text(model).c_str(), stdout);
  if (record.wall_ms > 0.0) {
    std::printf("\n%s\n", experiment_for(record.experiment).wall_time(record, replayed).c_str());
  }
  return exit_code(model);
}

RunRecord load_reference(const std::string& path, const std::string& experiment) {
  RunRecord record;
  try {
    record = load_record(path);
  } catch (const InputError& e) {
    // load_record names the file already; said once, after what it is.
    std::string why = e.what();
    const std::string prefix = "'" + path + "': ";
    if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
    const std::string named = "run record '" + path + "'";
    if (const std::size_t at = why.find(named); at != std::string::npos) {
      why.replace(at, named.size(), "the file");
    }
    throw InputError(fmt::format("reference record '{}': {}", path, why));
  }
  if (record.experiment != experiment) {
    throw InputError(fmt::format("reference record '{}' is of experiment '{}', not '{}'", path,
                                 record.experiment, experiment));
  }
  return record;
}

void add_replay_flags(CLI::App* sub, ReplayFlags& flags, const std::string& experiment,
                      bool replays_newest) {
  // Not CLI11's excludes(): the help would list every option under --replay.
  CLI::Option* replay =
      sub->add_option(
             "--replay", flags.replay_path,
             fmt::format(
                 "Print a recorded {} run (e.g. from data/runs/) instead of measuring; takes "
                 "no measuring or output option",
                 experiment))
          ->type_name("FILE");
  CLI::Option* require =
      sub->add_flag("--require-gpu", flags.require_gpu,
                    "Exit 3 without a usable GPU instead of replaying the newest recorded run");
  if (!replays_newest) require->group("");  // an empty group hides it from the help
  // Here, so every measuring subcommand has the one option and the one validation.
  whole<int>(sub->add_option_function<int>(
                 "--device", [&flags](int device) { flags.device = device; },
                 "The CUDA device to measure (host and check: every device unless given); exit "
                 "2 naming the device count when there is no such device"),
             0)
      ->default_str("0")
      ->type_name("N");
  flags.replay = replay;
}

int measure_or_replay(const CLI::App& sub, const ReplayFlags& flags, const MeasuringRun& run) {
  if (!flags.replay_path.empty()) {
    const std::vector<std::string> given = ignored_options(sub, flags);
    if (!given.empty()) {
      throw InputError(fmt::format(
          "--replay excludes {}: a replay prints a recorded run, it measures and writes nothing",
          comma_list(given)));
    }
    check_outputs({{flags.replay_path, "replayed record"}}, run.more_outputs, kCommandReport);
    const RunRecord record = load_replay(flags.replay_path, run.experiments);
    const TextOptions options = print_options(run);
    if (run.print) {
      const int code = run.print(record);
      if (run.write_from_record) run.write_from_record(record);
      return code;
    }
    print_replaying(flags.replay_path, record);
    const int code = print_run(record, options, true);
    if (run.write_from_record) run.write_from_record(record);
    return code;
  }
  // A bad reference, or two outputs on one file, is exit 2 before minutes of measuring, not after.
  const TextOptions options = print_options(run);
  check_output_paths(run.outputs, kCommandReport, {{run.reference_path, "reference record"}},
                     run.more_outputs);
  std::optional<RunRecord> record;
  try {
    const MeasuringScope measuring;
    if (flags.device) cuda::select_device(*flags.device);
    record = run.measure();
  } catch (const NoGpuError& e) {
    if (flags.require_gpu) throw;
    return replay_newest(sub, flags, run, e.what(), options);
  }
  int code = run.print ? 0 : print_run(*record, options);
  write_outputs(*record, run.outputs, !run.print);
  if (run.write_more) run.write_more(*record);
  if (run.write_from_record) run.write_from_record(*record);
  if (run.print) code = run.print(*record);  // last: once everything asked for is written
  // An interrupted run still printed and wrote what it measured; its status says a signal came,
  // even when it came during the last case and the record is whole.
  return stop_requested() ? exit_code_for_signal(stop_signal()) : code;
}

}  // namespace pinbench::cli
