// The run record: everything a measurement produced, and the only input analysis and rendering
// ever see. A record is written by a GPU run (`--json`), committed under data/runs/, and read
// back by `--replay` on machines with no GPU. docs/record-schema.md describes the JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/timestamp.hpp"  // rfc3339_seconds: created_utc as an instant
#include "framework/config_schema.hpp"
#include "framework/sampling.hpp"

namespace pinbench {

constexpr const char* kRecordSchema = "pinbench.run";
constexpr int kRecordSchemaVersion = 1;

// What a record may claim of a GPU: an index from 0 to kMaxGpuIndex; a link generation or width
// from 0 ("not known") to kMaxLinkCount. Past them a record is refused, whichever carries it.
constexpr int kMaxGpuIndex = 1 << 16;
constexpr int kMaxLinkCount = 64;

struct PcieLink {
  int current_gen = 0;  // 0 when sysfs does not say
  int max_gen = 0;
  int current_width = 0;
  int max_width = 0;
  std::string current_speed;  // as sysfs spells it, e.g. "32.0 GT/s PCIe"
  std::string max_speed;
};

// One GPU of a record that measures several (host, check): who it is and where it sits.
struct GpuInfo {
  int index = 0;  // the CUDA device index in the measuring process
  std::string name;
  std::string uuid;  // "GPU-8e3f...", from cudaDeviceProp::uuid
  std::string pci_bus_id;
  int numa_node = -1;
  std::string cpu_list;  // the CPUs nearest the GPU (sysfs local_cpulist), "" when unknown
  PcieLink pcie;         // read before anything ran: an idle GPU may show a lower speed
  PcieLink pcie_loaded;  // read while a copy kept the link busy; all 0 when not read
  bool loaded_read = false;
};

struct MachineInfo {
  std::string hostname;  // "" in records made before pinbench wrote it
  int device_index = 0;  // the device measured (--device)
  std::string device_uuid;
  std::string cpu_list;       // the device's nearest CPUs, as sysfs spells them
  std::vector<GpuInfo> gpus;  // every GPU measured, for experiments over several; else empty
  std::string device_name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int copy_engines = 0;
  std::uint64_t device_memory_bytes = 0;
  std::string pci_bus_id;
  int driver_version = 0;      // CUDA's encoding: 1000 * major + 10 * minor
  int runtime_version = 0;     // same encoding
  std::string driver_release;  // e.g. "580.159.04", from /proc/driver/nvidia/version when readable
  PcieLink pcie;
  int numa_node = -1;  // the GPU's NUMA node; -1 when the platform does not say
  std::string host_cpu;
  int host_logical_cpus = 0;
  std::uint64_t host_memory_bytes = 0;
  std::string os;
  int pageable_memory_access = 0;  // cudaDevAttrPageableMemoryAccess
  // cudaDevAttrPageableMemoryAccessUsesHostPageTables: the GPU reads pageable memory through the
  // host's own page tables (ATS, as on Grace Hopper); 0 in records made before pinbench read it.
  int pageable_memory_access_uses_host_page_tables = 0;
  int host_numa_nodes = 0;  // NUMA nodes with memory (sysfs); 0 where unknown or not recorded
  // Why no GPU is described, where none is ("no CUDA driver on this machine (...)"); "" where one
  // is, and in records made before pinbench wrote it.
  std::string no_device;
};

// A correctness gate or check: every rate in a record depends on one.
struct Gate {
  std::string name;
  bool passed = false;
  std::string detail;
};

// One measured case. `samples_ms` holds every timed sample; for async cases it is the time to
// completion and `call_ms` the time the call held the host thread.
struct Case {
  std::string part;         // "copy", "async", "kernel", "device_copy"
  std::string direction;    // "h2d", "d2h", "d2d"
  std::string memory;       // "pageable", "pinned", "mapped", "device"
  std::string method;       // "cudaMemcpy", "cudaMemcpyAsync", "scale_copy"
  std::string timing;       // "cuda_events" or "host_clock"
  std::uint64_t bytes = 0;  // bytes moved per sample (for kernels: bytes read)
  int warmups = 0;
  std::vector<double> samples_ms;
  std::vector<double> call_ms;
  std::string gate;       // the Gate that covers this case
  bool verified = false;  // that gate passed, before and after timing
  // Why sampling stopped; empty in records made before pinbench wrote it. The samples' spread
  // and stability (framework/stats.hpp) are written beside it, derived from samples_ms.
  std::optional<StopReason> stop;
  // Experiment-specific annotations (e.g. why sampling stopped); written only when not empty.
  nlohmann::json extra = nlohmann::json::object();
};

struct RunRecord {
  int schema_version = kRecordSchemaVersion;
  std::string experiment;  // "lesson"
  std::string pinbench_version;
  std::string created_utc;          // ISO 8601, e.g. "2026-11-30T16:04:05Z"
  std::string source = "measured";  // or "published" for tables copied from a document
  std::string note;
  MachineInfo machine;
  nlohmann::json config = nlohmann::json::object();
  std::vector<Gate> gates;
  std::vector<Case> cases;
  double wall_ms = 0.0;
  // Set when a signal stopped the run between cases: the record holds every case measured
  // before it, and nothing after. `interrupted_by` names the signal ("SIGINT").
  bool incomplete = false;
  std::string interrupted_by;
  // What a trace of the run said (run with --trace): its size, notes and prediction 4's
  // evidence. Null when the run was not traced; written only when set.
  nlohmann::json trace = nullptr;
  // The experiments' own sections, by their top-level key in the JSON: each is what the
  // experiment owning that key (its descriptor's section_key) made of it when the record was read
  // (Experiment::read_section), and is written back as it is. Empty for most records.
  std::map<std::string, nlohmann::json> sections;

  // The first case matching every given field, or nullptr.
  const Case* find(const std::string& part, const std::string& direction, const std::string& memory,
                   std::uint64_t bytes) const;
  Case* find(const std::string& part, const std::string& direction, const std::string& memory,
             std::uint64_t bytes);
  // The cases of `part`, in the record's order: for (const Case& c : record.cases_of("race")).
  std::vector<std::reference_wrapper<const Case>> cases_of(std::string_view part) const;
  bool all_gates_passed() const;
  // The section under `key` (sections), or null when the record has none.
  const nlohmann::json& section(const std::string& key) const;
};

// Each case of `part` made into a row by `make` (a Case to a Row), in the record's order.
template <class Row, class Make>
std::vector<Row> rows_of(const RunRecord& record, std::string_view part, Make make) {
  std::vector<Row> rows;
  for (const Case& c : record.cases_of(part)) rows.push_back(make(c));
  return rows;
}

nlohmann::json to_json(const RunRecord& record);

// The record's own schema: every field but its experiment's part, which record_from_json
// (framework/by_experiment.hpp, the one validation every reader goes through) checks after it:
// the kinds of the config's keys and of the experiments' keys of a case's extra, the
// experiments' sections, and the experiment's own rules. Throws InputError, one line naming the
// field, as record_from_json says.
RunRecord common_record_from_json(const nlohmann::json& j);

// The keys of a case's extra that the framework itself reads, with their kinds: the host NUMA
// node that rate rows read, and the stop reason that sweep records kept there before cases
// carried "stop" (common_record_from_json checks them); every experiment's come after them
// (case_extra_fields, framework/by_experiment.hpp).
const std::vector<ConfigField>& framework_extra_fields();

// Parses record text as load_record does (path-aware errors for out-of-range numbers, bounded
// nesting), without validating it as a record. Throws InputError without a file name.
nlohmann::json parse_record_text(std::string_view text);

// The same parse for any JSON input pinbench reads (the trace beside a record: read it with
// read_input_file(path, kMaxTraceBytes, "trace"), then parse_json_text(text, "trace")). Errors:
// "WHAT: 'traceEvents[7].ts' is 1e400, a number out of range", "WHAT: 'PATH' is nested deeper
// than 64 levels", or "is not valid JSON near byte N", with "(truncated?)" after "JSON" where the
// text ends before the JSON does (the caller adds the file).
nlohmann::json parse_json_text(std::string_view text, const std::string& what);

// Writes to a temporary file beside `path` and renames it into place, so a crash never leaves
// half a record. Throws InputError when the file cannot be written.
void save_record(const RunRecord& record, const std::string& path);

// Current UTC time in ISO 8601.
std::string utc_now_iso8601();

}  // namespace pinbench
