// The staged benchmark's and the pipeline's plans (staged_plan.hpp): names, defaults, checks and
// the memory each run needs, all before any allocation.
#include "experiments/staged/plan.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "base/chunk_plan.hpp"
#include "framework/errors.hpp"
#include "framework/text.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

struct MethodName {
  StagedMethod method;
  const char* name;
};
constexpr MethodName kMethods[] = {
    {StagedMethod::kStaged, "staged"},
    {StagedMethod::kStagedBackToBack, "staged-back-to-back"},
    {StagedMethod::kStagedFresh, "staged-fresh"},
    {StagedMethod::kPinned, "pinned"},
    {StagedMethod::kPageableDriver, "pageable-driver"},
    {StagedMethod::kBatchStream, "batch-async-stream"},
    {StagedMethod::kBatchDuringCall, "batch-async-during-call"},
    {StagedMethod::kBatchAny, "batch-async-any"},
    {StagedMethod::kMultithreadDriver, "multithread-driver"},
    {StagedMethod::kRegisterCopy, "register-copy-unregister"},
    {StagedMethod::kSmPageableKernel, "sm-pageable-kernel"},
};

void check_directions(const std::vector<Direction>& directions) {
  if (directions.empty()) throw InputError("no direction to measure");
  for (Direction d : directions) {
    if (d == Direction::kBidir) {
      throw InputError("the staged benchmark measures h2d and d2h one at a time, not bidir");
    }
  }
}

void check_counts(int warmups, int iterations) {
  if (warmups < 0) throw InputError("warm-up count cannot be negative");
  if (iterations < 1) throw InputError("at least 1 timed sample per case is needed");
}

void check_engine(const StagedCopyOptions& o) {
  if (const std::string p = staged_options_problem(o); !p.empty()) {
    throw InputError("staged engine: " + p);
  }
}

std::string pin_problem(std::uint64_t pinned, std::uint64_t host_total, bool force,
                        const char* what) {
  if (force || host_total == 0 || pinned <= host_total / 2) return "";
  return fmt::format("{} would pin {} of this host's {} (more than half); pass --force to allow it",
                     what, format_size(pinned), format_size(host_total));
}

}  // namespace

const char* to_string(StagedMethod m) {
  for (const MethodName& n : kMethods) {
    if (n.method == m) return n.name;
  }
  return "?";
}

StagedMethod parse_staged_method(std::string_view name) {
  for (const MethodName& n : kMethods) {
    if (name == n.name) return n.method;
  }
  std::string choices;
  for (const MethodName& n : kMethods)
    choices += (choices.empty() ? "" : ", ") + std::string(n.name);
  throw InputError(fmt::format("unknown method '{}' (choose from {})", name, choices));
}

std::vector<StagedMethod> all_staged_methods() {
  std::vector<StagedMethod> out;
  for (const MethodName& n : kMethods) out.push_back(n.method);
  return out;
}

std::vector<StagedMethod> parse_staged_methods(std::string_view list) {
  return parse_list<StagedMethod>(list, "method", parse_staged_method);
}

nlohmann::json to_json(const StagedCopyOptions& o) {
  auto ring = [](const StagingRing& r) {
    return nlohmann::json{{"chunk_bytes", r.chunk_bytes},
                          {"depth", r.depth},
                          {"threads", r.threads},
                          {"direct_below_bytes", r.direct_below_bytes}};
  };
  return {{"to_device", ring(o.to_device)},
          {"to_host", ring(o.to_host)},
          {"edge_chunk_bytes", o.edge_chunk_bytes},
          {"max_staging_bytes", o.max_staging_bytes},
          {"staging_bytes", staging_bytes(o)},
          {"streaming_drain", o.streaming_drain},
          {"caller_copies", o.caller_copies},
          {"streaming_fill_edges", o.streaming_fill_edges},
          {"caller_drives", o.caller_drives},
          {"host_threads", o.host_threads},
          {"prefault_from_bytes", o.prefault_from_bytes},
          {"fresh_huge_pages", o.fresh_huge_pages}};
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
  check_engine(engine);
}

std::uint64_t StagedBenchConfig::largest() const {
  std::uint64_t big = 0;
  for (std::uint64_t s : sizes) big = std::max(big, s);
  for (std::uint64_t s : odd_sizes) big = std::max(big, s + std::max(host_offset, device_offset));
  return big;
}

nlohmann::json to_json(const StagedBenchConfig& c) {
  nlohmann::json methods = nlohmann::json::array();
  for (StagedMethod m : c.methods) methods.push_back(to_string(m));
  nlohmann::json dirs = nlohmann::json::array();
  for (Direction d : c.directions) dirs.push_back(to_string(d));
  return {{"methods", methods},
          {"directions", dirs},
          {"sizes_bytes", c.sizes},
          {"odd_sizes_bytes", c.odd_sizes},
          {"host_offset", c.host_offset},
          {"device_offset", c.device_offset},
          {"warmups", c.warmups},
          {"iterations", c.iterations},
          {"driver_threads", c.driver_threads},
          {"engine", to_json(c.engine)}};
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
    check_engine(o);
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
  nlohmann::json dirs = nlohmann::json::array();
  for (Direction d : c.directions) dirs.push_back(to_string(d));
  return {{"directions", dirs},           {"sizes_bytes", c.sizes},
          {"chunk_bytes", c.chunk_bytes}, {"depths", c.depths},
          {"threads", c.threads},         {"ring_limit_bytes", c.ring_limit_bytes},
          {"warmups", c.warmups},         {"iterations", c.iterations},
          {"engine", to_json(c.engine)}};
}

// --- pipeline ---------------------------------------------------------------------------------

const char* to_string(PipelineSource s) {
  return s == PipelineSource::kPinned ? "pinned" : "staged";
}

PipelineSource parse_pipeline_source(std::string_view name) {
  if (name == "pinned") return PipelineSource::kPinned;
  if (name == "staged") return PipelineSource::kStaged;
  throw InputError(fmt::format("unknown source '{}' (choose from pinned, staged)", name));
}

std::vector<PipelineSource> parse_pipeline_sources(std::string_view list) {
  return parse_list<PipelineSource>(list, "source", parse_pipeline_source);
}

void PipelineConfig::normalize() {
  std::sort(streams.begin(), streams.end());
  streams.erase(std::unique(streams.begin(), streams.end()), streams.end());
}

std::uint64_t PipelineConfig::chunk_bytes(int n) const {
  if (n < 1) return 0;
  return window_bytes / static_cast<std::uint64_t>(n) / kHostPageBytes * kHostPageBytes;
}

void PipelineConfig::validate() const {
  if (array_bytes == 0 || array_bytes % sizeof(float) != 0) {
    throw InputError(
        fmt::format("the array size must be a positive multiple of 4 bytes (it holds "
                    "floats), not {}",
                    array_bytes));
  }
  if (window_bytes == 0 || window_bytes > array_bytes) {
    throw InputError(
        fmt::format("the window ({}) must be above 0 and no larger than the array ({})",
                    format_size(window_bytes), format_size(array_bytes)));
  }
  if (streams.empty()) throw InputError("no stream count to measure");
  if (sources.empty()) throw InputError("no source to measure");
  for (int n : streams) {
    if (n < 1 || n > kMaxStreams) {
      throw InputError(
          fmt::format("stream counts must be between 1 and {}, not {}", kMaxStreams, n));
    }
    if (chunk_bytes(n) < kHostPageBytes) {
      throw InputError(fmt::format("a {} window split over {} streams leaves chunks under 4 KiB",
                                   format_size(window_bytes), n));
    }
  }
  if (kernel_rounds < 0 || kernel_rounds > 10000) {
    throw InputError(
        fmt::format("--kernel-rounds must be between 0 and 10000, not {}", kernel_rounds));
  }
  check_counts(warmups, iterations);
  check_engine(engine);
}

nlohmann::json to_json(const PipelineConfig& c) {
  nlohmann::json sources = nlohmann::json::array();
  for (PipelineSource s : c.sources) sources.push_back(to_string(s));
  nlohmann::json chunks = nlohmann::json::object();
  for (int n : c.streams) chunks[std::to_string(n)] = c.chunk_bytes(n);
  return {{"array_bytes", c.array_bytes},
          {"window_bytes", c.window_bytes},
          {"streams", c.streams},
          {"chunk_bytes_by_streams", chunks},
          {"sources", sources},
          {"kernel", "y = 3 x + 0.5 in place"},
          {"kernel_rounds", c.kernel_rounds},
          {"warmups", c.warmups},
          {"iterations", c.iterations},
          {"engine", to_json(c.engine)}};
}

std::string pipeline_fit_problem(const PipelineConfig& c, std::uint64_t device_free,
                                 std::uint64_t host_total, std::uint64_t host_available) {
  // The window, and two chunk buffers for measuring the copy bound.
  std::uint64_t largest_chunk = 0;
  for (int n : c.streams) largest_chunk = std::max(largest_chunk, c.chunk_bytes(n));
  const std::uint64_t device_need = c.window_bytes + 2 * largest_chunk;
  if (device_need > device_free) {
    return fmt::format("the pipeline needs {} of device memory and the device has {} free",
                       format_size(device_need), format_size(device_free));
  }
  // Page-locked input and output always (the bound is measured from them); pageable input and
  // output and the engine's rings for the staged source.
  const bool staged =
      std::find(c.sources.begin(), c.sources.end(), PipelineSource::kStaged) != c.sources.end();
  const std::uint64_t pinned = 2 * c.array_bytes + (staged ? staging_bytes(c.engine) : 0);
  if (std::string p = pin_problem(pinned, host_total, c.force, "the pipeline"); !p.empty()) {
    return p;
  }
  const std::uint64_t host_need = pinned + (staged ? 2 * c.array_bytes : 0);
  if (host_available > 0 && host_need > host_available) {
    return fmt::format("the pipeline needs {} of host memory and {} is available",
                       format_size(host_need), format_size(host_available));
  }
  return "";
}

std::vector<int> parse_counts(std::string_view list, const char* what, int min, int max) {
  return parse_list<int>(list, what, [&](std::string_view item) {
    const std::string text(item);
    std::size_t used = 0;
    long value = 0;
    try {
      value = std::stol(text, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != text.size() || value < min || value > max) {
      throw InputError(
          fmt::format("{} '{}' is not a whole number between {} and {}", what, text, min, max));
    }
    return static_cast<int>(value);
  });
}

}  // namespace pinbench
