// What a blocks record says: per cell (block size and count), direction and memory kind, each
// method's rate and the fastest method with its margin over the next; which method to pick where,
// as rules a serving engine can apply and in words; and what each method costs per call. Pure
// functions of the record: a figure comes only from a verified case's median, and the contiguous
// copy is the reference, never a winner. A method within 3% of the fastest counts as a good pick
// (the copy engine's methods trade places by less than that from run to run).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/experiment.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::blocks {

// A method within this factor of the fastest one's rate is as good a pick (3%).
constexpr double kBlocksTie = 1.03;

// One method in one cell.
struct BlocksRate {
  std::string method;
  std::optional<double> gb_per_s;  // the cell's bytes over the median time
  std::optional<double> ms;        // median time, call to completion
  std::optional<double> call_ms;   // median time the calls held the thread
  std::uint64_t calls = 0;         // API calls per sample
  std::string gate;
  // --beside: the kernel's slowdown while the copy ran (median of the samples), in percent.
  std::optional<double> slowdown_pct;
  // The staged engine: its host threads' CPU time per run of the method.
  std::optional<double> host_cpu_ms;
};

struct BlocksCell {
  std::string direction;  // "h2d", "d2h"
  std::string memory;     // "pinned", "pageable"
  std::uint64_t block_bytes = 0;
  std::uint64_t count = 0;
  std::vector<BlocksRate> rates;        // every method measured here, in the record's order
  std::string fastest;                  // empty: no method has a figure
  std::string next;                     // the runner-up; empty when only one method has a figure
  std::optional<double> margin;         // fastest / next
  std::optional<double> of_contiguous;  // fastest / the contiguous copy of the same bytes

  const BlocksRate* rate_of(const std::string& method) const;
  std::uint64_t bytes() const { return block_bytes * count; }
};

// Where one method beats the group's default: block sizes and counts within the bounds (each
// inclusive; absent: unbounded on that side).
struct BlocksRule {
  std::string method;
  std::optional<std::uint64_t> min_block_bytes, max_block_bytes, min_blocks, max_blocks;
  std::size_t wins = 0;  // cells it holds where it is a good pick
  // Its margin over the default inside: the median cell's (the lower middle one, so the figure is
  // one cell's own), with that cell.
  std::optional<double> margin;
  const BlocksCell* margin_cell = nullptr;
  std::size_t margin_cells = 0;  // the cells the median is taken over

  bool covers(std::uint64_t block_bytes, std::uint64_t count) const;
};

// One direction and memory kind: the method that is a good pick in most cells, the rules where
// others are better, and in how many cells the rules pick well.
struct BlocksCrossover {
  std::string direction, memory;
  std::string fallback;  // the default method
  std::vector<BlocksRule> rules;
  std::size_t cells = 0;  // cells with a fastest method
  std::size_t right = 0;  // of those, the ones where the rules pick well
  // Where the default is picked and picks well: its rate over the best other method's, the
  // median cell's, and that cell.
  std::optional<double> margin;
  const BlocksCell* margin_cell = nullptr;
  std::size_t margin_cells = 0;
  std::uint64_t smallest_block = 0, largest_block = 0, fewest = 0, most = 0;  // measured range
  // The method the rules name for a cell.
  std::string pick(std::uint64_t block_bytes, std::uint64_t count) const;
};

// What a method costs per call in one direction and memory kind, at its smallest block size.
struct BlocksCallCost {
  std::string direction, memory, method;
  std::uint64_t block_bytes = 0;
  std::uint64_t fewest = 0, most = 0;  // the counts measured at that size
  std::optional<double> fewest_us;     // call to completion with the fewest blocks
  std::optional<double> per_block_us;  // each block past the fewest, up to the most
  std::uint64_t calls = 0;             // API calls per sample with the most blocks
  std::optional<double> per_call_us;   // time the calls held the thread, per call, there
};

struct BlocksAnalysis {
  std::vector<BlocksCell> cells;  // by direction, memory kind, block size, count
  std::vector<BlocksCrossover> crossovers;
  std::vector<BlocksCallCost> costs;
  std::vector<std::string> methods;  // every method in the record, in its order
  std::string beside;                // the kernel run beside the copies; empty: none
};

BlocksAnalysis analyse_blocks(const RunRecord& record);

// The group's rules as one paragraph: "Host to device, pinned memory: with blocks of 16 KiB or
// less and 16 blocks or more, kernel, at 1.80x batch-stream (median of 9 cells: 4 KiB x 256);
// elsewhere batch-stream, at 1.12x the best other method (median of 21 cells: 64 KiB x 16).
// These rules pick the fastest method, or one within 3% of it, in 30 of 30 cells."
std::string crossover_words(const BlocksCrossover& c);

// The rules as a small JSON document a serving engine can read (docs/blocks.md): per direction
// and memory kind, the default method and the rules that override it, with the measured range.
// With a slowdown budget (the analysis of within_slowdown's record), the document says so:
// "max_slowdown_pct" and the kernel it was measured beside.
nlohmann::json recommend_json(const RunRecord& record, const BlocksAnalysis& a,
                              std::optional<double> max_slowdown_pct = std::nullopt);

// The record with only the cases whose kernel slowdown (--beside) is at most `pct` percent, the
// contiguous reference kept: its analysis ranks and rules the methods that hold the budget.
// Throws InputError when the record has no slowdown figures (it was measured without --beside)
// or `pct` is not a finite percentage of at least 0.
RunRecord within_slowdown(const RunRecord& record, double pct);

// The kernel a record's cases ran beside (config.beside.name, --beside); empty: none.
std::string beside_kernel(const nlohmann::json& config);

// "4 KiB x 256": a cell in words.
std::string cell_words(std::uint64_t block_bytes, std::uint64_t count);
// A case's shape, for `pinbench compare` (Experiment::case_shape): its block size and count,
// named "16 x 4 KiB".
CaseShape blocks_case_shape(const Case& c);

}  // namespace pinbench::experiments::blocks
