#include "report/html.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/units.hpp"
#include "report/report_tables.hpp"
#include "report/svg_chart.hpp"

namespace pinbench {
namespace {

const char* const kStyle = R"(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f8fa; color: #1f2328; font-size: 15px; line-height: 1.5;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  "DejaVu Sans", sans-serif; }
header, main, footer { max-width: 1320px; margin: 0 auto; padding: 0 24px; }
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
.badge.died, .badge.failed { background: #ffebe9; color: #a40e26; border-color: #ff8182; }
.badge.not-evaluated { background: #eff2f5; color: #424a53; border-color: #afb8c1; }
.kv { display: grid; grid-template-columns: max-content minmax(0, 1fr) max-content minmax(0, 1fr);
  gap: 4px 18px; background: #fff; border: 1px solid #d0d7de; border-radius: 8px;
  padding: 12px 16px; margin: 0; }
.kv dt { color: #59636e; }
.kv dd { margin: 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(600px, 1fr)); gap: 16px; }
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
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.prediction { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 12px 16px;
  margin: 12px 0; }
.prediction h3 { margin: 0 0 4px; }
.prediction table { width: 100%; font-size: 13.5px; }
.prediction td:first-child { width: 1%; white-space: nowrap; }
.failures li { color: #a40e26; }
details { margin: 12px 0; }
summary { cursor: pointer; font-weight: 600; }
code { font-family: "DejaVu Sans Mono", ui-monospace, monospace; font-size: 13px; }
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
  return out;
}

std::string figure(const std::string& svg, const std::string& caption, bool wide = false) {
  return fmt::format("<figure{}>\n{}<figcaption>{}</figcaption>\n</figure>\n",
                     wide ? " class=\"wide\"" : "", svg, e(caption));
}

std::string rate_charts(const RunRecord& r) {
  const std::vector<SizePanel> panels = size_panels(r);
  // One y scale for every rate chart, so directions, methods and kinds compare at a glance.
  double y_max = 0;
  for (const SizePanel& p : panels) {
    if (!p.is_sweep()) continue;
    for (const SizeSeries& s : p.series) {
      for (const auto& point : s.gb_per_s) {
        if (point.second) y_max = std::max(y_max, *point.second);
      }
    }
  }
  std::string out;
  for (const SizePanel& p : panels) {
    if (!p.is_sweep()) continue;
    SizeChart chart;
    chart.y_at_least = y_max;
    chart.title = p.title();
    chart.y_title = "median rate (GB/s = 10^9 bytes/s)";
    chart.value_suffix = " GB/s";
    for (std::size_t i = 0; i < p.series.size(); ++i) {
      ChartSeries s{p.series[i].memory, kind_colour(p.series[i].memory, i), {}};
      for (const auto& [bytes, rate] : p.series[i].gb_per_s) {
        s.points.emplace_back(static_cast<double>(bytes), rate);
      }
      chart.series.push_back(std::move(s));
    }
    std::string caption = fmt::format(
        "Median rate of the timed samples at each size, {}; one colour per memory kind.",
        direction_words(p.direction));
    if (!p.failed.empty()) {
      caption += " No point where the gate failed: ";
      for (std::size_t i = 0; i < p.failed.size(); ++i) {
        caption += (i > 0 ? "; " : "") + p.failed[i];
      }
      caption += ".";
    }
    out += figure(render_size_chart(chart), caption);
  }
  return out;
}

std::string ratio_chart(const LessonAnalysis& a) {
  SizeChart chart;
  chart.title = "Part 1: pageable time / pinned time, by size";
  chart.y_title = "pageable ms / pinned ms (x)";
  chart.value_suffix = "x";
  std::size_t with_ratio = 0;
  const struct {
    const std::vector<CopyRow>* rows;
    const char* label;
    std::size_t colour;
  } directions[] = {{&a.h2d, "host to device", 0}, {&a.d2h, "device to host", 2}};
  for (const auto& d : directions) {
    if (d.rows->empty()) continue;
    ChartSeries s{d.label, palette_colour(d.colour), {}};
    for (const CopyRow& row : *d.rows) {
      s.points.emplace_back(static_cast<double>(row.bytes), row.ratio);
      with_ratio += row.ratio ? 1 : 0;
    }
    chart.series.push_back(std::move(s));
  }
  if (with_ratio == 0) return "";
  chart.rules = {{1.0, "1x: pinned no faster"}, {1.3, "1.3x: prediction 1's floor"}};
  return figure(render_size_chart(chart),
                "How many times longer a blocking copy takes from pageable memory than from "
                "pinned memory, per direction. Prediction 1 asks for a ratio above 1 at every "
                "size, at least 1.3 at 256 MiB, growing with size.");
}

std::string share_chart(const LessonAnalysis& a) {
  ShareChart chart;
  chart.title = fmt::format("Part 2: how long a {} cudaMemcpyAsync holds the thread",
                            format_size(a.config.async_bytes));
  chart.x_title = "call time as a share of the time to completion (%)";
  chart.legend = {{"pageable", kind_colour("pageable", 0)}, {"pinned", kind_colour("pinned", 1)}};
  for (const AsyncRow& r : a.async_rows) {
    ShareBar b;
    b.label = direction_words(r.direction) + ", " + r.memory;
    b.share = r.call_share;
    b.colour = kind_colour(r.memory, 2);
    if (r.call_ms && r.completion_ms) {
      b.detail =
          fmt::format("call {:.3f} ms of {:.3f} ms to completion", *r.call_ms, *r.completion_ms);
    }
    chart.bars.push_back(std::move(b));
  }
  if (chart.bars.empty()) return "";
  chart.rules = {{0.10, "10%"}, {0.80, "80%"}};
  return figure(render_share_chart(chart),
                "Median time the call held the calling thread over the median time until the "
                "stream had synchronised. Prediction 2: at least 80% for pageable memory, under "
                "10% for pinned (host to device).");
}

std::string summary_cards(const RunRecord& r, const LessonAnalysis* lesson) {
  std::string out = "<div class=\"cards\">\n";
  if (lesson != nullptr) {
    for (const Prediction& p : lesson->predictions) {
      out += fmt::format("<div class=\"card\"><span class=\"label\">Prediction {}</span>{}</div>\n",
                         p.number, badge(to_string(p.verdict)));
    }
  }
  std::size_t passed = 0;
  for (const Gate& g : r.gates) passed += g.passed ? 1 : 0;
  out += fmt::format(
      "<div class=\"card\"><span class=\"label\">Gates</span><span class=\"value\">{} of {}"
      "</span> {}</div>\n",
      passed, r.gates.size(), badge(passed == r.gates.size() ? "passed" : "failed"));
  out += fmt::format(
      "<div class=\"card\"><span class=\"label\">Cases</span><span class=\"value\">{}</span>"
      "</div>\n",
      r.cases.size());
  if (r.wall_ms > 0.0) {
    out += fmt::format(
        "<div class=\"card\"><span class=\"label\">Wall time</span><span class=\"value\">{:.2f} "
        "s</span></div>\n",
        r.wall_ms / 1000.0);
  }
  return out + "</div>\n";
}

std::string predictions(const LessonAnalysis& a) {
  std::string out = "<h2 id=\"predictions\">Predictions</h2>\n";
  out +=
      "<p class=\"note\">Each prediction is split into claims. A prediction dies with any of "
      "its claims and holds only when every claim was judged and held. Verdicts are findings, "
      "not failures.</p>\n";
  for (const Prediction& p : a.predictions) {
    out += fmt::format(
        "<div class=\"prediction\">\n<h3>Prediction {} {}</h3>\n<p>{}</p>\n"
        "<table>\n<thead><tr><th>verdict</th><th>claim</th><th>the numbers that decided it</th>"
        "</tr></thead>\n<tbody>\n",
        p.number, badge(to_string(p.verdict)), e(p.statement));
    for (const Claim& c : p.claims) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                         badge(to_string(c.verdict)), e(c.text), e(c.evidence));
    }
    out += "</tbody>\n</table>\n</div>\n";
  }
  return out;
}

std::string checks(const RunRecord& r, const LessonAnalysis* lesson) {
  std::string out = "<h2 id=\"checks\">Checks</h2>\n";
  const std::vector<std::string> failures =
      lesson != nullptr ? lesson->check_failures : failed_gates(r);
  if (failures.empty() && r.source == "published") {
    out +=
        "<p>Figures copied from published tables: pinbench did not verify their bytes or "
        "buffers.</p>\n";
  } else if (failures.empty()) {
    out += fmt::format(
        "<p>{} All {} gates passed: every gated buffer is the memory kind it claims and every "
        "gated path moved its bytes exactly.</p>\n",
        badge("passed"), r.gates.size());
  } else {
    out += "<ul class=\"failures\">\n";
    for (const std::string& f : failures) out += fmt::format("<li>FAILED: {}</li>\n", e(f));
    out += "</ul>\n";
  }
  ReportTable gates;
  gates.id = "gates";
  gates.header = {"gate", "passed", "detail"};
  gates.numeric = {false, false, false};
  for (const Gate& g : r.gates) gates.rows.push_back({g.name, g.passed ? "yes" : "NO", g.detail});
  out += fmt::format("<details>\n<summary>Every gate ({})</summary>\n", r.gates.size());
  out += table_html(gates, false);
  return out + "</details>\n";
}

}  // namespace

std::string render_html(const RunRecord& r, const LessonAnalysis* lesson, const HtmlExtras& x) {
  const std::string title = fmt::format("pinbench report: {} on {}, {}", r.experiment,
                                        r.machine.device_name, r.created_utc);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
      e(title), kStyle);

  out += fmt::format("<header>\n<h1>pinbench report: {} on {}</h1>\n<p class=\"sub\">{}</p>\n",
                     e(r.experiment), e(r.machine.device_name), e(record_line(r)));
  if (!r.note.empty()) out += fmt::format("<p class=\"note\">Note: {}</p>\n", e(r.note));
  out += summary_cards(r, lesson);
  out += "</header>\n<main>\n";

  out += "<h2 id=\"machine\">Machine</h2>\n<dl class=\"kv\">\n";
  for (const auto& [key, value] : machine_fields(r.machine)) {
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", e(key), e(value));
  }
  out += "</dl>\n";

  out += "<h2 id=\"charts\">Charts</h2>\n<div class=\"charts\">\n";
  out += rate_charts(r);
  if (lesson != nullptr) {
    out += ratio_chart(*lesson);
    out += share_chart(*lesson);
  }
  if (x.timeline) {
    out += figure(render_timeline(*x.timeline, "Timeline: copies and kernels per stream"),
                  fmt::format("{} events from {}, {:.3f} ms from the first start to the last end. "
                              "Hover over a rectangle for its name and times.",
                              x.timeline->event_count, x.trace_name, x.timeline->span_ms),
                  true);
  }
  out += "</div>\n";
  if (!x.trace_problem.empty()) {
    out += fmt::format("<p class=\"note\">No timeline: {}</p>\n", e(x.trace_problem));
  }

  if (lesson != nullptr) out += predictions(*lesson);

  out += "<h2 id=\"tables\">Tables</h2>\n";
  for (const ReportTable& t : report_tables(r, lesson)) out += table_html(t);

  out += checks(r, lesson);

  const ReportTable cases = every_case_table(r);
  out += fmt::format("<h2 id=\"cases\">Cases</h2>\n<details>\n<summary>{}</summary>\n",
                     e(cases.title));
  out += table_html(cases, false);
  out += "</details>\n</main>\n";

  out += fmt::format(
      "<footer>\nUnits: GB/s is 10^9 bytes per second; KiB, MiB and GiB are 2^10, 2^20 and 2^30 "
      "bytes; times are in milliseconds. Every figure is the median of a case's timed samples, "
      "and a case whose gate failed shows none (a dash).<br>\nRendered by pinbench report from "
      "{}{}.\n</footer>\n</body>\n</html>\n",
      e(x.record_name.empty() ? std::string("a run record") : x.record_name),
      x.timeline ? " and " + e(x.trace_name) : std::string());
  return out;
}

}  // namespace pinbench
