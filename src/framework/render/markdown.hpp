// The run record as GitHub-flavoured markdown, to paste into a bug report or a paper draft: the
// machine on one line, the report's tables with numbers right-aligned, every verdict group with
// the numbers that decided it, the unstable cases, the gates, and every case. Text from the record
// is escaped so a stray '|' or '*' cannot break a table.
#pragma once

#include <string>

#include "framework/record.hpp"
#include "framework/report_model.hpp"

namespace pinbench {

// Renders only from the record's analysis (report_model.hpp).
std::string render_markdown(const ReportModel& model);

// Escapes the characters that GFM would read as table or inline syntax.
std::string markdown_escape(const std::string& text);

}  // namespace pinbench
