// The staged engine's two records as the registry sees them: `staged` (the engine against the
// driver, page-locked memory and every alternative, and against its own bound, with the goals)
// and `staged-tune` (every ring shape at every size, the best shape per direction). Their config,
// model sections and printers.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "experiments/staged/analysis.hpp"
#include "experiments/staged/plan.hpp"
#include "experiments/staged/text.hpp"
#include "framework/experiment.hpp"
#include "framework/render/text.hpp"
#include "framework/sampling.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::staged {
namespace {

// The staged engine's options and the sampler's rules, in every record the engine measured.
const std::vector<ConfigField>& engine_fields() {
  static const std::vector<ConfigField> fields =
      joined({sampling_fields(), {{"engine", FieldKind::kEngine}, {"timing", FieldKind::kText}}});
  return fields;
}

// A case's ring shape in its extra: a tuning case's, and a staged case's thread count
// (multithread-driver's).
const std::vector<ConfigField>& ring_fields() {
  static const std::vector<ConfigField> fields = {{"chunk_bytes", FieldKind::kSize},
                                                  {"depth", FieldKind::kCount},
                                                  {"threads", FieldKind::kCount}};
  return fields;
}

// Each method's colour in every chart of the engine's: the engine in black so it stands out,
// the driver's pageable path in pageable memory's colour; pinned takes its memory kind's.
const std::map<std::string, std::string>& method_colours() {
  static const std::map<std::string, std::string> colours = {
      {"staged", kEngineColour},
      {"staged-back-to-back", "#777777"},
      {"pageable-driver", "#D55E00"},
      {"batch-async-stream", "#E69F00"},
      {"batch-async-during-call", "#CC79A7"},
      {"batch-async-any", "#009E73"},
      {"multithread-driver", "#56B4E9"},
      {"register-copy-unregister", "#882255"},
      {"sm-pageable-kernel", "#999933"},
  };
  return colours;
}

bool aligned(const StagedRow& row) {
  return row.host_offset == 0 && row.device_offset == 0;
}

std::string staged_size(const StagedRow& row) {
  return aligned(row) ? exact_size(row.bytes)
                      : fmt::format("{} at +{}/+{}", exact_size(row.bytes), row.host_offset,
                                    row.device_offset);
}

bool is_power_of_two(std::uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

void build_staged(const RunRecord& r, ReportModel& m) {
  m.section = analyse_staged(r);
  const StagedAnalysis& a = section<StagedAnalysis>(m);
  for (const char* direction : {"h2d", "d2h"}) {
    const auto it = a.rows.find(direction);
    if (it == a.rows.end()) continue;
    const StagedColumns columns = staged_columns(a, direction);
    const std::vector<std::string>& methods = columns.methods;
    ReportTable t;
    t.id = std::string("staged-") + direction;
    t.title =
        fmt::format("Staged engine against every other way, {} (GB/s)", direction_words(direction));
    t.header = {"size"};
    for (const std::string& method : methods) t.header.push_back(method);
    for (const std::string& h : columns.ratio_header("back-to-back")) t.header.push_back(h);
    t.numeric.assign(t.header.size(), true);
    t.numeric.front() = false;
    t.numeric.back() = false;  // the staged path
    // The two charts of a direction: sizes that are powers of two on one, the odd sizes and
    // offsets on the other, so neither line zig-zags between the two kinds of case.
    ChartSpec even, odd;
    for (ChartSpec* c : {&even, &odd}) {
      c->axis_title = "median rate (GB/s = 10^9 bytes/s)";
      c->value_suffix = " GB/s";
      c->colours = method_colours();
      for (const std::string& method : methods) c->series.push_back({method, method, {}});
    }
    even.id = std::string("staged-") + direction;
    even.title = fmt::format("Staged engine against pinned, the driver and each alternative, {}",
                             direction_words(direction));
    odd.id = even.id + "-odd";
    odd.title = fmt::format("The same at odd sizes and offsets, {}", direction_words(direction));
    for (const StagedRow& row : it->second) {
      std::vector<std::string> cells{staged_size(row)};
      for (std::string& cell : columns.rate_cells(row)) cells.push_back(std::move(cell));
      for (std::string& cell : columns.ratio_cells(row)) cells.push_back(std::move(cell));
      t.rows.push_back(std::move(cells));
      ChartSpec& chart = aligned(row) && is_power_of_two(row.bytes) ? even : odd;
      for (std::size_t i = 0; i < methods.size(); ++i) {
        const auto f = row.gb_per_s.find(methods[i]);
        chart.series[i].points.emplace_back(row.bytes,
                                            f == row.gb_per_s.end() ? std::nullopt : f->second);
      }
    }
    t.notes.push_back(
        "staged = the engine's synchronous call, each sample after the previous one's byte "
        "check; staged-back-to-back = the same call, samples back to back; pinned = "
        "cudaMemcpyAsync from page-locked memory (the ceiling); pageable-driver = "
        "cudaMemcpyAsync from pageable memory. A size 'at +3/+1' starts that many bytes past a "
        "page on the host and device ends.");
    if (columns.bounded) {
      t.notes.push_back(
          "host = the engine's host threads alone, in its shape; host+dma = the same threads "
          "while the copy engine moves other page-locked data the same way; bound = the lesser "
          "of host+dma and pinned (docs/methodology.md, \"The engine's bound\").");
    }
    m.tables.push_back(std::move(t));
    const StagedCpuColumns cpu = staged_cpu_columns(a, direction);
    if (!cpu.methods.empty()) {
      ReportTable c;
      c.id = std::string("staged-cpu-") + direction;
      c.title = fmt::format("The engine's CPU while copying, {}", direction_words(direction));
      c.header = {"size"};
      for (const std::string& h : cpu.header("back-to-back")) c.header.push_back(h);
      c.numeric.assign(c.header.size(), true);
      c.numeric.front() = false;
      for (const StagedRow& row : it->second) {
        if (row.cpu.empty()) continue;
        std::vector<std::string> cells{staged_size(row)};
        for (std::string& cell : cpu.cells(row)) cells.push_back(std::move(cell));
        c.rows.push_back(std::move(cells));
      }
      c.notes.push_back(kStagedCpuLegend);
      if (a.idle) c.notes.push_back("Idle engine: " + idle_engine_text(a) + ".");
      m.tables.push_back(std::move(c));
    }
    even.caption =
        "The staged engine against page-locked memory (the ceiling), the driver's own pageable "
        "path and every alternative, at sizes that are powers of two and start on a page.";
    odd.caption =
        "Sizes that are not a power of two, or start past a page boundary: the edge chunks' "
        "cost, kept apart so the lines above stay smooth.";
    for (ChartSpec* c : {&even, &odd}) {
      for (ChartSeriesSpec& s : c->series) {
        std::stable_sort(s.points.begin(), s.points.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
      }
      add_chart(m, *c);
    }
  }
  add_skipped(r, m, keys_of<StagedSkip>());
  if (!a.goals.empty()) {
    VerdictGroup g = goal_group("goals", kStagedGoalsTitle);
    int n = 0;
    for (const StagedGoal& goal : a.goals) {
      const std::string who =
          goal.method == "staged" ? std::string() : fmt::format(" ({})", goal.method);
      const std::string statement =
          goal.direction.empty()
              ? goal.text
              : fmt::format("{}{}: {}", direction_words(goal.direction), who, goal.text);
      g.items.push_back(goal_item(++n, statement, goal.verdict, goal.evidence));
    }
    m.verdicts.push_back(std::move(g));
  }
}

void build_staged_tune(const RunRecord& r, ReportModel& m) {
  std::vector<TuneRow> tune = tune_rows(r);
  m.section = TuneAnalysis{tune, tune_choices(tune)};
  const std::vector<TuneRow>& rows = section<TuneAnalysis>(m).rows;
  const std::vector<TuneChoice>& choices = section<TuneAnalysis>(m).choices;
  using Shape = std::tuple<std::uint64_t, int, int>;
  using ShapeColumn = std::pair<std::string, std::uint64_t>;  // (direction, bytes)
  // Each shape's rate in each column, the first row's where a record holds two: looked up, not
  // searched, so the heatmap costs its cells.
  std::map<std::pair<Shape, ShapeColumn>, std::optional<double>> rates;
  std::set<Shape> shape_set;
  std::set<ShapeColumn> column_set;
  for (const TuneRow& row : rows) {
    const Shape shape{row.chunk_bytes, row.depth, row.threads};
    const ShapeColumn column{row.direction, row.bytes};
    shape_set.insert(shape);
    column_set.insert(column);
    rates.emplace(std::make_pair(shape, column), row.gb_per_s);
  }
  std::vector<Shape> shapes(shape_set.begin(), shape_set.end());
  std::vector<ShapeColumn> columns(column_set.begin(), column_set.end());
  std::stable_sort(columns.begin(), columns.end(), [](const auto& x, const auto& y) {
    const int dx = x.first == "h2d" ? 0 : 1, dy = y.first == "h2d" ? 0 : 1;
    return std::tie(dx, x.second) < std::tie(dy, y.second);
  });
  const auto rate_at = [&](const Shape& s, const ShapeColumn& col) {
    const auto it = rates.find({s, col});
    return it == rates.end() ? std::optional<double>() : it->second;
  };
  const auto chosen = [&](const Shape& s, const std::string& direction) {
    for (const TuneChoice& c : choices) {
      if (c.direction == direction && Shape{c.chunk_bytes, c.depth, c.threads} == s) return true;
    }
    return false;
  };
  const auto shape_words = [](const Shape& s) {
    return fmt::format("{} x {}, {} threads", exact_size(std::get<0>(s)), std::get<1>(s),
                       std::get<2>(s));
  };

  ChartSpec heat = rate_heatmap("tune-heatmap",
                                "Every ring shape at every size: GB/s, shaded by its share of "
                                "the best shape",
                                "share of the best shape at that size and direction");
  heat.caption =
      "Rows: staging buffer size x buffers, host copy threads. Outlined cells and ★: the shape "
      "chosen per direction, the one whose lowest share of the best rate over every size is "
      "highest (never far from the best, rather than best at one size).";
  std::vector<double> best(columns.size(), 0.0);
  for (std::size_t j = 0; j < columns.size(); ++j) {
    for (const Shape& s : shapes) {
      if (const auto v = rate_at(s, columns[j])) best[j] = std::max(best[j], *v);
    }
    heat.column_labels.push_back(exact_size(columns[j].second));
    if (heat.column_groups.empty() ||
        heat.column_groups.back().first != direction_words(columns[j].first)) {
      heat.column_groups.emplace_back(direction_words(columns[j].first), 0);
    }
    ++heat.column_groups.back().second;
  }
  for (const Shape& s : shapes) {
    bool best_somewhere = false;
    std::vector<HeatCell> cells;
    for (std::size_t j = 0; j < columns.size(); ++j) {
      HeatCell cell;
      cell.value = rate_at(s, columns[j]);
      cell.shade = cell.value && best[j] > 0 ? *cell.value / best[j] : 0.0;
      cell.marked = chosen(s, columns[j].first);
      best_somewhere = best_somewhere || cell.marked;
      cells.push_back(cell);
    }
    heat.row_labels.push_back(shape_words(s) + (best_somewhere ? "  ★" : ""));
    heat.cells.push_back(std::move(cells));
  }
  add_chart(m, std::move(heat));

  for (const char* direction : {"h2d", "d2h"}) {
    std::vector<std::size_t> cols;
    for (std::size_t j = 0; j < columns.size(); ++j) {
      if (columns[j].first == direction) cols.push_back(j);
    }
    if (cols.empty()) continue;
    ReportTable t;
    t.id = std::string("tune-") + direction;
    t.title = fmt::format("Ring shapes, {} (GB/s)", direction_words(direction));
    t.header = {"shape", "staging"};
    t.numeric = {false, true};
    for (std::size_t j : cols) {
      t.header.push_back(exact_size(columns[j].second));
      t.numeric.push_back(true);
    }
    t.header.push_back("");
    t.numeric.push_back(false);
    for (const Shape& s : shapes) {
      std::vector<std::string> cells{
          shape_words(s), exact_size(std::get<0>(s) * static_cast<std::uint64_t>(std::get<1>(s)))};
      for (std::size_t j : cols) cells.push_back(figure_cell(rate_at(s, columns[j])));
      cells.push_back(chosen(s, direction) ? "best overall" : "");
      t.rows.push_back(std::move(cells));
    }
    for (const TuneChoice& c : choices) {
      if (c.direction != direction) continue;
      std::string chunk = exact_size(c.chunk_bytes);
      chunk.erase(std::remove(chunk.begin(), chunk.end(), ' '), chunk.end());
      t.notes.push_back(fmt::format(
          "Best overall: {} x {}, {} threads, never below {:.1f}% of the best shape at any size. "
          "As flags: --{}-chunk {} --{}-depth {} --{}-threads {}",
          exact_size(c.chunk_bytes), c.depth, c.threads, 100 * c.worst_share, direction, chunk,
          direction, c.depth, direction, c.threads));
    }
    m.tables.push_back(std::move(t));
  }
}

ExperimentDescriptor staged_descriptor() {
  ExperimentDescriptor d{"staged", "pinbench staged", "Staged benchmark", "staged benchmark"};
  d.config_fields = joined({engine_fields(),
                            fields_of<StagedBenchConfig>(),
                            {{"skipped", FieldKind::kObjects}},  // the list, built where written
                            fields_of<StagedSkip>(),             // each of its objects
                            // idle_engine: the process's CPU with the engine idle (measure.cpp)
                            fields_of<IdleEngineConfig>(),
                            engine_cpu_fields()});
  // A case's extra: its offsets, the engine's path, its ring and the engine's CPU (measure.cpp).
  d.extra_fields = joined({{{"host_offset", FieldKind::kSizeOrZero},
                            {"device_offset", FieldKind::kSizeOrZero},
                            {"path", FieldKind::kText}},
                           ring_fields(),
                           engine_cpu_fields()});
  d.gates_meaning =
      "every checked sample delivered exactly the reference bytes, and every buffer is the kind it "
      "claims.";
  return d;
}

ExperimentDescriptor staged_tune_descriptor() {
  ExperimentDescriptor d{"staged-tune", "pinbench staged --tune", "Staged tuning",
                         "staged tuning run"};
  d.config_fields = joined({engine_fields(), fields_of<StagedTuneConfig>()});
  d.extra_fields = ring_fields();
  d.gates_meaning =
      "after the last sample of every shape the destination held exactly the reference bytes.";
  return d;
}

class Staged final : public Experiment {
 public:
  Staged() : Experiment(staged_descriptor()) {}
  // The methods are measured one after another and ranked against each other.
  std::vector<Condition> conditions(const RunRecord& r) const override {
    return {methods_measured(r)};
  }
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_staged(record, model);
  }
  std::string text(const RunRecord& record, const ReportModel& model,
                   const TextOptions&) const override {
    return with_sampling(record, model, render_staged_text(record, section<StagedAnalysis>(model)));
  }
};

class StagedTune final : public Experiment {
 public:
  StagedTune() : Experiment(staged_tune_descriptor()) {}
  void analyse(const RunRecord& record, ReportModel& model) const override {
    build_staged_tune(record, model);
  }
  std::string text(const RunRecord& record, const ReportModel& model,
                   const TextOptions&) const override {
    return with_sampling(record, model,
                         render_staged_tune_text(record, section<TuneAnalysis>(model)));
  }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Staged staged;
  static const StagedTune tune;
  return {&staged, &tune};
}

}  // namespace pinbench::experiments::staged
