// The Perfetto (Chrome trace-event) writer against a whole expected file, and the properties a
// viewer relies on. Regenerate the expected file after an intended change with
// PINBENCH_UPDATE_GOLDEN=1 and read the diff before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "framework/errors.hpp"
#include "fixtures.hpp"
#include "framework/render/perfetto.hpp"
#include "trace_fixtures.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

// A trace small enough to read: one range around a pageable and a pinned copy, a kernel, and a
// synchronisation that started nothing on the GPU.
Trace small_trace() {
  Trace t;
  t.source = "hand-made";
  t.origin_ns = 1'000'000;
  t.notes = {"a note"};
  t.ranges = {{"part2 async h2d pageable", "pinbench", 1'001'000, 1'100'000, 42}};
  t.api_calls = {{"cudaMemcpyAsync", 1'002'000, 1'011'500, 42, 7},
                 {"cudaStreamSynchronize", 1'012'000, 1'013'000, 42, 8},
                 {"cudaMemcpyAsync", 1'020'000, 1'020'012, 42, 9},
                 {"cudaLaunchKernel", 1'030'000, 1'030'004, 42, 10}};
  t.copies = {{CopyDirection::kH2D, 67108864, 1'002'500, 1'011'700, 13, DriverMemoryKind::kPageable,
               DriverMemoryKind::kDevice, 7},
              {CopyDirection::kH2D, 67108864, 1'020'100, 1'021'330, 13, DriverMemoryKind::kPinned,
               DriverMemoryKind::kDevice, 9}};
  t.kernels = {
      {"scale_copy(float const*, float*, unsigned long, float)", 1'030'010, 1'030'058, 14, 10}};
  return t;
}

TEST(Perfetto, SmallTraceMatchesTheExpectedFile) {
  const std::string actual = perfetto_text(small_trace());
  const std::string path = std::string(PINBENCH_TEST_DATA_DIR) + "/perfetto/small-trace.json";
  if (const char* update = std::getenv("PINBENCH_UPDATE_GOLDEN"); update && *update == '1') {
    test::write_file(path, actual);
  }
  const std::string expected = test::read_file(path);
  ASSERT_FALSE(expected.empty()) << "missing golden file " << path;
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(json::parse(actual), perfetto_json(small_trace()));
}

TEST(Perfetto, TracksTimesAndArrows) {
  const json doc = perfetto_json(test::lesson_trace());
  std::size_t slices = 0, starts = 0, finishes = 0, names = 0;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "X") {
      ++slices;
      EXPECT_GE(e["ts"].get<double>(), 0.0);
      EXPECT_GE(e["dur"].get<double>(), 0.0);
    }
    starts += ph == "s" ? 1 : 0;
    finishes += ph == "f" ? 1 : 0;
    if (ph == "M" && e["name"] == "thread_name") ++names;
  }
  const Trace t = test::lesson_trace();
  EXPECT_EQ(slices, t.ranges.size() + t.api_calls.size() + t.copies.size() + t.kernels.size());
  EXPECT_EQ(starts, t.copies.size() + t.kernels.size());  // one arrow per call that started work
  EXPECT_EQ(finishes, starts);
  EXPECT_EQ(names, 1u + 3u);  // the host thread; streams 7, 13 and 14
  EXPECT_EQ(doc["otherData"]["source"], "hand-made");
}

TEST(Perfetto, AnUnknownThreadJoinsTheOnlyKnownOne) {
  Trace t = small_trace();
  t.ranges[0].thread = 0;  // as when CUPTI named marker threads differently
  const json doc = perfetto_json(t);
  std::set<std::int64_t> host_tids;
  for (const json& e : doc["traceEvents"]) {
    if (e["pid"] == 1 && e.contains("tid")) host_tids.insert(e["tid"].get<std::int64_t>());
  }
  EXPECT_EQ(host_tids, std::set<std::int64_t>{1});
}

TEST(Perfetto, AnyNameSerialises) {
  Trace t = small_trace();
  t.kernels[0].name = "bad \xff\xfe utf-8 \"quoted\"\n";
  t.ranges[0].name = std::string("nul\0inside", 10);
  const std::string text = perfetto_text(t);
  EXPECT_NO_THROW(json::parse(text));
}

TEST(Perfetto, ReadsBackWhatItWrote) {
  const Trace t = test::lesson_trace();
  const Trace back = trace_from_perfetto(json::parse(perfetto_text(t)));
  EXPECT_EQ(perfetto_text(back), perfetto_text(t));
  EXPECT_EQ(back.api_calls.size(), t.api_calls.size());
  EXPECT_EQ(back.copies.size(), t.copies.size());
  EXPECT_EQ(back.copies[0].src_kind, t.copies[0].src_kind);
  EXPECT_EQ(back.copies[0].bytes, t.copies[0].bytes);
  EXPECT_EQ(back.ranges[0].domain, "pinbench");
  EXPECT_THROW(trace_from_perfetto(json::parse(R"({"schema": "pinbench.run"})")), InputError);
  EXPECT_THROW(trace_from_perfetto(json::parse(R"({"traceEvents": [{"ph": "X"}]})")), InputError);
}

TEST(Perfetto, WritesAtomicallyOrSaysWhy) {
  const std::string dir = test::temp_dir();
  write_perfetto(small_trace(), dir + "/t.json");
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.json.tmp"));
  EXPECT_EQ(test::read_file(dir + "/t.json"), perfetto_text(small_trace()));
  EXPECT_THROW(write_perfetto(small_trace(), dir + "/absent/t.json"), InputError);
}

}  // namespace
}  // namespace pinbench
