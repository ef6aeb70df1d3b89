// What the commands that run a user's program (`doctor`, `accel`) share: `--json FILE`,
// `--replay FILE` and the program after `--`, and a replay's rules (no program, none of the
// options that only a run takes).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/program.hpp"
#include "framework/record.hpp"
#include "framework/text_file.hpp"

namespace pinbench::cli {

struct ProgramFlags {
  std::vector<std::string> program;  // the program and its arguments
  std::string json;                  // --json FILE
  std::string replay;                // --replay FILE
  double wait_s = kDescendantWaitS;  // --wait-descendants SECONDS
};

// Adds --json, --replay, --wait-descendants and the positional program to `sub`, for records of
// `experiment`.
void add_program_options(CLI::App* sub, ProgramFlags& flags, const std::string& experiment);

// `args` (the words after the subcommand's name) with `--` put before the program's name where
// it was left out: the program is the first word that is neither one of `sub`'s options nor an
// option's value, and every word from it on is the program's. So `accel ./train --json x` passes
// --json to ./train, as `accel -- ./train --json x` does, and is never taken by pinbench.
std::vector<std::string> program_after_marker(const CLI::App& sub,
                                              const std::vector<std::string>& args);

// What a program's run reads, runs or loads, which no output may replace: the program, each file
// an argument names (a script, `--config=FILE` after its '='), and the library pinbench loads
// into it.
std::vector<NamedPath> program_inputs(const std::string& program,
                                      const std::vector<std::string>& argv,
                                      const std::string& library);

// A program to run with one of pinbench's libraries in each of its processes: the program's path
// (resolve_program), the library's (program_library, cli/paths.hpp), and what no output may
// replace (program_inputs).
struct ProgramToRun {
  std::string path;
  std::string library;
  std::vector<NamedPath> inputs;
};

// flags.program and `library_file` (built by the CMake target `target`) found, for the command
// `command`; InputError naming what is missing: "no program given: pinbench accel [options] --
// PROGRAM [ARGS...]", the program, or the library.
ProgramToRun program_to_run(const ProgramFlags& flags, const std::string& command,
                            const std::string& library_file, const std::string& target);

// The library's place in the program's environment: `preload_note` is what an LD_PRELOAD the
// user set means beside it (preload_with); `own` the prefixes of the library's own variables,
// which the program gets only as `env` sets them.
struct LibrarySetup {
  const char* preload_note;
  std::vector<std::string> own;
  std::vector<std::string> env;
};

// The one way doctor and accel run a program: `program` with its library preloaded into every
// process, waited for, and what it left waited for up to flags.wait_s seconds, with every signal
// handled as run_program handles it; then whether the CUDA driver loads here (ProgramExit::driver),
// asked once the program is gone. `run` gets the command and how it ended.
ProgramExit run_with_library(const ProgramToRun& program, const ProgramFlags& flags,
                             const LibrarySetup& setup, ProgramRun& run);

// Where a program's own output goes, which doctor's and accel's outputs may not take ("-").
inline const std::string kProgramOutput = "the program's own output";

// For --replay: refuses a program, and any option given beside it but those in `keep` (InputError,
// exit 2); loads the record, refuses one of another experiment, prints "Replaying PATH: DEVICE,
// recorded TIME." and a blank line, and returns it.
RunRecord load_program_replay(const CLI::App& sub, const ProgramFlags& flags,
                              const std::string& experiment,
                              const std::vector<std::string>& keep = {});

}  // namespace pinbench::cli
