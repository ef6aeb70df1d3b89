// pinning-critical-path: page-locked allocations and registrations made once the program's
// copies had begun, where they hold the thread (and the driver's lock) on the way.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/sites.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {

// Page-locked allocations and registrations made once the process's copies had begun (its first
// copy or synchronisation), outside the sites alloc-churn already reports.
void pinning_critical_path(const FindingInput& in, DoctorAnalysis& a) {
  const DoctorTrace& t = in.trace;
  const std::set<std::string> churn = churn_sites(in.allocations);
  std::map<int, std::int64_t> first_work;
  for (const DoctorCall& c : t.calls) {
    if (!is_copy(c) && c.kind != "sync") continue;
    const auto it = first_work.find(c.pid);
    if (it == first_work.end() || c.start_ns < it->second) first_work[c.pid] = c.start_ns;
  }
  std::vector<const DoctorCall*> calls;
  double total = 0;
  for (const DoctorCall& c : t.calls) {
    if ((c.kind != "alloc" && c.kind != "register") || c.status != 0) continue;
    const auto it = first_work.find(c.pid);
    if (it == first_work.end() || c.start_ns < it->second || churn.count(describe(t, c).first)) {
      continue;
    }
    calls.push_back(&c);
    total += host_ms(c);
  }
  if (calls.empty() || total < kSlowPinningMs) return;
  DoctorFinding f;
  f.id = "pinning-critical-path";
  f.title = "Page-locking on the critical path";
  std::map<std::string, SiteSum> sites;
  std::vector<const DoctorCall*> slow;
  for (const DoctorCall* c : calls) {
    ++f.count;
    f.bytes += c->bytes;
    f.host_ms += host_ms(*c);
    add_to_site(sites, t, *c, c->bytes, host_ms(*c), host_ms(*c));
    if (host_ms(*c) > kSlowPinningMs) slow.push_back(c);
  }
  f.lost_ms = f.host_ms;
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} ({}) {} made after the program's copies had begun and held {} for {:.3f} ms; "
      "page-locking takes a driver-wide lock, so other threads' CUDA calls can wait behind it "
      "too",
      plural(f.count, "page-locked allocation or registration",
             "page-locked allocations and registrations"),
      format_size(f.bytes), f.count == 1 ? "was" : "were",
      f.count == 1 ? "its thread" : "their threads", f.host_ms));
  if (!slow.empty()) {
    std::stable_sort(slow.begin(), slow.end(), [](const DoctorCall* x, const DoctorCall* y) {
      return host_ms(*x) > host_ms(*y);
    });
    std::string named;
    for (std::size_t i = 0; i < slow.size() && i < 5; ++i) {
      named += fmt::format("{}{} ({}) at {} in {:.3f} ms", i == 0 ? "" : "; ",
                           format_size(slow[i]->bytes), doctor_api_name(slow[i]->api),
                           describe(t, *slow[i]).first, host_ms(*slow[i]));
    }
    f.evidence.push_back(fmt::format("{} took over {:g} ms: {}{}",
                                     plural(slow.size(), "call", "calls"), kSlowPinningMs, named,
                                     slow.size() > 5 ? "; ..." : ""));
  }
  f.evidence.push_back(fmt::format(
      "made once at start-up, before the first copy, or on a thread of their own, they would "
      "cost the path nothing: {:.3f} ms saved",
      f.host_ms));
  set_fix(f, t,
          {"Pin at start-up and reuse: pin_memory() in the loop page-locks anew whenever "
           "PyTorch's caching host allocator has no free block of that rounded size",
           "staging = torch.empty(shape, dtype=dtype, pin_memory=True)   # at start-up\n"
           "for batch in data:\n"
           "    staging.copy_(batch); gpu.copy_(staging, non_blocking=True)"},
          {"Page-lock at start-up, or on a background thread while the rest initialises, and "
           "reuse the buffers; a pool that grows in the middle of the work pays the pinning there",
           "cudaHostAlloc(&pool, pool_bytes, cudaHostAllocDefault);  // once, at start-up\n"
           "// in the loop: take buffers from the pool, never cudaHostAlloc"});
  a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
