// Each subcommand's help, written as prose in a COMMAND.help file beside its code (the
// experiment's folder, or cli/ and compare/ for the tools over records): its first line is the
// summary `pinbench --help` lists, the paragraphs after it are what `pinbench COMMAND --help`
// prints below the options. CMake builds the files into the binary.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace pinbench::cli {

struct CommandHelp {
  std::string summary;  // one line
  std::string details;  // paragraphs, each on one line; may be empty
};

// The help of `command`; std::out_of_range when it has no COMMAND.help file.
const CommandHelp& command_help(const std::string& command);

// Adds subcommand `name` to `app` with its summary as its description; its help shows the
// details (cli/help_format.hpp).
CLI::App* add_command(CLI::App& app, const std::string& name);

}  // namespace pinbench::cli
