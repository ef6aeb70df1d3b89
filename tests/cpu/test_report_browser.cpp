// The HTML report in a real browser: headless Chromium loads the page written by the real
// binary, dumps the DOM it built and takes a screenshot. The page must load with no console
// message at all (it has no scripts, so any message is a problem) and the DOM must hold the
// charts. Skipped where Chromium is not installed (Debian's `chromium`, from
// scripts/build/debian-packages-test.txt); CI installs it. The screenshots are kept under
// build/tests/screenshots/ for a person to look at.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    const test::Result r = test::run(std::string("command -v ") + name);
    if (r.exit_code == 0 && !r.out.empty()) return r.out.substr(0, r.out.find('\n'));
  }
  return "";
}

struct Page {
  int exit_code = -1;
  std::string dom;
  std::vector<std::string> console;  // console messages and uncaught errors
  std::string screenshot;            // the PNG's bytes
};

Page load(const std::string& chromium, const std::string& html, const std::string& png) {
  const std::string profile = test::temp_dir();
  // A fresh profile and no background traffic: the page must stand on its own.
  const std::string command =
      "timeout 120 " + chromium +
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
      " --disable-background-networking --disable-component-update --disable-sync"
      " --user-data-dir=" +
      profile + " --enable-logging=stderr --v=0 --dump-dom --screenshot=" + png +
      " --window-size=1400,3000 file://" + html;
  const test::Result r = test::run(command);
  Page page;
  page.exit_code = r.exit_code;
  page.dom = r.out;
  std::istringstream lines(r.err);  // Chromium logs to stderr
  for (std::string line; std::getline(lines, line);) {
    if (line.find(":CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) {
      page.console.push_back(line);
    }
  }
  page.screenshot = test::read_file(png);
  return page;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// Width and height from the PNG's IHDR chunk.
std::pair<unsigned, unsigned> png_size(const std::string& png) {
  if (png.size() < 24 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return {0, 0};
  const auto be32 = [&](std::size_t at) {
    unsigned v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

std::string screenshot_path(const std::string& name) {
  fs::create_directories(PINBENCH_TEST_OUTPUT_DIR "/screenshots");
  return std::string(PINBENCH_TEST_OUTPUT_DIR "/screenshots/") + name;
}

void expect_loaded(const Page& page, std::size_t charts, const std::string& title) {
  EXPECT_EQ(page.exit_code, 0);
  EXPECT_TRUE(page.console.empty()) << page.console.front();
  EXPECT_NE(page.dom.find("<title>" + title + "</title>"), std::string::npos) << page.dom;
  EXPECT_NE(page.dom.find("</html>"), std::string::npos);
  EXPECT_EQ(count(page.dom, "<svg class=\"chart"), charts);
  const auto [width, height] = png_size(page.screenshot);
  EXPECT_EQ(width, 1400u);
  EXPECT_EQ(height, 3000u);
  // A blank page compresses to a few KiB; charts and tables do not.
  EXPECT_GT(page.screenshot.size(), 60'000u);
}

class Browser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty()) {
      GTEST_SKIP() << "chromium is not installed (apt-get install chromium; see "
                      "scripts/build/debian-packages-test.txt)";
    }
  }
  std::string chromium_;
};

TEST_F(Browser, LessonReportWithATimelineLoadsCleanly) {
  const std::string dir = test::temp_dir();
  fs::copy_file(test::h200_lesson_path(), dir + "/lesson.json");
  fs::copy_file(test::sweep_trace_path(), dir + "/lesson.trace.json");
  const test::Result r =
      test::run(kBin + "report " + dir + "/lesson.json --html " + dir + "/lesson.html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Page page =
      load(chromium_, dir + "/lesson.html", screenshot_path("report-h200-with-trace.png"));
  // Rate by size in each direction, the pageable/pinned ratio, the call share, the timeline.
  expect_loaded(page, 5, "pinbench lesson on NVIDIA H200, 2026-11-30T15:59:47Z");
  EXPECT_EQ(count(page.dom, "<svg class=\"chart timeline\""), 1u);
  EXPECT_EQ(count(page.dom, "class=\"point\""), 30u);
  EXPECT_EQ(count(page.dom, "class=\"event\""), 13u);
}

TEST_F(Browser, GenericSweepReportLoadsCleanly) {
  const std::string dir = test::temp_dir();
  save_record(test::make_sweep_record(), dir + "/sweep.json");
  const test::Result r =
      test::run(kBin + "report " + dir + "/sweep.json --html " + dir + "/sweep.html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Page page = load(chromium_, dir + "/sweep.html", screenshot_path("report-sweep.png"));
  // Four panels, each as page-locked and pageable kinds.
  expect_loaded(page, 8, "pinbench sweep on Hand-made GPU, 2026-12-01T10:00:00Z");
  EXPECT_EQ(count(page.dom, "class=\"point\""), 159u);
}

// Every kind of committed record, as a reader would open it: the page loads with no console
// message, and it has the charts that answer its experiment's question (report_model.cpp).
struct CommittedRecord {
  const char* file;     // under data/
  const char* shot;     // the screenshot's name
  std::size_t charts;   // <svg class="chart ..."> elements
  const char* kind;     // one chart class the page must have
  std::size_t of_kind;  // how many of them
};

const CommittedRecord kCommitted[] = {
    // Rates by size per direction, the pageable/pinned ratio, the call share, the timeline.
    {"runs/lesson-h200-2026-11-30T165138Z.json", "lesson-timeline.png", 5, "timeline", 1},
    {"reference/day53-tesla-t4.json", "lesson-t4.png", 3, "share-chart", 1},
    // Per method and direction, page-locked and pageable kinds side by side, each chart on its
    // own scale; the bidir totals apart, last.
    {"runs/sweep-h200-2026-11-30T162938Z.json", "sweep.png", 20, "size-chart", 20},
    {"runs/sweep-pinned-h200-2026-11-30T162934Z.json", "sweep-pinned.png", 5, "size-chart", 5},
    // Pageable against pinned, both directions.
    {"runs/bandwidthtest-h200-2026-11-30T162936Z.json", "bandwidthtest.png", 1, "share-chart", 1},
    // The share of new words per condition.
    {"runs/race-h200-2026-11-30T162937Z.json", "race.png", 1, "share-chart", 1},
    // Per direction: powers of two, and the odd sizes apart.
    {"runs/staged-h200-2026-12-01T001023Z.json", "staged.png", 4, "size-chart", 4},
    // One heatmap of every shape.
    {"runs/staged-tune-h200-2026-12-01T000115Z.json", "staged-tune.png", 1, "heatmap", 1},
    // GB/s each way and efficiency, by stream count.
    {"runs/pipeline-h200-2026-12-01T001230Z.json", "pipeline.png", 2, "share-chart", 2},
};

TEST_F(Browser, EveryCommittedRecordKindLoadsCleanlyWithItsCharts) {
  for (const CommittedRecord& c : kCommitted) {
    SCOPED_TRACE(c.file);
    const std::string dir = test::temp_dir();
    const std::string record = std::string(PINBENCH_DATA_DIR) + "/" + c.file;
    const fs::path name = fs::path(record).filename();
    fs::copy_file(record, dir + "/" + name.string());
    const std::string trace = record.substr(0, record.size() - 5) + ".trace.json";
    if (fs::exists(trace)) fs::copy_file(trace, dir + "/" + fs::path(trace).filename().string());
    const test::Result r =
        test::run(kBin + "report " + dir + "/" + name.string() + " --html " + dir + "/page.html");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Page page = load(chromium_, dir + "/page.html", screenshot_path(c.shot));
    const RunRecord rec = load_record(record);
    const std::string device =
        rec.machine.device_name.empty() ? "unknown device" : rec.machine.device_name;
    expect_loaded(page, c.charts,
                  "pinbench " + rec.experiment + " on " + device + ", " + rec.created_utc);
    EXPECT_EQ(count(page.dom, std::string("<svg class=\"chart ") + c.kind), c.of_kind);
    // A chart heading with no chart under it is what this test exists to catch.
    EXPECT_EQ(page.dom.find("<div class=\"charts\">\n</div>"), std::string::npos);
  }
}

// How wide a page lays out in a window `window` pixels wide: a copy of it with a script at the
// end that writes the page's own document.documentElement.scrollWidth (and the window's and the
// page's visible widths) into the DOM, which --dump-dom prints. The page itself has no script.
struct Layout {
  int scroll = -1;  // document.documentElement.scrollWidth
  int client = -1;  // document.documentElement.clientWidth: the window, less a scroll bar
  int window = -1;  // window.innerWidth
};

Layout layout_width(const std::string& chromium, const std::string& html, int window) {
  const std::string copy = test::temp_dir() + "/measured.html";
  std::string page = test::read_file(html);
  const std::string script =
      "<script>(function () { var d = document.documentElement; var p = "
      "document.createElement('pre'); p.id = 'pinbench-layout'; p.textContent = d.scrollWidth + "
      "' ' + d.clientWidth + ' ' + window.innerWidth; document.body.appendChild(p); })();"
      "</script>";
  const std::size_t body = page.rfind("</body>");
  page.insert(body == std::string::npos ? page.size() : body, script);
  test::write_file(copy, page);
  const test::Result r =
      test::run("timeout 120 " + chromium +
                " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                " --disable-background-networking --disable-component-update --disable-sync"
                " --user-data-dir=" +
                test::temp_dir() + " --window-size=" + std::to_string(window) +
                ",900 --dump-dom file://" + copy);
  Layout out;
  const std::string tag = "<pre id=\"pinbench-layout\">";
  const std::size_t at = r.out.find(tag);
  if (at != std::string::npos) {
    std::istringstream in(r.out.substr(at + tag.size()));
    in >> out.scroll >> out.client >> out.window;
  }
  return out;
}

constexpr int kWindow = 1280;

// Every page a user opens scrolls down, never across, in a window 1280 pixels wide: the HTML of
// the newest committed record of every experiment (found in data/runs/, its subfolders too, so a
// new experiment's record is covered without editing this test), and `pinbench fleet --html` over
// the committed check records. A wide table may scroll inside its own box; the page may not.
TEST_F(Browser, NoPageScrollsSidewaysInAWindow1280PixelsWide) {
  struct Newest {
    std::string created, path;
  };
  std::map<std::string, Newest> newest;  // by experiment
  std::vector<std::string> checks;
  for (const fs::directory_entry& e :
       fs::recursive_directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const nlohmann::json j =
        nlohmann::json::parse(test::read_file(e.path().string()), nullptr, false);
    if (!j.is_object() || !j.contains("experiment") || !j["experiment"].is_string()) continue;
    const std::string experiment = j["experiment"].get<std::string>();
    const std::string created = j.value("created_utc", std::string());
    const std::string path = e.path().string();
    if (experiment == "check") checks.push_back(path);
    Newest& n = newest[experiment];
    if (n.path.empty() || std::tie(created, path) > std::tie(n.created, n.path))
      n = {created, path};
  }
  ASSERT_GE(newest.size(), 10u);
  ASSERT_FALSE(checks.empty());
  std::vector<std::pair<std::string, std::string>> pages;  // what, page
  for (const auto& [experiment, n] : newest) {
    const std::string page = test::temp_dir() + "/page.html";
    const test::Result r = test::run(kBin + "report '" + n.path + "' --html " + page);
    ASSERT_EQ(r.exit_code, 0) << n.path << ": " << r.err;
    pages.emplace_back(experiment + " (" + fs::path(n.path).filename().string() + ")", page);
  }
  std::string fleet = kBin + "fleet";
  for (const std::string& c : checks) fleet += " '" + c + "'";
  const std::string fleet_page = test::temp_dir() + "/fleet.html";
  const test::Result f = test::run(fleet + " --html " + fleet_page);
  ASSERT_TRUE(f.exit_code == 0 || f.exit_code == 1) << f.err;
  pages.emplace_back("pinbench fleet --html", fleet_page);
  for (const auto& [what, page] : pages) {
    const Layout l = layout_width(chromium_, page, kWindow);
    EXPECT_EQ(l.window, kWindow) << what;
    EXPECT_LE(l.scroll, kWindow) << what << ": the page is " << l.scroll << " px wide";
    EXPECT_LE(l.scroll, l.client) << what << ": the page is " << l.scroll << " px wide, "
                                  << l.client << " px show";
  }
}

// A word longer than a line (a path in a note, a host's or device's name from a stranger's
// record) breaks on the page instead of widening it.
TEST_F(Browser, ALongUnbreakableWordDoesNotWidenThePage) {
  const std::string dir = test::temp_dir();
  RunRecord r =
      load_record(std::string(PINBENCH_DATA_DIR) + "/runs/check-h200-2026-12-01T095735Z.json");
  const std::string word = "/a/path/" + std::string(400, 'x');
  r.note = word;
  r.machine.hostname = std::string(300, 'h');
  r.machine.device_name = std::string(300, 'D');
  save_record(r, dir + "/long.json");
  const test::Result made =
      test::run(kBin + "report " + dir + "/long.json --html " + dir + "/long.html");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ASSERT_NE(test::read_file(dir + "/long.html").find(word), std::string::npos);
  const Layout l = layout_width(chromium_, dir + "/long.html", kWindow);
  EXPECT_EQ(l.window, kWindow);
  EXPECT_LE(l.scroll, l.client) << "the page is " << l.scroll << " px wide";
}

// The measure itself: a page wider than the window is caught, one that fits is not.
TEST_F(Browser, APageWiderThanTheWindowIsCaught) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/wide.html",
                   "<!DOCTYPE html><html><head><title>wide</title></head><body>"
                   "<div style=\"width: 2000px\">x</div></body></html>");
  test::write_file(dir + "/narrow.html",
                   "<!DOCTYPE html><html><head><title>narrow</title></head><body>"
                   "<div style=\"overflow-x: auto\"><div style=\"width: 2000px\">x</div></div>"
                   "</body></html>");
  const Layout wide = layout_width(chromium_, dir + "/wide.html", kWindow);
  EXPECT_EQ(wide.window, kWindow);
  EXPECT_GT(wide.scroll, kWindow);
  const Layout narrow = layout_width(chromium_, dir + "/narrow.html", kWindow);
  EXPECT_LE(narrow.scroll, kWindow);
  EXPECT_GT(narrow.scroll, 0);
}

// The checker itself: a page with a script error must not pass as clean.
TEST_F(Browser, AConsoleErrorIsCaught) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/bad.html",
                   "<!DOCTYPE html><html><head><title>bad</title></head><body><p>x</p>"
                   "<script>missing_function();</script></body></html>");
  const Page page = load(chromium_, dir + "/bad.html", dir + "/bad.png");
  EXPECT_EQ(page.exit_code, 0);
  ASSERT_FALSE(page.console.empty());
  EXPECT_NE(page.console.front().find("missing_function"), std::string::npos);
}

}  // namespace
}  // namespace pinbench
