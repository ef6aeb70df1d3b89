// The start and end of every experiment's run record.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "core/record/record.hpp"

namespace pinbench {

// A measured record of `experiment` on device 0, stamped with pinbench's version, the time and
// the machine's description.
RunRecord start_record(const std::string& experiment, nlohmann::json config);

// Sets the record's wall time: from `start` to now.
void finish_record(RunRecord& record, std::chrono::steady_clock::time_point start);

}  // namespace pinbench
