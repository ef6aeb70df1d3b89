// `pinbench staged`, `staged --tune` and `pinbench pipeline` on a real GPU, small: every method,
// direction and size runs and passes its byte checks, the analysis finds every row, and the
// pipeline returns every float exactly from both sources at 1, 2 and 3 streams, each ending on
// a partial chunk.
#include <algorithm>
#include <string>

#include "experiments/pipeline/analysis.hpp"
#include "experiments/pipeline/measure.hpp"
#include "experiments/staged/analysis.hpp"
#include "experiments/staged/measure.hpp"
#include "experiments/staged/plan.hpp"
#include "framework/units.hpp"
#include "gpu_test.hpp"

namespace pinbench {
using namespace experiments::pipeline;
using namespace experiments::staged;
namespace {

const ProgressFn kQuiet = [](const std::string&) {};

TEST(GpuStagedBench, ASmallRunPassesEveryGate) {
  PINBENCH_REQUIRE_GPU();
  StagedBenchConfig c = StagedBenchConfig::defaults();
  c.sizes = {4 * kKiB, 3 * kMiB};
  c.odd_sizes = {kMiB + 13};
  c.warmups = 1;
  c.iterations = 2;
  c.normalize();
  const RunRecord r = run_staged(c, kQuiet);
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
  const bool kernel = r.machine.pageable_memory_access != 0;
  const std::size_t methods = all_staged_methods().size() - (kernel ? 0 : 1);
  // Every method at every size and direction (staged-fresh, a destination method, to the host
  // only), and the bound (host alone, host under DMA) at the one aligned size from 1 MiB up.
  EXPECT_EQ(r.cases.size(), 2 * 3 * methods - 3 + 2 * 2);
  EXPECT_EQ(r.config["skipped"].size(), kernel ? 0u : 1u);
  for (const Case& k : r.cases) {
    EXPECT_TRUE(k.verified) << k.gate;
    EXPECT_EQ(k.samples_ms.size(), 2u) << k.gate;
    if (k.method == "staged" || k.method == "staged-back-to-back") {
      EXPECT_EQ(
          k.extra.value("path", ""),
          k.bytes >=
                  (k.direction == "h2d" ? c.engine.to_device : c.engine.to_host).direct_below_bytes
              ? "staged"
              : "direct")
          << k.gate;
    }
  }
  const StagedAnalysis a = analyse_staged(r);
  EXPECT_EQ(a.rows.at("h2d").size(), 3u);
  EXPECT_EQ(a.rows.at("d2h").size(), 3u);
  EXPECT_TRUE(a.rows.at("h2d")[2].staged_over_pinned.has_value());
  EXPECT_TRUE(a.rows.at("d2h")[2].back_to_back_over_pinned.has_value());
  for (const char* d : {"h2d", "d2h"}) {
    const StagedRow& row = a.rows.at(d)[2];
    ASSERT_TRUE(row.bound_gb_per_s && row.staged_over_bound && row.back_to_back_over_bound) << d;
    EXPECT_LE(*row.bound_gb_per_s, *row.gb_per_s.at("pinned") * (1 + 1e-9)) << d;
    EXPECT_FALSE(a.rows.at(d)[0].bound_gb_per_s.has_value()) << d;  // 4 KiB: no bound near
  }
  test::expect_every_case_stopped(r, 2);
  // The odd size is named exactly, with its offsets.
  EXPECT_NE(
      std::find_if(r.gates.begin(), r.gates.end(),
                   [](const Gate& g) { return g.name == "staged/h2d/staged/1048589B@+3/+1"; }),
      r.gates.end());
}

TEST(GpuStagedBench, TheTuningGridRuns) {
  PINBENCH_REQUIRE_GPU();
  StagedTuneConfig t;
  t.sizes = {8 * kMiB};
  t.chunk_bytes = {2 * kMiB, 4 * kMiB};
  t.depths = {2, 3};
  t.threads = {2};
  t.iterations = 2;
  const RunRecord r = run_staged_tune(t, kQuiet);
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
  EXPECT_EQ(tune_rows(r).size(), 2u * 4u);
  EXPECT_EQ(tune_choices(tune_rows(r)).size(), 2u);
  test::expect_every_case_stopped(r, 2);
}

TEST(GpuPipeline, BothSourcesReturnEveryFloatAtOneTwoAndThreeStreams) {
  PINBENCH_REQUIRE_GPU();
  PipelineConfig p;
  p.array_bytes = 96 * kMiB;
  p.window_bytes = 10 * kMiB;  // no stream count divides the array into whole chunks
  p.streams = {1, 2, 3};
  p.iterations = 2;
  p.kernel_rounds = 2;
  p.validate();
  const RunRecord r = run_pipeline(p, kQuiet);
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
  const PipelineAnalysis a = analyse_pipeline(r);
  ASSERT_EQ(a.rows.size(), 6u);
  for (const PipelineRow& row : a.rows) {
    EXPECT_TRUE(row.efficiency.has_value()) << row.source << " " << row.streams;
    EXPECT_GT(*row.efficiency, 0.0);
    // Through the engine the host side is part of the bound; from page-locked memory it is not.
    EXPECT_EQ(row.host_bound_ms.has_value(), row.source == "staged") << row.streams;
  }
  test::expect_every_case_stopped(r, 2);
}

}  // namespace
}  // namespace pinbench
