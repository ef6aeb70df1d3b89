// managed-migration: managed memory migrated on demand between host and device, from the
// unified-memory counters CUPTI recorded.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/sites.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {
namespace {

// The busy time of [a, b) covered by the union of `spans`.
double covered_ms(std::vector<std::pair<std::int64_t, std::int64_t>>& spans, std::int64_t a,
                  std::int64_t b) {
  std::sort(spans.begin(), spans.end());
  std::int64_t total = 0, reach = a;
  for (const auto& [s, e] : spans) {
    const std::int64_t lo = std::max(s, reach), hi = std::min(e, b);
    if (hi > lo) {
      total += hi - lo;
      reach = hi;
    }
  }
  return static_cast<double>(total) / 1e6;
}

}  // namespace

void managed_migration(const FindingInput& in, DoctorAnalysis& a) {
  const DoctorTrace& t = in.trace;
  std::uint64_t htod = 0, dtoh = 0, cpu_faults = 0, gpu_faults = 0, count = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  for (const DoctorMigration& m : t.migrations) {
    if (m.kind == "htod") htod += m.value;
    if (m.kind == "dtoh") dtoh += m.value;
    if (m.kind == "cpu_faults") cpu_faults += m.value;
    if (m.kind == "gpu_faults") gpu_faults += m.value;
    if (m.kind == "htod" || m.kind == "dtoh") {
      ++count;
      spans.emplace_back(m.start_ns, m.end_ns);
    }
  }
  if (htod + dtoh == 0 && cpu_faults + gpu_faults == 0) return;
  DoctorFinding f;
  f.id = "managed-migration";
  f.title = "Managed memory migrated on demand";
  f.count = count;
  f.bytes = htod + dtoh;
  f.host_ms = covered_ms(spans, 0, std::numeric_limits<std::int64_t>::max());
  f.evidence.push_back(fmt::format(
      "{} migrations moved {} to the device and {} to the host, in {:.3f} ms of migration "
      "time; {} CPU and {} GPU page faults",
      count, format_size(htod), format_size(dtoh), f.host_ms, cpu_faults, gpu_faults));
  f.fix =
      "Prefetch managed memory to where it is used next (cudaMemPrefetchAsync) or state "
      "where it lives (cudaMemAdvise); for data that only moves, use device memory and "
      "explicit copies from page-locked buffers";
  f.fix_code = "cudaMemPrefetchAsync(ptr, bytes, device, stream);";
  a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
