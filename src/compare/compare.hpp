// Run comparison: two run records matched case by case on (part, method, direction, memory,
// bytes, and for a case of many blocks its block size and count), each side's median rate from
// its verified samples, the ratio B/A, and whether it moved by more than a threshold. Two records
// measured under different conditions (another GPU model, a kernel beside the copies in one of
// them, another set of methods: condition_differences) are not judged at all: a difference
// between them is the conditions' as much as the runs'. Also says whether the driver or the host
// CPU differ, which is allowed but changes what a difference means. Pure: no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/experiment.hpp"
#include "framework/record.hpp"

namespace pinbench::compare {

struct CaseKey {
  std::string part, method, direction, memory;
  std::uint64_t bytes = 0;
  // The case's shape, as its record's experiment gives it (Experiment::case_shape): 16 blocks
  // of 4 KiB and one of 64 KiB move the same bytes but are not one case. Empty for one buffer.
  CaseShape shape;
};

// "copy cudaMemcpy h2d pinned 64 MiB", "blocks loop h2d pinned 64 KiB (16 x 4 KiB)": how a case
// is named in comparisons and notes.
std::string describe(const CaseKey& key);

struct ComparedCase {
  CaseKey key;
  std::optional<double> a_gb_per_s, b_gb_per_s;  // absent: missing samples or a failed gate
  std::optional<double> ratio;                   // b / a, when both are present
  bool differs = false;                          // |ratio - 1| > threshold
};

struct Comparison {
  double threshold = 0.20;  // a fraction: 0.20 is 20%
  // "device NVIDIA H200 vs Tesla T4", one entry per differing field; empty on one machine.
  std::vector<std::string> machine_differences;
  std::vector<ComparedCase> common;  // in A's order
  std::vector<CaseKey> only_a, only_b;
  int differing() const;
  int not_compared() const;  // common cases without a verified figure on both sides
};

// Throws InputError when the records have no case in common, or the threshold is negative or
// not a number: either way there is nothing meaningful to report.
Comparison compare_records(const RunRecord& a, const RunRecord& b, double threshold);
// The same, but nothing when the records have no case in common (an experiment that compares
// its records itself may have none); a bad threshold is still an InputError.
std::optional<Comparison> compare_common_cases(const RunRecord& a, const RunRecord& b,
                                               double threshold);

// "kernel beside the copies: compute in A, none in B": one entry per condition of the records
// (conditions_of: the experiment, the GPU model, the experiment's own) that they do not share, in
// A's order then those only B states ("not stated" on the other side). Empty when the two were
// measured under the same conditions; otherwise neither is judged against the other.
std::vector<std::string> condition_differences(const RunRecord& a, const RunRecord& b);

// "device NVIDIA H200 vs Tesla T4", one entry per field of the machines that differs.
std::vector<std::string> machine_differences(const MachineInfo& a, const MachineInfo& b);

}  // namespace pinbench::compare
