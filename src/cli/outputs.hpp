// What every measuring subcommand does with its record: the exit code it implies, and the
// --json, --csv and --markdown files it was asked for.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "framework/record.hpp"
#include "framework/text_file.hpp"

namespace pinbench::cli {

// The files a live run writes; empty: not asked for.
struct OutputPaths {
  std::string json;
  std::string csv;
  std::string markdown;
  std::string trace;  // --trace: the Perfetto timeline, where the command takes it
};

// What a measuring command prints on standard output, which its outputs may then not take ("-").
inline const std::string kCommandReport = "the command's report";

// Refuses (InputError, one line) two outputs on one file, or on standard output, an output over
// one of `inputs` (a replayed record, a reference, the program run) or over pinbench's own files,
// an output on standard output where `stdout_taken_by` goes, and an output that cannot be
// written, before anything is measured or run: a run of minutes must not end in a file that one
// output wrote over another's, or in no record at all. `more`: the command's other outputs
// (blocks: --recommend). framework/text_file.hpp, check_outputs, is the policy.
void check_output_paths(const OutputPaths& paths, const std::string& stdout_taken_by,
                        const std::vector<NamedPath>& inputs = {},
                        const std::vector<NamedPath>& more = {});

// Adds --json, and with `tables` --csv and --markdown, to `sub`.
void add_output_flags(CLI::App* sub, OutputPaths& paths, bool tables = true);

// Writes the record (--json) and its CSV and markdown renderings, each only when its path is not
// empty; files are written whole or not at all. `say`: a line on stdout names the record's file.
void write_outputs(const RunRecord& record, const OutputPaths& paths, bool say = true);

}  // namespace pinbench::cli
