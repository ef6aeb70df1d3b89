// Every committed record (data/runs/*.json), rendered by every printer (text, markdown, CSV,
// HTML) and held against tests/golden/records/. It guards the house against moves: whatever is
// restructured, a record renders as it did, unless a golden's diff says otherwise and was read.
//
// The goldens are normalised (golden_normalise.hpp): the HTML's style sheet is one placeholder,
// and an SVG's coordinates are placeholders too, so a golden shows what a reader reads (labels,
// figures, verdicts, tables) and not the pixel arithmetic of a chart. Regenerate them after an
// intended change with PINBENCH_UPDATE_GOLDEN=1 and read the diff before committing it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "golden_normalise.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> committed_records() {
  std::vector<std::string> paths;
  for (const fs::directory_entry& e :
       fs::directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
    const std::string name = e.path().filename().string();
    const bool record = e.is_regular_file() && e.path().extension() == ".json" &&
                        name.find(".trace.json") == std::string::npos;
    if (record) paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

class RecordRenders : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordRenders, EveryPrinterMatchesItsGolden) {
  const std::string path = GetParam();
  const RunRecord record = load_record(path);
  const ReportModel model = analyse(record);
  const std::string stem = "records/" + fs::path(path).stem().string();
  test::expect_matches_golden(render_text(model), stem + ".txt");
  test::expect_matches_golden(render_markdown(model), stem + ".md");
  test::expect_matches_golden(render_csv(model), stem + ".csv");
  test::expect_matches_golden(
      test::normalise_html(render_html(record, model, html_extras_for(path))), stem + ".html");
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Committed, RecordRenders, ::testing::ValuesIn(committed_records()),
                         test_name);

TEST(GoldenNormalise, StyleSheetAndChartCoordinatesBecomePlaceholders) {
  const std::string html =
      "<head><style>\nbody { margin: 0 }\n</style></head>"
      "<svg viewBox=\"0 0 640 320\"><rect x=\"12.5\" y=\"-3\" width=\"4e2\"/>"
      "<path d=\"M1,2 L3.25,4\"/><text x=\"10\" y=\"20\">64 MiB at 55.3 GB/s</text></svg>"
      "<p>55.3 GB/s</p>";
  EXPECT_EQ(test::normalise_html(html),
            "<head><style>{css}</style></head>"
            "<svg viewBox=\"# # # #\"><rect x=\"#\" y=\"#\" width=\"#\"/>"
            "<path d=\"M#,# L#,#\"/><text x=\"#\" y=\"#\">64 MiB at 55.3 GB/s</text></svg>"
            "<p>55.3 GB/s</p>");
}

}  // namespace
}  // namespace pinbench
