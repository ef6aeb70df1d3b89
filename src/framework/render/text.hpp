// The terminal printer of any run record: what the measuring command printed live, for a live
// run and a replay alike. The lesson, sweep, bandwidthtest, race, staged, staged-tune and
// pipeline keep their own layouts (lesson_text.hpp, sweep_text.hpp, staged_text.hpp), whose
// figures and verdicts come from the same analyses the report model (report_model.hpp) is built
// on; any other experiment is printed from the model itself. Every record then gets the model's
// sampling summary (stop reasons, spread) and unstable cases, so a bimodal or drifting case is
// flagged in the terminal as in every report.
#pragma once

#include <optional>
#include <string>

#include "experiments/lesson/analysis.hpp"
#include "framework/report_model.hpp"
#include "framework/record.hpp"

namespace pinbench {

std::string render_text(const RunRecord& record);
// The same from a model already built from `record`, so a caller printing several formats
// analyses once (check_stability over thousands of samples per case is not free).
// `reference`: a lesson's comparison with a reference record, printed after its predictions.
std::string render_text(const RunRecord& record, const ReportModel& model,
                        const std::optional<ReferenceComparison>& reference = std::nullopt);

// The model alone as text: title, machine, tables, verdict groups, unstable cases, checks.
std::string render_model_text(const ReportModel& model);

// One paragraph on how the cases were sampled: their stop reasons, counted, and their spread.
std::string render_sampling_text(const ReportModel& model);

// The "Unstable cases" block, empty when every case is steady.
std::string render_flags_text(const ReportModel& model);

}  // namespace pinbench
