// A run comparison as text for a terminal: whether the machines differ (first line), which
// records were compared, a table of every common case with both rates, B/A and a flag, and the
// cases only one record has.
#pragma once

#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "framework/record.hpp"

namespace pinbench {

// `a_name` and `b_name` are how the records are named, e.g. their paths.
std::string render_comparison(const Comparison& comparison, const RunRecord& a,
                              const std::string& a_name, const RunRecord& b,
                              const std::string& b_name);

// Its two parts: whether the machines differ and which records are compared (the first lines),
// then the cases (the rates, the table, the summary, the cases only one record has).
std::string render_records_compared(const std::vector<std::string>& machine_differences,
                                    const RunRecord& a, const std::string& a_name,
                                    const RunRecord& b, const std::string& b_name);
std::string render_cases_compared(const Comparison& comparison);

}  // namespace pinbench
