// Hand-made doctor traces: the injection library's event lines (docs/doctor.md) as a test asks
// for them, the calibration's cases, and a doctor record around a trace. Shared by the tests of
// the parser, the findings, the report and `compare`.
#pragma once

#include <cstdint>
#include <string>

#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/record.hpp"

namespace pinbench::test {
using namespace experiments::doctor;

// An H line: a process began collecting, its clock at 1 ms.
std::string head(int pid = 10);

// An A line: one API call of `cls` ("copy_async", "alloc", ...) from start_us to end_us after the
// H line's clock, with the host pointer, bytes, direction letter, host-side letter and NUMA node
// the collector read, its return value, and the driver's word on its range after it (`locked`,
// events.hpp's Api::Locked; 0 writes a line as the collector did before it read that: without
// the field).
std::string api(const std::string& domain, const std::string& cls, unsigned corr,
                std::uint64_t start_us, std::uint64_t end_us, const std::string& site,
                const std::string& name, std::uint64_t ptr = 0, std::uint64_t bytes = 0,
                int pid = 10, int tid = 77, char direction = '-', char host = '-', int node = -1,
                int status = 0, char locked = 0);

// An M line: copy kind 1 = h2d, 2 = d2h; memory kind 1 = pageable, 2 = pinned, 3 = device.
std::string memcpy_line(unsigned corr, unsigned rcorr, int copy_kind, std::uint64_t bytes, int src,
                        int dst, std::uint64_t start_us, std::uint64_t end_us, unsigned stream = 13,
                        int pid = 10);

// An S line: the runtime's frame, then `function` in /bin/app, then main.
std::string site(const std::string& id, const std::string& function, int pid = 10);

inline const std::string kSiteA = "00000000000000aa";
inline const std::string kSiteB = "00000000000000bb";
inline const std::string kNone = "0000000000000000";

// A calibration case of the doctor's: three samples of `ms`, calls of `call_ms`, gate passed.
Case rate_case(const std::string& direction, const std::string& memory, std::uint64_t bytes,
               double ms, double call_ms);

// A doctor record of `t` with rates: 4 MiB both ways, pinned at 40 GB/s (call 0.01 ms), pageable
// at 10; 64 GiB of host memory.
RunRecord record_with(const DoctorTrace& t, bool rates = true);

const DoctorFinding* find(const DoctorAnalysis& a, const std::string& id);

// `n` pageable async copies of 4 MiB to the device, each call 1 ms, at site `s`.
std::string pageable_loop(int n = 10, const std::string& s = kSiteA, unsigned first = 1);

}  // namespace pinbench::test
