// pageable-sync-loop: blocking copies of pageable memory repeated at one call site.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/sites.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {

// Blocking copy calls of pageable memory at a call site that made kLoopCalls of them or more.
void pageable_sync_loop(const FindingInput& in, DoctorAnalysis& a) {
  const RunRecord& r = in.record;
  const DoctorTrace& t = in.trace;
  std::map<std::string, std::vector<const DoctorCall*>> by_site;
  for (const DoctorCall& c : t.calls) {
    if (c.kind == "copy" && c.status == 0 && has_pageable(c)) {
      by_site[describe(t, c).first].push_back(&c);
    }
  }
  DoctorFinding f;
  f.id = "pageable-sync-loop";
  std::map<std::string, SiteSum> sites;
  std::vector<const DoctorCall*> all;
  double lost = 0;
  bool all_lost = true;
  AccelSum accel;
  for (const auto& [where, calls] : by_site) {
    if (calls.size() < kLoopCalls) continue;
    for (const DoctorCall* c : calls) {
      const CopyCost cost = count_copy_call(r, *c, f);
      accel.add(accel_call_ms(r, *c, host_ms(*c)));
      std::optional<double> call_lost;
      if (cost.pinned_ms) {
        call_lost = std::max(0.0, host_ms(*c) - *cost.pinned_ms);
        lost += *call_lost;
        f.pinned_ms = f.pinned_ms.value_or(0) + *cost.pinned_ms;
      } else {
        all_lost = false;
      }
      add_to_site(sites, t, *c, host_bytes(*c), host_ms(*c), call_lost);
      all.push_back(c);
    }
  }
  if (f.count == 0) return;
  f.title = "Blocking copies " + pageable_end(all) + " in a loop";
  if (all_lost)
    f.lost_ms = lost;
  else
    f.pinned_ms.reset();
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} blocking call{} ({}) at {} call site{} repeated {} times or more moved {} through "
      "pageable memory in {:.3f} ms",
      f.count, f.count == 1 ? "" : "s", directions_of(all), f.sites.size(),
      f.sites.size() == 1 ? "" : "s", kLoopCalls, format_size(f.bytes), f.host_ms));
  if (f.lost_ms) {
    f.evidence.push_back(fmt::format("from page-locked memory they take {:.3f} ms: {:.3f} ms lost",
                                     *f.pinned_ms, *f.lost_ms));
  }
  accel.say(f);
  set_fix(f, t,
          {"Keep the host tensor page-locked (pin_memory(), once) and reuse it in the loop",
           "buf = torch.empty(shape, pin_memory=True)   # once\n"
           "buf.copy_(batch); gpu.copy_(buf, non_blocking=True)"},
          {"Pin the loop's host buffer once (cudaMallocHost, or cudaHostRegister on the "
           "buffer you have) and reuse it on every iteration",
           "cudaHostRegister(buf, bytes, cudaHostRegisterDefault);  // once\n"
           "for (...) cudaMemcpy(dev, buf, bytes, cudaMemcpyHostToDevice);"});
  if (judge_on_host_page_tables(r, all, f, a)) a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
