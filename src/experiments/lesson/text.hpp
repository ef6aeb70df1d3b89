// The lesson as text for a terminal: machine, the three parts' tables, the zero-copy byte
// accounting, each prediction with its claims and the numbers behind them, and the checks.
#pragma once

#include <optional>
#include <string>

#include "experiments/lesson/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::lesson {

std::string render_lesson_text(const RunRecord& record, const LessonAnalysis& analysis,
                               const std::optional<ReferenceComparison>& reference);

}  // namespace pinbench::experiments::lesson
