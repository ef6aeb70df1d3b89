// How experiments report progress: a callback given a short line. The CLI decides whether it
// reaches a terminal.
#pragma once

#include <functional>
#include <string>

namespace pinbench {

using ProgressFn = std::function<void(const std::string&)>;

}  // namespace pinbench
