// A short lesson on a real GPU: every gate passes, every case is measured and verified, and the
// record survives a round trip through JSON into the same analysis.
#include <cstdint>

#include "experiments/lesson/analysis.hpp"
#include "experiments/lesson/measure.hpp"
#include "experiments/lesson/text.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/units.hpp"
#include "gpu_test.hpp"

namespace pinbench {
using namespace experiments::lesson;
namespace {

LessonConfig short_config() {
  LessonConfig c = LessonConfig::defaults();
  c.sizes = {kMiB, 4 * kMiB + 12};  // an odd size too
  c.iterations = 3;
  c.async_bytes = 4 * kMiB;
  c.async_iterations = 3;
  c.kernel_bytes = 4 * kMiB;
  c.kernel_iterations = 3;
  c.ratio_bytes = 4 * kMiB;
  return c;
}

TEST(GpuLesson, ShortRunPassesEveryGate) {
  PINBENCH_REQUIRE_GPU();
  int progress_calls = 0;
  const RunRecord r = run_lesson(short_config(), [&](const std::string&) { ++progress_calls; });
  EXPECT_GT(progress_calls, 0);
  EXPECT_TRUE(r.all_gates_passed());
  // Part 1: 2 sizes x 2 kinds x 2 directions; part 2: 4 probes; part 3: 3 variants.
  EXPECT_EQ(r.cases.size(), 8u + 4u + 3u);
  for (const Case& c : r.cases) {
    EXPECT_TRUE(c.verified) << c.gate;
    EXPECT_EQ(c.samples_ms.size(), 3u) << c.gate;
    for (double ms : c.samples_ms) EXPECT_GT(ms, 0.0) << c.gate;
    if (c.part == "async") {
      EXPECT_EQ(c.call_ms.size(), 3u);
    }
  }
  // The page's method: a fixed count.
  test::expect_every_case_stopped(r, 3);
  // The odd size is named exactly, not rounded into 4 MiB's name.
  EXPECT_NE(r.find("copy", "h2d", "pinned", 4 * kMiB + 12), nullptr);
  EXPECT_EQ(r.find("copy", "h2d", "pinned", 4 * kMiB + 12)->gate, "copy/h2d/pinned/4194316B");
  EXPECT_GT(r.wall_ms, 0.0);
  EXPECT_FALSE(r.machine.device_name.empty());
  EXPECT_GT(r.machine.sm_count, 0);

  const RunRecord back = record_from_json(to_json(r));
  const LessonAnalysis a = analyse_lesson(back);
  EXPECT_TRUE(a.checks_passed());
  ASSERT_TRUE(a.h2d_ratio_at.has_value());
  EXPECT_TRUE(a.model.available);
  EXPECT_FALSE(render_lesson_text(back, a, std::nullopt).empty());
}

TEST(GpuLesson, RefusesSizesPastTheDevice) {
  PINBENCH_REQUIRE_GPU();
  LessonConfig c = short_config();
  c.sizes = {kMiB, std::uint64_t{1} << 50};
  EXPECT_THROW(run_lesson(c, [](const std::string&) {}), InputError);
}

}  // namespace
}  // namespace pinbench
