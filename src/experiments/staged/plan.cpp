// The staged benchmark's plans (plan.hpp): names, defaults, checks and the memory each run
// needs, all before any allocation.
#include "experiments/staged/plan.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "base/chunk_plan.hpp"
#include "framework/errors.hpp"
#include "framework/plan_checks.hpp"
#include "framework/text.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::staged {
namespace {

void check_directions(const std::vector<Direction>& directions) {
  if (directions.empty()) throw InputError("no direction to measure");
  for (Direction d : directions) {
    if (d == Direction::kBidir) {
      throw InputError("the staged benchmark measures h2d and d2h one at a time, not bidir");
    }
  }
}

}  // namespace

StagedMethod parse_staged_method(std::string_view name) {
  return parse_name(kStagedMethodNames, name, "method");
}

std::vector<StagedMethod> parse_staged_methods(std::string_view list) {
  return parse_list<StagedMethod>(list, "method", parse_staged_method);
}

// --- staged ---------------------------------------------------------------------------------

StagedBenchConfig StagedBenchConfig::defaults() {
  StagedBenchConfig c;
  c.sizes = parse_sizes("4KiB:1GiB:x4");
  c.odd_sizes = {4 * kKiB + 3, kMiB + 13, 64 * kMiB + 5, kGiB - 1};
  return c;
}

void StagedBenchConfig::normalize() {
  for (auto* list : {&sizes, &odd_sizes}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
}

void StagedBenchConfig::validate() const {
  if (methods.empty()) throw InputError("no method to measure");
  check_directions(directions);
  if (sizes.empty() && odd_sizes.empty()) throw InputError("no size to measure");
  if (host_offset >= 4096 || device_offset >= 4096) {
    throw InputError("the host and device offsets must each be below 4096 bytes");
  }
  check_counts(warmups, iterations);
  if (driver_threads < 1 || driver_threads > kMaxHostThreads) {
    throw InputError(fmt::format("--driver-threads must be between 1 and {}, not {}",
                                 kMaxHostThreads, driver_threads));
  }
  check_engine_options(engine);
}

std::uint64_t StagedBenchConfig::largest() const {
  std::uint64_t big = 0;
  for (std::uint64_t s : sizes) big = std::max(big, s);
  for (std::uint64_t s : odd_sizes) big = std::max(big, s + std::max(host_offset, device_offset));
  return big;
}

nlohmann::json to_json(const StagedBenchConfig& c) {
  nlohmann::json j = {{"engine", to_json(c.engine)}};
  put_fields(j, c);  // the rest, from their one list
  return j;
}

std::string staged_fit_problem(const StagedBenchConfig& c, std::uint64_t device_free,
                               std::uint64_t host_total, std::uint64_t host_available) {
  // Buffers carry a page of slack for the offsets.
  const std::uint64_t buffer = c.largest() + 2 * kHostPageBytes;
  const std::uint64_t device_need = 2 * buffer;  // a destination and the reference bytes
  if (device_need > device_free) {
    return fmt::format(
        "the staged benchmark at {} needs {} of device memory and the device has {} "
        "free",
        format_size(c.largest()), format_size(device_need), format_size(device_free));
  }
  // Two page-locked buffers (the ceiling's source and the read-back) and the engine's rings;
  // two pageable ones (source and destination).
  const std::uint64_t pinned = 2 * buffer + staging_bytes(c.engine);
  if (std::string p = pin_problem(pinned, host_total, c.force, "the staged benchmark");
      !p.empty()) {
    return p;
  }
  const std::uint64_t host_need = pinned + 2 * buffer;
  if (host_available > 0 && host_need > host_available) {
    return fmt::format("the staged benchmark needs {} of host memory and {} is available",
                       format_size(host_need), format_size(host_available));
  }
  return "";
}

// --- tune -------------------------------------------------------------------------------------

void StagedTuneConfig::validate() const {
  check_directions(directions);
  if (sizes.empty()) throw InputError("no size to measure");
  if (chunk_bytes.empty() || depths.empty() || threads.empty()) {
    throw InputError("the tuning grid is empty");
  }
  check_counts(warmups, iterations);
  if (shapes().empty()) {
    throw InputError(
        fmt::format("no ring shape of the grid fits within {}", format_size(ring_limit_bytes)));
  }
  // Each shape is checked as the engine will see it.
  for (const StagingRing& r : shapes()) {
    StagedCopyOptions o = engine;
    o.to_device = r;
    o.to_host = r;
    o.edge_chunk_bytes = std::min<std::size_t>(o.edge_chunk_bytes, r.chunk_bytes);
    o.max_staging_bytes = std::numeric_limits<std::size_t>::max();
    check_engine_options(o);
  }
}

std::vector<StagingRing> StagedTuneConfig::shapes() const {
  std::vector<StagingRing> out;
  for (std::uint64_t chunk : chunk_bytes) {
    for (int depth : depths) {
      if (depth < 1 || chunk * static_cast<std::uint64_t>(depth) > ring_limit_bytes) continue;
      for (int t : threads) out.push_back({static_cast<std::size_t>(chunk), depth, t});
    }
  }
  return out;
}

nlohmann::json to_json(const StagedTuneConfig& c) {
  nlohmann::json j = {{"engine", to_json(c.engine)}};
  put_fields(j, c);
  return j;
}

}  // namespace pinbench::experiments::staged
