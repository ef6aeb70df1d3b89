// The terminal printer of any run record: what the measuring command printed live, for a live
// run and a replay alike. Each experiment lays out its own text from its section of the report
// model, or the model itself, when the record is analysed (ReportModel::text); every layout ends
// with the model's sampling summary (stop reasons, spread) and unstable cases, so a bimodal or
// drifting case is flagged in the terminal as in every report.
#pragma once

#include <string>

#include "framework/record.hpp"
#include "framework/render/text_table.hpp"
#include "framework/report_model.hpp"

namespace pinbench {

// `text` as lines of at most `width` columns (display_width), broken at spaces: the first line
// starts with `first`, the others with `rest`; each line ends in a line break. A word wider than
// a line has one of its own.
std::string wrap_paragraph(const std::string& text, const std::string& first = "",
                           const std::string& rest = "", std::size_t width = kTextColumns);

// Every line of a printed report that is prose and wider than `width`, wrapped: under its own
// indent, or under the text after a leading label ("Units:   ", "FAILED: ", "- "). A table's
// header, ruler and rows (columns apart by two spaces or more) are left as they are.
std::string wrap_text(const std::string& text, std::size_t width = kTextColumns);

// The machine a record was measured on, four lines: device, link, driver and runtime, host.
std::string render_machine(const MachineInfo& m);

// What the record's experiment prints for it: the model's text, as the analysis laid it out (a
// caller printing several formats analyses once: check_stability over thousands of samples per
// case is not free), or the model itself as text where it has none (a model made by hand).
std::string render_text(const ReportModel& model);

// An experiment's own layout as printed: the INCOMPLETE note first where the run was cut, then
// `body`, then the sampling paragraph and the unstable cases.
std::string with_sampling(const RunRecord& record, const ReportModel& model,
                          const std::string& body);

// The model alone as text: title, machine, tables, verdict groups, unstable cases, checks.
std::string render_model_text(const ReportModel& model);

// One paragraph on how the cases were sampled: their stop reasons, counted, and their spread.
std::string render_sampling_text(const ReportModel& model);

// The "Unstable cases" block, empty when every case is steady.
std::string render_flags_text(const ReportModel& model);

// A layout's closing "Checks" block from the record's gates: every failed gate, else "Passed
// (N gates): WHAT_PASSED", else, with nothing gated, that there were no gates.
std::string render_gate_checks(const RunRecord& record, const std::string& what_passed);
// The same for a record whose gates are each case's byte check and each buffer's kind.
std::string render_copy_gate_checks(const RunRecord& record);

}  // namespace pinbench
