// What `pinbench sweep` measures, as plain data: host-memory kinds, directions, copy methods,
// sizes (lists or ranges, framework/units.hpp's parse_sizes), and the stopping rule that decides
// how many samples a case gets. No CUDA here, so parsing and the stopping rule are tested without a
// GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/config_schema.hpp"
#include "framework/memory_kind.hpp"
#include "framework/sampling.hpp"

namespace pinbench::experiments::sweep {

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

  // The config's keys written from a member as it is (to_json; the stopping rule's are
  // StopRule's, framework/sampling.hpp).
  static constexpr auto fields() {
    return std::make_tuple(
        field("kinds", &SweepConfig::kinds, FieldKind::kTexts),
        field("directions", &SweepConfig::directions, FieldKind::kTexts),
        field("methods", &SweepConfig::methods, FieldKind::kTexts),
        field("sizes_bytes", &SweepConfig::sizes, FieldKind::kSizes),
        field("warmups", &SweepConfig::warmups, FieldKind::kCount),
        field("place_on_gpu_node", &SweepConfig::place_on_gpu_node, FieldKind::kFlag),
        field("pin_cost_bytes", &SweepConfig::pin_cost_bytes, FieldKind::kSizeOrZero));
  }

  static SweepConfig defaults();  // 4 KiB to 256 MiB by x4, every kind, direction and method
  void normalize();               // sorts and de-duplicates the sizes
  void validate() const;          // throws InputError
};

nlohmann::json to_json(const SweepConfig& c);

// A case the sweep could not measure, as the config's "skipped" list holds it (measure.cpp).
struct SweepSkip {
  std::string memory, direction, method;
  std::uint64_t bytes = 0;
  std::string reason;

  static constexpr auto fields() {
    return std::make_tuple(field("memory", &SweepSkip::memory, FieldKind::kText),
                           field("direction", &SweepSkip::direction, FieldKind::kText),
                           field("method", &SweepSkip::method, FieldKind::kText),
                           field("bytes", &SweepSkip::bytes, FieldKind::kSize),
                           field("reason", &SweepSkip::reason, FieldKind::kText));
  }
};

// Why the plan cannot run on a device with `device_free` bytes free and a host with
// `host_total` bytes of memory of which `host_available` are available, or "" when it can.
// Managed memory never asks for more than the device has free; pinning more than half of the
// host's memory needs `force`. A zero host figure means unknown and is not checked.
std::string sweep_fit_problem(const SweepConfig& c, std::uint64_t device_free,
                              std::uint64_t host_total, std::uint64_t host_available);

}  // namespace pinbench::experiments::sweep
