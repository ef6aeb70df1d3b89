#include "experiments/sweep/plan.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "framework/config_schema.hpp"
#include "framework/errors.hpp"
#include "framework/stats.hpp"
#include "framework/text.hpp"
#include "framework/units.hpp"

namespace pinbench {
std::vector<std::uint64_t> parse_sizes(std::string_view text) {
  constexpr std::size_t kMaxSizes = 4096;
  const std::string_view t = trim(text);
  const std::size_t colon = t.find(':');
  if (colon == std::string_view::npos) {
    std::vector<std::uint64_t> sizes = parse_size_list(t);
    if (sizes.size() > kMaxSizes) throw InputError("more than 4096 sizes");
    return sizes;
  }
  const std::size_t colon2 = t.find(':', colon + 1);
  if (colon2 == std::string_view::npos || t.find(':', colon2 + 1) != std::string_view::npos) {
    throw InputError(fmt::format(
        "size range '{}' is not START:END:xFACTOR or START:END:+STEP (e.g. 4KiB:1GiB:x2)", t));
  }
  const std::uint64_t start = parse_size(t.substr(0, colon));
  const std::uint64_t end = parse_size(t.substr(colon + 1, colon2 - colon - 1));
  const std::string_view step = trim(t.substr(colon2 + 1));
  if (end < start) {
    throw InputError(fmt::format("size range '{}' is inverted: {} is below {}", t, format_size(end),
                                 format_size(start)));
  }
  std::vector<std::uint64_t> sizes;
  if (!step.empty() && (step[0] == 'x' || step[0] == '*')) {
    const std::string factor_text(trim(step.substr(1)));
    std::size_t used = 0;
    unsigned long factor = 0;
    try {
      factor = std::stoul(factor_text, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != factor_text.size() || factor < 2) {
      throw InputError(
          fmt::format("size range '{}' needs a whole factor of at least 2 after 'x'", t));
    }
    for (std::uint64_t s = start; s <= end; s *= factor) {
      sizes.push_back(s);
      if (sizes.size() > kMaxSizes)
        throw InputError(fmt::format("size range '{}' has more than 4096 sizes", t));
      if (s > std::numeric_limits<std::uint64_t>::max() / factor) break;
    }
  } else if (!step.empty() && step[0] == '+') {
    const std::uint64_t inc = parse_size(step.substr(1));  // zero is rejected there
    for (std::uint64_t s = start; s <= end; s += inc) {
      sizes.push_back(s);
      if (sizes.size() > kMaxSizes)
        throw InputError(fmt::format("size range '{}' has more than 4096 sizes", t));
      if (s > std::numeric_limits<std::uint64_t>::max() - inc) break;
    }
  } else {
    throw InputError(
        fmt::format("size range '{}' needs a step: xFACTOR or +STEP (e.g. 4KiB:1GiB:x2)", t));
  }
  return sizes;
}

}  // namespace pinbench

namespace pinbench {

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
  return {{"kinds", names_of(c.kinds)},
          {"directions", names_of(c.directions)},
          {"methods", names_of(c.methods)},
          {"sizes_bytes", c.sizes},
          {"warmups", c.warmups},
          {"max_spread", c.stop.max_spread},
          {"time_cap_ms", c.stop.time_cap_ms},
          {"min_samples", c.stop.min_samples},
          {"max_samples", c.stop.max_samples},
          {"place_on_gpu_node", c.place_on_gpu_node},
          {"pin_cost_bytes", c.pin_cost_bytes}};
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
  if (!c.force && host_total > 0 && pinned_need > host_total / 2) {
    return fmt::format(
        "the sweep would pin {} of this host's {} (more than half); pass --force to allow it",
        format_size(pinned_need), format_size(host_total));
  }
  const std::uint64_t host_need = 3 * largest + c.pin_cost_bytes;
  if (host_available > 0 && host_need > host_available) {
    return fmt::format("the sweep needs {} of host memory and {} is available",
                       format_size(host_need), format_size(host_available));
  }
  return "";
}

}  // namespace pinbench
