// Where a call was made, as a finding shows it: the program's innermost frame as one line, and
// each finding's calls summed per call site and ranked.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/trace.hpp"

namespace pinbench::experiments::doctor::findings {

// Where a call was made, as one line, and the frames beneath it.
std::pair<std::string, std::vector<std::string>> describe(const DoctorTrace& t,
                                                          const DoctorCall& c);

struct SiteSum {
  DoctorSiteCost cost;
  bool any_lost = false;
};

// Adds one call (or allocation, or copy) to the row of the site `c` names: its bytes, host time
// and time lost.
void add_to_site(std::map<std::string, SiteSum>& sites, const DoctorTrace& t, const DoctorCall& c,
                 std::uint64_t bytes, double host, std::optional<double> lost);

// The sites ranked by time lost, then host time.
std::vector<DoctorSiteCost> ranked(const std::map<std::string, SiteSum>& sites);

}  // namespace pinbench::experiments::doctor::findings
