// The rates a finding prices its calls with, from the record's cases: the calibration's pageable
// and page-locked copies, the staged engine's (pinbench accel), small copies and NUMA placements.
// Each is the case nearest in size (log2) to what the program copied.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::doctor::findings {

// The item of `items` that `fits` whose size (`size_of`) is nearest `bytes` in log2, or nullptr.
template <class T, class Fits, class Size>
const T* nearest_in_size(const std::vector<T>& items, std::uint64_t bytes, const Fits& fits,
                         const Size& size_of) {
  const double want = std::log2(static_cast<double>(std::max<std::uint64_t>(bytes, 1)));
  const T* best = nullptr;
  double best_gap = 0;
  for (const T& item : items) {
    if (!fits(item)) continue;
    const double gap = std::fabs(std::log2(static_cast<double>(size_of(item))) - want);
    if (best == nullptr || gap < best_gap) {
      best = &item;
      best_gap = gap;
    }
  }
  return best;
}

// The case of `direction` and `memory` whose size is nearest `bytes` (in log2), with a rate; of
// the staged engine's cases (kAccelMethod) when `engine`, else of the others (never the
// small-copy or NUMA parts, which measure something else).
const Case* nearest(const RunRecord& r, const std::string& direction, const std::string& memory,
                    std::uint64_t bytes, bool engine = false);

// The call's host time under accel: its pageable copies at or above the engine's thresholds at
// the engine's rate, the call as it was otherwise; absent without the engine's rate.
std::optional<double> accel_call_ms(const RunRecord& r, const DoctorCall& call, double host);

struct CopyCost {
  std::optional<double> pinned_ms;       // the copies' time from page-locked memory
  std::optional<double> pinned_call_ms;  // an async call from page-locked memory: its host time
};

// What the call's copies would cost from page-locked memory.
CopyCost pinned_cost(const RunRecord& r, const DoctorCall& call);

// The host time a finding's calls would take under `pinbench accel`, summed over them; known
// only when every call's is.
struct AccelSum {
  double ms = 0;
  bool known = true;
  void add(const std::optional<double>& call);
  // Adds the sum, and a sentence with it, to the finding.
  void say(DoctorFinding& f) const;
};

// The small-copy calibration's cases, per copy.
std::vector<DoctorSmallCopyRate> small_copy_rates(const RunRecord& r);

// The calibrated small-copy rate of `direction` nearest `bytes` a copy (log size) that says what
// one call per copy and one batch cost.
const DoctorSmallCopyRate* nearest_small(const std::vector<DoctorSmallCopyRate>& rates,
                                         const std::string& direction, std::uint64_t bytes);

// The NUMA calibration's cases.
std::vector<DoctorNumaRate> numa_rates(const RunRecord& r);

// The calibrated rate of a direction and memory with the host buffer on `node`, at the size
// nearest `bytes` (log size).
std::optional<double> numa_rate(const std::vector<DoctorNumaRate>& rates, const std::string& dir,
                                const std::string& memory, int node, std::uint64_t bytes);

}  // namespace pinbench::experiments::doctor::findings
