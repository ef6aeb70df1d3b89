#include "experiments/sweep/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/config_schema.hpp"
#include "framework/errors.hpp"
#include "framework/plan_checks.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::sweep {

SweepConfig SweepConfig::defaults() {
  SweepConfig c;
  c.sizes = parse_sizes("4KiB:256MiB:x4");
  return c;
}

void SweepConfig::normalize() {
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
}

void SweepConfig::validate() const {
  if (kinds.empty()) throw InputError("no host-memory kind to measure");
  if (directions.empty()) throw InputError("no direction to measure");
  if (methods.empty()) throw InputError("no copy method to measure");
  if (sizes.empty()) throw InputError("no size to measure");
  if (warmups < 0) throw InputError("warm-up count cannot be negative");
  stop.validate();
}

nlohmann::json to_json(const SweepConfig& c) {
  nlohmann::json j = nlohmann::json::object();
  put_fields(j, c);
  put_fields(j, c.stop);
  return j;
}

std::string sweep_fit_problem(const SweepConfig& c, std::uint64_t device_free,
                              std::uint64_t host_total, std::uint64_t host_available) {
  const std::uint64_t largest = c.sizes.back();
  // Device: the destination and the reference copy; managed memory may move there too.
  const bool managed =
      std::find(c.kinds.begin(), c.kinds.end(), MemoryKind::kManaged) != c.kinds.end();
  const std::uint64_t device_need = 2 * largest + (managed ? 2 * largest : 0);
  if (device_need > device_free) {
    return fmt::format(
        "{} at {} needs {} of device memory{} and the device has {} free",
        managed ? "the managed kind" : "the sweep", format_size(largest), format_size(device_need),
        managed ? " (managed buffers never exceed free memory)" : "", format_size(device_free));
  }
  // Host: two buffers of the kind being measured (one kind at a time) plus the reference bytes;
  // the pin-cost probe pins its size once more.
  const std::uint64_t pinned_need = std::max<std::uint64_t>(2 * largest, c.pin_cost_bytes);
  if (std::string p = pin_problem(pinned_need, host_total, c.force, "the sweep"); !p.empty()) {
    return p;
  }
  const std::uint64_t host_need = 3 * largest + c.pin_cost_bytes;
  if (host_available > 0 && host_need > host_available) {
    return fmt::format("the sweep needs {} of host memory and {} is available",
                       format_size(host_need), format_size(host_available));
  }
  return "";
}

}  // namespace pinbench::experiments::sweep
