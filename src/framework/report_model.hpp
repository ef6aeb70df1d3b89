// One analysis of any run record, as data every printer renders: text, markdown, HTML and CSV
// all draw their tables, verdicts, charts and flags from the ReportModel that `analyse` builds,
// as nvbench's printers share one state. So a verdict, a stop reason or an unstable case that
// reaches one format reaches every format, and a rate whose gate failed (case_figures.hpp) is
// absent from all of them at once. No markup here: a chart is its series and what they mean;
// how it looks is the printer's business, but for the colours an experiment fixes for keys of
// its own (its methods: ChartSpec::colours), so each reads the same in all its charts.
#pragma once

#include <any>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/record.hpp"
#include "framework/report_tables.hpp"
#include "framework/stats.hpp"
#include "framework/trace_model.hpp"
#include "framework/verdict.hpp"

namespace pinbench {

// A named set of judged statements: the lesson's predictions, the staged engine's goals, the
// pipeline's goals. Each item is a Prediction whose claims carry the verdicts and evidence; a
// goal is an item with one claim.
struct VerdictGroup {
  Judged judged = Judged::kGoal;  // what its items are: the words of their verdicts
  std::string id;                 // an anchor, e.g. "predictions"
  std::string title;              // e.g. "Goals (findings, not checks)"
  std::string note;               // how to read the verdicts
  std::vector<Prediction> items;
};

enum class ChartKind {
  kSize,     // lines of a value against transfer size, log2 x axis
  kBars,     // horizontal bars of a value, linear axis from zero
  kShares,   // horizontal bars of a share, 0 to 100%
  kHeatmap,  // a grid of values, rows by columns, shaded by `shade`
  kScatter,  // points of a value (y) against a second figure (x), one marker shape per series
};

struct ChartSeriesSpec {
  std::string label;
  std::string key;  // what fixes its colour: a memory kind or a method
  std::vector<std::pair<std::uint64_t, std::optional<double>>> points;  // ascending bytes
};

struct ChartPoint {
  double x = 0;
  double value = 0;
  std::string label;  // for the tooltip
};

struct ChartScatterSeries {
  std::string label;
  std::string key;  // what fixes its colour
  std::vector<ChartPoint> points;
};

struct ChartBar {
  std::string label;
  std::string key;
  std::optional<double> value;  // absent: no figure (gate failed, or no samples)
  std::string detail;           // for the tooltip
};

struct HeatCell {
  std::optional<double> value;  // absent: no figure
  double shade = 0.0;           // 0..1, what the colour shows
  bool marked = false;          // the chosen cell (e.g. the best shape's)
  std::string label;            // shown before the value (e.g. the method that won the cell)
};

struct ChartSpec {
  ChartKind kind = ChartKind::kSize;
  std::string id;
  std::string title;
  std::string caption;
  std::string axis_title;    // the value axis, with its unit
  std::string value_suffix;  // after a value in tooltips and labels, e.g. " GB/s"
  int decimals = 2;
  bool wide = false;                                  // spans the page's width
  std::vector<std::pair<double, std::string>> rules;  // dashed reference lines at values
  double value_at_least = 0;  // the value axis reaches this far, to share a scale on purpose
  std::vector<ChartSeriesSpec> series;  // kSize
  std::vector<ChartBar> bars;           // kBars, kShares
  // kScatter: the x axis's title (with its unit) and what follows an x figure in tooltips.
  std::string x_axis_title, x_suffix;
  std::vector<ChartScatterSeries> points;
  // kHeatmap: rows by columns; column_groups spans columns under a heading (e.g. a direction).
  std::vector<std::string> row_labels, column_labels;
  std::vector<std::pair<std::string, std::size_t>> column_groups;  // heading, columns spanned
  std::vector<std::vector<HeatCell>> cells;
  std::string shade_title;  // what the shading means
  // The colours the experiment fixes for its own keys (a method), by key ("#000000"); any other
  // key takes its memory kind's or direction's colour, else the palette's (render/svg_chart.hpp).
  std::map<std::string, std::string> colours;
};

// A case whose samples do not tell one story (framework/stats.hpp check_stability).
struct CaseFlag {
  std::string label;  // "copy cudaMemcpy h2d pageable 1 MiB"
  Stability stability = Stability::kSteady;
  std::string detail;
};

// One case as every printer lists it, with how it was sampled.
struct CaseLine {
  const Case* source = nullptr;  // into the record the model was built from
  std::string label;
  std::string stop;              // the stop reason, "not recorded", or "published figure"
  std::optional<double> spread;  // relative standard deviation of the times; absent < 2 samples
  StabilityCheck stability;
};

struct ReportModel {
  std::string experiment;
  std::string title;       // "pinbench report: sweep on NVIDIA H200"
  bool published = false;  // figures copied from a document, not measured
  // What a figure is: "Figures are medians of the timed samples", or for a published record
  // "Figures are the published ones, one per case" (it claims no method it did not use).
  std::string figures_are;
  std::string machine_line;
  std::vector<std::pair<std::string, std::string>> machine;
  std::string record_line;
  std::vector<std::string> notes;  // the record's note, the method, units
  std::vector<ReportTable> tables;
  std::vector<VerdictGroup> verdicts;
  std::vector<ChartSpec> charts;
  std::vector<CaseLine> cases;
  std::vector<CaseFlag> flags;  // unstable cases, in record order
  std::vector<std::string> check_failures;
  std::string checks_passed;  // what "every gate passed" means for this experiment
  std::size_t gates_passed = 0, gates = 0;
  // No gates and no check of the experiment's own (a doctor run of a program that copied
  // nothing): nothing passed, so no printer shows a "passed" badge.
  bool nothing_checked = false;
  // The experiment's own analysis (a StagedAnalysis, a LessonAnalysis, ...), which its terminal
  // printer reads instead of analysing the record again: framework/experiment.hpp, section<T>().
  std::any section;
  // The terminal text, as its experiment lays it out (render_text prints it); empty in a model
  // made by hand, which prints as the model itself.
  std::string text;
  // The run's own timeline (doctor's: the program's calls), which the HTML page draws where no
  // trace sits beside the record; none for most records.
  std::optional<Trace> timeline;
};

// "INCOMPLETE: SIGINT stopped this run after 12 cases; ..." for an interrupted record, else "".
std::string incomplete_note(const RunRecord& record);

// A model's common part, before its experiment's section (analyse, framework/by_experiment.hpp):
// the title, machine, notes, cases and their sampling, gates. `record` must outlive the model
// (CaseLine points into it).
ReportModel common_model(const RunRecord& record);

// After its experiment's section: what passing the checks means where the experiment said
// nothing of it (every gate passed, in `gates_meaning`, the experiment's words; no gates; figures
// copied from a publication), and whether nothing was checked at all.
void settle_checks(const RunRecord& record, const std::string& gates_meaning, ReportModel& model);

// The exit status a record's run ends with, computed once for every experiment and every way
// of printing it: 0 when nothing failed (gates, and the experiment's own checks), else 1.
int exit_code(const ReportModel& model);

// --- Pieces that experiments build their sections from ------------------------------------

// What a record with no gates says instead of "All 0 gates passed".
inline const std::string kNoGates = "No gates: the record holds no checked measurement.";
// The same for a record with no case at all: nothing was measured, so nothing was checked.
inline const std::string kNothingMeasured =
    "No gates: nothing was measured here, so nothing was checked.";

// The staged engine's colour in any chart of its copies (ChartSpec::colours): black, so it stands
// out.
inline const std::string kEngineColour = "#000000";

// A figure formatted with `spec`, or the dash.
std::string figure_cell(const std::optional<double>& v, const char* spec = "{:.2f}");
// A ratio of two figures (staged/pinned, together/alone, ...), the same in every column of
// every printer: three decimals and no "x", so 0.946 is not rounded up to a 0.95 goal.
std::string ratio_cell(const std::optional<double>& v);

// What the experiment chose not to measure (config "skipped") as a table, one row per entry
// with the given fields; "bytes" reads as a size.
void add_skipped(const RunRecord& record, ReportModel& model,
                 const std::vector<std::string>& fields);

// Rate-by-size charts, one per (part, method, direction) that has a sweep of sizes. With
// `shared_scale`, every chart reaches the highest rate of all, so they compare at a glance.
std::vector<ChartSpec> rate_charts(const RunRecord& record, bool shared_scale);

// Adds `chart` to the model's charts when it has something to draw (a bar, a heatmap cell, or a
// point with a figure); a `caption` that is not empty becomes its caption.
void add_chart(ReportModel& model, ChartSpec chart, std::string caption = "");

// A chart of `kind` with its anchor and title; the rest is the caller's.
ChartSpec make_chart(ChartKind kind, std::string id, std::string title);

// A heatmap of rates in GB/s, one decimal, the page's full width, its cells shaded by what
// `shade_title` says (a share of the best rate).
ChartSpec rate_heatmap(std::string id, std::string title, std::string shade_title);

// A chart of bars of median rates in GB/s (a host's GPUs alone and together, a check's GPUs):
// kind, id, title, axis and unit set; the bars and the caption are the caller's.
ChartSpec rate_bar_chart(const std::string& id, const std::string& title);

// A group of goals (findings, not checks) and one goal in it, with one claim.
VerdictGroup goal_group(const std::string& id, const std::string& title);
Prediction goal_item(int number, const std::string& statement, Verdict verdict,
                     const std::string& evidence);

// Every case, with its stop reason, spread and stability, as a table.
ReportTable case_table(const ReportModel& model);

}  // namespace pinbench
