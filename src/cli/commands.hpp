// Each subcommand registers its options on the app and returns the function that runs it.
// Commands throw pinbench's error types; main() maps them to exit codes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pinbench::cli {

struct Command {
  CLI::App* app = nullptr;   // the subcommand, to ask whether it was given
  std::function<int()> run;  // returns the exit code
};

// The tools over records and the machine (`pinbench compare` is compare/command.hpp's); each
// experiment's commands are its own, listed by the registry (src/experiments/registry.def).
Command add_info(CLI::App& app);
Command add_report(CLI::App& app);
// `pinbench help [SUBCOMMAND]`, and `--reference`: docs/cli.md.
Command add_help(CLI::App& app);

// "unknown subcommand 'X'; did you mean 'Y'? (see pinbench help)", without the guess when no
// known name is near.
std::string unknown_subcommand_message(const std::string& name,
                                       const std::vector<std::string>& known);

}  // namespace pinbench::cli
