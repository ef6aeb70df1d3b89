// `pinbench compare`, the command: its options and its run (command.cpp). The CLI adds it beside
// the tools over records (cli/commands.hpp) and each experiment's own commands.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace pinbench::compare {

cli::Command add_compare(CLI::App& app);

}  // namespace pinbench::compare
