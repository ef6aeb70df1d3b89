// The pipeline's plan (plan.hpp): its sources, defaults, checks and the memory a run needs, all
// before any allocation.
#include "experiments/pipeline/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/chunk_plan.hpp"
#include "framework/engine_options.hpp"
#include "framework/errors.hpp"
#include "framework/plan_checks.hpp"
#include "framework/text.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::pipeline {

PipelineSource parse_pipeline_source(std::string_view name) {
  return parse_name(kPipelineSourceNames, name, "source");
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
  check_engine_options(engine);
}

nlohmann::json to_json(const PipelineConfig& c) {
  nlohmann::json chunks = nlohmann::json::object();
  for (int n : c.streams) chunks[std::to_string(n)] = c.chunk_bytes(n);
  nlohmann::json j = {{"chunk_bytes_by_streams", chunks},
                      {"kernel", "y = 3 x + 0.5 in place"},
                      {"engine", to_json(c.engine)}};
  put_fields(j, c);  // the rest, from their one list
  return j;
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

}  // namespace pinbench::experiments::pipeline
