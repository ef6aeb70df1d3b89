// A short lesson traced with CUPTI on a real GPU: the driver's memory kinds match the buffers'
// (pageable seen as pageable, pinned as pinned), every copy and kernel joins the API call that
// started it, the NVTX ranges arrive, and prediction 4 can be read from the trace. And without
// CUPTI the run goes on untraced.
//
// NVTX picks its tool at its first call in the process, so the traced test must run before any
// other test opens an NVTX range: this file is listed first in tests/CMakeLists.txt, and CTest
// runs each test in a process of its own anyway.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <set>

#include "cuda/cupti_trace.hpp"
#include "experiments/lesson/analysis.hpp"
#include "experiments/lesson/measure.hpp"
#include "experiments/lesson/prediction4.hpp"
#include "framework/by_experiment.hpp"
#include "framework/render/perfetto.hpp"
#include "framework/trace_gates.hpp"
#include "framework/units.hpp"
#include "gpu_test.hpp"

namespace pinbench {
using namespace experiments::lesson;
namespace {

LessonConfig short_config() {
  LessonConfig c = LessonConfig::defaults();
  c.sizes = {kMiB, 4 * kMiB};
  c.iterations = 3;
  c.async_bytes = 4 * kMiB;
  c.async_iterations = 3;
  c.kernel_bytes = 4 * kMiB;
  c.kernel_iterations = 3;
  c.ratio_bytes = 4 * kMiB;
  return c;
}

const NvtxRange* range_named(const Trace& t, const std::string& name) {
  for (const NvtxRange& r : t.ranges) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

TEST(TraceGpu, AShortTracedRunSeesWhatTheDriverSaw) {
  PINBENCH_REQUIRE_GPU();
  std::string why;
  std::unique_ptr<cuda::CuptiTrace> cupti = cuda::CuptiTrace::start(&why);
  if (cupti == nullptr) GTEST_SKIP() << "CUPTI is not usable here: " << why;
  std::cout << "CUPTI from " << cupti->library() << "\n";

  RunRecord record = run_lesson(short_config(), [](const std::string&) {});
  const Trace trace = cupti->finish();
  ASSERT_TRUE(record.all_gates_passed());

  std::set<std::uint32_t> call_threads, range_threads;
  for (const ApiCall& c : trace.api_calls) call_threads.insert(c.thread);
  for (const NvtxRange& r : trace.ranges) range_threads.insert(r.thread);
  std::cout << trace.source << ": " << trace.api_calls.size() << " API calls, "
            << trace.copies.size() << " copies, " << trace.kernels.size() << " kernels, "
            << trace.ranges.size() << " NVTX ranges, " << trace.dropped_records
            << " dropped; call threads " << call_threads.size() << " (first "
            << *call_threads.begin() << "), range threads " << range_threads.size() << "\n";
  for (const std::string& n : trace.notes) std::cout << "note: " << n << "\n";
  EXPECT_EQ(trace.dropped_records, 0u);

  // NVTX ranges, in pinbench's domain.
  for (const char* name :
       {"part1 h2d pageable", "part1 d2h pinned", "part2 async h2d pageable",
        "part2 async h2d pinned", "part2 async d2h pageable", "part3 kernel zero-copy"}) {
    const NvtxRange* r = range_named(trace, name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_EQ(r->domain, "pinbench") << name;
    EXPECT_LT(r->start_ns, r->end_ns) << name;
    if (!range_threads.empty() && !call_threads.empty()) {
      EXPECT_TRUE(call_threads.count(r->thread) != 0 || r->thread == 0)
          << name << ": range thread " << r->thread << " is no API call's thread";
    }
  }

  // Every copy and kernel joins the call that started it, and copy calls join their copies.
  // The driver may copy on its own account (loading a module, say): such copies are listed,
  // not failed.
  std::map<std::uint32_t, const ApiCall*> calls;
  for (const ApiCall& c : trace.api_calls) calls[c.correlation] = &c;
  std::size_t joined = 0;
  for (const Copy& c : trace.copies) {
    const auto it = calls.find(c.correlation);
    if (it != calls.end() && it->second->name.find("cudaMemcpy") != std::string::npos) {
      ++joined;
    } else {
      std::cout << "copy not from a cudaMemcpy call: correlation " << c.correlation << ", "
                << (it == calls.end() ? std::string("no call") : it->second->name) << ", "
                << c.bytes << " B " << to_string(c.direction) << "\n";
    }
  }
  EXPECT_GT(joined, trace.copies.size() / 2);
  std::size_t scale_copy = 0;
  for (const Kernel& k : trace.kernels) {
    ASSERT_TRUE(calls.count(k.correlation) != 0) << k.name;
    scale_copy += k.name.find("scale_copy") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(scale_copy, 2u * (1 + 3 + 3));  // two variants: gate, warm-ups, timed
  for (const ApiCall& c : trace.api_calls) {
    if (c.name == "cudaMemcpyAsync" || c.name == "cudaMemcpy") {
      EXPECT_NE(trace.copy_of(c), nullptr) << c.name << " " << c.correlation;
    }
  }

  // The memory kinds as the driver saw them: pageable sources as pageable, pinned as pinned.
  const std::vector<Gate> kinds = check_memory_kinds(trace, range_gates());
  std::set<std::string> names;
  for (const Gate& g : kinds) {
    names.insert(g.name);
    EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
    std::cout << g.name << ": " << g.detail << "\n";
  }
  for (const char* gate : {"trace/kind/copy/h2d/pageable", "trace/kind/copy/h2d/pinned",
                           "trace/kind/copy/d2h/pageable", "trace/kind/copy/d2h/pinned",
                           "trace/kind/async/h2d/pageable", "trace/kind/async/h2d/pinned",
                           "trace/kind/async/d2h/pageable", "trace/kind/async/d2h/pinned"}) {
    EXPECT_EQ(names.count(gate), 1u) << gate;
  }

  // Prediction 4 from the trace: three timed calls per group, the same bytes.
  Prediction4Options options;
  options.timed = 3;
  const Prediction4Evidence e = select_prediction4(trace, options);
  EXPECT_EQ(e.selection, Selection::kNvtxRanges);
  EXPECT_EQ(e.pageable.call_ns.size(), 3u);
  EXPECT_EQ(e.pinned.call_ns.size(), 3u);
  ASSERT_TRUE(e.pageable.bytes.has_value());
  EXPECT_EQ(*e.pageable.bytes, 3 * 4 * kMiB);
  EXPECT_EQ(e.pinned.bytes, e.pageable.bytes);
  const Prediction4Judgement j = judge_prediction4(e);
  ASSERT_TRUE(j.ratio.has_value()) << j.reason;
  std::cout << "prediction 4 at 4 MiB: pageable " << j.pageable_ms << " ms, pinned " << j.pinned_ms
            << " ms, ratio " << *j.ratio << ", " << verdict_word(j.verdict, Judged::kPrediction)
            << "\n";

  // The same evidence through the record, as a replay sees it.
  attach_trace(record, trace, "short.trace.json");
  const LessonAnalysis a = analyse_lesson(record_from_json(to_json(record)));
  EXPECT_TRUE(a.checks_passed());
  ASSERT_TRUE(a.trace_evidence.has_value());
  EXPECT_EQ(a.predictions.at(3).verdict, j.verdict);

  // The timeline has an arrow for every joined copy and kernel.
  const nlohmann::json doc = perfetto_json(trace);
  std::size_t flows = 0;
  for (const nlohmann::json& ev : doc["traceEvents"]) flows += ev["ph"] == "s" ? 1 : 0;
  EXPECT_LE(flows, trace.copies.size() + trace.kernels.size());
  EXPECT_GE(flows, joined + scale_copy);
}

TEST(TraceGpu, WithoutCuptiTheRunGoesOnUntraced) {
  PINBENCH_REQUIRE_GPU();
  std::string why;
  const auto cupti = cuda::CuptiTrace::start({"/nonexistent/libcupti.so.13"}, &why);
  EXPECT_EQ(cupti, nullptr);
  EXPECT_NE(why.find("CUPTI not found"), std::string::npos) << why;
  EXPECT_NE(why.find("/nonexistent/libcupti.so.13"), std::string::npos) << why;
  const RunRecord record = run_lesson(short_config(), [](const std::string&) {});
  EXPECT_TRUE(record.all_gates_passed());
  EXPECT_TRUE(record.trace.is_null());
}

TEST(TraceGpu, CuptiCandidates) {
  // An explicit CUPTI_PATH is the only place looked at.
  EXPECT_EQ(cuda::cupti_candidates("/opt/cupti/libcupti.so.13", "/cuda"),
            std::vector<std::string>{"/opt/cupti/libcupti.so.13"});
  EXPECT_EQ(cuda::cupti_candidates("/opt/cupti", nullptr),
            (std::vector<std::string>{"/opt/cupti/libcupti.so.13", "/opt/cupti/libcupti.so"}));
  const std::vector<std::string> usual = cuda::cupti_candidates(nullptr, "/opt/cuda-13");
  ASSERT_GE(usual.size(), 5u);
  EXPECT_EQ(usual[0], "libcupti.so.13");
  EXPECT_EQ(usual[1], "/opt/cuda-13/lib64/libcupti.so.13");
  EXPECT_EQ(usual[2], "/opt/cuda-13/extras/CUPTI/lib64/libcupti.so.13");
  EXPECT_EQ(usual[3], "/usr/local/cuda/lib64/libcupti.so.13");
  EXPECT_EQ(cuda::cupti_candidates("", nullptr).front(), "libcupti.so.13");
}

}  // namespace
}  // namespace pinbench
