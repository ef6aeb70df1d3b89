// The run record as CSV: a header row and one row per measured case, in the record's order, for
// spreadsheets and scripts, then one row per judged claim. RFC 4180: CRLF line ends, and a field
// holding a comma, quote or line break is quoted with its quotes doubled. A case whose gate failed
// keeps its row but has empty figures, so no spreadsheet can pick up a rate whose bytes were wrong.
#pragma once

#include <string>
#include <vector>

#include "framework/record.hpp"
#include "framework/report_model.hpp"

namespace pinbench {

// Columns: experiment .. extra as before, then stop (why sampling stopped, "not recorded" in
// older records), rel_spread (standard deviation / mean of the times), stability and its
// detail; then the verdicts, one row per claim with part "claim" and the columns verdict_group
// ("predictions", "goals"), item (the prediction's or goal's number), claim, verdict, evidence.
// A model with no case but tables (accel, doctor) is its tables instead, one row per cell:
// experiment, table (its id), row (from 1), column (its header), value.
std::string render_csv(const ReportModel& model);

// A column of the CSV report: its name and what it holds.
struct CsvColumn {
  const char* name;
  const char* meaning;
};
// The columns of a record with cases, in order: the header row is made from this list, and the
// command-line reference (docs/cli.md) lists it.
const std::vector<CsvColumn>& csv_case_columns();
// The columns of a record with no case but tables (accel, doctor).
const std::vector<CsvColumn>& csv_table_columns();

// One field, quoted when RFC 4180 requires it. A field that a spreadsheet would run as a formula
// (it starts with =, +, -, @, a tab or a carriage return and is not a number) gets a leading
// apostrophe: a stranger's host name "=HYPERLINK(...)" reads as text.
std::string csv_field(const std::string& text);

}  // namespace pinbench
