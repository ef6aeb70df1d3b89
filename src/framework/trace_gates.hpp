// What a trace adds to any record it was taken beside: the memory-kind gates (did the driver see
// each buffer as the kind its NVTX range names?) and the record's `trace` summary. The ranges
// follow one naming rule, below, which every experiment that traces keeps, and each experiment
// lists which ranges are its own and what their gates are called (RangeGate, in its descriptor:
// framework/experiment.hpp); the gates are listed in docs/record-schema.md.
#pragma once

#include <string>
#include <vector>

#include "framework/record.hpp"
#include "framework/trace_model.hpp"

namespace pinbench {

// An NVTX range that the memory-kind gate checks: named `range`, then a direction and a
// host-memory kind ("part2 async h2d pinned"), and checked as the gate's part `part`
// ("trace/kind/async/h2d/pinned"). A word "{}" of `range` stands for any one word, which the
// part takes in place of its own "{}": {"sweep {}", "sweep/{}"} checks "sweep registered/ce h2d
// pinned" as "trace/kind/sweep/registered/ce/h2d/pinned".
struct RangeGate {
  std::string range;  // "part1", "part2 async", "sweep {}"
  std::string part;   // "copy", "async", "sweep/{}"
};

// The memory-kind check over NVTX ranges named "<words...> <h2d|d2h> <pageable|pinned>" that one
// of `claims` names (every registered experiment's: range_gates(), framework/by_experiment.hpp):
// every copy in that direction started by a call inside the range must have its host side seen
// as the named kind. One gate per range name, e.g. "trace/kind/async/h2d/pinned". Empty when the
// trace has no such ranges.
std::vector<Gate> check_memory_kinds(const Trace& trace, const std::vector<RangeGate>& claims);

// Adds the memory-kind gates of `claims` and a `trace` object (the trace's size, its notes, where
// the timeline went: `perfetto_file`, "" when none) to the record.
void attach_trace_summary(RunRecord& record, const Trace& trace,
                          const std::vector<RangeGate>& claims, const std::string& perfetto_file);

}  // namespace pinbench
