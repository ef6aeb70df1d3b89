// What a trace adds to any record it was taken beside: the memory-kind gates (did the driver see
// each buffer as the kind its NVTX range names?) and the record's `trace` summary. The ranges
// follow one naming rule, below, which every experiment that traces keeps, and each experiment
// says which ranges are its own and what their gates are called (Experiment::range_gate); the
// gates are listed in docs/record-schema.md.
#pragma once

#include <string>
#include <vector>

#include "framework/record.hpp"
#include "framework/trace_model.hpp"

namespace pinbench {

// The memory-kind check over NVTX ranges named "<words...> <h2d|d2h> <pageable|pinned>" that a
// registered experiment claims (Experiment::range_gate, which names the gate's part): every
// copy in that direction started by a call inside the range must have its host side seen as the
// named kind. One gate per range name, e.g. "trace/kind/async/h2d/pinned". Empty when the trace
// has no such ranges.
std::vector<Gate> check_memory_kinds(const Trace& trace);

// Adds the memory-kind gates and a `trace` object (the trace's size, its notes, where the
// timeline went: `perfetto_file`, "" when none) to the record.
void attach_trace_summary(RunRecord& record, const Trace& trace, const std::string& perfetto_file);

}  // namespace pinbench
