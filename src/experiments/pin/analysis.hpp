// `pinbench pin`'s figures, from its record: how fast each way of getting page-locked memory
// pins, frees and hands out its first GiB, what a neighbouring process's CUDA calls suffered
// meanwhile, what the copies from each kind of pinned memory run at, the host's limits on
// pinning, and the goals of the arena judged against cudaHostAlloc in the same run. CUDA-free,
// so a recorded run replays anywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/config_schema.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"

namespace pinbench {

// The ways `pinbench pin` gets page-locked memory, as the record's methods name them.
inline const char* const kPinHostAlloc = "cudaHostAlloc";
inline const char* const kPinHostAllocPortable = "cudaHostAlloc portable";
inline const char* const kPinRegister = "cudaHostRegister";
inline const char* const kPinRegisterThp = "cudaHostRegister THP";
inline const char* const kPinRegisterHugetlbfs = "cudaHostRegister hugetlbfs";
inline const char* const kPinArena = "PinnedArena";

// The record's section of the pin run's own facts (its limits, refusals, the neighbour alone).
inline const char* const kPinSection = "pin";

// What `pinbench pin` was asked for (measure.hpp), as the record's config holds it.
struct PinConfig {
  std::vector<std::uint64_t> sizes;  // ascending; empty: chosen from the host's limits
  std::vector<std::string> methods;  // empty: every method above
  std::vector<std::uint64_t> arena_chunks = {32ull << 20};
  std::vector<int> arena_threads;  // empty: the arena's default
  std::uint64_t copy_bytes = 1ull << 30;
  int neighbour_interval_us = 2000;  // 0: no neighbour
  int device = 0;
  // Where pinbench_neighbour is (the command finds it); not a field of the record.
  std::string neighbour_program;

  static constexpr auto fields() {
    return std::make_tuple(
        field("sizes", &PinConfig::sizes, FieldKind::kSizes),
        field("methods", &PinConfig::methods, FieldKind::kTexts),
        field("arena_chunks", &PinConfig::arena_chunks, FieldKind::kSizes),
        field("arena_threads", &PinConfig::arena_threads, FieldKind::kCounts),
        field("copy_bytes", &PinConfig::copy_bytes, FieldKind::kSize),
        field("neighbour_interval_us", &PinConfig::neighbour_interval_us, FieldKind::kCount),
        field("device", &PinConfig::device, FieldKind::kCount));
  }
};

}  // namespace pinbench
