// `pinbench blocks` without a GPU: the plan (sizes, counts, the budget, the seeded placement that
// puts every block in a slot of its own), the analysis and the crossover rules on a hand-made
// record whose winners are known, every printer against its golden, the --recommend JSON, and
// the command line's bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <fmt/ranges.h>

#include "compare/compare.hpp"
#include "experiments/blocks/analysis.hpp"
#include "experiments/blocks/plan.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/case_builder.hpp"
#include "framework/case_figures.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"
#include "golden_normalise.hpp"

namespace pinbench {
using namespace experiments::blocks;
using namespace compare;
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

// --- the plan ----------------------------------------------------------------------------------

TEST(BlocksPlan, DefaultsAreFourKibToFourMibAndOneToFourThousandWithinTheBudget) {
  BlocksConfig c = BlocksConfig::defaults();
  c.normalize();
  c.validate();
  EXPECT_EQ(c.block_sizes, (std::vector<std::uint64_t>{4 * kKiB, 16 * kKiB, 64 * kKiB, 256 * kKiB,
                                                       kMiB, 4 * kMiB}));
  EXPECT_EQ(c.counts, (std::vector<std::uint64_t>{1, 4, 16, 64, 256, 1024, 4096}));
  EXPECT_EQ(c.budget_bytes, 64 * kMiB);
  const std::vector<BlockCell> cells = c.cells();
  // Every pair whose bytes fit, and no other.
  std::size_t fit = 0;
  for (std::uint64_t s : c.block_sizes) {
    for (std::uint64_t n : c.counts) {
      const bool in = std::find(cells.begin(), cells.end(), BlockCell{s, n}) != cells.end();
      EXPECT_EQ(in, s * n <= c.budget_bytes) << s << " x " << n;
      fit += s * n <= c.budget_bytes ? 1 : 0;
    }
  }
  EXPECT_EQ(cells.size(), fit);
  EXPECT_EQ(cells.size(), 32u);
  EXPECT_EQ(cells.front(), (BlockCell{4 * kKiB, 1}));
  EXPECT_EQ(cells.back(), (BlockCell{4 * kMiB, 16}));
  EXPECT_EQ(c.arena_bytes(), 128 * kMiB);  // twice the largest cell
  EXPECT_EQ(cell_token(cells.back()), "4MiBx16");
}

TEST(BlocksPlan, CountsParseAsListsAndRanges) {
  EXPECT_EQ(parse_block_counts("1:4096:x4"),
            (std::vector<std::uint64_t>{1, 4, 16, 64, 256, 1024, 4096}));
  EXPECT_EQ(parse_block_counts("3:20:x2"), (std::vector<std::uint64_t>{3, 6, 12}));
  EXPECT_EQ(parse_block_counts(" 16, 1,16 "), (std::vector<std::uint64_t>{16, 1}));
  for (const char* bad :
       {"0", "-4", "", "many", "1.5", "64:4:x4", "1:8:x1", "1:8", "1:8:+2", "0:8:x2", "2000000"}) {
    EXPECT_THROW(parse_block_counts(bad), InputError) << bad;
  }
}

TEST(BlocksPlan, BadPlansAreRefusedInOneLine) {
  const auto refused = [](BlocksConfig c, const std::string& contains) {
    try {
      c.validate();
      ADD_FAILURE() << "accepted; expected: " << contains;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(contains), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  };
  BlocksConfig c = BlocksConfig::defaults();
  c.budget_bytes = 2 * kKiB;
  refused(c, "the budget of 2 KiB is below one block of 4 KiB");
  c = BlocksConfig::defaults();
  c.sms = -1;
  refused(c, "--sms -1 is negative");
  c = BlocksConfig::defaults();
  c.directions = {Direction::kBidir};
  refused(c, "not bidir");
  c = BlocksConfig::defaults();
  c.counts.clear();
  refused(c, "no block count");
  c = BlocksConfig::defaults();
  c.stop.max_samples = 2;
  refused(c, "sample cap");
  EXPECT_THROW(parse_blocks_memory("pinned,managed"), InputError);
  EXPECT_THROW(parse_blocks_methods("loop,warp"), InputError);
}

TEST(BlocksPlan, MethodsAndWhatTheyMove) {
  for (BlocksMethod m : all_blocks_methods()) {
    EXPECT_EQ(parse_blocks_method(to_string(m)), m);
  }
  EXPECT_EQ(all_blocks_methods().size(), 8u);
  EXPECT_NE(method_not_for(BlocksMethod::kKernel, MemoryKind::kPageable, false), "");
  EXPECT_EQ(method_not_for(BlocksMethod::kKernel, MemoryKind::kPageable, true), "");
  EXPECT_EQ(method_not_for(BlocksMethod::kKernel, MemoryKind::kPinned, false), "");
  EXPECT_NE(method_not_for(BlocksMethod::kStaged, MemoryKind::kPinned, true), "");
  EXPECT_EQ(method_not_for(BlocksMethod::kStaged, MemoryKind::kPageable, false), "");
}

// Every block lands in a slot of its own, inside the arena, on a slot boundary; the seed and the
// cell fix the placement, and the two arenas are shuffled apart.
TEST(BlocksPlan, PlacementPutsEveryBlockExactlyOnceAndRepeatsWithItsSeed) {
  const std::uint64_t arena = 128 * kMiB;
  for (const BlockCell cell :
       {BlockCell{4 * kKiB, 4096}, BlockCell{4 * kMiB, 16}, BlockCell{4 * kMiB, 32},
        BlockCell{1000, 700}, BlockCell{64 * kKiB, 1}}) {
    const BlockPlacement p = place_blocks(cell, arena, 7);
    for (const auto* offsets : {&p.host_offsets, &p.device_offsets}) {
      ASSERT_EQ(offsets->size(), cell.count);
      const std::set<std::uint64_t> distinct(offsets->begin(), offsets->end());
      EXPECT_EQ(distinct.size(), cell.count) << cell_token(cell);
      for (std::uint64_t o : *offsets) {
        EXPECT_EQ(o % cell.block_bytes, 0u);
        EXPECT_LE(o + cell.block_bytes, arena);
      }
    }
    const BlockPlacement again = place_blocks(cell, arena, 7);
    EXPECT_EQ(again.host_offsets, p.host_offsets);
    EXPECT_EQ(again.device_offsets, p.device_offsets);
    if (cell.count > 1) {
      EXPECT_NE(place_blocks(cell, arena, 8).host_offsets, p.host_offsets) << cell_token(cell);
      EXPECT_NE(p.host_offsets, p.device_offsets) << cell_token(cell);
    }
  }
  // A full arena: a permutation of every slot.
  const BlockPlacement full = place_blocks({4 * kMiB, 32}, arena, 1);
  std::vector<std::uint64_t> slots = full.host_offsets;
  std::sort(slots.begin(), slots.end());
  for (std::size_t i = 0; i < slots.size(); ++i) EXPECT_EQ(slots[i], i * 4 * kMiB);
  // Scattered, not in order: 4096 blocks in 32768 slots are not sorted by chance.
  const BlockPlacement many = place_blocks({4 * kKiB, 4096}, arena, 7);
  EXPECT_FALSE(std::is_sorted(many.host_offsets.begin(), many.host_offsets.end()));
  EXPECT_THROW(place_blocks({4 * kMiB, 33}, arena, 1), InputError);
}

TEST(BlocksPlan, TheFitChecksNameWhatIsShort) {
  const BlocksConfig c = BlocksConfig::defaults();
  EXPECT_EQ(blocks_fit_problem(c, 64 * kGiB, 256 * kGiB, 200 * kGiB), "");
  EXPECT_NE(blocks_fit_problem(c, 128 * kMiB, 256 * kGiB, 200 * kGiB).find("device"),
            std::string::npos);
  EXPECT_NE(blocks_fit_problem(c, 64 * kGiB, 500 * kMiB, 0).find("--force"), std::string::npos);
  EXPECT_NE(blocks_fit_problem(c, 64 * kGiB, 0, 300 * kMiB).find("available"), std::string::npos);
}

// --- a hand-made record -----------------------------------------------------------------------

struct Rates {
  std::uint64_t block, count;
  std::vector<double> gb_per_s;  // one per method of the group; negative: the case failed
};

void add_group(RunRecord& r, const char* direction, const char* memory,
               const std::vector<std::string>& methods, const std::vector<Rates>& rows) {
  for (const Rates& row : rows) {
    for (std::size_t i = 0; i < methods.size(); ++i) {
      const double rate = row.gb_per_s[i];
      const std::uint64_t bytes = row.block * row.count;
      const double ms = static_cast<double>(bytes) / (std::abs(rate) * 1e6);
      Timed t;
      t.samples_ms = {ms, ms, ms};
      t.call_ms = {ms / 2, ms / 2, ms / 2};
      t.stop = StopReason::kCount;
      if (rate < 0) t.fail("sample 0: block 3: first difference at byte 17 of 4096");
      const std::string gate =
          gate_name({"blocks", direction, memory, methods[i]}, cell_token({row.block, row.count}));
      Case c = make_case({"blocks", direction, memory, methods[i], "host_clock", bytes, 1, gate}, t,
                         true);
      const std::uint64_t calls = methods[i] == "loop" ? row.count : methods[i] == "kernel" ? 2 : 1;
      c.extra = {{"block_bytes", row.block}, {"blocks", row.count}, {"calls", calls}};
      r.gates.push_back(sampled_gate(gate, t, "every one of 3 samples delivered every block"));
      r.cases.push_back(std::move(c));
    }
  }
}

RunRecord make_blocks_record() {
  RunRecord r;
  r.experiment = "blocks";
  r.pinbench_version = "0.1.0";
  r.created_utc = "2026-12-03T10:00:00Z";
  r.machine.device_name = "Test GPU";
  r.machine.sm_count = 132;
  r.machine.driver_version = 13000;
  r.machine.runtime_version = 13000;
  BlocksConfig c;
  c.block_sizes = {4 * kKiB, 64 * kKiB, kMiB};
  c.counts = {1, 16, 256};
  c.budget_bytes = 256 * kMiB;
  r.config = to_json(c);
  r.config["sms"] = 132;
  r.config["timing"] = "host clock from the first call to the copy's completion";
  r.config["skipped"] = {{{"direction", "h2d"},
                          {"memory", "pageable"},
                          {"method", "kernel"},
                          {"reason", "no access"}}};
  r.wall_ms = 1234.0;
  // Host to device, pinned: the kernel wins blocks of 64 KiB or less, 16 or more of them; the
  // loop wins one 1 MiB block; batch-stream wins the rest.
  add_group(r, "h2d", "pinned", {"loop", "batch-stream", "kernel", "contiguous"},
            {{4 * kKiB, 1, {1.0, 1.2, 0.8, 1.5}},
             {4 * kKiB, 16, {2.0, 5.0, 8.0, 12.0}},
             {4 * kKiB, 256, {2.5, 9.0, 18.0, 30.0}},
             {64 * kKiB, 1, {6.0, 7.0, 5.0, 8.0}},
             {64 * kKiB, 16, {20.0, 30.0, 36.0, 40.0}},
             {64 * kKiB, 256, {25.0, 40.0, 44.0, 50.0}},
             {kMiB, 1, {30.0, 28.0, 20.0, 35.0}},
             {kMiB, 16, {40.0, 48.0, 45.0, 52.0}},
             {kMiB, 256, {45.0, 52.0, 50.0, 54.0}}});
  // Device to host, pageable: batch-any wins everywhere; the engine failed one cell.
  add_group(r, "d2h", "pageable", {"loop", "batch-any", "staged", "contiguous"},
            {{4 * kKiB, 1, {0.5, 0.6, 0.4, 0.7}},
             {4 * kKiB, 16, {2.0, 4.0, -3.0, 6.0}},
             {kMiB, 1, {8.0, 9.0, 8.5, 10.0}},
             {kMiB, 16, {9.0, 14.0, 12.0, 12.5}}});
  return record_from_json(to_json(r));  // as a file would give it, validated
}

const BlocksCell& cell_at(const BlocksAnalysis& a, const char* d, std::uint64_t block,
                          std::uint64_t count) {
  for (const BlocksCell& c : a.cells) {
    if (c.direction == d && c.block_bytes == block && c.count == count) return c;
  }
  throw std::runtime_error("no such cell");
}

TEST(BlocksAnalysis, EachCellHasItsFastestMethodAndMargin) {
  const RunRecord r = make_blocks_record();
  const BlocksAnalysis a = analyse_blocks(r);
  EXPECT_EQ(a.cells.size(), 13u);
  // In the methods' own order, the reference last, whatever order the record has.
  EXPECT_EQ(a.methods, (std::vector<std::string>{"loop", "batch-stream", "batch-any", "kernel",
                                                 "staged", "contiguous"}));
  const BlocksCell& k = cell_at(a, "h2d", 4 * kKiB, 256);
  EXPECT_EQ(k.fastest, "kernel");
  EXPECT_EQ(k.next, "batch-stream");
  EXPECT_NEAR(*k.margin, 2.0, 1e-12);
  EXPECT_NEAR(*k.of_contiguous, 0.6, 1e-12);
  EXPECT_NEAR(*k.rate_of("kernel")->gb_per_s, 18.0, 1e-9);
  EXPECT_EQ(k.rate_of("loop")->calls, 256u);
  // The contiguous copy is faster still, but it is the reference, never a winner.
  const BlocksCell& l = cell_at(a, "h2d", kMiB, 1);
  EXPECT_EQ(l.fastest, "loop");
  EXPECT_NEAR(*l.margin, 30.0 / 28.0, 1e-12);
  // A failed case has no figure and wins nothing.
  const BlocksCell& f = cell_at(a, "d2h", 4 * kKiB, 16);
  EXPECT_FALSE(f.rate_of("staged")->gb_per_s.has_value());
  EXPECT_EQ(f.fastest, "batch-any");
  EXPECT_EQ(f.next, "loop");
}

TEST(BlocksAnalysis, TheCrossoverFindsTheRegionsAndSaysThemInWords) {
  const RunRecord r = make_blocks_record();
  const BlocksAnalysis a = analyse_blocks(r);
  ASSERT_EQ(a.crossovers.size(), 2u);
  const BlocksCrossover& h = a.crossovers[0];
  EXPECT_EQ(h.fallback, "batch-stream");
  ASSERT_EQ(h.rules.size(), 2u);
  EXPECT_EQ(h.rules[0].method, "kernel");
  EXPECT_FALSE(h.rules[0].min_block_bytes.has_value());
  EXPECT_EQ(h.rules[0].max_block_bytes, 64 * kKiB);
  EXPECT_EQ(h.rules[0].min_blocks, 16u);
  EXPECT_FALSE(h.rules[0].max_blocks.has_value());
  EXPECT_EQ(h.rules[0].wins, 4u);
  EXPECT_EQ(h.rules[1].method, "loop");
  EXPECT_EQ(h.rules[1].min_block_bytes, kMiB);
  EXPECT_EQ(h.rules[1].max_blocks, 1u);
  EXPECT_EQ(h.right, 9u);
  EXPECT_EQ(h.cells, 9u);
  // Outside the measured range the open bounds carry the rules on.
  EXPECT_EQ(h.pick(kKiB, 100000), "kernel");
  EXPECT_EQ(h.pick(kGiB, 1), "loop");
  EXPECT_EQ(h.pick(kGiB, 2), "batch-stream");
  EXPECT_EQ(crossover_words(h),
            "Host to device, pinned memory: with blocks of 64 KiB or less and 16 blocks or more, "
            "kernel, at 1.20x batch-stream (median of 4 cells: 64 KiB x 16); with blocks of 1 "
            "MiB or more and at most 1 block, loop, at 1.07x batch-stream (at 1 MiB x 1); "
            "elsewhere batch-stream, at 1.07x the best other method (median of 4 cells: 1 MiB x "
            "16). These rules pick the fastest method, or one within 3% of it, in 9 of 9 cells.");
  const BlocksCrossover& d = a.crossovers[1];
  EXPECT_EQ(d.fallback, "batch-any");
  EXPECT_TRUE(d.rules.empty());
  EXPECT_EQ(crossover_words(d),
            "Device to host, pageable memory: batch-any throughout, at 1.17x the best other method "
            "(median of 4 cells: 1 MiB x 16). These rules pick the fastest method, or one within "
            "3% of it, in 4 of 4 cells.");
}

// Two methods a hair apart are not told apart: within 3% either is a good pick, so one method
// that is good everywhere beats a rule for the other's 2% win.
TEST(BlocksAnalysis, MethodsWithinThreePercentAreEquallyGoodPicks) {
  RunRecord r;
  r.experiment = "blocks";
  r.created_utc = "2026-12-03T10:00:00Z";
  add_group(r, "d2h", "pinned", {"loop", "batch-stream", "contiguous"},
            {{4 * kKiB, 1, {1.00, 1.02, 1.1}},
             {4 * kKiB, 16, {2.0, 3.0, 4.0}},
             {kMiB, 1, {10.0, 9.8, 11.0}}});
  const BlocksAnalysis a = analyse_blocks(r);
  ASSERT_EQ(a.crossovers.size(), 1u);
  const BlocksCrossover& c = a.crossovers[0];
  EXPECT_EQ(cell_at(a, "d2h", kMiB, 1).fastest, "loop");
  EXPECT_EQ(c.fallback, "batch-stream");
  EXPECT_TRUE(c.rules.empty());
  EXPECT_EQ(c.right, 3u);
  // Its ratio to the best other method: 1.02, 1.5 and 0.98; the median cell is 4 KiB x 1.
  EXPECT_NEAR(*c.margin, 1.02, 1e-9);
  EXPECT_EQ(c.margin_cell->count, 1u);
  EXPECT_EQ(c.margin_cell->block_bytes, 4 * kKiB);
}

// A group of more block sizes and counts than a rule's bounds are drawn from (16 of each): the
// bounds fall on measured sizes and counts at the edges of runs of them, the rules still find the
// region where the kernel wins, and they pick well in nearly every cell. 40 sizes x 40 counts.
TEST(BlocksAnalysis, ManySizesAndCountsGiveRulesOnRunsOfThem) {
  RunRecord r;
  r.experiment = "blocks";
  r.created_utc = "2026-12-03T10:00:00Z";
  std::vector<Rates> rows;
  std::vector<std::uint64_t> sizes, counts;
  for (std::uint64_t i = 0; i < 40; ++i) {
    sizes.push_back(4 * kKiB + 1024 * i);
    counts.push_back(1 + 3 * i);
  }
  // The kernel wins blocks below 20 KiB in counts of 40 or more; batch-stream the rest.
  for (std::uint64_t size : sizes) {
    for (std::uint64_t count : counts) {
      const bool kernel = size < 20 * kKiB && count >= 40;
      rows.push_back({size, count, {kernel ? 1.0 : 2.0, kernel ? 3.0 : 1.0, 4.0}});
    }
  }
  add_group(r, "h2d", "pinned", {"batch-stream", "kernel", "contiguous"}, rows);
  const BlocksAnalysis a = analyse_blocks(r);
  ASSERT_EQ(a.crossovers.size(), 1u);
  const BlocksCrossover& c = a.crossovers[0];
  EXPECT_EQ(c.cells, 1600u);
  EXPECT_EQ(c.fallback, "batch-stream");
  ASSERT_FALSE(c.rules.empty());
  EXPECT_EQ(c.rules[0].method, "kernel");
  for (const BlocksRule& rule : c.rules) {
    for (const auto& bound : {rule.min_block_bytes, rule.max_block_bytes}) {
      if (bound) {
        EXPECT_TRUE(std::count(sizes.begin(), sizes.end(), *bound)) << *bound;
      }
    }
    for (const auto& bound : {rule.min_blocks, rule.max_blocks}) {
      if (bound) {
        EXPECT_TRUE(std::count(counts.begin(), counts.end(), *bound)) << *bound;
      }
    }
  }
  // The region's edges (20 KiB, 40 blocks) fall inside runs of 2 or 3 sizes and counts: at most
  // the cells of one run of each side are picked otherwise.
  EXPECT_GE(c.right, 1600u - 3 * 40 - 3 * 40);
  EXPECT_EQ(c.pick(4 * kKiB, 118), "kernel");
  EXPECT_EQ(c.pick(40 * kKiB, 118), "batch-stream");
  EXPECT_EQ(c.pick(4 * kKiB, 1), "batch-stream");
}

TEST(BlocksAnalysis, WhatACallCosts) {
  const BlocksAnalysis a = analyse_blocks(make_blocks_record());
  const auto cost = [&](const char* d, const char* m) {
    for (const BlocksCallCost& c : a.costs) {
      if (c.direction == d && c.method == m) return c;
    }
    throw std::runtime_error("no such cost");
  };
  const BlocksCallCost loop = cost("h2d", "loop");
  EXPECT_EQ(loop.block_bytes, 4 * kKiB);
  EXPECT_EQ(loop.fewest, 1u);
  EXPECT_EQ(loop.most, 256u);
  // Within a nanosecond: a record keeps its times to the nanosecond.
  EXPECT_NEAR(*loop.fewest_us, 4096.0 / 1.0e3, 1e-3);  // 4096 B at 1 GB/s
  const double most_us = 256.0 * 4096 / 2.5e3;
  EXPECT_NEAR(*loop.per_block_us, (most_us - 4.096) / 255.0, 1e-3);
  EXPECT_EQ(loop.calls, 256u);
  EXPECT_NEAR(*loop.per_call_us, most_us / 2 / 256, 1e-3);
  EXPECT_EQ(cost("h2d", "kernel").calls, 2u);
  // The engine's failed cell leaves it one count at 4 KiB: nothing per added block.
  const BlocksCallCost staged = cost("d2h", "staged");
  EXPECT_EQ(staged.most, 1u);
  EXPECT_FALSE(staged.per_block_us.has_value());
}

TEST(BlocksAnalysis, RecommendationsAreTheRulesAsJson) {
  const RunRecord r = make_blocks_record();
  const nlohmann::json j = recommend_json(r, analyse_blocks(r));
  test::expect_matches_golden(j.dump(2) + "\n", "blocks-recommend.json");
  ASSERT_EQ(j["choices"].size(), 2u);
  EXPECT_EQ(j["choices"][0]["default"], "batch-stream");
  EXPECT_EQ(j["choices"][0]["rules"][0]["max_block_bytes"], 64 * kKiB);
  EXPECT_FALSE(j["choices"][0]["rules"][0].contains("min_block_bytes"));
}

// The committed H200 run's rules, as `--recommend` writes them (docs/blocks.md shows them).
TEST(BlocksAnalysis, TheCommittedRunsRecommendations) {
  const RunRecord r =
      load_record(std::string(PINBENCH_DATA_DIR) + "/runs/blocks-h200-2026-12-02T064418Z.json");
  test::expect_matches_golden(recommend_json(r, analyse_blocks(r)).dump(2) + "\n",
                              "blocks-recommend-h200.json");
}

TEST(BlocksAnalysis, AGroupWithoutFiguresHasNoWinner) {
  RunRecord r;
  r.experiment = "blocks";
  r.created_utc = "2026-12-03T10:00:00Z";
  add_group(r, "h2d", "pinned", {"loop", "contiguous"}, {{4 * kKiB, 4, {-1.0, -1.0}}});
  const BlocksAnalysis a = analyse_blocks(r);
  ASSERT_EQ(a.crossovers.size(), 1u);
  EXPECT_EQ(a.crossovers[0].cells, 0u);
  EXPECT_EQ(crossover_words(a.crossovers[0]),
            "Host to device, pinned memory: no method has a figure.");
  EXPECT_TRUE(recommend_json(r, a)["choices"].empty());
}

// --- printers -----------------------------------------------------------------------------------

TEST(BlocksPrinters, EveryPrinterMatchesItsGolden) {
  const RunRecord r = make_blocks_record();
  const ReportModel m = analyse(r);
  EXPECT_EQ(exit_code(m), 1);  // the engine's failed cell
  test::expect_matches_golden(render_text(m), "blocks-example.txt");
  test::expect_matches_golden(render_markdown(m), "blocks-example.md");
  test::expect_matches_golden(render_csv(m), "blocks-example.csv");
  test::expect_matches_golden(test::normalise_html(render_html(r, m, {})), "blocks-example.html");
  // The heatmap names each cell's winner.
  const std::string html = render_html(r, m, {});
  EXPECT_NE(html.find(">kernel 18.0<"), std::string::npos);
  EXPECT_NE(html.find(">batch/a 14.0<"), std::string::npos);
}

// --- the command line ---------------------------------------------------------------------------

void expect_one_line_error(const test::Result& r, const std::string& contains) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("pinbench: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
}

TEST(BlocksCli, BadInputIsOneLineAndExitTwoWithOrWithoutAGpu) {
  expect_one_line_error(test::run(kBin + "blocks --sizes 0"), "size '0' is zero");
  expect_one_line_error(test::run(kBin + "blocks --sizes=-4KiB"), "negative");
  expect_one_line_error(test::run(kBin + "blocks --sizes 4MiB:4KiB:x4"), "inverted");
  expect_one_line_error(test::run(kBin + "blocks --counts 0"), "block count '0'");
  expect_one_line_error(test::run(kBin + "blocks --counts=-16"), "block count '-16'");
  expect_one_line_error(test::run(kBin + "blocks --counts 4096:1:x4"), "inverted");
  expect_one_line_error(test::run(kBin + "blocks --budget 2KiB"),
                        "the budget of 2 KiB is below one block of 4 KiB");
  expect_one_line_error(test::run(kBin + "blocks --budget 0"), "size '0' is zero");
  expect_one_line_error(test::run(kBin + "blocks --sms=-2"), "--sms -2 is negative");
  expect_one_line_error(test::run(kBin + "blocks --memory managed"), "not measured by blocks");
  expect_one_line_error(test::run(kBin + "blocks --methods loop,teleport"), "unknown method");
}

TEST(BlocksCli, AReplayPrintsTheRecordAndWritesItsRecommendations) {
  const std::string dir = test::temp_dir();
  const RunRecord r = make_blocks_record();
  save_record(r, dir + "/run.json");
  const test::Result out =
      test::run(kBin + "blocks --replay " + dir + "/run.json --recommend " + dir + "/rules.json");
  EXPECT_EQ(out.exit_code, 1) << out.err;  // the record's failed gate
  EXPECT_NE(out.out.find("Which method to pick"), std::string::npos) << out.out;
  EXPECT_EQ(test::read_file(dir + "/rules.json"),
            recommend_json(r, analyse_blocks(r)).dump(2) + "\n");
  // A replay takes no measuring option.
  expect_one_line_error(test::run(kBin + "blocks --replay " + dir + "/run.json --sms 4"),
                        "--replay excludes --sms");
}

// An output never replaces an input: --recommend naming the replayed record is refused before
// anything is printed, and the record is as it was. A record with no cell to make rules of writes
// none.
TEST(BlocksCli, TheRecommendationNeverOverwritesTheRecordAndNeedsCells) {
  const std::string dir = test::temp_dir();
  save_record(make_blocks_record(), dir + "/run.json");
  const std::string before = test::read_file(dir + "/run.json");
  const test::Result same =
      test::run(kBin + "blocks --replay " + dir + "/run.json --recommend " + dir + "/run.json");
  expect_one_line_error(same, "the recommendation '" + dir +
                                  "/run.json' would overwrite the "
                                  "replayed record '" +
                                  dir + "/run.json'");
  EXPECT_EQ(same.out, "");
  EXPECT_EQ(test::read_file(dir + "/run.json"), before);

  RunRecord empty = make_blocks_record();
  empty.cases.clear();
  empty.gates.clear();
  save_record(empty, dir + "/empty.json");
  const test::Result none =
      test::run(kBin + "blocks --replay " + dir + "/empty.json --recommend " + dir + "/rules.json");
  expect_one_line_error(none, "no blocks cell with a verified figure");
  EXPECT_FALSE(std::filesystem::exists(dir + "/rules.json"));
}

// A blocks record's cells are validated where it is read: the rules must not be made of cells the
// plan cannot make.
TEST(BlocksRecord, CellsThePlanCannotMakeAreRefusedByName) {
  const nlohmann::json good = to_json(make_blocks_record());
  const auto error_of = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = good;
    change(j);
    try {
      record_from_json(j);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(read)");
  };
  EXPECT_EQ(error_of([](nlohmann::json&) {}), "(read)");
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["cases"][1]["extra"]["blocks"] = 0; }),
            "run record: 'cases[1].extra.blocks' is 0, less than a count allows (1)");
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["cases"][1]["extra"]["blocks"] = -16; }),
            "run record: 'cases[1].extra.blocks' is -16: a count cannot be negative");
  EXPECT_EQ(
      error_of([](nlohmann::json& j) { j["cases"][1]["extra"]["blocks"] = 1ull << 40; }),
      "run record: 'cases[1].extra.blocks' is 1099511627776, more than a count allows (1048576)");
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["cases"][1]["extra"].erase("blocks"); }),
            "run record: 'cases[1].extra.blocks' is missing");
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["cases"][1]["extra"]["blocks"] = 2; }),
            "run record: 'cases[1].bytes' is 4096, not its 2 blocks of 4096 bytes");
  EXPECT_NE(error_of([](nlohmann::json& j) {
              j["cases"][1]["method"] = "teleport";
            }).find("run record: 'cases[1].method' is 'teleport', not one of loop, "),
            std::string::npos);
  EXPECT_EQ(error_of([](nlohmann::json& j) { j["cases"].push_back(j["cases"][1]); }),
            "run record: 'cases[" + std::to_string(good["cases"].size()) +
                "]' measures batch-stream h2d pinned 1 x 4 KiB a second time");
}

// compare matches blocks cases by their cell: 4 KiB x 16 and 64 KiB x 1 move the same bytes and
// are two cases, so a cell 10 times slower is found whichever cell shares its bytes.
TEST(BlocksCompare, CasesAreMatchedByBlockSizeAndCount) {
  const RunRecord a = make_blocks_record();
  RunRecord b = a;
  std::size_t slowed = 0;
  for (Case& c : b.cases) {
    if (c.method == "kernel" && extra_u64(c, "block_bytes", 0) == 4 * kKiB &&
        extra_u64(c, "blocks", 0) == 16) {
      for (double& ms : c.samples_ms) ms *= 10;
      ++slowed;
    }
  }
  ASSERT_EQ(slowed, 1u);
  const Comparison c = compare_records(a, b, 0.2);
  EXPECT_EQ(c.common.size(), a.cases.size());
  EXPECT_TRUE(c.only_a.empty());
  ASSERT_EQ(c.differing(), 1);
  for (const ComparedCase& k : c.common) {
    if (!k.differs) continue;
    EXPECT_EQ(k.key.method, "kernel");
    EXPECT_EQ(k.key.shape.key, (std::vector<std::uint64_t>{4 * kKiB, 16}));
    EXPECT_EQ(k.key.shape.text, "16 x 4 KiB");
    EXPECT_EQ(describe(k.key), "blocks kernel h2d pinned 64 KiB (16 x 4 KiB)");
  }
  const test::Result cli = [&] {
    const std::string dir = test::temp_dir();
    save_record(a, dir + "/a.json");
    save_record(b, dir + "/b.json");
    return test::run(kBin + "compare " + dir + "/a.json " + dir + "/b.json");
  }();
  EXPECT_EQ(cli.exit_code, 1) << cli.err;
  EXPECT_NE(cli.out.find("16 x 4 KiB"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("1 differs by more than 20%"), std::string::npos) << cli.out;
}

// --- beside a kernel ----------------------------------------------------------------------------

// The hand-made record as if measured with --beside compute: the kernel method slows the kernel
// by 20% at 16 blocks and more, the copy engine's methods by 2% or less; the staged engine spent
// host CPU.
RunRecord make_beside_record() {
  RunRecord r = make_blocks_record();
  r.config["beside"] = {{"name", "compute"},
                        {"work_rounds", 2048},
                        {"launch_ms", 0.1},
                        {"blocks_per_sm", 2},
                        {"threads_per_block", 512}};
  r.config["beside_asked"] = "compute";
  for (Case& c : r.cases) {
    const bool many = extra_u64(c, "blocks", 0) >= 16;
    c.extra["slowdown_pct"] = c.method == "kernel" ? (many ? 20.0 : 4.0)
                              : c.method == "loop" ? 0.5
                                                   : 1.5;
    c.extra["beside_train"] = 12;
    c.extra["beside_alone_ms"] = 1.2;
    c.extra["beside_with_ms"] = 1.25;
    if (c.method == "staged") c.extra["host_cpu_ms"] = 0.75;
  }
  return record_from_json(to_json(r));
}

TEST(BlocksBeside, TheAnalysisAndTheTableShowRateSlowdownAndHostCpu) {
  const RunRecord r = make_beside_record();
  const BlocksAnalysis a = analyse_blocks(r);
  EXPECT_EQ(a.beside, "compute");
  const BlocksRate* k = cell_at(a, "h2d", 4 * kKiB, 256).rate_of("kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->slowdown_pct, 20.0);
  const BlocksRate* st = cell_at(a, "d2h", kMiB, 1).rate_of("staged");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->host_cpu_ms, 0.75);
  const ReportModel m = analyse(r);
  const auto t = std::find_if(m.tables.begin(), m.tables.end(), [](const ReportTable& x) {
    return x.id == "blocks-beside-h2d-pinned";
  });
  ASSERT_NE(t, m.tables.end());
  EXPECT_EQ(t->title,
            "Host to device, pinned memory: GB/s beside the compute kernel, and its "
            "slowdown");
  EXPECT_EQ(t->header, (std::vector<std::string>{"block", "blocks", "method", "GB/s",
                                                 "kernel slowdown %", "host CPU ms"}));
  EXPECT_EQ(t->rows.size(), 9u * 4u);
  // Rows by cell, then the record's methods: 4 KiB x 256's kernel is the eleventh.
  EXPECT_EQ(t->rows[10],
            (std::vector<std::string>{"4 KiB", "256", "kernel", "18.00", "20.0", "\u2014"}))
      << fmt::format("{}", fmt::join(t->rows[10], "|"));
  const std::string text = render_text(m);
  EXPECT_NE(text.find("GB/s beside the compute kernel, and its slowdown"), std::string::npos);
  EXPECT_NE(text.find("Host CPU: the staged engine's host threads' CPU time per batch."),
            std::string::npos);
  // A record without them has no such table.
  const ReportModel plain = analyse(make_blocks_record());
  for (const ReportTable& x : plain.tables)
    EXPECT_EQ(x.id.rfind("blocks-beside", 0), std::string::npos);
}

TEST(BlocksBeside, ThePrintersMatchTheirGoldens) {
  const RunRecord r = make_beside_record();
  const ReportModel m = analyse(r);
  test::expect_matches_golden(render_text(m), "blocks-beside-example.txt");
  test::expect_matches_golden(render_markdown(m), "blocks-beside-example.md");
  test::expect_matches_golden(test::normalise_html(render_html(r, m, {})),
                              "blocks-beside-example.html");
}

TEST(BlocksBeside, MaxSlowdownMakesRulesOfTheMethodsWithinIt) {
  const RunRecord r = make_beside_record();
  const RunRecord within = within_slowdown(r, 5.0);
  const BlocksAnalysis a = analyse_blocks(within);
  // The kernel slows the kernel beside it 20% at 16 blocks and more: out; at 1 block, in.
  EXPECT_EQ(cell_at(a, "h2d", 4 * kKiB, 256).fastest, "batch-stream");
  EXPECT_EQ(cell_at(a, "h2d", 4 * kKiB, 256).rate_of("kernel"), nullptr);
  EXPECT_NE(cell_at(a, "h2d", 4 * kKiB, 1).rate_of("kernel"), nullptr);
  EXPECT_NE(cell_at(a, "h2d", 4 * kKiB, 256).rate_of("contiguous"), nullptr);
  const nlohmann::json doc = recommend_json(within, a, 5.0);
  EXPECT_EQ(doc["max_slowdown_pct"], 5.0);
  EXPECT_EQ(doc["beside"], "compute");
  for (const auto& choice : doc["choices"]) {
    for (const auto& rule : choice["rules"]) EXPECT_NE(rule["method"], "kernel") << doc.dump();
  }
  // Without a budget the kernel's rule is there.
  const std::string all = recommend_json(r, analyse_blocks(r)).dump();
  EXPECT_NE(all.find("\"kernel\""), std::string::npos);
  EXPECT_EQ(all.find("max_slowdown_pct"), std::string::npos);
  // 20% holds it again.
  EXPECT_EQ(analyse_blocks(within_slowdown(r, 20.0)).cells.size(), a.cells.size());
  EXPECT_EQ(cell_at(analyse_blocks(within_slowdown(r, 20.0)), "h2d", 4 * kKiB, 256).fastest,
            "kernel");
  EXPECT_THROW(within_slowdown(make_blocks_record(), 5.0), InputError);
  EXPECT_THROW(within_slowdown(r, -1.0), InputError);
}

TEST(BlocksBeside, TheCommandLineAppliesTheBudgetToTheRecommendation) {
  const std::string dir = test::temp_dir();
  const RunRecord r = make_beside_record();
  save_record(r, dir + "/beside.json");
  const test::Result out =
      test::run(kBin + "blocks --replay " + dir + "/beside.json --max-slowdown 5 --recommend " +
                dir + "/rules.json");
  EXPECT_EQ(out.exit_code, 1) << out.err;  // the record's failed gate
  const RunRecord within = within_slowdown(r, 5.0);
  EXPECT_EQ(test::read_file(dir + "/rules.json"),
            recommend_json(within, analyse_blocks(within), 5.0).dump(2) + "\n");
  expect_one_line_error(
      test::run(kBin + "blocks --replay " + dir + "/beside.json --max-slowdown 5"),
      "--max-slowdown shapes --recommend's rules");
  save_record(make_blocks_record(), dir + "/plain.json");
  expect_one_line_error(test::run(kBin + "blocks --replay " + dir +
                                  "/plain.json --max-slowdown 5 --recommend " + dir + "/r2.json"),
                        "no slowdown figures; measure with --beside KERNEL");
  expect_one_line_error(test::run(kBin + "blocks --beside warp"), "is not a kernel");
}

TEST(BlocksBeside, AFigureOrCountThatIsNotOneIsRefusedByName) {
  nlohmann::json j = to_json(make_beside_record());
  j["cases"][0]["extra"]["slowdown_pct"] = "fast";
  try {
    record_from_json(j);
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("cases[0].extra.slowdown_pct"), std::string::npos)
        << e.what();
  }
  j = to_json(make_beside_record());
  j["cases"][1]["extra"]["host_cpu_ms"] = -1;
  EXPECT_ANY_THROW(record_from_json(j));
  for (const char* key : {"beside_repeats", "beside_train", "calls", "sms"}) {
    for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(-3), nlohmann::json(2.5),
                                      nlohmann::json("many"), nlohmann::json(1e12)}) {
      j = to_json(make_beside_record());
      j["cases"][0]["extra"][key] = bad;
      try {
        record_from_json(j);
        FAIL() << key << " = " << bad.dump() << " accepted";
      } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find(std::string("cases[0].extra.") + key),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

TEST(BlocksBeside, TheKernelAtFurtherSmCountsIsAMethodOfItsOwn) {
  EXPECT_EQ(kernel_at_sms(16), "kernel-sms16");
  EXPECT_EQ(sms_of_kernel_name("kernel-sms16"), 16);
  for (const char* no : {"kernel", "kernel-sms", "kernel-sms0", "kernel-sms016", "kernel-smsx",
                         "kernel-sms1234567"}) {
    EXPECT_FALSE(sms_of_kernel_name(no)) << no;
  }
  BlocksConfig c = BlocksConfig::defaults();
  c.more_sms = {16, 32};
  c.normalize();
  EXPECT_NO_THROW(c.validate());
  EXPECT_EQ(to_json(c)["more_sms"], nlohmann::json({16, 32}));
  c.more_sms = {0};
  EXPECT_THROW(c.validate(), InputError);
  c.sms = 16;
  c.more_sms = {16};
  EXPECT_THROW(c.validate(), InputError);
  // A record with kernel-sms16 cases is read; its cells rank it as a method.
  RunRecord r = make_blocks_record();
  std::vector<Case> more;
  for (const Case& k : r.cases) {
    if (k.method != "kernel") continue;
    Case x = k;
    x.method = "kernel-sms16";
    for (const Gate& g : r.gates) {
      if (g.name == k.gate) {
        Gate copy = g;
        copy.name += "-sms16";
        r.gates.push_back(copy);
        break;
      }
    }
    x.gate += "-sms16";
    for (double& ms : x.samples_ms) ms *= 2;
    more.push_back(x);
  }
  r.cases.insert(r.cases.end(), more.begin(), more.end());
  const RunRecord back = record_from_json(to_json(r));
  const BlocksAnalysis a = analyse_blocks(back);
  EXPECT_NE(cell_at(a, "h2d", 4 * kKiB, 256).rate_of("kernel-sms16"), nullptr);
  expect_one_line_error(test::run(kBin + "blocks --sms 0,x"),
                        "--sms: SM count 'x' is not a whole number in decimal digits");
  expect_one_line_error(test::run(kBin + "blocks --sms 8,0"),
                        "a further SM count must be at least 1");
}

}  // namespace
}  // namespace pinbench
