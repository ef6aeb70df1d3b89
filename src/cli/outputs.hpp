// What every measuring subcommand does with its record: the exit code it implies, and the
// --json, --csv and --markdown files it was asked for.
#pragma once

#include <string>

#include "core/record/record.hpp"

namespace pinbench::cli {

// 0 when every gate passed, 1 otherwise.
int exit_code(const RunRecord& record);

// Writes the record (--json) and its CSV and markdown renderings, each only when its path is not
// empty; files are written whole or not at all.
void write_outputs(const RunRecord& record, const std::string& json_path,
                   const std::string& csv_path = "", const std::string& markdown_path = "");

}  // namespace pinbench::cli
