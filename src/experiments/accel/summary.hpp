// What `pinbench accel` learned about a program: for each of its processes, every copy call that
// reached accel's library, by direction and outcome (routed through the engine, or passed on to
// the runtime and why), with bytes and the time the program's threads spent in the calls, and
// the routed copies by size. Read from the counter files the library left
// (interpose/counters.hpp), kept in the record's `accel` section, and read back on replay. No
// CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/accel/interpose/counters.hpp"
#include "framework/program_sight.hpp"

namespace pinbench::experiments::accel {

struct AccelTally {
  std::uint64_t copies = 0;
  std::uint64_t bytes = 0;
  double host_ms = 0;  // time the program's threads spent in these calls
};

struct AccelOutcome {
  std::string direction;  // "h2d", "d2h", "other"
  std::string outcome;    // outcome_name(): "routed", "small", ...
  AccelTally tally;
};

// Routed copies of [from_bytes, 2 * from_bytes) bytes in one direction.
struct AccelSize {
  std::string direction;
  std::uint64_t from_bytes = 0;
  AccelTally tally;
};

struct AccelProcess {
  int pid = 0;
  int parent_pid = 0;
  std::string program;          // its command line
  bool called = false;          // a copy call reached the library
  bool shared_runtime = false;  // a libcudart.so was loaded (known when exit handlers ran)
  bool driver = false;          // libcuda.so was loaded at its exit: it used CUDA
  // It asked to load the CUDA driver, or had it from its start, however it ended (records before
  // pinbench wrote AccelRun::driver: false, not known)
  bool asked_driver = false;
  bool cupy = false;         // CuPy was loaded
  bool via_runtime = false;  // copies came through the shared runtime's entry points
  bool via_driver = false;   // and through the driver's (records before 2026-12-03: false)
  bool exit_ran = false;     // it ended through exit(); else _exit, exec, or a signal
  bool chained = false;      // another LD_PRELOAD library stood after accel's
  int engines = 0;
  std::uint64_t staging_bytes = 0;
  double engine_setup_ms = 0;  // making its engines, inside its first routed copies
  std::string note;            // why an engine could not be made, or ""
  double wall_ms = 0;          // from its start to its exit handlers; 0 when they did not run
  std::vector<AccelOutcome> outcomes;  // only those with copies, in counters.hpp's order
  std::vector<AccelSize> routed_sizes;
};

// The program's run (ProgramRun: its command, how it ended, what it left running, whose counts
// are those up to when accel stopped waiting for them, or none) and what accel's library counted.
struct AccelRun : ProgramRun {
  std::vector<AccelProcess> processes;  // by pid
  int unreadable = 0;  // counter files that could not be read (a process killed while starting)
  // Whether the CUDA driver could be loaded where the program ran (not recorded in records made
  // before pinbench wrote it, whose processes' asked_driver is not known either).
  DriverSight driver;
};

// What accel saw of a process's CUDA use.
enum class CudaSeen {
  kReached,     // a copy call reached the library
  kOutOfReach,  // it used CUDA (the driver was loaded), and no copy call reached the library
  kAsked,       // it asked for the CUDA driver, which never loaded (none on the machine)
  kNone,        // seen to its end (exit, or exec) without asking for the driver: no CUDA call
  kUnseen,      // ended without its exit handlers (_exit, a signal) before asking for anything,
                // or a record that does not say: whether it used CUDA was not seen
};
// `index`: the process's place in run.processes (a later entry of the same pid is the image an
// exec replaced it with).
CudaSeen cuda_seen(const AccelRun& run, std::size_t index);

// "routed", "failed", "small", "page-locked", "managed", "not-host-device", "strided",
// "capturing", "pending-error", "other-device", "unknown-memory", "engine-refused",
// "engine-unavailable", "forked-child".
const char* outcome_name(Outcome o);
// What an outcome means, for a person: "below the engine's threshold (512 KiB to the device)".
std::string outcome_text(const std::string& name);
const std::vector<std::string>& outcome_names();

// One process's counters, as the library left them. Throws InputError when they are not
// counters of this layout.
AccelProcess read_counters(const ProcessCounters& counters);
// Every *.counters file in `dir`, by pid; a file that cannot be read is counted in `unreadable`.
AccelRun read_counter_folder(const std::string& dir);

// Whether the program's copies were out of accel's reach in a process: it used CUDA, but no copy
// call came to the library (the runtime linked statically, or CuPy's own path).
bool out_of_reach(const AccelProcess& p);

// An accel record's section (RunRecord::sections) holds its AccelRun as to_json writes it.
inline constexpr const char* kAccelSection = "accel";

nlohmann::json to_json(const AccelRun& run);
// Throws InputError naming the field when `j` is not an accel section.
AccelRun accel_run_from_json(const nlohmann::json& j);

// Totals over processes, for one direction and outcome ("" matches any).
AccelTally total(const AccelRun& run, const std::string& direction, const std::string& outcome);

}  // namespace pinbench::experiments::accel
