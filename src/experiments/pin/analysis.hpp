// `pinbench pin`'s figures, from its record: how fast each way of getting page-locked memory
// pins, frees and hands out its first GiB, what a neighbouring process's CUDA calls suffered
// meanwhile, what the copies from each kind of pinned memory run at, the host's limits on
// pinning, and the goals of the arena judged against cudaHostAlloc in the same run. CUDA-free,
// so a recorded run replays anywhere.
//
// Every field the analysis reads is read for what it means and refused by its name otherwise
// ("run record: 'pin.limits[1].bytes' ..."), whoever wrote the record: the section's limits,
// facts, refusals and skips, and each case's extra.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/pin_limits.hpp"
#include "framework/config_schema.hpp"
#include "framework/experiment.hpp"
#include "framework/host_pin_facts.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"
#include "framework/verdict.hpp"

namespace pinbench::experiments::pin {

// The ways `pinbench pin` gets page-locked memory, as the record's methods name them.
inline const char* const kPinHostAlloc = "cudaHostAlloc";
inline const char* const kPinHostAllocPortable = "cudaHostAlloc portable";
inline const char* const kPinRegister = "cudaHostRegister";
inline const char* const kPinRegisterThp = "cudaHostRegister THP";
inline const char* const kPinRegisterHugetlbfs = "cudaHostRegister hugetlbfs";
inline const char* const kPinArena = "PinnedArena";

// Every method above, in the order the record's tables list them.
const std::vector<std::string>& pin_method_names();

// What `pinbench pin` was asked for (measure.hpp), as the record's config holds it.
struct PinConfig {
  std::vector<std::uint64_t> sizes;  // ascending; empty: chosen from the host's limits
  std::vector<std::string> methods;  // empty: every method above
  std::vector<std::uint64_t> arena_chunks = {32ull << 20};
  std::vector<int> arena_threads;  // empty: the arena's default
  std::uint64_t copy_bytes = 1ull << 30;
  int neighbour_interval_us = 2000;  // 0: no neighbour
  int device = 0;
  // Where pinbench_neighbour is (the command finds it); not a field of the record.
  std::string neighbour_program;

  static constexpr auto fields() {
    return std::make_tuple(
        field("sizes", &PinConfig::sizes, FieldKind::kSizes),
        field("methods", &PinConfig::methods, FieldKind::kTexts),
        field("arena_chunks", &PinConfig::arena_chunks, FieldKind::kSizes),
        field("arena_threads", &PinConfig::arena_threads, FieldKind::kCounts),
        field("copy_bytes", &PinConfig::copy_bytes, FieldKind::kSize),
        field("neighbour_interval_us", &PinConfig::neighbour_interval_us, FieldKind::kCount),
        field("device", &PinConfig::device, FieldKind::kCount));
  }
};

// The most the command line and a record may say: a neighbour's period of one second, threads as
// the engine's other host threads, and a chunk no smaller than a page.
constexpr int kMostNeighbourIntervalUs = 1000000;
constexpr int kMostPinThreads = 256;
constexpr std::uint64_t kLeastPinChunk = 4096;

// Throws InputError naming the option for a config the measurement cannot run: an unknown
// method, a chunk that is not a whole number of 4 KiB pages, a thread count past its range, a
// neighbour's period past one second. Sorts the sizes and the chunks.
void check_pin_config(PinConfig& config);

// A method's token in gate names: lower case, spaces to '-', and for the arena its chunk and
// threads ("cudahostalloc", "cudahostregister-thp", "pinnedarena-32MiB-x8").
std::string pin_method_token(const std::string& method, std::uint64_t chunk_bytes = 0,
                             int threads = 0);

// --- the record's section "pin" ---------------------------------------------------------------

inline const char* const kPinSection = "pin";

// A neighbour's calls over a span: how many, and their latency.
struct PinNeighbour {
  std::uint64_t calls = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// What the host said before anything was pinned (framework/host_pin_facts.hpp: the description
// check records share), and the arena's defaults on this host (PinnedArenaOptions' chunk,
// PinnedArena::default_threads), the configuration its goals are judged on; absent in records
// made before pin wrote them.
struct PinFacts : HostPinFacts {
  std::optional<std::uint64_t> arena_default_chunk_bytes;
  std::optional<int> arena_default_threads;
};

struct PinRefusal {
  std::string method;
  std::uint64_t bytes = 0;
  std::string why;  // names the limit and its value
};

struct PinSkip {
  std::string method;
  std::string why;
};

struct PinSection {
  std::vector<PinLimit> limits;
  PinFacts facts;
  std::vector<PinRefusal> refused;
  std::vector<PinSkip> skipped;
  std::optional<PinNeighbour> neighbour_idle;  // nullopt: no neighbour ran
};

// The section read and validated: InputError naming the field ("pin.facts.map_count").
PinSection pin_section_from(const nlohmann::json& section);
// The section as the record holds it.
nlohmann::json to_json(const PinSection& section);

// --- the analysis -------------------------------------------------------------------------------

// One pin case: a method (and for the arena its chunk and threads) at one size.
struct PinRow {
  std::string method;
  std::uint64_t bytes = 0;
  std::uint64_t chunk_bytes = 0;  // the arena's; 0 for the others
  int threads = 0;                // the arena's; 0 for the others
  std::string gate_detail;        // the gate's detail where it failed, else ""
  std::optional<double> ms;       // from the call to the whole size usable; absent: failed
  std::optional<double> gb_per_s;
  std::optional<double> first_gib_ms, free_ms, longest_chunk_ms;
  std::optional<PinNeighbour> neighbour;  // the neighbour's calls during the pin
  std::optional<double> neighbour_free_max_ms;
  // "cudaHostAlloc", "PinnedArena 32 MiB x 16"
  std::string label() const;
};

// A copy from one kind of pinned memory: its rate each way.
struct PinCopyRow {
  std::string method;
  std::uint64_t chunk_bytes = 0;
  int threads = 0;
  std::uint64_t bytes = 0;  // each copy's
  std::optional<double> h2d_gb_per_s, d2h_gb_per_s;
  bool h2d_measured = false, d2h_measured = false;
  std::string label() const;
};

struct PinGoal {
  std::string statement;
  Verdict verdict = Verdict::kNotEvaluated;  // held only where every claim held
  std::vector<Claim> claims;
};

// What the goals ask for.
struct PinGoalTargets {
  double arena_multiple = 3.0;    // the arena's GB/s over cudaHostAlloc's
  double first_gib_ms = 100.0;    // the arena's first GiB usable before this
  double neighbour_p99_ms = 1.0;  // the neighbour's p99 call while the arena pins
  double copy_within = 0.02;      // arena copies within this fraction of cudaHostAlloc's
};

struct PinAnalysis {
  PinConfig config;
  PinSection section;
  std::vector<PinRow> pins;        // by method (pin_method_names' order), chunk, threads, size
  std::vector<PinCopyRow> copies;  // the same order
  // The size the goals are judged at: the largest where both PinnedArena and cudaHostAlloc
  // were measured; nullopt where there is none.
  std::optional<std::uint64_t> judged_bytes;
  // Indices into `pins`: the arena's default configuration there (the fastest where the record
  // names no default or did not measure it), and cudaHostAlloc there.
  std::optional<std::size_t> arena, host_alloc;
  bool judged_default = false;  // `arena` is the default configuration
  std::vector<PinGoal> goals;
  // What to use, from the figures: the fastest way whose neighbour's p99 call stayed under 1 ms.
  std::string advice;
};

// InputError, naming the field, where the record is not a pin record pinbench can read: its
// section and every case's extra are validated here.
PinAnalysis analyse_pin(const RunRecord& record, const PinGoalTargets& targets = {});

// What tells two arena cases of one size apart: its chunk and threads ("32 MiB x 16"); nothing
// for the other methods.
CaseShape pin_case_shape(const Case& c);

// The tables every printer shows: pinning, copies, limits, and what was refused or skipped.
std::vector<ReportTable> pin_tables(const PinAnalysis& a);
// GB/s pinned against size, by method; the neighbour's worst call by method.
std::vector<ChartSpec> pin_charts(const PinAnalysis& a);
// The goals, as every printer shows them.
VerdictGroup pin_goals(const PinAnalysis& a);

}  // namespace pinbench::experiments::pin
