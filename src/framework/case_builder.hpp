// One way to name, fill and gate a measured case, for every experiment. No CUDA: the names and
// the filling are tested anywhere, and the CUDA side (measure/sampler.hpp, the kind gates)
// only produces the Timed result these take.
//
// Gate names are records' keys: committed records and tests look cases up by them, so a size
// keeps the spelling it always had ("64MiB", "4KiB", "1.5MiB") wherever that spelling is exact,
// and any other size is named exactly ("1025KiB", "1048573B"), never rounded into a
// neighbour's name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framework/record.hpp"
#include "framework/sampling.hpp"

namespace pinbench {

// What sampling one case produced: the one timed-result type of every experiment.
struct Timed {
  std::vector<double> samples_ms;
  std::vector<double> call_ms;  // how long each call held the host thread, where it was timed
  StopReason stop = StopReason::kContinue;
  bool failed = false;  // a sample's bytes were wrong, or the method itself failed
  std::string detail;   // the first failure, for its gate

  // Records the first failure only: later ones are consequences of it.
  void fail(std::string why);
};

// "64MiB", "4KiB", "1.5MiB" where that spelling is exact; otherwise a whole number of KiB
// ("1025KiB") or the bytes ("1048573B").
std::string size_token(std::uint64_t bytes);

// As size_token, with the host and device offsets of an unaligned case: "1048573B@+3/+1". An
// aligned case (both offsets 0) is size_token(bytes).
std::string size_token(std::uint64_t bytes, std::uint64_t host_offset, std::uint64_t device_offset);

// The parts joined by '/', then the size: gate_name({"copy", "h2d", "pageable"}, 64 MiB) is
// "copy/h2d/pageable/64MiB".
std::string gate_name(std::initializer_list<std::string_view> parts, std::uint64_t bytes);
std::string gate_name(std::initializer_list<std::string_view> parts, std::string_view size);

// What a case is, apart from what was measured.
struct CaseSpec {
  std::string part;
  std::string direction;
  std::string memory;
  std::string method;
  std::string timing;  // "cuda_events" or "host_clock" (the sweep: "latch" or "blocking")
  std::uint64_t bytes = 0;
  int warmups = 0;
  std::string gate;
};

// The case's fields from `spec`, its samples, call times and stop reason from `t`. Verified when
// nothing failed, at least one sample was timed, and `kinds_ok` (the buffers were the memory
// kinds they claim to be).
Case make_case(const CaseSpec& spec, const Timed& t, bool kinds_ok = true);

// The gate covering a sampled case: passed unless `t` failed, whose detail it then carries.
Gate sampled_gate(const std::string& name, const Timed& t, const std::string& passed_detail);

// "every one of 10 samples delivered all 4096 bytes": the usual detail of a passed gate.
std::string every_sample_detail(std::size_t samples, std::uint64_t bytes);

// "first difference at byte 17 of 4096": what a failed byte-exact comparison says.
std::string mismatch_detail(std::size_t mismatch, std::uint64_t bytes);

// A byte-exact comparison's gate: `mismatch` is the first differing byte, if any.
Gate bytes_gate(const std::string& name, std::optional<std::size_t> mismatch, std::uint64_t bytes);

// A memory-kind gate from what the driver said (`seen`) and what the buffer should be.
Gate kind_gate_from(const std::string& name, const std::string& seen, const std::string& expected);

// Whether every gate in [first, end) of `gates` passed.
bool gates_passed(const std::vector<Gate>& gates, std::size_t first = 0);

}  // namespace pinbench
