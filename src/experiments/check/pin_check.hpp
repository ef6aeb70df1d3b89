// The check's pin: how much each GPU's check page-locks (one cudaHostAlloc, as a serving engine
// pins its offload pool), and the host's limits on pinning (base/pin_limits.hpp) as warnings
// where they would bite (the limits themselves, as the record's config.pin_limits holds them, are
// framework/host_pin_facts.hpp's HostPinFacts). CUDA-free: the plan and the warnings are pure
// functions of the limits read, tested on crafted ones, and the record keeps both (analysis.hpp
// reads them back).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/pin_limits.hpp"
#include "framework/config_schema.hpp"

namespace pinbench::experiments::check {

// What each GPU's check pins by default: 2 GiB, a second or two on a healthy host (the H100 VM
// pinned 1.97 GB/s with one cudaHostAlloc of 32 GiB; smaller sizes pin faster per byte).
inline constexpr std::uint64_t kCheckPinBytes = std::uint64_t{2} << 30;

// The limits a warning names, as the record and the Prometheus label write them.
inline constexpr const char* kPinLimitMemory = "memory";     // the memory the process may use
inline constexpr const char* kPinLimitMemlock = "memlock";   // RLIMIT_MEMLOCK
inline constexpr const char* kPinLimitPerCall = "per_call";  // the kernel's or the driver's cap
inline constexpr const char* kPinLimitMapCount = "max_map_count";  // vm.max_map_count
inline constexpr const char* kPinLimitIds[] = {kPinLimitMemory, kPinLimitMemlock, kPinLimitPerCall,
                                               kPinLimitMapCount};

// A mapping count this close to vm.max_map_count (the share of it left) is "nearly used".
inline constexpr double kMapCountLeftShare = 0.10;

// One limit that bites on this host: which (kPinLimitIds), and a sentence naming it, its value
// and what it does.
struct PinWarning {
  std::string limit;
  std::string warning;
};

// The warnings for pinning `pin_bytes` in one call (0: the check pins nothing; then only the
// limits that bite whatever the size): the memory the process may use below the pin size;
// RLIMIT_MEMLOCK set and below it; a per-call cap (the kernel's 2 GB on Linux 6.11 to 6.13, the
// driver's 512 GiB from release 580) that the pin size or the memory the process may use reaches;
// vm.max_map_count with less than kMapCountLeftShare of it left.
std::vector<PinWarning> pin_warnings(const PinLimits& limits, std::uint64_t pin_bytes);

// What the check pins: `asked`, or where a per-call limit is below it, the most that limit allows
// in one call (whole MiB); nothing, with the refusal naming the limit, where the size crosses a
// limit on the total (the memory the process may use, vm.max_map_count). Never a size past a limit.
struct CheckPinPlan {
  std::uint64_t bytes = 0;
  std::string refused;  // why nothing is pinned, or ""
};
CheckPinPlan check_pin_plan(const PinLimits& limits, std::uint64_t asked);

// A warning's keys in the record (config.pin_warnings[i]), for validation.
struct PinWarningFields {
  std::string limit, warning;
  static constexpr auto fields() {
    return std::make_tuple(field("limit", &PinWarningFields::limit, FieldKind::kText),
                           field("warning", &PinWarningFields::warning, FieldKind::kText));
  }
};

nlohmann::json to_json(const std::vector<PinWarning>& warnings);
// From a record's list of warnings (`where` names it: "config.pin_warnings"): InputError naming
// the field for one that is not an object, names no known limit, or says nothing.
std::vector<PinWarning> pin_warnings_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace pinbench::experiments::check
