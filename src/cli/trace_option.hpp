// `--trace FILE` for every subcommand that measures: the option itself, and a session that
// starts a CUPTI trace before the work and, after it, writes the Perfetto timeline to FILE. When
// CUPTI cannot be used the session says why in one line on stderr and the run goes on untraced.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cuda/cupti_trace.hpp"
#include "framework/record.hpp"
#include "framework/trace_model.hpp"

namespace pinbench::cli {

CLI::Option* add_trace_option(CLI::App* sub, std::string& path);

class TraceSession {
 public:
  // Checks that FILE can be written (InputError, before anything is measured), then starts
  // CUPTI. Start it before the first NVTX range of the process opens.
  explicit TraceSession(std::string path);

  bool active() const { return cupti_ != nullptr; }
  const std::string& path() const { return path_; }

  // Stops the trace and writes FILE. Nothing when CUPTI could not be started.
  std::optional<Trace> finish();

 private:
  std::string path_;
  std::unique_ptr<cuda::CuptiTrace> cupti_;
};

// A session for --trace PATH, or none when PATH is empty or no GPU is usable: without one the
// experiment stops before measuring (and replays a record), so there is nothing to trace and
// CUPTI's complaint about the missing driver would only be noise.
std::optional<TraceSession> start_trace(const std::string& path);

// Runs `measure` inside a trace session when `path` is not empty, then adds the trace's summary
// and memory-kind gates to the record (attach_trace_summary) and says where the timeline went.
// For experiments other than the lesson, which also judges prediction 4 from its trace.
RunRecord run_traced(const std::string& path, const std::function<RunRecord()>& measure);

// run_traced, with progress lines on stderr cleared however `measure` ends: how the long
// experiments measure.
RunRecord run_with_progress(const std::string& path, const std::function<RunRecord()>& measure);

}  // namespace pinbench::cli
