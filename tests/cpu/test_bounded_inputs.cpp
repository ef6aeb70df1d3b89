// Inputs a stranger can hand pinbench that once made its work grow with their square: a doctor
// record of 100,000 calls, one host of 100,000 GPUs in a fleet, a host name of 10 MB in a chart's
// label. Each is built here, in memory, and must be read, judged and rendered in a few seconds
// (the old code took minutes or never ended on each).
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "doctor_fixtures.hpp"
#include "experiments/check/analysis.hpp"
#include "experiments/check/fleet/analysis.hpp"
#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/compare.hpp"
#include "experiments/doctor/trace.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/html.hpp"
#include "framework/render/svg_chart.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::check;
using namespace experiments::doctor;
namespace {

// The bound: seconds where a linear pass takes a few (the fleet of 100,000 GPUs 3.1 s alone on a
// 2-core build machine, 6.7 s while another build ran beside it), and the quadratic one these
// tests guard against never ended (it would take thousands of times longer). Under
// AddressSanitizer in a Debug build everything runs 20 to 30 times slower (a linear pass took
// 13-21 s there), and the bound grows with it.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kBoundSeconds = 90.0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kBoundSeconds = 90.0;
#else
constexpr double kBoundSeconds = 30.0;
#endif
#else
constexpr double kBoundSeconds = 30.0;
#endif

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// `n` pageable asynchronous copies, each at a call site of its own (in `functions` functions),
// with a kernel on another stream beside each: every call is compared with the other streams'
// work.
DoctorTrace many_calls(int n, int functions = 1000) {
  DoctorTrace t;
  t.processes = 1;
  t.cupti = "CUPTI 130001";
  t.wall_ms = n * 0.01;
  for (int i = 0; i < n; ++i) {
    DoctorSite s;
    s.id = fmt::format("{:016x}", i + 1);
    s.pid = 10;
    DoctorFrame f;
    f.module = "/bin/app";
    f.offset = 0x1000u + static_cast<std::uint64_t>(i % functions);
    f.function = fmt::format("step{}", i % functions);
    s.frames.push_back(f);
    t.sites.push_back(s);
    DoctorCall c;
    c.pid = 10;
    c.api = "cudaMemcpyAsync_v3020";
    c.domain = "runtime";
    c.kind = "copy_async";
    c.start_ns = 10000LL * i;
    c.end_ns = c.start_ns + 6000;
    c.site = s.id;
    c.bytes = 4 * kMiB;
    c.direction = "h2d";
    c.host = "pageable";
    Copy k;
    k.direction = CopyDirection::kH2D;
    k.bytes = 4 * kMiB;
    k.start_ns = c.start_ns + 1000;
    k.end_ns = c.start_ns + 6000;
    k.stream = 13;
    k.src_kind = DriverMemoryKind::kPageable;
    k.dst_kind = DriverMemoryKind::kDevice;
    c.copies.push_back(k);
    t.calls.push_back(c);
    Kernel kernel;
    kernel.start_ns = c.start_ns + 3000;
    kernel.end_ns = c.start_ns + 12000;
    kernel.stream = 14;
    t.kernels.push_back(kernel);
  }
  t.kernels_total = t.kernels.size();
  return t;
}

TEST(BoundedTime, ADoctorRecordOf100000CallsIsReadJudgedAndPrintedInLinearTime) {
  const DoctorTrace t = many_calls(100000);
  const RunRecord r = test::record_with(t);
  const auto t0 = Clock::now();
  // What `report`, `--replay` and `compare` do with it: read the section (every call's site
  // looked up), judge it, print it.
  const ReportModel m = analyse(r);
  const std::string text = test::unwrapped(render_text(m));
  const double took = seconds_since(t0);
  EXPECT_LT(took, kBoundSeconds) << "a doctor record of 100,000 calls took " << took << " s";
  EXPECT_NE(text.find("[pageable-async]: 100000 calls"), std::string::npos) << text.substr(0, 2000);
  // Each kernel starts 3 us into its call and runs 9 us, to 2 us into the next call: 3 + 2 us of
  // kernels inside each call but the first, and after a call's end 5 us of its kernel within the
  // copy's 5 us length.
  EXPECT_NE(text.find("overlap prevented: 500.000 ms of other streams' work began after these "
                      "calls let the host go, within a copy's length (499.998 ms of other "
                      "streams' work did run inside the calls)"),
            std::string::npos)
      << text.substr(text.find("overlap prevented"), 400);
}

// Two records of 50,000 calls at 50,000 call sites, each site a row of the finding: compare
// matches each of B's sites to A's in one look-up (by name, one by one, it took minutes).
TEST(BoundedTime, ComparingTwoDoctorRecordsOf50000SitesTakesLinearTime) {
  const RunRecord r = test::record_with(many_calls(50000, 50000));
  const auto t0 = Clock::now();
  const DoctorComparison c = compare_doctor(r, r);
  const double took = seconds_since(t0);
  EXPECT_LT(took, kBoundSeconds) << "comparing two records of 50,000 sites took " << took << " s";
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].sites.size(), 50000u);
  for (const DoctorSiteChange& s : c.findings[0].sites) ASSERT_TRUE(s.a && s.b) << s.where;
}

// One host's check holding 100,000 GPUs, in a fleet record: read back (each row judged against
// its peers on the host), analysed and printed.
TEST(BoundedTime, AFleetHostOf100000GpusIsJudgedInLinearTime) {
  FleetMember m;
  m.source = "big.json";
  m.created_utc = "2026-12-01T10:00:00Z";
  m.check.hostname = "big";
  for (int i = 0; i < 100000; ++i) {
    GpuCheck g;
    g.gpu.index = i % (kMaxGpuIndex + 1);  // more GPUs than indices: a stranger's record
    g.gpu.name = "NVIDIA H200";
    g.gpu.uuid = fmt::format("GPU-{:08x}", i);
    g.gpu.pcie.max_gen = g.gpu.pcie.current_gen = 5;
    g.gpu.pcie.max_width = g.gpu.pcie.current_width = 16;
    g.gpu.pcie_loaded = g.gpu.pcie;
    g.gpu.loaded_read = true;
    g.pinned_h2d = g.pinned_d2h = 55.0 + (i % 7) * 0.01;
    g.pageable_h2d = g.pageable_d2h = 9.0;
    g.round_trip_p50_us = g.round_trip_p99_us = 20.0;
    m.check.gpus.push_back(g);
  }
  m.check.gpus[4242].pinned_h2d = 20.0;  // one slow GPU: UUID GPU-00001092
  const RunRecord fleet = make_fleet_record({m}, "me");
  const auto t0 = Clock::now();
  const RunRecord back = record_from_json(to_json(fleet));
  const ReportModel model = analyse(back);
  const double took = seconds_since(t0);
  EXPECT_LT(took, kBoundSeconds) << "a host of 100,000 GPUs took " << took << " s";
  const FleetAnalysis& a = section<FleetAnalysis>(model);
  ASSERT_EQ(a.gpus.size(), 100000u);
  std::size_t flagged = 0;
  for (const FleetGpu& g : a.gpus) flagged += g.flags.empty() ? 0 : 1;
  EXPECT_EQ(flagged, 1u) << fmt::format("{}", fmt::join(a.gpus[0].flags, "; "));
  for (const FleetGpu& g : a.gpus) {
    if (g.check.gpu.uuid == "GPU-00001092") {
      EXPECT_FALSE(g.flags.empty());
    }
  }
}

// A host name of 10 MB in a fleet's HTML report: its chart labels and titles are cut to fit in
// one pass over the name, not one measurement of it per character dropped.
TEST(BoundedTime, ATenMegabyteHostNameInTheFleetsHtmlIsCutAtOnce) {
  FleetMember m;
  m.source = "long.json";
  m.created_utc = "2026-12-01T10:00:00Z";
  m.check.hostname = std::string(10u << 20, 'h');
  GpuCheck g;
  g.gpu.name = "NVIDIA H200";
  g.gpu.uuid = "GPU-1";
  g.pinned_h2d = g.pinned_d2h = 55.0;
  m.check.gpus.push_back(g);
  judge_check(m.check);
  const RunRecord fleet = make_fleet_record({m}, "me");
  const auto t0 = Clock::now();
  const ReportModel model = analyse(fleet);
  const std::string html = render_html(fleet, model, {});
  const double took = seconds_since(t0);
  EXPECT_LT(took, kBoundSeconds) << "a host name of 10 MB took " << took << " s";
  EXPECT_NE(html.find("fleet-gpus"), std::string::npos);
}

TEST(ChartText, ALabelIsCutToWholeCharactersThatFit) {
  // 0.6 x 10 px a character: 10 characters in 60 px.
  EXPECT_EQ(characters_within(60, 10), 10u);
  EXPECT_EQ(characters_within(59.9, 10), 9u);
  EXPECT_EQ(characters_within(-1, 10), 0u);
  EXPECT_EQ(fit_text("abcdefghij", 10, 60), "abcdefghij");
  EXPECT_EQ(fit_text("abcdefghijk", 10, 60), "abcdefghij…");
  EXPECT_EQ(fit_text("abcdefghijk", 10, 6), "abcd…");  // never fewer than 4
  EXPECT_EQ(fit_text("abc", 10, 6), "abc");            // nothing to cut
  // "é" is two bytes and one character: the cut never splits it.
  EXPECT_EQ(fit_text("ééééééééééé", 10, 30), "ééééé…");
  EXPECT_EQ(first_characters("aé€b", 3), "aé€");
  EXPECT_EQ(first_characters("aé", 5), "aé");
}

}  // namespace
}  // namespace pinbench
