// What accel's library counts in each process of a program, laid out as the file it shares with
// `pinbench accel`. Each process that loads the library maps a file of its own (MAP_SHARED) in the
// folder pinbench named, and adds to its counters as it copies, so what a process did survives
// however it ends: exit, _exit, exec, a signal, SIGKILL. pinbench reads the files once the
// program is gone (experiments/accel/summary.hpp). Plain integers, changed with atomic builtins
// by the library and read whole by pinbench; no CUDA and no C++ library here, so both sides
// include it.
#pragma once

#include <cstdint>

namespace pinbench::experiments::accel {

constexpr char kCountersMagic[8] = {'P', 'B', 'A', 'C', 'C', 'E', 'L', '1'};
constexpr std::uint32_t kCountersVersion = 2;

// Where a copy went, and when it passed through to the runtime, why. The names in
// experiments/accel/summary.cpp follow this order; add at the end only.
enum class Outcome : std::uint32_t {
  kRouted = 0,         // through the staged engine
  kFailed,             // routed, and the engine met a CUDA error, returned to the program
  kSmall,              // below the engine's direct threshold for its direction
  kPageLocked,         // the host memory is page-locked already
  kManaged,            // managed memory
  kNotHostDevice,      // device to device, host to host, or memory of an unexpected kind
  kStrided,            // a 2D copy with gaps between its rows
  kCapturing,          // the stream is being captured into a graph, or capture forbids asking
  kPendingError,       // an earlier error was pending: the runtime reports it as it would
  kOtherDevice,        // a default stream of another device than the memory's
  kUnknownMemory,      // CUDA could not say what the memory is
  kEngineRefused,      // the engine's own checks refused it; the runtime says why
  kEngineUnavailable,  // the engine could not be made on this device
  kForkedChild,        // a forked child: its parent's engine is not its own
  kOtherContext,       // a driver call in a context other than its device's primary one
  kCount
};

enum class Way : std::uint32_t { kToDevice = 0, kToHost, kOther, kCount };

constexpr int kOutcomes = static_cast<int>(Outcome::kCount);
constexpr int kWays = static_cast<int>(Way::kCount);
// Routed copies by size: bucket n holds copies of [2^n, 2^(n+1)) bytes.
constexpr int kSizeBuckets = 48;

struct Tally {
  std::uint64_t copies;
  std::uint64_t bytes;
  std::uint64_t host_ns;  // time the program's thread spent in the calls
};

// Bits of ProcessCounters::reach, set at exit (from the objects the process had loaded), at the
// first call that reached the library, and as the process asks for the CUDA driver.
enum ReachBits : std::uint32_t {
  kCalledUs = 1u << 0,        // at least one copy call reached the library
  kSharedRuntime = 1u << 1,   // a libcudart.so was loaded
  kDriver = 1u << 2,          // libcuda.so was loaded: the process used CUDA
  kCupy = 1u << 3,            // CuPy was loaded (its copies go around the shared runtime)
  kExitRan = 1u << 4,         // the process ended through exit(): its exit handlers ran
  kPreloadChained = 1u << 5,  // another LD_PRELOAD library stood after ours
  kViaRuntime = 1u << 6,      // copies came through the shared runtime's entry points
  kViaDriver = 1u << 7,       // copies came through the driver's (its entry-point lookup)
  kAskedDriver = 1u << 8,     // it asked to load the CUDA driver, or had it from its start
                              // (cuda/driver_watch.hpp): set as it asks, however it ends
};

struct ProcessCounters {
  char magic[8];
  std::uint32_t version;
  std::uint32_t size;  // sizeof(ProcessCounters), so a reader refuses another layout
  std::int32_t pid;
  std::int32_t parent_pid;
  std::uint64_t start_unix_ns;
  std::uint64_t end_unix_ns;  // 0 unless the exit handlers ran
  std::uint32_t reach;        // ReachBits
  std::uint32_t engines;      // staged engines made (one per device that routed a copy)
  std::uint64_t staging_bytes;
  std::uint64_t engine_setup_ns;  // making the engines (pinning their staging), inside a copy call
  char program[256];              // /proc/self/exe, cut to fit and NUL-terminated
  char note[512];                 // the first reason an engine could not be made, or ""
  Tally by_outcome[kWays][kOutcomes];
  Tally routed_by_size[2][kSizeBuckets];  // kToDevice, kToHost
};

}  // namespace pinbench::experiments::accel
