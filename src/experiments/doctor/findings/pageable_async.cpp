// pageable-async and pageable-async-d2h: asynchronous copy calls of pageable memory, which hold
// the host thread while the driver stages the data, and the overlap that cost.
#include <algorithm>
#include <cstdint>
#include <map>
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

// The time other streams' work kept the GPU busy inside a window, for every pageable call of a
// record: built once from the trace's kernels and copies, each question a few binary searches, so
// a record of 100,000 calls is judged in the time of its length and not its square.
class StreamBusy {
 public:
  explicit StreamBusy(const DoctorTrace& t) {
    struct Edge {
      std::int64_t at;
      std::uint32_t stream;
      int step;  // +1 a span starts, -1 one ends
    };
    std::vector<Edge> edges;
    const auto add = [&](std::int64_t from, std::int64_t to, std::uint32_t stream) {
      if (to <= from) return;
      edges.push_back({from, stream, +1});
      edges.push_back({to, stream, -1});
    };
    for (const Kernel& k : t.kernels) add(k.start_ns, k.end_ns, k.stream);
    for (const DoctorCall& c : t.calls) {
      for (const Copy& k : c.copies) add(k.start_ns, k.end_ns, k.stream);
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.at < y.at; });
    std::map<std::uint32_t, int> active;  // streams with work in flight, and how many spans
    for (std::size_t i = 0; i < edges.size();) {
      const std::int64_t at = edges[i].at;
      for (; i < edges.size() && edges[i].at == at; ++i) {
        int& n = active[edges[i].stream];
        n += edges[i].step;
        if (n == 0) active.erase(edges[i].stream);
      }
      if (i == edges.size() || active.empty()) continue;
      const std::int64_t next = edges[i].at;
      all_.add(at, next);
      if (active.size() == 1) alone_[active.begin()->first].add(at, next);
    }
  }

  // Work on streams other than `streams` inside [a, b), in ms: all the work there, less where
  // one of `streams` ran alone. A call's copies share its one stream (every CUDA copy API takes
  // one); a hand-made call whose copies name several counts the time those streams ran together,
  // and nothing else, as other streams' work.
  double others_ms(const std::vector<std::uint32_t>& streams, std::int64_t a,
                   std::int64_t b) const {
    if (b <= a) return 0;
    std::int64_t busy = all_.covered(a, b);
    std::vector<std::uint32_t> distinct = streams;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (std::uint32_t s : distinct) {
      const auto it = alone_.find(s);
      if (it != alone_.end()) busy -= it->second.covered(a, b);
    }
    return static_cast<double>(std::max<std::int64_t>(busy, 0)) / 1e6;
  }

 private:
  // Disjoint spans of time in order, with the length of those before each.
  struct Spans {
    std::vector<std::int64_t> from, to, before;
    void add(std::int64_t f, std::int64_t t) {
      if (!to.empty() && to.back() == f) {
        to.back() = t;
        return;
      }
      before.push_back(before.empty() ? 0 : before.back() + (to.back() - from.back()));
      from.push_back(f);
      to.push_back(t);
    }
    // Their length up to time x.
    std::int64_t upto(std::int64_t x) const {
      const auto it = std::upper_bound(from.begin(), from.end(), x);
      if (it == from.begin()) return 0;
      const auto k = static_cast<std::size_t>(it - from.begin()) - 1;
      return before[k] + std::min(x, to[k]) - from[k];
    }
    std::int64_t covered(std::int64_t a, std::int64_t b) const { return upto(b) - upto(a); }
  };
  Spans all_;
  std::map<std::uint32_t, Spans> alone_;
};

// Every pageable copy of the call goes to the host.
bool only_to_host(const DoctorCall& c) {
  return std::all_of(c.copies.begin(), c.copies.end(), [](const Copy& k) {
    return !pageable(k) || k.direction == CopyDirection::kD2H;
  });
}

// Asynchronous calls with pageable copies: to the device (pageable-async), or, when `to_host`,
// those whose pageable copies all go to the host (pageable-async-d2h), which return only once
// the data is in place whatever the API's name says.
void judge_pageable_async(const FindingInput& in, DoctorAnalysis& a, bool to_host) {
  const RunRecord& r = in.record;
  const DoctorTrace& t = in.trace;
  std::vector<const DoctorCall*> calls;
  for (const DoctorCall& c : t.calls) {
    if ((c.kind == "copy_async" || c.kind == "batch") && c.status == 0 && has_pageable(c) &&
        only_to_host(c) == to_host) {
      calls.push_back(&c);
    }
  }
  if (calls.empty()) return;
  DoctorFinding f;
  f.id = to_host ? "pageable-async-d2h" : "pageable-async";
  f.title = to_host ? "Device-to-host copies into pageable memory requested as asynchronous"
                    : "Asynchronous copies " + pageable_end(calls);
  std::map<std::string, SiteSum> sites;
  double pinned = 0, lost = 0, prevented = 0, seen = 0;
  bool all_pinned = true, all_lost = true;
  AccelSum accel;
  const StreamBusy busy(t);
  for (const DoctorCall* c : calls) {
    const CopyCost cost = count_copy_call(r, *c, f);
    accel.add(accel_call_ms(r, *c, host_ms(*c)));
    std::optional<double> call_lost;
    if (cost.pinned_ms) {
      pinned += *cost.pinned_ms;
    } else {
      all_pinned = false;
    }
    if (cost.pinned_call_ms) {
      call_lost = std::max(0.0, host_ms(*c) - *cost.pinned_call_ms);
      lost += *call_lost;
    } else {
      all_lost = false;
    }
    // Overlap prevented: work on other streams that began after the call let the host go and
    // ran within the copy's own length of it; had the call returned at once, it could have run
    // beside the copy. Overlap seen: other streams' work inside the call, which did run beside.
    std::vector<std::uint32_t> streams;
    std::int64_t first = 0, last = 0;
    for (const Copy& k : c->copies) {
      streams.push_back(k.stream);
      first = streams.size() == 1 ? k.start_ns : std::min(first, k.start_ns);
      last = std::max(last, k.end_ns);
    }
    const std::int64_t length = last - first;
    prevented += std::min(static_cast<double>(length) / 1e6,
                          busy.others_ms(streams, c->end_ns, c->end_ns + length));
    seen += busy.others_ms(streams, c->start_ns, c->end_ns);
    add_to_site(sites, t, *c, host_bytes(*c), host_ms(*c), call_lost);
  }
  if (all_pinned) f.pinned_ms = pinned;
  if (all_lost) f.lost_ms = lost;
  f.overlap_prevented_ms = prevented;
  f.sites = ranked(sites);
  if (to_host) {
    f.evidence.push_back(fmt::format(
        "{} asynchronous call{} copied {} into pageable memory and held the host thread for "
        "{:.3f} ms: a copy into pageable memory returns only once the data is in place, so "
        "asking for it asynchronously (cudaMemcpyAsync, non_blocking=True) overlaps nothing",
        f.count, f.count == 1 ? "" : "s", format_size(f.bytes), f.host_ms));
  } else {
    f.evidence.push_back(fmt::format(
        "{} call{} ({}) held the host thread for {:.3f} ms while the driver staged {} of "
        "pageable memory through its own buffers",
        f.count, f.count == 1 ? "" : "s", directions_of(calls), f.host_ms, format_size(f.bytes)));
  }
  if (f.pinned_ms) {
    f.evidence.push_back(fmt::format(
        "from page-locked memory the same copies take {:.3f} ms of copy-engine time and the "
        "calls return at once{}",
        *f.pinned_ms,
        f.lost_ms ? fmt::format(": {:.3f} ms of host time lost", *f.lost_ms) : std::string()));
  }
  f.evidence.push_back(fmt::format(
      "overlap prevented: {:.3f} ms of other streams' work began after these calls let the host "
      "go, within a copy's length ({:.3f} ms of other streams' work did run inside the calls)",
      prevented, seen));
  accel.say(f);
  if (to_host) {
    set_fix(f, t,
            {"Copy into a page-locked tensor: .cpu() and .to('cpu') into pageable memory wait "
             "for the copy; allocate the destination pinned once, copy with non_blocking=True, "
             "and wait on an event only before reading it",
             "out = torch.empty(shape, dtype=dtype, pin_memory=True)   # once\n"
             "out.copy_(gpu_tensor, non_blocking=True)\n"
             "done = torch.cuda.Event(); done.record()\n"
             "...                                      # other work\n"
             "done.synchronize()                       # before reading out"},
            {"Copy into page-locked memory (cudaMallocHost once, or cudaHostRegister on the "
             "buffer you have) so the call returns at once, and wait on an event only when the "
             "host reads the data",
             "cudaMallocHost(&out, bytes);  // once\n"
             "cudaMemcpyAsync(out, dev, bytes, cudaMemcpyDeviceToHost, stream);  // returns at "
             "once\n"
             "cudaEventRecord(done, stream);  // cudaEventSynchronize(done) before reading out"});
  } else {
    set_fix(f, t,
            {"Copy from page-locked memory: x.pin_memory() once (reused), or "
             "DataLoader(pin_memory=True); then .to('cuda', non_blocking=True) overlaps",
             "x = x.pin_memory()            # once, outside the loop\n"
             "y = x.to('cuda', non_blocking=True)"},
            {"Allocate the host buffers page-locked (cudaMallocHost / cudaHostAlloc) or pin "
             "them once (cudaHostRegister) and reuse them; for data sets too large to pin, "
             "pinbench's staged engine (pinbench::StagedCopier) streams them through a small "
             "pinned ring",
             "cudaMallocHost(&host, bytes);  // instead of malloc, once\n"
             "cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream);"});
  }
  if (judge_on_host_page_tables(r, calls, f, a)) a.findings.push_back(std::move(f));
}

}  // namespace

void pageable_async(const FindingInput& in, DoctorAnalysis& a) {
  judge_pageable_async(in, a, false);
}

void pageable_async_d2h(const FindingInput& in, DoctorAnalysis& a) {
  judge_pageable_async(in, a, true);
}

}  // namespace pinbench::experiments::doctor::findings
