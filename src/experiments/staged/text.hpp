// Terminal renderings of `pinbench staged` and `pinbench staged --tune`: the rates by method and
// size, the ratios the goals are about, the verdicts and the checks; and the staged tables'
// columns, which the staged model section (experiment.cpp) shares.
#pragma once

#include <string>
#include <vector>

#include "experiments/staged/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::staged {

// A direction's columns, as the terminal's tables and the report model's table both show them:
// the methods measured that way (no column of dashes for a path of the other direction), then
// the ratios the goals judge and the engine's bound.
struct StagedColumns {
  std::vector<std::string> methods;
  bool back_to_back = false;  // staged-back-to-back is among them: its ratios get columns
  bool bounded = false;       // some size has the engine's bound
  // The rate of each method at `row`, a dash where it has none.
  std::vector<std::string> rate_cells(const StagedRow& row) const;
  // The ratio and bound columns' names, then "staged path"; `b2b` names staged-back-to-back.
  std::vector<std::string> ratio_header(const std::string& b2b) const;
  std::vector<std::string> ratio_cells(const StagedRow& row) const;
};
StagedColumns staged_columns(const StagedAnalysis& analysis, const std::string& direction);

// The engine's CPU while copying in `direction`, one row a size: for each engine method measured
// with its CPU figures, the system share, context switches a second and cores busy. Empty when
// the record has no CPU figures that way (records made before pinbench measured them).
struct StagedCpuColumns {
  std::vector<std::string> methods;  // "staged", "staged-back-to-back", those with figures
  std::vector<std::string> header(const std::string& b2b) const;  // three columns a method
  std::vector<std::string> cells(const StagedRow& row) const;
};
StagedCpuColumns staged_cpu_columns(const StagedAnalysis& analysis, const std::string& direction);
// What the CPU columns mean, in a sentence.
extern const char* const kStagedCpuLegend;

// Each from its record's analysis, as the model's section holds it.
std::string render_staged_text(const RunRecord& record, const StagedAnalysis& analysis);
std::string render_staged_tune_text(const RunRecord& record, const TuneAnalysis& analysis);

}  // namespace pinbench::experiments::staged
