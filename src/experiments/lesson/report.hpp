// The lesson's section of the report model (its analysis in model.section).
#pragma once

#include "framework/record.hpp"
#include "framework/report_model.hpp"

namespace pinbench::experiments::lesson {

void build_lesson_section(const RunRecord& record, ReportModel& model);

}  // namespace pinbench::experiments::lesson
