// What the commands that run a user's program (`doctor`, `accel`) share: `--json FILE`,
// `--replay FILE` and the program after `--`, and a replay's rules (no program, none of the
// options that only a run takes).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/program.hpp"
#include "framework/record.hpp"

namespace pinbench::cli {

struct ProgramFlags {
  std::vector<std::string> program;  // the program and its arguments
  std::string json;                  // --json FILE
  std::string replay;                // --replay FILE
  double wait_s = kDescendantWaitS;  // --wait-descendants SECONDS
};

// Adds --json, --replay and --wait-descendants to `sub`, for records of `experiment`, and takes
// the program: the first word that is not one of `sub`'s options, with every word after it, or
// the words after `--`.
void add_program_options(CLI::App* sub, ProgramFlags& flags, const std::string& experiment);

// For --replay: refuses a program, and any option given beside it but those in `keep` (InputError,
// exit 2); loads the record, refuses one of another experiment, prints "Replaying PATH: DEVICE,
// recorded TIME." and a blank line, and returns it.
RunRecord load_program_replay(const CLI::App& sub, const ProgramFlags& flags,
                              const std::string& experiment,
                              const std::vector<std::string>& keep = {});

}  // namespace pinbench::cli
