// What a staged copy engine's host threads were and did in a run, for the run record of every
// experiment that copies through one (staged, pipeline): the CPU budget it sized them to, how
// many it made, and what each direction got of them.
#pragma once

#include <nlohmann/json.hpp>

#include "pinbench/staged_copy.hpp"

namespace pinbench {

// Written into the record's config.engine: cpu_budget, host_threads, and `lanes`, each
// direction's thread seconds, slices and the most threads at once, with the fresh destinations it
// prefaulted.
inline void put_engine_threads(nlohmann::json& engine, const StagedCopierStats& s) {
  engine["cpu_budget"] = s.cpu_budget;
  engine["host_threads_made"] = s.host_threads;
  engine["lanes"] = {{"to_device",
                      {{"thread_s", s.to_device_thread_s},
                       {"slices", s.to_device_slices},
                       {"most_threads", s.to_device_most_threads}}},
                     {"to_host",
                      {{"thread_s", s.to_host_thread_s},
                       {"slices", s.to_host_slices},
                       {"most_threads", s.to_host_most_threads},
                       {"prefaulted_copies", s.prefaulted_copies},
                       {"huge_page_copies", s.huge_page_copies}}}};
}

}  // namespace pinbench
