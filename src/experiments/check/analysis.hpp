// The health check's verdicts (`pinbench check`), as a pure function of its record: every GPU's
// link under load, pinned and pageable rates against floors, the 4 KiB round trip against a
// ceiling, and each GPU against its peers on the host. A record is judged by the floors it
// carries (experiments/check/floors.hpp), and a fleet of records by the same code (docs/fleet.md
// gives the rules and why the defaults are what they are).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/check/floors.hpp"
#include "experiments/check/pin_check.hpp"
#include "framework/config_schema.hpp"
#include "framework/record.hpp"
#include "framework/stats.hpp"

namespace pinbench::experiments::check {

// What `pinbench check` was asked for (measure.hpp), as the record's config holds it.
struct CheckConfig {
  std::vector<int> devices;                  // empty: every device
  std::uint64_t bytes = 64ull << 20;         // rate copies
  int round_trips = 1000;                    // 4 KiB there and back, each timed
  std::uint64_t pin_bytes = kCheckPinBytes;  // one cudaHostAlloc per GPU; 0: no pin rate
  CheckFloors floors;
  bool place_on_gpu_node = true;

  // The config's keys written from a member as it is (config_json, measure.cpp; the rates'
  // stopping rule is StopRule's). The devices (filled in, and only where a GPU was checked), the
  // round trip's bytes (a constant) and the floors (a nested object) are written by hand.
  static constexpr auto fields() {
    return std::make_tuple(
        field("bytes", &CheckConfig::bytes, FieldKind::kSize),
        field("iterations", &CheckConfig::round_trips, FieldKind::kCount),
        field("pin_bytes", &CheckConfig::pin_bytes, FieldKind::kSizeOrZero),
        field("place_on_gpu_node", &CheckConfig::place_on_gpu_node, FieldKind::kFlag));
  }
};

// The check's records, by the name they carry: what a fleet reads.
inline constexpr const char* kCheckExperiment = "check";

// A check case's part for the pin rate (its other cases are part "check"): method kPinMethod, the
// cudaHostAlloc timed from the call to its return, and kUnpinMethod, the cudaFreeHost after it.
inline constexpr const char* kPinPart = "pin";
inline constexpr const char* kPinMethod = "cudaHostAlloc";
inline constexpr const char* kUnpinMethod = "cudaFreeHost";

// One check of one GPU.
struct CheckItem {
  // "link", "pinned h2d", "pageable d2h", "4 KiB round trip p99", "pin rate", "peers"
  std::string check;
  bool judged = true;  // false: nothing to judge it by (one GPU has no peers; unknown link)
  bool passed = true;  // meaningful when judged
  std::optional<double> value;
  std::string value_text;  // "55.10 GB/s", "gen 5 x16"
  std::string limit_text;  // "at least 47.25 GB/s (75% of gen 5 x16)"
};

struct GpuCheck {
  GpuInfo gpu;
  std::optional<double> pinned_h2d, pinned_d2h, pageable_h2d, pageable_d2h;  // GB/s, medians
  std::optional<double> round_trip_p50_us, round_trip_p99_us;
  // The pin: GB/s of one cudaHostAlloc (absent where none was timed or its gate failed), the
  // bytes it pinned (0 where the record does not say: a fleet's row) and its cudaFreeHost in ms.
  std::optional<double> pin_gb_per_s;
  std::uint64_t pin_bytes = 0;
  std::optional<double> unpin_ms;
  std::vector<CheckItem> items;
  bool passed() const;
  std::vector<std::string> failures() const;  // "pinned h2d 40.10 GB/s, not at least 47.25 ..."
};

struct CheckAnalysis {
  std::string hostname;
  std::string no_gpu;  // why the host had no GPU to check (an MPI rank without one), else ""
  CheckFloors floors;
  // The pin each GPU's check was asked for: absent in a record made before the check pinned;
  // 0 where it was asked for none. `pin_refused`: why nothing was pinned (a limit it crosses).
  std::optional<std::uint64_t> pin_asked;
  std::string pin_refused;
  // The host's limits on pinning that bite, read before anything was pinned; `pin_limits_read`
  // is false in a record made before the check read them.
  bool pin_limits_read = false;
  std::vector<PinWarning> pin_warnings;
  std::vector<GpuCheck> gpus;
  bool passed() const;  // every judged item of every GPU passed, and there was a GPU
  // "host h GPU 0 (GPU-...): pinned h2d ...": every failure, each naming its GPU.
  std::vector<std::string> failures() const;
};

// InputError when `record` is not a check record.
CheckAnalysis analyse_check(const RunRecord& record);

// The verdict in one line of at most kVerdictBytes bytes, for what acts on a check by its words:
// a Slurm drain reason, node-problem-detector's condition message (docs/fleet.md). It starts with
// what an operator acts on: "pinbench: 2 GPUs passed", or the first failed GPU and check with its
// figure and the GPU's UUID, then how many more failed ("pinbench: GPU 3 pinned h2d 20.10 GB/s,
// not at least 47.26 GB/s (GPU-...); 2 more failed"), or "pinbench: no GPU checked: why". A
// record's words pass through printable(); a longer line is cut at a character's end, with "...".
inline constexpr std::size_t kVerdictBytes = 160;
std::string check_verdict(const CheckAnalysis& analysis);
// The same line where the check could not run: "pinbench: check could not run: `why`".
std::string check_verdict_error(const std::string& why);

// The two halves of analyse_check: the figures a check's verdicts rest on (each GPU, its link and
// its medians and round-trip quantiles, the floors), read from its record; and the verdicts on
// them (each GPU's items, the peers), which a fleet record re-judges from figures alone.
CheckAnalysis check_figures(const RunRecord& record);

// What the analysis reads of a check's config: the floors it is judged by (floors.hpp: refused
// with one line naming a bad one), why the host had no GPU to check (measure.cpp), the pin asked
// for (CheckConfig's pin_bytes) and why none was made, and the limits' warnings (pin_check.hpp),
// each field beside the floors and the warnings under its record key and kind, one list for
// writing, reading back and validating. The limits as read (config.pin_limits, HostPinFacts)
// are written for the reader and validated, not read back.
struct CheckRecordConfig {
  CheckFloors floors;
  std::string no_gpu;
  std::optional<std::string> pin_refused;
  std::optional<std::uint64_t> pin_bytes;               // written by CheckConfig
  std::optional<std::vector<PinWarning>> pin_warnings;  // config.pin_warnings

  static constexpr auto fields() {
    return std::make_tuple(field("no_gpu", &CheckRecordConfig::no_gpu, FieldKind::kText),
                           field("pin_refused", &CheckRecordConfig::pin_refused, FieldKind::kText));
  }
};
CheckRecordConfig check_config_from(const nlohmann::json& config);
void judge_check(CheckAnalysis& analysis);

}  // namespace pinbench::experiments::check
