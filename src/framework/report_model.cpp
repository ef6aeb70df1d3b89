// The model's common part (machine, notes, cases and their sampling, gates) and the pieces that
// experiments build their sections from; each experiment's section is its own (its report.cpp,
// asked for by framework/by_experiment.cpp), and only arranges what its analysis already decided,
// so a printer can never disagree with the terminal text of the same record.
#include "framework/report_model.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "framework/case_figures.hpp"
#include "framework/sampling.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

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
  // A run that measured nothing (doctor or accel without a GPU to calibrate on) says that.
  if (r.gates.empty()) return r.cases.empty() ? kNothingMeasured : kNoGates;
  return fmt::format("All {} gates passed: {}", r.gates.size(), meaning);
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
  // The command's own name, as every layout says it ("pinbench blocks on ...", not "pinbench
  // report: blocks"), whichever printer or command shows it.
  m.title = fmt::format("pinbench {} on {}", r.experiment,
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

}  // namespace

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

void add_chart(ReportModel& model, ChartSpec chart, std::string caption) {
  const bool points = std::any_of(chart.series.begin(), chart.series.end(), [](const auto& s) {
    return std::any_of(s.points.begin(), s.points.end(),
                       [](const auto& p) { return p.second.has_value(); });
  });
  const bool scattered = std::any_of(chart.points.begin(), chart.points.end(),
                                     [](const auto& s) { return !s.points.empty(); });
  if (!points && !scattered && chart.bars.empty() && chart.cells.empty()) return;
  if (!caption.empty()) chart.caption = std::move(caption);
  model.charts.push_back(std::move(chart));
}

ChartSpec make_chart(ChartKind kind, std::string id, std::string title) {
  ChartSpec chart;
  chart.kind = kind;
  chart.id = std::move(id);
  chart.title = std::move(title);
  return chart;
}

ChartSpec rate_heatmap(std::string id, std::string title, std::string shade_title) {
  ChartSpec chart = make_chart(ChartKind::kHeatmap, std::move(id), std::move(title));
  chart.value_suffix = " GB/s";
  chart.decimals = 1;
  chart.wide = true;
  chart.shade_title = std::move(shade_title);
  return chart;
}

ChartSpec rate_bar_chart(const std::string& id, const std::string& title) {
  ChartSpec chart = make_chart(ChartKind::kBars, id, title);
  chart.axis_title = "median rate (GB/s = 10^9 bytes/s)";
  chart.value_suffix = " GB/s";
  return chart;
}

VerdictGroup goal_group(const std::string& id, const std::string& title) {
  VerdictGroup g;
  g.id = id;
  g.title = title;
  g.note =
      "What the engine aims for, judged on this record: findings, not checks. Each goal holds "
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

std::string figure_cell(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : kDash;
}

std::string ratio_cell(const std::optional<double>& v) {
  return figure_cell(v, "{:.3f}");
}

int exit_code(const ReportModel& m) {
  return m.check_failures.empty() ? 0 : 1;
}

std::string incomplete_note(const RunRecord& r) {
  if (!r.incomplete) return "";
  return fmt::format(
      "INCOMPLETE: {} stopped this run after {} case{}; the record holds every case measured "
      "before it, and nothing after.",
      r.interrupted_by, r.cases.size(), r.cases.size() == 1 ? "" : "s");
}

ReportModel common_model(const RunRecord& r) {
  ReportModel m;
  add_common(r, m);
  return m;
}

void settle_checks(const RunRecord& r, const std::string& gates_meaning, ReportModel& m) {
  // An experiment with checks of its own (fleet, check) said what passing them means.
  m.nothing_checked = m.checks_passed.empty() && r.gates.empty();
  if (m.checks_passed.empty()) m.checks_passed = passed_sentence(r, gates_meaning);
  if (m.published) {
    m.checks_passed =
        "Figures copied from published tables: pinbench did not verify their bytes or buffers.";
  }
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
         pick(&Summary::max), figure_cell(f.gb_per_s), line.stop,
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
