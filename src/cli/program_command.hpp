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

// Where a program's own output goes, which doctor's and accel's outputs may not take ("-").
inline const std::string kProgramOutput = "the program's own output";

// For --replay: refuses a program, and any option given beside it but those in `keep` (InputError,
// exit 2); loads the record, refuses one of another experiment, prints "Replaying PATH: DEVICE,
// recorded TIME." and a blank line, and returns it.
RunRecord load_program_replay(const CLI::App& sub, const ProgramFlags& flags,
                              const std::string& experiment,
                              const std::vector<std::string>& keep = {});

}  // namespace pinbench::cli
