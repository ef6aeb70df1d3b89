// Prediction 4 from a trace: the timed pageable cudaMemcpyAsync calls of part 2 cost at least
// five times the call time of the timed pinned ones, while both groups move the same bytes. And
// the memory-kind check that a trace makes possible: every copy pinbench calls pinned was seen
// as pinned by the driver, every pageable one as pageable.
//
// Three ways to find the two groups of calls, best first:
//   - NVTX ranges (pinbench's live trace): the cudaMemcpyAsync calls inside the ranges
//     "part2 async h2d pageable" and "part2 async h2d pinned" whose copies run host to device;
//     the first of each range is the warm-up.
//   - Memory kinds (an nsys GPU trace, or a live trace without NVTX): cudaMemcpyAsync calls
//     whose host-to-device copy the driver saw reading pageable or pinned memory, in call order;
//     the first of each kind is the warm-up, the next `timed` are the timed ones.
//   - The page's rule (an nsys API trace alone): part 2's copies are the program's only
//     cudaMemcpyAsync calls, 1 + `timed` per source, pageable first; the first of each is the
//     warm-up. Bytes cannot be checked this way: the API trace has no sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/enum_names.hpp"
#include "framework/record.hpp"
#include "framework/trace_model.hpp"
#include "framework/verdict.hpp"

namespace pinbench::experiments::lesson {

enum class Selection { kNvtxRanges, kMemoryKinds, kPageRule };
inline constexpr EnumName<Selection> kSelectionNames[] = {{Selection::kNvtxRanges, "nvtx_ranges"},
                                                          {Selection::kMemoryKinds, "memory_kinds"},
                                                          {Selection::kPageRule, "page_rule"}};
inline const char* to_string(Selection s) {
  return name_in(kSelectionNames, s);
}

// One group's timed calls.
struct CallGroup {
  std::vector<double> call_ns;         // each timed call's duration, in call order
  std::optional<std::uint64_t> bytes;  // bytes their copies moved, in total; absent if unknown
  int warmups = 0;                     // calls skipped as warm-ups
};

// The calls a trace offers as evidence, before any judgement.
struct Prediction4Evidence {
  std::string source;  // where the trace came from, for the report
  Selection selection = Selection::kNvtxRanges;
  CallGroup pageable, pinned;
  std::vector<std::string> notes;  // anything odd about the selection, one line each
  // Set when the trace cannot answer at all (e.g. the page's rule does not fit); the groups
  // are then empty.
  std::string unusable;
};

struct Prediction4Options {
  int timed = 10;  // timed calls per group for the memory-kind and page-rule selections
};

Prediction4Evidence select_prediction4(const Trace& trace, const Prediction4Options& options = {});

struct Prediction4Judgement {
  double pageable_ms = 0.0, pinned_ms = 0.0;
  std::size_t pageable_calls = 0, pinned_calls = 0;
  std::optional<double> ratio;      // pageable / pinned total call time
  std::optional<bool> bytes_equal;  // absent when the trace has no sizes
  Verdict verdict = Verdict::kNotEvaluated;
  std::string reason;  // why not evaluated, when it is not
};

// Held when the ratio is at least 5 and the bytes are equal (or, under the page's rule,
// unknown); died otherwise; not evaluated when a group is empty or the groups differ in size.
Prediction4Judgement judge_prediction4(const Prediction4Evidence& evidence);

// The claim of prediction 4 for the lesson report; "not evaluated" without evidence.
Claim prediction4_claim(const std::optional<Prediction4Evidence>& evidence);

nlohmann::json to_json(const Prediction4Evidence& e);
Prediction4Evidence prediction4_from_json(const nlohmann::json& j);  // throws InputError

// Adds what a live trace says to a lesson record: the memory-kind gates, and a `trace` object
// with the trace's size, its notes and prediction 4's evidence (docs/record-schema.md).
// `perfetto_file` is the timeline written beside it ("" when none).
void attach_trace(RunRecord& record, const Trace& trace, const std::string& perfetto_file);

}  // namespace pinbench::experiments::lesson
