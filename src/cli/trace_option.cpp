// The --trace option and its session. Writing the file is checked first, so a long run never
// ends in "cannot write the trace".
#include "cli/trace_option.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/progress.hpp"
#include "cuda/device.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/printable.hpp"
#include "framework/render/perfetto.hpp"
#include "framework/trace_gates.hpp"

namespace pinbench::cli {

CLI::Option* add_trace_option(CLI::App* sub, std::string& path) {
  return sub
      ->add_option(
          "--trace", path,
          "Trace the run with CUPTI and write a Perfetto timeline (Chrome trace JSON) here; "
          "the memory-kind check (and, for the lesson, prediction 4) then come from the trace")
      ->type_name("FILE");
}

TraceSession::TraceSession(std::string path) : path_(std::move(path)) {
  const std::string probe = path_ + ".tmp";
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("cannot write the trace to '{}'", path_));
  }
  std::remove(probe.c_str());
  std::string why;
  cupti_ = cuda::CuptiTrace::start(&why);
  if (cupti_ == nullptr) {
    std::fprintf(stderr, "pinbench: note: running without a trace: %s\n", printable(why).c_str());
  }
}

std::optional<Trace> TraceSession::finish() {
  if (cupti_ == nullptr) return std::nullopt;
  Trace t = cupti_->finish();
  cupti_.reset();
  write_perfetto(t, path_);
  return t;
}

std::optional<TraceSession> start_trace(const std::string& path) {
  std::optional<TraceSession> trace;
  if (!path.empty() && cuda::no_device_reason().empty()) trace.emplace(path);
  return trace;
}

RunRecord run_traced(const std::string& path, const std::function<RunRecord()>& measure) {
  // Started before the experiment opens its first NVTX range, so the ranges reach it.
  std::optional<TraceSession> trace = start_trace(path);
  RunRecord record = measure();
  if (!trace) return record;
  if (const std::optional<Trace> t = trace->finish()) {
    attach_trace_summary(record, *t, range_gates(),
                         std::filesystem::path(path).filename().string());
    std::printf("Trace written to %s (open it in ui.perfetto.dev).\n", path.c_str());
  }
  return record;
}

RunRecord run_with_progress(const std::string& path, const std::function<RunRecord()>& measure) {
  return run_traced(path, [&] { return with_progress(measure); });
}

}  // namespace pinbench::cli
