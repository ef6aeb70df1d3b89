// small-copy-storm: call sites of kStormCalls copies or more, each under kSmallCopyBytes and one
// call each, priced with the calibration's small copies one call each, batched and contiguous.
#include "experiments/doctor/findings/small_copy_storm.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/sites.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {

std::vector<Storm> storms(const DoctorTrace& t) {
  std::map<std::string, std::vector<const DoctorCall*>> by_site;
  for (const DoctorCall& c : t.calls) {
    if ((c.kind != "copy" && c.kind != "copy_async") || c.status != 0) continue;
    const std::string d = call_direction(c);
    const std::uint64_t b = call_bytes(c);
    if ((d != "h2d" && d != "d2h") || b == 0 || b >= kSmallCopyBytes) continue;
    by_site[describe(t, c).first].push_back(&c);
  }
  std::vector<Storm> out;
  for (auto& [where, calls] : by_site) {
    if (calls.size() >= kStormCalls) out.push_back({where, std::move(calls)});
  }
  return out;
}

void small_copy_storm(const FindingInput& in, DoctorAnalysis& a) {
  const DoctorTrace& t = in.trace;
  const std::vector<Storm> found = storms(t);
  if (found.empty()) return;
  DoctorFinding f;
  f.id = "small-copy-storm";
  f.title = "Storms of small copies, one call each";
  std::map<std::string, SiteSum> sites;
  double saved = 0, gathered = 0;
  bool all_saved = true, all_gathered = true;
  const DoctorSmallCopyRate* shown = nullptr;
  for (const Storm& s : found) {
    for (const DoctorCall* c : s.calls) {
      const std::uint64_t b = call_bytes(*c);
      ++f.count;
      f.bytes += b;
      f.host_ms += host_ms(*c);
      const DoctorSmallCopyRate* rate = nearest_small(a.small_copy_rates, call_direction(*c), b);
      std::optional<double> call_saved;
      if (rate != nullptr) {
        call_saved = std::max(0.0, *rate->each_ms - *rate->batched_ms);
        saved += *call_saved;
        if (rate->contiguous_ms) {
          gathered += std::max(0.0, *rate->each_ms - *rate->contiguous_ms);
        } else {
          all_gathered = false;
        }
        if (shown == nullptr) shown = rate;
      } else {
        all_saved = false;
      }
      add_to_site(sites, t, *c, b, host_ms(*c), call_saved);
    }
  }
  if (all_saved) f.lost_ms = saved;
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} of under {} ({} in all, {} each on average) at {} of {} or more such copies held the "
      "host for {:.3f} ms; each call pays the driver's fixed cost, and each copy the engine's",
      plural(f.count, "copy", "copies"), format_size(kSmallCopyBytes), format_size(f.bytes),
      format_size(f.bytes / f.count), plural(f.sites.size(), "site", "sites"), kStormCalls,
      f.host_ms));
  if (shown != nullptr) {
    f.evidence.push_back(fmt::format(
        "calibrated here with {} copies of {} ({}), to completion: {:.2f} us a copy at one call "
        "each, {:.2f} us in one cudaMemcpyBatchAsync{}",
        shown->copies, format_size(shown->copy_bytes), direction_words(shown->direction),
        1000 * *shown->each_ms, 1000 * *shown->batched_ms,
        shown->contiguous_ms
            ? fmt::format(", {:.2f} us as one contiguous copy", 1000 * *shown->contiguous_ms)
            : std::string()));
  }
  if (f.lost_ms) {
    f.evidence.push_back(fmt::format(
        "batched, these copies would take about {:.3f} ms less{}", *f.lost_ms,
        all_gathered ? fmt::format("; gathered into one buffer and copied once, up to {:.3f} ms "
                                   "less, before the cost of the gather",
                                   gathered)
                     : std::string()));
  } else {
    f.evidence.push_back(
        "the record holds no small-copy calibration for them, so the time saved is not "
        "estimated");
  }
  set_fix(f, t,
          {"Copy the small tensors as one: gather them into one (page-locked) buffer, copy it "
           "once with non_blocking=True, and split it on the device",
           "flat = torch.cat([t.reshape(-1) for t in small])   # or copy into one pinned buffer\n"
           "parts = flat.to('cuda', non_blocking=True).split([t.numel() for t in small])"},
          {"Make the small copies one call: cudaMemcpyBatchAsync (CUDA 12.8 and later) takes them "
           "all at once; or gather them into one contiguous page-locked buffer and copy it once",
           "cudaMemcpyAttributes attr = {};\n"
           "attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;\n"
           "size_t attr_index = 0;\n"
           "cudaMemcpyBatchAsync(dsts, srcs, sizes, count, &attr, &attr_index, 1, stream);"});
  a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
