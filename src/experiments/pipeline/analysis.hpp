// Turning a `pinbench pipeline` record into rows: each run's time against its bound, and the
// goals' verdicts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/pipeline/plan.hpp"
#include "framework/record.hpp"
#include "framework/verdict.hpp"

namespace pinbench::experiments::pipeline {

struct PipelineRow {
  std::string source;  // "pinned", "staged"
  int streams = 0;
  std::uint64_t array_bytes = 0;
  std::uint64_t chunk_bytes = 0;
  std::optional<double> ms;                 // the whole array in and out
  std::optional<double> gb_per_s_each_way;  // array bytes / ms, each direction
  std::optional<double> copy_bound_ms;      // both directions at once, page-locked, same chunks
  std::optional<double> kernel_ms;          // the kernel over the whole array, device-resident
  // The staged source only: the engine's host side filling and draining the array at once
  // while the copy engine moves as many bytes each way (the host's memory carries both).
  std::optional<double> host_bound_ms;
  std::optional<double> bound_ms;    // the largest of those measured for this source
  std::optional<double> efficiency;  // bound_ms / ms
  // The staged source only: its rate over the page-locked source's at the same stream count.
  std::optional<double> over_pinned;
};

struct PipelineGoal {
  std::string source;
  std::string text;
  Verdict verdict = Verdict::kNotEvaluated;
  std::string evidence;
};

// What the printer reads of the config (PipelineRecordConfig, plan.hpp).
PipelineRecordConfig pipeline_config_from(const nlohmann::json& config);

struct PipelineAnalysis {
  std::vector<PipelineRow> rows;
  std::vector<PipelineGoal> goals;
  PipelineRecordConfig config;
};

// Goal: two streams at `efficiency` of the bound or better from page-locked memory, and at
// `staged_efficiency` of its own bound (the host side counted) through the staged engine.
PipelineAnalysis analyse_pipeline(const RunRecord& record, double efficiency = 0.95,
                                  double staged_efficiency = 0.90);

}  // namespace pinbench::experiments::pipeline
