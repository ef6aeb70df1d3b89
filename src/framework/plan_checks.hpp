// Checks a plan makes before anything is allocated, the same words for every experiment that
// makes them: its counts of warm-ups and samples, and pinning more than half of the host.
#pragma once

#include <cstdint>
#include <string>

namespace pinbench {

// Throws InputError for a negative warm-up count or fewer than one timed sample.
void check_counts(int warmups, int iterations);

// "WHAT would pin X of this host's Y (more than half); pass --force to allow it", or "" when
// `pinned` bytes are at most half of `host_total`, `force` is given or the total is unknown (0).
std::string pin_problem(std::uint64_t pinned, std::uint64_t host_total, bool force,
                        const char* what);

}  // namespace pinbench
