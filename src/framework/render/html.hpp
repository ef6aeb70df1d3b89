// The run record as one self-contained HTML page: inline CSS and inline SVG, no scripts and
// nothing fetched, so the file can be mailed, archived or opened offline. It shows what the
// record's analysis (report_model.hpp) holds: the machine, every verdict group with the numbers
// that decided it, the unstable cases, the experiment's charts, a timeline when a trace sits
// beside the record, every table, the gates, and every case with its stop reason and spread.
// All text from the record is escaped.
#pragma once

#include <optional>
#include <string>

#include "framework/record.hpp"
#include "framework/render/trace_timeline.hpp"
#include "framework/report_model.hpp"

namespace pinbench {

struct HtmlExtras {
  std::string record_name;           // how the page names its source, e.g. the file's name
  std::optional<Timeline> timeline;  // from the trace beside the record, if any
  std::string trace_name;
  std::string trace_problem;  // why a trace that was found could not be drawn
};

// What the page draws beside the record found at `record_path`: the timeline of the trace beside
// it (RUN.trace.json). A damaged trace costs only the timeline: the problem is noted on stderr
// and on the page. Without a trace, render_html draws the run's own timeline, where it has one
// (ReportModel::timeline: a program's calls).
HtmlExtras html_extras_for(const std::string& record_path);

// Renders only from `model`, the analysis of `record` (report_model.hpp); the record supplies
// the gates' list and the date. `extras` without a trace (no timeline, trace_name or
// trace_problem): the run's own timeline, if any (ReportModel::timeline).
std::string render_html(const RunRecord& record, const ReportModel& model,
                        const HtmlExtras& extras);

}  // namespace pinbench
