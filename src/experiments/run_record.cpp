#include "experiments/run_record.hpp"

#include "cuda/device.hpp"
#include "version.hpp"

namespace pinbench {

RunRecord start_record(const std::string& experiment, nlohmann::json config) {
  RunRecord record;
  record.experiment = experiment;
  record.pinbench_version = kVersion;
  record.created_utc = utc_now_iso8601();
  record.machine = cuda::query_machine(0);
  record.config = std::move(config);
  return record;
}

void finish_record(RunRecord& record, std::chrono::steady_clock::time_point start) {
  record.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace pinbench
