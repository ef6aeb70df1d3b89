// The page-locked memory a program held, as the findings about it read the trace: each range it
// page-locked with the copies made from it, and each allocation paired with its free.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "experiments/doctor/trace.hpp"

namespace pinbench::experiments::doctor::findings {

// A range the program page-locked (an allocation or a registration), alive from the call's
// return to the start of its free, and the copies whose host pointer lay in it meanwhile.
struct PinnedRange {
  const DoctorCall* alloc = nullptr;
  std::int64_t from_ns = 0;
  std::int64_t to_ns = std::numeric_limits<std::int64_t>::max();
  std::uint64_t high_water = 0;  // the furthest byte from its start that a copy reached
  std::vector<const DoctorCall*> copies;
};

struct PinnedRanges {
  std::vector<PinnedRange> ranges;    // in call order
  bool copies_name_pointers = false;  // some copy of the record carries its host pointer
};

// Matches copies to the page-locked ranges by their host pointer: same process, inside the range,
// while it was alive.
PinnedRanges pinned_ranges(const DoctorTrace& t);

// Each page-locked allocation (or registration) paired with the free (or unregistration) of its
// pointer, by the allocation's call site; and how many were made, and the most held at once.
struct AllocationPairs {
  std::map<std::string, std::vector<std::pair<const DoctorCall*, const DoctorCall*>>> by_site;
  std::uint64_t allocations = 0;
  std::uint64_t peak_bytes = 0;
};
AllocationPairs allocation_pairs(const DoctorTrace& t);

// The call sites that allocated and freed page-locked memory in a loop (kLoopCalls pairs or
// more): alloc-churn reports them, and pinning-critical-path leaves their calls to it.
std::set<std::string> churn_sites(const AllocationPairs& pairs);

}  // namespace pinbench::experiments::doctor::findings
