#include "experiments/doctor/findings/pinned_memory.hpp"

#include <algorithm>

#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/sites.hpp"

namespace pinbench::experiments::doctor::findings {

PinnedRanges pinned_ranges(const DoctorTrace& t) {
  PinnedRanges out;
  std::map<std::pair<int, std::uint64_t>, std::size_t> live;
  for (const DoctorCall& c : t.calls) {
    if (c.status != 0 || c.ptr == 0) continue;
    if (locked_a_range(c)) {
      live[{c.pid, c.ptr}] = out.ranges.size();
      PinnedRange r;
      r.alloc = &c;
      r.from_ns = c.end_ns;
      out.ranges.push_back(std::move(r));
    } else if (c.kind == "free" || c.kind == "unregister") {
      const auto it = live.find({c.pid, c.ptr});
      if (it == live.end()) continue;
      out.ranges[it->second].to_ns = c.start_ns;
      live.erase(it);
    }
  }
  // Per process, by start address; the largest range bounds how far down a look-up walks.
  std::map<int, std::vector<std::size_t>> by_pid;
  std::map<int, std::uint64_t> largest;
  for (std::size_t i = 0; i < out.ranges.size(); ++i) {
    const DoctorCall& a = *out.ranges[i].alloc;
    by_pid[a.pid].push_back(i);
    largest[a.pid] = std::max(largest[a.pid], a.bytes);
  }
  for (auto& [pid, v] : by_pid) {
    std::stable_sort(v.begin(), v.end(), [&](std::size_t x, std::size_t y) {
      return out.ranges[x].alloc->ptr < out.ranges[y].alloc->ptr;
    });
  }
  for (const DoctorCall& c : t.calls) {
    if (!is_copy(c) || c.status != 0 || c.ptr == 0) continue;
    out.copies_name_pointers = true;
    const auto it = by_pid.find(c.pid);
    if (it == by_pid.end()) continue;
    const std::vector<std::size_t>& v = it->second;
    auto at = std::upper_bound(v.begin(), v.end(), c.ptr, [&](std::uint64_t p, std::size_t i) {
      return p < out.ranges[i].alloc->ptr;
    });
    while (at != v.begin()) {
      --at;
      PinnedRange& r = out.ranges[*at];
      const std::uint64_t offset = c.ptr - r.alloc->ptr;
      if (offset >= largest[c.pid]) break;  // no range further down reaches the pointer
      if (offset < r.alloc->bytes && c.start_ns >= r.from_ns && c.start_ns <= r.to_ns) {
        r.high_water = std::max(r.high_water, std::min(offset + call_bytes(c), r.alloc->bytes));
        r.copies.push_back(&c);
        break;
      }
    }
  }
  return out;
}

AllocationPairs allocation_pairs(const DoctorTrace& t) {
  AllocationPairs out;
  std::map<std::pair<int, std::uint64_t>, const DoctorCall*> live;
  std::uint64_t held = 0;
  for (const DoctorCall& c : t.calls) {
    if (c.status != 0) continue;
    if (locked_a_range(c)) {
      live[{c.pid, c.ptr}] = &c;
      held += c.bytes;
      out.peak_bytes = std::max(out.peak_bytes, held);
      ++out.allocations;
    } else if ((c.kind == "free" || c.kind == "unregister") && c.ptr != 0) {
      const auto it = live.find({c.pid, c.ptr});
      if (it == live.end()) continue;
      held -= std::min(held, it->second->bytes);
      out.by_site[describe(t, *it->second).first].emplace_back(it->second, &c);
      live.erase(it);
    }
  }
  return out;
}

std::set<std::string> churn_sites(const AllocationPairs& pairs) {
  std::set<std::string> churn;
  for (const auto& [where, list] : pairs.by_site) {
    if (list.size() >= kLoopCalls) churn.insert(where);
  }
  return churn;
}

}  // namespace pinbench::experiments::doctor::findings
