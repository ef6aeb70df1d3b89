// The options and replay rules of the commands that run a user's program (program_command.hpp).
#include "cli/program_command.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/paths.hpp"
#include "cli/program.hpp"
#include "cli/replay.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/interrupt.hpp"
#include "framework/printable.hpp"

namespace pinbench::cli {

ProgramToRun program_to_run(const ProgramFlags& flags, const std::string& command,
                            const std::string& library_file, const std::string& target) {
  if (flags.program.empty()) {
    throw InputError(
        fmt::format("no program given: pinbench {} [options] -- PROGRAM [ARGS...]", command));
  }
  ProgramToRun out;
  out.path = resolve_program(flags.program.front());
  out.library = program_library(library_file, target);
  out.inputs = program_inputs(out.path, flags.program, out.library);
  return out;
}

ProgramExit run_with_library(const ProgramToRun& program, const ProgramFlags& flags,
                             const LibrarySetup& setup, ProgramRun& run) {
  std::vector<std::string> drop = setup.own;
  drop.push_back("LD_PRELOAD=");
  std::vector<std::string> env = {"LD_PRELOAD=" +
                                  preload_with(program.library, setup.preload_note)};
  env.insert(env.end(), setup.env.begin(), setup.env.end());
  ProgramExit done = run_program(program.path, flags.program, drop, env, flags.wait_s);
  run.command = flags.program;
  run.exit_status = done.signal != 0 ? 0 : done.exit_status;
  run.signal = done.signal != 0 ? describe_signal(done.signal) : "";
  run.wall_ms = done.wall_ms;
  run.still_running = done.still_running;
  // Once the program is gone: whether the CUDA driver loads here, a fact for what was not seen.
  done.driver = probe_cuda_driver();
  return done;
}

void add_program_options(CLI::App* sub, ProgramFlags& flags, const std::string& experiment) {
  sub->add_option("--json", flags.json,
                  fmt::format("Write the run record (experiment {}) to FILE", experiment))
      ->type_name("FILE");
  sub->add_option("--replay", flags.replay,
                  fmt::format("Print a recorded {} run instead of running one", experiment))
      ->type_name("FILE");
  sub->add_option(
         "--wait-descendants", flags.wait_s,
         "After the program exits, wait up to SECONDS for the processes it started that "
         "still run (0: do not wait; Ctrl-C stops the wait); those still running then are named in "
         "the report")
      ->default_str(fmt::format("{:g}", kDescendantWaitS))
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, kMaxDescendantWaitS));
  sub->add_option("program", flags.program, "The program and its arguments, after --")
      ->type_name("PROGRAM");
}

std::vector<std::string> program_after_marker(const CLI::App& sub,
                                              const std::vector<std::string>& args) {
  std::vector<std::string> out = args;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return out;  // said already
    if (a.size() > 1 && a[0] == '-') {
      // One of pinbench's options: skip its value when it takes one and was not given "=VALUE".
      const std::string name = a.substr(0, a.find('='));
      const CLI::Option* o = sub.get_option_no_throw(name);
      if (o != nullptr && a.find('=') == std::string::npos && o->get_items_expected_min() > 0) ++i;
      continue;
    }
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(i), "--");
    return out;
  }
  return out;
}

std::vector<NamedPath> program_inputs(const std::string& program,
                                      const std::vector<std::string>& argv,
                                      const std::string& library) {
  std::vector<NamedPath> inputs = {{program, "program"}, {library, "library pinbench loads"}};
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const std::size_t eq = a.find('=');
    for (const std::string& path :
         {a, eq == std::string::npos ? std::string() : a.substr(eq + 1)}) {
      if (!path.empty() && file_identity(path)) inputs.push_back({path, "program's argument"});
    }
  }
  return inputs;
}

RunRecord load_program_replay(const CLI::App& sub, const ProgramFlags& flags,
                              const std::string& experiment, const std::vector<std::string>& keep) {
  if (!flags.program.empty()) throw InputError("--replay takes no program");
  for (const CLI::Option* o : sub.get_options()) {
    const std::string name = o->get_name();
    const bool kept = std::find(keep.begin(), keep.end(), name) != keep.end();
    if (o->count() > 0 && !kept && name != "--replay" && name != "--help" && name != "program") {
      throw InputError(fmt::format("--replay excludes {}: a replay prints a recorded run", name));
    }
  }
  RunRecord record = load_record(flags.replay);
  if (record.experiment != experiment) {
    throw InputError(fmt::format("run record '{}' is of experiment '{}', not '{}'", flags.replay,
                                 record.experiment, experiment));
  }
  print_replaying(flags.replay, record);
  return record;
}

}  // namespace pinbench::cli
