#include "framework/render/html.hpp"

#include "framework/printable.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/render/perfetto.hpp"
#include "framework/render/svg_chart.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

const char* const kStyle = R"(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f8fa; color: #1f2328; font-size: 15px; line-height: 1.5;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  "DejaVu Sans", sans-serif; }
header, main, footer { max-width: 1320px; margin: 0 auto; padding: 0 24px; }
/* A word longer than a line (a path, a command line, a host's name) breaks where it must rather
   than widen the page; a wide table keeps its words whole and scrolls in its own box. */
body { overflow-wrap: anywhere; }
.table-wrap table { overflow-wrap: normal; }
header { padding-top: 28px; }
footer { padding-top: 8px; padding-bottom: 40px; color: #59636e; font-size: 13px; }
h1 { font-size: 26px; margin: 0 0 2px; }
h2 { font-size: 20px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 16px; margin: 22px 0 8px; }
p { margin: 6px 0; }
.sub { color: #59636e; margin: 0 0 14px; }
.note { color: #59636e; font-size: 13px; max-width: 110ch; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0 4px; }
.card { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 16px;
  min-width: 150px; }
.card .label { display: block; font-size: 12px; color: #59636e; }
.card .value { font-size: 17px; font-weight: 600; }
.badge { display: inline-block; padding: 0 9px; border-radius: 999px; font-size: 12.5px;
  font-weight: 600; border: 1px solid; white-space: nowrap; line-height: 1.6; }
.badge.held, .badge.passed { background: #dafbe1; color: #116329; border-color: #4ac26b; }
.badge.died, .badge.missed, .badge.failed { background: #ffebe9; color: #a40e26;
  border-color: #ff8182; }
.badge.undecided { background: #fff8c5; color: #7d4e00; border-color: #d4a72c; }
.badge.unstable { background: #fff8c5; color: #7d4e00; border-color: #d4a72c; }
.badge.not-evaluated { background: #eff2f5; color: #424a53; border-color: #afb8c1; }
.kv { display: grid; grid-template-columns: max-content minmax(0, 1fr) max-content minmax(0, 1fr);
  gap: 4px 18px; background: #fff; border: 1px solid #d0d7de; border-radius: 8px;
  padding: 12px 16px; margin: 0; }
.kv dt { color: #59636e; }
.kv dd { margin: 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(600px, 1fr)); gap: 16px; }
figure { margin: 0; background: #fff; border: 1px solid #d0d7de; border-radius: 8px;
  padding: 10px 12px; }
figure.wide { grid-column: 1 / -1; }
figure svg { display: block; width: 100%; height: auto; }
figcaption { color: #59636e; font-size: 13px; margin-top: 4px; }
.table-wrap { display: inline-block; max-width: 100%; overflow-x: auto; background: #fff;
  border: 1px solid #d0d7de; border-radius: 8px; }
table { border-collapse: collapse; font-size: 14px; }
th, td { padding: 5px 12px; text-align: left; vertical-align: top;
  border-bottom: 1px solid #e4e8ec; }
tr:last-child td { border-bottom: none; }
th { background: #f6f8fa; font-weight: 600; border-bottom: 1px solid #d0d7de; }
.table-wrap td:first-child { white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.prediction { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 12px 16px;
  margin: 12px 0; }
.prediction h3 { margin: 0 0 4px; }
.prediction table { width: 100%; font-size: 13.5px; }
.prediction td:first-child { width: 1%; white-space: nowrap; }
.failures li { color: #a40e26; }
.flags li { color: #7d4e00; }
figure.heat { grid-column: 1 / -1; overflow-x: auto; }
figure.heat svg { width: auto; max-width: none; }
details { margin: 12px 0; }
summary { cursor: pointer; font-weight: 600; }
code { font-family: "DejaVu Sans Mono", ui-monospace, monospace; font-size: 13px; }
pre { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 8px 12px;
  margin: 6px 0; max-width: 100%; overflow-x: auto; }
)";

std::string e(const std::string& text) {
  return xml_escape(text);
}

std::string badge(const std::string& verdict) {
  std::string cls;
  for (char ch : verdict) cls += ch == ' ' ? '-' : ch;
  return fmt::format("<span class=\"badge {}\">{}</span>", cls, e(verdict));
}

std::string table_html(const ReportTable& t, bool heading = true) {
  std::string out;
  if (heading) out += fmt::format("<h3 id=\"{}\">{}</h3>\n", e(t.id), e(t.title));
  out += "<div class=\"table-wrap\"><table>\n<thead><tr>";
  for (std::size_t i = 0; i < t.header.size(); ++i) {
    out += fmt::format("<th{}>{}</th>", t.numeric[i] ? " class=\"num\"" : "", e(t.header[i]));
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += fmt::format("<td{}>{}</td>", t.numeric[i] ? " class=\"num\"" : "", e(row[i]));
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table></div>\n";
  for (const std::string& n : t.notes) out += fmt::format("<p class=\"note\">{}</p>\n", e(n));
  if (!t.code.empty()) out += fmt::format("<pre><code>{}</code></pre>\n", e(t.code));
  return out;
}

std::string figure(const std::string& svg, const std::string& caption, bool wide = false) {
  return fmt::format("<figure{}>\n{}<figcaption>{}</figcaption>\n</figure>\n",
                     wide ? " class=\"wide\"" : "", svg, e(caption));
}

// A key's colour in `spec`: the one its experiment fixed, else its memory kind's or direction's,
// else the palette's at `fallback_index`.
std::string colour_of(const ChartSpec& spec, const std::string& key, std::size_t fallback_index) {
  const auto fixed = spec.colours.find(key);
  return fixed != spec.colours.end() ? fixed->second : key_colour(key, fallback_index);
}

ChartText text_of(const ChartSpec& spec) {
  return {spec.title, spec.value_suffix, spec.decimals};
}

ScatterChart scatter_of(const ChartSpec& spec) {
  std::vector<ScatterSeries> series;
  std::size_t index = 0;
  for (const ChartScatterSeries& in : spec.points) {
    std::vector<ScatterPoint> points;
    for (const ChartPoint& p : in.points) points.push_back({p.x, p.value, p.label});
    series.push_back({in.label, colour_of(spec, in.key, index++), std::move(points)});
  }
  ScatterChart chart;
  static_cast<ChartText&>(chart) = text_of(spec);
  chart.x_title = spec.x_axis_title;
  chart.y_title = spec.axis_title;
  chart.x_suffix = spec.x_suffix;
  chart.series = std::move(series);
  return chart;
}

std::string chart_svg(const ChartSpec& spec) {
  switch (spec.kind) {
    case ChartKind::kSize: {
      SizeChart chart;
      static_cast<ChartText&>(chart) = text_of(spec);
      chart.y_title = spec.axis_title;
      chart.y_at_least = spec.value_at_least;
      for (const auto& [value, label] : spec.rules) chart.rules.push_back({value, label});
      for (std::size_t i = 0; i < spec.series.size(); ++i) {
        ChartSeries s{spec.series[i].label, colour_of(spec, spec.series[i].key, i), {}};
        for (const auto& [bytes, v] : spec.series[i].points) {
          s.points.emplace_back(static_cast<double>(bytes), v);
        }
        // Seven marker shapes; past them a dashed line keeps the series apart.
        s.dashed = i >= 7;
        chart.series.push_back(std::move(s));
      }
      return render_size_chart(chart);
    }
    case ChartKind::kBars:
    case ChartKind::kShares: {
      ShareChart chart;
      static_cast<ChartText&>(chart) = text_of(spec);
      chart.x_title = spec.axis_title;
      chart.percent = spec.kind == ChartKind::kShares;
      for (const auto& [value, label] : spec.rules) chart.rules.push_back({value, label});
      // One colour per key, bars and legend alike: a key pinbench has no colour for takes the
      // palette's colour of its place among the chart's keys.
      std::vector<std::string> keys;
      for (const ChartBar& b : spec.bars) {
        if (std::find(keys.begin(), keys.end(), b.key) == keys.end()) keys.push_back(b.key);
      }
      const auto colour = [&](const std::string& key) {
        return colour_of(
            spec, key,
            static_cast<std::size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin()));
      };
      for (const ChartBar& b : spec.bars) {
        chart.bars.push_back({b.label, b.value, colour(b.key), b.detail});
      }
      // A legend only where colour says something the labels do not already say twice.
      if (keys.size() > 1 && keys.size() < spec.bars.size()) {
        for (const std::string& key : keys) chart.legend.push_back({key, colour(key)});
      }
      return render_share_chart(chart);
    }
    case ChartKind::kScatter:
      return render_scatter_chart(scatter_of(spec));
    case ChartKind::kHeatmap: {
      HeatmapChart chart;
      static_cast<ChartText&>(chart) = text_of(spec);
      chart.shade_title = spec.shade_title;
      chart.row_labels = spec.row_labels;
      chart.column_labels = spec.column_labels;
      chart.column_groups = spec.column_groups;
      for (const auto& row : spec.cells) {
        std::vector<HeatmapChart::Cell> cells;
        for (const HeatCell& cell : row) {
          cells.push_back({cell.value, cell.shade, cell.marked, cell.label});
        }
        chart.cells.push_back(std::move(cells));
      }
      return render_heatmap(chart);
    }
  }
  return "";
}

std::string chart_figure(const ChartSpec& spec) {
  const char* cls = spec.kind == ChartKind::kHeatmap ? " class=\"heat\""
                    : spec.wide                      ? " class=\"wide\""
                                                     : "";
  return fmt::format("<figure id=\"{}\"{}>\n{}<figcaption>{}</figcaption>\n</figure>\n", e(spec.id),
                     cls, chart_svg(spec), e(spec.caption));
}

std::string summary_cards(const ReportModel& m) {
  std::string out = "<div class=\"cards\">\n";
  for (const VerdictGroup& g : m.verdicts) {
    for (const Prediction& p : g.items) {
      out += fmt::format("<div class=\"card\"><span class=\"label\">{} {}</span>{}</div>\n",
                         judged_noun(g.judged), p.number, badge(verdict_word(p.verdict, g.judged)));
    }
  }
  // Nothing gated is not "passed": the card says so, with no badge.
  out += m.gates == 0
             ? std::string(
                   "<div class=\"card\"><span class=\"label\">Gates</span><span "
                   "class=\"value\">none</span></div>\n")
             : fmt::format(
                   "<div class=\"card\"><span class=\"label\">Gates</span><span "
                   "class=\"value\">{} of {}</span> {}</div>\n",
                   m.gates_passed, m.gates, badge(m.gates_passed == m.gates ? "passed" : "failed"));
  out += fmt::format(
      "<div class=\"card\"><span class=\"label\">Cases</span><span class=\"value\">{}</span>"
      "{}</div>\n",
      m.cases.size(),
      m.flags.empty()
          ? std::string()
          : fmt::format(" <span class=\"badge unstable\">{} unstable</span>", m.flags.size()));
  return out + "</div>\n";
}

std::string verdict_groups(const ReportModel& m) {
  std::string out;
  for (const VerdictGroup& g : m.verdicts) {
    out += fmt::format("<h2 id=\"{}\">{}</h2>\n", e(g.id), e(g.title));
    if (!g.note.empty()) out += fmt::format("<p class=\"note\">{}</p>\n", e(g.note));
    // Goals of one claim each read best as one table, a row per goal.
    const bool flat = std::all_of(g.items.begin(), g.items.end(), [](const Prediction& p) {
      return p.claims.size() == 1 && p.claims.front().text == p.statement;
    });
    if (flat) {
      out +=
          "<div class=\"prediction\">\n<table>\n<thead><tr><th>verdict</th><th>goal</th>"
          "<th>the numbers that decided it</th></tr></thead>\n<tbody>\n";
      for (const Prediction& p : g.items) {
        out += fmt::format("<tr><td>{}</td><td>{}. {}</td><td>{}</td></tr>\n",
                           badge(verdict_word(p.verdict, g.judged)), p.number, e(p.statement),
                           e(p.claims.front().evidence));
      }
      out += "</tbody>\n</table>\n</div>\n";
      continue;
    }
    for (const Prediction& p : g.items) {
      const bool single = p.claims.size() == 1 && p.claims.front().text == p.statement;
      out += fmt::format("<div class=\"prediction\">\n<h3>{} {} {}</h3>\n<p>{}</p>\n",
                         judged_noun(g.judged), p.number, badge(verdict_word(p.verdict, g.judged)),
                         e(p.statement));
      out += fmt::format(
          "<table>\n<thead><tr><th>verdict</th>{}<th>the numbers that decided it</th></tr>"
          "</thead>\n<tbody>\n",
          single ? "" : "<th>claim</th>");
      for (const Claim& c : p.claims) {
        out += fmt::format("<tr><td>{}</td>{}<td>{}</td></tr>\n",
                           badge(verdict_word(c.verdict, g.judged)),
                           single ? std::string() : "<td>" + e(c.text) + "</td>", e(c.evidence));
      }
      out += "</tbody>\n</table>\n</div>\n";
    }
  }
  return out;
}

std::string flags(const ReportModel& m) {
  if (m.flags.empty()) return "";
  std::string out =
      "<h2 id=\"unstable\">Unstable cases</h2>\n<p class=\"note\">Samples that do not tell one "
      "story: a median of a bimodal or drifting case describes neither state, so no verdict "
      "should rest on it alone.</p>\n";
  // A long list would push the charts off the first screen; a few stay in view.
  const bool fold = m.flags.size() > 6;
  if (fold) {
    out += fmt::format("<details>\n<summary>{} unstable cases of {}</summary>\n", m.flags.size(),
                       m.cases.size());
  }
  out += "<ul class=\"flags\">\n";
  for (const CaseFlag& f : m.flags) {
    out +=
        fmt::format("<li>{} {}: {}</li>\n", badge(to_string(f.stability)), e(f.label), e(f.detail));
  }
  out += "</ul>\n";
  return fold ? out + "</details>\n" : out;
}

std::string checks(const RunRecord& r, const ReportModel& m) {
  std::string out = "<h2 id=\"checks\">Checks</h2>\n";
  if (m.check_failures.empty() && (m.published || m.nothing_checked)) {
    out += fmt::format("<p>{}</p>\n", e(m.checks_passed));
  } else if (m.check_failures.empty()) {
    out += fmt::format("<p>{} {}</p>\n", badge("passed"), e(m.checks_passed));
  } else {
    out += "<ul class=\"failures\">\n";
    for (const std::string& f : m.check_failures) out += fmt::format("<li>FAILED: {}</li>\n", e(f));
    out += "</ul>\n";
  }
  if (r.gates.empty()) return out;  // no list of nothing
  ReportTable gates;
  gates.id = "gates";
  gates.header = {"gate", "passed", "detail"};
  gates.numeric = {false, false, false};
  for (const Gate& g : r.gates) gates.rows.push_back({g.name, g.passed ? "yes" : "NO", g.detail});
  out += fmt::format("<details>\n<summary>Every gate ({})</summary>\n", r.gates.size());
  out += table_html(gates, false);
  return out + "</details>\n";
}

// The trace found beside the record, else the run's own timeline, which its analysis put in the
// model (written as a Perfetto trace and read back, so it is drawn as a trace beside the record
// is); what kept either from being drawn goes in `problem`.
std::optional<Timeline> timeline_of(const ReportModel& m, const HtmlExtras& x,
                                    std::string& problem) {
  problem = x.trace_problem;
  if (x.timeline || !x.trace_name.empty() || !problem.empty() || !m.timeline) return x.timeline;
  try {
    return timeline_from_json(perfetto_json(*m.timeline));
  } catch (const InputError& e) {
    // One with nothing in it costs only the timeline, as a damaged trace does.
    problem = e.what();
  }
  return std::nullopt;
}

}  // namespace

std::string render_html(const RunRecord& r, const ReportModel& m, const HtmlExtras& x) {
  std::string trace_problem;
  const std::optional<Timeline> timeline = timeline_of(m, x, trace_problem);
  const std::string title = fmt::format("{}, {}", m.title, r.created_utc);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
      e(title), kStyle);

  out +=
      fmt::format("<header>\n<h1>{}</h1>\n<p class=\"sub\">{}</p>\n", e(m.title), e(m.record_line));
  for (const std::string& n : m.notes) out += fmt::format("<p class=\"note\">{}</p>\n", e(n));
  out += summary_cards(m);
  out += "</header>\n<main>\n";

  out += "<h2 id=\"machine\">Machine</h2>\n<dl class=\"kv\">\n";
  for (const auto& [key, value] : m.machine) {
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", e(key), e(value));
  }
  out += "</dl>\n";

  out += verdict_groups(m);
  out += flags(m);

  // No heading over nothing: a record with no chart and no timeline gets no "Charts" section.
  if (!m.charts.empty() || timeline) {
    out += "<h2 id=\"charts\">Charts</h2>\n<div class=\"charts\">\n";
    for (const ChartSpec& spec : m.charts) out += chart_figure(spec);
    if (timeline) {
      out += figure(
          render_timeline(*timeline, "Timeline: NVTX ranges, API calls, copies and kernels"),
          // A record's own timeline (a program's calls) comes from no file: it names none.
          fmt::format("{} events{}, {:.3f} ms from the first start to the last end. One lane "
                      "per thread and kind of event (NVTX ranges and API calls apart), one per "
                      "stream; a name is cut to fit its rectangle, or left off where too little of "
                      "it fits. Hover over a rectangle for its name and times.",
                      timeline->event_count,
                      x.trace_name.empty() ? std::string() : " from " + x.trace_name,
                      timeline->span_ms),
          true);
    }
    out += "</div>\n";
  }
  if (!trace_problem.empty()) {
    out += fmt::format("<p class=\"note\">No timeline: {}</p>\n", e(trace_problem));
  }

  out += "<h2 id=\"tables\">Tables</h2>\n";
  for (const ReportTable& t : m.tables) out += table_html(t);

  out += checks(r, m);

  const ReportTable cases = case_table(m);
  out += fmt::format("<h2 id=\"cases\">Cases</h2>\n<details{}>\n<summary>{}</summary>\n",
                     m.flags.empty() ? "" : " open", e(cases.title));
  out += table_html(cases, false);
  out += "</details>\n</main>\n";

  out += fmt::format(
      "<footer>\nUnits: GB/s is 10^9 bytes per second; KiB, MiB and GiB are 2^10, 2^20 and 2^30 "
      "bytes; times are in milliseconds. {}, and a case whose gate failed shows none (a "
      "dash).<br>\nRendered by pinbench report from {}{}.\n</footer>\n</body>\n</html>\n",
      e(m.figures_are), e(x.record_name.empty() ? std::string("a run record") : x.record_name),
      timeline && !x.trace_name.empty() ? " and " + e(x.trace_name) : std::string());
  // Every field went through xml_escape; this is the guard for what did not.
  return printable_text(out);
}

HtmlExtras html_extras_for(const std::string& record_path) {
  HtmlExtras x;
  x.record_name = std::filesystem::path(record_path).filename().string();
  const std::string trace = trace_path_for(record_path);
  std::error_code ec;
  // Without one, render_html draws the run's own, from the experiment that built the model.
  if (!std::filesystem::exists(trace, ec)) return x;
  x.trace_name = std::filesystem::path(trace).filename().string();
  try {
    x.timeline = read_trace(trace);
  } catch (const InputError& e) {
    // The record is what was asked for; a damaged trace beside it costs only the timeline.
    x.trace_problem = e.what();
    std::fprintf(stderr, "pinbench: note: no timeline in the HTML report: %s\n",
                 printable(e.what()).c_str());
  }
  return x;
}

}  // namespace pinbench
