// Reading what `nsys stats --format csv -o PREFIX` writes, from Nsight Systems 2021 to 2026.
// Columns are found by name, never by position: header names are compared case-insensitively,
// a unit in parentheses ("Duration (ns)", "Total (MB)", "Start (us)") is split off and every
// value is scaled to nanoseconds or bytes, and the spellings nsys used over the years are
// aliases of one another (Count, Operations, Num Calls, Calls, Instances; CorrID, CorrId;
// "[CUDA memcpy HtoD]", "[CUDA memcpy Host-to-Device]"). Lines nsys prints around a table
// ("Processing [...]", "NOTICE: ...", "SKIPPED: ...") are skipped. The API and GPU traces
// become a Trace, so prediction 4 reads them like a live CUPTI trace.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framework/trace_model.hpp"

namespace pinbench::experiments::lesson {

enum class NsysReport { kApiTrace, kApiSum, kMemTimeSum, kMemSizeSum, kNvtxSum, kGpuTrace };

// The report's current name, e.g. "cuda_api_trace"; the file is PREFIX_<name>.csv.
const char* report_name(NsysReport r);

// A header cell split into a lower-case name with single spaces and a lower-case unit:
// "Total Time (ns)" -> {"total time", "ns"}, "Time(%)" -> {"time", "%"}, "CorrID" -> {"corrid",
// ""}.
struct HeaderName {
  std::string name;
  std::string unit;
};
HeaderName normalize_header(std::string_view cell);

// "[CUDA memcpy HtoD]" and "[CUDA memcpy Host-to-Device]" -> kH2D, and so on; kUnknown for
// anything that is not a memory copy (memsets, kernels).
CopyDirection memcpy_direction(std::string_view operation);

// "Pageable", "Pinned", "Device", "Managed", "Array", "Device Static" as nsys spells them.
DriverMemoryKind memory_kind_from(std::string_view text);

// One row of a summary report: an API, a memory operation or an NVTX range.
struct SummaryRow {
  std::string name;  // as nsys wrote it (NVTX names lose a leading ':' only)
  std::uint64_t count = 0;
  double total_ns = 0.0;     // time reports
  double total_bytes = 0.0;  // the size report
};

// Parsers for one report's text. `source` names the file in errors. All throw InputError with
// the file and line on malformed input, and name the columns they looked for when the header is
// not there.
std::vector<ApiCall> parse_api_trace(std::string_view text, const std::string& source);
std::vector<SummaryRow> parse_summary(std::string_view text, const std::string& source,
                                      NsysReport report);
// Copies, and kernels when `kernels` is not null. Rows that are neither (memsets) are skipped.
std::vector<Copy> parse_gpu_trace(std::string_view text, const std::string& source,
                                  std::vector<Kernel>* kernels = nullptr);

struct NsysExport {
  std::string dir;
  std::string prefix;
  std::map<NsysReport, std::string> files;  // the reports found, by path
  Trace trace;  // API calls; copies and kernels when the GPU trace is present
  bool has_gpu_trace = false;
  std::vector<SummaryRow> api_sum, mem_time_sum, mem_size_sum, nvtx_sum;
};

// Finds PREFIX_<report>.csv files in `dir` (with `prefix`, or the only prefix there is), reads
// them and checks that they agree with each other (the API trace and the API summary count the
// same cudaMemcpyAsync calls; the GPU trace and the time summary count the same copies). Throws
// InputError naming the file and the reason for anything missing, unreadable or inconsistent.
NsysExport load_nsys_export(const std::string& dir, const std::string& prefix = "");

}  // namespace pinbench::experiments::lesson
