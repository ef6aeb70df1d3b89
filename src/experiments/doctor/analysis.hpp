// The doctor's findings: what a program did wrong with host memory, what it cost and where,
// from a doctor record alone (its "doctor" section and its calibration cases). No CUDA, so it is
// tested on hand-made traces and replayed anywhere. docs/doctor.md gives every rule and number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/doctor/trace.hpp"
#include "framework/record.hpp"

namespace pinbench {

// A call site as a finding shows it: merged over every call (and process) whose innermost
// frame of the program reads the same.
struct DoctorSiteCost {
  std::string where;                // "loop.py:12 in step" or "copy_loop (main.cu:40)"
  std::vector<std::string> frames;  // up to four frames below it, as text
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  double host_ms = 0.0;
  std::optional<double> lost_ms;
};

struct DoctorFinding {
  std::string id;  // "pageable-async", "pageable-sync-loop", "alloc-churn", "over-pinning",
                   // "managed-migration": the names --fail-on takes
  std::string title;
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  double host_ms = 0.0;             // host time inside the calls
  std::optional<double> lost_ms;    // what it cost against the fix; absent without rates
  std::optional<double> pinned_ms;  // pageable copies: the same copies from page-locked memory
  // Pageable copies: the same calls' host time under `pinbench accel` on this machine, from the
  // engine's rate in the calibration (copies below its thresholds as they were); absent without
  // that rate.
  std::optional<double> accel_ms;
  std::optional<double> overlap_prevented_ms;
  std::vector<std::string> evidence;  // sentences with the numbers
  std::string fix;
  std::string fix_code;
  std::vector<DoctorSiteCost> sites;  // ranked by time lost, then host time
};

// The rates used for one direction and size, from the record's cases.
struct DoctorRate {
  std::string direction;
  std::uint64_t bytes = 0;
  std::optional<double> pageable_gb_per_s, pinned_gb_per_s;
  std::optional<double> pinned_call_ms;   // how long a page-locked async call held the host
  std::optional<double> engine_gb_per_s;  // pageable memory through the staged engine (accel)
};

struct DoctorAnalysis {
  bool no_cuda = false;  // no process initialised CUDA under the injection library
  std::uint64_t copy_calls = 0, pageable_copy_calls = 0;
  std::uint64_t bytes_h2d = 0, bytes_d2h = 0;
  std::uint64_t kernels = 0, syncs = 0, pinned_allocations = 0;
  std::uint64_t peak_pinned_bytes = 0;
  double pageable_blocked_ms = 0.0;
  std::optional<double> blocked_share;  // of the program's wall time
  std::vector<DoctorFinding> findings;  // ranked by time lost, then host time
  std::vector<DoctorRate> rates;
  std::string rates_from;  // "a calibration after the program exited", or the record named
};

// The calibration's cases of pageable copies through the staged engine, as `pinbench accel`
// would make them: their method.
inline const std::string kAccelMethod = "pinbench accel";

// The share of host memory page-locked at once above which over-pinning is reported.
constexpr double kOverPinningShare = 0.25;
// A call site seen this many times is a loop.
constexpr std::uint64_t kLoopCalls = 3;

DoctorAnalysis analyse_doctor(const RunRecord& record, const DoctorTrace& trace);

// Every finding id, for --fail-on's check.
const std::vector<std::string>& doctor_finding_ids();

}  // namespace pinbench

namespace pinbench {

struct ReportModel;

// The doctor record's part of the report model (report_model.hpp): a summary table, one table
// per finding (its evidence, fix and code under it, its call sites as rows), the rates used, and
// a chart of time lost per call site. Called by `analyse` for experiment "doctor".
void build_doctor_model(const RunRecord& record, ReportModel& model);

// The doctor trace in a record's "doctor" section as a timeline (framework/trace_model.hpp),
// for --trace and the report.
struct Trace;
Trace doctor_timeline(const DoctorTrace& trace);

}  // namespace pinbench
