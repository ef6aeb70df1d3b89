// The blocks record as the registry sees it: its config, and its section of the report model: a
// table per direction and memory kind (every method's rate in every cell, the fastest and its
// margin), which method to pick where, as rules and in words, the cost of a call, a heatmap of
// the winner per direction and the rate against block size per method.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/slowdown_range.hpp"
#include "experiments/blocks/analysis.hpp"
#include "experiments/blocks/plan.hpp"
#include "framework/experiment.hpp"
#include "framework/json_fields.hpp"
#include "framework/report_tables.hpp"
#include "framework/sampling.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::blocks {
namespace {

// A method's name in a heatmap cell, short enough for a grid of fourteen columns.
std::string short_name(const std::string& method) {
  if (method == "batch-stream") return "batch/s";
  if (method == "batch-during-call") return "batch/c";
  if (method == "batch-any") return "batch/a";
  if (method == "batch-overlap") return "batch/o";
  return method;
}

std::string us_cell(const std::optional<double>& us) {
  return figure_cell(us, "{:.1f}");
}

std::string group_title(const BlocksCrossover& c) {
  std::string words = direction_words(c.direction);
  if (!words.empty())
    words[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(words[0])));
  return fmt::format("{}, {} memory", words, c.memory);
}

std::vector<const BlocksCell*> cells_of(const BlocksAnalysis& a, const BlocksCrossover& c) {
  std::vector<const BlocksCell*> out;
  for (const BlocksCell& cell : a.cells) {
    if (cell.direction == c.direction && cell.memory == c.memory) out.push_back(&cell);
  }
  return out;
}

// The staged engine's batch call in the engine's colour, as in every chart of its copies.
std::map<std::string, std::string> engine_colour() {
  return {{to_string(BlocksMethod::kStaged), kEngineColour}};
}

std::vector<std::string> methods_of(const BlocksAnalysis& a,
                                    const std::vector<const BlocksCell*>& cells) {
  std::vector<std::string> out;
  for (const std::string& m : a.methods) {
    for (const BlocksCell* cell : cells) {
      if (cell->rate_of(m) != nullptr) {
        out.push_back(m);
        break;
      }
    }
  }
  return out;
}

void add_rate_table(ReportModel& m, const BlocksAnalysis& a, const BlocksCrossover& c) {
  const std::vector<const BlocksCell*> cells = cells_of(a, c);
  const std::vector<std::string> methods = methods_of(a, cells);
  ReportTable t;
  t.id = fmt::format("blocks-{}-{}", c.direction, c.memory);
  t.title = group_title(c) + ": GB/s by method";
  t.header = {"block", "blocks"};
  for (const std::string& method : methods) t.header.push_back(method);
  for (const char* h : {"fastest", "margin", "of contiguous"}) t.header.push_back(h);
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = false;
  t.numeric[t.header.size() - 3] = false;
  t.key_columns = 2;  // a cell is its block size and count
  for (const BlocksCell* cell : cells) {
    std::vector<std::string> row{exact_size(cell->block_bytes), std::to_string(cell->count)};
    for (const std::string& method : methods) {
      const BlocksRate* r = cell->rate_of(method);
      row.push_back(figure_cell(r != nullptr ? r->gb_per_s : std::nullopt));
    }
    row.push_back(cell->fastest.empty() ? kDash : cell->fastest);
    row.push_back(ratio_cell(cell->margin));
    row.push_back(ratio_cell(cell->of_contiguous));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "GB/s: the cell's bytes (blocks x block) over the median time from the first call to the "
      "copy's completion. margin: the fastest method's rate over the next one's; of contiguous: "
      "over one contiguous copy of the same bytes, the reference (never a winner).");
  m.tables.push_back(std::move(t));
}

void add_crossover_table(ReportModel& m, const BlocksAnalysis& a) {
  ReportTable t;
  t.id = "blocks-crossover";
  t.title = "Which method to pick, by block size and count";
  t.header = {"direction", "memory", "default", "rules, the first that holds", "picked well"};
  t.numeric = {false, false, false, false, true};
  t.key_columns = 2;
  for (const BlocksCrossover& c : a.crossovers) {
    std::string rules;
    for (const BlocksRule& r : c.rules) {
      std::vector<std::string> bounds;
      if (r.min_block_bytes) bounds.push_back("block >= " + exact_size(*r.min_block_bytes));
      if (r.max_block_bytes) bounds.push_back("block <= " + exact_size(*r.max_block_bytes));
      if (r.min_blocks) bounds.push_back(fmt::format("blocks >= {}", *r.min_blocks));
      if (r.max_blocks) bounds.push_back(fmt::format("blocks <= {}", *r.max_blocks));
      std::string joined;
      for (const std::string& b : bounds) joined += (joined.empty() ? "" : ", ") + b;
      rules += fmt::format("{}{} if {}", rules.empty() ? "" : "; ", r.method,
                           joined.empty() ? "always" : joined);
    }
    t.rows.push_back({c.direction, c.memory, c.fallback.empty() ? kDash : c.fallback,
                      rules.empty() ? "none" : rules, fmt::format("{} of {}", c.right, c.cells)});
    t.notes.push_back(crossover_words(c));
  }
  t.notes.push_back(fmt::format(
      "A method is picked well in a cell when it is the fastest there or within {:.0f}% of it. A "
      "rule names a method for the cells its bounds hold (inclusive; a bound at the edge of what "
      "was measured is left open); the default takes the rest. A ratio quoted is the median "
      "cell's, so it is one cell's own figure. `--recommend FILE` writes these rules as JSON "
      "(docs/blocks.md).",
      (kBlocksTie - 1) * 100));
  m.tables.push_back(std::move(t));
}

void add_cost_table(ReportModel& m, const BlocksAnalysis& a) {
  if (a.costs.empty()) return;
  ReportTable t;
  t.id = "blocks-call-cost";
  t.title = "What a call costs, at the smallest block size";
  t.header = {"direction",          "memory", "method", "block",      "fewest", "µs, fewest",
              "µs per added block", "most",   "calls",  "µs per call"};
  t.numeric = {false, false, false, false, true, true, true, true, true, true};
  t.key_columns = 3;
  for (const BlocksCallCost& c : a.costs) {
    t.rows.push_back({c.direction, c.memory, c.method, exact_size(c.block_bytes),
                      std::to_string(c.fewest), us_cell(c.fewest_us), us_cell(c.per_block_us),
                      std::to_string(c.most), std::to_string(c.calls), us_cell(c.per_call_us)});
  }
  t.notes.push_back(
      "µs, fewest: microseconds from the first call to completion with the fewest blocks; per "
      "added block: what each further block adds, up to the most blocks measured; per call: "
      "the time the calls held the thread with the most blocks, over the calls made (a loop "
      "makes one per block, the kernel two: its table and its launch).");
  m.tables.push_back(std::move(t));
}

// One heatmap per direction: block sizes down, counts across, memory kinds side by side; each
// cell names the fastest method and its rate, shaded by that rate's share of the chart's best.
void add_heatmaps(ReportModel& m, const BlocksAnalysis& a) {
  std::vector<std::string> directions;
  for (const BlocksCrossover& c : a.crossovers) {
    if (std::find(directions.begin(), directions.end(), c.direction) == directions.end()) {
      directions.push_back(c.direction);
    }
  }
  for (const std::string& d : directions) {
    std::set<std::uint64_t> size_set;
    std::vector<std::pair<std::string, std::uint64_t>> columns;  // (memory, count)
    // Each cell with a fastest method by (memory, size, count): looked up, so the heatmap costs
    // its cells.
    std::map<std::tuple<std::string, std::uint64_t, std::uint64_t>, const BlocksCell*> at;
    double best = 0;
    for (const BlocksCrossover& c : a.crossovers) {
      if (c.direction != d) continue;
      std::set<std::uint64_t> counts;
      for (const BlocksCell* cell : cells_of(a, c)) {
        size_set.insert(cell->block_bytes);
        counts.insert(cell->count);
        if (!cell->fastest.empty()) at[{cell->memory, cell->block_bytes, cell->count}] = cell;
        if (const BlocksRate* r = cell->rate_of(cell->fastest); r != nullptr && r->gb_per_s) {
          best = std::max(best, *r->gb_per_s);
        }
      }
      for (std::uint64_t n : counts) columns.emplace_back(c.memory, n);
    }
    const std::vector<std::uint64_t> sizes(size_set.begin(), size_set.end());
    ChartSpec heat =
        rate_heatmap("blocks-winners-" + d,
                     fmt::format("The fastest method per cell, {} (GB/s)", direction_words(d)),
                     "the winner's rate as a share of the best in this chart");
    heat.caption =
        "Rows: block size; columns: blocks per call, page-locked and pageable memory apart. Each "
        "cell: the fastest method (batch/s, batch/c, batch/a: cudaMemcpyBatchAsync with the "
        "source read in stream order, during the call, at any time) and its rate; ~: the next "
        "method is within 3%.";
    for (const auto& [memory, count] : columns) {
      heat.column_labels.push_back(std::to_string(count));
      if (heat.column_groups.empty() || heat.column_groups.back().first != memory) {
        heat.column_groups.emplace_back(memory, 0);
      }
      ++heat.column_groups.back().second;
    }
    for (std::uint64_t size : sizes) {
      heat.row_labels.push_back(exact_size(size));
      std::vector<HeatCell> row;
      for (const auto& [memory, count] : columns) {
        HeatCell cell;
        if (const auto it = at.find({memory, size, count}); it != at.end()) {
          const BlocksCell& c = *it->second;
          cell.value = c.rate_of(c.fastest)->gb_per_s;
          cell.shade = best > 0 && cell.value ? *cell.value / best : 0.0;
          // "~": the next method is within the tie, so either is as good a pick.
          cell.label = short_name(c.fastest) + (c.margin && *c.margin < kBlocksTie ? "~" : "");
        }
        row.push_back(cell);
      }
      heat.cells.push_back(std::move(row));
    }
    add_chart(m, std::move(heat));
  }
}

// Rate against block size, one line per method, at the largest count measured at every size of
// the group (so each line spans every size).
void add_size_chart(ReportModel& m, const BlocksAnalysis& a, const BlocksCrossover& c) {
  const std::vector<const BlocksCell*> cells = cells_of(a, c);
  // The sizes each count was measured at (a group holds one cell per size and count).
  std::set<std::uint64_t> sizes;
  std::map<std::uint64_t, std::set<std::uint64_t>> sizes_at;
  for (const BlocksCell* cell : cells) {
    sizes.insert(cell->block_bytes);
    sizes_at[cell->count].insert(cell->block_bytes);
  }
  std::uint64_t count = 0;
  for (const auto& [n, at] : sizes_at) {
    if (at.size() == sizes.size()) count = std::max(count, n);
  }
  if (count == 0) return;
  ChartSpec chart =
      make_chart(ChartKind::kSize, fmt::format("blocks-rate-{}-{}", c.direction, c.memory),
                 fmt::format("{}: rate against block size, {} blocks", group_title(c), count));
  chart.axis_title = "median rate (GB/s = 10^9 bytes/s)";
  chart.value_suffix = " GB/s";
  chart.colours = engine_colour();
  for (const std::string& method : methods_of(a, cells)) {
    ChartSeriesSpec s{method, method, {}};
    for (const BlocksCell* cell : cells) {
      if (cell->count != count) continue;
      const BlocksRate* r = cell->rate_of(method);
      s.points.emplace_back(cell->block_bytes, r != nullptr ? r->gb_per_s : std::nullopt);
    }
    std::sort(s.points.begin(), s.points.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    chart.series.push_back(std::move(s));
  }
  add_chart(m, std::move(chart),
            fmt::format("Each method at {} blocks per call, by block size; contiguous is one copy "
                        "of the same bytes, the reference.",
                        count));
}

// --beside: per direction and memory kind, each method's rate beside the kernel and what it cost
// the kernel, and the staged engine's host CPU; only where the record has those figures.
void add_beside_table(ReportModel& m, const BlocksAnalysis& a, const BlocksCrossover& c) {
  const std::vector<const BlocksCell*> cells = cells_of(a, c);
  bool any = false;
  for (const BlocksCell* cell : cells) {
    for (const BlocksRate& r : cell->rates) any = any || r.slowdown_pct || r.host_cpu_ms;
  }
  if (!any) return;
  ReportTable t;
  t.id = fmt::format("blocks-beside-{}-{}", c.direction, c.memory);
  t.title = a.beside.empty() ? group_title(c) + ": the staged engine's host CPU"
                             : fmt::format("{}: GB/s beside the {} kernel, and its slowdown",
                                           group_title(c), a.beside);
  t.header = {"block", "blocks", "method", "GB/s", "kernel slowdown %", "host CPU ms"};
  t.numeric = {false, true, false, true, true, true};
  t.key_columns = 3;
  for (const BlocksCell* cell : cells) {
    for (const BlocksRate& r : cell->rates) {
      t.rows.push_back({exact_size(cell->block_bytes), std::to_string(cell->count), r.method,
                        figure_cell(r.gb_per_s), figure_cell(r.slowdown_pct, "{:.1f}"),
                        figure_cell(r.host_cpu_ms, "{:.2f}")});
    }
  }
  if (!a.beside.empty()) {
    t.notes.push_back(
        "GB/s: the copy while the kernel ran back to back on another stream. Kernel slowdown: how "
        "much slower the kernel ran while the copy was in flight, from the extra time its train "
        "of launches took against the same train alone in the same run (the median sample).");
  }
  t.notes.push_back("Host CPU: the staged engine's host threads' CPU time per batch.");
  m.tables.push_back(std::move(t));
}

// --beside: each method's rate against the slowdown it caused the kernel, one point per cell of
// the group, so the trade each method makes shows at a glance (up and to the left is better).
void add_beside_chart(ReportModel& m, const BlocksAnalysis& a, const BlocksCrossover& c) {
  if (a.beside.empty()) return;
  const std::vector<const BlocksCell*> cells = cells_of(a, c);
  ChartSpec chart = make_chart(
      ChartKind::kScatter, fmt::format("blocks-beside-chart-{}-{}", c.direction, c.memory),
      fmt::format("{}: rate against the {} kernel's slowdown", group_title(c), a.beside));
  chart.axis_title = "median rate (GB/s = 10^9 bytes/s)";
  chart.value_suffix = " GB/s";
  chart.x_axis_title = fmt::format("the {} kernel's slowdown (%)", a.beside);
  chart.x_suffix = "% slowdown";
  chart.colours = engine_colour();
  for (const std::string& method : methods_of(a, cells)) {
    ChartScatterSeries s{method, method, {}};
    for (const BlocksCell* cell : cells) {
      const BlocksRate* r = cell->rate_of(method);
      if (r == nullptr || !r->gb_per_s || !r->slowdown_pct) continue;
      s.points.push_back({*r->slowdown_pct, *r->gb_per_s,
                          fmt::format("{} x {}", exact_size(cell->block_bytes), cell->count)});
    }
    if (!s.points.empty()) chart.points.push_back(std::move(s));
  }
  add_chart(m, std::move(chart),
            "One point per block size and count: the copy's rate beside the kernel (up is faster) "
            "against how much slower the kernel ran meanwhile (left costs it less).");
}

void build_blocks(const RunRecord& r, ReportModel& m) {
  m.section = analyse_blocks(r);
  const BlocksAnalysis& a = section<BlocksAnalysis>(m);
  for (const BlocksCrossover& c : a.crossovers) add_rate_table(m, a, c);
  for (const BlocksCrossover& c : a.crossovers) add_beside_table(m, a, c);
  add_crossover_table(m, a);
  add_cost_table(m, a);
  add_heatmaps(m, a);
  for (const BlocksCrossover& c : a.crossovers) add_size_chart(m, a, c);
  for (const BlocksCrossover& c : a.crossovers) add_beside_chart(m, a, c);
  add_skipped(r, m, keys_of<BlocksSkip>());
}

// Each case of a blocks record is one cell (a block size and count) of one method, direction and
// memory kind, as the plan allows them: the analysis, the rules and --recommend rest on that, so a
// record that says otherwise (no block count, a count of 0 or past kMaxBlocks, blocks that do not
// add up to the case's bytes, a method pinbench does not know, one cell measured twice) is refused
// with the field named rather than read into rules.
// The most a case's counts (calls, thread blocks, a train's kernels, repeats) may say.
constexpr std::uint64_t kMaxExtraCount = 100000000;

// A blocks case's extra, each key read for what it means: its cell (a count of blocks, each of
// at least a byte), the counts it may carry (the calls a sample made, the kernel's thread blocks,
// and beside a kernel the kernels in its train and the copies repeated to fill the window), and
// beside a kernel the kernel's slowdown (base/slowdown_range.hpp) and the times it came from, and
// the staged engine's host CPU.
struct BlocksCellExtra {
  std::uint64_t blocks = 0;
  std::uint64_t block_bytes = 0;
};

BlocksCellExtra blocks_cell_from(const JsonFields& x, std::uint64_t bytes) {
  BlocksCellExtra cell;
  cell.blocks = x.count("blocks", 1, kMaxBlocks);
  cell.block_bytes = x.count("block_bytes", 1, std::max<std::uint64_t>(bytes, 1));
  for (const char* key : {"calls", "sms", "beside_train", "beside_repeats"}) {
    if (x.has(key)) x.count(key, 1, kMaxExtraCount);
  }
  if (x.has("slowdown_pct")) {
    x.percent("slowdown_pct", "a kernel's slowdown", kLeastSlowdownPct, kMostSlowdownPct);
  }
  for (const char* key : {"host_cpu_ms", "beside_alone_ms", "beside_with_ms"}) {
    if (x.has(key)) x.ms(key);
  }
  return cell;
}

void validate_blocks_cases(const RunRecord& r) {
  std::set<std::tuple<std::string, std::string, std::string, std::uint64_t, std::uint64_t>> cells;
  std::vector<std::string> methods;
  for (BlocksMethod m : all_blocks_methods()) methods.emplace_back(to_string(m));
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const Case& c = r.cases[i];
    if (c.part != "blocks") continue;
    const std::string at = fmt::format("cases[{}]", i);
    static const nlohmann::json kNoExtra = nlohmann::json::object();
    const BlocksCellExtra cell = blocks_cell_from(
        JsonFields(c.extra.is_null() ? kNoExtra : c.extra, at + ".extra"), c.bytes);
    const std::uint64_t blocks = cell.blocks, block_bytes = cell.block_bytes;
    if (c.bytes % blocks != 0 || c.bytes / blocks != block_bytes) {
      refuse_field(at + ".bytes", fmt::format("is {}, not its {} blocks of {} bytes", c.bytes,
                                              blocks, block_bytes));
    }
    if (std::find(methods.begin(), methods.end(), c.method) == methods.end() &&
        !sms_of_kernel_name(c.method)) {
      refuse_field(at + ".method",
                   fmt::format("is '{}', not one of {}", c.method, fmt::join(methods, ", ")));
    }
    if (c.direction != "h2d" && c.direction != "d2h") {
      refuse_field(at + ".direction", fmt::format("is '{}', not h2d or d2h", c.direction));
    }
    if (c.memory != "pinned" && c.memory != "pageable") {
      refuse_field(at + ".memory", fmt::format("is '{}', not pinned or pageable", c.memory));
    }
    if (!cells.emplace(c.direction, c.memory, c.method, block_bytes, blocks).second) {
      refuse_field(at, fmt::format("measures {} {} {} {} x {} a second time", c.method, c.direction,
                                   c.memory, blocks, exact_size(block_bytes)));
    }
  }
}

ExperimentDescriptor blocks_descriptor() {
  ExperimentDescriptor d{"blocks", "pinbench blocks", "Blocks", "blocks run"};
  d.config_fields = joined({sampling_fields(),
                            fields_of<BlocksConfig>(),
                            fields_of<BlocksSkip>(),  // each of "skipped"'s objects
                            // Computed, written only when asked for, or added by the run
                            // (BlocksConfig's fields() says which).
                            {{"arena_bytes", FieldKind::kSize},
                             {"sms", FieldKind::kCount},
                             {"beside_asked", FieldKind::kText},
                             {"more_sms", FieldKind::kCounts},
                             {"work_rounds", FieldKind::kCount},
                             {"launch_ms", FieldKind::kRatio},
                             {"blocks_per_sm", FieldKind::kCount},
                             {"threads_per_block", FieldKind::kCount},
                             {"tile_bytes", FieldKind::kSize},
                             {"engine", FieldKind::kEngine},
                             {"timing", FieldKind::kText},
                             {"skipped", FieldKind::kObjects}}});
  d.gates_meaning =
      "every sample delivered every block's bytes exactly, and every host arena is the memory "
      "kind it claims.";
  return d;
}

class Blocks final : public Experiment {
 public:
  Blocks() : Experiment(blocks_descriptor()) {}
  CaseShape case_shape(const Case& c) const override { return blocks_case_shape(c); }
  // A copy beside a kernel shares the device with it, and the methods are ranked against each
  // other: a record of either another way measures something else.
  std::vector<Condition> conditions(const RunRecord& r) const override {
    const std::string beside = beside_kernel(r.config);
    return {{"kernel beside the copies", beside.empty() ? "none" : beside}, methods_measured(r)};
  }
  void validate(const RunRecord& record) const override { validate_blocks_cases(record); }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_blocks(record, model);
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Blocks blocks;
  return {&blocks};
}

}  // namespace pinbench::experiments::blocks
