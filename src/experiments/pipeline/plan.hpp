// What `pinbench pipeline` measures, as plain data: the array, the window, the stream counts, the
// sources, the engine's settings (framework/engine_options.hpp), and the checks that run before
// anything is allocated. No CUDA here, so every check is tested without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/enum_names.hpp"
#include "framework/config_schema.hpp"
#include "framework/engine_options.hpp"
#include "pinbench/staged_options.hpp"

namespace pinbench::experiments::pipeline {

// The Day 54 pipeline: a host array of floats through a device window, chunk by chunk: copy in,
// a kernel, copy out, round-robin over N streams, from page-locked memory and from pageable
// memory through the staged engine.
enum class PipelineSource { kPinned, kStaged };
inline constexpr EnumName<PipelineSource> kPipelineSourceNames[] = {
    {PipelineSource::kPinned, "pinned"}, {PipelineSource::kStaged, "staged"}};
inline const char* to_string(PipelineSource s) {
  return name_in(kPipelineSourceNames, s);
}
PipelineSource parse_pipeline_source(std::string_view name);
std::vector<PipelineSource> parse_pipeline_sources(std::string_view list);

struct PipelineConfig {
  std::uint64_t array_bytes = 1ull << 30;
  std::uint64_t window_bytes = 64ull << 20;
  std::vector<int> streams = {1, 2};
  std::vector<PipelineSource> sources = {PipelineSource::kPinned, PipelineSource::kStaged};
  int kernel_rounds = 0;  // extra add-subtract pairs per element, to make the kernel heavier
  int warmups = 1;
  int iterations = 5;
  StagedCopyOptions engine;
  bool force = false;

  // The config's keys written from a member as it is (to_json): the printer's (the record
  // config, below) and the rest. The chunk by stream count, the kernel, the engine (a nested
  // object) and the timing are computed or constant, written by hand beside their kinds in
  // config_fields() (experiment.cpp).
  static constexpr auto fields();

  void normalize();       // sorts and de-duplicates the stream counts
  void validate() const;  // throws InputError
  // The chunk for `streams` streams: the window split evenly, rounded down to 4 KiB.
  std::uint64_t chunk_bytes(int streams) const;
};
nlohmann::json to_json(const PipelineConfig& c);

// What the printer reads of the config: the array, the device window, and the runs per case;
// each field under its record key and kind, one list for writing (to_json, from the plan),
// reading back (analysis.hpp) and validating. A key the record lacks reads 0.
struct PipelineRecordConfig {
  std::uint64_t array_bytes = 0;
  std::uint64_t window_bytes = 0;
  int iterations = 0;

  // `Self`: a struct with the same members whose list starts with this one (PipelineConfig).
  template <class Self = PipelineRecordConfig>
  static constexpr auto fields() {
    return std::make_tuple(field("array_bytes", &Self::array_bytes, FieldKind::kSize),
                           field("window_bytes", &Self::window_bytes, FieldKind::kSize),
                           field("iterations", &Self::iterations, FieldKind::kCount));
  }
};

constexpr auto PipelineConfig::fields() {
  return std::tuple_cat(
      PipelineRecordConfig::fields<PipelineConfig>(),
      std::make_tuple(field("streams", &PipelineConfig::streams, FieldKind::kCounts),
                      field("sources", &PipelineConfig::sources, FieldKind::kTexts),
                      field("kernel_rounds", &PipelineConfig::kernel_rounds, FieldKind::kCount),
                      field("warmups", &PipelineConfig::warmups, FieldKind::kCount)));
}

std::string pipeline_fit_problem(const PipelineConfig& c, std::uint64_t device_free,
                                 std::uint64_t host_total, std::uint64_t host_available);

}  // namespace pinbench::experiments::pipeline
