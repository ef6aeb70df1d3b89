// The run record as GitHub-flavoured markdown, to paste into an issue or a paper draft: the
// machine on one line, the report's tables with numbers right-aligned, the lesson's verdicts
// with the numbers that decided them, and the gates. Text from the record is escaped so a
// stray '|' or '*' cannot break a table.
#pragma once

#include <string>

#include "core/analysis/lesson.hpp"
#include "core/record/record.hpp"

namespace pinbench {

// `lesson` is the record's lesson analysis, or nullptr for other experiments.
std::string render_markdown(const RunRecord& record, const LessonAnalysis* lesson);

// Escapes the characters that GFM would read as table or inline syntax.
std::string markdown_escape(const std::string& text);

}  // namespace pinbench
