// Two doctor records of one program, A before a fix and B after it (`pinbench compare A B`): per
// finding and per call site, what changed (count, bytes, host time, time lost), which findings
// and sites are new and which are gone. No CUDA.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiments/doctor/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::doctor {

struct DoctorSiteChange {
  std::string where;
  std::optional<DoctorSiteCost> a, b;  // absent where that record's finding has no such site
};

struct DoctorFindingChange {
  std::string id;
  std::optional<DoctorFinding> a, b;  // absent where that record has no such finding
  std::vector<DoctorSiteChange> sites;
};

struct DoctorComparison {
  std::vector<DoctorFindingChange> findings;  // A's ranking, then the findings only B has
  std::string a_headline, b_headline;
  double a_wall_ms = 0, b_wall_ms = 0;
  std::size_t new_findings() const;
  std::size_t gone_findings() const;
  // Call sites B has in a finding that A had too (a new finding's sites are new with it).
  std::size_t new_sites() const;
  // B has a finding or a call site A had not: what `compare` exits 1 on.
  bool worse() const { return new_findings() > 0 || new_sites() > 0; }
};

// Throws InputError when a record holds no doctor trace.
DoctorComparison compare_doctor(const RunRecord& a, const RunRecord& b);

// The comparison as text for a terminal: the two headlines, one table of findings with their
// call sites under them, A's figures beside B's and what changed, and a closing line.
std::string render_doctor_comparison(const DoctorComparison& comparison);

}  // namespace pinbench::experiments::doctor
