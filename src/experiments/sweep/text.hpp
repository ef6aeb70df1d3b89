// Terminal renderings of the sweep, the bandwidthtest and the race.
#pragma once

#include <string>

#include "framework/record.hpp"

namespace pinbench {

std::string render_sweep_text(const RunRecord& record);
std::string render_bandwidthtest_text(const RunRecord& record);
std::string render_race_text(const RunRecord& record);

}  // namespace pinbench
