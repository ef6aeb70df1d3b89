// pinbench's one voice for help: every subcommand's help, `pinbench help [SUB]`, and the
// command-line reference in docs/cli.md are rendered from the CLI's own definitions (the options
// CLI11 holds, each command's .help file), so none of them can list an option the others lack.
// Help is wrapped to the terminal's width, or to 100 columns when standard output is not one;
// every value an option takes has a named metavariable (FILE, SIZE, N, ...), and a default is
// shown one way, "(default: X)" at the end of its description.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pinbench::cli {

// The names an option's value may be shown as. An option whose value is named anything else
// (CLI11's own TEXT, INT, FLOAT, ...) is a defect that tests/cpu/test_cli_help.cpp catches.
const std::vector<std::string>& metavariables();

// One option or argument, as help and the reference show it.
struct OptionDoc {
  std::string names;        // "-h, --help", "--sizes", or an argument's metavariable ("RECORD")
  std::string metavar;      // "SIZES"; "" for a flag or an argument
  std::string description;  // without the default
  std::string default_value;
  bool positional = false;
};

// One subcommand (or the program itself, name ""), described from its CLI11 definition.
struct CommandDoc {
  std::string name;
  std::string summary;
  std::string usage;  // "pinbench sweep [OPTIONS]"
  std::vector<OptionDoc> options;
  std::vector<std::string> paragraphs;  // the .help file's details, then its exit codes
};

CommandDoc describe(const CLI::App& app);

// Columns the help is wrapped to: the terminal's when standard output is one (at least 40),
// else 100.
std::size_t help_width();

// The help of `app` (the program or one subcommand) in `width` columns.
std::string render_help(const CLI::App& app, std::size_t width);

// Every subcommand's options, defaults and details, and the CSV report's columns, as markdown:
// the text of docs/cli.md.
std::string render_reference(const CLI::App& root);

// CLI11's help entry points, answered with render_help. Set on the root app before any
// subcommand is added (subcommands take their parent's formatter when they are made).
std::shared_ptr<CLI::FormatterBase> help_formatter();

// The one line main() prints for a command line CLI11 could not read: the option or argument at
// fault, the nearest known option where one was mistyped, and which help to read.
std::string parse_error_line(const CLI::App& root, const CLI::ParseError& e);

// "--json was given an empty value; give one, or leave --json out (see pinbench accel --help)":
// the one line for an empty value of any option of subcommand `command`.
std::string empty_value_line(const std::string& flag, const std::string& command);

// The known word nearest to `word` (edit distance), or "" when none is near enough to be a typo.
std::string nearest(const std::string& word, const std::vector<std::string>& known);

}  // namespace pinbench::cli
