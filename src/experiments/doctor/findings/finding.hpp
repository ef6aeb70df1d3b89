// What a finding of doctor's is given, and what every finding writes with. A finding is a
// function of this folder, one file each (findings.def lists them): it reads the record and its
// trace, and adds a DoctorFinding to the analysis, or says why it could not judge, or nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/findings/pinned_memory.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::doctor::findings {

// A finding's inputs: the record (its machine and calibration cases), its trace, and what
// several findings read of the trace, worked out once.
struct FindingInput {
  const RunRecord& record;
  const DoctorTrace& trace;
  const PinnedRanges& pinned;          // page-locked ranges and the copies made from each
  const AllocationPairs& allocations;  // page-locked allocations paired with their frees
};

// Every finding, as findings.def lists them.
#define PINBENCH_DOCTOR_FINDING(id, function) \
  void function(const FindingInput& in, DoctorAnalysis& a);
#include "experiments/doctor/findings/findings.def"
#undef PINBENCH_DOCTOR_FINDING

// A fix: what to do, and the code that does it.
struct Fix {
  const char* text;
  const char* code;
};

// The fix in the program's own terms: PyTorch's where a call site has a Python frame.
void set_fix(DoctorFinding& f, const DoctorTrace& t, const Fix& python, const Fix& native);

// "3 calls", "1 call".
std::string plural(std::uint64_t n, const char* one, const char* many);

// "0.042", "12.3", "456": a time in ms to the figures worth saying.
std::string about_ms(double ms);

// The directions of the calls' pageable copies: "host to device", "device to host" or "both
// directions".
std::string directions_of(const std::vector<const DoctorCall*>& calls);

// Where the pageable end of the calls' copies is, for a finding's title: copies to the device
// read "from pageable memory", copies to the host write "into" it.
std::string pageable_end(const std::vector<const DoctorCall*>& calls);

// Adds a copy call to its finding (one more call, its host bytes and host time) and returns
// what its copies would cost from page-locked memory.
CopyCost count_copy_call(const RunRecord& r, const DoctorCall& c, DoctorFinding& f);

// Where the GPU reads pageable memory through the host's page tables (ATS, as on Grace Hopper),
// copies from pageable memory may run near the page-locked rate, so a pageable finding there
// either says why it stands or is not judged a pitfall: when the calibration measured the
// pageable rate at kHmmNearPinned of the page-locked one or better at every size its copies used.
// Returns whether the finding is kept.
bool judge_on_host_page_tables(const RunRecord& r, const std::vector<const DoctorCall*>& calls,
                               DoctorFinding& f, DoctorAnalysis& a);

}  // namespace pinbench::experiments::doctor::findings
