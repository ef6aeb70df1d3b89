// What `pinbench blocks` measures, as plain data: many blocks of one size, scattered over a host
// arena and a device arena, moved in one direction by one method from one kind of host memory.
// A cell is one block size and one count of blocks; the cells are every size and count asked for
// whose bytes fit the budget. Where each block of a cell sits in the two arenas comes from a
// seeded permutation of the arenas' slots, so a run is repeatable and its record says how. No
// CUDA here: every rule and the placement are tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/enum_names.hpp"
#include "framework/config_schema.hpp"
#include "framework/memory_kind.hpp"
#include "framework/sampling.hpp"

namespace pinbench::experiments::blocks {

// The ways to move a cell's blocks. Names are used in flags, records and tables alike.
enum class BlocksMethod {
  kLoop,             // "loop": one cudaMemcpyAsync per block, then one wait
  kBatchStream,      // "batch-stream": one cudaMemcpyBatchAsync, source read in stream order
  kBatchDuringCall,  // "batch-during-call": ... source read during the call
  kBatchAny,         // "batch-any": ... source read at any time
  kBatchOverlap,     // "batch-overlap": ... source read in stream order, with
                     // cudaMemcpyFlagPreferOverlapWithCompute
  kKernel,           // "kernel": a gather/scatter kernel over page-locked host memory mapped
                     // into the device
  kStaged,           // "staged": the staged engine's batch call (pageable memory only)
  kContiguous,       // "contiguous": one cudaMemcpyAsync of the same bytes, unscattered: the
                     // reference the others are measured against, never a winner
};
inline constexpr EnumName<BlocksMethod> kBlocksMethodNames[] = {
    {BlocksMethod::kLoop, "loop"},
    {BlocksMethod::kBatchStream, "batch-stream"},
    {BlocksMethod::kBatchDuringCall, "batch-during-call"},
    {BlocksMethod::kBatchAny, "batch-any"},
    {BlocksMethod::kBatchOverlap, "batch-overlap"},
    {BlocksMethod::kKernel, "kernel"},
    {BlocksMethod::kStaged, "staged"},
    {BlocksMethod::kContiguous, "contiguous"}};
inline const char* to_string(BlocksMethod m) {
  return name_in(kBlocksMethodNames, m);
}
BlocksMethod parse_blocks_method(std::string_view name);  // throws InputError naming the choices
inline std::vector<BlocksMethod> all_blocks_methods() {
  return values_in(kBlocksMethodNames);
}
std::vector<BlocksMethod> parse_blocks_methods(std::string_view list);

// Why `m` does not move blocks of host memory `kind`, or "" when it does. The kernel reaches
// pageable memory only where the device says it can (`pageable_access`); the staged engine
// sends page-locked memory straight to the driver, so there is nothing of its own to measure.
std::string method_not_for(BlocksMethod m, MemoryKind kind, bool pageable_access);

// One cell: `count` blocks of `block_bytes` each.
struct BlockCell {
  std::uint64_t block_bytes = 0;
  std::uint64_t count = 0;
  std::uint64_t bytes() const { return block_bytes * count; }
  bool operator==(const BlockCell& o) const {
    return block_bytes == o.block_bytes && count == o.count;
  }
};

// "4KiBx16": a cell in gate names and case keys.
std::string cell_token(const BlockCell& cell);

// The most blocks a cell may hold, and the most counts a run may list.
constexpr std::uint64_t kMaxBlocks = 1u << 20;

// Counts of blocks from a list ("1,16,256") or a range "START:END:xFACTOR", each 1 to kMaxBlocks.
// Throws InputError for a zero, negative, malformed or inverted count or range.
std::vector<std::uint64_t> parse_block_counts(std::string_view text);

struct BlocksConfig {
  std::vector<std::uint64_t> block_sizes;    // ascending, no duplicates after normalize()
  std::vector<std::uint64_t> counts;         // likewise
  std::uint64_t budget_bytes = 64ull << 20;  // the most bytes one cell moves
  std::vector<Direction> directions = {Direction::kH2D, Direction::kD2H};
  std::vector<MemoryKind> memory = {MemoryKind::kPinned, MemoryKind::kPageable};
  std::vector<BlocksMethod> methods = all_blocks_methods();
  int sms = 0;  // the SMs the kernel may use; 0: every SM of the device
  // More SM counts for the kernel (--sms 0,16,32: sms 0, then 16 and 32): each measured as a
  // method of its own, "kernel-sms16", so its rate shows beside what it takes.
  std::vector<int> more_sms;
  std::uint64_t seed = 0x24B10C5;
  int warmups = 2;
  StopRule stop{0.02, 100.0, 5, 25};
  bool force = false;  // allow pinning more than half of host memory
  // A kernel run back to back beside every copy ("compute", "memory", "gemm"; empty: none), whose
  // slowdown each case records.
  std::string beside;

  // Blocks of 4 KiB to 4 MiB by x4, 1 to 4096 of them by x4, at most 64 MiB a cell.
  static BlocksConfig defaults();
  void normalize();       // sorts and de-duplicates sizes and counts
  void validate() const;  // throws InputError, one line

  // Every (size, count) whose bytes fit the budget: sizes ascending, then counts ascending.
  std::vector<BlockCell> cells() const;
  // Each arena: twice the largest cell's bytes, so a cell's blocks take at most half its slots.
  std::uint64_t arena_bytes() const;

  // The config's keys written from a member as it is (to_json; the stopping rule's are
  // StopRule's, framework/sampling.hpp). The arena's bytes (computed), "beside_asked" and
  // "more_sms" (written only when asked for) and what the run adds (measure.cpp: the SMs used,
  // the kernel, the kernel beside, the engine, the timing) are written by hand beside their
  // kinds in config_fields() (experiment.cpp).
  static constexpr auto fields() {
    return std::make_tuple(
        field("block_sizes_bytes", &BlocksConfig::block_sizes, FieldKind::kSizes),
        field("counts", &BlocksConfig::counts, FieldKind::kCounts),
        field("budget_bytes", &BlocksConfig::budget_bytes, FieldKind::kSize),
        field("seed", &BlocksConfig::seed, FieldKind::kBigCount),
        field("directions", &BlocksConfig::directions, FieldKind::kTexts),
        field("kinds", &BlocksConfig::memory, FieldKind::kTexts),
        field("methods", &BlocksConfig::methods, FieldKind::kTexts),
        field("sms_asked", &BlocksConfig::sms, FieldKind::kCount),
        field("warmups", &BlocksConfig::warmups, FieldKind::kCount));
  }
};
nlohmann::json to_json(const BlocksConfig& c);

// A method the run could not measure, as the config's "skipped" list holds it (measure.cpp).
struct BlocksSkip {
  std::string direction, memory, method, reason;

  static constexpr auto fields() {
    return std::make_tuple(field("direction", &BlocksSkip::direction, FieldKind::kText),
                           field("memory", &BlocksSkip::memory, FieldKind::kText),
                           field("method", &BlocksSkip::method, FieldKind::kText),
                           field("reason", &BlocksSkip::reason, FieldKind::kText));
  }
};

// The kernel method's name at a further SM count: "kernel-sms16".
std::string kernel_at_sms(int sms);
// The SM count of a "kernel-smsN" name, or nothing for another name.
std::optional<int> sms_of_kernel_name(std::string_view method);

// --beside's kernels: "compute", "memory" or "gemm". Throws InputError naming them.
std::string parse_beside_kernel(std::string_view name);

// The memory kinds a run may take: page-locked ("pinned") and pageable.
std::vector<MemoryKind> parse_blocks_memory(std::string_view list);

// Why the run cannot fit a device with `device_free` bytes free and a host with `host_total`
// bytes of which `host_available` are available, or "" when it can. A zero host figure is not
// checked.
std::string blocks_fit_problem(const BlocksConfig& c, std::uint64_t device_free,
                               std::uint64_t host_total, std::uint64_t host_available);

// Where a cell's blocks sit: block i at byte host_offsets[i] of the host arena and
// device_offsets[i] of the device arena. Each arena is cut into slots of the block size; the
// blocks take the first `count` slots of a permutation of them drawn from `seed` and the cell
// (one permutation per arena), so no two blocks share a slot and the same seed places a cell the
// same way on every machine. Requires count * block_bytes <= arena_bytes.
struct BlockPlacement {
  std::vector<std::uint64_t> host_offsets;
  std::vector<std::uint64_t> device_offsets;
};
BlockPlacement place_blocks(const BlockCell& cell, std::uint64_t arena_bytes, std::uint64_t seed);

}  // namespace pinbench::experiments::blocks
