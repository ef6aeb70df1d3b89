// What every measuring subcommand does with its record: the exit code it implies, and the
// --json, --csv and --markdown files it was asked for.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "framework/record.hpp"

namespace pinbench::cli {

// The files a live run writes; empty: not asked for.
struct OutputPaths {
  std::string json;
  std::string csv;
  std::string markdown;
  std::string trace;  // --trace: the Perfetto timeline, where the command takes it
};

// Refuses (InputError, one line) two outputs on one file, or on standard output, before anything
// is measured: a run of minutes must not end in a file that one output wrote over another's.
void check_output_paths(const OutputPaths& paths);

// Adds --json, and with `tables` --csv and --markdown, to `sub`.
void add_output_flags(CLI::App* sub, OutputPaths& paths, bool tables = true);


// Writes the record (--json) and its CSV and markdown renderings, each only when its path is not
// empty; files are written whole or not at all.
void write_outputs(const RunRecord& record, const OutputPaths& paths);

}  // namespace pinbench::cli
