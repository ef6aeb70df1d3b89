#include "framework/plan_checks.hpp"

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench {

void check_counts(int warmups, int iterations) {
  if (warmups < 0) throw InputError("warm-up count cannot be negative");
  if (iterations < 1) throw InputError("at least 1 timed sample per case is needed");
}

std::string pin_problem(std::uint64_t pinned, std::uint64_t host_total, bool force,
                        const char* what) {
  if (force || host_total == 0 || pinned <= host_total / 2) return "";
  return fmt::format("{} would pin {} of this host's {} (more than half); pass --force to allow it",
                     what, format_size(pinned), format_size(host_total));
}

}  // namespace pinbench
