// The run record as one self-contained HTML page: inline CSS and inline SVG, no scripts and
// nothing fetched, so the file can be mailed, archived or opened offline. It shows the machine,
// the verdicts with the numbers that decided them (lesson records), charts of rate against size
// per direction with one colour per memory kind, the lesson's pageable/pinned ratio and async
// call share, a timeline of copies and kernels per stream when a trace sits beside the record,
// every table, the gates, and every case. All text from the record is escaped.
#pragma once

#include <optional>
#include <string>

#include "core/analysis/lesson.hpp"
#include "core/record/record.hpp"
#include "report/trace_timeline.hpp"

namespace pinbench {

struct HtmlExtras {
  std::string record_name;           // how the page names its source, e.g. the file's name
  std::optional<Timeline> timeline;  // from the trace beside the record, if any
  std::string trace_name;
  std::string trace_problem;  // why a trace that was found could not be drawn
};

// `lesson` is the record's lesson analysis, or nullptr for other experiments.
std::string render_html(const RunRecord& record, const LessonAnalysis* lesson,
                        const HtmlExtras& extras);

}  // namespace pinbench
