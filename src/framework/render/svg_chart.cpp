#include "framework/render/svg_chart.hpp"

#include "framework/printable.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "framework/units.hpp"

namespace pinbench {
namespace {

constexpr double kWidth = 640;
constexpr double kHeight = 380;
constexpr const char* kAxisColour = "#57606a";
constexpr const char* kGridColour = "#e4e8ec";
constexpr const char* kTextColour = "#1f2328";

// Coordinates with one decimal: precise enough on screen, and stable text for golden files.
std::string c(double v) {
  return fmt::format("{:.1f}", v);
}

std::string open_svg(double width, double height, const std::string& label,
                     const std::string& kind) {
  return fmt::format(
      "<svg class=\"chart {}\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"{}\">\n",
      kind, c(width), c(height), c(width), c(height), xml_escape(label));
}

// A title too long for its chart gets a smaller font, then is cut, so it never runs off the edge.
std::string title_text(const std::string& title, double width) {
  const double room = width - 24;
  double font = 15;
  if (text_width(title, font) > room) font = std::max(11.0, font * room / text_width(title, font));
  const std::string shown = fit_text(title, font, room);
  return fmt::format(
      "<text x=\"12\" y=\"24\" font-size=\"{}\" font-weight=\"600\" fill=\"{}\">{}</text>\n",
      c(font), kTextColour, xml_escape(shown));
}

// "1 MiB" for 2^20: the tick labels of a log2 axis of bytes.
std::string bytes_label(int exponent) {
  return format_size(std::uint64_t{1} << exponent);
}

void rule_line(std::string& out, double x1, double y1, double x2, double y2) {
  out += fmt::format(
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.2\" "
      "stroke-dasharray=\"6 4\"/>\n",
      c(x1), c(y1), c(x2), c(y2), kAxisColour);
}

}  // namespace

std::string xml_escape(std::string_view raw) {
  // A control character is no XML character: shown escaped (printable.hpp), as in the terminal.
  const std::string text = printable_text(raw);
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string palette_colour(std::size_t index) {
  // Paul Tol's muted scheme: distinct for the common kinds of colour blindness.
  static const char* const kPalette[] = {"#332288", "#117733", "#882255", "#999933",
                                         "#44AA99", "#AA4499", "#6699CC", "#661100"};
  return kPalette[index % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

std::string kind_colour(const std::string& kind, std::size_t fallback_index) {
  // Okabe-Ito colours, one per memory kind, so a kind reads the same in every chart.
  if (kind == "pageable") return "#D55E00";
  if (kind == "pinned") return "#0072B2";
  if (kind == "registered") return "#009E73";
  if (kind == "write-combined") return "#CC79A7";
  if (kind == "mapped") return "#E69F00";
  if (kind == "device") return "#56B4E9";
  return palette_colour(fallback_index);
}

std::string key_colour(const std::string& key, std::size_t fallback_index) {
  // Memory kinds, then directions; an experiment's own keys (its methods) take the colours it
  // fixed in its chart (ChartSpec::colours) before they get here.
  static const std::map<std::string, std::string> kFixed = {
      {"pageable", "#D55E00"},     {"pinned", "#0072B2"},
      {"registered", "#009E73"},   {"write-combined", "#CC79A7"},
      {"mapped", "#E69F00"},       {"device", "#56B4E9"},
      {"pageable-thp", "#882255"}, {"managed", "#555555"},
      {"h2d", "#332288"},          {"d2h", "#882255"},
  };
  const auto it = kFixed.find(key);
  return it != kFixed.end() ? it->second : palette_colour(fallback_index);
}

namespace {

// A UTF-8 continuation byte: part of the character before it.
bool continues(unsigned char ch) {
  return (ch & 0xC0) == 0x80;
}

double width_of(std::size_t characters, double font_px) {
  return static_cast<double>(characters) * 0.6 * font_px;
}

}  // namespace

double text_width(std::string_view text, double font_px) {
  std::size_t points = 0;
  for (unsigned char ch : text) points += !continues(ch);
  return width_of(points, font_px);
}

std::size_t characters_within(double room, double font_px) {
  if (!(room > 0) || !(font_px > 0)) return 0;
  const double guess = std::floor(room / width_of(1, font_px));
  if (!(guess < 1e15)) return static_cast<std::size_t>(1e15);
  // The same product text_width compares, so a label of exactly that many characters fits.
  auto k = static_cast<std::size_t>(std::max(0.0, guess));
  while (k > 0 && width_of(k, font_px) > room) --k;
  while (width_of(k + 1, font_px) <= room) ++k;
  return k;
}

std::string_view first_characters(std::string_view text, std::size_t characters) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (continues(static_cast<unsigned char>(text[i]))) continue;
    if (seen == characters) return text.substr(0, i);
    ++seen;
  }
  return text;
}

std::string fit_text(std::string_view text, double font_px, double room, std::size_t at_least) {
  const std::string_view kept =
      first_characters(text, std::max(at_least, characters_within(room, font_px)));
  if (kept.size() == text.size()) return std::string(text);
  return std::string(kept) + "…";
}

LinearAxis nice_axis(double max_value, int target_ticks) {
  LinearAxis a;
  if (!(max_value > 0.0) || !std::isfinite(max_value)) return a;
  const double raw = max_value / target_ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    a.step = m * magnitude;
    if (a.step >= raw) break;
  }
  a.top = std::ceil(max_value / a.step - 1e-9) * a.step;
  a.decimals = 0;
  while (a.decimals < 6) {
    const double scaled = a.step * std::pow(10.0, a.decimals);
    if (std::fabs(scaled - std::round(scaled)) < 1e-6) break;
    ++a.decimals;
  }
  return a;
}

std::string format_fixed(double value, int decimals) {
  return fmt::format("{:.{}f}", value, decimals);
}

namespace {

constexpr double kLegendSwatch = 14;
constexpr double kLegendGap = 18;
constexpr double kLegendFont = 12;
constexpr double kLegendRow = 20;

double swatch_width(const LegendEntry& e) {
  return e.marker >= 0 ? 24 : kLegendSwatch;
}

double entry_width(const LegendEntry& e) {
  return swatch_width(e) + 6 + text_width(e.label, kLegendFont) + kLegendGap;
}

}  // namespace

std::string marker_svg(int shape, double x, double y, const std::string& colour,
                       const std::string& attributes, const std::string& content) {
  const std::string paint =
      fmt::format("fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"1.2\"{}", colour, attributes);
  const std::string body = content.empty() ? "/>" : ">" + content;
  switch (shape % 7) {
    case 0:
      return fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" {}{}{}", c(x), c(y), paint, body,
                         content.empty() ? "" : "</circle>");
    case 1:
      return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"7.6\" height=\"7.6\" {}{}{}", c(x - 3.8),
                         c(y - 3.8), paint, body, content.empty() ? "" : "</rect>");
    case 2:
      return fmt::format("<path d=\"M{} {}l5 5l-5 5l-5 -5z\" {}{}{}", c(x), c(y - 5), paint, body,
                         content.empty() ? "" : "</path>");
    case 3:
      return fmt::format("<path d=\"M{} {}l5 8.6h-10z\" {}{}{}", c(x), c(y - 5.2), paint, body,
                         content.empty() ? "" : "</path>");
    case 4:
      return fmt::format("<path d=\"M{} {}l5 -8.6h-10z\" {}{}{}", c(x), c(y + 5.2), paint, body,
                         content.empty() ? "" : "</path>");
    case 5:
      return fmt::format("<path d=\"M{} {}h3v3h3v3h-3v3h-3v-3h-3v-3h3z\" {}{}{}", c(x - 1.5),
                         c(y - 4.5), paint, body, content.empty() ? "" : "</path>");
    default:
      return fmt::format("<path d=\"M{} {}l4.3 2.5v5l-4.3 2.5l-4.3 -2.5v-5z\" {}{}{}", c(x),
                         c(y - 5), paint, body, content.empty() ? "" : "</path>");
  }
}

int legend_rows(const std::vector<LegendEntry>& entries, double width) {
  if (entries.empty()) return 0;
  int rows = 1;
  double used = 0;
  for (const LegendEntry& e : entries) {
    if (used > 0 && used + entry_width(e) > width) {
      ++rows;
      used = 0;
    }
    used += entry_width(e);
  }
  return rows;
}

int write_legend(std::string& out, const std::vector<LegendEntry>& entries, double x, double y,
                 double width) {
  if (entries.empty()) return 0;
  out += "<g class=\"legend\">\n";
  int row = 0;
  double used = 0;
  for (const LegendEntry& e : entries) {
    if (used > 0 && used + entry_width(e) > width) {
      ++row;
      used = 0;
    }
    const double ex = x + used;
    const double ey = y + row * kLegendRow;
    if (e.marker >= 0) {
      out += fmt::format(
          "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" "
          "stroke-width=\"2.2\"/>",
          c(ex), c(ey - 4), c(ex + 24), e.colour);
      out += marker_svg(e.marker, ex + 12, ey - 4, e.colour, "", "");
    } else {
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" fill=\"{}\"/>", c(ex),
          c(ey - kLegendSwatch + 3), c(kLegendSwatch), c(kLegendSwatch - 4), e.colour);
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\">{}</text>\n",
                       c(ex + swatch_width(e) + 6), c(ey), c(kLegendFont), kTextColour,
                       xml_escape(e.label));
    used += entry_width(e);
  }
  out += "</g>\n";
  return row + 1;
}

namespace {

// One legend entry per series, with the marker shape its points are drawn with.
template <typename Series>
std::vector<LegendEntry> marker_legend(const std::vector<Series>& series) {
  std::vector<LegendEntry> legend;
  for (std::size_t i = 0; i < series.size(); ++i) {
    legend.push_back({series[i].label, series[i].colour, static_cast<int>(i)});
  }
  return legend;
}

// The frame an x-y chart draws in: the plot's edges, and a linear y axis from 0 to its top.
struct PlotFrame {
  LinearAxis y_axis;
  double left = 68, right = kWidth - 28, top = 0, bottom = kHeight - 56;
  double py(double y) const { return bottom - y / y_axis.top * (bottom - top); }
};

// Grid lines and labels at `x_ticks` (pixel x, label) and at the y axis's steps, the two axes,
// and their titles.
void write_axes(std::string& out, const PlotFrame& p,
                const std::vector<std::pair<double, std::string>>& x_ticks,
                const std::string& x_title, const std::string& y_title) {
  const double left = p.left, right = p.right, top = p.top, bottom = p.bottom;
  out += "<g class=\"axes\" font-size=\"11\" fill=\"" + std::string(kAxisColour) + "\">\n";
  for (const auto& [x, label] : x_ticks) {
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>"
        "<text x=\"{0}\" y=\"{4}\" text-anchor=\"middle\">{5}</text>\n",
        c(x), c(top), c(bottom + 4), kGridColour, c(bottom + 18), label);
  }
  const int y_ticks = static_cast<int>(std::round(p.y_axis.top / p.y_axis.step));
  for (int i = 0; i <= y_ticks; ++i) {
    const double v = i * p.y_axis.step;
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\"/>"
        "<text x=\"{4}\" y=\"{1}\" dy=\"0.32em\" text-anchor=\"end\">{5}</text>\n",
        c(left - 4), c(p.py(v)), c(right), kGridColour, c(left - 8),
        format_fixed(v, p.y_axis.decimals));
  }
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{4}\"/>"
      "<line x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" stroke=\"{4}\"/>\n",
      c(left), c(top), c(bottom), c(right), kAxisColour);
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"{}\">{}</text>\n",
      c((left + right) / 2), c(kHeight - 14), kTextColour, x_title);
  out += fmt::format(
      "<text transform=\"translate(18 {}) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\" "
      "fill=\"{}\">{}</text>\n",
      c((top + bottom) / 2), kTextColour, xml_escape(y_title));
  out += "</g>\n";
}

// Where a size chart draws: x is log2 of the size over whole powers of two [lo, hi], a tick every
// `step`.
struct SizePlot : PlotFrame {
  int lo = 10, hi = 20, step = 1;
  double px(double x) const { return left + (std::log2(x) - lo) / (hi - lo) * (right - left); }
};

// The x range: whole powers of two around every size, so ticks fall on round sizes; the y range
// up to the highest value, rule or floor; `legend_rows` rows of legend above the plot.
SizePlot size_plot(const SizeChart& chart, int legend_rows) {
  double min_x = 0, max_x = 0, max_y = 0;
  bool any = false;
  for (const ChartSeries& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      if (x <= 0) continue;
      min_x = any ? std::min(min_x, x) : x;
      max_x = any ? std::max(max_x, x) : x;
      any = true;
      if (y) max_y = std::max(max_y, *y);
    }
  }
  for (const ChartRule& r : chart.rules) max_y = std::max(max_y, r.value);
  max_y = std::max(max_y, chart.y_at_least);
  SizePlot p;
  p.lo = any ? static_cast<int>(std::floor(std::log2(min_x))) : 10;
  p.hi = any ? static_cast<int>(std::ceil(std::log2(max_x))) : 20;
  if (p.hi == p.lo) {
    --p.lo;
    ++p.hi;
  }
  while ((p.hi - p.lo) / p.step + 1 > 10) ++p.step;
  p.y_axis = nice_axis(max_y);
  p.top = 62 + kLegendRow * legend_rows;
  return p;
}

// Grid, ticks and the axes' titles.
void write_size_axes(std::string& out, const SizeChart& chart, const SizePlot& p) {
  std::vector<std::pair<double, std::string>> ticks;
  for (int e = p.lo; e <= p.hi; e += p.step) {
    ticks.emplace_back(p.left + static_cast<double>(e - p.lo) / (p.hi - p.lo) * (p.right - p.left),
                       bytes_label(e));
  }
  write_axes(out, p, ticks,
             "transfer size (bytes, log scale; KiB, MiB, GiB = 2^10, 2^20, 2^30 bytes)",
             chart.y_title);
}

// Rule labels sit above their line; when two rules are too close for that, the lower one's
// label goes below its line instead.
void write_size_rules(std::string& out, const SizeChart& chart, const SizePlot& p) {
  std::vector<ChartRule> rules = chart.rules;
  std::sort(rules.begin(), rules.end(),
            [](const ChartRule& x, const ChartRule& y) { return x.value < y.value; });
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const double y = p.py(rules[i].value);
    const bool crowded = i + 1 < rules.size() && y - p.py(rules[i + 1].value) < 16;
    rule_line(out, p.left, y, p.right, y);
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\" fill=\"{}\">{}</text>\n",
        c(p.right - 4), c(crowded ? y + 14 : y - 5), kAxisColour, xml_escape(rules[i].label));
  }
}

// Series `index`: its line, broken where a value is missing, and a marker at each point.
void write_size_series(std::string& out, const SizeChart& chart, std::size_t index,
                       const SizePlot& p) {
  const ChartSeries& s = chart.series[index];
  // Series that coincide (every page-locked kind reaches the same link rate) would hide each
  // other; each is set a few pixels apart along x, far less than one size step, so every
  // marker shows.
  const double dodge =
      (static_cast<double>(index) - (static_cast<double>(chart.series.size()) - 1) / 2) * 4.0;
  out += fmt::format("<g class=\"series\" data-series=\"{}\">\n", xml_escape(s.label));
  // A missing value breaks the line: a failed gate must not look like a measured trend.
  std::vector<std::string> segments;
  std::string segment;
  int in_segment = 0;
  for (const auto& [x, y] : s.points) {
    if (!y || x <= 0) {
      if (in_segment > 1) segments.push_back(segment);
      segment.clear();
      in_segment = 0;
      continue;
    }
    segment += (in_segment > 0 ? " " : "") + c(p.px(x) + dodge) + "," + c(p.py(*y));
    ++in_segment;
  }
  if (in_segment > 1) segments.push_back(segment);
  for (const std::string& points : segments) {
    out += fmt::format(
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2.2\" stroke-linejoin=\"round\"{} "
        "points=\"{}\"/>\n",
        s.colour, s.dashed ? " stroke-dasharray=\"7 4\"" : "", points);
  }
  for (const auto& [x, y] : s.points) {
    if (!y || x <= 0) continue;
    out +=
        marker_svg(static_cast<int>(index), p.px(x) + dodge, p.py(*y), s.colour, " class=\"point\"",
                   fmt::format("<title>{}, {}: {}{}</title>", xml_escape(s.label),
                               format_size(static_cast<std::uint64_t>(x)),
                               format_fixed(*y, chart.decimals), xml_escape(chart.value_suffix)));
    out += "\n";
  }
  out += "</g>\n";
}

}  // namespace

std::string render_size_chart(const SizeChart& chart) {
  const std::vector<LegendEntry> legend = marker_legend(chart.series);
  const double right = SizePlot().right;
  const SizePlot plot = size_plot(chart, legend_rows(legend, right - 12));

  std::string out = open_svg(kWidth, kHeight, chart.title, "size-chart");
  out += title_text(chart.title, kWidth);
  write_legend(out, legend, 12, 50, right - 12);
  write_size_axes(out, chart, plot);
  write_size_rules(out, chart, plot);
  for (std::size_t index = 0; index < chart.series.size(); ++index) {
    write_size_series(out, chart, index, plot);
  }
  return out + "</svg>\n";
}

std::string render_scatter_chart(const ScatterChart& chart) {
  double min_x = 0, max_x = 0, max_y = 0;
  for (const ScatterSeries& s : chart.series) {
    for (const ScatterPoint& p : s.points) {
      min_x = std::min(min_x, p.x);
      max_x = std::max(max_x, p.x);
      max_y = std::max(max_y, p.y);
    }
  }
  // The x axis: whole steps from at most zero past the largest x (a slowdown may be slightly
  // negative from noise, and the axis shows it rather than clipping it).
  const LinearAxis x_axis = nice_axis(std::max(max_x - min_x, 1e-9));
  const double x_lo = std::floor(min_x / x_axis.step) * x_axis.step;
  double x_hi = std::ceil(max_x / x_axis.step) * x_axis.step;
  if (x_hi <= x_lo) x_hi = x_lo + x_axis.step;

  const std::vector<LegendEntry> legend = marker_legend(chart.series);
  PlotFrame p;
  p.y_axis = nice_axis(max_y);
  p.top = 62 + kLegendRow * legend_rows(legend, p.right - 12);
  const auto px = [&](double x) {
    return p.left + (x - x_lo) / (x_hi - x_lo) * (p.right - p.left);
  };
  std::vector<std::pair<double, std::string>> ticks;
  const int x_ticks = static_cast<int>(std::round((x_hi - x_lo) / x_axis.step));
  for (int i = 0; i <= x_ticks; ++i) {
    const double v = x_lo + i * x_axis.step;
    ticks.emplace_back(px(v), format_fixed(v, x_axis.decimals));
  }

  std::string out = open_svg(kWidth, kHeight, chart.title, "scatter-chart");
  out += title_text(chart.title, kWidth);
  write_legend(out, legend, 12, 50, p.right - 12);
  write_axes(out, p, ticks, xml_escape(chart.x_title), chart.y_title);
  for (std::size_t index = 0; index < chart.series.size(); ++index) {
    const ScatterSeries& s = chart.series[index];
    out += fmt::format("<g class=\"series\" data-series=\"{}\">\n", xml_escape(s.label));
    for (const ScatterPoint& pt : s.points) {
      out += marker_svg(static_cast<int>(index), px(pt.x), p.py(pt.y), s.colour, " class=\"point\"",
                        fmt::format("<title>{}, {}: {}{}, {}{}</title>", xml_escape(s.label),
                                    xml_escape(pt.label), format_fixed(pt.y, chart.decimals),
                                    xml_escape(chart.value_suffix), format_fixed(pt.x, 1),
                                    xml_escape(chart.x_suffix)));
      out += "\n";
    }
    out += "</g>\n";
  }
  return out + "</svg>\n";
}

std::string render_share_chart(const ShareChart& chart) {
  // Bar labels get the room the longest one needs, within reason; a longer one is cut.
  double label_px = 120;
  for (const ShareBar& b : chart.bars) label_px = std::max(label_px, text_width(b.label, 12));
  label_px = std::min(label_px, 330.0);
  const double left = 12 + label_px + 12, right = kWidth - 28;
  const int rows = legend_rows(chart.legend, right - 12);
  const double top = 62 + kLegendRow * rows + 16;  // room for the rules' labels
  const double row_height = 36;
  const double bottom = top + row_height * static_cast<double>(chart.bars.size());
  const double height = bottom + 52;
  double max_value = 0;
  for (const ShareBar& b : chart.bars) {
    if (b.share) max_value = std::max(max_value, *b.share);
  }
  for (const ChartRule& r : chart.rules) max_value = std::max(max_value, r.value);
  const LinearAxis axis = chart.percent ? LinearAxis{1.0, 0.2, 0} : nice_axis(max_value);
  const auto px = [&](double v) { return left + v / axis.top * (right - left); };
  const auto value_text = [&](double v) {
    return chart.percent ? fmt::format("{:.1f}%", 100.0 * v)
                         : format_fixed(v, chart.decimals) + chart.value_suffix;
  };

  std::string out = open_svg(kWidth, height, chart.title, "share-chart");
  out += title_text(chart.title, kWidth);
  write_legend(out, chart.legend, 12, 50, right - 12);

  out += "<g class=\"axes\" font-size=\"11\" fill=\"" + std::string(kAxisColour) + "\">\n";
  const int ticks = static_cast<int>(std::round(axis.top / axis.step));
  for (int i = 0; i <= ticks; ++i) {
    const double v = i * axis.step;
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>"
        "<text x=\"{0}\" y=\"{4}\" text-anchor=\"middle\">{5}</text>\n",
        c(px(v)), c(top), c(bottom + 4), kGridColour, c(bottom + 18),
        chart.percent ? fmt::format("{}%", static_cast<int>(std::round(100 * v)))
                      : format_fixed(v, axis.decimals));
  }
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>\n",
                     c(left), c(top), c(bottom), kAxisColour);
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"{}\">{}</text>\n",
      c((left + right) / 2), c(height - 14), kTextColour, xml_escape(chart.x_title));
  out += "</g>\n";

  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const ShareBar& b = chart.bars[i];
    const double y = top + row_height * static_cast<double>(i);
    const double mid = y + row_height / 2;
    const std::string label = fit_text(b.label, 12, label_px);
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" dy=\"0.32em\" font-size=\"12\" text-anchor=\"end\" "
        "fill=\"{}\">{}<title>{}</title></text>\n",
        c(left - 10), c(mid), kTextColour, xml_escape(label), xml_escape(b.label));
    if (!b.share) {
      out += fmt::format(
          "<text x=\"{}\" y=\"{}\" dy=\"0.32em\" font-size=\"12\" fill=\"{}\">— no figure (gate "
          "failed or case missing)</text>\n",
          c(left + 8), c(mid), kAxisColour);
      continue;
    }
    const double v = std::clamp(*b.share, 0.0, axis.top);
    const double w = std::max(1.5, px(v) - left);
    const std::string value = value_text(*b.share);
    // The figure sits inside a long bar and just past a short one, so it is always readable.
    const bool inside = w > text_width(value, 12) + 16;
    out += fmt::format(
        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"2\" "
        "fill=\"{}\"><title>{}: {}{}</title></rect>\n",
        c(left), c(mid - 11), c(w), c(22), b.colour, xml_escape(b.label), xml_escape(value),
        b.detail.empty() ? std::string() : " (" + xml_escape(b.detail) + ")");
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" dy=\"0.32em\" font-size=\"12\" font-weight=\"600\" "
        "text-anchor=\"{}\" fill=\"{}\">{}</text>\n",
        c(inside ? left + w - 8 : left + w + 6), c(mid), inside ? "end" : "start",
        inside ? "#ffffff" : kTextColour, xml_escape(value));
  }

  for (const ChartRule& r : chart.rules) {
    const double x = px(r.value);
    rule_line(out, x, top - 6, x, bottom);
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\" fill=\"{}\">{}</text>\n",
        c(x), c(top - 10), kAxisColour, xml_escape(r.label));
  }
  return out + "</svg>\n";
}

std::string render_heatmap(const HeatmapChart& chart) {
  using Cell = HeatmapChart::Cell;
  constexpr double kCellH = 26;
  const auto cell_text = [&](const Cell& cell) {
    const std::string value = format_fixed(*cell.value, chart.decimals);
    return cell.label.empty() ? value : cell.label + " " + value;
  };
  double cell_w = 76;
  bool any_marked = false;
  for (const auto& row : chart.cells) {
    for (const Cell& cell : row) {
      if (cell.value) cell_w = std::max(cell_w, text_width(cell_text(cell), 11) + 14);
      any_marked = any_marked || cell.marked;
    }
  }
  const std::string outline = any_marked ? " Orange outline: the chosen shape." : "";
  double label_px = 80;
  for (const std::string& l : chart.row_labels) label_px = std::max(label_px, text_width(l, 12));
  const double left = 12 + label_px + 12;
  const std::size_t n_cols = chart.column_labels.size();
  const double grid_top = 84;
  const std::string footnote =
      fmt::format("Shading: {} (pale: {:.1f}%, deep: 100%).{}", chart.shade_title, 0.0, outline);
  const double width = std::max({640.0, left + cell_w * static_cast<double>(n_cols) + 28,
                                 text_width(chart.title, 15) + 24, text_width(footnote, 12) + 24});
  const double bottom = grid_top + kCellH * static_cast<double>(chart.cells.size());
  const double height = bottom + 58;
  // The shading spans the shares actually present, so near-identical shapes still differ.
  double lo = 1.0;
  for (const auto& row : chart.cells) {
    for (const Cell& cell : row) {
      if (cell.value) lo = std::min(lo, cell.shade);
    }
  }
  const auto fill = [&](double shade) {
    const double t = lo < 1.0 ? std::clamp((shade - lo) / (1.0 - lo), 0.0, 1.0) : 1.0;
    // From a pale to a deep blue.
    const auto mix = [t](int a, int b) { return static_cast<int>(std::round(a + (b - a) * t)); };
    return std::make_pair(
        fmt::format("#{:02x}{:02x}{:02x}", mix(0xf1, 0x08), mix(0xf5, 0x40), mix(0xfb, 0x81)),
        t > 0.55);
  };

  std::string out = open_svg(width, height, chart.title, "heatmap");
  out += title_text(chart.title, width);
  double x = left;
  for (const auto& [heading, span] : chart.column_groups) {
    const double w = cell_w * static_cast<double>(span);
    out += fmt::format(
        "<text x=\"{}\" y=\"50\" font-size=\"13\" font-weight=\"600\" text-anchor=\"middle\" "
        "fill=\"{}\">{}</text>\n<line x1=\"{}\" y1=\"56\" x2=\"{}\" y2=\"56\" stroke=\"{}\"/>\n",
        c(x + w / 2), kTextColour, xml_escape(heading), c(x + 4), c(x + w - 4), kAxisColour);
    x += w;
  }
  for (std::size_t j = 0; j < n_cols; ++j) {
    out += fmt::format(
        "<text x=\"{}\" y=\"74\" font-size=\"11\" text-anchor=\"middle\" fill=\"{}\">{}</text>\n",
        c(left + cell_w * (static_cast<double>(j) + 0.5)), kAxisColour,
        xml_escape(chart.column_labels[j]));
  }
  std::string marks;
  for (std::size_t i = 0; i < chart.cells.size(); ++i) {
    const double y = grid_top + kCellH * static_cast<double>(i);
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" dy=\"0.32em\" font-size=\"12\" text-anchor=\"end\" "
        "fill=\"{}\">{}</text>\n",
        c(left - 10), c(y + kCellH / 2), kTextColour,
        xml_escape(i < chart.row_labels.size() ? chart.row_labels[i] : std::string()));
    for (std::size_t j = 0; j < chart.cells[i].size() && j < n_cols; ++j) {
      const Cell& cell = chart.cells[i][j];
      const double cx = left + cell_w * static_cast<double>(j);
      if (!cell.value) {
        out += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" "
            "stroke=\"{}\"/><text x=\"{}\" y=\"{}\" dy=\"0.32em\" font-size=\"11\" "
            "text-anchor=\"middle\" fill=\"{}\">—</text>\n",
            c(cx), c(y), c(cell_w), c(kCellH), kGridColour, c(cx + cell_w / 2), c(y + kCellH / 2),
            kAxisColour);
        continue;
      }
      const auto [colour, dark] = fill(cell.shade);
      const std::string value = format_fixed(*cell.value, chart.decimals);
      const std::string shown = cell_text(cell);
      out += fmt::format(
          "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
          "stroke=\"#ffffff\"><title>{}, {}: {}{}{} ({:.1f}% of the best)</title></rect>"
          "<text x=\"{}\" y=\"{}\" dy=\"0.32em\" font-size=\"11\" text-anchor=\"middle\" "
          "fill=\"{}\" pointer-events=\"none\">{}</text>\n",
          c(cx), c(y), c(cell_w), c(kCellH), colour,
          xml_escape(i < chart.row_labels.size() ? chart.row_labels[i] : std::string()),
          xml_escape(chart.column_labels[j]),
          cell.label.empty() ? std::string() : xml_escape(cell.label) + " ", value,
          xml_escape(chart.value_suffix), 100 * cell.shade, c(cx + cell_w / 2), c(y + kCellH / 2),
          dark ? "#ffffff" : kTextColour, xml_escape(shown));
      if (cell.marked) {
        // Drawn after every cell, so no neighbour paints over the outline.
        marks += fmt::format(
            "<rect class=\"best\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
            "stroke=\"#D55E00\" stroke-width=\"3\"/>\n",
            c(cx + 1.5), c(y + 1.5), c(cell_w - 3), c(kCellH - 3));
      }
    }
  }
  out += marks;
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{}\">Shading: {} (pale: {:.1f}%, deep: "
      "100%).{}</text>\n",
      c(12), c(height - 16), kTextColour, xml_escape(chart.shade_title), 100 * lo, outline);
  return out + "</svg>\n";
}

}  // namespace pinbench
