// The host's limits on page-locked memory as a record holds them: made from the limits read, and
// read back from a record (host_pin_facts.hpp).
#include "framework/host_pin_facts.hpp"

namespace pinbench {
namespace {

// A byte count under `key`, or nothing where the key is absent or null.
std::optional<std::uint64_t> optional_bytes(const JsonFields& x, const char* key) {
  if (!x.has(key) || x.at(key).is_null()) return std::nullopt;
  return x.bytes(key);
}

}  // namespace

HostPinFacts host_pin_facts(const PinLimits& l) {
  HostPinFacts f;
  f.available_bytes = l.available_bytes;
  f.usable_bytes = l.usable_bytes();
  f.cgroup_memory_bytes = l.cgroup_memory_bytes;
  f.cgroup_memory_used = l.cgroup_memory_used;
  f.memlock_bytes = l.memlock_bytes;
  f.max_map_count = l.max_map_count;
  f.map_count = l.map_count;
  f.thp_mode = l.thp_mode;
  f.kernel_release = l.kernel_release;
  f.driver_release = l.driver_release;
  f.hugetlbfs_free_bytes = l.hugetlbfs_free_bytes;
  return f;
}

HostPinFacts host_pin_facts_from(const JsonFields& x) {
  HostPinFacts f;
  f.available_bytes = x.bytes("available_bytes");
  f.usable_bytes = x.bytes("usable_bytes");
  f.cgroup_memory_bytes = optional_bytes(x, "cgroup_memory_bytes");
  f.cgroup_memory_used = optional_bytes(x, "cgroup_memory_used");
  f.memlock_bytes = optional_bytes(x, "memlock_bytes");
  if (x.has("max_map_count") && !x.at("max_map_count").is_null()) {
    f.max_map_count = x.count("max_map_count", kMostBytes);
  }
  f.map_count = x.count("map_count", kMostBytes);
  f.thp_mode = x.text("thp_mode");
  f.kernel_release = x.text("kernel_release");
  f.driver_release = x.text("driver_release");
  f.hugetlbfs_free_bytes = x.bytes_or("hugetlbfs_free_bytes", 0);
  return f;
}

}  // namespace pinbench
