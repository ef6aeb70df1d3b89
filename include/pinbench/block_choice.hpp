// How pinbench::BlockCopier (pinbench/block_copier.hpp) picks the way to move a batch of blocks,
// as plain data and pure functions: no CUDA types, so the choice is tested on any machine.
//
// A calibration table holds, for each direction and kind of host memory, each method's rate
// (GB/s, 10^9 bytes a second) on a grid of block sizes and block counts, measured on one device
// with one driver. For a batch of blocks the choice predicts every method's rate at that shape
// and takes the fastest; a method within 3% of the fastest is as good, and among those the one
// earliest in BlockMethod's order wins (the copy engine's methods first: they take no SMs from
// the caller's kernels and no host CPU). Shapes between grid points are interpolated:
// bilinearly in (log2 block size, log2 count) on the logarithm of the rate, so a rate that
// doubles from one grid point to the next is 1.41x at the geometric middle. Outside the grid a
// shape takes the nearest edge's figures, and the reason says so. A method measured at a block
// size only up to some count (the calibration stops a method far behind the others, and a cell
// past its byte budget) keeps its last measured rate at larger counts.
//
// A slowdown budget (how much slower the caller's kernels may run beside the copy, in percent)
// is applied only where the table has figures for it: each point's slowdown, from measurements
// beside a kernel. A table without them says so in the choice's reason ("budget not measured"),
// and the choice is the fastest method, as without a budget.
//
// The choice can come instead from rules written by `pinbench blocks --recommend FILE`: per
// direction and memory kind, a default method and rules of block sizes and counts where another
// method is better (docs/blocks.md).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

enum class BlockDirection { kToDevice, kToHost };
enum class BlockMemory { kPinned, kPageable };

// The ways BlockCopier moves blocks, in the order it prefers among methods within 3% of the
// fastest. Every one keeps the stream order of a cudaMemcpyAsync on the caller's stream.
enum class BlockMethod {
  kBatch,         // "batch-stream": one cudaMemcpyBatchAsync, source read in stream order
  kBatchOverlap,  // "batch-overlap": the same with cudaMemcpyFlagPreferOverlapWithCompute
  kLoop,          // "loop": one cudaMemcpyAsync per block
  kStaged,        // "staged": the staged engine's batch call (pageable host memory only)
  kKernel,        // "kernel": a gather/scatter kernel over host memory mapped into the device
};
constexpr int kBlockMethods = 5;

const char* to_string(BlockDirection d);  // "h2d", "d2h"
const char* to_string(BlockMemory m);     // "pinned", "pageable"
const char* to_string(BlockMethod m);
std::optional<BlockDirection> parse_block_direction(std::string_view s);
std::optional<BlockMemory> parse_block_memory(std::string_view s);
std::optional<BlockMethod> parse_block_method(std::string_view s);

// Which device and software a table was measured with.
struct BlockDeviceIdentity {
  std::string device;      // the device's name, as CUDA reports it
  int driver_version = 0;  // cudaDriverGetVersion
  std::string pinbench_version;
};

// One method at one shape.
struct CalibrationPoint {
  BlockDirection direction = BlockDirection::kToDevice;
  BlockMemory memory = BlockMemory::kPinned;
  BlockMethod method = BlockMethod::kBatch;
  std::uint64_t block_bytes = 0;
  std::uint64_t count = 0;
  double gb_per_s = 0.0;
  // Of a kernel running beside the copy, in percent, -5 to 10,000; absent: unmeasured.
  std::optional<double> slowdown_pct;
};

struct CalibrationTable {
  BlockDeviceIdentity identity;
  std::string created_utc;            // RFC 3339, as pinbench writes it: "2026-12-02T06:44:18Z"
  double calibration_s = 0.0;         // how long measuring it took
  unsigned kernel_sms = 0;            // the SMs the kernel method used
  std::vector<std::uint64_t> sizes;   // the grid, ascending
  std::vector<std::uint64_t> counts;  // ascending
  std::vector<CalibrationPoint> points;
};

// A table or rules file that cannot be used, and why.
class BlockCalibrationError : public std::runtime_error {
 public:
  enum class Kind {
    kMalformed,  // not a table (bad JSON, wrong schema or version, a field missing or wrong)
    kForeign,    // measured on another device
    kStale,      // this device, but another driver or pinbench version
  };
  BlockCalibrationError(Kind kind, const std::string& what)
      : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// The table as the cache file's JSON ("pinbench.block-calibration", version 1).
std::string calibration_to_json(const CalibrationTable& table);
// Reads a cache file's text, checking it as every record is checked: the schema and version,
// every field's kind, known names, positive finite rates, slowdowns from -5% to 10,000% (a
// kernel's slowdown beside a copy: a copy cannot speed a kernel up past noise, and past 10,000%
// the kernel made under 1% of its progress), `created_utc` an RFC 3339 date-time, the grid
// ascending and every point on it, each method's counts at a block size starting at the grid's
// first; then that it was measured on `expected` (device: else kForeign; driver and pinbench
// version: else kStale).
// `where` names the file in the error.
CalibrationTable calibration_from_json(std::string_view text, const BlockDeviceIdentity& expected,
                                       const std::string& where);
// The same checks on a table in memory, but the identity (throws kMalformed).
void validate_calibration(const CalibrationTable& table, const std::string& where);

// One rule of a rules file: `method` for blocks within the bounds (inclusive; absent: open).
struct BlockRule {
  std::string method;  // as written; batch-any and batch-during-call are read as batch-stream
  std::optional<std::uint64_t> min_block_bytes, max_block_bytes, min_blocks, max_blocks;
  bool covers(std::uint64_t block_bytes, std::uint64_t count) const;
};
struct BlockRuleGroup {
  BlockDirection direction = BlockDirection::kToDevice;
  BlockMemory memory = BlockMemory::kPinned;
  std::string fallback;  // the file's "default"
  std::vector<BlockRule> rules;
};
struct BlockRules {
  BlockDeviceIdentity identity;            // measured_on; pinbench_version is informative only
  std::optional<double> max_slowdown_pct;  // the budget the rules were made for, if any
  std::vector<BlockRuleGroup> groups;
};
// Reads a `pinbench blocks --recommend` file ("pinbench.blocks-recommend", version 1), checked
// like a table; measured on another device is kForeign, with another driver kStale.
BlockRules rules_from_json(std::string_view text, const BlockDeviceIdentity& expected,
                           const std::string& where);

// What is being moved.
struct BlockShape {
  BlockDirection direction = BlockDirection::kToDevice;
  BlockMemory memory = BlockMemory::kPinned;
  std::uint64_t block_bytes = 0;  // each block's (the mean, where they differ)
  std::uint64_t count = 0;
};

struct BlockChoiceOptions {
  std::optional<double> max_slowdown_pct;
  // The methods this call may use (the others cannot move it: a kernel over pageable memory the
  // device cannot reach, batches on the legacy default stream); empty: every method.
  std::vector<BlockMethod> allowed;
};

struct BlockChoice {
  BlockMethod method = BlockMethod::kBatch;
  std::string reason;                        // one sentence or two, for stats()
  std::optional<double> predicted_gb_per_s;  // from a table; absent from rules
  bool interpolated = false;                 // the shape is not a grid point
  bool outside_grid = false;                 // clamped to the grid's edge
  // Whether the budget was applied: false without a budget, or where the table or rules have
  // no slowdown figures for it.
  bool budget_applied = false;
};

// Within this factor of the fastest predicted rate, a method is as good (3%).
constexpr double kBlockChoiceTie = 1.03;

// The choice for `shape` from a table. Throws std::invalid_argument when the table has no
// figures for the shape's direction and memory among the allowed methods, or the shape is empty.
BlockChoice choose_block_method(const CalibrationTable& table, const BlockShape& shape,
                                const BlockChoiceOptions& options = {});
// The choice from rules: the first rule that covers the shape, else the group's default; a
// method not allowed falls back to the first allowed in BlockMethod's order, and says so.
BlockChoice choose_block_method(const BlockRules& rules, const BlockShape& shape,
                                const BlockChoiceOptions& options = {});

// A table's predicted rate for one method at a shape, or nothing where it has no figures.
std::optional<double> predict_block_rate(const CalibrationTable& table, const BlockShape& shape,
                                         BlockMethod method);

}  // namespace pinbench
