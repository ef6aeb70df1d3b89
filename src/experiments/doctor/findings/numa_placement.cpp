// numa-placement: page-locked buffers, and pageable copies of 1 MiB or more, whose pages lie on a
// NUMA node other than the GPU's, priced with the calibration at both placements.
#include "experiments/doctor/findings/numa_placement.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/sites.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor::findings {

NumaSeen numa_seen(const MachineInfo& m, const DoctorTrace& t, const PinnedRanges& pinned) {
  NumaSeen n;
  bool anything = false, read = false;
  for (const DoctorCall& c : t.calls) {
    if (c.status != 0) continue;
    const bool buffer = c.kind == "alloc" || c.kind == "register";
    const bool large_pageable =
        is_copy(c) && has_pageable(c) && call_bytes(c) >= events::kNumaSampleBytes;
    anything = anything || buffer || large_pageable;
    read = read || ((buffer || is_copy(c)) && c.numa_node >= 0);
  }
  if (!anything) return n;
  if (m.host_numa_nodes == 1) {
    n.not_judged =
        "this host has one NUMA node, so every page lies on the GPU's node: nothing can be "
        "misplaced";
  } else if (m.numa_node < 0) {
    n.not_judged =
        "the GPU's NUMA node is unknown (the platform does not say), so no page can be said to "
        "lie off it";
  } else if (!read) {
    n.not_judged =
        "no page's NUMA node was read (a record made before doctor read them, or a kernel that "
        "refused move_pages)";
  }
  if (!n.not_judged.empty()) return n;
  for (const PinnedRange& r : pinned.ranges) {
    if (r.alloc->numa_node < 0 || r.alloc->numa_node == m.numa_node) continue;
    n.buffers.push_back(r.alloc);
    for (const DoctorCall* c : r.copies) {
      n.copies.push_back({c, r.alloc, r.alloc->numa_node, "pinned"});
    }
  }
  for (const DoctorCall& c : t.calls) {
    if (is_copy(c) && c.status == 0 && has_pageable(c) && c.numa_node >= 0 &&
        c.numa_node != m.numa_node) {
      n.copies.push_back({&c, nullptr, c.numa_node, "pageable"});
    }
  }
  return n;
}

void numa_placement(const FindingInput& in, DoctorAnalysis& a) {
  const RunRecord& r = in.record;
  const DoctorTrace& t = in.trace;
  const PinnedRanges& pinned = in.pinned;
  const NumaSeen n = numa_seen(r.machine, t, pinned);
  if (!n.not_judged.empty()) {
    a.not_judged.push_back({"numa-placement", n.not_judged});
    return;
  }
  if (n.buffers.empty() && n.copies.empty()) return;
  DoctorFinding f;
  f.id = "numa-placement";
  f.title = "Host memory on a NUMA node other than the GPU's";
  f.counted = "copies";
  std::map<std::string, SiteSum> sites;
  std::set<int> nodes;
  double lost = 0;
  bool all_lost = true;
  std::uint64_t pageable_copies = 0;
  std::string shown;
  for (const Misplaced& m : n.copies) {
    const std::uint64_t b = call_bytes(*m.copy);
    const std::string dir = call_direction(*m.copy);
    const std::optional<double> near =
        numa_rate(a.numa_rates, dir, m.memory, r.machine.numa_node, b);
    const std::optional<double> far = numa_rate(a.numa_rates, dir, m.memory, m.node, b);
    std::optional<double> copy_lost;
    if (near && far) {
      copy_lost = std::max(
          0.0, static_cast<double>(b) / (*far * 1e6) - static_cast<double>(b) / (*near * 1e6));
      lost += *copy_lost;
      if (shown.empty()) {
        shown = fmt::format(
            "{} {} {:.2f} GB/s with the host buffer on node {}, {:.2f} GB/s on "
            "node {}",
            direction_words(dir), m.memory, *near, r.machine.numa_node, *far, m.node);
      }
    } else {
      all_lost = false;
    }
    nodes.insert(m.node);
    pageable_copies += m.alloc == nullptr ? 1 : 0;
    ++f.count;
    f.bytes += b;
    f.host_ms += host_ms(*m.copy);
    // A page-locked buffer is fixed where it was allocated; pageable memory where it was copied.
    add_to_site(sites, t, m.alloc != nullptr ? *m.alloc : *m.copy, b, host_ms(*m.copy), copy_lost);
  }
  std::uint64_t buffer_bytes = 0;
  for (const DoctorCall* b : n.buffers) {
    buffer_bytes += b->bytes;
    nodes.insert(b->numa_node);
  }
  if (all_lost && !n.copies.empty()) f.lost_ms = lost;
  f.sites = ranked(sites);
  std::string node_list;
  for (int node : nodes) node_list += (node_list.empty() ? "" : ", ") + std::to_string(node);
  f.evidence.push_back(fmt::format(
      "page-locked buffers on NUMA node{} {}: {} ({}); pageable copies of 1 MiB or more whose "
      "pages lie there: {}; the GPU sits on node {}, so {} ({}) crossed the link between the "
      "sockets",
      nodes.size() == 1 ? "" : "s", node_list, n.buffers.size(), format_size(buffer_bytes),
      pageable_copies, r.machine.numa_node, plural(f.count, "copy", "copies"),
      format_size(f.bytes)));
  if (f.lost_ms) {
    f.evidence.push_back(
        fmt::format("calibrated here at both placements ({}): about {:.3f} ms "
                    "of copy time lost to the distance",
                    shown, *f.lost_ms));
  } else {
    f.evidence.push_back(
        "the record holds no calibration at both placements for these copies, so the time lost "
        "is not estimated");
  }
  set_fix(f, t,
          {"Run the process (and its loader workers) on the GPU's node, so pin_memory() and the "
           "caching host allocator place their pages there",
           "numactl --cpunodebind=N --membind=N python train.py   # N: the GPU's node "
           "(nvidia-smi topo -m)"},
          {"Allocate page-locked buffers from a thread bound to the GPU's node (its CPUs, so "
           "first touch puts the pages there), or bind the whole process to that node",
           "numactl --cpunodebind=N --membind=N ./program   # N: the GPU's node (nvidia-smi topo "
           "-m)\n"
           "// or, in the program: sched_setaffinity to the node's CPUs before cudaHostAlloc"});
  a.findings.push_back(std::move(f));
}

}  // namespace pinbench::experiments::doctor::findings
