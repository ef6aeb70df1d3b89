#include "measure/run_record.hpp"

#include <algorithm>

#include "cuda/buffers.hpp"
#include "cuda/device.hpp"
#include "framework/case_builder.hpp"
#include "framework/host_info.hpp"
#include "framework/interrupt.hpp"
#include "version.hpp"

namespace pinbench {

RunRecord start_record(const std::string& experiment, nlohmann::json config) {
  RunRecord record;
  record.experiment = experiment;
  record.pinbench_version = kVersion;
  record.created_utc = utc_now_iso8601();
  record.machine = cuda::query_machine(cuda::selected_device());
  record.config = std::move(config);
  return record;
}

RunRecord start_host_record(const std::string& experiment, const std::string& no_device) {
  RunRecord record;
  record.experiment = experiment;
  record.pinbench_version = kVersion;
  record.created_utc = utc_now_iso8601();
  describe_host(record.machine);
  record.machine.no_device = no_device;
  return record;
}

bool stop_before_next_case(RunRecord& record) {
  if (!stop_requested()) return false;
  record.incomplete = true;
  record.interrupted_by = signal_name(stop_signal());
  return true;
}

void finish_record(RunRecord& record, SteadyClock::time_point start) {
  record.wall_ms = ms_since(start);
  // A case whose gate failed before its first timed sample has no figure to give, and a record
  // with a sample-less case is refused by every reader: its failed gate stays, and says why.
  record.cases.erase(std::remove_if(record.cases.begin(), record.cases.end(),
                                    [](const Case& c) { return c.samples_ms.empty(); }),
                     record.cases.end());
}

Gate kind_gate(const std::string& name, const void* ptr, const std::string& expected) {
  return kind_gate_from(name, cuda::observed_memory_kind(ptr), expected);
}

Gate kind_gate(const std::string& name, const void* ptr, MemoryKind kind) {
  return kind_gate(name, ptr, cuda::expected_observed_kind(kind));
}

bool add_gate(RunRecord& record, Gate gate) {
  record.gates.push_back(std::move(gate));
  return record.gates.back().passed;
}

}  // namespace pinbench
