// The nsys stats reader on hand-made exports in the header spellings of nsys 2021 to 2026
// (tests/data/nsys/, described in its README), and on the ways such files go wrong.
#include <gtest/gtest.h>

#include <filesystem>

#include "experiments/lesson/nsys_stats.hpp"
#include "fixtures.hpp"
#include "framework/errors.hpp"

namespace pinbench {
using namespace experiments::lesson;
namespace {

namespace fs = std::filesystem;

std::string nsys_dir(const std::string& variant) {
  return std::string(PINBENCH_TEST_DATA_DIR) + "/nsys/" + variant;
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// A copy of a fixture folder that a test may damage.
std::string copy_of(const std::string& variant) {
  const std::string dir = test::temp_dir();
  for (const fs::directory_entry& e : fs::directory_iterator(nsys_dir(variant))) {
    fs::copy_file(e.path(), fs::path(dir) / e.path().filename());
  }
  return dir;
}

TEST(NsysHeaders, NamesAndUnitsSplitCaseInsensitively) {
  EXPECT_EQ(normalize_header("Total Time (ns)").name, "total time");
  EXPECT_EQ(normalize_header("Total Time (ns)").unit, "ns");
  EXPECT_EQ(normalize_header(" Time(%) ").name, "time");
  EXPECT_EQ(normalize_header("Time(%)").unit, "%");
  EXPECT_EQ(normalize_header("CorrID").name, "corrid");
  EXPECT_EQ(normalize_header("CorrID").unit, "");
  EXPECT_EQ(normalize_header("Bytes (MB)").unit, "mb");
  EXPECT_EQ(normalize_header("Num  Calls").name, "num calls");
  EXPECT_EQ(normalize_header("Start (us)").unit, "us");
}

TEST(NsysHeaders, MemcpySpellingsOldAndNew) {
  EXPECT_EQ(memcpy_direction("[CUDA memcpy HtoD]"), CopyDirection::kH2D);
  EXPECT_EQ(memcpy_direction("[CUDA memcpy Host-to-Device]"), CopyDirection::kH2D);
  EXPECT_EQ(memcpy_direction("[CUDA memcpy DtoH]"), CopyDirection::kD2H);
  EXPECT_EQ(memcpy_direction("[CUDA memcpy Device-to-Host]"), CopyDirection::kD2H);
  EXPECT_EQ(memcpy_direction("[CUDA memcpy Device-to-Device]"), CopyDirection::kD2D);
  EXPECT_EQ(memcpy_direction("[CUDA memcpy PtoP]"), CopyDirection::kP2P);
  EXPECT_EQ(memcpy_direction("[CUDA memset]"), CopyDirection::kUnknown);
  EXPECT_EQ(memcpy_direction("[CUDA Unified Memory memcpy HtoD]"), CopyDirection::kUnknown);
  EXPECT_EQ(memory_kind_from("Pageable"), DriverMemoryKind::kPageable);
  EXPECT_EQ(memory_kind_from(" pinned"), DriverMemoryKind::kPinned);
  EXPECT_EQ(memory_kind_from("Device Static"), DriverMemoryKind::kDevice);
  EXPECT_EQ(memory_kind_from(""), DriverMemoryKind::kUnknown);
  EXPECT_EQ(api_base_name("cudaMemcpyAsync_v3020"), "cudaMemcpyAsync");
  EXPECT_EQ(api_base_name("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(api_base_name("cudaMemcpyAsync"), "cudaMemcpyAsync");
  EXPECT_EQ(api_base_name("cuda_v"), "cuda_v");
}

// Every variant holds the same capture: 50 API calls of which 22 cudaMemcpyAsync, 26 copies
// host to device and one back, one kernel.
void expect_the_capture(const NsysExport& x, bool gpu_trace) {
  EXPECT_EQ(x.trace.api_calls.size(), 50u);
  std::size_t async = 0;
  for (const ApiCall& c : x.trace.api_calls) async += c.name == "cudaMemcpyAsync" ? 1 : 0;
  EXPECT_EQ(async, 22u);
  EXPECT_EQ(x.trace.api_calls.front().start_ns, 1000000000);
  EXPECT_EQ(x.trace.api_calls.front().duration_ns(), 400000);
  EXPECT_EQ(x.trace.api_calls.front().correlation, 101u);
  EXPECT_EQ(x.trace.api_calls.front().thread, 4242u);
  ASSERT_FALSE(x.mem_size_sum.empty());
  EXPECT_EQ(memcpy_direction(x.mem_size_sum[0].name), CopyDirection::kH2D);
  EXPECT_EQ(x.mem_size_sum[0].count, 26u);
  // 4 MiB of part 1 copies and 22 x 64 MiB, in whatever unit the export used.
  EXPECT_NEAR(x.mem_size_sum[0].total_bytes, 4.0 * (1 << 20) + 22.0 * (64 << 20), 2e3);
  ASSERT_EQ(x.nvtx_sum.size(), 2u);
  EXPECT_EQ(x.nvtx_sum[0].name, "async-pageable");  // a leading ':' is dropped
  EXPECT_EQ(x.has_gpu_trace, gpu_trace);
  if (gpu_trace) {
    EXPECT_EQ(x.trace.copies.size(), 27u);
    ASSERT_EQ(x.trace.kernels.size(), 1u);
    EXPECT_EQ(x.trace.kernels[0].name, "scale_copy(const float *, float *, unsigned long, float)");
    const Copy& first_async = x.trace.copies[4];
    EXPECT_EQ(first_async.direction, CopyDirection::kH2D);
    EXPECT_EQ(first_async.src_kind, DriverMemoryKind::kPageable);
    EXPECT_EQ(first_async.dst_kind, DriverMemoryKind::kDevice);
    EXPECT_EQ(first_async.stream, 13u);
    EXPECT_NEAR(static_cast<double>(first_async.bytes), 64.0 * (1 << 20), 500.0);
  }
}

TEST(NsysExports, Nsys2021OldReportNamesAndHeaders) {
  const NsysExport x = load_nsys_export(nsys_dir("v2021"));
  EXPECT_EQ(x.prefix, "day53");
  expect_the_capture(x, false);
  // cudaapisum's "Calls" and "_v3020" suffixes.
  bool found = false;
  for (const SummaryRow& s : x.api_sum) {
    if (api_base_name(s.name) == "cudaMemcpyAsync") {
      found = true;
      EXPECT_EQ(s.count, 22u);
    }
  }
  EXPECT_TRUE(found);
}

TEST(NsysExports, Nsys2023WithProseCrLfAndQuotedHeaders) {
  expect_the_capture(load_nsys_export(nsys_dir("v2023")), true);
}

TEST(NsysExports, Nsys2024HostToDeviceSpellingAndGreenContexts) {
  expect_the_capture(load_nsys_export(nsys_dir("v2024")), true);
}

TEST(NsysExports, TimesInMicrosecondsAndSizesInBytesOrMiB) {
  const NsysExport x = load_nsys_export(nsys_dir("v2024-us"));
  expect_the_capture(x, true);
  EXPECT_EQ(x.trace.copies[4].bytes, 64u << 20);  // "Bytes (B)" is exact
  EXPECT_EQ(x.trace.api_calls[1].start_ns, 1000402000);
}

TEST(NsysExports, PrefixIsFoundOrChosen) {
  const std::string dir = copy_of("v2024");
  fs::copy_file(nsys_dir("v2021") + "/day53_cudaapitrace.csv", dir + "/other_cuda_api_trace.csv");
  EXPECT_NE(error_of([&] { load_nsys_export(dir); })
                .find("holds exports of more than one capture ('day53-pinned', 'other'); pick one "
                      "with --prefix"),
            std::string::npos);
  EXPECT_EQ(load_nsys_export(dir, "day53-pinned").prefix, "day53-pinned");
}

TEST(NsysExports, AMissingReportIsNamed) {
  const std::string dir = copy_of("v2024");
  fs::remove(dir + "/day53-pinned_cuda_gpu_mem_size_sum.csv");
  EXPECT_EQ(error_of([&] { load_nsys_export(dir); }),
            dir +
                "/day53-pinned_cuda_gpu_mem_size_sum.csv is missing ('nsys stats --report "
                "cuda_gpu_mem_size_sum --format csv -o day53-pinned' writes it)");
  const std::string empty = test::temp_dir();
  EXPECT_NE(error_of([&] { load_nsys_export(empty); }).find("holds no nsys stats exports"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { load_nsys_export(empty + "/absent"); }),
            "'" + empty + "/absent' does not exist");
}

TEST(NsysExports, FilesOfDifferentCapturesDisagree) {
  const std::string dir = copy_of("v2024");
  std::string sum = test::read_file(dir + "/day53-pinned_cuda_api_sum.csv");
  const std::size_t at = sum.find(",22,");
  ASSERT_NE(at, std::string::npos);
  sum.replace(at, 4, ",21,");
  test::write_file(dir + "/day53-pinned_cuda_api_sum.csv", sum);
  EXPECT_NE(error_of([&] { load_nsys_export(dir); })
                .find("holds 22 cudaMemcpyAsync calls but " + dir +
                      "/day53-pinned_cuda_api_sum.csv counts 21: are they from the same capture?"),
            std::string::npos);
}

TEST(NsysReports, ColumnsAreFoundByNameInAnyOrder) {
  const std::vector<ApiCall> calls = parse_api_trace(
      "Name,CorrID,Duration (us),Start (ms)\ncudaMemcpyAsync_v3020,7,1.5,2\n", "t.csv");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].name, "cudaMemcpyAsync");
  EXPECT_EQ(calls[0].start_ns, 2000000);
  EXPECT_EQ(calls[0].duration_ns(), 1500);
  EXPECT_EQ(calls[0].thread, 0u);  // no thread column
}

TEST(NsysReports, UnitlessSizesAreKiBInTheSizeSummary) {
  const std::vector<SummaryRow> rows =
      parse_summary("Total,Operations,Average,Name\n65536.000,1,65536.000,[CUDA memcpy HtoD]\n",
                    "s.csv", NsysReport::kMemSizeSum);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].total_bytes, 64.0 * (1 << 20));
}

TEST(NsysReports, SkippedReportsAndThousandsSeparators) {
  EXPECT_TRUE(parse_summary("SKIPPED: x.sqlite does not contain NV Tools Extension (NVTX) data.\n",
                            "n.csv", NsysReport::kNvtxSum)
                  .empty());
  EXPECT_EQ(error_of([] {
              parse_api_trace("SKIPPED: x.sqlite does not contain CUDA trace data.\n", "a.csv");
            }),
            "a.csv: no CUDA API calls in it (nsys: SKIPPED: x.sqlite does not contain CUDA trace "
            "data.)");
  const std::vector<SummaryRow> rows = parse_summary(
      "Total Time (ns),Num Calls,Name\n\"1,234,567\",3,cudaMalloc\n", "s.csv", NsysReport::kApiSum);
  EXPECT_DOUBLE_EQ(rows.at(0).total_ns, 1234567.0);
}

TEST(NsysReports, BadFilesSayWhatIsWrong) {
  EXPECT_EQ(error_of([] { parse_api_trace("a,b,c\n1,2,3\n", "a.csv"); }),
            "a.csv: no header row with the columns 'start', 'duration', 'name', 'correlation' "
            "(is it a cuda_api_trace export?)");
  EXPECT_EQ(error_of([] {
              parse_api_trace("Start (ns),Duration (ns),Name,CorrID\n1,2,cudaFree,3\n4,5\n",
                              "a.csv");
            }),
            "a.csv line 3: 2 fields where the header has 4 (truncated?)");
  EXPECT_EQ(error_of([] {
              parse_api_trace("Start (ns),Duration (ns),Name,CorrID\n1,lots,cudaFree,3\n", "a.csv");
            }),
            "a.csv line 2: 'lots' is not a number for column 'duration'");
  EXPECT_EQ(error_of([] {
              parse_api_trace("Start (ns),Duration (ns),Name,CorrID\n1,-2,cudaFree,3\n", "a.csv");
            }),
            "a.csv line 2: '-2' is not a number for column 'duration'");
  EXPECT_EQ(
      error_of([] { parse_api_trace("Start (fortnights),Duration (ns),Name,CorrID\n", "a.csv"); }),
      "a.csv line 1: column 'Start (fortnights)' has a unit nsys never used: 'fortnights'");
}

}  // namespace
}  // namespace pinbench
