// The per-experiment builders behind `analyse` (report_model.hpp). Each builder only arranges
// what the experiment's own analysis (lesson.hpp, sweep_analysis.hpp, staged_analysis.hpp)
// already decided, so a printer can never disagree with the terminal text of the same record.
#include "framework/report_model.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "framework/case_figures.hpp"
#include "experiments/check/analysis.hpp"
#include "experiments/doctor/analysis.hpp"
#include "experiments/fleet/analysis.hpp"
#include "experiments/host/analysis.hpp"
#include "experiments/staged/analysis.hpp"
#include "experiments/sweep/analysis.hpp"
#include "framework/sampling.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

const std::string kDash = "—";

std::string num(const std::optional<double>& v, const char* spec = "{:.2f}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : kDash;
}

std::string case_label(const Case& c) {
  return fmt::format("{} {} {} {} {}", c.part, c.method, c.direction, c.memory,
                     exact_size(c.bytes));
}

std::string stop_words(const RunRecord& r, const Case& c) {
  if (c.stop && *c.stop != StopReason::kContinue) return to_string(*c.stop);
  return r.source == "published" ? "published figure" : "not recorded";
}

std::string passed_sentence(const RunRecord& r, const std::string& meaning) {
  // Nothing checked is not "all passed" (a doctor run of a program that copied nothing, say).
  if (r.gates.empty()) return "No gates: the record holds no checked measurement.";
  return fmt::format("All {} gates passed: {}", r.gates.size(), meaning);
}

// What "every gate passed" means for each experiment's record.
std::string gates_meaning(const std::string& experiment) {
  if (experiment == "sweep") {
    return "every sample of every case delivered exactly the reference bytes, "
           "and every buffer is the kind it claims.";
  }
  if (experiment == "staged") {
    return "every checked sample delivered exactly the reference bytes, and every "
           "buffer is the kind it claims.";
  }
  if (experiment == "staged-tune") {
    return "after the last sample of every shape the destination held exactly "
           "the reference bytes.";
  }
  if (experiment == "pipeline") {
    return "every run returned every float exactly, both bound copies delivered "
           "their bytes, and every buffer is the kind it claims.";
  }
  return "every gated buffer is the memory kind it claims and every gated path "
         "moved its bytes exactly.";
}

// What the experiment chose not to measure (config "skipped"), one row per entry with the
// given fields; "bytes" reads as a size.
void add_skipped(const RunRecord& r, ReportModel& m, const std::vector<std::string>& fields) {
  const auto it = r.config.find("skipped");
  if (it == r.config.end() || !it->is_array() || it->empty()) return;
  ReportTable t;
  t.id = "not-measured";
  t.title = "Not measured";
  for (const std::string& f : fields) {
    t.header.push_back(f == "bytes" ? "size" : f);
    t.numeric.push_back(f == "bytes");
  }
  for (const auto& entry : *it) {
    std::vector<std::string> row;
    for (const std::string& f : fields) {
      row.push_back(f == "bytes" ? format_size(entry.value("bytes", std::uint64_t{1}))
                                 : entry.value(f, std::string()));
    }
    t.rows.push_back(std::move(row));
  }
  m.tables.push_back(std::move(t));
}

void add_cases(const RunRecord& r, ReportModel& m) {
  for (const Case& c : r.cases) {
    CaseLine line;
    line.source = &c;
    line.label = case_label(c);
    line.stop = stop_words(r, c);
    const CaseFigures f = figures_of(c);
    // A failed case's times are not a measurement of its path, so they get no spread either.
    if (f.samples && f.samples->count >= 2) line.spread = relative_spread(c.samples_ms);
    if (f.samples) line.stability = check_stability(c.samples_ms);
    if (line.stability.unstable()) {
      m.flags.push_back({line.label, line.stability.stability, line.stability.detail});
    }
    m.cases.push_back(std::move(line));
  }
}

void add_common(const RunRecord& r, ReportModel& m) {
  m.experiment = r.experiment;
  m.title = fmt::format("pinbench report: {} on {}", r.experiment,
                        r.machine.device_name.empty() ? "unknown device" : r.machine.device_name);
  m.published = r.source == "published";
  m.figures_are = m.published ? "Figures are the published ones, one per case"
                              : "Figures are medians of the timed samples";
  m.machine_line = machine_line(r.machine);
  m.machine = machine_fields(r.machine);
  m.record_line = record_line(r);
  if (r.incomplete) m.notes.push_back(incomplete_note(r));
  if (!r.note.empty()) m.notes.push_back("Note: " + r.note);
  m.gates = r.gates.size();
  for (const Gate& g : r.gates) m.gates_passed += g.passed ? 1 : 0;
  m.check_failures = failed_gates(r);
  add_cases(r, m);
}

ChartSeriesSpec series_of(const SizeSeries& s) {
  ChartSeriesSpec out{s.memory, s.memory, {}};
  for (const auto& [bytes, rate] : s.gb_per_s) out.points.emplace_back(bytes, rate);
  return out;
}

std::string failed_sentence(const SizePanel& p) {
  if (p.failed.empty()) return "";
  std::string out = " No point where the gate failed: ";
  for (std::size_t i = 0; i < p.failed.size(); ++i) out += (i > 0 ? "; " : "") + p.failed[i];
  return out + ".";
}

// Rate-by-size charts, one per (part, method, direction) that has a sweep of sizes. With
// `shared_scale`, every chart reaches the highest rate of all, so they compare at a glance; the
// sweep gives each chart its own scale instead, since one bidir total would flatten the rest.
std::vector<ChartSpec> rate_charts(const RunRecord& r, bool shared_scale) {
  const std::vector<SizePanel> panels = size_panels(r);
  double y_max = 0;
  for (const SizePanel& p : panels) {
    if (!p.is_sweep()) continue;
    for (const SizeSeries& s : p.series) {
      for (const auto& point : s.gb_per_s) {
        if (point.second) y_max = std::max(y_max, *point.second);
      }
    }
  }
  std::vector<ChartSpec> out;
  for (const SizePanel& p : panels) {
    if (!p.is_sweep()) continue;
    ChartSpec chart;
    chart.id = "rate-" + p.part + "-" + p.method + "-" + p.direction;
    chart.title = p.title();
    chart.axis_title = "median rate (GB/s = 10^9 bytes/s)";
    chart.value_suffix = " GB/s";
    if (shared_scale) chart.value_at_least = y_max;
    for (const SizeSeries& s : p.series) chart.series.push_back(series_of(s));
    chart.caption = fmt::format(
        "Median rate of the timed samples at each size, {}; one colour and marker per memory "
        "kind.{}",
        direction_words(p.direction), failed_sentence(p));
    out.push_back(std::move(chart));
  }
  return out;
}

// --- lesson -----------------------------------------------------------------------------------

void build_lesson(const RunRecord& r, ReportModel& m) {
  m.lesson = analyse_lesson(r);
  const LessonAnalysis& a = *m.lesson;
  m.tables = report_tables(r, &a);
  m.check_failures = a.check_failures;
  VerdictGroup g;
  g.id = "predictions";
  g.title = "Predictions";
  g.note =
      "Each prediction is split into claims. A prediction dies with any of its claims and holds "
      "only when every claim was judged and held; a claim is undecided when the samples' noise "
      "leaves room for either answer. Verdicts are findings, not failures.";
  g.items = a.predictions;
  m.verdicts.push_back(std::move(g));

  m.charts = rate_charts(r, true);
  ChartSpec ratio;
  ratio.id = "lesson-ratio";
  ratio.title = "Part 1: pageable time / pinned time, by size";
  ratio.axis_title = "pageable ms / pinned ms (x)";
  ratio.value_suffix = "x";
  std::size_t with_ratio = 0;
  for (const auto& [rows, label, key] : {std::make_tuple(&a.h2d, "host to device", "h2d"),
                                         std::make_tuple(&a.d2h, "device to host", "d2h")}) {
    if (rows->empty()) continue;
    ChartSeriesSpec s{label, key, {}};
    for (const CopyRow& row : *rows) {
      s.points.emplace_back(row.bytes, row.ratio);
      with_ratio += row.ratio ? 1 : 0;
    }
    ratio.series.push_back(std::move(s));
  }
  ratio.rules = {{1.0, "1x: pinned no faster"}, {1.3, "1.3x: prediction 1's floor"}};
  ratio.caption =
      "How many times longer a blocking copy takes from pageable memory than from pinned "
      "memory, per direction. Prediction 1 asks for a ratio above 1 at every size, at least 1.3 "
      "at 256 MiB, growing with size.";
  if (with_ratio > 0) m.charts.push_back(std::move(ratio));

  ChartSpec share;
  share.kind = ChartKind::kShares;
  share.id = "lesson-call-share";
  share.title = fmt::format("Part 2: how long a {} cudaMemcpyAsync holds the thread",
                            format_size(a.config.async_bytes));
  share.axis_title = "call time as a share of the time to completion (%)";
  for (const AsyncRow& row : a.async_rows) {
    ChartBar b{direction_words(row.direction) + ", " + row.memory, row.memory, row.call_share, ""};
    if (row.call_ms && row.completion_ms) {
      b.detail = fmt::format("call {:.3f} ms of {:.3f} ms to completion", *row.call_ms,
                             *row.completion_ms);
    }
    share.bars.push_back(std::move(b));
  }
  share.rules = {{0.10, "10%"}, {0.80, "80%"}};
  share.caption =
      "Median time the call held the calling thread over the median time until the stream had "
      "synchronised. Prediction 2: at least 80% for pageable memory, under 10% for pinned (host "
      "to device).";
  if (!share.bars.empty()) m.charts.push_back(std::move(share));
}

// --- sweep ------------------------------------------------------------------------------------

bool page_locked(const std::string& memory) {
  return memory == "pinned" || memory == "registered" || memory == "write-combined" ||
         memory == "mapped";
}

// Each sweep chart split in two, side by side: the page-locked kinds, which all reach the
// link's rate and lie on one line, and the pageable kinds (pageable, transparent huge pages,
// managed), which on a shared scale would be flattened under them.
std::vector<ChartSpec> split_by_locking(const std::vector<ChartSpec>& charts) {
  std::vector<ChartSpec> out;
  for (const ChartSpec& chart : charts) {
    ChartSpec locked = chart, pageable = chart;
    locked.series.clear();
    pageable.series.clear();
    for (const ChartSeriesSpec& s : chart.series) {
      (page_locked(s.key) ? locked : pageable).series.push_back(s);
    }
    if (locked.series.empty() || pageable.series.empty()) {
      out.push_back(chart);
      continue;
    }
    locked.id += "-page-locked";
    locked.title += ": page-locked kinds";
    locked.caption +=
        " Page-locked kinds only: where they coincide, the copy engine reads every kind of "
        "page-locked memory at the link's rate.";
    pageable.id += "-pageable";
    pageable.title += ": pageable kinds";
    pageable.caption += " Pageable kinds only, on their own scale.";
    out.push_back(std::move(locked));
    out.push_back(std::move(pageable));
  }
  return out;
}

void build_sweep(const RunRecord& r, ReportModel& m) {
  m.tables = report_tables(r, nullptr);
  m.charts = split_by_locking(rate_charts(r, false));
  for (ChartSpec& c : m.charts) {
    if (c.id.find("-bidir-total") != std::string::npos) {
      c.caption +=
          " Both directions at once: the bytes of both over the span from the common start to "
          "the last finish, so about twice a single direction; drawn apart, on its own scale.";
    }
  }
  // The bidir totals last, each on its own chart, so the single directions lead.
  std::stable_partition(m.charts.begin(), m.charts.end(), [](const ChartSpec& c) {
    return c.id.find("-bidir-total") == std::string::npos;
  });
  const std::vector<PinCostRow> cost = pin_cost_rows(r);
  if (!cost.empty()) {
    ReportTable t;
    t.id = "pin-cost";
    t.title = fmt::format("What pinning costs ({} each, median of the repetitions, host clock)",
                          format_size(cost.front().bytes));
    t.header = {"memory", "step", "ms"};
    t.numeric = {false, false, true};
    for (const PinCostRow& row : cost) {
      t.rows.push_back({row.memory, row.step, fmt::format("{:.1f}", row.median_ms)});
    }
    m.tables.push_back(std::move(t));
  }
  add_skipped(r, m, {"memory", "direction", "method", "bytes", "reason"});
}

// --- bandwidthtest ----------------------------------------------------------------------------

void build_bandwidthtest(const RunRecord& r, ReportModel& m) {
  m.tables = report_tables(r, nullptr);
  const std::vector<RateRow> rows = rate_rows(r, "bandwidthtest");
  ChartSpec chart;
  chart.kind = ChartKind::kBars;
  chart.id = "bandwidthtest-rates";
  chart.title = rows.empty() ? std::string("bandwidthtest")
                             : fmt::format("bandwidthtest: {} copies, pageable against pinned",
                                           format_size(rows.front().bytes));
  chart.axis_title = "median rate (GB/s = 10^9 bytes/s)";
  chart.value_suffix = " GB/s";
  for (const char* direction : {"h2d", "d2h"}) {
    for (const char* memory : {"pageable", "pinned"}) {
      for (const RateRow& row : rows) {
        if (row.direction != direction || row.memory != memory) continue;
        chart.bars.push_back(
            {fmt::format("{}, {}", direction_words(direction), memory), memory, row.median_gb_per_s,
             fmt::format("{} samples of {}", row.samples, format_size(row.bytes))});
      }
    }
  }
  chart.caption =
      "The median rate of each of the four copies CUDA's bandwidthTest sample makes: pageable "
      "and pinned host memory, each direction. The gap between each pair is what pinning buys.";
  if (!chart.bars.empty()) m.charts.push_back(std::move(chart));
}

// --- race -------------------------------------------------------------------------------------

// "overwrite at once" for "cudaMemcpyAsync, overwrite": every condition starts with the same
// call, so the label keeps only what the host did after it.
std::string condition_words(const std::string& method) {
  const std::string call = "cudaMemcpyAsync, ";
  const std::string rest =
      method.compare(0, call.size(), call) == 0 ? method.substr(call.size()) : method;
  if (rest == "overwrite") return "overwrite at once";
  if (rest == "synchronize, overwrite") return "synchronize, then overwrite";
  return rest;
}

void build_race(const RunRecord& r, ReportModel& m) {
  const std::vector<RaceRow> rows = race_rows(r);
  ReportTable t;
  t.id = "race";
  t.title = "Overwriting a copy's source while the copy is in flight";
  t.header = {"source",    "what the host did", "call ms",  "old words",
              "new words", "neither",           "new share"};
  t.numeric = {false, false, true, true, true, true, true};
  ChartSpec chart;
  chart.kind = ChartKind::kShares;
  chart.id = "race-new-share";
  chart.title = "Share of the copied words that were the host's new bytes";
  chart.axis_title = "share of the words received that were new (%)";
  for (const RaceRow& row : rows) {
    const std::uint64_t all = row.old_words + row.new_words + row.other_words;
    const std::optional<double> share =
        all > 0 ? std::optional<double>(row.new_fraction) : std::nullopt;
    t.rows.push_back({row.memory, row.method, fmt::format("{:.3f}", row.call_ms),
                      std::to_string(row.old_words), std::to_string(row.new_words),
                      std::to_string(row.other_words),
                      num(share ? *share * 100 : share, "{:.2f}%")});
    chart.bars.push_back(
        {fmt::format("{}: {}", row.memory, condition_words(row.method)), row.memory, share,
         fmt::format("{} of {} words new over {} trials", row.new_words, all, row.trials)});
  }
  if (!rows.empty()) {
    t.notes.push_back(fmt::format(
        "{} per trial, {} trials per row. The host writes new bytes into the source right after "
        "cudaMemcpyAsync returns (or after cudaStreamSynchronize), from the end backwards; the "
        "device's copy is then read back and each 8-byte word counted as old, new or neither.",
        format_size(rows.front().bytes), rows.front().trials));
  }
  m.tables.push_back(std::move(t));
  chart.caption =
      "0% means the copy had taken its bytes before the host overwrote them, as after a "
      "synchronize; anything above 0% means the call returned before the copy read its source, "
      "so the source must not be touched until the stream says so.";
  if (!chart.bars.empty()) m.charts.push_back(std::move(chart));
}

// --- staged -----------------------------------------------------------------------------------

VerdictGroup goal_group(const std::string& id, const std::string& title) {
  VerdictGroup g;
  g.id = id;
  g.title = title;
  g.note =
      "Targets from the issue, judged on this record: findings, not checks. Each goal holds "
      "only when every size in its range met it.";
  return g;
}

Prediction goal_item(int number, const std::string& statement, Verdict v,
                     const std::string& evidence) {
  Prediction p;
  p.number = number;
  p.statement = statement;
  p.verdict = v;
  p.claims.push_back({statement, v, evidence});
  return p;
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
  const StagedAnalysis a = analyse_staged(r);
  const bool b2b =
      std::find(a.methods.begin(), a.methods.end(), "staged-back-to-back") != a.methods.end();
  for (const char* direction : {"h2d", "d2h"}) {
    const auto it = a.rows.find(direction);
    if (it == a.rows.end()) continue;
    ReportTable t;
    t.id = std::string("staged-") + direction;
    t.title =
        fmt::format("Staged engine against every other way, {} (GB/s)", direction_words(direction));
    t.header = {"size"};
    t.numeric = {false};
    for (const std::string& method : a.methods) {
      t.header.push_back(method);
      t.numeric.push_back(true);
    }
    t.header.insert(t.header.end(), {"staged/pinned", "staged/driver"});
    if (b2b) t.header.push_back("back-to-back/pinned");
    const bool bounded =
        std::any_of(it->second.begin(), it->second.end(),
                    [](const StagedRow& row) { return row.host_gb_per_s.has_value(); });
    if (bounded) {
      t.header.insert(t.header.end(), {"host", "host+dma", "bound", "staged/bound"});
      if (b2b) t.header.push_back("back-to-back/bound");
    }
    t.header.push_back("staged path");
    t.numeric.resize(t.header.size(), true);
    t.numeric.back() = false;
    // The two charts of a direction: sizes that are powers of two on one, the odd sizes and
    // offsets on the other, so neither line zig-zags between the two kinds of case.
    ChartSpec even, odd;
    for (ChartSpec* c : {&even, &odd}) {
      c->axis_title = "median rate (GB/s = 10^9 bytes/s)";
      c->value_suffix = " GB/s";
      for (const std::string& method : a.methods) c->series.push_back({method, method, {}});
    }
    even.id = std::string("staged-") + direction;
    even.title = fmt::format("Staged engine against pinned, the driver and each alternative, {}",
                             direction_words(direction));
    odd.id = even.id + "-odd";
    odd.title = fmt::format("The same at odd sizes and offsets, {}", direction_words(direction));
    for (const StagedRow& row : it->second) {
      std::vector<std::string> cells{staged_size(row)};
      for (const std::string& method : a.methods) {
        const auto f = row.gb_per_s.find(method);
        cells.push_back(f == row.gb_per_s.end() ? kDash : num(f->second));
      }
      cells.push_back(num(row.staged_over_pinned, "{:.3f}"));
      cells.push_back(num(row.staged_over_driver, "{:.2f}x"));
      if (b2b) cells.push_back(num(row.back_to_back_over_pinned, "{:.3f}"));
      if (bounded) {
        cells.push_back(num(row.host_gb_per_s));
        cells.push_back(num(row.host_under_dma_gb_per_s));
        cells.push_back(num(row.bound_gb_per_s));
        cells.push_back(num(row.staged_over_bound, "{:.3f}"));
        if (b2b) cells.push_back(num(row.back_to_back_over_bound, "{:.3f}"));
      }
      cells.push_back(row.staged_path.empty() ? kDash : row.staged_path);
      t.rows.push_back(std::move(cells));
      ChartSpec& chart = aligned(row) && is_power_of_two(row.bytes) ? even : odd;
      for (std::size_t i = 0; i < a.methods.size(); ++i) {
        const auto f = row.gb_per_s.find(a.methods[i]);
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
    if (bounded) {
      t.notes.push_back(
          "host = the engine's host threads alone, in its shape; host+dma = the same threads "
          "while the copy engine moves other page-locked data the same way; bound = the lesser "
          "of host+dma and pinned (docs/methodology.md, \"The engine's bound\").");
    }
    m.tables.push_back(std::move(t));
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
      const bool any = std::any_of(c->series.begin(), c->series.end(), [](const auto& s) {
        return std::any_of(s.points.begin(), s.points.end(),
                           [](const auto& p) { return p.second.has_value(); });
      });
      if (any) m.charts.push_back(*c);
    }
  }
  add_skipped(r, m, {"method", "reason"});
  if (!a.goals.empty()) {
    VerdictGroup g =
        goal_group("goals", "Goals (H200 targets from the issue; findings, not checks)");
    int n = 0;
    for (const StagedGoal& goal : a.goals) {
      const std::string who =
          goal.method == "staged" ? std::string() : fmt::format(" ({})", goal.method);
      g.items.push_back(
          goal_item(++n, fmt::format("{}{}: {}", direction_words(goal.direction), who, goal.text),
                    goal.verdict, goal.evidence));
    }
    m.verdicts.push_back(std::move(g));
  }
}

// --- staged tuning ----------------------------------------------------------------------------

void build_staged_tune(const RunRecord& r, ReportModel& m) {
  const std::vector<TuneRow> rows = tune_rows(r);
  const std::vector<TuneChoice> choices = tune_choices(rows);
  using Shape = std::tuple<std::uint64_t, int, int>;
  std::vector<Shape> shapes;
  std::vector<std::pair<std::string, std::uint64_t>> columns;  // (direction, bytes)
  for (const TuneRow& row : rows) {
    const Shape shape{row.chunk_bytes, row.depth, row.threads};
    if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
    const auto column = std::make_pair(row.direction, row.bytes);
    if (std::find(columns.begin(), columns.end(), column) == columns.end()) {
      columns.push_back(column);
    }
  }
  std::sort(shapes.begin(), shapes.end());
  std::stable_sort(columns.begin(), columns.end(), [](const auto& x, const auto& y) {
    const int dx = x.first == "h2d" ? 0 : 1, dy = y.first == "h2d" ? 0 : 1;
    return std::tie(dx, x.second) < std::tie(dy, y.second);
  });
  const auto rate_at = [&](const Shape& s, const std::pair<std::string, std::uint64_t>& col) {
    for (const TuneRow& row : rows) {
      if (row.direction == col.first && row.bytes == col.second &&
          Shape{row.chunk_bytes, row.depth, row.threads} == s) {
        return row.gb_per_s;
      }
    }
    return std::optional<double>();
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

  ChartSpec heat;
  heat.kind = ChartKind::kHeatmap;
  heat.id = "tune-heatmap";
  heat.title = "Every ring shape at every size: GB/s, shaded by its share of the best shape";
  heat.value_suffix = " GB/s";
  heat.decimals = 1;
  heat.wide = true;
  heat.shade_title = "share of the best shape at that size and direction";
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
  heat.caption =
      "Rows: staging buffer size x buffers, host copy threads. Outlined cells and ★: the shape "
      "chosen per direction, the one whose lowest share of the best rate over every size is "
      "highest (never far from the best, rather than best at one size).";
  if (!heat.cells.empty()) m.charts.push_back(std::move(heat));

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
      for (std::size_t j : cols) cells.push_back(num(rate_at(s, columns[j])));
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

// --- pipeline ---------------------------------------------------------------------------------

void build_pipeline(const RunRecord& r, ReportModel& m) {
  const PipelineAnalysis a = analyse_pipeline(r);
  ReportTable t;
  t.id = "pipeline";
  t.title = "Copy in, compute, copy out, by source and stream count";
  t.header = {"source",    "streams",   "chunk",   "ms",         "GB/s each way", "bound ms",
              "copies ms", "kernel ms", "host ms", "efficiency", "vs pinned"};
  t.numeric = {false, true, true, true, true, true, true, true, true, true, true};
  ChartSpec rate, efficiency;
  rate.kind = ChartKind::kBars;
  rate.id = "pipeline-rate";
  rate.title = "GB/s each way, by source and stream count";
  rate.axis_title = "array bytes / time, each direction (GB/s = 10^9 bytes/s)";
  rate.value_suffix = " GB/s";
  efficiency.kind = ChartKind::kShares;
  efficiency.id = "pipeline-efficiency";
  efficiency.title = "Efficiency: the bound over the measured time";
  efficiency.axis_title = "bound ms / measured ms (%)";
  for (const PipelineRow& row : a.rows) {
    t.rows.push_back({row.source, std::to_string(row.streams), exact_size(row.chunk_bytes),
                      num(row.ms, "{:.3f}"), num(row.gb_per_s_each_way),
                      num(row.bound_ms, "{:.3f}"), num(row.copy_bound_ms, "{:.3f}"),
                      num(row.kernel_ms, "{:.3f}"), num(row.host_bound_ms, "{:.3f}"),
                      row.efficiency ? fmt::format("{:.1f}%", 100 * *row.efficiency) : kDash,
                      num(row.over_pinned, "{:.3f}")});
    const std::string label =
        fmt::format("{}, {} stream{}", row.source, row.streams, row.streams == 1 ? "" : "s");
    const std::string& key = row.source;
    rate.bars.push_back(
        {label, key, row.gb_per_s_each_way, fmt::format("{} chunks", exact_size(row.chunk_bytes))});
    efficiency.bars.push_back(
        {label, key, row.efficiency,
         row.bound_ms && row.ms
             ? fmt::format("bound {:.3f} ms of {:.3f} ms measured", *row.bound_ms, *row.ms)
             : std::string()});
  }
  t.notes.push_back(
      "The bound is the slower of: the array's bytes copied both ways at once from page-locked "
      "memory in the same chunks, and the kernel alone over the array; through the staged "
      "engine also its host side filling and draining the array at once beside as many DMA "
      "bytes each way (host ms); efficiency = bound / measured time; vs pinned = the staged "
      "source's rate over the page-locked source's. The staged source is pageable memory "
      "through the staged engine.");
  m.tables.push_back(std::move(t));
  rate.caption =
      "The whole array in and out through the device window: how fast each source streams, "
      "with one stream and with more.";
  efficiency.caption =
      "How close each run came to its bound; the goal with two streams is 95% or better from "
      "page-locked memory, 90% of its own bound through the staged engine.";
  efficiency.rules = {{0.95, "95% goal (pinned)"}, {0.90, "90% goal (staged)"}};
  if (!rate.bars.empty()) m.charts.push_back(std::move(rate));
  if (!efficiency.bars.empty()) m.charts.push_back(std::move(efficiency));
  if (!a.goals.empty()) {
    VerdictGroup g = goal_group("goals", "Goals (findings, not checks)");
    int n = 0;
    for (const PipelineGoal& goal : a.goals) {
      g.items.push_back(goal_item(++n, goal.text, goal.verdict, goal.evidence));
    }
    m.verdicts.push_back(std::move(g));
  }
}

// --- check, host, fleet -----------------------------------------------------------------------

std::string rate_cell(const std::optional<double>& v) {
  return num(v);
}

std::string link_cell(const GpuInfo& g) {
  const PcieLink& l = g.loaded_read ? g.pcie_loaded : g.pcie;
  if (l.current_gen <= 0) return "unknown";
  return fmt::format("gen {} x{} / gen {} x{}{}", l.current_gen, l.current_width, g.pcie.max_gen,
                     g.pcie.max_width, g.loaded_read ? "" : " (idle)");
}

ChartSpec gpu_rate_chart(const std::string& id, const std::string& title,
                         const std::vector<std::pair<std::string, const GpuCheck*>>& gpus) {
  ChartSpec chart;
  chart.kind = ChartKind::kBars;
  chart.id = id;
  chart.title = title;
  chart.axis_title = "median rate (GB/s = 10^9 bytes/s)";
  chart.value_suffix = " GB/s";
  for (const auto& [label, g] : gpus) {
    chart.bars.push_back({label + " pinned h2d", "pinned", g->pinned_h2d, g->gpu.uuid});
    chart.bars.push_back({label + " pinned d2h", "pinned", g->pinned_d2h, g->gpu.uuid});
    chart.bars.push_back({label + " pageable h2d", "pageable", g->pageable_h2d, g->gpu.uuid});
    chart.bars.push_back({label + " pageable d2h", "pageable", g->pageable_d2h, g->gpu.uuid});
  }
  chart.caption = "Each GPU's median rates from its check; a missing bar is a failed gate.";
  return chart;
}

ReportTable check_items_table(const std::string& id, const std::string& title,
                              const std::vector<std::pair<std::string, const GpuCheck*>>& gpus) {
  ReportTable t;
  t.id = id;
  t.title = title;
  t.header = {"GPU", "check", "value", "limit", "result"};
  t.numeric = {false, false, true, false, false};
  for (const auto& [label, g] : gpus) {
    for (const CheckItem& i : g->items) {
      t.rows.push_back({label, i.check, i.value_text, i.limit_text,
                        !i.judged ? "not judged" : (i.passed ? "pass" : "FAIL")});
    }
  }
  return t;
}

void build_check(const RunRecord& r, ReportModel& m) {
  const CheckAnalysis a = analyse_check(r);
  m.title = fmt::format("pinbench check: {} GPU{} of host {}", a.gpus.size(),
                        a.gpus.size() == 1 ? "" : "s", a.hostname.empty() ? "?" : a.hostname);
  ReportTable t;
  t.id = "check-gpus";
  t.title =
      "Every GPU (pinned and pageable: median GB/s of 64 MiB copies; round trip: 4 KiB "
      "pinned there and back, µs)";
  t.header = {
      "GPU",        "name",       "UUID",         "bus",          "NUMA",   "link (loaded / max)",
      "pinned h2d", "pinned d2h", "pageable h2d", "pageable d2h", "rt p50", "rt p99",
      "verdict"};
  t.numeric = {true, false, false, false, true, false, true, true, true, true, true, true, false};
  std::vector<std::pair<std::string, const GpuCheck*>> labelled;
  for (const GpuCheck& g : a.gpus) {
    t.rows.push_back({std::to_string(g.gpu.index), g.gpu.name, g.gpu.uuid, g.gpu.pci_bus_id,
                      g.gpu.numa_node >= 0 ? std::to_string(g.gpu.numa_node) : "?",
                      link_cell(g.gpu), rate_cell(g.pinned_h2d), rate_cell(g.pinned_d2h),
                      rate_cell(g.pageable_h2d), rate_cell(g.pageable_d2h),
                      num(g.round_trip_p50_us, "{:.1f}"), num(g.round_trip_p99_us, "{:.1f}"),
                      g.passed() ? "pass" : "FAIL"});
    labelled.emplace_back(fmt::format("GPU {}", g.gpu.index), &g);
  }
  m.tables.push_back(std::move(t));
  m.tables.push_back(check_items_table("check-items", "Every check", labelled));
  if (!labelled.empty())
    m.charts.push_back(gpu_rate_chart("check-rates", "Rates by GPU", labelled));
  m.notes.push_back(
      "Floors (docs/fleet.md): " +
      to_json(a.floors).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  for (const std::string& f : a.failures()) m.check_failures.push_back(f);
  m.checks_passed = fmt::format(
      "All {} gates passed (every sample's bytes arrived exactly) and every judged check of every "
      "GPU passed.",
      r.gates.size());
}

void build_host(const RunRecord& r, ReportModel& m) {
  const HostAnalysis a = analyse_host(r);
  m.title = fmt::format("pinbench host: {} GPU{} of host {}", a.gpus, a.gpus == 1 ? "" : "s",
                        r.machine.hostname.empty() ? "?" : r.machine.hostname);
  m.tables = host_tables(a);
}

void build_fleet(const RunRecord& r, ReportModel& m) {
  std::vector<std::string> sources;
  if (r.config.contains("sources") && r.config["sources"].is_array()) {
    for (const auto& s : r.config["sources"]) sources.push_back(s.get<std::string>());
  }
  while (sources.size() < r.members.size()) {
    sources.push_back(fmt::format("members[{}]", sources.size()));
  }
  const FleetAnalysis a = analyse_fleet(r.members, sources);
  m.title =
      fmt::format("pinbench fleet: {} GPU{} on {} host record{}", a.gpus.size(),
                  a.gpus.size() == 1 ? "" : "s", a.hosts.size(), a.hosts.size() == 1 ? "" : "s");
  m.figures_are = "Figures are each check's medians";
  // The fleet's own machine is only where it was put together; each GPU's is in its row.
  m.machine_line = fmt::format("{} host record{}, put together on host {}", a.hosts.size(),
                               a.hosts.size() == 1 ? "" : "s",
                               r.machine.hostname.empty() ? "?" : r.machine.hostname);
  m.machine = {{"Put together on", r.machine.hostname.empty() ? "?" : r.machine.hostname},
               {"Host records", std::to_string(a.hosts.size())}};
  ReportTable t;
  t.id = "fleet-gpus";
  t.title = "Every GPU (median GB/s; round trip 4 KiB, µs); * marks a flagged GPU";
  t.header = {"host",       "GPU",        "UUID",         "group",        "link (loaded / max)",
              "pinned h2d", "pinned d2h", "pageable h2d", "pageable d2h", "rt p50",
              "flags"};
  t.numeric = {false, true, false, false, false, true, true, true, true, true, true};
  for (const FleetGpu& g : a.gpus) {
    const GpuCheck& c = g.check;
    t.rows.push_back({g.host, std::to_string(c.gpu.index) + (g.flags.empty() ? "" : " *"),
                      c.gpu.uuid, g.group, link_cell(c.gpu), rate_cell(c.pinned_h2d),
                      rate_cell(c.pinned_d2h), rate_cell(c.pageable_h2d), rate_cell(c.pageable_d2h),
                      num(c.round_trip_p50_us, "{:.1f}"), std::to_string(g.flags.size())});
  }
  t.notes.push_back(
      "Outliers: below the median of the same GPU model and link by more than max(3 scaled MADs, "
      "10%) on a rate, above it by more than max(3 scaled MADs, 25%) on the round trip; groups of "
      "fewer than 3 are not judged (docs/fleet.md).");
  for (const std::string& n : a.notes) t.notes.push_back(n);
  m.tables.push_back(std::move(t));
  if (!a.duplicates.empty()) {
    ReportTable d;
    d.id = "fleet-duplicates";
    d.title = "Duplicates (same host and GPU UUID)";
    d.header = {"duplicate"};
    d.numeric = {false};
    for (const std::string& s : a.duplicates) d.rows.push_back({s});
    m.tables.push_back(std::move(d));
  }
  ReportTable h;
  h.id = "fleet-hosts";
  h.title = "Host records";
  h.header = {"host", "record", "GPUs"};
  h.numeric = {false, false, false};
  for (const FleetHost& fh : a.hosts) {
    std::size_t n = 0;
    for (const FleetGpu& g : a.gpus) n += g.host == fh.host ? 1 : 0;
    h.rows.push_back(
        {fh.host, fh.source, fh.no_gpu.empty() ? std::to_string(n) : "none: " + fh.no_gpu});
  }
  m.tables.push_back(std::move(h));
  std::vector<std::pair<std::string, const GpuCheck*>> labelled;
  for (const FleetGpu& g : a.gpus) {
    labelled.emplace_back(fmt::format("{} GPU {}", g.host, g.check.gpu.index), &g.check);
  }
  if (!labelled.empty())
    m.charts.push_back(gpu_rate_chart("fleet-rates", "Rates by GPU", labelled));
  m.check_failures = a.flagged();
  m.checks_passed = fmt::format("Nothing flagged: {} GPU{}, every check passed, no outlier.",
                                a.gpus.size(), a.gpus.size() == 1 ? "" : "s");
}

}  // namespace

std::string incomplete_note(const RunRecord& r) {
  if (!r.incomplete) return "";
  return fmt::format(
      "INCOMPLETE: {} stopped this run after {} case{}; the record holds every case measured "
      "before it, and nothing after.",
      r.interrupted_by, r.cases.size(), r.cases.size() == 1 ? "" : "s");
}

ReportModel analyse(const RunRecord& r) {
  ReportModel m;
  add_common(r, m);
  if (r.experiment == "lesson") {
    build_lesson(r, m);
  } else if (r.experiment == "sweep") {
    build_sweep(r, m);
  } else if (r.experiment == "bandwidthtest") {
    build_bandwidthtest(r, m);
  } else if (r.experiment == "race") {
    build_race(r, m);
  } else if (r.experiment == "staged") {
    build_staged(r, m);
  } else if (r.experiment == "staged-tune") {
    build_staged_tune(r, m);
  } else if (r.experiment == "pipeline") {
    build_pipeline(r, m);
  } else if (r.experiment == "doctor") {
    build_doctor_model(r, m);
  } else if (r.experiment == "check") {
    build_check(r, m);
  } else if (r.experiment == "host") {
    build_host(r, m);
  } else if (r.experiment == "fleet") {
    build_fleet(r, m);
  } else {
    m.tables = report_tables(r, nullptr);
    m.charts = rate_charts(r, true);
  }
  if (m.checks_passed.empty()) m.checks_passed = passed_sentence(r, gates_meaning(r.experiment));
  if (m.published) {
    m.checks_passed =
        "Figures copied from published tables: pinbench did not verify their bytes or buffers.";
  }
  return m;
}

ReportTable case_table(const ReportModel& m) {
  ReportTable t;
  t.id = "every-case";
  t.title = fmt::format("Every case ({})", m.cases.size());
  t.header = {"part",      "method", "direction",   "memory", "size", "samples",
              "median ms", "min ms", "max ms",      "GB/s",   "stop", "spread",
              "stability", "gate",   "gate passed", "extra"};
  t.numeric = {false, false, false, false, true,  true,  true,  true,
               true,  true,  false, true,  false, false, false, false};
  for (const CaseLine& line : m.cases) {
    const Case& c = *line.source;
    const CaseFigures f = figures_of(c);
    const auto pick = [&](double Summary::*field) {
      return f.samples ? fmt::format("{:.3f}", (*f.samples).*field) : kDash;
    };
    std::string stability = to_string(line.stability.stability);
    if (line.stability.unstable()) stability = "UNSTABLE: " + stability;
    if (!f.samples) stability = kDash;
    t.rows.push_back(
        {c.part, c.method, c.direction, c.memory, format_size(c.bytes),
         std::to_string(c.samples_ms.size()), pick(&Summary::median), pick(&Summary::min),
         pick(&Summary::max), num(f.gb_per_s), line.stop,
         line.spread ? fmt::format("{:.2f}%", 100 * *line.spread) : kDash, stability, c.gate,
         c.verified ? "yes" : "no",
         c.extra.empty() ? std::string()
                         : c.extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
  }
  t.notes.push_back(
      "Figures are over the timed samples of cases whose gate passed; a dash marks a case whose "
      "gate failed or that has no samples. Stop: why sampling stopped ('not recorded' in records "
      "made before pinbench wrote it). Spread: standard deviation / mean of the times. An "
      "unstable case (bimodal or drifting samples, each listed apart with its numbers) has a "
      "median "
      "that describes neither state.");
  return t;
}

}  // namespace pinbench
