// Small SVG chart writers for the HTML report: a line chart of a figure against transfer size
// (log2 x axis labelled in B/KiB/MiB/GiB, linear y axis from zero), a horizontal bar chart of
// shares in percent, a heatmap, points of one figure against another, and the pieces they share
// (escaping, axes, legends, colours). The output is inline SVG with no scripts and no external
// references, deterministic to the byte so reports can be compared against whole expected files.
// Each point and bar carries a <title>, which browsers show on hover, with its exact figure.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pinbench {

// Escapes &, <, >, " and ' for HTML and SVG text and attribute values.
std::string xml_escape(std::string_view text);

// A memory kind's colour, the same in every chart (pageable, pinned, registered,
// write-combined, mapped, device); other kinds take palette colours from `fallback_index`.
std::string kind_colour(const std::string& kind, std::size_t fallback_index);
// Colours for series with no fixed meaning, chosen to stay distinct for colour-blind readers.
std::string palette_colour(std::size_t index);

struct LegendEntry {
  std::string label;
  std::string colour;
  int marker = -1;  // a line with this marker (see marker_svg), or a filled swatch when < 0
};

// A point marker centred on (x, y): circle, square, diamond, triangle, inverted triangle, cross,
// hexagon, by `shape` modulo seven.
// Shapes as well as colours tell series apart where their lines lie on top of each other.
std::string marker_svg(int shape, double x, double y, const std::string& colour,
                       const std::string& extra_attributes, const std::string& content);

struct ChartRule {  // a dashed reference line at a value, with a label
  double value = 0;
  std::string label;
};

struct ChartSeries {
  std::string label;
  std::string colour;
  // (bytes, value), ascending in bytes; a missing value is a gap in the line and no point.
  std::vector<std::pair<double, std::optional<double>>> points;
  bool dashed = false;  // where colours and markers run out
};

// What every chart says around its marks: its title, and how a value is written (tooltips,
// labels): `decimals` places, then `value_suffix`, e.g. " GB/s" or "x".
struct ChartText {
  std::string title;
  std::string value_suffix;
  int decimals = 2;
};

struct SizeChart : ChartText {
  std::string y_title;  // with its unit, e.g. "median rate (GB/s)"
  std::vector<ChartSeries> series;
  std::vector<ChartRule> rules;
  // The y axis reaches at least this far, so charts meant to be read side by side share a scale.
  double y_at_least = 0;
};

std::string render_size_chart(const SizeChart& chart);

struct ShareBar {
  std::string label;
  std::optional<double> share;  // 0..1; absent: no figure (shown as such)
  std::string colour;
  std::string detail;  // for the tooltip, e.g. "call 9.296 ms of 9.318 ms"
};

struct ShareChart : ChartText {
  std::string x_title;
  std::vector<LegendEntry> legend;
  std::vector<ShareBar> bars;
  std::vector<ChartRule> rules;  // value as a share, 0..1
  // Off: `share` holds a plain value (e.g. GB/s) on an axis from zero to a round number, shown
  // with `decimals` and `value_suffix`.
  bool percent = true;
};

std::string render_share_chart(const ShareChart& chart);

// A grid of figures, rows by columns, each cell shaded by its `shade` (0..1) so the eye finds
// the high and low regions at once; a marked cell gets a heavy outline.
struct HeatmapChart : ChartText {
  std::string shade_title;
  std::vector<std::string> row_labels, column_labels;
  std::vector<std::pair<std::string, std::size_t>> column_groups;  // heading, columns spanned
  struct Cell {
    std::optional<double> value;
    double shade = 0;
    bool marked = false;
    std::string label;  // shown before the value; the cells widen to hold it
  };
  std::vector<std::vector<Cell>> cells;
};

std::string render_heatmap(const HeatmapChart& chart);

// One figure against another, one marker per point and no lines (the points of a series are not
// a trend): for example each method's copy rate against the slowdown it caused a kernel beside
// it. Linear axes, y from zero, x from the smaller of zero and the least x.
struct ScatterPoint {
  double x = 0;
  double y = 0;
  std::string label;  // for the tooltip, e.g. "4 KiB x 64"
};

struct ScatterSeries {
  std::string label;
  std::string colour;
  std::vector<ScatterPoint> points;
};

struct ScatterChart : ChartText {
  std::string x_title, y_title;  // with their units
  std::string x_suffix;          // after an x value in tooltips, e.g. "%"
  std::vector<ScatterSeries> series;
};

std::string render_scatter_chart(const ScatterChart& chart);

// The colour of a series or bar keyed by a memory kind or a direction (h2d, d2h), the same in
// every chart; other keys take palette colours from `fallback_index`.
std::string key_colour(const std::string& key, std::size_t fallback_index);

// Shared by the timeline: a linear axis from zero to a round number past `max_value`.
struct LinearAxis {
  double top = 1;
  double step = 1;
  int decimals = 0;
};
LinearAxis nice_axis(double max_value, int target_ticks = 5);
std::string format_fixed(double value, int decimals);

// Writes legend entries left to right from (x, y), wrapping at `width`; returns the rows used.
int write_legend(std::string& out, const std::vector<LegendEntry>& entries, double x, double y,
                 double width);
// How many rows write_legend would use.
int legend_rows(const std::vector<LegendEntry>& entries, double width);
// Rough width of `text` at `font_px`, enough to lay out labels without a font engine.
double text_width(std::string_view text, double font_px);
// How many characters at `font_px` fit in `room` pixels, as text_width counts them.
std::size_t characters_within(double room, double font_px);
// The first `characters` whole UTF-8 characters of `text` (all of it when it has no more). One
// pass, so a cut label costs the length of the label, not its square: a host name of 10 MB still
// renders at once.
std::string_view first_characters(std::string_view text, std::size_t characters);
// `text` when it fits `room` at `font_px`, else as many whole characters as fit (never fewer than
// `at_least`) and "…".
std::string fit_text(std::string_view text, double font_px, double room, std::size_t at_least = 4);

}  // namespace pinbench
