// The run record: everything a measurement produced, and the only input analysis and rendering
// ever see. A record is written by a GPU run (`--json`), committed under data/runs/, and read
// back by `--replay` on machines with no GPU. docs/record-schema.md describes the JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/sampling.hpp"

namespace pinbench {

constexpr const char* kRecordSchema = "pinbench.run";
constexpr int kRecordSchemaVersion = 1;

struct PcieLink {
  int current_gen = 0;  // 0 when sysfs does not say
  int max_gen = 0;
  int current_width = 0;
  int max_width = 0;
  std::string current_speed;  // as sysfs spells it, e.g. "32.0 GT/s PCIe"
  std::string max_speed;
};

struct MachineInfo {
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
  // and stability (core/stats.hpp) are written beside it, derived from samples_ms.
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

  // The first case matching every given field, or nullptr.
  const Case* find(const std::string& part, const std::string& direction, const std::string& memory,
                   std::uint64_t bytes) const;
  Case* find(const std::string& part, const std::string& direction, const std::string& memory,
             std::uint64_t bytes);
  bool all_gates_passed() const;
};

nlohmann::json to_json(const RunRecord& record);

// Throws InputError naming what is wrong when `j` is not a run record of a known version.
RunRecord record_from_json(const nlohmann::json& j);

// Throws InputError when the file is missing, unreadable, not JSON, truncated or not a record.
RunRecord load_record(const std::string& path);

// Writes to a temporary file beside `path` and renames it into place, so a crash never leaves
// half a record. Throws InputError when the file cannot be written.
void save_record(const RunRecord& record, const std::string& path);

// Current UTC time in ISO 8601.
std::string utc_now_iso8601();

}  // namespace pinbench
