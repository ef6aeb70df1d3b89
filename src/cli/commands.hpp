// Each subcommand registers its options on the app and returns the function that runs it.
// Commands throw pinbench's error types; main() maps them to exit codes.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace pinbench::cli {

struct Command {
  CLI::App* app = nullptr;   // the subcommand, to ask whether it was given
  std::function<int()> run;  // returns the exit code
};

// The tools over records and the machine; each experiment's commands are its own, listed by the
// registry (src/experiments/registry.def).
Command add_info(CLI::App& app);
Command add_report(CLI::App& app);
Command add_compare(CLI::App& app);

}  // namespace pinbench::cli
