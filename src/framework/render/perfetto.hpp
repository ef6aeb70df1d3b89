// A trace as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing
// open: one process for the host with a track per host thread (NVTX ranges and runtime API
// calls), one process for the GPU with a track per stream (copies and kernels), and a flow arrow
// from each API call to the copy or kernel it started, joined on the correlation id. Times are
// microseconds from the trace's origin, the start of the run.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "framework/trace_model.hpp"

namespace pinbench {

// The whole document. Deterministic: the same trace gives the same JSON, byte for byte.
nlohmann::json perfetto_json(const Trace& trace);

// The document as text: one event per line, invalid UTF-8 in names replaced, so any trace
// serialises.
std::string perfetto_text(const Trace& trace);

// Writes perfetto_text to a temporary file beside `path` and renames it into place. Throws
// InputError when the file cannot be written.
void write_perfetto(const Trace& trace, const std::string& path);

// The trace back from a timeline this writer made, times in ns from its origin (0), so a
// committed timeline can be judged again. Throws InputError for anything else.
Trace trace_from_perfetto(const nlohmann::json& doc);

}  // namespace pinbench
