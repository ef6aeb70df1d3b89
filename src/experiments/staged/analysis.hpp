// Turning `pinbench staged` and `pinbench staged --tune` records into rows,
// ratios and verdicts on the engine's goals. Pure functions of a RunRecord, so a replayed record
// is judged by the same code as a live one, and every verdict is tested on hand-made records.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/config_schema.hpp"
#include "framework/estimate.hpp"
#include "framework/record.hpp"
#include "framework/verdict.hpp"

namespace pinbench::experiments::staged {

// --- staged -----------------------------------------------------------------------------------

// The process's CPU use over some timed interval, as a record holds it (a staged case's extra
// over its timed samples, or config.idle_engine): getrusage(RUSAGE_SELF) deltas and the wall
// time they cover.
struct EngineCpu {
  double user_s = 0.0;
  double sys_s = 0.0;
  double wall_s = 0.0;
  std::uint64_t voluntary = 0;
  std::uint64_t involuntary = 0;
  // System time over CPU time (user + system); nothing when no CPU time was counted.
  std::optional<double> sys_share() const;
  double switches_per_s() const;  // both kinds, a second of wall time
  double cores() const;           // CPU time over wall time: 1.0 is one core busy throughout

  // Each field under its record key and kind: one list for writing (put_engine_cpu), reading
  // (engine_cpu_from) and validating (engine_cpu_fields).
  static constexpr auto fields() {
    return std::make_tuple(field("cpu_user_s", &EngineCpu::user_s, FieldKind::kRatio),
                           field("cpu_sys_s", &EngineCpu::sys_s, FieldKind::kRatio),
                           field("cpu_wall_s", &EngineCpu::wall_s, FieldKind::kRatio),
                           field("ctx_voluntary", &EngineCpu::voluntary, FieldKind::kBigCount),
                           field("ctx_involuntary", &EngineCpu::involuntary, FieldKind::kBigCount));
  }
};

// config.idle_engine beside its CPU fields: how long the engine was left alone before they were
// measured (measure.cpp). One list for writing, reading back and validating.
struct IdleEngineConfig {
  double settle_s = 0.0;

  static constexpr auto fields() {
    return std::make_tuple(field("settle_s", &IdleEngineConfig::settle_s, FieldKind::kRatio));
  }
};

// The CPU fields of `j` (a case's extra, config.idle_engine), or nothing when it has none: records
// made before pinbench measured them.
std::optional<EngineCpu> engine_cpu_from(const nlohmann::json& j);
// Their keys and kinds, for record validation (config.idle_engine).
std::vector<ConfigField> engine_cpu_fields();
// The same fields written into `j` (a case's extra, or config.idle_engine).
void put_engine_cpu(nlohmann::json& j, const EngineCpu& u);

struct StagedRow {
  std::uint64_t bytes = 0;
  std::uint64_t host_offset = 0;
  std::uint64_t device_offset = 0;
  std::map<std::string, std::optional<double>> gb_per_s;  // by method; absent: gate failed
  // Each verified method's median time with its interval, by method: what any ratio between two
  // methods at this size is judged on (ratio_of(den, num) is num's rate over den's). Methods
  // from outside pinbench's list (`torch-*` from PyTorch's paths, say) are here too.
  std::map<std::string, Estimate> ms_estimate;
  std::optional<double> staged_over_pinned;
  std::optional<double> staged_over_driver;  // staged over pageable-driver
  // staged-back-to-back over pinned. Not over the driver: its samples each follow a pause, like
  // the other methods', so only pinned (which a pause does not slow) is a fair yardstick.
  std::optional<double> back_to_back_over_pinned;
  // The three ratios with the intervals their samples allow (framework/estimate.hpp): what
  // the goals are judged on, so a goal the noise cannot decide is undecided.
  std::optional<Estimate> staged_over_pinned_estimate;
  std::optional<Estimate> staged_over_driver_estimate;
  std::optional<Estimate> back_to_back_over_pinned_estimate;
  std::string staged_path;  // "staged" or "direct": what the engine did
  // The engine's bound (docs/methodology.md, "The engine's bound"), from the record's "bound"
  // cases at this size (or the nearest measured size within a factor of two): the host side
  // alone, the host side and the copy engine doing the engine's work at once, and the lesser of
  // that and pinned memory's rate. Absent in records made before the bound was measured.
  std::optional<double> host_gb_per_s;
  std::optional<double> host_under_dma_gb_per_s;
  std::optional<double> bound_gb_per_s;
  std::optional<double> bound_over_pinned;
  std::optional<double> staged_over_bound;
  std::optional<double> back_to_back_over_bound;
  std::optional<Estimate> staged_over_bound_estimate;
  std::optional<Estimate> back_to_back_over_bound_estimate;
  // What the goal judges: over the bound, or over pinned where the bound is above
  // `pinned_fraction` of pinned (then the goal asks for that share of pinned itself).
  std::optional<Estimate> staged_goal_estimate;
  std::optional<Estimate> back_to_back_goal_estimate;
  // The process's CPU over the timed samples of the engine's verified cases at this size, by
  // method (staged, staged-back-to-back); empty in records made before pinbench measured it.
  std::map<std::string, EngineCpu> cpu;
};

struct StagedGoal {
  std::string direction;          // "h2d", "d2h"; "" for a goal of the whole engine
  std::string method = "staged";  // the engine's figures judged, or "staged-back-to-back"
  std::string text;
  Verdict verdict = Verdict::kNotEvaluated;
  std::string evidence;
};

// The heading of the goals in every report of a staged record (text, markdown, HTML).
inline constexpr const char* kStagedGoalsTitle =
    "Goals (what the engine aims for on an H200; findings, not checks)";

// What the staged engine aims for on an H200, judged on the engine's copies after a
// pause (as every other method is measured), and, where the record holds them, the share of
// pinned judged on its copies back to back too.
struct StagedGoals {
  double pinned_fraction = 0.95;           // staged at this fraction of its bound or better...
  double driver_multiple = 6.0;            // ...and this multiple of the driver's pageable path...
  std::uint64_t from_bytes = 64ull << 20;  // ...at every size from this one up
  // "Never slower than the driver at any size", within this relative noise band: below the
  // direct threshold both are the same cudaMemcpyAsync, and only noise tells them apart.
  double noise = 0.05;
  // From small_from_bytes to small_to_bytes, staged at this multiple of the driver or better.
  double small_driver_multiple = 1.5;
  std::uint64_t small_from_bytes = 1ull << 20;
  std::uint64_t small_to_bytes = 2ull << 20;
  // Against PyTorch's own paths (`staged --torch`), host to device, from from_bytes up: the
  // engine at these multiples of pageable `.to()` and of `pin_memory().to()` or better.
  double torch_pageable_multiple = 5.0;
  double torch_pin_memory_multiple = 1.5;
  // While copying, system time at most this share of the engine's CPU time (user + system):
  // waiting spins in user space and sleeps, instead of calling into the kernel in a loop.
  double sys_share_max = 0.15;
  // An idle engine at most this share of one core.
  double idle_cores_max = 0.01;
};

struct StagedAnalysis {
  // The methods present: pinbench's own in the benchmark's order, then any other the record
  // holds (e.g. `torch-*`) in the order first seen; each gets a column in every printer.
  std::vector<std::string> methods;
  std::map<std::string, std::vector<StagedRow>> rows;  // by direction; by size, aligned first
  std::vector<StagedGoal> goals;
  // The process while the engine sat idle (config.idle_engine), after `idle_settle_s` left alone;
  // absent in records made before pinbench measured it.
  std::optional<EngineCpu> idle;
  double idle_settle_s = 0.0;
  int iterations = 0;  // config.iterations: the samples behind each rate
  // Whether some row has the engine's CPU figures in `direction`.
  bool has_cpu(const std::string& direction) const;

  // The methods with at least one case in `direction`, in `methods`' order: what a direction's
  // table and chart show. PyTorch's paths are each one direction's (`.to()` to the device,
  // `.cpu()` and `copy_()` to the host).
  std::vector<std::string> methods_in(const std::string& direction) const;
};

StagedAnalysis analyse_staged(const RunRecord& record, const StagedGoals& goals = {});

// "the process used 0.12% of a core over 1.00 s with the engine idle (0.0001 s user, 0.0011 s
// system, 12 context switches), after 0.3 s left alone"; "" when the record did not measure it.
std::string idle_engine_text(const StagedAnalysis& analysis);

// --- tune -------------------------------------------------------------------------------------

struct TuneRow {
  std::string direction;
  std::uint64_t bytes = 0;
  std::uint64_t chunk_bytes = 0;
  int depth = 0;
  int threads = 0;
  std::optional<double> gb_per_s;
};

struct TuneChoice {
  std::string direction;
  std::uint64_t chunk_bytes = 0;
  int depth = 0;
  int threads = 0;
  double worst_share = 0.0;  // its lowest rate over the sizes, as a share of that size's best
};

std::vector<TuneRow> tune_rows(const RunRecord& record);
// Per direction, the shape whose lowest share of the best rate over all sizes is highest: the
// shape that is never far from the best, rather than the best at one size.
std::vector<TuneChoice> tune_choices(const std::vector<TuneRow>& rows);

// What the tuning run's printers read: every shape's rate at every size, and the shape chosen
// per direction.
struct TuneAnalysis {
  std::vector<TuneRow> rows;
  std::vector<TuneChoice> choices;
};

}  // namespace pinbench::experiments::staged
