// Shared by the lesson's part files; not a public interface.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "core/analysis/lesson.hpp"
#include "core/record/case_builder.hpp"
#include "core/record/record.hpp"
#include "experiments/lesson.hpp"
#include "experiments/sampler.hpp"

namespace pinbench::lesson {

struct PartContext {
  const LessonConfig& config;
  RunRecord& record;
  const ProgressFn& progress;
};

void run_copies(PartContext& ctx);     // part 1 and its device-to-host exercise
void run_async(PartContext& ctx);      // part 2
void run_zero_copy(PartContext& ctx);  // part 3

// How the lesson samples a case, the page's method in every part.
struct CaseMethod {
  SampleClock clock = SampleClock::kCudaEvents;
  int iterations = 10;  // a fixed count: the page's method
  int max_batch = 1;    // how many timed samples are queued back to back before one wait
  // Runs the gate copy into a cleared destination; returns its first wrong byte, if any.
  std::function<std::optional<std::size_t>()> gate_copy;
  std::function<void()> warmup;  // the warm-ups, after the gate copy passed
  Sampler::Batch batch;          // clears, times `count` samples, checks the destination
};

// One lesson case: the gate copy, then (when it held) warm-ups and the timed samples. Adds the
// case's gate ("... (before timing)" when the gate copy failed) and returns the case, verified
// when the bytes held before and after timing and `kind_ok`.
Case run_case(PartContext& ctx, CaseSpec spec, bool kind_ok, const CaseMethod& method);

}  // namespace pinbench::lesson
