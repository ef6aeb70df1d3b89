// The report renderers (HTML, markdown, CSV), the SVG charts and the trace reader, against whole
// expected files built from the committed H200 records and from a
// hand-made sweep record that exercises the generic path. Regenerate the expected files after
// an intended change with PINBENCH_UPDATE_GOLDEN=1 and read the diff before committing it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "experiments/lesson/analysis.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/printable.hpp"
#include "framework/record.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/svg_chart.hpp"
#include "framework/render/trace_timeline.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::lesson;
namespace {

using test::expect_matches_golden;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string h200_html() {
  const RunRecord r = load_record(test::h200_lesson_path());
  const LessonAnalysis a = analyse_lesson(r);
  HtmlExtras x;
  x.record_name = file_name(test::h200_lesson_path());
  return render_html(r, analyse(r), x);
}

std::string sweep_html() {
  HtmlExtras x;
  x.record_name = "sweep.json";
  x.timeline = read_trace(test::sweep_trace_path());
  x.trace_name = "sweep.trace.json";
  const RunRecord r = test::make_sweep_record();
  return render_html(r, analyse(r), x);
}

// Self-contained: nothing a browser would fetch or run.
void expect_self_contained(const std::string& html) {
  for (const char* banned :
       {"<script", "<link", "<img", "<iframe", "@import", "url(", "http:", "https:", "src="}) {
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  }
}

TEST(ReportHtml, CommittedH200Run) {
  const std::string html = h200_html();
  expect_matches_golden(html, "report-h200.html");
  expect_self_contained(html);
  // Two rate charts (one per direction), the ratio chart and the call-share chart; no trace.
  EXPECT_EQ(count(html, "<svg class=\"chart"), 4u);
  EXPECT_EQ(count(html, "class=\"point\""), 4u * 5u + 2u * 5u);
  EXPECT_EQ(count(html, "class=\"bar\""), 4u);
  EXPECT_EQ(count(html, "<span class=\"badge held\">held</span>"), 3u + 3u + 8u);
  EXPECT_NE(html.find("7.67x (6.79x to 7.88x) at 256 MiB (37.279 ms pageable, 4.861 ms pinned)"),
            std::string::npos);
  EXPECT_EQ(html.find("timeline"), std::string::npos);
}

TEST(ReportHtml, GenericSweepWithATrace) {
  const std::string html = sweep_html();
  expect_matches_golden(html, "report-sweep.html");
  expect_self_contained(html);
  // Four rate panels (ce and sm, each direction), each split into page-locked and pageable
  // kinds, and the timeline; no lesson charts.
  EXPECT_EQ(count(html, "<svg class=\"chart"), 9u);
  EXPECT_EQ(count(html, "<svg class=\"chart timeline\""), 1u);
  EXPECT_EQ(count(html, "class=\"event\""), 13u);
  EXPECT_EQ(html.find("Predictions"), std::string::npos);
  // 160 cases, one without a rate: its point is left out and the caption says why.
  EXPECT_EQ(count(html, "class=\"point\""), 159u);
  EXPECT_NE(html.find("No point where the gate failed: write-combined 1 MiB (gate "
                      "sweep/sm/d2h/write-combined/1MiB)."),
            std::string::npos);
  EXPECT_NE(html.find("FAILED: gate sweep/sm/d2h/write-combined/1MiB failed: first difference"),
            std::string::npos);
  // Text from the record is escaped.
  EXPECT_NE(html.find("Hand-made &lt;sweep&gt; &amp; &quot;quotes&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<sweep>"), std::string::npos);
}

TEST(ReportHtml, ATraceThatCannotBeReadIsNamedInsteadOfDrawn) {
  const RunRecord r = test::make_sweep_record();
  HtmlExtras x;
  x.trace_problem = "trace 'x.trace.json' is not valid JSON (truncated?) near byte 7";
  const std::string html = render_html(r, analyse(r), x);
  EXPECT_EQ(count(html, "<svg class=\"chart timeline\""), 0u);
  EXPECT_NE(html.find("No timeline: trace &#39;x.trace.json&#39; is not valid JSON"),
            std::string::npos);
}

TEST(ReportMarkdown, CommittedH200Run) {
  const RunRecord r = load_record(test::h200_lesson_path());
  const LessonAnalysis a = analyse_lesson(r);
  expect_matches_golden(render_markdown(analyse(r)), "report-h200.md");
}

TEST(ReportMarkdown, GenericSweep) {
  const std::string md = render_markdown(analyse(test::make_sweep_record()));
  expect_matches_golden(md, "report-sweep.md");
  // Four tables of ten sizes and four kinds; the failed case is a dash with its reason below.
  EXPECT_EQ(count(md,
                  "| size | pageable GB/s | pinned GB/s | registered GB/s | write-combined "
                  "GB/s |"),
            4u);
  EXPECT_NE(md.find("Gate failed, no figure: write-combined 1 MiB"), std::string::npos);
  EXPECT_NE(md.find("for tests \\| with a pipe"), std::string::npos)
      << "an unescaped pipe would split a table";
}

TEST(ReportMarkdown, EscapesTableAndInlineSyntax) {
  EXPECT_EQ(markdown_escape("a|b *c* `d` <e> [f] \\ g\nh"),
            "a\\|b \\*c\\* \\`d\\` \\<e> \\[f] \\\\ g h");
}

TEST(ReportCsv, CommittedH200Run) {
  expect_matches_golden(render_csv(analyse(load_record(test::h200_lesson_path()))),
                        "report-h200.csv");
}

TEST(ReportCsv, GenericSweep) {
  const std::string csv = render_csv(analyse(test::make_sweep_record()));
  expect_matches_golden(csv, "report-sweep.csv");
  EXPECT_EQ(count(csv, "\r\n"), 161u);  // header and one row per case
  // No spread and no stability either: the times of a failed case measure nothing.
  EXPECT_NE(csv.find(",1048576,1 MiB,3,,,,,,false,sweep/sm/d2h/write-combined/1MiB,,not "
                     "recorded,,,,,,,,\r\n"),
            std::string::npos)
      << "a case whose gate failed has a row but no figures";
  EXPECT_NE(csv.find(",\"{\"\"note\"\":\"\"a \\\"\"quoted\\\"\", comma\"\"}\",not recorded,"),
            std::string::npos)
      << "extra is JSON, quoted per RFC 4180";
}

TEST(ReportCsv, QuotesFieldsPerRfc4180) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(""), "");
}

// A record's words that a spreadsheet would run (a stranger's host or case name) read as text;
// numbers keep their sign.
TEST(ReportCsv, NeutralisesWhatASpreadsheetWouldRun) {
  EXPECT_EQ(csv_field("=HYPERLINK(\"http://evil/\",\"click\")"),
            "\"'=HYPERLINK(\"\"http://evil/\"\",\"\"click\"\")\"");
  EXPECT_EQ(csv_field("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
  EXPECT_EQ(csv_field("+SUM(1,2)"), "\"'+SUM(1,2)\"");
  EXPECT_EQ(csv_field("@SUM(1)"), "'@SUM(1)");
  EXPECT_EQ(csv_field("-2+3"), "'-2+3");
  EXPECT_EQ(csv_field("\t=1"), "'\t=1");
  EXPECT_EQ(csv_field("\r=1"), "\\x0D=1");  // no raw CR in a cell: shown escaped
  EXPECT_EQ(csv_field("-1.5"), "-1.5");
  EXPECT_EQ(csv_field("+2e3"), "+2e3");
  EXPECT_EQ(csv_field("-inf"), "'-inf");
  EXPECT_EQ(csv_field("a=b"), "a=b");
}

TEST(Printable, ShowsControlsAndBrokenUtf8Escaped) {
  EXPECT_EQ(printable("h200-node-1"), "h200-node-1");
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x98\x85"), "caf\xc3\xa9 \xe2\x98\x85");  // UTF-8 kept
  EXPECT_EQ(printable("\x1b]0;owned\x07"), "\\x1B]0;owned\\x07");  // retitles a terminal
  EXPECT_EQ(printable("row\r\x1b[2K"), "row\\x0D\\x1B[2K");        // erases its own row
  EXPECT_EQ(printable("a\tb\nc\x7f"), "a\\x09b\\x0Ac\\x7F");
  EXPECT_EQ(printable("\xc2\x9b"
                      "31m"),
            "\\u009B31m");                                  // C1 CSI
  EXPECT_EQ(printable("\xff\xc3"), "\\xFF\\xC3");           // not UTF-8, and cut short
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xED\\xA0\\x80");  // a surrogate is not UTF-8
  EXPECT_EQ(printable("\xc0\xaf"), "\\xC0\\xAF");           // an overlong form is not either
}

TEST(SvgChart, NiceAxes) {
  const LinearAxis a = nice_axis(55.22);
  EXPECT_DOUBLE_EQ(a.step, 20.0);
  EXPECT_DOUBLE_EQ(a.top, 60.0);
  EXPECT_EQ(a.decimals, 0);
  const LinearAxis b = nice_axis(7.67);
  EXPECT_DOUBLE_EQ(b.step, 2.0);
  EXPECT_DOUBLE_EQ(b.top, 8.0);
  const LinearAxis c = nice_axis(0.6);
  EXPECT_DOUBLE_EQ(c.step, 0.2);
  EXPECT_EQ(c.decimals, 1);
  EXPECT_DOUBLE_EQ(nice_axis(11.0).step, 2.5);
  EXPECT_EQ(nice_axis(11.0).decimals, 1);
  EXPECT_DOUBLE_EQ(nice_axis(0.0).top, 1.0);
}

TEST(SvgChart, SizeChartHasAxesLegendAndGaps) {
  SizeChart chart;
  chart.title = "t <1>";
  chart.y_title = "median rate (GB/s)";
  chart.value_suffix = " GB/s";
  chart.series.push_back(
      {"pinned", "#0072B2", {{4096.0, 1.0}, {65536.0, std::nullopt}, {kGiB * 1.0, 50.0}}});
  const std::string svg = render_size_chart(chart);
  EXPECT_NE(svg.find(">t &lt;1&gt;</text>"), std::string::npos);
  for (const char* label :
       {">4 KiB<", ">1 MiB<", ">1 GiB<", ">median rate (GB/s)<", ">pinned<", ">50<"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
  // The missing value is neither a point nor part of a line.
  EXPECT_EQ(count(svg, "class=\"point\""), 2u);
  EXPECT_EQ(count(svg, "<polyline"), 0u);
  EXPECT_NE(svg.find("<title>pinned, 1 GiB: 50.00 GB/s</title>"), std::string::npos);
}

TEST(SvgChart, ScatterChartShowsEveryPointAndANegativeX) {
  ScatterChart chart;
  chart.title = "rate against slowdown";
  chart.x_title = "slowdown (%)";
  chart.y_title = "median rate (GB/s)";
  chart.value_suffix = " GB/s";
  chart.x_suffix = "% <slowdown>";
  chart.series.push_back({"kernel", "#0072B2", {{20.0, 45.5, "4 KiB x 256"}, {4.0, 5.0, "a"}}});
  chart.series.push_back({"batch <stream>", "#E69F00", {{-1.5, 30.0, "b"}}});
  const std::string svg = render_scatter_chart(chart);
  EXPECT_EQ(count(svg, "class=\"point\""), 3u);
  EXPECT_EQ(count(svg, "<polyline"), 0u);  // points, not a trend
  for (const char* label :
       {">slowdown (%)<", ">median rate (GB/s)<", ">batch &lt;stream&gt;<",
        "<title>kernel, 4 KiB x 256: 45.50 GB/s, 20.0% &lt;slowdown&gt;</title>"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
  // The x axis starts below the negative slowdown rather than clipping it.
  EXPECT_NE(svg.find(">-5<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">20<"), std::string::npos) << svg;
}

TEST(Trace, PathBesideTheRecord) {
  EXPECT_EQ(trace_path_for("runs/a.json"), "runs/a.trace.json");
  EXPECT_EQ(trace_path_for("a"), "a.trace.json");
}

TEST(Trace, ReadsLanesEventsAndNames) {
  const Timeline t = read_trace(test::sweep_trace_path());
  ASSERT_EQ(t.lanes.size(), 3u);
  EXPECT_EQ(t.lanes[0].label, "stream 13: host to device");
  EXPECT_EQ(t.lanes[1].label, "stream 14: device to host");
  EXPECT_EQ(t.lanes[2].label, "stream 15: kernels");
  EXPECT_EQ(t.event_count, 13u);  // the malformed and the instant events are left out
  EXPECT_EQ(t.categories, (std::vector<std::string>{"copy", "kernel"}));
  EXPECT_DOUBLE_EQ(t.lanes[0].events[0].start_ms, 0.0);
  EXPECT_DOUBLE_EQ(t.lanes[0].events[1].start_ms, 1.25);
  EXPECT_DOUBLE_EQ(t.lanes[0].events[0].duration_ms, 1.2205);
  EXPECT_EQ(t.lanes[2].events.back().category, "copy") << "guessed from 'Memcpy DtoD'";
  EXPECT_DOUBLE_EQ(t.span_ms, 3.75 + 1.28 + 1.231);
}

TEST(Trace, BareArrayFormAndUnnamedThreads) {
  const Timeline t = timeline_from_json(nlohmann::json::parse(
      R"([{"name": "k", "ph": "X", "ts": 10, "dur": 5, "pid": 1, "tid": 7},
          {"name": "k", "ph": "X", "ts": 12, "dur": 1, "pid": 1, "tid": 2}])"));
  ASSERT_EQ(t.lanes.size(), 2u);
  EXPECT_EQ(t.lanes[0].label, "pid 1, tid 2");
  EXPECT_EQ(t.categories, (std::vector<std::string>{"other"}));
}

TEST(Trace, BadTracesAreInputErrors) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/cut.trace.json", R"({"traceEvents": [{"ph": "X")");
  test::write_file(dir + "/record.trace.json", R"({"schema": "pinbench.run"})");
  test::write_file(dir + "/empty.trace.json", R"({"traceEvents": [{"ph": "i", "ts": 1}]})");
  const auto error_of = [](const std::string& path) -> std::string {
    try {
      read_trace(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(error_of(dir + "/absent.trace.json").find("cannot open trace"), std::string::npos);
  EXPECT_NE(error_of(dir + "/cut.trace.json").find("not valid JSON (truncated?)"),
            std::string::npos);
  EXPECT_NE(error_of(dir + "/record.trace.json").find("no \"traceEvents\" array"),
            std::string::npos);
  EXPECT_NE(error_of(dir + "/empty.trace.json").find("no complete"), std::string::npos);
}

// Times no run could have are refused, naming the event, rather than drawn as "inf ms".
TEST(Trace, TimesBeyondAnyRunAndNegativeDurationsAreRefused) {
  const auto error_of = [](const std::string& events) -> std::string {
    try {
      timeline_from_json(nlohmann::json::parse("[" + events + "]"));
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string ok = R"({"name": "k", "ph": "X", "ts": 10, "dur": 5, "pid": 1, "tid": 1})";
  EXPECT_EQ(
      error_of(ok + R"(, {"name": "k", "ph": "X", "ts": 1e308, "dur": 1, "pid": 1, "tid": 1})"),
      "event 1: 'ts' is 1e+308 µs, beyond any real run's clock");
  EXPECT_EQ(error_of(R"({"name": "k", "ph": "X", "ts": 1, "dur": 1e308, "pid": 1, "tid": 1})"),
            "event 0: 'dur' is 1e+308 µs, longer than any real run (7 days)");
  EXPECT_EQ(error_of(R"({"name": "k", "ph": "X", "ts": 1, "dur": -3, "pid": 1, "tid": 1})"),
            "event 0: 'dur' is -3 µs: a duration cannot be negative");
  EXPECT_EQ(
      error_of(ok + R"(, {"name": "k", "ph": "X", "ts": 1e12, "dur": 1, "pid": 1, "tid": 1})"),
      "its events span 11.6 days, longer than any real run (7 days)");
  // An epoch-based clock (µs since 1970) is a real one.
  EXPECT_EQ(error_of(R"({"name": "k", "ph": "X", "ts": 1.7e15, "dur": 5, "pid": 1, "tid": 1})"),
            "(no error)");
}

// A million events in one lane draw as at most one per pixel and kind, and the page says so.
TEST(Trace, AMillionEventsMakeASmallPage) {
  nlohmann::json events = nlohmann::json::array();
  for (int i = 0; i < 1000000; ++i) {
    events.push_back({{"name", "cudaMemcpyAsync"},
                      {"ph", "X"},
                      {"ts", i},
                      {"dur", 0.5},
                      {"pid", 1},
                      {"tid", 1 + i % 2}});
  }
  const Timeline t = timeline_from_json(events);
  EXPECT_EQ(t.event_count, 1000000u);
  const std::string svg = render_timeline(t, "a storm of small copies");
  EXPECT_LT(svg.size(), std::size_t{20} << 20) << svg.size();
  const std::size_t drawn =
      static_cast<std::size_t>(std::count(svg.begin(), svg.end(), '\n'));  // a rectangle is a line
  EXPECT_LT(drawn, 10000u);
  EXPECT_NE(svg.find(" of 1000000 events drawn: the others are narrower than a pixel"),
            std::string::npos);
  // A short trace draws every event and says nothing.
  const std::string few = render_timeline(
      timeline_from_json(nlohmann::json::parse(R"([{"name": "k", "ph": "X", "ts": 10, "dur": 5,
        "pid": 1, "tid": 1}])")),
      "one");
  EXPECT_EQ(few.find("events drawn"), std::string::npos);
}

}  // namespace
}  // namespace pinbench
