// Running the Day 53 lesson on the GPU: the three parts, each in its own file, produce the
// cases and gates of one RunRecord. The analysis lives in analysis.hpp and never needs a GPU.
#pragma once

#include "experiments/lesson/analysis.hpp"
#include "framework/record.hpp"
#include "measure/progress.hpp"

namespace pinbench::experiments::lesson {

// Checks that the run fits the device and the host (InputError when it cannot), then measures
// parts 1 to 3. Throws NoGpuError without a usable GPU and CudaError when CUDA fails; a failed
// byte-exact gate is recorded, not thrown.
RunRecord run_lesson(const LessonConfig& config, const ProgressFn& progress);

}  // namespace pinbench::experiments::lesson
