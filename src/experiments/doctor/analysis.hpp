// The doctor's findings: what a program did wrong with host memory, what it cost and where,
// from a doctor record alone (its "doctor" section and its calibration cases). No CUDA, so it is
// tested on hand-made traces and replayed anywhere. docs/doctor.md gives every rule and number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/doctor/events.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/config_schema.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"
#include "framework/trace_model.hpp"

namespace pinbench::experiments::doctor {

// What the analysis reads back of a doctor record's config: the record its rates came from
// (--rates-from, named by command.cpp); none when a calibration after the program measured
// them. Each field under its record key and kind, one list for writing, reading back and
// validating.
struct DoctorRecordConfig {
  std::optional<std::string> rates_from;

  static constexpr auto fields() {
    return std::make_tuple(field("rates_from", &DoctorRecordConfig::rates_from, FieldKind::kText));
  }
};

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
  std::string id;  // one of doctor_finding_ids(): the names --fail-on takes
  std::string title;
  std::string counted = "calls";  // what `count` counts: "calls", "allocations", "copies"
  std::uint64_t count = 0;
  // The bytes the finding is about: copied, allocated, or (pinned-unused) page-locked beyond use.
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

// A finding doctor could not judge on this record, and why (one NUMA node, a record too old to
// say, a machine where the pitfall is expected not to be one).
struct DoctorNotJudged {
  std::string id;
  std::string reason;
};

// The calibration's cost of many small copies, for small-copy-storm: `copies` copies of
// `copy_bytes` each, one cudaMemcpyAsync per copy, in one cudaMemcpyBatchAsync, and as one
// contiguous copy of all their bytes; each the time to completion per copy.
struct DoctorSmallCopyRate {
  std::string direction;
  std::uint64_t copy_bytes = 0;
  std::uint64_t copies = 0;
  std::optional<double> each_ms, batched_ms, contiguous_ms;  // per copy
};

// The calibration's rate with the host buffer on one NUMA node, for numa-placement.
struct DoctorNumaRate {
  std::string direction, memory;
  std::uint64_t bytes = 0;
  int node = -1;
  bool gpu_node = false;  // the GPU's own node
  std::optional<double> gb_per_s;
};

// The rates used for one direction and size, from the record's cases.
struct DoctorRate {
  std::string direction;
  std::uint64_t bytes = 0;
  std::optional<double> pageable_gb_per_s, pinned_gb_per_s;
  std::optional<double> pinned_call_ms;   // how long a page-locked async call held the host
  std::optional<double> engine_gb_per_s;  // pageable memory through the staged engine (accel)
};

// One process of the program as the summary counts it: how it ended (DoctorProcess::end) and
// what its copy calls moved, with how many of them were judged from the calls themselves.
struct DoctorProcessCount {
  int pid = 0;
  std::string end;
  std::uint64_t copy_calls = 0, bytes = 0, from_api = 0;
};

struct DoctorAnalysis {
  // doctor saw the program make no CUDA call (seen_without_cuda, trace.hpp): every process seen
  // to its end without asking for the CUDA driver. Not where it could not see.
  bool no_cuda = false;
  // No call was seen: the program made none, or doctor could not see them (notes say which).
  bool nothing_seen = false;
  std::uint64_t copy_calls = 0, pageable_copy_calls = 0;
  std::uint64_t bytes_h2d = 0, bytes_d2h = 0;
  std::uint64_t kernels = 0, syncs = 0, pinned_allocations = 0;
  std::uint64_t peak_pinned_bytes = 0;
  double pageable_blocked_ms = 0.0;
  std::optional<double> blocked_share;        // of the program's wall time
  std::vector<DoctorProcessCount> processes;  // by pid, from the record's process_list
  std::vector<DoctorFinding> findings;        // ranked by time lost, then host time
  std::vector<DoctorNotJudged> not_judged;
  // The report's first line: "Fix these 2 findings (...) and save about 12.3 ms of the program's
  // 456.7 ms."; empty without a finding.
  std::string headline;
  std::optional<double> saved_ms;  // the sum of the findings' time lost, where any is estimated
  std::vector<DoctorRate> rates;
  std::vector<DoctorSmallCopyRate> small_copy_rates;
  std::vector<DoctorNumaRate> numa_rates;
  std::string rates_from;  // "a calibration after the program exited", or the record named
  // Where the GPU reads pageable memory through the host's page tables (Grace Hopper): why the
  // pageable findings are judged as they are there. Empty elsewhere.
  std::string pageable_note;
};

// The calibration's cases of pageable copies through the staged engine, as `pinbench accel`
// would make them: their method.
inline const std::string kAccelMethod = "pinbench accel";

// The calibration's parts for small copies and for NUMA placement (their cases' `part`); the
// pageable/page-locked rates are the other cases of the record.
inline const std::string kSmallCopyPart = "doctor-small-copies";
inline const std::string kNumaPart = "doctor-numa";
// The small-copy calibration's methods: one call per copy, one batch, one contiguous copy.
inline const std::string kEachMethod = "cudaMemcpyAsync";
inline const std::string kBatchMethod = "cudaMemcpyBatchAsync";
inline const std::string kContiguousMethod = "one contiguous copy";

// The share of host memory page-locked at once above which over-pinning is reported.
constexpr double kOverPinningShare = 0.25;
// A call site seen this many times is a loop.
constexpr std::uint64_t kLoopCalls = 3;
// pinned-unused: an allocation site whose page-locked bytes beyond the copies' high-water mark
// are at least this share of what it page-locked, and at least kPinnedUnusedMinBytes.
constexpr double kPinnedUnusedShare = 0.25;
constexpr std::uint64_t kPinnedUnusedMinBytes = std::uint64_t{1} << 20;
// pinning-critical-path: page-locked allocations made once the process's copies had begun,
// reported when their host time reaches this; each call above it is named as slow.
constexpr double kSlowPinningMs = 1.0;
// small-copy-storm: a call site of at least kStormCalls copies each smaller than kSmallCopyBytes.
constexpr std::uint64_t kSmallCopyBytes = events::kSmallCopyBytes;
constexpr std::uint64_t kStormCalls = 100;
// The small-copy calibration's copies per sample.
constexpr std::uint64_t kSmallCopyBatch = 256;
// Where the GPU reads pageable memory through the host's page tables, a pageable finding is not
// judged a pitfall when the calibration's pageable rate is at least this share of the
// page-locked one at every size its copies used.
constexpr double kHmmNearPinned = 0.9;

DoctorAnalysis analyse_doctor(const RunRecord& record, const DoctorTrace& trace);

// What the calibration should measure beyond the pageable and page-locked rates, from what the
// program did: small copies (direction and one copy's size) where a site made a storm of them,
// and host buffers on each NUMA node involved where page-locked buffers or large pageable copies
// lay off the GPU's node and the host has two nodes or more. Empty when there is nothing to ask.
struct DoctorCalibrationPlan {
  struct Small {
    std::string direction;
    std::uint64_t copy_bytes = 0;
  };
  struct Numa {
    std::string direction, memory;  // memory: "pinned" or "pageable"
    std::uint64_t bytes = 0;
    std::vector<int> nodes;  // the GPU's node first
  };
  std::vector<Small> small;
  std::vector<Numa> numa;
  bool empty() const { return small.empty() && numa.empty(); }
};
DoctorCalibrationPlan doctor_calibration_plan(const MachineInfo& machine, const DoctorTrace& trace);

// Every finding id, for --fail-on's check.
const std::vector<std::string>& doctor_finding_ids();

// An API as CUPTI names it without its version: "cudaMemcpyAsync" for "cudaMemcpyAsync_v3020".
std::string doctor_api_name(const std::string& api);

// The doctor record's part of the report model (report_model.hpp): a summary table, one table
// per finding (its evidence, fix and code under it, its call sites as rows), the rates used, and
// a chart of time lost per call site, and the program's calls as the run's own timeline
// (ReportModel::timeline). Called by `analyse` for experiment "doctor".
void build_doctor_model(const RunRecord& record, ReportModel& model);

// The doctor trace in a record's "doctor" section as a timeline (framework/trace_model.hpp),
// for --trace and the report.
Trace doctor_timeline(const DoctorTrace& trace);

}  // namespace pinbench::experiments::doctor
