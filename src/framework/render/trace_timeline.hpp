// The HTML report's timeline: reads a Chrome trace-event file (the JSON Perfetto and
// chrome://tracing open: {"traceEvents": [...]}) that sits beside a run record, and draws its
// complete events ("ph": "X") as rectangles, one lane per thread id (a CUDA stream, for traces
// pinbench writes) and kind of event (a host thread's NVTX ranges apart from its API calls),
// against time in ms. Only the reader lives here; pinbench's trace writer is
// elsewhere. Lanes take their names from "thread_name" metadata events.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pinbench {

struct TimelineEvent {
  std::string name;
  std::string category;  // the event's "cat", else guessed from its name ("copy", "kernel")
  double start_ms = 0;   // from the trace's first event
  double duration_ms = 0;
};

struct TimelineLane {
  std::string label;                  // the thread's name, else "pid P, tid T"
  std::vector<TimelineEvent> events;  // in start order
};

struct Timeline {
  std::vector<TimelineLane> lanes;      // ordered by process id, then thread id
  std::vector<std::string> categories;  // in order of first appearance
  double span_ms = 0;                   // first start to last end
  std::size_t event_count = 0;
};

// Where a record's trace sits: "run.json" -> "run.trace.json" (a name without ".json" gets
// ".trace.json" appended).
std::string trace_path_for(const std::string& record_path);

// Throws InputError naming the file when it cannot be read, is not a trace, or holds no
// complete events. Malformed single events are skipped, as trace viewers do.
Timeline read_trace(const std::string& path);
Timeline timeline_from_json(const nlohmann::json& trace);

// An SVG chart of the timeline; `title` heads it.
std::string render_timeline(const Timeline& timeline, const std::string& title);

}  // namespace pinbench
