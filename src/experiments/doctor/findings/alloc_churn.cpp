// alloc-churn: page-locked memory allocated and freed in a loop.
#include <map>
#include <string>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/sites.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {

// Page-locked memory allocated and freed kLoopCalls times or more at one call site: one
// allocation, kept, would have served them all.
void alloc_churn(const FindingInput& in, DoctorAnalysis& a) {
  const DoctorTrace& t = in.trace;
  DoctorFinding f;
  f.id = "alloc-churn";
  f.title = "Page-locked memory allocated and freed in a loop";
  std::map<std::string, SiteSum> sites;
  double lost = 0;
  for (const auto& [where, pairs] : in.allocations.by_site) {
    if (pairs.size() < kLoopCalls) continue;
    bool first = true;
    for (const auto& [alloc, free] : pairs) {
      const double ms = host_ms(*alloc) + host_ms(*free);
      ++f.count;
      f.bytes += alloc->bytes;
      f.host_ms += ms;
      // One allocation, kept, would have served them all.
      const double call_lost = first ? 0.0 : ms;
      first = false;
      lost += call_lost;
      SiteSum& s = sites[where];
      s.cost.where = where;
      if (s.cost.frames.empty()) s.cost.frames = describe(t, *alloc).second;
      ++s.cost.count;
      s.cost.bytes += alloc->bytes;
      s.cost.host_ms += ms;
      s.cost.lost_ms = s.cost.lost_ms.value_or(0) + call_lost;
    }
  }
  if (f.count == 0) return;
  f.lost_ms = lost;
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} allocate/free pairs of page-locked memory ({} in all) at {} call site{} took {:.3f} ms "
      "of host time; one allocation per site, reused, would have cost {:.3f} ms",
      f.count, format_size(f.bytes), f.sites.size(), f.sites.size() == 1 ? "" : "s", f.host_ms,
      f.host_ms - lost));
  f.fix =
      "Allocate page-locked buffers once, outside the loop, and reuse them (a pool of "
      "them if sizes vary); in PyTorch, pin once and copy into the pinned tensor";
  f.fix_code =
      "void* buf; cudaMallocHost(&buf, max_bytes);   // once\n"
      "for (...) { /* fill buf, cudaMemcpyAsync from it */ }\n"
      "cudaFreeHost(buf);";
  a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
