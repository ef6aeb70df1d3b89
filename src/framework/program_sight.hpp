// What a tool that runs a user's program (doctor, accel) could see of the program's CUDA use, and
// the words for what it could not. Facts decide it, never a guess: whether the CUDA driver's
// library could be loaded where the program ran (pinbench loads it itself once the program is
// gone, cli/program.hpp), and what the tool's library saw in each process (whether it asked to
// load the driver, and whether the process was seen to its end). A report says a program "made
// no CUDA calls" only where every process was seen to its end without asking for the driver; else
// it says what was not seen, and why. A record made before pinbench wrote these facts reads as
// "not recorded". No CUDA.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/json_fields.hpp"

namespace pinbench {

// The CUDA driver's library, by the name the CUDA runtime loads it.
inline constexpr const char* kCudaDriverLibrary = "libcuda.so.1";

// Whether the CUDA driver's library could be loaded where the program ran.
struct DriverSight {
  enum class State { kNotRecorded, kLoaded, kMissing };
  State state = State::kNotRecorded;
  std::string error;  // kMissing: what the dynamic loader said

  bool recorded() const { return state != State::kNotRecorded; }
  bool missing() const { return state == State::kMissing; }
};

// Writes the driver's fields into a section's "sight" object: "driver" ("loaded" or "missing")
// and, when missing, "driver_error". Nothing for kNotRecorded.
void put_driver(nlohmann::json& sight, const DriverSight& d);
// Reads them back from a section's "sight" object, refusing a bad value with the field's name.
DriverSight driver_from(const JsonFields& sight);

// "no CUDA driver on this machine (libcuda.so.1 could not be loaded)"; "" unless missing.
std::string no_driver_words(const DriverSight& d);

// The sentence for a program run where the driver was missing, for `who` (doctor, accel) and
// what it would have done (`see` = "see", "see or route"): "No CUDA driver on this
// machine (libcuda.so.1 could not be loaded: WHY): the program's CUDA calls failed before they
// reached the GPU, and doctor could not see them." `tried`: a process of the program was seen to
// ask for the driver; else the calls are "any CUDA call the program made".
std::string no_driver_sentence(const DriverSight& d, const std::string& who, const std::string& see,
                               bool tried);

// How a user's program ran, as the sections of the tools that run one (doctor, accel) keep it,
// under the same keys in each: its command line, how it ended, its wall time and what it left
// running. The tools run it through one runner (cli/program_command.hpp, run_with_library), which
// fills these.
struct ProgramRun {
  std::vector<std::string> command;
  int exit_status = 0;  // the program's own exit status, when it exited
  std::string signal;   // "SIGSEGV" when a signal ended it, else ""
  double wall_ms = 0;   // the program's wall time, start to end
  // Processes the program started that were still running when pinbench stopped waiting for them
  // ("pid 123 (worker --serve)"): what they did after it is not in the section.
  std::vector<std::string> still_running;
};

// Writes `run` into a section: "command", "exit_status", "signal", "wall_ms", and "still_running"
// where any process was left.
void put_program_run(nlohmann::json& section, const ProgramRun& run);
// Reads them back from a section, refusing a bad value with the field's name.
void read_program_run(const JsonFields& section, ProgramRun& run);

// "1 process", "3 processes".
std::string processes_words(int n);

}  // namespace pinbench
