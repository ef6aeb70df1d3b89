#include "framework/program_sight.hpp"

#include <fmt/format.h>

namespace pinbench {

void put_driver(nlohmann::json& sight, const DriverSight& d) {
  if (!d.recorded()) return;
  sight["driver"] = d.missing() ? "missing" : "loaded";
  if (d.missing()) sight["driver_error"] = d.error;
}

DriverSight driver_from(const JsonFields& sight) {
  DriverSight d;
  if (!sight.has("driver")) return d;
  d.state = sight.one_of("driver", {"loaded", "missing"}) == "missing"
                ? DriverSight::State::kMissing
                : DriverSight::State::kLoaded;
  d.error = sight.text_or("driver_error", "");
  if (!d.missing() && !d.error.empty()) {
    refuse_field(sight.field("driver_error"), "is set, but the driver was loaded");
  }
  return d;
}

void put_program_run(nlohmann::json& section, const ProgramRun& run) {
  section["command"] = run.command;
  section["exit_status"] = run.exit_status;
  section["signal"] = run.signal;
  section["wall_ms"] = run.wall_ms;
  if (!run.still_running.empty()) section["still_running"] = run.still_running;
}

void read_program_run(const JsonFields& section, ProgramRun& run) {
  run.command = section.texts("command");
  run.exit_status = section.exit_status("exit_status");
  run.signal = section.text_or("signal", "");
  run.wall_ms = section.ms("wall_ms");
  run.still_running = section.texts_or_none("still_running");
}

std::string no_driver_words(const DriverSight& d) {
  if (!d.missing()) return "";
  return fmt::format("no CUDA driver on this machine ({} could not be loaded)", kCudaDriverLibrary);
}

std::string no_driver_sentence(const DriverSight& d, const std::string& who, const std::string& see,
                               bool tried) {
  if (!d.missing()) return "";
  const std::string words =
      fmt::format("No CUDA driver on this machine ({} could not be loaded{}{})", kCudaDriverLibrary,
                  d.error.empty() ? "" : ": ", d.error);
  return fmt::format(
      "{}: {} before {} reached the GPU, and {} could not {} {}.", words,
      tried ? "the program's CUDA calls failed" : "any CUDA call the program made failed",
      tried ? "they" : "it", who, see, tried ? "them" : "it");
}

std::string processes_words(int n) {
  return n == 1 ? std::string("1 process") : fmt::format("{} processes", n);
}

}  // namespace pinbench
