// What numa-placement sees of the program's host memory off the GPU's NUMA node, which the
// calibration plan also reads: it measures the nodes involved.
#pragma once

#include <string>
#include <vector>

#include "experiments/doctor/findings/pinned_memory.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::doctor::findings {

struct Misplaced {
  const DoctorCall* copy;
  const DoctorCall* alloc;  // the page-locked buffer the copy used; nullptr for pageable memory
  int node;
  std::string memory;  // "pinned" or "pageable"
};

struct NumaSeen {
  std::string not_judged;                  // why placement cannot be judged here, or ""
  std::vector<const DoctorCall*> buffers;  // page-locked buffers off the GPU's node
  std::vector<Misplaced> copies;
};

// The page-locked buffers and the copies off the GPU's node, or why placement cannot be judged
// on this machine or record.
NumaSeen numa_seen(const MachineInfo& m, const DoctorTrace& t, const PinnedRanges& pinned);

}  // namespace pinbench::experiments::doctor::findings
