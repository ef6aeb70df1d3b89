// What a trace adds to any record it was taken beside: the memory-kind gates (did the driver see
// each buffer as the kind its NVTX range names?) and the record's `trace` summary. The ranges
// follow one naming rule, below, which every experiment that traces keeps; the gates it gives
// are listed in docs/record-schema.md.
#pragma once

#include <string>
#include <vector>

#include "framework/record.hpp"
#include "framework/trace_model.hpp"

namespace pinbench {

// The memory-kind check over NVTX ranges named "<part...> <h2d|d2h> <pageable|pinned>" (the
// lesson's) or "sweep <kind>/<method> <h2d|d2h> <pageable|pinned>" (the sweep's): every
// copy in that direction started by a call inside the range must have its host side seen as the
// named kind. One gate per range name, e.g. "trace/kind/async/h2d/pinned". Empty when the trace
// has no such ranges.
std::vector<Gate> check_memory_kinds(const Trace& trace);

// Adds the memory-kind gates and a `trace` object (the trace's size, its notes, where the
// timeline went: `perfetto_file`, "" when none) to the record.
void attach_trace_summary(RunRecord& record, const Trace& trace, const std::string& perfetto_file);

}  // namespace pinbench
