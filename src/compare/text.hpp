// A run comparison as text for a terminal: whether the machines differ (first line), which
// records were compared, a table of every common case with both rates, B/A and a flag, and the
// cases only one record has; for two records measured under different conditions, which differ
// and the rates side by side, judged by nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "framework/record.hpp"

namespace pinbench::compare {

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

// Two records measured under different conditions (condition_differences): which conditions
// differ, then the cases both have side by side, both rates and no B/A, change or flag, and the
// cases only one has; `cases` is nothing where they share none.
std::string render_not_judged(const std::vector<std::string>& condition_differences,
                              const std::optional<Comparison>& cases);

}  // namespace pinbench::compare
