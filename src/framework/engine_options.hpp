// The staged engine's options as pinbench's plans and records hold them, for every experiment
// that runs the engine (staged, staged --tune, the pipeline): the limits its command lines check
// counts against, the check of a whole set of options before anything is allocated, and the
// options as a record's JSON. No CUDA: pinbench/staged_options.hpp is plain data, checked by the
// engine's own CUDA-free code (base/chunk_plan.cpp).
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pinbench/staged_options.hpp"

namespace pinbench {

// The engine's limits on a ring, as staged_options_problem checks them (a test holds the two
// together), the same limit for every other count of host threads, and the pipeline's on its
// streams: the command line's lists, checks and help use these, so a count the help offers is
// never refused later.
constexpr int kMinRingDepth = 2;  // one buffer fills while another moves
constexpr int kMaxRingDepth = 64;
constexpr int kMaxHostThreads = 256;
constexpr int kMaxStreams = 64;

// Parses a comma-separated list of counts, each from `min` to `max` ("1,2,4"); throws
// InputError naming `what` and the range.
std::vector<int> parse_counts(std::string_view list, const char* what, int min = 1,
                              int max = kMaxStreams);

// Throws InputError "staged engine: WHY" for options the engine would refuse.
void check_engine_options(const StagedCopyOptions& options);

// The staged engine's settings as JSON, for records.
nlohmann::json to_json(const StagedCopyOptions& o);

}  // namespace pinbench
