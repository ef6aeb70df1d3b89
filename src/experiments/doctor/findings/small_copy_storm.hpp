// small-copy-storm's call sites, which the calibration plan also reads: it measures small copies
// of the size the storms copied most.
#pragma once

#include <string>
#include <vector>

#include "experiments/doctor/trace.hpp"

namespace pinbench::experiments::doctor::findings {

struct Storm {
  std::string where;
  std::vector<const DoctorCall*> calls;
};

// Call sites of at least kStormCalls copies between host and device each under kSmallCopyBytes
// (one call per copy: a batch is the fix already).
std::vector<Storm> storms(const DoctorTrace& t);

}  // namespace pinbench::experiments::doctor::findings
