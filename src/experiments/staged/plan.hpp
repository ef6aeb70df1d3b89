// What `pinbench staged` measures, as plain data: the ways of moving pageable memory that the
// staged engine is compared with, the sizes and alignments, the engine's settings
// (framework/engine_options.hpp), and the checks that run before anything is allocated. No CUDA
// here, so every check is tested without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/enum_names.hpp"
#include "framework/config_schema.hpp"
#include "framework/engine_options.hpp"
#include "framework/memory_kind.hpp"
#include "pinbench/staged_options.hpp"

namespace pinbench::experiments::staged {

// Every way a user could move pageable data, plus the page-locked ceiling. Names are used in
// flags, records and tables alike.
enum class StagedMethod {
  kStaged,            // "staged": pinbench's StagedCopier, each copy after a pause (the previous
                      // sample's byte check), as a program that copies now and then sees it
  kStagedBackToBack,  // "staged-back-to-back": the same, copies one after another, as a program
                      // that streams data sees it; only the last copy's bytes are checked
  kStagedFresh,       // "staged-fresh": the engine's call to the host into memory never written
                      // before, mapped anew for each sample, as `.cpu()` or numpy.empty gives
                      // it (to the host only)
  kPinned,            // "pinned": cudaMemcpyAsync from page-locked memory, the ceiling
  kPageableDriver,    // "pageable-driver": cudaMemcpyAsync from pageable memory
  kBatchStream,       // "batch-async-stream": cudaMemcpyBatchAsync, source accessed in stream order
  kBatchDuringCall,   // "batch-async-during-call": ... source accessed during the call
  kBatchAny,          // "batch-async-any": ... source accessed at any time
  kMultithreadDriver,  // "multithread-driver": T threads, each cudaMemcpyAsync of a slice on its
                       // own stream
  kRegisterCopy,       // "register-copy-unregister": cudaHostRegister, copy, cudaHostUnregister
  kSmPageableKernel,   // "sm-pageable-kernel": a kernel reading or writing pageable memory
                       // (only where cudaDevAttrPageableMemoryAccess is 1)
};
inline constexpr EnumName<StagedMethod> kStagedMethodNames[] = {
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
inline const char* to_string(StagedMethod m) {
  return name_in(kStagedMethodNames, m);
}
StagedMethod parse_staged_method(std::string_view name);  // throws InputError naming the choices
inline std::vector<StagedMethod> all_staged_methods() {
  return values_in(kStagedMethodNames);
}
std::vector<StagedMethod> parse_staged_methods(std::string_view list);

struct StagedBenchConfig {
  std::vector<StagedMethod> methods = all_staged_methods();
  std::vector<Direction> directions = {Direction::kH2D, Direction::kD2H};
  std::vector<std::uint64_t> sizes;      // measured from page-aligned addresses
  std::vector<std::uint64_t> odd_sizes;  // measured at host_offset and device_offset
  std::uint64_t host_offset = 3;
  std::uint64_t device_offset = 1;
  int warmups = 2;
  int iterations = 10;
  int driver_threads = 8;  // multithread-driver
  StagedCopyOptions engine;
  bool force = false;  // allow pinning more than half of host memory

  // 4 KiB to 1 GiB by x4, and 4 KiB + 3, 1 MiB + 13, 64 MiB + 5 and 1 GiB - 1 unaligned.
  static StagedBenchConfig defaults();
  void normalize();               // sorts and de-duplicates both size lists
  void validate() const;          // throws InputError
  std::uint64_t largest() const;  // the largest size, offsets included

  // The config's keys written from a member as it is (to_json): the printers' (the record
  // config, below) and the rest. The engine (a nested object), the timing and the skipped
  // methods (measure.cpp) are written by hand beside their kinds in config_fields()
  // (experiment.cpp).
  static constexpr auto fields();
};
nlohmann::json to_json(const StagedBenchConfig& c);

// What the printers read back of a staged record's config beyond its cases: the samples behind
// each rate. Each field under its record key and kind, one list for writing (to_json, from the
// plan), reading back (analysis.cpp) and validating. A key the record lacks reads 0.
struct StagedRecordConfig {
  int iterations = 0;

  // `Self`: a struct with the same members whose list starts with this one (StagedBenchConfig).
  template <class Self = StagedRecordConfig>
  static constexpr auto fields() {
    return std::make_tuple(field("iterations", &Self::iterations, FieldKind::kCount));
  }
};

constexpr auto StagedBenchConfig::fields() {
  return std::tuple_cat(
      StagedRecordConfig::fields<StagedBenchConfig>(),
      std::make_tuple(
          field("methods", &StagedBenchConfig::methods, FieldKind::kTexts),
          field("directions", &StagedBenchConfig::directions, FieldKind::kTexts),
          field("sizes_bytes", &StagedBenchConfig::sizes, FieldKind::kSizes),
          field("odd_sizes_bytes", &StagedBenchConfig::odd_sizes, FieldKind::kSizes),
          field("host_offset", &StagedBenchConfig::host_offset, FieldKind::kSizeOrZero),
          field("device_offset", &StagedBenchConfig::device_offset, FieldKind::kSizeOrZero),
          field("warmups", &StagedBenchConfig::warmups, FieldKind::kCount),
          field("driver_threads", &StagedBenchConfig::driver_threads, FieldKind::kCount)));
}

// A method the device cannot run, as the config's "skipped" list holds it (measure.cpp).
struct StagedSkip {
  std::string method, reason;

  static constexpr auto fields() {
    return std::make_tuple(field("method", &StagedSkip::method, FieldKind::kText),
                           field("reason", &StagedSkip::reason, FieldKind::kText));
  }
};

// Why the benchmark cannot run on a device with `device_free` bytes free and a host with
// `host_total` bytes of which `host_available` are available, or "" when it can. A zero host
// figure means unknown and is not checked.
std::string staged_fit_problem(const StagedBenchConfig& c, std::uint64_t device_free,
                               std::uint64_t host_total, std::uint64_t host_available);

// `pinbench staged --tune`: the staged method alone over a grid of ring shapes and thread counts.
struct StagedTuneConfig {
  std::vector<Direction> directions = {Direction::kH2D, Direction::kD2H};
  std::vector<std::uint64_t> sizes = {64ull << 20, 1ull << 30};
  std::vector<std::uint64_t> chunk_bytes = {4ull << 20, 8ull << 20, 16ull << 20, 32ull << 20};
  std::vector<int> depths = {2, 3, 4, 6};
  std::vector<int> threads = {4, 8, 16};
  std::uint64_t ring_limit_bytes = 96ull << 20;  // shapes above this are left out
  int warmups = 1;
  int iterations = 5;
  StagedCopyOptions engine;  // edge chunk and direct threshold; rings come from the grid
  bool force = false;

  void validate() const;  // throws InputError
  // The ring shapes of the grid that fit the limit, in grid order.
  std::vector<StagingRing> shapes() const;

  // The config's keys written from a member as it is (to_json); the engine, a nested object, is
  // written by hand.
  static constexpr auto fields() {
    return std::make_tuple(
        field("directions", &StagedTuneConfig::directions, FieldKind::kTexts),
        field("sizes_bytes", &StagedTuneConfig::sizes, FieldKind::kSizes),
        field("chunk_bytes", &StagedTuneConfig::chunk_bytes, FieldKind::kSizes),
        field("depths", &StagedTuneConfig::depths, FieldKind::kCounts),
        field("threads", &StagedTuneConfig::threads, FieldKind::kCounts),
        field("ring_limit_bytes", &StagedTuneConfig::ring_limit_bytes, FieldKind::kSize),
        field("warmups", &StagedTuneConfig::warmups, FieldKind::kCount),
        field("iterations", &StagedTuneConfig::iterations, FieldKind::kCount));
  }
};
nlohmann::json to_json(const StagedTuneConfig& c);

}  // namespace pinbench::experiments::staged
