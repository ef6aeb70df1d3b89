// The host's limits on page-locked memory as a record holds them, read before anything is pinned
// (base/pin_limits.hpp): a check record's config.pin_limits and a pin record's pin.facts are this
// one description, its keys listed once for writing (put_fields), validating (fields_of) and
// reading back (host_pin_facts_from).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/pin_limits.hpp"
#include "framework/config_schema.hpp"
#include "framework/json_fields.hpp"

namespace pinbench {

struct HostPinFacts {
  std::uint64_t available_bytes = 0;  // MemAvailable
  std::uint64_t usable_bytes = 0;     // what the process may still pin
  // The tightest cgroup memory limit and its usage; absent: no limit.
  std::optional<std::uint64_t> cgroup_memory_bytes, cgroup_memory_used;
  std::optional<std::uint64_t> memlock_bytes;  // RLIMIT_MEMLOCK; absent: unlimited
  std::optional<std::uint64_t> max_map_count;  // vm.max_map_count; absent: unread
  std::uint64_t map_count = 0;                 // the mappings the process holds
  std::string thp_mode, kernel_release, driver_release;
  // Free hugetlbfs pages' bytes: 0 where none are free (or in a check record made before the
  // check wrote it).
  std::uint64_t hugetlbfs_free_bytes = 0;

  static constexpr auto fields() {
    return std::make_tuple(
        field("available_bytes", &HostPinFacts::available_bytes, FieldKind::kSizeOrZero),
        field("usable_bytes", &HostPinFacts::usable_bytes, FieldKind::kSizeOrZero),
        field("cgroup_memory_bytes", &HostPinFacts::cgroup_memory_bytes, FieldKind::kSizeOrZero),
        field("cgroup_memory_used", &HostPinFacts::cgroup_memory_used, FieldKind::kSizeOrZero),
        field("memlock_bytes", &HostPinFacts::memlock_bytes, FieldKind::kSizeOrZero),
        field("max_map_count", &HostPinFacts::max_map_count, FieldKind::kBigCount),
        field("map_count", &HostPinFacts::map_count, FieldKind::kBigCount),
        field("thp_mode", &HostPinFacts::thp_mode, FieldKind::kText),
        field("kernel_release", &HostPinFacts::kernel_release, FieldKind::kText),
        field("driver_release", &HostPinFacts::driver_release, FieldKind::kText),
        field("hugetlbfs_free_bytes", &HostPinFacts::hugetlbfs_free_bytes, FieldKind::kSizeOrZero));
  }
};

// The facts of limits just read.
HostPinFacts host_pin_facts(const PinLimits& limits);

// The facts from a record's object (`x`: "pin.facts"), each key validated for what it holds: an
// InputError naming the field. An absent value is written as no key; records made before that
// wrote null, and both read as absent.
HostPinFacts host_pin_facts_from(const JsonFields& x);

}  // namespace pinbench
