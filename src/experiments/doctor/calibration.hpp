// The doctor's calibration: after the program under test exited, the machine's own rates for
// the copies it made, pageable against page-locked, at the sizes it used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/doctor/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::doctor {

struct CalibrationSize {
  std::string direction;  // "h2d" or "d2h"
  std::uint64_t bytes = 0;
};

// The sizes worth calibrating: per direction, the (at most) `per_direction` sizes that moved
// the most pageable bytes, each capped at `max_bytes`.
std::vector<CalibrationSize> calibration_sizes(
    const std::vector<std::pair<std::string, std::uint64_t>>& copies, std::size_t per_direction,
    std::uint64_t max_bytes);

// Adds one case per size and memory kind (pageable, pinned) to `record`, each gated on the
// buffers' kinds and the bytes that arrived. Throws NoGpuError without a usable GPU.
void calibrate_doctor(RunRecord& record, const std::vector<CalibrationSize>& sizes);

// Adds what `plan` asks (doctor_calibration_plan): the small-copy cases (part kSmallCopyPart:
// one call per copy, one batch, one contiguous copy; extra "chunks" the copies per sample) and
// the NUMA cases (part kNumaPart; extra "host_numa_node", each buffer's pages gated on it), all
// gated as the others. Nothing for an empty plan. Throws NoGpuError without a usable GPU.
void calibrate_doctor_plan(RunRecord& record, const DoctorCalibrationPlan& plan);

}  // namespace pinbench::experiments::doctor
