// Renderers against whole expected files. Regenerate them after an intended change with
// PINBENCH_UPDATE_GOLDEN=1 and read the diff before committing it.
#include <gtest/gtest.h>

#include <regex>

#include "experiments/lesson/analysis.hpp"
#include "experiments/lesson/text.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/text_table.hpp"

namespace pinbench {
using namespace experiments::lesson;
namespace {

using test::expect_matches_golden;

std::string render(const RunRecord& r, const std::optional<ReferenceComparison>& ref = {}) {
  return render_lesson_text(r, analyse_lesson(r), ref);
}

TEST(TextTable, AlignsColumns) {
  TextTable t({"name", "value"});
  t.add_row({"a", "1.5"});
  t.add_row({"longer", "—"});
  EXPECT_EQ(t.render(""),
            "name    value\n"
            "-------------\n"
            "a         1.5\n"
            "longer      —\n");
  EXPECT_THROW(t.add_row({"only one"}), std::invalid_argument);
}

TEST(TextTable, TextColumnsStartAtTheirLeftEdgeHeaderAndCellsAlike) {
  // A UUID column right-aligned under a short header left "UUID" 36 columns right of its data.
  TextTable t({"host", "UUID", "rt µs"}, {false, false, true});
  t.add_row({"vm", "GPU-5618491a", "9.3"});
  t.add_row({"a-long-host", "—", "10.25"});
  EXPECT_EQ(t.render(""),
            "host         UUID          rt µs\n"
            "--------------------------------\n"
            "vm           GPU-5618491a    9.3\n"
            "a-long-host  —             10.25\n");
  EXPECT_EQ(display_width("µs —"), 4u);
  EXPECT_THROW(TextTable({"a", "b"}, {true}), std::invalid_argument);
}

TEST(RenderLesson, CommittedH200Run) {
  const RunRecord r = load_record(test::h200_lesson_path());
  const RunRecord t4 = load_record(test::t4_reference_path());
  expect_matches_golden(render(r, compare_with_reference(analyse_lesson(r), t4)),
                        "lesson-h200.txt");
}

TEST(RenderLesson, PublishedT4Tables) {
  expect_matches_golden(render(load_record(test::t4_reference_path())), "lesson-t4.txt");
}

TEST(RenderLesson, FailedGateShowsADashAndTheFailure) {
  RunRecord r = test::make_lesson_record();
  r.find("copy", "h2d", "pinned", 64 << 20)->verified = false;
  r.gates.push_back({"copy/h2d/pinned/64MiB", false, "first difference at byte 12 of 67108864"});
  const std::string text = render(r);
  EXPECT_TRUE(std::regex_search(text, std::regex("\n  64 MiB +14\\.690 +4\\.57 +— +— +—\n")))
      << text;
  EXPECT_NE(text.find("FAILED: gate copy/h2d/pinned/64MiB failed: first difference at byte 12"),
            std::string::npos);
  EXPECT_EQ(text.find("Passed ("), std::string::npos);
}

TEST(RenderLesson, PinnedSlowerRowIsMarked) {
  test::LessonFigures f;
  f.h2d_pinned_ms[0] = 0.5;
  const std::string text = render(test::make_lesson_record(f));
  EXPECT_NE(text.find("0.60x !"), std::string::npos) << text;
  EXPECT_NE(text.find("may not be pinned"), std::string::npos);
}

}  // namespace
}  // namespace pinbench
