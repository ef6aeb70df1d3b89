// The staged engine's settings, as a record's config holds them (framework/engine_options.hpp's
// to_json), in words: the heading of the text of every record made through the engine.
#pragma once

#include <string>

#include "framework/record.hpp"

namespace pinbench {

// `title`, the machine, when and by which pinbench the record was made, and the engine's
// settings where the config holds them ("Engine:  to the device ...").
std::string engine_header(const RunRecord& record, const std::string& title);

}  // namespace pinbench
