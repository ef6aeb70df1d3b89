// What `pinbench sweep` measures, as plain data: host-memory kinds, directions, copy methods,
// sizes (lists or ranges), and the stopping rule that decides how many samples a case gets.
// No CUDA here, so parsing and the stopping rule are tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

// Each kind has one name, used in flags, tables, records and CSV alike.
enum class MemoryKind {
  kPageable,       // "pageable": malloc'd, touched before use
  kPageableThp,    // "pageable-thp": pageable, 2 MiB aligned, madvise(MADV_HUGEPAGE)
  kPinned,         // "pinned": cudaMallocHost
  kRegistered,     // "registered": pageable memory pinned with cudaHostRegister
  kWriteCombined,  // "write-combined": cudaHostAlloc(cudaHostAllocWriteCombined)
  kMapped,         // "mapped": cudaHostAlloc(cudaHostAllocMapped)
  kManaged,        // "managed": cudaMallocManaged, touched on the host
};

const char* to_string(MemoryKind k);
MemoryKind parse_memory_kind(std::string_view name);  // throws InputError naming the choices
std::vector<MemoryKind> all_memory_kinds();
bool is_page_locked(MemoryKind k);  // the driver can DMA it directly

enum class Direction { kH2D, kD2H, kBidir };
const char* to_string(Direction d);
Direction parse_direction(std::string_view name);  // "h2d", "d2h", "bidir"

enum class CopyMethod {
  kCopyEngine,  // "ce": cudaMemcpyAsync, moved by a copy engine
  kSmKernel,    // "sm": a kernel on the SMs reads or writes host memory through a pointer
};
const char* to_string(CopyMethod m);
CopyMethod parse_copy_method(std::string_view name);  // "ce", "sm"

// Comma-separated lists of the above; throw InputError on an empty list or unknown name.
std::vector<MemoryKind> parse_memory_kinds(std::string_view list);
std::vector<Direction> parse_directions(std::string_view list);
std::vector<CopyMethod> parse_copy_methods(std::string_view list);

// Sizes from a list ("4KiB,1MiB") or a range "START:END:xFACTOR" (geometric) or
// "START:END:+STEP" (arithmetic), END included when the steps land on it. Throws InputError for
// empty or inverted ranges, factors below 2, zero steps and lists of more than 4096 sizes.
std::vector<std::uint64_t> parse_sizes(std::string_view text);

// Sampling continues until the samples' relative spread (sample standard deviation over mean) is
// at most `max_spread`, or the time cap or sample cap is reached; never before `min_samples`.
struct StopRule {
  double max_spread = 0.01;
  double time_cap_ms = 500.0;
  int min_samples = 10;
  int max_samples = 2000;
};

enum class StopReason { kContinue, kSpread, kTimeCap, kSampleCap };
const char* to_string(StopReason r);  // "spread", "time cap", "sample cap"

// `elapsed_ms`: wall time spent on this case so far.
StopReason should_stop(const StopRule& rule, const std::vector<double>& samples_ms,
                       double elapsed_ms);

// Relative spread used by the stopping rule: stddev / mean, 0 for fewer than two samples.
double relative_spread(const std::vector<double>& samples_ms);

}  // namespace pinbench

#include <nlohmann/json.hpp>

namespace pinbench {

// Everything `pinbench sweep` was asked to do.
struct SweepConfig {
  std::vector<MemoryKind> kinds = all_memory_kinds();
  std::vector<Direction> directions = {Direction::kH2D, Direction::kD2H, Direction::kBidir};
  std::vector<CopyMethod> methods = {CopyMethod::kCopyEngine, CopyMethod::kSmKernel};
  std::vector<std::uint64_t> sizes;  // ascending, no duplicates after normalize()
  int warmups = 3;
  StopRule stop;
  bool place_on_gpu_node = true;              // bind the allocating thread to the GPU's NUMA node
  std::uint64_t pin_cost_bytes = 1ull << 30;  // 0: do not measure what pinning costs
  bool force = false;                         // allow pinning more than half of host memory

  static SweepConfig defaults();  // 4 KiB to 256 MiB by x4, every kind, direction and method
  void normalize();               // sorts and de-duplicates the sizes
  void validate() const;          // throws InputError
};

nlohmann::json to_json(const SweepConfig& c);

// Why the plan cannot run on a device with `device_free` bytes free and a host with
// `host_total` bytes of memory of which `host_available` are available, or "" when it can.
// Managed memory never asks for more than the device has free; pinning more than half of the
// host's memory needs `force`. A zero host figure means unknown and is not checked.
std::string sweep_fit_problem(const SweepConfig& c, std::uint64_t device_free,
                              std::uint64_t host_total, std::uint64_t host_available);

}  // namespace pinbench
