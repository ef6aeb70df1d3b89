// `pinbench bandwidthtest`: the devblog's classic program. One buffer of floats, copied host to
// device and back from pageable and from pinned memory, rates in GB/s, and a check that the
// bytes that came back are the bytes that went.
#pragma once

#include <cstdint>

#include "experiments/bandwidthtest/plan.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::bandwidthtest {

// Cases of part "bandwidthtest": h2d and d2h for pageable and pinned. A case whose copied-back
// bytes differ has verified = false and a failed gate naming the first differing byte.
RunRecord run_bandwidthtest(const BandwidthTestConfig& config);

}  // namespace pinbench::experiments::bandwidthtest
