// Shared by the lesson's part files; not a public interface.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "cuda/buffers.hpp"
#include "experiments/lesson/analysis.hpp"
#include "experiments/lesson/measure.hpp"
#include "framework/case_builder.hpp"
#include "framework/record.hpp"
#include "measure/sampler.hpp"

namespace pinbench::experiments::lesson {

struct PartContext {
  const LessonConfig& config;
  RunRecord& record;
  const ProgressFn& progress;
};

void run_copies(PartContext& ctx);     // part 1 and its device-to-host exercise
void run_async(PartContext& ctx);      // part 2
void run_zero_copy(PartContext& ctx);  // part 3

// Parts 1 and 2 copy between these: the reference bytes, a pageable and a pinned host buffer, a
// pinned buffer the device is read back into for checks, and the device buffer.
struct CopyBuffers {
  CopyBuffers(std::size_t bytes, std::uint64_t seed);
  cuda::HostBuffer expected;  // the reference bytes, never copied into or out of
  cuda::HostBuffer pageable;
  cuda::HostBuffer pinned;
  cuda::HostBuffer check;
  cuda::DeviceBuffer device;
  bool pageable_ok = false;  // the buffers passed their memory-kind gates
  bool pinned_ok = false;

  // Adds the gates "kind/<part>/pageable" and "kind/<part>/pinned", and "kind/<part>/check"
  // when `gate_check`.
  void gate_kinds(RunRecord& record, const std::string& part, bool gate_check);
  bool kind_ok(const cuda::HostBuffer* host) const {
    return host == &pinned ? pinned_ok : pageable_ok;
  }
};

// How the lesson samples a case, the page's method in every part.
struct CaseMethod {
  SampleClock clock = SampleClock::kCudaEvents;
  // The page's method is a fixed count; a spread rule would sample each case until it settles.
  StopRule rule = StopRule::fixed(10);
  int max_batch = 1;  // how many timed samples run back to back before one wait and one check
  // Runs the gate copy into a cleared destination; returns its first wrong byte, if any.
  std::function<std::optional<std::size_t>()> gate_copy;
  std::function<void()> warmup;  // the warm-ups, after the gate copy passed
  Sampler::Batch batch;          // clears, times `count` samples, checks the destination
};

// One lesson case: the gate copy, then (when it held) warm-ups and the timed samples. Adds the
// case's gate ("... (before timing)" when the gate copy failed) and returns the case, verified
// when the bytes held before and after timing and `kind_ok`.
Case run_case(PartContext& ctx, CaseSpec spec, bool kind_ok, const CaseMethod& method);

}  // namespace pinbench::experiments::lesson
