// sync-after-copy: asynchronous copies each waited for before the next, in a loop.
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
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {
namespace {

// The first start and last end of a call's copies; none without copies.
std::optional<std::pair<std::int64_t, std::int64_t>> copy_span(const DoctorCall& c) {
  if (c.copies.empty()) return std::nullopt;
  std::int64_t first = c.copies.front().start_ns, last = c.copies.front().end_ns;
  for (const Copy& k : c.copies) {
    first = std::min(first, k.start_ns);
    last = std::max(last, k.end_ns);
  }
  return std::make_pair(first, last);
}

}  // namespace

// Asynchronous copies each followed, on their thread, by a synchronisation before the next copy,
// at a site that made at least kLoopCalls of them and never one without.
void sync_after_copy(const FindingInput& in, DoctorAnalysis& a) {
  const DoctorTrace& t = in.trace;
  std::map<std::pair<int, std::uint32_t>, std::vector<const DoctorCall*>> threads;
  for (const DoctorCall& c : t.calls) {
    if (is_copy(c) || c.kind == "sync") threads[{c.pid, c.thread}].push_back(&c);
  }
  struct Waited {
    const DoctorCall* copy;
    const DoctorCall* sync;  // nullptr: the next call of its thread was not a synchronisation
  };
  std::map<std::string, std::vector<Waited>> by_site;
  for (const auto& [thread, calls] : threads) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const DoctorCall* c = calls[i];
      if ((c->kind != "copy_async" && c->kind != "batch") || c->status != 0) continue;
      const DoctorCall* next = i + 1 < calls.size() ? calls[i + 1] : nullptr;
      by_site[describe(t, *c).first].push_back(
          {c, next != nullptr && next->kind == "sync" && next->status == 0 ? next : nullptr});
    }
  }
  DoctorFinding f;
  f.id = "sync-after-copy";
  f.title = "A synchronisation after every copy, in a loop";
  std::map<std::string, SiteSum> sites;
  double waited = 0;
  for (auto& [where, list] : by_site) {
    if (list.size() < kLoopCalls ||
        std::any_of(list.begin(), list.end(), [](const Waited& w) { return w.sync == nullptr; })) {
      continue;
    }
    std::stable_sort(list.begin(), list.end(), [](const Waited& x, const Waited& y) {
      return x.copy->start_ns < y.copy->start_ns;
    });
    for (std::size_t i = 0; i < list.size(); ++i) {
      const DoctorCall& c = *list[i].copy;
      const double sync_ms = host_ms(*list[i].sync);
      // Had the copies been queued (synchronised once, or double-buffered), what the thread did
      // between one copy's end and the next one's start would have run beside the next copy: the
      // gap, up to that copy's own length.
      std::optional<double> lost;
      if (i + 1 < list.size() && list[i + 1].copy->pid == c.pid &&
          list[i + 1].copy->thread == c.thread) {
        const auto here = copy_span(c), next = copy_span(*list[i + 1].copy);
        if (here && next) {
          const double gap =
              static_cast<double>(std::max<std::int64_t>(0, next->first - here->second));
          lost = std::min(gap, static_cast<double>(next->second - next->first)) / 1e6;
        }
      }
      ++f.count;
      f.bytes += call_bytes(c);
      f.host_ms += host_ms(c) + sync_ms;
      waited += sync_ms;
      if (lost) f.lost_ms = f.lost_ms.value_or(0) + *lost;
      add_to_site(sites, t, c, call_bytes(c), host_ms(c) + sync_ms, lost);
    }
  }
  if (f.count == 0) return;
  if (!f.lost_ms) f.lost_ms = 0.0;  // copies without device times: nothing shown to overlap
  f.sites = ranked(sites);
  f.evidence.push_back(fmt::format(
      "{} ({}) at {} {} each followed by a synchronisation before the next copy, {:.3f} ms of "
      "host time waiting in them: each copy ran alone, overlapping neither the host's work "
      "between the copies nor the next copy",
      plural(f.count, "asynchronous copy", "asynchronous copies"), format_size(f.bytes),
      plural(f.sites.size(), "site", "sites"), f.count == 1 ? "was" : "were", waited));
  f.evidence.push_back(fmt::format(
      "queued and synchronised once (or double-buffered where each result is read), the host's "
      "work between the copies would run beside them: about {:.3f} ms saved (each gap between a "
      "copy's end and the next one's start, up to the next copy's own length)",
      *f.lost_ms));
  set_fix(
      f, t,
      {"Synchronise once per step, not per copy: .cpu(), .item() and "
       "torch.cuda.synchronize() each wait; copy into page-locked tensors with "
       "non_blocking=True and wait once, where the host reads the results",
       "outs = [torch.empty(t.shape, dtype=t.dtype, pin_memory=True) for t in tensors]  # once\n"
       "for out, t in zip(outs, tensors):\n"
       "    out.copy_(t, non_blocking=True)\n"
       "torch.cuda.current_stream().synchronize()   # once, after the loop"},
      {"Queue the copies and synchronise once after the loop; where the host needs each "
       "result, double-buffer: issue copy i+1 before waiting on copy i's event",
       "for (int i = 0; i < n; ++i) {\n"
       "  cudaMemcpyAsync(dst[i], src[i], bytes, kind, stream);\n"
       "  cudaEventRecord(done[i], stream);  // wait on done[i] only where buffer i is read\n"
       "}\n"
       "cudaStreamSynchronize(stream);  // once"});
  a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
