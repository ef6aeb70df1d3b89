// The HTML report in a real browser: headless Chromium loads the page written by the real
// binary, dumps the DOM it built and takes a screenshot. The page must load with no console
// message at all (it has no scripts, so any message is a problem) and the DOM must hold the
// charts. Skipped where Chromium is not installed (Debian's `chromium`, from
// scripts/debian-packages-test.txt); CI installs it. The screenshots are kept under
// build/tests/screenshots/ for a person to look at.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "fixtures.hpp"
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
                      "scripts/debian-packages-test.txt)";
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
