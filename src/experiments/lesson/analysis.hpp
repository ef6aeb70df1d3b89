// The Day 53 lesson: its parameters, and the analysis that turns a lesson run record into
// tables, the byte-accounted zero-copy model and a verdict for each of the page's predictions.
// Pure functions of a RunRecord: the same code judges a live run and a replayed one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/lesson/plan.hpp"
#include "experiments/lesson/prediction4.hpp"
#include "framework/estimate.hpp"
#include "framework/record.hpp"
#include "framework/verdict.hpp"

namespace pinbench::experiments::lesson {

// One size of part 1, one direction. A figure is absent when its case is missing or unverified.
struct CopyRow {
  std::uint64_t bytes = 0;
  std::optional<double> pageable_ms, pinned_ms;
  std::optional<double> pageable_gb_per_s, pinned_gb_per_s;
  std::optional<double> ratio;             // pageable time / pinned time
  std::optional<Estimate> ratio_estimate;  // the same, with the interval the samples allow
  std::optional<Estimate> pinned_ms_estimate;
  bool pinned_slower = false;  // the page's sign that a "pinned" buffer is not
  std::string unstable;        // "pageable is bimodal: ..." when a case of the row is; else empty
};

struct AsyncRow {
  std::string direction, memory;
  std::uint64_t bytes = 0;
  std::optional<double> call_ms, completion_ms, call_share;  // share in [0, 1]
  std::optional<Estimate> call_share_estimate;               // over the samples' own shares
  std::string unstable;
};

struct KernelRow {
  std::string variant;  // "device-resident", "mapped (zero-copy)", "device-to-device copy"
  std::string memory;
  std::uint64_t bytes = 0;
  std::optional<double> ms;
  std::optional<double> read_gb_per_s;        // bytes read per second
  std::optional<double> read_write_gb_per_s;  // bytes read + bytes written per second
  std::optional<Estimate> ms_estimate;
  std::string unstable;
};

// Where the bytes of part 3 go, and the ratio that follows from counting them.
struct ZeroCopyModel {
  bool available = false;
  std::uint64_t bytes = 0;
  std::uint64_t resident_pcie_bytes = 0, resident_device_bytes = 0;
  std::uint64_t mapped_pcie_bytes = 0, mapped_device_bytes = 0;
  double pcie_gb_per_s = 0;      // part 1 pinned H2D rate at the kernel's size
  std::uint64_t pcie_bytes = 0;  // the size that rate was read at
  Estimate pcie_ms_estimate;     // and its copy's time
  double device_gb_per_s = 0;    // the resident kernel's rate, read + written (the page's choice)
  std::optional<double> copy_gb_per_s;   // device-to-device cudaMemcpy, read + written, if run
  double page_predicted_ratio = 0;       // device rate / PCIe rate, as the page reasons
  double accounted_predicted_ratio = 0;  // the same rates, bytes counted per link
  std::optional<double> accounted_copy_rate_ratio;  // with the device copy rate instead
  double measured_ratio = 0;                        // mapped ms / resident ms
  double mapped_pcie_read_gb_per_s = 0;  // bytes the mapped kernel read across PCIe per second
  std::string finding;
};

struct ReferenceComparison {
  std::string reference_machine;
  std::string reference_date;
  std::uint64_t bytes = 0;
  std::optional<double> run_h2d_ratio, ref_h2d_ratio, run_d2h_ratio, ref_d2h_ratio;
  std::optional<bool> h2d_within_20_percent;
  std::string summary;
};

struct LessonAnalysis {
  LessonConfig config;
  std::vector<CopyRow> h2d, d2h;
  std::optional<double> h2d_ratio_at, d2h_ratio_at;  // at config.ratio_bytes
  std::string direction_sentence;
  std::vector<AsyncRow> async_rows;
  std::vector<KernelRow> kernel_rows;
  ZeroCopyModel model;
  std::vector<Prediction> predictions;
  // Said before the predictions where the GPU reads pageable memory through the host's page
  // tables (Grace Hopper): their premise is expected to die there. Empty elsewhere.
  std::string premise_warning;
  // What the record's trace said about prediction 4, when the run was traced; and one line on
  // the trace itself (empty without one).
  std::optional<Prediction4Evidence> trace_evidence;
  std::string trace_summary;
  std::vector<std::string> check_failures;  // failed gates and pinned-slower rows
  bool checks_passed() const { return check_failures.empty(); }
};

LessonAnalysis analyse_lesson(const RunRecord& record);

ReferenceComparison compare_with_reference(const LessonAnalysis& run, const RunRecord& reference);

}  // namespace pinbench::experiments::lesson
