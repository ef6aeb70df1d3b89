// `pinbench accel [options] -- PROGRAM [ARGS...]`: runs PROGRAM with accel's library preloaded
// (src/experiments/accel/interpose/), then reads the counters every process of it left, builds
// the accel record and prints its report on stderr (the program owns stdout). `--replay FILE`
// prints a recorded run.
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/program.hpp"
#include "cli/program_command.hpp"
#include "cli/replay.hpp"
#include "experiments/accel/summary.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/printable.hpp"
#include "framework/program_config.hpp"
#include "framework/program_sight.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "measure/run_record.hpp"

namespace pinbench::experiments::accel {
namespace {

using namespace pinbench::cli;
namespace acc = pinbench::experiments::accel;

constexpr const char* kLibraryName = "libpinbench_accel.so";

// A folder of its own for the processes' counter files, removed with them on every way out.
class CounterFolder {
 public:
  CounterFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/pinbench-accel-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw InputError(fmt::format("cannot create accel's counter folder {}: {}", pattern,
                                   std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~CounterFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  CounterFolder(const CounterFolder&) = delete;
  CounterFolder& operator=(const CounterFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

int run_accel(const CLI::App& sub, const ProgramFlags& flags) {
  if (!flags.replay.empty()) return print_run(load_program_replay(sub, flags, "accel"), {}, true);
  const ProgramToRun program = program_to_run(flags, "accel", kLibraryName, "pinbench_accel");
  check_output_paths({flags.json, "", "", ""}, kProgramOutput, program.inputs);
  const CounterFolder folder;

  const auto t0 = SteadyClock::now();
  ProgramRun ran;
  const ProgramExit done = run_with_library(
      program, flags,
      {"accel's library goes before it, and the copies accel does not route pass on to it",
       {"PINBENCH_ACCEL_"},
       {"PINBENCH_ACCEL_DIR=" + folder.path()}},
      ran);
  acc::AccelRun run = acc::read_counter_folder(folder.path());
  static_cast<ProgramRun&>(run) = ran;
  run.driver = done.driver;

  // The machine is described once the program is gone, so pinbench's own CUDA context never
  // shares the GPU with it; a program that used no CUDA needs no GPU described, and the record
  // says why it describes none.
  const bool used_cuda =
      std::any_of(run.processes.begin(), run.processes.end(),
                  [](const acc::AccelProcess& p) { return p.driver || p.called; });
  RunRecord record = start_host_record(
      "accel", run.driver.missing() ? no_driver_words(run.driver)
                                    : "not asked for: accel saw no process of the program load "
                                      "the CUDA driver");
  if (used_cuda && !run.driver.missing()) {
    try {
      record = start_record("accel", nlohmann::json::object());
    } catch (const NoGpuError& e) {
      record = start_host_record("accel", e.what());
    }
  }
  put_fields(record.config, ProgramRecordConfig{flags.program.front()});
  record.sections[acc::kAccelSection] = acc::to_json(run);
  finish_record(record, t0);

  const ReportModel model = analyse(record);
  std::fputs("\n", stderr);
  std::fputs(render_text(model).c_str(), stderr);
  if (!flags.json.empty()) {
    save_record(record, flags.json);
    std::fprintf(stderr, "Record written to %s (pinbench accel --replay %s)\n",
                 printable(flags.json).c_str(), printable(flags.json).c_str());
  }
  return exit_status_of(done);
}

Command add_accel(CLI::App& app) {
  CLI::App* sub = add_command(app, "accel");
  auto flags = std::make_shared<ProgramFlags>();
  add_program_options(sub, *flags, "accel");
  return {sub, [sub, flags] { return run_accel(*sub, *flags); }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_accel(app)};
}

}  // namespace pinbench::experiments::accel
